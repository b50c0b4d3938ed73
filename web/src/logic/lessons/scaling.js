// Why attention divides by √D, as numbers from real runs: the variance of the unscaled scores
// Q·Kᵀ grows with D (each score sums D products), so without the scale the softmax saturates
// toward one-hot as D grows; divided by √D the variance stays put. No DOM:
// tests/js/scaling.test.js.

/** Head widths the lesson's slider offers. */
export const SCALING_DS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** Mean and variance (population) of the finite values of `data`. */
export function meanVariance(data) {
  // Sums in float64 around the first value (scores are small numbers of similar size, so the
  // shifted sums lose nothing), in one plain loop: at T = 128, B = 2 the scores are 393,216 values.
  let n = 0;
  let shift = 0;
  for (let i = 0; i < data.length; i++) if (Number.isFinite(data[i])) { shift = data[i]; break; }
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v - v !== 0) continue; // ±∞ and NaN
    const d = v - shift;
    sum += d;
    squares += d * d;
    n++;
  }
  if (n === 0) return { mean: 0, variance: 0, count: 0 };
  const mean = sum / n;
  return { mean: shift + mean, variance: Math.max(0, squares / n - mean * mean), count: n };
}

/** Softmax of a row with max subtraction; −∞ entries get 0. */
export function softmax(row) {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  if (max === -Infinity) return row.map(() => 0);
  const exps = row.map((v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((v) => v / sum);
}

/** Mean over rows of the largest weight of a [rows, cols] matrix (flat): 1/cols uniform, 1 one-hot. */
export function meanRowMax(flat, rows, cols) {
  let sum = 0;
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let c = 0; c < cols; c++) max = Math.max(max, flat[r * cols + c]);
    sum += max;
  }
  return sum / rows;
}

/** Tokens of the lesson's probe: enough keys for a softmax to show how peaked it is. */
export const PROBE_T = 16;

/** The lesson's probe: one head of width D over PROBE_T tokens (seed 0 unless given). */
export function scalingProbe(D, { seed = 0 } = {}) {
  return { B: 1, T: PROBE_T, C: D, H: 1, seed };
}

/**
 * What one head of width D shows, from a run of scalingProbe(D): the variance of the scores with
 * and without the scale, and how peaked the softmax is each way (mean largest weight), with
 * query 0's weights both ways for the picture.
 */
export function scalingPoint(run) {
  const { T, Tk, D } = run.summary;
  const scores = run.step('scores').data;
  const scaled = run.step('scaled').data;
  const unscaledWeights = new Float64Array(T * Tk);
  for (let r = 0; r < T; r++) unscaledWeights.set(softmax(Array.from(scores.subarray(r * Tk, (r + 1) * Tk))), r * Tk);
  const weights = run.step('weights').data;
  return {
    D, T,
    unscaled: meanVariance(scores).variance,
    scaled: meanVariance(scaled).variance,
    peakUnscaled: meanRowMax(unscaledWeights, T, Tk),
    peakScaled: meanRowMax(weights, T, Tk),
    rowUnscaled: Array.from(unscaledWeights.subarray(0, Tk)),
    rowScaled: Array.from(weights.subarray(0, Tk)),
  };
}
