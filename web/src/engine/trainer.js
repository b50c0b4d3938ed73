// The trainer of the JS API (issue 12): a tiny transformer trained on a task in the engine.
//
//   const trainer = engine.trainer({ task: 'induction', seed: 1 });
//   trainer.task;                      // { name, T, vocab, causal, steps, job, jobTarget }
//   trainer.train(50);                 // { step, loss, accuracy, losses }, synchronous
//   trainer.headScores();              // [{ layer, head, jobs: { antiDiagonal, answer, ... }, score }]
//   const bytes = trainer.save();      // engine.trainer({ checkpoint: bytes }) continues exactly
//
// A trainer's whole state is its checkpoint, a Uint8Array this object keeps: every call hands it
// to a stateless engine function (cpp/bindings/trainer_bindings.cpp), and train() keeps the new
// one it gets back. Nothing of a trainer lives in the wasm module between calls, so dropping a
// trainer frees everything with it, and train(steps) in chunks is what a Web Worker runs between
// messages. An error leaves the trainer as it was.
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

export class Trainer {
  #module;
  #messages;
  #checkpoint;
  #info;

  /** Made by engine.trainer(); `created` is the engine's answer { checkpoint, task, options, step, parameterCount }. */
  constructor(module, messages, created) {
    this.#module = module;
    this.#messages = messages;
    this.#checkpoint = created.checkpoint;
    this.#info = created;
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

  /**
   * Trains `steps` steps (1 … 100,000) synchronously on fresh batches and returns
   * { step, loss, accuracy, losses }: the last step's training loss and accuracy on its scored
   * positions, and every step's loss (a Float32Array). Call it in chunks to stay responsive.
   */
  train(steps = 1) {
    const result = this.#call('trainerTrain', this.#checkpoint, typeof steps === 'number' ? steps : NaN);
    this.#checkpoint = result.checkpoint;
    this.#info = { ...this.#info, step: result.step };
    return { step: result.step, loss: result.loss, accuracy: result.accuracy, losses: result.losses };
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
    const result = this.#call('trainerReconfigure', this.#checkpoint, read);
    this.#checkpoint = result.checkpoint;
    this.#info = { ...this.#info, options: result.options };
    return this;
  }

  /** Loss and accuracy on fresh batches (the same ones at every call), without dropout. */
  evaluate({ sequences = 512 } = {}) {
    return this.#call('trainerEvaluate', this.#checkpoint, typeof sequences === 'number' ? sequences : NaN);
  }

  /**
   * Every head's measured score for every job (attention mass on the keys the job expects,
   * averaged over fresh batches): [{ layer, head, jobs: { antiDiagonal, answer, previousToken,
   * prefixMatching }, score }], where `score` is the task's own job's.
   */
  headScores() {
    const job = this.#info.task.job;
    return this.#call('trainerHeadScores', this.#checkpoint).map((head) => ({ ...head, score: head.jobs[job] }));
  }

  /** The predicted target token per position: Int32Array [B, T] for tokens [B, T]. */
  predict(tokens) {
    return this.#call('trainerPredict', this.#checkpoint, tokensOf(tokens, this.#messages));
  }

  /** Every layer's attention weights: [{ layer, weights: Float32Array [B, H, T, T] }], without dropout. */
  attention(tokens) {
    return this.#call('trainerAttention', this.#checkpoint, tokensOf(tokens, this.#messages));
  }

  /**
   * One layer's attention block as engine.run shows it (a Run): its input after LayerNorm as x,
   * its trained weights, its mask, and as dOutput the gradient the loss on these tokens sends into
   * it, so run.steps walks the block forward and then backward.
   */
  run(tokens, { layer = 0 } = {}) {
    const result = this.#call('trainerRun', this.#checkpoint, tokensOf(tokens, this.#messages), typeof layer === 'number' ? layer : NaN);
    const run = decodeRun(result, this.#module.summaryLayout(), this.#messages);
    return new Run(run, { messages: this.#messages, owned: run.buffers });
  }

  /** The whole trainer as bytes (a copy): engine.trainer({ checkpoint }) continues from it exactly. */
  save() {
    return this.#checkpoint.slice();
  }

  #call(name, ...args) {
    const result = this.#module[name](...args);
    if (!result.ok) throw new MhaError(result.error, this.#messages);
    return result.value;
  }
}

/** engine.trainer(options): a new trainer, or one loaded from `checkpoint`. */
export function createTrainer(module, messages, options) {
  const read = checkedOptions(options, messages);
  const call = (name, ...args) => {
    const result = module[name](...args);
    if (!result.ok) throw new MhaError(result.error, messages);
    return result.value;
  };
  if (read.checkpoint) {
    const checkpoint = read.checkpoint.slice();  // the caller may change theirs afterwards
    return new Trainer(module, messages, { ...call('trainerOpen', checkpoint), checkpoint });
  }
  return new Trainer(module, messages, call('trainerCreate', read));
}
