/* Shared by dkb_probe (MPI) and dkb_check (MPI-free): the per-rank block
 * counts the probe's Reduce_scatter uses, irregular on purpose (every
 * fourth block empty, the others of different lengths). */
#ifndef COMPI_TESTS_MAP_PROBE_COUNTS_H
#define COMPI_TESTS_MAP_PROBE_COUNTS_H
#include <stdint.h>
static inline int64_t probe_rs_count(int rank, int64_t count)
{
    return rank % 4 == 3 ? 0 : count + rank;
}
#endif
