// engine.fromLinear: the separate q/k/v/out projections of Hugging Face-style modules. Checked
// against what nn.MultiheadAttention's packed in_proj is by definition (its rows are q, k and v
// stacked, which fromTorch already matches PyTorch on), and, for GQA, against the plain-loop
// reference with each nn.Linear weight transposed here.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { compare } from './helpers.js';
import { referenceAttention } from './reference.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 0.3);

test('the split of nn.MultiheadAttention\'s in_proj gives exactly what fromTorch gives', () => {
  const C = 6;
  const inProjWeight = values(3 * C * C, 1), inProjBias = values(3 * C, 2), outWeight = values(C * C, 3), outBias = values(C, 4);
  const fromTorch = engine.fromTorch({ in_proj_weight: inProjWeight, in_proj_bias: inProjBias, out_proj_weight: outWeight, out_proj_bias: outBias });
  const rows = (array, i) => array.slice(i * C * C, (i + 1) * C * C);
  const part = (array, i) => array.slice(i * C, (i + 1) * C);
  const flat = engine.fromLinear({
    'q_proj.weight': rows(inProjWeight, 0), 'q_proj.bias': part(inProjBias, 0),
    'k_proj.weight': rows(inProjWeight, 1), 'k_proj.bias': part(inProjBias, 1),
    'v_proj.weight': rows(inProjWeight, 2), 'v_proj.bias': part(inProjBias, 2),
    'out_proj.weight': outWeight, 'out_proj.bias': outBias,
  });
  assert.deepEqual(flat, fromTorch);
  const nested = engine.fromLinear({
    q_proj: { weight: Array.from(rows(inProjWeight, 0)) }, k_proj: { weight: rows(inProjWeight, 1) },
    v_proj: { weight: rows(inProjWeight, 2) }, out_proj: { weight: outWeight },
  });
  assert.deepEqual(Object.keys(nested).sort(), ['Wk', 'Wo', 'Wq', 'Wv']);
  assert.deepEqual(nested.Wq, fromTorch.Wq);
});

test('GQA projections (k_proj and v_proj with fewer heads) run as the reference computes them', () => {
  const [B, T, C, H, Hkv] = [2, 3, 8, 4, 2];
  const D = C / H;
  const linear = {
    'q_proj.weight': values(H * D * C, 5), 'q_proj.bias': values(H * D, 6),
    'k_proj.weight': values(Hkv * D * C, 7), 'k_proj.bias': values(Hkv * D, 8),
    'v_proj.weight': values(Hkv * D * C, 9), 'v_proj.bias': values(Hkv * D, 10),
    'out_proj.weight': values(C * C, 11), 'out_proj.bias': values(C, 12),
  };
  // nn.Linear computes x·Wᵀ + b with W [out, in]: the walkthrough's W is its transpose.
  const transpose = (W, rows) => Float32Array.from({ length: W.length }, (_, i) => W[(i % rows) * C + Math.floor(i / rows)]);
  const weights = {
    Wq: transpose(linear['q_proj.weight'], H * D), Wk: transpose(linear['k_proj.weight'], Hkv * D),
    Wv: transpose(linear['v_proj.weight'], Hkv * D), Wo: transpose(linear['out_proj.weight'], C),
    bq: linear['q_proj.bias'], bk: linear['k_proj.bias'], bv: linear['v_proj.bias'], bo: linear['out_proj.bias'],
  };
  const x = values(B * T * C, 13);
  const run = engine.run({ B, T, C, H, Hkv, mask: 'causal', x, weights: engine.fromLinear(linear) });
  const expected = referenceAttention({ B, T, Tk: T, C, H, Hkv, causal: true, keyLengths: null, x, kv: null, weights });
  const { firstBad, maxAbs } = compare(run.output, expected.output, 1e-5);
  assert.equal(firstBad, -1, `max |diff| ${maxAbs}`);
});

test('wrong shapes and missing biases are refused by name, in both languages', () => {
  const C = 4;
  const good = { 'q_proj.weight': values(C * C, 1), 'k_proj.weight': values(C * C, 2), 'v_proj.weight': values(C * C, 3), 'out_proj.weight': values(C * C, 4) };
  const cases = [
    [{ ...good, 'q_proj.weight': values(C * C + 1, 1) }, 'q_proj.weight', 'q_proj.weight has 17 values, which is not a whole number of rows of C=4: an nn.Linear weight is [out_features, C].'],
    [{ ...good, 'v_proj.weight': values(2 * C, 1) }, 'v_proj.weight', 'v_proj.weight has 8 values but k_proj.weight has 16: K and V have as many heads as each other.'],
    [{ ...good, 'q_proj.bias': values(C, 1) }, 'k_proj.bias', 'k_proj.bias is missing: give a bias for all four projections (a module with bias=True), or for none (bias=False).'],
    [{ ...good, 'q_proj.bias': values(3, 1), 'k_proj.bias': values(C, 1), 'v_proj.bias': values(C, 1), 'out_proj.bias': values(C, 1) }, 'q_proj.bias', 'q_proj.bias has 3 values but needs 4, one per row of q_proj.weight.'],
    [{ ...good, 'k_proj.weight': 'abc' }, 'k_proj.weight', 'k_proj.weight must be a Float32Array or an array of numbers, not the string "abc".'],
    [{ ...good, 'out_proj.weight': undefined }, 'C', /^C=NaN is not allowed/],
  ];
  for (const [params, field, message] of cases) {
    assert.throws(() => engine.fromLinear(params), (error) => {
      assert.equal(error.field, field);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      assert.match(error.messageIn('zh'), /[\u4e00-\u9fff]/);
      return true;
    });
  }
  assert.throws(() => engine.fromLinear(null), { code: 'bad_type', field: 'params' });
});
