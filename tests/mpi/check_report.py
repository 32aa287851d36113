#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run an MPI program under compi with COMPI_REPORT set, then validate the report.

usage: check_report.py --report FILE --codec NAME [--ranks N] [--all-compressed [--bcast-root R]]
                       [--min-ratio X] [--wire-oracle] [--pool-threads N,M,...] -- launcher args...

Expected schema (lib/core/report.c): a top-level object with a "ranks" array
(one entry per rank) and a "totals" object; totals["codecs"][<codec>] holds
"bytes_in" and "bytes_out" (bytes_out: what went on the wire, frame headers
included, so "ratio" is bytes_in / bytes_out and each compressed message
counts at least its 32-byte header).

--all-compressed: every byte each rank sent point-to-point (every rank its own
node) went through the codec, and with --bcast-root R every byte rank R
broadcast too. --min-ratio: bytes_in / bytes_out at least X. --wire-oracle:
the program ran with wirecount.c preloaded after compi, which printed the
bytes of the frames compi handed to the MPI; every rank but the --bcast-root
(whose codec also counts broadcast frames) must report exactly those bytes as
its codec's bytes_out. --pool-threads: rank r ran with item r mod n of the
list as COMPI_THREADS; its "pool" section must say so, a rank with helpers
must have coded collective blocks on them (encoded and decoded), and a rank
without must have run no pool job.  The check is defensive: if the exact schema is
not found it searches the document for per-codec byte counters and says so.
"""
import argparse, glob, json, os, re, subprocess, sys


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
    ap.add_argument("--all-compressed", action="store_true")
    ap.add_argument("--bcast-root", type=int, default=-1)
    ap.add_argument("--min-ratio", type=float, default=0.0)
    ap.add_argument("--wire-oracle", action="store_true")
    ap.add_argument("--pipelined-from", type=int, default=-1,
                    help="this rank sent pipelined (chunked) messages with the codec, every other rank received some")
    ap.add_argument("--pool-threads", default="",
                    help="comma-separated COMPI_THREADS per rank (rank r: item r mod n)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    for f in glob.glob(a.report + "*"):
        os.remove(f)
    print("running:", " ".join(cmd), flush=True)
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    sys.stdout.write(run.stdout)
    sys.stdout.flush()
    rc = run.returncode
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
    msgs = num(entry, "messages")
    if msgs and bout < FRAME_HEADER * msgs:
        fail("%s: bytes_out %s is less than a %d-byte frame header for each of %s messages: the report does not "
             "count the bytes on the wire" % (where, bout, FRAME_HEADER, msgs))
    ratio = num(entry, "ratio")
    if ratio is not None and abs(ratio - bin_ / bout) > 0.001 + 1e-6 * ratio:
        fail("%s: ratio %s is not bytes_in / bytes_out = %.3f" % (where, ratio, bin_ / bout))
    if a.min_ratio and bin_ / bout < a.min_ratio:
        fail("%s: bytes_in / bytes_out = %.2f, expected at least %g" % (where, bin_ / bout, a.min_ratio))
    if a.all_compressed:
        check_all_compressed(doc, a.codec, a.bcast_root)
    if a.wire_oracle:
        check_wire(doc, a.codec, a.bcast_root, run.stdout)
    if a.pipelined_from >= 0:
        check_pipelined(doc, a.codec, a.pipelined_from)
    if a.pool_threads:
        check_pool(doc, [int(t) for t in a.pool_threads.split(",")])
    print("PASS [check_report] %s ratio %.2f" % (where, bin_ / bout))


FRAME_HEADER = 32


def check_pipelined(doc, codec, sender):
    """The sender's report counts pipelined messages of codec, each other rank's pipelined receptions."""
    for i, r in enumerate(doc.get("ranks", [])):
        pipe = r.get("pipelined") if isinstance(r, dict) else None
        if not isinstance(pipe, dict):
            fail("rank %d: no pipelined section in the report" % i)
        if i == sender:
            sent = num(pipe.get("codecs", {}).get(codec, {}), "messages") or 0
            print("rank %d: %d pipelined %s messages sent" % (i, sent, codec))
            if sent < 1:
                fail("rank %d sent no pipelined %s message" % (i, codec))
        else:
            got = num(pipe, "received") or 0
            print("rank %d: %d pipelined messages received" % (i, got))
            if got < 1:
                fail("rank %d received no pipelined message" % i)
def check_pool(doc, threads):
    """Each rank's pool section: its thread count, and collective blocks
    coded by the pool exactly where it had helpers."""
    for i, r in enumerate(doc.get("ranks", [])):
        pool = r.get("pool") if isinstance(r, dict) else None
        if not isinstance(pool, dict):
            fail("rank %d: no pool section in the report" % i)
        want = threads[i % len(threads)]
        print("rank %d: pool %s" % (i, pool))
        if pool.get("threads") != want:
            fail("rank %d: pool threads %s, expected %d (COMPI_THREADS)" % (i, pool.get("threads"), want))
        enc, dec = pool.get("collective_blocks_encoded", 0), pool.get("collective_blocks_decoded", 0)
        if want and (enc < 1 or dec < 1):
            fail("rank %d has %d helper threads but coded no collective block on them (encoded %s, decoded %s)"
                 % (i, want, enc, dec))
        if not want and (pool.get("jobs") or enc or dec):
            fail("rank %d has no helper thread but reports pool jobs %s" % (i, pool))


SEND_FAMILIES = ("send", "isend", "persistent_send", "sendrecv")


def check_wire(doc, codec, bcast_root, out):
    wire = {int(m.group(1)): int(m.group(2))
            # not anchored: under MPICH another rank's output may precede it on its line
            for m in re.finditer(r"WIRE rank (\d+): \d+ messages, (\d+) bytes", out)}
    ranks = doc.get("ranks") or []
    if len(wire) != len(ranks):
        fail("the wire counter (wirecount.c) reported %d ranks, the report has %d" % (len(wire), len(ranks)))
    checked = 0
    for i, r in enumerate(ranks):
        if i == bcast_root:
            continue
        bout = num(r.get("codecs", {}).get(codec, {}), "bytes_out") or 0
        print("rank %d: report bytes_out %d, frames handed to the MPI %d bytes" % (i, bout, wire[i]))
        if bout != wire[i]:
            fail("rank %d: the report's %s bytes_out %d are not the %d bytes compi sent" % (i, codec, bout, wire[i]))
        checked += 1
    if not checked:
        fail("--wire-oracle: no rank to check")


def check_all_compressed(doc, codec, bcast_root):
    """Each rank's codec took in at least the bytes it sent (and broadcast as
    the root): nothing it sent went raw."""
    ranks = doc.get("ranks")
    if not isinstance(ranks, list) or not ranks:
        fail("--all-compressed needs the per-rank records")
    for i, r in enumerate(ranks):
        fam = r.get("families", {})
        sent = sum(num(fam.get(f, {}), "bytes") or 0 for f in SEND_FAMILIES)
        if i == bcast_root:
            sent += num(fam.get("bcast", {}), "bytes") or 0
        c = r.get("codecs", {}).get(codec, {})
        got = num(c, "bytes_in") or 0
        print("rank %d: sent %d bytes, %d of them through %s (raw_incompressible %s, raw_unframed %s)"
              % (i, sent, got, codec, r.get("raw_incompressible"), r.get("raw_unframed")))
        if got < sent:
            fail("rank %d: %s took in %d bytes but the rank sent %d: %d bytes went raw" % (i, codec, got, sent, sent - got))


if __name__ == "__main__":
    main()
