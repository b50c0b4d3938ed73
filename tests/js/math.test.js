// Formulas are rendered to MathML at build time (scripts/render_formulas.js → web/dist/formulas.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FORMULAS } from '../../web/dist/formulas.mjs';
import { renderFormula } from '../../scripts/render_formulas.js';
import katex from 'katex';
import { allFormulas, parameterFormula } from '../../web/src/logic/walkthrough/walkthrough-text.js';
import { renderMath } from '../../web/src/logic/math.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

test('every formula the page shows is pre-rendered, and the file matches a fresh render', async () => {
  const engine = await getTestEngine();
  const all = allFormulas(engine);
  assert.ok(all.length >= 30, `${all.length} formulas`);
  for (const latex of all) {
    assert.ok(FORMULAS[latex]?.includes('<math'), `missing: ${latex}`);
    assert.equal(FORMULAS[latex], renderFormula(latex), `stale: ${latex}`);
  }
  // Independently of the configs the build renders for: every step of runs that exercise every
  // branch (masks, padding, cross-attention, GQA, MQA, no bias) finds its formula rendered.
  for (const config of CONFIGS) {
    for (const step of engine.run(config).steps) assert.ok(step.latex in FORMULAS, `${JSON.stringify(config)} ${step.id}: ${step.latex}`);
  }
  assert.match(FORMULAS[engine.run(CONFIGS[0]).step('x').latex], /<mi mathvariant="normal">ℝ<\/mi>/);
});

test('every step formula is valid LaTeX, with bias terms only when there is a bias, and Hkv only under GQA/MQA', async () => {
  const engine = await getTestEngine();
  for (const config of CONFIGS) {
    const run = engine.run(config);
    const { bias, cross, H, Hkv } = run.summary;
    for (const step of run.steps) {
      assert.doesNotThrow(() => katex.renderToString(step.latex, { output: 'mathml', throwOnError: true }), `${step.id}: ${step.latex}`);
      if (step.op === 'projection') assert.equal(step.latex.includes('b_'), bias, `${step.id} bias`);
      if (['k_split', 'v_split'].includes(step.id)) assert.equal(step.latex.includes('H_{kv}'), Hkv < H, `${step.id} under H=${H} Hkv=${Hkv}`);
    }
    assert.match(run.step('k').latex, cross ? /^K = S/ : /^K = X/);
  }
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
