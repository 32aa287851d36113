/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_pingpong: plain MPI vs compi in the same run.
 *
 * The plain variant calls PMPI_Send/PMPI_Recv, which a PMPI interposer never
 * sees; the compi variant calls MPI_Send/MPI_Recv, which libcompi.so intercepts
 * when it is LD_PRELOADed. Both run in the same process, alternating per
 * repetition (order flipped every rep) so drift in machine load or link state
 * hits both alike. We report medians, which ignore the odd stalled rep.
 *
 * Every repetition is verified (outside the timed region): the receiver compares
 * against its own copy of the data set and the sender compares the echo. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "common/datasets.h"

#define TAG_PLAIN 7301
#define TAG_COMPI 7302
#define TAG_CTRL 7303
#define MAX_SIZES 64
#define MAX_DATA 64
#define MAX_CODECS 32 /* codecs the bound tries (the table has fewer) */
#define BOUND_MIN_BYTES (64 * 1024)
#define MAX_COMPARE 8 /* compi variants of --compare */
#define ALPHA 0.10    /* --compare: two-sided; ~90 % intervals of the paired ratios' medians */

enum { MODE_PINGPONG, MODE_STREAM };
enum { VAR_PLAIN = 0, VAR_COMPI = 1 };

typedef struct {
    size_t sizes[MAX_SIZES];
    int nsizes;
    int data[MAX_DATA];
    int ndata;
    int reps;      /* max timed reps per variant */
    int min_reps;  /* timed reps per variant even over budget */
    double budget; /* seconds per (data set, size) point, both variants */
    int rank_a, rank_b;
    int mode;
    int window;        /* stream: messages in flight per rep */
    size_t window_mem; /* stream: cap on window * size per rank */
    uint64_t seed;
    int quiet;  /* only RESULT lines */
    int bound;  /* measure the codec bound of every point >= BOUND_MIN_BYTES */
    int warmup; /* untimed reps per point and variant; -1 = by size */
    /* --compare: compi variants (a mode or a codec name each), each on its
     * own communicator with compi's hints, interleaved with plain */
    char compare[MAX_COMPARE][32];
    int ncompare;
} options;

static int g_rank;

static void die(const char *msg)
{
    fprintf(stderr, "compi_pingpong (rank %d): %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void usage(void)
{
    if (g_rank == 0) {
        fprintf(stderr, "usage: compi_pingpong [--sizes LO:HI | --sizes S[,S..]] [--data NAME[,NAME..]|all]\n"
                        "                      [--reps N] [--min-reps N] [--budget SEC] [--pair A,B]\n"
                        "                      [--mode pingpong|stream] [--window W] [--warmup N] [--seed N] [--quiet] "
                        "[--no-bound]\n"
                        "                      [--compare V[,V..]]\n"
                        "  compare: compi variants interleaved with plain rep by rep (each rep in an order of its\n"
                        "  own), each on its own communicator (MPI_Comm_dup_with_info) with compi's hints: V is a\n"
                        "  mode (adaptive, off, ...: compi_mode=V) or a codec (compi_mode=fixed, compi_codec=V).\n"
                        "  Per point: each variant's median, its speedup over plain and its time over the first\n"
                        "  variant's (t_V / t_first), paired per rep: medians with distribution-free ~90%% intervals;\n"
                        "  no bound.\n"
                        "  bound: speedup no transfer can beat with the best codec of the table, its codec time\n"
                        "  overlapping the wire (pipelined) or not (whole); reached = speedup / bound. Codec\n"
                        "  times alone (bound) and while a plain transfer of the same size is on the wire\n"
                        "  (loaded: what the codec costs during a transfer on this machine).\n"
                        "  sizes accept K/M/G suffixes (powers of 1024); LO:HI steps by powers of two.\n"
                        "  Data sets:");
        for (size_t i = 0; i < compi_dataset_count(); i++) fprintf(stderr, " %s", compi_dataset_name(i));
        fprintf(stderr, "\n");
    }
}

/* "adaptive,lz4,zstd": at most MAX_COMPARE names; 0 on success */
static int parse_compare(const char *v, options *o)
{
    o->ncompare = 0;
    while (*v) {
        size_t k = strcspn(v, ",");
        if (k == 0 || k >= sizeof o->compare[0] || o->ncompare == MAX_COMPARE) return 1;
        memcpy(o->compare[o->ncompare], v, k);
        o->compare[o->ncompare++][k] = 0;
        v += k;
        if (*v) v++;
    }
    return o->ncompare == 0;
}

static void parse_args(int argc, char **argv, int nranks, options *o)
{
    memset(o, 0, sizeof *o);
    bench_parse_sizes("1:4M", o->sizes, MAX_SIZES, &o->nsizes);
    o->reps = 50;
    o->bound = 1;
    o->min_reps = 5;
    o->budget = 2.0;
    o->rank_a = 0;
    o->rank_b = nranks - 1;
    o->mode = MODE_PINGPONG;
    o->window = 16; /* as in osu_bw */
    o->window_mem = (size_t)128 << 20;
    o->seed = 42;
    o->warmup = -1;
    /* Representative default: incompressible, trivially compressible, mid-
     * redundancy ints and two kinds of doubles. */
    const char *defaults = "random,zeros,int_r50,double_pattern,double_smooth";
    int have_data = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        } else if (!strcmp(a, "--no-bound")) {
            o->bound = 0;
            continue;
        }
        if (!v) bad = 1;
        else if (!strcmp(a, "--sizes")) bad = bench_parse_sizes(v, o->sizes, MAX_SIZES, &o->nsizes);
        else if (!strcmp(a, "--data"))
            bad = bench_parse_data(v, o->data, MAX_DATA, &o->ndata, "compi_pingpong", g_rank), have_data = !bad;
        else if (!strcmp(a, "--reps")) bad = (o->reps = atoi(v)) < 1;
        else if (!strcmp(a, "--min-reps")) bad = (o->min_reps = atoi(v)) < 1;
        else if (!strcmp(a, "--warmup")) bad = (o->warmup = atoi(v)) < 0;
        else if (!strcmp(a, "--budget")) bad = (o->budget = atof(v)) <= 0;
        else if (!strcmp(a, "--window")) bad = (o->window = atoi(v)) < 1 || o->window > 256;
        else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--pair")) bad = sscanf(v, "%d,%d", &o->rank_a, &o->rank_b) != 2;
        else if (!strcmp(a, "--compare")) bad = parse_compare(v, o);
        else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "pingpong")) o->mode = MODE_PINGPONG;
            else if (!strcmp(v, "stream") || !strcmp(v, "bw")) o->mode = MODE_STREAM;
            else bad = 1;
        } else bad = 1;
        if (bad) {
            if (g_rank == 0) fprintf(stderr, "compi_pingpong: bad argument '%s%s%s'\n", a, v ? " " : "", v ? v : "");
            usage();
            MPI_Finalize();
            exit(2);
        }
        i++;
    }
    if (!have_data && bench_parse_data(defaults, o->data, MAX_DATA, &o->ndata, "compi_pingpong", g_rank))
        die("default data sets not found in datasets registry");
    if (o->min_reps > o->reps) o->min_reps = o->reps;
    if (o->rank_a == o->rank_b || o->rank_a < 0 || o->rank_b < 0 || o->rank_a >= nranks || o->rank_b >= nranks) {
        if (g_rank == 0) fprintf(stderr, "compi_pingpong: --pair needs two distinct ranks < %d\n", nranks);
        MPI_Finalize();
        exit(2);
    }
}

/* The MPI datatype matching the data set's element class, so compi sees the
 * same type information a real application would give it (FPC/DFCM/Blosc use
 * it). Sizes smaller than or not a multiple of the element go as bytes. */
static MPI_Datatype dtype_for(int data, size_t size, int *count)
{
    MPI_Datatype t = MPI_BYTE;
    size_t es = 1;
    switch (compi_dataset_class((size_t)data)) {
    case COMPI_CLASS_INT: t = MPI_INT, es = 4; break;
    case COMPI_CLASS_FLOAT: t = MPI_FLOAT, es = 4; break;
    case COMPI_CLASS_DOUBLE: t = MPI_DOUBLE, es = 8; break;
    default: break;
    }
    if (size % es) t = MPI_BYTE, es = 1;
    if (size / es > (size_t)INT32_MAX) die("message too large for an int count");
    *count = (int)(size / es);
    return t;
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*waitall_fn)(int, MPI_Request *, MPI_Status *);
typedef int (*getcount_fn)(const MPI_Status *, MPI_Datatype, int *);

typedef struct {
    const char *name;
    int tag;
    send_fn send;
    recv_fn recv;
    isend_fn isend;
    irecv_fn irecv;
    waitall_fn waitall;
    getcount_fn get_count; /* as an application would query it: compi may fix up the status */
    MPI_Comm comm;         /* MPI_COMM_WORLD or a --compare variant's */
} variant;

/* Plain = PMPI entry points (invisible to a PMPI tool), compi = MPI entry
 * points. Their communicator is MPI_COMM_WORLD, set after MPI_Init: it is
 * not a constant everywhere (SimGrid SMPI). */
static variant VARIANTS[2] = {
    {"plain", TAG_PLAIN, PMPI_Send, PMPI_Recv, PMPI_Isend, PMPI_Irecv, PMPI_Waitall, PMPI_Get_count, MPI_COMM_NULL},
    {"compi", TAG_COMPI, MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Waitall, MPI_Get_count, MPI_COMM_NULL},
};

typedef struct {
    int data;
    size_t size;
    int count;
    MPI_Datatype type;
    int window;           /* stream: receive buffers in flight */
    unsigned char *sbuf;  /* data set contents (both ranks) */
    unsigned char **rbuf; /* window receive buffers */
    int peer;
    int is_a;
} point;

static void check_count(const MPI_Status *st, const point *p, const variant *v)
{
    int got = -1;
    v->get_count(st, p->type, &got);
    if (got != p->count) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s variant: received count %d, expected %d (data %s, size %zu)", v->name, got,
                 p->count, compi_dataset_name((size_t)p->data), p->size);
        die(msg);
    }
}

static void verify(const unsigned char *got, const point *p, const variant *v, const char *what)
{
    if (memcmp(got, p->sbuf, p->size) != 0) {
        size_t i = 0;
        while (got[i] == p->sbuf[i]) i++;
        char msg[256];
        snprintf(msg, sizeof msg,
                 "DATA MISMATCH in %s variant (%s): data %s size %zu, first difference at byte %zu (got 0x%02x, want "
                 "0x%02x)",
                 v->name, what, compi_dataset_name((size_t)p->data), p->size, i, got[i], p->sbuf[i]);
        die(msg);
    }
}

/* One timed repetition of one variant. Returns the time per message in
 * seconds on rank A (one-way latency for pingpong, time per windowed message
 * for stream); 0 on rank B. Verification happens after the clock stops. */
/* The codec bound of one message (issue 17): with its codec time
 * overlapping the wire, a transfer of t_net seconds cannot beat
 * t_net / max(T_c, t_net / r, T_d); sent whole, t_net / (T_c + t_net/r + T_d).
 * The best codec of the table counts. Codec times are measured twice:
 *   - alone, on this rank with the other one idle (codec_alone): what the
 *     codec costs on a quiet core;
 *   - under load (codec_loaded): while a plain transfer of the same size is
 *     on the wire between the two ranks, as in a pipelined transfer. Where
 *     the nodes' cores also carry the network's work (the emulated cluster
 *     runs both nodes and their kernel network stacks on the host's cores),
 *     a codec is slower then, and that is the bound a transfer can reach
 *     on this machine. */
typedef struct {
    const char *codec;
    double pipelined, whole, ratio;
} bound;

static int sync_continue(const point *p, int go);

#define LOAD_CHUNK (256 * 1024) /* compi's automatic chunk at 1 Gbit/s */

typedef struct {
    double ratio[MAX_CODECS], tc[MAX_CODECS], td[MAX_CODECS]; /* 0: codec failed */
} codec_times;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static compi_codec_params codec_params(int data)
{
    compi_dtclass cls = compi_dataset_class((size_t)data);
    size_t es = cls == COMPI_CLASS_DOUBLE ? 8 : cls == COMPI_CLASS_BYTE ? 1 : 4;
    return (compi_codec_params){cls, es, 0};
}

static void codec_alone(int data, const void *buf, size_t size, codec_times *ct)
{
    compi_codec_params prm = codec_params(data);
    unsigned char *out = malloc(compi_codec_bound_max(size)), *back = malloc(size);
    if (!out || !back) die("out of memory");
    for (size_t i = 0; i < compi_codec_count() && i < MAX_CODECS; i++) {
        const compi_codec *c = compi_codec_at(i);
        double tc = 1e30, td = 1e30;
        long long n = -1;
        ct->ratio[i] = ct->tc[i] = ct->td[i] = 0;
        for (int rep = 0; rep < 2; rep++) { /* the faster of two: the first may pay page faults */
            double t0 = wall_now();
            n = c->compress(buf, size, out, c->bound(size), &prm);
            double t1 = wall_now();
            if (n <= 0) break;
            long long d = c->decompress(out, (size_t)n, back, size, &prm);
            double t2 = wall_now();
            if (d != (long long)size) {
                n = -1;
                break;
            }
            if (t1 - t0 < tc) tc = t1 - t0;
            if (t2 - t1 < td) td = t2 - t1;
        }
        if (n <= 0) continue;
        ct->ratio[i] = (double)size / (double)n;
        ct->tc[i] = tc;
        ct->td[i] = td;
    }
    free(out);
    free(back);
}

/* Waits for req, testing (a receiver or sender inside MPI polls). */
static void wait_polling(MPI_Request *req)
{
    int done = 0;
    while (!done) PMPI_Test(req, &done, MPI_STATUS_IGNORE);
}

/* Both ranks call it. For every codec: A sends the message raw to B
 * (PMPI) and compresses it chunk by chunk meanwhile, testing its send
 * between chunks as compi's pipeline does; then A sends it again and B
 * decompresses it chunk by chunk (compressed beforehand, untimed) while it
 * receives. The faster of two each. A's ct gets tc, B's td is sent to A. */
static void codec_loaded(const point *p, codec_times *ct)
{
    compi_codec_params prm = codec_params(p->data);
    size_t chunk = p->size < LOAD_CHUNK ? p->size : LOAD_CHUNK, n = (p->size + chunk - 1) / chunk;
    size_t ccap = compi_codec_bound_max(chunk);
    unsigned char *comp = malloc(ccap * n), *back = malloc(chunk);
    size_t *clen = calloc(n, sizeof *clen);
    double td[MAX_CODECS] = {0};
    if (!comp || !back || !clen) die("out of memory");
    for (size_t i = 0; i < compi_codec_count() && i < MAX_CODECS; i++) {
        const compi_codec *c = compi_codec_at(i);
        int ok = 1;
        if (!p->is_a) { /* B's chunks to decode, and whether the codec works on them */
            for (size_t k = 0; k < n && ok; k++) {
                size_t len = p->size - k * chunk < chunk ? p->size - k * chunk : chunk;
                long long m = c->compress(p->sbuf + k * chunk, len, comp + k * ccap, ccap, &prm);
                ok = m > 0;
                clen[k] = ok ? (size_t)m : 0;
            }
        }
        double best_c = 1e30, best_d = 1e30;
        for (int rep = 0; rep < 2; rep++) {
            for (int dir = 0; dir < 2; dir++) { /* 0: A compresses, 1: B decompresses */
                MPI_Request req;
                sync_continue(p, 1);
                if (p->is_a) {
                    PMPI_Isend(p->sbuf, (int)p->size, MPI_BYTE, p->peer, TAG_CTRL + 1, MPI_COMM_WORLD, &req);
                    if (dir == 0) {
                        double t0 = wall_now();
                        for (size_t k = 0; k < n; k++) {
                            size_t len = p->size - k * chunk < chunk ? p->size - k * chunk : chunk;
                            if (c->compress(p->sbuf + k * chunk, len, comp + k * ccap, ccap, &prm) <= 0) ok = 0;
                            int flag;
                            PMPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                        }
                        double t = wall_now() - t0;
                        if (t < best_c) best_c = t;
                    }
                    wait_polling(&req);
                } else {
                    PMPI_Irecv(p->rbuf[0], (int)p->size, MPI_BYTE, p->peer, TAG_CTRL + 1, MPI_COMM_WORLD, &req);
                    if (dir == 1 && ok) {
                        double t0 = wall_now();
                        for (size_t k = 0; k < n; k++) {
                            size_t len = p->size - k * chunk < chunk ? p->size - k * chunk : chunk;
                            if (c->decompress(comp + k * ccap, clen[k], back, len, &prm) != (long long)len) ok = 0;
                            int flag;
                            PMPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                        }
                        double t = wall_now() - t0;
                        if (t < best_d) best_d = t;
                    }
                    wait_polling(&req);
                }
            }
        }
        if (p->is_a) ct->tc[i] = ok ? best_c : 0;
        else td[i] = ok ? best_d : 0;
    }
    if (p->is_a) {
        PMPI_Recv(td, MAX_CODECS, MPI_DOUBLE, p->peer, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < MAX_CODECS; i++) ct->td[i] = td[i];
    } else {
        PMPI_Send(td, MAX_CODECS, MPI_DOUBLE, p->peer, TAG_CTRL, MPI_COMM_WORLD);
    }
    free(comp);
    free(back);
    free(clen);
}

/* The best codec's bound from codec times (ratios from ratio_of); sending
 * raw (1) when no codec beats it. */
static bound bound_of(const codec_times *ratio_of, const codec_times *t, double t_net)
{
    bound b = {"raw", 1, 1, 1};
    for (size_t i = 0; i < compi_codec_count() && i < MAX_CODECS; i++) {
        double r = ratio_of->ratio[i], tc = t->tc[i], td = t->td[i];
        if (r <= 0 || tc <= 0 || td <= 0) continue;
        double w = t_net / r;
        double slowest = tc > w ? tc : w;
        if (td > slowest) slowest = td;
        double pipelined = t_net / slowest, whole = t_net / (tc + w + td);
        if (pipelined > b.pipelined) b = (bound){compi_codec_at(i)->name, pipelined, whole, r};
    }
    return b;
}

static double one_rep(const point *p, const variant *v, int mode)
{
    MPI_Status st;
    double t = 0;
    /* Poison receive buffers so a receive that writes nothing cannot pass. */
    for (int w = 0; w < p->window; w++) memset(p->rbuf[w], 0xA5, p->size);

    if (mode == MODE_PINGPONG) {
        if (p->is_a) {
            double t0 = MPI_Wtime();
            v->send(p->sbuf, p->count, p->type, p->peer, v->tag, v->comm);
            v->recv(p->rbuf[0], p->count, p->type, p->peer, v->tag, v->comm, &st);
            t = (MPI_Wtime() - t0) / 2;
            check_count(&st, p, v);
            verify(p->rbuf[0], p, v, "echo received by A");
        } else {
            v->recv(p->rbuf[0], p->count, p->type, p->peer, v->tag, v->comm, &st);
            /* Echo what arrived, so A checks the full round trip. */
            v->send(p->rbuf[0], p->count, p->type, p->peer, v->tag, v->comm);
            check_count(&st, p, v);
            verify(p->rbuf[0], p, v, "received by B");
        }
        return t;
    }

    /* Stream (osu_bw style): A posts a window of sends, B answers with one ack. */
    MPI_Request req[256];
    MPI_Status sts[256];
    int ack = 0;
    if (p->is_a) {
        double t0 = MPI_Wtime();
        for (int w = 0; w < p->window; w++) v->isend(p->sbuf, p->count, p->type, p->peer, v->tag, v->comm, &req[w]);
        v->waitall(p->window, req, MPI_STATUSES_IGNORE);
        v->recv(&ack, 1, MPI_INT, p->peer, v->tag, v->comm, &st);
        t = (MPI_Wtime() - t0) / p->window;
    } else {
        for (int w = 0; w < p->window; w++) v->irecv(p->rbuf[w], p->count, p->type, p->peer, v->tag, v->comm, &req[w]);
        v->waitall(p->window, req, sts);
        v->send(&ack, 1, MPI_INT, p->peer, v->tag, v->comm);
        for (int w = 0; w < p->window; w++) {
            check_count(&sts[w], p, v);
            verify(p->rbuf[w], p, v, "stream message received by B");
        }
    }
    return t;
}

/* A tells B whether another rep follows; B answers when it is ready, so each
 * rep starts with both ranks idle (its own small PMPI exchange, untimed). */
static int sync_continue(const point *p, int go)
{
    int ready = 0;
    if (p->is_a) {
        PMPI_Send(&go, 1, MPI_INT, p->peer, TAG_CTRL, MPI_COMM_WORLD);
        if (go) PMPI_Recv(&ready, 1, MPI_INT, p->peer, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(&go, 1, MPI_INT, p->peer, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (go) PMPI_Send(&ready, 1, MPI_INT, p->peer, TAG_CTRL, MPI_COMM_WORLD);
    }
    return go;
}

/* A variant's median and the median of its paired ratios num[i] / den[i]
 * with a distribution-free interval (x: scratch of n). */
typedef struct {
    double med, lo, hi, cov;
} paired;

static paired paired_ratio(const double *num, const double *den, int n, double *x)
{
    paired r = {0, 0, 0, 0};
    int m = 0;
    for (int i = 0; i < n; i++)
        if (den[i] > 0) x[m++] = num[i] / den[i];
    r.med = bench_median(x, m);
    bench_median_ci(x, m, ALPHA, &r.lo, &r.hi, &r.cov);
    return r;
}

/* The order of the variants in rep n: a permutation drawn from (seed, n),
 * the same on both ranks, so that each variant takes every position and
 * follows every other one alike (a fixed rotation would have each always
 * follow the same one, whose traces in caches and in the MPI it would pay). */
static void rep_order(uint64_t seed, int n, int nvar, int *order)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (uint64_t)n * 0xBF58476D1CE4E5B9ull + 1;
    for (int i = 0; i < nvar; i++) order[i] = i;
    for (int i = nvar - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        int j = (int)(x % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* --compare: plain and the compi variants (vars[1..nvar)) interleaved rep by
 * rep in an order drawn per rep (rep_order).
 * Rank A prints a row per variant and appends its RESULT_COMPARE lines to
 * results. */
static void compare_point(const options *o, const point *p, const variant *vars, int nvar, double **times,
                          char *results, size_t cap, size_t *rlen)
{
    int warm = o->warmup >= 0 ? o->warmup : p->size <= ((size_t)1 << 20) ? 3 : 1;
    for (int w = 0; w < warm; w++)
        for (int var = 0; var < nvar; var++) {
            sync_continue(p, 1);
            one_rep(p, &vars[var], o->mode);
        }
    int n = 0;
    double start = MPI_Wtime();
    for (;;) {
        int go = 0;
        if (p->is_a) go = n < o->reps && (n < o->min_reps || MPI_Wtime() - start < o->budget);
        if (!sync_continue(p, go)) break;
        int order[MAX_COMPARE + 1];
        rep_order(o->seed, n, nvar, order);
        for (int k = 0; k < nvar; k++) {
            if (k) sync_continue(p, 1);
            times[order[k]][n] = one_rep(p, &vars[order[k]], o->mode);
        }
        n++;
    }
    if (!p->is_a) return;
    double *x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!x) die("out of memory");
    for (int var = 0; var < nvar; var++) {
        memcpy(x, times[var], sizeof(double) * (size_t)n);
        double t = bench_median(x, n);
        paired sp = paired_ratio(times[0], times[var], n, x);
        paired rel = paired_ratio(times[var], times[1], n, x);
        if (!o->quiet)
            printf("%10zu %6d %-10s %11.2f %10.2f %8.3f [%5.3f, %5.3f] %8.3f [%5.3f, %5.3f]\n", p->size, n,
                   vars[var].name, t * 1e6, t > 0 ? p->size / t / 1e6 : 0, sp.med, sp.lo, sp.hi, rel.med, rel.lo,
                   rel.hi);
        int w = snprintf(results + *rlen, cap - *rlen,
                         "RESULT_COMPARE mode=%s data=%s size=%zu reps=%d variant=%s us=%.3f speedup=%.4f "
                         "speedup_lo=%.4f speedup_hi=%.4f rel=%.4f rel_lo=%.4f rel_hi=%.4f coverage=%.3f\n",
                         o->mode == MODE_PINGPONG ? "pingpong" : "stream", compi_dataset_name((size_t)p->data), p->size,
                         n, vars[var].name, t * 1e6, sp.med, sp.lo, sp.hi, rel.med, rel.lo, rel.hi, sp.cov);
        if (w > 0 && (size_t)w < cap - *rlen) *rlen += (size_t)w;
    }
    fflush(stdout);
    free(x);
}

/* The --compare variants: plain, then each name on its own duplicate of
 * MPI_COMM_WORLD whose hints ask compi for that mode or codec (MPI_ entry
 * points: compi reads the hints from the call). Collective: every rank. */
static int compare_variants(const options *o, variant *vars)
{
    static const char *modes[] = {"off", "fixed", "adaptive", "profile", "trace", "guided"};
    vars[0] = VARIANTS[VAR_PLAIN];
    for (int i = 0; i < o->ncompare; i++) {
        MPI_Info info;
        MPI_Info_create(&info);
        int is_mode = 0;
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) is_mode |= !strcmp(o->compare[i], modes[m]);
        MPI_Info_set(info, "compi_mode", is_mode ? o->compare[i] : "fixed");
        if (!is_mode) MPI_Info_set(info, "compi_codec", o->compare[i]);
        vars[i + 1] = VARIANTS[VAR_COMPI];
        vars[i + 1].name = o->compare[i];
        if (MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &vars[i + 1].comm) != MPI_SUCCESS)
            die("MPI_Comm_dup_with_info failed");
        MPI_Info_free(&info);
    }
    return o->ncompare + 1;
}

/* Where does MPI_Send resolve? If an interposer is loaded it differs from
 * PMPI_Send; then the compi column really goes through it. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    VARIANTS[VAR_PLAIN].comm = VARIANTS[VAR_COMPI].comm = MPI_COMM_WORLD;
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        if (g_rank == 0) fprintf(stderr, "compi_pingpong: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    options o;
    parse_args(argc, argv, nranks, &o);
    variant cmp[MAX_COMPARE + 1];
    int ncmp = o.ncompare ? compare_variants(&o, cmp) : 0;

    int active = g_rank == o.rank_a || g_rank == o.rank_b;
    int is_a = g_rank == o.rank_a;
    int peer = is_a ? o.rank_b : o.rank_a;

    if (active) {
        /* Same node? compi never compresses intra-node, so say which case this is. */
        char name[MPI_MAX_PROCESSOR_NAME + 1] = {0}, peer_name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
        int len;
        MPI_Get_processor_name(name, &len);
        PMPI_Sendrecv(name, sizeof name, MPI_CHAR, peer, TAG_CTRL, peer_name, sizeof peer_name, MPI_CHAR, peer,
                      TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (is_a) {
            char ver[MPI_MAX_LIBRARY_VERSION_STRING], interp[512];
            int vlen;
            MPI_Get_library_version(ver, &vlen);
            char *nl = strchr(ver, '\n');
            if (nl) *nl = 0;
            bench_describe_interposer("MPI_Send", interp, sizeof interp);
            int same = strcmp(name, peer_name) == 0;
            const char *mode_env = getenv("COMPI_MODE"), *codec_env = getenv("COMPI_CODEC");
            printf("# compi_pingpong  mode=%s  ranks %d (%s) <-> %d (%s): %s\n",
                   o.mode == MODE_PINGPONG ? "pingpong" : "stream", o.rank_a, name, o.rank_b, peer_name,
                   same ? "SAME NODE (compi does not compress intra-node)" : "different nodes");
            printf("# MPI: %s\n# interposer: %s\n# COMPI_MODE=%s COMPI_CODEC=%s\n", ver, interp,
                   mode_env ? mode_env : "(unset)", codec_env ? codec_env : "(unset)");
            printf("# time columns: median %s; MB/s = 1e6 bytes/s; speedup = plain/compi\n",
                   o.mode == MODE_PINGPONG ? "one-way time (round trip / 2)" : "time per message in a window");
            printf("RESULT_HEADER same_node=%d mode=%s\n", same, o.mode == MODE_PINGPONG ? "pingpong" : "stream");
            fflush(stdout);
        }

        double *times[MAX_COMPARE + 1];
        int ntimes = ncmp > 2 ? ncmp : 2;
        for (int v = 0; v < ntimes; v++)
            if (!(times[v] = malloc(sizeof(double) * (size_t)o.reps))) die("out of memory");

        /* Global warm-up: the first ~100 ms of small messages can be far slower
         * (lazy connection and transport setup, e.g. MPICH over UCX). */
        {
            point w = {.data = o.data[0], .size = 1024, .peer = peer, .is_a = is_a, .window = 1};
            unsigned char *rb = malloc(w.size);
            w.type = dtype_for(w.data, w.size, &w.count);
            w.sbuf = malloc(w.size);
            w.rbuf = &rb;
            if (!w.sbuf || !rb) die("out of memory");
            compi_dataset_fill((size_t)w.data, w.sbuf, w.size, o.seed);
            double start = MPI_Wtime();
            int k = 0;
            while (sync_continue(&w, is_a && (k < 20 || MPI_Wtime() - start < 0.2)))
                one_rep(&w, &VARIANTS[k++ % 2], o.mode);
            free(rb);
            free(w.sbuf);
        }

        for (int d = 0; d < o.ndata; d++) {
            char results[MAX_SIZES * 512];
            size_t rlen = 0;
            results[0] = 0;
            if (is_a && !o.quiet && ncmp) {
                printf("\n## data=%s (plain and compi variants interleaved per rep; speedup = plain/variant, "
                       "rel = t_variant/t_%s, paired per rep: medians [~%.0f%% intervals])\n"
                       "%10s %6s %-10s %11s %10s %8s %14s %8s %14s\n",
                       compi_dataset_name((size_t)o.data[d]), cmp[1].name, 100 * (1 - ALPHA), "size", "reps", "variant",
                       "median_us", "MB/s", "speedup", "interval", "rel", "interval");
                fflush(stdout);
            } else if (is_a && !o.quiet) {
                printf("\n## data=%s\n%10s %6s %13s %13s %8s %10s %10s %8s %8s %8s %-10s %8s %8s %-10s\n",
                       compi_dataset_name((size_t)o.data[d]), "size", "reps", "plain_us", "compi_us", "speedup",
                       "plain_MB/s", "compi_MB/s", "bound", "reached", "whole", "bound_by", "loaded", "reached",
                       "loaded_by");
                fflush(stdout);
            }
            for (int si = 0; si < o.nsizes; si++) {
                point p = {.data = o.data[d], .size = o.sizes[si], .peer = peer, .is_a = is_a};
                p.type = dtype_for(p.data, p.size, &p.count);
                p.window = 1;
                if (o.mode == MODE_STREAM) {
                    /* Distinct receive buffers (overlapping pending receives are
                     * erroneous), so cap the window's memory for big sizes. */
                    size_t fit = o.window_mem / p.size;
                    p.window = fit < (size_t)o.window ? (int)fit : o.window;
                    if (p.window < 1) p.window = 1;
                }
                p.sbuf = malloc(p.size);
                p.rbuf = calloc((size_t)p.window, sizeof *p.rbuf);
                if (!p.sbuf || !p.rbuf) die("out of memory");
                for (int w = 0; w < p.window; w++)
                    if (!(p.rbuf[w] = malloc(p.size))) die("out of memory");
                /* Both ranks generate the same bytes: the receiver's reference copy. */
                compi_dataset_fill((size_t)p.data, p.sbuf, p.size, o.seed + p.size);

                if (ncmp) {
                    compare_point(&o, &p, cmp, ncmp, times, results, sizeof results, &rlen);
                    for (int w = 0; w < p.window; w++) free(p.rbuf[w]);
                    free(p.rbuf);
                    free(p.sbuf);
                    continue;
                }
                /* Warm-up (connection setup, first-touch, codec state), verified, not timed. */
                int warm = o.warmup >= 0 ? o.warmup : p.size <= ((size_t)1 << 20) ? 3 : 1;
                for (int w = 0; w < warm; w++)
                    for (int var = 0; var < 2; var++) {
                        sync_continue(&p, 1);
                        one_rep(&p, &VARIANTS[var], o.mode);
                    }

                int n = 0;
                double start = MPI_Wtime();
                for (;;) {
                    int go = 0;
                    if (is_a) go = n < o.reps && (n < o.min_reps || MPI_Wtime() - start < o.budget);
                    if (!sync_continue(&p, go)) break;
                    /* Alternate which variant goes first, to cancel drift and ordering effects. */
                    int first = n % 2;
                    times[first][n] = one_rep(&p, &VARIANTS[first], o.mode);
                    sync_continue(&p, 1);
                    times[!first][n] = one_rep(&p, &VARIANTS[!first], o.mode);
                    n++;
                }
                /* the codec bounds, for messages large enough that latency does not dominate */
                int want_bound = p.size >= BOUND_MIN_BYTES && o.bound;
                codec_times alone, loaded;
                if (want_bound) {
                    if (is_a) codec_alone(p.data, p.sbuf, p.size, &alone);
                    codec_loaded(&p, &loaded);
                }
                if (is_a) {
                    double tp = bench_median(times[VAR_PLAIN], n), tc = bench_median(times[VAR_COMPI], n);
                    double sp = tc > 0 ? tp / tc : 0;
                    double bwp = tp > 0 ? p.size / tp / 1e6 : 0, bwc = tc > 0 ? p.size / tc / 1e6 : 0;
                    bound b = {"-", 0, 0, 0}, bl = {"-", 0, 0, 0};
                    if (want_bound) {
                        b = bound_of(&alone, &alone, tp);
                        bl = bound_of(&alone, &loaded, tp);
                    }
                    double reached = b.pipelined > 0 ? sp / b.pipelined : 0;
                    double reached_l = bl.pipelined > 0 ? sp / bl.pipelined : 0;
                    if (!o.quiet)
                        printf("%10zu %6d %13.2f %13.2f %8.3f %10.2f %10.2f %8.3f %7.0f%% %8.3f %-10s %8.3f %7.0f%% "
                               "%-10s\n",
                               p.size, n, tp * 1e6, tc * 1e6, sp, bwp, bwc, b.pipelined, 100 * reached, b.whole,
                               b.codec, bl.pipelined, 100 * reached_l, bl.codec);
                    fflush(stdout);
                    /* Machine-readable lines go after the table, to keep it readable. */
                    int w =
                        snprintf(results + rlen, sizeof results - rlen,
                                 "RESULT mode=%s data=%s size=%zu reps=%d window=%d plain_us=%.3f compi_us=%.3f "
                                 "speedup=%.4f plain_MBps=%.3f compi_MBps=%.3f bound=%.4f bound_whole=%.4f "
                                 "bound_codec=%s bound_ratio=%.3f reached=%.4f bound_loaded=%.4f "
                                 "bound_loaded_codec=%s reached_loaded=%.4f\n",
                                 o.mode == MODE_PINGPONG ? "pingpong" : "stream", compi_dataset_name((size_t)p.data),
                                 p.size, n, p.window, tp * 1e6, tc * 1e6, sp, bwp, bwc, b.pipelined, b.whole, b.codec,
                                 b.ratio, reached, bl.pipelined, bl.codec, reached_l);
                    if (w > 0 && (size_t)w < sizeof results - rlen) rlen += (size_t)w;
                }
                for (int w = 0; w < p.window; w++) free(p.rbuf[w]);
                free(p.rbuf);
                free(p.sbuf);
            }
            if (is_a) {
                fputs(results, stdout);
                fflush(stdout);
            }
        }
        for (int v = 0; v < ntimes; v++) free(times[v]);
        if (is_a) printf("# all received data verified (both variants, every repetition)\n");
    }
    /* Idle ranks wait here without busy-polling (MPI barriers spin, which would
     * steal a core from the measured pair); PMPI so compi sees only benchmark traffic. */
    MPI_Request bar;
    int done = 0;
    PMPI_Ibarrier(MPI_COMM_WORLD, &bar);
    while (!done) {
        PMPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    for (int v = 1; v < ncmp; v++) MPI_Comm_free(&cmp[v].comm);
    MPI_Finalize();
    return 0;
}
