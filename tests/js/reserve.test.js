// The space an element reserves while the engine loads (web/src/logic/page/reserve.js): its step table
// is the engine's catalogue, and its estimates follow the config the way the elements draw it.
// tests/browser/host-pages.test.js measures the layout shift that is left on a real page.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { heatmapHeight, reservedHeight, shapesHeight, stepsOf, walkthroughHeight } from '../../web/src/logic/page/reserve.js';
import { getTestEngine, CONFIGS } from './engine-helper.js';

test('the steps, shapes and axes of a config, from the catalogue, are those of its run', async () => {
  const engine = await getTestEngine();
  for (const config of CONFIGS) {
    const run = engine.run(config);
    assert.deepEqual(stepsOf(config).map(({ id, shape, axes }) => [id, shape, axes]), run.steps.map((step) => [step.id, step.shape, [...step.axes]]), JSON.stringify(config));
  }
});

test('estimates grow with what the element will draw', () => {
  const width = 680;
  const tokens = ['a', 'b', 'c', 'd'];
  const base = { B: 2, T: 4, C: 8, H: 2 };
  assert.ok(heatmapHeight({ config: { ...base, C: 16, H: 8 }, tokens, width }) > heatmapHeight({ config: base, tokens, width }), 'more heads');
  assert.ok(heatmapHeight({ config: base, tokens, width: 360 }) > heatmapHeight({ config: base, tokens, width }), 'a narrower column wraps');
  assert.ok(heatmapHeight({ config: base, tokens, width, attributes: { controls: 'none' } }) < heatmapHeight({ config: base, tokens, width }), 'no controls');
  assert.ok(walkthroughHeight({ config: { ...base, H: 4, Hkv: 2, C: 16 }, tokens, width }) > walkthroughHeight({ config: base, tokens, width }), 'GQA has two more steps');
  assert.ok(walkthroughHeight({ config: base, tokens, width, attributes: { step: 'scores' } }) < walkthroughHeight({ config: base, tokens, width }), 'one pinned step');
  assert.ok(shapesHeight({ config: base, width: 360 }) > shapesHeight({ config: base, width: 1000 }));
  assert.equal(reservedHeight('mha-playground', { config: base, width }), 0);
});
