// Formulas are rendered to MathML at build time (scripts/render_formulas.js → web/dist/formulas.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FORMULAS } from '../../web/dist/formulas.mjs';
import { renderFormula } from '../../scripts/render_formulas.js';
import { allFormulas, formulaLatex, parameterFormula } from '../../web/src/logic/walkthrough-text.js';
import { renderMath } from '../../web/src/logic/math.js';

test('every formula the page shows is pre-rendered, and the file matches a fresh render', () => {
  const all = allFormulas();
  assert.ok(all.length >= 30, `${all.length} formulas`);
  for (const latex of all) {
    assert.ok(FORMULAS[latex]?.includes('<math'), `missing: ${latex}`);
    assert.equal(FORMULAS[latex], renderFormula(latex), `stale: ${latex}`);
  }
  assert.ok(formulaLatex('q', { bias: true }) in FORMULAS);
  assert.match(FORMULAS[formulaLatex('x')], /<mi mathvariant="normal">ℝ<\/mi>/);
});

test('renderMath fills the slots with the config\'s numbers, as text', () => {
  const element = { innerHTML: '', textContent: '' };
  renderMath(element, parameterFormula(true), { C: 768, N: 2362368 });
  assert.match(element.innerHTML, /<msup><mn>768<\/mn><mn>2<\/mn><\/msup>/);
  assert.match(element.innerHTML, /<mn>2362368<\/mn>/);
  assert.doesNotMatch(element.innerHTML, /\{\{[CN]\}\}|98765/);
  renderMath(element, parameterFormula(false), { C: '<b>', N: 1 });
  assert.match(element.innerHTML, /<mn>&#60;b&#62;<\/mn>/);
  renderMath(element, 'not a known formula');
  assert.equal(element.textContent, 'not a known formula');
});
