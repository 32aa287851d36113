/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_beff: the effective communication bandwidth b_eff (Rabenseifner and
 * Koniges, "Effective Communication and File-I/O Bandwidth Benchmarks",
 * EuroPVM/MPI 2001), as the hybrid-architectures paper uses it:
 *
 *   - patterns: rings (every process exchanges with its left and right
 *     neighbour in its ring: rings of 2, 4, 8, ... processes up to all of
 *     them, in rank order) and random rings (the processes in a random
 *     order, 3 seeds, the same on every rank), plus the 3-D cyclic pattern
 *     (MPI_Dims_create, periodic, 6 neighbours each);
 *   - 21 message sizes: 8 B doubling to 4 KiB (10), then 11 steps of a
 *     constant factor from 4 KiB up to L_max;
 *   - per pattern and size: b = (bytes all processes sent) / (the slowest
 *     process's time), the best of two methods (MPI_Sendrecv, and
 *     MPI_Irecv/MPI_Isend + MPI_Waitall);
 *   - per pattern: the average over the sizes (and the value at L_max);
 *   - b_eff: the logarithmic average of the logarithmic averages of the
 *     ring patterns and of the random patterns.
 * Messages carry a data set (lib/common/datasets.h, default double_smooth)
 * so a compressing layer sees realistic bytes; received bytes are checked
 * once per pattern and size. Run it plain and with compi preloaded for
 * the two rows; `compi bench beff` does both, pure MPI and hybrid
 * (masteronly: the master exchanges while the other threads idle;
 * --omp funneled: while they compute). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "common/datasets.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define NSIZES 21
#define MAX_PATTERNS 40

typedef struct {
    char name[32];
    int left, right; /* this rank's neighbours (ring) */
    int cyclic;      /* 3-D cyclic: nb[] */
    int nb[6];
} pattern;

static int rank, nprocs;

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Ring neighbours of rank in the ring order[0..n) split into rings of size
 * ring (the last ring takes the rest). */
static void ring_of(const int *order, int n, int ring, pattern *p)
{
    int pos = 0;
    while (order[pos] != rank) pos++;
    int nrings = n / ring, idx = pos / ring < nrings - 1 ? pos / ring : nrings - 1;
    int start = idx * ring, len = idx == nrings - 1 ? n - start : ring; /* the last ring takes the rest */
    int i = pos - start;
    p->left = order[start + (i + len - 1) % len];
    p->right = order[start + (i + 1) % len];
}

static int make_patterns(pattern *ps)
{
    int np = 0, *order = malloc(sizeof(int) * (size_t)nprocs);
    for (int ring = 2; ring < nprocs; ring *= 2) {
        for (int i = 0; i < nprocs; i++) order[i] = i;
        pattern *p = &ps[np++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "ring-%d", ring);
        ring_of(order, nprocs, ring, p);
    }
    for (int i = 0; i < nprocs; i++) order[i] = i;
    memset(&ps[np], 0, sizeof ps[np]);
    snprintf(ps[np].name, sizeof ps[np].name, "ring-all");
    ring_of(order, nprocs, nprocs, &ps[np++]);
    for (int seed = 1; seed <= 3; seed++) {
        uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)seed;
        for (int i = 0; i < nprocs; i++) order[i] = i;
        for (int i = nprocs - 1; i > 0; i--) {
            int j = (int)(rng(&s) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        memset(&ps[np], 0, sizeof ps[np]);
        snprintf(ps[np].name, sizeof ps[np].name, "random-%d", seed);
        ring_of(order, nprocs, nprocs, &ps[np++]);
    }
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(nprocs, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    pattern *c = &ps[np++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "cyclic3d-%dx%dx%d", dims[0], dims[1], dims[2]);
    c->cyclic = 1;
    for (int d = 0; d < 3; d++) MPI_Cart_shift(cart, d, 1, &c->nb[2 * d], &c->nb[2 * d + 1]);
    MPI_Comm_free(&cart);
    free(order);
    return np;
}

/* One exchange of the pattern with messages of len bytes; returns the
 * number of messages this rank sent. */
static int exchange(const pattern *p, int method, size_t len, unsigned char *sbuf, unsigned char *rbuf)
{
    int nb[6], n = 0;
    if (p->cyclic) {
        for (int i = 0; i < 6; i++) nb[n++] = p->nb[i];
    } else {
        nb[n++] = p->left;
        nb[n++] = p->right;
    }
    MPI_Request req[12];
    if (method == 0) {
        /* pairs (to one side, from the other), as b_eff's Sendrecv method */
        for (int i = 0; i < n; i += 2) {
            MPI_Sendrecv(sbuf, (int)len, MPI_BYTE, nb[i + 1], 1, rbuf + (size_t)i * len, (int)len, MPI_BYTE, nb[i], 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(sbuf, (int)len, MPI_BYTE, nb[i], 2, rbuf + (size_t)(i + 1) * len, (int)len, MPI_BYTE,
                         nb[i + 1], 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        for (int i = 0; i < n; i++)
            MPI_Irecv(rbuf + (size_t)i * len, (int)len, MPI_BYTE, nb[i], 3 + (i & 1), MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < n; i++)
            MPI_Isend(sbuf, (int)len, MPI_BYTE, nb[i], 3 + ((i & 1) ^ 1), MPI_COMM_WORLD, &req[n + i]);
        MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
    }
    return n;
}

/* --omp funneled: the master thread exchanges inside a parallel region
 * while the team's other threads compute, as a funneled hybrid code's
 * do; their cores are not idle, and compi, seeing the call come from
 * inside a parallel region, leaves them to the team. */
static int funneled;

/* What a computing thread does until the master's exchanges are done. */
static void compute_until(const int *done)
{
    double x = 1.0;
    while (!__atomic_load_n(done, __ATOMIC_ACQUIRE))
        for (int i = 0; i < 4096; i++) x = x * 1.0000001 + 1e-9;
    volatile double sink = x;
    (void)sink;
}

/* reps exchanges (funneled: on the master, the others computing); returns
 * the messages one exchange sent. */
static int exchanges(const pattern *p, int method, size_t len, unsigned char *sbuf, unsigned char *rbuf, int reps)
{
    int msgs = 0;
#ifdef _OPENMP
    if (funneled) {
        int done = 0;
#pragma omp parallel shared(done, msgs)
        {
#pragma omp master
            {
                for (int r = 0; r < reps; r++) msgs = exchange(p, method, len, sbuf, rbuf);
                __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
            }
            if (omp_get_thread_num() != 0) compute_until(&done);
        }
        return msgs;
    }
#endif
    for (int r = 0; r < reps; r++) msgs = exchange(p, method, len, sbuf, rbuf);
    return msgs;
}

static double logavg(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += log(v[i] > 0 ? v[i] : 1e-300);
    return n ? exp(s / n) : 0;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    size_t lmax = 8u << 20;
    const char *data = "double_smooth", *label = "";
    double budget = 0.05; /* seconds per pattern, size and method (at least one exchange) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lmax") && i + 1 < argc) bench_parse_size(argv[++i], &lmax);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--label") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "--omp") && i + 1 < argc && !strcmp(argv[i + 1], "funneled")) {
            funneled = 1;
            i++;
        } else {
            if (!rank)
                fprintf(stderr, "usage: compi_beff [--lmax 8M] [--data double_smooth] [--budget 0.05] [--label L] "
                                "[--omp funneled]\n");
            MPI_Finalize();
            return 2;
        }
    }
#ifndef _OPENMP
    if (funneled) {
        if (!rank) fprintf(stderr, "compi_beff: --omp funneled needs a build with OpenMP\n");
        MPI_Finalize();
        return 2;
    }
#endif
    if (funneled && provided < MPI_THREAD_FUNNELED) {
        if (!rank)
            fprintf(stderr, "compi_beff: --omp funneled needs MPI_THREAD_FUNNELED; the MPI provides %d\n", provided);
        MPI_Finalize();
        return 2;
    }
    int ds = compi_dataset_find(data);
    if (ds < 0 || lmax < 8192 || nprocs < 2) {
        if (!rank) fprintf(stderr, "compi_beff: unknown data set '%s', L_max below 8K or fewer than 2 ranks\n", data);
        MPI_Finalize();
        return 2;
    }
    size_t sizes[NSIZES];
    for (int i = 0; i < 10; i++) sizes[i] = (size_t)8 << i;
    double a = pow((double)lmax / 4096.0, 1.0 / 11.0);
    for (int i = 10; i < NSIZES; i++) sizes[i] = (size_t)llround(4096.0 * pow(a, i - 9)) & ~(size_t)7;
    sizes[NSIZES - 1] = lmax;
    pattern ps[MAX_PATTERNS];
    int np = make_patterns(ps);
    unsigned char *sbuf = malloc(lmax), *rbuf = malloc(6 * lmax), *want = malloc(lmax);
    /* every rank sends the same bytes: a receiver checks them against its own */
    compi_dataset_fill((size_t)ds, sbuf, lmax, 42);
    memcpy(want, sbuf, lmax);
    double b[MAX_PATTERNS][NSIZES];
    int bad = 0;
    for (int p = 0; p < np; p++)
        for (int s = 0; s < NSIZES; s++) {
            double best = 0;
            for (int method = 0; method < 2; method++) {
                /* repetitions: as many as fit the budget, agreed from a first exchange */
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                int msgs = exchanges(&ps[p], method, sizes[s], sbuf, rbuf, 1);
                double t1 = MPI_Wtime() - t0, tmax;
                MPI_Allreduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                for (int m = 0; m < msgs; m++) bad |= memcmp(rbuf + (size_t)m * sizes[s], want, sizes[s]) != 0;
                int reps = tmax > 0 ? (int)(budget / tmax) : 1;
                if (reps < 1) reps = 1;
                if (reps > 1000) reps = 1000;
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                exchanges(&ps[p], method, sizes[s], sbuf, rbuf, reps);
                t1 = MPI_Wtime() - t0;
                MPI_Allreduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                /* accumulated over processes, the slowest process's time */
                double bw = (double)nprocs * msgs * (double)sizes[s] * reps / tmax / 1e6;
                if (bw > best) best = bw;
            }
            b[p][s] = best;
        }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        double ring_avg[MAX_PATTERNS], ring_max[MAX_PATTERNS], rnd_avg[MAX_PATTERNS], rnd_max[MAX_PATTERNS];
        int nr = 0, nrand = 0;
        double cyc_avg = 0, cyc_max = 0;
        printf("compi_beff %s: %d processes, data %s, L_max %zu, MB/s accumulated over processes (slowest time)\n",
               label, nprocs, data, lmax);
        printf("%-22s %12s %12s\n", "pattern", "avg(21 L)", "at L_max");
        for (int p = 0; p < np; p++) {
            double avg = 0;
            for (int s = 0; s < NSIZES; s++) avg += b[p][s] / NSIZES;
            printf("%-22s %12.1f %12.1f\n", ps[p].name, avg, b[p][NSIZES - 1]);
            if (ps[p].cyclic) {
                cyc_avg = avg;
                cyc_max = b[p][NSIZES - 1];
            } else if (!strncmp(ps[p].name, "random", 6)) {
                rnd_avg[nrand] = avg;
                rnd_max[nrand++] = b[p][NSIZES - 1];
            } else {
                ring_avg[nr] = avg;
                ring_max[nr++] = b[p][NSIZES - 1];
            }
        }
        double beff = sqrt(logavg(ring_avg, nr) * logavg(rnd_avg, nrand));
        double beff_max = sqrt(logavg(ring_max, nr) * logavg(rnd_max, nrand));
        printf("RESULT label=%s procs=%d b_eff=%.1f b_eff_lmax=%.1f cyclic3d=%.1f cyclic3d_lmax=%.1f "
               "per_proc_b_eff=%.2f check=%s\n",
               label, nprocs, beff, beff_max, cyc_avg, cyc_max, beff / nprocs, anybad ? "FAIL" : "OK");
    }
    free(sbuf);
    free(rbuf);
    free(want);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
