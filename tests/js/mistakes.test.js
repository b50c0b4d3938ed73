// Each wrong version must really be wrong in the way the panel says, and be computed from the
// run's own tensors (checked here against an independent plain-loop computation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headMatrix, hiddenAxisMistakes, meanRowMax, noProjection, noScale, noTranspose, reshapeWithoutTranspose, softmaxOverQueries } from '../../web/src/logic/lessons/mistakes.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

const close = (a, b, tolerance = 1e-4) => Math.abs(a - b) <= tolerance;

test('splitting raw X: scores are X_h·X_hᵀ/√D, symmetric, unlike the projected ones', async () => {
  const run = (await getTestEngine()).run(CONFIGS[0]);
  const { D, C, T } = run.summary;
  const x = run.step('x').data;
  const result = noProjection(run, 0, 1);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let d = 0; d < D; d++) dot += x[i * C + D + d] * x[j * C + D + d];
      assert.ok(close(result.wrong[i][j], dot / Math.sqrt(D)));
    }
  }
  assert.equal(result.wrongAsymmetry, 0);
  assert.ok(result.rightAsymmetry > 1e-3);
  assert.deepEqual(result.features, [D, 2 * D - 1]);
});

test('no transpose of K: a shape error when D ≠ Tk, silently different numbers when D = Tk', async () => {
  const engine = await getTestEngine();
  const mismatch = noTranspose(engine.run({ B: 1, T: 5, C: 8, H: 2 }));
  assert.equal(mismatch.ok, false);
  assert.deepEqual([mismatch.left, mismatch.right], [[5, 4], [5, 4]].map((s, i) => (i ? [5, 4] : s)));
  const silent = noTranspose(engine.run(CONFIGS[0]));
  assert.equal(silent.ok, true, 'T = D = 4');
  assert.ok(silent.maxDiff > 1e-3);
  assert.deepEqual(silent.right, headMatrix(engine.run(CONFIGS[0]).step('scores')));
});

test('softmax over Tq: columns sum to 1 and rows do not; the right weights are the reverse', async () => {
  const engine = await getTestEngine();
  for (const config of [CONFIGS[0], CONFIGS[1]]) {
    const result = softmaxOverQueries(engine.run(config));
    for (const sum of result.wrongColSums) assert.ok(close(sum, 1), `column sum ${sum}`);
    for (const sum of result.rightRowSums) assert.ok(close(sum, 1), `row sum ${sum}`);
    assert.ok(result.wrongRowSums.some((sum) => !close(sum, 1, 1e-3)), 'some wrong row does not sum to 1');
  }
});

test('view(B, H, T, D) without the transpose: each row is a real slice of q from another place', async () => {
  const run = (await getTestEngine()).run(CONFIGS[1]);
  const { T, C, D } = run.summary;
  const q = run.step('q').data;
  const result = reshapeWithoutTranspose(run);
  assert.equal(result.rows.length, run.summary.H * T);
  for (const row of result.rows) {
    const start = row.token * C + row.tokenHead * D;
    assert.deepEqual(row.wrong, Array.from(q.subarray(start, start + D)));
    assert.equal(row.scrambled, row.wrong.some((v, i) => v !== row.correct[i]));
  }
  assert.ok(result.scrambledRows > 0 && result.scrambledRows < result.rows.length, 'head 0 row 0 is the only place that agrees by luck');
});

test('no 1/√D: softmax is more peaked, and more so as D grows', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 1, T: 6, C: 64, H: 1 });
  const result = noScale(run, (config) => engine.run(config));
  assert.ok(result.wrongPeak > result.rightPeak);
  assert.equal(result.trend.length, 4);
  const last = result.trend.at(-1);
  assert.ok(last.wrong > last.right + 0.1, `D=256 unscaled ${last.wrong} vs scaled ${last.right}`);
  assert.ok(last.wrong > result.trend[0].wrong, 'more saturated at larger D');
  assert.equal(meanRowMax([[0.5, 0.5], [0, 0]]), 0.5, 'fully masked rows are left out');
});

test('equal sizes that hide axis mistakes are named', () => {
  const found = hiddenAxisMistakes({ B: 2, T: 4, Tk: 4, H: 2, D: 4, C: 8, cross: false });
  assert.deepEqual(found.map((f) => f.axes.join('=')), ['B=H', 'T=D']);
  assert.equal(found[1].key, 'equal.transposeK');
  assert.deepEqual(hiddenAxisMistakes({ B: 1, T: 5, Tk: 5, H: 3, D: 4, C: 12, cross: false }), []);
  assert.equal(hiddenAxisMistakes({ B: 1, T: 3, Tk: 4, H: 2, D: 4, C: 8, cross: true })[0].key, 'equal.transposeK');
});
