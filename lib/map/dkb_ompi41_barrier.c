/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1 coll/tuned's Barrier algorithms (coll_base_barrier.c of
 * v4.1.4): the zero-byte messages each one sends (dkb_ompi41.c says how the
 * decompositions were transcribed and checked). */
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* Barrier: zero-byte messages only */

static int barrier_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 1; i < c->size; i++) {
        EMIT(o, i, 0, 0);
        EMIT(o, 0, i, 0);
    }
    return 0;
}
static int barrier_doublering(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++) {
        EMIT(o, r, (r + 1) % c->size, 0);
        EMIT(o, r, (r + 1) % c->size, 0);
    }
    return 0;
}
static int barrier_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, adj = compi_ompi41_next_pow2(n) >> 1;
    for (int r = 0; r < n; r++) {
        if (adj != n && r >= adj) EMIT(o, r, r - adj, 0);
        if (r < adj)
            for (int mask = 1; mask < adj; mask <<= 1)
                if ((r ^ mask) < adj) EMIT(o, r, r ^ mask, 0);
        if (adj != n && r < n - adj) EMIT(o, r, r + adj, 0);
    }
    return 0;
}
static int barrier_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        for (int d = 1; d < c->size; d <<= 1) EMIT(o, r, (r + d) % c->size, 0);
    return 0;
}
static int barrier_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_two_proc(c, o, 0);
}
static int barrier_tree(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, depth = compi_ompi41_next_pow2_incl(n);
    for (int r = 0; r < n; r++) {
        for (int jump = 1; jump < depth; jump <<= 1) {
            int p = r ^ jump;
            if (!(p & (jump - 1)) && p < n && p < r) EMIT(o, r, p, 0);
        }
        for (int jump = depth >> 1; jump > 0; jump >>= 1) {
            int p = r ^ jump;
            if (!(p & (jump - 1)) && p < n && p > r) EMIT(o, r, p, 0);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* coll_tuned_<coll>_algorithm ids, named as Open MPI names them */

static const compi_ompi41_alg_row rows[] = {
    {COMPI_MAP_BARRIER, 1, "linear", barrier_linear},
    {COMPI_MAP_BARRIER, 2, "double_ring", barrier_doublering},
    {COMPI_MAP_BARRIER, 3, "recursive_doubling", barrier_recursivedoubling},
    {COMPI_MAP_BARRIER, 4, "bruck", barrier_bruck},
    {COMPI_MAP_BARRIER, 5, "two_proc", barrier_two_proc},
    {COMPI_MAP_BARRIER, 6, "tree", barrier_tree},
};
const compi_ompi41_algs compi_ompi41_barrier_algs = {rows, (int)(sizeof rows / sizeof rows[0])};
