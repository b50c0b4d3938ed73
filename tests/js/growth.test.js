import { test } from 'node:test';
import assert from 'node:assert/strict';
import { divisors, forwardFlops, growthChartGeometry, growthSeries, scoresElements, shortNumber } from '../../web/src/logic/lessons/growth.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

test('the chart\'s FLOPs and scores sizes are the engine\'s, for every kind of config', async () => {
  const engine = await getTestEngine();
  for (const config of [...CONFIGS, { B: 1, T: 33, C: 16, H: 2 }, { B: 2, T: 7, Tk: 3, C: 12, H: 6, Hkv: 3, bias: false }]) {
    const run = engine.run(config);
    assert.equal(forwardFlops(run.summary), run.summary.flops, JSON.stringify(config));
    assert.equal(scoresElements(run.summary), run.step('scores').numel);
  }
});

test('the series doubles T, includes the current T, and grows; cross-attention keeps Tk', async () => {
  const run = (await getTestEngine()).run({ B: 2, T: 5, C: 8, H: 2 });
  const series = growthSeries(run.summary);
  assert.deepEqual(series.filter((p) => p.current).map((p) => p.T), [5]);
  assert.ok(series.at(-1).T >= 64);
  for (let i = 1; i < series.length; i++) {
    assert.ok(series[i].scores > series[i - 1].scores && series[i].flops > series[i - 1].flops);
  }
  const at = (T) => series.find((p) => p.T === T).scores;
  assert.equal(at(8) / at(4), 4, 'self-attention scores grow with T²');
  const cross = growthSeries(engine2(run.summary));
  const crossAt = (T) => cross.find((p) => p.T === T).scores;
  assert.equal(crossAt(8) / crossAt(4), 2, 'with a fixed source, scores grow with T');
});

const engine2 = (summary) => ({ ...summary, cross: true, Tk: 9 });

test('chart geometry stays in its box and higher values sit higher', () => {
  const series = [{ T: 1, scores: 4, flops: 100 }, { T: 2, scores: 16, flops: 400 }, { T: 4, scores: 64, flops: 1600 }];
  const g = growthChartGeometry(series);
  for (const [x, y] of [...g.scores, ...g.flops]) {
    assert.ok(x >= g.left && x <= g.width - g.right && y >= g.top && y <= g.height - g.bottom);
  }
  assert.ok(g.scores[2][1] < g.scores[0][1]);
  assert.ok(g.flops[0][1] < g.scores[0][1]);
});

test('divisors and short numbers', () => {
  assert.deepEqual(divisors(12), [1, 2, 3, 4, 6, 12]);
  assert.equal(shortNumber(1500), '1.5k');
  assert.equal(shortNumber(25_000_000), '25M');
  assert.equal(shortNumber(7), '7');
});
