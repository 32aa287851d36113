/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's own communicators for a communicator's collectives (lib/coll,
 * layout.c) that one rank cannot make: every rank's collectives on that
 * communicator run as the MPI's own, with the oracle's results, instead of
 * failing on one rank and waiting on the others.
 *
 * COMPI_DEBUG_LAYOUT_FAIL=1 makes rank 1 of every communicator fail to
 * make them (as on a lack of memory, or an MPI out of communicator
 * contexts); every rank its own node (COMPI_DEBUG_RANKS_PER_NODE=1),
 * COMPI_MIN_BYTES=0, so each call below would take compi's path.
 * Alltoall, Allgather, Allreduce, Bcast, Gather and Scatter of 256 KiB of
 * compressible ints per block on a dup of MPI_COMM_WORLD, twice (the
 * second call finds the layout already marked). With COMPI_VERBOSE=1 and
 * COMPI_TEST_EXPECT_FALLBACK=1, rank 0's stderr of the first call must say
 * so, naming another rank. */
#include "mpitest.h"

enum { C_ALLTOALL, C_ALLGATHER, C_ALLREDUCE, C_BCAST, C_GATHER, C_SCATTER, C_COUNT };
static const char *c_name[C_COUNT] = {"Alltoall", "Allgather", "Allreduce", "Bcast", "Gather", "Scatter"};

static int val(int r, int b, int i)
{
    return r * 1000003 + b * 7919 + i / 7;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_layout_fail");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int p = mt_size, me = mt_rank;
    const char *ef = getenv("COMPI_TEST_EXPECT_FALLBACK");
    int expect = mt_libcompi_mapped() && ef && *ef == '1';
    const int blk = 1 << 16; /* ints: 256 KiB */
    size_t all = (size_t)blk * (size_t)p;
    int *sb = mt_malloc(sizeof(int) * all), *rb = mt_malloc(sizeof(int) * all), *want = mt_malloc(sizeof(int) * all);
    for (int round = 0; round < 2; round++) {
        mt_group_begin("collectives on a communicator compi could not set up, round %d", round);
        for (int c = 0; c < C_COUNT; c++) {
            for (int b = 0; b < p; b++)
                for (int i = 0; i < blk; i++) sb[(size_t)b * blk + i] = val(me, b, i);
            memset(rb, 0, sizeof(int) * all);
            char path[128], text[8192] = "";
            int saved = round == 0 && c == 0 ? mt_capture_begin(path, sizeof path) : -1;
            int rc, root = 2 % p;
            size_t n = all;
            switch (c) {
            case C_ALLTOALL:
                rc = MPI_Alltoall(sb, blk, MPI_INT, rb, blk, MPI_INT, comm);
                for (int r = 0; r < p; r++)
                    for (int i = 0; i < blk; i++) want[(size_t)r * blk + i] = val(r, me, i);
                break;
            case C_ALLGATHER:
                rc = MPI_Allgather(sb, blk, MPI_INT, rb, blk, MPI_INT, comm);
                for (int r = 0; r < p; r++)
                    for (int i = 0; i < blk; i++) want[(size_t)r * blk + i] = val(r, 0, i);
                break;
            case C_ALLREDUCE:
                rc = MPI_Allreduce(sb, rb, (int)all, MPI_INT, MPI_BXOR, comm);
                memset(want, 0, sizeof(int) * all);
                for (int r = 0; r < p; r++)
                    for (size_t i = 0; i < all; i++) want[i] ^= val(r, (int)(i / blk), (int)(i % blk));
                break;
            case C_BCAST:
                if (me != root) memset(sb, 0, sizeof(int) * all);
                rc = MPI_Bcast(sb, (int)all, MPI_INT, root, comm);
                memcpy(rb, sb, sizeof(int) * all);
                for (size_t i = 0; i < all; i++) want[i] = val(root, (int)(i / blk), (int)(i % blk));
                break;
            case C_GATHER:
                rc = MPI_Gather(sb, blk, MPI_INT, rb, blk, MPI_INT, root, comm);
                for (int r = 0; r < p; r++)
                    for (int i = 0; i < blk; i++) want[(size_t)r * blk + i] = val(r, 0, i);
                if (me != root) n = 0;
                break;
            default:
                rc = MPI_Scatter(sb, blk, MPI_INT, rb, blk, MPI_INT, root, comm);
                for (int i = 0; i < blk; i++) want[i] = val(root, me, i);
                n = (size_t)blk;
            }
            if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
            CHECK(rc == MPI_SUCCESS, "collective", "%s: %s", c_name[c], mt_errstr(rc));
            CHECK(memcmp(rb, want, n * sizeof(int)) == 0, "result", "%s: result differs from the oracle", c_name[c]);
            if (expect && saved >= 0 && me == 0) /* COMPI_VERBOSE=1 speaks on rank 0 */
                CHECK(strstr(text, "could not make compi's communicators") != NULL &&
                          strstr(text, "on another rank") != NULL,
                      "fallback logged", "%s: stderr was \"%s\"", c_name[c], text);
        }
        mt_group_end();
    }
    MPI_Comm_free(&comm);
    free(sb);
    free(rb);
    free(want);
    return mt_finish();
}
