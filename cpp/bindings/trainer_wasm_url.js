// Appended to the trainer's Emscripten glue (web/dist/mha_trainer.mjs) by CMakeLists.txt
// (--extern-post-js), as wasm_url.js is to the engine's: its .wasm beside it, in a form bundlers follow.
export const defaultWasmUrl = () => new URL('./mha_trainer.wasm', import.meta.url).href;
