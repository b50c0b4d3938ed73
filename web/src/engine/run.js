// One run of the engine as JS callers see it: its steps, what it computed, and (for a lazy run)
// the values of a step on request. No DOM; the engine module (engine.js) makes these from the
// numbers a run crosses the boundary as (decodeRun), each step's words coming from its catalogue
// entry (catalogue/step-text.js).
import { STEPS } from '../catalogue/catalogue.js';
import { axisName, formulaOf, inputOf, latexOf, opOf, shapeFormulaOf, titleOf, viewOfStep } from '../catalogue/step-text.js';
import { MhaError, MhaWarning } from './errors.js';
import { cutSlice, rowMajorStrides, sliceShape, tileGrid, tileValues } from './slices.js';

// Each entry's axis names, as a run with and without GQA/MQA names them (Hkv reads H in plain MHA).
const AXES = STEPS.map((entry) => {
  const symbols = entry.axes.split(',');
  return { plain: Object.freeze(symbols.map((symbol) => axisName(symbol, { H: 1, Hkv: 1 }))), grouped: Object.freeze(symbols) };
});
const INDEX = new Map(STEPS.map((entry, i) => [entry.id, i]));

/**
 * One step of a run: its numbers (shape, strides, values, …) as own fields, and its words (title,
 * op, input, formula, latex, shapeFormula, viewOf) made from its catalogue entry when read.
 * `toJSON()` gives all of it as one plain object.
 */
export class Step {
  #entry;
  #summary;

  constructor(index, summary, { shape, strides, contiguous, changesValues, flops, data, slice }) {
    const entry = STEPS[index];
    this.#entry = entry;
    this.#summary = summary;
    this.id = entry.id;
    this.shape = shape;
    this.axes = summary.Hkv === summary.H ? AXES[index].plain : AXES[index].grouped;
    // With a learned key appended (addBiasKv), the keys attention sees are Tk+1.
    if (summary.appended && entry.keys !== 'source') this.axes = Object.freeze(this.axes.map((axis) => (axis === 'Tk' ? `Tk+${summary.appended}` : axis)));
    this.data = data;
    this.strides = strides;
    this.contiguous = contiguous;
    this.changesValues = changesValues;
    let numel = 1;
    for (const extent of shape) numel *= extent;
    this.numel = numel;
    this.flops = flops;
    this.bytes = numel * 4;
    if (slice) this.slice = slice;
  }

  /** Short English title ("Query projection"); titleIn('zh') for Chinese. */
  get title() { return titleOf(this.#entry, this.#summary, 'en'); }
  /** The title in `lang` ('en' or 'zh'). */
  titleIn(lang) { return titleOf(this.#entry, this.#summary, lang); }
  /** input, projection, reshape, transpose, repeat, matmul, scale, mask, softmax, merge, sum, … */
  get op() { return opOf(this.#entry, this.#summary); }
  /** The step it is computed from ("" for an input). */
  get input() { return inputOf(this.#entry, this.#summary); }
  /** The step whose buffer it views without copying, or "". */
  get viewOf() { return viewOfStep(this.#entry, this.#summary); }
  /** "Q = X·Wq + bq" */
  get formula() { return formulaOf(this.#entry, this.#summary); }
  /** "Q = XW_q + b_q" */
  get latex() { return latexOf(this.#entry, this.#summary); }
  /** With this run's numbers: "[2,4,8] @ [8,8] + [8] → [2,4,8]" (a slice's is its whole step's). */
  get shapeFormula() { return shapeFormulaOf(this.#entry, this.#summary); }

  /** This step with other values: a slice of it ({batch, head} or {t}), or all of them. */
  withData(data, slice) {
    const numbers = { strides: this.strides, contiguous: this.contiguous, changesValues: this.changesValues, flops: this.flops, data };
    if (!slice) return new Step(INDEX.get(this.id), this.#summary, { ...numbers, shape: this.shape });
    const shape = sliceShape(this, slice);
    return new Step(INDEX.get(this.id), this.#summary, { ...numbers, shape, strides: rowMajorStrides(shape), contiguous: true, slice });
  }

  toJSON() {
    const { id, title, op, input, formula, latex, shapeFormula, shape, axes, data, strides, contiguous, changesValues, numel, flops, bytes, viewOf, slice } = this;
    return { id, title, op, input, formula, latex, shapeFormula, shape, axes: [...axes], data, strides, contiguous, changesValues, numel, flops, bytes, viewOf, ...(slice ? { slice } : {}) };
  }
}

/** A step's metadata with the values of one slice (a Step, or a plain step object). */
export function sliceOf(step, data, slice) {
  if (step instanceof Step) return step.withData(data, slice);
  const shape = sliceShape(step, slice);
  return { ...step, shape, strides: rowMajorStrides(shape), contiguous: true, numel: data.length, bytes: data.length * 4, data, slice };
}

const ALGORITHM_NAMES = ['naive', 'tiled', 'incremental'];

/**
 * Attention weights of a model's layer as a Run whose one step is `weights` [1, H, T, T] (what a
 * heatmap draws of a trainer's layer over one sequence): H heads, T tokens, causal or not.
 */
export function attentionRun({ weights, H, T, C = H, causal }, messages) {
  const summary = {
    B: 1, T, Tk: T, C, H, Hkv: H, D: C / H, bias: true, mask: causal ? 'causal' : 'none', keyLengths: null, cross: false,
    parameterCount: 0, kvCacheBytesPerToken: 0, flops: 0, snapshotBytes: weights.byteLength, algorithm: 'naive', tiles: null,
  };
  const shape = [1, H, T, T];
  const step = new Step(INDEX.get('weights'), summary, { shape, strides: rowMajorStrides(shape), contiguous: true, changesValues: true, flops: 0, data: weights });
  return new Run({ steps: [step], summary, warnings: [], output: null, weights: null }, { messages });
}
// A tiled run's per-tile steps, which run.tile() reads (its context is not per tile).
const TILED_STEPS = STEPS.filter((entry) => entry.pass === 'tiled' && entry.id !== 'tile_context').map((entry) => entry.id);
// How run.step() may slice each step ('head', 't' or '').
const SLICE_KINDS = new Map(STEPS.map((entry) => [entry.id, entry.slice]));

/**
 * A run as the engine hands it over (cpp/bindings/bindings.cpp, trace_to_js): numbers, read into
 * its summary and Steps. `layout` names the summary's numbers (the engine's summaryLayout()).
 * Returns { summary, steps, output, warnings (MhaWarning[]), weights, gradients, buffers }, where
 * `buffers` are the arrays the run owns.
 */
export function decodeRun(result, layout, messages) {
  const numbers = result.numbers;
  const n = {};
  let at = 0;
  for (; at < layout.length; at++) n[layout[at]] = numbers[at];
  const list = () => {
    const count = numbers[at++];
    const items = new Array(count);
    for (let i = 0; i < count; i++) items[i] = numbers[at++];
    return items;
  };
  const keyLengths = list();
  const skippedPerHead = list();
  const attnMaskShape = list();
  const FORMS = ['masked', 'attend', 'add'];
  const algorithm = ALGORITHM_NAMES[n.algorithm];
  const summary = {
    B: n.B, T: n.T, Tk: n.Tk, C: n.C, H: n.H, Hkv: n.Hkv, D: n.D,
    bias: n.bias === 1, mask: n.causal === 1 ? 'causal' : 'none', keyLengths: keyLengths.length ? keyLengths : null,
    cross: n.cross === 1, parameterCount: n.parameterCount, kvCacheBytesPerToken: n.kvCacheBytesPerToken, flops: n.flops,
    snapshotBytes: n.snapshotBytes, algorithm, appended: n.appended ?? 0, biasKv: n.biasKv === 1, zeroAttn: n.zeroAttn === 1,
    attnMask: n.attnMaskForm >= 0 ? { form: FORMS[n.attnMaskForm], shape: attnMaskShape } : null,
    keyPaddingMask: n.keyPaddingMaskForm >= 0 ? { form: FORMS[n.keyPaddingMaskForm] } : null,
    tiles: algorithm !== 'tiled' ? null : {
      blockQ: n.blockQ, blockK: n.blockK, queryBlocks: n.queryBlocks, keyBlocks: n.keyBlocks,
      total: n.tilesTotal, computed: n.tilesComputed, skipped: n.tilesSkipped, skippedPerHead,
    },
  };
  const { values } = result;
  const steps = [];
  while (at < numbers.length) {
    const index = numbers[at++];
    const rank = numbers[at++];
    const shape = new Array(rank);
    const strides = new Array(rank);
    for (let i = 0; i < rank; i++) shape[i] = numbers[at + i];
    for (let i = 0; i < rank; i++) strides[i] = numbers[at + rank + i];
    at += 2 * rank;
    const contiguous = numbers[at++] === 1;
    const changesValues = numbers[at++] === 1;
    const flops = numbers[at++];
    const offset = numbers[at++];
    const length = numbers[at++];
    steps.push(new Step(index, summary, { shape, strides, contiguous, changesValues, flops, data: length ? values.subarray(offset, offset + length) : null }));
  }
  const warnings = result.warnings ? result.warnings.map((warning) => new MhaWarning(warning, messages)) : [];
  const buffers = [values, result.output];
  if (result.gradients) buffers.push(...Object.values(result.gradients));
  return { summary, steps, output: result.output, warnings, weights: result.weights, gradients: result.gradients, buffers };
}

/** One forward pass: its steps in walkthrough order and what it computed. */
export class Run {
  #fetch;
  #messages;
  #owned;
  #weights;
  #released = false;

  /** The parameters used { Wq, Wk, Wv, Wo, bq, bk, bv, bo }: the caller's, or the seeded ones (made when first read). */
  get weights() {
    if (this.#released && typeof this.#weights === 'function') this.#fail('run', 'released', {});
    if (typeof this.#weights === 'function') {
      this.#weights = this.#weights();
      if (!this.#released) this.#owned.push(...Object.values(this.#weights));
    }
    return this.#weights;
  }

  /**
   * `fetch(step, slice)`: for a lazy run, asks the engine for a step's values (or one head's).
   * `owned`: the arrays this run made, which release() empties (never the caller's own tensors).
   * `weights`: the parameters, or a function that gives them when first read (a seeded run's).
   */
  constructor({ steps, summary, warnings, output, weights, gradients }, { fetch = null, messages, owned = [] }) {
    this.steps = steps;
    this.summary = summary;
    this.warnings = warnings;
    this.output = output;
    this.#weights = weights;
    this.gradients = gradients ?? null;  // with dOutput only
    this.#fetch = fetch;
    this.#messages = messages;
    this.#owned = owned;
  }

  /**
   * The run as plain data a worker can post (structured clone keeps no Step or getter): its
   * numbers, values and warnings; Run.fromTransfer() makes the same Run of it on the other side.
   * The values are the run's own arrays (list them in postMessage's transfer to move, not copy, them).
   */
  toTransfer() {
    if (this.#released) this.#fail('run', 'released', {});
    const steps = this.steps.map(({ id, shape, strides, contiguous, changesValues, flops, data, slice }) => ({ id, shape, strides, contiguous, changesValues, flops, data, slice }));
    const warnings = this.warnings.map(({ key, params }) => ({ key, params }));
    const weights = typeof this.#weights === 'function' ? null : this.#weights;
    return { summary: this.summary, steps, output: this.output, weights, gradients: this.gradients, warnings };
  }

  /** The Run toTransfer() gave, in this realm: its steps Steps again, its words from the catalogue. */
  static fromTransfer({ summary, steps, output, weights, gradients, warnings }, messages) {
    const revived = steps.map(({ id, slice, ...numbers }) => new Step(INDEX.get(id), summary, { ...numbers, slice }));
    const owned = [output, ...steps.map((step) => step.data), ...Object.values(weights ?? {}), ...Object.values(gradients ?? {})].filter(Boolean);
    return new Run({ steps: revived, summary, warnings: warnings.map((warning) => new MhaWarning(warning, messages)), output, weights, gradients },
      { messages, owned });
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
      this.#fail('step', 'unknown_step.in_run', { step, steps: this.steps.map((s) => s.id) });
    }
    if (slice === undefined || slice === null) return found.data || !this.#fetch ? found : this.#fetch(found, null);
    const kind = SLICE_KINDS.get(id) ?? '';
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
        this.#fail('step', 'bad_value.slice_head', { step: id, steps: this.steps.filter((s) => SLICE_KINDS.get(s.id) === 'head').map((s) => s.id) });
      }
      this.#checkIndex('batch', batch, B);
      this.#checkIndex('head', head, H);
      checked = { batch, head };
    }
    if (!found.data) return this.#fetch(found, checked);
    return sliceOf(found, cutSlice(found, checked), checked);
  }

  // --- Tiled and incremental runs ---------------------------------------------------------------

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
    return [...SLICE_KINDS].filter(([, k]) => k === kind).map(([id]) => id);
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
