#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compi's assignment solver against scipy.optimize.linear_sum_assignment on
random rectangular matrices (up to 300x500 and 500x300), integer weights with
ties and zeros, and uniform doubles. Optimal assignments may differ under
ties, so the optimal TOTALS are compared; the driver's assignment is checked
to be a valid one (distinct rows and columns, min(rows, cols) pairs) whose
weights sum to the printed total.
usage: check_assign_scipy.py DRIVER [CASES]"""
import subprocess
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment


def run(driver, w, sense):
    rows, cols = w.shape
    text = f"{rows} {cols} {sense}\n" + "\n".join(" ".join(repr(float(x)) for x in row) for row in w) + "\n"
    out = subprocess.run([driver], input=text, capture_output=True, text=True, check=True).stdout.split("\n")
    total = float(out[0].split()[1])
    pairs = [tuple(map(int, line.split())) for line in out[1:] if line.strip()]
    return total, pairs


def main():
    driver = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = np.random.default_rng(20261124)
    shapes = [(300, 500), (500, 300), (1, 400), (400, 1), (257, 256)]
    bad = 0
    for case in range(cases):
        if case < len(shapes):
            rows, cols = shapes[case]
        else:
            rows, cols = int(rng.integers(1, 120)), int(rng.integers(1, 120))
        kind = case % 4
        if kind == 0:
            w = rng.integers(0, 4, size=(rows, cols)).astype(float)      # heavy ties, zeros
        elif kind == 1:
            w = rng.integers(0, 2**40, size=(rows, cols)).astype(float)  # byte counts beyond 2^32
            w[rng.random((rows, cols)) < 0.5] = 0
        elif kind == 2:
            w = rng.random((rows, cols))
        else:
            w = rng.integers(-1000, 1000, size=(rows, cols)).astype(float)
        sense = "max" if case % 2 == 0 else "min"
        r, c = linear_sum_assignment(w, maximize=(sense == "max"))
        want = float(w[r, c].sum())
        total, pairs = run(driver, w, sense)
        rs = [p[0] for p in pairs]
        cs = [p[1] for p in pairs]
        ok = (len(pairs) == min(rows, cols) and len(set(rs)) == len(rs) and len(set(cs)) == len(cs))
        got = float(sum(w[p] for p in pairs)) if ok else float("nan")
        tol = 1e-9 * max(1.0, abs(want)) if kind == 2 else 0.0
        if not ok or abs(got - total) > tol or abs(total - want) > tol:
            bad += 1
            print(f"FAIL case {case}: {rows}x{cols} kind {kind} {sense}: compi {total!r} "
                  f"(pairs sum {got!r}, valid {ok}), scipy {want!r}")
    print(f"check_assign_scipy: {cases} matrices, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
