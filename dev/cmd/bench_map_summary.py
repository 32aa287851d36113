#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table, rankings and verdicts of `compi bench map`.

usage: bench_map_summary.py RESULTS.tsv PREDICTED.tsv

RESULTS.tsv: one line per run (app, mpi, mode, placement, rep, status,
seconds, checksum, log, why), as dev/cmd/bench_map.sh writes it.
PREDICTED.tsv: app, mpi, mode, placement, predicted cost in microseconds
(compi map's own figure for block, cyclic and the mapper it kept, from the
mode's own trace) [, mapper].

Ratios are paired: the placements of one round ran back to back, so each
round gives block_time / placement_time, and the reported figure is the
median of those with a distribution-free interval (bench_apps_summary's
median_ci). The mapped placement is compared with the faster of block and
cyclic *in each round*: a verdict "faster" or "slower" needs the interval to
exclude 1, otherwise "within noise" (and with fewer than 5 rounds the
interval covers the median with less than 90 %: "too-few-rounds"). The predicted ranking (by cost) is
compared with the measured one (by median time); two placements whose
paired ratio interval contains 1 (or rests on fewer than 5 rounds) are a tie for the measured ranking, so a
mismatch only between tied placements is "within-noise", not "no".

Exit status 1 when a run failed or placements disagree on the checksum.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_apps_summary import median_ci  # noqa: E402

PLACEMENTS = ["block", "cyclic", "mapped"]
MIN_COVER = 0.9   # a verdict needs an interval covering the median with >= 90 % (5 rounds or more)


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 9:
                continue
            rows.append(dict(app=p[0], mpi=p[1], mode=p[2], pl=p[3], rep=int(p[4]), status=p[5], t=p[6],
                             cs=p[7], log=p[8], why=p[9] if len(p) > 9 else ""))
    return rows


def load_pred(path):
    pred, kept = {}, {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            pred[(p[0], p[1], p[2], p[3])] = float(p[4])
            if p[3] == "mapped" and len(p) > 5:
                kept[(p[0], p[1], p[2])] = p[5]
    return pred, kept


def times(rows):
    return {r["rep"]: float(r["t"]) for r in rows if r["status"] == "OK"}


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def order_with_ties(names, key):
    return " < ".join(sorted(names, key=key))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rows = load(argv[1])
    pred, kept = load_pred(argv[2])
    bad = 0
    groups = {}
    for r in rows:
        groups.setdefault((r["app"], r["mpi"], r["mode"]), {}).setdefault(r["pl"], []).append(r)
    for r in rows:
        if r["status"] != "OK":
            bad = 1
            print("FAILED: %s %s %s %s rep %d: %s (log %s)" % (r["app"], r["mpi"], r["mode"], r["pl"], r["rep"],
                                                                 r["why"], r["log"]))
    for key in sorted(groups):
        app, mpi, mode = key
        g = groups[key]
        sums = {r["cs"] for pl in g for r in g[pl] if r["status"] == "OK" and r["cs"] != "-"}
        if len(sums) > 1:
            bad = 1
            print("FAILED: %s %s %s: placements disagree on the checksum: %s" % (app, mpi, mode, " ".join(sorted(sums))))
        tb = times(g.get("block", []))
        print("== %s | %s | %s (mapped = %s) ==" % (app, mpi, mode, kept.get((app, mpi, mode), "?")))
        print("%-8s %14s %10s %21s %9s %17s %6s" % ("place", "predicted_us", "median_s", "range_s", "block/it",
                                                      "interval", "cover"))
        med = {}
        for pl in PLACEMENTS:
            t = times(g.get(pl, []))
            if not t:
                continue
            med[pl] = statistics.median(t.values())
            ratios = [tb[k] / t[k] for k in sorted(tb.keys() & t.keys()) if t[k] > 0]
            r_med = statistics.median(ratios) if ratios else None
            lo, hi, cov = median_ci(ratios)
            p = pred.get((app, mpi, mode, pl))
            print("%-8s %14s %10.3f %10.3f-%-10.3f %9s %8s-%-8s %5.0f%%" % (
                pl, fmt(p, ".0f"), med[pl], min(t.values()), max(t.values()), fmt(r_med), fmt(lo), fmt(hi),
                100 * cov))
            print("RESULT bench=map app=%s mpi=%s mode=%s placement=%s predicted_us=%s median_s=%.4f vs_block=%s "
                  "lo=%s hi=%s n=%d" % (app, mpi, mode, pl, fmt(p, ".0f"), med[pl], fmt(r_med, ".4f"),
                                         fmt(lo, ".4f"), fmt(hi, ".4f"), len(t)))
        # mapped vs the faster of block and cyclic, per round
        tc, tm = times(g.get("cyclic", [])), times(g.get("mapped", []))
        reps = sorted(tb.keys() & tc.keys() & tm.keys())
        ratios = [min(tb[k], tc[k]) / tm[k] for k in reps if tm[k] > 0]
        if ratios:
            lo, hi, cov = median_ci(ratios)
            v = "faster" if lo > 1 else "slower" if hi < 1 else "within-noise"
            if cov < MIN_COVER:
                v = "too-few-rounds"
            print("VERDICT app=%s mpi=%s mode=%s mapped_vs_best=%.3f lo=%.3f hi=%.3f cover=%.0f%% n=%d verdict=%s" % (
                app, mpi, mode, statistics.median(ratios), lo, hi, 100 * cov, len(ratios), v))
        # predicted vs measured ranking
        pls = [pl for pl in PLACEMENTS if pl in med and (app, mpi, mode, pl) in pred]
        if len(pls) >= 2:
            pr = sorted(pls, key=lambda pl: (pred[(app, mpi, mode, pl)], PLACEMENTS.index(pl)))
            ms = sorted(pls, key=lambda pl: (med[pl], PLACEMENTS.index(pl)))

            def tied(a, b):
                ta, tb2 = times(g[a]), times(g[b])
                rs = [ta[k] / tb2[k] for k in sorted(ta.keys() & tb2.keys()) if tb2[k] > 0]
                if not rs:
                    return True
                lo2, hi2, cov2 = median_ci(rs)
                return cov2 < MIN_COVER or lo2 <= 1 <= hi2

            def pred_tied(a, b):
                return pred[(app, mpi, mode, a)] == pred[(app, mpi, mode, b)]

            if pr == ms:
                match = "yes"
            else:
                # a disagreement counts only for pairs both ordered strictly:
                # different predictions and a measured difference beyond noise
                conflict = False
                for i, a in enumerate(pls):
                    for b in pls[i + 1:]:
                        if pred_tied(a, b) or tied(a, b):
                            continue
                        if (pred[(app, mpi, mode, a)] < pred[(app, mpi, mode, b)]) != (med[a] < med[b]):
                            conflict = True
                match = "no" if conflict else "within-noise"
            print("RANKING app=%s mpi=%s mode=%s predicted=%s measured=%s match=%s" % (
                app, mpi, mode, "<".join(pr), "<".join(ms), match))
        print()
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
