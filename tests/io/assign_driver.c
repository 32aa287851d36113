/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads "rows cols sense" (sense: min or max) then rows*cols weights from
 * stdin, solves with compi_assign_solve and prints "total <T>" then one line
 * "row col" per assigned pair. Used by check_assign_scipy.py. */
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t rows, cols;
    char sense[8];
    if (scanf("%zu %zu %7s", &rows, &cols, sense) != 3) { fprintf(stderr, "assign_driver: bad header\n"); return 2; }
    double *w = malloc(sizeof(double) * ((rows * cols) > 0 ? rows * cols : 1));
    int *rc_ = malloc(sizeof(int) * (rows ? rows : 1)), *cr = malloc(sizeof(int) * (cols ? cols : 1));
    if (!w || !rc_ || !cr) { fprintf(stderr, "assign_driver: out of memory\n"); return 2; }
    for (size_t k = 0; k < rows * cols; k++)
        if (scanf("%lf", &w[k]) != 1) { fprintf(stderr, "assign_driver: weight %zu unreadable\n", k); return 2; }
    double total;
    int rc = compi_assign_solve(rows, cols, w, strcmp(sense, "max") == 0 ? COMPI_ASSIGN_MAX : COMPI_ASSIGN_MIN,
                                rc_, cr, &total);
    if (rc != COMPI_OK) { fprintf(stderr, "assign_driver: %s\n", compi_io_error_string(rc)); return 1; }
    printf("total %.17g\n", total);
    for (size_t r = 0; r < rows; r++)
        if (rc_[r] >= 0) printf("%zu %d\n", r, rc_[r]);
    return 0;
}
