#!/usr/bin/env node
// The large leak check: 100,000 mixed runs (tests/js/leak_workload.js) through one
// engine; the wasm memory size and the count of live Embind handles must be the same at the end as
// after the first 1,000. Not part of `npm test` (minutes); tests/js/leaks.test.js runs 3,000 there.
//   node scripts/leak_check.js [runs]      (after scripts/build.sh)
//   node scripts/leak_check.js --trainer [steps] [trainers]   the trainer at its default sizes:
//     10,000 training steps of the induction trainer and 1,000 trainers of every task made, used
//     and dropped; memory and handles after warm-up (1,000 steps, 100 trainers) must not change.
import { createEngine } from '../web/src/engine/engine.js';
import { mixedRun } from '../tests/js/leak_workload.js';
import { DEFAULTS, trainerRound } from '../tests/js/trainer_leak_workload.js';

if (process.argv[2] === '--trainer') {
  const steps = Number(process.argv[3] ?? 10000);
  const trainers = Number(process.argv[4] ?? 1000);
  const engine = await createEngine({ trainer: true });
  const state = () => ({ memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles });
  const show = (what, s) => console.log(`${what}: wasm memory ${(s.memoryBytes / 2 ** 20).toFixed(2)} MiB (${s.memoryBytes} bytes), live Embind handles ${s.liveHandles}`);
  let start = performance.now();
  const trainer = engine.trainer({ task: 'induction' });
  let settled = null;
  while (trainer.step < steps) {
    trainer.train(100);
    if (trainer.step === 1000) show('after 1,000 steps', (settled = state()));
  }
  show(`after ${trainer.step} steps (${((performance.now() - start) / 1000).toFixed(0)} s)`, state());
  const stepsFlat = JSON.stringify(state()) === JSON.stringify(settled);
  start = performance.now();
  let afterWarmUp = null;
  for (let i = 0; i < trainers; i++) {
    trainerRound(engine, i, DEFAULTS);
    if (i + 1 === 100) show('after 100 trainers', (afterWarmUp = state()));
  }
  show(`after ${trainers} trainers (${((performance.now() - start) / 1000).toFixed(0)} s)`, state());
  const trainersFlat = JSON.stringify(state()) === JSON.stringify(afterWarmUp);
  if (!stepsFlat || !trainersFlat) {
    console.error('leak_check --trainer: FAILED, memory or handles changed after warm-up');
    process.exit(1);
  }
  console.log('leak_check --trainer: no growth');
  process.exit(0);
}

const runs = Number(process.argv[2] ?? 100000);
const SETTLE = 1000;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB (${bytes} bytes)`;

const engine = await createEngine();
const outcomes = { ok: 0, error: 0 };
const start = performance.now();
let settled = null;
for (let i = 0; i < runs; i++) {
  outcomes[mixedRun(engine, i)]++;
  if (i + 1 === SETTLE) {
    settled = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
    console.log(`after ${SETTLE} runs: wasm memory ${mib(settled.memoryBytes)}, live Embind handles ${settled.liveHandles}`);
  }
  if ((i + 1) % 10000 === 0) console.log(`  ${i + 1} runs: wasm memory ${mib(engine.memoryBytes)}, live handles ${engine.liveHandles}`);
}
const seconds = (performance.now() - start) / 1000;
const end = { memoryBytes: engine.memoryBytes, liveHandles: engine.liveHandles };
console.log(`after ${runs} runs: wasm memory ${mib(end.memoryBytes)}, live Embind handles ${end.liveHandles}`);
console.log(`${outcomes.ok} successes, ${outcomes.error} errors, ${seconds.toFixed(0)} s`);
if (!settled || end.memoryBytes !== settled.memoryBytes || end.liveHandles !== settled.liveHandles) {
  console.error('leak_check: FAILED, memory or handles changed after the first 1,000 runs');
  process.exit(1);
}
console.log('leak_check: no growth');
