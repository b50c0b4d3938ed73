#!/usr/bin/env bash
# Installs what mha-lens needs on a fresh Debian 12 machine, and nothing that is already there.
# Used by `npm start` and `npm test` (through scripts/build.sh), and safe to run again.
#   scripts/setup.sh            toolchain for building and testing (emscripten, xtensor, doctest, chromium)
#   scripts/setup.sh --fixtures also python3-torch, for scripts/make_fixtures.py
#   scripts/setup.sh --fuzz     also clang and libclang-rt-14-dev (libFuzzer), for scripts/fuzz.sh
#   scripts/setup.sh --bench    also python3-onnx, for scripts/bench/make_onnx.py (the committed
#                               .onnx graphs of npm run bench)
set -euo pipefail
cd "$(dirname "$0")/.."

want_fixtures=0
want_fuzz=0
want_bench=0
for arg in "$@"; do
  [ "$arg" = "--bench" ] && want_bench=1
  [ "$arg" = "--fixtures" ] && want_fixtures=1
  [ "$arg" = "--fuzz" ] && want_fuzz=1
done

# Debian package -> a file it installs, so the check costs no dpkg query per package.
declare -A probe=(
  [emscripten]=/usr/bin/emcc
  [xtensor-dev]=/usr/include/xtensor/xtensor.hpp
  [xtl-dev]=/usr/include/xtl/xtl_config.hpp
  [doctest-dev]=/usr/include/doctest/doctest.h
  [chromium]=/usr/bin/chromium
  # A CJK font, so that the browser tests' screenshots of the Chinese page show characters.
  [fonts-wqy-microhei]=/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [make]=/usr/bin/make
  [nlohmann-json3-dev]=/usr/include/nlohmann/json.hpp
)
[ $want_fixtures = 1 ] && probe[python3-torch]=/usr/lib/python3/dist-packages/torch/__init__.py
[ $want_bench = 1 ] && probe[python3-onnx]=/usr/lib/python3/dist-packages/onnx/__init__.py
if [ $want_fuzz = 1 ]; then
  probe[clang]=/usr/bin/clang++
  probe[libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
fi

missing=()
for pkg in "${!probe[@]}"; do
  [ -e "${probe[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages: reinstall only when the lock file changed since the last install. A git worktree
# that links node_modules to another checkout's leaves them to that checkout: npm ci would empty
# the linked folder for every worktree sharing it (its lock file, checked out later, always looks
# newer than the install).
if [ -L node_modules ]; then
  echo "setup: node_modules is a link to $(readlink node_modules): npm packages left as they are"
elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
