/* SPDX-License-Identifier: BSD-3-Clause */
/* Linear assignment, Jonker & Volgenant, "A shortest augmenting path
 * algorithm for dense and sparse linear assignment problems", Computing 38
 * (1987). Written here from the paper's four phases; see io.h for the
 * contract. MPI-free. */
#include "io/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *compi_io_error_string(int rc)
{
    switch (rc) {
    case COMPI_IO_ERR_ARG: return "invalid argument (size, pointer, NaN or infinite weight)";
    case COMPI_IO_ERR_INFEASIBLE: return "no assignment covers every file domain with the allowed processes";
    case COMPI_IO_ERR_UNSUPPORTED: return "datatype or file view not supported";
    case COMPI_IO_ERR_MPI: return "an MPI call failed";
    default: return compi_error_string(rc);
    }
}

/* The working state of one square problem (n x n cost c, row-major). */
typedef struct {
    int n;
    const double *c;
    int *rowsol, *colsol;   /* column of each row, row of each column (-1: none) */
    int *freerows, numfree; /* rows without a column */
    int *collist, *matches, *pred;
    double *d, *v; /* shortest path distances; column prices */
} jv_state;

#define C(i, j) c[(size_t)(i) * (size_t)n + (size_t)(j)]

static void jv_column_reduction(jv_state *s)
{
    int n = s->n;
    const double *c = s->c;
    int *rowsol = s->rowsol, *colsol = s->colsol;
    int *matches = s->matches;
    double *v = s->v;
    /* 1. Column reduction: v[j] = min over rows; each column goes to its
     * minimum row if that row has no cheaper column yet (last columns first). */
    for (int i = 0; i < n; i++) rowsol[i] = -1;
    for (int j = n - 1; j >= 0; j--) {
        double mn = C(0, j);
        int imin = 0;
        for (int i = 1; i < n; i++)
            if (C(i, j) < mn) {
                mn = C(i, j);
                imin = i;
            }
        v[j] = mn;
        if (++matches[imin] == 1) {
            rowsol[imin] = j;
            colsol[j] = imin;
        } else if (v[j] < v[rowsol[imin]]) {
            int j1 = rowsol[imin];
            rowsol[imin] = j;
            colsol[j] = imin;
            colsol[j1] = -1;
        } else {
            colsol[j] = -1;
        }
    }
}

static void jv_reduction_transfer(jv_state *s)
{
    int n = s->n;
    const double *c = s->c;
    int *rowsol = s->rowsol;
    int *matches = s->matches, *freerows = s->freerows;
    double *v = s->v;
    int numfree = 0;
    /* 2. Reduction transfer: a row matched once lowers its column's price by
     * its second-best reduced cost; rows with no column are free. */
    for (int i = 0; i < n; i++) {
        if (matches[i] == 0) {
            freerows[numfree++] = i;
        } else if (matches[i] == 1) {
            int j1 = rowsol[i];
            double mn = INFINITY;
            for (int j = 0; j < n; j++)
                if (j != j1 && C(i, j) - v[j] < mn) mn = C(i, j) - v[j];
            v[j1] -= mn;
        }
    }
    s->numfree = numfree;
}

static void jv_augmenting_row_reduction(jv_state *s)
{
    int n = s->n;
    const double *c = s->c;
    int *rowsol = s->rowsol, *colsol = s->colsol;
    int *freerows = s->freerows, numfree = s->numfree;
    double *v = s->v;
    /* 3. Augmenting row reduction, twice: each free row takes its cheapest
     * column, lowering its price to the second-cheapest; a displaced row
     * is retried at once if the price dropped, else in the next round. */
    for (int loop = 0; loop < 2; loop++) {
        int k = 0, prvnumfree = numfree;
        numfree = 0;
        while (k < prvnumfree) {
            int i = freerows[k++];
            double umin = C(i, 0) - v[0], usubmin = INFINITY;
            int j1 = 0, j2 = -1;
            for (int j = 1; j < n; j++) {
                double h = C(i, j) - v[j];
                if (h < usubmin) {
                    if (h >= umin) {
                        usubmin = h;
                        j2 = j;
                    } else {
                        usubmin = umin;
                        umin = h;
                        j2 = j1;
                        j1 = j;
                    }
                }
            }
            int i0 = colsol[j1];
            if (umin < usubmin) {
                v[j1] -= usubmin - umin;
            } else if (i0 >= 0) { /* tie: take the second column instead */
                j1 = j2;
                i0 = colsol[j2];
            }
            rowsol[i] = j1;
            colsol[j1] = i;
            if (i0 >= 0) {
                rowsol[i0] = -1;
                if (umin < usubmin) freerows[--k] = i0;
                else freerows[numfree++] = i0;
            }
        }
    }
    s->numfree = numfree;
}

/* Phase 4's search from freerow: Dijkstra over reduced costs until an
 * unassigned column is reached (returned); *mn the last minimum distance,
 * *last_out the last column of collist scanned before it. */
static int jv_shortest_path(jv_state *s, int freerow, double *mn_out, int *last_out)
{
    int n = s->n;
    const double *c = s->c;
    int *colsol = s->colsol;
    int *collist = s->collist, *pred = s->pred;
    double *d = s->d, *v = s->v;
    for (int j = 0; j < n; j++) {
        d[j] = C(freerow, j) - v[j];
        pred[j] = freerow;
        collist[j] = j;
    }
    int low = 0, up = 0, last = 0, endofpath = -1;
    double mn = 0;
    int found = 0;
    do {
        if (up == low) {
            /* next set of columns at the minimum distance */
            last = low - 1;
            mn = d[collist[up++]];
            for (int k = up; k < n; k++) {
                int j = collist[k];
                double h = d[j];
                if (h <= mn) {
                    if (h < mn) {
                        up = low;
                        mn = h;
                    }
                    collist[k] = collist[up];
                    collist[up++] = j;
                }
            }
            for (int k = low; k < up; k++)
                if (colsol[collist[k]] < 0) {
                    endofpath = collist[k];
                    found = 1;
                    break;
                }
        }
        if (!found) {
            /* scan a column at the minimum: relax through its row */
            int j1 = collist[low++];
            int i = colsol[j1];
            double h = C(i, j1) - v[j1] - mn;
            for (int k = up; k < n; k++) {
                int j = collist[k];
                double v2 = C(i, j) - v[j] - h;
                if (v2 < d[j]) {
                    pred[j] = i;
                    if (v2 == mn) {
                        if (colsol[j] < 0) {
                            endofpath = j;
                            found = 1;
                            break;
                        }
                        collist[k] = collist[up];
                        collist[up++] = j;
                    }
                    d[j] = v2;
                }
            }
        }
    } while (!found);
    *mn_out = mn;
    *last_out = last;
    return endofpath;
}

static void jv_augmentation(jv_state *s)
{
    int *rowsol = s->rowsol, *colsol = s->colsol;
    int *freerows = s->freerows, numfree = s->numfree, *collist = s->collist, *pred = s->pred;
    double *d = s->d, *v = s->v;
    /* 4. Augmentation: for each remaining free row, Dijkstra over reduced
     * costs until an unassigned column is reached; columns scanned get their
     * prices updated, then the path is flipped. */
    for (int f = 0; f < numfree; f++) {
        int freerow = freerows[f];
        double mn;
        int last;
        int endofpath = jv_shortest_path(s, freerow, &mn, &last);
        /* prices of the columns scanned before the last minimum */
        for (int k = 0; k <= last; k++) {
            int j1 = collist[k];
            v[j1] += d[j1] - mn;
        }
        /* flip the alternating path */
        for (;;) {
            int i = pred[endofpath];
            colsol[endofpath] = i;
            int j1 = endofpath;
            endofpath = rowsol[i];
            rowsol[i] = j1;
            if (i == freerow) break;
        }
    }
}
#undef C

/* Square minimisation on c (n x n, row-major). rowsol[i] = column of row i,
 * colsol[j] = row of column j. Returns COMPI_OK or COMPI_ERR_NOMEM. */
static int jv_square(int n, const double *c, unsigned flags, int *rowsol, int *colsol)
{
    if (n == 1) {
        rowsol[0] = 0;
        colsol[0] = 0;
        return COMPI_OK;
    }
    jv_state s = {.n = n, .c = c, .rowsol = rowsol, .colsol = colsol};
    s.freerows = malloc((size_t)n * sizeof *s.freerows);
    s.collist = malloc((size_t)n * sizeof *s.collist);
    s.matches = calloc((size_t)n, sizeof *s.matches);
    s.pred = malloc((size_t)n * sizeof *s.pred);
    s.d = malloc((size_t)n * sizeof *s.d);
    s.v = malloc((size_t)n * sizeof *s.v);
    int ok = s.freerows && s.collist && s.matches && s.pred && s.d && s.v;
    if (ok && (flags & COMPI_ASSIGN_NO_INIT)) {
        /* every row free, zero prices: augmentation alone solves it */
        for (int i = 0; i < n; i++) {
            rowsol[i] = colsol[i] = -1;
            s.v[i] = 0;
            s.freerows[s.numfree++] = i;
        }
    } else if (ok) {
        jv_column_reduction(&s);
        jv_reduction_transfer(&s);
        jv_augmenting_row_reduction(&s);
    }
    if (ok) jv_augmentation(&s);
    free(s.freerows);
    free(s.collist);
    free(s.matches);
    free(s.pred);
    free(s.d);
    free(s.v);
    return ok ? COMPI_OK : COMPI_ERR_NOMEM;
}

int compi_assign_solve_ex(size_t rows, size_t cols, const double *w, const unsigned char *allowed,
                          compi_assign_sense sense, unsigned flags, int *row_col, int *col_row, double *total)
{
    if (sense != COMPI_ASSIGN_MIN && sense != COMPI_ASSIGN_MAX) return COMPI_IO_ERR_ARG;
    if (rows > (size_t)INT32_MAX / 2 || cols > (size_t)INT32_MAX / 2) return COMPI_IO_ERR_ARG;
    if (rows && cols && (!w || rows > SIZE_MAX / sizeof(double) / cols)) return COMPI_IO_ERR_ARG;
    if (row_col)
        for (size_t r = 0; r < rows; r++) row_col[r] = -1;
    if (col_row)
        for (size_t c = 0; c < cols; c++) col_row[c] = -1;
    if (total) *total = 0;
    if (rows == 0 || cols == 0) return COMPI_OK;

    /* Big-M for forbidden pairs: more than any spread of allowed totals. */
    double sumabs = 0;
    for (size_t k = 0; k < rows * cols; k++) {
        if (!isfinite(w[k])) return COMPI_IO_ERR_ARG;
        sumabs += fabs(w[k]);
    }
    double bigm = 2 * sumabs + 1;

    int transposed = rows > cols;
    int nr = (int)(transposed ? cols : rows); /* the small side */
    int n = (int)(transposed ? rows : cols);  /* the square size */
    double *c = malloc((size_t)n * (size_t)n * sizeof *c);
    int *rowsol = malloc((size_t)n * sizeof *rowsol);
    int *colsol = malloc((size_t)n * sizeof *colsol);
    if (!c || !rowsol || !colsol) {
        free(c);
        free(rowsol);
        free(colsol);
        return COMPI_ERR_NOMEM;
    }
    double sign = sense == COMPI_ASSIGN_MAX ? -1.0 : 1.0;
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < n; j++) {
            size_t k = transposed ? (size_t)j * cols + (size_t)i : (size_t)i * cols + (size_t)j;
            c[(size_t)i * n + j] = (allowed && !allowed[k]) ? bigm : sign * w[k];
        }
    memset(c + (size_t)nr * n, 0, (size_t)(n - nr) * (size_t)n * sizeof *c);

    int rc = jv_square(n, c, flags, rowsol, colsol);
    if (rc == COMPI_OK) {
        double sum = 0;
        for (int i = 0; i < nr; i++) {
            int j = rowsol[i];
            size_t r = transposed ? (size_t)j : (size_t)i, cc = transposed ? (size_t)i : (size_t)j;
            if (allowed && !allowed[r * cols + cc]) {
                rc = COMPI_IO_ERR_INFEASIBLE;
                break;
            }
            sum += w[r * cols + cc];
            if (row_col) row_col[r] = (int)cc;
            if (col_row) col_row[cc] = (int)r;
        }
        if (rc == COMPI_OK && total) *total = sum;
        if (rc != COMPI_OK) {
            if (row_col)
                for (size_t r = 0; r < rows; r++) row_col[r] = -1;
            if (col_row)
                for (size_t cc = 0; cc < cols; cc++) col_row[cc] = -1;
        }
    }
    free(c);
    free(rowsol);
    free(colsol);
    return rc;
}

int compi_assign_solve_masked(size_t rows, size_t cols, const double *w, const unsigned char *allowed,
                              compi_assign_sense sense, int *row_col, int *col_row, double *total)
{
    return compi_assign_solve_ex(rows, cols, w, allowed, sense, 0, row_col, col_row, total);
}

int compi_assign_solve(size_t rows, size_t cols, const double *w, compi_assign_sense sense, int *row_col, int *col_row,
                       double *total)
{
    return compi_assign_solve_ex(rows, cols, w, NULL, sense, 0, row_col, col_row, total);
}
