// The self-test: short questions built from the current config and run, with answers read from
// the run's own summary and snapshots, and a lenient checker ("[2, 2, 4, 4]", "2×2×4×4" and
// "(2,2,4,4)" are the same shape). No DOM: tests/js/self-test.test.js.
import { divisors } from './growth.js';

/** Whole numbers in a piece of text, in order ("[2, 2, 4, 4]" → [2, 2, 4, 4]). */
export const numbersIn = (text) => (String(text).replace(/[,，](?=\d{3}\b)/g, '').match(/\d+/g) ?? []).map(Number);

/**
 * Questions for a run. `variant` picks another C/H pair for the "what is D?" practice question,
 * so a learner can ask for more. Each: { id, key (i18n), params, kind: 'number' | 'shape', answer }.
 */
export function makeQuestions(run, variant = 0) {
  const s = run.summary;
  const step = (id) => run.steps.find((x) => x.id === id);
  const questions = [
    { id: 'D', key: 'quiz.D', params: { C: s.C, H: s.H }, kind: 'number', answer: s.D },
    { id: 'scores', key: 'quiz.scoresShape', params: {}, kind: 'shape', answer: step('scores').shape },
    { id: 'q_heads', key: 'quiz.qHeadsShape', params: {}, kind: 'shape', answer: step('q_heads').shape },
    { id: 'weights', key: 'quiz.weightsCount', params: {}, kind: 'number', answer: step('weights').numel },
    { id: 'params', key: s.bias ? 'quiz.params' : 'quiz.paramsNoBias', params: { C: s.C }, kind: 'number', answer: s.parameterCount },
  ];
  if (s.Hkv !== s.H) questions.push({ id: 'kv', key: 'quiz.kvCache', params: { Hkv: s.Hkv, D: s.D }, kind: 'number', answer: s.kvCacheBytesPerToken });
  if (variant > 0) {
    const widths = [12, 16, 24, 32, 48, 64, 96, 128, 512, 768];
    const C = widths[(variant * 7) % widths.length];
    const choices = divisors(C).filter((h) => h > 1 && h < C);
    const H = choices[(variant * 3) % choices.length];
    questions[0] = { id: 'D', key: 'quiz.D', params: { C, H }, kind: 'number', answer: C / H };
  }
  return questions;
}

/** True if `text` answers `question`. */
export function checkAnswer(question, text) {
  const numbers = numbersIn(text);
  if (question.kind === 'number') return numbers.length === 1 && numbers[0] === question.answer;
  return numbers.length === question.answer.length && numbers.every((n, i) => n === question.answer[i]);
}

/** The expected answer as the page prints it. */
export const answerText = (question) => (question.kind === 'shape' ? `[${question.answer.join(',')}]` : String(question.answer));
