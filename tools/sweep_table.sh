#!/usr/bin/env bash
# Prints a fabric sweep's results.json (clustersim sweep ... --out DIR) as the Markdown table
# docs/sweeps.md shows: one row per point, means with their 95 % half-widths, the front and its
# ties. Usage: tools/sweep_table.sh DIR
# With --serving or --availability first, the table of a serving sweep (docs/serving.md) or of an
# availability sweep (docs/availability.md), from each point's record under DIR/points/.
# With --serve-search first, one row per serve-search output (DIR... each holding the
# results.json of `clustersim serve-search ... --out DIR`): the rate each fabric takes at the SLO.
set -euo pipefail
if [ "${1:-}" = "--serve-search" ]; then
shift
python3 - "$@" <<'PY'
import json, os, sys
print("| fabric | cluster [$] | rate at the SLO [req/s] | lowest rate missed [req/s] | requests/s per $M | SLO attainment there | TTFT p50 / p99 [ms] | TPOT p50 / p99 [ms] | tokens/s per GPU | decode steps slowed by KV [% of time] | probes | step runs |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for folder in sys.argv[1:]:
    d = json.load(open(os.path.join(folder, "results.json")))
    v = d["serve_search"]; kind = d["resolved_scenario"]["topology"]["kind"]
    at = v["at_rate"]
    if at is None:
        print(f"| {kind} | | none met the target | {v['failed_rate_per_s']:.4g} | | | | | | | {len(v['probes'])} | {v['step_simulations']} |")
        continue
    usd = at["cost_usd"]["cluster"]
    flags = "" if v["bracketed"] and v.get("monotone", True) else (" (not bracketed)" if not v["bracketed"] else " (not monotone)")
    print(f"| {kind} | {usd:,.0f} | {v['rate_per_s']:.4g}{flags} | {v['failed_rate_per_s']:.4g}"
          f" | {v['rate_per_s'] / usd * 1e6:.2f} | {at['slo_attainment']:.3f}"
          f" | {at['ttft_ms']['p50']:,.1f} / {at['ttft_ms']['p99']:,.1f}"
          f" | {at['tpot_ms']['p50']:.2f} / {at['tpot_ms']['p99']:.2f}"
          f" | {at['tokens_per_s_per_gpu']:.1f} | {at['kv_slowdown']['decode']['percent']:.2f}"
          f" | {len(v['probes'])} | {v['step_simulations']} |")
PY
exit 0
fi
if [ "${1:-}" = "--serving" ] || [ "${1:-}" = "--availability" ]; then
python3 - "$1" "$2/points" <<'PY'
import glob, json, os, sys
mode, folder = sys.argv[1], sys.argv[2]
def kind_of(rec):
    t = rec["sets"].get("topology", {})
    return t.get("kind", "?") if isinstance(t, dict) else str(t)
def money(x):
    return f"{x:,.0f}"
recs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(folder, "*.json")))]
if mode == "--serving":
    print("| fabric | cluster [$] | fabric [$] | SLO attainment | goodput per $M | TTFT p50 / p99 [ms] | TPOT p50 / p99 [ms] | tokens/s per GPU | decode steps slowed by KV [% of time] | step runs | wall [s] |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for rec in recs:
        if rec["status"] != "completed":
            print(f"| {kind_of(rec)} | failed: {rec.get('error', rec['status'])} | | | | | | | | | |")
            continue
        r = rec["runs"][0]["results"]; s = r["serving"]
        print(f"| {kind_of(rec)} | {money(s['cost_usd']['cluster'])} | {money(s['cost_usd']['fabric'])}"
              f" | {s['slo_attainment']:.3f} | {s['goodput_rps_per_musd']:.2f}"
              f" | {s['ttft_ms']['p50']:,.1f} / {s['ttft_ms']['p99']:,.1f}"
              f" | {s['tpot_ms']['p50']:.2f} / {s['tpot_ms']['p99']:.2f}"
              f" | {s['tokens_per_s_per_gpu']:.1f} | {s['kv_slowdown']['decode']['percent']:.2f}"
              f" | {s['step_simulations']} | {r['sim']['wall_s']:.0f} |")
else:
    print("| fabric | cluster [$] | healthy tokens/s | delivered tokens/s (se) | delivered | degraded h/day | down h/day | $ per M tokens | tokens/s per $M healthy / delivered | worst mode (tokens lost/day) | modes run |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for rec in recs:
        if rec["status"] != "completed":
            print(f"| {kind_of(rec)} | failed: {rec.get('error', rec['status'])} | | | | | | | | | |")
            continue
        a = rec["runs"][0]["results"]["availability"]
        worst = a["modes"][0]
        print(f"| {kind_of(rec)} | {money(a['cluster_cost_usd'])} | {a['healthy_tokens_per_s']:,.0f}"
              f" | {a['tokens_per_s']:,.0f} ({a['tokens_per_s_se']:,.0f}) | {100 * a['delivered_fraction']:.3f} %"
              f" | {a['degraded_hours_per_day']:.4f} | {a['down_hours_per_day']:.4f}"
              f" | {a['usd_per_million_tokens']:.5f} | {a['healthy_tokens_per_s_per_musd']:,.0f} / {a['tokens_per_s_per_musd']:,.0f}"
              f" | {worst['mode']} ({worst['tokens_lost_per_day']:.3g}) | {a['mode_simulations']} |")
PY
exit 0
fi
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
