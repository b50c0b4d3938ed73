// No leaks: mixed runs through one engine — sizes, features, successes and errors from
// the engine, from JS and from results — leave the wasm memory size and the count of live Embind
// handles exactly as they were after the first 1,000 runs. scripts/leak_check.js runs 100,000.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { mixedRun } from './leak_workload.js';

const RUNS = 3000;
const SETTLE = 1000;

test(`${RUNS} mixed runs: wasm memory and live Embind handles unchanged after the first ${SETTLE}`, { timeout: 120_000 }, async () => {
  const engine = await createEngine();
  const initialBytes = engine.memoryBytes;
  assert.equal(typeof engine.liveHandles, 'number');
  const outcomes = { ok: 0, error: 0 };
  for (let i = 0; i < SETTLE; i++) outcomes[mixedRun(engine, i)]++;
  const settled = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
  for (let i = SETTLE; i < RUNS; i++) outcomes[mixedRun(engine, i)]++;
  assert.deepEqual({ memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles }, settled);
  assert.ok(settled.memoryBytes > initialBytes, 'the workload grows the heap past its initial size, so that its high-water mark is tested');
  assert.ok(outcomes.ok > RUNS / 3 && outcomes.error > RUNS / 4, JSON.stringify(outcomes));
});
