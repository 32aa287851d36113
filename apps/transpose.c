/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_transpose: the global transpose of a 3D FFT-style solver.
 *
 * A periodic N^3 field of doubles (x fastest) is distributed in z-slabs of
 * N/P planes over P ranks (N divisible by P). Each iteration:
 *   1. a hot spot (a ball held at 100.0) is applied at a position that moves
 *      along a closed path with the iteration;
 *   2. --sweeps explicit diffusion sweeps in x and y (periodic; local to a
 *      z-slab);
 *   3. global transpose z-slabs -> x-slabs: every rank packs one block per
 *      rank (its planes x all rows x that rank's N/P columns) and
 *      MPI_Alltoall exchanges them; the blocks are unpacked so that z runs
 *      fastest in memory;
 *   4. --sweeps explicit diffusion sweeps in z (periodic; local to an
 *      x-slab);
 *   5. the transpose back (MPI_Alltoall of the same size).
 * As in a pencil/slab FFT, the two all-to-all exchanges move the whole field
 * every iteration; at 100 Mbit/s they dominate the run. The field starts at
 * exactly 20.0 everywhere: cells the heat has not reached stay bitwise 20.0
 * (a sweep adds kappa * 0 there), the trail of the moving spot carries a
 * diffusion front of full-mantissa doubles that widens by one cell per sweep.
 * So the blocks on the wire are compressible, less so as the run goes on,
 * and change every iteration.
 *
 * Determinism: every cell's update reads the same neighbours in the same
 * order whatever the decomposition, and the transposes only move data, so
 * the final field is bitwise the same for any P dividing N, with or without
 * compi. Checksum: the order-independent sum of app_hash_term(global index,
 * bits) over all cells.
 *
 * Verification: every value lies in [20, 100] (the scheme is monotone), and
 * when the field is small enough (--serial auto: N <= 160; on; off) rank 0
 * recomputes the whole run serially with the same code (transposes by
 * memcpy) and compares the checksum bitwise.
 *
 * --overlap: each transpose goes in chunks (of planes z -> x, of rows
 * x -> z), each chunk's blocks by MPI_Ialltoall as soon as its sweeps are
 * done, so the exchange of one chunk overlaps the sweeps of the next (the
 * sweeps of one plane / one z line are independent of the others'); the
 * field, and so the checksum, is bitwise the one of the blocking run.
 *
 * --omp masteronly: hybrid MPI+OpenMP (OMP_NUM_THREADS threads per rank):
 * the source, the sweeps and the packing and unpacking of the transposes
 * run as OpenMP loops, and the master thread alone calls MPI, between
 * them (MPI_THREAD_FUNNELED). Every cell is computed by the same
 * expression as without threads, so the checksum is the pure-MPI one.
 *
 * Timed phase: the iterations. bytes_sent: the blocks every rank sends to
 * the other ranks in the two transposes of each iteration. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define T_AMBIENT 20.0
#define T_SOURCE 100.0
#define KAPPA_XY 0.2 /* explicit 2D diffusion: stable (and monotone) for <= 1/4 */
#define KAPPA_Z 0.4  /* explicit 1D diffusion: <= 1/2 */
#define PATH_PERIOD 16.0

typedef struct {
    app_common_opts c;
    int n; /* 0: from --scale */
    int sweeps;
    int serial; /* -1 auto, 0 off, 1 on */
} options;

static int g_rank, g_nranks;
static int g_overlap; /* --overlap: chunked transposes overlapped with the sweeps */
/* --omp masteronly: the loops between the MPI calls in OpenMP */
static int g_omp;
#define OVERLAP_CHUNKS 4

static const char *const usage =
    "usage: compi_transpose [--scale F] [--n N] [--iters I] [--sweeps S] [--serial auto|on|off] [--overlap]\n"
    "                       [--omp masteronly] [--quiet]\n"
    "  default: N = 128 (F scales the cell count, N rounded to a multiple of the ranks), 8 iterations,\n"
    "  12 diffusion sweeps per direction and iteration; two MPI_Alltoall transposes of the whole\n"
    "  field per iteration; serial recheck on rank 0 when N <= 160 (auto)\n"
    "  --overlap: each transpose in chunks by MPI_Ialltoall, overlapped with the next chunk's sweeps\n"
    "  --omp masteronly: OMP_NUM_THREADS threads per rank run the loops, the master calls MPI between them\n";

static int transpose_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!strcmp(a, "--overlap")) return g_overlap = 1;
    if (!v) return 0;
    if (!strcmp(a, "--omp")) return strcmp(v, "masteronly") ? -1 : (g_omp = 1, 2);
    if (!strcmp(a, "--n")) return (o->n = atoi(v)) < 2 ? -1 : 2;
    if (!strcmp(a, "--sweeps")) return (o->sweeps = atoi(v)) < 1 ? -1 : 2;
    if (!strcmp(a, "--serial")) {
        if (!strcmp(v, "auto")) o->serial = -1;
        else if (!strcmp(v, "on")) o->serial = 1;
        else if (!strcmp(v, "off")) o->serial = 0;
        else return -1;
        return 2;
    }
    return 0;
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.c = {.scale = 1.0, .iters = 8}, .sweeps = 12, .serial = -1};
    app_parse_args(argc, argv, &o->c, "compi_transpose", usage, transpose_option, o);
    if (!o->n) {
        /* the cell count scales with F; N the nearest multiple of the ranks */
        double n = 128.0 * cbrt(o->c.scale);
        o->n = (int)(n / g_nranks + 0.5) * g_nranks;
        if (o->n < g_nranks) o->n = g_nranks;
        if (o->n < 2) o->n = 2;
    }
    if (o->n % g_nranks || o->n > 4096) {
        char why[160];
        snprintf(why, sizeof why, "compi_transpose: N = %d must be divisible by the %d ranks (and at most 4096)\n",
                 o->n, g_nranks);
        app_usage_exit(usage, 2, why);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "compi_transpose: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* One rank's share of the field, in both layouts. */
typedef struct {
    int n, p, rank, m; /* N, ranks, my rank, N/P planes (z-slab) or columns (x-slab) */
    size_t local;      /* m * N * N cells */
    size_t block;      /* m * N * m cells per rank pair */
    double *u;         /* z-slab: u[(k * N + y) * N + x], global z = rank * m + k */
    double *w;         /* x-slab: w[(i * N + y) * N + z], global x = rank * m + i */
    double *tmp, *sbuf, *rbuf;
    MPI_Comm comm; /* MPI_COMM_NULL: serial (P = 1, transposes by memcpy) */
    double comm_s; /* time in MPI_Alltoall */
    uint64_t sent; /* bytes to other ranks */
} field;

static void field_init(field *f, int n, int p, int rank, MPI_Comm comm)
{
    memset(f, 0, sizeof *f);
    f->n = n, f->p = p, f->rank = rank, f->m = n / p, f->comm = comm;
    f->local = (size_t)f->m * n * n;
    f->block = (size_t)f->m * n * f->m;
    f->u = xmalloc(f->local * sizeof(double));
    f->w = xmalloc(f->local * sizeof(double));
    f->tmp = xmalloc(f->local * sizeof(double));
    f->sbuf = xmalloc(f->local * sizeof(double));
    f->rbuf = xmalloc(f->local * sizeof(double));
    for (size_t c = 0; c < f->local; c++) f->u[c] = T_AMBIENT;
}

static void field_free(field *f)
{
    free(f->u), free(f->w), free(f->tmp), free(f->sbuf), free(f->rbuf);
}

/* The hot ball of iteration it: centre on a closed path, radius N/10. */
static void apply_source(field *f, int it)
{
    const int n = f->n;
    const double th = 2.0 * 3.14159265358979323846 * it / PATH_PERIOD;
    const double cx = n * (0.5 + 0.25 * cos(th)), cy = n * (0.5 + 0.25 * sin(th)), cz = n * (0.5 + 0.125 * sin(2 * th));
    const double r = 0.1 * n, r2 = r * r;
#pragma omp parallel for if (g_omp) schedule(static)
    for (int k = 0; k < f->m; k++) {
        double z = f->rank * f->m + k + 0.5 - cz;
        if (z * z > r2) continue;
        for (int y = 0; y < n; y++) {
            double yy = y + 0.5 - cy;
            if (z * z + yy * yy > r2) continue;
            for (int x = 0; x < n; x++) {
                double xx = x + 0.5 - cx;
                if (xx * xx + yy * yy + z * z <= r2) f->u[((size_t)k * n + y) * n + x] = T_SOURCE;
            }
        }
    }
}

/* Diffusion in x and y over the z-slab (periodic), u -> tmp, swapped. */
static void sweep_xy(field *f)
{
    const int n = f->n;
#pragma omp parallel for if (g_omp) schedule(static)
    for (int k = 0; k < f->m; k++)
        for (int y = 0; y < n; y++) {
            const double *row = f->u + ((size_t)k * n + y) * n;
            const double *up = f->u + ((size_t)k * n + (y + 1) % n) * n;
            const double *dn = f->u + ((size_t)k * n + (y + n - 1) % n) * n;
            double *out = f->tmp + ((size_t)k * n + y) * n;
            for (int x = 0; x < n; x++) {
                double c = row[x], l = row[x ? x - 1 : n - 1], r = row[x + 1 < n ? x + 1 : 0];
                out[x] = c + KAPPA_XY * (((l + r) + (dn[x] + up[x])) - 4.0 * c);
            }
        }
    double *t = f->u;
    f->u = f->tmp, f->tmp = t;
}

/* Diffusion in z over the x-slab (periodic, z fastest), w -> tmp, swapped. */
static void sweep_z(field *f)
{
    const int n = f->n;
    const long lines = (long)f->m * n;
#pragma omp parallel for if (g_omp) schedule(static)
    for (long line = 0; line < lines; line++) {
        const double *a = f->w + line * n;
        double *out = f->tmp + line * n;
        for (int z = 0; z < n; z++) {
            double c = a[z], l = a[z ? z - 1 : n - 1], r = a[z + 1 < n ? z + 1 : 0];
            out[z] = c + KAPPA_Z * ((l + r) - 2.0 * c);
        }
    }
    double *t = f->w;
    f->w = f->tmp, f->tmp = t;
}

/* sbuf -> rbuf, one block per rank pair. */
static void exchange(field *f)
{
    if (f->comm == MPI_COMM_NULL) {
        memcpy(f->rbuf, f->sbuf, f->local * sizeof(double));
        return;
    }
    double t0 = MPI_Wtime();
    MPI_Alltoall(f->sbuf, (int)f->block, MPI_DOUBLE, f->rbuf, (int)f->block, MPI_DOUBLE, f->comm);
    f->comm_s += MPI_Wtime() - t0;
    f->sent += (uint64_t)(f->p - 1) * f->block * sizeof(double);
}

/* Block for/from rank d, in the order (k, y, i) of m planes x N rows x m columns. */
static void transpose_z_to_x(field *f)
{
    const int n = f->n, m = f->m;
#pragma omp parallel for if (g_omp) schedule(static)
    for (int d = 0; d < f->p; d++) {
        double *blk = f->sbuf + (size_t)d * f->block;
        for (int k = 0; k < m; k++)
            for (int y = 0; y < n; y++)
                memcpy(blk + ((size_t)k * n + y) * m, f->u + ((size_t)k * n + y) * n + (size_t)d * m,
                       m * sizeof(double));
    }
    exchange(f);
#pragma omp parallel for if (g_omp) schedule(static)
    for (int s = 0; s < f->p; s++) {
        const double *blk = f->rbuf + (size_t)s * f->block;
        for (int k = 0; k < m; k++)
            for (int y = 0; y < n; y++)
                for (int i = 0; i < m; i++)
                    f->w[((size_t)i * n + y) * n + (size_t)s * m + k] = blk[((size_t)k * n + y) * m + i];
    }
}

static void transpose_x_to_z(field *f)
{
    const int n = f->n, m = f->m;
#pragma omp parallel for if (g_omp) schedule(static)
    for (int d = 0; d < f->p; d++) {
        double *blk = f->sbuf + (size_t)d * f->block;
        for (int k = 0; k < m; k++)
            for (int y = 0; y < n; y++)
                for (int i = 0; i < m; i++)
                    blk[((size_t)k * n + y) * m + i] = f->w[((size_t)i * n + y) * n + (size_t)d * m + k];
    }
    exchange(f);
#pragma omp parallel for if (g_omp) schedule(static)
    for (int s = 0; s < f->p; s++) {
        const double *blk = f->rbuf + (size_t)s * f->block;
        for (int k = 0; k < m; k++)
            for (int y = 0; y < n; y++)
                memcpy(f->u + ((size_t)k * n + y) * n + (size_t)s * m, blk + ((size_t)k * n + y) * m,
                       m * sizeof(double));
    }
}

/* --overlap: one xy sweep of planes [k0, k1) in place (through tmp). */
static void sweep_xy_planes(field *f, int k0, int k1)
{
    const int n = f->n;
    for (int k = k0; k < k1; k++)
        for (int y = 0; y < n; y++) {
            const double *row = f->u + ((size_t)k * n + y) * n;
            const double *up = f->u + ((size_t)k * n + (y + 1) % n) * n;
            const double *dn = f->u + ((size_t)k * n + (y + n - 1) % n) * n;
            double *out = f->tmp + ((size_t)k * n + y) * n;
            for (int x = 0; x < n; x++) {
                double c = row[x], l = row[x ? x - 1 : n - 1], r = row[x + 1 < n ? x + 1 : 0];
                out[x] = c + KAPPA_XY * (((l + r) + (dn[x] + up[x])) - 4.0 * c);
            }
        }
    memcpy(f->u + (size_t)k0 * n * n, f->tmp + (size_t)k0 * n * n, (size_t)(k1 - k0) * n * n * sizeof(double));
}

/* --overlap: the xy sweeps and the transpose z -> x, chunk by chunk of
 * planes; chunk c's blocks (its planes x all rows x the receiver's columns)
 * travel while chunk c+1 is swept. */
static void xy_transpose_overlapped(field *f, int sweeps)
{
    const int n = f->n, m = f->m, p = f->p, nc = m < OVERLAP_CHUNKS ? m : OVERLAP_CHUNKS;
    MPI_Request req[OVERLAP_CHUNKS];
    for (int c = 0; c < nc; c++) {
        int k0 = c * m / nc, k1 = (c + 1) * m / nc, mk = k1 - k0;
        for (int s = 0; s < sweeps; s++) sweep_xy_planes(f, k0, k1);
        double *sb = f->sbuf + (size_t)k0 * n * m * p, *rb = f->rbuf + (size_t)k0 * n * m * p;
        for (int d = 0; d < p; d++) {
            double *blk = sb + (size_t)d * mk * n * m;
            for (int k = k0; k < k1; k++)
                for (int y = 0; y < n; y++)
                    memcpy(blk + ((size_t)(k - k0) * n + y) * m, f->u + ((size_t)k * n + y) * n + (size_t)d * m,
                           m * sizeof(double));
        }
        double t0 = MPI_Wtime();
        MPI_Ialltoall(sb, mk * n * m, MPI_DOUBLE, rb, mk * n * m, MPI_DOUBLE, f->comm, &req[c]);
        f->comm_s += MPI_Wtime() - t0;
    }
    double t0 = MPI_Wtime();
    MPI_Waitall(nc, req, MPI_STATUSES_IGNORE);
    f->comm_s += MPI_Wtime() - t0;
    f->sent += (uint64_t)(p - 1) * f->block * sizeof(double);
    for (int c = 0; c < nc; c++) {
        int k0 = c * m / nc, k1 = (c + 1) * m / nc, mk = k1 - k0;
        const double *rb = f->rbuf + (size_t)k0 * n * m * p;
        for (int s = 0; s < p; s++) {
            const double *blk = rb + (size_t)s * mk * n * m;
            for (int k = 0; k < mk; k++)
                for (int y = 0; y < n; y++)
                    for (int i = 0; i < m; i++)
                        f->w[((size_t)i * n + y) * n + (size_t)s * m + k0 + k] = blk[((size_t)k * n + y) * m + i];
        }
    }
}

/* --overlap: the z sweeps and the transpose x -> z, chunk by chunk of rows
 * y (every z line is swept on its own, all sweeps at once). */
static void z_transpose_overlapped(field *f, int sweeps)
{
    const int n = f->n, m = f->m, p = f->p, nc = n < OVERLAP_CHUNKS ? n : OVERLAP_CHUNKS;
    MPI_Request req[OVERLAP_CHUNKS];
    for (int c = 0; c < nc; c++) {
        int y0 = c * n / nc, y1 = (c + 1) * n / nc, my = y1 - y0;
        for (int i = 0; i < m; i++)
            for (int y = y0; y < y1; y++) {
                double *a = f->w + ((size_t)i * n + y) * n, *out = f->tmp + ((size_t)i * n + y) * n;
                for (int s = 0; s < sweeps; s++) {
                    for (int z = 0; z < n; z++) {
                        double v = a[z], l = a[z ? z - 1 : n - 1], r = a[z + 1 < n ? z + 1 : 0];
                        out[z] = v + KAPPA_Z * ((l + r) - 2.0 * v);
                    }
                    memcpy(a, out, (size_t)n * sizeof(double));
                }
            }
        double *sb = f->sbuf + (size_t)y0 * m * m * p, *rb = f->rbuf + (size_t)y0 * m * m * p;
        for (int d = 0; d < p; d++) {
            double *blk = sb + (size_t)d * m * my * m;
            for (int k = 0; k < m; k++)
                for (int y = y0; y < y1; y++)
                    for (int i = 0; i < m; i++)
                        blk[((size_t)k * my + (y - y0)) * m + i] = f->w[((size_t)i * n + y) * n + (size_t)d * m + k];
        }
        double t0 = MPI_Wtime();
        MPI_Ialltoall(sb, m * my * m, MPI_DOUBLE, rb, m * my * m, MPI_DOUBLE, f->comm, &req[c]);
        f->comm_s += MPI_Wtime() - t0;
    }
    double t0 = MPI_Wtime();
    MPI_Waitall(nc, req, MPI_STATUSES_IGNORE);
    f->comm_s += MPI_Wtime() - t0;
    f->sent += (uint64_t)(p - 1) * f->block * sizeof(double);
    for (int c = 0; c < nc; c++) {
        int y0 = c * n / nc, y1 = (c + 1) * n / nc, my = y1 - y0;
        const double *rb = f->rbuf + (size_t)y0 * m * m * p;
        for (int s = 0; s < p; s++) {
            const double *blk = rb + (size_t)s * m * my * m;
            for (int k = 0; k < m; k++)
                for (int y = y0; y < y1; y++)
                    memcpy(f->u + ((size_t)k * n + y) * n + (size_t)s * m, blk + ((size_t)k * my + (y - y0)) * m,
                           m * sizeof(double));
        }
    }
}

static void simulate(field *f, int iters, int sweeps)
{
    for (int it = 1; it <= iters; it++) {
        apply_source(f, it);
        if (g_overlap && f->comm != MPI_COMM_NULL) {
            xy_transpose_overlapped(f, sweeps);
            z_transpose_overlapped(f, sweeps);
            continue;
        }
        for (int s = 0; s < sweeps; s++) sweep_xy(f);
        transpose_z_to_x(f);
        for (int s = 0; s < sweeps; s++) sweep_z(f);
        transpose_x_to_z(f);
    }
}

/* Order-independent digest of the z-slab, plus cells at exactly ambient and
 * cells outside [T_AMBIENT, T_SOURCE]. */
static uint64_t field_hash(const field *f, unsigned long long *ambient, unsigned long long *outside)
{
    uint64_t h = 0;
    const size_t plane = (size_t)f->n * f->n;
    for (size_t c = 0; c < f->local; c++) {
        double v = f->u[c];
        h += app_hash_term((uint64_t)f->rank * f->m * plane + c, app_dbits(v));
        *ambient += v == T_AMBIENT;
        *outside += !(v >= T_AMBIENT && v <= T_SOURCE);
    }
    return h;
}

int main(int argc, char **argv)
{
    /* --omp: threads exist, the master calls MPI */
    int hybrid = 0;
    for (int i = 1; i < argc; i++) hybrid |= !strcmp(argv[i], "--omp");
    if (hybrid) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
        if (provided < MPI_THREAD_FUNNELED) {
            if (g_rank == 0) fprintf(stderr, "compi_transpose: --omp needs MPI_THREAD_FUNNELED; got %d\n", provided);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    } else {
        app_start(&argc, &argv, &g_rank, &g_nranks);
    }
    options o;
    parse_args(argc, argv, &o);
    const int n = o.n;
    int serial = o.serial < 0 ? n <= 160 : o.serial;

    field f;
    field_init(&f, n, g_nranks, g_rank, MPI_COMM_WORLD);
    if (g_rank == 0 && !o.c.quiet) {
        printf("compi_transpose: %d^3 doubles (%.1f MB), %d ranks (slabs of %d planes), %d iterations x %d sweeps "
               "per direction; 2 x MPI_Alltoall per iteration, blocks of %zu doubles (%.2f MB) per rank pair\n",
               n, (double)n * n * n * 8 / 1e6, g_nranks, f.m, o.c.iters, o.sweeps, f.block, (double)f.block * 8 / 1e6);
        fflush(stdout);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    simulate(&f, o.c.iters, o.sweeps);
    double elapsed = MPI_Wtime() - t0;

    unsigned long long counts[2] = {0, 0}, gcounts[2];
    uint64_t h = field_hash(&f, &counts[0], &counts[1]), gh = 0;
    MPI_Reduce(&h, &gh, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(counts, gcounts, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double comm_max = 0;
    MPI_Reduce(&f.comm_s, &comm_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t sent = f.sent;
    field_free(&f);

    int ok = 1;
    char why[200] = "";
    if (g_rank == 0) {
        const double cells = (double)n * n * n;
        if (gcounts[1])
            snprintf(why, sizeof why, "%llu cells outside [%g, %g]", gcounts[1], T_AMBIENT, T_SOURCE), ok = 0;
        if (ok && serial) {
            field s;
            field_init(&s, n, 1, 0, MPI_COMM_NULL);
            simulate(&s, o.c.iters, o.sweeps);
            unsigned long long a = 0, b = 0;
            uint64_t hs = field_hash(&s, &a, &b);
            field_free(&s);
            if (hs != gh)
                snprintf(why, sizeof why, "checksum %016llx differs from the serial run's %016llx",
                         (unsigned long long)gh, (unsigned long long)hs),
                    ok = 0;
        }
        if (!o.c.quiet)
            printf("%.1f %% of the cells still exactly at %g; transposes: max %.3f s per rank in MPI_Alltoall; "
                   "serial recheck %s\n",
                   100.0 * gcounts[0] / cells, T_AMBIENT, comm_max, serial ? (ok ? "identical" : "DIFFERS") : "off");
        app_result(gh, "n=%d iters=%d alltoall_s=%.6f ambient=%.4f", n, o.c.iters, comm_max, gcounts[0] / cells);
    }
    return app_end("transpose", elapsed, sent, ok, why);
}
