// The widgets' entry: `import 'mha-lens/widgets'` (package.json) and the one-file bundle
// web/dist/mha-lens.js (scripts/build.sh). Defines <mha-walkthrough>, <mha-heatmap>, <mha-shapes>
// and <mha-playground> where custom elements exist (in Node, for server-side rendering, importing
// it defines nothing and throws nothing). The .wasm is found by one rule (engine.js): a wasm-url
// attribute, else <meta name="mha-lens:wasm-url" content="…">, else beside the engine's JS, which
// in the bundle is beside the bundle.
export * from './elements/index.js';
