/* SPDX-License-Identifier: BSD-3-Clause */
/* What the DKB's files share (lib/map only; the room's public header is
 * map.h):
 *
 *   dkb_common.c          message lists, collective names, error texts, the
 *                         reader of a fixed decision table (any MPI)
 *   dkb_ompi41.c          Open MPI 4.1 coll/tuned: the public entry points
 *                         (decide, pinned, messages), the algorithm ids
 *   dkb_ompi41_table.c    its fixed decision rules, as data
 *   dkb_ompi41_trees.c    its trees (coll_base_topo.c)
 *   dkb_ompi41_<family>.c its algorithms, one family of collectives each,
 *                         with the family's rows of algorithm ids
 *   dkb_mpich.c           MPICH 4.0's pinned MPIR algorithms
 *   dkb_compi.c           compi's own node-aware collectives
 *
 * An Open MPI 5 DKB would add dkb_ompi5*.c files beside the 4.1 ones: its
 * own decision table (a compi_map_dec_table read by compi_map_dec_pick),
 * its own rows of algorithm ids, and the 4.1 algorithms it kept. */
#ifndef COMPI_MAP_DKB_INTERNAL_H
#define COMPI_MAP_DKB_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include "map/map.h"

/* ---- message lists ---- */

/* Appends one message (compi_map_msgs_add, inlined where the DKB emits its
 * messages one by one); 0 or COMPI_MAP_ENOMEM. */
static inline int compi_map_emit(compi_map_msgs *o, int src, int dst, uint64_t bytes)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        compi_map_msg *v = realloc(o->v, cap * sizeof *v);
        if (!v) return COMPI_MAP_ENOMEM;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n].src = src;
    o->v[o->n].dst = dst;
    o->v[o->n].bytes = bytes;
    o->n++;
    return 0;
}

/* Appends a message, or returns the error from the calling function. */
#define EMIT(o, s, d, b)                                                                                               \
    do {                                                                                                               \
        int rc_ = compi_map_emit((o), (s), (d), (uint64_t)(b));                                                        \
        if (rc_) return rc_;                                                                                           \
    } while (0)

/* ---- fixed decision tables ----
 * An MPI's fixed decision rules transcribed mechanically into rows. Rows of
 * one collective are read in order: the first row whose communicator-size
 * band holds the call opens the band; inside it the first row whose size
 * bound exceeds the message size gives the algorithm. commute: 0 rules for
 * non-commutative ops, 1 for commutative ones, -1 both. size_lt: band is
 * size < size_lt (COMPI_MAP_DEC_EQ2: size == 2, COMPI_MAP_DEC_ANY: the
 * rest). bytes_lt: message size < bytes_lt (COMPI_MAP_DEC_ANY: the rest).
 * What "message size" is for each collective is the MPI's own convention
 * (its DKB computes it). */
#define COMPI_MAP_DEC_EQ2 (-2)
#define COMPI_MAP_DEC_ANY INT64_MAX
typedef struct {
    compi_map_coll coll;
    int commute;
    int64_t size_lt;
    int64_t bytes_lt;
    int alg;
} compi_map_dec_row;
typedef struct {
    const compi_map_dec_row *rows;
    int n;
} compi_map_dec_table;
/* The algorithm table t gives the call; -1 when no row does. */
int compi_map_dec_pick(const compi_map_dec_table *t, compi_map_coll coll, int size, uint64_t bytes, int commutative);

/* ==== Open MPI 4.1 coll/tuned ==== */

/* The fixed decision rules of coll/tuned v4.1.x (dkb_ompi41_table.c). */
extern const compi_map_dec_table compi_ompi41_fixed;

/* ---- small helpers of Open MPI's (opal/util/bit_ops.h, coll_base_util.c) ---- */

static inline int compi_ompi41_next_pow2_incl(int v) /* opal_next_poweroftwo_inclusive */
{
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}
static inline int compi_ompi41_next_pow2(int v) /* opal_next_poweroftwo: smallest power of two > v */
{
    int p = 1;
    while (p <= v) p <<= 1;
    return p;
}
static inline int compi_ompi41_flp2(int v) /* largest power of two <= v (v >= 1) */
{
    return compi_ompi41_next_pow2(v) >> 1;
}
static inline int compi_ompi41_ilog2(int pof2)
{
    int n = 0;
    while ((1 << n) < pof2) n++;
    return n;
}
static inline unsigned compi_ompi41_mirror_perm(unsigned x, int nbits)
{
    x = (((x & 0xaaaaaaaa) >> 1) | ((x & 0x55555555) << 1));
    x = (((x & 0xcccccccc) >> 2) | ((x & 0x33333333) << 2));
    x = (((x & 0xf0f0f0f0) >> 4) | ((x & 0x0f0f0f0f) << 4));
    x = (((x & 0xff00ff00) >> 8) | ((x & 0x00ff00ff) << 8));
    x = ((x >> 16) | (x << 16));
    return nbits ? x >> (32 - nbits) : 0;
}
static inline int compi_ompi41_rounddown(int num, int factor)
{
    return (num / factor) * factor;
}

/* COLL_BASE_COMPUTED_SEGCOUNT: elements per segment for segsize bytes. */
static inline int64_t compi_ompi41_segcount(uint32_t segsize, size_t typelng, int64_t count)
{
    int64_t segcount = count;
    if (segsize >= typelng && segsize < typelng * (uint64_t)segcount) {
        segcount = segsize / typelng;
        size_t residual = segsize - segcount * typelng;
        if (residual > (typelng >> 1)) segcount++;
    }
    return segcount;
}

/* COLL_BASE_COMPUTE_BLOCKCOUNT */
static inline void compi_ompi41_blockcount(int64_t count, int64_t nblocks, int64_t *split, int64_t *early,
                                           int64_t *late)
{
    *early = *late = count / nblocks;
    *split = count % nblocks;
    if (*split) *early += 1;
}

/* ---- trees (coll_base_topo.c, dkb_ompi41_trees.c): for one rank, its
 * parent and children ---- */
#define COMPI_OMPI41_MAXKIDS 64
typedef struct {
    int prev;
    int n;
    int next[COMPI_OMPI41_MAXKIDS];
} compi_ompi41_tree;
enum {
    COMPI_OMPI41_TREE_KARY,        /* ompi_coll_base_topo_build_tree; param: fan-out */
    COMPI_OMPI41_TREE_BM,          /* build_bmtree */
    COMPI_OMPI41_TREE_IN_ORDER_BM, /* build_in_order_bmtree */
    COMPI_OMPI41_TREE_KM,          /* build_kmtree; param: radix */
    COMPI_OMPI41_TREE_CHAIN,       /* build_chain; param: fan-out */
    COMPI_OMPI41_TREE_IN_ORDER_BIN /* build_in_order_bintree (rooted at size - 1) */
};
/* rank's place in the tree of kind over size ranks rooted at root */
void compi_ompi41_tree_of(int kind, int param, int size, int root, int rank, compi_ompi41_tree *t);

/* ---- algorithms (dkb_ompi41_<family>.c) ---- */

/* every message of one algorithm (a row's decomposition) */
typedef int (*compi_ompi41_fn)(const compi_map_call *, const compi_map_alg *, compi_map_msgs *);
/* one coll_tuned_<coll>_algorithm id, named as Open MPI names it; fn NULL:
 * known, not decomposed yet */
typedef struct {
    compi_map_coll coll;
    int alg;
    const char *name;
    compi_ompi41_fn fn;
} compi_ompi41_alg_row;
typedef struct {
    const compi_ompi41_alg_row *rows;
    int n;
} compi_ompi41_algs;
/* each family's rows */
extern const compi_ompi41_algs compi_ompi41_bcast_algs;    /* Bcast */
extern const compi_ompi41_algs compi_ompi41_reduce_algs;   /* Reduce, Allreduce, Reduce_scatter(_block) */
extern const compi_ompi41_algs compi_ompi41_alltoall_algs; /* Alltoall, Alltoallv */
extern const compi_ompi41_algs compi_ompi41_gather_algs;   /* Allgather(v), Gather(v), Scatter(v) */
extern const compi_ompi41_algs compi_ompi41_barrier_algs;  /* Barrier */

/* shared by families: the root sends the vector to every rank / every rank
 * sends it to the root (linear Bcast, Reduce, Gather, Scatter) */
int compi_ompi41_bcast_linear(const compi_map_call *c, compi_map_msgs *o);
int compi_ompi41_reduce_linear(const compi_map_call *c, compi_map_msgs *o);
/* the two_proc algorithms: ranks 0 and 1 exchange bytes (COMPI_MAP_EUNSUPP
 * on another size) */
int compi_ompi41_two_proc(const compi_map_call *c, compi_map_msgs *o, uint64_t bytes);
/* the communicator's own collective, as composite algorithms call it: the
 * run's pin of that collective, else the fixed decision (dkb_ompi41.c) */
int compi_ompi41_decide_and_run(const compi_map_call *c, compi_map_msgs *o);

#endif
