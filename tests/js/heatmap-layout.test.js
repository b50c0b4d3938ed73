import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heatmapGeometry, heatmapPanels, hitCell, keyLabels, moveCell, shortLabel } from '../../web/src/heatmap-layout.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

test('one panel per (batch, head), each pointing at its own block of the weights', async () => {
  const engine = await getTestEngine();
  for (const config of CONFIGS) {
    const run = engine.run(config);
    const weights = run.step('weights');
    const { B, H, Hkv, T, Tk } = run.summary;
    const panels = heatmapPanels(weights, Hkv);
    assert.equal(panels.length, B * H);
    for (const panel of panels) {
      assert.equal(panel.offset, ((panel.b * H + panel.h) * T) * Tk);
      assert.equal(panel.kvHead, Math.floor(panel.h / (H / Hkv)));
      // The K/V head a panel is grouped under is the one its scores were computed with.
      const shared = run.steps.find((s) => s.id === 'k_shared');
      if (shared) {
        const kHeads = run.step('k_heads');
        const D = run.summary.D;
        const a = shared.data.subarray(((panel.b * H + panel.h) * Tk) * D, ((panel.b * H + panel.h) * Tk + 1) * D);
        const b = kHeads.data.subarray(((panel.b * Hkv + panel.kvHead) * Tk) * D, ((panel.b * Hkv + panel.kvHead) * Tk + 1) * D);
        assert.deepEqual(Array.from(a), Array.from(b));
      }
    }
  }
});

test('every cell centre hits its own cell, and points outside the grid hit nothing', () => {
  const geometry = heatmapGeometry({ rows: 3, cols: 5, rowLabels: ['我', '爱', '深度学习'], colLabels: ['s0', 's1', 's2', 's3', 's4'] });
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 5; c++) {
      assert.deepEqual(hitCell(geometry, geometry.cellX(c) + geometry.cell / 2, geometry.cellY(r) + geometry.cell / 2), { r, c });
    }
  }
  assert.equal(hitCell(geometry, geometry.left - 1, geometry.top + 1), null);
  assert.equal(hitCell(geometry, geometry.cellX(5) + 1, geometry.top + 1), null);
  assert.equal(hitCell(geometry, geometry.left + 1, geometry.cellY(3) + 1), null);
  assert.ok(geometry.width >= geometry.cellX(5) && geometry.height >= geometry.cellY(3));
});

test('long or wide labels get room: CJK is wider, long column labels rotate', () => {
  const short = heatmapGeometry({ rows: 2, cols: 2, rowLabels: ['a', 'b'], colLabels: ['a', 'b'] });
  const cjk = heatmapGeometry({ rows: 2, cols: 2, rowLabels: ['深度学习', 'b'], colLabels: ['a', 'b'] });
  const latin = heatmapGeometry({ rows: 2, cols: 2, rowLabels: ['abcd', 'b'], colLabels: ['a', 'b'] });
  assert.ok(cjk.left > latin.left && latin.left > short.left);
  assert.equal(short.rotate, false);
  assert.equal(heatmapGeometry({ rows: 2, cols: 2, rowLabels: ['a', 'b'], colLabels: ['learning', 'b'] }).rotate, true);
  assert.equal(shortLabel('自然语言处理模型'), '自然语言处…');
  assert.equal(shortLabel('cat'), 'cat');
});

test('keys are labelled by the tokens in self-attention and s0… in cross-attention', () => {
  assert.deepEqual(keyLabels(['a', 'b'], 2, false), ['a', 'b']);
  assert.deepEqual(keyLabels(['a', 'b'], 3, true), ['s0', 's1', 's2']);
});

test('arrow keys move the cursor and stop at the edges', () => {
  assert.deepEqual(moveCell({ r: 0, c: 0 }, 'ArrowUp', 3, 4), { r: 0, c: 0 });
  assert.deepEqual(moveCell({ r: 0, c: 0 }, 'ArrowDown', 3, 4), { r: 1, c: 0 });
  assert.deepEqual(moveCell({ r: 2, c: 3 }, 'ArrowRight', 3, 4), { r: 2, c: 3 });
  assert.deepEqual(moveCell({ r: 2, c: 3 }, 'Home', 3, 4), { r: 2, c: 0 });
  assert.deepEqual(moveCell({ r: 1, c: 1 }, 'x', 3, 4), { r: 1, c: 1 });
});
