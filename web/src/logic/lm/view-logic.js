// What <mha-lm>'s section computes to draw (no DOM): which job names a head, the colour of an
// attention weight, a curve's points, a size in kilobytes.

/** The jobs a head can do on each corpus, in the order the section lists them. */
export const JOBS = Object.freeze({
  'moby-dick': ['previousChar', 'induction'],
  'tang-poems': ['previousChar', 'halfLine', 'line', 'induction'],
});

/** The job a head does best on `corpus`: { job, score } (the highest of its corpus's jobs). */
export function bestJob(jobs, corpus) {
  let best = { job: 'previousChar', score: -Infinity };
  for (const job of JOBS[corpus] ?? JOBS['moby-dick']) {
    const score = jobs[job];
    if (Number.isFinite(score) && score > best.score) best = { job, score };
  }
  return best.score === -Infinity ? { job: 'previousChar', score: 0 } : best;
}

// From white (weight 0) to the page's dark blue (weight 1); sqrt spreads the small weights that
// most of a row holds.
const LOW = [247, 251, 255];
const HIGH = [8, 48, 107];

/** The colour of an attention weight in [0, 1] as [r, g, b], written into `out` at `at` when given. */
export function heatRgb(value, out = [0, 0, 0], at = 0) {
  const v = Math.sqrt(Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)));
  for (let i = 0; i < 3; i++) out[at + i] = Math.round(LOW[i] + (HIGH[i] - LOW[i]) * v);
  return out;
}

/** The colour of an attention weight in [0, 1], as "rgb(r,g,b)". */
export function heatColor(value) {
  const [r, g, b] = heatRgb(value);
  return `rgb(${r},${g},${b})`;
}

/**
 * An SVG polyline's points for [x, y] pairs: x in [0, xMax] onto [x0, x1], y in [0, yMax] onto
 * [y0, y1] (y1 above y0 on screen), values outside clamped to the box.
 */
export function curvePath(pairs, { x0, x1, y0, y1, xMax, yMax }) {
  const clamp = (v) => Math.min(1, Math.max(0, v));
  return pairs.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y))
    .map(([x, y]) => `${(x0 + (x1 - x0) * clamp(x / (xMax || 1))).toFixed(1)},${(y0 + (y1 - y0) * clamp(y / (yMax || 1))).toFixed(1)}`)
    .join(' ');
}

/** Bytes as kilobytes with one decimal ("12.3"). */
export const kilobytes = (bytes) => (bytes / 1024).toFixed(1);
