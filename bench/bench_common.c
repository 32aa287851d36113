/* SPDX-License-Identifier: BSD-3-Clause */
/* See bench_common.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "common/datasets.h"

int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end || v == 0) return -1;
    *out = (size_t)v;
    return 0;
}

int bench_parse_sizes(const char *arg, size_t *sizes, int max, int *n)
{
    *n = 0;
    char *copy = strdup(arg), *save = NULL;
    if (!copy) return -1;
    if (strchr(copy, ':')) {
        char *lo_s = strtok_r(copy, ":", &save), *hi_s = strtok_r(NULL, ":", &save), *f_s = strtok_r(NULL, ":", &save);
        size_t lo, hi, f = 2;
        int bad = !lo_s || !hi_s || bench_parse_size(lo_s, &lo) || bench_parse_size(hi_s, &hi) || lo > hi ||
                  (f_s && (bench_parse_size(f_s, &f) || f < 2)) || strtok_r(NULL, ":", &save);
        free(copy);
        if (bad) return -1;
        for (size_t s = lo; s <= hi && *n < max; s *= f) sizes[(*n)++] = s;
        return 0;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == max || bench_parse_size(tok, &sizes[*n])) {
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return *n ? 0 : -1;
}

int bench_parse_data(const char *arg, int *data, int max, int *n, const char *prog, int rank)
{
    *n = 0;
    if (strcmp(arg, "all") == 0) {
        for (size_t i = 0; i < compi_dataset_count() && *n < max; i++) data[(*n)++] = (int)i;
        return 0;
    }
    char *copy = strdup(arg), *save = NULL;
    if (!copy) return -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int idx = compi_dataset_find(tok);
        if (idx < 0 || *n == max) {
            if (rank == 0) fprintf(stderr, "%s: unknown data set '%s'\n", prog, tok);
            free(copy);
            return -1;
        }
        data[(*n)++] = idx;
    }
    free(copy);
    return *n ? 0 : -1;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_sort(double *v, int n)
{
    if (n > 0) qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
}

double bench_median(double *v, int n)
{
    if (n == 0) return 0;
    bench_sort(v, n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_describe_interposer(const char *sym, char *out, size_t cap)
{
    char psym[128];
    snprintf(psym, sizeof psym, "P%s", sym);
    void *s = dlsym(RTLD_DEFAULT, sym);
    void *ps = dlsym(RTLD_DEFAULT, psym);
    Dl_info info;
    const char *lib = (s && dladdr(s, &info) && info.dli_fname) ? info.dli_fname : "?";
    if (s && ps && s != ps) snprintf(out, cap, "yes: %s from %s", sym, lib);
    else snprintf(out, cap, "NO (%s is the MPI library's own; the compi column measures plain MPI too)", sym);
}

/* 2 P(B <= k-1), B ~ Bin(n, 1/2) */
static double bench_binom_tail2(int n, int k)
{
    double s = 0;
    for (int i = 0; i < k; i++) s += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    return 2 * s;
}

void bench_median_ci(double *xs, int n, double alpha, double *lo, double *hi, double *coverage)
{
    if (n <= 0) {
        *lo = *hi = 0;
        *coverage = 0;
        return;
    }
    bench_sort(xs, n);
    int k = 1;
    while (k + 1 <= (n + 1) / 2 && bench_binom_tail2(n, k + 1) <= alpha) k++;
    *lo = xs[k - 1];
    *hi = xs[n - k];
    *coverage = 1 - bench_binom_tail2(n, k);
}
