/* SPDX-License-Identifier: BSD-3-Clause */
/* What compi's benchmarks share: command-line sizes and data sets, the
 * median, and whether libcompi really interposes the MPI calls measured. */
#ifndef COMPI_BENCH_COMMON_H
#define COMPI_BENCH_COMMON_H
#include <stddef.h>

/* "64K", "8M", "1G", "4096" (powers of 1024; a trailing B allowed); 0 on success */
int bench_parse_size(const char *s, size_t *out);
/* "LO:HI[:F]" (LO, LO*F, ... up to HI; F >= 2, default 2) or "S[,S..]";
 * at most max sizes. 0 on success. */
int bench_parse_sizes(const char *arg, size_t *sizes, int max, int *n);
/* "all" or "NAME[,NAME..]" of lib/common/datasets.h; an unknown name is
 * reported on stderr by rank 0 as prog's. 0 on success. */
int bench_parse_data(const char *arg, int *data, int max, int *n, const char *prog, int rank);
/* Sorts v[0..n) ascending. */
void bench_sort(double *v, int n);
/* Median of v[0..n) (sorts v); 0 for n = 0. */
double bench_median(double *v, int n);
/* Distribution-free interval of the median of xs[0..n) (sorts xs; as
 * dev/cmd/bench_apps_summary.py's median_ci): [x(k), x(n+1-k)] with the
 * largest k whose two-sided binomial tail stays <= alpha; with few values
 * the whole range, *coverage saying how much it covers. */
void bench_median_ci(double *xs, int n, double alpha, double *lo, double *hi, double *coverage);
/* "yes: <sym> from <library>" when <sym> is not the MPI library's own
 * (libcompi preloaded), else a NO line: the compi column measures plain MPI. */
void bench_describe_interposer(const char *sym, char *out, size_t cap);
#endif
