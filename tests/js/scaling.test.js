// Why 1/√D (web/src/logic/lessons/scaling.js), on real runs: the unscaled scores' variance grows about in
// proportion to D, the scaled ones' does not, and the unscaled softmax saturates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCALING_DS, meanRowMax, meanVariance, scalingPoint, scalingProbe, softmax } from '../../web/src/logic/lessons/scaling.js';
import { getTestEngine } from './engine-helper.js';

test('mean and variance skip −∞; softmax rows sum to 1; a one-hot row peaks at 1', () => {
  assert.deepEqual(meanVariance([1, 3, -Infinity]), { mean: 2, variance: 1, count: 2 });
  const row = softmax([0, Math.log(3), -Infinity]);
  assert.ok(Math.abs(row[0] - 0.25) < 1e-12 && Math.abs(row[1] - 0.75) < 1e-12 && row[2] === 0);
  assert.equal(meanRowMax([1, 0, 0.5, 0.5], 2, 2), 0.75);
});

test('unscaled variance grows with D, scaled variance stays, and the unscaled softmax saturates', async () => {
  const engine = await getTestEngine();
  const points = SCALING_DS.map((D) => scalingPoint(engine.run(scalingProbe(D))));
  const first = points[0];
  const last = points.at(-1);
  assert.ok(last.unscaled / first.unscaled > 50, `unscaled variance ×${(last.unscaled / first.unscaled).toFixed(1)} from D=1 to 512`);
  assert.ok(last.scaled / first.scaled < 4, `scaled variance ×${(last.scaled / first.scaled).toFixed(2)}`);
  for (const p of points) assert.ok(Math.abs(p.scaled * p.D - p.unscaled) < 1e-3 * Math.max(1, p.unscaled), 'scaled = unscaled / D');
  assert.ok(last.peakUnscaled > 2 * last.peakScaled, `unscaled peak ${last.peakUnscaled} vs ${last.peakScaled}`);
  assert.ok(Math.abs(last.rowScaled.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  assert.deepEqual(scalingProbe(64, { seed: 3 }), { B: 1, T: 16, C: 64, H: 1, seed: 3 });
});
