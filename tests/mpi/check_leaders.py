#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run tests/mpi/coll_all under compi with the node leaders' way of Allreduce
and Reduce forced to split, forced to whole, and left to compi (auto), and
check that:
  - every run passes (coll_all checks every result against its own oracle);
  - the three runs print the same reduction digest (a hash of every Allreduce
    and Reduce result, floating point included): the two ways combine in the
    same order, so they must give the same bits (engine/leaders.h);
  - the report shows what ran: leaders_whole_calls > 0 and no split call in
    the whole run, the reverse in the split run (node leaders only).

usage: check_leaders.py --report FILE --envflag -x|-genv -- launcher args...
(the script adds COMPI_COLL_LEADERS to the ranks' environment with the
launcher's flag: -x for Open MPI's mpirun, -genv for MPICH's mpiexec)."""
import argparse, json, os, re, subprocess, sys


def fail(msg):
    print("FAIL [check_leaders] " + msg)
    sys.exit(1)


def run(cmd, envflag, way, report):
    if os.path.exists(report):
        os.remove(report)
    launcher, rest = cmd[0], cmd[1:]
    extra = ["-genv", "COMPI_COLL_LEADERS", way] if envflag == "-genv" else ["-x", "COMPI_COLL_LEADERS=" + way]
    full = [launcher] + extra + rest
    print("running:", " ".join(full), flush=True)
    p = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout
    fails = [l for l in out.splitlines() if l.startswith("FAIL [")]
    if p.returncode != 0 or fails:
        print(out)
        fail("%s: coll_all failed (exit %d): %s" % (way, p.returncode, fails[:3]))
    m = re.search(r"reduction digest (0x[0-9a-f]+)", out)
    if not m:
        print(out)
        fail("%s: no reduction digest printed" % way)
    with open(report) as fh:
        doc = json.load(fh)
    split = whole = 0
    for r in doc.get("ranks") or []:
        coll = r.get("collectives") or {}
        for kind in ("allreduce", "reduce"):
            c = coll.get(kind) or {}
            split += c.get("leaders_split_calls", 0)
            whole += c.get("leaders_whole_calls", 0)
    print("%s: digest %s, leaders' calls split %d, whole %d" % (way, m.group(1), split, whole))
    return m.group(1), split, whole


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--envflag", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    d_split, s1, w1 = run(cmd, a.envflag, "split", a.report)
    d_whole, s2, w2 = run(cmd, a.envflag, "whole", a.report)
    d_auto, s3, w3 = run(cmd, a.envflag, "auto", a.report)
    if w1 != 0 or s1 == 0:
        fail("split run: %d split and %d whole leaders' calls; expected only split" % (s1, w1))
    if s2 != 0 or w2 == 0:
        fail("whole run: %d split and %d whole leaders' calls; expected only whole" % (s2, w2))
    if not (d_split == d_whole == d_auto):
        fail("reduction digests differ: split %s, whole %s, auto %s" % (d_split, d_whole, d_auto))
    print("PASS [check_leaders] same reduction digest %s for split, whole and auto (auto: %d split, %d whole)"
          % (d_split, s3, w3))


if __name__ == "__main__":
    main()
