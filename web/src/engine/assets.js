// Where the files the JS loads at run time are, written so that every bundler sees them: the
// trainer's glue as a dynamic import of a literal path (Vite, webpack, Rspack, Rollup and esbuild
// with splitting put it in a chunk of its own, loaded only by a page that trains; its last line,
// new URL('./mha_trainer.wasm', import.meta.url), makes them emit the .wasm), the checkpoints as
// new URL('literal', import.meta.url) in web/dist/checkpoint-urls.mjs (each emitted as a file),
// and the trainer's worker code for the page's own thread as a literal dynamic import. The engine's own .wasm is named the same way
// inside its glue (cpp/bindings/wasm_url.js). The one-file bundle web/dist/mha-lens.js, which
// sits beside these files, is built with assets-beside.js in this module's place
// (scripts/bundle_widgets.js).

import { CHECKPOINT_URLS } from '../../dist/checkpoint-urls.mjs';

/** The trainer's Emscripten glue module: { default: factory, defaultWasmUrl }. */
export const importTrainerGlue = () => import('../../dist/mha_trainer.mjs');

/** The trainer service (worker/trainer-service.js), for the page's thread when no worker starts. */
export const importTrainerService = () => import('../worker/trainer-service.js');

/** The URL of checkpoint `file` as the bundler emitted it (null for a file it does not know). */
export const checkpointUrl = (file) => CHECKPOINT_URLS[file]?.() ?? null;
