// The parts of the JS API the performance work added: snapshots: false, lazy runs and their
// {batch, head} slices, engine.matmul, and the T=4096 run within the default memory cap.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { CONFIGS } from './engine-helper.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const sameBits = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

describe('compute only and lazy runs', () => {
  test('snapshots: false gives the same output and no steps', () => {
    for (const config of CONFIGS) {
      const full = engine.run(config);
      const lean = engine.run({ ...config, snapshots: false });
      assert.ok(sameBits(lean.output, full.output), JSON.stringify(config));
      assert.deepEqual(lean.steps, []);
    }
  });

  test('a lazy run has every step with data null, and each step it computes equals the eager one', () => {
    for (const config of CONFIGS) {
      const eager = engine.run(config);
      const lazy = engine.run({ ...config, snapshots: 'lazy' });
      assert.ok(sameBits(lazy.output, eager.output));
      assert.deepEqual(lazy.steps.map((s) => s.id), eager.steps.map((s) => s.id));
      for (const step of eager.steps) {
        const listed = lazy.steps.find((s) => s.id === step.id);
        assert.equal(listed.data, null);
        const { data, ...meta } = lazy.step(step.id);
        const { data: eagerData, ...eagerMeta } = step;
        assert.deepEqual(meta, eagerMeta, `${JSON.stringify(config)} ${step.id}`);
        assert.ok(data instanceof Float32Array && sameBits(data, eagerData), `${JSON.stringify(config)} ${step.id}`);
      }
    }
  });

  test('{batch, head} slices of the scores-sized steps agree between lazy and eager runs', () => {
    const config = { B: 2, T: 5, Tk: 6, C: 12, H: 3, mask: 'causal', keyLengths: [6, 3], kv: undefined };
    const eager = engine.run(config);
    const lazy = engine.run({ ...config, snapshots: 'lazy' });
    for (const id of ['scores', 'scaled', 'masked', 'weights'])
      for (const batch of [0, 1])
        for (const head of [0, 2]) {
          const a = eager.step(id, { batch, head }), b = lazy.step(id, { batch, head });
          assert.deepEqual(a.shape, [1, 1, 5, 6]);
          assert.deepEqual(b.shape, [1, 1, 5, 6]);
          assert.deepEqual(b.slice, { batch, head });
          assert.ok(sameBits(a.data, b.data), `${id} ${batch} ${head}`);
          const whole = eager.step(id).data, start = (batch * 3 + head) * 30;
          assert.ok(sameBits(a.data, whole.subarray(start, start + 30)));
        }
  });

  test('slices are refused with a message for other steps and out-of-range indices', () => {
    const run = engine.run({ B: 1, T: 3, C: 4, H: 2, snapshots: 'lazy' });
    assert.throws(() => run.step('q', { batch: 0, head: 0 }), { code: 'bad_value', message: /only of scores, scaled, masked or weights/ });
    assert.throws(() => run.step('weights', { batch: 1, head: 0 }), { code: 'bad_value', field: 'batch', message: /is not a whole number from 0 to 0/ });
    assert.throws(() => run.step('weights', { batch: 0, head: 2 }), { code: 'bad_value', field: 'head' });
    assert.throws(() => run.step('nope'), { code: 'unknown_step' });
  });

  test('B=1 T=4096 C=768 H=12 runs lazily within the default memory cap, and shows any head', () => {
    const fresh = { B: 1, T: 4096, C: 768, H: 12 };
    assert.throws(() => engine.run(fresh), { code: 'memory_cap' });  // the eager trace would need 3.2 GiB
    const run = engine.run({ ...fresh, snapshots: 'lazy' });
    assert.equal(run.output.length, 4096 * 768);
    assert.ok(run.output.every(Number.isFinite));
    const weights = run.step('weights', { batch: 0, head: 11 });
    assert.equal(weights.data.length, 4096 * 4096);
    let rowSum = 0;
    for (let j = 0; j < 4096; ++j) rowSum += weights.data[4095 * 4096 + j];
    assert.ok(Math.abs(rowSum - 1) < 1e-3, `row sum ${rowSum}`);
    assert.throws(() => run.step('weights'), { code: 'memory_cap', message: /ask for one \{batch, head\}/ });
    assert.ok(engine.memoryBytes <= 256 * 2 ** 20 + 64 * 2 ** 20, `wasm memory ${engine.memoryBytes}`);
  });
});

describe('runs of many shapes in a row', () => {
  test('runs alternating between configs carry the same steps as a fresh engine gives each', async () => {
    const fresh = await createEngine();
    const expected = CONFIGS.map((config) => fresh.run(config));
    for (let round = 0; round < 3; ++round)
      for (const [i, config] of CONFIGS.entries()) {
        const again = engine.run({ ...config, seed: config.seed ?? 0 });
        const want = expected[i];
        assert.deepEqual(again.summary, want.summary);
        assert.equal(again.steps.length, want.steps.length);
        for (const [k, step] of again.steps.entries()) {
          assert.deepEqual(step, want.steps[k], `${JSON.stringify(config)} ${step.id}`);
          assert.notEqual(step, want.steps[k]);
        }
      }
  });

  test('more shapes than the engine keeps: evicted metadata is sent again, runs stay exact', async () => {
    const fresh = await createEngine();
    const configs = Array.from({ length: 12 }, (_, i) => ({ B: 1, T: i + 1, C: 4, H: 2, snapshots: i % 3 !== 0 }));
    for (let round = 0; round < 2; ++round)
      for (const config of configs) {
        const got = engine.run(config), want = fresh.run(config);
        assert.deepEqual(got.summary, want.summary);
        assert.deepEqual(got.steps, want.steps, JSON.stringify(config));
      }
  });

  test('errors and lazy requests between runs leave the metadata the engine and JS hold in step', async () => {
    const fresh = await createEngine();
    const configs = Array.from({ length: 10 }, (_, i) => ({ B: 1, T: i + 2, C: 4, H: 2 }));
    for (let round = 0; round < 3; ++round)
      for (const [i, config] of configs.entries()) {
        assert.throws(() => engine.run({ ...config, C: 5 }), { code: 'not_divisible' });
        assert.throws(() => engine.run({ ...config, x: [Number.NaN] }), { field: 'x' });
        if (i % 3 === 0) engine.run({ ...config, snapshots: 'lazy' }).step('weights', { batch: 0, head: 1 });
        const got = engine.run(config), want = fresh.run(config);
        assert.deepEqual(got.steps, want.steps, JSON.stringify(config));
      }
  });

});

describe('big runs', () => {
  test('every head of scores, scaled, masked and weights is where a lazy slice says, to the bit', () => {
    const config = { B: 2, T: 64, Tk: 80, C: 32, H: 8, mask: 'causal', keyLengths: [80, 0], seed: 11 };
    const eager = engine.run(config);
    const lazy = engine.run({ ...config, snapshots: 'lazy' });
    for (const id of ['scores', 'scaled', 'masked', 'weights']) {
      const step = eager.step(id);
      assert.equal(step.data.length, 2 * 8 * 64 * 80, id);
      assert.equal(step.changesValues, true, id);
      for (let b = 0; b < 2; ++b)
        for (let h = 0; h < 8; ++h) {
          const slice = lazy.step(id, { batch: b, head: h }).data;
          const start = (b * 8 + h) * 64 * 80;
          assert.ok(sameBits(step.data.subarray(start, start + slice.length), slice), `${id} batch ${b} head ${h}`);
        }
    }
    assert.equal(eager.warnings.length, 1, 'batch row 1 masks every key of its 64 queries: one warning');
    assert.match(String(eager.warnings[0]), /^Batch row 1, queries 0–63:/);
  });
});

describe('engine.matmul', () => {
  test('matches a plain triple loop, and names a wrong length', () => {
    const [M, K, N] = [5, 7, 9];
    const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i));
    const b = Float32Array.from({ length: K * N }, (_, i) => Math.cos(i));
    const c = engine.matmul(a, b, { M, K, N });
    for (let i = 0; i < M; ++i)
      for (let j = 0; j < N; ++j) {
        let sum = 0;
        for (let k = 0; k < K; ++k) sum += a[i * K + k] * b[k * N + j];
        assert.ok(Math.abs(c[i * N + j] - sum) < 1e-5);
      }
    assert.throws(() => engine.matmul(a, b, { M, K: 6, N }), { code: 'bad_tensor_length', field: 'a' });
    assert.throws(() => engine.matmul(a, b, { M: 0, K, N }), { code: 'bad_size', field: 'M' });
  });
});
