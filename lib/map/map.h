/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the decomposition knowledge base (DKB).
 *
 * A collective call is, underneath, a set of point-to-point messages whose
 * pattern depends on the MPI library, its version, the algorithm it picks
 * and the call's sizes. The DKB answers "which messages (src, dst, bytes)
 * does this MPI send for this call", so that a communication graph built
 * from a trace of collective calls has the edges the network really sees
 * (the OPP idea: placement must see collectives as the MPI runs them).
 *
 * Table-driven per MPI: every (collective, algorithm) row names its
 * decomposition function; a decision table reproduces the MPI's own choice
 * when no algorithm is pinned. Today: Open MPI 4.1 coll/tuned
 * (dkb_ompi41*.c: entry points, decision table, trees, one file per family
 * of collectives; dkb_internal.h lists them), checked message by message
 * against Open MPI's monitoring component (tests/map); MPICH 4.0's pinned
 * MPIR algorithms (dkb_mpich.c), checked against a count of UCX sends; compi's own
 * node-aware collectives (dkb_compi.c), checked against Open MPI's monitoring
 * of runs that took compi's path.
 *
 * Ranks are ranks of the collective's communicator. Pure functions: no MPI,
 * no I/O, no global state. */
#ifndef COMPI_MAP_MAP_H
#define COMPI_MAP_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    COMPI_MAP_BCAST = 0,
    COMPI_MAP_REDUCE,
    COMPI_MAP_ALLREDUCE,
    COMPI_MAP_ALLTOALL,
    COMPI_MAP_ALLGATHER,
    COMPI_MAP_GATHER,
    COMPI_MAP_SCATTER,
    COMPI_MAP_REDUCE_SCATTER,
    COMPI_MAP_BARRIER,
    COMPI_MAP_ALLTOALLV,
    COMPI_MAP_ALLGATHERV,
    COMPI_MAP_GATHERV,
    COMPI_MAP_SCATTERV,
    /* decided by the tables but not decomposed yet */
    COMPI_MAP_REDUCE_SCATTER_BLOCK,
    COMPI_MAP_NCOLLS
} compi_map_coll;

/* "bcast", "reduce", ...: the MCA spelling (coll_tuned_<name>_algorithm). */
const char *compi_map_coll_name(compi_map_coll c);
/* -1 when name is not a collective the DKB knows. */
int compi_map_coll_parse(const char *name);

/* One collective call, as the application made it. Counts are in elements of
 * type_size bytes (algorithms split and segment in whole elements). */
typedef struct {
    compi_map_coll coll;
    int size;              /* communicator size, >= 1 */
    int root;              /* bcast, reduce, gather, scatter */
    int64_t count;         /* elements: bcast/reduce/allreduce the vector; alltoall/allgather/
                                gather/scatter one block (per peer); barrier ignores it */
    const int64_t *counts; /* reduce_scatter, allgatherv, gatherv, scatterv: size entries (elements
                                of each rank's block); alltoallv: size x size, row = sender */
    size_t type_size;      /* bytes per element, >= 1 */
    int commutative;       /* reductions: 1 for MPI's predefined ops */
} compi_map_call;

/* An algorithm with its parameters. */
typedef struct {
    int alg;          /* the MPI's algorithm number (Open MPI: coll_tuned_<coll>_algorithm) */
    uint32_t segsize; /* bytes per segment, 0 = no segmentation */
    int fanout;       /* chain / tree fan-out where the algorithm has one */
    int radix;        /* k-nomial radix */
} compi_map_alg;

typedef struct {
    int src, dst;
    uint64_t bytes;
} compi_map_msg;

/* A growing list of messages; zero-initialise, release with compi_map_msgs_free. */
typedef struct {
    compi_map_msg *v;
    size_t n, cap;
} compi_map_msgs;
void compi_map_msgs_free(compi_map_msgs *m);
/* Appends one message; 0 or COMPI_MAP_ENOMEM. */
int compi_map_msgs_add(compi_map_msgs *m, int src, int dst, uint64_t bytes);

/* Errors (negative) and their text. */
enum {
    COMPI_MAP_EARG = -101,    /* call or algorithm parameters out of range */
    COMPI_MAP_EALG = -102,    /* no such algorithm for this collective */
    COMPI_MAP_EUNSUPP = -103, /* the MPI itself refuses (e.g. two_proc on 3 ranks) */
    COMPI_MAP_ENOMEM = -104,
    COMPI_MAP_ENOTYET = -105 /* known to the tables, not decomposed */
};
const char *compi_map_strerror(int rc);

/* ---- Open MPI 4.1 (coll/tuned of v4.1.x, checked with 4.1.4) ---- */

/* The algorithm coll/tuned's fixed decision rules pick for the call
 * (ompi_coll_tuned_<coll>_intra_dec_fixed), with the parameters the fixed
 * path passes (segsize 0, fan-out 0, k-nomial radix 4). */
int compi_map_ompi41_decide(const compi_map_call *c, compi_map_alg *a);
/* The parameters a pinned run uses: --mca coll_tuned_use_dynamic_rules 1
 * --mca coll_tuned_<coll>_algorithm alg, other MCA values at their defaults
 * (segsize 0, fan-out 4, radix 4); set a->segsize after for
 * coll_tuned_<coll>_algorithm_segmentsize. */
int compi_map_ompi41_pinned(compi_map_coll coll, int alg, compi_map_alg *a);
/* Algorithm ids of coll: 1..n; its MCA name; NULL outside. */
int compi_map_ompi41_nalgs(compi_map_coll coll);
const char *compi_map_ompi41_alg_name(compi_map_coll coll, int alg);
/* Appends to out every message the algorithm sends, in no particular order
 * (zero-byte messages included: barriers and some hand-shakes are nothing
 * else). Algorithms that fall back to another one (non-power-of-two sizes,
 * too few elements) are followed exactly as Open MPI does; composite ones
 * (reduce + bcast, gather + bcast) use the fixed decision for their parts.
 * Returns 0 or a COMPI_MAP_E* code. */
int compi_map_ompi41_messages(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *out);
/* The same for a run that pinned pins[coll] (alg 0: that collective takes
 * the fixed decision): the parts of composite algorithms run the
 * communicator's own collectives, so a pinned part is pinned there too
 * (e.g. Reduce_scatter's reduce + scatterv with Reduce pinned). */
int compi_map_ompi41_messages_pins(const compi_map_call *c, const compi_map_alg *a,
                                   const compi_map_alg pins[COMPI_MAP_NCOLLS], compi_map_msgs *out);

/* ---- MPICH 4.0 (ch4:ucx, checked with 4.0.2): pinned MPIR algorithms ----
 * Algorithm ids 1..n per collective in the table's order; names are the
 * values of MPIR_CVAR_<COLL>_INTRA_ALGORITHM. No default selection yet. */
int compi_map_mpich40_nalgs(compi_map_coll coll);
const char *compi_map_mpich40_alg_name(compi_map_coll coll, int alg);
int compi_map_mpich40_alg_parse(compi_map_coll coll, const char *name); /* -1: unknown */
int compi_map_mpich40_messages(const compi_map_call *c, int alg, compi_map_msgs *out);

/* ---- compi's own collectives (lib/coll/coll.h, lib/wrappers/collectives.c;
 * dkb_compi.c) ----
 * A call compi ran with its own algorithm instead of the MPI's: node-local
 * steps and exchanges (lib/coll/pipex.c: the blocks' metadata by a
 * collective of the MPI on compi's sub-communicators, then every block
 * point to point), on the leaders, on all ranks (Alltoall(v)) or on the
 * communicator (Gather(v), Scatter(v)). Which messages it sends depends on
 * which ranks share a node, so the decomposition takes the node of every
 * rank (a placement's); the sub-communicators' collectives are decomposed by
 * sub (the MPI's DKB for the run's algorithms) and mapped back to the
 * communicator's ranks. Blocks are counted raw (one message of the packed
 * bytes: a traced run's) unless ratio makes a pair's block a frame. */
typedef enum {
    COMPI_MAP_WAY_SPLIT = 0,   /* the one way of the non-reductions; Allreduce/Reduce: split */
    COMPI_MAP_WAY_SPLIT_AGREE, /* split, on a call that measures (one 2-number allreduce among leaders) */
    COMPI_MAP_WAY_WHOLE        /* Allreduce/Reduce: whole partials (engine/leaders.h) */
} compi_map_way;
typedef struct {
    compi_map_call call; /* allgather(v), alltoall(v), allreduce, reduce, reduce_scatter(_block),
                                bcast, gather(v), scatter(v); reduce_scatter_block: count = each rank's block */
    const int *node;     /* call.size entries: node id of every rank (equal = same node) */
    int way;             /* compi_map_way */
    int me;              /* alltoallv: the rank whose send row call.counts holds (row me of a size x size
                                matrix); only its sends are listed. Else -1 */
    /* compression ratio (> 1) of a block from comm rank src to dst on
     * another node (sent as a frame); NULL or <= 1: raw blocks (a traced run's) */
    double (*ratio)(void *ratio_ctx, int src, int dst);
    void *ratio_ctx;
    /* 1: a message a rank sends itself on MPI_COMM_SELF is a local copy the
     * MPI hands to no network module (MPICH 4.0: ucx_count_shim sees none),
     * so it is not listed; 0: a message (Open MPI's pml counts it) */
    int self_comm_local;
} compi_map_compi_call;
typedef int (*compi_map_sub_fn)(void *ctx, const compi_map_call *c, compi_map_msgs *out);
/* The steps of one call: messages [end[k-1], end[k]) of out travel at once
 * (every node's local step; one exchange), the steps one after another. */
#define COMPI_MAP_MAX_PHASES 16
typedef struct {
    size_t end[COMPI_MAP_MAX_PHASES];
    /* a step that is one collective of the MPI: which (else -1) and its root
     * (a comm rank of the call's communicator) */
    int coll[COMPI_MAP_MAX_PHASES], root[COMPI_MAP_MAX_PHASES];
    int n;
} compi_map_phases;
/* Appends the call's messages (zero-byte ones included) to out, and (phases
 * not NULL) where each step's messages end (indices into out); 0 or a COMPI_MAP_E* code (COMPI_MAP_EALG: compi
 * has no algorithm of its own for this collective; a sub error is passed
 * on). */
int compi_map_compi_messages(const compi_map_compi_call *c, compi_map_sub_fn sub, void *ctx, compi_map_msgs *out,
                             compi_map_phases *phases);

#endif
