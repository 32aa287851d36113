#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a compi JSON report (COMPI_REPORT=path, written by rank 0 at
MPI_Finalize; schema in lib/core/report.c) and optionally plot it.

usage: compi_report.py REPORT.json [--plot OUT.png] [--windows N] [--all-ranks]

Prints: the run (mode, codec, ranks/nodes), a per-codec table (messages,
bytes in/out, ratio, bytes saved), inter/intra-node counts, raw small /
incompressible, codec seconds; a per-rank table; and, when the report has
an adaptive-engine section (per rank "engine"), one line per (rank,
datatype class, link) window: thresholds, chosen codec, decisions
raw/evaluated/compressed, mistakes, restarts, re-evaluations, back-offs,
predicted vs observed speedup, plus guided-rule hits/misses/drops.

--plot OUT.png draws (matplotlib, Agg) the decision timeline of the busiest
windows (stacked share of raw/evaluated/compressed messages per bin) and the
bytes saved per codec. Reports without an engine section (modes off/fixed)
get only the codec chart.

Only the standard library is needed, plus matplotlib for --plot.
Exit status: 0 ok, 1 not a readable compi report, 2 usage.
"""
import argparse
import json
import math
import os
import re
import sys


class ReportError(Exception):
    """The file is not a (valid) compi report; the message names the cause."""


# ------------------------------------------------------------------ loading --

def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _need(cond, path, what):
    if not cond:
        raise ReportError("%s: %s" % (path, what))


def load_report(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError("cannot read %s: %s" % (path, e.strerror or e))
    if not data.strip():
        raise ReportError("%s is empty (a run that died before MPI_Finalize leaves no report, "
                          "or an empty file was given)" % path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError("%s is not a compi report: not UTF-8 text (byte %d); a binary file?" % (path, e.start))
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        hint = ""
        if e.msg != "Extra data" and not text.rstrip().endswith(("}", "]")):
            hint = "; the file ends inside the JSON document: truncated? (a run dying while rank 0 wrote it does that)"
        raise ReportError("%s is not a compi report: invalid JSON: %s at line %d column %d%s"
                          % (path, e.msg[:-3] if e.msg.endswith(" at") else e.msg, e.lineno, e.colno, hint))
    if not isinstance(doc, dict):
        raise ReportError("%s is not a compi report: the top level is a JSON %s, expected an object "
                          "with \"mode\", \"ranks\" and \"totals\"" % (path, type(doc).__name__))
    missing = [k for k in ("ranks", "totals") if k not in doc]
    if missing:
        raise ReportError("%s is not a compi report: no %s key (a compi report, written with "
                          "COMPI_REPORT=path, has \"mode\", \"ranks\" and \"totals\"; this one has: %s)"
                          % (path, " or ".join('"%s"' % k for k in missing),
                             ", ".join(sorted(doc)[:10]) or "nothing"))
    validate(doc, path)
    return doc


def validate(doc, path):
    """Structural checks, so that later code can index without guessing and a
    damaged file is named precisely rather than crashing with a KeyError."""
    _need(isinstance(doc["ranks"], list), path, '"ranks" is not a list')
    _need(isinstance(doc["totals"], dict), path, '"totals" is not an object')
    _check_counters(doc["totals"], "%s: totals" % path)
    for i, r in enumerate(doc["ranks"]):
        where = "%s: ranks[%d]" % (path, i)
        _need(isinstance(r, dict), where, "not an object")
        _need(_is_num(r.get("rank")), where, 'no numeric "rank"')
        _check_counters(r, where)
        eng = r.get("engine")
        if eng is None:
            continue
        _need(isinstance(eng, dict), where, '"engine" is not an object')
        wins = eng.get("windows", [])
        _need(isinstance(wins, list), where, 'engine "windows" is not a list')
        for j, w in enumerate(wins):
            ww = "%s.engine.windows[%d]" % (where, j)
            _need(isinstance(w, dict), ww, "not an object")
            for k in ("messages", "raw", "evaluated", "compressed"):
                _need(k not in w or _is_num(w[k]), ww, '"%s" is not a number' % k)
            for k in ("no_bytes", "yes_bytes", "predicted_speedup", "observed_speedup"):
                _need(w.get(k) is None or _is_num(w[k]), ww, '"%s" is neither a number nor null' % k)
            tl = w.get("timeline")
            if tl is None:
                continue
            _need(isinstance(tl, dict), ww, '"timeline" is not an object')
            _need(_is_num(tl.get("bin")) and tl["bin"] > 0, ww, 'timeline "bin" is not a positive number')
            lens = set()
            for k in ("raw", "evaluated", "compressed"):
                v = tl.get(k, [])
                _need(isinstance(v, list) and all(_is_num(x) for x in v), ww,
                      'timeline "%s" is not a list of numbers' % k)
                lens.add(len(v))
            _need(len(lens) == 1, ww, "timeline raw/evaluated/compressed lists differ in length")
        g = eng.get("guided")
        _need(g is None or isinstance(g, dict), where, 'engine "guided" is not an object')


def _check_counters(d, where):
    codecs = d.get("codecs", {})
    _need(isinstance(codecs, dict), where, '"codecs" is not an object')
    for name, c in codecs.items():
        _need(isinstance(c, dict), where, 'codecs["%s"] is not an object' % name)
        for k in ("messages", "bytes_in", "bytes_out"):
            _need(k not in c or _is_num(c[k]), where, 'codecs["%s"]["%s"] is not a number' % (name, k))


# --------------------------------------------------------------- formatting --

def fmt_bytes(n):
    if n is None:
        return "-"
    if n == math.inf:
        return "inf"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0
    return str(n)


def fmt_opt(v, fmt="%.2f"):
    return "-" if v is None else (fmt % v)


_NUMERIC = re.compile(r"^([-+]?[0-9][0-9.,]*( [KMGT]?i?B)?\*?|-|inf)$")


def table(headers, rows, right=None):
    """Plain-text table. Columns in `right` (indices) are right-aligned; by
    default those whose every cell looks like a number."""
    if right is None:
        right = {i for i in range(len(headers)) if rows and all(_NUMERIC.match(str(r[i])) for r in rows)}
    right = set(right)
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for n, r in enumerate(cells):
        out.append("  " + "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                                    for i, c in enumerate(r)).rstrip())
        if n == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(out)


def g(d, k, default=0):
    v = d.get(k, default) if isinstance(d, dict) else default
    return default if v is None else v


def windows_of(doc):
    """[(rank, window dict)] over all ranks' engine sections."""
    out = []
    for r in doc["ranks"]:
        eng = r.get("engine")
        if isinstance(eng, dict):
            for w in eng.get("windows", []):
                out.append((r.get("rank"), w))
    return out


def has_engine(doc):
    return any(isinstance(r.get("engine"), dict) for r in doc["ranks"])


def summary(doc, path, all_ranks=False):
    t = doc["totals"]
    ranks = doc["ranks"]
    lines = []
    lines.append("compi report: %s" % path)
    lines.append("  compi %s, %s; mode %s%s; min_bytes %s" % (
        doc.get("compi_version", "?"), doc.get("mpi", "?"), doc.get("mode", "?"),
        (", codec %s" % doc["codec"]) if doc.get("codec") and doc.get("mode") == "fixed" else "",
        doc.get("min_bytes", "?")))
    nodes = doc.get("nodes")
    if nodes is None:
        nodes = len({r.get("node") for r in ranks})
    per_node = {}
    for r in ranks:
        per_node.setdefault(r.get("node"), []).append(r.get("rank"))
    layout = ", ".join("node %s: %s" % (n, _ranges(v)) for n, v in sorted(per_node.items(), key=lambda kv: str(kv[0])))
    lines.append("  %s ranks on %s node(s)%s" % (doc.get("world_size", len(ranks)), nodes,
                                                 (" (%s)" % layout) if layout and len(per_node) <= 16 else ""))
    lines.append("  sends: %s inter-node, %s intra-node (never compressed); raw inter-node: %s small, %s incompressible, "
                 "%s sent unframed (zero-copy), %s escaped"
                 % (g(t, "inter_node_messages"), g(t, "intra_node_messages"), g(t, "raw_small"),
                    g(t, "raw_incompressible"), g(t, "raw_unframed"), g(t, "raw_escaped")))
    lines.append("  codec time, all ranks: compress %.3f s, decompress %.3f s"
                 % (g(t, "compress_seconds"), g(t, "decompress_seconds")))
    lines.append("")
    codecs = t.get("codecs", {})
    if codecs:
        rows = []
        tin = tout = tmsg = 0
        for name, c in sorted(codecs.items(), key=lambda kv: -g(kv[1], "bytes_in")):
            bi, bo, m = g(c, "bytes_in"), g(c, "bytes_out"), g(c, "messages")
            tin, tout, tmsg = tin + bi, tout + bo, tmsg + m
            rows.append((name, m, fmt_bytes(bi), fmt_bytes(bo), "%.2f" % (bi / bo) if bo else "-", fmt_bytes(bi - bo)))
        if len(rows) > 1:
            rows.append(("all", tmsg, fmt_bytes(tin), fmt_bytes(tout), "%.2f" % (tin / tout) if tout else "-",
                         fmt_bytes(tin - tout)))
        lines.append("per codec (all ranks; messages sent compressed with it):")
        lines.append(table(("codec", "messages", "bytes in", "bytes out", "ratio", "saved"), rows))
    else:
        lines.append("per codec: no message was compressed")
    pipe = t.get("pipelined", {})
    pc = pipe.get("codecs", {}) if isinstance(pipe, dict) else {}
    if pc:
        rows = []
        for name, c in sorted(pc.items(), key=lambda kv: -g(kv[1], "chunks")):
            m, ch = g(c, "messages"), g(c, "chunks")
            rows.append((name, m, ch, "%.1f" % (ch / m) if m else "-", g(c, "raw_chunks"),
                         "%.3f" % g(c, "compress_seconds"), "%.3f" % g(c, "decompress_seconds"),
                         "%.0f%%" % (100 * g(c, "overlap"))))
        lines.append("")
        lines.append("pipelined messages (all ranks; received %s, %.3f s waiting for chunks; overlap: codec time that "
                     "ran while other chunks of the message were on the wire):" % (g(pipe, "received"),
                                                                                  g(pipe, "wait_seconds")))
        lines.append(table(("codec", "messages", "chunks", "per message", "raw chunks", "compress s", "decompress s",
                            "overlap"), rows))
    nbc = t.get("nonblocking_collectives", {})
    if nbc:
        rows = [(name, g(c, "calls"), g(c, "compressed_path"), g(c, "gated"), fmt_bytes(g(c, "bytes")),
                 g(c, "inter_msgs"))
                for name, c in sorted(nbc.items(), key=lambda kv: -g(kv[1], "calls"))]
        lines.append("")
        lines.append("nonblocking and neighbourhood collectives (all ranks; compressed path: run as compi's schedule "
                     "of compressed messages, else the MPI's own; gated: passed to the MPI's own by the gate):")
        lines.append(table(("collective", "calls", "compressed path", "gated", "bytes sent", "inter-node messages"),
                           rows))
    lines.extend(pool_summary(ranks, all_ranks))
    lines.append("")
    if ranks and (all_ranks or len(ranks) <= 16):
        rows = []
        for r in ranks:
            cs = r.get("codecs", {})
            bi = sum(g(c, "bytes_in") for c in cs.values())
            bo = sum(g(c, "bytes_out") for c in cs.values())
            rows.append((r.get("rank"), r.get("node", "?"), g(r, "inter_node_messages"), g(r, "intra_node_messages"),
                         g(r, "raw_small"), g(r, "raw_incompressible"), sum(g(c, "messages") for c in cs.values()),
                         fmt_bytes(bi), fmt_bytes(bo), "%.3f" % g(r, "compress_seconds"),
                         "%.3f" % g(r, "decompress_seconds")))
        lines.append("per rank:")
        lines.append(table(("rank", "node", "inter", "intra", "raw small", "raw incompr", "compressed",
                            "bytes in", "bytes out", "compress s", "decompress s"), rows))
    elif ranks:
        lines.append("per rank: %d ranks, table omitted (--all-ranks shows it)" % len(ranks))
    return "\n".join(lines)


def pool_summary(ranks, all_ranks=False):
    """The codec pool per rank (the report's "pool" sections): helper
    threads, jobs that used them, their items and the share helpers ran,
    collective blocks coded side by side, the measured speedup."""
    pools = [(r.get("rank"), r["pool"]) for r in ranks if isinstance(r.get("pool"), dict)]
    if not pools:
        return []
    lines = [""]
    by_threads = {}
    for rank, p in pools:
        by_threads.setdefault(g(p, "threads"), []).append(rank)
    lines.append("codec pool: helper threads per rank: %s" % "; ".join(
        "%s on %s" % (t, _ranges(v)) for t, v in sorted(by_threads.items())))
    if not any(g(p, "threads") or g(p, "jobs") for _, p in pools):
        return lines
    if all_ranks or len(pools) <= 16:
        rows = [(rank, g(p, "threads"), g(p, "jobs"), g(p, "items"), g(p, "helper_items"),
                 g(p, "collective_blocks_encoded"), g(p, "collective_blocks_decoded"),
                 fmt_opt(p.get("speedup"))) for rank, p in pools]
        lines.append(table(("rank", "threads", "jobs", "items", "on helpers", "coll blocks enc", "coll blocks dec",
                            "speedup"), rows))
    return lines


def _ranges(nums):
    try:
        nums = sorted(int(n) for n in nums)
    except (TypeError, ValueError):
        return ",".join(str(n) for n in nums)
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return "ranks " + ",".join(out)


def links_summary(doc):
    """Per rank and link: what compi knew of it at finalize (engine "links")."""
    rows = []
    for r in doc["ranks"]:
        eng = r.get("engine")
        links = eng.get("links") if isinstance(eng, dict) else None
        for l in links if isinstance(links, list) else []:
            rows.append((r.get("rank"), l.get("link", "?"), l.get("source", "?"), fmt_opt(l.get("latency_us"), "%.1f"),
                         fmt_opt(l.get("bandwidth_MBps"), "%.1f"), g(l, "samples"), g(l, "model_changes"),
                         g(l, "windows_reopened"), g(l, "fits_rejected")))
    if not rows:
        return []
    out = ["  links (per rank: the model its decisions used at finalize; source prior = built-in, learned = "
           "from this run's traffic, probe = measured by compi's probe or COMPI_CALIBRATE=init, file = heuristics):"]
    out.append(table(("rank", "link", "source", "latency us", "MB/s", "samples", "changes", "windows reopened",
                      "fits rejected"), rows))
    why = [(r.get("rank"), l.get("link"), l.get("last_rejection")) for r in doc["ranks"]
           if isinstance(r.get("engine"), dict) for l in (r["engine"].get("links") or []) if l.get("last_rejection")]
    for rank, link, w in why[:4]:
        out.append("  rank %s, %s: a fit was rejected: %s" % (rank, link, w))
    return out


def engine_summary(doc):
    if not has_engine(doc):
        return "adaptive engine: not in this report (mode %s)" % doc.get("mode", "?")
    lines = ["compression engine (mode %s):" % doc.get("mode", "?")]
    # Models: printed once when every rank uses the same ones.
    models = {}
    for r in doc["ranks"]:
        eng = r.get("engine")
        if not isinstance(eng, dict):
            continue
        net = eng.get("network") or {}
        key = (str(g(net, "source", "?")), str(eng.get("codec_model", "?")))
        models.setdefault(key, []).append((r.get("rank"), net))
    for (src, cm), rs in models.items():
        who = "all ranks" if len(models) == 1 else _ranges([x[0] for x in rs])
        # reports of older compi versions carry a send-time correction
        obs = [g(n, "observations", None) for _, n in rs if _is_num(g(n, "observations", None))]
        scales = [g(n, "scale", None) for _, n in rs if _is_num(g(n, "scale", None))]
        notes = []
        if obs:
            notes.append("%s observations" % sum(obs))
            notes.append(("scale %.2f" % scales[0]) if len(set(scales)) == 1 else
                         ("scale %.2f..%.2f" % (min(scales), max(scales)) if scales else "scale -"))
        cal = [g(n, "calibrate_seconds", 0) for _, n in rs]
        if any(_is_num(c) and c > 0 for c in cal):
            notes.append("calibrated in %.2f s" % max(cal))
        lines.append("  %s: network model: %s%s" % (who, src, " (%s)" % ", ".join(notes) if notes else ""))
        lines.append("  %s: codec model: %s" % (who, cm))
    lines.extend(links_summary(doc))
    wins = windows_of(doc)
    if wins:
        rows = []
        for rank, w in wins:
            ys = w.get("yes_bytes")
            rows.append((rank, w.get("family", "p2p"), w.get("class", "?"), w.get("link", "?"), fmt_bytes(w.get("no_bytes")),
                         "inf" if ys is None else fmt_bytes(ys), w.get("codec") or "-", g(w, "messages"),
                         g(w, "raw"), g(w, "evaluated"), g(w, "compressed"), g(w, "mistakes"),
                         g(w, "restarts"), g(w, "reevaluations"),
                         "%s%s" % (g(w, "backoffs"), "*" if w.get("backoff_active") else ""),
                         fmt_opt(w.get("predicted_speedup")), fmt_opt(w.get("observed_speedup"))))
        lines.append("  windows (per rank, family (p2p or one collective), datatype class and link; thresholds: "
                     "below no_bytes raw, from yes_bytes compressed without evaluating):")
        lines.append(table(("rank", "family", "class", "link", "no_bytes", "yes_bytes", "codec", "messages", "raw",
                            "evaluated", "compressed", "mistakes", "restarts", "reevals", "backoffs",
                            "pred x", "obs x"), rows))
        if any(w.get("backoff_active") for _, w in wins):
            lines.append("  (* = backing off at finalize)")
        tot = {k: sum(g(w, k) for _, w in wins) for k in ("messages", "raw", "evaluated", "compressed", "mistakes",
                                                          "restarts", "reevaluations", "backoffs")}
        lines.append("  decisions, all windows: %(messages)s messages: %(raw)s raw, %(evaluated)s evaluated, "
                     "%(compressed)s compressed; %(mistakes)s mistakes, %(restarts)s restarts, "
                     "%(reevaluations)s re-evaluations, %(backoffs)s back-offs" % tot)
    else:
        lines.append("  windows: none (no inter-node message went through the adaptive windows)")
    guided = [(r.get("rank"), r["engine"]["guided"]) for r in doc["ranks"]
              if isinstance(r.get("engine"), dict) and isinstance(r["engine"].get("guided"), dict)]
    if guided:
        # "dropped": rules given up at run time because their compressions stopped paying
        rows = [(rank, g(gd, "rules"), g(gd, "hits"), g(gd, "misses"), g(gd, "dropped", "-"),
                 "yes" if gd.get("fallback") else "no") for rank, gd in guided]
        lines.append("  guided rules:")
        lines.append(table(("rank", "rules", "hits", "misses", "dropped", "fallback"), rows))
        hits, misses = sum(g(x, "hits") for _, x in guided), sum(g(x, "misses") for _, x in guided)
        lines.append("  rule hit rate: %s" % ("%.1f%% (%d of %d)" % (100.0 * hits / (hits + misses), hits, hits + misses)
                                              if hits + misses else "-"))
    return "\n".join(lines)


# ------------------------------------------------------------------ plotting --

def busiest_windows(doc, n):
    wins = [(rank, w) for rank, w in windows_of(doc) if isinstance(w.get("timeline"), dict)
            and len(w["timeline"].get("raw", [])) > 0]
    wins.sort(key=lambda rw: (-g(rw[1], "messages"), str(rw[0])))
    return wins[:n]


def plot(doc, out, max_windows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.gridspec import GridSpec
    except ImportError as e:
        raise ReportError("--plot needs matplotlib (%s): apt-get install python3-matplotlib, "
                          "or bash tools/install-deps.sh" % e)
    wins = busiest_windows(doc, max_windows) if has_engine(doc) else []
    ncols = 2 if len(wins) > 1 else 1
    nrows_tl = (len(wins) + ncols - 1) // ncols
    fig = plt.figure(figsize=(12 if ncols == 2 else 8, 2.6 * nrows_tl + 4.0), layout="constrained")
    gs = GridSpec(nrows_tl + 1, ncols, figure=fig, height_ratios=[2.6] * nrows_tl + [3.6])
    colors = {"raw": "#bbbbbb", "evaluated": "#f0a030", "compressed": "#3070c0"}
    for i, (rank, w) in enumerate(wins):
        ax = fig.add_subplot(gs[i // ncols, i % ncols])
        tl = w["timeline"]
        b = tl["bin"]
        series = [list(map(float, tl.get(k, []))) for k in ("raw", "evaluated", "compressed")]
        nb = len(series[0])
        tot = [sum(s[j] for s in series) for j in range(nb)]
        shares = [[(s[j] / tot[j]) if tot[j] else 0.0 for j in range(nb)] for s in series]
        x = [j * b for j in range(nb)] + [nb * b]
        # step="post": each bin's share holds from its first message to the next bin
        shares = [s + [s[-1]] for s in shares]
        ax.stackplot(x, *shares, step="post", labels=["raw", "evaluated", "compressed"],
                     colors=[colors["raw"], colors["evaluated"], colors["compressed"]], linewidth=0)
        ax.set_xlim(0, nb * b)
        ax.set_ylim(0, 1)
        ax.set_title("rank %s  %s %s  %s  -> %s" % (rank, w.get("family", "p2p"), w.get("class", "?"),
                                                  w.get("link", "?"), w.get("codec") or "raw"), fontsize=9)
        ax.set_ylabel("share", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("message number (bins of %d)" % b, fontsize=8)
        if i == 0:
            ax.legend(loc="lower right", fontsize=7, framealpha=0.8)
    ax = fig.add_subplot(gs[nrows_tl, :])
    codecs = doc["totals"].get("codecs", {})
    items = sorted(((n, g(c, "bytes_in") - g(c, "bytes_out"), g(c, "bytes_in"), g(c, "bytes_out"))
                    for n, c in codecs.items()), key=lambda t: -t[1])
    if items:
        names = [t[0] for t in items]
        top = max(abs(t[1]) for t in items)
        unit, div = next(((u, d) for u, d in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
                          if top >= d), ("B", 1))
        saved = [t[1] / div for t in items]
        bars = ax.bar(names, saved, color="#3070c0", width=0.6)
        ax.set_xlim(-0.6, max(len(names), 4) - 0.4)  # a lone codec gets a bar, not a wall
        for bar, t in zip(bars, items):
            ratio = ("ratio %.2f" % (t[2] / t[3])) if t[3] else ""
            ax.annotate("%s\n%s" % (fmt_bytes(t[1]), ratio), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
        ax.set_ylim(min(0, min(saved) * 1.2), max(max(saved), 1e-9) * 1.25)
    else:
        ax.text(0.5, 0.5, "no message was compressed", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
    ax.set_ylabel("bytes saved (%s)" % (unit if items else "B"))
    ax.set_title("bytes saved per codec, all ranks (mode %s)" % doc.get("mode", "?"), fontsize=10)
    if wins:
        fig.suptitle("compi: decisions per window (busiest %d of %d) and bytes saved"
                     % (len(wins), len(windows_of(doc))), fontsize=11)
    try:
        fig.savefig(out, dpi=110)
    except OSError as e:
        raise ReportError("cannot write %s: %s" % (out, e.strerror or e))
    finally:
        plt.close(fig)
    return len(wins)


# ---------------------------------------------------------------------- main --

def main(argv=None):
    ap = argparse.ArgumentParser(prog="compi report",
                                 description="Summarise (and plot) a compi JSON report (COMPI_REPORT=path).")
    ap.add_argument("report", help="the JSON file a run with COMPI_REPORT=path wrote")
    ap.add_argument("--plot", metavar="OUT.png", help="also draw the decision timeline and bytes saved per codec")
    ap.add_argument("--windows", type=int, default=8, metavar="N",
                    help="timeline plots for the N busiest engine windows (default 8)")
    ap.add_argument("--all-ranks", action="store_true", help="per-rank table even for more than 16 ranks")
    a = ap.parse_args(argv)
    if a.windows < 0:
        ap.error("--windows takes a non-negative number")
    try:
        doc = load_report(a.report)
        print(summary(doc, a.report, a.all_ranks))
        print()
        print(engine_summary(doc))
        if a.plot:
            n = plot(doc, a.plot, a.windows)
            print()
            print("plot: %s (%s)" % (a.plot, ("decision timeline of %d window(s) + bytes saved per codec" % n)
                                     if n else "bytes saved per codec"))
    except ReportError as e:
        print("compi report: error: %s" % e, file=sys.stderr)
        return 1
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
