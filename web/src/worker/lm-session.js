// Where <mha-lm>'s language model runs: mha-lm-worker.js in a Web Worker (a file beside this
// module, beside the bundle once built), or on the page's own thread when no worker can start —
// the trainer section's session (session.js) with the language model's service.
import { TrainerSession } from './session.js';

const LM_WORKER_URL = new URL('./mha-lm-worker.js', import.meta.url);

/** A started session of the language model's service (see session.js for its events and mode). */
export async function startLmSession({ wasmUrl, worker = true } = {}) {
  const session = new TrainerSession();
  await session.start({ wasmUrl, worker, workerUrl: LM_WORKER_URL });
  return session;
}
