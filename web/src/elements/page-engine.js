// The page's one engine, shared by every mha-lens element and by code that imports getEngine from
// 'mha-lens' (engine.js keeps it): loaded when the first element asks for it, from that element's
// wasm-url, the page's <meta name="mha-lens:wasm-url"> or beside the engine's JS. A load that fails
// is not kept, and says why (the URL tried, and the fix) in the reader's language.
import { PageError } from '../text/page-error.js';

export { getEngine } from '../engine/engine.js';

/** The engine did not load (no .wasm at its URL, a refused wasm-url, …): an error the page shows. */
export const engineLoadError = (cause) => new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause });
