// The JS API of mha-lens: the only module that touches the Emscripten module.
//
//   const engine = await createEngine();
//   const run = engine.run({ B: 2, T: 4, C: 8, H: 2 });
//   run.steps; run.step('weights'); run.output; run.summary; run.warnings;
//
// Works in Node and in browsers. Callers get plain objects and owned Float32Arrays: no Embind
// handle and no view into the wasm heap (which memory growth would detach) ever leaves here.
// What crosses the boundary is defined by cpp/bindings/bindings.cpp: a config and its tensors go
// in as JS values, a run comes back as plain objects, an error as {code, key, field, params}.
import createMhaModule, { defaultWasmUrl } from '../../dist/mha_engine.mjs';
import { MESSAGES } from '../text/messages.js';
import { configTape } from './config-tape.js';
import { MhaError, MhaLoadError, MhaWarning, readKey } from './errors.js';
import { fileReader } from './file-reader.js';
import { decodeRun, Run, sliceOf, Step } from './run.js';
import { STEPS } from '../catalogue/catalogue.js';
import { createTrainer, Trainer } from './trainer.js';
import { createLanguageModel, LanguageModel, loadCorpus, loadLanguageModel } from './language-model.js';
import { isPlainObject } from './values.js';
import { curveSizes } from './memory.js';
import { kvCacheTable, NAMED_SHAPES } from './kv-cache.js';
import { linearTensors, torchTensors, TorchNameError } from './torch-names.js';
import { importTrainerGlue } from './assets.js';

export { MhaError, MhaLoadError, MhaWarning, Run, Step, Trainer, LanguageModel, loadCorpus };

const TENSOR_KEYS = ['x', 'kv', 'weights', 'dOutput', 'attnMask', 'keyPaddingMask'];

/**
 * The config as the engine reads it: its own enumerable keys, each read once (a getter cannot
 * answer differently the second time), in an object with no prototype (a "__proto__" key stays a
 * key); the tensors x, kv and weights taken apart. Anything that is not a plain object goes to
 * the engine as it is, which refuses it by name.
 */
function splitConfig(config, messages) {
  if (!isPlainObject(config)) return { rest: config, tensors: {} };
  const rest = Object.create(null);
  const tensors = {};
  for (const key of Object.keys(config)) {
    const value = readKey(config, key, messages);
    if (TENSOR_KEYS.includes(key)) tensors[key] = value;
    else rest[key] = value;
  }
  if (isPlainObject(tensors.weights)) {
    const weights = Object.create(null);
    for (const key of Object.keys(tensors.weights)) weights[key] = readKey(tensors.weights, key, messages, `weights.${key}`);
    tensors.weights = weights;
  }
  return { rest, tensors };
}

// A lazy run asks the engine again later: it keeps its own copy of the config and tensors, so
// that a caller who refills an array afterwards does not change what the run computes.
function ownCopy(rest, tensors) {
  const copy = (value) => (ArrayBuffer.isView(value) ? value.slice() : Array.isArray(value) ? [...value] : value);
  const ownRest = Object.create(null);
  for (const key of Object.keys(rest)) ownRest[key] = copy(rest[key]);
  const ownTensors = {};
  for (const key of ['x', 'kv', 'dOutput']) if (tensors[key] != null) ownTensors[key] = copy(tensors[key]);
  for (const key of ['attnMask', 'keyPaddingMask']) {
    const mask = tensors[key];
    if (mask == null || typeof mask !== 'object') ownTensors[key] = mask;
    else ownTensors[key] = Object.fromEntries(Object.keys(mask).map((part) => [part, copy(mask[part])]));
  }
  if (tensors.weights != null) {
    ownTensors.weights = Object.create(null);
    for (const key of Object.keys(tensors.weights)) ownTensors.weights[key] = copy(tensors.weights[key]);
  }
  return { rest: ownRest, tensors: ownTensors };
}

const asFloat32 = (value) => (value instanceof Float32Array ? value : Float32Array.from(value));

class Engine {
  #module;
  #messages;
  #withTrainer;
  #trainerWasmUrl;
  #layout;

  constructor(module, { trainer = false, trainerWasmUrl = null } = {}) {
    this.#module = module;
    // The engine's messages and the page's own: one table (cpp/data/messages.json).
    this.#messages = Object.freeze({ ...module.messageTable(), ...MESSAGES });
    this.#layout = module.summaryLayout();
    this.#withTrainer = trainer;
    this.#trainerWasmUrl = trainerWasmUrl;
  }

  /** Whether the .wasm's step catalogue is this module's (a .wasm of another version is not). */
  static matches(module) {
    const ids = module.stepIds();
    return ids.length === STEPS.length && STEPS.every((entry, i) => entry.id === ids[i]);
  }

  /**
   * Every step the engine knows, in walkthrough order: { id, pass, algorithms, when, slice, op,
   * input, viewOf, axes, title, titles: { en, zh }, formula, latex, operands } (cpp/data/steps.json,
   * also importable as mha-lens/catalogue). A run holds the ones that apply to it: pass 'forward'
   * in a naive run, 'tiled' steps in place of scores … context in a tiled run, x and the
   * 'incremental' steps in an incremental one. `slice`: how run.step() may slice the step
   * ('head': {batch, head}; 't': {t}; '': whole only).
   */
  get catalogue() {
    return STEPS.map((entry) => ({ ...entry, algorithms: [...entry.algorithms], title: entry.title.en, titles: { ...entry.title } }));
  }

  /** The engine's message table { key: { en, zh } }, which errors and warnings render from. */
  get messages() {
    return this.#messages;
  }

  /**
   * Validates `config` and runs the forward pass; throws MhaError naming the first problem.
   * With `dOutput` ([B, Tq, C], a Float32Array or numbers: the gradient of a loss
   * L = Σ output ⊙ dOutput) the run also goes backwards: `run.steps` continues with the d_ steps
   * (the gradient of each step, in its shape) and `run.gradients` holds { x, kv (cross-attention),
   * Wq, Wk, Wv, Wo, bq, bk, bv, bo } as Float32Arrays.
   * `snapshots: 'lazy'` returns every step's metadata with `data: null`, for sizes whose full
   * trace would not fit the memory cap (B=1 T=4096 C=768 H=12: 3.4 GiB); `run.step(id, {batch,
   * head})` then computes what is asked for.
   */
  run(config) {
    let { rest, tensors } = splitConfig(config, this.#messages);
    const tape = configTape(rest);
    const run = this.#decode(this.#call('run', tape, tensors, undefined));
    const messages = this.#messages;
    const owned = run.buffers;
    let weights;
    if (tensors.weights) {  // explicit: the caller's own, as Float32Arrays
      weights = {};
      for (const key of Object.keys(tensors.weights)) weights[key] = asFloat32(tensors.weights[key]);
    } else {  // seeded: made again when a caller reads them
      weights = () => this.#call('seededWeights', tape);
    }
    const trace = { steps: run.steps, summary: run.summary, warnings: run.warnings, output: run.output, weights, gradients: run.gradients };
    if (rest.snapshots !== 'lazy') return new Run(trace, { messages, owned });
    ({ rest, tensors } = ownCopy(rest, tensors));
    const fetch = (step, slice) => {
      const { data } = this.#decode(this.#call('run', tape, tensors, { id: step.id, ...slice })).steps[0];
      return slice ? sliceOf(step, data, slice) : step.withData(data);
    };
    return new Run(trace, { fetch, messages, owned });
  }

  // A run's numbers as the engine hands them over, read into steps (run.js).
  #decode(result) {
    return decodeRun(result, this.#layout, this.#messages);
  }

  /**
   * Checks `config` as run() would (sizes, memory, tensors) and runs nothing; throws MhaError
   * naming the first problem.
   */
  validate(config) {
    const { rest, tensors } = splitConfig(config, this.#messages);
    this.#call('validate', configTape(rest), tensors);
  }

  /**
   * PyTorch nn.MultiheadAttention parameters → the walkthrough's weights {Wq, ..., bo} (and
   * bias_k, bias_v for a module built with add_bias_kv=True, which a run then appends as its last
   * key). Takes a state dict as PyTorch writes it: in_proj_weight, in_proj_bias, out_proj.weight
   * (or out_proj_weight), out_proj.bias, bias_k, bias_v, under any one module path
   * ('self_attn.in_proj_weight') or the one `prefix` names; values as Float32Arrays, arrays or
   * nested lists (tensor.tolist()). A key it does not use is refused by name. `C` defaults to
   * √(out_proj.weight.length).
   */
  fromTorch(params) {
    if (typeof params !== 'object' || params === null) {
      throw MhaError.from({ field: 'params', key: 'bad_type.torch_params', params: {} }, this.#messages);
    }
    const { C, tensors: t } = this.#names(() => torchTensors(params, this.#read));
    return this.#call('fromTorch', C, t.in_proj_weight, t.in_proj_bias, t['out_proj.weight'], t['out_proj.bias'], t.bias_k, t.bias_v);
  }

  /**
   * Separate projections, as Hugging Face BERT/GPT-style and Llama-style attention modules hold
   * them → the walkthrough's weights {Wq, ..., bo}. Takes the state-dict names ('q_proj.weight',
   * 'q_proj.bias', 'k_proj.weight', …, 'out_proj.bias', or Llama's 'o_proj.weight') under any one
   * module path or `prefix`, or nested objects ({ q_proj: { weight, bias }, … }); each weight is
   * nn.Linear's [out_features, C]; biases optional (all or none). K and V may have fewer heads
   * than Q (GQA/MQA). `C` defaults to √(out_proj.weight.length). A key it does not use is refused
   * by name.
   */
  fromLinear(params) {
    if (typeof params !== 'object' || params === null) {
      throw MhaError.from({ field: 'params', key: 'bad_type.linear_params', params: {} }, this.#messages);
    }
    const { C, tensors } = this.#names(() => linearTensors(params, this.#read));
    return this.#call('fromLinear', C, tensors);
  }

  // A key of a caller's object read once, a getter that throws named as the field it is.
  #read = (object, key, field) => readKey(object, key, this.#messages, field);

  // A state dict's names read (torch-names.js), its refusal as an MhaError.
  #names(read) {
    try {
      return read();
    } catch (error) {
      if (error instanceof TorchNameError) throw MhaError.from(error.detail, this.#messages);
      throw error;
    }
  }

  /**
   * c = a · b for row-major a [M, K] and b [K, N]: the engine's matrix product on its own
   * (what `npm run bench` compares with the peers' GEMM). Returns c [M, N].
   */
  matmul(a, b, sizes) {
    const given = sizes === undefined || sizes === null ? {} : Object(sizes);
    const [M, K, N] = ['M', 'K', 'N'].map((key) => readKey(given, key, this.#messages));
    return this.#call('matmul', a, b, M, K, N);
  }

  /**
   * A tiny transformer trained on a task in the engine (trainer.js): `{ task: 'reverse' | 'sort'
   * | 'previous' | 'induction', seed, layers, heads, width, mlp, layernorm, T, vocab, batch, lr,
   * weightDecay, dropout, clip }`, each but task optional (the task's defaults), or
   * `{ checkpoint }` (what trainer.save() returned). Throws MhaError naming the option at fault.
   */
  trainer(options = {}) {
    if (!this.#withTrainer) throw MhaError.from({ field: 'trainer', key: 'trainer.not_loaded', params: {} }, this.#messages);
    return createTrainer(this.#module, this.#messages, options, (result) => this.#decode(result));
  }

  /**
   * A character language model (language-model.js): `{ corpus: 'moby-dick' | 'tang-poems',
   * trained: true }` opens the shipped checkpoint; `trained: false` makes a new one from `seed,
   * layers, heads, width, T, batch, lr, weightDecay, dropout, clip, mlp, layernorm, repeatShare,
   * repeatMin, repeatMax`; `{ checkpoint }` opens what lm.save() returned. Synchronous where the
   * files can be read synchronously (Node); a browser uses loadLanguageModel(), which fetches them.
   */
  languageModel(options = {}) {
    if (!this.#withTrainer) throw MhaError.from({ field: 'trainer', key: 'trainer.not_loaded', params: {} }, this.#messages);
    return createLanguageModel(this.#module, this.#messages, options, (result) => this.#decode(result), { trainerWasmUrl: this.#trainerWasmUrl });
  }

  /** languageModel() with its files fetched first: works in a browser as in Node. */
  async loadLanguageModel(options = {}) {
    if (!this.#withTrainer) throw MhaError.from({ field: 'trainer', key: 'trainer.not_loaded', params: {} }, this.#messages);
    return loadLanguageModel(options, this.#trainerWasmUrl, (opened, checkpointBytes) =>
      createLanguageModel(this.#module, this.#messages, opened, (result) => this.#decode(result), { trainerWasmUrl: this.#trainerWasmUrl, checkpointBytes }), this.#messages);
  }

  /**
   * What a run of `config` without snapshots allocates with each algorithm, in bytes, the sizes
   * checked but not the memory cap: { naive, tiled, incremental (null unless causal
   * self-attention), scoreMatrixBytes }, each algorithm as { inputs, weights, working, scores,
   * snapshots, total } where `scores` is what it holds of the scores at once (one head's
   * [Tq, Tk], one [blockQ, blockK] tile, one row as long as the cache). scoreMatrixBytes is the
   * whole [B, H, Tq, Tk] in float32, which none of them holds. Throws MhaError for invalid sizes.
   */
  memory(config) {
    const { rest, tensors } = splitConfig(config, this.#messages);
    if (tensors.kv != null && typeof rest === 'object' && rest !== null) rest.kv = [];  // cross-attention, as the config is
    return this.#call('memoryModel', configTape(rest));
  }

  /**
   * memory() as a curve over T: `points` sequence lengths (default T = 1, 2, 4, … up to 2^17, with
   * the config's own T among them), Tk following T in self-attention. [{ T, naive, tiled,
   * incremental, scoreMatrixBytes, current }]
   */
  memoryCurve(config, { points } = {}) {
    return curveSizes(config, points).map(({ T, Tk, current }) => ({ T, ...this.memory({ ...config, T, ...(Tk ? { Tk } : {}) }), current }));
  }

  /**
   * The KV cache of a model shape under every choice of K/V heads: { C, H, Hkv, D, layers,
   * tokens, bytesPerValue, rows: [{ layout: 'MHA' | 'GQA' | 'MQA', Hkv, bytesPerTokenPerLayer
   * (2·Hkv·D·4), bytesPerToken (× layers), bytes (× tokens), current }] }. Defaults: one layer,
   * Hkv = H.
   */
  kvCache({ C, H, Hkv = H, layers = 1, tokens = 1 } = {}) {
    const sizes = { C, H, Hkv, layers, tokens };
    for (const [field, value] of Object.entries(sizes)) {
      if (!Number.isInteger(value) || value < 1) {
        throw MhaError.from({ field, key: 'bad_type.value', params: { field, wanted: 'term.wanted.whole_min_1', got: 'term.got.value', got_text: String(value) } }, this.#messages);
      }
    }
    // The engine checks C, H and Hkv as it would for a run (divisibility, sizes); memory is no concern here.
    this.#call('memoryModel', configTape({ B: 1, T: 1, C, H, Hkv }));
    return kvCacheTable(sizes);
  }

  /**
   * Real model shapes for a worked example of the KV cache, each { id, name, table } with
   * kvCache()'s table: a 7B-class model with GQA (Mistral 7B: C=4096, H=32, Hkv=8, 32 layers)
   * and with MHA (Llama 2 7B), at 4,096 tokens.
   */
  get namedShapes() {
    return NAMED_SHAPES.map(({ id, name, ...shape }) => ({ id, name, table: kvCacheTable(shape) }));
  }

  /** Bytes of wasm linear memory: it grows to the largest run so far and never shrinks. */
  get memoryBytes() {
    return this.#module.HEAP8.buffer.byteLength;
  }

  /**
   * Embind value handles alive in the module (Emscripten's count_emval_handles): the same from
   * one call to the next unless something leaks; tests/js/leaks.test.js fails if it grows.
   */
  get liveHandles() {
    return this.#module.count_emval_handles();
  }

  // Calls the bindings' `name`, which answer {ok, value} or {ok: false, error}.
  #call(name, ...args) {
    const result = this.#module[name](...args);
    if (!result.ok) throw new MhaError(result.error, this.#messages);
    return result.value;
  }
}

// Places a .wasm can come from: a javascript: or data: URL is refused, not handed to fetch (where
// the page's CSP would have to block it).
const WASM_PROTOCOLS = ['http:', 'https:', 'file:', 'blob:'];

// What a relative URL is read against: the page, or in Node the working directory.
function baseUrl() {
  if (typeof document !== 'undefined') return document.baseURI;
  const base = new URL('file:///');
  base.pathname = `${globalThis.process?.cwd?.() ?? ''}/`;
  return base.href;
}

// The engine with the trainer is a module of its own (mha_trainer.mjs and .wasm), loaded only when
// asked for, so that a page that never trains downloads the smaller one. Its glue is imported by a
// literal path (assets.js), which bundlers follow, and names its .wasm beside itself as the
// engine's glue does; env.assetPath, a meta tag or a wasm-url attribute may say otherwise.

/**
 * Settings for the whole page (or process). `assetPath`: the folder (URL, relative to the page)
 * that holds mha_engine.wasm, mha_trainer.mjs, mha_trainer.wasm and checkpoints/, for a site that
 * serves them itself (a CDN, a dev server that moved the package's JS); null: where the bundler
 * put them, or beside the package's JS.
 */
export const env = { assetPath: null };

const FILES = { engine: 'mha_engine.wasm', trainer: 'mha_trainer.wasm' };
const META = { engine: 'mha-lens:wasm-url', trainer: 'mha-lens:trainer-wasm-url' };

/** The folder env.assetPath names, as a URL ending in "/" (null when unset). */
export function assetFolder() {
  const given = String(env.assetPath ?? '').trim();
  if (!given) return null;
  let url;
  try {
    url = new URL(given.endsWith('/') ? given : `${given}/`, baseUrl());
  } catch {
    throw new MhaLoadError('load.bad_url', { url: given });
  }
  if (!WASM_PROTOCOLS.includes(url.protocol)) throw new MhaLoadError('load.bad_url', { url: given });
  return url.href;
}

/**
 * Where the .wasm of `kind` ('engine' or 'trainer') is: one rule for createEngine(), getEngine()
 * and every element. `wasmUrl` (an element passes its wasm-url attribute), else the page's
 * <meta name="mha-lens:wasm-url"> (the trainer's: mha-lens:trainer-wasm-url), else env.assetPath,
 * else beside the glue that holds the engine (Vite, webpack and Rspack rewrite that to the file
 * they emit; web/dist/ for the package's own bundles). Relative URLs are read against the page
 * (in Node, the working directory). Resolves { url, given }: given is true when the page said
 * where. Throws MhaLoadError for a URL no .wasm can come from.
 */
async function wasmLocation(wasmUrl, kind = 'engine') {
  const meta = typeof document !== 'undefined' ? document.querySelector(`meta[name="${META[kind]}"]`)?.getAttribute('content') : null;
  const given = String(wasmUrl ?? '').trim() || meta?.trim();
  // The trainer's .wasm sits beside the engine's when only the engine's meta tag is there.
  const engineMeta = kind === 'trainer' && !given && typeof document !== 'undefined' ? document.querySelector(`meta[name="${META.engine}"]`)?.getAttribute('content')?.trim() : null;
  if (engineMeta) return wasmLocation(new URL(`./${FILES.trainer}`, new URL(engineMeta, baseUrl())).href, kind);
  if (!given) {
    const folder = assetFolder();
    if (folder) return { url: new URL(FILES[kind], folder).href, given: true };
    return { url: kind === 'trainer' ? (await loadTrainerGlue(null)).defaultWasmUrl() : defaultWasmUrl(), given: false };
  }
  let url;
  try {
    url = new URL(given, baseUrl());
  } catch {
    throw new MhaLoadError('load.bad_url', { url: given });
  }
  if (!WASM_PROTOCOLS.includes(url.protocol)) throw new MhaLoadError('load.bad_url', { url: given });
  return { url: url.href, given: true };
}

// A dev server that pre-bundles dependencies (Vite 5 and 6: vite, vitepress dev, astro dev)
// moves the package's JS into .vite/deps/, where no .wasm is beside it.
const PREBUNDLED = /\/(node_modules\/)?\.vite\/deps(_[a-z]+)?\//;

// The fix a load failure names: the trainer's own file and meta tag, or the dev server's setting.
function fixFor(url, kind, given) {
  if (!given && PREBUNDLED.test(url)) return 'load.fix_prebundled';
  return kind === 'trainer' ? 'load.fix_trainer' : 'load.fix';
}

const isWasm = (bytes) => bytes[0] === 0x00 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d; // "\0asm"

async function compileBytes(bytes, url, type, where = { file: FILES.engine, fix: 'load.fix' }) {
  // Anything but a .wasm (the HTML page a server sends for every unknown path) is named as such.
  if (!isWasm(bytes)) throw type ? new MhaLoadError('load.not_wasm', { url, type, ...where }) : new MhaLoadError('load.not_wasm_file', { url, ...where });
  try {
    return await WebAssembly.compile(bytes);
  } catch (error) {
    throw new MhaLoadError('load.compile', { url, detail: error.message, ...where }, error);
  }
}

// Fetches (in Node, reads) and compiles the .wasm at `url`: one request, streamed when the server
// says application/wasm. `where`: { file, fix } for the message (which .wasm, which fix).
async function compileAt(url, where) {
  if (url.startsWith('file:')) {
    let bytes;
    try {
      bytes = await fileReader.read(new URL(url));
    } catch (error) {
      throw new MhaLoadError('load.file', { url, detail: error.message, ...where }, error);
    }
    return compileBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), url, undefined, where);
  }
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    throw new MhaLoadError('load.network', { url, detail: error.message, ...where }, error);
  }
  if (!response.ok) throw new MhaLoadError('load.http', { url, status: response.status, ...where });
  const type = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  if (type === 'application/wasm' && typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(response);
    } catch (error) {
      throw new MhaLoadError('load.compile', { url, detail: error.message, ...where }, error);
    }
  }
  return compileBytes(new Uint8Array(await response.arrayBuffer()), url, type, where);
}

// Each .wasm is fetched and compiled once: every engine made from the same URL instantiates the
// same compiled module. A failure is not kept, so a later call tries again.
const compiled = new Map();
function compiledAt(url, where) {
  if (!compiled.has(url)) {
    const promise = compileAt(url, where);
    compiled.set(url, promise);
    promise.catch(() => compiled.delete(url));
  }
  return compiled.get(url);
}

// The Emscripten module over a compiled .wasm: the glue instantiates it through this hook instead
// of fetching a file of its own.
function instantiate(factory, wasmModule) {
  return new Promise((resolve, reject) => {
    factory({
      instantiateWasm(imports, receiveInstance) {
        WebAssembly.instantiate(wasmModule, imports).then((instance) => receiveInstance(instance, wasmModule), reject);
        return {};
      },
    }).then(resolve, reject);
  });
}

/**
 * Where the .wasm of an engine is (`trainer`: the engine with the trainer), fetched and compiled
 * once per URL: { url, module }, the WebAssembly.Module every engine made from that URL
 * instantiates. A page hands `module` to a Web Worker (createEngine({ wasmModule, wasmUrl })), which
 * then neither fetches nor compiles it again. Throws MhaLoadError as createEngine does.
 */
export async function compileEngine({ wasmUrl, trainer = false } = {}) {
  const kind = trainer ? 'trainer' : 'engine';
  const { url, given } = await wasmLocation(wasmUrl, kind);
  return { url, given, module: await compiledAt(url, { file: FILES[kind], fix: fixFor(url, kind, given) }) };
}

/**
 * Loads a WebAssembly engine of its own. Options: `wasmUrl` (where the .wasm is; see wasmLocation
 * for the rule when it is not given), `wasmBinary` (its bytes) or `wasmModule` (the
 * WebAssembly.Module compileEngine() gave, with its `wasmUrl`); `trainer: true` loads the engine
 * with the trainer (mha_trainer.mjs and .wasm beside the engine's .wasm, ~30 KB more gzipped, its
 * own meta tag mha-lens:trainer-wasm-url), which engine.trainer() needs and which runs everything
 * the engine alone runs. The .wasm at a URL is fetched once however many engines are made from it.
 * Throws MhaLoadError naming the URL tried and the fix.
 */
export async function createEngine({ wasmUrl, wasmBinary, wasmModule, trainer = false, trainerGlue } = {}) {
  let url = null;
  let given = false;
  let compiledModule;
  if (wasmModule) {
    compiledModule = wasmModule;
    url = wasmUrl ? String(wasmUrl) : null;
  } else if (wasmBinary) {
    compiledModule = await compileBytes(ArrayBuffer.isView(wasmBinary) ? new Uint8Array(wasmBinary.buffer, wasmBinary.byteOffset, wasmBinary.byteLength) : new Uint8Array(wasmBinary), 'wasmBinary');
  } else {
    ({ url, given, module: compiledModule } = await compileEngine({ wasmUrl, trainer }));
  }
  const glue = trainer ? trainerGlue ?? await loadTrainerGlue(given && url ? url : null) : { default: createMhaModule };
  const module = await instantiate(glue.default, compiledModule);
  // A .wasm of another version names its steps differently, and every run would be read wrong.
  if (!Engine.matches(module)) throw new MhaLoadError('load.version', { url: url ?? 'wasmBinary' });
  return new Engine(module, { trainer, trainerWasmUrl: trainer ? (url ?? glue.defaultWasmUrl?.() ?? null) : null });
}

// The trainer's Emscripten glue: the bundled one (assets.js), or, when the page said where the
// trainer's .wasm is (a meta tag, a wasm-url, env.assetPath), the mha_trainer.mjs beside it, so
// that the JS and the .wasm come from the same place. One that does not load is named.
async function loadTrainerGlue(wasmUrl) {
  const url = wasmUrl ? new URL('./mha_trainer.mjs', wasmUrl).href : null;
  try {
    return url ? await import(/* webpackIgnore: true */ /* @vite-ignore */ url) : await importTrainerGlue();
  } catch (error) {
    throw new MhaLoadError('load.glue', { url: url ?? 'mha_trainer.mjs', detail: error.message }, error);
  }
}

let sharedEngine = null;

/**
 * The one engine of the page (or process), shared by every mha-lens element and by any caller of
 * getEngine(), whether it imported 'mha-lens' or 'mha-lens/widgets': loaded by the first call,
 * with that call's options. A load that fails is not kept: the next call tries again.
 */
export function getEngine(options) {
  if (!sharedEngine) {
    sharedEngine = createEngine(options);
    sharedEngine.catch(() => { sharedEngine = null; });
  }
  return sharedEngine;
}
