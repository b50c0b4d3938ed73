// The JS API of mha-lens: the only module that touches the Emscripten module.
//
//   const engine = await createEngine();
//   const run = engine.run({ B: 2, T: 4, C: 8, H: 2 });
//   run.steps; run.step('weights'); run.output; run.summary; run.warnings;
//
// Works in Node and in browsers. Callers get plain objects and owned Float32Arrays: no Embind
// handle and no view into the wasm heap (which memory growth would detach) ever leaves here.
import createMhaModule from '../dist/mha_engine.mjs';
import { STAGE_BELOW, isPlainObject, stageTensors, writeFields } from './wire-fields.js';

const TENSOR_KEYS = ['x', 'kv'];
const WEIGHT_KEYS = ['Wq', 'Wk', 'Wv', 'Wo', 'bq', 'bk', 'bv', 'bo'];

/** An invalid config or input. `code` is stable, `field` names the config field at fault. */
export class MhaError extends Error {
  constructor({ code, field, message }) {
    super(message);
    this.name = 'MhaError';
    this.code = code;
    this.field = field;
  }
}

// A tensor the engine can take as is, or null so that the engine names what is wrong with it.
function asFloat32(value) {
  if (value instanceof Float32Array) return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView) && typeof value[0] !== 'bigint') {
    return Float32Array.from(value);
  }
  if (Array.isArray(value) && value.every((element) => typeof element === 'number')) {
    return Float32Array.from(value);
  }
  return null;
}

// The config's tensors taken out as Float32Arrays, and the rest, which the engine reads.
function splitConfig(config) {
  if (!isPlainObject(config)) {
    throw new MhaError({
      code: 'bad_type',
      field: 'config',
      message: 'The config must be an object such as {B: 2, T: 4, C: 8, H: 2}.',
    });
  }
  const rest = {};
  const tensors = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if (TENSOR_KEYS.includes(key) && asFloat32(value)) {
      tensors[key] = asFloat32(value);
    } else if (key === 'weights' && isPlainObject(value)) {
      rest.weights = {};
      for (const [name, tensor] of Object.entries(value)) {
        if (WEIGHT_KEYS.includes(name) && asFloat32(tensor)) tensors[name] = asFloat32(tensor);
        else rest.weights[name] = tensor;
      }
    } else {
      rest[key] = value;
    }
  }
  return { rest, tensors };
}

function unwrap(result) {
  if (!result.ok) throw new MhaError(result.error);
  return result;
}

const SCORES_SIZED = ['scores', 'scaled', 'masked', 'weights'];

/** One forward pass: its steps in walkthrough order and what it computed. */
export class Run {
  #fetch;
  #recycle;
  #released = false;

  // `fetch(step, slice)`: for a lazy run, computes a step's values (or one head's) on request.
  // `recycle()`: hands the run's buffers back to the engine.
  constructor({ steps, summary, warnings, output, weights }, fetch = null, recycle = null) {
    this.steps = steps;
    this.summary = summary;
    this.warnings = warnings;
    this.output = output;
    this.weights = weights;
    this.#fetch = fetch;
    this.#recycle = recycle;
  }

  /**
   * Hands this run's arrays back to the engine, which fills them with the next run of the same
   * size instead of allocating new ones (at B=1 T=512 C=768 H=12 the arrays are 55 MB, and
   * fresh memory costs more to write than the copy itself). Afterwards every array of this run
   * (steps' data, output, seeded weights) is empty (its buffer detached) and run.step() throws;
   * call it when nothing holds on to them any more, e.g. when the next run replaces this one.
   */
  release() {
    if (this.#released) return;
    this.#released = true;
    this.#recycle?.();
  }

  /**
   * The step with this id ('x', 'q', 'scores', 'weights', ...). With `{ batch, head }`, only that
   * batch row's head of a scores-sized step (scores, scaled, masked, weights), shape [1, 1, Tq, Tk].
   * In a lazy run (snapshots: 'lazy') steps have no values (data null) until asked for here:
   * the engine then computes them (one head of attention for a {batch, head} slice).
   */
  step(id, slice) {
    if (this.#released) {
      throw new MhaError({ code: 'released', field: 'run', message: 'This run was released (run.release()): its arrays now belong to the engine. Keep a run until you are done with it, or run the config again.' });
    }
    const found = this.steps.find((step) => step.id === id);
    if (!found) {
      const known = this.steps.map((step) => step.id).join(', ');
      throw new MhaError({
        code: 'unknown_step',
        field: 'step',
        message: known
          ? `There is no step "${id}" in this run. Its steps are: ${known}.`
          : `There is no step "${id}" in this run (it was computed without snapshots).`,
      });
    }
    if (slice === undefined || slice === null) return found.data || !this.#fetch ? found : this.#fetch(found, null);
    const { batch, head } = slice;
    const { B, H, T, Tk } = this.summary;
    if (!SCORES_SIZED.includes(id)) {
      throw new MhaError({ code: 'bad_value', field: 'step', message: `A slice {batch, head} takes both, and only of scores, scaled, masked or weights; "${id}" is asked for whole.` });
    }
    for (const [name, value, count] of [['batch', batch, B], ['head', head, H]]) {
      if (!Number.isInteger(value) || value < 0 || value >= count) {
        throw new MhaError({ code: 'bad_value', field: name, message: `${name}=${String(value)} is outside 0…${count - 1}.` });
      }
    }
    if (!found.data) return this.#fetch(found, { batch, head });
    const start = (batch * H + head) * T * Tk;
    return sliceOf(found, found.data.slice(start, start + T * Tk), { batch, head });
  }
}

// A step's metadata with the values of one {batch, head} slice, [1, 1, Tq, Tk].
function sliceOf(step, data, slice) {
  const { T, Tk } = { T: step.shape[2], Tk: step.shape[3] };
  return { ...step, shape: [1, 1, T, Tk], strides: [0, 0, Tk, 1], contiguous: true, numel: data.length, bytes: data.length * 4, data, slice };
}

class Engine {
  #module;

  constructor(module) {
    this.#module = module;
  }

  /**
   * Validates `config` and runs the forward pass; throws MhaError naming the first problem.
   * `snapshots: 'lazy'` returns every step's metadata with `data: null`, for sizes whose full
   * trace would not fit the memory cap (B=1 T=4096 C=768 H=12: 3.4 GiB); `run.step(id, {batch,
   * head})` then computes what is asked for.
   */
  run(config) {
    const { rest, tensors } = splitConfig(config);
    const lazy = config.snapshots === 'lazy';
    // Whether the engine may stream the scores-sized steps (from 65,536 values each, bindings.cpp):
    // a toy run is spared passing it a function.
    // (Only numbers are read: Number() of a value nested 100,000 deep overflows the stack.)
    const size = (value) => (typeof value === 'number' ? value : NaN);
    const streamable = !(size(config.B) * size(config.H) * size(config.T) * size(config.Tk ?? config.T) < 65536);
    const { metadata, warnings, changes, steps: values, output, weights: seededWeights, buffers } = this.#trace(rest, tensors, { stepValues: !lazy, streamable });
    // One literal of one shape for every step (a spread of the cached metadata is slower).
    const steps = metadata.steps.map((m, i) => ({
      id: m.id, title: m.title, op: m.op, formula: m.formula, shapeFormula: m.shapeFormula, shape: m.shape,
      axes: m.axes, data: lazy ? null : values[i], strides: m.strides, contiguous: m.contiguous,
      changesValues: changes[i], numel: m.numel, flops: m.flops, bytes: m.bytes,
    }));
    const weights = {};
    for (const name of WEIGHT_KEYS) {
      // Explicit weights come back as the Float32Arrays the engine was given.
      if (tensors[name]) weights[name] = tensors[name];
      else if (seededWeights[name]) weights[name] = seededWeights[name];
    }
    const trace = { summary: { ...metadata.summary }, steps, warnings, output, weights };
    const recycle = () => buffers.forEach(this.#recycle);
    if (!lazy) return new Run(trace, null, recycle);
    // A lazy run asks the engine again, with the same config and tensors, for one step (its own
    // copy of keyLengths, the config's one array, so that a caller's later edit cannot change it).
    if (Array.isArray(rest.keyLengths)) rest.keyLengths = [...rest.keyLengths];
    const fetch = (step, slice) => {
      const asked = { ...rest, request: { id: step.id, batch: slice?.batch, head: slice?.head } };
      const data = this.#trace(asked, tensors, { cacheMetadata: false, withOutput: false, withWeights: false }).steps[0];
      return slice ? sliceOf(step, data, slice) : { ...step, data };
    };
    return new Run(trace, fetch, recycle);
  }

  // The metadata (summary and steps without values) of the last few kinds of run, parsed, by the
  // engine's metadata key (sizes and options, not seed or values): for a run whose key is one of
  // these the engine only computes values, and the steps' arrays (frozen, since runs share them)
  // are reused. Building and parsing it was most of the cost of a toy-size run. Several, because
  // a page alternates (the runs with and without snapshots of a benchmark, the playground and its
  // side tables for other head counts).
  #metadata = new Map();
  #keysHeld = '';  // the keys of #metadata, sorted, '|'-separated
  #keysSent = '';  // what the engine was last told they are

  #fieldsAt;  // where the wire fields are, in HEAPF64 (bindings.cpp)

  // Buffers of released runs (run.release()), already paged in, for the next runs of their size.
  #spare = [];
  // Takes a released run's buffer: moved to a new ArrayBuffer, so that every view of the old one
  // (the run's arrays) is empty rather than showing the next run's values.
  #recycle = (buffer) => {
    if (buffer.byteLength === 0) return;  // released already
    const moved = structuredClone(buffer, { transfer: [buffer] });
    if (moved.byteLength < 4 * 65536) return;  // a small run copies its values in one slice instead
    this.#spare.push(moved);
    if (this.#spare.length > 6) this.#spare.shift();  // a run has up to five: its arrays and four streamed steps
  };

  // A buffer of exactly `bytes` bytes: a released one of that size, or a new one.
  #buffer(bytes) {
    const at = this.#spare.findIndex((buffer) => buffer.byteLength === bytes);
    return at < 0 ? new ArrayBuffer(bytes) : this.#spare.splice(at, 1)[0];
  }

  // Runs the engine on a config (without its tensors: `rest` of splitConfig) and its tensors and
  // copies out what the caller wants into one owned buffer before the engine frees the run: every
  // step's values (`stepValues`), the output and the seeded weights.
  // Returns { metadata, warnings, changes, steps, output, weights, buffers }.
  #trace(rest, tensors, { cacheMetadata = true, stepValues = true, withOutput = true, withWeights = true, streamable = true } = {}) {
    const module = this.#module;
    // A plain config goes as wire fields, any other as the object itself (which the engine reads,
    // naming what is wrong with it).
    this.#fieldsAt ??= module.fieldsAddress();
    const plain = writeFields(rest, module.HEAPF64, this.#fieldsAt);
    // With a plain config, small tensors go straight into the engine's staging area too.
    let explicit = Object.keys(tensors).length ? tensors : null;
    if (plain && explicit) {
      const small = {};
      let total = 0;
      for (const name in tensors) if (tensors[name].length < STAGE_BELOW) total += (small[name] = tensors[name]).length;
      if (total > 0) {
        const first = module.stagingAddress(total);  // first: it may grow the heap, which replaces the views
        explicit = stageTensors(tensors, small, module.HEAPF64, this.#fieldsAt, module.HEAPF32, first);
      }
    }
    // The keys of the metadata held here, or "=" when they are what the engine was told last.
    let known = '=';
    if (!cacheMetadata) known = this.#keysSent = '';
    else if (this.#keysSent !== this.#keysHeld) known = this.#keysSent = this.#keysHeld;
    // The scores-sized steps of a big run, which the engine hands over head by head while they are
    // in cache (bindings.cpp, Config::head_values): each head's values go straight to their place.
    const streams = [];
    let streamError = null;
    const stream = (number, offset, first, count, total) => {
      try {
        streams[number] ??= new Float32Array(this.#buffer(total * 4));
        streams[number].set(module.HEAPF32.subarray(first, first + count), offset);
      } catch (error) {
        streamError ??= error;  // thrown into the engine, it would skip the engine's clean-up
      }
    };
    const streamTo = stepValues && streamable ? stream : undefined;
    const text = plain ? module.runFields(explicit, known, streamTo) : module.run(rest, explicit, known, streamTo);
    if (text[0] === '!') throw new MhaError(JSON.parse(text.slice(1)));  // the engine refused the config
    try {
      if (streamError) throw streamError;
      // "<layout index> <key>\n<warnings JSON>\n<metadata JSON or nothing>": see bindings.cpp.
      const space = text.indexOf(' '), line = text.indexOf('\n'), line2 = text.indexOf('\n', line + 1);
      const key = text.slice(space + 1, line);
      const warnings = line2 === line + 3 ? [] : JSON.parse(text.slice(line + 1, line2));  // "[]" is the common case
      let metadata;
      if (line2 === text.length - 1) {
        metadata = this.#metadata.get(key);
        if (!metadata) throw new Error(`internal: the engine took metadata ${key} as known, and it is not`);
        this.#metadata.delete(key);  // most recently used last
        this.#metadata.set(key, metadata);
      } else {
        metadata = JSON.parse(text.slice(line2 + 1));
        if (cacheMetadata) {
          Object.freeze(metadata.summary.keyLengths);
          for (const step of metadata.steps) for (const name of ['shape', 'axes', 'strides']) Object.freeze(step[name]);
          this.#metadata.set(key, metadata);
          if (this.#metadata.size > 8) this.#metadata.delete(this.#metadata.keys().next().value);
          this.#keysHeld = [...this.#metadata.keys()].sort().join('|');
        }
      }

      // The layout: per step [first, length, flags], the output, the eight weights (bindings.cpp).
      const words = module.HEAPU32;
      let at = Number(text.slice(0, space));
      const stepCount = words[at++];
      const changes = new Array(stepCount);
      const starts = [], lengths = [], sameAs = [];  // what to copy, in order
      for (let i = 0; i < stepCount; ++i, at += 3) {
        changes[i] = (words[at + 2] & 1) === 1;
        if (!stepValues) continue;
        const shared = (words[at + 2] & 2) === 2, streamed = (words[at + 2] & 4) === 4;
        starts.push(words[at]);
        lengths.push(shared || streamed ? 0 : words[at + 1]);
        sameAs.push(shared ? words[at] : streamed ? -2 - words[at] : -1);
      }
      const steps = starts.length;
      const sendOutput = withOutput && (!stepValues || stepCount === 0);  // else it is the output step's data
      if (sendOutput) starts.push(words[at]), lengths.push(words[at + 1]), sameAs.push(-1);
      at += 2;
      const names = [];
      for (const name of WEIGHT_KEYS) {
        if (withWeights && words[at + 1] > 0) names.push(name), starts.push(words[at]), lengths.push(words[at + 1]), sameAs.push(-1);
        at += 2;
      }

      const { arrays, buffers } = this.#copyOut(module.HEAPF32, starts, lengths, sameAs, streams);
      const weights = {};
      names.forEach((name, i) => (weights[name] = arrays[arrays.length - names.length + i]));
      const output = sendOutput ? arrays[steps] : stepValues && stepCount ? arrays[steps - 1] : null;
      return { metadata, warnings, changes, steps: arrays.slice(0, steps), output, weights, buffers };
    } finally {
      module.releaseTrace();
    }
  }

  // Copies heap ranges [starts[i], starts[i] + lengths[i]) into one new buffer and returns
  // { arrays: a Float32Array window per range, buffers: every buffer they lie in }; sameAs[i] ≥ 0
  // makes entry i the array of entry sameAs[i], and sameAs[i] = −2 − k the streamed array streams[k].
  // A small run's tensors come gathered in one block (bindings.cpp): one copy of the span that
  // holds them all costs less than a copy each.
  #copyOut(heap, starts, lengths, sameAs, streams) {
    let total = 0, low = Infinity, high = 0;
    for (let i = 0; i < starts.length; ++i) {
      if (lengths[i] === 0) continue;
      total += lengths[i];
      low = Math.min(low, starts[i]);
      high = Math.max(high, starts[i] + lengths[i]);
    }
    // (Windows are made with the Float32Array constructor: subarray() looks up a species
    // constructor each time, which cost more than the toy run's copy.)
    const arrays = new Array(starts.length);
    const buffers = streams.filter(Boolean).map((stream) => stream.buffer);
    if (total > 0 && total < 65536 && high - low <= 2 * total) {
      const span = heap.slice(low, high).buffer;
      for (let i = 0; i < starts.length; ++i) {
        arrays[i] = sameAs[i] >= 0 ? arrays[sameAs[i]] : sameAs[i] < -1 ? streams[-2 - sameAs[i]] : new Float32Array(span, 4 * (starts[i] - low), lengths[i]);
      }
      buffers.push(span);
      return { arrays, buffers };
    }
    const buffer = this.#buffer(total * 4), floats = new Float32Array(buffer);
    let offset = 0;
    for (let i = 0; i < starts.length; ++i) {
      if (sameAs[i] !== -1) {
        arrays[i] = sameAs[i] >= 0 ? arrays[sameAs[i]] : streams[-2 - sameAs[i]];
        continue;
      }
      floats.set(heap.subarray(starts[i], starts[i] + lengths[i]), offset);
      arrays[i] = new Float32Array(buffer, 4 * offset, lengths[i]);
      offset += lengths[i];
    }
    buffers.push(buffer);
    return { arrays, buffers };
  }

  /**
   * PyTorch nn.MultiheadAttention parameters → the walkthrough's weights {Wq, ..., bo}.
   * Takes { in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias } (biases optional);
   * the dotted names of a state_dict ('out_proj.weight') work too.
   */
  fromTorch(params) {
    if (!isPlainObject(params)) {
      throw new MhaError({ code: 'bad_type', field: 'params', message: 'fromTorch takes an object with in_proj_weight, in_proj_bias, out_proj_weight and out_proj_bias.' });
    }
    const get = (name) => params[name] ?? params[name.replace('out_proj_', 'out_proj.')];
    const tensor = (name, optional) => {
      const value = get(name);
      if ((value === undefined || value === null) && optional) return null;
      const floats = asFloat32(value);
      if (!floats) {
        throw new MhaError({ code: value === undefined ? 'missing' : 'bad_type', field: name, message: `${name} must be a Float32Array or an array of numbers.` });
      }
      return floats;
    };
    const outWeight = tensor('out_proj_weight');
    const C = params.C ?? Math.round(Math.sqrt(outWeight.length));
    // The bindings convert C to size_t, which is undefined for a fraction, NaN or a value out of
    // range (in wasm 1e20 and 2³² + 2 became 0, and 2.5 became 2): refuse those here, by name.
    if (!Number.isInteger(C) || C < 1 || C > 1e6) {
      throw new MhaError({ code: 'bad_size', field: 'C', message: `C=${String(C)} is not allowed: C (embed_dim) must be a whole number from 1 to 1000000.` });
    }
    return unwrap(this.#module.fromTorch(C, tensor('in_proj_weight'), tensor('in_proj_bias', true), outWeight, tensor('out_proj_bias', true))).weights;
  }

  /**
   * c = a · b for row-major a [M, K] and b [K, N]: the engine's matrix product on its own
   * (what `npm run bench` compares with the peers' GEMM). Returns c [M, N].
   */
  matmul(a, b, { M, K, N }) {
    const sizes = { M, K, N };
    for (const [name, value] of Object.entries(sizes)) {
      if (!Number.isInteger(value) || value < 1) {
        throw new MhaError({ code: 'bad_size', field: name, message: `${name} must be a whole number ≥ 1 (got ${value}).` });
      }
    }
    const check = (name, value, rows, cols) => {
      const floats = asFloat32(value);
      if (!floats || floats.length !== rows * cols) {
        throw new MhaError({ code: 'bad_tensor_length', field: name, message: `${name} must hold ${rows}·${cols} = ${rows * cols} numbers (got ${floats ? floats.length : typeof value}).` });
      }
      return floats;
    };
    return unwrap(this.#module.matmul(check('a', a, M, K), check('b', b, K, N), M, K, N)).c;
  }

  /** Bytes of wasm linear memory: it grows to the largest run so far and never shrinks. */
  get memoryBytes() {
    return this.#module.HEAP8.buffer.byteLength;
  }

  /**
   * Embind value handles alive in the module (Emscripten's count_emval_handles). A run builds its
   * result from handles that are all released before it returns, so this stays the same from one
   * run to the next; tests/js/leaks.test.js fails if it grows.
   */
  get liveHandles() {
    return this.#module.count_emval_handles();
  }
}

const isNode = typeof process !== 'undefined' && Boolean(process.versions?.node);

/**
 * Loads the WebAssembly engine. Options: `wasmUrl` (where the .wasm is; default: next to
 * dist/mha_engine.mjs) or `wasmBinary` (its bytes).
 */
export async function createEngine({ wasmUrl, wasmBinary } = {}) {
  const url = wasmUrl ? new URL(wasmUrl, isNode ? import.meta.url : document.baseURI) : new URL('../dist/mha_engine.wasm', import.meta.url);
  const moduleOptions = {};
  if (wasmBinary) {
    moduleOptions.wasmBinary = wasmBinary;
  } else if (isNode) {
    // Node 20's fetch() cannot read file: URLs, which the 3.1.6 loader would try.
    const { readFile } = await import('node:fs/promises');
    moduleOptions.wasmBinary = await readFile(url);
  } else {
    moduleOptions.locateFile = () => url.href;
  }
  return new Engine(await createMhaModule(moduleOptions));
}
