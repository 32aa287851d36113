#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of dev/cmd/bench_map_summary.py (compi bench map's table) on
synthetic results with known answers: paired ratios against block, the
mapped-vs-best-of-block/cyclic verdict, the predicted vs measured ranking
(with ties inside noise), checksum disagreement and failed runs."""
import io
import os
import sys
import tempfile
from contextlib import redirect_stdout

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "dev", "cmd"))
import bench_map_summary as M  # noqa: E402

fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += 0 if cond else 1


def run(results, pred):
    d = tempfile.mkdtemp()
    r, p = os.path.join(d, "results.tsv"), os.path.join(d, "predicted.tsv")
    with open(r, "w") as f:
        for app, pl, rep, t, *rest in results:
            cs = rest[0] if rest else "cafe"
            status = rest[1] if len(rest) > 1 else "OK"
            f.write("\t".join([app, "openmpi", "plain", pl, str(rep), status, "NA" if status != "OK" else "%.6f" % t,
                               cs, "log", ""]) + "\n")
    with open(p, "w") as f:
        for app, pl, cost in pred:
            f.write("\t".join([app, "openmpi", "plain", pl, str(cost)] + (["swap"] if pl == "mapped" else [])) + "\n")
    out = io.StringIO()
    with redirect_stdout(out):
        rc = M.main(["x", r, p])
    return rc, out.getvalue()


def line(out, prefix, app):
    for l in out.splitlines():
        if l.startswith(prefix) and (" app=%s " % app) in l:
            return l
    return ""


# app "a": mapped 2x faster than block, cyclic 1.25x; 7 rounds with jitter
res, pred = [], [("a", "block", 1000), ("a", "cyclic", 800), ("a", "mapped", 400)]
for rep in range(1, 8):
    j = 1 + 0.01 * rep
    res += [("a", "block", rep, 2.0 * j), ("a", "cyclic", rep, 1.6 * j), ("a", "mapped", rep, 1.0 * j)]
# app "b": all alike within noise; predictions differ (block best)
pred += [("b", "block", 100), ("b", "cyclic", 200), ("b", "mapped", 150)]
noise = [1.00, 1.04, 0.97, 1.02, 0.99, 1.03, 0.96]
for rep in range(1, 8):
    res += [("b", "block", rep, noise[rep - 1]), ("b", "cyclic", rep, noise[(rep + 2) % 7]),
            ("b", "mapped", rep, noise[(rep + 4) % 7])]
# app "c": mapped clearly SLOWER than cyclic; predicted mapped best -> ranking "no"
pred += [("c", "block", 300), ("c", "cyclic", 200), ("c", "mapped", 100)]
for rep in range(1, 8):
    res += [("c", "block", rep, 3.0), ("c", "cyclic", rep, 1.0 + 0.001 * rep), ("c", "mapped", rep, 2.0)]
rc, out = run(res, pred)
print(out)
check(rc == 0, "all runs OK, one checksum: exit 0")
a = line(out, "RESULT", "a")
check("placement=block" in a and "vs_block=1.0000" in a, "block against itself: 1")
am = [l for l in out.splitlines() if l.startswith("RESULT") and "app=a " in l and "placement=mapped" in l]
check(am and "vs_block=2.0000" in am[0] and "predicted_us=400" in am[0], "a: mapped 2x block, predicted 400")
v = line(out, "VERDICT", "a")
check("mapped_vs_best=1.600" in v and "verdict=faster" in v, "a: mapped 1.6x the best of block/cyclic: faster")
check("predicted=mapped<cyclic<block" in line(out, "RANKING", "a") and "match=yes" in line(out, "RANKING", "a"),
      "a: ranking predicted = measured")
check("verdict=within-noise" in line(out, "VERDICT", "b"), "b: within noise")
check("match=within-noise" in line(out, "RANKING", "b") or "match=yes" in line(out, "RANKING", "b"),
      "b: orders differing only inside noise are not a mismatch (%s)" % line(out, "RANKING", "b"))
check("verdict=slower" in line(out, "VERDICT", "c"), "c: mapped slower than cyclic beyond noise")
check("match=no" in line(out, "RANKING", "c"), "c: predicted mapped<cyclic, measured cyclic<mapped: no")

# the best of block/cyclic is taken per round: block wins odd rounds, cyclic even ones
res = []
for rep in range(1, 8):
    res += [("d", "block", rep, 1.0 if rep % 2 else 3.0), ("d", "cyclic", rep, 3.0 if rep % 2 else 1.0),
            ("d", "mapped", rep, 2.0)]
rc, out = run(res, [("d", "block", 1), ("d", "cyclic", 1), ("d", "mapped", 1)])
check("mapped_vs_best=0.500" in line(out, "VERDICT", "d") and "verdict=slower" in line(out, "VERDICT", "d"),
      "d: per-round best of block/cyclic (medians alone would say 3.0 vs 2.0)")

# failures: a checksum that differs between placements, a failed run
res = [("e", "block", 1, 1.0, "aaaa"), ("e", "cyclic", 1, 1.0, "aaaa"), ("e", "mapped", 1, 1.0, "bbbb")]
rc, out = run(res, [])
check(rc == 1 and "disagree on the checksum" in out, "differing checksums: FAILED, exit 1")
res = [("f", "block", 1, 1.0), ("f", "cyclic", 1, 0, "-", "FAIL"), ("f", "mapped", 1, 1.0)]
rc, out = run(res, [])
check(rc == 1 and "FAILED: f openmpi plain cyclic rep 1" in out, "a failed run: named, exit 1")

# one or four rounds are too few for a verdict (the interval would cover the median with < 90 %)
for n in (1, 4):
    res = []
    for rep in range(1, n + 1):
        res += [("g", "block", rep, 2.0), ("g", "cyclic", rep, 2.0), ("g", "mapped", rep, 1.0)]
    rc, out = run(res, [("g", "block", 2), ("g", "cyclic", 3), ("g", "mapped", 1)])
    check("verdict=too-few-rounds" in line(out, "VERDICT", "g"), "%d round(s): too few for a verdict" % n)
    check("match=no" not in line(out, "RANKING", "g"), "%d round(s): no ranking mismatch claimed" % n)

print("%d failed" % fails)
sys.exit(1 if fails else 0)
