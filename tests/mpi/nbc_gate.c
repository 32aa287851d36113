/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_gate: the nonblocking collectives' gate (lib/coll/nbc_gate.c) in a
 * real run.
 *
 * A correct MPI program: each group runs GATE_CALLS calls of one
 * collective on a communicator of its own (so each has its own gate) and
 * checks every result against the MPI's own blocking call on the same input:
 *   ialltoall_random     Ialltoall of random blocks, posted GROUP at a time
 *                        before one Waitall (a vote completes while calls
 *                        of its family are still outstanding)
 *   iallgather_text      Iallgather of repetitive text (compresses ~100x)
 *   ineighbor_random     Ineighbor_alltoall of random blocks on a periodic ring
 *   neighbor_text        blocking Neighbor_alltoall of text on the same ring
 *   iallreduce_text      Iallreduce of text (MPI_MAX): with several ranks on
 *                        a node the node-aware schedule, whose inter-node
 *                        messages go in later rounds, posted from progress
 * The companion check_gate.py reads the report's nonblocking counters:
 * which calls ran compi's schedule and which the gate passed to the MPI
 * follow from the data alone (trials.h's schedule, worked out in
 * CMakeLists.txt), nothing is timed. */
#include "mpitest.h"

#define GATE_CALLS 20
#define GROUP 4
#define BLOCK (128 * 1024)

static void ialltoall_random(void)
{
    mt_group_begin("ialltoall_random");
    int n = mt_size;
    size_t all = (size_t)BLOCK * n;
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    char *s = malloc(all * GROUP), *g = malloc(all * GROUP), *w = malloc(all);
    for (int i = 0; i < GATE_CALLS; i += GROUP) {
        MPI_Request r[GROUP];
        for (int j = 0; j < GROUP; j++) {
            mt_fill(s + all * j, all, 'b', PAT_RANDOM, (uint64_t)(7000 * (i + j) + mt_rank));
            memset(g + all * j, 0x55, all);
            MPI_CALL(MPI_Ialltoall(s + all * j, BLOCK, MPI_BYTE, g + all * j, BLOCK, MPI_BYTE, c, &r[j]));
        }
        MPI_CALL(MPI_Waitall(GROUP, r, MPI_STATUSES_IGNORE));
        for (int j = 0; j < GROUP; j++) {
            PMPI_Alltoall(s + all * j, BLOCK, MPI_BYTE, w, BLOCK, MPI_BYTE, c);
            CHECK(memcmp(g + all * j, w, all) == 0, "ialltoall", "call %d differs from PMPI_Alltoall", i + j);
        }
    }
    free(s), free(g), free(w);
    MPI_Comm_free(&c);
    mt_group_end();
}

static void iallgather_text(void)
{
    mt_group_begin("iallgather_text");
    int n = mt_size;
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    char *s = malloc(BLOCK), *g = malloc((size_t)BLOCK * n), *w = malloc((size_t)BLOCK * n);
    for (int i = 0; i < GATE_CALLS; i++) {
        mt_fill_text(s, BLOCK, mt_rank + i);
        memset(g, 0x55, (size_t)BLOCK * n);
        MPI_Request r;
        MPI_CALL(MPI_Iallgather(s, BLOCK, MPI_CHAR, g, BLOCK, MPI_CHAR, c, &r));
        MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        PMPI_Allgather(s, BLOCK, MPI_CHAR, w, BLOCK, MPI_CHAR, c);
        CHECK(memcmp(g, w, (size_t)BLOCK * n) == 0, "iallgather", "call %d differs from PMPI_Allgather", i);
    }
    free(s), free(g), free(w);
    MPI_Comm_free(&c);
    mt_group_end();
}

/* On a periodic ring: each rank's two blocks, to its -1 and +1 neighbour. */
static void neighbor_group(const char *name, int text, int nonblocking)
{
    mt_group_begin("%s", name);
    int dims[1] = {mt_size}, periods[1] = {1};
    MPI_Comm ring;
    MPI_CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    char *s = malloc(2 * BLOCK), *g = malloc(2 * BLOCK), *w = malloc(2 * BLOCK);
    for (int i = 0; i < GATE_CALLS; i++) {
        if (text) mt_fill_text(s, 2 * BLOCK, mt_rank + i);
        else mt_fill(s, 2 * BLOCK, 'b', PAT_RANDOM, (uint64_t)(5000 * i + mt_rank));
        memset(g, 0x55, 2 * BLOCK);
        if (nonblocking) {
            MPI_Request r;
            MPI_CALL(MPI_Ineighbor_alltoall(s, BLOCK, MPI_BYTE, g, BLOCK, MPI_BYTE, ring, &r));
            MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            MPI_CALL(MPI_Neighbor_alltoall(s, BLOCK, MPI_BYTE, g, BLOCK, MPI_BYTE, ring));
        }
        PMPI_Neighbor_alltoall(s, BLOCK, MPI_BYTE, w, BLOCK, MPI_BYTE, ring);
        CHECK(memcmp(g, w, 2 * BLOCK) == 0, "neighbor_alltoall", "call %d differs from PMPI_Neighbor_alltoall", i);
    }
    free(s), free(g), free(w);
    MPI_Comm_free(&ring);
    mt_group_end();
}

static void iallreduce_text(void)
{
    mt_group_begin("iallreduce_text");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    signed char *in = malloc(2 * BLOCK), *got = malloc(2 * BLOCK), *want = malloc(2 * BLOCK);
    for (int i = 0; i < GATE_CALLS; i++) {
        mt_fill_text((char *)in, 2 * BLOCK, mt_rank + i);
        memset(got, 0x55, 2 * BLOCK);
        MPI_Request r;
        MPI_CALL(MPI_Iallreduce(in, got, 2 * BLOCK, MPI_SIGNED_CHAR, MPI_MAX, c, &r));
        MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        PMPI_Allreduce(in, want, 2 * BLOCK, MPI_SIGNED_CHAR, MPI_MAX, c);
        CHECK(memcmp(got, want, 2 * BLOCK) == 0, "iallreduce", "call %d differs from PMPI_Allreduce", i);
    }
    free(in), free(got), free(want);
    MPI_Comm_free(&c);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_gate");
    ialltoall_random();
    iallgather_text();
    neighbor_group("ineighbor_random", 0, 1);
    neighbor_group("neighbor_text", 1, 0);
    iallreduce_text();
    return mt_finish();
}
