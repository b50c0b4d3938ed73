// What the walkthrough says about a step, read from its snapshot (never hard-coded per config):
// the three answers, the formula as LaTeX, and the memory layout. Returns i18n keys and numbers,
// so the same answers read in English and Chinese. No DOM.
import { inputOf } from './tensor-picture.js';

/**
 * The three answers for `step` of a run's `steps`:
 * values: does it hold values its input does not? count: does the element count change?
 * axes: the last two axes (what a row and a column of each matrix are).
 */
export function stepAnswers(step, steps) {
  const ids = steps.map((s) => s.id);
  const inputId = inputOf(step, ids);
  const input = inputId ? steps.find((s) => s.id === inputId) : null;
  const rank = step.axes.length;
  return {
    input: inputId,
    changesValues: step.changesValues,
    valuesKey: `why.${step.op}`,
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

/** Every formula the page can show, for scripts/render_formulas.js to render ahead of time. */
export function allFormulas() {
  const ids = ['x', 'source', 'q', 'k', 'v', 'q_split', 'k_split', 'v_split', 'q_heads', 'k_heads', 'v_heads', 'k_shared',
    'v_shared', 'k_t', 'scores', 'scaled', 'masked', 'weights', 'context', 'context_t', 'concat', 'output'];
  const all = new Set([parameterFormula(true), parameterFormula(false)]);
  for (const id of ids) for (const bias of [true, false]) for (const cross of [true, false]) all.add(formulaLatex(id, { bias, cross }));
  return [...all];
}

const sub = (name) => name.replace(/^W([qkvo])$/, 'W_$1').replace(/^b([qkvo])$/, 'b_$1');

/** The step's formula as LaTeX, with the bias terms only when the run has them. */
export function formulaLatex(id, { bias = true, cross = false } = {}) {
  const plus = (b) => (bias ? ` + ${sub(b)}` : '');
  const src = cross ? 'S' : 'X';
  const table = {
    x: 'X \\in \\mathbb{R}^{B \\times T \\times C}',
    source: 'S \\in \\mathbb{R}^{B \\times T_k \\times C}',
    q: `Q = X${sub('Wq')}${plus('bq')}`,
    k: `K = ${src}${sub('Wk')}${plus('bk')}`,
    v: `V = ${src}${sub('Wv')}${plus('bv')}`,
    q_split: 'Q \\to \\operatorname{view}(B, T, H, D)',
    k_split: 'K \\to \\operatorname{view}(B, T_k, H_{kv}, D)',
    v_split: 'V \\to \\operatorname{view}(B, T_k, H_{kv}, D)',
    q_heads: 'Q_h = \\operatorname{transpose}_{1,2}(Q)',
    k_heads: 'K_h = \\operatorname{transpose}_{1,2}(K)',
    v_heads: 'V_h = \\operatorname{transpose}_{1,2}(V)',
    k_shared: 'K_h \\leftarrow \\operatorname{repeat}_{H / H_{kv}}(K_h)',
    v_shared: 'V_h \\leftarrow \\operatorname{repeat}_{H / H_{kv}}(V_h)',
    k_t: 'K_h^{\\top} = \\operatorname{transpose}_{-2,-1}(K_h)',
    scores: 'S = Q_h K_h^{\\top}',
    scaled: 'S_{\\mathrm{scaled}} = \\dfrac{S}{\\sqrt{D}}',
    masked: 'S_{\\mathrm{masked}} = S_{\\mathrm{scaled}} + M,\\quad M_{ij} \\in \\{0, -\\infty\\}',
    weights: 'A = \\operatorname{softmax}_{T_k}(S_{\\mathrm{masked}})',
    context: 'O_h = A V_h',
    context_t: 'O = \\operatorname{transpose}_{1,2}(O_h)',
    concat: 'O \\to \\operatorname{contiguous}().\\operatorname{view}(B, T_q, C)',
    output: `Y = O${sub('Wo')}${plus('bo')}`,
  };
  return table[id] ?? id;
}
