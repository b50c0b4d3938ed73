// Where each task's committed checkpoint is, as new URL('./checkpoints/…', import.meta.url) with a
// literal name: Vite, webpack, Rspack and Rollup emit each file, and a bundler that leaves the URL
// alone (esbuild) means "checkpoints/ beside the bundle". Copied by scripts/build.sh to
// web/dist/checkpoint-urls.mjs, beside web/dist/checkpoints/, where these URLs are right.
export const CHECKPOINT_URLS = {
  'reverse.mhat': () => new URL('./checkpoints/reverse.mhat', import.meta.url).href,
  'sort.mhat': () => new URL('./checkpoints/sort.mhat', import.meta.url).href,
  'previous.mhat': () => new URL('./checkpoints/previous.mhat', import.meta.url).href,
  'induction.mhat': () => new URL('./checkpoints/induction.mhat', import.meta.url).href,
};
