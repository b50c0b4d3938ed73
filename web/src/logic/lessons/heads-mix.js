// How W_O mixes the heads, computed from a run: the output row of a token is the sum over heads
// of that head's context times its D rows of W_O, plus b_o (Y = O·Wo + bo with O the heads side
// by side, so the product splits by rows of Wo); zeroing one head's context removes exactly its
// part. And why seeded attention gives nearly the same output row for every token: near-uniform
// weights make each context about the mean of V. No DOM: tests/js/heads-mix.test.js.

/**
 * The output row (b, t) split by heads: { parts: [H] arrays of C (context_h · Wo[h·D … (h+1)·D)),
 * bias (C, zeros without a bias), sum (their sum), output (the engine's row), maxDiff (|sum −
 * output| at most) }. Sums in float64.
 */
export function headContributions(run, { b = 0, t = 0 } = {}) {
  const { T, C, H, D } = run.summary;
  const concat = run.step('concat').data; // [B, T, C]: head h's context in columns h·D … (h+1)·D
  const { Wo, bo } = run.weights; // Wo [C_in, C_out]
  const row = (b * T + t) * C;
  const parts = Array.from({ length: H }, (_, h) => {
    const part = new Float64Array(C);
    for (let i = h * D; i < (h + 1) * D; i++) {
      const o = concat[row + i];
      for (let j = 0; j < C; j++) part[j] += o * Wo[i * C + j];
    }
    return part;
  });
  const bias = Float64Array.from({ length: C }, (_, j) => (bo ? bo[j] : 0));
  const sum = Float64Array.from(bias);
  for (const part of parts) for (let j = 0; j < C; j++) sum[j] += part[j];
  const output = run.output.subarray(row, row + C);
  let maxDiff = 0;
  for (let j = 0; j < C; j++) maxDiff = Math.max(maxDiff, Math.abs(sum[j] - output[j]));
  return { parts, bias, sum, output, maxDiff };
}

/**
 * The output with head h's context zeroed, [B, T, C] (float64), and how much that changes it:
 * { output, meanChange (mean |Δ| over every element), maxChange, headsMean (the mean |y − b_o|:
 * how large all the heads' part is), share (meanChange / headsMean) }. Zeroing head h's
 * context removes exactly its part context_h · Wo[h·D … (h+1)·D) from every row, so only that
 * part is computed: B·T·D·C products, not B·T·C² (at C = 768 and T = 128, 12 M instead of 150 M).
 */
export function withoutHead(run, h) {
  const { B, T, C, D } = run.summary;
  const concat = run.step('concat').data;
  const { Wo, bo } = run.weights;
  const y = run.output;
  const output = Float64Array.from(y);
  const part = new Float64Array(C);
  let change = 0;
  let most = 0;
  let heads = 0;
  for (let r = 0; r < B * T; r++) {
    part.fill(0);
    for (let i = h * D; i < (h + 1) * D; i++) {
      const o = concat[r * C + i];
      for (let j = 0; j < C; j++) part[j] += o * Wo[i * C + j];
    }
    for (let j = 0; j < C; j++) {
      output[r * C + j] -= part[j];
      const d = Math.abs(part[j]);
      change += d;
      if (d > most) most = d;
      heads += Math.abs(y[r * C + j] - (bo ? bo[j] : 0));
    }
  }
  return { output, meanChange: change / (B * T * C), maxChange: most, headsMean: heads / (B * T * C), share: heads > 0 ? change / heads : 0 };
}

/**
 * How different the rows (tokens) of a [B, T, width] tensor are: the mean over b, t and features
 * of |x[b, t] − the mean over t of x[b]|. Near 0: every token's row is about the same.
 */
export function rowSpread(data, B, T, width) {
  let total = 0;
  for (let b = 0; b < B; b++) {
    for (let j = 0; j < width; j++) {
      let mean = 0;
      for (let t = 0; t < T; t++) mean += data[(b * T + t) * width + j];
      mean /= T;
      for (let t = 0; t < T; t++) total += Math.abs(data[(b * T + t) * width + j] - mean);
    }
  }
  return total / (B * T * width);
}

/** The rows' spread of V (the step `v`), of the context (`concat`) and of the output, from a run. */
export function spreads(run) {
  const { B, T, Tk, C, Hkv, D } = run.summary;
  return {
    v: rowSpread(run.step('v').data, B, Tk, Hkv * D),
    context: rowSpread(run.step('concat').data, B, T, C),
    output: rowSpread(run.output, B, T, C),
  };
}
