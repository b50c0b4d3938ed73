// The trainer section's engine side: one trainer, its training loop, and what the section draws
// (each layer's attention over the probe, predictions, head scores). It runs in a Web Worker
// (mha-trainer-worker.js, which session.js starts as new Worker(new URL('./mha-trainer-worker.js',
// import.meta.url), { type: 'module' }), so a host's CSP needs no more than worker-src 'self') and,
// when no worker can start, on the page's own thread in short slices (session.js imports this
// module and calls startService). The messages are the same both ways.
//
// The messages both ways are in protocol.js.
import { createEngine, MhaLoadError } from '../engine/engine.js';
import { loadTrainerGlue } from './trainer-glue.js';
import { droppedOut } from '../logic/training/heads.js';
import { exampleProbe, parseProbe } from '../logic/training/probe.js';
import { errorData } from './protocol.js';

/**
 * Starts the service: `post(message, transfer)` sends to the page; returns `handle(message)`.
 * `sliceMs` is how long one chunk of training may take before the loop yields (a worker can take
 * tens of milliseconds; the page's own thread a few, so that it still paints every frame).
 * `scoresEvery`: head scores (512 fresh sequences, the cost of a few training steps) are measured
 * at every nth redraw while training, and whenever training stops.
 */
export function startService(post, { sliceMs = 40, scoresEvery = 1 } = {}) {
  let engine = null;
  let trainer = null;
  let initial = null; // the same model at step 0, for "random vs trained"
  let probe = null;
  let compare = false;
  let redraw = 10;
  let running = false;
  let until = 0;
  let msPerStep = 5;
  let redraws = 0;
  let lastScores = null;
  let initialView = null; // { key, layers, scores } of the step-0 model on this probe
  let examples = 0; // "another example" draws the next one

  const now = () => performance.now();
  const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

  // A trainer this service no longer uses is freed at once (its state lives in the engine).
  const replace = (old, next) => {
    if (old && old !== next && old !== trainer && old !== initial) old.dispose();
    return next;
  };

  // What the section draws now, from one view of the trainer (every layer's attention over the
  // probe, the predictions, the head scores). `dropped`: with dropout on, each layer's weights as
  // this step's training sees them (the step number seeds the mask, so each step shows a new draw).
  function view({ scores = true } = {}) {
    const tokens = Int32Array.from(probe);
    const now = trainer.view(tokens, { scores: scores || !lastScores });
    if (now.scores) lastScores = now.scores;
    const p = trainer.options.dropout;
    const dropped = p > 0 ? now.layers.map(({ layer, weights }) => ({ layer, weights: droppedOut(weights, p, (trainer.step * 31 + layer) >>> 0) })) : null;
    let start = null;
    if (compare) {
      const key = probe.join(' ');
      if (initialView?.key !== key) {
        const then = initial.view(tokens);
        initialView = { key, layers: then.layers, scores: then.scores };
      }
      start = { layers: initialView.layers, scores: initialView.scores };
    }
    const shape = { H: trainer.options.heads, T: trainer.task.T, C: trainer.options.width, causal: trainer.task.causal };
    post({ type: 'view', step: trainer.step, shape, layers: now.layers, dropped, predicted: now.predicted, scores: lastScores, initial: start, dropout: p });
  }

  function describe(fromCheckpoint, probeError = null) {
    return { type: 'opened', task: trainer.task, options: trainer.options, step: trainer.step, parameterCount: trainer.parameterCount, fromCheckpoint, probe, probeError };
  }

  // The probe as the page gave it (text from a URL or an attribute), checked against this task;
  // the task's example sequence when there is none or it does not fit (the error says why).
  function probeFrom(text) {
    const example = exampleProbe(trainer.task.name, trainer.task);
    if (text === null || text === undefined || String(text).trim() === '') return { tokens: example, error: null };
    const read = parseProbe(text, trainer.task);
    return read.error ? { tokens: example, error: read.error } : { tokens: read.tokens, error: null };
  }

  async function open({ options, checkpoint, training, probeText, redrawEvery, compare: withStart }) {
    redraw = redrawEvery ?? redraw;
    compare = Boolean(withStart);
    const previous = [trainer, initial];
    initial = engine.trainer(options);
    initialView = null;
    let fromCheckpoint = false;
    trainer = initial;
    let checkpointError = null;
    if (checkpoint) {
      try {
        let response;
        try {
          response = await fetch(checkpoint.url, { credentials: 'same-origin' });
        } catch (error) {
          throw new MhaLoadError('load.checkpoint', { url: checkpoint.url, detail: String(error?.message ?? error) });
        }
        if (!response.ok) throw new MhaLoadError('load.checkpoint', { url: checkpoint.url, detail: `HTTP ${response.status}` });
        trainer = engine.trainer({ checkpoint: new Uint8Array(await response.arrayBuffer()) });
        fromCheckpoint = true;
      } catch (error) {
        // A checkpoint that is missing or damaged: the same model from step 0, and the reason said,
        // so that Train, Reset and the options keep working.
        checkpointError = { ...errorData(error), field: 'checkpoint' };
        trainer = engine.trainer(options);
      }
    } else {
      trainer = engine.trainer(options);
    }
    for (const old of previous) replace(old, null);
    if (training) trainer.configure(training);
    const read = probeFrom(probeText);
    probe = read.tokens;
    lastScores = null;
    post({ ...describe(fromCheckpoint, read.error), checkpointError });
  }

  async function loop() {
    while (running && trainer.step < until) {
      const started = now();
      const nextRedraw = (Math.floor(trainer.step / redraw) + 1) * redraw;
      const steps = Math.max(1, Math.min(until - trainer.step, nextRedraw - trainer.step, Math.floor(sliceMs / msPerStep)));
      const result = trainer.train(steps);
      msPerStep = 0.7 * msPerStep + 0.3 * ((now() - started) / steps);
      post({ type: 'progress', step: result.step, running, loss: result.loss, accuracy: result.accuracy, losses: result.losses }, [result.losses.buffer]);
      if (result.step % redraw === 0 || result.step >= until) {
        redraws++;
        await pause(); // a pause pressed meanwhile still gets its view below
        if (!running) break;
        view({ scores: redraws % scoresEvery === 0 || result.step >= until });
      }
      await pause();
    }
    if (running && trainer.step >= until) {
      running = false;
      post({ type: 'done', step: trainer.step, running: false, evaluation: trainer.evaluate() });
    }
  }

  const handlers = {
    async init({ wasmModule, wasmUrl }) {
      engine = await createEngine({ trainer: true, wasmModule, wasmUrl, trainerGlue: await loadTrainerGlue() });
      post({ type: 'ready', messages: engine.messages });
    },
    async open(message) {
      running = false;
      await open(message);
      view();
    },
    configure({ training }) {
      trainer.configure(training);
      post({ type: 'configured', options: trainer.options });
      if (!running) view({ scores: false });
    },
    probe({ tokens }) {
      probe = tokens;
      if (!running) view({ scores: false });
    },
    example() {
      examples += 1;
      probe = exampleProbe(trainer.task.name, trainer.task, examples);
      post({ type: 'probe', tokens: probe });
      if (!running) view({ scores: false });
    },
    compare({ on }) {
      compare = on;
      if (!running) view({ scores: false });
    },
    train({ until: target }) {
      until = target;
      if (running) return;
      running = true;
      loop().catch(fail);
    },
    pause() {
      if (!running) return;
      running = false;
      post({ type: 'paused', step: trainer.step, running: false });
      view();
    },
    step() {
      running = false;
      const result = trainer.train(1);
      post({ type: 'progress', step: result.step, running: false, loss: result.loss, accuracy: result.accuracy, losses: result.losses }, [result.losses.buffer]);
      view();
    },
    reset() {
      running = false;
      const { lr, dropout } = trainer.options; // as the learner last set them
      const old = trainer;
      trainer = engine.trainer({ ...initial.options, lr, dropout });
      replace(old, null);
      lastScores = null;
      post(describe(false));
      view();
    },
    block({ id, layer, tokens }) {
      const run = trainer.run(Int32Array.from(tokens ?? probe), { layer }).toTransfer();
      post({ type: 'block', id, step: trainer.step, run });
    },
  };

  function fail(error, id) {
    running = false;
    post({ type: 'error', id, error: errorData(error) });
  }

  // One message at a time, in order: an open that awaits its checkpoint finishes before the probe
  // sent after it is drawn.
  let queue = Promise.resolve();
  return (message) => {
    queue = queue.then(async () => {
      try {
        if (!handlers[message?.type]) throw new Error(`unknown message ${message?.type}`);
        if (message.type !== 'init' && !engine) throw new Error('the trainer is not ready');
        await handlers[message.type](message);
      } catch (error) {
        fail(error, message?.id);
      }
    });
    return queue;
  };
}
