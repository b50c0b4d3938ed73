// No leaks in training: 10,000 training steps, and 1,000 trainers created, used through every call
// and disposed, leave the wasm memory and the live Embind handles as they were after warm-up; a
// trainer dropped without dispose() is freed once it is collected. scripts/leak_check.js --trainer
// runs the same at the default sizes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { TINY, trainerRound } from './trainer_leak_workload.js';

test('10,000 training steps: wasm memory and live handles flat after the first 1,000', { timeout: 120_000 }, async () => {
  const engine = await createEngine({ trainer: true });
  const trainer = engine.trainer({ ...TINY.previous });
  for (let i = 0; i < 10; i++) trainer.train(100);
  const settled = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
  for (let i = 10; i < 100; i++) trainer.train(100);
  assert.equal(trainer.step, 10_000);
  assert.deepEqual({ memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles }, settled);
});

test('1,000 trainers created, used and disposed: wasm memory and live handles flat after the first 100', { timeout: 120_000 }, async () => {
  const engine = await createEngine({ trainer: true });
  for (let i = 0; i < 100; i++) trainerRound(engine, i);
  const settled = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
  for (let i = 100; i < 1000; i++) trainerRound(engine, i);
  assert.deepEqual({ memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles }, settled);
});

test('a disposed trainer refuses every call by name; dispose() twice is harmless', async () => {
  const engine = await createEngine({ trainer: true });
  const trainer = engine.trainer({ ...TINY.reverse });
  trainer.dispose();
  trainer.dispose();
  assert.equal(trainer.disposed, true);
  for (const call of [() => trainer.train(1), () => trainer.save(), () => trainer.predict([0, 1, 2, 3]), () => trainer.view([0, 1, 2, 3])]) {
    assert.throws(call, { name: 'MhaError', code: 'trainer', key: 'trainer.disposed' });
  }
});

test('trainers dropped without dispose() are freed once collected', { timeout: 120_000 }, async (t) => {
  if (typeof globalThis.gc !== 'function') {
    // node --expose-gc gives the test a collector to call; the FinalizationRegistry frees them either way.
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname.replace(/trainer-leaks\.test\.js$/, 'trainer_dropped.js')], { stdio: 'inherit' });
    return;
  }
  t.skip('run by trainer_dropped.js');
});
