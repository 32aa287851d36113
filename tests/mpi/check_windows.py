#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run tests/mpi/adapt_families under compi (adaptive, COMPI_REPORT) and check
that every rank's adaptive windows count exactly the decisions of each family
(decide.c keeps windows per family group: p2p, and each collective).

usage: check_windows.py --report FILE --ranks N --p2p K --alltoall K --allreduce K -- launcher args...

Expected per rank (every rank its own node, N nodes):
  p2p        K sendrecv messages (the sends decide)
  alltoall   node_aware_calls(alltoall) x (N - 1): a frame per other node
  allreduce  per node-aware call, as the leaders ended it (lib/engine/leaders.h):
             split: a chunk per other leader, then one frame of the rank's
             own reduced chunk for every leader (N frames); whole: its whole
             partial to every other leader (N - 1 frames). The report counts
             both ways (leaders_split_calls, leaders_whole_calls); which one a
             call takes follows the frame sizes the adaptive windows produced.
and no window of any other family. The node-aware call counts come from the
same report (collectives section); at least one call of each must have taken
compi's path, or the check would prove nothing."""
import argparse, sys
import reportcheck


def fail(msg):
    print("FAIL [check_windows] " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    for f in ("p2p", "alltoall", "allreduce"):
        ap.add_argument("--" + f, type=int, required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = reportcheck.command(a.cmd)
    ranks = reportcheck.run(a.report, a.ranks, cmd, fail)
    n = a.ranks
    for r in ranks:
        rank = r.get("rank")
        coll = r.get("collectives") or {}
        nac = {k: (coll.get(k) or {}).get("node_aware_calls", 0) for k in ("alltoall", "allreduce")}
        for k, v in nac.items():
            if not v:
                fail("rank %s: no %s call took compi's path (collectives: %s)" % (rank, k, coll.get(k)))
        ar = coll.get("allreduce") or {}
        split, whole = ar.get("leaders_split_calls", 0), ar.get("leaders_whole_calls", 0)
        if split + whole != nac["allreduce"]:
            fail("rank %s: %d split + %d whole allreduce calls, expected %d node-aware ones" %
                 (rank, split, whole, nac["allreduce"]))
        want = {"p2p": a.p2p, "alltoall": nac["alltoall"] * (n - 1), "allreduce": split * n + whole * (n - 1)}
        got = {}
        for w in (r.get("engine") or {}).get("windows", []):
            fam = w.get("family")
            if fam is None:
                fail("rank %s: a window without a family: %s" % (rank, w))
            got[fam] = got.get(fam, 0) + w.get("messages", 0)
        if got != want:
            fail("rank %s: window messages per family %s, expected %s" % (rank, got, want))
        # a p2p send's outcome is learned once the message was handed to the
        # MPI, never between its compression and its send
        p2p_compressed = sum(w.get("compressed", 0) for w in r["engine"]["windows"] if w.get("family") == "p2p")
        after = r.get("outcomes_after_send", 0)
        if p2p_compressed == 0 or after < p2p_compressed:
            fail("rank %s: %d outcome(s) recorded after their send, %d p2p message(s) compressed" %
                 (rank, after, p2p_compressed))
        print("rank %s: windows per family %s (as expected)" % (rank, got))
    print("PASS [check_windows] %d ranks" % n)


if __name__ == "__main__":
    main()
