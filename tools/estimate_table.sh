#!/usr/bin/env bash
# Prints the table of docs/performance.md "check's event estimate against the run": for each
# scenario, the events `check` says a run takes at most, the events the run took, and their
# ratio. Release build in build/ (tools/setup.sh makes it).
#   tools/estimate_table.sh                      # the table's scenarios
#   tools/estimate_table.sh scenarios/moe/*.yaml # these
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/clustersim
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(scenarios/ft2-alltoall.yaml scenarios/ft2-incast.yaml scenarios/ft2-permutation.yaml
             scenarios/mpft-128-alltoall.yaml scenarios/mrft-128-alltoall.yaml
             scenarios/dual-plane-256.yaml scenarios/shuffle-512.yaml scenarios/slimfly-q27.yaml
             scenarios/dragonfly-lanes.yaml scenarios/ft2-trigger-chain.yaml
             scenarios/dual-plane-bond-vs-spray.yaml scenarios/deepseek-v3-decode.yaml
             scenarios/moe/deepseek-v3-decode-dual-plane-256.yaml
             scenarios/moe/deepseek-v3-decode-shuffle-512.yaml
             scenarios/moe/deepseek-v3-decode-2048-mpft.yaml)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| scenario | check: at most | run: events | run / check |"
echo "| --- | --- | --- | --- |"
for f in "${scenarios[@]}"; do
  est=$("$bin" check "$f" | sed -n 's/.*at most about \([0-9]*\) events.*/\1/p')
  "$bin" run "$f" --quiet --messages none --out "$out" >/dev/null 2>&1 || true
  python3 - "$f" "$est" "$out/results.json" <<'PY'
import json, sys
f, est, results = sys.argv[1], int(sys.argv[2]), sys.argv[3]
events = json.load(open(results))["sim"]["events"]
print(f"| `{f}` | {est:,} | {events:,} | {events / est:.2f} |")
PY
  rm -f "$out/results.json"
done
