// What the walkthrough says about a step, read from its snapshot (never hard-coded per config):
// the three answers and the memory layout; and the formulas the page shows, for rendering ahead
// of time. Returns i18n keys and numbers, so the same answers read in English and Chinese. No DOM.
import { inputStep } from '../../catalogue/steps.js';
import { JACOBIAN_LATEX, isBackward } from './backward-text.js';

/**
 * The three answers for `step` of a run's `steps`:
 * values: does it hold values its input does not? count: does the element count change?
 * axes: the last two axes (what a row and a column of each matrix are).
 */
export function stepAnswers(step, steps) {
  const input = inputStep(step, steps);
  const rank = step.axes.length;
  return {
    input: input?.id ?? null,
    changesValues: step.changesValues,
    valuesKey: isBackward(step) ? `why.back.${step.op}` : `why.${step.op}`,
    countBefore: input ? input.numel : null,
    countAfter: step.numel,
    changesCount: input ? input.numel !== step.numel : null,
    rowAxis: step.axes[rank - 2],
    colAxis: step.axes[rank - 1],
  };
}

/** Memory layout: strides per axis and whether the step is a strided view or needs a copy. */
export function memoryLayout(step) {
  const rowMajor = [];
  let stride = 1;
  for (let axis = step.shape.length - 1; axis >= 0; axis--) {
    rowMajor[axis] = step.shape[axis] === 1 ? 0 : stride;
    stride *= step.shape[axis];
  }
  const note = !step.contiguous ? 'layout.view' : step.op === 'merge' ? 'layout.copy' : step.op === 'reshape' ? 'layout.reshape' : 'layout.contiguous';
  return { strides: step.strides, rowMajor, contiguous: step.contiguous, note };
}

/**
 * The parameter count as LaTeX with {{C}} and {{N}} slots (filled in by renderMath): 4C² + 4C with
 * biases, 4C² without.
 */
export const parameterFormula = (bias) => (bias ? '4C^2 + 4C = 4\\cdot {{C}}^2 + 4\\cdot {{C}} = {{N}}' : '4C^2 = 4\\cdot {{C}}^2 = {{N}}');

// Runs whose steps carry every formula the page can show: with and without bias, self- and
// cross-attention, MHA and GQA (MQA's formulas are GQA's; a mask changes no formula).
const FORMULA_CONFIGS = [true, false].flatMap((bias) => [2, 3].flatMap((Tk) => [4, 2].map((Hkv) => ({ B: 1, T: 2, Tk, C: 4, H: 4, Hkv, bias }))));

/**
 * Every formula the page can show, as LaTeX: each step's `latex` from the engine over
 * FORMULA_CONFIGS, forward and backward (a run with dOutput has the d_ steps), tiled and
 * incremental, the parameter count
 * and softmax's row Jacobian; scripts/render_formulas.js renders them at build time.
 */
export function allFormulas(engine) {
  const all = new Set([parameterFormula(true), parameterFormula(false), JACOBIAN_LATEX]);
  for (const config of FORMULA_CONFIGS) {
    const dOutput = new Float32Array(config.B * config.T * config.C).fill(1);
    for (const step of engine.run({ ...config, dOutput, snapshots: 'lazy' }).steps) all.add(step.latex);
    for (const step of engine.run({ ...config, algorithm: 'tiled', snapshots: 'lazy' }).steps) all.add(step.latex);
    if (config.Tk === config.T) { // decoding is causal self-attention
      for (const step of engine.run({ ...config, mask: 'causal', algorithm: 'incremental', snapshots: 'lazy' }).steps) all.add(step.latex);
    }
  }
  return [...all];
}

/**
 * How the mask broadcasts over the scores [B, H, Tq, Tk]: the mask's own shape (causal [Tq, Tk],
 * padding [B, 1, 1, Tk], both [B, 1, Tq, Tk]) aligned from the right, and per axis whether it is
 * the mask's own or stretched (an axis the mask lacks, or of size 1, is repeated to the scores'
 * size without copying). null without a mask. Returns { mask: sizes (null where the axis is
 * missing), axes: [{ axis, size, mask, stretched }] }.
 */
export function maskBroadcast(summary) {
  const { B, H, T, Tk, mask, keyLengths } = summary;
  const causal = mask === 'causal';
  const padding = Array.isArray(keyLengths) || ArrayBuffer.isView(keyLengths) ? keyLengths.length > 0 : mask === 'padding';
  if (!causal && !padding) return null;
  const own = causal && padding ? [B, 1, T, Tk] : causal ? [null, null, T, Tk] : [B, 1, 1, Tk];
  const sizes = [B, H, T, Tk];
  return {
    mask: own,
    axes: ['B', 'H', 'Tq', 'Tk'].map((axis, i) => ({ axis, size: sizes[i], mask: own[i], stretched: own[i] === null || (own[i] === 1 && sizes[i] !== 1) })),
  };
}
