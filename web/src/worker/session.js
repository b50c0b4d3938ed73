// Where <mha-trainer>'s training runs: a Web Worker (mha-trainer-worker.js, loaded from a file
// beside this module — beside the bundle once built — so a host's CSP needs only worker-src 'self'),
// or, when no worker can start (a CSP that refuses it, an old browser, worker="none"), the same
// service on the page's own thread in short slices. The trainer's .wasm is fetched and compiled
// once on the page (the shared engine may already have it) and handed to the worker.
import { compileEngine } from '../engine/engine.js';
import { importTrainerService } from '../engine/assets.js';
import { errorFrom } from './protocol.js';
const START_TIMEOUT_MS = 20000;

// On the page's thread a slice of training must leave room for the frame: a few milliseconds,
// and head scores (a few steps' cost) at every fifth redraw only.
const PAGE_SLICE = { sliceMs: 8, scoresEvery: 5 };

/**
 * A running trainer service. Events (EventTarget): 'message' with `detail` each message the
 * service sends (opened, progress, view, paused, done, configured, block, error). `mode` is
 * 'worker' or 'page'; `fallback` says why the page's thread is used ('refused': the worker did
 * not start, 'asked': worker="none").
 */
export class TrainerSession extends EventTarget {
  #worker = null;
  #handle = null;
  #requests = new Map();
  #nextId = 1;
  mode = null;
  fallback = null;
  messages = null;
  /** The trainer's .wasm URL: its checkpoints/ folder sits beside it. */
  wasmUrl = null;
  /** True when the page said where the .wasm is (its checkpoints are then beside it too). */
  givenWasmUrl = false;

  /**
   * Starts the service: resolves once it is ready, rejects with the load error (an MhaLoadError
   * from compiling the .wasm, or the service's own error data) when the trainer cannot run at all.
   */
  async start({ wasmUrl, worker = true } = {}) {
    const { url, given, module } = await compileEngine({ trainer: true, wasmUrl });
    this.wasmUrl = url;
    this.givenWasmUrl = given;
    if (worker && typeof Worker !== 'undefined') {
      const started = await this.#startWorker(module, url);
      if (started) return this;
      this.fallback = 'refused';
    } else {
      this.fallback = 'asked';
    }
    await this.#startOnPage(module, url);
    return this;
  }

  // Resolves true once the worker answers `ready`, false if it could not start (its script refused
  // or failed to load: an error event before any answer, or no answer at all).
  #startWorker(module, url) {
    let worker;
    try {
      // Written out in full: Vite, webpack and Rspack build and emit the worker only for this literal form.
      worker = new Worker(new URL('./mha-trainer-worker.js', import.meta.url), { type: 'module' });
    } catch {
      return Promise.resolve(false);
    }
    return new Promise((resolve, reject) => {
      let answered = false;
      const timer = setTimeout(() => { if (!answered) give(false); }, START_TIMEOUT_MS);
      const give = (started) => {
        clearTimeout(timer);
        worker.removeEventListener('error', onError);
        if (!started) worker.terminate();
        resolve(started);
      };
      const onError = (event) => {
        event.preventDefault?.();
        if (!answered) give(false);
      };
      worker.addEventListener('error', onError);
      worker.addEventListener('message', (event) => {
        const message = event.data;
        if (!answered) {
          answered = true;
          if (message.type === 'ready') {
            this.#worker = worker;
            this.mode = 'worker';
            this.messages = message.messages;
            give(true);
          } else {
            clearTimeout(timer);
            worker.terminate();
            reject(message.error);
          }
          return;
        }
        this.#receive(message);
      });
      worker.postMessage({ type: 'init', wasmModule: module, wasmUrl: url });
    });
  }

  async #startOnPage(module, url) {
    // A chunk of its own (assets.js): only a page whose worker did not start loads it.
    const service = await importTrainerService();
    const ready = new Promise((resolve, reject) => {
      this.#handle = service.startService((message) => {
        // Delivered in a task of its own, as a worker's message would be.
        setTimeout(() => {
          if (message.type === 'ready') resolve(message);
          else if (!this.mode && message.type === 'error') reject(message.error);
          else this.#receive(message);
        }, 0);
      }, PAGE_SLICE);
    });
    this.#handle({ type: 'init', wasmModule: module, wasmUrl: url });
    const { messages } = await ready;
    this.mode = 'page';
    this.messages = messages;
  }

  /** Sends a message to the service. */
  send(message) {
    if (this.#worker) this.#worker.postMessage(message);
    else this.#handle?.(structuredClone(message));
  }

  /** Sends a message that the service answers with one of `type` (or an error): resolves to it. */
  request(message) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#requests.set(id, { resolve, reject });
      this.send({ ...message, id });
    });
  }

  #receive(message) {
    const waiting = message.id === undefined ? null : this.#requests.get(message.id);
    if (waiting) {
      this.#requests.delete(message.id);
      if (message.type === 'error') waiting.reject(errorFrom(message.error, this.messages));  // an Error that says itself, not plain data
      else waiting.resolve(message);
      return;
    }
    this.dispatchEvent(new CustomEvent('message', { detail: message }));
  }

  /** Stops the service (the worker is terminated; on the page, training stops). */
  close() {
    if (this.#worker) this.#worker.terminate();
    else this.#handle?.({ type: 'pause' });
    this.#worker = null;
    this.#handle = null;
    for (const { reject } of this.#requests.values()) reject(errorFrom({ kind: 'internal', message: 'closed' }, this.messages));
    this.#requests.clear();
  }
}
