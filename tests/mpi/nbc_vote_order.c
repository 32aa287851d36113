/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_vote_order: starting nonblocking collectives never waits for a peer.
 *
 * A correct MPI program that plain MPI runs to the end: after one
 * warm-up call of each family on a communicator (every rank completes it),
 * rank 0 starts AHEAD more Ialltoalls and Iallreduces and only then sends
 * rank 1 the token that rank 1 waits for in a blocking MPI_Recv before it
 * starts its own. Starting a nonblocking collective is local (MPI 5.12), so
 * rank 0's calls must return although rank 1 has not started any of them.
 * In adaptive mode compi's gates (lib/coll/nbc_gate.c) end a trial inside
 * these calls and agree on its vote among the ranks: a gate that waited
 * for the vote in a later call of the family would wait here for ever
 * (the ctest timeout). Every result is checked against what the MPI's
 * blocking definition gives. */
#include "mpitest.h"

#define AHEAD 4           /* calls per family after the warm-up; within compi's vote lag */
#define BLOCK (64 * 1024) /* bytes per peer of an Ialltoall: the gate's path */
#define VEC (128 * 1024)  /* ints of an Iallreduce */
#define CALLS (AHEAD + 1)

static char *sbuf[CALLS], *rbuf[CALLS];
static int *vin[CALLS], *vout[CALLS];

/* The block rank src sends rank dst in call k. */
static void block_of(char *b, int k, int src, int dst)
{
    mt_fill_text(b, BLOCK, 1000 * k + 10 * src + dst);
}

static void start_call(int k, MPI_Comm c, MPI_Request *r)
{
    int n = mt_size;
    for (int d = 0; d < n; d++) block_of(sbuf[k] + (size_t)BLOCK * d, k, mt_rank, d);
    memset(rbuf[k], 0x55, (size_t)BLOCK * n);
    for (int i = 0; i < VEC; i++) vin[k][i] = (i * 7 + k) % 1000 + mt_rank;
    MPI_CALL(MPI_Ialltoall(sbuf[k], BLOCK, MPI_BYTE, rbuf[k], BLOCK, MPI_BYTE, c, &r[0]));
    MPI_CALL(MPI_Iallreduce(vin[k], vout[k], VEC, MPI_INT, MPI_MAX, c, &r[1]));
}

static void check_call(int k)
{
    int n = mt_size;
    char *want = malloc(BLOCK);
    for (int s = 0; s < n; s++) {
        block_of(want, k, s, mt_rank);
        CHECK_DATA("ialltoall block", rbuf[k] + (size_t)BLOCK * s, want, BLOCK, 'b');
    }
    free(want);
    int bad = 0;
    for (int i = 0; i < VEC && !bad; i++) bad = vout[k][i] != (i * 7 + k) % 1000 + n - 1;
    CHECK(!bad, "iallreduce max", "call %d: a wrong element", k);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_vote_order");
    mt_require_size(2);
    for (int k = 0; k < CALLS; k++) {
        sbuf[k] = mt_malloc((size_t)BLOCK * mt_size);
        rbuf[k] = mt_malloc((size_t)BLOCK * mt_size);
        vin[k] = mt_malloc(sizeof(int) * VEC);
        vout[k] = mt_malloc(sizeof(int) * VEC);
    }
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));

    mt_group_begin("rank 0 starts %d calls per family before rank 1 leaves MPI_Recv", AHEAD);
    MPI_Request r[2 * CALLS];
    start_call(0, c, r);
    MPI_CALL(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    int token = 42;
    if (mt_rank == 1) {
        MPI_Status st;
        MPI_CALL(MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st));
        CHECK_INT("token", 42, token);
    }
    for (int k = 1; k < CALLS; k++) start_call(k, c, &r[2 * k]);
    if (mt_rank == 0) MPI_CALL(MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    MPI_CALL(MPI_Waitall(2 * AHEAD, &r[2], MPI_STATUSES_IGNORE));
    for (int k = 0; k < CALLS; k++) check_call(k);
    mt_group_end();

    MPI_CALL(MPI_Comm_free(&c));
    for (int k = 0; k < CALLS; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
        free(vin[k]);
        free(vout[k]);
    }
    return mt_finish();
}
