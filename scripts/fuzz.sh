#!/usr/bin/env bash
# Fuzzes what turns outside input into a config (tests/fuzz/fuzz_config.cpp) and into a trainer
# (checkpoint bytes and training options, tests/fuzz/fuzz_trainer.cpp) with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer, for a number of seconds (default 600, shared by
# the two targets; name one to fuzz only it).
#   scripts/fuzz.sh [seconds] [config|trainer]
# Needs Debian's clang and libclang-rt-14-dev: scripts/setup.sh --fuzz installs them.
# The build is a standalone clang++ command in build/fuzz/, apart from the CMake build (which uses
# g++ and must not grow clang-only targets). New inputs go to build/fuzz/corpus/, crashes to
# build/fuzz/crash-*; the committed seeds in tests/fuzz/corpus/ are only read.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
only=${2:-}
out=build/fuzz
mkdir -p "$out/corpus" "$out/corpus_trainer"

# Every engine source, so that a new file in cpp/src/ is fuzzed without editing this script.
engine_sources=(cpp/src/*.cpp)
# The engine's tables from cpp/data/, as the CMake build generates them.
node scripts/generate.js --cpp "$out/generated"
# -ffp-contract=off as in the main build, so the fuzzed arithmetic is the shipped arithmetic;
# -fno-sanitize-recover=all so that the first UB report stops the run with its input saved.
build() {
  clang++ -std=c++17 -O1 -g -ffp-contract=off -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Icpp/include -I"$out/generated" "$@"
}
targets=()
[ "$only" != trainer ] && targets+=(config)
[ "$only" != config ] && targets+=(trainer)
for target in "${targets[@]}"; do
  if [ "$target" = config ]; then build "${engine_sources[@]}" tests/fuzz/fuzz_config.cpp -o "$out/fuzz_config"
  else build "${engine_sources[@]}" cpp/src/model/*.cpp tests/fuzz/fuzz_trainer.cpp -o "$out/fuzz_trainer"; fi
done
share=$(( seconds / ${#targets[@]} ))

# One job (the machine has 2 cores, shared): -fork=1 runs the fuzzing in one child process and,
# with -ignore_crashes, keeps going after a finding so that one run reports them all.
# -timeout catches hangs; -rss_limit_mb huge allocations. A checkpoint is longer than a config.
cd "$out"
rm -f ./*crash-* ./*timeout-* ./*oom-* ./*leak-*
status=0
for target in "${targets[@]}"; do
  if [ "$target" = config ]; then corpus=corpus; seeds=../../tests/fuzz/corpus; max_len=4096
  else corpus=corpus_trainer; seeds=../../tests/fuzz/corpus_trainer; max_len=65536; fi
  set +e
  ./fuzz_$target -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
    -artifact_prefix=./$target- $corpus $seeds 2>&1 | tee fuzz_$target.log
  set -e
  # The last status line of fork mode: "#<executions>: cov: ... corp: ... exec/s ... oom/timeout/crash: ...".
  echo "fuzz $target: ${share} s, at the end: $(grep -E '^#[0-9]+: ' fuzz_$target.log | tail -1)"
done
findings=$(ls *crash-* *timeout-* *oom-* *leak-* 2>/dev/null || true)
if [ -n "$findings" ]; then
  echo "fuzz: findings in $out: $findings (replay one: $out/fuzz_<target> $out/<file>)"
  exit 1
fi
echo "fuzz: no findings"
