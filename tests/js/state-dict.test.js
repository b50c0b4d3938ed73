// A pasted PyTorch state dict (web/src/logic/page/state-dict.js): nn.MultiheadAttention's in_proj
// layout and the separate q/k/v/out projections read into engine.fromTorch / fromLinear, whose
// weights reproduce the PyTorch fixtures' runs; in_proj_weight is Wq, Wk, Wv transposed and stacked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inProjWeight, parseStateDict, readStateDict, StateDictError } from '../../web/src/logic/page/state-dict.js';
import { getTestEngine } from './engine-helper.js';
import { compare, loadFixtures } from './helpers.js';

// A [rows, cols] row-major array as nested lists, as tensor.tolist() writes it.
const nested = (flat, rows, cols) => Array.from({ length: rows }, (_, r) => Array.from(flat.slice(r * cols, (r + 1) * cols)));
const transpose = (flat, rows, cols) => Float32Array.from({ length: rows * cols }, (_, i) => flat[(i % rows) * cols + Math.floor(i / rows)]);

test('a state dict in nn.MultiheadAttention\'s layout runs as PyTorch ran it', async () => {
  const engine = await getTestEngine();
  const fixture = loadFixtures().find((f) => f.config.bias && f.config.Hkv === f.config.H && f.config.Tk === f.config.T);
  const { C } = fixture.config;
  const w = Object.fromEntries(Object.entries(fixture.config.weights).map(([k, v]) => [k, Float32Array.from(v)]));
  // What PyTorch's state_dict() holds: in_proj_weight [3C, C] = [Wqᵀ; Wkᵀ; Wvᵀ], out_proj.weight = Woᵀ.
  const stateDict = {
    in_proj_weight: nested(inProjWeight(w, C), 3 * C, C),
    in_proj_bias: [...w.bq, ...w.bk, ...w.bv],
    'out_proj.weight': nested(transpose(w.Wo, C, C), C, C),
    'out_proj.bias': Array.from(w.bo),
  };
  const read = parseStateDict(JSON.stringify({ 'encoder.attn.in_proj_weight': stateDict.in_proj_weight, ...Object.fromEntries(Object.entries(stateDict).slice(1)) }));
  assert.equal(read.kind, 'torch');
  assert.equal(read.C, C);
  assert.equal(read.bias, true);
  const weights = engine.fromTorch(read.params);
  const run = engine.run({ ...fixture.config, weights });
  const result = compare(run.step('weights').data, fixture.expected.weights.data, 1e-5);
  assert.ok(result.maxAbs <= 1e-5, `weights differ from PyTorch by ${result.maxAbs}`);
  // The transpose: in_proj_weight[c][r] is Wq[r][c].
  assert.equal(stateDict.in_proj_weight[1][0], Math.fround(w.Wq[0 * C + 1]));
});

test('separate projections read for fromLinear; no bias means bias off', async () => {
  const engine = await getTestEngine();
  const C = 4;
  const lin = (seed) => nested(Float32Array.from({ length: C * C }, (_, i) => Math.sin(seed + i) / 4), C, C);
  const read = readStateDict({ 'q_proj.weight': lin(1), 'k_proj.weight': lin(2), 'v_proj.weight': lin(3), 'out_proj.weight': lin(4) });
  assert.equal(read.kind, 'linear');
  assert.equal(read.bias, false);
  const weights = engine.fromLinear(read.params);
  assert.equal(engine.run({ B: 1, T: 2, C, H: 2, bias: false, weights }).summary.C, C);
});

test('what is not a state dict is refused, in both languages', () => {
  for (const [value, code] of [[[1, 2], 'notObject'], [{ foo: [1] }, 'noWeights'], [{ in_proj_weight: [[1, 'x']], 'out_proj.weight': [[1]] }, 'notNumbers'],
    [{ in_proj_weight: [[1], 2], 'out_proj.weight': [[1]] }, 'ragged'], [{ in_proj_weight: [[1]] }, 'missing'], [{ in_proj_weight: [[1]], 'out_proj.weight': [1, 2, 3] }, 'notSquare']]) {
    assert.throws(() => readStateDict(value), (error) => {
      assert.ok(error instanceof StateDictError, `${code}: ${error}`);
      assert.equal(error.code, code);
      assert.notEqual(error.messageIn('en'), error.key);
      assert.notEqual(error.messageIn('zh'), error.messageIn('en'));
      return true;
    });
  }
  assert.throws(() => parseStateDict('{"__proto__": {}}'), (error) => error.code === 'forbiddenKey');
});
