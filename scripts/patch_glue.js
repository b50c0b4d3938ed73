#!/usr/bin/env node
// The Emscripten glue (web/dist/mha_engine.mjs, mha_trainer.mjs) opens with
// `var _scriptDir = import.meta.url;`, which webpack and Rspack replace by the file:// path of the
// build machine's copy, baked into every site's bundle. The glue never needs it: the engine hands
// it the compiled module (instantiateWasm), and its .wasm is named by new URL('…', import.meta.url),
// which bundlers rewrite to the file they emit. Idempotent: scripts/build.sh runs it after linking.
import { readFileSync, writeFileSync } from 'node:fs';

const SCRIPT_DIR = 'var _scriptDir = import.meta.url;';
for (const name of ['mha_engine.mjs', 'mha_trainer.mjs']) {
  const url = new URL(`../web/dist/${name}`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  if (text.includes(SCRIPT_DIR)) writeFileSync(url, text.replace(SCRIPT_DIR, 'var _scriptDir = undefined; // not import.meta.url: scripts/patch_glue.js'));
}
