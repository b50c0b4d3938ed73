import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canvasCellPixels, heatmapGeometry, heatmapPanels, hitCell, keyLabels, maskedPath, MAX_PANELS, moveCell, panelPlan, panelsDrawn, shortLabel } from '../../web/src/logic/heatmap/layout.js';
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

test('the masked path covers exactly the masked cells, one rectangle per run in a row', () => {
  for (const [rows, cols] of [[4, 4], [5, 3], [1, 9], [128, 128]]) {
    const geometry = heatmapGeometry({ rows, cols, rowLabels: Array.from({ length: rows }, (_, i) => `t${i}`), colLabels: Array.from({ length: cols }, (_, i) => `s${i}`) });
    const masks = {
      causal: (r, c) => c > r,
      padding: (r, c) => c >= cols - 2,
      checker: (r, c) => (r + c) % 3 === 0,
      none: () => false,
    };
    for (const [[name, masked], gap] of Object.entries(masks).flatMap((entry) => [[entry, 1], [entry, 0]])) {
      const d = maskedPath(geometry, masked, gap);
      const rects = [...d.matchAll(/M(-?[\d.]+) (-?[\d.]+)h(-?[\d.]+)v(-?[\d.]+)h(-?[\d.]+)z/g)].map((m) => m.slice(1).map(Number));
      assert.equal(rects.map((m) => `M${m[0]} ${m[1]}h${m[2]}v${m[3]}h${m[4]}z`).join(''), d, `${name}: only rectangles`);
      const inside = (x, y) => rects.some(([x0, y0, w, h]) => x >= x0 && x < x0 + w && y >= y0 && y < y0 + h);
      let runs = 0;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          if (masked(r, c) && (c === 0 || !masked(r, c - 1))) runs++;
          const centre = [geometry.cellX(c) + geometry.cell / 2, geometry.cellY(r) + geometry.cell / 2];
          assert.equal(inside(...centre), masked(r, c), `${name} ${rows}×${cols}: cell (${r}, ${c})`);
          // Without gaps a masked cell is covered to its edges; with them its last unit stays open.
          const corner = [geometry.cellX(c) + geometry.cell - 0.5, geometry.cellY(r) + geometry.cell - 0.5];
          assert.equal(inside(...corner), masked(r, c) && gap === 0, `${name} ${rows}×${cols} gap ${gap}: corner of (${r}, ${c})`);
        }
      }
      assert.equal(rects.length, runs, `${name}: one rectangle per run`);
    }
  }
});

test('small heatmaps get a pixel block per cell, big ones one pixel per cell', () => {
  const geometry = (rows, cols) => heatmapGeometry({ rows, cols, rowLabels: Array(rows).fill('a'), colLabels: Array(cols).fill('b') });
  assert.equal(canvasCellPixels(geometry(4, 4)), geometry(4, 4).cell);
  assert.equal(canvasCellPixels(geometry(32, 32)), geometry(32, 32).cell);
  assert.equal(canvasCellPixels(geometry(33, 32)), 1);
  assert.equal(canvasCellPixels(geometry(128, 128)), 1);
});

import { averageOverHeads, panelGrid } from '../../web/src/logic/heatmap/layout.js';

test('the average over heads is the mean of the heads\' weights, rows still sum to 1', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 2, T: 3, C: 12, H: 3, mask: 'causal' });
  const weights = run.step('weights');
  const mean = averageOverHeads(weights);
  assert.deepEqual(mean.shape, [2, 1, 3, 3]);
  for (let b = 0; b < 2; b++) {
    for (let i = 0; i < 9; i++) {
      const expected = [0, 1, 2].reduce((sum, h) => sum + weights.data[(b * 3 + h) * 9 + i], 0) / 3;
      assert.ok(Math.abs(mean.data[b * 9 + i] - expected) < 1e-7);
    }
    for (let r = 0; r < 3; r++) {
      const sum = [0, 1, 2].reduce((s, c) => s + mean.data[b * 9 + r * 3 + c], 0);
      assert.ok(Math.abs(sum - 1) < 1e-6, `row ${r} sums to ${sum}`);
    }
  }
});

test('the grid fills the width: more panels side by side on a wide screen, cells follow the space', () => {
  const tokens = ['I', 'love', 'deep', 'learning'];
  const wide = panelGrid({ width: 1100, count: 4, rows: 4, cols: 4, rowLabels: tokens, colLabels: tokens });
  const phone = panelGrid({ width: 320, count: 4, rows: 4, cols: 4, rowLabels: tokens, colLabels: tokens });
  assert.equal(wide.columns, 4);
  assert.ok(wide.columns * (wide.geometry.width + 8) + (wide.columns - 1) * 8 <= 1100);
  assert.ok(phone.columns * (phone.geometry.width + 8) + (phone.columns - 1) * 8 <= 320, 'fits a phone');
  assert.equal(phone.columns, 2, 'two heads side by side on a phone');
  // Two batch rows of two heads in 320 px: three would fit, but a row holds one batch row's pair.
  const grouped = panelGrid({ width: 320, count: 4, group: 2, rows: 4, cols: 4, rowLabels: ['我', '爱', '深度', '学习'], colLabels: ['我', '爱', '深度', '学习'] });
  assert.equal(grouped.columns, 2);
  assert.ok(grouped.cell >= 20, `the cells grow into the room: ${grouped.cell} px`);
  assert.deepEqual(wide.geometry.rowText, tokens, 'full-length labels where they fit: "learning", not "learn…"');
  assert.deepEqual(phone.geometry.rowText, tokens);
  const big = Array.from({ length: 128 }, (_, i) => `w${i}`);
  const grid = panelGrid({ width: 1100, count: 12, rows: 128, cols: 128, rowLabels: big, colLabels: big });
  assert.ok(grid.columns >= 3, `small multiples: ${grid.columns} side by side`);
  assert.ok(grid.cell >= 2);
  assert.ok(grid.geometry.labelStep > 1, 'every k-th label at 2 px cells');
  assert.equal(grid.geometry.rowText.filter(Boolean).length, Math.ceil(128 / grid.geometry.labelStep));
  // An author's cell size and label length win.
  const fixed = panelGrid({ width: 1100, count: 2, rows: 4, cols: 4, rowLabels: tokens, colLabels: tokens, cellSize: 12, labelLength: 3 });
  assert.equal(fixed.cell, 12);
  assert.deepEqual(fixed.geometry.rowText, ['I', 'lo…', 'de…', 'le…']);
  // A label too long for the screen is cut to what fits.
  const long = panelGrid({ width: 320, count: 1, rows: 2, cols: 2, rowLabels: ['Donaudampfschifffahrt', 'x'], colLabels: ['a', 'b'] });
  assert.ok(long.geometry.left < 320 * 0.45, `${long.geometry.left}px of row labels`);
});

test('at most MAX_PANELS panels are drawn, chosen without listing all B·H of them', () => {
  const tiny = panelPlan([65536, 1, 2, 2], 1, { batch: 70000, head: 0 });
  assert.equal(tiny.total, 65536);
  assert.deepEqual(tiny.panels.map(({ b, h, offset }) => [b, h, offset]), [[65535, 0, 65535 * 4]]);
  const heads = panelPlan([3, 100, 2, 2], 100, { batch: 1, head: 7 });
  assert.deepEqual(heads.panels.map(({ b, h }) => [b, h]), [[1, 7]]);
  const row = panelPlan([100, 8, 2, 2], 8, { batch: 2 });
  assert.deepEqual(row.panels.map(({ b, h }) => [b, h]), Array.from({ length: 8 }, (_, h) => [2, h]));
  const all = panelPlan([2, 4, 4, 4], 2, {});
  assert.deepEqual(all.panels, heatmapPanels({ shape: [2, 4, 4, 4] }, 2));
  // The listing form agrees with it.
  const listed = heatmapPanels({ shape: [100, 8, 2, 2] }, 8);
  assert.deepEqual(panelsDrawn(listed, { batch: 2, head: 0, cells: 4 }), row.panels);
  assert.ok(MAX_PANELS * 4 < 2 ** 18);
});

test('an axis of 200,000 labels is measured without overflowing the call stack', () => {
  const labels = Array.from({ length: 200000 }, (_, i) => `t${i}`);
  const geometry = heatmapGeometry({ rows: 200000, cols: 2, rowLabels: labels, colLabels: ['a', 'b'], cell: 1 });
  assert.ok(geometry.left > 0);
  const grid = panelGrid({ width: 800, count: 1, rows: 200000, cols: 2, rowLabels: labels, colLabels: ['a', 'b'] });
  assert.ok(grid.cell >= 1);
});
