/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the mini-applications (bips3d, stem, psrg,
 * nas_is): seeded random numbers, bitwise hashing and the closing report.
 *
 * Every app ends with the same two lines from rank 0, which tools and tests
 * parse:
 *   RESULT checksum=<16 hex digits> ...   bitwise digest of the result; must not
 *                                         change when compi is preloaded
 *   APP name=<name> ranks=<n> time_s=<max over ranks of the timed phase>
 *       bytes_sent=<payload bytes all ranks sent to other ranks in the timed phase>
 *       check=OK|FAIL
 * preceded by `CHECK OK` or `CHECK FAIL <why>`; a failed check exits 1.
 * main() opens with app_start and ends with app_end; app_result prints the
 * RESULT line. */
#ifndef COMPI_APP_COMMON_H
#define COMPI_APP_COMMON_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t app_mix64(uint64_t x)
{ /* splitmix64 finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* splitmix64 stream: tiny, seedable, and identical on every rank, so a rank
 * can regenerate any part of the input without communication. */
typedef struct {
    uint64_t s;
} app_rng;

static inline app_rng app_rng_seed(uint64_t seed)
{
    return (app_rng){app_mix64(seed + 0x9e3779b97f4a7c15ULL)};
}

static inline uint64_t app_rng_u64(app_rng *r)
{
    return app_mix64(r->s += 0x9e3779b97f4a7c15ULL);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double app_rng_unif(app_rng *r)
{
    return (double)(app_rng_u64(r) >> 11) * 0x1.0p-53;
}

static inline uint64_t app_dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Order-independent digest term for element `index` with payload bits `bits`:
 * summing the terms (wrapping) gives the same hash for any partitioning. */
static inline uint64_t app_hash_term(uint64_t index, uint64_t bits)
{
    return app_mix64(bits ^ app_mix64(index + 0x9e3779b97f4a7c15ULL));
}

/* The opening every app's main() shares: MPI up, this rank, the ranks. */
static inline void app_start(int *argc, char ***argv, int *rank, int *nranks)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
}

/* Rank 0's result line: "RESULT checksum=<16 hex digits>", then the app's
 * own fields (fmt, printf-style). */
static inline void app_result(uint64_t checksum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void app_result(uint64_t checksum, const char *fmt, ...)
{
    va_list ap;
    printf("RESULT checksum=%016llx ", (unsigned long long)checksum);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* The closing lines. `ok` and `why` matter on rank 0 (where verification
 * runs); the verdict is shared so that every rank exits with the same status.
 * Returns the process exit code. */
static inline int app_finish(const char *name, double t_local, uint64_t bytes_local, int ok, const char *why)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double tmax = 0;
    unsigned long long b = bytes_local, btot = 0;
    MPI_Reduce(&t_local, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&b, &btot, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (ok) printf("CHECK OK\n");
        else printf("CHECK FAIL %s\n", why ? why : "");
        printf("APP name=%s ranks=%d time_s=%.6f bytes_sent=%llu check=%s\n", name, nranks, tmax, btot,
               ok ? "OK" : "FAIL");
        fflush(stdout);
    }
    return ok ? 0 : 1;
}

/* app_finish, then MPI down: the end of every app's main(). Returns the
 * process exit code. */
static inline int app_end(const char *name, double t_local, uint64_t bytes_local, int ok, const char *why)
{
    int rc = app_finish(name, t_local, bytes_local, ok, why);
    MPI_Finalize();
    return rc;
}

/* Shared option parsing: the options every app accepts. Returns 1 if argv[i]
 * (and maybe argv[i+1], then *i is advanced) was one of them, -1 if its value
 * is bad, 0 if it is not a common option. */
typedef struct {
    double scale;
    int iters;
    int quiet;
} app_common_opts;

static inline int app_common_arg(int argc, char **argv, int *i, app_common_opts *c)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--quiet")) return c->quiet = 1;
    if (strcmp(a, "--scale") && strcmp(a, "--iters")) return 0;
    if (!v) return -1;
    (*i)++;
    if (!strcmp(a, "--scale")) {
        double s = 0;
        if (sscanf(v, "%lf", &s) != 1 || !(s > 0 && s <= 1e4)) return -1;
        c->scale = s;
    } else if (sscanf(v, "%d", &c->iters) != 1 || c->iters < 1) return -1;
    return 1;
}

/* Rank 0 prints the usage (and why, if given), then every rank leaves. */
static inline void app_usage_exit(const char *usage, int code, const char *why)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (why) fputs(why, stderr);
        fputs(usage, stderr);
    }
    MPI_Finalize();
    exit(code);
}

/* An app's own option a with its value v (NULL when a is last): returns 2
 * when it took the value, 1 for a flag, 0 when a is not its option, -1 when
 * the value is bad. */
typedef int (*app_option_fn)(const char *a, const char *v, void *opts);

/* The whole command line: common options, -h/--help (usage, exit 0), the
 * app's own (fn); anything else prints "<prog>: bad argument" and the usage
 * and exits 2. */
static inline void app_parse_args(int argc, char **argv, app_common_opts *c, const char *prog, const char *usage,
                                  app_option_fn fn, void *opts)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = app_common_arg(argc, argv, &i, c);
        if (r > 0) continue;
        if (r == 0 && (!strcmp(a, "-h") || !strcmp(a, "--help"))) app_usage_exit(usage, 0, NULL);
        if (r == 0) r = fn(a, v, opts);
        if (r <= 0) {
            char why[256];
            snprintf(why, sizeof why, "%s: bad argument '%s'\n", prog, a);
            app_usage_exit(usage, 2, why);
        }
        if (r == 2) i++;
    }
}

#endif
