#!/usr/bin/env bash
# Benchmark of sweep threads: the 256-GPU fabric-choice sweep with -j 1 and -j 2 (about a
# minute on two cores), their wall times, the speed-up, and whether the tables are identical.
#   tools/bench_sweep.sh [BUILD_DIR]     (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/clustersim
sweep=scenarios/sweeps/fabric-choice-256.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
time_of() {  # nanoseconds of wall time of one sweep
  local start
  start=$(date +%s%N)
  "$bin" sweep "$sweep" -j "$1" --quiet --out "$work/j$1"
  echo $(( $(date +%s%N) - start ))
}
one=$(time_of 1)
two=$(time_of 2)
echo "sweep $sweep: -j 1 $((one / 1000000)) ms, -j 2 $((two / 1000000)) ms," \
  "speed-up $((one * 100 / two / 100)).$(printf '%02d' $((one * 100 / two % 100)))x"
cmp -s "$work/j1/results.csv" "$work/j2/results.csv" && echo "results.csv identical" \
  || { echo "results.csv differ" >&2; exit 1; }
