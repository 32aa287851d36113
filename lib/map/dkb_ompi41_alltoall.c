/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1 coll/tuned's Alltoall and Alltoallv algorithms
 * (coll_base_alltoall.c, coll_base_alltoallv.c of v4.1.4), and the two_proc
 * exchange other families share: every message each one sends (dkb_ompi41.c
 * says how the decompositions were transcribed and checked). */
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* Alltoall */

static int alltoall_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    /* linear, pairwise and linear_sync send the same set: one block to every other rank */
    for (int r = 0; r < c->size; r++)
        for (int d = 0; d < c->size; d++)
            if (d != r) EMIT(o, r, d, c->count * c->type_size);
    return 0;
}

static int alltoall_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int64_t k = 0;
            for (int i = 1; i < n; i++)
                if ((i & d) == d) k++;
            EMIT(o, r, (r + d) % n, k * c->count * c->type_size);
        }
    return 0;
}

int compi_ompi41_two_proc(const compi_map_call *c, compi_map_msgs *o, uint64_t bytes)
{
    if (c->size != 2) return COMPI_MAP_EUNSUPP;
    EMIT(o, 0, 1, bytes);
    EMIT(o, 1, 0, bytes);
    return 0;
}
static int alltoall_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_two_proc(c, o, c->count * c->type_size);
}

/* ------------------------------------------------------------------ */
/* Alltoallv */

/* basic_linear and pairwise: every ordered pair, empty blocks included */
static int alltoallv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++)
            if (s != d) EMIT(o, s, d, c->counts[(size_t)s * n + d] * c->type_size);
    return 0;
}

/* ------------------------------------------------------------------ */
/* coll_tuned_<coll>_algorithm ids, named as Open MPI names them */

static const compi_ompi41_alg_row rows[] = {
    {COMPI_MAP_ALLTOALL, 1, "linear", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 2, "pairwise", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 3, "modified_bruck", alltoall_bruck},
    {COMPI_MAP_ALLTOALL, 4, "linear_sync", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 5, "two_proc", alltoall_two_proc},
    {COMPI_MAP_ALLTOALLV, 1, "basic_linear", alltoallv_linear},
    {COMPI_MAP_ALLTOALLV, 2, "pairwise", alltoallv_linear},
};
const compi_ompi41_algs compi_ompi41_alltoall_algs = {rows, (int)(sizeof rows / sizeof rows[0])};
