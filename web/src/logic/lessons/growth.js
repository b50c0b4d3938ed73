// "What the seeds teach", as numbers: how the scores tensor and the FLOPs grow with T, and the
// parameter count and KV cache for other head layouts. No DOM. The FLOP formula mirrors the
// engine's per-step counts; tests/js/growth.test.js checks it against the engine's summary.

/** FLOPs of one forward pass, as the engine counts them (multiply-add = 2, softmax = 4 per element). */
export function forwardFlops({ B, T, Tk = T, C, H, Hkv = H, bias = true }) {
  const D = C / H;
  const projection = (rows, out) => 2 * B * rows * C * out + (bias ? B * rows * out : 0);
  const scores = B * H * T * Tk;
  return projection(T, C) + 2 * projection(Tk, Hkv * D) // Q, K, V
    + 2 * scores * D // Q·Kᵀ
    + scores // 1/√D
    + 4 * scores // softmax
    + 2 * scores * D // A·V
    + projection(T, C); // output
}

/** Elements of the scores tensor [B, H, Tq, Tk]. */
export const scoresElements = ({ B, T, Tk = T, H }) => B * H * T * Tk;

/**
 * The growth chart's points: T = 1, 2, 4, … up to at least 2·T (and 64), with the current T
 * among them; Tk follows T for self-attention and stays fixed for cross-attention.
 */
export function growthSeries(summary) {
  const { T, Tk, cross } = summary;
  const top = Math.max(64, 2 ** Math.ceil(Math.log2(2 * T)));
  const ts = new Set([T]);
  for (let t = 1; t <= top; t *= 2) ts.add(t);
  return [...ts].sort((a, b) => a - b).map((t) => {
    const config = { ...summary, T: t, Tk: cross ? Tk : t };
    return { T: t, scores: scoresElements(config), flops: forwardFlops(config), current: t === T };
  });
}

/** Positions of the chart's points on log–log axes, in a width × height box. */
export function growthChartGeometry(series, { width = 320, height = 160, left = 44, right = 8, top = 10, bottom = 28 } = {}) {
  const xs = series.map((p) => Math.log2(p.T));
  const values = series.flatMap((p) => [p.scores, p.flops]).filter((v) => v > 0);
  const yMin = Math.floor(Math.log10(Math.min(...values)));
  const yMax = Math.ceil(Math.log10(Math.max(...values)));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs) || 1;
  const sx = (t) => left + ((Math.log2(t) - xMin) / (xMax - xMin || 1)) * (width - left - right);
  const sy = (v) => top + (1 - (Math.log10(v) - yMin) / (yMax - yMin || 1)) * (height - top - bottom);
  return {
    width, height, left, top, bottom, right, yMin, yMax,
    scores: series.map((p) => [sx(p.T), sy(p.scores)]),
    flops: series.map((p) => [sx(p.T), sy(p.flops)]),
    x: sx, y: sy,
  };
}

/** Divisors of C: the head counts H for which D = C/H is a whole number. */
export function divisors(C) {
  const out = [];
  for (let h = 1; h <= C; h++) if (C % h === 0) out.push(h);
  return out;
}

/** Shorthand such as 1.2k, 3.4M, for chart ticks. */
export function shortNumber(n) {
  const units = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [size, unit] of units) if (n >= size) return `${+(n / size).toFixed(n / size < 10 ? 1 : 0)}${unit}`;
  return String(n);
}
