// Formulas as real math: MathML rendered ahead of time by KaTeX (scripts/render_formulas.js writes
// web/dist/formulas.mjs), so the page ships no KaTeX, no CSS and no fonts, and needs no style
// exception in its CSP.
import { FORMULAS } from '../../dist/formulas.mjs';

const escapeText = (text) => String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Renders `latex` (one of the page's own formulas, never user text) into `element`, filling its
 * {{slots}} from `values`. An unknown formula shows as plain text rather than failing.
 */
export function renderMath(element, latex, values = {}) {
  const mathml = FORMULAS[latex];
  if (!mathml) {
    element.textContent = latex;
    return;
  }
  element.innerHTML = mathml.replace(/\{\{([A-Z])\}\}/g, (_, name) => escapeText(values[name] ?? name));
}
