#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of dev/cmd/bench_apps_summary.py on synthetic results with known answers."""
import io
import math
import os
import sys
import tempfile
from contextlib import redirect_stdout

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "dev", "cmd"))
import bench_apps_summary as S  # noqa: E402

fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += 0 if cond else 1


def binom_cov(n, k):
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n


# --- median_ci: order statistics, against values worked out by hand
xs = [7, 1, 5, 3, 6, 2, 4]   # sorted 1..7
check(S.median_ci(xs) == (1, 7, binom_cov(7, 1)), "n=7: whole range, 98.4 %% coverage (got %r)" % (S.median_ci(xs),))
check(abs(S.median_ci(xs)[2] - 0.984375) < 1e-12, "n=7 coverage is 1 - 2/128")
xs = list(range(1, 10))
check(S.median_ci(xs)[:2] == (2, 8), "n=9: 2nd and 8th (got %r)" % (S.median_ci(xs),))
xs = list(range(1, 16))
lo, hi, cov = S.median_ci(xs)
check((lo, hi) == (4, 12) and abs(cov - binom_cov(15, 4)) < 1e-12 and cov >= 0.9, "n=15: 4th and 12th, >= 90 %%")
check(S.median_ci([3.0]) == (3.0, 3.0, 0.0), "n=1: a point, no coverage")
check(S.median_ci([]) == (None, None, 0.0), "n=0: nothing")
for n in range(1, 40):   # the interval always contains the median and never narrows as n grows past the step
    lo, hi, cov = S.median_ci(list(range(n)))
    med = (n - 1) / 2
    if not (lo <= med <= hi) or (n >= 6 and cov < 0.9):
        check(False, "n=%d: [%s, %s] coverage %.3f" % (n, lo, hi, cov))
        break
else:
    check(True, "n=1..39: the interval holds the median; coverage >= 90 % from n=6")

# --- verdicts
check(S.verdict(0.98, 1.10, 0.97) == "above", "CI above the threshold")
check(S.verdict(0.80, 0.95, 0.97) == "BELOW", "CI below the threshold")
check(S.verdict(0.90, 1.10, 0.97) == "within noise", "CI straddling the threshold")

# --- pairing: ratios are per round (rep), failed rounds skipped
off = [dict(rep="1", status="OK", t="2.0"), dict(rep="2", status="OK", t="4.0"), dict(rep="3", status="FAIL", t="1")]
ada = [dict(rep="2", status="OK", t="2.0"), dict(rep="1", status="OK", t="1.0"), dict(rep="3", status="OK", t="1")]
check(S.paired_ratios(off, ada) == [2.0, 2.0], "rounds pair by rep, a failed round is left out")


# --- whole summary on a synthetic results file
def tsv_line(app, mpi, rate, mode, rep, t, cs="abc", status="OK", codecs="-"):
    return "\t".join([app, mpi, rate, mode, str(rep), status, "%.6f" % t, cs, codecs, "-", ""]) + "\n"


def tsv_file(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.writelines(lines)
    return f.name


def run(lines, confirm_lines=None, modes="off fixed adaptive guided"):
    """(exit status, output) of the summary of these runs (and confirmation runs)."""
    paths = [tsv_file(lines)] + ([tsv_file(confirm_lines)] if confirm_lines is not None else [])
    out = io.StringIO()
    with redirect_stdout(out):
        rc = S.main(["x", paths[0], modes, "a=lz4 b=lz4 c=lz4 d=lz4"] + paths[1:])
    for p in paths:
        os.unlink(p)
    return rc, out.getvalue()


def rounds(reps, speed, cells):
    """Runs of every round in reps: cells = [(app, mpi, rate, mode, time factor)], times = factor x the
    round's machine speed(r), or factor(r) x speed(r) when factor is a function."""
    return [tsv_line(app, mpi, rate, mode, r, (f(r) if callable(f) else f) * speed(r))
            for r in reps for app, mpi, rate, mode, f in cells]


lines = []
# app a: every round's machine speed differs a lot (x1..x3), adaptive is always 20 % slower than off:
# medians of times would hide it; per-round ratios show it beyond noise
for r in range(1, 10):
    speed = 1 + (r * 7 % 9) / 4.0
    lines += [tsv_line("a", "openmpi", "1gbit", "off", r, 1.0 * speed),
              tsv_line("a", "openmpi", "1gbit", "fixed", r, 0.9 * speed, codecs="lz4 100%"),
              tsv_line("a", "openmpi", "1gbit", "adaptive", r, 1.25 * speed, codecs="lz4 100%"),
              tsv_line("a", "openmpi", "1gbit", "guided", r, (1.25 + (0.1 if r % 2 else -0.1)) * speed,
                       codecs="lz4 100%")]
# app b: adaptive twice as fast as off, guided checksum wrong in one round
for r in range(1, 10):
    lines += [tsv_line("b", "mpich", "100mbit", "off", r, 2.0),
              tsv_line("b", "mpich", "100mbit", "adaptive", r, 1.0 + r / 100.0),
              tsv_line("b", "mpich", "100mbit", "guided", r, 1.0, cs="bad" if r == 4 else "abc")]
rc, out = run(lines)
print(out)
check(rc == 1, "a checksum mismatch makes the summary fail (rc %d)" % rc)
check("FAIL b mpich 100mbit guided rep 4: checksum bad differs from abc" in out, "the failed round is named")
check("COMPARE app=a mpi=openmpi rate=1gbit what=adaptive_vs_off ratio=0.800 ci=0.800:0.800 threshold=0.97 "
      "verdict=BELOW n=9" in out, "a steady 20 % loss is BELOW 0.97 despite the noisy rounds")
check("what=adaptive_vs_fixed ratio=0.720" in out and "verdict=BELOW" in out, "adaptive vs fixed: 0.72, BELOW")
check("COMPARE app=a mpi=openmpi rate=1gbit what=guided_vs_adaptive" in out and
      "verdict=within_noise n=9" in out, "guided +-8 % around adaptive: within noise")
check("COMPARE app=b mpi=mpich rate=100mbit what=adaptive_vs_off" in out and "verdict=above n=9" in out,
      "b: adaptive 2x faster than off: above")
check("n=8" in [l for l in out.splitlines() if l.startswith("COMPARE app=b") and "guided" in l][0],
      "b: the failed guided round is not paired")
check("RESULT app=a mpi=openmpi rate=1gbit mode=adaptive" in out and "speedup=0.800 ci=0.800:0.800" in out,
      "RESULT lines carry the paired ratio and its interval")
check("1 of 3" not in out and "of 5 comparisons below their threshold beyond noise" in out,
      "the count of comparisons below threshold is printed")
check(S.main(["x", os.devnull, "off adaptive"]) == 0, "an empty results file is not an error")


# --- confirmation: the BELOWs of the first rounds are rerun alone, and only those fresh rounds decide
# a: adaptive really 20 % slower than off; c: guided 5 % behind adaptive in the first rounds only;
# d: guided behind adaptive in the first rounds, and nobody reruns it
first = rounds(range(1, 10), lambda r: 1 + (r * 7 % 9) / 4.0,
               [("a", "openmpi", "1gbit", "off", 1.0), ("a", "openmpi", "1gbit", "adaptive", 1.25),
                ("c", "openmpi", "1gbit", "off", 2.0), ("c", "openmpi", "1gbit", "adaptive", 1.0),
                ("c", "openmpi", "1gbit", "guided", 1.05)]) + \
    rounds(range(1, 10), lambda r: 1.0, [("d", "mpich", "1gbit", "adaptive", 1.0), ("d", "mpich", "1gbit", "guided", 1.1)])
path = tsv_file(first)
out = io.StringIO()
with redirect_stdout(out):
    S.main(["x", "--flagged", path])
os.unlink(path)
check(out.getvalue().splitlines() == ["a openmpi 1gbit off adaptive", "c openmpi 1gbit adaptive guided",
                                      "d mpich 1gbit adaptive guided"],
      "--flagged names each cell with a BELOW and the modes to rerun (got %r)" % out.getvalue())
again = rounds(range(10, 25), lambda r: 1 + (r * 5 % 7) / 3.0,
               [("a", "openmpi", "1gbit", "off", 1.0), ("a", "openmpi", "1gbit", "adaptive", 1.25),
                ("c", "openmpi", "1gbit", "adaptive", 1.0),
                ("c", "openmpi", "1gbit", "guided", lambda r: 1.0 + (0.04 if r % 2 else -0.04))])
rc, out = run(first, again)
print(out)
check(rc == 0, "confirmation runs that all pass: rc 0 (got %d)" % rc)
check("CONFIRM app=a mpi=openmpi rate=1gbit what=adaptive_vs_off ratio=0.800" in out and
      "verdict=BELOW n=15" in out, "a real loss is BELOW again in the fresh rounds")
check("CONFIRM app=c mpi=openmpi rate=1gbit what=guided_vs_adaptive" in out and
      "verdict=within_noise n=15" in out, "a loss of the first rounds only is within noise when rerun")
check("2 of 4 comparisons below their threshold beyond noise (3 suspect(s) in the first rounds: 1 confirmed, 1 not rerun): "
      "a openmpi 1gbit adaptive vs off; d mpich 1gbit guided vs adaptive" in out,
      "the final count keeps the confirmed and the unconfirmed-for-want-of-runs BELOWs, not the refuted one")
check("not rerun" in [l for l in out.splitlines() if l.startswith("d ")][-1], "a suspect without reruns says so")
bad = again + [tsv_line("c", "openmpi", "1gbit", "guided", 25, 1.0, cs="zzz"),
               tsv_line("c", "openmpi", "1gbit", "adaptive", 25, 1.0)]
rc, out = run(first, bad)
check(rc == 1 and "FAIL c openmpi 1gbit guided confirmation rep 25: checksum zzz differs from abc" in out,
      "a confirmation run with another checksum fails the bench")

print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
