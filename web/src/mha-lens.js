// The embeddable bundle's entry (scripts/build.sh bundles it into web/dist/mha-lens.js): defines
// <mha-walkthrough>, <mha-heatmap>, <mha-shapes> and <mha-playground>, and looks for the .wasm
// next to the bundle, wherever the host page lives. A host can point elsewhere with a `wasm-url`
// attribute or <meta name="mha-lens:wasm-url" content="…">.
import { setDefaultWasmUrl } from './elements/shared.js';

setDefaultWasmUrl(new URL('./mha_engine.wasm', import.meta.url).href);

export * from './elements/index.js';
