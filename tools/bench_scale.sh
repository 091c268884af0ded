#!/usr/bin/env bash
# How speed and memory scale (issue 22; the tables of docs/performance.md, "Scale"): a random
# permutation of 2 MiB per host over bare hosts on fat trees of 512 -> 16,384 hosts (packet-hops
# per second, peak memory, bytes per host), then the MoE steps' wall time and peak memory on
# each of --threads (1 and 2), the speed-up, and an extrapolation to 16-64 cores from the
# measured partition balance (sim.thread_speedup_bound) and the share of it the two-thread run
# reached. Medians of --repeat runs (3). Release build in build/ (tools/setup.sh).
#   tools/bench_scale.sh                      # everything (about 50 min on a 2-core host)
#   tools/bench_scale.sh --hosts "512 2048"   # these permutations only, no MoE step
#   tools/bench_scale.sh --moe scenarios/deepseek-v3-decode.yaml --hosts ""
#   tools/bench_scale.sh --ranks "2"          # also over 2 MPI ranks x 1 thread (mpirun)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/clustersim
repeat=3
threads="1 2"
ranks=""
hosts="512 2048 8192 16384"
moe="scenarios/deepseek-v3-decode.yaml scenarios/moe/deepseek-v3-decode-2048-mpft.yaml"
hosts_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift 2 ;;
    --hosts) hosts=$2; hosts_given=1; shift 2 ;;
    --moe) moe=$2; shift 2; [ "$hosts_given" = 1 ] || hosts="" ;;
    --threads) threads=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    *) echo "usage: $0 [--repeat N] [--hosts \"512 2048 ...\"] [--moe \"SCENARIO ...\"] [--threads \"1 2\"] [--ranks \"2\"]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "$bin: not built (run tools/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run (on $2 threads, default 1): prints "wall_s peak_bytes packet_hops events windows
# bound16 bound32 bound64 bound2 partitions" (wall from results.json, peak from the OS: /usr/bin/time's
# maximum resident set; the bounds 1 for one partition).
# With $3 (ranks), over that many MPI ranks of one thread: the peak is the largest rank's
# (mpirun reaps its ranks, and the OS reports the largest child's resident set).
measure() {
  local launch=()
  [ -n "${3:-}" ] && launch=(mpirun --oversubscribe -n "$3")
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    /usr/bin/time -o "$work/time" -f '%M' "${launch[@]}" "$bin" run "$1" --quiet \
    --threads "${2:-1}" --out "$work/out" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  python3 - "$work/out/results.json" "$(tail -1 "$work/time")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["sim"]
b = r.get("thread_speedup_bound", {})
print(r["wall_s"], int(sys.argv[2]) * 1024, r["packet_hops"], r["events"], r["windows"],
      *(b.get(n, 1) for n in ("16", "32", "64", "2")), r["partitions"])
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
  cols="" rule=""
  for t in $threads; do
    cols="$cols wall, $t thread(s) (median of $repeat) | peak memory, $t |"
    rule="$rule --- | --- |"
  done
  for r in $ranks; do
    cols="$cols wall, $r MPI ranks x 1 thread | peak memory, largest rank |"
    rule="$rule --- | --- |"
  done
  echo "| MoE step | events | partitions' bound, 2 threads |$cols speed-up, 2 threads | speed-up, 2 ranks |"
  echo "| --- | --- | --- |$rule --- | --- |"
  : >"$work/extrapolation"
  for f in $moe; do
    : >"$work/row"
    for t in $threads; do
      for _ in $(seq "$repeat"); do measure "$f" "$t"; done | medians >"$work/m-$t"
      cat "$work/m-$t" >>"$work/row"
    done
    for r in $ranks; do
      for _ in $(seq "$repeat"); do measure "$f" 1 "$r"; done | medians >"$work/m-r$r"
      cat "$work/m-r$r" >>"$work/row"
    done
    python3 - "$f" "$threads" "$work/row" "$work/extrapolation" "$ranks" <<'PY'
import sys
f = sys.argv[1].removeprefix("scenarios/")
threads = [int(t) for t in sys.argv[2].split()]
ranks = [int(r) for r in sys.argv[5].split()]
rows = [list(map(float, l.split())) for l in open(sys.argv[3]) if l.strip()]
rank_rows = rows[len(threads):]
rows = rows[:len(threads)]
events, windows = rows[0][3], rows[0][4]
bound = {16: rows[0][5], 32: rows[0][6], 64: rows[0][7], 2: rows[0][8]}
partitions = rows[0][9]
cells = "".join(f" {r[0]:.1f} s | {r[1] / 1e9:.2f} GB |" for r in rows + rank_rows)
w1 = rows[0][0] if threads[0] == 1 else None
w2 = next((r[0] for t, r in zip(threads, rows) if t == 2), None)
r2 = next((r[0] for n, r in zip(ranks, rank_rows) if n == 2), None)
speedup = f"{w1 / w2:.2f}x" if w1 and w2 else "-"
rank_speedup = f"{w1 / r2:.2f}x" if w1 and r2 else "-"
print(f"| `{f}` | {events / 1e6:.1f} M | {bound[2]:.2f} |{cells} {speedup} | {rank_speedup} |")
if w1 and w2:
    # Wall on N cores ~ W1 / (bound(N) x e2): e2, the share of its bound the two-thread run
    # reached (synchronisation, the serial phase between windows, cores sharing caches and
    # memory), assumed to hold on N cores.
    e2 = w1 / bound[2] / w2
    est = {n: w1 / (bound[n] * e2) for n in (16, 32, 64)}
    with open(sys.argv[4], "a") as out:
        out.write(f"| `{f}` | {partitions:.0f} | {windows:,.0f} | {e2:.2f} | " +
                  " | ".join(f"{bound[n]:.1f}: {est[n]:.1f} s" for n in (16, 32, 64)) + " |\n")
PY
  done
  if [ -s "$work/extrapolation" ]; then
    echo
    echo "Extrapolated, not measured: wall on N cores ~ W1 / (bound(N) x e2), e2 the share of"
    echo "its bound the two-thread run reached (W1 / bound(2) / W2), assumed to hold on N cores."
    echo
    echo "| MoE step | partitions | windows | e2 | 16 cores: bound, wall | 32 | 64 |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    cat "$work/extrapolation"
  fi
fi
