#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run an MPI program under compi with COMPI_VERBOSE=1 and check what a user reads.

usage: check_verbose.py --ranks N --expect adaptive|fixed:CODEC|one-node -- launcher args...

At level 1 rank 0 alone speaks, whatever the number of ranks:
  * the init lines (compi[R]: ...) come from rank 0 only, and exactly as many
    as the mode prints (adaptive: the mode and the engine's models; fixed:
    the mode; one node: one line saying compi is inactive);
  * the finalize summary (compi: ...) names the mode as it ran: adaptive
    lists the codecs it used and compressed vs raw counts that add up, fixed
    names its codec, and a job whose ranks all share one node says compi was
    inactive instead of printing counters;
  * no summary line shows a zero counter ("0 intra-node", "0 escaped");
  * lines on what the engine learned of the links come from rank 0 only.
The program itself must pass (exit 0, no "FAIL [").
"""
import argparse, re, subprocess, sys

INIT = re.compile(r"^compi\[(\d+)\]: (.*)$")
# a zero count next to a word: "0 intra-node", "(0 small"; not "0.4 MiB", "min 0 B"
LEARN = re.compile(r"^(link |collective floor (of communicator |at start-up))")
# the codec pool's line: at level 1 when the rank has helper threads, which
# depends on the cores the machine gives it (lib/core/pool_setup.c)
POOL = re.compile(r"^(compi: )?codec pool: \d+ helper thread")
ZERO = re.compile(r"(?<![\d.])0 (?!B\b)[a-z(]")


def fail(msg, out=None):
    if out is not None:
        print("---- compi lines ----")
        print("\n".join(out))
    print("FAIL [check_verbose] " + msg)
    sys.exit(1)


def check_counts(line, summary):
    """The inter-node line, in one of its three forms:
         N ... through compi: C compressed (codec n, ...), R raw (causes)
         N ... through compi, all compressed (codec n, ...)
         N ... through compi, none compressed (causes)
    C = sum of the codecs listed, R = sum of the causes, N = C + R."""
    pre = r"^compi: (\d+) inter-node message\(s\) through compi"
    m = re.match(pre + r": (\d+) compressed \(([^)]+)\), (\d+) raw \(([^)]+)\)$", line)
    if m:
        total, packed, codecs, raw, causes = int(m[1]), int(m[2]), m[3], int(m[4]), m[5]
    elif re.match(pre + r", all compressed \(([^)]+)\)$", line):
        m = re.match(pre + r", all compressed \(([^)]+)\)$", line)
        total, codecs, causes = int(m[1]), m[2], ""
        packed, raw = total, 0
    elif re.match(pre + r", none compressed \(([^)]+)\)$", line):
        m = re.match(pre + r", none compressed \(([^)]+)\)$", line)
        total, codecs, causes = int(m[1]), "", m[2]
        packed, raw = 0, total
    else:
        fail("inter-node line not in an expected form: %r" % line, summary)
    used = {}
    for part in filter(None, (p.strip() for p in codecs.split(","))):
        name, n = part.rsplit(" ", 1)
        used[name] = int(n)
    if sum(used.values()) != packed:
        fail("codecs listed (%s) do not add up to %d compressed" % (codecs, packed), summary)
    if packed + raw != total:
        fail("%d compressed + %d raw != %d messages" % (packed, raw, total), summary)
    if raw and sum(int(p.split()[0]) for p in causes.split(",")) != raw:
        fail("causes of raw (%s) do not add up to %d" % (causes, raw), summary)
    return total, packed, used


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--expect", required=True, help="adaptive | fixed:CODEC | one-node")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    print("running:", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    out = p.stdout
    if p.returncode != 0:
        print(out)
        fail("program exited with %d" % p.returncode)
    if "FAIL [" in out:
        print(out)
        fail("the program reported a failure")

    lines = out.splitlines()
    mine = [l for l in lines if l.startswith("compi[") or l.startswith("compi:")]
    init = [INIT.match(l) for l in lines if INIT.match(l)]
    summary = [l for l in lines if l.startswith("compi: ") and not POOL.match(l)]
    stray = [l for l in lines if "compi[" in l and not INIT.match(l)]
    if stray:
        fail("compi lines mixed with other output: %r" % stray[:3], mine)

    others = sorted({int(m[1]) for m in init if m[1] != "0"})
    if others:
        fail("level 1 printed lines from ranks %s, expected rank 0 only" % others, mine)
    # what the adaptive engine learns of the links while the job runs (rank 0's view)
    texts = [m[2] for m in init if not LEARN.match(m[2]) and not POOL.match(m[2])]
    if len(set(summary)) != len(summary):
        fail("the summary has repeated lines (printed by several ranks?)", mine)
    zeros = [l for l in summary if ZERO.search(l)]
    if zeros:
        fail("summary prints zero counters: %r" % zeros, mine)
    if not summary:
        fail("no finalize summary (compi: ...) at COMPI_VERBOSE=1", mine)
    n = a.ranks

    if a.expect == "one-node":
        if len(texts) != 1 or "compi is inactive" not in texts[0] or "%d ranks on one node" % n not in texts[0]:
            fail("expected exactly one init line saying all %d ranks share one node and compi is inactive" % n, mine)
        if len(summary) != 1 or not summary[0].startswith("compi: %d ranks, all on one node: compi was inactive" % n):
            fail("expected one summary line saying compi was inactive (all ranks on one node)", mine)
    elif a.expect == "adaptive":
        if len(texts) != 2:
            fail("expected 2 init lines at level 1 (mode, engine), got %d" % len(texts), mine)
        if not texts[0].startswith("mode=adaptive (codec chosen per message) min_bytes=") or "codec=" in texts[0]:
            fail("init mode line does not say adaptive (or names a fixed codec): %r" % texts[0], mine)
        if not texts[1].startswith("adaptive engine: network model"):
            fail("second init line is not the engine's models: %r" % texts[1], mine)
        head = "compi: %d ranks on %d nodes, mode adaptive (codec chosen per message)" % (n, n)
        if not summary[0].startswith(head):
            fail("summary head %r does not start with %r" % (summary[0], head), mine)
        if any("fixed" in l or ", codec " in l for l in summary):
            fail("adaptive summary speaks of a fixed codec", mine)
        inter = [l for l in summary if " inter-node message(s) through compi: " in l]
        if len(inter) != 1:
            fail("expected one inter-node line in the summary", mine)
        total, packed, used = check_counts(inter[0], mine)
        if not packed or not total:
            fail("adaptive compressed nothing: the run should have compressible messages", mine)
    elif a.expect.startswith("fixed:"):
        codec = a.expect.split(":", 1)[1]
        if len(texts) != 1 or not texts[0].startswith("mode=fixed codec=%s min_bytes=" % codec):
            fail("expected exactly one init line 'mode=fixed codec=%s ...'" % codec, mine)
        head = "compi: %d ranks on %d nodes, mode fixed, codec %s, min " % (n, n, codec)
        if not summary[0].startswith(head):
            fail("summary head %r does not start with %r" % (summary[0], head), mine)
        inter = [l for l in summary if " inter-node message(s) through compi: " in l]
        if len(inter) != 1:
            fail("expected one inter-node line in the summary", mine)
        total, packed, used = check_counts(inter[0], mine)
        if set(used) != {codec}:
            fail("fixed %s run lists codecs %s" % (codec, sorted(used)), mine)
    else:
        fail("unknown --expect %r" % a.expect)
    print("\n".join(mine))
    print("PASS [check_verbose] %s: %d init line(s), all from rank 0; %d summary line(s)" % (
        a.expect, len(texts), len(summary)))


if __name__ == "__main__":
    main()
