import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerText, checkAnswer, makeQuestions, numbersIn } from '../../web/src/logic/self-test.js';
import { getTestEngine } from './engine-helper.js';

test('questions are answered by the run itself', async () => {
  const run = (await getTestEngine()).run({ B: 2, T: 3, C: 12, H: 3, Hkv: 1 });
  const byId = Object.fromEntries(makeQuestions(run).map((q) => [q.id, q]));
  assert.equal(byId.D.answer, 4);
  assert.deepEqual(byId.D.params, { C: 12, H: 3 });
  assert.deepEqual(byId.scores.answer, run.step('scores').shape);
  assert.deepEqual(byId.q_heads.answer, [2, 3, 3, 4]);
  assert.equal(byId.weights.answer, run.step('weights').numel);
  assert.equal(byId.params.answer, run.summary.parameterCount);
  assert.equal(byId.kv.answer, run.summary.kvCacheBytesPerToken);
});

test('another variant asks about another C/H whose D is whole', async () => {
  const run = (await getTestEngine()).run({ B: 1, T: 2, C: 8, H: 2 });
  const seen = new Set();
  for (let v = 1; v <= 6; v++) {
    const [q] = makeQuestions(run, v);
    assert.equal(q.answer * q.params.H, q.params.C);
    seen.add(`${q.params.C}/${q.params.H}`);
  }
  assert.ok(seen.size >= 3);
});

test('answers are read leniently but not wrongly', () => {
  const shape = { kind: 'shape', answer: [2, 2, 4, 4] };
  for (const text of ['[2,2,4,4]', '(2, 2, 4, 4)', '2×2×4×4', 'torch.Size([2, 2, 4, 4])']) assert.ok(checkAnswer(shape, text), text);
  for (const text of ['[2,4,2,4]', '[2,2,4]', '', '2 2 4 4 1']) assert.ok(!checkAnswer(shape, text), text);
  const number = { kind: 'number', answer: 1056 };
  assert.ok(checkAnswer(number, '1,056'));
  assert.ok(checkAnswer(number, ' 1056 '));
  assert.ok(!checkAnswer(number, '1055'));
  assert.deepEqual(numbersIn('a 12 b 3'), [12, 3]);
  assert.equal(answerText(shape), '[2,2,4,4]');
});
