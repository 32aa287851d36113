#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of dev/cmd/bench_results_md.py (the docs/results.md rows printed by
compi bench io / coll --markdown) on synthetic RESULT lines with known cells."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "dev", "cmd"))
import bench_results_md as M  # noqa: E402

fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL " + what)


IO = """\
=== compi bench io: a table line, not a result ===
RESULT mpi=mpich io=romio rate=100mbit ppn=2 pattern=bips3d load=100 ranks=4 nodes=2 op=write variant=mpi reps=7 ratio=1.0 lo=1.0 hi=1.0 coverage=0.984 identical=yes
RESULT mpi=mpich io=romio rate=100mbit ppn=2 pattern=bips3d load=100 ranks=4 nodes=2 op=write variant=la-z reps=7 ratio=0.8324 lo=0.7665 hi=0.9166 coverage=0.984 identical=yes
RESULT mpi=mpich io=romio rate=100mbit ppn=2 pattern=bips3d load=100 ranks=4 nodes=2 op=read variant=la-z reps=7 ratio=1.2 lo=0.9 hi=1.5 coverage=0.984 identical=yes
RESULT mpi=openmpi io=ompio rate=100mbit ppn=4 pattern=stem load=0 ranks=8 nodes=2 op=write variant=la-z reps=7 ratio=1.65 lo=1.32 hi=2.21 coverage=0.984 identical=yes
RESULT mpi=openmpi io=ompio rate=100mbit ppn=4 pattern=stem load=0 ranks=8 nodes=2 op=read variant=la-z reps=7 ratio=1.1 lo=1.05 hi=1.3 coverage=0.984 identical=no
""".splitlines()
rows = M.io_table(M.parse(IO))
check(rows[0] == "| MPI | MPI-IO | rate | ranks/node | pattern | write la+adaptive | read la+adaptive |", "io header: %s" % rows[0])
check(len(rows) == 4, "io: two rows (the mpi reference is no column): %s" % rows)
check(rows[2] == "| Open MPI | OMPIO | 100mbit | 4 | `stem` | **1.65 [1.32, 2.21]** | **1.10 [1.05, 1.30]** DIFFERENT |",
      "io: Open MPI first, bold above 1, a differing file marked: %s" % rows[2])
check(rows[3] == "| MPICH | ROMIO | 100mbit | 2 | `bips3d:100` | 0.83 [0.77, 0.92] slower | 1.20 [0.90, 1.50] |",
      "io: slower beyond noise marked, within noise plain: %s" % rows[3])

COLL = """\
RESULT mpi=openmpi where=vcluster nodes=4 ppn=2 rate=100mbit coll=alltoall size=1048576 data=text reps=7 ratio=2.33 lo=2.19 hi=3.32 coverage=0.984 type=byte
RESULT mpi=openmpi where=vcluster nodes=4 ppn=2 rate=100mbit coll=alltoall size=65536 data=text reps=7 ratio=1.0 lo=0.9 hi=1.1 coverage=0.984 type=byte
RESULT mpi=mpich where=intra nodes=1 ppn=2 rate=- coll=bcast size=1048576 data=random reps=5 ratio=1.0 lo=0.97 hi=1.04 coverage=0.938 type=byte
""".splitlines()
rows = M.coll_table(M.parse(COLL))
check(rows[0] == "| collective | size | Open MPI 4x2 at 100mbit text | MPICH this node, 2 ranks random |", "coll header: %s" % rows[0])
check(rows[2:] == ["| alltoall | 64 KiB | 1.00 [0.90, 1.10] | - |",
                   "| alltoall | 1 MiB | **2.33 [2.19, 3.32]** | - |",
                   "| bcast | 1 MiB | - | 1.00 [0.97, 1.04] |"], "coll rows: %s" % rows[2:])

head = M.header(M.parse(IO), "tools/compi bench io", "1.0 1.0 1.0", "2.0 2.0 2.0", "MPI's own")
check(any("Command: `tools/compi bench io`" in h for h in head), "header names the command")
check(any("load average 1.0 1.0 1.0 before, 2.0 2.0 2.0 after" in h for h in head), "header states the loads")
check(any("7 repetitions" in h and "coverage 0.984" in h for h in head), "header states reps and coverage")
check(any(h.startswith("- compi ") and "0." in h for h in head), "header names compi's version")

print("%s: %d failed" % ("FAIL" if fails else "PASS", fails))
sys.exit(1 if fails else 0)
