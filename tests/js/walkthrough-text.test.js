import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryLayout, stepAnswers } from '../../web/src/logic/walkthrough/walkthrough-text.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';

test('the answers come from the snapshots: values, element count, last two axes', async () => {
  const run = (await getTestEngine()).run({ B: 2, T: 3, Tk: 5, C: 8, H: 2 });
  const at = (id) => stepAnswers(run.step(id), run.steps);
  assert.equal(at('x').countBefore, null);
  assert.deepEqual([at('q_heads').changesValues, at('q_heads').changesCount], [false, false]);
  assert.equal(at('scores').changesCount, true, '[2,2,3,4] → [2,2,3,5]');
  assert.equal(at('scores').countBefore, run.step('q_heads').numel);
  assert.deepEqual([at('scores').rowAxis, at('scores').colAxis], ['Tq', 'Tk']);
  assert.deepEqual([at('k_t').rowAxis, at('k_t').colAxis], ['D', 'Tk']);
  assert.equal(at('weights').changesValues, true);
  assert.equal(at('k').input, 'source');
});

test('a transpose is a non-contiguous view and merging heads is a contiguous copy', async () => {
  const run = (await getTestEngine()).run(CONFIGS[0]);
  for (const id of ['q_heads', 'k_t', 'context_t']) {
    const layout = memoryLayout(run.step(id));
    assert.equal(layout.contiguous, false, id);
    assert.equal(layout.note, 'layout.view');
    assert.notDeepEqual(layout.strides, layout.rowMajor, `${id} strides are permuted`);
  }
  const concat = memoryLayout(run.step('concat'));
  assert.equal(concat.note, 'layout.copy');
  assert.deepEqual(concat.strides, concat.rowMajor);
});
