#!/usr/bin/env bash
# Prints the table of docs/input-validation.md: for each scenario, the memory check estimates
# before anything is built, the peak resident memory the OS measured for the run, their ratio
# and the wall time. Release build in build/ (tools/setup.sh makes it).
#   tools/memory_table.sh                      # every scenario of the table
#   tools/memory_table.sh scenarios/moe/*.yaml # these
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/clustersim
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(scenarios/ft2-alltoall.yaml scenarios/ft2-permutation.yaml scenarios/mpft-2048.yaml
             scenarios/shuffle-512.yaml scenarios/dual-plane-256.yaml scenarios/slimfly-q27.yaml
             scenarios/shuffle-1024-800g.yaml scenarios/ft2-incast.yaml
             scenarios/deepseek-v3-decode.yaml scenarios/moe/*.yaml)
fi
echo "| scenario | estimate | measured peak | estimate / peak | wall |"
echo "| --- | --- | --- | --- | --- |"
for f in "${scenarios[@]}"; do
  grep -q "kind: moe" "$f" && grep -q "traffic" <<<"$f" && continue  # traffic-only examples
  # Too large for this table's run: the 16,384-GPU step takes half an hour (its figures are in
  # docs/performance.md), the 100,352-GPU layer more memory than a CI machine has.
  case "$f" in *16384* | *100k*) [ $# -eq 0 ] && continue ;; esac
  est=$("$bin" check "$f" | sed -n 's/.*memory about \([0-9.]* [kMG]B\).*/\1/p')
  start=$(date +%s.%N)
  /usr/bin/time -o /tmp/memory_table.$$ -f '%M' "$bin" run "$f" --quiet >/dev/null 2>&1
  peak_kb=$(tail -1 /tmp/memory_table.$$)
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  python3 - "$f" "$est" "$peak_kb" "$wall" <<'PY'
import sys
f, est, peak_kb, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
value, unit = est.split()
est_b = float(value) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
peak = peak_kb * 1024
shown = f"{peak / 1e9:.2f} GB" if peak >= 1e9 else f"{peak / 1e6:.1f} MB"
print(f"| `{f.removeprefix('scenarios/')}` | {est} | {shown} | {est_b / peak:.2f} | {wall:.1f} s |")
PY
done
