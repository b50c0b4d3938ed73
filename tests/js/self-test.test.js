import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerText, axesIn, checkAnswer, judge, makeQuestions, numbersIn, practiceQuestion } from '../../web/src/logic/lessons/self-test.js';
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
  // Conceptual questions, answered from the run: softmax runs along the weights' last axis, the
  // transpose changes only the order of the axes, the first reshape is where C % H ≠ 0 fails.
  assert.equal(byId.softmaxAxis.answer, 'Tk');
  assert.equal(byId.transpose.answer, 'order');
  assert.equal(byId.divisible.answer, 'q_split');
  for (const q of [byId.softmaxAxis, byId.transpose, byId.divisible]) assert.ok(q.options.includes(q.answer));
});

test('practice questions ask about other C/H whose D is whole', () => {
  const seen = new Set();
  for (let n = 1; n <= 6; n++) {
    const q = practiceQuestion(n);
    assert.equal(q.answer * q.params.H, q.params.C);
    assert.equal(q.id, `practice-${n}`);
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
  assert.deepEqual(axesIn('[B, H, T, Tk]'), ['B', 'H', 'Tq', 'Tk'], 'T is Tq');
  assert.equal(axesIn('2×2'), null);
  assert.equal(answerText(shape), '[2,2,4,4]');
});

test('at the seed size a shape right only by coincidence is not marked right; names settle it', async () => {
  const run = (await getTestEngine()).run({ B: 2, T: 4, C: 8, H: 2 });
  const byId = Object.fromEntries(makeQuestions(run).map((q) => [q.id, q]));
  // D = Tk = 4: [B,H,Tq,D] (forgot to contract D) gives the same numbers as [B,H,Tq,Tk].
  const numbers = judge(byId.scores, '[2,2,4,4]', run.summary);
  assert.equal(numbers.verdict, 'coincidence');
  assert.deepEqual(numbers.wrongAxes, ['B', 'H', 'Tq', 'D']);
  assert.deepEqual(numbers.equal, [{ a: 'Tk', b: 'D', n: 4 }]);
  assert.equal(judge(byId.scores, '[B, H, Tq, Tk]', run.summary).verdict, 'right');
  assert.equal(judge(byId.scores, '[B,H,T,Tk]', run.summary).verdict, 'right', 'T for Tq');
  assert.equal(judge(byId.scores, '[B,H,Tq,D]', run.summary).verdict, 'wrong');
  assert.equal(judge(byId.weights, '64', run.summary).verdict, 'coincidence', 'B·H·Tq·D = 64 too');
  assert.equal(judge(byId.weights, 'B·H·Tq·Tk', run.summary).verdict, 'right');
  assert.equal(judge(byId.weights, 'Tk*Tq*H*B', run.summary).verdict, 'right', 'a product in any order');
  assert.equal(judge(byId.D, '4', run.summary).verdict, 'right', 'no coincidence to fear');
  // All sizes different: numbers alone are enough.
  const distinct = (await getTestEngine()).run({ B: 2, T: 3, C: 20, H: 4 });
  const other = Object.fromEntries(makeQuestions(distinct).map((q) => [q.id, q]));
  assert.equal(judge(other.scores, '[2,4,3,3]', distinct.summary).verdict, 'right');
  assert.equal(judge(other.q_heads, '[2,4,3,5]', distinct.summary).verdict, 'right');
  assert.equal(judge(other.weights, String(2 * 4 * 3 * 3), distinct.summary).verdict, 'right');
  assert.equal(judge(other.softmaxAxis, 'Tk').verdict, 'right');
  assert.equal(judge(other.softmaxAxis, 'Tq').verdict, 'wrong');
});
