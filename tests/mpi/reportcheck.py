# SPDX-License-Identifier: BSD-3-Clause
"""The steps the check_*.py scripts share: run one MPI program under compi
with COMPI_REPORT set, then read the JSON report it wrote at MPI_Finalize
and make sure every rank is in it. Each script checks its own fields."""
import json, os, subprocess


def command(rest):
    """The launcher command after the script's own options ("--" dropped)."""
    return rest[1:] if rest and rest[0] == "--" else rest


def start(report, cmd):
    """Removes a stale report (a program that dies must not pass on an old
    one) and says what runs."""
    if os.path.exists(report):
        os.remove(report)
    print("running:", " ".join(cmd), flush=True)


def ranks_of(report, nranks, fail):
    """The report's rank entries, which must be nranks."""
    with open(report) as fh:
        doc = json.load(fh)
    ranks = doc.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != nranks:
        fail("report has %s rank entries, expected %d" % (len(ranks) if isinstance(ranks, list) else None, nranks))
    return ranks


def run(report, nranks, cmd, fail):
    """start(), the program (which must exit 0), then ranks_of()."""
    start(report, cmd)
    if subprocess.call(cmd) != 0:
        fail("program failed")
    return ranks_of(report, nranks, fail)
