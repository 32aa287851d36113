/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_post_order: a schedule posts its sends before its receives.
 *
 * Between two ranks the MPI carries both directions' rendezvous messages
 * (announce, answer, data) on one connection in order. A rank that posts
 * its receive before its own send answers the peer's announcement at once;
 * the peer's data then travels ahead of the answer this rank's own
 * announcement needs, and the two blocks cross the link one after the other
 * instead of at once (lib/coll/sched.c). So every round of a schedule posts
 * its sends first.
 *
 * This program interposes PMPI_Isend and PMPI_Irecv under compi (it
 * exports its own, which calls the MPI's through RTLD_NEXT) and records
 * the order in which compi posts the large messages of an
 * MPI_Ineighbor_alltoall, a blocking MPI_Neighbor_alltoall (ring) and an
 * MPI_Ialltoall: no send may follow a receive of the same call. Every rank
 * its own node (COMPI_DEBUG_RANKS_PER_NODE=1) and fixed mode, so every
 * block is a compi message on compi's schedule; the results are checked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "mpitest.h"

#define BLOCK (256 * 1024) /* bytes per neighbour: past the eager limits */
#define BIG 4096           /* messages of this size or more are recorded */
#define MAXREC 64

static int rec_on, nrec;
static char rec[MAXREC]; /* 'S' / 'R' in the order posted */

static void record(char what, int count, MPI_Datatype dt)
{
    int size = 0;
    if (!rec_on) return;
    PMPI_Type_size(dt, &size);
    if ((long)count * size >= BIG && nrec < MAXREC) rec[nrec++] = what;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    static int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real)
        real =
            (int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Isend");
    record('S', count, dt);
    return real(buf, count, dt, dest, tag, comm, req);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    static int (*real)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real)
        real = (int (*)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Irecv");
    record('R', count, dt);
    return real(buf, count, dt, source, tag, comm, req);
}

static void block_of(char *b, int src, int dst)
{
    mt_fill(b, BLOCK, 'b', PAT_RANDOM, (uint64_t)(10 * src + dst)); /* incompressible: every message stays large */
}

/* The recorded posts of one call: some sends and receives, no send after
 * a receive. */
static void check_order(const char *what, int sends, int recvs)
{
    int s = 0, r = 0, late = 0;
    for (int i = 0; i < nrec; i++) {
        if (rec[i] == 'S') s++, late += r > 0;
        else r++;
    }
    rec[nrec < MAXREC ? nrec : MAXREC - 1] = 0;
    CHECK(s == sends && r == recvs, what, "%d sends and %d receives posted (want %d and %d): %s", s, r, sends, recvs,
          rec);
    CHECK(late == 0, what, "%d send(s) posted after a receive: %s", late, rec);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_post_order");
    mt_require_size(2);
    int n = mt_size, dims[1] = {n}, periods[1] = {1};
    MPI_Comm ring, c;
    MPI_CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    char *sbuf = mt_malloc((size_t)BLOCK * n), *rbuf = mt_malloc((size_t)BLOCK * n), *want = mt_malloc(BLOCK);
    int lo = (mt_rank + n - 1) % n, hi = (mt_rank + 1) % n;
    MPI_Request r;

    /* first calls on each communicator: compi's dup of it is made there,
     * and the schedules held until it exists post from the Wait */
    memset(sbuf, 0, (size_t)BLOCK * n);
    MPI_CALL(MPI_Ineighbor_alltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, ring, &r));
    MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_CALL(MPI_Ialltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c, &r));
    MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));

    for (int form = 0; form < 3; form++) {
        const char *name = form == 0 ? "MPI_Ineighbor_alltoall" : form == 1 ? "MPI_Neighbor_alltoall" : "MPI_Ialltoall";
        mt_group_begin("%s on %d ranks: sends posted before receives", name, n);
        /* slot 0 goes to the -1 neighbour, slot 1 to the +1 one */
        if (form < 2) block_of(sbuf, mt_rank, 2 * mt_rank), block_of(sbuf + BLOCK, mt_rank, 2 * mt_rank + 1);
        else
            for (int d = 0; d < n; d++) block_of(sbuf + (size_t)BLOCK * d, mt_rank, d);
        memset(rbuf, 0x55, (size_t)BLOCK * n);
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        nrec = 0, rec_on = 1;
        if (form == 0) MPI_CALL(MPI_Ineighbor_alltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, ring, &r));
        else if (form == 1) MPI_CALL(MPI_Neighbor_alltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, ring));
        else MPI_CALL(MPI_Ialltoall(sbuf, BLOCK, MPI_BYTE, rbuf, BLOCK, MPI_BYTE, c, &r));
        rec_on = 0;
        if (form != 1) MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        /* a ring of 2: one rank is both neighbours, two blocks each way */
        check_order(name, form < 2 ? 2 : n, form < 2 ? 2 : n); /* Ialltoall: its own block too */
        if (form < 2) {
            block_of(want, lo, 2 * lo + 1); /* what the -1 neighbour sent its +1 one */
            CHECK_DATA("block from the -1 neighbour", rbuf, want, BLOCK, 'b');
            block_of(want, hi, 2 * hi);
            CHECK_DATA("block from the +1 neighbour", rbuf + BLOCK, want, BLOCK, 'b');
        } else {
            for (int s = 0; s < n; s++) {
                block_of(want, s, mt_rank);
                CHECK_DATA("ialltoall block", rbuf + (size_t)BLOCK * s, want, BLOCK, 'b');
            }
        }
        mt_group_end();
    }
    MPI_CALL(MPI_Comm_free(&ring));
    MPI_CALL(MPI_Comm_free(&c));
    free(sbuf);
    free(rbuf);
    free(want);
    return mt_finish();
}
