// The trainer of the JS API: a tiny transformer trained on a task in the engine.
//
//   const trainer = engine.trainer({ task: 'induction', seed: 1 });
//   trainer.task;                      // { name, T, vocab, causal, steps, job, jobTarget }
//   trainer.train(50);                 // { step, loss, accuracy, losses }, synchronous
//   trainer.view(tokens);              // every layer's attention, the predictions, the head scores
//   const bytes = trainer.save();      // engine.trainer({ checkpoint: bytes }) continues exactly
//   trainer.dispose();                 // frees its memory in the engine
//
// A trainer lives in the engine (cpp/bindings/trainer_bindings.cpp, TrainerSession) behind one
// handle this object owns: its parameters and AdamW moments stay there between calls, so train()
// copies nothing in and hands back only its losses. dispose() frees it; a trainer that is dropped
// without dispose() is freed when it is garbage-collected. An error leaves the trainer as it was.
import { MhaError, readKey } from './errors.js';
import { decodeRun, Run } from './run.js';

const NUMBER_OPTIONS = ['seed', 'T', 'vocab', 'layers', 'heads', 'width', 'batch', 'lr', 'weightDecay', 'dropout', 'clip'];
const BOOLEAN_OPTIONS = ['mlp', 'layernorm'];
const KNOWN = ['task', ...NUMBER_OPTIONS, ...BOOLEAN_OPTIONS, 'checkpoint'];
// What configure() may change: how the trainer trains, not what it is.
const TRAINING_OPTIONS = ['lr', 'weightDecay', 'dropout', 'clip'];

/** A value as a message describes it ({@got}), as the engine's config reader does. */
function described(value) {
  if (typeof value === 'number' && !Number.isFinite(value)) return { got: 'term.got.value', got_text: String(value) };
  if (typeof value === 'string') return { got: 'term.got.string', got_text: value.length > 40 ? `${value.slice(0, 40)}…` : value };
  if (Array.isArray(value)) return { got: 'term.got.array', got_text: String(value.length) };
  if (value === null || value === undefined) return { got: 'term.got.null' };
  if (typeof value === 'object') return { got: 'term.got.object' };
  if (typeof value === 'boolean' || typeof value === 'number') return { got: 'term.got.value', got_text: String(value) };
  return { got: 'term.got.other' };
}

// An options argument ({ sequences }, { layer }): an object, or nothing (undefined or null).
function optionsArgument(value, field, messages) {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw MhaError.from({ field, key: 'bad_type.value', params: { field, wanted: 'term.wanted.options', ...described(value) } }, messages);
  }
  return value;
}

/** The trainer options as the engine reads them, every type checked; throws MhaError naming the option. */
export function checkedOptions(options, messages) {
  const fail = (field, key, params) => {
    throw MhaError.from({ field, key, params }, messages);
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options) || ArrayBuffer.isView(options)) {
    fail('options', 'bad_type.value', { field: 'options', wanted: 'term.wanted.options', ...described(options) });
  }
  const read = Object.create(null);
  for (const key of Object.keys(options)) {
    const value = readKey(options, key, messages);
    if (value === undefined) continue;
    if (!KNOWN.includes(key)) {
      const close = KNOWN.find((name) => name.toLowerCase() === key.toLowerCase().replaceAll('_', ''));
      fail(key, 'unknown_key.trainer', { key, known: KNOWN, ...(close ? { hint: 'term.did_you_mean', suggestion: close } : {}) });
    }
    if (key === 'task' && typeof value !== 'string') fail('task', 'bad_type.value', { field: 'task', wanted: 'term.wanted.task', ...described(value) });
    if (NUMBER_OPTIONS.includes(key) && (typeof value !== 'number' || !Number.isFinite(value))) {
      fail(key, 'bad_type.value', { field: key, wanted: 'term.wanted.number', ...described(value) });
    }
    if (BOOLEAN_OPTIONS.includes(key) && typeof value !== 'boolean') fail(key, 'bad_type.value', { field: key, wanted: 'term.wanted.bool', ...described(value) });
    if (key === 'checkpoint' && !(value instanceof Uint8Array)) {
      fail('checkpoint', 'bad_type.value', { field: 'checkpoint', wanted: 'term.wanted.checkpoint', ...described(value) });
    }
    read[key] = value;
  }
  if (read.checkpoint) {
    const other = Object.keys(read).find((key) => key !== 'checkpoint');
    if (other) fail(other, 'bad_option.with_checkpoint', { field: other });
  }
  return read;
}

// A typed array's real kind and length, read through the intrinsic getters (which neither an own
// `length` nor a subclass can change); undefined for anything else.
const MAX_SEQUENCES = 512;
const TYPED = Object.getPrototypeOf(Int8Array.prototype);
const typedTag = (value) => Object.getOwnPropertyDescriptor(TYPED, Symbol.toStringTag).get.call(value);

/**
 * Tokens [B, T] as an Int32Array: whole numbers only, each read once (the engine checks their
 * count before copying them and their range). `task` is the trainer's, for the message.
 */
function tokensOf(tokens, messages, task) {
  const fail = (key, params) => {
    throw MhaError.from({ field: 'tokens', key, params }, messages);
  };
  const tag = typedTag(tokens);
  if (tag === 'Int32Array') return tokens;  // the engine reads its real length and refuses a false one
  if (!Array.isArray(tokens) && (tag === undefined || tag.startsWith('Big'))) {
    fail('bad_type.value', { field: 'tokens', wanted: 'term.wanted.tokens', ...(tag ? { got: 'term.got.kind', got_text: tag } : described(tokens)) });
  }
  const length = tag ? Object.getOwnPropertyDescriptor(TYPED, 'length').get.call(tokens) : tokens.length;
  const T = task?.T ?? 64;
  // Too many is refused before a single value is read (the engine's limit, check_token_count).
  if (length > MAX_SEQUENCES * T) fail('bad_tokens.length', { count: String(length), T: String(T), max: String(MAX_SEQUENCES * T) });
  const values = new Int32Array(length);
  for (let i = 0; i < values.length; i++) {
    const value = readKey(tokens, i, messages, `tokens[${i}]`);
    if (!Number.isInteger(value) || Math.abs(value) > 2 ** 31 - 1) {
      const max = task ? String(task.vocab - 1) : '…';
      fail('bad_tokens.value', { index: String(i), value: typeof value === 'bigint' ? `${value}n` : String(value), max, vocab: task ? String(task.vocab) : '…' });
    }
    values[i] = value;
  }
  return values;
}

// A trainer dropped without dispose(): its session is freed when the Trainer is collected.
const unreleased = typeof FinalizationRegistry === 'undefined' ? null : new FinalizationRegistry((session) => {
  if (!session.isDeleted()) session.delete();
});

export class Trainer {
  #session;
  #messages;
  #decode;
  #info;

  /** Made by engine.trainer(): `session` is the engine's TrainerSession, `info` its description. */
  constructor(session, messages, info, decode) {
    this.#session = session;
    this.#messages = messages;
    this.#info = info;
    this.#decode = decode;
    unreleased?.register(this, session, this);
  }

  /** { name, T, vocab, causal, steps, job, jobTarget }: tokens are 0 … vocab−1; `steps` is the default training length. */
  get task() {
    return { ...this.#info.task };
  }

  /** Every option as resolved against the task's defaults (what save() keeps). */
  get options() {
    return { ...this.#info.options };
  }

  /** Training steps taken so far. */
  get step() {
    return this.#info.step;
  }

  /** Parameters of the model. */
  get parameterCount() {
    return this.#info.parameterCount;
  }

  /** True once dispose() has freed the trainer. */
  get disposed() {
    return this.#session === null;
  }

  /**
   * Trains `steps` steps (1 … 100,000) synchronously on fresh batches and returns
   * { step, loss, accuracy, losses }: the last step's training loss and accuracy on its scored
   * positions, and every step's loss (a Float32Array). Call it in chunks to stay responsive.
   */
  train(steps = 1) {
    let result;
    try {
      result = this.#call('train', typeof steps === 'number' ? steps : NaN);
    } catch (error) {
      // Training that diverges stops at the last finite step, which may be later than before.
      if (error instanceof MhaError && error.key === 'training.diverged') this.#info = this.#call('info');
      throw error;
    }
    this.#info = { ...this.#info, step: result.step };
    return result;
  }

  /**
   * Changes how this trainer trains from its next step: `{ lr, weightDecay, dropout, clip }`, each
   * optional. Its model, step and random state stay as they are, so evaluate(), attention() and
   * headScores() give what they gave (dropout acts in training only). Any other option shapes the
   * model or its data and is refused naming it: make a new trainer for those. Returns this.
   */
  configure(options) {
    const messages = this.#messages;
    const read = checkedOptions(options, messages);
    const fixed = Object.keys(read).find((key) => !TRAINING_OPTIONS.includes(key));
    if (fixed) throw MhaError.from({ field: fixed, key: 'bad_option.fixed', params: { field: fixed, options: TRAINING_OPTIONS } }, messages);
    this.#info = this.#call('configure', read);
    return this;
  }

  /** Loss and accuracy on fresh batches (the same ones at every call), without dropout. */
  evaluate(options) {
    const given = optionsArgument(options, 'options', this.#messages);
    const sequences = readKey(given, 'sequences', this.#messages) ?? 512;
    return this.#call('evaluate', typeof sequences === 'number' ? sequences : NaN);
  }

  /**
   * Every head's measured score for every job (attention mass on the keys the job expects,
   * averaged over fresh batches): [{ layer, head, jobs: { antiDiagonal, answer, previousToken,
   * prefixMatching }, score }], where `score` is the task's own job's.
   */
  headScores() {
    return this.#scored(this.#call('headScores'));
  }

  /** The predicted target token per position: Int32Array [B, T] for tokens [B, T]. */
  predict(tokens) {
    return this.#call('predict', tokensOf(tokens, this.#messages, this.#info.task));
  }

  /** Every layer's attention weights: [{ layer, weights: Float32Array [B, H, T, T] }], without dropout. */
  attention(tokens) {
    return this.#call('attention', tokensOf(tokens, this.#messages, this.#info.task));
  }

  /**
   * What a picture of the trainer needs, in one call: { step, layers: [{ layer, weights:
   * Float32Array [B, H, T, T] }], predicted: Int32Array [B, T], scores (with `scores: true`, as
   * headScores() gives them) }, without dropout and without a walkthrough trace.
   */
  view(tokens, options) {
    const scores = readKey(optionsArgument(options, 'options', this.#messages), 'scores', this.#messages) ?? true;
    const result = this.#call('view', tokensOf(tokens, this.#messages, this.#info.task), Boolean(scores));
    if (result.scores) result.scores = this.#scored(result.scores);
    return result;
  }

  /**
   * One layer's attention block as engine.run shows it (a Run): its input after LayerNorm as x,
   * its trained weights, its mask, and as dOutput the gradient the loss on these tokens sends into
   * it, so run.steps walks the block forward and then backward.
   */
  run(tokens, options) {
    const layer = readKey(optionsArgument(options, 'options', this.#messages), 'layer', this.#messages) ?? 0;
    const result = this.#call('block', tokensOf(tokens, this.#messages, this.#info.task), typeof layer === 'number' ? layer : NaN);
    const run = this.#decode(result);
    return new Run(run, { messages: this.#messages, owned: run.buffers });
  }

  /** The whole trainer as bytes: engine.trainer({ checkpoint }) continues from it exactly. */
  save() {
    return this.#call('save', false, false);
  }

  /** Frees the trainer in the engine at once; any later call throws. Calling it again does nothing. */
  dispose() {
    if (!this.#session) return;
    unreleased?.unregister(this);
    this.#session.delete();
    this.#session = null;
  }

  #scored(heads) {
    const job = this.#info.task.job;
    return heads.map((head) => ({ ...head, score: head.jobs[job] }));
  }

  #call(name, ...args) {
    if (!this.#session) throw MhaError.from({ field: 'trainer', key: 'trainer.disposed', params: {} }, this.#messages);
    const result = this.#session[name](...args);
    if (!result.ok) throw new MhaError(result.error, this.#messages);
    return result.value;
  }
}

/** engine.trainer(options): a new trainer, or one loaded from `checkpoint`. `decode` reads a run's numbers (engine.js). */
export function createTrainer(module, messages, options, decode) {
  const read = checkedOptions(options, messages);
  const session = new module.TrainerSession();
  const result = read.checkpoint ? session.open(read.checkpoint) : session.create(read);
  if (!result.ok) {
    session.delete();
    throw new MhaError(result.error, messages);
  }
  return new Trainer(session, messages, result.value, decode);
}
