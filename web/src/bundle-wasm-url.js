// Evaluated before the elements are defined (and start loading the engine): in the bundle,
// import.meta.url is the bundle's own URL, so the .wasm is looked for beside it.
import { setDefaultWasmUrl } from './elements/page-engine.js';

setDefaultWasmUrl(new URL('./mha_engine.wasm', import.meta.url).href);
