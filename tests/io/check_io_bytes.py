#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Independent oracle for compi's collective-write redistribution bytes (issue 12).

From the distribution alone (compi_iobench --dump: every rank's file segments,
taken from the pattern's own construction) this recomputes, without compi's
code: ROMIO's file domains (the accessed range [min start, max end) cut into
one equal part per aggregator, ceil), the owner of every byte, the bytes
matrix processes x domains, the `default` placement (domain k to node k's
lowest rank, nodes = rank // ranks-per-node), the optimum of compi's `la`
objective (at most one aggregator per node, maximising the bytes the
aggregators already hold: scipy.optimize.linear_sum_assignment on the nodes x
domains matrix of each node's best member), and the bytes each placement
moves locally / within a node / across nodes.

Then it checks compi's report (COMPI_REPORT json, io_files) for the files of
the `default` and `la` variants of one compi_iobench run (one write call each,
--reps 1 --warmup 0 --no-read):
  * default: the aggregators are the node leaders and local / intra-node /
    inter-node bytes equal the oracle's;
  * la: the aggregators lie on distinct nodes; either their held bytes equal
    scipy's optimum of that objective, or (compi_io_place_la_net) the bytes
    they leave on other nodes equal scipy's minimum on the nodes x domains
    matrix of node sums, or they are default's; local / intra / inter equal
    what the oracle computes for that placement;
  * la never moves more bytes than default, neither to other processes nor
    across nodes.
It also prints the inter-node bytes the best one-aggregator-per-node
placement could reach (scipy on the nodes x domains matrix of node sums), to
tell "la's objective" apart from "what the distribution allows".

usage: check_io_bytes.py --dump FILE --report FILE --rpn R [--label TEXT] [--table]
Exit 0: every check holds; 1: a mismatch (printed with FAILED); 2: bad input.
"""
import argparse
import json
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment


def load_dump(path):
    segs = {}
    ranks = fbytes = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "ranks":
                ranks = int(w[1])
            elif w[0] == "file_bytes":
                fbytes = int(w[1])
            else:
                r, off, ln = int(w[0]), int(w[1]), int(w[2])
                segs.setdefault(r, []).append((off, ln))
    if ranks is None:
        raise ValueError("no 'ranks' line in " + path)
    return ranks, fbytes, [segs.get(r, []) for r in range(ranks)]


def bytes_matrix(segs, ndom):
    """processes x domains bytes, ROMIO's equal domains over the accessed range."""
    starts = [s[0][0] for s in segs if s]
    ends = [s[-1][0] + s[-1][1] for s in segs if s]
    lo, hi = min(starts), max(ends)
    fd = -(-(hi - lo) // ndom)   # ceil
    m = np.zeros((len(segs), ndom), dtype=np.int64)
    for p, ss in enumerate(segs):
        for off, ln in ss:
            a, b = off, off + ln
            while a < b:
                k = (a - lo) // fd
                e = min(b, lo + (k + 1) * fd)
                m[p, k] += e - a
                a = e
    return m, lo, hi


def volumes(m, agg, node_of):
    """local, intra-node, inter-node bytes of a placement agg[k] = process."""
    local = intra = inter = 0
    for k, a in enumerate(agg):
        for p in range(m.shape[0]):
            b = int(m[p, k])
            if p == a:
                local += b
            elif node_of[p] == node_of[a]:
                intra += b
            else:
                inter += b
    return local, intra, inter


def analyse(segs, rpn):
    n = len(segs)
    node_of = [p // rpn for p in range(n)]
    nnodes = node_of[-1] + 1
    m, lo, hi = bytes_matrix(segs, nnodes)
    default = [k * rpn for k in range(nnodes)]
    # la's objective: bytes held by the aggregator, at most one per node
    best = np.zeros((nnodes, nnodes), dtype=np.int64)
    for node in range(nnodes):
        members = [p for p in range(n) if node_of[p] == node]
        best[node] = m[members].max(axis=0)
    r, c = linear_sum_assignment(best, maximize=True)
    la_opt = int(best[r, c].sum())
    # what the distribution allows across nodes with one aggregator per node
    nodesum = np.zeros((nnodes, nnodes), dtype=np.int64)
    for p in range(n):
        nodesum[node_of[p]] += m[p]
    r2, c2 = linear_sum_assignment(nodesum, maximize=True)
    total = int(m.sum())
    inter_best = total - int(nodesum[r2, c2].sum())
    return dict(m=m, node_of=node_of, nnodes=nnodes, default=default, la_opt=la_opt, inter_best=inter_best,
                total=total, lo=lo, hi=hi)


def report_files(path):
    with open(path) as f:
        rep = json.load(f)
    files = rep.get("io_files")
    if files is None:
        raise ValueError("no io_files in " + path)
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--rpn", type=int, required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--table", action="store_true", help="print one TABLE line")
    a = ap.parse_args()
    try:
        nranks, fbytes, segs = load_dump(a.dump)
        files = report_files(a.report)
    except (OSError, ValueError) as e:
        print("check_io_bytes: %s" % e)
        return 2
    an = analyse(segs, a.rpn)
    m, node_of = an["m"], an["node_of"]
    fails = []
    got = {}
    for f in files:
        name = f["file"]
        for v in ("default", "la"):
            if name.endswith("_%s.dat" % v):
                got[v] = f
    for v in ("default", "la"):
        if v not in got:
            print("check_io_bytes: FAILED: no report entry for the %s variant's file" % v)
            return 1
    res = {}
    for v in ("default", "la"):
        f = got[v]
        calls = f["compi_calls"]["write_all"]["calls"]
        if calls != 1 or f.get("passed_to_mpi"):
            fails.append("%s: %d write calls on compi's path, passed %s (expected one call, none passed)"
                         % (v, calls, f.get("passed_to_mpi")))
            continue
        agg = f["aggregators"]
        rd = f["redistribution"]
        rep = (rd["local_bytes"], rd["intra_node_bytes"], rd["inter_node_bytes"])
        if len(agg) != an["nnodes"]:
            fails.append("%s: %d aggregators, %d nodes" % (v, len(agg), an["nnodes"]))
            continue
        if v == "default" and agg != an["default"]:
            fails.append("default: aggregators %s, the node leaders are %s" % (agg, an["default"]))
        if v == "la":
            if len({node_of[p] for p in agg}) != len(agg):
                fails.append("la: two aggregators on one node: %s" % agg)
            # compi's la: the placement holding most bytes (scipy's optimum
            # of held bytes), or, when it moves fewer bytes across nodes and
            # no more than default, the one-per-node placement with the
            # fewest bytes across nodes (scipy's optimum on node sums)
            held = int(sum(m[p, k] for k, p in enumerate(agg)))
            inter = volumes(m, agg, node_of)[2]
            if held != an["la_opt"] and inter != an["inter_best"] and agg != an["default"]:
                fails.append("la: aggregators hold %d bytes (scipy's optimum %d) and move %d across nodes "
                             "(scipy's minimum %d): neither optimum" % (held, an["la_opt"], inter, an["inter_best"]))
            if inter < an["inter_best"]:
                fails.append("la: %d bytes across nodes, below scipy's minimum %d" % (inter, an["inter_best"]))
        want = volumes(m, agg, node_of)
        if tuple(want) != tuple(rep):
            fails.append("%s: report local/intra/inter %s, oracle %s" % (v, rep, want))
        res[v] = want
    if not fails:
        dl, di, dx = res["default"]
        ll, li, lx = res["la"]
        if an["total"] - ll > an["total"] - dl:
            fails.append("la moves more bytes to other processes than default (%d > %d)"
                         % (an["total"] - ll, an["total"] - dl))
        if lx > dx:
            fails.append("la moves more bytes across nodes than default (%d > %d)" % (lx, dx))
    for msg in fails:
        print("check_io_bytes: FAILED: %s %s" % (a.label, msg))
    if res.get("default") and res.get("la"):
        t = an["total"]
        dmv, lmv = t - res["default"][0], t - res["la"][0]
        dx, lx = res["default"][2], res["la"][2]
        pct = lambda d, l: (100.0 * (d - l) / d) if d else 0.0
        line = ("TABLE %s ranks=%d nodes=%d rpn=%d total=%d default_moved=%d la_moved=%d moved_saving=%.1f "
                "default_inter=%d la_inter=%d inter_saving=%.1f best_inter=%d best_inter_saving=%.1f"
                % (a.label, nranks, an["nnodes"], a.rpn, t, dmv, lmv, pct(dmv, lmv), dx, lx, pct(dx, lx),
                   an["inter_best"], pct(dx, an["inter_best"])))
        if a.table or not fails:
            print(line)
    if fbytes is not None and an["total"] != fbytes:
        print("check_io_bytes: FAILED: the dump's segments hold %d bytes, the file %d" % (an["total"], fbytes))
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
