#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The guided strategy end to end on a real MPI program: trace, guide, replay.

usage: check_guided.py --dir D --compi TOOL --mpi MPI --heuristics H --ranks N
                       --trace <launcher cmd...> --guided <launcher cmd...>

1. runs the --trace command (its environment sets COMPI_MODE=trace
   COMPI_TRACE=D): the program must pass its own checks;
2. runs `TOOL guide D --heuristics H --mpi MPI`: one rules file per rank;
3. runs the --guided command (COMPI_MODE=guided COMPI_RULES=D
   COMPI_REPORT=D/report.json): the program must pass again, and every rank's
   report must show its rules loaded (no fallback), at least one hit over all
   ranks, and no miss: every message the replay decided was traced, the
   rooted collectives' included.

With --expect-dropped the replay runs on other data than the trace (same
messages, e.g. random bytes where the trace saw text): every rank must then
drop at least one rule (its compressions stopped paying), decide those
messages adaptively afterwards (misses > 0), and compress in vain fewer than
half of its (at least 20) messages.
"""
import json, os, shutil, subprocess, sys


def fail(msg):
    print("FAIL [check_guided] " + msg)
    sys.exit(1)


def run(what, cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print("--- %s: %s\n%s" % (what, " ".join(cmd), p.stdout))
    if p.returncode != 0 or "FAIL [" in p.stdout:
        fail("%s failed (exit %d)" % (what, p.returncode))
    return p.stdout


def main():
    argv = sys.argv[1:]
    if "--trace" not in argv or "--guided" not in argv:
        fail(__doc__)
    i, j = argv.index("--trace"), argv.index("--guided")
    opts, trace_cmd, guided_cmd = argv[:i], argv[i + 1:j], argv[j + 1:]
    expect_dropped = "--expect-dropped" in opts
    if expect_dropped:
        opts.remove("--expect-dropped")
    o = dict(zip(opts[0::2], opts[1::2]))
    d, ranks = o["--dir"], int(o["--ranks"])
    shutil.rmtree(d, ignore_errors=True)
    run("trace run", trace_cmd)
    for r in range(ranks):
        if not os.path.exists(os.path.join(d, "trace.%d.bin" % r)):
            fail("no trace.%d.bin in %s" % (r, d))
    run("compi guide", ["bash", o["--compi"], "guide", d, "--heuristics", o["--heuristics"], "--mpi", o["--mpi"]])
    for r in range(ranks):
        if not os.path.exists(os.path.join(d, "rules.%d.txt" % r)):
            fail("compi guide wrote no rules.%d.txt" % r)
    run("guided run", guided_cmd)
    rep = json.load(open(os.path.join(d, "report.json")))
    hits = 0
    for rk in rep["ranks"]:
        g = rk.get("engine", {}).get("guided")
        if g is None:
            fail("rank %s: no guided section in the report" % rk.get("rank"))
        print("rank %s: rules %d hits %d misses %d dropped %d fallback %s" % (
            rk["rank"], g["rules"], g["hits"], g["misses"], g["dropped"], g["fallback"]))
        if g["fallback"]:
            fail("rank %s fell back to adaptive: rules not loaded" % rk["rank"])
        if expect_dropped:
            decided, wasted = g["hits"] + g["misses"], rk["raw_incompressible"]
            print("rank %s: %d of %d messages compressed in vain" % (rk["rank"], wasted, decided))
            if decided < 20 or 2 * wasted >= decided:
                fail("rank %s: %d of %d messages compressed in vain (expected under half of at least 20)" % (
                    rk["rank"], wasted, decided))
            if g["dropped"] < 1:
                fail("rank %s kept its rules although its data no longer compresses" % rk["rank"])
            if g["misses"] < 1:
                fail("rank %s: no message was decided adaptively after the drop" % rk["rank"])
        elif g["misses"]:
            fail("rank %s: %d messages had no rule (not traced?)" % (rk["rank"], g["misses"]))
        hits += g["hits"]
    if hits == 0:
        fail("no rule was used")
    print("PASS [check_guided] %d ranks, %d rule hits, %s" % (
        ranks, hits, "rules dropped on changed data" if expect_dropped else "no misses"))


if __name__ == "__main__":
    main()
