/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_gate: the collective gates (lib/engine/trials.h) in a real run.
 *
 * A correct MPI program: each group runs GATE_CALLS calls of one collective
 * on a communicator of its own (so each has its own gate) and checks every
 * result against the MPI's own (PMPI_) call on the same input:
 *   allreduce_random  Allreduce of random bytes (MPI_BYTE, MPI_BXOR: the
 *                     result stays uniformly random; a MAX would skew it
 *                     enough for an entropy coder to gain a few %)
 *   allreduce_text    repetitive text (MPI_SIGNED_CHAR, MPI_MAX; compresses ~100x)
 *   alltoall_random   Alltoall of random blocks
 *   bcast_random      Bcast of random bytes from the last rank
 * The companion check_gate.py runs it under compi with the call times
 * injected (COMPI_DEBUG_COLL_TIMES), so which path each call takes is known
 * without timing anything, and checks the report's per-collective counters
 * (calls on compi's path, calls the gate sent to the MPI's own). */
#include "mpitest.h"

#define GATE_CALLS 20
#define VEC (256 * 1024)
#define BLOCK (128 * 1024)

static void reduce_group(const char *name, int text)
{
    mt_group_begin("%s", name);
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    signed char *in = malloc(VEC), *got = malloc(VEC), *want = malloc(VEC);
    for (int i = 0; i < GATE_CALLS; i++) {
        if (text) mt_fill_text((char *)in, VEC, mt_rank + i);
        else mt_fill(in, VEC, 'b', PAT_RANDOM, (uint64_t)(1000 * i + mt_rank));
        memset(got, 0x55, VEC);
        MPI_Datatype t = text ? MPI_SIGNED_CHAR : MPI_BYTE;
        MPI_Op op = text ? MPI_MAX : MPI_BXOR;
        MPI_CALL(MPI_Allreduce(in, got, VEC, t, op, c));
        PMPI_Allreduce(in, want, VEC, t, op, c);
        CHECK(memcmp(got, want, VEC) == 0, "allreduce", "call %d differs from PMPI_Allreduce", i);
    }
    free(in); free(got); free(want);
    MPI_Comm_free(&c);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_gate");
    int n = mt_size;
    reduce_group("allreduce_random", 0);
    reduce_group("allreduce_text", 1);

    mt_group_begin("alltoall_random");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    char *s = malloc((size_t)BLOCK * n), *g = malloc((size_t)BLOCK * n), *w = malloc((size_t)BLOCK * n);
    for (int i = 0; i < GATE_CALLS; i++) {
        mt_fill(s, (size_t)BLOCK * n, 'b', PAT_RANDOM, (uint64_t)(7000 * i + mt_rank));
        memset(g, 0x55, (size_t)BLOCK * n);
        MPI_CALL(MPI_Alltoall(s, BLOCK, MPI_BYTE, g, BLOCK, MPI_BYTE, c));
        PMPI_Alltoall(s, BLOCK, MPI_BYTE, w, BLOCK, MPI_BYTE, c);
        CHECK(memcmp(g, w, (size_t)BLOCK * n) == 0, "alltoall", "call %d differs from PMPI_Alltoall", i);
    }
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("bcast_random");
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < GATE_CALLS; i++) {
        mt_fill(w, VEC, 'b', PAT_RANDOM, (uint64_t)(31 * i));
        if (mt_rank == n - 1) memcpy(g, w, VEC);
        else memset(g, 0x55, VEC);
        MPI_CALL(MPI_Bcast(g, VEC, MPI_BYTE, n - 1, c));
        CHECK(memcmp(g, w, VEC) == 0, "bcast", "call %d differs from the root's data", i);
    }
    MPI_Comm_free(&c);
    mt_group_end();
    free(s); free(g); free(w);
    return mt_finish();
}
