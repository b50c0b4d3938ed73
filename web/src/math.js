// Formulas as real math: KaTeX (bundled from node_modules into web/dist/ by scripts/build.sh)
// with MathML output, which needs no KaTeX CSS or fonts and so no style exception in the CSP.
import katex from '../dist/katex.mjs';

/** Renders LaTeX into `element`; the LaTeX is the page's own, never user text. */
export function renderMath(element, latex) {
  const mathml = katex.renderToString(latex, { output: 'mathml', throwOnError: false, displayMode: false });
  // Chromium's MathML ignores mathvariant="double-struck"; the Unicode letter needs no font switch.
  element.innerHTML = mathml.replace(/<mi mathvariant="double-struck">R<\/mi>/g, '<mi mathvariant="normal">ℝ</mi>');
}
