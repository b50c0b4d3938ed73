// The JS API: PyTorch parity, the step contract, errors and memory.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine.js';
import { writeFields } from '../../web/src/wire-fields.js';
import { CONFIGS } from './engine-helper.js';
import { assertClose, loadFixtures } from './helpers.js';

let engine;
before(async () => {
  engine = await createEngine();
});

describe('PyTorch parity', () => {
  const fixtures = loadFixtures();

  test('there are fixtures for every feature', () => {
    const names = fixtures.map((f) => f.name);
    for (const name of ['classic', 'causal', 'padding', 'cross', 'no_bias', 'gqa', 'mqa']) assert.ok(names.includes(name), name);
  });

  for (const fixture of fixtures) {
    test(`${fixture.name}: q, scores, weights and output within 1e-5`, () => {
      const run = engine.run(fixture.config);
      for (const id of ['q', 'scores', 'weights', 'output']) {
        const step = run.step(id);
        assert.deepEqual(step.shape, fixture.expected[id].shape, `${id} shape`);
        assertClose(assert, step.data, fixture.expected[id].data, 1e-5, `${fixture.name} ${id}`);
      }
      assert.deepEqual(run.warnings, []);
    });
  }

  test('Float32Array tensors and plain arrays give the same run', () => {
    const { config } = fixtures.find((f) => f.name === 'cross');
    const typed = {
      ...config,
      x: Float32Array.from(config.x),
      kv: Float32Array.from(config.kv),
      weights: Object.fromEntries(Object.entries(config.weights).map(([k, v]) => [k, Float32Array.from(v)])),
    };
    assert.deepEqual(engine.run(typed).output, engine.run(config).output);
  });

  test('fromTorch converts nn.MultiheadAttention parameters to the walkthrough layout', () => {
    // Rebuild PyTorch's parameters from a fixture (in_proj_weight rows are Wqᵀ, Wkᵀ, Wvᵀ), convert
    // them back, and run: the output must still be PyTorch's.
    const fixture = fixtures.find((f) => f.name === 'causal');
    const { C } = fixture.config;
    const w = fixture.config.weights;
    const transpose = (m) => Array.from({ length: C * C }, (_, i) => m[(i % C) * C + Math.floor(i / C)]);
    const torch = {
      in_proj_weight: [...transpose(w.Wq), ...transpose(w.Wk), ...transpose(w.Wv)],
      in_proj_bias: [...w.bq, ...w.bk, ...w.bv],
      'out_proj.weight': transpose(w.Wo),
      'out_proj.bias': w.bo,
    };
    const weights = engine.fromTorch(torch);
    assert.ok(weights.Wq instanceof Float32Array);
    const run = engine.run({ ...fixture.config, weights });
    assertClose(assert, run.output, fixture.expected.output.data, 1e-5, 'output with converted weights');
    assert.throws(() => engine.fromTorch({ ...torch, in_proj_weight: torch.in_proj_weight.slice(1) }),
      { name: 'MhaError', field: 'in_proj_weight', message: `in_proj_weight has ${3 * C * C - 1} values but needs 3C·C = ${3 * C * C} for embed_dim C.` });
  });
});

describe('the step contract', () => {
  test('every step is a plain object with owned Float32Array data', () => {
    const run = engine.run({ B: 2, T: 3, Tk: 5, C: 12, H: 3, mask: 'causal', keyLengths: [5, 2] });
    for (const step of run.steps) {
      assert.deepEqual(Object.keys(step).sort(), ['axes', 'bytes', 'changesValues', 'contiguous', 'data', 'flops', 'formula', 'id', 'numel', 'op', 'shape', 'shapeFormula', 'strides', 'title']);
      assert.ok(step.data instanceof Float32Array, step.id);
      // Owned: a window on the run's own buffer, not on the wasm heap.
      assert.equal(step.data.buffer, run.output.buffer, step.id);
      assert.equal(step.data.length, step.numel);
      assert.equal(step.shape.reduce((a, b) => a * b, 1), step.numel);
      assert.equal(step.axes.length, step.shape.length);
      assert.equal(step.strides.length, step.shape.length);
    }
    assert.equal(Object.getPrototypeOf(run.summary), Object.prototype);
  });

  test('the arrays of a run outlive the wasm memory growing, and later runs do not touch them', async () => {
    const own = await createEngine();  // whose heap has not grown yet
    const run = own.run({ B: 2, T: 3, C: 12, H: 3, seed: 5 });
    const before = run.steps.map((step) => Array.from(step.data));
    const memory = own.memoryBytes;
    own.run({ B: 1, T: 512, C: 512, H: 8 });  // needs more than the 16 MiB it starts with
    assert.ok(own.memoryBytes > memory, 'the heap grew, which detaches views of it');
    own.run({ B: 2, T: 3, C: 12, H: 3, seed: 6 });
    run.steps.forEach((step, i) => assert.deepEqual(Array.from(step.data), before[i], step.id));
  });

  test('steps with the same numbers in the same order share one array; the rest do not overlap', () => {
    const run = engine.run({ B: 2, T: 3, C: 12, H: 3 });
    const same = [['q_split', 'q'], ['k_split', 'k'], ['v_split', 'v'], ['masked', 'scaled'], ['concat', 'context_t']];
    for (const [id, of] of same) assert.equal(run.step(id).data, run.step(of).data, `${id} = ${of}`);
    assert.equal(run.output, run.step('output').data);
    const ranges = [...new Set(run.steps.map((step) => step.data))].map((data) => [data.byteOffset, data.byteOffset + data.byteLength]).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < ranges.length; ++i) assert.ok(ranges[i][0] >= ranges[i - 1][1], 'no two arrays overlap');
    // A mask that masks something gets its own values.
    const causal = engine.run({ B: 2, T: 3, C: 12, H: 3, mask: 'causal' });
    assert.notEqual(causal.step('masked').data, causal.step('scaled').data);
  });

  test('release() hands the arrays to the next run of the same size, and empties them here', () => {
    const config = { B: 1, T: 64, C: 64, H: 4 };  // big enough (> 256 KiB of arrays) to be recycled
    const first = engine.run({ ...config, seed: 1 });
    const buffer = first.output.buffer;
    const expected = Array.from(engine.run({ ...config, seed: 2 }).output);
    first.release();
    assert.equal(buffer.byteLength, 0, 'the released buffer is detached');
    assert.equal(first.output.length, 0);
    assert.ok(first.steps.every((step) => step.data.length === 0));
    assert.throws(() => first.step('q'), { name: 'MhaError', code: 'released', message: /released/ });
    first.release();  // twice is harmless
    const second = engine.run({ ...config, seed: 2 });
    assert.deepEqual(Array.from(second.output), expected, 'the recycled memory holds the new values');
    // Explicit weights stay the caller's: releasing never empties them.
    const weights = second.weights;
    const third = engine.run({ ...config, weights });
    third.release();
    assert.ok(weights.Wq.length === 64 * 64);
    // A run big enough that its scores-sized steps were streamed into buffers of their own
    // (B·H·T·Tk ≥ 65,536): releasing empties those too.
    const streamed = engine.run({ B: 1, T: 128, C: 32, H: 4 });
    streamed.release();
    assert.deepEqual(streamed.steps.filter((step) => step.data.length > 0).map((step) => step.id), []);
  });

  test('ids and shapes of the seed example, in walkthrough order', () => {
    const run = engine.run({ B: 2, T: 4, C: 8, H: 2 });
    assert.deepEqual(run.steps.map((s) => `${s.id}:${s.shape}`), [
      'x:2,4,8', 'q:2,4,8', 'k:2,4,8', 'v:2,4,8', 'q_split:2,4,2,4', 'k_split:2,4,2,4', 'v_split:2,4,2,4',
      'q_heads:2,2,4,4', 'k_heads:2,2,4,4', 'v_heads:2,2,4,4', 'k_t:2,2,4,4', 'scores:2,2,4,4', 'scaled:2,2,4,4',
      'masked:2,2,4,4', 'weights:2,2,4,4', 'context:2,2,4,4', 'context_t:2,4,2,4', 'concat:2,4,8', 'output:2,4,8',
    ]);
    assert.equal(run.summary.parameterCount, 4 * 8 * 8 + 4 * 8);
    assert.equal(run.summary.D, 4);
    assert.deepEqual(run.output, run.step('output').data);
  });

  test('a transpose reports permuted strides; merging heads is contiguous', () => {
    const run = engine.run({ B: 2, T: 3, C: 12, H: 3 });
    assert.deepEqual(run.step('q_heads').strides, [36, 4, 12, 1]);
    assert.equal(run.step('q_heads').contiguous, false);
    assert.equal(run.step('q_heads').changesValues, false);
    assert.deepEqual(run.step('concat').strides, [36, 12, 1]);
    assert.equal(run.step('concat').contiguous, true);
  });

  test('softmax rows sum to 1 and masked keys get weight 0', () => {
    const run = engine.run({ B: 2, T: 4, Tk: 6, C: 8, H: 2, mask: 'causal', keyLengths: [6, 3] });
    const { data, shape } = run.step('weights');
    const [B, H, T, Tk] = shape;
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < Tk; j++) {
        const w = data[((b * H + h) * T + i) * Tk + j];
        if (j > i || j >= [6, 3][b]) assert.equal(w, 0, `b=${b} h=${h} i=${i} j=${j}`);
        sum += w;
      }
      assert.ok(Math.abs(sum - 1) < 1e-6, `row b=${b} h=${h} i=${i} sums to ${sum}`);
    }
  });

  test('a fully masked query row gets zeros and a warning', () => {
    const run = engine.run({ B: 2, T: 2, C: 8, H: 2, keyLengths: [2, 0] });
    assert.equal(run.warnings.length, 2);
    assert.match(run.warnings[0], /Batch row 1, query 0: every key is masked.*PyTorch returns NaN/);
    assert.ok(run.output.every(Number.isFinite));
  });

  test('snapshots: false returns the output and no steps', () => {
    const config = { B: 2, T: 4, C: 8, H: 2, seed: 9 };
    const lean = engine.run({ ...config, snapshots: false });
    assert.deepEqual(lean.steps, []);
    assert.deepEqual(lean.output, engine.run(config).output);
    assert.throws(() => lean.step('weights'), { code: 'unknown_step', message: /computed without snapshots/ });
  });
});

describe('errors', () => {
  const base = { B: 2, T: 4, C: 8, H: 2 };
  const cases = [
    [{ ...base, C: 10, H: 4 }, 'H', 'C=10 is not divisible by H=4: every head needs D = C/H features. Choose H from the divisors of C=10: 1, 2, 5, 10.'],
    [{ ...base, C: 24, H: 6, Hkv: 4 }, 'Hkv', /^H=6 is not divisible by Hkv=4/],
    [{ ...base, B: 0 }, 'B', /^B=0 is not allowed: B is the batch size/],
    [{ ...base, T: -2 }, 'T', /^T=-2 is not allowed/],
    [{ ...base, C: 2.5 }, 'C', /^C=2.5 is not a whole number/],
    [{ ...base, H: NaN }, 'H', 'H must be a whole number ≥ 1, not NaN.'],
    [{ ...base, B: '2' }, 'B', 'B must be a whole number ≥ 1, not the string "2".'],
    [{ B: 2, T: 4, C: 8 }, 'H', /^H is missing/],
    [{ ...base, keyLengths: [4] }, 'keyLengths', 'keyLengths has 1 entries but B=2: give one valid key length per batch row.'],
    [{ ...base, keyLengths: [4, 9] }, 'keyLengths', /^keyLengths\[1\]=9 is outside \[0, Tk=4\]/],
    [{ ...base, x: new Float32Array(10) }, 'x', 'x has 10 values but needs B·T·C = 2·4·8 = 64.'],
    [{ ...base, x: [...new Array(63).fill(0), NaN] }, 'x', 'x[63] is NaN: explicit tensors must hold finite numbers.'],
    [{ ...base, x: 'abc' }, 'x', /^x must be an array of numbers/],
    [{ ...base, weights: { Wq: new Float32Array(64) } }, 'weights.Wk', /^weights.Wk is missing/],
    [{ ...base, mask: 'future' }, 'mask', /^mask must be "none" or "causal"/],
    [{ ...base, heads: 2 }, 'heads', /^Unknown config key "heads"/],
    [{ B: 1, T: 4096, C: 768, H: 12 }, 'memoryCap', /^This config needs 3\.\d\d GiB for its snapshots, above the memory cap of 256\.0 MiB/],
  ];
  for (const [config, field, message] of cases) {
    test(`${JSON.stringify(config, (k, v) => (ArrayBuffer.isView(v) || Array.isArray(v) && v.length > 8 ? `[${v.length} values]` : Number.isNaN(v) ? 'NaN' : v))} → ${field}`, () => {
      assert.throws(() => engine.run(config), (error) => {
        assert.ok(error instanceof MhaError);
        assert.ok(error instanceof Error);
        assert.equal(error.field, field);
        if (typeof message === 'string') assert.equal(error.message, message);
        else assert.match(error.message, message);
        return true;
      });
    });
  }

  test('a NaN or an overflowing value in any 256 KiB piece of a large tensor is found and named', () => {
    // The engine copies explicit tensors in and scans them 65,536 floats at a time (bindings.cpp,
    // input_of): a bad value in a later piece, or a NaN followed by larger values, must still count.
    const C = 512, H = 8;
    const weights = () => Object.fromEntries(['Wq', 'Wk', 'Wv', 'Wo'].map((name) => [name, new Float32Array(C * C).fill(0.01)]));
    for (const [index, value, message] of [
      [200000, NaN, 'weights.Wk[200000] is NaN: explicit tensors must hold finite numbers.'],
      [3, NaN, 'weights.Wk[3] is NaN: explicit tensors must hold finite numbers.'],
      [C * C - 1, -Infinity, `weights.Wk[${C * C - 1}] is -Infinity: explicit tensors must hold finite numbers.`],
    ]) {
      const w = weights();
      w.Wk[index] = value;
      if (index === 3) w.Wk.fill(5, 70000);  // larger values in the pieces after the NaN's
      assert.throws(() => engine.run({ B: 1, T: 2, C, H, bias: false, weights: w }), (error) => {
        assert.equal(error.field, 'weights.Wk');
        assert.equal(error.message, message);
        return true;
      });
    }
    const w = weights();
    w.Wo[150000] = 1e36;  // finite, but the output (C · |context| · 1e36) would overflow float32
    assert.throws(() => engine.run({ B: 1, T: 2, C, H, bias: false, weights: w }), (error) =>
      error.field === 'weights.Wo' && error.message.startsWith('weights.Wo[150000] is 1.0e+36 in size: with these values the output could reach'));
    assert.equal(engine.run({ B: 1, T: 2, C, H, bias: false, weights: weights() }).output.length, 2 * C);
  });

  test('a non-object config is refused in JS with the same kind of message', () => {
    for (const bad of [null, 42, 'B=2', [2, 4, 8, 2]]) {
      assert.throws(() => engine.run(bad), { name: 'MhaError', code: 'bad_type', field: 'config' });
    }
  });

  test('the engine keeps working after errors', () => {
    const before = engine.run({ B: 1, T: 3, C: 6, H: 3, seed: 5 }).output;
    for (const [config] of cases) assert.throws(() => engine.run(config));
    assert.deepEqual(engine.run({ B: 1, T: 3, C: 6, H: 3, seed: 5 }).output, before);
  });
});

test('1,000 runs in a row leave the wasm memory size unchanged after the first few', () => {
  const configs = [
    { B: 2, T: 4, C: 8, H: 2 },
    { B: 2, T: 6, Tk: 9, C: 24, H: 6, Hkv: 2, mask: 'causal', keyLengths: [9, 4] },
    { B: 2, T: 4, C: 10, H: 4 },  // an error
  ];
  for (let i = 0; i < 10; i++) for (const config of configs) try { engine.run(config); } catch { /* expected */ }
  const settled = engine.memoryBytes;
  for (let i = 0; i < 1000; i++) {
    try { engine.run({ ...configs[i % 3], seed: i }); } catch (error) { assert.ok(error instanceof MhaError); }
  }
  assert.equal(engine.memoryBytes, settled);
});

describe('two ways in: a plain config as numbers, any other as the object', () => {
  // engine.js hands a plain config to the engine as numbers (wire-fields.js, bindings.cpp
  // run_fields) and any other as the object itself, which the engine's config reader reads
  // (config_reader.hpp). `kv: null` (or `x: null`) means nothing to the reader but is not plain:
  // the same config then goes as the object, and must give the same run, bit for bit, or the same
  // error.
  const noise = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i) / 4);
  const smallWeights = (C) => Object.fromEntries(['Wq', 'Wk', 'Wv', 'Wo', 'bq', 'bk', 'bv', 'bo'].map((name, i) => [name, noise(name[0] === 'W' ? C * C : C, 10 + i)]));
  const asObject = (config) => (config.kv === undefined ? { ...config, kv: null } : { ...config, x: null });
  // What engine.js writes: the config without the tensors it takes out (splitConfig).
  const plain = (config) => {
    const rest = Object.fromEntries(Object.entries(config).filter(([key, value]) => !(['x', 'kv'].includes(key) && ArrayBuffer.isView(value))));
    if (rest.weights) rest.weights = Object.fromEntries(Object.entries(rest.weights).filter(([, value]) => !ArrayBuffer.isView(value)));
    return writeFields(rest, new Float64Array(300), 5);
  };
  const configs = [
    ...CONFIGS,
    { B: 2, T: 4, C: 8, H: 2, snapshots: false },
    { B: 1, T: 3, Tk: null, C: 6, H: 3, Hkv: null, bias: true, seed: 4294967295, mask: 'none', memoryCap: 1e9, keyLengths: null },
    { B: 2, T: 3, Tk: 4, C: 8, H: 4, Hkv: 2, mask: 'causal', keyLengths: [0, 4], seed: 12 },
    { B: 1, T: 8, C: 16, H: 2, x: new Float32Array(128).fill(0.25), weights: {} },
    // Explicit tensors: small ones are staged in the engine's heap by engine.js, larger ones
    // (65,536 values and more) cross as Float32Arrays, both ways alike.
    { B: 2, T: 3, C: 8, H: 2, mask: 'causal', x: noise(48, 1), weights: smallWeights(8) },
    { B: 1, T: 2, C: 256, H: 4, x: noise(512, 2), weights: smallWeights(256) },
    { B: 1, T: 2, C: 8, H: 2, x: noise(15, 3) },  // refused: x has 15 values, not 16
    { B: 1, T: 2, C: 8, H: 2, x: noise(16, 4), weights: { ...smallWeights(8), bk: Float32Array.of(1, 2, NaN, 4, 5, 6, 7, 8) } },
    // Refused by validate(), the same way both ways:
    { B: 0, T: 4, C: 8, H: 2 },
    { B: 2, T: -3, C: 8, H: 2 },
    { B: 2, T: 4, C: 10, H: 4 },
    { B: 2, T: 4, C: 8, H: 2, Hkv: 3 },
    { B: 2, T: 4, C: 8, H: 2, keyLengths: [4] },
    { B: 2, T: 4, C: 8, H: 2, keyLengths: [-1, 9] },
    { B: 9007199254740991, T: 4, C: 8, H: 2 },
    { B: 1, T: 4096, C: 768, H: 12 },
    { B: 1, T: 64, C: 64, H: 2, memoryCap: 1000 },
    { B: 2, T: 4, C: 8, H: 2, weights: {} },
  ];
  const outcome = (config) => {
    try {
      const run = engine.run(config);
      return { steps: run.steps.map(({ id, data, changesValues }) => ({ id, data, changesValues })), output: run.output, weights: run.weights, warnings: run.warnings, summary: run.summary };
    } catch (error) {
      assert.ok(error instanceof MhaError, String(error));
      return { code: error.code, field: error.field, message: error.message };
    }
  };

  test('these configs are plain, and their twins with kv: null are not', () => {
    for (const config of configs) {
      assert.equal(plain(config), true, JSON.stringify(config));
      assert.equal(plain(asObject(config)), false);
    }
  });

  for (const config of configs) {
    const name = JSON.stringify(config, (k, v) => (ArrayBuffer.isView(v) ? `[${v.length} values]` : v));
    test(`${name}: the same run or error both ways`, () => {
      assert.deepEqual(outcome(config), outcome(asObject(config)));
    });
  }

  test('a lazy run\'s steps and slices are the same both ways', () => {
    const config = { B: 2, T: 5, Tk: 7, C: 12, H: 4, Hkv: 2, mask: 'causal', snapshots: 'lazy', seed: 3 };
    const [fields, json] = [engine.run(config), engine.run(asObject(config))];
    assert.deepEqual(fields.step('weights', { batch: 1, head: 3 }).data, json.step('weights', { batch: 1, head: 3 }).data);
    assert.deepEqual(fields.step('q').data, json.step('q').data);
    assert.deepEqual(fields.output, json.output);
  });

  test('a lazy run answers for the config it was made with, even if the caller edits it later', () => {
    const keyLengths = [7, 3];
    const config = { B: 2, T: 5, Tk: 7, C: 12, H: 4, keyLengths, snapshots: 'lazy', seed: 4 };
    const eager = engine.run({ ...config, keyLengths: [7, 3], snapshots: true });
    const lazy = engine.run(config);
    keyLengths[1] = 0;
    config.B = 3;
    const { T, Tk } = lazy.summary;
    assert.deepEqual(lazy.step('weights', { batch: 1, head: 2 }).data, eager.step('weights').data.slice((1 * 4 + 2) * T * Tk, (1 * 4 + 3) * T * Tk));
  });

  test('values the reader must name go as the object', () => {
    for (const [key, value] of [['B', 2.5], ['T', '4'], ['seed', -1], ['seed', 2 ** 32], ['mask', 'Causal'], ['snapshots', 'none'],
      ['memoryCap', 0], ['bias', 1], ['keyLengths', [4, 2.5]], ['keyLengths', new Array(257).fill(1)], ['heads', 2], ['Tk', 2 ** 53]]) {
      assert.equal(plain({ B: 2, T: 4, C: 8, H: 2, [key]: value }), false, `${key}: ${String(value).slice(0, 20)}`);
    }
    assert.equal(plain({ B: 2, T: 4, C: 8 }), false, 'a missing size');
  });
});
