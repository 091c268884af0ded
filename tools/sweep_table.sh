#!/usr/bin/env bash
# Prints a fabric sweep's results.json (clustersim sweep ... --out DIR) as the Markdown table
# docs/sweeps.md shows: one row per point, means with their 95 % half-widths, the front and its
# ties. Usage: tools/sweep_table.sh DIR
set -euo pipefail
python3 - "$1/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("| fabric | fabric cost | cluster cost | TPOT ms | tokens/s per GPU | tokens/s per $M | message p99 us | Pareto | tied with |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in d["points"]:
    kind = next((v for k, v in r["sets"].items() if k == "topology"), "")
    kind = kind.split("kind:")[1].split(",")[0].strip() if "kind:" in kind else kind
    m = r["metrics"]
    if r["status"] != "completed":
        print(f"| {kind} | | | | | | | | failed: {r.get('error', r['status'])} |")
        continue
    def pm(key, fmt):
        ci = m[key].get("ci95")
        return (fmt % m[key]["mean"]) + ("" if ci is None else " +- " + (fmt % ci))
    print(f"| {kind} | ${m['cost_usd']['mean'] / 1e6:.2f} M | ${m['cluster_cost_usd']['mean'] / 1e6:.2f} M"
          f" | {pm('tpot_ms', '%.2f')} | {pm('tokens_per_s_per_gpu', '%.0f')}"
          f" | {m['tokens_per_s_per_musd']['mean']:.0f} | {m['latency_p99_us']['mean']:.0f}"
          f" | {'yes' if r['pareto'] else ''} | {', '.join(str(t) for t in r['tied_with'])} |")
PY
