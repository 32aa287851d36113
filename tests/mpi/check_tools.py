#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compi next to another PMPI tool (tests/mpi/pmpi_tool.c): run a program with
both preloaded in one order and check what compi decided and said.

usage: check_tools.py --order compi-first|tool-first --ranks N --report FILE --tool-report PREFIX
                      -- launcher args...
(the launcher must pass PMPI_TOOL_REPORT=PREFIX to the ranks: the tool writes PREFIX.<pid>)

tool-first: the tool shadows compi's MPI_Send/MPI_Recv/MPI_Bcast/MPI_Finalize, so
  compi must be off on every rank (no report written, nothing compressed), say so
  once (rank 0) naming libpmpi_tool.so and the shadowed calls; the program
  passes; the tool's report shows the sends it counted.
compi-first: compi works (the report shows compressed bytes), warns once that
  the tool after it will not see its calls; the program passes; the tool still
  reports (at exit) and counted MPI_Comm_split, which compi does not wrap, but
  no MPI_Send (compi took those).
"""
import argparse, glob, json, os, re, subprocess, sys


def fail(msg, out=""):
    print(out)
    print("FAIL [check_tools] " + msg)
    sys.exit(1)


ap = argparse.ArgumentParser()
ap.add_argument("--order", choices=["compi-first", "tool-first"], required=True)
ap.add_argument("--ranks", type=int, required=True)
ap.add_argument("--report", required=True)
ap.add_argument("--tool-report", required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
for f in glob.glob(a.report + "*") + glob.glob(a.tool_report + ".*"):
    os.remove(f)
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
out = p.stdout
if p.returncode != 0:
    fail("program exited with %d" % p.returncode, out)
if "FAIL [" in out:
    fail("the program's own checks failed", out)
if not re.search(r"\d+ passed, 0 failed", out):
    fail("no pass summary from the program", out)
tool_text = "".join(open(f).read() for f in sorted(glob.glob(a.tool_report + ".*")))
out += tool_text
tool = re.findall(r"pmpi_tool\[(-?\d+)\]: report \(([^)]*)\): MPI_Send (\d+) calls.*MPI_Comm_split (\d+) calls", out)
if len(tool) != a.ranks:
    fail("expected %d pmpi_tool report lines, got %d" % (a.ranks, len(tool)), out)
off = re.findall(r"compi\[0\]: another PMPI tool comes before compi.*shadows these calls of compi's \((.*?)\); compi is OFF", out)
behind = re.findall(r"compi\[0\]: a PMPI tool comes after compi in symbol lookup order \((.*?)\); compi works", out)
rep = os.path.exists(a.report)
for line in out.splitlines():
    if line.startswith("compi[0]: ") and "PMPI tool" in line:
        print("compi said: " + line)
if a.order == "tool-first":
    if len(off) != 1:
        fail("expected compi's pass-through message exactly once, got %d" % len(off), out)
    for call in ("libpmpi_tool.so", "MPI_Send", "MPI_Recv", "MPI_Bcast", "MPI_Finalize"):
        if call not in off[0]:
            fail("the pass-through message does not name %s: %s" % (call, off[0]), out)
    if "MPI_Isend" in off[0] or "MPI_Comm_split" in off[0]:
        fail("the pass-through message names calls the tool does not shadow: %s" % off[0], out)
    if behind:
        fail("unexpected 'tool after compi' warning", out)
    if rep:
        fail("compi wrote a report although it should be off", out)
    if sum(int(t[2]) for t in tool) == 0:
        fail("the tool in front counted no MPI_Send", out)
    print("PASS [check_tools] tool first: compi off everywhere, said why once; tool saw %d sends"
          % sum(int(t[2]) for t in tool))
else:
    if off:
        fail("compi switched itself off although it is first", out)
    if len(behind) != 1 or "libpmpi_tool.so" not in behind[0] or "MPI_Send" not in behind[0]:
        fail("expected one warning naming libpmpi_tool.so and MPI_Send behind compi, got %s" % behind, out)
    if "MPI_Comm_split" in behind[0]:
        fail("the warning names MPI_Comm_split, which compi does not wrap", out)
    if not rep:
        fail("compi wrote no report (COMPI_REPORT)", out)
    doc = json.load(open(a.report))
    codecs = doc.get("totals", {}).get("codecs", {})
    bin_ = sum(c.get("bytes_in", 0) for c in codecs.values())
    bout = sum(c.get("bytes_out", 0) for c in codecs.values())
    if not (bin_ > 0 and 0 < bout < bin_):
        fail("report shows nothing compressed: %s" % codecs, out)
    if sum(int(t[2]) for t in tool) != 0:
        fail("the tool behind compi counted MPI_Send calls compi took", out)
    if sum(int(t[3]) for t in tool) == 0:
        fail("the tool behind compi counted no MPI_Comm_split (not compi's)", out)
    print("PASS [check_tools] compi first: compressed %d -> %d bytes, warned once; tool reported" % (bin_, bout))
