// No leaks in training (issue 12): 10,000 training steps, and 1,000 trainers created, used through
// every call and dropped, leave the wasm memory and the live Embind handles as they were after
// warm-up. scripts/leak_check.js --trainer runs the same at the default sizes.
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

test('1,000 trainers created, used and dropped: wasm memory and live handles flat after the first 100', { timeout: 120_000 }, async () => {
  const engine = await createEngine({ trainer: true });
  for (let i = 0; i < 100; i++) trainerRound(engine, i);
  const settled = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
  for (let i = 100; i < 1000; i++) trainerRound(engine, i);
  assert.deepEqual({ memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles }, settled);
});
