/* SPDX-License-Identifier: BSD-3-Clause */
/* init_wildcard: receives posted with MPI_ANY_SOURCE and MPI_ANY_TAG on
 * MPI_COMM_WORLD at once after MPI_Init returns, while other ranks may still
 * be inside theirs. compi's MPI_Init exchanges messages on MPI_COMM_WORLD
 * (its start-up agreement, lib/core/boot.c); none may reach the
 * application. Every rank sends one message to every other rank, on the tag
 * compi's start-up uses (32767, which every MPI allows) and on tag 0, and
 * must receive exactly those, each once, and nothing else: a probe with
 * wildcards finds no message afterwards. */
#include "mpitest.h"

#define MAGIC 0x636f6d70u
static const int tags[] = {32767, 0};
#define NTAGS ((int)(sizeof tags / sizeof tags[0]))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "init_wildcard");
    int n = (mt_size - 1) * NTAGS;
    unsigned(*in)[3] = mt_malloc(sizeof *in * (size_t)(n > 0 ? n : 1));
    unsigned(*out)[3] = mt_malloc(sizeof *out * (size_t)(n > 0 ? n : 1));
    MPI_Request *req = mt_malloc(sizeof *req * (size_t)(2 * n > 0 ? 2 * n : 1));
    MPI_Status *st = mt_malloc(sizeof *st * (size_t)(n > 0 ? n : 1));
    mt_group_begin("wildcard receives posted at once after MPI_Init");
    for (int k = 0; k < n; k++)
        MPI_CALL(MPI_Irecv(in[k], 3, MPI_UNSIGNED, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[k]));
    int k = 0;
    for (int t = 0; t < NTAGS; t++) {
        for (int d = 0; d < mt_size; d++) {
            if (d == mt_rank) continue;
            out[k][0] = (unsigned)mt_rank;
            out[k][1] = (unsigned)d;
            out[k][2] = MAGIC ^ (unsigned)tags[t];
            MPI_CALL(MPI_Isend(out[k], 3, MPI_UNSIGNED, d, tags[t], MPI_COMM_WORLD, &req[n + k]));
            k++;
        }
    }
    MPI_CALL(MPI_Waitall(n, req, st));
    MPI_CALL(MPI_Waitall(n, req + n, MPI_STATUSES_IGNORE));
    /* from each other rank, one message on each tag, as it was sent */
    int *seen = calloc((size_t)mt_size * NTAGS, sizeof *seen);
    for (k = 0; k < n; k++) {
        int src = st[k].MPI_SOURCE, tag = st[k].MPI_TAG, t = tag == tags[0] ? 0 : tag == tags[1] ? 1 : -1, count = -1;
        MPI_Get_count(&st[k], MPI_UNSIGNED, &count);
        CHECK_INT("count of a received message", 3, count);
        CHECK(src >= 0 && src < mt_size && src != mt_rank && t >= 0, "message source and tag",
              "got source %d tag %d: a message the application never sent", src, tag);
        if (!(src >= 0 && src < mt_size && src != mt_rank && t >= 0)) continue;
        CHECK(++seen[src * NTAGS + t] == 1, "one message per source and tag", "source %d tag %d seen twice", src, tag);
        CHECK(in[k][0] == (unsigned)src && in[k][1] == (unsigned)mt_rank && in[k][2] == (MAGIC ^ (unsigned)tag),
              "message content", "from %d tag %d: %u %u %#x", src, tag, in[k][0], in[k][1], in[k][2]);
    }
    mt_group_end();
    mt_group_begin("nothing else arrives");
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 1;
    MPI_Status pst;
    MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &pst));
    CHECK(!flag, "wildcard probe after every message was received", "found a message from %d tag %d",
          flag ? pst.MPI_SOURCE : -1, flag ? pst.MPI_TAG : -1);
    mt_group_end();
    free(seen);
    free(in);
    free(out);
    free(req);
    free(st);
    return mt_finish();
}
