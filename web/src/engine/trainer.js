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
import { MhaError } from './errors.js';
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
    const value = options[key];
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

/** Tokens [B, T] as an Int32Array: whole numbers only (the engine checks their range and count). */
function tokensOf(tokens, messages) {
  const fail = (key, params) => {
    throw MhaError.from({ field: 'tokens', key, params }, messages);
  };
  if (!Array.isArray(tokens) && !(ArrayBuffer.isView(tokens) && !(tokens instanceof DataView) && typeof tokens[0] !== 'bigint')) {
    fail('bad_type.value', { field: 'tokens', wanted: 'term.wanted.tokens', ...described(tokens) });
  }
  if (tokens instanceof Int32Array) return tokens;
  for (let i = 0; i < tokens.length; i++) {
    const value = tokens[i];
    if (!Number.isInteger(value) || Math.abs(value) > 2 ** 31 - 1) {
      fail('bad_tokens.value', { index: String(i), value: String(value), max: '…', vocab: '…' });
    }
  }
  return Int32Array.from(tokens);
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
    const result = this.#call('train', typeof steps === 'number' ? steps : NaN);
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
  evaluate({ sequences = 512 } = {}) {
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
    return this.#call('predict', tokensOf(tokens, this.#messages));
  }

  /** Every layer's attention weights: [{ layer, weights: Float32Array [B, H, T, T] }], without dropout. */
  attention(tokens) {
    return this.#call('attention', tokensOf(tokens, this.#messages));
  }

  /**
   * What a picture of the trainer needs, in one call: { step, layers: [{ layer, weights:
   * Float32Array [B, H, T, T] }], predicted: Int32Array [B, T], scores (with `scores: true`, as
   * headScores() gives them) }, without dropout and without a walkthrough trace.
   */
  view(tokens, { scores = true } = {}) {
    const result = this.#call('view', tokensOf(tokens, this.#messages), Boolean(scores));
    if (result.scores) result.scores = this.#scored(result.scores);
    return result;
  }

  /**
   * One layer's attention block as engine.run shows it (a Run): its input after LayerNorm as x,
   * its trained weights, its mask, and as dOutput the gradient the loss on these tokens sends into
   * it, so run.steps walks the block forward and then backward.
   */
  run(tokens, { layer = 0 } = {}) {
    const result = this.#call('block', tokensOf(tokens, this.#messages), typeof layer === 'number' ? layer : NaN);
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
