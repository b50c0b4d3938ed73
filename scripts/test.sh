#!/usr/bin/env bash
# Every test: doctest natively and under Node (through ctest), then node:test for the JS API,
# the CLI and the page. `npm test` runs scripts/setup.sh and scripts/build.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== doctest, native"
ctest --test-dir build/native --output-on-failure
echo "== doctest, WebAssembly under Node"
ctest --test-dir build/wasm --output-on-failure
echo "== node:test"
node --test tests/js/
