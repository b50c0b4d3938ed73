// The page's one engine, shared by every mha-lens element and by code that imports getEngine from
// 'mha-lens' (engine.js keeps it): loaded when the first element asks for it, from that element's
// wasm-url, the page's <meta name="mha-lens:wasm-url"> or beside the engine's JS. A load that fails
// is not kept, and says why (the URL tried, and the fix) in the reader's language.
//
// A page that trains (it holds an <mha-trainer>) loads the engine with the trainer instead: it runs
// everything the engine alone runs, and the trainer's worker gets the same compiled .wasm, so the
// page fetches one .wasm, not both. Its .wasm is found by the trainer's rule (<meta
// name="mha-lens:trainer-wasm-url">, else beside the engine's), not by an element's wasm-url.
import { getEngine as sharedEngine } from '../../engine/engine.js';
import { PageError } from '../../text/page-error.js';

const pageTrains = () => typeof document !== 'undefined' && document.querySelector('mha-trainer') !== null;

/** The page's one engine (see above); `options` as createEngine's. */
export function getEngine(options = {}) {
  return sharedEngine(pageTrains() ? { trainer: true } : options);
}

/** The engine did not load (no .wasm at its URL, a refused wasm-url, …): an error the page shows. */
export const engineLoadError = (cause) => new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause });
