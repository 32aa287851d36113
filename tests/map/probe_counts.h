/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by dkb_probe (MPI) and dkb_check (MPI-free): the per-rank block
 * counts the probe's Reduce_scatter, Allgatherv, Gatherv and Scatterv use,
 * and the per-pair counts of its Alltoallv, irregular on purpose (some
 * blocks empty, the others of different lengths). */
#ifndef COMPI_TESTS_MAP_PROBE_COUNTS_H
#define COMPI_TESTS_MAP_PROBE_COUNTS_H
#include <stdint.h>
static inline int64_t probe_rs_count(int rank, int64_t count)
{
    return rank % 4 == 3 ? 0 : count + rank;
}
static inline int64_t probe_a2av_count(int src, int dst, int64_t count)
{
    return (src + 2 * dst) % 5 == 0 ? 0 : count + src + 3 * dst;
}
#endif
