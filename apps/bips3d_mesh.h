/* SPDX-License-Identifier: BSD-3-Clause */
/* The bips3d mesh: the irregular device mesh of compi_bips3d (apps/bips3d.c)
 * and its METIS/Scotch partition, shared by the mini-app, compi_iobench
 * (bench/iobench.c: the BIPS3D-like collective writer) and
 * compi_io_placement (tests/io).
 *
 * A seeded random point cloud in a MOSFET-shaped box, graded (denser under
 * the gate and near the surface), connected to its k nearest neighbours
 * (made symmetric), numbered along a coarse spatial sort the way mesh
 * generators number nodes; per node the device data the simulation starts
 * from. Every rank builds the same mesh from the same seed. Out of memory
 * or a failed partitioner: a message and MPI_Abort. */
#ifndef COMPI_BIPS3D_MESH_H
#define COMPI_BIPS3D_MESH_H

#include <stdint.h>

/* Device box (normalised lengths): source at x=0, drain at x=LX, gate on top. */
#define LX 1.0
#define LY 0.5
#define LZ 0.4
#define DELTA 1e-5  /* intrinsic density / peak doping */
#define FLUSH 1e-6  /* densities below this (relative to peak doping) are stored as 0 */
#define LAMBDA 0.02 /* Debye length: weighs charge against the Laplacian */
#define EPS_OX 0.33 /* oxide permittivity relative to silicon */
#define V_DRAIN 4.0 /* applied biases in thermal voltages */
#define V_GATE 6.0

enum { REG_SI, REG_OXIDE, REG_GATE, REG_CONTACT };                    /* node regions */
enum { DOP_NONE, DOP_SUBSTRATE, DOP_SOURCE, DOP_DRAIN, DOP_CHANNEL }; /* doping classes */

typedef struct {
    int n;             /* nodes */
    double *xyz;       /* 3 per node */
    int *xadj, *adj;   /* symmetric CSR, rows sorted by neighbour id */
    double *w;         /* edge weights, parallel to adj */
    double *h;         /* node charge weight: control volume / LAMBDA^2 */
    double *dop, *phi; /* net doping, electron quasi-Fermi potential (holes': 0) */
    int *dop_class, *region;
} bips3d_mesh;

/* The mesh of `nodes` nodes, k nearest neighbours, from seed. */
bips3d_mesh bips3d_mesh_build(long nodes, int k, uint64_t seed);
void bips3d_mesh_free(bips3d_mesh *m);

/* part[i] = the part (0..nparts-1) of node i: METIS_PartGraphKway (seed 7,
 * reproducible), or Scotch when use_scotch (only if built with
 * COMPI_HAVE_SCOTCH); *cut = the edge cut. */
void bips3d_mesh_partition(const bips3d_mesh *m, int nparts, int use_scotch, int *part, long *cut);

/* The file numbering of the mesh (order[k] = the node at file position k,
 * see mesh_order.h): "cells" the generator's own (the identity: the
 * counting sort over grid cells, x fastest, so the file is z-major), "rcm"
 * reverse Cuthill-McKee on the mesh graph, "xsweep" a sweep along the long
 * axis x. 0, or -1 for an unknown name. */
int bips3d_mesh_numbering(const bips3d_mesh *m, const char *name, int *order);
#define BIPS3D_NUMBERINGS "cells, rcm, xsweep"

/* malloc or MPI_Abort with a message naming prog. */
void *bips3d_xmalloc(size_t n);

#endif
