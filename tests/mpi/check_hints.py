#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs comm_hints under compi (env codec lz4) and checks the report: per
rank, world and the dup made before set_info go lz4 (2 messages), the
compi_codec=zstd communicator and the one switched by MPI_Comm_set_info go
zstd (2), and compi_mode=off is not framed at all (4 framed sends).

usage: check_hints.py --report FILE --ranks N -- launcher args..."""
import argparse, json, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--report", required=True)
ap.add_argument("--ranks", type=int, required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
rc = subprocess.call(cmd)
if rc != 0:
    print(f"FAIL [check_hints] program exited {rc}")
    sys.exit(1)
r = json.load(open(a.report))
bad = 0
for rk in r["ranks"]:
    c = rk["codecs"]
    got = (c.get("lz4", {}).get("messages", 0), c.get("zstd", {}).get("messages", 0))
    ok = got == (2, 2) and rk["inter_node_messages"] == 4
    print(f"{'PASS' if ok else 'FAIL'} [check_hints] rank {rk['rank']}: lz4 {got[0]} zstd {got[1]} "
          f"(expected 2 and 2), framed inter-node sends {rk['inter_node_messages']} (expected 4: the compi_mode=off communicator is not framed)")
    bad += not ok
sys.exit(1 if bad or len(r["ranks"]) != a.ranks else 0)
