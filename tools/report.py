#!/usr/bin/python3
"""Writes OUT_DIR/report.html from what `clustersim run --out` or `clustersim sweep --out` left
there: one self-contained page (plots inlined as SVG, no script, no network request) that
opens offline. Run by `clustersim report OUT_DIR` and `clustersim run --report`.

Plots drawn with matplotlib (Debian python3-matplotlib):
  run:   message-latency CDF, link utilisation by tier, per-NIC load, the MoE step timeline;
  sweep: the cost/objective Pareto front and, when the sweep varies the batch, throughput per
         GPU against TPOT with the SLO line (--slo-tpot-ms).
"""
import argparse
import csv
import html
import io
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "figure.dpi": 96})


def svg(fig, plot_id):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    body = buf.getvalue()
    body = body[body.index("<svg"):]  # drop the XML prolog and doctype
    return f'<figure class="plot" id="{plot_id}">{body}</figure>'


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def latency_cdf(messages):
    lat = sorted(float(m["latency_us"]) for m in messages if m["latency_us"])
    fig, ax = plt.subplots(figsize=(6, 3.2))
    if lat:
        n = len(lat)
        # At most 2,000 steps: the CDF at evenly spaced ranks (the last is the maximum).
        idx = sorted({min(n - 1, (k * n) // 2000) for k in range(2000)} | {n - 1})
        ax.step([lat[i] for i in idx], [(i + 1) / n for i in idx], where="post")
    ax.set_xlabel("message latency [us]")
    ax.set_ylabel("fraction of messages")
    ax.set_title("Message latency CDF")
    ax.grid(alpha=0.3)
    return svg(fig, "latency-cdf")


def link_utilisation(links):
    by_tier = {}
    for row in links:
        if int(row["bytes"]) > 0:
            by_tier.setdefault(row["tier"], []).append(100 * float(row["utilisation"]))
    tiers = sorted(by_tier)
    fig, ax = plt.subplots(figsize=(6, 0.35 * max(3, len(tiers)) + 1))
    if tiers:
        ax.boxplot([by_tier[t] for t in tiers], vert=False, labels=tiers)
    ax.set_xlabel("utilisation over the run [%]")
    ax.set_title("Link utilisation by tier (links that carried bytes)")
    ax.grid(alpha=0.3, axis="x")
    return svg(fig, "link-utilisation")


def nic_load(nics):
    rows = [r for r in nics if r["kind"] == "nic"]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    x = [int(r["index"]) for r in rows]
    ax.bar(x, [int(r["bytes_sent"]) / 1e6 for r in rows], width=1.0, label="sent")
    ax.bar(x, [-int(r["bytes_received"]) / 1e6 for r in rows], width=1.0, label="received")
    ax.set_xlabel("NIC")
    ax.set_ylabel("MB (received below zero)")
    ax.set_title("Per-NIC load")
    ax.legend(loc="upper right")
    return svg(fig, "nic-load")


def step_timeline(trace):
    spans = [e for e in trace.get("traceEvents", [])
             if e.get("ph") == "X" and e.get("cat") in ("dispatch", "combine")]
    if not spans:
        return ""
    fig, ax = plt.subplots(figsize=(6, 0.3 * len(spans) + 1))
    colours = {"dispatch": "tab:blue", "combine": "tab:orange"}
    for i, e in enumerate(spans):
        ax.barh(i, e["dur"], left=e["ts"], color=colours[e["cat"]])
    ax.set_yticks(range(len(spans)), [e["name"] for e in spans])
    ax.invert_yaxis()
    ax.set_xlabel("time [us]")
    ax.set_title("MoE step: all-to-alls, first byte sent to last byte received")
    ax.grid(alpha=0.3, axis="x")
    return svg(fig, "step-timeline")


def summary_table(results):
    rows = []

    def add(label, value):
        rows.append(f"<tr><th>{html.escape(label)}</th><td>{html.escape(str(value))}</td></tr>")

    add("scenario", results.get("scenario", ""))
    add("status", results.get("status", ""))
    topo = results.get("topology", {})
    add("fabric", f'{topo.get("topology", "")}: {topo.get("endpoints", "")} NICs, '
                  f'{topo.get("switches", "")} switches, ${topo.get("cost_usd", 0) / 1e6:.2f} M')
    msg = results.get("messages", {})
    lat = msg.get("latency_us", {})
    add("messages", f'{msg.get("count", "")}, makespan {msg.get("makespan_us", 0):.1f} us')
    add("latency p50 / p99", f'{lat.get("p50", 0):.1f} / {lat.get("p99", 0):.1f} us')
    for phase in ("decode", "prefill", "training"):
        if phase in results:
            d = results[phase]
            for k in ("tpot_ms", "step_ms", "tokens_per_s_per_gpu", "dispatch_us", "combine_us"):
                if k in d:
                    add(f"{phase} {k}", f"{d[k]:.3f}")
    return '<table class="summary">' + "".join(rows) + "</table>"


def pareto_plot(rows, objective):
    done = [r for r in rows if r["status"] == "completed" and r["objective"] and r["cluster_cost_usd"]]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    front = [r for r in done if r["pareto"] == "1"]
    rest = [r for r in done if r["pareto"] != "1"]
    ax.scatter([float(r["cluster_cost_usd"]) / 1e6 for r in rest],
               [float(r["objective"]) for r in rest], label="point", color="tab:gray")
    front.sort(key=lambda r: float(r["cluster_cost_usd"]))
    ax.plot([float(r["cluster_cost_usd"]) / 1e6 for r in front],
            [float(r["objective"]) for r in front], "o-", color="tab:red", label="Pareto front")
    for r in done:
        ax.annotate(r["point"], (float(r["cluster_cost_usd"]) / 1e6, float(r["objective"])),
                    fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("cluster cost [$M]")
    ax.set_ylabel(objective or "objective")
    ax.set_title("Cost against the objective")
    ax.grid(alpha=0.3)
    ax.legend()
    return svg(fig, "pareto")


def batch_plot(rows, slo_ms):
    done = [r for r in rows if r["status"] == "completed" and r.get("tpot_ms") and r.get("tokens_per_s_per_gpu")]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot([float(r["tpot_ms"]) for r in done], [float(r["tokens_per_s_per_gpu"]) for r in done], "o")
    if slo_ms:
        ax.axvline(slo_ms, color="tab:red", linestyle="--", label=f"SLO {slo_ms} ms")
        ax.legend()
    ax.set_xlabel("TPOT [ms]")
    ax.set_ylabel("tokens/s per GPU")
    ax.set_title("Throughput against latency as the batch varies")
    ax.grid(alpha=0.3)
    return svg(fig, "batch")


def page(title, body):
    style = ("body{font-family:sans-serif;max-width:900px;margin:2em auto;color:#222}"
             "table.summary th{text-align:left;padding-right:1em;font-weight:normal;color:#555}"
             "figure.plot{margin:1.5em 0} figure.plot svg{max-width:100%;height:auto}"
             "table.rows{border-collapse:collapse;font-size:12px}"
             "table.rows td,table.rows th{border:1px solid #ccc;padding:2px 6px}"
             "div.wide{overflow-x:auto}")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; img-src data:\">"
            f"<title>{html.escape(title)}</title><style>{style}</style></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out_dir")
    ap.add_argument("--slo-tpot-ms", type=float, default=0.0)
    a = ap.parse_args()
    d = a.out_dir
    results = json.load(open(os.path.join(d, "results.json")))
    if "points" in results:  # a sweep
        rows = read_csv(os.path.join(d, "results.csv"))
        body = [f"<p>{len(rows)} points; objective <code>{html.escape(results.get('objective', ''))}</code> "
                f"({results.get('goal', '')}).</p>", pareto_plot(rows, results.get("objective", ""))]
        header = list(rows[0].keys()) if rows else []
        if "workload.tokens_per_gpu" in header:
            body.append(batch_plot(rows, a.slo_tpot_ms))
        table = "<table class=\"rows\"><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
        for r in rows:
            table += "<tr>" + "".join(f"<td>{html.escape(r[h] or '')}</td>" for h in header) + "</tr>"
        body.append('<div class="wide">' + table + "</table></div>")
        title = f"clustersim sweep: {os.path.basename(results.get('sweep', ''))}"
    else:
        body = [summary_table(results),
                latency_cdf(read_csv(os.path.join(d, "messages.csv"))),
                link_utilisation(read_csv(os.path.join(d, "links.csv"))),
                nic_load(read_csv(os.path.join(d, "nics.csv")))]
        trace_path = os.path.join(d, "trace.json")
        if os.path.exists(trace_path):
            body.append(step_timeline(json.load(open(trace_path))))
        title = f"clustersim run: {results.get('scenario', '')}"
    tmp = os.path.join(d, f".report.html.tmp.{os.getpid()}")
    with open(tmp, "w") as f:
        f.write(page(title, "".join(body)))
    os.replace(tmp, os.path.join(d, "report.html"))


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        print(f"clustersim report: {e}", file=sys.stderr)
        sys.exit(2)
