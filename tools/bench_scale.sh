#!/usr/bin/env bash
# How speed and memory scale (issue 22; the tables of docs/performance.md, "Scale"): a random
# permutation of 2 MiB per host over bare hosts on fat trees of 512 -> 16,384 hosts (packet-hops
# per second, peak memory, bytes per host), then the MoE steps' wall time and peak memory.
# Medians of --repeat runs (3). Release build in build/ (tools/setup.sh makes it).
#   tools/bench_scale.sh                      # everything (about 25 min on a 2-core host)
#   tools/bench_scale.sh --hosts "512 2048"   # these permutations only, no MoE step
#   tools/bench_scale.sh --moe scenarios/deepseek-v3-decode.yaml --hosts ""
# One thread: the parallel engine (issue 22, item 4) is not built, so no thread column yet.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/clustersim
repeat=3
hosts="512 2048 8192 16384"
moe="scenarios/deepseek-v3-decode.yaml scenarios/moe/deepseek-v3-decode-2048-mpft.yaml"
hosts_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift 2 ;;
    --hosts) hosts=$2; hosts_given=1; shift 2 ;;
    --moe) moe=$2; shift 2; [ "$hosts_given" = 1 ] || hosts="" ;;
    *) echo "usage: $0 [--repeat N] [--hosts \"512 2048 ...\"] [--moe \"SCENARIO ...\"]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "$bin: not built (run tools/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: prints "wall_s peak_bytes packet_hops events" (wall from results.json, peak from
# the OS: /usr/bin/time's maximum resident set).
measure() {
  /usr/bin/time -o "$work/time" -f '%M' "$bin" run "$1" --quiet --out "$work/out" \
    >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  python3 - "$work/out/results.json" "$(tail -1 "$work/time")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["sim"]
print(r["wall_s"], int(sys.argv[2]) * 1024, r["packet_hops"], r["events"])
PY
}

# Median over the repeats of each column: "wall peak hops events".
medians() {
  python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(*[statistics.median(c) for c in zip(*rows)])'
}

fabric_of() {  # a fat tree for that many hosts: two tiers up to 2,048, three beyond
  case "$1" in
    512) echo "ft2 32" ;;
    2048) echo "ft2 64" ;;
    *) echo "ft3 64" ;;
  esac
}

if [ -n "$hosts" ]; then
  echo "| hosts (fabric) | packet-hops | wall (median of $repeat) | packet-hops/s per core | peak memory | bytes per host |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for n in $hosts; do
    read -r kind radix <<<"$(fabric_of "$n")"
    f="$work/perm-$n.yaml"
    cat >"$f" <<EOF
name: bench-scale-$n
topology: {kind: $kind, switch_radix: $radix, endpoints: $n}
cluster: {node: none}
workload: {kind: permutation, message_bytes: 2MiB}
network: {routing: ecmp}
EOF
    for _ in $(seq "$repeat"); do measure "$f"; done | medians >"$work/m"
    read -r wall peak hops _ <"$work/m"
    python3 - "$n" "$kind" "$radix" "$wall" "$peak" "$hops" <<'PY'
import sys
n, kind, radix = int(sys.argv[1]), sys.argv[2], sys.argv[3]
wall, peak, hops = map(float, sys.argv[4:7])
print(f"| {n:,} ({kind.upper()}, radix {radix}) | {hops / 1e6:.1f} M | {wall:.2f} s | "
      f"{hops / wall / 1e6:.2f} M | {peak / 1e6:.0f} MB | {peak / n / 1e3:.1f} kB |")
PY
  done
fi

if [ -n "$moe" ]; then
  echo
  echo "| MoE step | events | wall, 1 thread (median of $repeat) | events/s | peak memory |"
  echo "| --- | --- | --- | --- | --- |"
  for f in $moe; do
    for _ in $(seq "$repeat"); do measure "$f"; done | medians >"$work/m"
    read -r wall peak _ events <"$work/m"
    python3 - "$f" "$wall" "$peak" "$events" <<'PY'
import sys
f = sys.argv[1].removeprefix("scenarios/")
wall, peak, events = map(float, sys.argv[2:5])
print(f"| `{f}` | {events / 1e6:.1f} M | {wall:.1f} s | {events / wall / 1e6:.2f} M | "
      f"{peak / 1e9:.2f} GB |")
PY
  done
fi
