#!/usr/bin/env bash
# Every shipped scenario, its first 30 us simulated, on one thread and on two (or, with
# `ranks`, over two MPI ranks): results.json the same but for wall-clock fields, exit code
# included (a time limit ends both alike).
#   threads_scenarios_test.sh BINARY SOURCE_DIR [ranks]
set -uo pipefail
bin=$1
cd "$2"
mode=${3:-threads}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI containers run as root
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
runs=0
for f in scenarios/*.yaml scenarios/*/*.yaml; do
  case "$f" in scenarios/sweeps/* | scenarios/table3/*) continue ;; esac  # not runs
  # Faults act between windows: long enough for the fabric ones to act (the decode-sized
  # fault scenarios are left to the goldens' and docs/faults.md's runs: minutes each).
  limit=30
  case "$f" in
    scenarios/faults/ft2-*) limit=400 ;;
    scenarios/faults/*) continue ;;
    # Building its step alone takes 3-4 minutes and 7 GB, twice here: its thread-count
    # independence is the 2,048-GPU step's (same builder, same engine), run above.
    scenarios/moe/deepseek-v3-decode-16384-mpft.yaml) continue ;;
    # Over one machine's memory (about 32 GB): its 1,024-GPU cut is a golden, run on two
    # threads and two ranks.
    scenarios/moe/deepseek-v3-layer-100k-mpft.yaml) continue ;;
    # A serving run is minutes of step runs and takes no sim.max_time_us: its steps are this
    # engine's, and tests/serving_run_test.cpp compares a small one on one and two threads.
    scenarios/serving/*) continue ;;
  esac
  for t in 1 2; do
    launch=()
    threads=$t
    if [ "$mode" = ranks ] && [ $t = 2 ]; then
      launch=(mpirun --oversubscribe -n 2)
      threads=1
    fi
    "${launch[@]}" "$bin" run "$f" --threads $threads --quiet --json --set sim.fingerprint=true \
      --set sim.max_time_us=$limit > "$out/t$t.json" 2> "$out/t$t.err"
    echo $? > "$out/t$t.rc"
  done
  runs=$((runs + 1))
  case "$(cat "$out/t1.rc")" in
    0 | 3) ;;
    *) echo "did not run: $f: $(head -c 300 "$out/t1.err")"; failed=1; continue ;;
  esac
  if ! python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
def load(t):
    rc = open(f"{d}/t{t}.rc").read().strip()
    try:
        j = json.load(open(f"{d}/t{t}.json"))
    except Exception:
        return rc, None
    j.pop("tool", None)
    for k in ("wall_s", "events_per_s"):
        j.get("sim", {}).pop(k, None)
    return rc, j
a, b = load(1), load(2)
sys.exit(0 if a == b else 1)
PY
  then
    echo "differs on two $mode: $f (exit $(cat "$out/t1.rc") vs $(cat "$out/t2.rc"))"
    failed=1
  fi
done
echo "$runs scenarios compared"
[ "$runs" -gt 25 ] || { echo "too few scenarios found"; exit 1; }
exit $failed
