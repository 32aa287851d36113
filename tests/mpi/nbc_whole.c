/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_whole: the node-aware MPI_Iallreduce between two nodes exchanges the
 * nodes' partials, never the results (lib/coll/nbc_nodes.c).
 *
 * 4 ranks, 2 per node (COMPI_DEBUG_RANKS_PER_NODE=2), fixed mode with
 * lz4, MPI_BXOR on bytes. Rank 0 holds A, rank 2 holds B, ranks 1 and 3
 * zeros: node 0's partial is A, node 1's B, the result A ^ B. In every
 * 4 KiB of A the first half is random and the second zero; B the other way
 * round: each partial compresses about 2x, the result not at all.
 *
 * The program interposes PMPI_Isend and PMPI_Send under compi (it exports
 * its own, which call the MPI's through RTLD_NEXT) and adds up the bytes
 * each rank sends to the other node during the call and its Wait. With the
 * partials exchanged a rank sends half the vector's partials, about a
 * quarter of the vector in bytes; with the partials sent to their owners
 * and the results back (the rounds used with more nodes) it sends a quarter
 * of the vector's partials and a quarter of its results, about 3/8 of the
 * vector. Every rank's result is checked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "mpitest.h"

#define VEC (1 << 20) /* bytes: two lanes of 512 KiB */
#define HALF 2048

static int rec_on, my_node;
static long long inter_bytes;

static void record(int count, MPI_Datatype dt, int dest)
{
    int size = 0;
    if (!rec_on || dest < 0) return;
    PMPI_Type_size(dt, &size);
    if (dest / 2 != my_node) inter_bytes += (long long)count * size;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    static int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real)
        real =
            (int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Isend");
    record(count, dt, dest);
    return real(buf, count, dt, dest, tag, comm, req);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    static int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    if (!real) real = (int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm))dlsym(RTLD_NEXT, "PMPI_Send");
    record(count, dt, dest);
    return real(buf, count, dt, dest, tag, comm);
}

/* A (which 0) or B (which 1): per 4 KiB, random bytes in half (A: the
 * first, B: the second), zeros in the other. */
static void half_random(unsigned char *b, int which)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(which + 1);
    for (size_t i = 0; i < VEC; i++) {
        int first = (i % (2 * HALF)) < HALF;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = first == !which ? (unsigned char)(x >> 56) : 0;
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "nbc_whole");
    mt_require_size(4);
    my_node = mt_rank / 2;
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    unsigned char *a = mt_malloc(VEC), *b = mt_malloc(VEC), *sbuf = mt_malloc(VEC), *rbuf = mt_malloc(VEC);
    half_random(a, 0);
    half_random(b, 1);
    MPI_Request r;

    /* the first call on c makes compi's dup of it */
    memset(sbuf, 0, VEC);
    MPI_CALL(MPI_Iallreduce(sbuf, rbuf, VEC, MPI_BYTE, MPI_BXOR, c, &r));
    MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));

    mt_group_begin("MPI_Iallreduce of %d bytes, 2 nodes x 2 ranks: node partials cross, results do not", VEC);
    if (mt_rank == 0) memcpy(sbuf, a, VEC);
    else if (mt_rank == 2) memcpy(sbuf, b, VEC);
    else memset(sbuf, 0, VEC);
    memset(rbuf, 0x55, VEC);
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    inter_bytes = 0, rec_on = 1;
    MPI_CALL(MPI_Iallreduce(sbuf, rbuf, VEC, MPI_BYTE, MPI_BXOR, c, &r));
    MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rec_on = 0;
    for (size_t i = 0; i < VEC; i++) a[i] ^= b[i];
    CHECK_DATA("A ^ B", rbuf, a, VEC, 'b');
    /* partials only: VEC / 4 plus frame headers; results too: 3 VEC / 8 */
    CHECK(inter_bytes > VEC / 8 && inter_bytes < VEC * 5 / 16, "bytes to the other node",
          "%lld bytes sent to the other node (want about %d: the node partials only)", inter_bytes, VEC / 4);
    mt_group_end();

    MPI_CALL(MPI_Comm_free(&c));
    free(a);
    free(b);
    free(sbuf);
    free(rbuf);
    return mt_finish();
}
