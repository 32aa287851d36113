#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run an MPI program under compi with COMPI_REPORT set, then validate the report.

usage: check_report.py --report FILE --codec NAME [--ranks N] -- launcher args...

Expected schema (lib/core/report.c): a top-level object with a "ranks" array
(one entry per rank) and a "totals" object; totals["codecs"][<codec>] holds
"bytes_in" and "bytes_out".  The check is defensive: if the exact schema is
not found it searches the document for per-codec byte counters and says so.
"""
import argparse, glob, json, os, subprocess, sys


def fail(msg):
    print("FAIL [check_report] " + msg)
    sys.exit(1)


def walk(node, path=""):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, path + "/" + str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + "[%d]" % i)


def num(d, *keys):
    for k in keys:
        if isinstance(d, dict) and isinstance(d.get(k), (int, float)):
            return d[k]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--codec", required=True)
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    for f in glob.glob(a.report + "*"):
        os.remove(f)
    print("running:", " ".join(cmd), flush=True)
    rc = subprocess.call(cmd)
    if rc != 0:
        fail("program exited with %d" % rc)
    path = a.report
    if not os.path.exists(path):
        cands = sorted(glob.glob(a.report + "*"))
        if not cands:
            fail("no report written at %s (COMPI_REPORT)" % a.report)
        print("note: report not at %s; using %s" % (a.report, cands[0]))
        path = cands[0]
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except Exception as e:
        fail("report %s does not parse as JSON: %s" % (path, e))
    print("report %s parsed; top-level keys: %s" % (path, list(doc) if isinstance(doc, dict) else type(doc).__name__))

    if not isinstance(doc, dict):
        fail("top level is %s, expected an object" % type(doc).__name__)
    if "ranks" in doc:
        if not isinstance(doc["ranks"], list):
            fail('"ranks" is %s, expected an array' % type(doc["ranks"]).__name__)
        if a.ranks and len(doc["ranks"]) != a.ranks:
            fail('"ranks" has %d entries, expected %d' % (len(doc["ranks"]), a.ranks))
    else:
        print('warning: no "ranks" array in report')

    entry = None
    totals = doc.get("totals")
    if isinstance(totals, dict) and isinstance(totals.get("codecs"), dict):
        entry = totals["codecs"].get(a.codec)
        where = "totals/codecs/" + a.codec
        if entry is None:
            fail("totals.codecs has no entry for %s (has: %s)" % (a.codec, list(totals["codecs"])))
    else:
        print('warning: no totals.codecs object; searching the document for "%s"' % a.codec)
        for p, node in walk(doc):
            if p.endswith("/" + a.codec) and isinstance(node, dict) and num(node, "bytes_in", "in") is not None:
                entry, where = node, p
                break
        if entry is None:
            fail("no per-codec byte counters for %s anywhere in the report" % a.codec)
    bin_ = num(entry, "bytes_in", "in", "raw_bytes")
    bout = num(entry, "bytes_out", "out", "compressed_bytes")
    print("%s: bytes_in=%s bytes_out=%s" % (where, bin_, bout))
    if not bin_ or bin_ <= 0:
        fail("%s: bytes_in is %s, expected > 0 (nothing went through the compressed path)" % (where, bin_))
    if not bout or bout <= 0:
        fail("%s: bytes_out is %s, expected > 0" % (where, bout))
    if bout >= bin_:
        fail("%s: bytes_out %s >= bytes_in %s although the test data compresses" % (where, bout, bin_))
    print("PASS [check_report] %s ratio %.2f" % (where, bin_ / bout))


if __name__ == "__main__":
    main()
