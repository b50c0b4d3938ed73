// The page's one engine, shared by every mha-lens element: loaded when the first element asks for
// it, once. A load that fails is not kept, and says why in the reader's language (PageError).
import { createEngine } from '../engine/engine.js';
import { PageError } from '../text/page-error.js';

let enginePromise = null;
const WASM_PROTOCOLS = ['http:', 'https:', 'file:', 'blob:'];
let defaultWasmUrl;

/** Where the .wasm is when nothing on the page says otherwise (the bundle sets: next to itself). */
export function setDefaultWasmUrl(url) {
  defaultWasmUrl = url;
}

/**
 * The page's one engine; the .wasm is fetched when the first element asks for it. Its URL: the
 * first element's `wasm-url` attribute, else <meta name="mha-lens:wasm-url" content="…">, else
 * next to the bundle (or to dist/mha_engine.mjs when the modules are used unbundled).
 */
export function getEngine({ wasmUrl } = {}) {
  const meta = typeof document !== 'undefined' ? document.querySelector('meta[name="mha-lens:wasm-url"]')?.content : undefined;
  const url = wasmUrl || meta || defaultWasmUrl;
  if (!enginePromise) {
    enginePromise = (async () => {
      // Only a place a .wasm can be fetched from: a javascript: or data: URL is refused here, not
      // handed to fetch (where the page's CSP would have to block it).
      if (url && typeof document !== 'undefined' && !WASM_PROTOCOLS.includes(new URL(url, document.baseURI).protocol)) {
        throw new PageError({ code: 'bad_value', field: 'wasm-url', key: 'error.wasm_url', params: { url } });
      }
      return createEngine(url ? { wasmUrl: url } : {});
    })();
    // A failed load is not kept: the next element asks again (with its own wasm-url).
    enginePromise.catch(() => { enginePromise = null; });
  }
  return enginePromise;
}

/** The engine did not load (no .wasm at its URL, a refused wasm-url, …): an error the page shows. */
export const engineLoadError = (cause) => new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause });
