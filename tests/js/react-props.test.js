// A React component's props → the custom element's (logic/react-props.js): each attribute's prop
// under the attribute's name as the text the attribute takes (so react-dom/server writes it into
// the HTML and hydration finds the same), each onMhaStep-style prop as React 19's `onmha-step`
// listener, the rest passed through. And the components rendered on the server (react.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { elementProps } from '../../web/src/logic/react-props.js';

test('attributes as text under their names, events and data properties apart, the rest passed through', () => {
  const onStep = () => {};
  const ref = { current: null };
  const config = { C: 8 };
  const { attributes, events, data } = elementProps('mha-heatmap', {
    id: 'h', className: 'wide', config, c: 12, h: 3, tokens: ['the', 'cat'], keyLengths: [3, 2], cellSize: 28, only: true, average: false,
    bias: false, 'label-length': 3, for: 'walk', onMhaSelect: onStep, onMhaStep: onStep, onMhaError: 'not a function', run: undefined,
  });
  assert.deepEqual(attributes, {
    id: 'h', className: 'wide', c: '12', h: '3', tokens: 'the cat', 'key-lengths': '3 2', 'cell-size': '28', only: '',
    bias: 'false', 'label-length': '3', for: 'walk',
    // an event the heatmap does not fire passes through as React would get it
    onMhaStep: onStep,
  });
  assert.deepEqual(events, { 'mha-select': onStep });
  assert.deepEqual(data, { config });
  assert.deepEqual(elementProps('mha-trainer', { task: 'reverse', lr: 0.01, trained: true, probe: [3, 1, 4], onMhaTrainStep: onStep, ref }),
    { attributes: { task: 'reverse', lr: '0.01', trained: '', probe: '3 1 4', ref }, events: { 'mha-train-step': onStep }, data: {} });
});

test('the components render the elements with their attributes on the server', async () => {
  const { renderToString } = await import('react-dom/server');
  const { createElement } = await import('react');
  const { MhaWalkthrough, MhaHeatmap, MhaTrainer } = await import('../../web/src/react.js');
  const html = renderToString(createElement('main', null,
    createElement(MhaWalkthrough, { id: 'walk', c: 12, h: 3, tokens: ['the', 'cat', 'sat'], keyLengths: [3], onMhaStep: () => {} }),
    createElement(MhaHeatmap, { for: 'walk', step: 'scores', head: 2, only: true }),
    createElement(MhaTrainer, { task: 'reverse', layers: 1 })));
  assert.match(html, /<mha-walkthrough id="walk" c="12" h="3" tokens="the cat sat" key-lengths="3"><\/mha-walkthrough>/);
  assert.match(html, /<mha-heatmap for="walk" step="scores" head="2" only=""><\/mha-heatmap>/);
  assert.match(html, /<mha-trainer task="reverse" layers="1"><\/mha-trainer>/);
});
