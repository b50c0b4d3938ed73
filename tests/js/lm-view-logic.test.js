// What the language-model section computes to draw (web/src/logic/lm/view-logic.js), checked
// against values worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOBS, bestJob, curvePath, heatColor, heatRgb, kilobytes } from '../../web/src/logic/lm/view-logic.js';

test('a head is named by the best of its corpus\'s jobs', () => {
  const jobs = { previousChar: 0.2, induction: 0.1, halfLine: 0.8, line: 0.05 };
  // English text has no half-lines: the verse's jobs are not offered there.
  assert.deepEqual(bestJob(jobs, 'moby-dick'), { job: 'previousChar', score: 0.2 });
  assert.deepEqual(bestJob(jobs, 'tang-poems'), { job: 'halfLine', score: 0.8 });
  assert.deepEqual(bestJob({ previousChar: NaN, induction: 0.3 }, 'moby-dick'), { job: 'induction', score: 0.3 });
  assert.deepEqual(bestJob({}, 'moby-dick'), { job: 'previousChar', score: 0 });
  assert.deepEqual(JOBS['tang-poems'], ['previousChar', 'halfLine', 'line', 'induction']);
});

test('weights are coloured from white to dark blue, out-of-range values clamped', () => {
  assert.equal(heatColor(0), 'rgb(247,251,255)');
  assert.equal(heatColor(1), 'rgb(8,48,107)');
  assert.equal(heatColor(2), heatColor(1));
  assert.equal(heatColor(-1), heatColor(0));
  assert.equal(heatColor(NaN), heatColor(0));
  const out = new Uint8ClampedArray(5);
  heatRgb(1, out, 2);
  assert.deepEqual([...out], [0, 0, 8, 48, 107], 'written in place, at the offset given');
  // sqrt(0.25) = 0.5: halfway, rounded.
  assert.equal(heatColor(0.25), `rgb(${Math.round(247 - 239 * 0.5)},${Math.round(251 - 203 * 0.5)},${Math.round(255 - 148 * 0.5)})`);
});

test('a curve\'s points map steps and values into the box, y upwards', () => {
  const box = { x0: 30, x1: 310, y0: 110, y1: 10, xMax: 100, yMax: 10 };
  assert.equal(curvePath([[0, 0], [50, 5], [100, 10]], box), '30.0,110.0 170.0,60.0 310.0,10.0');
  assert.equal(curvePath([[200, 20], [10, NaN]], box), '310.0,10.0', 'clamped; a missing value is left out');
  assert.equal(kilobytes(2048 * 74), '148.0');
});
