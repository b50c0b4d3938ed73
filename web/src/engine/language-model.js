// The character language model of the JS API: the trainer's transformer on the next character of
// a corpus (cpp/include/mha/model/language_model.hpp), read and trained in the engine.
//
//   const lm = engine.languageModel({ corpus: 'moby-dick', trained: true });   // Node: reads the files
//   const lm = await engine.loadLanguageModel({ corpus: 'tang-poems' });       // anywhere: fetches them
//   lm.next('Call me Ishma', { topK: 5 });      // [{ char: 'e', p: 0.93 }, …]
//   lm.generate('Call me', { length: 200, temperature: 0.8, seed: 1 });
//   lm.attention('the cat sat');                // [{ layer, weights: Float32Array [1, H, n, n] }]
//   lm.headScores('the cat sat on the cat');    // [{ layer, head, jobs: { previousChar, induction, halfLine, line } }]
//
// A corpus is three files beside the trainer's .wasm (web/dist/corpora/<name>/, made by
// scripts/lm/make_corpora.js): vocab.json, heldout and train ids (uint8 or uint16 little-endian).
// A trained model reads only vocab.json and the held-out ids; train() needs the training ids,
// which are loaded when first needed. The shipped checkpoints are web/dist/checkpoints/<name>.mhat.
import { MhaError } from './errors.js';
import { fileReader } from './file-reader.js';
import { Trainer } from './trainer.js';

/** The corpora a language model can read, and the id files' width. */
export const CORPORA = Object.freeze({
  'moby-dick': { bytes: 1, extension: 'u8' },
  'tang-poems': { bytes: 2, extension: 'u16' },
});

// The longest text a call reads (next, attention and headScores read only its last window).
const MAX_TEXT = 100000;

const NUMBER_OPTIONS = ['seed', 'T', 'layers', 'heads', 'width', 'batch', 'lr', 'weightDecay', 'dropout', 'clip', 'repeatShare', 'repeatMin', 'repeatMax'];
const KNOWN = ['corpus', 'trained', 'checkpoint', 'mlp', 'layernorm', ...NUMBER_OPTIONS];

/** Where a corpus's and a checkpoint's files are: beside the trainer's .wasm. */
export function languageModelUrls(corpus, trainerWasmUrl) {
  const { extension } = CORPORA[corpus];
  const folder = new URL(`./corpora/${corpus}/`, trainerWasmUrl);
  return {
    vocab: new URL('vocab.json', folder),
    heldout: new URL(`heldout.${extension}`, folder),
    train: new URL(`train.${extension}`, folder),
    checkpoint: new URL(`./checkpoints/${corpus}.mhat`, trainerWasmUrl),
  };
}

function idsOf(bytes, width) {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength));
  if (width === 1) return copy;
  const ids = new Uint16Array(copy.byteLength >> 1);
  const view = new DataView(copy.buffer);
  for (let i = 0; i < ids.length; i++) ids[i] = view.getUint16(2 * i, true);
  return ids;
}

/** Reads a URL's bytes: fetch in a browser, the file system for file: URLs in Node. */
async function bytesAt(url) {
  if (url.protocol === 'file:') return new Uint8Array(await fileReader.read(url));
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url.href}`);
  return new Uint8Array(await response.arrayBuffer());
}

function bytesAtSync(url) {
  if (url.protocol !== 'file:') return null;
  const fs = fileReader.readSync ? null : globalThis.process?.getBuiltinModule?.('fs');
  return new Uint8Array(fileReader.readSync ? fileReader.readSync(url) : fs.readFileSync(url));
}

/**
 * A corpus's data as languageModel() reads it: { name, chars, unknown, heldout, train? }, from
 * its files (`train: false` leaves the training ids out: a model that only reads needs none).
 */
export async function loadCorpus(name, trainerWasmUrl, { train = true } = {}) {
  const urls = languageModelUrls(name, trainerWasmUrl);
  const [vocab, heldout, trainIds] = await Promise.all([
    bytesAt(urls.vocab), bytesAt(urls.heldout), train ? bytesAt(urls.train) : null]);
  const { bytes } = CORPORA[name];
  const parsed = JSON.parse(new TextDecoder().decode(vocab));
  return { name, chars: parsed.chars, unknown: parsed.unknown, heldout: idsOf(heldout, bytes), train: trainIds ? idsOf(trainIds, bytes) : null };
}

function loadCorpusSync(name, trainerWasmUrl, { train = true } = {}) {
  const urls = languageModelUrls(name, trainerWasmUrl);
  const vocab = bytesAtSync(urls.vocab);
  if (!vocab) return null;
  const { bytes } = CORPORA[name];
  const parsed = JSON.parse(new TextDecoder().decode(vocab));
  return { name, chars: parsed.chars, unknown: parsed.unknown, heldout: idsOf(bytesAtSync(urls.heldout), bytes), train: train ? idsOf(bytesAtSync(urls.train), bytes) : null };
}

/** The options checked for type and name; throws MhaError naming the option. */
function checkedOptions(options, messages) {
  const fail = (field, key, params) => {
    throw MhaError.from({ field, key, params }, messages);
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail('options', 'bad_type.value', { field: 'options', wanted: 'term.wanted.options', got: 'term.got.other' });
  }
  const read = Object.create(null);
  for (const key of Object.keys(options)) {
    const value = options[key];
    if (value === undefined) continue;
    if (!KNOWN.includes(key)) fail(key, 'lm.unknown_option', { key, known: KNOWN });
    if (NUMBER_OPTIONS.includes(key) && (typeof value !== 'number' || !Number.isFinite(value))) {
      fail(key, 'bad_type.value', { field: key, wanted: 'term.wanted.number', got: 'term.got.value', got_text: String(value) });
    }
    read[key] = value;
  }
  const corpus = typeof read.corpus === 'string' ? read.corpus : read.corpus?.name;
  if (!Object.hasOwn(CORPORA, corpus ?? '') && !read.checkpoint) {
    fail('corpus', 'lm.unknown_corpus', { value: String(corpus ?? read.corpus), corpora: Object.keys(CORPORA) });
  }
  if (read.checkpoint !== undefined && !(read.checkpoint instanceof Uint8Array)) {
    fail('checkpoint', 'bad_type.value', { field: 'checkpoint', wanted: 'term.wanted.checkpoint', got: 'term.got.other' });
  }
  return read;
}

/**
 * A character language model: a Trainer (train, configure, save, run, dispose, step, options)
 * whose tokens are the characters of a text.
 */
export class LanguageModel extends Trainer {
  #session;
  #messages;
  #corpus;
  #index;
  #unknownId;
  #load;

  /** Made by engine.languageModel(); `corpus` is loadCorpus()'s data, `load` reads ({ sync }) or fetches ({ fetch }) the training ids later. */
  constructor(session, messages, info, decode, corpus, load) {
    super(session, messages, info, decode);
    this.#session = session;
    this.#messages = messages;
    this.#corpus = corpus;
    this.#load = load;
    this.#index = new Map(corpus.chars.map((char, id) => [char, id]));
    this.#unknownId = corpus.unknown === null ? null : this.#index.get(corpus.unknown);
  }

  /** The characters the model reads, by id. */
  get vocab() {
    return [...this.#corpus.chars];
  }

  /** The corpus's name ('moby-dick' or 'tang-poems'). */
  get corpus() {
    return this.#corpus.name;
  }

  /** The longest window the model reads at once (T characters). */
  get context() {
    return this.options.T;
  }

  /**
   * `text` as the model reads it: { ids: Int32Array, chars: string[] (each character read, the
   * unknown mark where the vocabulary lacks one), unknown: [{ index, char }] }. A character
   * outside the vocabulary becomes the unknown mark (□, Chinese) or, where the corpus has none
   * (English), a space, and is listed in `unknown`: shown, never dropped.
   */
  encode(text) {
    const chars = this.#characters(text);
    const ids = new Int32Array(chars.length);
    const read = [];
    const unknown = [];
    const fallback = this.#unknownId ?? this.#index.get(' ') ?? 0;
    chars.forEach((char, index) => {
      const id = this.#index.get(char);
      if (id === undefined) {
        unknown.push({ index, char });
        ids[index] = fallback;
      } else {
        ids[index] = id;
      }
      read.push(this.#corpus.chars[ids[index]]);
    });
    return { ids, chars: read, unknown };
  }

  /** The characters `ids` stand for, as a string. */
  decode(ids) {
    let text = '';
    for (const id of ids) text += this.#corpus.chars[id] ?? '';
    return text;
  }

  /** The window of `text` the model reads (its last ≤ T characters, by the window rule). */
  windowOf(text) {
    const { chars } = this.encode(text);
    return chars.slice(windowStart(chars.length, this.context));
  }

  /**
   * The character after `text`: [{ char, p }], most likely first, the `topK` most likely (0: all).
   * `positions: 'removed'` or `'shuffled'` (with `seed`) asks the model with its learned positions
   * zeroed or permuted: the positional-encoding lesson (attention alone has no order).
   */
  next(text, { topK = 10, positions = 'trained', seed = 0 } = {}) {
    const probs = this.#lm('lmNext', this.encode(text).ids, this.#positions(positions), checkedCount('seed', seed, 0, 4294967295, this.#messages));
    const order = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
    const k = topK > 0 ? Math.min(topK, order.length) : order.length;
    return order.slice(0, k).map((id) => ({ char: this.#corpus.chars[id], p: probs[id] }));
  }

  /**
   * `length` characters after `prompt`, decoded with the KV cache: temperature 0 always takes the
   * most likely character (the same characters as taking next()'s first, one at a time);
   * otherwise samples from the `topK` most likely (0: all) with the seed's stream.
   */
  generate(prompt, { length = 200, temperature = 0.8, topK = 0, seed = 0 } = {}) {
    return this.stream(prompt, { temperature, topK, seed }).next(length).text;
  }

  /**
   * Generation a chunk at a time, for a page that draws as it goes: `stream.next(count)` gives
   * { text, ids, cached (characters in the KV cache), cacheBytes, rebuilds }. Training, reopening
   * or another stream ends it.
   */
  stream(prompt, { temperature = 0.8, topK = 0, seed = 0 } = {}) {
    const { ids } = this.encode(prompt);
    const numbers = { temperature, topK, seed };
    for (const [key, value] of Object.entries(numbers)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw MhaError.from({ field: key, key: 'bad_type.value', params: { field: key, wanted: 'term.wanted.number', got: 'term.got.value', got_text: String(value) } }, this.#messages);
      }
    }
    const started = this.#lm('lmStart', ids, temperature, topK, seed);
    const model = this;
    return {
      cached: started.cached,
      cacheBytes: started.cacheBytes,
      next(count = 1) {
        const out = model.#lm('lmContinue', typeof count === 'number' ? count : NaN);
        return { ...out, text: model.decode(out.ids) };
      },
    };
  }

  /** Every layer's attention over the window of `text`: [{ layer, weights: Float32Array [1, H, n, n], chars }]. */
  attention(text, { positions = 'trained', seed = 0 } = {}) {
    const { ids } = this.encode(text);
    const chars = this.windowOf(text);
    return this.#lm('lmAttention', ids, this.#positions(positions), checkedCount('seed', seed, 0, 4294967295, this.#messages)).map((entry) => ({ ...entry, chars }));
  }

  #positions(positions) {
    const modes = ['trained', 'removed', 'shuffled'];
    if (!modes.includes(positions)) throw MhaError.from({ field: 'positions', key: 'lm.positions', params: { value: String(positions), modes } }, this.#messages);
    return modes.indexOf(positions);
  }

  /** Bits per character of `text` (each character after the first, given the ones before it). */
  bitsPerChar(text) {
    return this.#lm('lmBits', this.encode(text).ids);
  }

  /** Bits per character on the corpus's held-out text: { bits, characters } over `windows` windows of T+1. */
  evaluate({ windows = 256 } = {}) {
    return this.#lm('lmHeldout', checkedCount('windows', windows, 1, 4096, this.#messages));
  }

  /**
   * Each head's jobs, the attention mass where each job looks: previousChar (key i−1), induction
   * (the key after the earlier occurrence of the last two characters), halfLine (key i−5: the
   * predicted character's place 6 back, in the previous half-line of a verse) and line (key
   * i−11: 12 back). On `text` when given, else on held-out text (induction then on rows that
   * repeat a held-out passage). [{ layer, head, jobs }].
   */
  headScores(text, { windows = 256 } = {}) {
    if (text === undefined || text === null) return this.#lm('lmScores', null, checkedCount('windows', windows, 1, 4096, this.#messages));
    return this.#lm('lmScores', this.encode(text).ids, 0);
  }

  /** Trains `steps` steps on the corpus's training text (loaded first if it was not). */
  train(steps = 1) {
    this.#ensureTrainingText();
    return super.train(steps);
  }

  /**
   * One layer's attention block on the window of `text` as a walkthrough Run: its input (after
   * LayerNorm) as x, the trained weights, the causal mask; run.step('output') is the model's own.
   */
  run(text, { layer = 0 } = {}) {
    const { ids } = this.encode(text);
    return super.run(ids.subarray(windowStart(ids.length, this.context)), { layer });
  }

  /**
   * The model as bytes for languageModel({ checkpoint }): whole (training goes on exactly), or
   * `{ parametersOnly: true, float16: true }`, the shipped checkpoints' form (moments start again).
   */
  save({ parametersOnly = false, float16 = false } = {}) {
    return this.#lm('save', Boolean(parametersOnly), Boolean(float16));
  }

  #ensureTrainingText() {
    if (this.#corpus.train) return;
    const train = this.#load?.sync();
    if (!train) throw MhaError.from({ field: 'corpus', key: 'lm.no_training_text', params: { corpus: this.#corpus.name } }, this.#messages);
    this.#corpus = { ...this.#corpus, train };
    attach(this.#session, this.#corpus, this.#messages);
  }

  /** Loads the training text where it must be fetched (a browser) before train() is called. */
  async loadTrainingText() {
    if (this.#corpus.train) return;
    const train = await this.#load.fetch();
    this.#corpus = { ...this.#corpus, train };
    attach(this.#session, this.#corpus, this.#messages);
  }

  #characters(text) {
    if (typeof text !== 'string') {
      throw MhaError.from({ field: 'text', key: 'bad_type.value', params: { field: 'text', wanted: 'term.wanted.text', got: 'term.got.other' } }, this.#messages);
    }
    const chars = Array.from(text);
    if (chars.length === 0) throw MhaError.from({ field: 'text', key: 'lm.empty_text', params: {} }, this.#messages);
    if (chars.length > MAX_TEXT) throw MhaError.from({ field: 'text', key: 'lm.text_too_long', params: { count: String(chars.length), max: String(MAX_TEXT) } }, this.#messages);
    return chars;
  }

  #lm(name, ...args) {
    if (this.disposed) throw MhaError.from({ field: 'trainer', key: 'trainer.disposed', params: {} }, this.#messages);
    const result = this.#session[name](...args);
    if (!result.ok) throw new MhaError(result.error, this.#messages);
    return result.value;
  }
}

function checkedCount(field, value, min, max, messages) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw MhaError.from({ field, key: 'bad_option.range', params: { field, value: String(value), min: String(min), max: String(max) } }, messages);
  }
  return value;
}

/** Where the window the model reads begins, for a text of n characters (language_model.hpp). */
export function windowStart(n, T) {
  if (n <= T) return 0;
  const kept = Math.floor(T / 2);
  return n - (kept + 1 + ((n - T - 1) % (T - kept)));
}

function attach(session, corpus, messages) {
  const newline = corpus.chars.indexOf('\n');
  const result = session.attachCorpus(corpus.train ?? new Uint8Array(0), corpus.heldout, corpus.chars.length, newline);
  if (!result.ok) throw new MhaError(result.error, messages);
}

/**
 * engine.languageModel(options): `corpus` is a name (its files read from beside the trainer's
 * .wasm, which only Node can do synchronously) or loadCorpus()'s data; `trained` (default true)
 * opens the shipped checkpoint (`checkpointBytes` from the caller, or read), false makes a new
 * model from the options; `checkpoint` opens saved bytes.
 */
export function createLanguageModel(module, messages, options, decode, { trainerWasmUrl, checkpointBytes = null } = {}) {
  const read = checkedOptions(options, messages);
  const fail = (field, key, params) => {
    throw MhaError.from({ field, key, params }, messages);
  };
  const fromScratch = read.trained === false && !read.checkpoint;
  const shaping = Object.keys(read).find((key) => !['corpus', 'trained', 'checkpoint'].includes(key));
  if (!fromScratch && shaping) fail(shaping, 'lm.option_when_trained', { field: shaping });
  const session = new module.TrainerSession();
  const unwrap = (result) => {
    if (!result.ok) throw new MhaError(result.error, messages);
    return result.value;
  };
  try {
    let corpus = typeof read.corpus === 'object' && read.corpus !== null ? read.corpus : null;
    let info;
    if (fromScratch) {
      corpus ??= loadCorpusSync(nameOf(read), trainerWasmUrl) ?? fail('corpus', 'lm.load_first', { corpus: nameOf(read) });
      const { corpus: _corpus, trained: _trained, ...rest } = read;
      info = unwrap(session.create({ ...rest, task: 'text', corpus: corpus.name, vocab: corpus.chars.length }));
    } else {
      const bytes = read.checkpoint ?? checkpointBytes ?? readSync(languageModelUrls(nameOf(read), trainerWasmUrl).checkpoint, nameOf(read), messages);
      info = unwrap(session.open(bytes));
    }
    const name = info.options.corpus;
    if (!name) fail('checkpoint', 'lm.not_a_language_model', { task: info.task.name });
    if (corpus && corpus.name !== name) fail('corpus', 'lm.corpus_mismatch', { found: corpus.name, expected: name });
    if (!Object.hasOwn(CORPORA, name)) fail('corpus', 'lm.unknown_corpus', { value: name, corpora: Object.keys(CORPORA) });
    // A trained model reads; its training text is read when train() first needs it.
    corpus ??= loadCorpusSync(name, trainerWasmUrl, { train: fromScratch }) ?? fail('corpus', 'lm.load_first', { corpus: name });
    unwrap(session.attachCorpus(corpus.train ?? new Uint8Array(0), corpus.heldout, corpus.chars.length, corpus.chars.indexOf('\n')));
    const load = {
      sync: () => loadCorpusSync(name, trainerWasmUrl)?.train ?? null,
      fetch: async () => (await loadCorpus(name, trainerWasmUrl)).train,
    };
    return new LanguageModel(session, messages, info, decode, corpus, load);
  } catch (error) {
    session.delete();
    throw error;
  }
}

/**
 * engine.loadLanguageModel(options): languageModel() with its files fetched first, so it works in
 * a browser (and in Node): a trained model fetches its checkpoint, the vocabulary and the
 * held-out text; one from scratch also the training text.
 */
export async function loadLanguageModel(options, trainerWasmUrl, open, messages) {
  if (typeof options !== 'object' || options === null) return open(options, null);
  const name = nameOf(options);
  if (!Object.hasOwn(CORPORA, name ?? '')) return open(options, null);  // named in the error open() gives
  const fromScratch = options.trained === false && !options.checkpoint;
  const urls = languageModelUrls(name, trainerWasmUrl);
  let corpus;
  let checkpoint;
  try {
    [corpus, checkpoint] = await Promise.all([
      typeof options.corpus === 'object' ? options.corpus : loadCorpus(name, trainerWasmUrl, { train: fromScratch }),
      fromScratch || options.checkpoint ? null : bytesAt(urls.checkpoint)]);
  } catch (error) {
    throw MhaError.from({ field: 'corpus', key: 'lm.files', params: { corpus: name, folder: new URL('./corpora/', trainerWasmUrl).href, detail: error.message } }, messages);
  }
  return open({ ...options, corpus }, checkpoint);
}

function nameOf(read) {
  return typeof read.corpus === 'string' ? read.corpus : read.corpus?.name;
}

function readSync(url, corpus, messages) {
  const bytes = bytesAtSync(url);
  if (!bytes) throw MhaError.from({ field: 'corpus', key: 'lm.load_first', params: { corpus } }, messages);
  return bytes;
}
