/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_first: the first nonblocking collective on a communicator never waits
 * for a peer.
 *
 * Correct MPI programs that plain MPI runs to the end: starting a
 * nonblocking collective is local (MPI 5.12), so a rank may start the
 * first one on a fresh communicator and then do something a peer waits for
 * before that peer starts its own. compi sets up its own state for a
 * communicator at the first such call (its side communicator); a set-up
 * that waits for the other ranks inside the call hangs each case here (the
 * ctest timeout is the only time-related thing). Every case runs on a
 * communicator no collective ran on before:
 *   ialltoall   rank 0 starts two Ialltoalls, then sends rank 1 the token
 *               that rank 1 waits for in MPI_Recv before it starts its own;
 *   ibcast      rank 0 starts an Ibcast on comm A, then a blocking Barrier
 *               on comm B; rank 1 does the Barrier on B first;
 *   ineighbor   the token case with an Ineighbor_alltoall on a periodic
 *               cartesian ring;
 *   iallreduce  the token case with an Iallreduce (and an Ireduce);
 *   free        every rank starts an Ialltoall, frees the communicator and
 *               only then waits.
 * Every result is checked against what the MPI's definition gives. */
#include "mpitest.h"

#define BLOCK (16 * 1024) /* ints per peer: past the adaptive floor */
#define VEC (128 * 1024)  /* ints of a reduction or broadcast */
#define TOKEN_TAG 11

static void token_from_0(void)
{
    if (mt_rank != 1) return;
    int token = 0;
    MPI_Status st;
    MPI_CALL(MPI_Recv(&token, 1, MPI_INT, 0, TOKEN_TAG, MPI_COMM_WORLD, &st));
    CHECK_INT("token", 42, token);
}

static void token_to_1(void)
{
    int token = 42;
    if (mt_rank == 0) MPI_CALL(MPI_Send(&token, 1, MPI_INT, 1, TOKEN_TAG, MPI_COMM_WORLD));
}

/* Element i of the block rank src sends rank dst in call k: compressible. */
static int elem(int k, int src, int dst, int i)
{
    return 100000 * k + 1000 * src + 10 * dst + i % 7;
}

static void alltoall_start(int k, MPI_Comm c, int *s, int *r, MPI_Request *req)
{
    for (int d = 0; d < mt_size; d++)
        for (int i = 0; i < BLOCK; i++) s[d * BLOCK + i] = elem(k, mt_rank, d, i);
    for (int i = 0; i < BLOCK * mt_size; i++) r[i] = -1;
    MPI_CALL(MPI_Ialltoall(s, BLOCK, MPI_INT, r, BLOCK, MPI_INT, c, req));
}

static void alltoall_check(int k, const int *r)
{
    int bad = 0;
    for (int src = 0; src < mt_size && !bad; src++)
        for (int i = 0; i < BLOCK && !bad; i++) bad = r[src * BLOCK + i] != elem(k, src, mt_rank, i);
    CHECK(!bad, "ialltoall blocks", "call %d: a wrong element", k);
}

static void case_ialltoall(void)
{
    mt_group_begin("ialltoall: rank 0 starts two, then sends rank 1 its token");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int n = mt_size;
    int *s[2], *r[2];
    MPI_Request req[2];
    for (int k = 0; k < 2; k++) {
        s[k] = mt_malloc(sizeof(int) * BLOCK * (size_t)n);
        r[k] = mt_malloc(sizeof(int) * BLOCK * (size_t)n);
    }
    token_from_0();
    for (int k = 0; k < 2; k++) alltoall_start(k, c, s[k], r[k], &req[k]);
    token_to_1();
    MPI_CALL(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 2; k++) {
        alltoall_check(k, r[k]);
        free(s[k]);
        free(r[k]);
    }
    MPI_CALL(MPI_Comm_free(&c));
    mt_group_end();
}

static void case_ibcast(void)
{
    mt_group_begin("ibcast on A, then a Barrier on B; rank 1 does the Barrier first");
    MPI_Comm a, b;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    int *buf = mt_malloc(sizeof(int) * VEC);
    for (int i = 0; i < VEC; i++) buf[i] = mt_rank == 0 ? 3 * i % 11 : -1;
    MPI_Request req;
    if (mt_rank == 1) MPI_CALL(MPI_Barrier(b));
    MPI_CALL(MPI_Ibcast(buf, VEC, MPI_INT, 0, a, &req));
    if (mt_rank != 1) MPI_CALL(MPI_Barrier(b));
    MPI_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int bad = 0;
    for (int i = 0; i < VEC && !bad; i++) bad = buf[i] != 3 * i % 11;
    CHECK(!bad, "ibcast", "a wrong element");
    free(buf);
    MPI_CALL(MPI_Comm_free(&a));
    MPI_CALL(MPI_Comm_free(&b));
    mt_group_end();
}

static void case_ineighbor(void)
{
    /* a ring of 2 has the same rank on both sides: its blocks' order is
     * the MPI's business, not this test's */
    if (mt_size < 3) return;
    mt_group_begin("ineighbor_alltoall on a cartesian ring: rank 0 starts it, then sends the token");
    int dims = mt_size, periods = 1;
    MPI_Comm cart;
    MPI_CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &cart));
    int me, left, right;
    MPI_CALL(MPI_Comm_rank(cart, &me));
    MPI_CALL(MPI_Cart_shift(cart, 0, 1, &left, &right));
    /* the neighbours in the standard's order: -1 then +1 */
    int *s = mt_malloc(sizeof(int) * 2 * BLOCK), *r = mt_malloc(sizeof(int) * 2 * BLOCK);
    int to[2] = {left, right};
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < BLOCK; i++) s[j * BLOCK + i] = elem(j, me, to[j], i);
    for (int i = 0; i < 2 * BLOCK; i++) r[i] = -1;
    token_from_0();
    MPI_Request req;
    MPI_CALL(MPI_Ineighbor_alltoall(s, BLOCK, MPI_INT, r, BLOCK, MPI_INT, cart, &req));
    token_to_1();
    MPI_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* block 0 comes from the left neighbour's +1 block, block 1 from the
     * right one's -1 block */
    int from[2] = {left, right}, bad = 0;
    for (int j = 0; j < 2 && !bad; j++)
        for (int i = 0; i < BLOCK && !bad; i++) bad = r[j * BLOCK + i] != elem(1 - j, from[j], me, i);
    CHECK(!bad, "ineighbor_alltoall blocks", "a wrong element");
    free(s);
    free(r);
    MPI_CALL(MPI_Comm_free(&cart));
    mt_group_end();
}

static void case_iallreduce(void)
{
    mt_group_begin("iallreduce and ireduce: rank 0 starts them, then sends the token");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int *in = mt_malloc(sizeof(int) * VEC), *sum = mt_malloc(sizeof(int) * VEC), *max = mt_malloc(sizeof(int) * VEC);
    for (int i = 0; i < VEC; i++) {
        in[i] = (i % 13) + mt_rank;
        sum[i] = max[i] = -1;
    }
    token_from_0();
    MPI_Request req[2];
    MPI_CALL(MPI_Iallreduce(in, sum, VEC, MPI_INT, MPI_SUM, c, &req[0]));
    MPI_CALL(MPI_Ireduce(in, max, VEC, MPI_INT, MPI_MAX, mt_size - 1, c, &req[1]));
    token_to_1();
    MPI_CALL(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    int n = mt_size, bad = 0;
    for (int i = 0; i < VEC && !bad; i++) bad = sum[i] != n * (i % 13) + n * (n - 1) / 2;
    CHECK(!bad, "iallreduce sum", "a wrong element");
    bad = 0;
    for (int i = 0; i < VEC && !bad && mt_rank == n - 1; i++) bad = max[i] != (i % 13) + n - 1;
    CHECK(!bad, "ireduce max", "a wrong element");
    free(in);
    free(sum);
    free(max);
    MPI_CALL(MPI_Comm_free(&c));
    mt_group_end();
}

static void case_free(void)
{
    mt_group_begin("free: the communicator freed before the Wait of its first Ialltoall");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int n = mt_size;
    int *s = mt_malloc(sizeof(int) * BLOCK * (size_t)n), *r = mt_malloc(sizeof(int) * BLOCK * (size_t)n);
    MPI_Request req;
    alltoall_start(3, c, s, r, &req);
    MPI_CALL(MPI_Comm_free(&c));
    MPI_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    alltoall_check(3, r);
    free(s);
    free(r);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_first");
    mt_require_size(2);
    /* an argument runs that case alone (each must hang without the fix) */
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"ialltoall", case_ialltoall},
                 {"ibcast", case_ibcast},
                 {"ineighbor", case_ineighbor},
                 {"iallreduce", case_iallreduce},
                 {"free", case_free}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) cases[i].run();
    return mt_finish();
}
