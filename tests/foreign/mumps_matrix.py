#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Input for MUMPS's dsimpletest/zsimpletest (mumps-test): N, NNZ, the
entries "row col value", then the right-hand side, one a line, as in the
package's input_simpletest_real/cmplx. The matrix is an unsymmetric,
diagonally dominant stencil on an n x n x n grid (7 points, or 27 with
--stencil 27), complex with --complex; the right-hand side is A x for
x_k = k (complex: k + k/2 i), so the solution is known.
usage: mumps_matrix.py n [--stencil 7|27] [--complex] > input"""
import itertools
import sys


def main(argv):
    n = int(argv[0])
    stencil = int(argv[argv.index("--stencil") + 1]) if "--stencil" in argv else 7
    cplx = "--complex" in argv
    if stencil == 7:
        offs = [o for o in itertools.product((-1, 0, 1), repeat=3) if sum(map(abs, o)) == 1]
    else:
        offs = [o for o in itertools.product((-1, 0, 1), repeat=3) if any(o)]

    def idx(i, j, k):
        return (i * n + j) * n + k

    entries = []
    for i, j, k in itertools.product(range(n), repeat=3):
        r = idx(i, j, k)
        diag = 1.0 + 1.1 * len(offs)
        entries.append((r, r, complex(diag, 0.5) if cplx else diag))
        for di, dj, dk in offs:
            a, b, c = i + di, j + dj, k + dk
            if 0 <= a < n and 0 <= b < n and 0 <= c < n:
                # unsymmetric: the weight depends on the direction
                v = -1.0 - 0.1 * (di + 2 * dj + 3 * dk) / 6.0
                entries.append((r, idx(a, b, c), complex(v, 0.05 * dk) if cplx else v))
    nn = n ** 3
    x = [complex(q + 1, (q + 1) / 2) if cplx else float(q + 1) for q in range(nn)]
    rhs = [0j if cplx else 0.0] * nn
    for r, c, v in entries:
        rhs[r] += v * x[c]

    def fmt(v):
        return f"({v.real!r},{v.imag!r})" if cplx else repr(v)
    out = [str(nn), str(len(entries))]
    out += [f"{r + 1} {c + 1} {fmt(v)}" for r, c, v in entries]
    out += [fmt(v) for v in rhs]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
