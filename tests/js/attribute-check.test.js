// A mistyped attribute is named with what the element takes (web/src/logic/page/attribute-check.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attributeProblems } from '../../web/src/logic/page/attribute-check.js';
import { translator } from '../../web/src/text/translate.js';
import { getTestEngine } from './engine-helper.js';

test('a step the run lacks, a step a heatmap cannot draw, a head out of range', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 2, T: 3, C: 8, H: 2 });
  assert.deepEqual(attributeProblems('mha-walkthrough', [['c', '8'], ['step', 'nonexistent']], run).map((p) => [p.name, p.accepted.split(', ').length]), [['step', run.steps.length]]);
  assert.deepEqual(attributeProblems('mha-heatmap', [['step', 'output']], run), [{ name: 'step', value: 'output', accepted: 'scores, scaled, masked, weights', unknown: false }]);
  assert.deepEqual(attributeProblems('mha-heatmap', [['head', '7'], ['batch', '1']], run), [{ name: 'head', value: '7', accepted: '0, 1', unknown: false }]);
  assert.deepEqual(attributeProblems('mha-heatmap', [['head', 'x'], ['batch', '']], run).map((p) => p.name), ['head', 'batch']);
  assert.deepEqual(attributeProblems('mha-heatmap', [['step', 'weights'], ['head', '1'], ['only', '']], run), []);
  const wide = engine.run({ B: 1, T: 2, C: 24, H: 12 });
  assert.equal(attributeProblems('mha-heatmap', [['head', '12']], wide)[0].accepted, '0 … 11');
});

test('names the element does not have, and fixed choices, before any run', () => {
  assert.deepEqual(attributeProblems('mha-heatmap', [['heads', '4'], ['id', 'a'], ['data-x', '1'], ['aria-label', 'x'], ['class', 'c']], null).map((p) => [p.name, p.unknown]), [['heads', true]]);
  assert.deepEqual(attributeProblems('mha-shapes', [['theme', 'night'], ['controls', 'off'], ['theme', 'Dark']], null).map((p) => [p.name, p.accepted]), [['theme', 'auto, light, dark'], ['controls', 'all, none']]);
  const [problem] = attributeProblems('mha-heatmap', [['heads', '4']], null);
  assert.match(translator('en')('warn.unknown', { tag: 'mha-heatmap', ...problem }), /^<mha-heatmap heads="4">: <mha-heatmap> has no attribute heads \(it takes b, t, tk, c, h, .*\); it is ignored\.$/);
});
