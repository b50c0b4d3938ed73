// Hostile values at the JS API, each of which once broke it: typed arrays whose `length` says
// more (or less) than their data, getters that throw, BigInts, trainers that diverge or are given
// an option float32 cannot hold, and calls whose memory was checked only after their copy. Every
// refusal is an MhaError naming its field, no call hands back memory it did not write, live handles
// do not grow, and a reference run stays bit-identical throughout.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { ROOT } from './helpers.js';

let engine;
let trainerEngine;
before(async () => {
  engine = await createEngine();
  trainerEngine = await createEngine({ trainer: true });
});

const refused = (fn, what = '') => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MhaError, `${what}: not an MhaError: ${error?.stack ?? error}`);
    assert.notEqual(error.code, 'internal', error.message);
    assert.ok(error.field, `${what}: no field: ${error.message}`);
    return error;
  }
  assert.fail(`${what}: accepted`);
};

const reference = () => Array.from(engine.run({ B: 2, T: 4, C: 8, H: 2, seed: 3 }).output);
let expected;
const unchanged = (on = engine) => {
  expected ??= reference();
  assert.deepEqual(Array.from(on.run({ B: 2, T: 4, C: 8, H: 2, seed: 3 }).output), expected);
};

const lying = (array, length) => Object.defineProperty(array, 'length', { value: length });

describe('a typed array whose length property is not its data', () => {
  test('matmul refuses it by name and never returns an earlier call\'s values', () => {
    unchanged();
    const handles = engine.liveHandles;
    // An earlier call leaves its values in freed memory.
    engine.matmul(new Float32Array(4096).fill(7), new Float32Array([1]), { M: 4096, K: 1, N: 1 });
    const error = refused(() => engine.matmul(lying(new Float32Array(1), 4096), new Float32Array([1]), { M: 4096, K: 1, N: 1 }), 'matmul');
    assert.equal(error.field, 'a');
    assert.equal(error.key, 'bad_tensor.length_mismatch');
    assert.match(error.message, /a says its length is 4096, but its data holds 1 values/);
    assert.match(error.messageIn('zh'), /a 声称长度为 4096/);
    const shorter = refused(() => engine.matmul(lying(new Float32Array(8), 2), new Float32Array([1]), { M: 2, K: 1, N: 1 }), 'shorter');
    assert.equal(shorter.key, 'bad_tensor.length_mismatch');
    assert.equal(engine.liveHandles, handles);
    unchanged();
  });

  test('run({x}), weights, fromTorch and fromLinear refuse it too', () => {
    const handles = engine.liveHandles;
    assert.equal(refused(() => engine.run({ B: 1, T: 64, C: 64, H: 1, x: lying(new Float32Array(1), 4096) })).field, 'x');
    const weights = { Wq: lying(new Float32Array(1), 64) };
    assert.equal(refused(() => engine.run({ B: 1, T: 1, C: 8, H: 1, weights })).field, 'weights.Wq');
    assert.equal(refused(() => engine.fromTorch({ in_proj_weight: lying(new Float32Array(1), 192), out_proj_weight: new Float32Array(64) })).field, 'in_proj_weight');
    const linear = { 'q_proj.weight': new Float32Array(64), 'k_proj.weight': new Float32Array(64), 'v_proj.weight': new Float32Array(64), 'out_proj.weight': lying(new Float32Array(1), 64) };
    assert.equal(refused(() => engine.fromLinear(linear)).field, 'out_proj.weight');
    assert.equal(engine.liveHandles, handles);
    unchanged();
  });

  test('a subclass is read by its data, and a BigInt subclass is refused by name', () => {
    class Mine extends Float32Array {}
    const run = engine.run({ B: 1, T: 1, C: 2, H: 1, bias: false, x: Mine.from([1, 2]), weights: { Wq: [1, 0, 0, 1], Wk: [1, 0, 0, 1], Wv: [1, 0, 0, 1], Wo: [1, 0, 0, 1] } });
    assert.deepEqual(Array.from(run.output), [1, 2]);
    class Big extends BigInt64Array {}
    const error = refused(() => engine.run({ B: 1, T: 1, C: 2, H: 1, x: new Big(2) }));
    assert.equal(error.key, 'bad_type.tensor');
    assert.match(error.message, /x must be a Float32Array or an array of numbers, not a BigInt64Array/);
    const named = new Float32Array(2);
    Object.defineProperty(named, 'constructor', { value: { name: 42 } });
    assert.equal(engine.run({ B: 1, T: 1, C: 2, H: 1, x: named }).output.length, 2);
    unchanged();
  });
});

describe('arrays and objects that throw or hold what a number is not', () => {
  test('BigInts, holes and getters that throw are named, and leak no handle', () => {
    unchanged();
    const handles = engine.liveHandles;
    for (let i = 0; i < 20; i++) {
      const big = refused(() => engine.run({ B: 1, T: 1, C: 2, H: 1, x: [1n, 2n] }), 'bigint');
      assert.equal(big.field, 'x[0]');
      assert.match(big.message, /x\[0\] must be a number, not 1n/);
      const getter = [1, 2];
      Object.defineProperty(getter, 1, { get() { throw new Error('no'); } });
      const thrown = refused(() => engine.run({ B: 1, T: 1, C: 2, H: 1, x: getter }), 'getter');
      assert.equal(thrown.key, 'bad_tensor.unreadable');
      assert.equal(thrown.field, 'x[1]');
      const hole = refused(() => engine.run({ B: 1, T: 1, C: 2, H: 1, x: [1, , ] }), 'hole');  // eslint-disable-line no-sparse-arrays
      assert.equal(hole.field, 'x[1]');
      const config = { B: 1, T: 1, C: 2, H: 1 };
      Object.defineProperty(config, 'seed', { enumerable: true, get() { throw new TypeError('nope'); } });
      assert.equal(refused(() => engine.run(config), 'config getter').key, 'bad_value.unreadable');
    }
    assert.equal(engine.liveHandles, handles);
    unchanged();
  });

  test('a right-length array with a hole is named before its values are copied into wasm memory', async () => {
    const fresh = await createEngine();
    const before = fresh.memoryBytes;
    const x = new Array(1 * 4096 * 1024);  // 16 MiB of floats once copied
    x[0] = 1;
    const error = refused(() => fresh.run({ B: 1, T: 4096, C: 1024, H: 1, snapshots: false, x }));
    assert.equal(error.field, 'x[1]');
    assert.equal(error.key, 'missing.hole');
    assert.ok(fresh.memoryBytes - before < 8 << 20, `wasm memory grew by ${fresh.memoryBytes - before} bytes`);
  });
});

describe('the trainer', () => {
  test('training that diverges is named at its step and the trainer stays usable', () => {
    const trainer = trainerEngine.trainer({ task: 'sort', layernorm: false, lr: 1, clip: 0, layers: 4, mlp: true });
    const error = refused(() => trainer.train(50), 'diverge');
    assert.equal(error.key, 'training.diverged');
    assert.equal(error.field, 'lr');
    const step = error.params.step;
    assert.match(error.message, new RegExp(`^Training diverged at step ${step}: .* stays at step ${step - 1}\\. Lower lr \\(now 1\\)`));
    assert.equal(trainer.step, step - 1);
    assert.ok(Number.isFinite(trainer.evaluate({ sequences: 64 }).loss));
    const saved = trainer.save();
    trainerEngine.trainer({ checkpoint: saved }).dispose();  // its checkpoint still loads
    // Training on from there either goes on or is refused again by name, never bricked.
    trainer.configure({ lr: 0.001, clip: 1 });
    try {
      assert.ok(trainer.train(2).losses.every(Number.isFinite));
    } catch (again) {
      assert.equal(again.key, 'training.diverged');
    }
    trainer.dispose();
    // Reset: the same model with a gentler lr trains.
    const reset = trainerEngine.trainer({ task: 'sort', layernorm: false, lr: 0.001, clip: 1, layers: 4, mlp: true });
    assert.ok(reset.train(5).losses.every(Number.isFinite));
    reset.dispose();
  });

  test('an option float32 cannot hold is refused by name, not stored as 0', () => {
    for (const options of [{ lr: 1e-300 }, { lr: 1e-46 }, { weightDecay: 1e-40 }, { clip: 1e-50 }]) {
      const error = refused(() => trainerEngine.trainer({ task: 'reverse', ...options }), JSON.stringify(options));
      assert.equal(error.key, 'bad_option.float32');
      assert.equal(error.field, Object.keys(options)[0]);
    }
    const trainer = trainerEngine.trainer({ task: 'reverse' });
    assert.equal(refused(() => trainer.configure({ lr: 1e-46 })).key, 'bad_option.float32');
    assert.ok(Number.isFinite(trainer.train(1).loss));
    trainer.dispose();
  });

  test('the CLI says so in one line and exits 2', () => {
    const cli = spawnSync(process.execPath, [`${ROOT}web/cli.js`, 'train', '--task', 'reverse', '--lr', '1e-46', '--steps', '1'], { encoding: 'utf8' });
    assert.equal(cli.status, 2, cli.stderr);
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr);
    assert.match(cli.stderr, /lr=1e-46 is too small for float32/);
  });

  test('a checkpoint with a negative second moment is refused as damaged', () => {
    const trainer = trainerEngine.trainer({ task: 'reverse' });
    trainer.train(1);
    const bytes = trainer.save();
    trainer.dispose();
    const words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // After the header (3 words), the options (17), version 2's corpus and storage words (12), step and rng.
    const at = 22 + (words.getUint32(4, true) >= 2 ? 12 : 0);
    const n = words.getUint32(at * 4, true);
    words.setFloat32((at + 1 + 2 * n) * 4, -1, true);  // the first of v, after the parameters and m
    let hash = 2166136261;
    for (let i = 0; i + 4 < bytes.length; i += 4) hash = Math.imul((hash ^ words.getUint32(i, true)) >>> 0, 16777619) >>> 0;
    words.setUint32(bytes.length - 4, hash, true);
    const error = refused(() => trainerEngine.trainer({ checkpoint: bytes }));
    assert.equal(error.key, 'checkpoint.corrupt');
    assert.equal(error.params.reason, 'term.corrupt.moments');
  });

  test('counts and memory are checked before tokens or a checkpoint are copied in', async () => {
    const fresh = await createEngine({ trainer: true });
    const trainer = fresh.trainer({ task: 'reverse', batch: 1 });
    const before = fresh.memoryBytes;
    assert.equal(refused(() => trainer.predict(new Int32Array(2 ** 28))).key, 'bad_tokens.length');
    assert.equal(refused(() => trainer.predict(lying(new Int32Array(8), 2 ** 20))).key, 'bad_tensor.length_mismatch');
    const checkpoint = new Uint8Array(256 << 20);
    checkpoint.set([0x4d, 0x48, 0x41, 0x54, 1, 0, 0, 0]);
    assert.equal(refused(() => fresh.trainer({ checkpoint })).key, 'checkpoint.corrupt');
    assert.ok(fresh.memoryBytes - before < 8 << 20, `wasm memory grew by ${fresh.memoryBytes - before} bytes`);
    trainer.dispose();

    const large = fresh.trainer({ task: 'induction', width: 256, heads: 16, layers: 4, mlp: true, T: 64, vocab: 512, batch: 1 });
    const sequences = new Int32Array(512 * 64);
    const error = refused(() => large.attention(sequences));
    assert.equal(error.key, 'memory_cap.trainer_call');
    assert.equal(refused(() => large.run(sequences)).field, 'tokens');
    assert.ok(fresh.memoryBytes < 1.5 * 2 ** 30, `wasm memory ${fresh.memoryBytes}`);
    large.dispose();
  });

  test('null options, throwing getters and BigInt tokens are named', () => {
    const trainer = trainerEngine.trainer({ task: 'reverse' });
    const handles = trainerEngine.liveHandles;
    assert.ok(Number.isFinite(trainer.evaluate(null).loss));
    const T = trainer.task.T;
    assert.equal(trainer.run(new Int32Array(T), null).steps.length > 0, true);
    const options = { task: 'reverse' };
    Object.defineProperty(options, 'seed', { enumerable: true, get() { throw new Error('no'); } });
    assert.equal(refused(() => trainerEngine.trainer(options)).key, 'bad_value.unreadable');
    const bad = refused(() => trainer.predict([1n]));
    assert.equal(bad.key, 'bad_tokens.value');
    assert.doesNotMatch(bad.message, /…/);
    assert.equal(refused(() => trainer.predict(new BigInt64Array(T))).field, 'tokens');
    assert.equal(trainerEngine.liveHandles, handles);
    unchanged(trainerEngine);
    trainer.dispose();
  });
});

// A mutation fuzzer over the tricks a caller can play with a tensor: each case is a right-sized
// tensor bent one way, handed to one entry. Every answer is a correct-length result or a named
// MhaError; live handles do not grow and the reference run stays bit-identical throughout.
describe('tensor tricks, fuzzed', () => {
  test('2,000 bent tensors across run, weights, matmul, fromTorch and trainer tokens', () => {
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = (items) => items[Math.floor(random() * items.length)];
    const at = (n) => Math.floor(random() * n);
    const values = (n) => Array.from({ length: n }, () => random() * 2 - 1);
    const tricks = [
      (n) => lying(Float32Array.from(values(n)), n * (2 + at(1000))),
      (n) => lying(Float32Array.from(values(n + 3)), n),
      (n) => lying(new Float32Array(Math.max(1, at(n))), n),
      (n) => { class Sub extends Float32Array {} return Sub.from(values(n)); },
      (n) => { class Big extends BigInt64Array {} return new Big(n); },
      (n) => Object.defineProperty(Float32Array.from(values(n)), 'constructor', { value: pick([{ name: 7 }, null, { get name() { throw new Error('name'); } }]) }),
      (n) => Object.defineProperty(Float32Array.from(values(n)), Symbol.toStringTag, { value: 'Float64Array' }),
      (n) => { const a = Float32Array.from(values(n)); structuredClone(a.buffer, { transfer: [a.buffer] }); return a; },
      (n) => { const a = values(n); Object.defineProperty(a, at(n), { get() { throw new Error('getter'); } }); return a; },
      (n) => { const a = values(n); a[at(n)] = pick([NaN, Infinity, 1e39, -1e39, 1n, '1', null, undefined, [1], {}, true, Symbol('s')]); return a; },
      (n) => { const a = values(n); delete a[at(n)]; return a; },
      (n) => new Proxy(values(n), { get(target, key) { if (key === String(n - 1)) throw new Error('trap'); return target[key]; } }),
      (n) => new Proxy(values(n), { has() { throw new Error('has'); } }),
      (n) => pick([new DataView(new ArrayBuffer(4 * n)), new ArrayBuffer(4 * n), { length: n }, 'text', 42, () => 1]),
      (n) => Float64Array.from(values(n), (v, i) => (i === n - 1 ? pick([1e39, NaN, -Infinity]) : v)),
      (n) => Int8Array.from({ length: n }, () => at(7) - 3),
    ];
    const C = 4;
    const weights = () => ({ Wq: values(16), Wk: values(16), Wv: values(16), Wo: values(16), bq: values(4), bk: values(4), bv: values(4), bo: values(4) });
    const trainer = trainerEngine.trainer({ task: 'reverse' });
    const T = trainer.task.T;
    const entries = [
      [engine, (t) => engine.run({ B: 1, T: 2, C, H: 1, x: t(8) }).output.length === 8],
      [engine, (t) => engine.run({ B: 1, T: 2, C, H: 1, weights: { ...weights(), Wq: t(16) } }).output.length === 8],
      [engine, (t) => engine.matmul(t(8), Float32Array.from(values(4)), { M: 2, K: 4, N: 1 }).length === 2],
      [engine, (t) => engine.fromTorch({ in_proj_weight: t(48), out_proj_weight: values(16), C }).Wq.length === 16],
      [trainerEngine, (t) => trainer.predict(t(T)).length === T],
    ];
    const handles = [engine.liveHandles, trainerEngine.liveHandles];
    let refusedCount = 0;
    for (let i = 0; i < 2000; i++) {
      const [owner, call] = pick(entries);
      const trick = pick(tricks);
      try {
        assert.ok(call(trick), `case ${i}: a result of the wrong length`);
      } catch (error) {
        assert.ok(error instanceof MhaError, `case ${i}: not an MhaError: ${error?.stack ?? error}`);
        assert.notEqual(error.code, 'internal', `case ${i}: ${error.message}`);
        assert.ok(error.field, `case ${i}: no field: ${error.message}`);
        refusedCount++;
      }
      if (i % 100 === 0) unchanged();
      assert.ok(owner.liveHandles <= (owner === engine ? handles[0] : handles[1]), `case ${i}: a handle leaked`);
    }
    assert.ok(refusedCount > 500, `${refusedCount} refused`);
    unchanged();
    unchanged(trainerEngine);
    trainer.dispose();
  });
});
