#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run tests/mpi/coll_gate under compi and check the report's per-collective
counters against the paths the collective gates must have chosen.

usage: check_gate.py --report FILE --ranks N --expect KIND:CALLS:COMPI:GATED ...
                     [--expect-nbc KIND:CALLS:COMPI:GATED ...] -- launcher args...

Each --expect names a collective of the report's "collectives" section and,
for every rank: its calls, the calls on compi's node-aware path
(node_aware_calls) and the calls the gate sent to the MPI's own algorithm
(gated_calls). The run injects the call times (COMPI_DEBUG_COLL_TIMES), so
the numbers follow from trials.h's schedule, worked out by hand in
CMakeLists.txt, and nothing is timed. --expect-nbc does the same for a
nonblocking or neighbourhood collective (tests/mpi/nbc_gate, the report's
"nonblocking_collectives": calls, compressed_path, gated), whose gate
decides from the data alone."""
import argparse, sys
import reportcheck


def fail(msg):
    print("FAIL [check_gate] " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expect-nbc", action="append", default=[])
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = reportcheck.command(a.cmd)
    want = {}
    for e in a.expect:
        kind, calls, compi, gated = e.split(":")
        want[kind] = {"calls": int(calls), "node_aware_calls": int(compi), "gated_calls": int(gated)}
    want_nbc = {}
    for e in a.expect_nbc:
        kind, calls, compi, gated = e.split(":")
        want_nbc[kind] = {"calls": int(calls), "compressed_path": int(compi), "gated": int(gated)}
    ranks = reportcheck.run(a.report, a.ranks, cmd, fail)
    for r in ranks:
        coll = r.get("collectives") or {}
        for kind, w in want.items():
            got = {k: (coll.get(kind) or {}).get(k) for k in w}
            if got != w:
                fail("rank %s, %s: %s, expected %s" % (r.get("rank"), kind, got, w))
        nbc = r.get("nonblocking_collectives") or {}
        for kind, w in want_nbc.items():
            got = {k: (nbc.get(kind) or {}).get(k) for k in w}
            if got != w:
                fail("rank %s, %s: %s, expected %s" % (r.get("rank"), kind, got, w))
        print("rank %s: %s %s (as expected)" % (r.get("rank"), {k: coll.get(k) for k in want},
                                                {k: nbc.get(k) for k in want_nbc}))
    print("PASS [check_gate] %d ranks" % a.ranks)


if __name__ == "__main__":
    main()
