// The JS API: PyTorch parity, the step contract, errors and memory.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError, Step } from '../../web/src/engine/engine.js';
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
  test('every step holds its numbers and words, its data a window of the run\'s one Float32Array', () => {
    const run = engine.run({ B: 2, T: 3, Tk: 5, C: 12, H: 3, mask: 'causal', keyLengths: [5, 2] });
    const buffer = run.steps[0].data.buffer;
    let end = 0;
    for (const step of run.steps) {
      assert.ok(step instanceof Step, step.id);
      assert.deepEqual(Object.keys(step.toJSON()).sort(), ['axes', 'bytes', 'changesValues', 'contiguous', 'data', 'flops', 'formula', 'id', 'input', 'latex', 'numel', 'op', 'shape', 'shapeFormula', 'strides', 'title', 'viewOf']);
      for (const word of ['title', 'formula', 'latex', 'shapeFormula', 'op']) assert.ok(step[word].length > 0, `${step.id} ${word}`);
      assert.ok(step.data instanceof Float32Array, step.id);
      // Owned by the run: one buffer for all its steps (not the wasm heap), each step's values
      // after the last one's, none overlapping.
      assert.equal(step.data.buffer, buffer, step.id);
      assert.ok(step.data.byteOffset >= end, step.id);
      end = step.data.byteOffset + step.data.byteLength;
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

  test('a reshape and a merge hold their input\'s numbers in the same order, in windows of their own', () => {
    const run = engine.run({ B: 2, T: 3, C: 12, H: 3 });
    for (const id of ['q_split', 'k_split', 'v_split', 'concat']) {
      const step = run.step(id);
      assert.deepEqual(step.data, run.step(step.input).data, `${id} = ${step.input}`);
      assert.notEqual(step.data.byteOffset, run.step(step.input).data.byteOffset);
    }
    // A mask that hides nothing leaves the scaled scores as they are; a causal one does not.
    assert.deepEqual(run.step('masked').data, run.step('scaled').data);
    const causal = engine.run({ B: 2, T: 3, C: 12, H: 3, mask: 'causal' });
    assert.notDeepEqual(causal.step('masked').data, causal.step('scaled').data);
  });

  test('release() empties the arrays the run made, never the caller\'s own', () => {
    const config = { B: 1, T: 8, C: 16, H: 4 };
    const first = engine.run({ ...config, seed: 1 });
    const buffer = first.output.buffer;
    first.release();
    assert.equal(buffer.byteLength, 0, 'the released buffer is detached');
    assert.equal(first.output.length, 0);
    assert.ok(first.steps.every((step) => step.data.length === 0));
    assert.throws(() => first.step('q'), { name: 'MhaError', code: 'released', message: /released/ });
    // Seeded weights, made when first read, are the run's own too: read before release() they are emptied with it.
    const second = engine.run({ ...config, seed: 1 });
    const seeded = second.weights;
    assert.equal(seeded.Wq.length, 16 * 16);
    second.release();
    assert.ok(Object.values(seeded).every((w) => w.length === 0), 'seeded weights are the run\'s own');
    assert.throws(() => first.weights, { name: 'MhaError', code: 'released' });
    first.release();  // twice is harmless
    const weights = engine.run({ ...config, seed: 2 }).weights;
    const withWeights = engine.run({ ...config, weights });
    withWeights.release();
    assert.equal(weights.Wq.length, 16 * 16, 'explicit weights stay the caller\'s');
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
    assert.equal(run.warnings.length, 1);
    assert.match(String(run.warnings[0]), /^Batch row 1, queries 0–1: every key is masked.*PyTorch returns NaN/);
    assert.match(run.warnings[0].messageIn('zh'), /^批次第 1 行、查询 0–1：所有键都被掩码/);
    assert.deepEqual(run.warnings[0].params, { b: '1', first: '0', last: '1', rows: 'term.rows.range' });
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
    [{ ...base, x: 'abc' }, 'x', 'x must be a Float32Array or an array of numbers, not the string "abc".'],
    [{ ...base, x: new BigInt64Array(64) }, 'x', /^x must be a Float32Array or an array of numbers, not a BigInt64Array/],
    [{ ...base, x: [...new Array(63).fill(0), '1'] }, 'x[63]', 'x[63] must be a number, not the string "1".'],
    [{ ...base, weights: { Wq: new Float32Array(64) } }, 'weights.Wk', /^weights.Wk is missing/],
    [{ ...base, mask: 'future' }, 'mask', /^mask must be "none" or "causal"/],
    [{ ...base, heads: 2 }, 'heads', /^Unknown config key "heads"/],
    [{ B: 1, T: 2048, C: 768, H: 12 }, 'T', /^This config needs 931\.0 MiB of memory, above the memory cap of 256\.0 MiB: its snapshots alone take 858\.0 MiB\. Lower B, T, Tk or H, or raise memoryCap\.$/],
    [{ B: 1, T: 4096, C: 768, H: 12 }, 'T', /^This config needs 3\.\d\d GiB of memory, more than this build of the engine can address \(3\.00 GiB\)/],
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
    // A bad value late in a large tensor, or a NaN followed by larger values, must still count.
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

describe('the config is what the caller wrote, read once', () => {
  test('inherited keys are not config: __proto__ from JSON.parse, Object.prototype', () => {
    const plain = engine.run({ B: 2, T: 4, C: 8, H: 2 });
    assert.throws(() => engine.run(JSON.parse('{"B":2,"T":4,"C":8,"H":2,"__proto__":{"mask":"causal","seed":7}}')),
      { code: 'unknown_key', field: '__proto__' });
    const sizesOnlyInherited = Object.create({ B: 2, T: 4, C: 8, H: 2 });
    assert.throws(() => engine.run(sizesOnlyInherited), { code: 'missing', field: 'B' });
    Object.prototype.seed = 123;  // eslint-disable-line no-extend-native
    try {
      assert.deepEqual(engine.run({ B: 2, T: 4, C: 8, H: 2 }).output, plain.output);
    } finally {
      delete Object.prototype.seed;
    }
  });

  test('a key that cannot be read is named, not dropped', () => {
    assert.throws(() => engine.run({ B: 2, T: 4, C: 8, H: 2, '\uDC00': 1 }), { code: 'unknown_key', message: /\\udc00/ });
  });

  test('each field is read once: a getter that answers differently each time cannot split the config', () => {
    let reads = 0;
    const config = { B: 2, T: 4, C: 8, H: 2 };
    Object.defineProperty(config, 'snapshots', { enumerable: true, get: () => (reads++ % 2 === 0 ? true : 'lazy') });
    const run = engine.run(config);
    assert.equal(reads, 1);
    assert.ok(run.steps.every((step) => step.data instanceof Float32Array));
  });

  test('holes are missing values, named by index', () => {
    assert.throws(() => engine.run({ B: 2, T: 4, C: 8, H: 2, keyLengths: [1, ,] }), {  // eslint-disable-line no-sparse-arrays
      code: 'missing', field: 'keyLengths[1]', message: 'keyLengths[1] is missing (a hole in the array): give a number for every index.' });
    const x = new Array(64).fill(0.5);
    delete x[10];
    assert.throws(() => engine.run({ B: 2, T: 4, C: 8, H: 2, x }), { code: 'missing', field: 'x[10]', message: /^x\[10\] is missing/ });
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

  test('a lazy run computes from its own copy of the inputs: refilling x afterwards changes nothing', () => {
    const x = new Float32Array(2 * 4 * 8).map((_, i) => Math.sin(i));
    const lazy = engine.run({ B: 2, T: 4, C: 8, H: 2, x, snapshots: 'lazy' });
    const expected = engine.run({ B: 2, T: 4, C: 8, H: 2, x: x.slice() });
    x.fill(3);
    assert.deepEqual(lazy.step('x').data, expected.step('x').data);
    assert.deepEqual(lazy.step('output').data, lazy.output);
    assert.deepEqual(lazy.step('output').data, expected.output);
  });
});
