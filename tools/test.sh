#!/usr/bin/env bash
# Second command of the README (and what CI runs): install what is missing, build with warnings
# as errors, run every test; fuzz the input readers briefly (tools/fuzz.sh); then build again
# under AddressSanitizer + UBSan and rerun the tests there, but for the `slow` and `long` ones.
# Works on a clean clone.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_dependencies.sh
jobs=$(nproc)
# Each phase says how long it took (CI's budget is 90 min on 2 cores; see docs/performance.md).
phase_start=$SECONDS
took() { echo "   ($1: $((SECONDS - phase_start)) s)"; phase_start=$SECONDS; }

echo "== release build (warnings are errors)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLUSTERSIM_WERROR=ON -DCLUSTERSIM_TESTS=ON \
  -DCLUSTERSIM_MPI=ON >/dev/null
cmake --build build -j "$jobs"
took "release build"
echo "== tests"
ctest --test-dir build --output-on-failure -j "$jobs"
took "tests"

if [ "${CLUSTERSIM_SKIP_FUZZ:-0}" != "1" ]; then
  echo "== fuzzing the input readers (clang, libFuzzer; 30 s per target)"
  tools/fuzz.sh 30
  took "fuzzing"
fi

if [ "${CLUSTERSIM_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "== AddressSanitizer + UBSan build"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCLUSTERSIM_WERROR=ON -DCLUSTERSIM_SANITIZE=ON -DCLUSTERSIM_TESTS=ON >/dev/null
  cmake --build build-asan -j "$jobs"
  took "sanitizer build"
  echo "== tests under sanitizers"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE "slow|long"
  took "tests under sanitizers"
fi
