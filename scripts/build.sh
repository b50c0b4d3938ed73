#!/usr/bin/env bash
# Builds the engine natively (for the doctest suite) and as WebAssembly (web/dist/ and the wasm
# doctest suite). Incremental: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"

# Debian's emcc needs Debian's acorn, which lives outside node's default search path.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j"$jobs"
# The glue without the one import.meta.url that webpack would bake the build machine's path from.
node scripts/patch_glue.js

# The checkpoints the trainer section and the language model open with (scripts/make_checkpoints.js,
# scripts/lm/make_checkpoints.js), and the language model's corpora (scripts/lm/make_corpora.js),
# beside the trainer: the JS API finds them from its .wasm's URL.
mkdir -p web/dist/checkpoints web/dist/corpora
cp web/checkpoints/*.mhat web/checkpoints/*.json web/dist/checkpoints/
cp -R web/corpora/. web/dist/corpora/
cp web/checkpoints/checkpoint-urls.mjs web/dist/checkpoint-urls.mjs
# The stylesheet that sizes the elements before they are defined, beside the bundle for a page that copies dist/.
cp web/widgets.css web/dist/widgets.css

# The formulas as MathML, rendered by KaTeX now rather than in every reader's browser.
node scripts/render_formulas.js

# The embeddable widgets as one ES module next to the .wasm it loads (web/dist/mha-lens.js). No
# --external: what a browser loads holds no node:* import, and this build fails if one creeps in.
node scripts/bundle_widgets.js

# The trainer section's Web Worker, a file beside the bundle: the bundle starts it as
# new Worker(new URL('./mha-trainer-worker.js', import.meta.url)), which a host's CSP allows with
# worker-src 'self' (a blob: worker would need worker-src blob:). It imports mha_trainer.mjs beside
# the trainer's .wasm at run time, as the bundle does (scripts/bundle_worker.js says what it leaves out).
node scripts/bundle_worker.js


# The iframe route's script (embed.html loads dist/embed.js): one file beside the widget bundle,
# which it imports as ./mha-lens.js, so copying embed.html, embed.css and dist/ is enough.
node_modules/.bin/esbuild web/src/embed.js --bundle --format=esm --minify --platform=browser \
  --external:./mha-lens.js --log-level=warning --outfile=web/dist/embed.js
