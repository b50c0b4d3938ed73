// Slices of a step's values, for runs of every algorithm: one {batch, head} of a step
// whose first axes are B and H, or a decoding step as it was at step t. No DOM, no engine: the
// run (run.js) cuts an eager run's arrays with these, and a lazy run's engine answers the same
// request with the same shapes.

/** Row-major strides in elements, 0 for an axis of length 1 (as xtensor reports them). */
export function rowMajorStrides(shape) {
  const strides = new Array(shape.length);
  let stride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = shape[i] === 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

/**
 * The shape of a slice of `step`: {batch, head} keeps the axes after B and H; {t} keeps one row
 * of an axis `t` (the row step t made) and the first t+1 entries of an axis `t+1` (the cache
 * as long as it was at step t).
 */
export function sliceShape(step, slice) {
  if ('t' in slice) return step.shape.map((n, i) => (step.axes[i] === 't' ? 1 : step.axes[i] === 't+1' ? slice.t + 1 : n));
  return [1, 1, ...step.shape.slice(2)];
}

/** A step's metadata with the values of one slice. */
export function sliceOf(step, data, slice) {
  const shape = sliceShape(step, slice);
  return { ...step, shape, strides: rowMajorStrides(shape), contiguous: true, numel: data.length, bytes: data.length * 4, data, slice };
}

/** The values of `slice` cut out of a step that holds all of its values. */
export function cutSlice(step, slice) {
  if (!('t' in slice)) {
    const perHead = step.shape.slice(2).reduce((a, b) => a * b, 1);
    const start = (slice.batch * step.shape[1] + slice.head) * perHead;
    return step.data.slice(start, start + perHead);
  }
  // A box of the row-major array: every index within [from, to) on each axis.
  const from = step.axes.map((axis) => (axis === 't' ? slice.t : 0));
  const shape = sliceShape(step, slice);
  const out = new Float32Array(shape.reduce((a, b) => a * b, 1));
  const inner = shape.length - 1;
  const index = new Array(shape.length).fill(0);
  const fullStrides = [];
  for (let i = step.shape.length - 1, stride = 1; i >= 0; i--) {
    fullStrides[i] = stride;
    stride *= step.shape[i];
  }
  for (let at = 0; at < out.length; at += shape[inner]) {
    let offset = 0;
    for (let i = 0; i < shape.length; i++) offset += (from[i] + index[i]) * fullStrides[i];
    out.set(step.data.subarray(offset, offset + shape[inner]), at);
    for (let i = inner - 1; i >= 0; i--) {  // odometer over the outer axes
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

/**
 * The tiles of a tiled run for batch row `batch`, in the order the pass goes through them (query
 * block i, then key blocks j = 0, 1, …): rows [r0, r1) and keys [c0, c1) of the [Tq, Tk] score
 * matrix, and whether a mask skipped it (no query of it may look at any of its keys: above a
 * causal diagonal, past a padding length). The engine counts the skipped ones
 * (summary.tiles.skippedPerHead[batch]); tests/js/tiled.test.js holds the two to each other.
 */
export function tileGrid(summary, batch = 0) {
  const { T, Tk, mask, keyLengths, tiles } = summary;
  const length = keyLengths ? keyLengths[batch] : Tk;
  const tilesOut = [];
  for (let i = 0; i < tiles.queryBlocks; i++) {
    const r0 = i * tiles.blockQ;
    const r1 = Math.min(r0 + tiles.blockQ, T);
    // The keys the block's last (most-seeing) row may look at.
    const visible = Math.min(mask === 'causal' ? r1 : Tk, length);
    for (let j = 0; j < tiles.keyBlocks; j++) {
      const c0 = j * tiles.blockK;
      tilesOut.push({ i, j, rows: [r0, r1], cols: [c0, Math.min(c0 + tiles.blockK, Tk)], skipped: c0 >= visible });
    }
  }
  return tilesOut;
}

/**
 * Tile (i, j) of one head, from that head's tiled steps (`steps`: tile_scores, tile_max,
 * tile_correction, tile_probs, tile_sum, tile_output, each [1, 1, …]): the tile's scores S_ij and
 * P_ij [rows × cols], and per row of the block m, ℓ and the correction after it and before it,
 * and O after it [rows × D].
 */
export function tileValues(steps, grid, i, j) {
  const tile = grid.find((entry) => entry.i === i && entry.j === j);
  const [r0, r1] = tile.rows;
  const [c0, c1] = tile.cols;
  const rows = r1 - r0;
  const cols = c1 - c0;
  const Tk = steps.tile_scores.shape[3];
  const Nk = steps.tile_max.shape[3];
  const D = steps.tile_output.shape[4];
  const block = (step) => {
    const out = new Float32Array(rows * cols);
    for (let r = 0; r < rows; r++) out.set(step.data.subarray((r0 + r) * Tk + c0, (r0 + r) * Tk + c1), r * cols);
    return out;
  };
  const perRow = (step, at) => Float32Array.from({ length: rows }, (_, r) => (at < 0 ? NaN : step.data[(r0 + r) * Nk + at]));
  const output = new Float32Array(rows * D);
  for (let r = 0; r < rows; r++) output.set(steps.tile_output.data.subarray(((r0 + r) * Nk + j) * D, ((r0 + r) * Nk + j + 1) * D), r * D);
  const before = (step, initial) => (j === 0 ? new Float32Array(rows).fill(initial) : perRow(step, j - 1));
  return {
    ...tile,
    scores: block(steps.tile_scores),
    probs: block(steps.tile_probs),
    max: perRow(steps.tile_max, j),
    maxBefore: before(steps.tile_max, -Infinity),
    sum: perRow(steps.tile_sum, j),
    sumBefore: before(steps.tile_sum, 0),
    correction: perRow(steps.tile_correction, j),
    output,
  };
}
