/* SPDX-License-Identifier: BSD-3-Clause */
/* Adaptive windows per family: point-to-point messages and each collective's
 * frames to the same node are judged by windows of their own (decide.c).
 * The program is a correct MPI program (checks its results); the companion
 * check_windows.py reads compi's report of the run and checks that every
 * rank's windows count exactly the decisions of each family:
 *   p2p       MT_FAM_P2P sendrecv messages to the next rank (another node)
 *   alltoall  one frame per other node per call on compi's path
 *   allreduce per call on compi's path: a chunk to every other node's
 *             leader, then one frame of its own chunk for all of them
 * Every rank its own node (COMPI_DEBUG_RANKS_PER_NODE=1). */
#include "mpitest.h"

#define MT_FAM_P2P 12
#define MT_FAM_ALLTOALL 6
#define MT_FAM_ALLREDUCE 4
#define MSG (64 * 1024)
#define BLOCK (32 * 1024)
#define NINT (64 * 1024)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "adapt_families");
    int n = mt_size, me = mt_rank;
    int next = (me + 1) % n, prev = (me + n - 1) % n;

    mt_group_begin("p2p");
    char *sb = malloc(MSG), *rb = malloc(MSG), *want = malloc(MSG);
    for (int i = 0; i < MT_FAM_P2P; i++) {
        mt_fill_text(sb, MSG, me + i);
        mt_fill_text(want, MSG, prev + i);
        MPI_Sendrecv(sb, MSG, MPI_CHAR, next, i, rb, MSG, MPI_CHAR, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(memcmp(rb, want, MSG) == 0, "sendrecv", "message %d from %d differs", i, prev);
    }
    mt_group_end();

    mt_group_begin("alltoall");
    char *as = malloc((size_t)BLOCK * n), *ar = malloc((size_t)BLOCK * n), *aw = malloc(BLOCK);
    for (int i = 0; i < MT_FAM_ALLTOALL; i++) {
        for (int j = 0; j < n; j++) mt_fill_text(as + (size_t)j * BLOCK, BLOCK, 100 * me + j + i);
        MPI_Alltoall(as, BLOCK, MPI_CHAR, ar, BLOCK, MPI_CHAR, MPI_COMM_WORLD);
        for (int j = 0; j < n; j++) {
            mt_fill_text(aw, BLOCK, 100 * j + me + i);
            CHECK(memcmp(ar + (size_t)j * BLOCK, aw, BLOCK) == 0, "alltoall", "call %d: block from %d differs", i, j);
        }
    }
    mt_group_end();

    mt_group_begin("allreduce");
    int *is = malloc(sizeof(int) * NINT), *ir = malloc(sizeof(int) * NINT);
    for (int i = 0; i < MT_FAM_ALLREDUCE; i++) {
        for (int k = 0; k < NINT; k++) is[k] = (k % 97) * (me + 1) + i;
        MPI_Allreduce(is, ir, NINT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int bad = -1;
        for (int k = 0; k < NINT && bad < 0; k++)
            if (ir[k] != (k % 97) * (n * (n + 1) / 2) + n * i) bad = k;
        CHECK(bad < 0, "allreduce", "call %d: element %d is %d", i, bad, bad < 0 ? 0 : ir[bad]);
    }
    mt_group_end();

    free(sb); free(rb); free(want); free(as); free(ar); free(aw); free(is); free(ir);
    return mt_finish();
}
