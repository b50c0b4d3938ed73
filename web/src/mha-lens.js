// The embeddable bundle's entry (scripts/build.sh bundles it into web/dist/mha-lens.js): defines
// <mha-walkthrough>, <mha-heatmap>, <mha-shapes> and <mha-playground>, and looks for the .wasm
// next to the bundle, wherever the host page lives. A host can point elsewhere with a `wasm-url`
// attribute or <meta name="mha-lens:wasm-url" content="…">.
import './bundle-wasm-url.js';

export * from './elements/index.js';
