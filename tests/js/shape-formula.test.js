// The page's shape formulas (web/src/catalogue/shape-formula.js), made from the engine's catalogue:
// with numbers they read exactly as the engine's own step.shapeFormula (English), with axis
// symbols they name every axis, and in Chinese no English word is left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeFormulaParts, shapeFormulaText } from '../../web/src/catalogue/shape-formula.js';
import { translator } from '../../web/src/text/translate.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

const en = translator('en');
const zh = translator('zh');
const MORE = [{ B: 2, T: 3, C: 8, H: 2, mask: 'causal', keyLengths: [3, 1] }, { B: 1, T: 3, Tk: 5, C: 12, H: 4, bias: false }];

test('with numbers, every step of every kind of run reads as the engine\'s shapeFormula', async () => {
  const engine = await getTestEngine();
  const operands = Object.fromEntries(engine.catalogue.map((entry) => [entry.id, entry.operands]));
  for (const config of [...CONFIGS, ...MORE]) {
    const run = engine.run(config);
    for (const step of run.steps) {
      const parts = shapeFormulaParts(operands[step.id], step, run.summary);
      assert.equal(shapeFormulaText(parts, en, { D: run.summary.D }), step.shapeFormula, `${JSON.stringify(config)} ${step.id}`);
      // Each shape's sizes are its axes' sizes in this run.
      const last = parts.at(-1);
      assert.deepEqual(last.axes, step.axes);
    }
  }
});

test('with axis symbols, equal sizes no longer hide which axis is which', async () => {
  const engine = await getTestEngine();
  const operands = Object.fromEntries(engine.catalogue.map((entry) => [entry.id, entry.operands]));
  const run = engine.run({ B: 2, T: 4, C: 8, H: 2 });
  const symbolic = (id) => shapeFormulaText(shapeFormulaParts(operands[id], run.step(id), run.summary), en, { symbols: true });
  assert.equal(run.step('scores').shapeFormula, '[2,2,4,4] @ [2,2,4,4] → [2,2,4,4]');
  assert.equal(symbolic('scores'), '[B,H,Tq,D] @ [B,H,D,Tk] → [B,H,Tq,Tk]');
  assert.equal(symbolic('context'), '[B,H,Tq,Tk] @ [B,H,Tk,D] → [B,H,Tq,D]');
  assert.equal(symbolic('q'), '[B,T,C] @ [C,H·D] + [H·D] → [B,T,H·D]');
  assert.equal(symbolic('scaled'), '[B,H,Tq,Tk] × 1/√D → [B,H,Tq,Tk]');
  assert.equal(symbolic('x'), '[B,T,C]');
  const gqa = engine.run({ B: 1, T: 3, C: 12, H: 4, Hkv: 2, mask: 'causal' });
  assert.equal(shapeFormulaText(shapeFormulaParts(operands.k, gqa.step('k'), gqa.summary), en, { symbols: true }), '[B,Tk,C] @ [C,Hkv·D] + [Hkv·D] → [B,Tk,Hkv·D]');
  assert.equal(shapeFormulaText(shapeFormulaParts(operands.masked, gqa.step('masked'), gqa.summary), en, { symbols: true }), '[B,H,Tq,Tk] + causal mask [Tq,Tk] → [B,H,Tq,Tk]');
});

test('in Chinese the words are Chinese: no "with no mask", no "softmax over Tk of"', async () => {
  const engine = await getTestEngine();
  const operands = Object.fromEntries(engine.catalogue.map((entry) => [entry.id, entry.operands]));
  for (const config of [...CONFIGS, ...MORE]) {
    const run = engine.run(config);
    for (const step of run.steps) {
      const text = shapeFormulaText(shapeFormulaParts(operands[step.id], step, run.summary), zh, { D: run.summary.D });
      assert.doesNotMatch(text, /\b(with|mask|over|of|causal|padding)\b/, `${step.id}: ${text}`);
    }
  }
});

test('every piece of text in the catalogue\'s operands is an operator or has words', async () => {
  const engine = await getTestEngine();
  const summary = engine.run({ B: 1, T: 2, C: 4, H: 2 }).summary;
  for (const entry of engine.catalogue) {
    assert.doesNotThrow(() => shapeFormulaParts(entry.operands, { id: entry.id, axes: [], shape: [] }, summary), entry.id);
  }
});

test('the backward, tiled and incremental steps read as the engine\'s shapeFormula too, and in Chinese without English words', async () => {
  const engine = await getTestEngine();
  const operands = Object.fromEntries(engine.catalogue.map((entry) => [entry.id, entry.operands]));
  const configs = [
    { B: 2, T: 3, C: 8, H: 2, mask: 'causal', dOutput: new Float32Array(48).fill(1) },
    { B: 1, T: 5, C: 8, H: 2, mask: 'causal', algorithm: 'tiled', blockQ: 2, blockK: 3 },
    { B: 1, T: 3, Tk: 7, C: 12, H: 4, Hkv: 2, algorithm: 'tiled' },
    { B: 2, T: 4, C: 8, H: 2, Hkv: 1, mask: 'causal', algorithm: 'incremental' },
  ];
  let shown = 0;
  for (const config of configs) {
    const run = engine.run(config);
    for (const step of run.steps) {
      const parts = shapeFormulaParts(operands[step.id], step, run.summary);
      if (!parts) continue; // a template with per-run slots: the page shows the engine's text
      shown++;
      assert.equal(shapeFormulaText(parts, en, { D: run.summary.D }), step.shapeFormula, `${JSON.stringify(config)} ${step.id}`);
      const text = shapeFormulaText(parts, zh, { D: run.summary.D });
      assert.doesNotMatch(text, /\b(with|mask|over|of|causal|padding|per|tiles?|token|backward|in)\b/, `${step.id}: ${text}`);
    }
  }
  assert.ok(shown > 50, `${shown} formulas checked`);
});
