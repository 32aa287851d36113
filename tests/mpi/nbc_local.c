/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_local: starting and testing a nonblocking collective never waits for
 * a peer's data.
 *
 * A correct MPI program that plain MPI runs to the end: rank 1 starts an
 * MPI_Ialltoall of large compressible blocks and then waits, outside MPI
 * (a file in a directory both ranks see), until rank 0 has started the
 * same Ialltoall and tested it TESTS times; only then does it call
 * MPI_Wait. Starting a nonblocking collective and MPI_Test are local (MPI
 * 5.12, 3.7.3), so rank 0's calls must return while rank 1 makes no MPI
 * call at all, as an application's compute between the call and its Wait.
 * A compi schedule whose message arrived as a pipelined header (its chunks
 * still to come, which the sender's MPI may move only from inside an MPI
 * call) and that took the chunks inside the progress call that found the
 * header would wait there for rank 1 until COMPI_ESCAPE_WAIT and fail the
 * call. Every block is checked against what MPI_Alltoall's definition
 * gives. Ranks on one machine (the directory is local). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpitest.h"

#define BLOCK (2 * 1024 * 1024) /* bytes per peer: a pipelined message's size */
#define TESTS 200               /* rank 0's MPI_Test calls before it lets rank 1 on */

static void block_of(char *b, int src, int dst)
{
    mt_fill_text(b, BLOCK, 10 * src + dst);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_local");
    mt_require_size(2);
    mt_sig_open();
    int n = mt_size;
    char *sbuf = mt_malloc((size_t)BLOCK * n), *rbuf = mt_malloc((size_t)BLOCK * n);
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    /* a first Ialltoall of the same size on c that every rank completes:
     * whatever compi sets up for c's collectives is there before rank 1
     * leaves MPI */
    MPI_Request w;
    MPI_CALL(MPI_Ialltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c, &w));
    MPI_CALL(MPI_Wait(&w, MPI_STATUS_IGNORE));

    for (int d = 0; d < n; d++) block_of(sbuf + (size_t)BLOCK * d, mt_rank, d);
    memset(rbuf, 0x55, (size_t)BLOCK * n);
    mt_group_begin("rank 0 starts and tests an Ialltoall while rank 1 makes no MPI call");
    MPI_Request r = MPI_REQUEST_NULL;
    if (mt_rank == 0) {
        mt_await("started"); /* rank 1's blocks are on their way */
        MPI_CALL(MPI_Ialltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c, &r));
        int done = 0;
        for (int t = 0; t < TESTS && !done; t++) {
            MPI_CALL(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
            usleep(1000);
        }
        mt_signal("tested");
        if (!done) MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_CALL(MPI_Ialltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c, &r));
        if (mt_rank == 1) {
            mt_signal("started");
            mt_await("tested");
        }
        MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    char *want = mt_malloc(BLOCK);
    for (int s = 0; s < n; s++) {
        block_of(want, s, mt_rank);
        CHECK_DATA("ialltoall block", rbuf + (size_t)BLOCK * s, want, BLOCK, 'b');
    }
    free(want);
    mt_group_end();

    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        mt_unsignal("started");
        mt_unsignal("tested");
        rmdir(mt_sig_dir);
    }
    MPI_CALL(MPI_Comm_free(&c));
    free(sbuf);
    free(rbuf);
    return mt_finish();
}
