#!/usr/bin/env bash
# Builds the libFuzzer targets with Debian's clang (ASan + UBSan) and fuzzes each for SECONDS
# (default 60), seeded from the shipped scenarios, sweeps and traces and the hostile cases of
# tests/fuzz/seeds/ (alias cycles and bombs, text that is not UTF-8, control characters). A
# crash leaves its input in build-fuzz/crashes/TARGET/ and fails the script; turn it into a
# regression test. FUZZ_TARGETS="scenario sweep_file" picks targets.
#   tools/fuzz.sh            # a minute per target (what CI runs)
#   tools/fuzz.sh 3600       # the one-hour run of docs/input-validation.md
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCLUSTERSIM_FUZZ=ON -DCLUSTERSIM_TESTS=OFF -DCLUSTERSIM_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target scenario_fuzzer sweep_file_fuzzer connection_matrix_fuzzer message_csv_fuzzer

seed() {  # seed corpus of TARGET: the shipped inputs of its kind
  case $1 in
    scenario) find scenarios -name '*.yaml' -not -path '*/sweeps/*'; find tests/fuzz/seeds/scenario -type f ;;
    sweep_file) find scenarios/sweeps tests/fuzz/seeds/sweep_file -type f ;;
    connection_matrix) find scenarios -name '*.cm' ;;
    message_csv) find scenarios -name '*.csv' ;;
  esac
}
status=0
targets=${FUZZ_TARGETS:-scenario sweep_file connection_matrix message_csv}
for target in $targets; do
  corpus=$build/corpus/$target crashes=$build/crashes/$target
  mkdir -p "$corpus" "$crashes"
  seed "$target" | while read -r f; do cp "$f" "$corpus/"; done
  echo "== fuzzing $target for ${seconds} s"
  # -rss_limit_mb: an input that makes a reader hold more than this is a finding too.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
       "$build/${target}_fuzzer" "$corpus" -max_total_time="$seconds" -max_len=65536 \
       -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$crashes/" -print_final_stats=1 \
       2>"$build/$target.log"; then
    echo "$target: finding in $crashes (log: $build/$target.log)" >&2
    tail -30 "$build/$target.log" >&2
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|cov: " \
    "$build/$target.log" | tail -4
done
exit $status
