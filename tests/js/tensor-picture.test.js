// The animation's cell mapping must be the truth: every cell of a reshape, transpose, merge or
// GQA repeat must hold exactly the value of the input cell it is said to come from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellSources, changeKind, pictureLayout } from '../../web/src/logic/walkthrough/tensor-picture.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

test('cells that move or regroup hold the value of their source cell, in every config', async () => {
  const engine = await getTestEngine();
  for (const config of CONFIGS) {
    const run = engine.run(config);
    const ids = run.steps.map((s) => s.id);
    let checked = 0;
    for (const step of run.steps) {
      const inputId = step.input;
      if (!inputId) continue;
      assert.ok(ids.includes(inputId), `${step.id} reads ${inputId}, which the run has`);
      const input = run.step(inputId);
      const kind = changeKind(input, step);
      if (kind !== 'move' && kind !== 'regroup') continue;
      const sources = cellSources(input, step);
      for (let i = 0; i < step.numel; i++) {
        assert.ok(sources[i] >= 0, `${step.id}[${i}] has a source`);
        assert.equal(step.data[i], input.data[sources[i]], `${JSON.stringify(config)} ${step.id}[${i}]`);
      }
      checked++;
    }
    assert.ok(checked >= 8, `checked ${checked} steps`);
  }
});

test('a wrong mapping would be caught: transposes really permute the data', async () => {
  const run = (await getTestEngine()).run(CONFIGS[1]);
  const split = run.step('q_split');
  const heads = run.step('q_heads');
  let differs = 0;
  for (let i = 0; i < heads.numel; i++) if (heads.data[i] !== split.data[i]) differs++;
  assert.ok(differs > 0, 'identity mapping would be wrong for a transpose');
});

test('the kinds of change follow the op', async () => {
  const run = (await getTestEngine()).run(CONFIGS[3]);
  const kind = (id) => changeKind(run.step(run.step(id).input), run.step(id));
  assert.equal(kind('q_split'), 'regroup');
  assert.equal(kind('q_heads'), 'move');
  assert.equal(kind('k_t'), 'move');
  assert.equal(kind('k_shared'), 'move');
  assert.equal(kind('scaled'), 'recolor');
  assert.equal(kind('scores'), 'appear');
  assert.equal(kind('concat'), 'regroup');
  assert.equal(changeKind(null, run.step('x')), 'appear');
});

test('no two cells of a picture overlap and all fit in its box', async () => {
  const run = (await getTestEngine()).run(CONFIGS[3]);
  for (const step of run.steps) {
    const layout = pictureLayout(step.shape, step.axes);
    const seen = new Set();
    for (let i = 0; i < step.numel; i++) {
      const key = `${layout.x[i]},${layout.y[i]}`;
      assert.ok(!seen.has(key), `${step.id}: two cells at ${key}`);
      seen.add(key);
      assert.ok(layout.x[i] >= 0 && layout.x[i] < layout.width && layout.y[i] >= 0 && layout.y[i] < layout.height);
    }
  }
});

test('the head split keeps a token on one row; heads-first stacks the heads', () => {
  const split = pictureLayout([1, 2, 2, 3], ['B', 'T', 'H', 'D']);
  assert.equal(split.y[0], split.y[5], 'token 0 spans both heads in one row');
  assert.equal(split.x[3] - split.x[2], 2, 'a gap between heads');
  const heads = pictureLayout([1, 2, 2, 3], ['B', 'H', 'T', 'D']);
  assert.ok(heads.y[6] > heads.y[5] + 1, 'head 1 sits below head 0 with a gap');
});
