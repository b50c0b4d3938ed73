#!/usr/bin/env bash
# Every test: doctest natively and under Node (through ctest), then node:test for the JS API,
# the CLI and the page (every *.test.js under tests/). `npm test` runs scripts/setup.sh and scripts/build.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== doctest, native"
ctest --test-dir build/native --output-on-failure
echo "== doctest, WebAssembly under Node"
ctest --test-dir build/wasm --output-on-failure
echo "== node:test (JS API, CLI, and the page in headless Chromium)"
node --test tests/
