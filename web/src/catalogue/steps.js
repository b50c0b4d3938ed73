// The walkthrough's steps as the page uses them, read from the catalogue (catalogue.js, generated
// from cpp/data/steps.json) and a run's steps: which step a step is computed from, the query path
// the shape chain follows, the scores-sized steps a heatmap shows, and a step's title in the
// reader's language. Nothing here lists a step's facts again. No DOM.
import { STEPS } from './catalogue.js';
import { headSharing, titleOf } from './step-text.js';

export { headSharing };

const ENTRIES = new Map(STEPS.map((entry) => [entry.id, entry]));

/** The step of `steps` that `step` is computed from (its `input`), or null for an input. */
export function inputStep(step, steps) {
  return step.input ? steps.find((s) => s.id === step.input) ?? null : null;
}

// Steps the chain passes over: they keep the shape and the meaning of the step they scale or mask.
const PASSED_OVER = new Set(['scale', 'mask']);
// A tiled run's per-tile state between its scores and its context (P_ij and the running O, kept
// one tile at a time): the chain shows tile_scores → tile_context as the naive one shows scores
// → weights → context.
export const TILE_STATE = new Set(['tile_probs', 'tile_output']);

/**
 * The query path from X to the output, as the shape chain shows it: each step's input followed
 * back from `output` (x → q → q_split → q_heads → scores → weights → … → output).
 */
export function chainSteps(steps) {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const chain = [];
  for (let step = byId.get('output'); step && chain.length <= steps.length; step = byId.get(step.input)) {
    if (!PASSED_OVER.has(step.op) && !TILE_STATE.has(step.id)) chain.unshift(step);
  }
  return chain;
}

/**
 * The key and value paths beside the query path: { k: [k … k_t], v: [v … v_shared or v_heads],
 * kJoins: 'scores', vJoins: 'context' }, each followed back from the step the attention uses (Kᵀ
 * for the scores, V for the context) to its projection, so that GQA/MQA's Hkv heads and their
 * repeat to H show. Empty lists for a run without those steps (a tiled run has no Kᵀ).
 */
export function keyValueChains(steps) {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const back = (id) => {
    const chain = [];
    for (let step = byId.get(id); step && step.op !== 'input' && chain.length <= steps.length; step = byId.get(step.input)) chain.unshift(step);
    return chain;
  };
  return { k: back('k_t'), v: back(byId.has('v_shared') ? 'v_shared' : 'v_heads'), kJoins: 'scores', vJoins: 'context' };
}

// The axes of a step shaped like the scores [B, H, Tq, Tk].
const SCORES_AXES = ENTRIES.get('scores').axes;

/** True for a step shaped [B, H, Tq, Tk]: scores, scaled, masked and weights. */
export const isScoresSized = (step) => step.axes.join(',') === SCORES_AXES;

/** The catalogue entry of a step id, or undefined. */
export const entryOf = (id) => ENTRIES.get(id);

/** A step's title in the language of `t` (a translator); a run's `summary` names its head sharing (GQA or MQA). */
export function stepTitle(t, id, summary) {
  const entry = ENTRIES.get(id);
  return entry ? titleOf(entry, summary, t.lang) : id;
}
