/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostcheck: sanity probe for the emulated cluster (dev/cmd/vcluster.sh).
 *
 * Prints one machine-readable line per fact so tests/vcluster/test_vcluster.sh
 * can check them with grep/awk:
 *   HOST rank=<r> host=<hostname> node_rank=<r in SHARED comm> node_size=<n>
 *   BW kind=inter|intra a=<rank> b=<rank> bytes=<n> mbps=<MB/s (1e6 B/s)>
 *
 * The bandwidth pairs are chosen from the observed hostnames (not assumed
 * from the rank numbers): "inter" = rank 0 and the lowest rank on another
 * host, "intra" = rank 0 and the lowest other rank on rank 0's host. So a
 * wrong placement shows up as a missing BW line, not as a wrong number.
 *
 * Ranks not in a measured pair wait with a sleeping MPI_Test loop instead of
 * a busy-polling barrier: the test machine has 2 cores for 4 ranks, and
 * spinning bystanders would distort the measurement.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAME_LEN 256

static void sleepy_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    struct timespec ts = {0, 200000}; /* 0.2 ms */
    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            nanosleep(&ts, NULL);
    }
}

/* Ping-pong between ranks a and b; returns MB/s seen by rank a (one-way
 * bytes moved per second, counting both directions), 0 on other ranks. */
static double pingpong(int me, int a, int b, char *buf, int bytes, int iters)
{
    double t0 = 0, t = 0;
    if (me != a && me != b)
        return 0.0;
    int peer = (me == a) ? b : a;
    /* one warm-up round trip so connection setup is not timed */
    for (int i = -1; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        if (me == a) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t0;
    return (me == a) ? (2.0 * (double)bytes * iters) / t / 1e6 : 0.0;
}

int main(int argc, char **argv)
{
    int rank, size, node_rank, node_size;
    int bytes = 4 << 20, iters = 4;
    char name[NAME_LEN];
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        bytes = atoi(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);

    memset(name, 0, sizeof name);
    gethostname(name, NAME_LEN - 1);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);

    char *all = malloc((size_t)size * NAME_LEN);
    MPI_Allgather(name, NAME_LEN, MPI_CHAR, all, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);

    /* print in rank order through rank 0 so lines never interleave */
    int info[2] = {node_rank, node_size};
    int *infos = malloc(sizeof(int) * 2 * (size_t)size);
    MPI_Gather(info, 2, MPI_INT, infos, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            printf("HOST rank=%d host=%s node_rank=%d node_size=%d\n", r,
                   all + (size_t)r * NAME_LEN, infos[2 * r], infos[2 * r + 1]);
        fflush(stdout);
    }

    int inter = -1, intra = -1;
    for (int r = 1; r < size; r++) {
        int same = strcmp(all + (size_t)r * NAME_LEN, all) == 0;
        if (same && intra < 0)
            intra = r;
        if (!same && inter < 0)
            inter = r;
    }

    char *buf = malloc((size_t)bytes);
    memset(buf, 0x5a, (size_t)bytes);
    struct { const char *kind; int peer; } pairs[2] = {{"inter", inter}, {"intra", intra}};
    for (int p = 0; p < 2; p++) {
        sleepy_barrier(MPI_COMM_WORLD);
        if (pairs[p].peer < 0)
            continue;
        double mbps = pingpong(rank, 0, pairs[p].peer, buf, bytes, iters);
        if (rank == 0) {
            printf("BW kind=%s a=0 b=%d bytes=%d mbps=%.1f\n", pairs[p].kind,
                   pairs[p].peer, bytes, mbps);
            fflush(stdout);
        }
    }
    sleepy_barrier(MPI_COMM_WORLD);

    free(buf);
    free(infos);
    free(all);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
