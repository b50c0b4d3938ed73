
// Appended to the Emscripten glue (web/dist/mha_engine.mjs) by CMakeLists.txt (--extern-post-js).
// Where the .wasm is when nothing says otherwise: beside the JS that holds this glue. Written as
// `new URL('./…', import.meta.url)` with a literal name, which Vite and webpack recognise and
// rewrite to the asset they emit; esbuild leaves it, so it means "beside the bundle".
export const defaultWasmUrl = () => new URL('./mha_engine.wasm', import.meta.url).href;
