// What the trainer section says about each head: the job it does best and how well (its measured
// score: the attention mass on the keys the job expects, 1 = all of it), how flat its map is, and
// its map as training sees it through dropout. No DOM, no engine.
import { mulberry32 } from './probe.js';

/** The jobs the engine measures, in the order the page lists them. */
export const JOBS = ['antiDiagonal', 'answer', 'previousToken', 'prefixMatching'];

/** At this score a head is said to do its job (below it, the label says "no clear job yet"). */
export const CLEAR_SCORE = 0.4;

/**
 * A head's label from its job scores: { job, score, clear, text: '0.97' }. `job` is the job it
 * scores highest on; with `prefer` (the task's own job), that job wins a tie within 0.02.
 */
export function headLabel(jobs, { prefer } = {}) {
  let best = JOBS.find((job) => typeof jobs?.[job] === 'number') ?? null;
  for (const job of JOBS) if (typeof jobs?.[job] === 'number' && jobs[job] > jobs[best]) best = job;
  if (best === null) return null;
  if (prefer && typeof jobs[prefer] === 'number' && jobs[best] - jobs[prefer] <= 0.02) best = prefer;
  const score = jobs[best];
  return { job: best, score, clear: score >= CLEAR_SCORE, text: formatScore(score) };
}

/** A score as the page writes it: two decimals ("0.97"), "1.00" only when it rounds there. */
export const formatScore = (score) => (Number.isFinite(score) ? score.toFixed(2) : '–');

/**
 * How far a head's map is from flat: over every query row, the largest |w − 1/n| where n is the
 * number of keys the row may see (keys after the query are masked in a causal task). 0 is a
 * perfectly flat map; a trained head that puts all its mass on one key of 16 gives 0.94.
 * `weights` is [H, T, T] (one batch row), or one head's [T, T].
 */
export function flatness(weights, T, { causal = false } = {}) {
  let worst = 0;
  for (let offset = 0; offset < weights.length; offset += T * T) {
    for (let q = 0; q < T; q++) {
      const visible = causal ? q + 1 : T;
      for (let k = 0; k < visible; k++) worst = Math.max(worst, Math.abs(weights[offset + q * T + k] - 1 / visible));
    }
  }
  return worst;
}

/**
 * Dropout's mask as the trainer draws it (cpp/src/model/layers.cpp dropout_mask): each entry is
 * zeroed with probability p and the others scaled by 1/(1 − p), so each row keeps its expected sum.
 */
export function dropoutMask(count, p, seed) {
  const next = mulberry32(seed);
  const keep = new Float32Array(count);
  const scale = Math.fround(1 / (1 - p));
  for (let i = 0; i < count; i++) {
    const u = Math.fround((next() >>> 8) * (1 / 16777216));
    keep[i] = u < p ? 0 : scale;
  }
  return keep;
}

/** `weights` as one training step sees them: weights ⊙ a dropout mask (a new Float32Array). */
export function droppedOut(weights, p, seed) {
  if (!(p > 0)) return Float32Array.from(weights);
  const keep = dropoutMask(weights.length, p, seed);
  return weights.map((w, i) => Math.fround(w * keep[i]));
}
