// Where each cell of a step's tensor sits in the walkthrough's picture, and where it came from in
// the step's input, so the picture can animate one kind of change at a time: a projection changes
// colours in place, a reshape regroups the same cells, a transpose moves them. No DOM.

const HEAD_AXES = new Set(['H', 'Hkv']);
const GAP = 1; // cells of space between groups

/**
 * Cell positions of a tensor in cell units: { x, y (Float32Array per element), width, height,
 * groups: [{ label, x, y, w, h }] }. Batches sit side by side. Within a batch, [.., T, C] is a
 * T×C matrix; [.., T, H, D] keeps tokens as rows with the heads as column groups (the split
 * regroups a row); [.., H, R, Cc] stacks one R×Cc matrix per head (the transpose moves cells).
 */
/** More cells than this would be unreadable and slow to animate: a bigger tensor gets a note instead of a picture. */
export const MAX_PICTURE_CELLS = 4096;

export function pictureLayout(shape, axes) {
  const numel = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(numel);
  const y = new Float32Array(numel);
  const groups = [];
  const [B] = shape;
  const perBatch = numel / B;
  let blockWidth;
  let blockHeight;
  let place;
  if (shape.length === 3) {
    const [, rows, cols] = shape;
    blockWidth = cols;
    blockHeight = rows;
    place = (i) => [i % cols, Math.floor(i / cols)];
  } else if (HEAD_AXES.has(axes[2])) {
    const [, rows, heads, d] = shape;
    blockWidth = heads * d + (heads - 1) * GAP;
    blockHeight = rows;
    place = (i) => {
      const col = i % d;
      const head = Math.floor(i / d) % heads;
      const row = Math.floor(i / (d * heads));
      return [head * (d + GAP) + col, row];
    };
  } else {
    const [, heads, rows, cols] = shape;
    blockWidth = cols;
    blockHeight = heads * rows + (heads - 1) * GAP;
    place = (i) => {
      const col = i % cols;
      const row = Math.floor(i / cols) % rows;
      const head = Math.floor(i / (cols * rows));
      return [col, head * (rows + GAP) + row];
    };
    for (let h = 0; h < heads; h++) {
      for (let b = 0; b < B; b++) groups.push({ b, head: h, axis: axes[1], x: b * (cols + 2 * GAP), y: h * (rows + GAP), w: cols, h: rows });
    }
  }
  for (let i = 0; i < numel; i++) {
    const b = Math.floor(i / perBatch);
    const [cx, cy] = place(i % perBatch);
    x[i] = b * (blockWidth + 2 * GAP) + cx;
    y[i] = cy;
  }
  return { x, y, width: B * blockWidth + (B - 1) * 2 * GAP, height: blockHeight, blockWidth, groups };
}

function stridesOf(shape) {
  const strides = new Array(shape.length).fill(1);
  for (let axis = shape.length - 2; axis >= 0; axis--) strides[axis] = strides[axis + 1] * shape[axis + 1];
  return strides;
}

/**
 * For each element of `step`, the index of the element of `input` it is (−1: a new value).
 * Reshapes keep row-major order; a transpose permutes axes, matched by name; a GQA repeat copies
 * each K/V head to H/Hkv query heads; a same-shape elementwise step keeps its place.
 */
export function cellSources(input, step) {
  const n = step.numel;
  const sources = new Int32Array(n).fill(-1);
  if (!input) return sources;
  const sameShape = input.shape.length === step.shape.length && input.shape.every((s, i) => s === step.shape[i]);
  if (step.op === 'reshape' || step.op === 'merge' || (sameShape && step.op !== 'transpose' && step.op !== 'repeat')) {
    if (input.numel === n) for (let i = 0; i < n; i++) sources[i] = i;
    return sources;
  }
  const outStrides = stridesOf(step.shape);
  const inStrides = stridesOf(input.shape);
  if (step.op === 'transpose') {
    const axisIn = step.axes.map((name) => input.axes.indexOf(name));
    if (axisIn.some((a) => a < 0)) return sources;
    for (let i = 0; i < n; i++) {
      let rest = i;
      let src = 0;
      for (let axis = 0; axis < step.shape.length; axis++) {
        const index = Math.floor(rest / outStrides[axis]);
        rest %= outStrides[axis];
        src += index * inStrides[axisIn[axis]];
      }
      sources[i] = src;
    }
  } else if (step.op === 'repeat') {
    const group = step.shape[1] / input.shape[1];
    for (let i = 0; i < n; i++) {
      const b = Math.floor(i / outStrides[0]);
      const h = Math.floor((i % outStrides[0]) / outStrides[1]);
      const rest = i % outStrides[1];
      sources[i] = b * inStrides[0] + Math.floor(h / group) * inStrides[1] + rest;
    }
  }
  return sources;
}

/** The kind of change a step makes, which is what its animation shows. */
export function changeKind(input, step) {
  if (!input) return 'appear';
  if (step.op === 'transpose' || step.op === 'repeat') return 'move';
  if (step.op === 'reshape' || step.op === 'merge') return 'regroup';
  // The cache keeps what earlier steps computed and gains the new token's row: not a new tensor of
  // values, and not the same values recoloured.
  if (step.op === 'append') return 'append';
  const sameShape = input.shape.length === step.shape.length && input.shape.every((s, i) => s === step.shape[i]);
  return sameShape ? 'recolor' : 'appear';
}
