// Run by tests/js/trainer-leaks.test.js with --expose-gc: trainers dropped without dispose() are
// freed by the FinalizationRegistry once collected, so the wasm memory stops growing. Exits 1 if
// it keeps growing.
import { createEngine } from '../../web/src/engine/engine.js';
import { TINY } from './trainer_leak_workload.js';

const engine = await createEngine({ trainer: true });
// A model of ~1 MB of state: 400 of them kept would be 400 MB.
const big = { ...TINY.sort, width: 64, layers: 3, heads: 4, batch: 1 };
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
for (let i = 0; i < 50; i++) engine.trainer({ ...big, seed: i }).train(1);
await collect();
const settled = engine.memoryBytes;
for (let i = 50; i < 400; i++) {
  engine.trainer({ ...big, seed: i }).train(1);
  if (i % 50 === 0) await collect();
}
await collect();
if (engine.memoryBytes > settled + 16 * 2 ** 20) {
  console.error(`wasm memory grew from ${settled} to ${engine.memoryBytes} bytes: dropped trainers were not freed`);
  process.exit(1);
}
