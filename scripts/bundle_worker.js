#!/usr/bin/env node
// Bundles the trainer section's Web Worker (web/src/worker/mha-trainer-worker.js) into
// web/dist/mha-trainer-worker.js, beside the widget bundle that starts it. The worker runs only
// the engine with the trainer, whose glue (mha_trainer.mjs) it imports beside the trainer's .wasm
// at run time; engine.js also imports the plain engine's glue (mha_engine.mjs) for createEngine()
// without the trainer, which the worker never calls. That glue is replaced here by its last lines
// (where its .wasm is: cpp/bindings/wasm_url.js) and a factory that says it is not there: 10 KB
// gzipped less for every page that trains.
import { build } from 'esbuild';
import { assetsBeside } from './bundle_widgets.js';

const ENGINE_GLUE = /mha_engine\.mjs$/;

const noPlainEngine = {
  name: 'no-plain-engine',
  setup(builder) {
    builder.onResolve({ filter: ENGINE_GLUE }, () => ({ path: 'mha_engine.mjs', namespace: 'worker-stub' }));
    builder.onLoad({ filter: /.*/, namespace: 'worker-stub' }, () => ({
      contents: `export default function createMhaModule() { throw new Error('the trainer worker runs mha_trainer.wasm only'); }
export const defaultWasmUrl = () => new URL('./mha_engine.wasm', import.meta.url).href;`,
      loader: 'js',
    }));
  },
};

// The trainer's glue stays a file of its own beside the worker (the page's bundle loads it too).
const trainerGlueBeside = {
  name: 'trainer-glue-beside',
  setup(builder) {
    builder.onResolve({ filter: /trainer-glue\.js$/ }, () => ({ path: 'trainer-glue.js', namespace: 'trainer-glue' }));
    builder.onLoad({ filter: /.*/, namespace: 'trainer-glue' }, () => ({
      contents: "export const loadTrainerGlue = () => import(new URL('./mha_trainer.mjs', import.meta.url).href);",
      loader: 'js',
    }));
  },
};

await build({
  // The worker, and the service it runs as this module's export: a page whose worker did not start
  // imports this same file and runs the service on its own thread (assets-beside.js).
  stdin: {
    contents: "import './mha-trainer-worker.js';\nexport { startService } from './trainer-service.js';",
    resolveDir: new URL('../web/src/worker/', import.meta.url).pathname,
    loader: 'js',
  },
  outfile: new URL('../web/dist/mha-trainer-worker.js', import.meta.url).pathname,
  bundle: true,
  format: 'esm',
  minify: true,
  platform: 'browser',
  logLevel: 'warning',
  plugins: [noPlainEngine, trainerGlueBeside, assetsBeside],
});
