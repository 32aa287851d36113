#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run tests/mpi/coll_watch under compi (adaptive, COMPI_REPORT) and check
that the raw zone's watch looked at collective blocks: every rank's
alltoall window, and the bcast root's bcast window, counted a data re-check
(the random blocks were decided raw, the zeros that followed were noticed
before the next gate trial), and compressed some blocks.

usage: check_watch.py --report FILE --ranks N -- launcher args..."""
import argparse, sys
import reportcheck


def fail(msg):
    print("FAIL [check_watch] " + msg)
    sys.exit(1)


def windows(rank, family):
    return [w for w in (rank.get("engine") or {}).get("windows", []) if w.get("family") == family]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = reportcheck.command(a.cmd)
    ranks = reportcheck.run(a.report, a.ranks, cmd, fail)
    for r in ranks:
        fams = ["alltoall"] + (["bcast"] if r.get("rank") == 0 else [])
        for fam in fams:
            ws = windows(r, fam)
            rechecks = sum(w.get("data_rechecks", 0) for w in ws)
            compressed = sum(w.get("compressed", 0) + w.get("evaluated", 0) for w in ws)
            if not ws:
                fail("rank %s: no %s window (its collectives did not take compi's path?)" % (r.get("rank"), fam))
            if rechecks < 1:
                fail("rank %s: the %s windows counted no data re-check: %s" % (r.get("rank"), fam, ws))
            print("rank %s: %s windows: %d data re-check(s), %d blocks evaluated or compressed" %
                  (r.get("rank"), fam, rechecks, compressed))
    print("PASS [check_watch] %d ranks" % a.ranks)


if __name__ == "__main__":
    main()
