// The trainer section's engine side: one trainer, its training loop, and what the section draws
// (each layer's attention over the probe, predictions, head scores). It runs in a Web Worker —
// session.js starts it as new Worker(new URL('./mha-trainer-worker.js', import.meta.url), { type:
// 'module' }), a file beside the widget bundle in web/dist/, so a host's CSP needs no more than
// worker-src 'self' — and, when no worker can start, on the page's own thread in short slices
// (session.js imports this module and calls startService). The messages are the same both ways.
//
// From the page: init, open, configure, probe, example, compare, train, pause, step, reset, block.
// To the page: ready, opened, configured, probe, progress, view, paused, done, block, error.
import { createEngine, MhaError, MhaLoadError } from '../engine/engine.js';
import { droppedOut } from '../logic/training/heads.js';
import { exampleProbe, parseProbe } from '../logic/training/probe.js';
import { isScoresSized } from '../catalogue/steps.js';

// The four [B, H, Tq, Tk] steps of a layer's block that a heatmap shows (scores … weights).
const HEATMAP_STEPS = new Set(['scores', 'scaled', 'masked', 'weights']);

/** An error as plain data the page renders in its language (MhaError, MhaLoadError or other). */
function errorData(error) {
  if (error instanceof MhaError || error instanceof MhaLoadError) {
    return { kind: error instanceof MhaLoadError ? 'load' : 'engine', code: error.code, key: error.key, field: error.field, params: error.params, message: error.message };
  }
  return { kind: 'internal', message: String(error?.message ?? error) };
}

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

  function layerRuns(model, tokens) {
    const layers = [];
    for (let layer = 0; layer < model.options.layers; layer++) {
      const run = model.run(tokens, { layer });
      layers.push({ layer, summary: run.summary, steps: run.steps.filter((step) => HEATMAP_STEPS.has(step.id) && isScoresSized(step)) });
    }
    return layers;
  }

  // What the section draws now. `dropped`: with dropout on, each layer's weights as this step's
  // training sees them (the step number seeds the mask, so each step shows a new draw).
  function view({ scores = true } = {}) {
    const tokens = Int32Array.from(probe);
    const layers = layerRuns(trainer, tokens);
    if (scores || !lastScores) lastScores = trainer.headScores();
    const p = trainer.options.dropout;
    const dropped = p > 0 ? layers.map(({ layer, steps }) => ({ layer, weights: droppedOut(steps.find((s) => s.id === 'weights').data, p, (trainer.step * 31 + layer) >>> 0) })) : null;
    let start = null;
    if (compare) {
      const key = probe.join(' ');
      if (initialView?.key !== key) initialView = { key, layers: layerRuns(initial, tokens), scores: initial.headScores() };
      start = { layers: initialView.layers, scores: initialView.scores };
    }
    post({ type: 'view', step: trainer.step, layers, dropped, predicted: trainer.predict(tokens), scores: lastScores, initial: start, dropout: p });
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
    initial = engine.trainer(options);
    initialView = null;
    let fromCheckpoint = false;
    trainer = initial;
    if (checkpoint) {
      const response = await fetch(checkpoint.url, { credentials: 'same-origin' });
      if (!response.ok) throw new MhaLoadError('load.http', { url: checkpoint.url, status: response.status });
      trainer = engine.trainer({ checkpoint: new Uint8Array(await response.arrayBuffer()) });
      fromCheckpoint = true;
    } else {
      trainer = engine.trainer(options);
    }
    if (training) trainer.configure(training);
    const read = probeFrom(probeText);
    probe = read.tokens;
    lastScores = null;
    post(describe(fromCheckpoint, read.error));
  }

  async function loop() {
    while (running && trainer.step < until) {
      const started = now();
      const nextRedraw = (Math.floor(trainer.step / redraw) + 1) * redraw;
      const steps = Math.max(1, Math.min(until - trainer.step, nextRedraw - trainer.step, Math.floor(sliceMs / msPerStep)));
      const result = trainer.train(steps);
      msPerStep = 0.7 * msPerStep + 0.3 * ((now() - started) / steps);
      post({ type: 'progress', step: result.step, loss: result.loss, accuracy: result.accuracy, losses: result.losses }, [result.losses.buffer]);
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
      post({ type: 'done', step: trainer.step, evaluation: trainer.evaluate() });
    }
  }

  const handlers = {
    async init({ wasmModule, wasmUrl }) {
      engine = await createEngine({ trainer: true, wasmModule, wasmUrl });
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
      post({ type: 'paused', step: trainer.step });
      view();
    },
    step() {
      running = false;
      const result = trainer.train(1);
      post({ type: 'progress', step: result.step, loss: result.loss, accuracy: result.accuracy, losses: result.losses }, [result.losses.buffer]);
      view();
    },
    reset() {
      running = false;
      const { lr, dropout } = trainer.options; // as the learner last set them
      trainer = engine.trainer({ ...initial.options, lr, dropout });
      lastScores = null;
      post(describe(false));
      view();
    },
    block({ id, layer, tokens }) {
      const run = trainer.run(Int32Array.from(tokens ?? probe), { layer });
      const { steps, summary, output, weights, gradients } = run;
      post({ type: 'block', id, step: trainer.step, trace: { steps, summary, output, weights, gradients } });
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

// In a worker: answer the page's messages. Imported on the page's thread, it only exports.
if (typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope) {
  const handle = startService((message, transfer) => globalThis.postMessage(message, transfer ?? []));
  globalThis.addEventListener('message', (event) => handle(event.data));
}
