#!/usr/bin/env bash
# Builds the doctest suite natively with AddressSanitizer and UndefinedBehaviorSanitizer
# (CMake option MHA_SANITIZE, build/asan/) and runs it. Any report fails the run: the flags include
# -fno-sanitize-recover=all, and LeakSanitizer (part of ASan) fails the exit on a leak.
#   scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
# Debug keeps every check and frame; -O1 would do too, Release may fold away what ASan should see.
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DMHA_SANITIZE=ON >/dev/null
cmake --build build/asan -j"$jobs" --target mha_tests

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build/asan/mha_tests "$@"
echo "sanitize: doctest suite clean under AddressSanitizer + UndefinedBehaviorSanitizer"
