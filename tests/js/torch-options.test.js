// nn.MultiheadAttention's options through the JS API, against PyTorch (tests/fixtures/options,
// written by scripts/make_fixtures.py from the module itself): engine.fromTorch reads the state
// dict as PyTorch writes it (nested lists, any module path, bias_k and bias_v), the run with those
// weights gives the module's output and weights within 1e-5, naive and tiled; and what fromTorch,
// fromLinear and the page's paste box do not read is refused by name.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { readStateDict } from '../../web/src/logic/page/state-dict.js';
import { assertClose, FIXTURES_DIR } from './helpers.js';

const OPTIONS_DIR = `${FIXTURES_DIR}options/`;
const fixtures = readdirSync(OPTIONS_DIR).filter((n) => n.endsWith('.json')).sort()
  .map((n) => JSON.parse(readFileSync(OPTIONS_DIR + n, 'utf8')));

let engine;
before(async () => {
  engine = await createEngine();
});

// A {shape, data} tensor as tensor.tolist() writes it: nested lists.
function nested({ shape, data }) {
  const build = (axis, offset) => {
    if (axis === shape.length) return data[offset];
    const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[axis] }, (_, i) => build(axis + 1, offset + i * stride));
  };
  return shape.length ? build(0, 0) : data[0];
}

const stateDict = (fixture, prefix = '') =>
  Object.fromEntries(Object.entries(fixture.torch.state_dict).map(([k, v]) => [prefix + k, nested(v)]));

const refusedWith = (key) => (error) => error instanceof MhaError && error.key === key;

test('there are PyTorch fixtures for add_bias_kv', () => {
  assert.ok(fixtures.length >= 3);
  assert.ok(fixtures.every((f) => f.torch.constructor.add_bias_kv));
});

for (const fixture of fixtures) {
  test(`${fixture.name}: fromTorch of the module's state dict runs as the module does`, () => {
    const { weights: expectedWeights, ...sizes } = fixture.config;
    const weights = engine.fromTorch(stateDict(fixture));
    assert.deepEqual(Object.keys(weights).sort(), Object.keys(expectedWeights).sort());
    for (const [name, values] of Object.entries(expectedWeights)) assert.deepEqual(Array.from(weights[name]), values, name);
    for (const algorithm of ['naive', 'tiled']) {
      const run = engine.run({ ...sizes, weights, algorithm, ...(algorithm === 'tiled' ? { blockK: 3 } : {}) });
      assertClose(assert, run.output, fixture.expected.output.data, 1e-5, `${fixture.name} ${algorithm} output`);
      assert.equal(run.summary.appended, 1);
      assert.equal(run.step('k_appended').axes[2], 'Tk+1');
      assert.equal(run.step('k_heads').axes[2], 'Tk');
      if (algorithm === 'naive') {
        const step = run.step('weights');
        assert.deepEqual(step.shape, fixture.expected.weights.shape);
        assertClose(assert, step.data, fixture.expected.weights.data, 1e-5, `${fixture.name} weights`);
        assert.match(step.shapeFormula, new RegExp(`→ \\[${fixture.expected.weights.shape.join(',')}\\]$`));
        assert.equal(run.step('k_t').input, 'k_appended');
      }
      assert.deepEqual(run.warnings, []);
    }
  });
}

test('fromTorch reads a state dict under any one module path, or the one prefix names', () => {
  const fixture = fixtures[0];
  const plain = engine.fromTorch(stateDict(fixture));
  assert.deepEqual(engine.fromTorch(stateDict(fixture, 'self_attn.')), plain);
  const two = { ...stateDict(fixture, 'layers.0.self_attn.'), ...stateDict(fixture, 'layers.1.self_attn.') };
  assert.throws(() => engine.fromTorch(two), (e) => refusedWith('torch.prefixes')(e) && /layers\.0\.self_attn\./.test(e.message));
  assert.deepEqual(engine.fromTorch({ ...two, prefix: 'layers.1.self_attn' }), plain);
  assert.throws(() => engine.fromTorch({ ...two, prefix: 'decoder.' }), refusedWith('torch.prefix_none'));
});

test('fromTorch refuses by name every key it does not use', () => {
  const dict = stateDict(fixtures[0], 'self_attn.');
  assert.throws(() => engine.fromTorch({ ...dict, 'linear1.weight': [[1]] }), (e) => refusedWith('torch.unknown_key')(e) && e.message.includes('linear1.weight'));
  assert.throws(() => engine.fromTorch({ 'q_proj.weight': [[1]], 'o_proj.weight': [[1]] }), refusedWith('torch.linear_names'));
  // kdim ≠ embed_dim: its own q/k/v weights, k_proj_weight [C, kdim].
  const C = 8;
  const kdim = { q_proj_weight: new Float32Array(C * C), k_proj_weight: new Float32Array(C * 5), v_proj_weight: new Float32Array(C * C),
    in_proj_bias: new Float32Array(3 * C), 'out_proj.weight': new Float32Array(C * C), 'out_proj.bias': new Float32Array(C) };
  assert.throws(() => engine.fromTorch(kdim), (e) => refusedWith('torch.kdim')(e) && e.field === 'k_proj_weight' && /kdim or vdim/.test(e.message));
  assert.throws(() => engine.fromTorch({ ...dict, 'self_attn.bias_v': undefined }), refusedWith('missing.torch_bias_kv'));
  assert.throws(() => engine.fromTorch({ in_proj_weight: [[1, 2], [3]], 'out_proj.weight': [[1]] }), refusedWith('torch.ragged'));
});

test('fromTorch reads the kdim/vdim layout when its weights are [C, C]', () => {
  const { torch } = fixtures[0];
  const inProj = torch.state_dict.in_proj_weight.data;
  const C = fixtures[0].config.C;
  const rows = (i) => inProj.slice(i * C * C, (i + 1) * C * C);
  const dict = stateDict(fixtures[0]);
  delete dict.in_proj_weight;
  const separate = engine.fromTorch({ ...dict, q_proj_weight: rows(0), k_proj_weight: rows(1), v_proj_weight: rows(2) });
  assert.deepEqual(separate, engine.fromTorch(stateDict(fixtures[0])));
});

test('fromLinear reads Llama\'s o_proj as out_proj, under a module path, and points packed names to fromTorch', () => {
  const C = 4;
  const w = (n, s) => Float32Array.from({ length: n }, (_, i) => Math.sin(s + i));
  const layers = { 'q_proj.weight': w(C * C, 1), 'k_proj.weight': w(C * C, 2), 'v_proj.weight': w(C * C, 3) };
  const withOut = engine.fromLinear({ ...layers, 'out_proj.weight': w(C * C, 4) });
  const prefixed = Object.fromEntries(Object.entries({ ...layers, 'o_proj.weight': w(C * C, 4) }).map(([k, v]) => [`model.layers.0.self_attn.${k}`, v]));
  assert.deepEqual(engine.fromLinear(prefixed), withOut);
  assert.throws(() => engine.fromLinear({ ...layers, 'out_proj.weight': w(C * C, 4), 'rotary_emb.inv_freq': w(2, 5) }),
    (e) => refusedWith('linear.unknown_key')(e) && e.message.includes('rotary_emb.inv_freq'));
  assert.throws(() => engine.fromLinear({ in_proj_weight: w(3 * C * C, 1), 'out_proj.weight': w(C * C, 2) }), refusedWith('linear.torch_names'));
});

test('the page\'s paste box keeps bias_k and bias_v, and refuses the attention module\'s unknown keys by name', () => {
  const fixture = fixtures[0];
  const pasted = readStateDict({ ...stateDict(fixture, 'self_attn.'), 'linear1.weight': [[0]] });
  assert.equal(pasted.kind, 'torch');
  assert.ok(pasted.params.bias_k && pasted.params.bias_v);
  const weights = engine.fromTorch(pasted.params);
  const { weights: _, ...sizes } = fixture.config;
  assertClose(assert, engine.run({ ...sizes, weights }).output, fixture.expected.output.data, 1e-5, 'pasted output');
  assert.throws(() => readStateDict({ ...stateDict(fixture, 'self_attn.'), 'self_attn.extra': [1] }), (e) => e.key === 'torch.error.unknownKey');
  assert.throws(() => readStateDict({ ...stateDict(fixture, 'layers.0.'), ...stateDict(fixture, 'layers.1.') }), (e) => e.key === 'torch.error.twoModules');
});

test('a config\'s addBiasKv says what the weights must hold', () => {
  const fixture = fixtures[0];
  const { weights, ...sizes } = fixture.config;
  assert.throws(() => engine.run({ ...sizes, addBiasKv: false, weights }), refusedWith('bad_value.bias_kv_given'));
  const { bias_v: _, ...half } = weights;
  assert.throws(() => engine.run({ ...sizes, weights: half }), refusedWith('missing.bias_kv'));
  assert.throws(() => engine.run({ ...sizes, weights, algorithm: 'incremental', mask: 'causal' }), refusedWith('bad_value.incremental_bias_kv'));
  const seeded = engine.run({ B: 1, T: 3, C: 8, H: 2, addBiasKv: true });
  assert.deepEqual(seeded.step('weights').shape, [1, 2, 3, 4]);
  assert.equal(seeded.weights.bias_k.length, 8);
});
