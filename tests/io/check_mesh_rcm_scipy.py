#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compi_mesh_rcm (apps/mesh_order.c) against scipy.sparse.csgraph.
reverse_cuthill_mckee (Debian python3-scipy; tests only), issue 12.

Random symmetric graphs (connected, disconnected, isolated nodes, self-loops,
stars, paths, grids) and the bips3d mesh itself. Given scipy's own root order
(numpy's argsort of the degrees, which scipy uses) the permutation must be
identical; without roots (compi's tie-break: ascending degree, lowest id) it
must equal the run given numpy's stable argsort, be a permutation and have
the bandwidth the driver reports. Bad input must be refused.
usage: check_mesh_rcm_scipy.py DRIVER [CASES]"""
import subprocess
import sys

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee

driver = sys.argv[1]
cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
fails = 0


def run(n, indptr, indices, roots):
    head = f"{n} {len(indices)}\n" + " ".join(map(str, indptr)) + "\n" + " ".join(map(str, indices)) + "\n"
    head += ("roots " + " ".join(map(str, roots))) if roots is not None else "noroots"
    out = subprocess.run([driver, "rcm"], input=head + "\n", capture_output=True, text=True)
    lines = out.stdout.split()
    if out.returncode != 0:
        return None, None
    return np.array(lines[:n], dtype=np.int64), int(lines[-1])


def bandwidth(indptr, indices, order):
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    bw = 0
    for i in range(len(indptr) - 1):
        for j in indices[indptr[i]:indptr[i + 1]]:
            bw = max(bw, abs(pos[i] - pos[j]))
    return bw


def check(name, n, indptr, indices):
    global fails
    g = csr_matrix((np.ones(len(indices)), np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int32)),
                   shape=(n, n))
    want = reverse_cuthill_mckee(g, symmetric_mode=True)
    deg = np.diff(np.asarray(indptr)) + np.array([1 if i in indices[indptr[i]:indptr[i + 1]] else 0 for i in range(n)],
                                                 dtype=np.int64)
    got, _ = run(n, indptr, indices, np.argsort(deg))           # scipy's roots
    if got is None or not np.array_equal(got, want):
        print(f"FAILED {name}: with scipy's roots the order differs")
        fails += 1
        return
    mine, bw = run(n, indptr, indices, None)                     # compi's own tie-break
    stable, _ = run(n, indptr, indices, np.argsort(deg, kind="stable"))
    if mine is None or not np.array_equal(mine, stable) or sorted(mine.tolist()) != list(range(n)):
        print(f"FAILED {name}: the default roots are not ascending degree, lowest id first")
        fails += 1
    elif bw != bandwidth(indptr, indices, mine):
        print(f"FAILED {name}: reported bandwidth {bw}, oracle {bandwidth(indptr, indices, mine)}")
        fails += 1


def sym_csr(n, edges):
    rows = [set() for _ in range(n)]
    for a, b in edges:
        rows[a].add(b)
        rows[b].add(a)
    indptr, indices = [0], []
    for r in rows:
        indices += sorted(r)
        indptr.append(len(indices))
    return indptr, indices


rng = np.random.default_rng(12)
for c in range(cases):
    n = int(rng.integers(1, 60))
    kind = c % 6
    edges = []
    if kind == 0:     # random, sparse: often disconnected, isolated nodes
        m = int(rng.integers(0, 2 * n))
        edges = [tuple(rng.integers(0, n, 2)) for _ in range(m)]
        edges = [(a, b) for a, b in edges if a != b]
    elif kind == 1:   # random, dense-ish
        edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.2]
    elif kind == 2:   # a path in a random order
        p = rng.permutation(n)
        edges = [(p[i], p[i + 1]) for i in range(n - 1)]
    elif kind == 3:   # stars (many equal degrees)
        for i in range(1, n):
            edges.append((int(rng.integers(0, max(1, i // 5) + 1)) % i, i))
    elif kind == 4:   # a grid, shuffled labels
        w = max(1, int(np.sqrt(n)))
        p = rng.permutation(n)
        edges = [(p[i], p[i + 1]) for i in range(n - 1) if (i + 1) % w] + [(p[i], p[i + w]) for i in range(n - w)]
    else:             # random with self-loops
        edges = [tuple(rng.integers(0, n, 2)) for _ in range(int(rng.integers(0, 3 * n)))]
    ip, ix = sym_csr(n, [(int(a), int(b)) for a, b in edges])
    check(f"case {c} (kind {kind}, n {n})", n, ip, ix)

# the bips3d mesh itself, two sizes
for nodes in (2000, 10000):
    out = subprocess.run([driver, "mesh", str(nodes)], capture_output=True, text=True, check=True).stdout.split()
    n, nnz = int(out[0]), int(out[1])
    ip = list(map(int, out[2:3 + n]))
    ix = list(map(int, out[3 + n:3 + n + nnz]))
    check(f"bips3d mesh {nodes}", n, ip, ix)
    mine, bw = run(n, ip, ix, None)
    print(f"bips3d mesh {nodes}: bandwidth cells {bandwidth(ip, ix, np.arange(n))}, rcm {bw}")

# bad input is refused
for name, text in (("neighbour out of range", "2 2\n0 1 2\n1 5\nnoroots\n"),
                   ("roots not a permutation", "2 2\n0 1 2\n1 0\nroots 0 0\n")):
    out = subprocess.run([driver, "rcm"], input=text, capture_output=True, text=True)
    if out.returncode == 0:
        print(f"FAILED bad input accepted: {name}")
        fails += 1

print(f"{cases} random graphs and 2 meshes: {'FAILED ' + str(fails) if fails else 'all identical to scipy'}")
sys.exit(1 if fails else 0)
