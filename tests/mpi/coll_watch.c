/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw zone's watch on collective blocks (lib/engine/window.h): Alltoall
 * and Bcast send random blocks, which the adaptive windows decide raw, then
 * zeros of the same sizes. The collective gates hold compi's path
 * (COMPI_DEBUG_COLL_TIMES makes it the faster one), so the zeros reach a
 * window that chose raw between two gate trials; the watch must notice the
 * new data at once. The program checks its results; the companion
 * check_watch.py reads compi's report and checks each rank's Alltoall
 * window (and the Bcast root's) counted a data re-check. Every rank its
 * own node (COMPI_DEBUG_RANKS_PER_NODE=1). */
#include "mpitest.h"

#define BLOCK (64 * 1024)
#define RANDOM_CALLS 6 /* the gate's trials: compi 2, MPI 2, then compi's path held */
#define CALLS 10

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_watch");
    int n = mt_size, me = mt_rank;
    unsigned char *as = malloc((size_t)BLOCK * n), *ar = malloc((size_t)BLOCK * n), *aw = malloc(BLOCK);
    unsigned char *bb = malloc(BLOCK), *bw = malloc(BLOCK);

    mt_group_begin("alltoall");
    for (int i = 0; i < CALLS; i++) {
        int pat = i < RANDOM_CALLS ? PAT_RANDOM : PAT_ZERO;
        for (int j = 0; j < n; j++) mt_fill(as + (size_t)j * BLOCK, BLOCK, 'b', pat, (uint64_t)(100 * me + j + i));
        MPI_Alltoall(as, BLOCK, MPI_BYTE, ar, BLOCK, MPI_BYTE, MPI_COMM_WORLD);
        for (int j = 0; j < n; j++) {
            mt_fill(aw, BLOCK, 'b', pat, (uint64_t)(100 * j + me + i));
            CHECK(memcmp(ar + (size_t)j * BLOCK, aw, BLOCK) == 0, "alltoall", "call %d: block from %d differs", i, j);
        }
    }
    mt_group_end();

    mt_group_begin("bcast");
    for (int i = 0; i < CALLS; i++) {
        int pat = i < RANDOM_CALLS ? PAT_RANDOM : PAT_ZERO;
        mt_fill(bw, BLOCK, 'b', pat, (uint64_t)(7 + i));
        if (me == 0) memcpy(bb, bw, BLOCK);
        else memset(bb, MT_SENTINEL, BLOCK);
        MPI_Bcast(bb, BLOCK, MPI_BYTE, 0, MPI_COMM_WORLD);
        CHECK(memcmp(bb, bw, BLOCK) == 0, "bcast", "call %d: data differ", i);
    }
    mt_group_end();

    free(as);
    free(ar);
    free(aw);
    free(bb);
    free(bw);
    return mt_finish();
}
