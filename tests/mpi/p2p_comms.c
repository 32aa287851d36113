/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_comms: point-to-point on communicators whose members, or their
 * order, differ from MPI_COMM_WORLD's.
 *
 * compi names a peer by its MPI_COMM_WORLD rank wherever a message leaves
 * the application's communicator (the bytes of an escape go ahead, and a
 * pipelined message's chunks follow, on compi's duplicate of
 * MPI_COMM_WORLD), and by its node to decide whether to frame at all. Each
 * communicator's map from its ranks to world ranks must be its own. Open MPI
 * 4.1's MPI_Comm_create_group copies the parent's attributes (as a dup
 * does), so a map cached as an attribute came with the parent's order: the
 * chunks went to the wrong rank and the receiver waited for them in vain
 * (found by MPICH's test/mpi/pt2pt/probe_unexp, tests/foreign).
 *
 * On each communicator (create_group reversed, create_group of the even
 * ranks, create reversed, split reversed, merged intercommunicator, and a
 * dup of each) every member sends to the next member and receives from the
 * one before: a compressible message, a raw one that starts like a frame
 * (an escape), and a pipelined one (1 MiB), received by source, by
 * MPI_ANY_SOURCE and after MPI_Probe; every byte and the status are
 * checked. Plain MPI must pass it too. */
#include "mpitest.h"

#define BIG (1 << 20)

enum { K_SMOOTH, K_ESCAPE, K_PIPELINED, K_COUNT };
static const char *kname[K_COUNT] = {"compressible 64 KiB", "escape 4 KiB", "pipelined 1 MiB"};
static const int ksize[K_COUNT] = {1 << 16, 4096, BIG};
enum { R_NAMED, R_ANY, R_PROBE, R_COUNT };
static const char *rname[R_COUNT] = {"Recv", "Recv any source", "Probe+Recv"};

static void make(unsigned char *b, int kind, int n, uint64_t seed)
{
    mt_fill(b, (size_t)n, 'b', kind == K_ESCAPE ? PAT_RANDOM : PAT_SMOOTH, seed);
    if (kind == K_ESCAPE) memcpy(b, "CMPI", 4);
}

static void ring(MPI_Comm comm, const char *name)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int to = (r + 1) % n, from = (r + n - 1) % n;
    unsigned char *sb = mt_malloc(BIG), *rb = mt_malloc(BIG), *want = mt_malloc(BIG);
    mt_group_begin("%s", name);
    for (int k = 0; k < K_COUNT; k++) {
        for (int how = 0; how < R_COUNT; how++) {
            int tag = 10 * k + how, sz = ksize[k];
            /* the seed names the sender and the message */
            make(sb, k, sz, (uint64_t)(1000 * r + tag));
            make(want, k, sz, (uint64_t)(1000 * from + tag));
            memset(rb, 0xee, (size_t)sz);
            MPI_Request rq;
            MPI_Status st;
            MPI_CALL(MPI_Isend(sb, sz, MPI_BYTE, to, tag, comm, &rq));
            if (how == R_PROBE) {
                MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st));
                CHECK_INT("probed source", from, st.MPI_SOURCE);
            }
            MPI_CALL(MPI_Recv(rb, sz, MPI_BYTE, how == R_NAMED ? from : MPI_ANY_SOURCE, tag, comm, &st));
            MPI_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            CHECK_INT("source", from, st.MPI_SOURCE);
            CHECK_INT("count", sz, got);
            CHECK(memcmp(rb, want, (size_t)sz) == 0, "bytes", "%s, %s: data differs from what rank %d sent",
                  kname[k], rname[how], from);
        }
    }
    mt_group_end();
    free(sb);
    free(rb);
    free(want);
}

/* every rank: ring on comm (if it is a member), then on a dup of it */
static void both(MPI_Comm comm, const char *name)
{
    char dname[96];
    snprintf(dname, sizeof dname, "dup of %s", name);
    MPI_Comm dup = MPI_COMM_NULL;
    if (comm != MPI_COMM_NULL) MPI_CALL(MPI_Comm_dup(comm, &dup));
    MPI_Comm c[2] = {comm, dup};
    const char *nm[2] = {name, dname};
    for (int i = 0; i < 2; i++) {
        if (c[i] != MPI_COMM_NULL) {
            ring(c[i], nm[i]);
        } else {
            mt_group_begin("%s", nm[i]); /* the group's summary is collective over MPI_COMM_WORLD */
            mt_group_end();
        }
    }
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_comms");
    mt_require_size(2);
    int n = mt_size, wr = mt_rank;
    /* MPI_COMM_WORLD first: compi's info on it exists before the others are made */
    ring(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Group wg, rev, even;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *ranks = mt_malloc(sizeof(int) * (size_t)n), ne = 0;
    for (int i = 0; i < n; i++) ranks[i] = n - 1 - i;
    MPI_Group_incl(wg, n, ranks, &rev);
    for (int i = 0; i < n; i += 2) ranks[ne++] = i;
    MPI_Group_incl(wg, ne, ranks, &even);
    MPI_Comm c;

    MPI_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, rev, 7, &c));
    both(c, "create_group reversed");
    /* (from MPI_COMM_WORLD: MPICH 4.0.2 crashes in create_group of these
     * members from a dup of it) */
    c = MPI_COMM_NULL;
    if (wr % 2 == 0) MPI_CALL(MPI_Comm_create_group(MPI_COMM_WORLD, even, 8, &c));
    if (ne >= 2) both(c, "create_group of the even ranks");
    else if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    MPI_CALL(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    both(c, "create reversed");
    MPI_CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, n - wr, &c));
    both(c, "split reversed");
    /* low half first (high = 0 on the upper half): the merged order
     * puts the upper half first */
    MPI_Comm local, inter;
    MPI_CALL(MPI_Comm_split(MPI_COMM_WORLD, wr < n / 2, wr, &local));
    MPI_CALL(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wr < n / 2 ? n / 2 : 0, 9, &inter));
    MPI_CALL(MPI_Intercomm_merge(inter, wr < n / 2, &c));
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    both(c, "Intercomm_merge");

    MPI_Group_free(&even);
    MPI_Group_free(&rev);
    MPI_Group_free(&wg);
    free(ranks);
    return mt_finish();
}
