// The language-model section's engine side (<mha-lm>, elements/lm/): the shipped model that reads
// what the learner types, writes with the KV cache, and a small model trained from scratch. It
// runs in a Web Worker — session.js starts it as new Worker(new URL('./mha-lm-worker.js',
// import.meta.url), { type: 'module' }), a file beside the widget bundle in web/dist/ — or, when
// no worker can start, on the page's own thread (session.js imports this module and calls
// startService). The page's thread only draws.
//
// To the service:
//   init      { wasmModule, wasmUrl }                      the engine with the trainer
//   open      { corpus }                                   the shipped model of a corpus
//   measure   {}                                           its held-out figures (measured)
//   read      { id, text, position, seed }                 what the model makes of the typed text
//   generate  { id, prompt, length, temperature, topK, seed }  a stream of characters (chunk…, generated)
//   stop      {}                                           ends a stream
//   train     { until }                                    the small model, from scratch, to this step
//   pause     {}
//   reset     {}                                           the small model back at step 0
//   block     { id, layer, text }                          one layer of the shipped model as a walkthrough run
// From it:
//   ready     { messages }
//   opened    { corpus, context, options, step, parameterCount, vocab, missing }
//   measured  { corpus, step, bits, characters, scores, sample }   held-out: 32 windows
//   reading   { id, text, window, unknown, layers: [{ layer, weights }], heads: H, scores,
//               next: [{ char, p }], positions: { trained, removed, shuffled }: { next, weights } }
//   chunk     { id, text, cached, cacheBytes, ms }         the characters so far (ms: decoding time)
//   generated { id, text, ms, recompute: { ms, measured, every } }
//   progress  { step, running, loss, bits?, sample?, scores? }
//   paused    { step }  done { step }  trainReset { step, options }
//   block     { id, run }                                  run: Run.toTransfer()
//   error     { id?, error }
import { createEngine } from '../engine/engine.js';
import { errorData } from './protocol.js';

// The from-scratch recipe that forms a previous-character head in a few hundred steps
// (scripts/lm/FINDINGS.md, "In-page training").
export const SCRATCH = { layers: 1, width: 64, heads: 4, T: 64, batch: 32, lr: 0.01, mlp: true, layernorm: true, seed: 0 };
// Training draws a point every EVAL_EVERY steps: held-out bits on 32 windows, the heads on held-out
// text, and a sample.
export const EVAL_EVERY = 25;
export const TRAIN_STEPS = 600;
const SAMPLE_PROMPT = { 'moby-dick': 'The whale ', 'tang-poems': '春' };
// Recomputing everything is timed at every RECOMPUTE_EVERY-th character and multiplied back.
const RECOMPUTE_EVERY = 8;

export function startService(post, { sliceMs = 40 } = {}) {
  let engine = null;
  let lm = null; // the shipped model
  let scratch = null; // the model trained on the page
  let corpus = null;
  let running = false;
  let until = 0;
  let msPerStep = 20;
  let streamTicket = 0;
  const now = () => performance.now();
  const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

  async function openScratch() {
    scratch?.dispose();
    scratch = null;
    scratch = await engine.loadLanguageModel({ corpus, trained: false, ...SCRATCH });
    return scratch;
  }

  // Held-out bits, every head's jobs on held-out text and a sample: one point of the curve.
  function measure(model) {
    const { bits, characters } = model.evaluate({ windows: 32 });
    const scores = model.headScores(undefined, { windows: 32 });
    const sample = model.generate(SAMPLE_PROMPT[corpus], { length: 80, temperature: 0.8, seed: 1 });
    return { bits, characters, scores, sample: SAMPLE_PROMPT[corpus] + sample };
  }

  async function loop() {
    while (running && scratch.step < until) {
      const started = now();
      const nextPoint = (Math.floor(scratch.step / EVAL_EVERY) + 1) * EVAL_EVERY;
      const steps = Math.max(1, Math.min(until - scratch.step, nextPoint - scratch.step, Math.floor(sliceMs / msPerStep)));
      const result = scratch.train(steps);
      msPerStep = 0.7 * msPerStep + 0.3 * ((now() - started) / steps);
      const point = result.step % EVAL_EVERY === 0 ? measure(scratch) : {};
      post({ type: 'progress', step: result.step, running, loss: result.loss, ...point });
      await pause();
    }
    if (running && scratch.step >= until) {
      running = false;
      post({ type: 'done', step: scratch.step });
    }
  }

  const handlers = {
    async init({ wasmModule, wasmUrl }) {
      engine = await createEngine({ trainer: true, wasmModule, wasmUrl });
      post({ type: 'ready', messages: engine.messages });
    },
    async open({ corpus: name }) {
      running = false;
      streamTicket++;
      lm?.dispose();
      scratch?.dispose();
      lm = null;
      scratch = null;
      corpus = name;
      let missing = null;
      try {
        lm = await engine.loadLanguageModel({ corpus });
      } catch (error) {
        missing = errorData(error); // no shipped checkpoint here: the section can still train one
      }
      const shown = lm ?? await openScratch();
      // The held-out figures come after: the page asks for them once it has read the text.
      post({ type: 'opened', corpus, context: shown.context, options: shown.options, step: shown.step, parameterCount: shown.parameterCount,
        vocab: shown.vocab.length, missing, scratch: SCRATCH });
    },
    measure() {
      const model = lm ?? scratch;
      post({ type: 'measured', corpus, step: model.step, ...measure(model) });
    },
    read({ id, text, position, seed = 1 }) {
      const model = lm ?? scratch;
      const chars = Array.from(text);
      const upTo = chars.slice(0, Math.min(chars.length, Math.max(1, position ?? chars.length))).join('');
      const { unknown } = model.encode(text);
      const layers = model.attention(text).map(({ layer, weights }) => ({ layer, weights }));
      const scores = model.headScores(text);
      const next = model.next(upTo, { topK: 8 });
      const positions = {};
      for (const mode of ['trained', 'removed', 'shuffled']) {
        positions[mode] = { next: model.next(upTo, { topK: 5, positions: mode, seed }), weights: model.attention(upTo, { positions: mode, seed })[0].weights };
      }
      post({ type: 'reading', id, text, window: model.windowOf(text), upTo: model.windowOf(upTo), unknown, layers, heads: model.options.heads, scores, next, positions });
    },
    async generate({ id, prompt, length = 128, temperature = 0.8, topK = 0, seed = 0 }) {
      const model = lm ?? scratch;
      const ticket = ++streamTicket;
      const stream = model.stream(prompt, { temperature, topK, seed });
      let text = '';
      let ms = 0;
      let last = { cached: stream.cached, cacheBytes: stream.cacheBytes, rebuilds: 0 };
      while (Array.from(text).length < length) {
        const started = now();
        const out = stream.next(Math.min(4, length - Array.from(text).length));
        ms += now() - started;
        text += out.text;
        last = out;
        post({ type: 'chunk', id, text, cached: out.cached, cacheBytes: out.cacheBytes, rebuilds: out.rebuilds, ms });
        await pause();
        if (ticket !== streamTicket) return;
      }
      // The same characters without the cache: each one asks for the whole text before it again.
      const all = Array.from(prompt + text);
      const start = Array.from(prompt).length;
      let measured = 0;
      let recompute = 0;
      for (let k = start; k < all.length; k += RECOMPUTE_EVERY) {
        const before = all.slice(0, k).join('');
        const started = now();
        model.next(before, { topK: 1 });
        recompute += now() - started;
        measured++;
        if (measured % 4 === 0) {
          await pause();
          if (ticket !== streamTicket) return;
        }
      }
      post({ type: 'generated', id, text, ms, cached: last.cached, cacheBytes: last.cacheBytes, rebuilds: last.rebuilds,
        recompute: { ms: (recompute / measured) * (all.length - start), measured, every: RECOMPUTE_EVERY } });
    },
    stop() {
      streamTicket++;
    },
    async train({ until: target }) {
      if (!scratch) {
        const model = await openScratch();
        post({ type: 'trainReset', step: model.step, options: model.options, ...measure(model) });
      }
      until = target ?? scratch.step + TRAIN_STEPS;
      if (running) return;
      running = true;
      loop().catch(fail);
    },
    pause() {
      if (!running) return;
      running = false;
      post({ type: 'paused', step: scratch.step });
    },
    async reset() {
      running = false;
      const model = await openScratch();
      post({ type: 'trainReset', step: model.step, options: model.options, ...measure(model) });
    },
    block({ id, layer = 0, text }) {
      const model = lm ?? scratch;
      const run = model.run(text, { layer }).toTransfer();
      post({ type: 'block', id, step: model.step, layers: model.options.layers, window: model.windowOf(text), run });
    },
  };

  function fail(error, id) {
    running = false;
    post({ type: 'error', id, error: errorData(error) });
  }

  // One message at a time, in order, except that a stream's stop and a pause reach it between
  // chunks (a stream and training yield between their slices).
  let queue = Promise.resolve();
  return (message) => {
    if (message?.type === 'stop' || message?.type === 'pause') {
      handlers[message.type](message);
      return queue;
    }
    queue = queue.then(async () => {
      try {
        if (!handlers[message?.type]) throw new Error(`unknown message ${message?.type}`);
        if (message.type !== 'init' && !engine) throw new Error('the language model is not ready');
        await handlers[message.type](message);
      } catch (error) {
        fail(error, message?.id);
      }
    });
    return queue;
  };
}

if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  const handle = startService((message, transfer) => globalThis.postMessage(message, transfer ?? []));
  globalThis.addEventListener('message', (event) => handle(event.data));
}
