// The trainer's glue for the worker, imported and not looked up: a worker that bundlers build as
// one file (Vite's default worker format cannot split) holds it, and the engine uses it instead of
// importing it. The worker of web/dist/ loads it beside itself instead (scripts/bundle_worker.js),
// when its first message comes: a module's top-level await would let that message pass unheard.
import * as glue from '../../dist/mha_trainer.mjs';

/** The trainer's glue module: { default: factory, defaultWasmUrl }. */
export const loadTrainerGlue = async () => glue;
