/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_pairs: heavy talkers that are not neighbours in rank order.
 *
 * The communication of a code whose ranks were numbered by something else
 * than locality (a mesh partitioner, a task farm, a restart with another
 * layout): P ranks sit at positions of a logical chain given by a seeded
 * random permutation (position q is rank perm[q], the same on every rank).
 * Each iteration:
 *   1. partners (positions 2m and 2m+1) swap their whole state (--scale 1:
 *      131072 doubles, 1 MiB) with MPI_Sendrecv and both keep the average,
 *      0.5 * (a + b), bitwise the same on both sides;
 *   2. neighbours on the logical ring (q - 1, q + 1 mod P) swap the first
 *      quarter of their state and diffuse it: x += KAPPA * (l + r - 2x).
 * So each rank sends most of its bytes to one partner and a quarter as much
 * to two others, and neither block nor round-robin placement puts partners
 * on one node except by chance (a placement from the communication graph
 * can put all of them there). With odd P the last position has no partner.
 *
 * Determinism: each position's arithmetic depends only on the position, not
 * on the rank or node holding it, so the result is bitwise the same for any
 * placement, with or without compi. Checksum: the order-independent sum of
 * app_hash_term(position * n + k, bits).
 *
 * Verification: every value stays in the initial range (averages and
 * diffusion with KAPPA <= 1/4 are convex combinations), and when the whole
 * state is small enough (--serial auto: P * n <= 2^21 values; on; off) rank
 * 0 recomputes the run serially and compares the checksum bitwise.
 *
 * Timed phase: the iterations. bytes_sent: what every rank sends to the
 * others in them. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define KAPPA 0.125
#define TAG_PAIR 11
#define TAG_RIGHT 12 /* travels to the right neighbour */
#define TAG_LEFT 13

typedef struct {
    app_common_opts c;
    int n; /* 0: from --scale */
    unsigned long long seed;
    int serial; /* -1 auto, 0 off, 1 on */
} options;

static const char *usage =
    "usage: compi_pairs [--scale F] [--iters N] [--n VALUES] [--seed S] [--serial auto|on|off] [--quiet]\n"
    "  heavy exchanges between partners of a seeded random pairing of the ranks,\n"
    "  lighter ones along a seeded random ring (not rank-order friendly)\n"
    "  --n       doubles of state per rank (default 131072 x scale); the ring swaps a quarter\n"
    "  --iters   iterations (default 10)\n"
    "  --seed    the pairing/ring permutation's seed (default 1)\n"
    "  --serial  rank 0 recomputes the run serially and compares (auto: P x n <= 2^21)\n";

static int pairs_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!strcmp(a, "--n")) {
        if (!v || sscanf(v, "%d", &o->n) != 1 || o->n < 4) return -1;
        return 2;
    }
    if (!strcmp(a, "--seed")) {
        char *end;
        if (!v) return -1;
        o->seed = strtoull(v, &end, 10);
        return *end ? -1 : 2;
    }
    if (!strcmp(a, "--serial")) {
        if (!v) return -1;
        if (!strcmp(v, "auto")) o->serial = -1;
        else if (!strcmp(v, "on")) o->serial = 1;
        else if (!strcmp(v, "off")) o->serial = 0;
        else return -1;
        return 2;
    }
    return 0;
}

/* perm[q] = rank at position q; pos[r] = position of rank r. */
static void pairs_perm(int p, unsigned long long seed, int *perm, int *pos)
{
    app_rng g = app_rng_seed(seed);
    for (int q = 0; q < p; q++) perm[q] = q;
    for (int q = p - 1; q > 0; q--) {
        int j = (int)(app_rng_u64(&g) % (uint64_t)(q + 1));
        int t = perm[q];
        perm[q] = perm[j];
        perm[j] = t;
    }
    for (int q = 0; q < p; q++) pos[perm[q]] = q;
}

static double pairs_init(int q, int k)
{
    return 10.0 + sin(0.001 * k + 0.7 * q) + 0.25 * cos(0.0003 * k * (q + 1));
}

/* The two steps of one iteration for one position, given what its partner
 * and ring neighbours sent (NULL partner: none). Shared by the MPI run and
 * the serial recheck so both do the same arithmetic. */
static void pairs_step_pair(double *x, const double *y, int n)
{
    for (int k = 0; k < n; k++) x[k] = 0.5 * (x[k] + y[k]);
}

static void pairs_step_ring(double *x, const double *l, const double *r, int m)
{
    for (int k = 0; k < m; k++) x[k] += KAPPA * ((l[k] + r[k]) - 2.0 * x[k]);
}

static int pairs_partner(int q, int p)
{
    return (q ^ 1) < p ? (q ^ 1) : -1;
}

static uint64_t pairs_hash(const double *x, int q, int n)
{
    uint64_t h = 0;
    for (int k = 0; k < n; k++) h += app_hash_term((uint64_t)q * (uint64_t)n + (uint64_t)k, app_dbits(x[k]));
    return h;
}

/* Rank 0's serial recomputation: the checksum of the whole run. */
static int pairs_serial(int p, int n, int iters, uint64_t *out)
{
    int m = n / 4;
    double *all = malloc(sizeof(double) * (size_t)p * (size_t)n);
    double *old = malloc(sizeof(double) * (size_t)p * (size_t)m);
    if (!all || !old) {
        free(all);
        free(old);
        return -1;
    }
    for (int q = 0; q < p; q++)
        for (int k = 0; k < n; k++) all[(size_t)q * n + k] = pairs_init(q, k);
    for (int it = 0; it < iters; it++) {
        for (int q = 0; q < p; q++) {
            int t = pairs_partner(q, p);
            if (t > q) {
                pairs_step_pair(&all[(size_t)q * n], &all[(size_t)t * n], n);
                memcpy(&all[(size_t)t * n], &all[(size_t)q * n], sizeof(double) * (size_t)n);
            }
        }
        if (p > 1) {
            for (int q = 0; q < p; q++) memcpy(&old[(size_t)q * m], &all[(size_t)q * n], sizeof(double) * (size_t)m);
            for (int q = 0; q < p; q++)
                pairs_step_ring(&all[(size_t)q * n], &old[(size_t)((q + p - 1) % p) * m],
                                &old[(size_t)((q + 1) % p) * m], m);
        }
    }
    uint64_t h = 0;
    for (int q = 0; q < p; q++) h += pairs_hash(&all[(size_t)q * n], q, n);
    *out = h;
    free(all);
    free(old);
    return 0;
}

int main(int argc, char **argv)
{
    int rank, p;
    app_start(&argc, &argv, &rank, &p);
    options o = {.c = {.scale = 1.0, .iters = 10}, .n = 0, .seed = 1, .serial = -1};
    app_parse_args(argc, argv, &o.c, "compi_pairs", usage, pairs_option, &o);
    int n = o.n ? o.n : (int)(131072 * o.c.scale + 0.5);
    if (n < 4) n = 4;
    int m = n / 4;

    int *perm = malloc(sizeof(int) * (size_t)p), *pos = malloc(sizeof(int) * (size_t)p);
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    double *l = malloc(sizeof(double) * (size_t)m), *r = malloc(sizeof(double) * (size_t)m);
    if (!perm || !pos || !x || !y || !l || !r) {
        fprintf(stderr, "compi_pairs: out of memory (n=%d)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pairs_perm(p, o.seed, perm, pos);
    int q = pos[rank];
    int partner_q = pairs_partner(q, p);
    int partner = partner_q >= 0 ? perm[partner_q] : MPI_PROC_NULL;
    int left = perm[(q + p - 1) % p], right = perm[(q + 1) % p];
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        x[k] = pairs_init(q, k);
        if (x[k] < lo) lo = x[k];
        if (x[k] > hi) hi = x[k];
    }
    double glo, ghi;
    MPI_Allreduce(&lo, &glo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&hi, &ghi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!o.c.quiet && rank == 0) {
        printf("compi_pairs: %d ranks, %d doubles each (%.2f MiB to the partner, %.2f MiB to each ring neighbour "
               "per iteration), %d iterations, seed %llu; pairs:",
               p, n, n * 8.0 / 1048576, m * 8.0 / 1048576, o.c.iters, o.seed);
        for (int i = 0; i + 1 < p; i += 2) printf(" %d-%d", perm[i], perm[i + 1]);
        printf("\n");
        fflush(stdout);
    }

    uint64_t sent = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < o.c.iters; it++) {
        if (partner != MPI_PROC_NULL) {
            MPI_Sendrecv(x, n, MPI_DOUBLE, partner, TAG_PAIR, y, n, MPI_DOUBLE, partner, TAG_PAIR, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            /* both sides compute 0.5 * (own + other): a + b == b + a bitwise */
            pairs_step_pair(x, y, n);
            sent += (uint64_t)n * sizeof(double);
        }
        if (p > 1) {
            MPI_Sendrecv(x, m, MPI_DOUBLE, right, TAG_RIGHT, l, m, MPI_DOUBLE, left, TAG_RIGHT, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(x, m, MPI_DOUBLE, left, TAG_LEFT, r, m, MPI_DOUBLE, right, TAG_LEFT, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            pairs_step_ring(x, l, r, m);
            sent += 2 * (uint64_t)m * sizeof(double);
        }
    }
    double elapsed = MPI_Wtime() - t0;

    int ok = 1;
    char why[160] = "";
    for (int k = 0; k < n && ok; k++)
        if (!(x[k] >= glo && x[k] <= ghi)) {
            ok = 0;
            snprintf(why, sizeof why, "rank %d value %d = %g outside the initial range [%g, %g]", rank, k, x[k], glo,
                     ghi);
        }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    unsigned long long h = pairs_hash(x, q, n), sum = 0;
    MPI_Reduce(&h, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!ok) fprintf(stderr, "compi_pairs: %s\n", why);
    if (!all_ok && !why[0]) snprintf(why, sizeof why, "a value left the initial range (see stderr)");
    if (rank == 0) {
        const char *serial = "skipped";
        int do_serial = o.serial == 1 || (o.serial == -1 && (double)p * n <= 2097152.0);
        if (do_serial) {
            uint64_t ref;
            if (pairs_serial(p, n, o.c.iters, &ref) != 0) {
                all_ok = 0;
                snprintf(why, sizeof why, "serial recheck: out of memory");
            } else if (ref != sum) {
                all_ok = 0;
                snprintf(why, sizeof why, "checksum %016llx differs from the serial recomputation's %016llx", sum,
                         (unsigned long long)ref);
            }
            serial = "same";
            if (!all_ok) serial = "DIFFERENT";
        }
        app_result(sum, "n=%d iters=%d seed=%llu serial=%s", n, o.c.iters, o.seed, serial);
    }
    free(perm);
    free(pos);
    free(x);
    free(y);
    free(l);
    free(r);
    return app_end("pairs", elapsed, sent, all_ok, why);
}
