/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include "engine/stats.h"

static int compi_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double compi_median(double *v, int n)
{
    if (n <= 0) return 0;
    if (n <= 16) {
        /* the windows' and link estimates' short rings, once per message:
         * an insertion sort, no qsort call */
        for (int i = 1; i < n; i++) {
            double x = v[i];
            int j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
    } else {
        qsort(v, (size_t)n, sizeof *v, compi_cmp_double);
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
