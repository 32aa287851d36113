/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_assign_solve against brute force: every shape up to 7x7 (square and
 * rectangular both ways), random integer weights with many ties and zeros,
 * both senses, with and without forbidden pairs; plus error values.
 *   test_assign            the unit tests (ctest io_assign)
 *   test_assign --bench N  solves one N x N random dense instance and prints
 *                          the time (never asserted) */
#include "io/io.h"
#include "common/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { return compi_rng_next(&rng); }

/* Brute force: best total over injective maps of the small side into the
 * large one; allowed may be NULL. Returns 0 when no allowed map exists. */
static int bf_rec(int depth, int nr, int nc, int transposed, size_t cols, const double *w,
                  const unsigned char *allowed, int sense, unsigned used, double acc, double *best, int *have)
{
    if (depth == nr) {
        if (!*have || (sense ? acc > *best : acc < *best)) { *best = acc; *have = 1; }
        return 1;
    }
    for (int j = 0; j < nc; j++) {
        if (used & (1u << j)) continue;
        size_t k = transposed ? (size_t)j * cols + depth : (size_t)depth * cols + j;
        if (allowed && !allowed[k]) continue;
        bf_rec(depth + 1, nr, nc, transposed, cols, w, allowed, sense, used | (1u << j), acc + w[k], best, have);
    }
    return *have;
}

static int brute(int rows, int cols, const double *w, const unsigned char *allowed, int sense, double *best)
{
    int transposed = rows > cols, have = 0;
    int nr = transposed ? cols : rows, nc = transposed ? rows : cols;
    *best = 0;
    bf_rec(0, nr, nc, transposed, (size_t)cols, w, allowed, sense, 0, 0, best, &have);
    return have;
}

/* The solver's answer is a valid assignment whose total is what it says. */
static void check_valid(int rows, int cols, const double *w, const unsigned char *allowed,
                        const int *rc_, const int *cr, double total, const char *what)
{
    int small = rows < cols ? rows : cols, assigned = 0;
    double sum = 0;
    for (int r = 0; r < rows; r++) {
        if (rc_[r] < 0) continue;
        assigned++;
        CHECK(rc_[r] < cols && cr[rc_[r]] == r, "%s: row %d -> col %d not mirrored", what, r, rc_[r]);
        if (allowed) CHECK(allowed[(size_t)r * cols + rc_[r]], "%s: forbidden pair (%d,%d) used", what, r, rc_[r]);
        sum += w[(size_t)r * cols + rc_[r]];
    }
    int cassigned = 0;
    for (int c = 0; c < cols; c++) if (cr[c] >= 0) cassigned++;
    CHECK(assigned == small && cassigned == small, "%s: %d rows / %d cols assigned, want %d", what, assigned, cassigned, small);
    CHECK(sum == total, "%s: reported total %.17g, assignment sums to %.17g", what, total, sum);
}

static void one_case(int rows, int cols, int range, int masked, int sense, unsigned flags)
{
    double *w = malloc(sizeof(double) * rows * cols);
    unsigned char *allowed = masked ? malloc((size_t)rows * cols) : NULL;
    int *rcol = malloc(sizeof(int) * rows), *crow = malloc(sizeof(int) * cols);
    for (int k = 0; k < rows * cols; k++) {
        uint64_t x = next();
        /* a third zeros; small ranges give many ties; some negative weights */
        w[k] = (x % 3 == 0) ? 0 : (double)((int64_t)((x >> 8) % (uint64_t)range) - (range > 8 ? range / 4 : 0));
        if (allowed) allowed[k] = (x >> 40) % 4 != 0;
    }
    double best, total = -1;
    int feasible = brute(rows, cols, w, allowed, sense, &best);
    int rc = compi_assign_solve_ex(rows, cols, w, allowed, sense, flags, rcol, crow, &total);
    char what[96];
    snprintf(what, sizeof what, "%dx%d range %d %s%s%s", rows, cols, range, sense ? "max" : "min", masked ? " masked" : "",
             flags ? " no-init" : "");
    if (!feasible) {
        CHECK(rc == COMPI_IO_ERR_INFEASIBLE, "%s: infeasible, solver said %d", what, rc);
    } else {
        CHECK(rc == COMPI_OK, "%s: rc %d", what, rc);
        if (rc == COMPI_OK) {
            check_valid(rows, cols, w, allowed, rcol, crow, total, what);
            CHECK(total == best, "%s: total %.17g, brute force %.17g", what, total, best);
        }
    }
    free(w); free(allowed); free(rcol); free(crow);
}

static void test_brute(void)
{
    int cases = 0;
    for (int rows = 1; rows <= 7; rows++)
        for (int cols = 1; cols <= 7; cols++) {
            int reps = (rows * cols > 30) ? 12 : 30;
            for (int rep = 0; rep < reps; rep++) {
                static const int ranges[] = {1, 2, 3, 10, 1000, 1 << 30};
                for (unsigned r = 0; r < sizeof ranges / sizeof *ranges; r++)
                    for (int sense = 0; sense < 2; sense++) {
                        for (unsigned fl = 0; fl < 2; fl++) {
                            one_case(rows, cols, ranges[r], 0, sense, fl);
                            one_case(rows, cols, ranges[r], 1, sense, fl);
                            cases += 2;
                        }
                    }
            }
        }
    /* a few bigger rectangular ones (brute force on up to 9 columns) */
    for (int rep = 0; rep < 20; rep++) {
        for (unsigned fl = 0; fl < 2; fl++) {
            one_case(3, 9, 5, 0, 1, fl);
            one_case(9, 4, 7, 0, 0, fl);
            one_case(8, 8, 4, 1, 1, fl);
            cases += 3;
        }
    }
    printf("brute force: %d cases\n", cases);
}

/* Byte-sized weights beyond 2^31 stay exact. */
static void test_big_weights(void)
{
    double w[] = {5e9, 1, 1, 6e9};   /* 2x2: max is 1.1e10 on the diagonal */
    int rc_[2], cr[2];
    double total;
    CHECK(compi_assign_solve(2, 2, w, COMPI_ASSIGN_MAX, rc_, cr, &total) == COMPI_OK, "big weights rc");
    CHECK(total == 11e9 && rc_[0] == 0 && rc_[1] == 1, "big weights total %.17g", total);
    double w2[] = {4294967296.0 * 3, 4294967296.0 * 3 + 1};   /* 1x2: max picks col 1 */
    CHECK(compi_assign_solve(1, 2, w2, COMPI_ASSIGN_MAX, rc_, cr, &total) == COMPI_OK && rc_[0] == 1 &&
          cr[0] == -1 && total == w2[1], "1x2 exact beyond 2^32");
}

static void test_errors(void)
{
    double w[4] = {1, 2, 3, NAN};
    int rc_[2], cr[2];
    double total = 7;
    CHECK(compi_assign_solve(2, 2, w, COMPI_ASSIGN_MIN, rc_, cr, &total) == COMPI_IO_ERR_ARG, "NaN accepted");
    w[3] = INFINITY;
    CHECK(compi_assign_solve(2, 2, w, COMPI_ASSIGN_MIN, rc_, cr, &total) == COMPI_IO_ERR_ARG, "inf accepted");
    CHECK(compi_assign_solve(2, 2, NULL, COMPI_ASSIGN_MIN, rc_, cr, &total) == COMPI_IO_ERR_ARG, "NULL accepted");
    CHECK(compi_assign_solve(2, 2, w, (compi_assign_sense)7, rc_, cr, &total) == COMPI_IO_ERR_ARG, "bad sense accepted");
    CHECK(compi_assign_solve((size_t)1 << 40, 2, w, COMPI_ASSIGN_MIN, NULL, NULL, NULL) == COMPI_IO_ERR_ARG, "huge rows accepted");
    int cr5[5];
    CHECK(compi_assign_solve(0, 5, NULL, COMPI_ASSIGN_MIN, NULL, cr5, &total) == COMPI_OK && total == 0 && cr5[4] == -1,
          "empty problem");
    CHECK(strstr(compi_io_error_string(COMPI_IO_ERR_INFEASIBLE), "domain") != NULL, "error string");
    unsigned char none[4] = {0, 0, 0, 0};
    double ok[4] = {1, 2, 3, 4};
    CHECK(compi_assign_solve_masked(2, 2, ok, none, COMPI_ASSIGN_MAX, rc_, cr, &total) == COMPI_IO_ERR_INFEASIBLE &&
          rc_[0] == -1 && cr[1] == -1, "all forbidden must be infeasible");
}

static int bench(int n)
{
    double *w = malloc(sizeof(double) * (size_t)n * n);
    int *rc_ = malloc(sizeof(int) * n), *cr = malloc(sizeof(int) * n);
    if (!w || !rc_ || !cr) return 1;
    for (size_t k = 0; k < (size_t)n * n; k++) w[k] = (double)(next() % 100000);   /* byte counts */
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    double total;
    int rc = compi_assign_solve(n, n, w, COMPI_ASSIGN_MAX, rc_, cr, &total);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    double cs = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
    printf("assign %dx%d random dense (weights 0..99999, maximise): %.3f s wall, %.3f s CPU, rc %d, total %.0f\n",
           n, n, s, cs, rc, total);
    for (size_t k = 0; k < (size_t)n * n; k++) w[k] = (double)(next() >> 11) / 9007199254740992.0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    rc = compi_assign_solve(n, n, w, COMPI_ASSIGN_MIN, rc_, cr, &total);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    cs = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
    printf("assign %dx%d random dense (uniform [0,1) doubles, minimise): %.3f s wall, %.3f s CPU, rc %d, total %.6f\n",
           n, n, s, cs, rc, total);
    free(w); free(rc_); free(cr);
    return rc != COMPI_OK;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--bench") == 0) return bench(atoi(argv[2]));
    test_brute();
    test_big_weights();
    test_errors();
    if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
    printf("test_assign: all passed\n");
    return 0;
}
