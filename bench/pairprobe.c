/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_pairprobe: what one pair of ranks pays to exchange messages, while
 * the job's other ranks wait busily inside MPI or sleep.
 *
 * Ranks 0 and 1 exchange B bytes both ways (MPI_Sendrecv, like one halo
 * face) `iters` times per batch, `batches` batches per size; rank 0 prints
 * per size the median over batches of the time per exchange. Where the two
 * ranks are (same node: the MPI's shared memory; two nodes: the network) is
 * the launch's placement. The other ranks, if any, wait until rank 0 is done:
 *   --others poll   in a blocking MPI_Recv (the MPI's own idle loop: busy
 *                   polling unless the MPI is told to yield);
 *   --others sleep  in MPI_Test + 1 ms nanosleep (idle, off the cores).
 * Plain MPI, no compi: it separates the cost of an MPI's intra-node path from
 * the cost of sharing cores with busily waiting ranks (emulated nodes share
 * one host's cores; a real cluster gives each rank a core).
 *
 * Output (rank 0): "PROBE np= same_node=0|1 others= bytes= iters= us=MEDIAN
 * min= max=" per size, then "PROBE_DONE". Every received byte is checked. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_X 811
#define TAG_DONE 812
#define MAX_SIZES 32

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage_exit(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "compi_pairprobe: %s\nusage: compi_pairprobe [--sizes B,B,...] [--target-ms MS] "
                "[--batches N] [--others poll|sleep]\n",
                why);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t sizes[MAX_SIZES] = {1024, 65536, 1048576};
    int nsizes = 3, batches = 7, others_sleep = 0;
    double target_ms = 40.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < MAX_SIZES; s = strtok(NULL, ",")) {
                char *end;
                unsigned long long v = strtoull(s, &end, 10);
                if (*end || v == 0 || v > (1ull << 30)) usage_exit(rank, "--sizes: positive byte counts up to 1 GiB");
                sizes[nsizes++] = (size_t)v;
            }
        } else if (!strcmp(argv[i], "--target-ms") && i + 1 < argc) {
            target_ms = atof(argv[++i]);
            if (!(target_ms > 0)) usage_exit(rank, "--target-ms: a positive number");
        } else if (!strcmp(argv[i], "--batches") && i + 1 < argc) {
            batches = atoi(argv[++i]);
            if (batches < 1 || batches > 1000) usage_exit(rank, "--batches: 1..1000");
        } else if (!strcmp(argv[i], "--others") && i + 1 < argc) {
            const char *o = argv[++i];
            if (!strcmp(o, "sleep")) others_sleep = 1;
            else if (strcmp(o, "poll")) usage_exit(rank, "--others: poll or sleep");
        } else {
            usage_exit(rank, "unknown argument");
        }
    }
    if (np < 2) usage_exit(rank, "needs at least 2 ranks");

    /* same node? (MPI's own view: shared memory) */
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int node_leader, leaders[2] = {0, 0};
    {
        int srank;
        MPI_Comm_rank(shm, &srank);
        int zero = srank == 0 ? rank : 0, lead;
        MPI_Allreduce(&zero, &lead, 1, MPI_INT, MPI_SUM, shm); /* world rank of the node's first rank */
        node_leader = lead;
    }
    int *all_leaders = malloc(sizeof(int) * (size_t)np);
    MPI_Allgather(&node_leader, 1, MPI_INT, all_leaders, 1, MPI_INT, MPI_COMM_WORLD);
    leaders[0] = all_leaders[0];
    leaders[1] = all_leaders[1];
    free(all_leaders);
    MPI_Comm_free(&shm);
    int same_node = leaders[0] == leaders[1];
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank >= 2) {
        MPI_Comm none;
        MPI_Comm_split(MPI_COMM_WORLD, 1, rank, &none);
        MPI_Comm_free(&none);
        int done = 0;
        if (others_sleep) {
            MPI_Request rq;
            MPI_Irecv(&done, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, &rq);
            int flag = 0;
            struct timespec ms = {0, 1000000};
            while (!flag) {
                MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
                if (!flag) nanosleep(&ms, NULL);
            }
        } else {
            MPI_Recv(&done, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }

    int peer = 1 - rank, bad = 0;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &pair); /* ranks 0 and 1 (the others split apart above) */
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        unsigned char *out = malloc(n), *in = malloc(n);
        if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 3);
        for (size_t k = 0; k < n; k++) out[k] = (unsigned char)(k * 131u + (unsigned)rank * 7u + (unsigned)s);
        /* calibrate the batch length on rank 0, agreed with rank 1 */
        int iters = 16; /* at least: a batch of few exchanges is all scheduling noise */
        for (;;) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, TAG_X, in, (int)n, MPI_BYTE, peer, TAG_X, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            double dt = MPI_Wtime() - t0;
            int decide = rank == 0 && dt * 1e3 < target_ms / 2 && iters < (1 << 20);
            MPI_Bcast(&decide, 1, MPI_INT, 0, pair); /* rank 0's clock decides for both */
            if (!decide) break;
            iters *= 2;
        }
        double t[1000];
        for (int b = 0; b < batches; b++) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, TAG_X, in, (int)n, MPI_BYTE, peer, TAG_X, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            t[b] = (MPI_Wtime() - t0) / iters * 1e6;
        }
        for (size_t k = 0; k < n; k++)
            if (in[k] != (unsigned char)(k * 131u + (unsigned)peer * 7u + (unsigned)s)) {
                bad = 1;
                break;
            }
        if (rank == 0) {
            qsort(t, (size_t)batches, sizeof(double), cmp_dbl);
            printf("PROBE np=%d same_node=%d others=%s bytes=%zu iters=%d us=%.2f min=%.2f max=%.2f\n", np, same_node,
                   np > 2 ? (others_sleep ? "sleep" : "poll") : "none", n, iters, t[batches / 2], t[0], t[batches - 1]);
            fflush(stdout);
        }
        free(out);
        free(in);
    }
    int anybad = bad;
    if (rank == 0) {
        int pb;
        MPI_Recv(&pb, 1, MPI_INT, 1, TAG_X + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        anybad |= pb;
        int done = 1;
        for (int r = 2; r < np; r++) MPI_Send(&done, 1, MPI_INT, r, TAG_DONE, MPI_COMM_WORLD);
        MPI_Comm_free(&pair);
        printf("PROBE_DONE check=%s\n", anybad ? "BAD" : "OK");
    } else {
        MPI_Send(&bad, 1, MPI_INT, 0, TAG_X + 2, MPI_COMM_WORLD);
        MPI_Comm_free(&pair);
    }
    MPI_Finalize();
    return anybad ? 1 : 0;
}
