// Reproductions from the second red-team pass, each of which broke the engine before:
// size arithmetic that wrapped around in 32-bit wasm, memory the cap did not count, tensors copied
// in before their length was checked, and messages that lost or garbled what they quoted. Every
// refusal must be an MhaError naming its field, and the engine must keep working afterwards.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const refused = (fn) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MhaError, `not an MhaError: ${error}`);
    assert.notEqual(error.code, 'internal', error.message);
    assert.ok(error.field, `no field: ${error.message}`);
    return error;
  }
  assert.fail('accepted');
};

const stillWorks = () => assert.equal(engine.run({ B: 2, T: 4, C: 8, H: 2 }).output.length, 64);

test('matmul whose M·N wraps around in 32 bits is refused before any allocation', () => {
  const error = refused(() => engine.matmul(new Float32Array(65536), new Float32Array(65536), { M: 65536, K: 1, N: 65536 }));
  assert.equal(error.code, 'memory_cap');
  assert.match(error.message, /^This product needs 16\.00 GiB of memory.*Lower M, K or N\.$/);
  stillWorks();
  assert.equal(refused(() => engine.matmul(new Float32Array(4), new Float32Array(4))).field, 'M');
  assert.equal(refused(() => engine.matmul(new Float32Array(4), new Float32Array(4), { M: 2 ** 32 + 2, K: 1, N: 2 })).field, 'M');
});

test('C = 65536 and C = 32768 are refused by the memory check, naming C, and leak nothing', () => {
  const handles = engine.liveHandles;
  const memory = engine.memoryBytes;
  for (let i = 0; i < 1500; ++i) {
    const error = refused(() => engine.run({ B: 1, T: 1, C: 65536, H: 65536 }));
    assert.equal(error.code, 'memory_cap');
    assert.equal(error.field, 'C');
  }
  assert.equal(engine.liveHandles, handles);
  assert.equal(engine.memoryBytes, memory);
  const wide = refused(() => engine.run({ B: 1, T: 1, C: 32768, H: 1 }));
  assert.equal(wide.field, 'C');
  assert.match(wide.message, /the weights alone take 16\.00 GiB\. Lower C: raising memoryCap cannot help/);  // 4·32768² floats
  stillWorks();
});

test('the memory cap covers the weights and the pass itself, with or without snapshots', async () => {
  const fresh = await createEngine();
  const start = fresh.memoryBytes;
  const wide = refused(() => fresh.run({ B: 1, T: 1, C: 8192, H: 8192 }));
  assert.equal(wide.field, 'C');
  assert.match(wide.message, /the weights alone take 1\.00 GiB/);
  const long = refused(() => fresh.run({ B: 1, T: 16000, C: 1, H: 1, snapshots: false }));
  assert.equal(long.field, 'T');
  assert.match(long.message, /the attention scores of one head alone take 976\.6 MiB\. Lower T or Tk/);
  const lazy = refused(() => fresh.run({ B: 1, T: 16000, C: 1, H: 1, snapshots: 'lazy' }));
  assert.equal(lazy.field, 'T');
  assert.equal(fresh.memoryBytes, start, 'nothing was allocated');
  // Runs that fit a 64 MiB cap keep the module's memory near it, whatever they hold.
  for (const config of [{ B: 1, T: 600, C: 64, H: 4 }, { B: 2, T: 128, C: 768, H: 12 }, { B: 1, T: 4, C: 1536, H: 12, snapshots: false }, { B: 1, T: 2000, C: 16, H: 1, snapshots: 'lazy' }]) {
    fresh.run({ ...config, memoryCap: 64 * 2 ** 20 });
  }
  assert.ok(fresh.memoryBytes <= start + 64 * 2 ** 20 + 16 * 2 ** 20, `wasm memory ${fresh.memoryBytes / 2 ** 20} MiB`);
});

test('a tensor\'s length is checked before it is copied in: huge or sparse arrays are refused at once', async () => {
  const fresh = await createEngine();
  const memory = fresh.memoryBytes;
  for (const x of [new Float32Array(2 ** 26), new Array(2 ** 28)]) {
    const started = performance.now();
    const error = refused(() => fresh.run({ B: 1, T: 2, C: 2, H: 1, x }));
    assert.equal(error.code, 'bad_tensor_length');
    assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  }
  assert.equal(fresh.memoryBytes, memory);
});

test('messages keep what they quote: a NUL, a lone surrogate, a string index', () => {
  const nul = refused(() => engine.run({ B: 2, T: 4, C: 8, H: 2, mask: 'ca\u0000usal and more' }));
  assert.match(nul.message, /not the string "ca\\u0000usal and more"\. A padding mask/);
  const surrogate = refused(() => engine.run({ B: 2, T: 4, C: 8, H: 2, mask: 'x\uD800y' }));
  assert.match(surrogate.message, /"x\\ud800y"/);
  const run = engine.run({ B: 2, T: 4, C: 8, H: 2 });
  assert.equal(refused(() => run.step('weights', { batch: '1', head: 0 })).message, 'batch="1" is not a whole number from 0 to 1.');
  assert.equal(refused(() => run.step(Symbol('q'))).code, 'unknown_step');
});

test('fromTorch reads a BigInt C as its number, like every other config value', () => {
  const C = 8;
  const weights = engine.fromTorch({ C: 8n, in_proj_weight: new Float32Array(3 * C * C), out_proj_weight: new Float32Array(C * C) });
  assert.equal(weights.Wq.length, C * C);
  assert.equal(refused(() => engine.fromTorch({ C: 2 ** 32, in_proj_weight: [], out_proj_weight: [] })).field, 'C');
});
