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

const biasKv = fixtures.filter((f) => f.torch.constructor.add_bias_kv);
const appendedKeys = (f) => (f.torch.constructor.add_bias_kv ? 1 : 0) + (f.torch.constructor.add_zero_attn ? 1 : 0);

test('there are PyTorch fixtures for add_bias_kv and for every mask form', () => {
  assert.ok(biasKv.length >= 4);
  const forms = new Set(fixtures.flatMap((f) => [f.config.attnMask, f.config.keyPaddingMask].filter(Boolean).map((m) => Object.keys(m).find((k) => k !== 'shape'))));
  assert.deepEqual([...forms].sort(), ['add', 'attend', 'masked']);
});

for (const fixture of fixtures.filter(appendedKeys)) {
  test(`${fixture.name}: fromTorch of the module's state dict runs as the module does`, () => {
    const { weights: expectedWeights, attnMask, keyPaddingMask, ...sizes } = fixture.config;
    if (attnMask) sizes.attnMask = jsMask(attnMask, false);
    if (keyPaddingMask) sizes.keyPaddingMask = jsMask(keyPaddingMask, false);
    const weights = engine.fromTorch(stateDict(fixture));
    assert.deepEqual(Object.keys(weights).sort(), Object.keys(expectedWeights).sort());
    for (const [name, values] of Object.entries(expectedWeights)) assert.deepEqual(Array.from(weights[name]), values, name);
    for (const algorithm of ['naive', 'tiled']) {
      const run = engine.run({ ...sizes, weights, algorithm, ...(algorithm === 'tiled' ? { blockK: 3 } : {}) });
      assertClose(assert, run.output, fixture.expected.output.data, 1e-5, `${fixture.name} ${algorithm} output`);
      assert.equal(run.summary.appended, appendedKeys(fixture));
      assert.equal(run.step('k_appended').axes[2], `Tk+${appendedKeys(fixture)}`);
      const rows = [fixture.torch.constructor.add_bias_kv ? 'bias_k' : '', fixture.torch.constructor.add_zero_attn ? 'zeros' : ''].filter(Boolean).join(', ');
      assert.equal(run.step('k_appended').title, `Append keys every query sees: ${rows}`);
      assert.equal(run.step('k_heads').axes[2], 'Tk');
      if (algorithm === 'naive') {
        const step = run.step('weights');
        assert.deepEqual(step.shape, fixture.expected.weights.shape);
        assertClose(assert, step.data, fixture.expected.weights.data, 1e-5, `${fixture.name} weights`);
        assert.match(step.shapeFormula, new RegExp(`→ \\[${fixture.expected.weights.shape.join(',')}\\]$`));
        assert.equal(run.step('k_t').input, 'k_appended');
        // need_weights with average_attn_weights=True: the mean over the heads.
        const [B, H, Tq, Tk] = step.shape;
        const mean = new Float32Array(B * Tq * Tk);
        for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < Tq * Tk; i++) mean[b * Tq * Tk + i] += step.data[(b * H + h) * Tq * Tk + i] / H;
        assertClose(assert, mean, fixture.expected.averaged.data, 1e-5, `${fixture.name} averaged weights`);
      }
      assert.deepEqual(run.warnings, []);
    }
  });
}

test('fromTorch reads a state dict under any one module path, or the one prefix names', () => {
  const fixture = biasKv[0];
  const plain = engine.fromTorch(stateDict(fixture));
  assert.deepEqual(engine.fromTorch(stateDict(fixture, 'self_attn.')), plain);
  const two = { ...stateDict(fixture, 'layers.0.self_attn.'), ...stateDict(fixture, 'layers.1.self_attn.') };
  assert.throws(() => engine.fromTorch(two), (e) => refusedWith('torch.prefixes')(e) && /layers\.0\.self_attn\./.test(e.message));
  assert.deepEqual(engine.fromTorch({ ...two, prefix: 'layers.1.self_attn' }), plain);
  assert.throws(() => engine.fromTorch({ ...two, prefix: 'decoder.' }), refusedWith('torch.prefix_none'));
});

test('fromTorch refuses by name every key it does not use', () => {
  const dict = stateDict(biasKv[0], 'self_attn.');
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
  const { torch } = biasKv[0];
  const inProj = torch.state_dict.in_proj_weight.data;
  const C = biasKv[0].config.C;
  const rows = (i) => inProj.slice(i * C * C, (i + 1) * C * C);
  const dict = stateDict(biasKv[0]);
  delete dict.in_proj_weight;
  const separate = engine.fromTorch({ ...dict, q_proj_weight: rows(0), k_proj_weight: rows(1), v_proj_weight: rows(2) });
  assert.deepEqual(separate, engine.fromTorch(stateDict(biasKv[0])));
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
  // A kdim k_proj (nn.Linear(kdim=2, C) is [C, 2]) as nested lists: its shape says so.
  const nestedRows = (rows, cols) => Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => r + c));
  assert.throws(() => engine.fromLinear({ ...layers, 'k_proj.weight': nestedRows(C, 2), 'out_proj.weight': w(C * C, 4) }),
    (e) => refusedWith('linear.kdim')(e) && e.field === 'k_proj.weight');
});

test('the page\'s paste box keeps bias_k and bias_v, and refuses the attention module\'s unknown keys by name', () => {
  const fixture = biasKv[0];
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
  const fixture = biasKv[0];
  const { weights, ...sizes } = fixture.config;
  assert.throws(() => engine.run({ ...sizes, addBiasKv: false, weights }), refusedWith('bad_value.bias_kv_given'));
  const { bias_v: _, ...half } = weights;
  assert.throws(() => engine.run({ ...sizes, weights: half }), refusedWith('missing.bias_kv'));
  assert.throws(() => engine.run({ ...sizes, weights, algorithm: 'incremental', mask: 'causal' }), refusedWith('bad_value.incremental_bias_kv'));
  const seeded = engine.run({ B: 1, T: 3, C: 8, H: 2, addBiasKv: true });
  assert.deepEqual(seeded.step('weights').shape, [1, 2, 3, 4]);
  assert.equal(seeded.weights.bias_k.length, 8);
});

const maskFixtures = fixtures.filter((f) => f.config.attnMask || f.config.keyPaddingMask);

// A fixture's mask values as a JS caller holds them: −∞ as -Infinity, booleans as booleans, or
// as a typed array.
function jsMask(mask, typed) {
  const form = ['masked', 'attend', 'add'].find((f) => f in mask);
  const values = mask[form].map((v) => (v === '-Infinity' ? -Infinity : v));
  return { ...(mask.shape ? { shape: mask.shape } : {}), [form]: typed ? (form === 'add' ? Float32Array.from(values) : Uint8Array.from(values, Number)) : values };
}

for (const fixture of maskFixtures) {
  test(`${fixture.name}: PyTorch's masks through the JS API, naive and tiled, as Arrays and as typed arrays`, () => {
    const { attnMask, keyPaddingMask, ...rest } = fixture.config;
    for (const typed of [false, true]) {
      const masks = { ...(attnMask ? { attnMask: jsMask(attnMask, typed) } : {}), ...(keyPaddingMask ? { keyPaddingMask: jsMask(keyPaddingMask, typed) } : {}) };
      for (const algorithm of ['naive', 'tiled']) {
        const run = engine.run({ ...rest, ...masks, algorithm });
        assertClose(assert, run.output, fixture.expected.output.data, 1e-5, `${fixture.name} ${algorithm} output`);
        if (algorithm === 'naive') assertClose(assert, run.step('weights').data, fixture.expected.weights.data, 1e-5, `${fixture.name} weights`);
        assert.deepEqual(run.warnings, []);
        if (attnMask) assert.match(run.step(algorithm === 'naive' ? 'masked' : 'tile_scores').shapeFormula ?? '', algorithm === 'naive' ? new RegExp(`attnMask \\(\\w+\\) \\[${attnMask.shape.join(',')}\\]`) : /./);
      }
    }
  });
}

test('attnMask: the lengths and values a mask must have, by name', () => {
  const base = { B: 2, T: 3, C: 4, H: 2 };
  assert.throws(() => engine.run({ ...base, attnMask: { shape: [3, 2], add: new Float32Array(6) } }), refusedWith('bad_mask.shape'));
  assert.throws(() => engine.run({ ...base, attnMask: { shape: [3, 3], masked: [true, false] } }), refusedWith('bad_mask.length'));
  assert.throws(() => engine.run({ ...base, attnMask: { shape: [1, 3], add: [0, NaN, 0] } }), (e) => e.field === 'attnMask.add' || /NaN/.test(e.message));
  assert.throws(() => engine.run({ ...base, attnMask: { shape: [1, 3], masked: [0, 1, 0], attend: [1, 0, 1] } }), refusedWith('bad_mask.form'));
  assert.throws(() => engine.run({ ...base, keyPaddingMask: { masked: ['yes', false, false, false, false, false] } }), (e) => e.field === 'keyPaddingMask.masked');
  const lazy = engine.run({ ...base, attnMask: { shape: [3, 3], attend: [true, false, false, true, true, false, true, true, true] }, snapshots: 'lazy' });
  const full = engine.run({ ...base, attnMask: { shape: [3, 3], attend: [true, false, false, true, true, false, true, true, true] } });
  assert.deepEqual(Array.from(lazy.step('weights').data), Array.from(full.step('weights').data));
});
