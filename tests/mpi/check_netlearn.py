#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a program under compi with injected link timings and check what the
report and stderr say compi learned.

usage: check_netlearn.py --report FILE --ranks N [--source S] [--mbps X]
                         [--latency-us L] [--coll KIND:PAST] [--stderr TEXT]... -- launcher args...

--source     every link of every rank has this source (prior, probe, file);
             learned: every link that had samples (a link is learned where
             this rank receives; a link it only sends on keeps the prior),
             and every rank has one
--mbps       ... and this bandwidth (within 10 %)
--latency-us ... and this latency (within 10 %)
--no-prior   no link of any rank is left with the prior
--sender-bound  every rank left out some pipelined messages as paced by
             their sender's coding (sender_bound_samples)
--coll       on every rank, collective KIND had PAST calls past the floor
             (node_aware_calls + gated_calls)
--stderr     the run's stderr contains TEXT
--stderr-count TEXT=N  the run's stderr has N lines containing TEXT
The timings are injected (COMPI_DEBUG_LINK_TIMES), so nothing is timed."""
import argparse, subprocess, sys
import reportcheck


def fail(msg):
    print("FAIL [check_netlearn] " + msg)
    sys.exit(1)


def near(got, want):
    return got is not None and abs(got - want) <= 0.1 * want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--source")
    ap.add_argument("--mbps", type=float)
    ap.add_argument("--latency-us", type=float)
    ap.add_argument("--coll")
    ap.add_argument("--no-prior", action="store_true")
    ap.add_argument("--sender-bound", action="store_true")
    ap.add_argument("--stderr", action="append", default=[])
    ap.add_argument("--stderr-count", action="append", default=[])
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = reportcheck.command(a.cmd)
    reportcheck.start(a.report, cmd)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail("program failed")
    for t in a.stderr:
        if t not in p.stderr:
            fail("stderr lacks %r" % t)
    for tc in a.stderr_count:
        t, _, n = tc.rpartition("=")
        got = sum(1 for line in p.stderr.splitlines() if t in line)
        if got != int(n):
            fail("stderr has %d line(s) with %r, expected %s" % (got, t, n))
    ranks = reportcheck.ranks_of(a.report, a.ranks, fail)
    for r in ranks:
        links = (r.get("engine") or {}).get("links")
        if not isinstance(links, list) or len(links) != a.ranks - 1:
            fail("rank %s: links %r, expected one per other node" % (r.get("rank"), links))
        if a.no_prior and any(l.get("source") == "prior" for l in links):
            fail("rank %s: links left with the prior: %s" % (r.get("rank"), links))
        if a.sender_bound and not any(l.get("sender_bound_samples") for l in links):
            fail("rank %s: no link left out a sender-paced message: %s" % (r.get("rank"), links))
        if a.source == "learned":
            links = [l for l in links if l.get("samples")]
            if not links:
                fail("rank %s: no link had samples" % r.get("rank"))
        for l in links:
            if a.source and l.get("source") != a.source:
                fail("rank %s, link %s: source %s, expected %s" % (r.get("rank"), l.get("link"), l.get("source"),
                                                                  a.source))
            if a.mbps and not near(l.get("bandwidth_MBps"), a.mbps):
                fail("rank %s, link %s: %s MB/s, expected %g" % (r.get("rank"), l.get("link"),
                                                                l.get("bandwidth_MBps"), a.mbps))
            if a.latency_us and not near(l.get("latency_us"), a.latency_us):
                fail("rank %s, link %s: latency %s us, expected %g" % (r.get("rank"), l.get("link"),
                                                                       l.get("latency_us"), a.latency_us))
        if a.coll:
            kind, past = a.coll.split(":")
            c = (r.get("collectives") or {}).get(kind) or {}
            got = (c.get("node_aware_calls") or 0) + (c.get("gated_calls") or 0)
            if got != int(past):
                fail("rank %s, %s: %d calls past the floor, expected %s (%s)" % (r.get("rank"), kind, got, past, c))
        print("rank %s: links %s" % (r.get("rank"), [(l.get("source"), l.get("latency_us"), l.get("bandwidth_MBps"),
                                                     l.get("samples")) for l in links]))
    print("PASS [check_netlearn] %d ranks" % a.ranks)


if __name__ == "__main__":
    main()
