// The probe: the sequence the trainer section runs its heads and predictions on. Reading the text
// a learner types, example sequences of each task, each task's targets (as cpp/src/model/tasks.cpp
// `targets_for` defines them) and which predictions are wrong. No DOM, no engine.

/** mulberry32, as the engine's Mulberry32 (cpp/include/mha/seeded.hpp): 32-bit integer steps. */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

// The first n of a random permutation of 0 … vocab−1, as the engine draws distinct tokens.
function distinct(n, vocab, next) {
  const pool = Array.from({ length: vocab }, (_, i) => i);
  for (let i = 0; i < n; i++) {
    const j = i + (next() % (vocab - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, n);
}

const INDUCTION_MIN_REPEAT = 3; // cpp/include/mha/model/tasks.hpp induction_min_repeat

/**
 * A sequence of `task`'s kind (uniform tokens; distinct ones for sort; for induction, distinct
 * tokens then a repeat of their last m, as training draws them), from `seed`: the probe a section
 * opens with, and "another example".
 */
export function exampleProbe(task, { T, vocab }, seed = 0) {
  const next = mulberry32(seed ^ 0x5eed);
  if (task === 'sort') return distinct(T, vocab, next);
  if (task === 'induction') {
    const longest = Math.floor(T / 2);
    const m = INDUCTION_MIN_REPEAT + (next() % (longest - INDUCTION_MIN_REPEAT + 1));
    const first = distinct(T - m, vocab, next);
    return [...first, ...first.slice(T - 2 * m)];
  }
  return Array.from({ length: T }, () => next() % vocab);
}

/**
 * The probe as typed: whole numbers 0 … vocab−1 separated by spaces or commas, exactly T of them.
 * Returns { tokens } or { error: { key, params } } (the words are in text/en.js and zh.js).
 */
export function parseProbe(text, { T, vocab }) {
  const words = String(text ?? '').trim().split(/[\s,，、]+/u).filter(Boolean);
  for (const word of words) {
    if (!/^\d+$/.test(word) || Number(word) >= vocab) return { error: { key: 'tr.probe.value', params: { word: word.length > 12 ? `${word.slice(0, 12)}…` : word, max: vocab - 1 } } };
  }
  if (words.length !== T) return { error: { key: 'tr.probe.count', params: { n: words.length, T } } };
  return { tokens: words.map(Number) };
}

export const probeText = (tokens) => tokens.join(' ');

/** Each position's target (−1: none), as the engine's targets_for defines the task. */
export function targetsFor(task, tokens) {
  const T = tokens.length;
  switch (task) {
    case 'reverse':
      return tokens.map((_, i) => tokens[T - 1 - i]);
    case 'sort':
      return [...tokens].sort((a, b) => a - b);
    case 'previous':
      return tokens.map((_, i) => (i === 0 ? -1 : tokens[i - 1]));
    case 'induction':
      // The next token, scored where the current one appeared before: the repeat.
      return tokens.map((token, i) => (i + 1 < T && tokens.slice(0, i).includes(token) ? tokens[i + 1] : -1));
    default:
      return tokens.map(() => -1);
  }
}

/**
 * The predictions under the probe: per position { target, predicted, scored, right } (right is
 * null where the task has no target). `wrong` counts the scored positions predicted wrongly.
 */
export function predictionMarks(task, tokens, predicted) {
  const targets = targetsFor(task, tokens);
  const marks = targets.map((target, i) => ({ target, predicted: predicted[i], scored: target >= 0, right: target >= 0 ? predicted[i] === target : null }));
  const scored = marks.filter((mark) => mark.scored);
  return { marks, scored: scored.length, wrong: scored.filter((mark) => !mark.right).length };
}
