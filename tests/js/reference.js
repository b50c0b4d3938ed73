// An independent plain-JS multi-head attention, written from the formulas with arrays and loops
// only (no engine code), in float64, for the engine's results to be checked against.
//
//   Q = X·Wq + bq  [B, T, H·D]      K = S·Wk + bk, V = S·Wv + bv  [B, Tk, Hkv·D]  (S = kv, or X)
//   head h of Q reads K/V head g = ⌊h / (H/Hkv)⌋           (GQA/MQA share K/V heads)
//   scores[b,h,i,j] = Σ_d Q[b,i,h·D+d] · K[b,j,g·D+d]      [B, H, T, Tk]  (before scaling)
//   masked: scores / √D, −∞ where (causal and j > i) or j ≥ keyLengths[b]
//   weights = softmax over j; a row with every key masked is all 0 (not NaN)
//   context[b,h,i,d] = Σ_j weights[b,h,i,j] · V[b,j,g·D+d];  merged [B, T, H·D] (heads concatenated)
//   output = merged·Wo + bo  [B, T, C]

/**
 * @param {object} p {B, T, Tk, C, H, Hkv, causal, keyLengths (array or null), x, kv (or null),
 *                    weights {Wq, Wk, Wv, Wo, bq?, bk?, bv?, bo?}}; tensors row-major.
 * @returns {{q: Float64Array, scores: Float64Array, weights: Float64Array, output: Float64Array}}
 */
export function referenceAttention({ B, T, Tk, C, H, Hkv, causal, keyLengths, x, kv, weights: w }) {
  const D = C / H;
  const group = H / Hkv;
  const source = kv ?? x;

  // y[b, t, n] = Σ_c input[b, t, c] · W[c, n] + bias[n]
  const project = (input, L, W, bias, N) => {
    const y = new Float64Array(B * L * N);
    for (let b = 0; b < B; b++)
      for (let t = 0; t < L; t++)
        for (let n = 0; n < N; n++) {
          let sum = bias ? bias[n] : 0;
          for (let c = 0; c < C; c++) sum += input[(b * L + t) * C + c] * W[c * N + n];
          y[(b * L + t) * N + n] = sum;
        }
    return y;
  };

  const q = project(x, T, w.Wq, w.bq, H * D);
  const k = project(source, Tk, w.Wk, w.bk, Hkv * D);
  const v = project(source, Tk, w.Wv, w.bv, Hkv * D);

  const scores = new Float64Array(B * H * T * Tk);
  const weights = new Float64Array(B * H * T * Tk);
  const merged = new Float64Array(B * T * H * D);
  const scale = 1 / Math.sqrt(D);
  const logits = new Float64Array(Tk);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / group);
      for (let i = 0; i < T; i++) {
        const row = ((b * H + h) * T + i) * Tk;
        for (let j = 0; j < Tk; j++) {
          let dot = 0;
          for (let d = 0; d < D; d++) dot += q[(b * T + i) * H * D + h * D + d] * k[(b * Tk + j) * Hkv * D + g * D + d];
          scores[row + j] = dot;
          const hidden = (causal && j > i) || (keyLengths && j >= keyLengths[b]);
          logits[j] = hidden ? -Infinity : dot * scale;
        }
        const max = Math.max(...logits);
        if (max === -Infinity) continue;  // every key masked: weights stay 0, context 0
        let total = 0;
        for (let j = 0; j < Tk; j++) total += (weights[row + j] = Math.exp(logits[j] - max));
        for (let j = 0; j < Tk; j++) weights[row + j] /= total;
        for (let d = 0; d < D; d++) {
          let sum = 0;
          for (let j = 0; j < Tk; j++) sum += weights[row + j] * v[(b * Tk + j) * Hkv * D + g * D + d];
          merged[(b * T + i) * H * D + h * D + d] = sum;
        }
      }
    }

  // merged is [B, T, H·D] = [B, T, C]; the output projection maps it back to C features.
  const output = new Float64Array(B * T * C);
  for (let r = 0; r < B * T; r++)
    for (let n = 0; n < C; n++) {
      let sum = w.bo ? w.bo[n] : 0;
      for (let c = 0; c < C; c++) sum += merged[r * C + c] * w.Wo[c * C + n];
      output[r * C + n] = sum;
    }
  return { q, scores, weights, output };
}
