// The self-test: questions built from the current config and run — sizes, shapes, counts, and
// conceptual ones (which axis softmax runs over, what a transpose changes, which step breaks when
// C % H ≠ 0) — with answers read from the run's own summary and snapshots, and a judge that is
// lenient about notation ("[2, 2, 4, 4]", "2×2×4×4", "[B,H,Tq,Tk]") but not fooled by equal
// sizes: numbers that a common wrong answer gives too (D = Tk = 4 makes [B,H,Tq,D] read as
// [B,H,Tq,Tk]) are not marked right; the learner is asked to name the axes. No DOM:
// tests/js/self-test.test.js.
import { divisors } from './growth.js';

/** Whole numbers in a piece of text, in order ("[2, 2, 4, 4]" → [2, 2, 4, 4]). */
export const numbersIn = (text) => (String(text).replace(/[,，](?=\d{3}\b)/g, '').match(/\d+/g) ?? []).map(Number);

// Axis names as a learner writes them: T and Tq are the same axis (query positions).
const AXIS_NAMES = ['Hkv', 'Tq', 'Tk', 'B', 'T', 'C', 'H', 'D'];
const canonical = (name) => (name === 'T' ? 'Tq' : name);

/** The axis names in a piece of text, in order ("[B, H, Tq, Tk]" → ['B', 'H', 'Tq', 'Tk']), or null if it has none. */
export function axesIn(text) {
  const found = String(text).match(new RegExp(`\\b(${AXIS_NAMES.join('|')})\\b`, 'g'));
  return found ? found.map(canonical) : null;
}

const sizeOf = (summary) => (axis) => ({ B: summary.B, Tq: summary.T, T: summary.T, Tk: summary.Tk, H: summary.H, Hkv: summary.Hkv, D: summary.D, C: summary.C })[axis];

// Wrong answers a learner really gives, per question: the axes before the transpose, the product
// that forgot to contract D, a softmax over the wrong axis, a product without heads.
const DISTRACTORS = {
  scores: [['B', 'H', 'Tq', 'D'], ['B', 'Tq', 'H', 'Tk'], ['B', 'H', 'Tk', 'Tq'], ['B', 'Tq', 'Tk']],
  q_heads: [['B', 'Tq', 'H', 'D'], ['B', 'H', 'D', 'Tq'], ['B', 'Tq', 'C']],
  weights: [['B', 'H', 'Tq', 'D'], ['B', 'Tq', 'Tk'], ['H', 'Tq', 'Tk']],
};

/**
 * Questions for a run: { id, key (i18n), params, kind: 'number' | 'shape' | 'choice', answer,
 * axes (shape questions and counts: the right axes), distractors, options (choice: values whose
 * words are `${key}.${value}`) }.
 */
export function makeQuestions(run) {
  const s = run.summary;
  const step = (id) => run.steps.find((x) => x.id === id);
  const axesOf = (id) => step(id).axes.map(canonical);
  const reshape = run.steps.find((x) => x.op === 'reshape');
  const questions = [
    { id: 'D', key: 'quiz.D', params: { C: s.C, H: s.H }, kind: 'number', answer: s.D },
    { id: 'scores', key: 'quiz.scoresShape', params: {}, kind: 'shape', answer: step('scores').shape, axes: axesOf('scores'), distractors: DISTRACTORS.scores },
    { id: 'q_heads', key: 'quiz.qHeadsShape', params: {}, kind: 'shape', answer: step('q_heads').shape, axes: axesOf('q_heads'), distractors: DISTRACTORS.q_heads },
    { id: 'weights', key: 'quiz.weightsCount', params: {}, kind: 'number', answer: step('weights').numel, axes: axesOf('weights'), distractors: DISTRACTORS.weights },
    { id: 'params', key: s.bias ? 'quiz.params' : 'quiz.paramsNoBias', params: { C: s.C }, kind: 'number', answer: s.parameterCount },
    // Conceptual: the answers are read from the run too (the axis the weights' rows run along,
    // the step a transpose makes changes no value and no count, the first reshape is the split).
    { id: 'softmaxAxis', key: 'quiz.softmaxAxis', params: {}, kind: 'choice', options: ['B', 'H', 'Tq', 'Tk'], answer: step('weights').axes.at(-1) },
    { id: 'transpose', key: 'quiz.transpose', params: {}, kind: 'choice', options: ['values', 'count', 'order', 'heads'],
      answer: !step('q_heads').changesValues && step('q_heads').numel === step('q_split').numel ? 'order' : 'values' },
    { id: 'divisible', key: 'quiz.divisible', params: { C: 10, H: 4 }, kind: 'choice', options: ['q', 'q_split', 'scores', 'concat'], answer: reshape.id },
  ];
  if (s.Hkv !== s.H) questions.splice(5, 0, { id: 'kv', key: 'quiz.kvCache', params: { Hkv: s.Hkv, D: s.D }, kind: 'number', answer: s.kvCacheBytesPerToken });
  return questions;
}

/** Practice question `n` (1, 2, …): D for another C and H whose D is whole. */
export function practiceQuestion(n) {
  const widths = [12, 16, 24, 32, 48, 64, 96, 128, 512, 768];
  const C = widths[(n * 7) % widths.length];
  const choices = divisors(C).filter((h) => h > 1 && h < C);
  const H = choices[(n * 3) % choices.length];
  return { id: `practice-${n}`, key: 'quiz.D', params: { C, H }, kind: 'number', answer: C / H };
}

/**
 * Judges `text` as an answer to `question`: { verdict: 'right' | 'wrong' | 'coincidence',
 * wrongAxes, equal } — 'coincidence' when the numbers are right but a common wrong answer
 * (`wrongAxes`) gives the same numbers in this config, because of the `equal` sizes
 * ([{ a, b, n }]: axis a and axis b are both n). Axis names settle it: "[B,H,Tq,Tk]" is judged by
 * its names.
 */
export function judge(question, text, summary) {
  if (question.kind === 'choice') return { verdict: String(text) === String(question.answer) ? 'right' : 'wrong' };
  const named = question.axes ? axesIn(text) : null;
  if (named) {
    // Names: a shape's axes in order; a count as a product of axes in any order.
    const want = question.kind === 'shape' ? question.axes : [...question.axes].sort();
    const got = question.kind === 'shape' ? named : [...named].sort();
    return { verdict: got.length === want.length && got.every((axis, i) => axis === want[i]) ? 'right' : 'wrong' };
  }
  const numbers = numbersIn(text);
  const right = question.kind === 'number'
    ? numbers.length === 1 && numbers[0] === question.answer
    : numbers.length === question.answer.length && numbers.every((n, i) => n === question.answer[i]);
  if (!right) return { verdict: 'wrong' };
  if (!question.distractors || !summary) return { verdict: 'right' };
  const size = sizeOf(summary);
  for (const wrong of question.distractors) {
    const sizes = wrong.map(size);
    const same = question.kind === 'shape'
      ? sizes.length === question.answer.length && sizes.every((n, i) => n === question.answer[i])
      : sizes.reduce((a, b) => a * b, 1) === question.answer;
    if (!same) continue;
    // In self-attention Tq = Tk by definition, not by coincidence: a distractor that differs from
    // the answer only there is no sign of a lucky guess.
    const equal = coincidences(question.axes, wrong, size).filter(({ a, b }) => summary.cross || !(['Tq', 'Tk'].includes(a) && ['Tq', 'Tk'].includes(b)));
    if (equal.length === 0) continue;
    return { verdict: 'coincidence', wrongAxes: wrong, equal };
  }
  return { verdict: 'right' };
}

// The axes that differ between the right and the wrong answer but have equal sizes here.
function coincidences(right, wrong, size) {
  const pairs = [];
  const add = (a, b) => {
    if (a !== b && size(a) === size(b) && !pairs.some((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a))) pairs.push({ a, b, n: size(a) });
  };
  if (right.length === wrong.length) right.forEach((axis, i) => add(axis, wrong[i]));
  const leftover = (xs, ys) => xs.filter((axis) => !ys.includes(axis));
  for (const a of leftover(right, wrong)) for (const b of leftover(wrong, right)) add(a, b);
  return pairs;
}

/** True if `text` answers `question` (its numbers, whatever a coincidence would say). */
export function checkAnswer(question, text) {
  if (question.kind === 'choice') return String(text) === String(question.answer);
  const numbers = numbersIn(text);
  if (question.kind === 'number') return numbers.length === 1 && numbers[0] === question.answer;
  return numbers.length === question.answer.length && numbers.every((n, i) => n === question.answer[i]);
}

/** The expected answer as the page prints it (a choice's value; shapes with their axes). */
export function answerText(question) {
  if (question.kind === 'shape') return `[${question.answer.join(',')}]${question.axes ? ` = [${question.axes.join(',')}]` : ''}`;
  if (question.kind === 'number' && question.axes) return `${question.answer} = ${question.axes.join('·')}`;
  return String(question.answer);
}
