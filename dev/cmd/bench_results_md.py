#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A benchmark's RESULT lines as the rows of a docs/results.md table, with
the test bed, `git describe`, the MPI versions, the repetitions and the
statistic, the machine's load and the command, so the tables are printed by
the benchmark and not edited by hand.

usage: bench_results_md.py io|coll --command CMD [--load-before L] [--load-after L] [RESULTS]

io: `compi bench io`'s lines (RESULT mpi= io= rate= ppn= pattern= load= op=
variant= reps= ratio= lo= hi= coverage= identical= ...): one row per MPI,
MPI-IO layer, rate, ranks per node and pattern; one column per operation
and compi variant; a cell is the median over reps of time(MPI's own) /
time(variant) with its distribution-free interval, bold when the interval
lies above 1 (faster beyond noise), marked "slower" when below 1.

coll: `compi bench coll`'s lines (RESULT mpi= where= nodes= ppn= rate= coll=
size= data= reps= ratio= lo= hi= ...): one row per collective and size, one
column per MPI, place (this node, or the emulated cluster's nodes x ranks at
a rate) and data set; a cell is the median of the per-rep ratios plain
time / compi time with its interval, marked as for io.
"""
import argparse
import os
import re
import subprocess
import sys

VARIANT_LABEL = {"default": "default", "la": "la", "la-blocks": "la blocks", "la-z": "la+adaptive"}
IO_LABEL = {"ompio": "OMPIO", "romio": "ROMIO"}
MPI_LABEL = {"openmpi": "Open MPI", "mpich": "MPICH"}
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def parse(lines):
    """RESULT lines as dicts (other lines skipped)."""
    out = []
    for line in lines:
        if not line.startswith("RESULT "):
            continue
        d = {}
        for w in line.split()[1:]:
            k, sep, v = w.partition("=")
            if sep and k not in d:      # the first occurrence: bench's own keys come first
                d[k] = v
        out.append(d)
    return out


def cell(r):
    ratio, lo, hi = float(r["ratio"]), float(r["lo"]), float(r["hi"])
    s = "%.2f [%.2f, %.2f]" % (ratio, lo, hi)
    if lo > 1:
        s = "**%s**" % s
    elif hi < 1:
        s += " slower"
    if r.get("identical", "yes") != "yes":
        s += " DIFFERENT"
    return s


def io_table(results):
    """The markdown table of compi bench io's results."""
    cols, rows = [], {}
    for r in results:
        if r.get("variant") == "mpi":
            continue
        col = (r["op"], r["variant"])
        if col not in cols:
            cols.append(col)
        pattern = r["pattern"] + (":" + r["load"] if r.get("load", "0") != "0" else "")
        key = (r.get("mpi", "?"), r.get("io", "?"), r.get("rate", "?"), r.get("ppn", "?"), pattern)
        rows.setdefault(key, {})[col] = r
    cols.sort(key=lambda c: (c[0] != "write", c[1]))
    head = ["MPI", "MPI-IO", "rate", "ranks/node", "pattern"] + ["%s %s" % (op, VARIANT_LABEL.get(v, v)) for op, v in cols]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in sorted(rows, key=lambda k: (k[0] != "openmpi", k[1], k[2], int(k[3]) if k[3].isdigit() else 0, k[4])):
        mpi, io, rate, ppn, pattern = key
        cells = [cell(rows[key][c]) if c in rows[key] else "-" for c in cols]
        out.append("| " + " | ".join([MPI_LABEL.get(mpi, mpi), IO_LABEL.get(io, io), rate, ppn, "`%s`" % pattern] + cells) + " |")
    return out


def size_text(n):
    n = int(n)
    for unit, b in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= b and n % b == 0:
            return "%d %siB" % (n // b, unit)
    return "%d B" % n


def coll_table(results):
    """The markdown table of compi bench coll's results."""
    cols, rows = [], {}
    for r in results:
        where = "this node, %s ranks" % r.get("ppn", "?") if r.get("where") == "intra" else \
            "%sx%s at %s" % (r.get("nodes", "?"), r.get("ppn", "?"), r.get("rate", "?"))
        col = (r.get("mpi", "?"), where, r.get("data", "?"))
        if col not in cols:
            cols.append(col)
        rows.setdefault((r["coll"], int(r["size"])), {})[col] = r
    head = ["collective", "size"] + ["%s %s %s" % (MPI_LABEL.get(m, m), w, d) for m, w, d in cols]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    order = []
    for r in results:                  # the bench's own order of collectives
        if r["coll"] not in order:
            order.append(r["coll"])
    for key in sorted(rows, key=lambda k: (order.index(k[0]), k[1])):
        cells = [cell(rows[key][c]) if c in rows[key] else "-" for c in cols]
        out.append("| " + " | ".join([key[0], size_text(key[1])] + cells) + " |")
    return out


def first_line(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=20)
        for line in r.stdout.splitlines():
            if line.strip():
                return line.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def compi_version():
    """compi's version (CMakeLists.txt's project()) and `git describe` of the
    tree when it names a release tag; a bare commit hash is left out (the
    docs name releases, not commits)."""
    version = "unknown"
    try:
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            m = re.search(r"^project\(compi VERSION ([0-9.]+)", f.read(), re.M)
            version = m.group(1) if m else version
    except OSError:
        pass
    describe = first_line(["git", "-C", ROOT, "describe", "--tags", "--always", "--dirty"])
    if re.match(r"^[0-9a-f]{7,40}(-dirty)?$", describe) or describe == "unknown":
        return "%s (no release tag: `git describe` names no tag)" % version
    return "%s (`git describe`: `%s`)" % (version, describe)


def mpi_versions(mpis):
    v = []
    if "openmpi" in mpis:
        line = first_line(["mpirun.openmpi", "--version"])
        m = re.search(r"([0-9]+\.[0-9]+\.[0-9]+)", line)
        v.append("Open MPI " + m.group(1) if m else line)
    if "mpich" in mpis:
        line = first_line(["mpichversion"])
        v.append(("MPICH " + line.split(":", 1)[1].strip()) if ":" in line else line)
    return v


def header(results, command, load_before, load_after, reference):
    mpis = sorted({r.get("mpi", "") for r in results} - {""})
    reps = sorted({r.get("reps", "?") for r in results})
    cov = sorted({r.get("coverage", "") for r in results} - {""})
    describe = compi_version()
    nodes = sorted({r.get("nodes", "?") for r in results})
    lines = [
        "- Test bed: %s on one %d-core host shared with other work; load average %s before, %s after." % (
            "emulated cluster of %s nodes (network namespaces, a `tc` rate per link)" % "/".join(n for n in nodes
            if n != "1") if nodes != ["1"] else "ranks on this host alone (no emulated network)",
            os.cpu_count() or 0, load_before or "?", load_after or "?"),
        "- compi %s; %s." % (describe, "; ".join(mpi_versions(mpis)) or "MPI unknown"),
        "- %s repetitions after a warm-up; a cell is the median over repetitions of time(%s) / "
        "time(compi) with its distribution-free interval (coverage %s): **bold** = faster beyond noise." % (
            "/".join(reps), reference, "/".join(cov) or "?"),
        "- Command: `%s`" % command,
    ]
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=["io", "coll"])
    ap.add_argument("--command", required=True)
    ap.add_argument("--load-before", default="")
    ap.add_argument("--load-after", default="")
    ap.add_argument("results", nargs="?")
    a = ap.parse_intermixed_args(argv)
    lines = open(a.results).read().splitlines() if a.results else sys.stdin.read().splitlines()
    results = parse(lines)
    if not results:
        print("bench_results_md: no RESULT lines", file=sys.stderr)
        return 1
    if a.kind == "io":
        out = header(results, a.command, a.load_before, a.load_after, "MPI's own") + [""] + io_table(results)
    else:
        out = header(results, a.command, a.load_before, a.load_after, "plain MPI") + [""] + coll_table(results)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
