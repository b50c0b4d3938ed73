import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axisColors, diverging, luminance, scaleFor, viridis } from '../../web/src/logic/heatmap/colors.js';

test('viridis runs from dark purple to yellow and gets lighter all the way', () => {
  assert.equal(viridis(0), '#440154');
  assert.equal(viridis(1), '#fde725');
  let previous = -1;
  for (let i = 0; i <= 100; i++) {
    const l = luminance(viridis(i / 100));
    assert.ok(l > previous, `luminance must rise at t=${i / 100}`);
    previous = l;
  }
  assert.equal(viridis(-3), viridis(0));
  assert.equal(viridis(7), viridis(1));
});

test('the diverging map is light at 0, purple below, orange above, and darker as |t| grows', () => {
  assert.ok(luminance(diverging(0)) > 0.9);
  const [r0, , b0] = [1, 3, 5].map((i) => parseInt(diverging(-1).slice(i, i + 2), 16));
  const [r1, , b1] = [1, 3, 5].map((i) => parseInt(diverging(1).slice(i, i + 2), 16));
  assert.ok(b0 > r0, 'negative is purple-blue');
  assert.ok(r1 > b1, 'positive is orange');
  // Magnitude reads as darkness on both sides, so |value| survives a grey-scale print.
  for (const sign of [-1, 1]) {
    let previous = luminance(diverging(0));
    for (let i = 1; i <= 20; i++) {
      const l = luminance(diverging((sign * i) / 20));
      assert.ok(l < previous, `darker as |t| grows at ${(sign * i) / 20}`);
      previous = l;
    }
  }
});

test('a step gets a symmetric signed range that ignores −∞, and weights get [0, 1]', () => {
  const scale = scaleFor({ op: 'mask', data: Float32Array.from([-Infinity, -0.5, 2, 1]) });
  assert.equal(scale.kind, 'diverging');
  assert.deepEqual([scale.min, scale.max], [-2, 2]);
  assert.equal(scale.color(0), diverging(0));
  const weights = scaleFor({ op: 'softmax', data: Float32Array.from([0.2, 0.8]) });
  assert.deepEqual([weights.kind, weights.min, weights.max], ['sequential', 0, 1]);
  assert.equal(scaleFor({ op: 'scale', data: new Float32Array(3) }).max, 1, 'all zeros still gives a usable range');
});

test('rgbInto writes the bytes of the same colour as color(), for every kind of value', () => {
  const hexOf = (out, at) => `#${[0, 1, 2].map((k) => out[at + k].toString(16).padStart(2, '0')).join('')}`;
  const values = [-Infinity, Infinity, NaN, -3, -2, -1.2345, -0.5, -1e-7, 0, 1e-7, 0.1, 0.25, 0.33, 0.5, 0.9999, 1, 1.5, 2, 7];
  for (let i = 0; i < 500; i++) values.push(Math.sin(i * 12.9898) * 2.5);
  for (const scale of [scaleFor({ op: 'mask', data: Float32Array.from([-Infinity, -0.5, 2, 1]) }), scaleFor({ op: 'softmax', data: new Float32Array(1) })]) {
    const out = new Uint8ClampedArray(values.length * 4);
    values.forEach((v, i) => scale.rgbInto(v, out, i * 4));
    values.forEach((v, i) => {
      assert.equal(hexOf(out, i * 4), scale.color(v), `${scale.kind} at ${v}`);
      assert.equal(out[i * 4 + 3], 255, 'opaque');
    });
  }
});

test('every axis has one stable colour, T and Tq share one, merged axes show both parts', () => {
  const names = ['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'D'];
  const colors = names.map((n) => axisColors(n)[0]);
  assert.equal(new Set(colors).size, names.length, 'distinct colours');
  assert.deepEqual(axisColors('Tq'), axisColors('T'));
  assert.deepEqual(axisColors('H·D'), [axisColors('H')[0], axisColors('D')[0]]);
});

import { MIN_UNIFORM_EXTENT, heatmapScaleKinds, heatmapScales, rampColors, uniformReferences } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { getTestEngine } from './engine-helper.js';

const distinct = (scale, values, cols) => new Set(values.map((v, i) => scale.color(v, Math.floor(i / cols)))).size;

test('heatmap scales: relative to uniform by default for weights; near-uniform weights stay pale, strong ones reach the ends', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 1, T: 6, C: 16, H: 2, seed: 3 });
  const weights = run.step('weights');
  assert.deepEqual(heatmapScaleKinds(weights), ['uniform', 'head', 'fixed']);
  assert.deepEqual(heatmapScaleKinds(run.step('scaled')), ['shared', 'head']);
  const panels = heatmapPanels(weights, 2);
  const [uniform] = heatmapScales(weights, panels, 'uniform');
  const min = Math.min(...weights.data);
  const max = Math.max(...weights.data);
  // Seeded weights stray less than ±1 from 1/6 (as w·6 − 1): the scale keeps its least range,
  // 0 to twice uniform, so no seeded cell comes near either end of the ramp.
  const reach = Math.max(max * 6 - 1, 1 - min * 6);
  assert.ok(reach < 1, `seeded weights are near uniform (|w·n − 1| up to ${reach})`);
  assert.equal(MIN_UNIFORM_EXTENT, 1);
  assert.equal(uniform.extent, 1, 'the floor, not the weights, sets the range');
  assert.equal(uniform.floored, true);
  assert.equal(uniform.mid, 1 / 6);
  assert.equal(uniform.color(1 / 6, 0), diverging(0));
  assert.deepEqual([uniform.color(0, 0), uniform.color(2 / 6, 0)], [diverging(-1), diverging(1)], 'the ramp\'s ends are weight 0 and twice uniform');
  assert.deepEqual([uniform.min, uniform.max], [0, 2 / 6]);
  assert.ok(Math.abs(uniform.reachedMin - min) < 1e-7 && Math.abs(uniform.reachedMax - max) < 1e-7, 'the weights\' own range is kept for the legend');
  // Each cell sits (w·n − 1)/2 of the ramp from neutral, never stretched: at most reach/2 here.
  const u = (v) => Math.abs((v * 6 - 1) * 0.5 / uniform.extent);
  assert.ok(Math.max(...Array.from(weights.data, u)) < 0.5 * reach + 1e-6);
  // A head that puts 0.9 of a row on one key of 6 (w·n − 1 = 4.4) sets the range itself.
  const strong = Float32Array.from(weights.data);
  strong.set([0.9, 0.02, 0.02, 0.02, 0.02, 0.02], 0);
  const [sharp] = heatmapScales({ ...weights, data: strong }, panels, 'uniform');
  assert.ok(Math.abs(sharp.extent - (0.9 * 6 - 1)) < 1e-5);
  assert.equal(sharp.floored, false);
  assert.equal(sharp.color(0.9, 0), diverging(1));
  // minExtent: two heatmaps given the same one draw the same weight in the same colour.
  const [shared] = heatmapScales(weights, panels, 'uniform', null, { minExtent: sharp.extent });
  assert.equal(shared.extent, sharp.extent);
  assert.equal(shared.color(weights.data[7], 1), sharp.color(weights.data[7], 1));
  assert.ok(uniform.from >= 0 && uniform.to === 1);
});

test('per head: each panel from its own min to its max; masked cells are left out of every range', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 2, T: 4, C: 8, H: 2, mask: 'causal' });
  const weights = run.step('weights');
  const masked = run.step('masked');
  const isMasked = (i) => masked.data[i] === -Infinity;
  const panels = heatmapPanels(weights, 2);
  const scales = heatmapScales(weights, panels, 'head', isMasked);
  for (const [p, panel] of panels.entries()) {
    const values = Array.from(weights.data.subarray(panel.offset, panel.offset + 16)).filter((_, j) => !isMasked(panel.offset + j));
    assert.equal(scales[p].min, Math.min(...values));
    assert.equal(scales[p].max, Math.max(...values));
    assert.equal(scales[p].color(scales[p].max), viridis(1));
  }
  // Causal: query 0 sees one key, so its uniform weight is 1; query 3 sees four.
  assert.deepEqual(Array.from(uniformReferences(panels[0], isMasked)), [1, 1 / 2, 1 / 3, 1 / 4]);
  const [uniform] = heatmapScales(weights, panels, 'uniform', isMasked);
  assert.equal(uniform.mid, null, 'rows differ: the middle is 1/n of each row');
  assert.equal(uniform.color(1, 0), diverging(0), 'query 0 on its only key is exactly uniform');
  // A ratio: twice uniform is the same colour in a row of 2 keys and in a row of 4.
  assert.equal(uniform.color(1, 1), uniform.color(0.5, 3));
  assert.equal(uniform.color(2 / 3, 2), uniform.color(0.5, 3), 'and in a row of 3');
  // Signed steps: shared is ±the step's largest |value|, per head ±the panel's.
  const scaled = run.step('scaled');
  const [shared] = heatmapScales(scaled, panels, 'shared');
  assert.deepEqual([shared.min, shared.max], [scaleFor(scaled).min, scaleFor(scaled).max]);
  const perHead = heatmapScales(scaled, panels, 'head');
  assert.ok(perHead.some((s) => s.max < shared.max));
  assert.equal(perHead[0].color(0), diverging(0));
});

test('every heatmap scale writes the same bytes as its colour, and its ramp has both ends', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 1, T: 5, C: 12, H: 3, mask: 'causal', seed: 9 });
  const hexOf = (out, at) => `#${[0, 1, 2].map((k) => out[at + k].toString(16).padStart(2, '0')).join('')}`;
  for (const step of [run.step('weights'), run.step('masked')]) {
    const panels = heatmapPanels(step, 3);
    for (const kind of heatmapScaleKinds(step)) {
      const scales = heatmapScales(step, panels, kind, (i) => run.step('masked').data[i] === -Infinity);
      const out = new Uint8ClampedArray(4);
      for (const [p, panel] of panels.entries()) {
        for (let j = 0; j < 25; j++) {
          const v = step.data[panel.offset + j];
          scales[p].rgbInto(v, out, 0, Math.floor(j / 5));
          assert.equal(hexOf(out, 0), scales[p].color(v, Math.floor(j / 5)), `${step.id} ${kind}`);
        }
      }
      assert.ok(distinct(scales[0], Array.from(step.data.subarray(0, 25)), 5) > 3, `${step.id} ${kind} shows structure`);
    }
  }
  assert.deepEqual([rampColors('viridis', 3)[0], rampColors('viridis', 3)[2]], [viridis(0), viridis(1)]);
  assert.deepEqual([rampColors('diverging', 3)[0], rampColors('diverging', 3)[1]], [diverging(-1), diverging(0)]);
});

import { paintPanel } from '../../web/src/logic/heatmap/colors.js';

test('paintPanel writes the bytes rgbInto writes, cell by cell, masked cells in their own colour', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 1, T: 7, C: 12, H: 3, mask: 'causal', seed: 2 });
  const masked = run.step('masked');
  const isMasked = (i) => masked.data[i] === -Infinity;
  for (const step of [run.step('weights'), run.step('scaled')]) {
    const panels = heatmapPanels(step, 3);
    for (const kind of heatmapScaleKinds(step)) {
      const scales = heatmapScales(step, panels, kind, isMasked);
      for (const [p, panel] of panels.entries()) {
        const fast = new Uint8ClampedArray(49 * 4);
        paintPanel(scales[p], step.data, panel, isMasked, fast, [1, 2, 3]);
        const slow = new Uint8ClampedArray(49 * 4);
        for (let j = 0; j < 49; j++) {
          if (isMasked(panel.offset + j)) slow.set([1, 2, 3, 255], j * 4);
          else scales[p].rgbInto(step.data[panel.offset + j], slow, j * 4, Math.floor(j / 7));
        }
        assert.deepEqual(Array.from(fast), Array.from(slow), `${step.id} ${kind} panel ${p}`);
      }
    }
  }
});
