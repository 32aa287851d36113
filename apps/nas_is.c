/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_nas_is: NAS Parallel Benchmarks IS (integer sort), MPI version, in miniature.
 *
 * Keys come from NPB's own generator: the randlc linear congruential stream
 * (a = 5^13, seed 314159265), each key the average of four uniforms times
 * MAX_KEY, so keys are bell-shaped around MAX_KEY/2; every rank generates its
 * share by skipping the stream ahead (find_my_seed). Each iteration does what
 * NPB's rank() does:
 *   change two keys (so every iteration really sorts something new),
 *   count keys per bucket (high bits), order the local keys by bucket,
 *   MPI_Allreduce of the bucket sizes -> contiguous bucket ranges per rank,
 *   MPI_Alltoall of the send counts, MPI_Alltoallv of the keys (ints),
 *   count-rank the received keys over this rank's key range.
 * Then the full verification NPB does: sort locally by the ranks, check local
 * order and the order across rank boundaries, and (beyond NPB) that the number
 * of keys and their multiset (an order-independent hash) survived the exchange.
 * NPB's partial verification against tabulated ranks is class-specific and is
 * not done.
 *
 * --p2p replaces the MPI_Alltoallv by MPI_Irecv/MPI_Isend pairs per peer.
 * compi compresses both: the p2p messages, and the MPI_Alltoallv blocks for
 * other nodes (lib/coll, node-aware alltoall); the benchmark runs with --p2p,
 * as it did before compi wrapped MPI_Alltoallv.
 *
 * Sizes: --class S|W|A|B|C sets NPB's TOTAL_KEYS and MAX_KEY; --scale
 * multiplies TOTAL_KEYS. The default (no --class) is 2^21 keys up to 2^19,
 * 10 iterations: class A's key range, a quarter of its keys. Every rank
 * generates TOTAL_KEYS / ranks keys (NPB requires a power of two; here any
 * rank count works, the total rounded down to a multiple of it).
 *
 * bytes_sent counts the keys and counts each rank sends to other ranks during
 * the timed iterations (the bucket-size reduction is not counted). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define NUM_BUCKETS_LOG2 10 /* NPB's value for classes S..C */
#define NUM_BUCKETS (1 << NUM_BUCKETS_LOG2)

typedef struct {
    app_common_opts c;
    long total_keys;
    int max_key_log2;
    int p2p;
} options;

static int g_rank, g_nranks;

static const char *const usage =
    "usage: compi_nas_is [--class S|W|A|B|C] [--scale F] [--iters N] [--p2p] [--quiet]\n"
    "  default: 2^21 keys in [0, 2^19), 10 iterations, key exchange by MPI_Alltoallv\n"
    "  --p2p: exchange keys with MPI_Isend/MPI_Irecv pairs instead (compi compresses those)\n";

static int nas_is_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!strcmp(a, "--p2p")) return o->p2p = 1;
    if (strcmp(a, "--class") || !v) return 0;
    /* NPB IS class table: log2(TOTAL_KEYS), log2(MAX_KEY). */
    static const struct {
        char c;
        int keys, max;
    } cls[] = {{'S', 16, 11}, {'W', 20, 16}, {'A', 23, 19}, {'B', 25, 21}, {'C', 27, 23}};
    for (size_t k = 0; k < sizeof cls / sizeof cls[0]; k++)
        if (v[0] == cls[k].c && !v[1]) {
            o->total_keys = 1L << cls[k].keys, o->max_key_log2 = cls[k].max;
            return 2;
        }
    return -1;
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.c = {.scale = 1.0, .iters = 10}, .total_keys = 1L << 21, .max_key_log2 = 19};
    app_parse_args(argc, argv, &o->c, "compi_nas_is", usage, nas_is_option, o);
    o->total_keys = (long)((double)o->total_keys * o->c.scale + 0.5);
}

/* NPB's randlc: x <- a*x mod 2^46 in double arithmetic, returns x/2^46.
 * Kept verbatim in spirit so keys match NPB's for the same class and rank count. */
static double randlc(double *x, const double *a)
{
    const double r23 = 0x1.0p-23, r46 = r23 * r23, t23 = 0x1.0p23, t46 = t23 * t23;
    double t1 = r23 * *a, a1 = (int)t1, a2 = *a - t23 * a1;
    t1 = r23 * *x;
    double x1 = (int)t1, x2 = *x - t23 * x1;
    t1 = a1 * x2 + a2 * x1;
    double t2 = (int)(r23 * t1);
    double z = t1 - t23 * t2, t3 = t23 * z + a2 * x2;
    double t4 = (int)(r46 * t3);
    *x = t3 - t46 * t4;
    return r46 * *x;
}

/* Seed after skipping `skip` numbers of the stream (NPB's find_my_seed, by
 * repeated squaring of a). */
static double skip_seed(double s, double a, long skip)
{
    double t1 = s, t2 = a;
    long kk = skip;
    if (kk == 0) return s;
    while (kk > 1) {
        long ik = kk / 2;
        if (2 * ik == kk) randlc(&t2, &t2), kk = ik;
        else randlc(&t1, &t2), kk--;
    }
    randlc(&t1, &t2);
    return t1;
}

static void create_seq(int *keys, long n, double seed, int max_key)
{
    const double a = 1220703125.0; /* 5^13 */
    const double k = max_key / 4;
    for (long i = 0; i < n; i++) {
        double x = randlc(&seed, &a);
        x += randlc(&seed, &a);
        x += randlc(&seed, &a);
        x += randlc(&seed, &a);
        keys[i] = (int)(k * x);
    }
}

typedef struct {
    long nkeys;         /* keys generated here */
    int max_key, shift; /* bucket = key >> shift */
    int *key_array;     /* this rank's keys */
    int *key_buff1;     /* keys ordered by bucket, then reused as rank counts */
    int *key_buff2;     /* received keys */
    long buff2_cap;
    int bucket_size[NUM_BUCKETS], bucket_size_totals[NUM_BUCKETS], bucket_ptrs[NUM_BUCKETS];
    int *send_count, *send_displ, *recv_count, *recv_displ;
    int *dist_lo, *dist_hi; /* bucket range per rank */
    long local_keys;        /* keys received in the last iteration */
    int min_key_val;
    MPI_Request *reqs;
    MPI_Status *stats; /* not MPI_STATUSES_IGNORE: silences a GCC false positive with MPICH's header */
} is_state;

/* One NPB rank() iteration. Returns the bytes this rank sent to others. */
static uint64_t rank_iteration(is_state *s, int iteration, int max_iters, int p2p)
{
    if (g_rank == 0) { /* NPB: perturb two keys so no two iterations are alike */
        s->key_array[iteration] = iteration;
        s->key_array[iteration + max_iters] = s->max_key - iteration;
    }
    memset(s->bucket_size, 0, sizeof s->bucket_size);
    for (long i = 0; i < s->nkeys; i++) s->bucket_size[s->key_array[i] >> s->shift]++;
    s->bucket_ptrs[0] = 0;
    for (int b = 1; b < NUM_BUCKETS; b++) s->bucket_ptrs[b] = s->bucket_ptrs[b - 1] + s->bucket_size[b - 1];
    for (long i = 0; i < s->nkeys; i++) {
        int key = s->key_array[i];
        s->key_buff1[s->bucket_ptrs[key >> s->shift]++] = key;
    }
    MPI_Allreduce(s->bucket_size, s->bucket_size_totals, NUM_BUCKETS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* Give each rank a contiguous range of buckets holding about nkeys keys. */
    long acc = 0, local_acc = 0;
    int j = 0;
    s->send_displ[0] = 0;
    s->dist_lo[0] = 0;
    for (int b = 0; b < NUM_BUCKETS; b++) {
        acc += s->bucket_size_totals[b];
        local_acc += s->bucket_size[b];
        if (j < g_nranks && (acc >= (long)(j + 1) * s->nkeys || b == NUM_BUCKETS - 1)) {
            s->send_count[j] = (int)local_acc;
            if (j) {
                s->send_displ[j] = s->send_displ[j - 1] + s->send_count[j - 1];
                s->dist_lo[j] = s->dist_hi[j - 1] + 1;
            }
            s->dist_hi[j++] = b;
            local_acc = 0;
        }
    }
    for (; j < g_nranks; j++) { /* ranks past the last bucket get nothing */
        s->send_count[j] = 0;
        s->send_displ[j] = s->send_displ[j - 1] + s->send_count[j - 1];
        s->dist_lo[j] = NUM_BUCKETS, s->dist_hi[j] = NUM_BUCKETS - 1;
    }
    MPI_Alltoall(s->send_count, 1, MPI_INT, s->recv_count, 1, MPI_INT, MPI_COMM_WORLD);
    long total = 0;
    for (int q = 0; q < g_nranks; q++) s->recv_displ[q] = (int)total, total += s->recv_count[q];
    if (total > s->buff2_cap) {
        fprintf(stderr, "compi_nas_is: rank %d receives %ld keys, more than its buffer (%ld)\n", g_rank, total,
                s->buff2_cap);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    s->local_keys = total;
    uint64_t sent = (uint64_t)(g_nranks - 1) * sizeof(int);
    for (int q = 0; q < g_nranks; q++)
        if (q != g_rank) sent += (uint64_t)s->send_count[q] * sizeof(int);

    if (!p2p) {
        MPI_Alltoallv(s->key_buff1, s->send_count, s->send_displ, MPI_INT, s->key_buff2, s->recv_count, s->recv_displ,
                      MPI_INT, MPI_COMM_WORLD);
    } else {
        int nr = 0;
        for (int q = 0; q < g_nranks; q++)
            if (q != g_rank && s->recv_count[q])
                MPI_Irecv(s->key_buff2 + s->recv_displ[q], s->recv_count[q], MPI_INT, q, 7, MPI_COMM_WORLD,
                          &s->reqs[nr++]);
        /* Start with the next rank so that not everyone sends to rank 0 first. */
        for (int d = 1; d < g_nranks; d++) {
            int q = (g_rank + d) % g_nranks;
            if (s->send_count[q])
                MPI_Isend(s->key_buff1 + s->send_displ[q], s->send_count[q], MPI_INT, q, 7, MPI_COMM_WORLD,
                          &s->reqs[nr++]);
        }
        memcpy(s->key_buff2 + s->recv_displ[g_rank], s->key_buff1 + s->send_displ[g_rank],
               (size_t)s->send_count[g_rank] * sizeof(int));
        MPI_Waitall(nr, s->reqs, s->stats);
    }

    /* Rank the received keys: counts over this rank's key range, prefix-summed. */
    s->min_key_val = s->dist_lo[g_rank] << s->shift;
    int max_key_val = ((s->dist_hi[g_rank] + 1) << s->shift) - 1;
    long range = (long)max_key_val - s->min_key_val + 1;
    if (range < 1) range = 0;
    memset(s->key_buff1, 0, (size_t)range * sizeof(int));
    for (long i = 0; i < total; i++) s->key_buff1[s->key_buff2[i] - s->min_key_val]++;
    for (long k = 1; k < range; k++) s->key_buff1[k] += s->key_buff1[k - 1];
    return sent;
}

int main(int argc, char **argv)
{
    app_start(&argc, &argv, &g_rank, &g_nranks);
    options o;
    parse_args(argc, argv, &o);

    is_state s;
    memset(&s, 0, sizeof s);
    s.nkeys = o.total_keys / g_nranks;
    s.max_key = 1 << o.max_key_log2;
    s.shift = o.max_key_log2 - NUM_BUCKETS_LOG2;
    if (s.shift < 0 || s.nkeys < 2L * o.c.iters + 2 || o.total_keys > (long)INT32_MAX) {
        char why[128];
        snprintf(why, sizeof why, "compi_nas_is: %ld keys is too few or too many for %d ranks\n", o.total_keys,
                 g_nranks);
        app_usage_exit(usage, 2, why);
    }
    /* NPB sizes the receive buffer at a multiple of the average share; the
     * bell-shaped keys make bucket ranges uneven but never by that much. */
    s.buff2_cap = 2 * s.nkeys + 4096;
    long buff1_len = s.nkeys > s.max_key ? s.nkeys : s.max_key;
    s.key_array = malloc((size_t)s.nkeys * sizeof(int));
    s.key_buff1 = malloc((size_t)buff1_len * sizeof(int));
    s.key_buff2 = malloc((size_t)s.buff2_cap * sizeof(int));
    int *ints = malloc(sizeof(int) * 6 * (size_t)g_nranks);
    s.reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)g_nranks);
    s.stats = malloc(sizeof(MPI_Status) * 2 * (size_t)g_nranks);
    if (!s.key_array || !s.key_buff1 || !s.key_buff2 || !ints || !s.reqs || !s.stats) {
        fprintf(stderr, "compi_nas_is: out of memory (%ld keys per rank)\n", s.nkeys);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    s.send_count = ints, s.send_displ = ints + g_nranks, s.recv_count = ints + 2 * g_nranks;
    s.recv_displ = ints + 3 * g_nranks, s.dist_lo = ints + 4 * g_nranks, s.dist_hi = ints + 5 * g_nranks;

    create_seq(s.key_array, s.nkeys, skip_seed(314159265.0, 1220703125.0, 4 * s.nkeys * g_rank), s.max_key);
    if (g_rank == 0 && !o.c.quiet)
        printf("compi_nas_is: %d ranks, %ld keys in [0, %d), %d buckets, %d iterations, exchange %s\n", g_nranks,
               s.nkeys * g_nranks, s.max_key, NUM_BUCKETS, o.c.iters, o.p2p ? "isend/irecv" : "alltoallv");

    /* NPB runs one untimed iteration first, to touch every page and table. */
    rank_iteration(&s, 1, o.c.iters, o.p2p);
    uint64_t sent = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 1; it <= o.c.iters; it++) {
        sent += rank_iteration(&s, it, o.c.iters, o.p2p);
        if (g_rank == 0 && !o.c.quiet) printf("        %d\n", it);
    }
    double elapsed = MPI_Wtime() - t0;

    /* Full verification. Multiset hash of the keys before the exchange (the
     * perturbed key_array) and after (the received keys), order-independent. */
    uint64_t hin = 0, hout = 0;
    for (long i = 0; i < s.nkeys; i++) hin += app_mix64((uint64_t)s.key_array[i] + 1);
    for (long i = 0; i < s.local_keys; i++) hout += app_mix64((uint64_t)s.key_buff2[i] + 1);
    /* Counting sort by the ranks in key_buff1 (which are end positions). */
    int *sorted = malloc((size_t)(s.local_keys ? s.local_keys : 1) * sizeof(int));
    for (long i = 0; i < s.local_keys; i++) {
        int k = s.key_buff2[i];
        sorted[--s.key_buff1[k - s.min_key_val]] = k;
    }
    long bad = 0;
    for (long i = 1; i < s.local_keys; i++) bad += sorted[i - 1] > sorted[i];
    /* Across ranks: my smallest key must not be below the previous rank's
     * largest; empty ranks pass the previous value along. */
    int last_prev = -1, my_last;
    if (g_rank > 0) MPI_Recv(&last_prev, 1, MPI_INT, g_rank - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (s.local_keys && last_prev > sorted[0]) bad++;
    my_last = s.local_keys ? sorted[s.local_keys - 1] : last_prev;
    if (g_rank + 1 < g_nranks) MPI_Send(&my_last, 1, MPI_INT, g_rank + 1, 9, MPI_COMM_WORLD);

    long offset = 0, count = s.local_keys;
    MPI_Exscan(&count, &offset, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) offset = 0;
    uint64_t hash = 0; /* digest of the globally sorted sequence, position by position */
    for (long i = 0; i < s.local_keys; i++) hash += app_hash_term((uint64_t)(offset + i), (uint64_t)sorted[i]);
    long totals[2] = {bad, count}, gtot[2];
    uint64_t hs[3] = {hin, hout, hash}, ghs[3];
    MPI_Reduce(totals, gtot, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(hs, ghs, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

    int ok = 1;
    char why[200] = "";
    if (g_rank == 0) {
        long want = s.nkeys * g_nranks;
        if (gtot[0]) snprintf(why, sizeof why, "%ld keys out of order", gtot[0]), ok = 0;
        else if (gtot[1] != want)
            snprintf(why, sizeof why, "%ld keys after the exchange, want %ld", gtot[1], want), ok = 0;
        else if (ghs[0] != ghs[1]) snprintf(why, sizeof why, "key multiset changed in the exchange"), ok = 0;
        app_result(ghs[2], "keys=%ld", gtot[1]);
    }
    free(sorted);
    free(s.key_array), free(s.key_buff1), free(s.key_buff2), free(ints), free(s.reqs), free(s.stats);
    return app_end("nas_is", elapsed, sent, ok, why);
}
