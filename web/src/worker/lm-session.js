// Where <mha-lm>'s language model runs: mha-lm-worker.js in a Web Worker (a file beside this
// module, beside the bundle once built), or on the page's own thread when no worker can start —
// the trainer section's session (session.js) with the language model's service.
import { TrainerSession } from './session.js';

/** A started session of the language model's service (see session.js for its events and mode). */
export async function startLmSession({ wasmUrl, worker = true } = {}) {
  const session = new TrainerSession();
  await session.start({
    wasmUrl,
    worker,
    // Written out in full: bundlers build and emit a worker only for this literal form.
    makeWorker: () => new Worker(new URL('./mha-lm-worker.js', import.meta.url), { type: 'module' }),
    // Not a literal import: a bundler must not pull the model's engine into the widget bundle.
    importService: () => import(/* @vite-ignore */ new URL('./mha-lm-worker.js', import.meta.url).href),
  });
  return session;
}
