/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1 coll/tuned's Allgather, Gather and Scatter algorithms and
 * their v variants (coll_base_allgather(v).c, coll_base_gather.c,
 * coll_base_scatter.c of v4.1.4; coll/basic's linear Gatherv and Scatterv,
 * which coll/tuned has none of): every message each one sends (dkb_ompi41.c
 * says how the decompositions were transcribed and checked). */
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* Allgather */

static int allgather_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    s.coll = COMPI_MAP_GATHER;
    int ret = compi_ompi41_decide_and_run(&s, o);
    if (ret) return ret;
    s.coll = COMPI_MAP_BCAST;
    s.count = c->count * c->size;
    return compi_ompi41_decide_and_run(&s, o);
}

static int allgather_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int64_t blocks = d <= (n >> 1) ? d : n - d;
            EMIT(o, r, (r - d + n) % n, blocks * c->count * c->type_size);
        }
    return 0;
}

static int allgather_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (compi_ompi41_flp2(n) != n) return allgather_bruck(c, a, o);
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) EMIT(o, r, r ^ d, (int64_t)d * c->count * c->type_size);
    return 0;
}

static int allgather_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        for (int i = 0; i < c->size - 1; i++) EMIT(o, r, (r + 1) % c->size, c->count * c->type_size);
    return 0;
}

static int allgather_neighborexchange(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (n % 2) return allgather_ring(c, a, o);
    for (int r = 0; r < n; r++) {
        int nb[2];
        if (r % 2 == 0) {
            nb[0] = (r + 1) % n;
            nb[1] = (r - 1 + n) % n;
        } else {
            nb[0] = (r - 1 + n) % n;
            nb[1] = (r + 1) % n;
        }
        EMIT(o, r, nb[0], c->count * c->type_size);
        for (int i = 1; i < n / 2; i++) EMIT(o, r, nb[i % 2], 2 * c->count * c->type_size);
    }
    return 0;
}

static int allgather_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_two_proc(c, o, c->count * c->type_size);
}

/* ------------------------------------------------------------------ */
/* Gather, Scatter */

static int gather_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_reduce_linear(c, o);
}

/* in-order binomial tree: each rank's subtree goes to its parent in one message */
static int subtree(int n, int vrank)
{
    int low = vrank & -vrank;
    return low < n - vrank ? low : n - vrank;
}
static int gather_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int v = 1; v < n; v++) {
        int parent = v - (v & -v);
        EMIT(o, (v + c->root) % n, (parent + c->root) % n, (int64_t)subtree(n, v) * c->count * c->type_size);
    }
    return 0;
}
/* root asks each rank with a zero-byte message; the rank answers in two parts */
static int gather_linear_sync(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int64_t first = compi_ompi41_segcount(a->segsize, c->type_size, c->count);
    for (int i = 0; i < c->size; i++) {
        if (i == c->root) continue;
        EMIT(o, c->root, i, 0);
        EMIT(o, i, c->root, first * c->type_size);
        EMIT(o, i, c->root, (c->count - first) * c->type_size);
    }
    return 0;
}

static int scatter_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_bcast_linear(c, o);
}
static int scatter_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int v = 1; v < n; v++) {
        int parent = v - (v & -v);
        EMIT(o, (parent + c->root) % n, (v + c->root) % n, (int64_t)subtree(n, v) * c->count * c->type_size);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Gatherv, Scatterv, Allgatherv */

/* coll/basic's linear Gatherv / Scatterv: one message per non-empty block */
static int gatherv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root && c->counts[i] > 0) EMIT(o, i, c->root, c->counts[i] * c->type_size);
    return 0;
}
static int scatterv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root && c->counts[i] > 0) EMIT(o, c->root, i, c->counts[i] * c->type_size);
    return 0;
}

/* Gatherv to 0, then a bcast of one element of an indexed type holding all
 * blocks (so the fixed rules see the whole vector as one element) */
static int allgatherv_default(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    int ret = gatherv_linear(&s, a, o);
    if (ret) return ret;
    uint64_t total = 0;
    for (int i = 0; i < c->size; i++) total += c->counts[i] * c->type_size;
    if (total == 0) return 0;
    s.coll = COMPI_MAP_BCAST;
    s.count = 1;
    s.type_size = total;
    s.counts = NULL;
    return compi_ompi41_decide_and_run(&s, o);
}

static int allgatherv_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int blocks = d <= (n >> 1) ? d : n - d;
            int64_t e = 0;
            for (int i = 0; i < blocks; i++) e += c->counts[(r + i) % n];
            EMIT(o, r, (r - d + n) % n, e * c->type_size);
        }
    return 0;
}

static int allgatherv_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < n - 1; i++) EMIT(o, r, (r + 1) % n, c->counts[(r - i + n) % n] * c->type_size);
    return 0;
}

static int allgatherv_neighborexchange(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (n % 2) return allgatherv_ring(c, a, o);
    for (int r = 0; r < n; r++) {
        int nb[2], rdf[2], off[2], sdf;
        if (r % 2 == 0) {
            nb[0] = (r + 1) % n;
            nb[1] = (r - 1 + n) % n;
            rdf[0] = rdf[1] = r;
            off[0] = 2;
            off[1] = -2;
        } else {
            nb[0] = (r - 1 + n) % n;
            nb[1] = (r + 1) % n;
            rdf[0] = rdf[1] = nb[0];
            off[0] = -2;
            off[1] = 2;
        }
        EMIT(o, r, nb[0], c->counts[r] * c->type_size);
        sdf = r % 2 == 0 ? r : rdf[0];
        for (int i = 1; i < n / 2; i++) {
            int p = i % 2;
            rdf[p] = (rdf[p] + off[p] + n) % n;
            EMIT(o, r, nb[p], (c->counts[sdf] + c->counts[sdf + 1]) * c->type_size);
            sdf = rdf[p];
        }
    }
    return 0;
}

static int allgatherv_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    if (c->size != 2) return COMPI_MAP_EUNSUPP;
    EMIT(o, 0, 1, c->counts[0] * c->type_size);
    EMIT(o, 1, 0, c->counts[1] * c->type_size);
    return 0;
}

/* ------------------------------------------------------------------ */
/* coll_tuned_<coll>_algorithm ids, named as Open MPI names them */

static const compi_ompi41_alg_row rows[] = {
    {COMPI_MAP_ALLGATHER, 1, "linear", allgather_linear},
    {COMPI_MAP_ALLGATHER, 2, "bruck", allgather_bruck},
    {COMPI_MAP_ALLGATHER, 3, "recursive_doubling", allgather_recursivedoubling},
    {COMPI_MAP_ALLGATHER, 4, "ring", allgather_ring},
    {COMPI_MAP_ALLGATHER, 5, "neighbor", allgather_neighborexchange},
    {COMPI_MAP_ALLGATHER, 6, "two_proc", allgather_two_proc},
    {COMPI_MAP_GATHER, 1, "basic_linear", gather_linear},
    {COMPI_MAP_GATHER, 2, "binomial", gather_binomial},
    {COMPI_MAP_GATHER, 3, "linear_sync", gather_linear_sync},
    {COMPI_MAP_SCATTER, 1, "basic_linear", scatter_linear},
    {COMPI_MAP_SCATTER, 2, "binomial", scatter_binomial},
    {COMPI_MAP_SCATTER, 3, "linear_nb", scatter_linear},
    {COMPI_MAP_ALLGATHERV, 1, "default", allgatherv_default},
    {COMPI_MAP_ALLGATHERV, 2, "bruck", allgatherv_bruck},
    {COMPI_MAP_ALLGATHERV, 3, "ring", allgatherv_ring},
    {COMPI_MAP_ALLGATHERV, 4, "neighbor", allgatherv_neighborexchange},
    {COMPI_MAP_ALLGATHERV, 5, "two_proc", allgatherv_two_proc},
    /* coll/tuned has none: coll/basic's linear algorithm, no decision */
    {COMPI_MAP_GATHERV, 1, "basic_linear", gatherv_linear},
    {COMPI_MAP_SCATTERV, 1, "basic_linear", scatterv_linear},
};
const compi_ompi41_algs compi_ompi41_gather_algs = {rows, (int)(sizeof rows / sizeof rows[0])};
