/* SPDX-License-Identifier: BSD-3-Clause */
/* netlearn: compi learning the links from the application's traffic.
 *
 * A correct MPI program, checked against what was sent:
 *   p2p       each rank sends LEARN_MSGS compressible messages of 1 MiB to
 *             the next rank and receives as many from the previous one
 *             (under compi with COMPI_CHUNK=64K they go pipelined; their
 *             text codes so well that a chunk is a few hundred bytes on the
 *             wire, too few to time the link: engine/linkest.h,
 *             compi_linkest_add_chunks)
 *   smooth    LEARN_MSGS messages of 1 MiB of doubles, every other one
 *             random: they compress 1.4-1.9x with any codec, lz4 included,
 *             so compressing pays clearly even on the 1 Gbit/s-like prior
 *             (however slow a loaded host makes the codec look; noisy
 *             smooth doubles that only slow predictors compress left the
 *             choice to the timing, and a rank whose sender went raw had
 *             no sample), and their chunks are large on the wire (over
 *             30 KiB), and each pipelined receive is a rate
 *             sample of the link; an injected token bucket of a few
 *             chunks' bytes shows whether the rate samples leave out the
 *             bytes it passed
 *   alltoall  COLL_CALLS Alltoalls of compressible 32 KiB blocks on a
 *             communicator of their own
 * check_netlearn.py runs it with the link timings injected
 * (COMPI_DEBUG_LINK_TIMES) and checks the report: every rank learned the
 * injected link, and the Alltoalls past the first agreement point reached
 * compi's path (the learned 100 Mbit/s link lowers the collective floor
 * below 32 KiB; the built-in 1 Gbit/s-like prior keeps it at 128 KiB). */
#include "mpitest.h"

#define LEARN_MSGS 6
#define MSG (1024 * 1024)
#define COLL_CALLS 20
#define BLOCK (32 * 1024)

/* Doubles of which every other one is random bits and the others repeat
 * one value of the message's: no codec gets below half (the random half),
 * lz4 gets about 1.45x (an 8-byte match after each 8 random bytes), so
 * chunks stay large on the wire */
static void fill_smooth(double *b, size_t n, int seed)
{
    uint64_t c = mt_mix((uint64_t)seed * 7919u + 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = i % 2 ? c : mt_mix((uint64_t)seed * 1000003u + i);
        memcpy(&b[i], &u, sizeof u);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "netlearn");
    mt_require_size(2);
    int n = mt_size, next = (mt_rank + 1) % n, prev = (mt_rank + n - 1) % n;

    mt_group_begin("p2p");
    char *out = malloc(MSG), *in = malloc(MSG), *want = malloc(MSG);
    for (int i = 0; i < LEARN_MSGS; i++) {
        mt_fill_text(out, MSG, mt_rank * 100 + i);
        mt_fill_text(want, MSG, prev * 100 + i);
        memset(in, 0x55, MSG);
        MPI_Request r;
        MPI_CALL(MPI_Irecv(in, MSG, MPI_CHAR, prev, i, MPI_COMM_WORLD, &r));
        MPI_CALL(MPI_Send(out, MSG, MPI_CHAR, next, i, MPI_COMM_WORLD));
        MPI_Status st;
        MPI_CALL(MPI_Wait(&r, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_CHAR, &cnt);
        CHECK(cnt == MSG && st.MPI_SOURCE == prev && st.MPI_TAG == i, "status", "count %d source %d tag %d", cnt,
              st.MPI_SOURCE, st.MPI_TAG);
        CHECK(memcmp(in, want, MSG) == 0, "data", "message %d from rank %d differs", i, prev);
    }
    mt_group_end();

    mt_group_begin("smooth");
    double *dout = (double *)out, *din = (double *)in, *dwant = (double *)want;
    int nd = MSG / (int)sizeof(double);
    for (int i = 0; i < LEARN_MSGS; i++) {
        fill_smooth(dout, (size_t)nd, mt_rank * 100 + i);
        fill_smooth(dwant, (size_t)nd, prev * 100 + i);
        memset(din, 0x55, MSG);
        MPI_CALL(MPI_Sendrecv(dout, nd, MPI_DOUBLE, next, 100 + i, din, nd, MPI_DOUBLE, prev, 100 + i, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
        CHECK(memcmp(din, dwant, MSG) == 0, "data", "smooth message %d from rank %d differs", i, prev);
    }
    mt_group_end();
    mt_group_begin("alltoall");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    char *s = malloc((size_t)BLOCK * n), *g = malloc((size_t)BLOCK * n), *w = malloc((size_t)BLOCK * n);
    for (int i = 0; i < COLL_CALLS; i++) {
        mt_fill_text(s, (size_t)BLOCK * n, mt_rank + 7 * i);
        memset(g, 0x55, (size_t)BLOCK * n);
        MPI_CALL(MPI_Alltoall(s, BLOCK, MPI_CHAR, g, BLOCK, MPI_CHAR, c));
        PMPI_Alltoall(s, BLOCK, MPI_CHAR, w, BLOCK, MPI_CHAR, c);
        CHECK(memcmp(g, w, (size_t)BLOCK * n) == 0, "alltoall", "call %d differs from PMPI_Alltoall", i);
    }
    MPI_Comm_free(&c);
    mt_group_end();

    free(out); free(in); free(want); free(s); free(g); free(w);
    return mt_finish();
}
