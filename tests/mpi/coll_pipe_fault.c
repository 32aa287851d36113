/* SPDX-License-Identifier: BSD-3-Clause */
/* Damaged and missing chunks of pipelined collective blocks
 * (lib/coll/pipex.c): the collective fails with compi's error on the ranks
 * that receive them, stderr names "chunk 3 of 16 from rank r" and the
 * cause, and the library stays sound afterwards.
 *
 * Every rank is its own node (COMPI_DEBUG_RANKS_PER_NODE=1); COMPI_CHUNK=64K
 * cuts every 1 MiB block into 16 chunks; the sender's compi damages or drops
 * chunk 3 of every pipelined block, or fails there as on an error of its own
 * and sends stand-ins for the chunks it could not send
 * (COMPI_DEBUG_DAMAGE_CHUNK=3, drop:3 or fail:3, set by the test together
 * with the cause to expect, COMPI_TEST_EXPECT_CAUSE).
 *
 * With COMPI_TEST_RECV_FAULT_RANK=r and COMPI_DEBUG_DAMAGE_CHUNK=rfail:3,
 * only rank r's compi fails, as a receiver, at chunk 3 of every block to it
 * (the other ranks drop the setting before their first collective): rank r's
 * Alltoall and Allgather fail naming the chunk and the cause; every other
 * rank's succeed with the oracle's result (rank r still sends all of its
 * chunks and takes all of theirs, so nobody waits for it).
 *
 * With COMPI_TEST_STALL_RANK=r and COMPI_DEBUG_DAMAGE_CHUNK=stall:3:S, rank
 * r's compi stays away S seconds before chunk 3 of its first pipelined
 * block (COMPI_CHUNK_WAIT far below S): the other ranks' Alltoall fails,
 * naming a chunk that did not arrive; rank r's succeeds once it resumes,
 * and its late chunks are taken by the ranks that gave up on them, so it
 * waits for nobody; every later collective succeeds with the oracle's
 * result on every rank.
 * Alltoall, Allgather, Allreduce and Reduce_scatter_block run with 1 MiB of
 * compressible data per block and MPI_ERRORS_RETURN. Without a fault (plain
 * MPI, or compi without COMPI_DEBUG_DAMAGE_CHUNK) every result must match
 * the oracle. Afterwards a small Allreduce and Alltoall must work. */
#include "mpitest.h"

enum { C_ALLTOALL, C_ALLGATHER, C_ALLREDUCE, C_RSB, C_COUNT };
static const char *c_name[C_COUNT] = {"Alltoall", "Allgather", "Allreduce", "Reduce_scatter_block"};

/* block b of rank r: ints that compress well and differ per (r, b) */
static void fill(int *p, int n, int r, int b)
{
    for (int i = 0; i < n; i++) p[i] = r * 1000003 + b * 7919 + i / 5;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_pipe_fault");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int p = mt_size, me = mt_rank;
    char cause[256] = "";
    if (getenv("COMPI_TEST_EXPECT_CAUSE")) snprintf(cause, sizeof cause, "%s", getenv("COMPI_TEST_EXPECT_CAUSE"));
    for (char *c = cause; *c; c++)
        if (*c == '_') *c = ' ';
    int faulty = mt_libcompi_mapped() && getenv("COMPI_DEBUG_DAMAGE_CHUNK") && cause[0];
    /* a receiver's fault on one rank: the others run intact; reductions
     * (several exchanges: the failing rank leaves after its first) skipped */
    const char *rf = getenv("COMPI_TEST_RECV_FAULT_RANK");
    int recv_fault = faulty && rf && *rf, ncoll = recv_fault ? C_ALLREDUCE : C_COUNT;
    if (recv_fault && me != atoi(rf)) {
        unsetenv("COMPI_DEBUG_DAMAGE_CHUNK"); /* compi reads it at its first pipelined chunk */
        faulty = 0;
    }
    /* a sender that stalls once: only the first collective fails, and only
     * on the ranks that wait for it */
    const char *sr = getenv("COMPI_TEST_STALL_RANK");
    int stall = faulty && sr && *sr;
    if (stall) {
        if (me == atoi(sr)) unsetenv("COMPI_TEST_EXPECT_CAUSE");
        else unsetenv("COMPI_DEBUG_DAMAGE_CHUNK");
        faulty = me != atoi(sr);
    }
    const int blk = 1 << 18; /* ints: 1 MiB */
    int *sb = mt_malloc(sizeof(int) * (size_t)blk * (size_t)p), *rb = mt_malloc(sizeof(int) * (size_t)blk * (size_t)p);
    int *want = mt_malloc(sizeof(int) * (size_t)blk * (size_t)p);
    mt_group_begin(faulty ? "pipelined collective blocks with a damaged chunk" : "pipelined collective blocks intact");
    for (int c = 0; c < ncoll; c++) {
        int rc = MPI_SUCCESS;
        for (int b = 0; b < p; b++) fill(sb + (size_t)b * blk, blk, me, b);
        memset(rb, 0, sizeof(int) * (size_t)blk * (size_t)p);
        char path[128], text[8192];
        int saved = mt_capture_begin(path, sizeof path);
        switch (c) {
        case C_ALLTOALL: rc = MPI_Alltoall(sb, blk, MPI_INT, rb, blk, MPI_INT, comm); break;
        case C_ALLGATHER: rc = MPI_Allgather(sb, blk, MPI_INT, rb, blk, MPI_INT, comm); break;
        /* p MiB of ints: each node's part of the reduction is 1 MiB */
        case C_ALLREDUCE: rc = MPI_Allreduce(sb, rb, blk * p, MPI_INT, MPI_BXOR, comm); break;
        default: rc = MPI_Reduce_scatter_block(sb, rb, blk, MPI_INT, MPI_BXOR, comm); break;
        }
        if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
        else text[0] = 0;
        if (faulty && (!stall || c == C_ALLTOALL)) {
            CHECK(rc != MPI_SUCCESS, "damaged pipelined block refused", "%s: the collective succeeded", c_name[c]);
            char es[MPI_MAX_ERROR_STRING];
            int el = 0;
            es[0] = 0;
            if (rc != MPI_SUCCESS) MPI_Error_string(rc, es, &el);
            /* a fault of the receiver's own returns its error (as the MPI's would be) */
            CHECK(recv_fault || strstr(es, "compi") != NULL, "error string names compi", "%s: %s", c_name[c],
                  mt_errstr(rc));
            /* a stalled sender: whichever chunk was last to be waited for */
            CHECK(strstr(text, stall ? " of 16 from rank " : "chunk 3 of 16 from rank ") != NULL &&
                      strstr(text, cause) != NULL,
                  "stderr names chunk, rank and cause", "%s: expected \"chunk 3 of 16 from rank\" and \"%s\" in \"%s\"",
                  c_name[c], cause, text);
            continue;
        }
        CHECK(rc == MPI_SUCCESS, "collective", "%s: %s", c_name[c], mt_errstr(rc));
        size_t n = 0;
        switch (c) {
        case C_ALLTOALL:
            for (int r = 0; r < p; r++) fill(want + (size_t)r * blk, blk, r, me);
            n = (size_t)blk * (size_t)p;
            break;
        case C_ALLGATHER:
            for (int r = 0; r < p; r++) fill(want + (size_t)r * blk, blk, r, 0);
            n = (size_t)blk * (size_t)p;
            break;
        default: {
            int *one = mt_malloc(sizeof(int) * (size_t)blk);
            int first = c == C_ALLREDUCE ? 0 : me, last = c == C_ALLREDUCE ? p : me + 1;
            memset(want, 0, sizeof(int) * (size_t)blk * (size_t)p);
            for (int b = first; b < last; b++)
                for (int r = 0; r < p; r++) {
                    fill(one, blk, r, b);
                    for (int i = 0; i < blk; i++) want[(size_t)(b - first) * blk + i] ^= one[i];
                }
            free(one);
            n = (size_t)blk * (size_t)(last - first);
        }
        }
        CHECK(memcmp(rb, want, n * sizeof(int)) == 0, "result", "%s: result differs from the oracle", c_name[c]);
    }
    mt_group_end();
    mt_group_begin("small collectives afterwards");
    int x = me + 1, sum = 0;
    MPI_CALL(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == p * (p + 1) / 2, "allreduce", "sum %d", sum);
    for (int r = 0; r < p; r++) sb[r] = me * 100 + r;
    MPI_CALL(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm));
    for (int r = 0; r < p; r++) CHECK(rb[r] == r * 100 + me, "alltoall", "from %d: %d", r, rb[r]);
    mt_group_end();
    MPI_Comm_free(&comm);
    free(sb);
    free(rb);
    free(want);
    return mt_finish();
}
