/* SPDX-License-Identifier: BSD-3-Clause */
/* A small MPI program with a known, irregular communication pattern for
 * validating compi's communication profile and `compi map`'s graph against
 * the MPI's own accounting (map_graph_validate.sh): point-to-point sends of
 * every kind (blocking, nonblocking, persistent, sendrecv, sendrecv_replace,
 * synchronous, MPI_PROC_NULL) to world and split-communicator peers, and
 * collectives on MPI_COMM_WORLD, on a split communicator (ranks in another
 * order) and on a dup. --core: only the collectives whose MPICH algorithms
 * compi pins in a traced run (bcast reduce allreduce alltoall allgather
 * gather scatter barrier). --persistent: also 5 starts of a persistent
 * 40000-byte send between ranks 2k and 2k+1 (Open MPI's pml monitoring
 * does not count persistent point-to-point sends, so the validation checks
 * them as the difference of two traces). --comms-only: only the
 * communicator creations (their own traffic, which compi does not trace,
 * is subtracted from the oracle's counts). --where: each rank prints
 * "WHERE rank=<r> host=<MPI_Get_processor_name>" (placement tests).
 * --neighbor: also, on a periodic ring (a 1-D cartesian communicator),
 * MPI_Neighbor_alltoall of 3000 doubles and MPI_Ineighbor_allgather of 500
 * ints (checked as the difference of two traces: each rank sends 2 x 24000
 * + 2 x 2000 bytes more, to its two ring neighbours). --nbc: also
 * MPI_Ialltoall, MPI_Iallgather, MPI_Iallreduce, MPI_Ireduce, MPI_Ibcast,
 * MPI_Igather(v), MPI_Iscatter(v) and MPI_Ireduce_scatter on WORLD, each
 * completed by MPI_Wait; --nbc-blocking: their blocking twins instead (the
 * two traces must give the same graph).
 * Otherwise prints nothing; exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int core = 0, persistent = 0, comms_only = 0, where = 0, neighbor = 0, nbc = 0, nbc_blocking = 0;
    for (int i = 1; i < argc; i++) {
        core |= strcmp(argv[i], "--core") == 0;
        persistent |= strcmp(argv[i], "--persistent") == 0;
        comms_only |= strcmp(argv[i], "--comms-only") == 0;
        where |= strcmp(argv[i], "--where") == 0;
        neighbor |= strcmp(argv[i], "--neighbor") == 0;
        nbc |= strcmp(argv[i], "--nbc") == 0;
        nbc_blocking |= strcmp(argv[i], "--nbc-blocking") == 0;
    }
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (where) {
        char host[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(host, &len);
        printf("WHERE rank=%d host=%s\n", me, host);
        fflush(stdout);
    }
    enum { BIG = 1 << 16 };
    double *a = calloc(BIG, sizeof(double)), *b = calloc(BIG, sizeof(double));
    int *ia = calloc(BIG, sizeof(int)), *ib = calloc(BIG, sizeof(int));
    int *cnt = calloc((size_t)n, sizeof(int)), *dsp = calloc((size_t)n, sizeof(int));
    int *rcnt = calloc((size_t)n, sizeof(int)), *rdsp = calloc((size_t)n, sizeof(int));

    if (comms_only) {
        MPI_Comm half, dup;
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half);
        if (!core) {
            MPI_Comm_dup(half, &dup);
            MPI_Comm_free(&dup);
        }
        MPI_Comm_free(&half);
        MPI_Finalize();
        return 0;
    }
    /* point-to-point on WORLD: a ring with growing sizes, a skip pattern, heavy pairs */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int it = 0; it < 3; it++)
        MPI_Sendrecv(a, 100 * (me + 1) + it, MPI_DOUBLE, right, 1, b, BIG, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    MPI_Request rq[4];
    MPI_Status sts[4];
    int skip = (me + 3) % n, from = (me + n - 3) % n;
    MPI_Irecv(ib, BIG, MPI_INT, from, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(ia, 1000 + 17 * me, MPI_INT, skip, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, sts);
    /* pairs (0,1), (2,3), ... talk a lot: what a placement should keep together */
    int partner = me ^ 1;
    if (persistent && partner < n) {
        MPI_Send_init(a, 5000, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Recv_init(b, 5000, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &rq[1]);
        for (int it = 0; it < 5; it++) {
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, sts);
        }
        MPI_Request_free(&rq[1]);
        MPI_Request_free(&rq[0]);
    }
    /* the v variants' counts for --nbc and --nbc-blocking: rank i's block 50 (i + 1) */
    int *vc = calloc((size_t)n, sizeof(int)), *vd = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        vc[i] = 50 * (i + 1);
        vd[i] = i ? vd[i - 1] + vc[i - 1] : 0;
    }
    if (nbc) {
        MPI_Request r[4];
        MPI_Ialltoall(ia, 700, MPI_INT, ib, 700, MPI_INT, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Iallgather(a, 90, MPI_DOUBLE, b, 90, MPI_DOUBLE, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Iallreduce(a, b, 5000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[2]);
        MPI_Wait(&r[2], MPI_STATUS_IGNORE);
        MPI_Ireduce(ia, ib, 3000, MPI_INT, MPI_MAX, n - 1, MPI_COMM_WORLD, &r[3]);
        MPI_Wait(&r[3], MPI_STATUS_IGNORE);
        MPI_Ibcast(a, 4000, MPI_DOUBLE, 1 % n, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Igather(a, 300, MPI_DOUBLE, b, 300, MPI_DOUBLE, n - 1, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Igatherv(a, vc[me], MPI_DOUBLE, b, vc, vd, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Iscatter(ia, 200, MPI_INT, ib, 200, MPI_INT, 2 % n, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Iscatterv(ia, vc, vd, MPI_INT, ib, vc[me], MPI_INT, n - 1, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Ireduce_scatter(a, b, vc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
    if (nbc_blocking) {
        MPI_Alltoall(ia, 700, MPI_INT, ib, 700, MPI_INT, MPI_COMM_WORLD);
        MPI_Allgather(a, 90, MPI_DOUBLE, b, 90, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Allreduce(a, b, 5000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(ia, ib, 3000, MPI_INT, MPI_MAX, n - 1, MPI_COMM_WORLD);
        MPI_Bcast(a, 4000, MPI_DOUBLE, 1 % n, MPI_COMM_WORLD);
        MPI_Gather(a, 300, MPI_DOUBLE, b, 300, MPI_DOUBLE, n - 1, MPI_COMM_WORLD);
        MPI_Gatherv(a, vc[me], MPI_DOUBLE, b, vc, vd, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Scatter(ia, 200, MPI_INT, ib, 200, MPI_INT, 2 % n, MPI_COMM_WORLD);
        MPI_Scatterv(ia, vc, vd, MPI_INT, ib, vc[me], MPI_INT, n - 1, MPI_COMM_WORLD);
        MPI_Reduce_scatter(a, b, vc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (neighbor) {
        MPI_Comm ring;
        int periodic = 1;
        MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periodic, 0, &ring);
        MPI_Neighbor_alltoall(a, 3000, MPI_DOUBLE, b, 3000, MPI_DOUBLE, ring);
        MPI_Ineighbor_allgather(ia, 500, MPI_INT, ib, 500, MPI_INT, ring, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Comm_free(&ring);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(a, 10, MPI_DOUBLE, MPI_PROC_NULL, 4, MPI_COMM_WORLD);
    if (me % 2 == 0 && me + 1 < n) MPI_Ssend(a, 123, MPI_CHAR, me + 1, 5, MPI_COMM_WORLD);
    if (me % 2 == 1) MPI_Recv(b, 123, MPI_CHAR, me - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(ia, 77, MPI_INT, left, 6, right, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* collectives on WORLD */
    MPI_Bcast(a, 3000, MPI_DOUBLE, n - 1, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, 2048, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(ia, ib, 7, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce(a, b, 40000, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Alltoall(ia, 300, MPI_INT, ib, 300, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(a, 50, MPI_DOUBLE, b, 50, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gather(a, 200, MPI_DOUBLE, b, 200, MPI_DOUBLE, 1 % n, MPI_COMM_WORLD);
    MPI_Scatter(a, 60, MPI_DOUBLE, b, 60, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    /* a split communicator: even and odd ranks, in reverse order */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half);
    int hme, hn;
    MPI_Comm_rank(half, &hme);
    MPI_Comm_size(half, &hn);
    for (int it = 0; it < 4; it++) MPI_Bcast(a, 4096, MPI_DOUBLE, 0, half);
    MPI_Allreduce(a, b, 10000, MPI_DOUBLE, MPI_SUM, half);
    MPI_Alltoall(a, 2000, MPI_DOUBLE, b, 2000, MPI_DOUBLE, half);
    if (hn > 1) MPI_Send(a, 64, MPI_DOUBLE, (hme + 1) % hn, 7, half);
    if (hn > 1) MPI_Recv(b, 64, MPI_DOUBLE, (hme + hn - 1) % hn, 7, half, MPI_STATUS_IGNORE);

    if (!core) {
        /* the v variants, irregular on purpose */
        for (int i = 0; i < n; i++) {
            cnt[i] = (me + 2 * i) % 5 == 0 ? 0 : 10 + me + 3 * i;
            dsp[i] = i * 200;
        }
        MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) rdsp[i] = i * 200;
        MPI_Alltoallv(ia, cnt, dsp, MPI_INT, ib, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) rcnt[i] = i % 3 == 2 ? 0 : 5 + i;
        for (int i = 0; i < n; i++) rdsp[i] = i * 100;
        MPI_Allgatherv(a, rcnt[me], MPI_DOUBLE, b, rcnt, rdsp, MPI_DOUBLE, MPI_COMM_WORLD);
        MPI_Gatherv(a, rcnt[me], MPI_DOUBLE, b, rcnt, rdsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Scatterv(a, rcnt, rdsp, MPI_DOUBLE, b, rcnt[me], MPI_DOUBLE, n - 1, MPI_COMM_WORLD);
        MPI_Reduce_scatter(a, b, rcnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Comm dup;
        MPI_Comm_dup(half, &dup);
        MPI_Allgather(a, 700, MPI_DOUBLE, b, 700, MPI_DOUBLE, dup);
        MPI_Gather(a, 900, MPI_INT, ib, 900, MPI_INT, hn - 1, dup);
        MPI_Comm_free(&dup);
    }
    MPI_Comm_free(&half);
    free(a); free(b); free(ia); free(ib); free(cnt); free(dsp); free(rcnt); free(rdsp); free(vc); free(vd);
    MPI_Finalize();
    return 0;
}
