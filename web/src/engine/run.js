// One run of the engine as JS callers see it: its steps, what it computed, and (for a lazy run)
// the values of a step on request. No DOM; the engine module (engine.js) makes these.
import { MhaError } from './errors.js';
import { cutSlice, sliceOf, tileGrid, tileValues } from './slices.js';

export { sliceOf };

const TILED_STEPS = ['tile_scores', 'tile_max', 'tile_correction', 'tile_probs', 'tile_sum', 'tile_output'];

/** One forward pass: its steps in walkthrough order and what it computed. */
export class Run {
  #fetch;
  #messages;
  #owned;
  #sliceKinds;
  #released = false;

  /**
   * `fetch(step, slice)`: for a lazy run, asks the engine for a step's values (or one head's).
   * `owned`: the arrays this run made, which release() empties (never the caller's own tensors).
   * `sliceKinds`: how each step id may be sliced, from the engine's catalogue ('head', 't' or '').
   */
  constructor({ steps, summary, warnings, output, weights, gradients }, { fetch = null, messages, owned = [], sliceKinds = new Map() }) {
    this.steps = steps;
    this.summary = summary;
    this.warnings = warnings;
    this.output = output;
    this.weights = weights;
    this.gradients = gradients ?? null;  // with dOutput only
    this.#fetch = fetch;
    this.#messages = messages;
    this.#owned = owned;
    this.#sliceKinds = sliceKinds;
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
   * batch row's head of a scores-sized or tiled step, shape [1, 1, …]. With `{ t }`, a decoding
   * step of an incremental run as it was at decoding step t (the cache [B, Hkv, t+1, D], the
   * scores [B, H, 1, t+1], …). In a lazy run (snapshots: 'lazy') steps have no values (data null)
   * until asked for here: the engine then computes them (one head of attention for a {batch,
   * head} slice, the decoding up to token t for a {t} slice).
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
    const kind = this.#sliceKinds.get(id) ?? '';
    const { B, H, T } = this.summary;
    let checked;
    if (typeof slice === 'object' && 't' in slice) {
      const { t, batch, head } = slice;
      if (kind !== 't' || batch !== undefined || head !== undefined) this.#fail('step', 'bad_value.slice_t', { step: id, steps: this.#kindList('t') });
      this.#checkIndex('t', t, T);
      checked = { t };
    } else {
      const { batch, head } = slice;
      if (kind !== 'head' || batch === undefined || head === undefined) {
        if (this.summary.algorithm === 'naive' || this.summary.algorithm === undefined) this.#fail('step', 'bad_value.slice', { step: id });
        this.#fail('step', 'bad_value.slice_head', { step: id, steps: this.steps.filter((s) => this.#sliceKinds.get(s.id) === 'head').map((s) => s.id).join(', ') });
      }
      this.#checkIndex('batch', batch, B);
      this.#checkIndex('head', head, H);
      checked = { batch, head };
    }
    if (!found.data) return this.#fetch(found, checked);
    return sliceOf(found, cutSlice(found, checked), checked);
  }

  // --- Tiled and incremental runs (issue 15) -----------------------------------------------------

  /**
   * A tiled run's tiles for batch row `batch`, in the order the pass goes through them:
   * [{ i, j, rows: [r0, r1], cols: [c0, c1], skipped }] (half-open ranges of the [Tq, Tk] matrix;
   * `skipped`: a mask hides all of it, so it was never computed). The same for every head.
   */
  tiles({ batch = 0 } = {}) {
    if (!this.summary.tiles) this.#fail('algorithm', 'bad_value.run_algorithm', { method: 'tiles', wanted: 'tiled', algorithm: this.summary.algorithm });
    this.#checkIndex('batch', batch, this.summary.B);
    return tileGrid(this.summary, batch);
  }

  /**
   * Tile (i, j) of one (batch, head) of a tiled run, as the pass left it: `scores` S_ij and
   * `probs` P_ij = exp(S_ij − m) [rows × cols, row-major], per row of the block `max` m, `sum` ℓ
   * and `correction` exp(m_before − m) after the tile and `maxBefore`, `sumBefore` before it,
   * and `output`, the unnormalised O after it [rows × D]; with the tile's `rows`, `cols` and
   * `skipped` as tiles() gives them. A skipped tile leaves m, ℓ and O as they were.
   */
  tile(i, j, { batch = 0, head = 0 } = {}) {
    const grid = this.tiles({ batch });
    const { queryBlocks, keyBlocks } = this.summary.tiles;
    this.#checkIndex('i', i, queryBlocks);
    this.#checkIndex('j', j, keyBlocks);
    this.#checkIndex('head', head, this.summary.H);
    const key = `${batch}/${head}`;
    if (this.#headSteps?.key !== key) {
      this.#headSteps = { key, steps: Object.fromEntries(TILED_STEPS.map((id) => [id, this.step(id, { batch, head })])) };
    }
    return tileValues(this.#headSteps.steps, grid, i, j);
  }

  /**
   * An incremental run's KV cache at every decoding step, measured from its snapshots: for each t,
   * `bytes` is the byte length of cache_k and cache_v as they were at step t ([B, Hkv, t+1, D]
   * each), beside `formulaBytes` = B·(t+1)·2·Hkv·D·4, the formula per token and layer times the
   * tokens cached. [{ t, tokens, shape, bytes, formulaBytes }]
   */
  cacheBytes() {
    if (this.summary.algorithm !== 'incremental') this.#fail('algorithm', 'bad_value.run_algorithm', { method: 'cacheBytes', wanted: 'incremental', algorithm: this.summary.algorithm });
    const { B, T, kvCacheBytesPerToken } = this.summary;
    const k = this.step('cache_k');
    const v = this.step('cache_v');
    return Array.from({ length: T }, (_, t) => {
      const kt = cutSlice(k, { t });
      const vt = cutSlice(v, { t });
      return { t, tokens: t + 1, shape: sliceOf(k, kt, { t }).shape, bytes: kt.byteLength + vt.byteLength, formulaBytes: B * (t + 1) * kvCacheBytesPerToken };
    });
  }

  #headSteps = null;

  #kindList(kind) {
    return [...this.#sliceKinds].filter(([, k]) => k === kind).map(([id]) => id).join(', ');
  }

  #checkIndex(name, value, count) {
    if (!Number.isInteger(value) || value < 0 || value >= count) {
      this.#fail(name, 'bad_value.slice_range', { field: name, value: describe(value), max: count - 1 });
    }
  }

  #fail(field, key, params) {
    throw MhaError.from({ field, key, params }, this.#messages);
  }
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
