// assets.js for the one-file bundles of web/dist/ (scripts/bundle_widgets.js and
// bundle_worker.js put this module in its place): the trainer's glue, its worker and the
// checkpoints are files beside the bundle, loaded by URL at run time and never bundled into it.
// The comments keep a bundler that bundles this bundle again (webpack, Vite) from trying to.

export const importTrainerGlue = () => import(/* webpackIgnore: true */ /* @vite-ignore */ new URL('./mha_trainer.mjs', import.meta.url).href);

export const importTrainerService = () => import(/* webpackIgnore: true */ /* @vite-ignore */ new URL('./mha-trainer-worker.js', import.meta.url).href);

export const checkpointUrl = (file) => new URL(`./checkpoints/${file}`, import.meta.url).href;
