#!/usr/bin/python3
"""Writes OUT_DIR/report.html from what `clustersim run --out` or `clustersim sweep --out` left
there: one self-contained page (plots inlined as SVG, no script, no network request) that
opens offline. Run by `clustersim report OUT_DIR` and `clustersim run --report`.

Plots drawn with matplotlib (Debian python3-matplotlib):
  run:   the step split into compute and exposed communication, dispatch and combine per layer,
         message-latency CDF, link utilisation by tier (over the run and over time), queue
         depth over time, per-NIC load, the traffic between nodes, a per-GPU timeline, the
         per-expert load, the MoE step timeline;
  sweep: the cost/objective Pareto front and, when the sweep varies the batch, throughput per
         GPU against TPOT with the SLO line (--slo-tpot-ms).
"""
import argparse
import csv
import errno
import html
import io
import json
import math
import os
import stat
import sys
import tempfile

import matplotlib
import matplotlib.patches

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

# Byte-reproducible SVG: fixed ids (svg.hashsalt) and no date; text drawn as given, never parsed
# as mathtext (a '$' in a tier name from a hand-edited CSV is text).
plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "figure.dpi": 96,
                     "svg.hashsalt": "clustersim", "text.parse_math": False})

# Inputs larger than these are refused unread: the binary writes far less for any run it can
# simulate (a 2,048-GPU decode step's messages.csv is about 500 MB).
MAX_JSON_BYTES = 64 << 20
MAX_CSV_BYTES = 4 << 30
csv.field_size_limit(1 << 20)
MAX_CELL = 1e18  # bytes, microseconds: far past any run's
MAX_TIMELINE_GPUS = 1024  # the binary writes 16
MAX_EXPERT_CELLS = 4_000_000  # all-to-alls x experts of the heatmap


class BadInput(Exception):
    """What is wrong with one input file: reported as one line, exit 2."""

    def __init__(self, path, what, line=0):
        super().__init__(f"{path}:{line}: {what}" if line else f"{path}: {what}")


def printable(text, limit=200):
    """Input text as one printable line, for an error message."""
    out = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in str(text)[:limit])
    return out + ("..." if len(str(text)) > limit else "")


def open_input(path, limit):
    """A regular file under `limit` bytes, opened without following a link and without
    blocking on a pipe; devices, FIFOs and sockets are refused before anything is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise BadInput(path, "missing (expected the --out folder of a run or a sweep)")
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise BadInput(path, "is a link (expected a regular file written by clustersim)")
        raise BadInput(path, f"cannot be opened ({e.strerror}; expected a readable file)")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise BadInput(path, "is not a regular file (expected one written by clustersim)")
    if st.st_size > limit:
        os.close(fd)
        raise BadInput(path, f"has {st.st_size} bytes (expected at most {limit})")
    os.set_blocking(fd, True)
    return open(fd, encoding="utf-8", newline="")


def reject_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(path):
    with open_input(path, MAX_JSON_BYTES) as f:
        try:
            return json.load(f, parse_constant=reject_constant)
        except json.JSONDecodeError as e:
            raise BadInput(path, f"not JSON: {e.msg} at column {e.colno}", e.lineno)
        except UnicodeDecodeError:
            raise BadInput(path, "not UTF-8 text")
        except (ValueError, RecursionError) as e:
            raise BadInput(path, f"not JSON clustersim wrote ({printable(e)})")


def read_csv(path, columns):
    """The rows of a CSV with (at least) `columns`, as dicts; a line that does not fit is
    located."""
    return list(iter_csv(path, columns))


def iter_csv(path, columns):
    """The same one row at a time, so that a plot of a large run holds only what it draws."""
    with open_input(path, MAX_CSV_BYTES) as f:
        reader = csv.DictReader(f)
        try:
            header = reader.fieldnames or []
            missing = [c for c in columns if c not in header]
            if missing:
                raise BadInput(path, f"no column {printable(missing[0])} (expected a header with "
                               f"{', '.join(columns)})", 1)
            for row in reader:
                if None in row or any(v is None for v in row.values()):
                    fields = sum(v is not None for k, v in row.items() if k is not None)
                    raise BadInput(path, f"{fields + len(row.get(None, []))} fields where the "
                                   f"header has {len(header)}", reader.line_num)
                row["_line"] = reader.line_num
                yield row
        except csv.Error as e:
            raise BadInput(path, f"not CSV ({printable(e)})", reader.line_num)
        except UnicodeDecodeError:
            raise BadInput(path, "not UTF-8 text", reader.line_num)


def number(path, row, column, empty_ok=True):
    """A cell as a finite number (None when empty and allowed)."""
    text = row[column]
    if text == "" and empty_ok:
        return None
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise BadInput(path, f"{column}: '{printable(text)}' is not a number", row["_line"])
    if abs(v) > MAX_CELL:  # clustersim writes none so large; matplotlib cannot scale such axes
        raise BadInput(path, f"{column}: {printable(text)} is out of range (expected at most "
                             f"{MAX_CELL:g} in magnitude)", row["_line"])
    return v


def field(path, obj, key, kind, default=None):
    """obj[key] checked to be of `kind` (a number: int or float, not bool), else BadInput."""
    if not isinstance(obj, dict):
        raise BadInput(path, "expected a JSON object")
    if key not in obj:
        return default
    v = obj[key]
    ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
          if kind is float else isinstance(v, kind))
    if not ok:
        want = {float: "a number", str: "text", dict: "an object", list: "a list"}[kind]
        raise BadInput(path, f"{key}: expected {want}")
    return v


def svg(fig, plot_id):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    body = buf.getvalue()
    body = body[body.index("<svg"):]  # drop the XML prolog and doctype
    return f'<figure class="plot" id="{plot_id}">{body}</figure>'


def latency_cdf(path):
    lat = []
    for m in iter_csv(path, ["latency_us"]):
        v = number(path, m, "latency_us")
        if v is not None:
            lat.append(v)
    lat.sort()
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


def link_utilisation(path):
    by_tier = {}
    for row in iter_csv(path, ["tier", "bytes", "utilisation"]):
        if number(path, row, "bytes", False) > 0:
            by_tier.setdefault(row["tier"], []).append(100 * number(path, row, "utilisation", False))
    tiers = sorted(by_tier)
    fig, ax = plt.subplots(figsize=(6, 0.35 * max(3, len(tiers)) + 1))
    if tiers:
        ax.boxplot([by_tier[t] for t in tiers], vert=False, labels=tiers)
    ax.set_xlabel("utilisation over the run [%]")
    ax.set_title("Link utilisation by tier (links that carried bytes)")
    ax.grid(alpha=0.3, axis="x")
    return svg(fig, "link-utilisation")


def nic_load(path):
    """Per-NIC load as a sorted curve (readable at 2,048 NICs, where bars are a solid block),
    the hottest NIC named."""
    rows = [r for r in iter_csv(path, ["kind", "index", "bytes_sent", "bytes_received"])
            if r["kind"] == "nic"]
    load = sorted(((number(path, r, "bytes_sent", False) + number(path, r, "bytes_received", False))
                   / 1e6, int(number(path, r, "index", False))) for r in rows)
    load.reverse()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    if load:
        ax.plot(range(1, len(load) + 1), [v for v, _ in load], color="tab:blue")
        mean = sum(v for v, _ in load) / len(load)
        ax.axhline(mean, color="tab:gray", linestyle="--", label=f"mean {mean:.1f} MB")
        top, nic = load[0]
        ax.annotate(f"hottest: NIC {nic}, {top:.1f} MB ({top / mean:.2f} x the mean)"
                    if mean > 0 else f"hottest: NIC {nic}", xy=(1, top), xytext=(0.3, 0.9),
                    textcoords="axes fraction", arrowprops={"arrowstyle": "->"})
        ax.legend(loc="lower left")
    ax.set_xlabel("NICs, busiest first (rank)")
    ax.set_ylabel("bytes sent + received [MB]")
    ax.set_title("Per-NIC load, sorted")
    ax.grid(alpha=0.3)
    return svg(fig, "nic-load")


def optional(path, draw, *args):
    """A plot from a file newer runs write: nothing when an older run's folder lacks it."""
    return draw(path, *args) if os.path.lexists(path) else ""


def tier_series(path):
    """Link utilisation and the deepest queue over time, one line per tier (tiers.csv; tiers
    that never carried a byte left out)."""
    series = {}
    for r in iter_csv(path, ["time_us", "period_us", "tier", "utilisation", "max_queue_bytes"]):
        t = series.setdefault(r["tier"], ([], [], [], [False]))
        end = number(path, r, "time_us", False)
        t[0].append(end - number(path, r, "period_us", False) / 2)
        t[1].append(100 * number(path, r, "utilisation", False))
        t[2].append(number(path, r, "max_queue_bytes", False) / 1e3)
        t[3][0] |= t[1][-1] > 0
    busy = sorted(k for k, v in series.items() if v[3][0])
    if not busy:
        return ""
    out = []
    for plot_id, column, label, title in (
            ("tier-utilisation", 1, "utilisation over the period [%]",
             "Link utilisation over time, by tier"),
            ("tier-queues", 2, "deepest port queue [KB]", "Queue depth over time, by tier")):
        fig, ax = plt.subplots(figsize=(6.4, 3.4))
        for k in busy:
            ax.plot(series[k][0], series[k][column], linewidth=0.9, label=k)
        ax.set_xlabel("time [us]")
        ax.set_ylabel(label)
        ax.set_title(title)
        ax.legend(loc="upper right", fontsize=6, ncol=2)
        ax.grid(alpha=0.3)
        out.append(svg(fig, plot_id))
    return "".join(out)


STAGE_COLOURS = ["tab:green", "tab:olive", "darkgreen", "yellowgreen", "seagreen", "lime",
                 "darkolivegreen", "mediumseagreen"]


def gpu_timeline(path):
    """What a sample of GPUs did: compute by stage, sending (its messages in flight, not
    computing) and waiting (neither) -- gpu_timeline.csv."""
    lanes, stages = {}, {}
    for r in iter_csv(path, ["gpu", "state", "start_us", "end_us", "stage"]):
        gpu = int(number(path, r, "gpu", False))
        start = number(path, r, "start_us", False)
        end = number(path, r, "end_us", False)
        state = r["state"]
        if state not in ("compute", "sending", "waiting"):
            raise BadInput(path, f"state: '{printable(state)}' (expected compute, sending or "
                                 "waiting)", r["_line"])
        key = r["stage"] if state == "compute" else state
        if state == "compute" and key not in stages:
            stages[key] = STAGE_COLOURS[len(stages) % len(STAGE_COLOURS)]
        if gpu not in lanes and len(lanes) == MAX_TIMELINE_GPUS:
            raise BadInput(path, f"more than {MAX_TIMELINE_GPUS} GPUs (expected the sample "
                                 "clustersim writes)", r["_line"])
        lanes.setdefault(gpu, {}).setdefault(key, []).append((start, end - start))
    if not lanes:
        return ""
    colours = dict(stages, sending="tab:blue", waiting="lightgray")
    gpus = sorted(lanes)
    fig, ax = plt.subplots(figsize=(6.4, 0.3 * len(gpus) + 1.6))
    for i, g in enumerate(gpus):
        for key, spans in lanes[g].items():
            ax.broken_barh(spans, (i - 0.4, 0.8), facecolors=colours[key])
    ax.set_yticks(range(len(gpus)), [f"GPU {g}" for g in gpus])
    ax.invert_yaxis()
    ax.set_xlabel("time [us]")
    ax.set_title("Per-GPU timeline: compute by stage, sending, waiting")
    handles = [matplotlib.patches.Patch(color=c, label=k) for k, c in colours.items()]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3,
              fontsize=6)
    ax.grid(alpha=0.3, axis="x")
    return svg(fig, "gpu-timeline")


def expert_load(path):
    """Tokens per routed expert in each simulated all-to-all (summed over EP groups), as a
    share of that all-to-all's mean: the gating's hot experts -- experts.csv."""
    rows, experts = {}, 0
    for r in iter_csv(path, ["pass", "layer", "micro_batch", "expert", "tokens"]):
        key = (r["pass"], int(number(path, r, "layer", False)),
               int(number(path, r, "micro_batch", False)))
        e = int(number(path, r, "expert", False))
        if e < 0 or e >= 1 << 16:
            raise BadInput(path, f"expert: {e} (expected 0 to 65535)", r["_line"])
        experts = max(experts, e + 1)
        rows.setdefault(key, {})
        rows[key][e] = rows[key].get(e, 0.0) + number(path, r, "tokens", False)
    if not rows or len(rows) > 2000:
        return ""
    if len(rows) * experts > MAX_EXPERT_CELLS:
        raise BadInput(path, f"{len(rows)} all-to-alls x {experts} experts (expected at most "
                             f"{MAX_EXPERT_CELLS} cells)")
    keys = list(rows)
    m = []
    for k in keys:
        line = [rows[k].get(e, 0.0) for e in range(experts)]
        mean = sum(line) / experts
        m.append([v / mean if mean > 0 else 0.0 for v in line])
    hottest = max(max(line) for line in m)
    fig, ax = plt.subplots(figsize=(6.4, 0.25 * len(keys) + 1.6))
    im = ax.imshow(m, cmap="magma", aspect="auto", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="tokens / mean")
    ax.set_yticks(range(len(keys)), [f"{p} {layer} mb{mb}" for p, layer, mb in keys])
    ax.set_xlabel("routed expert")
    ax.set_title(f"Per-expert load (hottest {hottest:.2f} x the mean)")
    return svg(fig, "expert-load")


def step_breakdown(path, results):
    """A decode (or prefill, training) step split into compute, compute lost to communication
    kernels' SMs, and communication left exposed; per output token beside it."""
    for phase in ("decode", "prefill", "training"):
        sec = field(path, results, phase, dict)
        if sec is None:
            continue
        compute = field(path, sec, "compute_ms", float)
        lost = field(path, sec, "compute_slowdown_ms", float, 0.0)
        exposed = field(path, sec, "exposed_comm_ms", float)
        step = field(path, sec, "step_ms", float)
        if None in (compute, exposed, step) or step <= 0:
            return ""
        tpot = field(path, sec, "tpot_ms", float)
        bars = [("step", 1.0)] + ([("per output token", tpot / step)] if tpot else [])
        fig, ax = plt.subplots(figsize=(6, 1.0 + 0.6 * len(bars)))
        for i, (label, scale) in enumerate(bars):
            left = 0.0
            for part, value, colour in (("compute", compute, "tab:green"),
                                        ("compute lost to communication SMs", lost, "tab:olive"),
                                        ("exposed communication", exposed, "tab:red")):
                ax.barh(i, value * scale, left=left, color=colour, label=part if i == 0 else None)
                left += value * scale
        ax.set_yticks(range(len(bars)), [b[0] for b in bars])
        ax.invert_yaxis()
        ax.set_xlabel("time [ms]")
        ax.set_title(f"{phase}: where a step's {step:.2f} ms go" +
                     (f" (TPOT {tpot:.2f} ms)" if tpot else ""))
        ax.legend(loc="lower right", fontsize=7)
        ax.grid(alpha=0.3, axis="x")
        return svg(fig, "step-breakdown")
    return ""


def layer_all_to_alls(path, results):
    """Dispatch and combine of every simulated layer as it ran: a fault's stalled layer, the
    pipeline's fill, the MTP module."""
    for phase in ("decode", "prefill", "training"):
        sec = field(path, results, phase, dict)
        if sec is None:
            continue
        timeline = field(path, sec, "timeline", list, [])
        if not timeline:
            return ""
        labels, dispatch, combine = [], [], []
        for i, t in enumerate(timeline):
            if not isinstance(t, dict):
                raise BadInput(path, f"{phase}.timeline[{i}]: expected a JSON object")
            labels.append(f"{field(path, t, 'pass', str, '')} {field(path, t, 'layer', float, '')}")
            dispatch.append(field(path, t, "dispatch_us", float, 0.0))
            combine.append(field(path, t, "combine_us", float, 0.0))
        fig, ax = plt.subplots(figsize=(6, 0.35 * len(labels) + 1.2))
        y = range(len(labels))
        ax.barh([v - 0.2 for v in y], dispatch, height=0.4, color="tab:blue", label="dispatch")
        ax.barh([v + 0.2 for v in y], combine, height=0.4, color="tab:orange", label="combine")
        ax.set_yticks(list(y), labels)
        ax.invert_yaxis()
        ax.set_xlabel("all-to-all time, mean over micro-batches [us]")
        ax.set_title(f"{phase}: dispatch and combine per simulated layer")
        ax.legend(loc="lower right")
        ax.grid(alpha=0.3, axis="x")
        return svg(fig, "layer-all-to-alls")
    return ""


def node_matrix(messages_path, nics_path, results):
    """Bytes between nodes (sender's node x receiver's node), from messages.csv; a sample says
    so in the title."""
    node_of = {}
    for r in iter_csv(nics_path, ["kind", "index", "node"]):
        if r["kind"] == "gpu":
            node_of[int(number(nics_path, r, "index", False))] = int(number(nics_path, r, "node", False))
    if not node_of:
        return ""  # bare NICs: no nodes
    nodes = max(node_of.values()) + 1
    if nodes < 2 or nodes > 512:
        return ""
    m = [[0.0] * nodes for _ in range(nodes)]
    rows = 0
    for r in iter_csv(messages_path, ["src", "dst", "bytes"]):
        s = node_of.get(int(number(messages_path, r, "src", False)))
        t = node_of.get(int(number(messages_path, r, "dst", False)))
        if s is not None and t is not None:
            m[s][t] += number(messages_path, r, "bytes", False) / 1e6
            rows += 1
    count = field(messages_path, field(messages_path, results, "messages", dict, {}), "count", float)
    sampled = count is not None and rows < count
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    im = ax.imshow(m, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="MB")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("receiving node")
    ax.set_ylabel("sending node")
    ax.set_title("Traffic between nodes" + (" (messages.csv holds a sample)" if sampled else ""))
    return svg(fig, "node-matrix")


def step_timeline(path):
    trace = read_json(path)
    events = field(path, trace, "traceEvents", list, [])
    spans = []
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") in (
                "dispatch", "combine", "mtp_dispatch", "mtp_combine"):
            for key, kind in (("ts", float), ("dur", float), ("name", str)):
                if field(path, e, key, kind) is None:
                    raise BadInput(path, f"traceEvents: a span without {key}")
            spans.append(e)
    if not spans:
        return ""
    if len(spans) > 2000:
        raise BadInput(path, f"{len(spans)} all-to-all spans (expected at most 2000, as clustersim "
                             "writes)")
    fig, ax = plt.subplots(figsize=(6, 0.3 * len(spans) + 1))
    colours = {"dispatch": "tab:blue", "combine": "tab:orange",
               "mtp_dispatch": "tab:cyan", "mtp_combine": "tab:red"}
    for i, e in enumerate(spans):
        ax.barh(i, e["dur"], left=e["ts"], color=colours[e["cat"]])
    ax.set_yticks(range(len(spans)), [e["name"] for e in spans])
    ax.invert_yaxis()
    ax.set_xlabel("time [us]")
    ax.set_title("MoE step: all-to-alls, first byte sent to last byte received")
    ax.grid(alpha=0.3, axis="x")
    return svg(fig, "step-timeline")


def summary_table(path, results):
    rows = []

    def add(label, value):
        rows.append(f"<tr><th>{html.escape(label)}</th><td>{html.escape(str(value))}</td></tr>")

    add("scenario", field(path, results, "scenario", str, ""))
    add("status", field(path, results, "status", str, ""))
    topo = field(path, results, "topology", dict, {})
    add("fabric", f'{field(path, topo, "topology", str, "")}: '
                  f'{field(path, topo, "endpoints", float, "")} NICs, '
                  f'{field(path, topo, "switches", float, "")} switches, '
                  f'${field(path, topo, "cost_usd", float, 0) / 1e6:.2f} M')
    msg = field(path, results, "messages", dict, {})
    lat = field(path, msg, "latency_us", dict, {})
    add("messages", f'{field(path, msg, "count", float, "")}, '
                    f'makespan {field(path, msg, "makespan_us", float, 0):.1f} us')
    add("latency p50 / p99", f'{field(path, lat, "p50", float, 0):.1f} / '
                             f'{field(path, lat, "p99", float, 0):.1f} us')
    for phase in ("decode", "prefill", "training"):
        d = field(path, results, phase, dict)
        if d is not None:
            for k, words, unit in (("tpot_ms", "time per output token", "ms"),
                                   ("step_ms", "step", "ms"),
                                   ("tokens_per_s_per_gpu", "tokens/s per GPU", ""),
                                   ("dispatch_us", "dispatch", "us"),
                                   ("combine_us", "combine", "us")):
                v = field(path, d, k, float)
                if v is not None:
                    add(f"{phase}: {words}", f"{v:.3f} {unit}".strip())
    return '<table class="summary">' + "".join(rows) + "</table>"


def faults_section(path, results):
    """What each fault hit and cost, and with --baseline the healthy run beside the faulted one."""
    faults = field(path, results, "faults", list)
    if not faults:
        return ""
    out = ["<h2>Faults</h2><table class=\"rows\"><tr><th>kind</th><th>target</th><th>at us</th>"
           "<th>until us</th><th>packets lost</th><th>bytes rerouted</th>"
           "<th>recovered at us</th></tr>"]
    for i, f in enumerate(faults):
        if not isinstance(f, dict):
            raise BadInput(path, f"faults[{i}]: expected a JSON object")

        def number_or(key, none):  # null: the fault lasts, or never recovered
            return none if f.get(key) is None else field(path, f, key, float)
        cells = [field(path, f, "kind", str, ""), field(path, f, "target", str, ""),
                 number_or("at_us", ""), number_or("until_us", "-"),
                 number_or("packets_lost", ""), number_or("bytes_rerouted", ""),
                 number_or("recovered_at_us", "never")]
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    for phase in ("decode", "prefill", "training"):
        now = field(path, results, phase, dict, {})
        steady = field(path, now, "degraded_steady_state", dict)
        if steady is None:
            continue
        out.append(f"<h3>{phase}: the step containing the transient, and the steady state "
                   "after it</h3><table class=\"rows\"><tr><th>quantity</th>"
                   "<th>step with the transient</th><th>degraded steady state</th></tr>")
        for k in ("tpot_ms", "step_ms", "tokens_per_s_per_gpu", "dispatch_us", "combine_us"):
            tv, sv = field(path, now, k, float), field(path, steady, k, float)
            if tv is None:
                continue
            cells = [k, f"{tv:.3f}", "-" if sv is None else f"{sv:.3f}"]
            out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        out.append("</table><table class=\"rows\"><tr><th>simulated pass</th><th>ends at us</th>"
                   "<th>takes us</th><th>dispatch us</th><th>combine us</th></tr>")
        for i, t in enumerate(field(path, now, "timeline", list, [])):
            if not isinstance(t, dict):
                raise BadInput(path, f"{phase}.timeline[{i}]: expected a JSON object")
            cells = [f"{field(path, t, 'pass', str, '')} {field(path, t, 'layer', float, '')}"]
            for k in ("end_us", "time_us", "dispatch_us", "combine_us"):
                v = field(path, t, k, float)
                cells.append("-" if v is None else f"{v:.1f}")
            out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        out.append("</table>")
    base = field(path, results, "baseline", dict)
    delta = field(path, results, "delta", dict, {})
    if base is not None:
        out.append("<h3>Healthy and degraded</h3><table class=\"rows\"><tr><th>quantity</th>"
                   "<th>healthy (baseline)</th><th>with the faults</th><th>difference</th></tr>")
        for phase in ("decode", "prefill", "training"):
            b = field(path, base, phase, dict)
            if b is None:
                continue
            now = field(path, results, phase, dict, {})
            dd = field(path, delta, phase, dict, {})
            for k in ("tpot_ms", "step_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_user",
                      "dispatch_us", "combine_us"):
                hv = field(path, b, k, float)
                if hv is None:
                    continue
                fv, dv = field(path, now, k, float), field(path, dd, k, float)
                cells = [f"{phase} {k}", f"{hv:.3f}", "-" if fv is None else f"{fv:.3f}",
                         "-" if dv is None else f"{dv:+.3f}"]
                out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        out.append("</table>")
    return "".join(out)


def pareto_plot(path, rows, objective):
    done = []
    for r in rows:
        cost, obj = number(path, r, "cluster_cost_usd"), number(path, r, "objective")
        if r["status"] == "completed" and cost is not None and obj is not None:
            done.append((r, cost, obj))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    front = [d for d in done if d[0]["pareto"] == "1"]
    rest = [d for d in done if d[0]["pareto"] != "1"]
    ax.scatter([c / 1e6 for _, c, _ in rest], [o for _, _, o in rest], label="point",
               color="tab:gray")
    front.sort(key=lambda d: d[1])
    ax.plot([c / 1e6 for _, c, _ in front], [o for _, _, o in front], "o-", color="tab:red",
            label="Pareto front")
    for r, c, o in done:
        ax.annotate(r["point"], (c / 1e6, o), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("cluster cost [$M]")
    ax.set_ylabel(objective or "objective")
    ax.set_title("Cost against the objective")
    ax.grid(alpha=0.3)
    ax.legend()
    return svg(fig, "pareto")


def batch_plot(path, rows, slo_ms):
    done = []
    for r in rows:
        tpot, tps = number(path, r, "tpot_ms"), number(path, r, "tokens_per_s_per_gpu")
        if r["status"] == "completed" and tpot is not None and tps is not None:
            done.append((tpot, tps))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot([t for t, _ in done], [p for _, p in done], "o")
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


def phase_of(path, results):
    for phase in ("decode", "prefill", "training"):
        sec = field(path, results, phase, dict)
        if sec is not None:
            return phase, sec
    return None, None


def compare_page(dirs):
    """Several runs side by side: their headline numbers, their steps' split, their message
    latency CDFs and their per-layer all-to-alls, on one page (compare.html in the first)."""
    runs = []
    for d in dirs:
        path = os.path.join(d, "results.json")
        results = read_json(path)
        if not isinstance(results, dict) or "points" in results:
            raise BadInput(path, "expected a run's results (compare sweeps' points as runs)")
        runs.append((os.path.basename(os.path.normpath(d)) or d, d, path, results))
    keys = [("decode", "tpot_ms", "time per output token [ms]"), ("decode", "step_ms", "step [ms]"),
            ("decode", "tokens_per_s_per_gpu", "tokens/s per GPU"),
            ("decode", "dispatch_us", "dispatch [us]"), ("decode", "combine_us", "combine [us]"),
            ("messages", "makespan_us", "makespan [us]"), ("topology", "cost_usd", "fabric cost [USD]")]
    table = ['<table class="rows"><tr><th>quantity</th>' +
             "".join(f"<th>{html.escape(n)}</th>" for n, _, _, _ in runs) + "</tr>"]
    for sec, key, words in keys:
        vals = [field(p, field(p, r, sec, dict, {}), key, float) for _, _, p, r in runs]
        if all(v is None for v in vals):
            continue
        first = vals[0]
        cells = []
        for i, v in enumerate(vals):
            if v is None:
                cells.append("-")
            elif i > 0 and first not in (None, 0):
                cells.append(f"{v:.4g} ({100 * (v - first) / abs(first):+.1f} %)")
            else:
                cells.append(f"{v:.4g}")
        table.append(f"<tr><th>{html.escape(words)}</th>" +
                     "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    table.append("</table>")
    body = ["<p>Each run against the first (in parentheses: the relative difference).</p>",
            "".join(table)]
    # The steps' split, one bar per run.
    split = []
    for name, _, path, results in runs:
        phase, sec = phase_of(path, results)
        if sec is None:
            continue
        c, lost = field(path, sec, "compute_ms", float), field(path, sec, "compute_slowdown_ms", float, 0.0)
        x = field(path, sec, "exposed_comm_ms", float)
        if None not in (c, x):
            split.append((name, c, lost, x))
    if split:
        fig, ax = plt.subplots(figsize=(6, 0.5 * len(split) + 1.2))
        for i, (name, c, lost, x) in enumerate(split):
            ax.barh(i, c, color="tab:green", label="compute" if i == 0 else None)
            ax.barh(i, lost, left=c, color="tab:olive",
                    label="compute lost to communication SMs" if i == 0 else None)
            ax.barh(i, x, left=c + lost, color="tab:red", label="exposed communication" if i == 0 else None)
        ax.set_yticks(range(len(split)), [s[0] for s in split])
        ax.invert_yaxis()
        ax.set_xlabel("step time [ms]")
        ax.set_title("Where each run's step goes")
        ax.legend(loc="lower right", fontsize=7)
        ax.grid(alpha=0.3, axis="x")
        body.append(svg(fig, "compare-step"))
    # Message latency CDFs, overlaid.
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for name, d, rpath, results in runs:
        path = os.path.join(d, "messages.csv")
        rows, lat = 0, []
        for m in iter_csv(path, ["latency_us"]):
            rows += 1
            v = number(path, m, "latency_us")
            if v is not None:
                lat.append(v)
        lat.sort()
        count = field(rpath, field(rpath, results, "messages", dict, {}), "count", float)
        label = name + (" (messages.csv holds a sample)" if count is not None and rows < count else "")
        if lat:
            n = len(lat)
            idx = sorted({min(n - 1, (k * n) // 2000) for k in range(2000)} | {n - 1})
            ax.step([lat[i] for i in idx], [(i + 1) / n for i in idx], where="post", label=label)
    ax.set_xlabel("message latency [us]")
    ax.set_ylabel("fraction of messages")
    ax.set_title("Message latency CDFs")
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(alpha=0.3)
    body.append(svg(fig, "compare-latency"))
    # Per simulated layer: dispatch and combine of each run.
    fig, ax = plt.subplots(figsize=(6, 3.2))
    drawn = False
    for name, _, path, results in runs:
        _, sec = phase_of(path, results)
        timeline = field(path, sec, "timeline", list, []) if sec else []
        if not timeline:
            continue
        d = [field(path, t, "dispatch_us", float, 0.0) if isinstance(t, dict) else 0.0 for t in timeline]
        c = [field(path, t, "combine_us", float, 0.0) if isinstance(t, dict) else 0.0 for t in timeline]
        line = ax.plot(range(len(d)), d, "o-", label=f"{name}: dispatch")[0]
        ax.plot(range(len(c)), c, "s--", color=line.get_color(), label=f"{name}: combine")
        drawn = True
    if drawn:
        ax.set_xlabel("simulated pass (layers, then MTP modules)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("all-to-all time [us]")
        ax.set_title("Dispatch and combine per simulated layer")
        ax.legend(loc="upper right", fontsize=7)
        ax.grid(alpha=0.3)
        body.append(svg(fig, "compare-layers"))
    else:
        plt.close(fig)
    title = "clustersim: " + " vs ".join(n for n, _, _, _ in runs)
    return title, "".join(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out_dir", nargs="+")
    ap.add_argument("--slo-tpot-ms", type=float, default=0.0)
    a = ap.parse_args()
    d = a.out_dir[0]
    if len(a.out_dir) > 1:
        title, body = compare_page(a.out_dir)
        write_page(d, "compare.html", title, body)
        return
    results_path = os.path.join(d, "results.json")
    results = read_json(results_path)
    if not isinstance(results, dict):
        raise BadInput(results_path, "expected a JSON object (the results of a run or a sweep)")
    if "points" in results:  # a sweep
        field(results_path, results, "points", list)
        objective = field(results_path, results, "objective", str, "")
        goal = field(results_path, results, "goal", str, "")
        csv_path = os.path.join(d, "results.csv")
        rows = read_csv(csv_path, ["point", "status", "cluster_cost_usd", "objective", "pareto"])
        body = [f"<p>{len(rows)} points; objective <code>{html.escape(objective)}</code> "
                f"({html.escape(goal)}).</p>", pareto_plot(csv_path, rows, objective)]
        header = [h for h in rows[0].keys() if h != "_line"] if rows else []
        if "workload.tokens_per_gpu" in header and "tpot_ms" in header and \
                "tokens_per_s_per_gpu" in header:
            body.append(batch_plot(csv_path, rows, a.slo_tpot_ms))
        table = "<table class=\"rows\"><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
        for r in rows:
            table += "<tr>" + "".join(f"<td>{html.escape(r[h] or '')}</td>" for h in header) + "</tr>"
        body.append('<div class="wide">' + table + "</table></div>")
        title = f"clustersim sweep: {os.path.basename(field(results_path, results, 'sweep', str, ''))}"
    else:
        body = [summary_table(results_path, results), faults_section(results_path, results),
                step_breakdown(results_path, results),
                layer_all_to_alls(results_path, results),
                latency_cdf(os.path.join(d, "messages.csv")),
                link_utilisation(os.path.join(d, "links.csv")),
                nic_load(os.path.join(d, "nics.csv")),
                node_matrix(os.path.join(d, "messages.csv"), os.path.join(d, "nics.csv"), results),
                optional(os.path.join(d, "tiers.csv"), tier_series),
                optional(os.path.join(d, "gpu_timeline.csv"), gpu_timeline),
                optional(os.path.join(d, "experts.csv"), expert_load)]
        trace_path = os.path.join(d, "trace.json")
        if os.path.lexists(trace_path):
            body.append(step_timeline(trace_path))
        title = f"clustersim run: {field(results_path, results, 'scenario', str, '')}"
    write_page(d, "report.html", title, "".join(body))


def write_page(d, name, title, body):
    """Written beside the target under a name mkstemp picks (O_EXCL: no planted link is
    followed), then renamed into place."""
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(page(title, body))
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(d, name))
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    try:
        main()
    except BadInput as e:
        print(printable(e, 600), file=sys.stderr)
        sys.exit(2)
    except OSError as e:  # the folder itself: unwritable, full
        print(printable(f"{e.filename or sys.argv[-1]}: {e.strerror}", 600), file=sys.stderr)
        sys.exit(2)
    except Exception as e:  # a bug here, said in one line
        print(printable(f"internal error: {type(e).__name__}: {e}", 600), file=sys.stderr)
        sys.exit(1)
