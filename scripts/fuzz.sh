#!/usr/bin/env bash
# Fuzzes what turns outside input into a config (tests/fuzz/fuzz_config.cpp) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer, for a number of seconds (default 600).
#   scripts/fuzz.sh [seconds]
# Needs Debian's clang and libclang-rt-14-dev: scripts/setup.sh --fuzz installs them.
# The build is a standalone clang++ command in build/fuzz/, apart from the CMake build (which uses
# g++ and must not grow clang-only targets). New inputs go to build/fuzz/corpus/, crashes to
# build/fuzz/crash-*; the committed seeds in tests/fuzz/corpus/ are only read.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
out=build/fuzz
mkdir -p "$out/corpus"

# Every engine source, so that a new file in cpp/src/ is fuzzed without editing this script.
sources=(cpp/src/*.cpp tests/fuzz/fuzz_config.cpp)
# The engine's tables from cpp/data/, as the CMake build generates them.
node scripts/generate.js --cpp "$out/generated"
# -ffp-contract=off as in the main build, so the fuzzed arithmetic is the shipped arithmetic;
# -fno-sanitize-recover=all so that the first UB report stops the run with its input saved.
clang++ -std=c++17 -O1 -g -ffp-contract=off -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -Icpp/include -I"$out/generated" "${sources[@]}" -o "$out/fuzz_config"

# One job (the machine has 2 cores, shared): -fork=1 runs the fuzzing in one child process and,
# with -ignore_crashes, keeps going after a finding so that one run reports them all.
# -timeout catches hangs; -rss_limit_mb huge allocations.
cd "$out"
rm -f crash-* timeout-* oom-* leak-*
set +e
./fuzz_config -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix=./ corpus ../../tests/fuzz/corpus 2>&1 | tee fuzz.log
set -e
findings=$(ls crash-* timeout-* oom-* leak-* 2>/dev/null || true)
# The last status line of fork mode: "#<executions>: cov: ... corp: ... exec/s ... oom/timeout/crash: ...".
echo "fuzz: ${seconds} s, at the end: $(grep -E '^#[0-9]+: ' fuzz.log | tail -1)"
if [ -n "$findings" ]; then
  echo "fuzz: findings in $out: $findings (replay one: $out/fuzz_config $out/<file>)"
  exit 1
fi
echo "fuzz: no findings"
