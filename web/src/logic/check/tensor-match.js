// Does a tensor a learner's code made hold the same values as one of the engine's, perhaps laid
// out differently? Both are seen as a tensor over named elementary axes (B, T, H, D, Tq, Tk…):
// an axis the engine names C or H·D is H and D in a row (a view splits it, a merge joins them).
// The learner's tensor matches when some order of those axes, with neighbours merged, has its
// shape, and every value agrees within the tolerance. That covers the same tensor, a transpose
// (K.transpose(-2, -1) against k_heads), a head split or merge, heads folded into the batch
// ([B·H, T, D]) and added or dropped axes of size 1; and it refuses a view that reinterprets
// memory (view(B, H, T, D) straight from [B, T, C]), which no reordering of axes gives.
// No DOM: tests/js/check-trace.test.js.

/** Scores filled with a large negative number (-1e9, -1e4) stand for −∞, as softmax reads them. */
export const LARGE = 1e4;

/** A tensor over named axes: `labels` and `sizes` in row-major order, `data` of their product. */
export function labelled(labels, sizes, data, name = null) {
  return { labels, sizes, data, name };
}

/** An engine step as a labelled tensor: its C or H·D axis split into H and D. */
export function fromStep(step, { H, D }) {
  const labels = [];
  const sizes = [];
  step.axes.forEach((axis, i) => {
    if ((axis === 'C' || axis.includes('·')) && step.shape[i] === H * D && H > 1 && D > 1) {
      labels.push('H', 'D');
      sizes.push(H, D);
    } else {
      labels.push(axis);
      sizes.push(step.shape[i]);
    }
  });
  return labelled(labels, sizes, step.data, step.id);
}

// Values ≥ LARGE in size count as infinite on both sides: only equal counts of them can match.
function fingerprint(data) {
  let sum = 0, squares = 0, low = 0, high = 0, nan = 0, max = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (Number.isNaN(v)) nan++;
    else if (v <= -LARGE) low++;
    else if (v >= LARGE) high++;
    else {
      sum += v;
      squares += v * v;
      if (Math.abs(v) > max) max = Math.abs(v);
    }
  }
  return { sum, squares, low, high, nan, max };
}

const fingerprints = new WeakMap();
function fingerprintOf(data) {
  let known = fingerprints.get(data);
  if (!known) fingerprints.set(data, (known = fingerprint(data)));
  return known;
}

/** Whether a learner's value a stands for the engine's value b. */
export function sameValue(a, b, tolerance) {
  if (b === -Infinity) return a <= -LARGE;
  if (b === Infinity) return a >= LARGE;
  if (Number.isNaN(b)) return Number.isNaN(a);
  if (Math.abs(b) >= LARGE) return Math.abs(a - b) <= tolerance * Math.abs(b);
  return Math.abs(a - b) <= tolerance;
}

// Every order of 0 … n−1, the identity first.
function permutations(n) {
  const out = [];
  const walk = (prefix, rest) => {
    if (!rest.length) out.push(prefix);
    rest.forEach((axis, i) => walk([...prefix, axis], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  walk([], [...Array(n).keys()]);
  return out;
}
const PERMUTATIONS = Array.from({ length: 7 }, (_, n) => permutations(n));

// The learner's sizes as groups of the ordered axes (size-1 axes left out on both sides), or null.
function grouping(sizes, order, target) {
  const axes = order.filter((axis) => sizes[axis] !== 1);
  const wanted = target.filter((n) => n !== 1);
  const groups = [];
  let at = 0;
  for (const n of wanted) {
    const group = [];
    let product = 1;
    while (at < axes.length && product < n) {
      product *= sizes[axes[at]];
      group.push(axes[at++]);
    }
    if (product !== n) return null;
    groups.push(group);
  }
  return at === axes.length ? groups : null;
}

// The largest |a − b| over the learner's tensor against the candidate read in `order`, or
// Infinity as soon as one value does not stand for its counterpart.
function compareInOrder(learner, candidate, order, tolerance) {
  const { sizes, data } = candidate;
  const strides = new Array(sizes.length);
  for (let i = sizes.length - 1, s = 1; i >= 0; s *= sizes[i], i--) strides[i] = s;
  const dims = order.map((axis) => sizes[axis]);
  const steps = order.map((axis) => strides[axis]);
  const index = new Array(dims.length).fill(0);
  let source = 0;
  let worst = 0;
  for (let i = 0; i < learner.length; i++) {
    const a = learner[i];
    const b = data[source];
    if (!sameValue(a, b, tolerance)) return Infinity;
    if (Number.isFinite(b) && Number.isFinite(a)) worst = Math.max(worst, Math.abs(a - b));
    for (let d = dims.length - 1; d >= 0; d--) {
      source += steps[d];
      if (++index[d] < dims[d]) break;
      source -= steps[d] * dims[d];
      index[d] = 0;
    }
  }
  return worst;
}

/**
 * The learner's { shape, data } against a labelled candidate: null, or { layout, rank, maxDiff }.
 * rank 0: the same shape as the candidate's own (`ownShape`) in its order; 1: its order, split or
 * merged; 2: reordered. layout names the learner's axes, e.g. ['B·H', 'T', 'D'].
 * `tolerance` is absolute, scaled by the candidate's largest finite value when that is above 1.
 */
export function matchTensor(learner, candidate, { tolerance = 1e-4, ownShape = null } = {}) {
  const numel = learner.data.length;
  if (numel !== candidate.data.length || numel === 0) return null;
  const a = fingerprintOf(learner.data);
  const b = fingerprintOf(candidate.data);
  const tol = tolerance * Math.max(1, b.max);
  if (a.low !== b.low || a.high !== b.high || a.nan !== b.nan) return null;
  if (Math.abs(a.sum - b.sum) > numel * tol || Math.abs(a.squares - b.squares) > numel * tol * (2 * b.max + tol)) return null;
  for (const order of PERMUTATIONS[candidate.sizes.length] ?? []) {
    const groups = grouping(candidate.sizes, order, learner.shape);
    if (!groups) continue;
    const maxDiff = compareInOrder(learner.data, candidate, order, tol);
    if (maxDiff === Infinity) continue;
    const identity = order.every((axis, i) => axis === i);
    const sameShape = ownShape && ownShape.length === learner.shape.length && ownShape.every((n, i) => n === learner.shape[i]);
    const layout = groups.map((group) => group.map((axis) => candidate.labels[axis]).join('·'));
    // Size-1 axes the learner kept show as 1.
    const shown = [];
    let g = 0;
    for (const n of learner.shape) shown.push(n === 1 ? '1' : layout[g++]);
    return { rank: identity ? (sameShape ? 0 : 1) : 2, layout: shown, maxDiff };
  }
  return null;
}

/** The largest |a − b| of two tensors of one shape (Infinity where one is −∞ and the other not). */
export function maxDifference(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = Number.isNaN(d) ? (a[i] === b[i] ? worst : Infinity) : d;
  }
  return worst;
}
