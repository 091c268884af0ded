#!/usr/bin/env bash
# Reapplies, one at a time, mutations (or those named as arguments) that the unit suite once missed (issue 6), rebuilds, runs
# every test but the slow ones and prints which caught each; every mutation must be caught by at least
# one test that is not a golden. Needs a configured build/ and a clean work tree (each mutated
# file is restored with git checkout). Takes about a minute per mutation on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "mutation_probe: commit or stash your changes first (files are restored from git)" >&2
  exit 2
fi
status=0
only=("$@")  # names of the mutations to apply (default: all)
mutate() {  # name file old new
  local name="$1" file="$2" old="$3" new="$4"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then return; fi
  python3 - "$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
if old not in text:
    sys.exit(f"mutation_probe: '{old}' not found in {path}: update the probe")
open(path, "w").write(text.replace(old, new, 1))
PY
  if ! cmake --build build >/tmp/mutation_probe_build.log 2>&1; then
    echo "$name: does not build (see /tmp/mutation_probe_build.log)"; status=1
  else
    local caught
    caught=$(ctest --test-dir build -j "$(nproc)" -LE slow 2>&1 |
             grep -E '^\s+[0-9]+ - (unit|system|validation):' |
             sed 's/^ *[0-9]* - //' | tr '\n' ';' || true)
    if [ -z "$caught" ]; then echo "$name: NOT CAUGHT"; status=1; else echo "$name: caught by $caught"; fi
  fi
  git checkout -q -- "$file"
}
mutate credit-delay-zero models/fabric/fabric.cpp "port.credit_delay = ch.propagation;" "port.credit_delay = Time::zero();"
mutate extra-latency-ignored tools/scenario/build.cpp "p.extra_latency = Time::from_us(s.network.extra_latency_us);" "p.extra_latency = Time::zero();"
mutate busbw-equals-algbw traffic/collectives.cpp "const double factor = kind == CollectiveKind::AllReduce ? 2 * (n - 1) / n : (n - 1) / n;" "const double factor = 1;"
mutate lanes-strict-priority models/fabric/fabric.hpp "for (std::uint32_t i = 0, v = port.next_vl;" "for (std::uint32_t i = 0, v = 0;"
mutate nic-one-message-at-a-time models/transport/rdma_transport.hpp "++nic.next;  // the next message in turn" "(void)0;"
mutate ft2-bisection topologies/fat_tree_two_layer.cpp "std::min(half_endpoints, half_uplinks)" "std::max(half_endpoints, half_uplinks)"
mutate dragonfly-bisection topologies/dragonfly.cpp "static_cast<double>(crossing)" "static_cast<double>(crossing + 1)"
mutate makespan-from-zero tools/scenario/results_json.cpp "(last_end - first_start).seconds()" "(last_end - Time::zero()).seconds()"
mutate socket-crossing-ignored tools/scenario/build.cpp "n.pcie_latency_ns + s.cluster.socket_crossing_ns" "n.pcie_latency_ns"
mutate max-util-doubled models/network/simulation.cpp "std::max(r.max_link_util, r.channels[c].utilisation)" "std::max(r.max_link_util, 2 * r.channels[c].utilisation)"
mutate p90-as-p95 sim/percentiles.hpp "nearest_rank(values, 0.90)" "nearest_rank(values, 0.95)"
mutate taildrop-without-header models/fabric/fabric.hpp "port.queued_bytes + wire > port.buffer_bytes" "port.queued_bytes + p.payload_bytes > port.buffer_bytes"
mutate pfc-headroom-one-way models/fabric/fabric.cpp "const Time flight = ch.propagation + ch.propagation + sw.latency;" "const Time flight = ch.propagation + sw.latency;"
mutate tokens-ignore-mtp traffic/moe_step_metrics.cpp "const double tokens_per_step = decode ? 1.0 + spec.mtp_acceptance : 1.0;" "const double tokens_per_step = 1.0;"
mutate pareto-ties-dominate tools/scenario/pareto.cpp "dominated = *cj <= *ci && as_good && (*cj < *ci || better);" "dominated = *cj <= *ci && as_good && (better || !better);"
# Issue 17: what hostile input taught.
mutate resume-trusts-records tools/scenario/sweep.cpp 'rec["fingerprint"] != fingerprint)' 'fingerprint.empty())'
mutate text-unchecked tools/scenario/yaml_bounds.cpp "const std::size_t bad = invalid_utf8_at(text);" 'const std::size_t bad = invalid_utf8_at("");'
mutate failed-qp-revives models/transport/rdma_transport.cpp "        o.failed = true;" "        (void)0;"
mutate moe-writes-per-gpu traffic/moe_step_size.cpp "first_hops = s.ep_size > 1 ? ep * tokens * copies : 0;" "first_hops = ep * tokens * std::min(copies, ep - 1);"
mutate csv-cr-unquoted tools/scenario/sweep.cpp 'if (v.find_first_of(",\"\r\n") == std::string::npos) return v;' 'if (v.find_first_of(",\"\n") == std::string::npos) return v;'
cmake --build build >/dev/null 2>&1
exit $status
