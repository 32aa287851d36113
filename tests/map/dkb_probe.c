/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective calls on MPI_COMM_WORLD, for the DKB's validation: run under
 * Open MPI's pml monitoring, the per-peer message counts it writes are the
 * oracle dkb_check compares the DKB's prediction with.
 *
 *   dkb_probe CALL...     CALL = COLL:COUNT:TYPE_SIZE:ROOT
 * COLL as in compi_map_coll_name; COUNT elements (per block for alltoall,
 * allgather, gather, scatter; the v variants' and reduce_scatter's blocks
 * come from probe_counts.h); TYPE_SIZE 1, 4 or 8 (uint8, int32, double); reductions
 * use MPI_SUM. The calls run in order; nothing else talks between MPI_Init
 * and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_counts.h"

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "dkb_probe: %s%s\n", msg, arg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void run(const char *spec, int size)
{
    char coll[64];
    long count;
    int ts, root;
    if (sscanf(spec, "%63[a-z_]:%ld:%d:%d", coll, &count, &ts, &root) != 4) die("bad call (COLL:COUNT:TYPE_SIZE:ROOT): ", spec);
    MPI_Datatype dt = ts == 1 ? MPI_UINT8_T : ts == 4 ? MPI_INT32_T : ts == 8 ? MPI_DOUBLE : MPI_DATATYPE_NULL;
    if (dt == MPI_DATATYPE_NULL) die("TYPE_SIZE must be 1, 4 or 8: ", spec);
    if (count < 0 || count > 100000000 || root < 0 || root >= size) die("COUNT or ROOT out of range: ", spec);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t total = (size_t)count * ts * size + 64;
    int *rs = malloc(size * sizeof *rs), *displs = malloc(size * sizeof *displs);
    int *sc = malloc(size * sizeof *sc), *sd = malloc(size * sizeof *sd);
    int *rc_ = malloc(size * sizeof *rc_), *rd = malloc(size * sizeof *rd);
    if (!rs || !displs || !sc || !sd || !rc_ || !rd) die("out of memory", "");
    size_t vtot = 0, stot = 0, rtot = 0;
    for (int i = 0; i < size; i++) {
        rs[i] = (int)probe_rs_count(i, count);
        displs[i] = (int)vtot;
        vtot += rs[i];
        sc[i] = (int)probe_a2av_count(rank, i, count);
        sd[i] = (int)stot;
        stot += sc[i];
        rc_[i] = (int)probe_a2av_count(i, rank, count);
        rd[i] = (int)rtot;
        rtot += rc_[i];
    }
    total += (vtot + stot + rtot) * ts;
    char *a = calloc(total, 1), *b = calloc(total, 1);
    if (!a || !b) die("out of memory", "");
    int rc, n = (int)count;
    if (strcmp(coll, "bcast") == 0) rc = MPI_Bcast(a, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce") == 0) rc = MPI_Reduce(a, b, n, dt, MPI_SUM, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "allreduce") == 0) rc = MPI_Allreduce(a, b, n, dt, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoall") == 0) rc = MPI_Alltoall(a, n, dt, b, n, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgather") == 0) rc = MPI_Allgather(a, n, dt, b, n, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "gather") == 0) rc = MPI_Gather(a, n, dt, b, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatter") == 0) rc = MPI_Scatter(a, n, dt, b, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "barrier") == 0) rc = MPI_Barrier(MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce_scatter") == 0) rc = MPI_Reduce_scatter(a, b, rs, dt, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce_scatter_block") == 0) rc = MPI_Reduce_scatter_block(a, b, n, dt, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoallv") == 0) rc = MPI_Alltoallv(a, sc, sd, dt, b, rc_, rd, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgatherv") == 0) rc = MPI_Allgatherv(a, rs[rank], dt, b, rs, displs, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "gatherv") == 0) rc = MPI_Gatherv(a, rs[rank], dt, b, rs, displs, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatterv") == 0) rc = MPI_Scatterv(a, rs, displs, dt, b, rs[rank], dt, root, MPI_COMM_WORLD);
    else {
        die("unknown collective: ", spec);
        rc = MPI_ERR_ARG;
    }
    if (rc != MPI_SUCCESS) die("the collective failed: ", spec);
    free(a);
    free(b);
    free(rs);
    free(displs);
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) die("usage: dkb_probe COLL:COUNT:TYPE_SIZE:ROOT...", "");
    for (int i = 1; i < argc; i++) run(argv[i], size);
    MPI_Finalize();
    return 0;
}
