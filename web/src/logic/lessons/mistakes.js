// The "common mistakes" panel's numbers: each wrong version is computed here from a real run's
// snapshots (x, q, q_heads, k_heads, scores, masked, weights) and set beside the right one, so
// the page shows what actually goes wrong, not a description. No DOM: tests/js/mistakes.test.js
// checks that each wrong version differs from the right one in the way the panel says.

const stepData = (run, id) => run.steps.find((s) => s.id === id);

/** The [rows, cols] matrix of batch b, head h of a [B, H, R, Cc] step, as arrays of rows. */
export function headMatrix(step, b = 0, h = 0) {
  const [, H, R, Cc] = step.shape;
  const offset = (b * H + h) * R * Cc;
  return Array.from({ length: R }, (_, r) => toArray(step.data, offset + r * Cc, Cc));
}

// data[start … start + length) as a plain array (a loop: Array.from on a typed array goes
// through the iterator and is several times slower at these sizes).
function toArray(data, start, length) {
  const out = new Array(length);
  for (let i = 0; i < length; i++) out[i] = data[start + i];
  return out;
}

// Softmax of a list with max subtraction (keeps exp finite); an all-masked list gives zeros, as
// the engine does for a query whose keys are all masked.
function softmax(values) {
  const n = values.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, values[i]);
  if (max === -Infinity) return new Array(n).fill(0);
  const exps = new Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    exps[i] = Math.exp(values[i] - max);
    sum += exps[i];
  }
  for (let i = 0; i < n; i++) exps[i] /= sum;
  return exps;
}

// Plain loops: at T=128 these run on 128×128 matrices for every change of a control, and the
// array-method versions (map, reduce, flatMap) cost tens of milliseconds there. Sums run in the
// same order as a left-to-right reduce, so the numbers are the same.
function transpose(m) {
  const rows = m.length;
  const cols = m[0].length;
  const out = new Array(cols);
  for (let c = 0; c < cols; c++) {
    const column = new Array(rows);
    for (let r = 0; r < rows; r++) column[r] = m[r][c];
    out[c] = column;
  }
  return out;
}

// a [M, K] · bᵀ where bt is [N, K]: row i of a against row j of bt.
function matmulTransposed(a, bt) {
  return a.map((row) => {
    const out = new Array(bt.length);
    for (let j = 0; j < bt.length; j++) {
      const other = bt[j];
      let sum = 0;
      for (let k = 0; k < row.length; k++) sum += row[k] * other[k];
      out[j] = sum;
    }
    return out;
  });
}

const matmul = (a, b) => matmulTransposed(a, transpose(b));

function rowSums(m) {
  return m.map((row) => {
    let sum = 0;
    for (let c = 0; c < row.length; c++) sum += row[c];
    return sum;
  });
}

const colSums = (m) => rowSums(transpose(m));

function maxAbsDiff(a, b) {
  let max = -Infinity;
  for (let r = 0; r < a.length; r++) {
    for (let c = 0; c < a[r].length; c++) {
      const d = Math.abs(a[r][c] - b[r][c]);
      if (Number.isNaN(d)) return NaN; // as Math.max would say
      if (d > max) max = d;
    }
  }
  return max;
}

/** The [T, D] slice of head h of a [B, T, C] tensor, as if it were split into heads (no projection). */
function headSlice(step, b, h, D) {
  const [, T, C] = step.shape;
  return Array.from({ length: T }, (_, t) => toArray(step.data, b * T * C + t * C + h * D, D));
}

/**
 * Mistake 1: split the raw input X into heads and attend with it, without the Q/K/V projections.
 * In self-attention Q = K = X_h, so every score matrix is symmetric: nothing learned decides what
 * a token looks for, and head h only ever sees features h·D … h·D+D−1 of the embedding.
 */
export function noProjection(run, b = 0, h = 0) {
  const { D, cross } = run.summary;
  const queries = headSlice(stepData(run, 'x'), b, h, D);
  const keys = headSlice(stepData(run, cross ? 'source' : 'x'), b, h, D);
  const wrong = matmulTransposed(queries, keys).map((row) => row.map((v) => v / Math.sqrt(D)));
  const right = headMatrix(stepData(run, 'scaled'), b, h);
  const asymmetry = (m) => (m.length === m[0].length ? maxAbsDiff(m, transpose(m)) : null);
  return { wrong, right, wrongAsymmetry: asymmetry(wrong), rightAsymmetry: asymmetry(right), cross, features: [h * D, h * D + D - 1] };
}

/**
 * Mistake 2: Q·K instead of Q·Kᵀ. [T, D] @ [Tk, D] only multiplies when D = Tk, and then it gives
 * a [T, D] result that is not the scores (silently wrong).
 */
export function noTranspose(run, b = 0, h = 0) {
  const { T, Tk, D } = run.summary;
  const q = headMatrix(stepData(run, 'q_heads'), b, h);
  const k = headMatrix(stepData(run, run.steps.some((s) => s.id === 'k_shared') ? 'k_shared' : 'k_heads'), b, h);
  const right = headMatrix(stepData(run, 'scores'), b, h);
  if (D !== Tk) return { ok: false, left: [T, D], right: [Tk, D], rightScores: right };
  const wrong = matmul(q, k);
  return { ok: true, wrong, right, shape: [T, D], maxDiff: maxAbsDiff(wrong, right) };
}

/**
 * Mistake 3: softmax over the queries (Tq, dim=-2) instead of the keys (Tk, dim=-1): each
 * column sums to 1 instead of each row, so a query's weights no longer form a distribution.
 */
export function softmaxOverQueries(run, b = 0, h = 0) {
  const input = stepData(run, run.steps.some((s) => s.id === 'masked') ? 'masked' : 'scaled');
  const wrong = transpose(transpose(headMatrix(input, b, h)).map(softmax));
  const right = headMatrix(stepData(run, 'weights'), b, h);
  return { wrong, right, wrongRowSums: rowSums(wrong), wrongColSums: colSums(wrong), rightRowSums: rowSums(right), rightColSums: colSums(right) };
}

/**
 * Mistake 4: Q.view(B, H, T, D) straight from [B, T, C], without view(B, T, H, D) + transpose.
 * The shape is right, so nothing complains, but each "head" row is a D-slice of some token:
 * tokens are scrambled across heads.
 */
export function reshapeWithoutTranspose(run, b = 0) {
  const q = stepData(run, 'q');
  const right = stepData(run, 'q_heads');
  const { T, C, H, D } = run.summary;
  const rows = [];
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const flat = h * T * D + t * D; // where row (h, t) of the wrong view starts, within batch b
      const token = Math.floor(flat / C);
      const tokenHead = (flat % C) / D;
      // The values themselves are made only when read: the panel shows a few rows of H·T.
      rows.push({
        h, t, token, tokenHead, scrambled: token !== t || tokenHead !== h,
        get wrong() { return Array.from(q.data.subarray(b * T * C + flat, b * T * C + flat + D)); },
        get correct() { return Array.from(right.data.subarray(((b * H + h) * T + t) * D, ((b * H + h) * T + t + 1) * D)); },
      });
    }
  }
  return { rows, scrambledRows: rows.filter((r) => r.scrambled).length };
}

/** Mean over query rows of the largest weight: 1/Tk when uniform, 1 when saturated (one-hot). */
export function meanRowMax(matrix) {
  const rows = matrix.filter((row) => row.some((v) => v !== 0));
  return rows.reduce((sum, row) => sum + row.reduce((a, b) => Math.max(a, b), -Infinity), 0) / (rows.length || 1);
}

/**
 * Mistake 5: no 1/√D. Softmax of the unscaled scores (mask applied) against the right weights.
 * `runConfig` (engine.run) makes the trend visible: for D = 4 … 256, how peaked each softmax is.
 */
export function noScale(run, runConfig, b = 0, h = 0) {
  const scores = headMatrix(stepData(run, 'scores'), b, h);
  const masked = stepData(run, 'masked');
  const mask = masked ? headMatrix(masked, b, h) : null;
  const wrong = scores.map((row, r) => softmax(row.map((v, c) => (mask && mask[r][c] === -Infinity ? -Infinity : v))));
  const right = headMatrix(stepData(run, 'weights'), b, h);
  const trend = [];
  if (runConfig) {
    for (const D of [4, 16, 64, 256]) {
      const probe = runConfig({ B: 1, T: 8, C: D, H: 1, seed: run.summary.seed ?? 0 });
      const unscaled = headMatrix(probe.steps.find((s) => s.id === 'scores')).map(softmax);
      trend.push({ D, wrong: meanRowMax(unscaled), right: meanRowMax(headMatrix(probe.steps.find((s) => s.id === 'weights'))) });
    }
  }
  return { wrong, right, wrongPeak: meanRowMax(wrong), rightPeak: meanRowMax(right), trend };
}

/**
 * Sizes that are equal in this config, so that mixing up those axes raises no shape error and
 * a mistake hides. Each entry: { axes: ['T', 'D'], size, key } where key names a specific
 * consequence when there is one.
 */
export function hiddenAxisMistakes(summary) {
  const { B, T, Tk, H, D, C, cross } = summary;
  const sizes = [['B', B], ['T', T], ...(cross ? [['Tk', Tk]] : []), ['H', H], ['D', D], ['C', C]];
  const found = [];
  for (let i = 0; i < sizes.length; i++) {
    for (let j = i + 1; j < sizes.length; j++) {
      if (sizes[i][1] !== sizes[j][1] || sizes[i][1] === 1) continue;
      const pair = [sizes[i][0], sizes[j][0]];
      const key = (pair.includes('D') && (pair.includes('T') || pair.includes('Tk'))) ? 'equal.transposeK'
        : pair.includes('H') && pair.includes('T') ? 'equal.headsTokens'
          : pair.includes('H') && pair.includes('D') ? 'equal.headsFeatures' : 'equal.generic';
      found.push({ axes: pair, size: sizes[i][1], key });
    }
  }
  return found;
}
