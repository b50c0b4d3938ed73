// What the walkthrough adds to a step of the backward pass (a `d_` step, engine.catalogue's pass
// 'backward'): which tensor it is the gradient of, and for the softmax step the row Jacobian. No DOM.

/** True for a step of the backward pass. */
export const isBackward = (step) => step.id.startsWith('d_');

// The parameters' gradient ids are lower-case (snake_case ids); the tensors are named as in the
// formulas.
const PARAMETERS = { wq: 'Wq', wk: 'Wk', wv: 'Wv', wo: 'Wo', bq: 'bq', bk: 'bk', bv: 'bv', bo: 'bo' };

/**
 * The tensor a backward step is the gradient of: 'd_weights' → 'weights', 'd_wq' → 'Wq',
 * 'd_source' → 'source'. Null for a forward step. A gradient has the shape of its tensor.
 */
export function gradientOf(step) {
  if (!isBackward(step)) return null;
  const rest = step.id.slice(2);
  return PARAMETERS[rest] ?? rest;
}

/**
 * Softmax's Jacobian for one row a = softmax(s): ∂a/∂s = diag(a) − a·aᵀ, so the gradient of a row
 * of scores is (diag(a) − a·aᵀ)·da = a ⊙ (da − (da·a)), the d_masked step's formula.
 */
export const JACOBIAN_LATEX = '\\frac{\\partial a}{\\partial s} = \\operatorname{diag}(a) - a\\,a^{\\top}';

/** The step whose walkthrough shows the Jacobian. */
export const JACOBIAN_STEP = 'd_masked';
