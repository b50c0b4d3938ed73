// The trainer section's curves: loss (every step's, on a log scale) and batch accuracy (0 … 1)
// against the step, reduced to at most a few hundred points and laid out in SVG units. No DOM.

/**
 * `values[i]` is the value at step `first + i·every`; returns at most `maxPoints` points
 * { step, mean, min, max }, each the summary of an equal run of steps (the last may be shorter).
 */
export function bucketed(values, { maxPoints = 240, first = 1, every = 1 } = {}) {
  const n = values.length;
  if (n === 0) return [];
  const size = Math.max(1, Math.ceil(n / maxPoints));
  const points = [];
  for (let start = 0; start < n; start += size) {
    const end = Math.min(n, start + size);
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = start; i < end; i++) {
      sum += values[i];
      min = Math.min(min, values[i]);
      max = Math.max(max, values[i]);
    }
    points.push({ step: first + ((start + end - 1) / 2) * every, mean: sum / (end - start), min, max });
  }
  return points;
}

const LOG_FLOOR = 1e-3; // losses below this are drawn at it: the curve's floor, not a value

/** The loss axis: powers of ten around the values, log scale. { min, max, ticks } in loss units. */
export function lossAxis(values) {
  let hi = -Infinity;
  let lo = Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    hi = Math.max(hi, v);
    lo = Math.min(lo, v);
  }
  if (hi === -Infinity) return { min: 0.1, max: 10, ticks: [0.1, 1, 10] };
  const top = 10 ** Math.ceil(Math.log10(Math.max(hi, LOG_FLOOR * 10)));
  const bottom = 10 ** Math.floor(Math.log10(Math.max(Math.min(lo, top / 10), LOG_FLOOR)));
  const ticks = [];
  for (let t = bottom; t <= top * 1.0001; t *= 10) ticks.push(Number(t.toPrecision(1)));
  return { min: bottom, max: top, ticks };
}

/**
 * SVG geometry of a chart `width` × `height` (units) with the plot inside `pad`: x from step 0 to
 * `steps`, y from `min` to `max` (log10 when `log`). Returns { x(step), y(value) }.
 */
export function chartScale({ width, height, pad = { left: 34, right: 24, top: 6, bottom: 18 }, steps, min, max, log = false }) {
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const f = log ? (v) => Math.log10(Math.max(v, LOG_FLOOR)) : (v) => v;
  const [a, b] = [f(min), f(max)];
  return {
    pad,
    x: (step) => pad.left + (steps > 0 ? (step / steps) * plotW : 0),
    y: (value) => pad.top + plotH - ((Math.min(Math.max(f(value), a), b) - a) / (b - a || 1)) * plotH,
  };
}

/** An SVG polyline's points for `points` ({ step, mean }) under `scale`: "x,y x,y …". */
export function polyline(points, scale, pick = (p) => p.mean) {
  return points.map((p) => `${scale.x(p.step).toFixed(1)},${scale.y(pick(p)).toFixed(1)}`).join(' ');
}

/** Where the x axis ends: the next round number of steps at or above `steps` (at least 100). */
export function stepAxisEnd(steps) {
  const target = Math.max(100, steps);
  const unit = 10 ** Math.floor(Math.log10(target));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * unit >= target) return m * unit;
  return 10 * unit;
}

/**
 * A loss history a section keeps: every step's loss from step 1, and the batch accuracy of each
 * chunk's last step. `append` takes what the trainer sends; a history restored from a checkpoint's
 * recorded curve has `every` > 1 (one point per bucket of steps).
 */
export class TrainingHistory {
  losses = [];
  accuracy = []; // [{ step, value }]
  every = 1;

  /** The curve a checkpoint records ({ every, points }), up to `steps`. */
  static fromCurve({ every, points }) {
    const history = new TrainingHistory();
    history.every = every;
    history.losses = [...points];
    return history;
  }

  append({ losses, step, accuracy }) {
    if (this.every !== 1) {
      // Steps after a recorded curve: averaged into buckets of the same size.
      for (const loss of losses) this.#pending.push(loss);
      while (this.#pending.length >= this.every) this.losses.push(this.#pending.splice(0, this.every).reduce((s, x) => s + x, 0) / this.every);
    } else {
      for (const loss of losses) this.losses.push(loss);
    }
    if (Number.isFinite(accuracy)) this.accuracy.push({ step, value: accuracy });
  }

  #pending = [];

  /** The loss points to draw: { step, mean, min, max }. */
  lossPoints(maxPoints) {
    return bucketed(this.losses, { maxPoints, first: this.every === 1 ? 1 : this.every / 2, every: this.every });
  }

  /** The accuracy points to draw: at most `maxPoints`, each the mean of a run of chunks. */
  accuracyPoints(maxPoints) {
    const size = Math.max(1, Math.ceil(this.accuracy.length / maxPoints));
    const points = [];
    for (let start = 0; start < this.accuracy.length; start += size) {
      const run = this.accuracy.slice(start, start + size);
      points.push({ step: run.at(-1).step, mean: run.reduce((s, p) => s + p.value, 0) / run.length });
    }
    return points;
  }
}
