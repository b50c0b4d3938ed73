#!/usr/bin/env node
// Bundles the widgets into the one ES module web/dist/mha-lens.js, beside the .wasm files, the
// trainer's glue and worker, and the checkpoints it loads. web/src/engine/assets.js names those
// files so that a consumer's bundler emits them; here they already sit beside the bundle, so
// assets-beside.js takes its place and loads them by URL (never bundled in: a page that does not
// train downloads none of the trainer). No node:* import may reach what a browser loads: the
// build fails if one creeps in (no --external).
import { build } from 'esbuild';

/** The esbuild plugin that puts assets-beside.js in the place of assets.js. */
export const assetsBeside = {
  name: 'assets-beside',
  setup(builder) {
    builder.onResolve({ filter: /\/assets\.js$/ }, (args) => ({ path: new URL('../web/src/engine/assets-beside.js', import.meta.url).pathname, pluginData: args }));
  },
};

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  await build({
    entryPoints: [new URL('../web/src/mha-lens.js', import.meta.url).pathname],
    outfile: new URL('../web/dist/mha-lens.js', import.meta.url).pathname,
    bundle: true,
    format: 'esm',
    minify: true,
    platform: 'browser',
    logLevel: 'warning',
    plugins: [assetsBeside],
  });
}
