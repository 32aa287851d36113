/* compi collective I/O: the foundations of LA-Two-Phase (issue 12).
 *
 * Two-phase collective I/O cuts the accessed file range into equal file
 * domains, one per aggregator; each aggregator gathers the bytes of its
 * domain from the processes that hold them (redistribution) and writes one
 * contiguous range. ROMIO and OMPIO hand domain i to aggregator i of a fixed
 * list whatever data each process holds; LA-Two-Phase instead assigns each
 * domain to the process holding most of it, by solving a linear assignment
 * problem on the processes x domains matrix (thesis, ch. 3).
 *
 * This room so far offers the pieces, not yet wired into MPI_File_*:
 *   assign.c   a Jonker-Volgenant linear assignment solver (MPI-free)
 *   flatten.c  the (file offset, length) segments an access touches, from a
 *              file view and a memory datatype (needs MPI: envelope/contents)
 *   domains.c  file domains, the processes x domains matrices, the `default`
 *              and `la` aggregator placements, the redistribution volume each
 *              implies (MPI-free)
 * Errors are negative values: compi_status codes plus the COMPI_IO_ERR_* below. */
#ifndef COMPI_IO_H
#define COMPI_IO_H

#include <stddef.h>
#include <stdint.h>
#include "compi.h"

#define COMPI_IO_ERR_ARG (-20)         /* bad size, NULL pointer, NaN or infinite weight */
#define COMPI_IO_ERR_INFEASIBLE (-21)  /* no assignment covers every domain (too few candidates) */
#define COMPI_IO_ERR_UNSUPPORTED (-22) /* datatype or view compi does not flatten */
#define COMPI_IO_ERR_MPI (-23)         /* an MPI call failed */

/* Text of a compi_status or COMPI_IO_ERR_* code. */
const char *compi_io_error_string(int rc);

/* ---------------------------------------------------------------- assign.c
 * Rectangular linear assignment: rows x cols weights w (row-major). Every
 * row of the smaller side is assigned to a distinct element of the larger
 * side so that the sum of the chosen weights is minimal (COMPI_ASSIGN_MIN) or
 * maximal (COMPI_ASSIGN_MAX). Weights are doubles: byte counts are exact up
 * to 2^53; |w| must stay below 2^53 / (rows + cols) for exact totals.
 * Jonker-Volgenant (1987): column reduction, two rounds of augmenting row
 * reduction, then shortest augmenting paths (Dijkstra on reduced costs) for
 * the rows still free; rectangular problems are transposed so rows <= cols
 * and padded with zero-weight rows to a square.
 * Out: row_col[rows] (column of each row, -1 if unassigned: only when
 * rows > cols), col_row[cols] (row of each column, -1 if unassigned), *total
 * (sum of the chosen weights). Any out pointer may be NULL. rows or cols 0 is
 * a valid empty problem. Errors: COMPI_IO_ERR_ARG, COMPI_ERR_NOMEM. */
typedef enum { COMPI_ASSIGN_MIN = 0, COMPI_ASSIGN_MAX = 1 } compi_assign_sense;
int compi_assign_solve(size_t rows, size_t cols, const double *w, compi_assign_sense sense,
                       int *row_col, int *col_row, double *total);

/* The same with forbidden pairs: allowed[r*cols+c] == 0 excludes (r, c).
 * allowed NULL allows every pair. COMPI_IO_ERR_INFEASIBLE when no assignment
 * of every row of the smaller side uses allowed pairs only. */
int compi_assign_solve_masked(size_t rows, size_t cols, const double *w,
                              const unsigned char *allowed, compi_assign_sense sense,
                              int *row_col, int *col_row, double *total);

/* The same with flags: COMPI_ASSIGN_NO_INIT skips column reduction and
 * augmenting row reduction (every row starts free at zero prices), so the
 * shortest augmenting paths do all the work: for tests and comparisons. */
#define COMPI_ASSIGN_NO_INIT 1u
int compi_assign_solve_ex(size_t rows, size_t cols, const double *w, const unsigned char *allowed,
                          compi_assign_sense sense, unsigned flags, int *row_col, int *col_row, double *total);

#endif
