// One run of the engine as JS callers see it: its steps, what it computed, and (for a lazy run)
// the values of a step on request. No DOM; the engine module (engine.js) makes these.
import { MhaError } from './errors.js';

const SCORES_SIZED = ['scores', 'scaled', 'masked', 'weights'];

/** One forward pass: its steps in walkthrough order and what it computed. */
export class Run {
  #fetch;
  #messages;
  #owned;
  #released = false;

  /**
   * `fetch(step, slice)`: for a lazy run, asks the engine for a step's values (or one head's).
   * `owned`: the arrays this run made, which release() empties (never the caller's own tensors).
   */
  constructor({ steps, summary, warnings, output, weights, gradients }, { fetch = null, messages, owned = [] }) {
    this.steps = steps;
    this.summary = summary;
    this.warnings = warnings;
    this.output = output;
    this.weights = weights;
    this.gradients = gradients ?? null;  // with dOutput only
    this.#fetch = fetch;
    this.#messages = messages;
    this.#owned = owned;
  }

  /**
   * Lets go of this run's arrays at once (a slider's previous run, say): every array it made is
   * emptied (its buffer detached), and step() throws. Calling it again does nothing.
   */
  release() {
    if (this.#released) return;
    this.#released = true;
    for (const buffer of new Set(this.#owned.map((array) => array.buffer))) {
      if (buffer.byteLength > 0) structuredClone(buffer, { transfer: [buffer] });
    }
  }

  /**
   * The step with this id ('x', 'q', 'scores', 'weights', ...). With `{ batch, head }`, only that
   * batch row's head of a scores-sized step (scores, scaled, masked, weights), shape [1, 1, Tq, Tk].
   * In a lazy run (snapshots: 'lazy') steps have no values (data null) until asked for here:
   * the engine then computes them (one head of attention for a {batch, head} slice).
   */
  step(id, slice) {
    if (this.#released) this.#fail('run', 'released', {});
    const found = typeof id === 'string' ? this.steps.find((step) => step.id === id) : undefined;
    if (!found) {
      const step = typeof id === 'string' ? id : describe(id);
      if (this.steps.length === 0) this.#fail('step', 'unknown_step.no_snapshots', { step });
      this.#fail('step', 'unknown_step.in_run', { step, steps: this.steps.map((s) => s.id).join(', ') });
    }
    if (slice === undefined || slice === null) return found.data || !this.#fetch ? found : this.#fetch(found, null);
    const { batch, head } = slice;
    const { B, H, T, Tk } = this.summary;
    if (!SCORES_SIZED.includes(id) || batch === undefined || head === undefined) this.#fail('step', 'bad_value.slice', { step: id });
    for (const [name, value, count] of [['batch', batch, B], ['head', head, H]]) {
      if (!Number.isInteger(value) || value < 0 || value >= count) {
        this.#fail(name, 'bad_value.slice_range', { field: name, value: describe(value), max: count - 1 });
      }
    }
    if (!found.data) return this.#fetch(found, { batch, head });
    const start = (batch * H + head) * T * Tk;
    return sliceOf(found, found.data.slice(start, start + T * Tk), { batch, head });
  }

  #fail(field, key, params) {
    throw MhaError.from({ field, key, params }, this.#messages);
  }
}

/** A step's metadata with the values of one {batch, head} slice, [1, 1, Tq, Tk]. */
export function sliceOf(step, data, slice) {
  const [T, Tk] = [step.shape[2], step.shape[3]];
  return { ...step, shape: [1, 1, T, Tk], strides: [0, 0, Tk, 1], contiguous: true, numel: data.length, bytes: data.length * 4, data, slice };
}

// A value as a message shows it: strings quoted, the rest as String() gives it (a symbol too).
function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
