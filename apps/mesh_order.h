/* SPDX-License-Identifier: BSD-3-Clause */
/* Node numberings for a mesh file (MPI-free): which file position each mesh
 * node gets. compi_iobench's BIPS3D-like writer (--numbering) renumbers the
 * bips3d mesh with these before it takes the file positions; the partition
 * does not change (issue 12: how `la`'s saving depends on the numbering the
 * file follows).
 *
 * An order is a permutation: order[k] = the node put at position k (scipy's
 * convention for reverse_cuthill_mckee). */
#ifndef COMPI_MESH_ORDER_H
#define COMPI_MESH_ORDER_H

/* Reverse Cuthill-McKee on the symmetric CSR graph (xadj, adj) of n nodes,
 * exactly as scipy.sparse.csgraph.reverse_cuthill_mckee (symmetric_mode)
 * computes it: a breadth-first search from each root in turn (skipping
 * visited ones), each node's unvisited neighbours appended in adjacency
 * order and then stably sorted by ascending degree (a self-loop counts
 * twice), the whole order reversed. roots: the order in which start nodes
 * are tried (a permutation of 0..n-1); NULL: ascending degree, ties by
 * lowest id (scipy takes numpy's unstable argsort of the degrees: the same
 * up to ties). 0, or -1 on bad input (a neighbour out of range, roots not a
 * permutation) or no memory. */
int compi_mesh_rcm(int n, const int *xadj, const int *adj, const int *roots, int *order);

/* A sweep along one axis (0 x, 1 y, 2 z) of the points xyz (3 per node):
 * ascending coordinate, ties by lowest id. 0, or -1 (bad axis, no memory). */
int compi_mesh_sweep(int n, const double *xyz, int axis, int *order);

/* The half bandwidth of the graph numbered by order: max |pos(i) - pos(j)|
 * over edges (order NULL: the identity). -1 on bad input or no memory. */
long compi_mesh_bandwidth(int n, const int *xadj, const int *adj, const int *order);

#endif
