/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_collbench: plain MPI vs compi collectives in the same run (OSU style).
 *
 * As in compi_pingpong, the plain variant calls the PMPI_* entry points,
 * which a PMPI interposer never sees, and the compi variant the MPI_* ones,
 * which libcompi.so intercepts when it is LD_PRELOADed; both run in the same
 * process on the same communicator (one duplicate of MPI_COMM_WORLD per data
 * set), alternating per repetition (the order
 * flips every rep) so drift in load or link state hits both alike.
 *
 * One timed call: PMPI_Barrier, then the collective alone between two
 * MPI_Wtime calls on every rank; its time is the maximum over the ranks
 * (taken with PMPI_Allreduce after the clock stopped). Each rep gives one
 * such time per variant, and so one paired ratio plain/compi; a point (coll,
 * size, data) reports the median times, the median of the ratios and a
 * distribution-free confidence interval of that median (order statistics of
 * the binomial, as dev/cmd/bench_apps_summary.py computes it: ~90 %
 * coverage when the reps allow, the whole range with its lower coverage
 * below 5 reps).
 *
 * Nonblocking forms (ialltoall, iallgather, ibcast, iallreduce): the call
 * then its Wait, timed together, checked like the blocking twin.
 * neighbor_alltoall: MPI_Neighbor_alltoall on a periodic ring (a 1-D
 * cartesian communicator): a block to each of the two neighbours.
 * Overlap (ialltoall_overlap): MPI_Ialltoall, then compute, then MPI_Wait,
 * timed together; the compute is a fixed amount of arithmetic calibrated
 * per point to take as long as plain MPI_Alltoall of that point (median of
 * 5 calls). The point also prints the compute alone and plain's blocking
 * Alltoall, so "compute + Ialltoall + Wait" reads against both: equal to
 * the compute alone is full overlap, equal to their sum none.
 *
 * Sizes: the block one rank sends to one peer for allgather(v), alltoall(v),
 * gather and scatter; the vector for allreduce, reduce and bcast. The "v"
 * variants give odd ranks (allgatherv) or odd rank pairs (alltoallv) 3/4 of
 * that block and place the blocks in reverse rank order, so uneven counts and
 * displacements are exercised. Roots are rank 0.
 *
 * Data: the synthetic data sets of lib/common/datasets.h, each rank its own
 * seed, typed by their element class (MPI_INT, MPI_FLOAT, MPI_DOUBLE, else
 * MPI_BYTE) as an application would type them. Reductions: MPI_SUM on
 * MPI_DOUBLE, MPI_FLOAT and MPI_INT data, MPI_MAX on MPI_SIGNED_CHAR for
 * the byte data sets (not MPI_UNSIGNED_CHAR: MPICH 4.0.2, Debian 12's,
 * compares unsigned types as signed in MPI_MAX/MPI_MIN, pmodels/mpich#6083).
 *
 * Verification, every rep and outside the timed region: compi's result
 * equals plain's of the same rep bitwise (data movement, integer and byte
 * reductions) or, for floating-point sums (whose rounding depends on the
 * order of combination), to 1e-12 (double) / 1e-5 (float) relative to the
 * sum of the magnitudes of the contributions; the largest difference is
 * printed. Once per point plain's result is also checked against the result
 * computed locally from every rank's (regenerated) data. Receive buffers are
 * poisoned before every call. Any mismatch prints a MISMATCH line and the
 * program exits 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "common/datasets.h"

#define MAX_SIZES 64
#define MAX_DATA 64
#define ALPHA 0.10 /* two-sided; the interval covers the median with >= 90 % when the reps allow */

enum {
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLREDUCE,
    C_REDUCE,
    C_BCAST,
    C_GATHER,
    C_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_IALLTOALL,
    C_IALLGATHER,
    C_IBCAST,
    C_IALLREDUCE,
    C_NEIGHBOR_ALLTOALL,
    C_IALLTOALL_OVERLAP,
    C_COUNT
};
static const char *const COLL_NAMES[C_COUNT] = {
    "allgather",        "allgatherv", "alltoall", "alltoallv",  "allreduce",
    "reduce",           "bcast",      "gather",   "scatter",    "reduce_scatter_block",
    "ialltoall",        "iallgather", "ibcast",   "iallreduce", "neighbor_alltoall",
    "ialltoall_overlap"};
/* How a point's call runs: the blocking collective, its nonblocking twin
 * and a Wait, the twin overlapped with compute; the data logic is the
 * blocking twin's (point.coll). */
enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_OVERLAP };
static int coll_base(int c)
{
    switch (c) {
    case C_IALLTOALL:
    case C_IALLTOALL_OVERLAP: return C_ALLTOALL;
    case C_IALLGATHER: return C_ALLGATHER;
    case C_IBCAST: return C_BCAST;
    case C_IALLREDUCE: return C_ALLREDUCE;
    default: return c;
    }
}
static int coll_form(int c)
{
    return c == C_IALLTOALL_OVERLAP                ? FORM_OVERLAP
           : c >= C_IALLTOALL && c <= C_IALLREDUCE ? FORM_NONBLOCKING
                                                   : FORM_BLOCKING;
}
enum { VAR_PLAIN = 0, VAR_COMPI = 1 };
enum { ROOT = 0 };

typedef struct {
    size_t sizes[MAX_SIZES];
    int nsizes;
    int data[MAX_DATA];
    int ndata;
    int colls[C_COUNT];
    int ncolls;
    int reps, min_reps, warmup; /* warmup -1: by collective (point_warmup) */
    double budget;              /* seconds of timed calls (both variants) per point */
    size_t max_mem;             /* buffers per rank and point */
    uint64_t seed;
    int quiet;
    int per_rep; /* print every timed rep's times (REP lines) */
} options;

static int g_rank, g_size;
static uint64_t g_seed;

static void die(const char *msg)
{
    fprintf(stderr, "compi_collbench (rank %d): %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

static void usage(void)
{
    if (g_rank) return;
    fprintf(stderr,
            "usage: compi_collbench [--colls NAME[,NAME..]|all] [--sizes LO:HI[:F] | --sizes S[,S..]]\n"
            "                       [--data NAME[,NAME..]|all] [--reps N] [--min-reps N] [--warmup N]\n"
            "                       [--budget SEC] [--max-mem BYTES] [--seed N] [--quiet] [--per-rep]\n"
            "  colls: allgather allgatherv alltoall alltoallv allreduce reduce bcast gather scatter\n"
            "         reduce_scatter_block ialltoall iallgather ibcast iallreduce neighbor_alltoall\n"
            "         ialltoall_overlap (default all)\n"
            "  sizes: bytes per block (allgather(v), alltoall(v), gather, scatter: what one rank sends to one\n"
            "         peer) or per vector (allreduce, reduce, bcast); K/M/G suffixes (powers of 1024); LO:HI\n"
            "         steps by F (default 2); default 1K:16M:4\n"
            "  data:  default double_smooth,int_r50,text,random; reductions: MPI_SUM on double/float/int\n"
            "         data, MPI_MAX on MPI_SIGNED_CHAR for byte data\n"
            "  reps:  timed reps per variant (default 11), at least --min-reps (default 5) even over\n"
            "         --budget seconds of timed calls per point (default 10); --warmup untimed reps (default 1;\n"
            "         6 for the nonblocking and neighbourhood calls: compi's gate decides their path from the\n"
            "         7th call of a point on, see docs/nbc.md)\n"
            "  --max-mem: skip points whose buffers exceed this per rank (default 1G)\n"
            "  --per-rep: also print each timed rep (REP lines: index, which variant ran first, both times)\n"
            "  Data sets:");
    for (size_t i = 0; i < compi_dataset_count(); i++) fprintf(stderr, " %s", compi_dataset_name(i));
    fprintf(stderr, "\n");
}

/* ------------------------------------------------------------ arguments */

static int parse_colls(const char *arg, options *o)
{
    o->ncolls = 0;
    if (strcmp(arg, "all") == 0) {
        for (int c = 0; c < C_COUNT; c++) o->colls[o->ncolls++] = c;
        return 0;
    }
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < C_COUNT && strcmp(COLL_NAMES[c], tok)) c++;
        if (c == C_COUNT || o->ncolls == C_COUNT) {
            if (g_rank == 0) fprintf(stderr, "compi_collbench: unknown collective '%s'\n", tok);
            free(copy);
            return -1;
        }
        o->colls[o->ncolls++] = c;
    }
    free(copy);
    return o->ncolls ? 0 : -1;
}

static void parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    bench_parse_sizes("1K:16M:4", o->sizes, MAX_SIZES, &o->nsizes);
    parse_colls("all", o);
    o->reps = 11;
    o->min_reps = 5;
    o->warmup = -1;
    o->budget = 10.0;
    o->max_mem = (size_t)1 << 30;
    o->seed = 42;
    const char *defaults = "double_smooth,int_r50,text,random";
    int have_data = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        } else if (!strcmp(a, "--per-rep")) {
            o->per_rep = 1;
            continue;
        }
        if (!v) bad = 1;
        else if (!strcmp(a, "--sizes")) bad = bench_parse_sizes(v, o->sizes, MAX_SIZES, &o->nsizes);
        else if (!strcmp(a, "--data"))
            bad = bench_parse_data(v, o->data, MAX_DATA, &o->ndata, "compi_collbench", g_rank), have_data = !bad;
        else if (!strcmp(a, "--colls")) bad = parse_colls(v, o);
        else if (!strcmp(a, "--reps")) bad = (o->reps = atoi(v)) < 1;
        else if (!strcmp(a, "--min-reps")) bad = (o->min_reps = atoi(v)) < 1;
        else if (!strcmp(a, "--warmup")) bad = (o->warmup = atoi(v)) < 0;
        else if (!strcmp(a, "--budget")) bad = !((o->budget = atof(v)) > 0);
        else if (!strcmp(a, "--max-mem")) bad = bench_parse_size(v, &o->max_mem);
        else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 0);
        else bad = 1;
        if (bad) {
            if (g_rank == 0) fprintf(stderr, "compi_collbench: bad argument '%s%s%s'\n", a, v ? " " : "", v ? v : "");
            usage();
            MPI_Finalize();
            exit(2);
        }
        i++;
    }
    if (!have_data && bench_parse_data(defaults, o->data, MAX_DATA, &o->ndata, "compi_collbench", g_rank))
        die("default data sets not found in the datasets registry");
    if (o->min_reps > o->reps) o->min_reps = o->reps;
}

/* ------------------------------------------------------------ variants */

typedef struct {
    const char *name;
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*allgatherv)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
    int (*alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*alltoallv)(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                     MPI_Datatype, MPI_Comm);
    int (*allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
    int (*gather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*scatter)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
    int (*reduce_scatter_block)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*ialltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
    int (*iallgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Request *);
    int (*ibcast)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
    int (*iallreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
    int (*wait)(MPI_Request *, MPI_Status *);
    int (*neighbor_alltoall)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
} variant;

/* Plain = PMPI entry points (invisible to a PMPI tool), compi = MPI entry points. */
static const variant VARIANTS[2] = {
    {"plain", PMPI_Allgather, PMPI_Allgatherv, PMPI_Alltoall, PMPI_Alltoallv, PMPI_Allreduce, PMPI_Reduce, PMPI_Bcast,
     PMPI_Gather, PMPI_Scatter, PMPI_Reduce_scatter_block, PMPI_Ialltoall, PMPI_Iallgather, PMPI_Ibcast,
     PMPI_Iallreduce, PMPI_Wait, PMPI_Neighbor_alltoall},
    {"compi", MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Allreduce, MPI_Reduce, MPI_Bcast,
     MPI_Gather, MPI_Scatter, MPI_Reduce_scatter_block, MPI_Ialltoall, MPI_Iallgather, MPI_Ibcast, MPI_Iallreduce,
     MPI_Wait, MPI_Neighbor_alltoall},
};

/* ------------------------------------------------------------ points */

typedef enum { CMP_EXACT, CMP_DOUBLE, CMP_FLOAT } cmp_kind;

typedef struct {
    int coll, data;    /* coll: the blocking twin (coll_base) */
    int name, form;    /* the collective asked for, how it runs (FORM_*) */
    double compute_s;  /* FORM_OVERLAP: the compute's length, calibrated */
    double blocking_s; /* FORM_OVERLAP: plain's blocking Alltoall */
    long compute_iters;
    size_t size;       /* nominal bytes of a block / vector */
    MPI_Datatype type; /* element type of the data set */
    size_t es;         /* its size */
    int count;         /* elements of a nominal block */
    MPI_Op op;         /* reductions */
    cmp_kind cmp;
    int *scounts, *sdispls, *rcounts, *rdispls; /* elements, per rank (v variants) */
    size_t sbytes, rbytes;
    unsigned char *sbuf;    /* my send data (bcast/scatter: the root's) */
    unsigned char *rbuf[2]; /* each variant's result */
    unsigned char *scratch; /* another rank's regenerated send data */
    double *sumabs;         /* floating-point reductions: sum of |contribution| per element */
    double maxrel;          /* largest relative difference compi vs plain seen in this point */
} point;

static int is_reduction(int coll)
{
    return coll == C_ALLREDUCE || coll == C_REDUCE || coll == C_REDUCE_SCATTER_BLOCK;
}

/* Elements of a nominal block in a "v" block: 3/4 for odd ranks (pairs). */
static int vcount(int count, int odd)
{
    return odd ? count - count / 4 : count;
}

/* Rank q's send layout: element count of its block for rank `to`, and its
 * offset in q's send buffer; blocks lie in reverse rank order. */
static int a2av_count(const point *p, int from, int to)
{
    return vcount(p->count, (from + to) % 2);
}
static size_t a2av_soffset(const point *p, int from, int to)
{
    size_t off = 0;
    for (int k = to + 1; k < g_size; k++) off += (size_t)a2av_count(p, from, k);
    return off;
}

/* Bytes of rank q's send buffer. */
static size_t send_bytes_of(const point *p, int q)
{
    size_t c = (size_t)p->count;
    switch (p->coll) {
    case C_ALLGATHERV: return (size_t)vcount(p->count, q % 2) * p->es;
    case C_ALLTOALL: return c * (size_t)g_size * p->es;
    case C_ALLTOALLV: return a2av_soffset(p, q, -1) * p->es;
    case C_SCATTER: return q == ROOT ? c * (size_t)g_size * p->es : 0;
    case C_REDUCE_SCATTER_BLOCK: return c * (size_t)g_size * p->es; /* a block of the vector per rank */
    case C_NEIGHBOR_ALLTOALL: return 2 * c * p->es;                 /* to the -1, then the +1 neighbour */
    default: return c * p->es; /* allgather, reductions, bcast (root's vector), gather */
    }
}

/* Rank q's send data: the data set with q's own seed. */
static void gen_send(const point *p, int q, unsigned char *buf)
{
    compi_dataset_fill((size_t)p->data, buf, send_bytes_of(p, q),
                       g_seed + (uint64_t)p->size * 1000003ULL + (uint64_t)(q + 1) * 7919ULL + (uint64_t)p->data);
}

/* The MPI datatype matching the data set's element class; sizes that are
 * not a multiple of the element go as bytes. */
static void set_type(point *p)
{
    compi_dtclass cls = compi_dataset_class((size_t)p->data);
    p->type = MPI_BYTE, p->es = 1, p->cmp = CMP_EXACT;
    if (cls == COMPI_CLASS_INT) p->type = MPI_INT, p->es = 4;
    else if (cls == COMPI_CLASS_FLOAT) p->type = MPI_FLOAT, p->es = 4;
    else if (cls == COMPI_CLASS_DOUBLE) p->type = MPI_DOUBLE, p->es = 8;
    if (p->size % p->es) p->type = MPI_BYTE, p->es = 1;
    if (is_reduction(p->coll)) {
        p->op = MPI_SUM;
        if (p->type == MPI_DOUBLE) p->cmp = CMP_DOUBLE;
        else if (p->type == MPI_FLOAT) p->cmp = CMP_FLOAT;
        else if (p->type == MPI_BYTE) p->type = MPI_SIGNED_CHAR, p->op = MPI_MAX;
    }
    if (p->size / p->es > (size_t)INT32_MAX / (size_t)g_size) die("size too large for int counts");
    p->count = (int)(p->size / p->es);
}

static const char *type_name(const point *p)
{
    if (p->type == MPI_DOUBLE) return "double";
    if (p->type == MPI_FLOAT) return "float";
    if (p->type == MPI_INT) return "int";
    if (p->type == MPI_SIGNED_CHAR) return "schar";
    return "byte";
}

/* Buffers of one point; returns the bytes this rank needs (nothing allocated when `dry`). */
static size_t point_setup(point *p, int dry)
{
    const int P = g_size, me = g_rank;
    const size_t c = (size_t)p->count, es = p->es;
    size_t scratch = 0;
    for (int q = 0; q < P; q++)
        if (send_bytes_of(p, q) > scratch) scratch = send_bytes_of(p, q);
    p->sbytes = send_bytes_of(p, me);
    switch (p->coll) {
    case C_ALLGATHER:
    case C_ALLTOALL: p->rbytes = c * (size_t)P * es; break;
    case C_ALLGATHERV:
        p->rbytes = 0;
        for (int q = 0; q < P; q++) p->rbytes += (size_t)vcount(p->count, q % 2) * es;
        break;
    case C_ALLTOALLV:
        p->rbytes = 0;
        for (int q = 0; q < P; q++) p->rbytes += (size_t)a2av_count(p, q, me) * es;
        break;
    case C_GATHER: p->rbytes = me == ROOT ? c * (size_t)P * es : 0; break;
    case C_NEIGHBOR_ALLTOALL: p->rbytes = 2 * c * es; break;
    default: p->rbytes = c * es; break; /* reductions (the root's or everyone's result), bcast, scatter */
    }
    if (p->coll == C_BCAST) p->sbytes = c * es; /* every rank keeps the root's vector for the check */
    size_t need = p->sbytes + 2 * p->rbytes + scratch;
    if (p->cmp != CMP_EXACT) need += c * (sizeof(double) + es);
    if (dry) return need;

    p->sbuf = xmalloc(p->sbytes);
    p->rbuf[0] = xmalloc(p->rbytes);
    p->rbuf[1] = xmalloc(p->rbytes);
    p->scratch = xmalloc(scratch);
    p->sumabs = p->cmp != CMP_EXACT ? xmalloc(c * sizeof(double)) : NULL;
    p->maxrel = 0;
    p->scounts = xmalloc(sizeof(int) * (size_t)P);
    p->sdispls = xmalloc(sizeof(int) * (size_t)P);
    p->rcounts = xmalloc(sizeof(int) * (size_t)P);
    p->rdispls = xmalloc(sizeof(int) * (size_t)P);
    if (p->coll == C_ALLGATHERV) {
        for (int q = 0; q < P; q++) p->rcounts[q] = vcount(p->count, q % 2);
        for (int q = P - 1, at = 0; q >= 0; at += p->rcounts[q--]) p->rdispls[q] = at;
    } else if (p->coll == C_ALLTOALLV) {
        for (int q = 0; q < P; q++) {
            p->scounts[q] = a2av_count(p, me, q);
            p->sdispls[q] = (int)a2av_soffset(p, me, q);
            p->rcounts[q] = a2av_count(p, q, me);
        }
        for (int q = P - 1, at = 0; q >= 0; at += p->rcounts[q--]) p->rdispls[q] = at;
    }
    if (p->coll == C_BCAST) {
        gen_send(p, ROOT, p->sbuf); /* the root's vector, kept on every rank */
    } else if (p->sbytes) {
        gen_send(p, me, p->sbuf);
    }
    return need;
}

static void point_free(point *p)
{
    free(p->sbuf), free(p->rbuf[0]), free(p->rbuf[1]), free(p->scratch), free(p->sumabs);
    free(p->scounts), free(p->sdispls), free(p->rcounts), free(p->rdispls);
}

/* Does this rank hold a result to check? */
static int has_result(const point *p)
{
    return !((p->coll == C_REDUCE || p->coll == C_GATHER) && g_rank != ROOT);
}

/* The communicator the timed calls run on: a duplicate of MPI_COMM_WORLD per
 * data set, so that what compi learnt about one data set (its collective
 * gates hold a decision for up to 64 calls) does not carry over into the
 * next, as two applications would not share it. */
static MPI_Comm g_comm = MPI_COMM_NULL;
static MPI_Comm g_ring = MPI_COMM_NULL; /* neighbor_alltoall: a periodic 1-D cartesian communicator */

/* FORM_OVERLAP's compute: iters rounds of arithmetic on a small array (no
 * MPI call, as a solver's local work), its result kept so it is not
 * optimised away. */
static volatile double g_sink;
static void compute(long iters)
{
    double a[64];
    for (int i = 0; i < 64; i++) a[i] = 1.0 + i * 1e-3;
    for (long k = 0; k < iters; k++)
        for (int i = 0; i < 64; i++) a[i] = a[i] * 0.999999 + 1e-7;
    g_sink = a[7];
}

static void one_call(const point *p, const variant *v, unsigned char *rbuf);

/* FORM_OVERLAP: compute_iters so the compute takes as long as plain's
 * blocking Alltoall of this point (medians of 5; every rank uses rank 0's). */
static void calibrate_overlap(point *p)
{
    double t[5], c[5];
    point b = *p;
    b.form = FORM_BLOCKING;
    for (int k = 0; k < 5; k++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        one_call(&b, &VARIANTS[VAR_PLAIN], p->rbuf[VAR_PLAIN]);
        double mine = MPI_Wtime() - t0;
        PMPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    double target = bench_median(t, 5);
    long iters = 1000;
    for (;;) {
        double t0 = MPI_Wtime();
        compute(iters);
        double d = MPI_Wtime() - t0;
        if (d > 0.01 || iters > (1L << 40)) {
            iters = (long)((double)iters * target / (d > 0 ? d : 1e-9));
            break;
        }
        iters *= 4;
    }
    PMPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    for (int k = 0; k < 5; k++) {
        double t0 = MPI_Wtime();
        compute(iters);
        c[k] = MPI_Wtime() - t0;
    }
    p->compute_iters = iters;
    p->compute_s = bench_median(c, 5);
    p->blocking_s = target;
}
static void call(const point *p, const variant *v, unsigned char *rbuf)
{
    one_call(p, v, rbuf);
}

static void one_call(const point *p, const variant *v, unsigned char *rbuf)
{
    const MPI_Comm w = g_comm;
    const int c = p->count;
    int rc = MPI_SUCCESS;
    if (p->form != FORM_BLOCKING) {
        MPI_Request r = MPI_REQUEST_NULL;
        switch (p->coll) {
        case C_ALLTOALL: rc = v->ialltoall(p->sbuf, c, p->type, rbuf, c, p->type, w, &r); break;
        case C_ALLGATHER: rc = v->iallgather(p->sbuf, c, p->type, rbuf, c, p->type, w, &r); break;
        case C_BCAST: rc = v->ibcast(rbuf, c, p->type, ROOT, w, &r); break;
        default: rc = v->iallreduce(p->sbuf, rbuf, c, p->type, p->op, w, &r); break;
        }
        if (rc == MPI_SUCCESS && p->form == FORM_OVERLAP) compute(p->compute_iters);
        if (rc == MPI_SUCCESS) rc = v->wait(&r, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s %s returned error %d", v->name, COLL_NAMES[p->name], rc);
            die(msg);
        }
        return;
    }
    switch (p->coll) {
    case C_NEIGHBOR_ALLTOALL: rc = v->neighbor_alltoall(p->sbuf, c, p->type, rbuf, c, p->type, g_ring); break;
    case C_ALLGATHER: rc = v->allgather(p->sbuf, c, p->type, rbuf, c, p->type, w); break;
    case C_ALLGATHERV:
        rc = v->allgatherv(p->sbuf, vcount(c, g_rank % 2), p->type, rbuf, p->rcounts, p->rdispls, p->type, w);
        break;
    case C_ALLTOALL: rc = v->alltoall(p->sbuf, c, p->type, rbuf, c, p->type, w); break;
    case C_ALLTOALLV:
        rc = v->alltoallv(p->sbuf, p->scounts, p->sdispls, p->type, rbuf, p->rcounts, p->rdispls, p->type, w);
        break;
    case C_ALLREDUCE: rc = v->allreduce(p->sbuf, rbuf, c, p->type, p->op, w); break;
    case C_REDUCE: rc = v->reduce(p->sbuf, rbuf, c, p->type, p->op, ROOT, w); break;
    case C_BCAST: rc = v->bcast(rbuf, c, p->type, ROOT, w); break;
    case C_GATHER: rc = v->gather(p->sbuf, c, p->type, rbuf, c, p->type, ROOT, w); break;
    case C_SCATTER: rc = v->scatter(p->sbuf, c, p->type, rbuf, c, p->type, ROOT, w); break;
    case C_REDUCE_SCATTER_BLOCK: rc = v->reduce_scatter_block(p->sbuf, rbuf, c, p->type, p->op, w); break;
    }
    if (rc != MPI_SUCCESS) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s %s returned error %d", v->name, COLL_NAMES[p->name], rc);
        die(msg);
    }
}

/* Before a call, outside the clock: receive buffers poisoned (a call that
 * writes nothing cannot pass), the broadcast root's vector restored. */
static void prepare(const point *p, unsigned char *rbuf)
{
    memset(rbuf, 0xA5, p->rbytes);
    if (p->coll == C_BCAST && g_rank == ROOT) memcpy(rbuf, p->sbuf, p->rbytes);
}

/* ------------------------------------------------------------ checks */

static char g_why[512]; /* this rank's first mismatch, printed by it */

static int mismatch_bytes(const point *p, const unsigned char *got, const unsigned char *want, size_t n, size_t at,
                          const char *what)
{
    if (!memcmp(got, want, n)) return 0;
    size_t i = 0;
    while (got[i] == want[i]) i++;
    snprintf(g_why, sizeof g_why,
             "MISMATCH (rank %d): %s: coll=%s size=%zu data=%s: first difference at result byte %zu (got 0x%02x, "
             "want 0x%02x)",
             g_rank, what, COLL_NAMES[p->name], p->size, compi_dataset_name((size_t)p->data), at + i, got[i], want[i]);
    return 1;
}

/* Floating-point sums: |got - want| <= tol * sumabs per element; the
 * largest |got - want| / sumabs goes to *maxrel. */
static int mismatch_sum(const point *p, const unsigned char *got, const unsigned char *want, const char *what,
                        double *maxrel)
{
    const double tol = p->cmp == CMP_DOUBLE ? 1e-12 : 1e-5;
    for (int i = 0; i < p->count; i++) {
        double g, w;
        if (p->cmp == CMP_DOUBLE) {
            memcpy(&g, got + (size_t)i * 8, 8), memcpy(&w, want + (size_t)i * 8, 8);
        } else {
            float gf, wf;
            memcpy(&gf, got + (size_t)i * 4, 4), memcpy(&wf, want + (size_t)i * 4, 4);
            g = gf, w = wf;
        }
        if (g == w) continue;
        double scale = p->sumabs[i] > 0 ? p->sumabs[i] : 1e-300;
        double rel = fabs(g - w) / scale;
        if (!(rel <= tol)) { /* also NaN */
            snprintf(g_why, sizeof g_why,
                     "MISMATCH (rank %d): %s: coll=%s size=%zu data=%s: element %d is %.17g, want %.17g "
                     "(relative difference %.3g > %g)",
                     g_rank, what, COLL_NAMES[p->name], p->size, compi_dataset_name((size_t)p->data), i, g, w, rel,
                     tol);
            return 1;
        }
        if (rel > *maxrel) *maxrel = rel;
    }
    return 0;
}

/* compi's result against plain's of the same rep. */
static int check_compi(point *p, double *maxrel)
{
    if (!has_result(p)) return 0;
    if (p->cmp == CMP_EXACT)
        return mismatch_bytes(p, p->rbuf[VAR_COMPI], p->rbuf[VAR_PLAIN], p->rbytes, 0, "compi vs plain");
    return mismatch_sum(p, p->rbuf[VAR_COMPI], p->rbuf[VAR_PLAIN], "compi vs plain", maxrel);
}

/* plain's result against the one computed here from every rank's
 * regenerated data (checks the benchmark's own bookkeeping); also fills
 * sumabs for the floating-point reductions. */
static int check_plain(point *p)
{
    const int P = g_size, me = g_rank;
    const size_t es = p->es, c = (size_t)p->count;
    const unsigned char *got = p->rbuf[VAR_PLAIN];
    const char *what = "plain vs expected";
    switch (p->coll) {
    case C_ALLGATHER:
    case C_ALLGATHERV:
        for (int q = 0; q < P; q++) {
            gen_send(p, q, p->scratch);
            size_t at = p->coll == C_ALLGATHER ? (size_t)q * c * es : (size_t)p->rdispls[q] * es;
            if (mismatch_bytes(p, got + at, p->scratch, send_bytes_of(p, q), at, what)) return 1;
        }
        return 0;
    case C_ALLTOALL:
    case C_ALLTOALLV:
        for (int q = 0; q < P; q++) {
            gen_send(p, q, p->scratch);
            size_t from = p->coll == C_ALLTOALL ? (size_t)me * c * es : a2av_soffset(p, q, me) * es;
            size_t n = p->coll == C_ALLTOALL ? c * es : (size_t)a2av_count(p, q, me) * es;
            size_t at = p->coll == C_ALLTOALL ? (size_t)q * c * es : (size_t)p->rdispls[q] * es;
            if (mismatch_bytes(p, got + at, p->scratch + from, n, at, what)) return 1;
        }
        return 0;
    case C_BCAST: return mismatch_bytes(p, got, p->sbuf, p->rbytes, 0, what);
    case C_GATHER:
        if (me != ROOT) return 0;
        for (int q = 0; q < P; q++) {
            gen_send(p, q, p->scratch);
            if (mismatch_bytes(p, got + (size_t)q * c * es, p->scratch, c * es, (size_t)q * c * es, what)) return 1;
        }
        return 0;
    case C_SCATTER:
        gen_send(p, ROOT, p->scratch);
        return mismatch_bytes(p, got, p->scratch + (size_t)me * c * es, c * es, 0, what);
    case C_NEIGHBOR_ALLTOALL:
        /* slot 0 from the -1 neighbour: what it sent its +1 neighbour; slot 1 the other way */
        gen_send(p, (me + P - 1) % P, p->scratch);
        if (mismatch_bytes(p, got, p->scratch + c * es, c * es, 0, what)) return 1;
        gen_send(p, (me + 1) % P, p->scratch);
        return mismatch_bytes(p, got + c * es, p->scratch, c * es, c * es, what);
    default: break;
    }
    if (!has_result(p)) return 0;
    /* reductions: combine in rank order (exact for int sums and byte maxima);
     * reduce_scatter_block: my block of the vector */
    unsigned char *want = xmalloc(c * es);
    const size_t base = p->coll == C_REDUCE_SCATTER_BLOCK ? (size_t)me * c * es : 0;
    for (int q = 0; q < P; q++) {
        gen_send(p, q, p->scratch);
        const unsigned char *in = p->scratch + base;
        for (size_t i = 0; i < c; i++) {
            if (p->type == MPI_INT) {
                int32_t a, b;
                memcpy(&b, in + i * 4, 4);
                if (q) memcpy(&a, want + i * 4, 4), b = (int32_t)((uint32_t)a + (uint32_t)b);
                memcpy(want + i * 4, &b, 4);
            } else if (p->type == MPI_SIGNED_CHAR) {
                signed char b = (signed char)in[i];
                if (!q || b > (signed char)want[i]) want[i] = (unsigned char)b;
            } else if (p->type == MPI_DOUBLE) {
                double a, b;
                memcpy(&b, in + i * 8, 8);
                p->sumabs[i] = (q ? p->sumabs[i] : 0) + fabs(b);
                if (q) memcpy(&a, want + i * 8, 8), b += a;
                memcpy(want + i * 8, &b, 8);
            } else { /* float */
                float a, b;
                memcpy(&b, in + i * 4, 4);
                p->sumabs[i] = (q ? p->sumabs[i] : 0) + fabs((double)b);
                if (q) memcpy(&a, want + i * 4, 4), b += a;
                memcpy(want + i * 4, &b, 4);
            }
        }
    }
    double ignored = 0;
    int bad = p->cmp == CMP_EXACT ? mismatch_bytes(p, got, want, c * es, 0, what)
                                  : mismatch_sum(p, got, want, what, &ignored);
    free(want);
    return bad;
}

/* ------------------------------------------------------------ one point */

/* One rep: both variants (first one first), verified. t[var] = max over
 * ranks. Returns 0, or 1 when some rank saw a mismatch (all ranks agree). */
static int one_rep(point *p, int first, int expect_check, double t[2])
{
    double local[4] = {0, 0, 0, 0}; /* t_plain, t_compi, mismatch, maxrel */
    for (int k = 0; k < 2; k++) {
        int var = k ? !first : first;
        prepare(p, p->rbuf[var]);
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        call(p, &VARIANTS[var], p->rbuf[var]);
        local[var] = MPI_Wtime() - t0;
    }
    int bad = expect_check ? check_plain(p) : 0;
    if (!bad) bad = check_compi(p, &local[3]);
    local[2] = bad;
    if (bad) fprintf(stderr, "compi_collbench: %s\n", g_why);
    double all[4];
    PMPI_Allreduce(local, all, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[0] = all[0], t[1] = all[1];
    if (all[3] > p->maxrel) p->maxrel = all[3];
    return all[2] != 0;
}

typedef struct {
    int reps;
    double plain_us, compi_us, ratio, lo, hi, coverage;
} result;

/* Untimed reps of a point. A nonblocking or neighbourhood call's gate
 * (docs/nbc.md) runs a trial of 2 calls, then 4 calls on the MPI's own
 * call while its vote travels; from the 7th call on it runs the path the
 * vote chose (on random data: the MPI's, with a trial now and then). The
 * default warm-up covers those 6 calls, so the timed reps measure the
 * steady state a long run sees, not the start-up of a fresh gate. */
#define GATE_START_CALLS 6
static int point_warmup(const point *p, const options *o)
{
    if (o->warmup >= 0) return o->warmup;
    return p->form == FORM_BLOCKING && p->name != C_NEIGHBOR_ALLTOALL ? 1 : GATE_START_CALLS;
}

static int run_point(point *p, const options *o, double *times[2], double *ratios, result *r)
{
    int checked = 0, warmup = point_warmup(p, o);
    double t[2];
    for (int w = 0; w < warmup; w++, checked = 1)
        if (one_rep(p, w % 2, !checked, t)) return 1;
    int n = 0;
    double spent = 0;
    while (n < o->reps && (n < o->min_reps || spent < o->budget)) {
        if (one_rep(p, n % 2, !checked, t)) return 1;
        checked = 1;
        times[VAR_PLAIN][n] = t[VAR_PLAIN];
        times[VAR_COMPI][n] = t[VAR_COMPI];
        ratios[n] = t[VAR_COMPI] > 0 ? t[VAR_PLAIN] / t[VAR_COMPI] : 0;
        if (o->per_rep && g_rank == 0)
            printf("REP coll=%s size=%zu data=%s rep=%d first=%s plain_us=%.1f compi_us=%.1f ratio=%.4f\n",
                   COLL_NAMES[p->name], p->size, compi_dataset_name((size_t)p->data), n, VARIANTS[n % 2].name,
                   t[VAR_PLAIN] * 1e6, t[VAR_COMPI] * 1e6, ratios[n]);
        spent += t[0] + t[1];
        n++;
    }
    r->reps = n;
    r->plain_us = bench_median(times[VAR_PLAIN], n) * 1e6;
    r->compi_us = bench_median(times[VAR_COMPI], n) * 1e6;
    r->ratio = bench_median(ratios, n);
    bench_median_ci(ratios, n, ALPHA, &r->lo, &r->hi, &r->coverage);
    return 0;
}

/* ------------------------------------------------------------ main */

/* Rank placement by processor name; returns the number of distinct names. */
static int describe_placement(char *out, size_t cap)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    char *all = xmalloc((size_t)MPI_MAX_PROCESSOR_NAME * (size_t)g_size);
    PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    int nodes = 0;
    size_t at = 0;
    out[0] = 0;
    for (int q = 0; q < g_size; q++) {
        const char *nm = all + (size_t)q * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int k = 0; k < q && !seen; k++) seen = !strcmp(nm, all + (size_t)k * MPI_MAX_PROCESSOR_NAME);
        if (seen) continue;
        nodes++;
        if (at < cap) at += (size_t)snprintf(out + at, cap - at, "%s%s:", nodes > 1 ? "; " : "", nm);
        for (int k = q; k < g_size; k++)
            if (!strcmp(nm, all + (size_t)k * MPI_MAX_PROCESSOR_NAME) && at < cap)
                at += (size_t)snprintf(out + at, cap - at, " %d", k);
    }
    free(all);
    return nodes;
}

/* A few untimed calls of every collective, both variants: connections,
 * compi's node layout (built on first use) and first-touch costs. */
static int global_warmup(const options *o)
{
    for (int ci = 0; ci < o->ncolls; ci++) {
        point p = {.coll = coll_base(o->colls[ci]),
                   .name = o->colls[ci],
                   .form = coll_form(o->colls[ci]),
                   .data = o->data[0],
                   .size = 1024};
        set_type(&p);
        point_setup(&p, 0);
        double t[2];
        int bad = 0;
        for (int w = 0; w < 3 && !bad; w++) bad = one_rep(&p, w % 2, w == 0, t);
        point_free(&p);
        if (bad) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    options o;
    parse_args(argc, argv, &o);
    g_seed = o.seed;

    char placement[2048], interp[512];
    int nodes = describe_placement(placement, sizeof placement);
    if (g_rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int vlen;
        MPI_Get_library_version(ver, &vlen);
        char *nl = strchr(ver, '\n');
        if (nl) *nl = 0;
        bench_describe_interposer("MPI_Allgather", interp, sizeof interp);
        const char *mode = getenv("COMPI_MODE"), *codec = getenv("COMPI_CODEC");
        const char *rpn = getenv("COMPI_DEBUG_RANKS_PER_NODE");
        printf("# compi_collbench  %d ranks on %d node(s) by processor name: %s\n", g_size, nodes, placement);
        if (nodes < 2 && !(rpn && *rpn))
            printf("# ONE NODE: compi compresses nothing intra-node, so expect ratio ~1 (its pass-through cost)\n");
        printf("# MPI: %s\n# interposer: %s\n# COMPI_MODE=%s COMPI_CODEC=%s%s%s\n", ver, interp,
               mode ? mode : "(unset)", codec ? codec : "(unset)", rpn ? " COMPI_DEBUG_RANKS_PER_NODE=" : "",
               rpn ? rpn : "");
        printf(
            "# time = max over ranks of one call (PMPI_Barrier before it), median over reps; ratio = plain/compi\n"
            "#   per rep, its median and a distribution-free ~%.0f%% interval [lo, hi] (> 1: compi faster)\n"
            "# size = bytes per block (allgather(v), alltoall(v), gather, scatter) or per vector (allreduce,\n"
            "#   reduce, bcast); the v variants send 3/4 of it from odd ranks / between odd pairs; roots are rank 0\n",
            100 * (1 - ALPHA));
        printf("RESULT_HEADER ranks=%d nodes=%d\n", g_size, nodes);
        fflush(stdout);
    }

    g_comm = MPI_COMM_WORLD;
    int ring_dims[1] = {g_size}, ring_periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, ring_dims, ring_periods, 0, &g_ring);
    int failed = global_warmup(&o);
    MPI_Comm_free(&g_ring);
    double *times[2] = {xmalloc(sizeof(double) * (size_t)o.reps), xmalloc(sizeof(double) * (size_t)o.reps)};
    double *ratios = xmalloc(sizeof(double) * (size_t)o.reps);
    double maxrel_all = 0;
    int points = 0, skipped = 0;

    for (int d = 0; d < o.ndata && !failed; d++) {
        /* communicators of their own per data set: compi's gates (per
         * communicator) start afresh, as in a run on that data alone */
        MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
        MPI_Cart_create(MPI_COMM_WORLD, 1, ring_dims, ring_periods, 0, &g_ring);
        for (int ci = 0; ci < o.ncolls && !failed; ci++) {
            char results[MAX_SIZES * 320];
            size_t rlen = 0;
            results[0] = 0;
            point p0 = {.coll = coll_base(o.colls[ci]), .name = o.colls[ci], .data = o.data[d], .size = o.sizes[0]};
            set_type(&p0);
            if (g_rank == 0 && !o.quiet) {
                printf("\n## coll=%s data=%s type=%s%s\n%10s %5s %13s %13s %8s %17s\n", COLL_NAMES[p0.name],
                       compi_dataset_name((size_t)p0.data), type_name(&p0),
                       is_reduction(p0.coll) ? (p0.op == MPI_SUM ? " op=sum" : " op=max") : "", "size", "reps",
                       "plain_us", "compi_us", "ratio", "interval");
                fflush(stdout);
            }
            for (int si = 0; si < o.nsizes && !failed; si++) {
                point p = {.coll = coll_base(o.colls[ci]),
                           .name = o.colls[ci],
                           .form = coll_form(o.colls[ci]),
                           .data = o.data[d],
                           .size = o.sizes[si]};
                set_type(&p);
                /* every rank must agree on skipping: the largest need decides */
                unsigned long long need = point_setup(&p, 1), most;
                PMPI_Allreduce(&need, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
                if (most > o.max_mem) {
                    skipped++;
                    if (g_rank == 0 && !o.quiet)
                        printf("%10zu skipped: needs %.0f MiB per rank (--max-mem %.0f MiB)\n", p.size,
                               most / 1048576.0, o.max_mem / 1048576.0);
                    continue;
                }
                point_setup(&p, 0);
                if (p.form == FORM_OVERLAP) calibrate_overlap(&p);
                result r;
                failed = run_point(&p, &o, times, ratios, &r);
                if (p.maxrel > maxrel_all) maxrel_all = p.maxrel;
                if (!failed && g_rank == 0) {
                    points++;
                    char ci_s[64];
                    snprintf(ci_s, sizeof ci_s, "%.3f-%.3f", r.lo, r.hi);
                    if (!o.quiet)
                        printf("%10zu %5d %13.1f %13.1f %8.3f %17s%s\n", p.size, r.reps, r.plain_us, r.compi_us,
                               r.ratio, ci_s, r.coverage < 1 - ALPHA - 1e-9 ? " (few reps: low coverage)" : "");
                    fflush(stdout);
                    char extra[64] = "";
                    if (p.cmp != CMP_EXACT) snprintf(extra, sizeof extra, " maxreldiff=%.3g", p.maxrel);
                    if (p.form == FORM_OVERLAP) {
                        snprintf(extra, sizeof extra, " compute_us=%.3f blocking_plain_us=%.3f", p.compute_s * 1e6,
                                 p.blocking_s * 1e6);
                        if (!o.quiet)
                            printf("%10s compute alone %.1f us, plain blocking MPI_Alltoall %.1f us (above: compute + "
                                   "Ialltoall + Wait)\n",
                                   "", p.compute_s * 1e6, p.blocking_s * 1e6);
                    }
                    int w = snprintf(results + rlen, sizeof results - rlen,
                                     "RESULT coll=%s size=%zu data=%s reps=%d plain_us=%.3f compi_us=%.3f "
                                     "ratio=%.4f lo=%.4f hi=%.4f coverage=%.3f type=%s%s\n",
                                     COLL_NAMES[p.name], p.size, compi_dataset_name((size_t)p.data), r.reps, r.plain_us,
                                     r.compi_us, r.ratio, r.lo, r.hi, r.coverage, type_name(&p), extra);
                    if (w > 0 && (size_t)w < sizeof results - rlen) rlen += (size_t)w;
                }
                point_free(&p);
            }
            if (g_rank == 0 && rlen) {
                fputs(results, stdout);
                fflush(stdout);
            }
        }
        MPI_Comm_free(&g_comm);
        MPI_Comm_free(&g_ring);
        g_comm = MPI_COMM_WORLD;
    }
    if (g_rank == 0) {
        if (failed) printf("# FAILED: a result differed (MISMATCH line on stderr)\n");
        else
            printf("# all results verified: %d point(s), %d skipped; compi equals plain bitwise, floating-point sums "
                   "within tolerance (largest relative difference %.3g)\n",
                   points, skipped, maxrel_all);
        fflush(stdout);
    }
    free(times[0]), free(times[1]), free(ratios);
    MPI_Finalize();
    return failed ? 1 : 0;
}
