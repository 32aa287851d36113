/* SPDX-License-Identifier: BSD-3-Clause */
/* The one "fits in an int" test: MPI counts, displacements, tags and int
 * lengths hold at most INT_MAX. For every room (core's sizes beyond an int
 * are in core/bigcount.h, which includes this). */
#ifndef COMPI_COMMON_INTRANGE_H
#define COMPI_COMMON_INTRANGE_H
#include <limits.h>
#include <stdint.h>

/* n (a size or count; a negative one converted to uint64_t is huge, so it
 * does not fit) is at most INT_MAX. */
static inline int compi_fits_int(uint64_t n)
{
    return n <= (uint64_t)INT_MAX;
}

/* n, or INT_MAX when it does not fit: for counters and hints where the
 * largest int is the right answer. */
static inline int compi_int_clamp(uint64_t n)
{
    return compi_fits_int(n) ? (int)n : INT_MAX;
}
#endif
