/* One collective call on MPI_COMM_WORLD, for the DKB's validation: run under
 * Open MPI's pml monitoring, the per-peer message counts it writes are the
 * oracle dkb_check compares the DKB's prediction with.
 *
 *   dkb_probe COLL COUNT TYPE_SIZE ROOT
 * COLL as in compi_map_coll_name; COUNT elements (per block for alltoall,
 * allgather, gather, scatter); TYPE_SIZE 1, 4 or 8 (uint8, int32, double);
 * reductions use MPI_SUM. Nothing else talks between MPI_Init and
 * MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_counts.h"

static void die(const char *msg)
{
    fprintf(stderr, "dkb_probe: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 5) die("usage: dkb_probe COLL COUNT TYPE_SIZE ROOT");
    const char *coll = argv[1];
    long count = atol(argv[2]);
    int ts = atoi(argv[3]), root = atoi(argv[4]);
    MPI_Datatype dt = ts == 1 ? MPI_UINT8_T : ts == 4 ? MPI_INT32_T : ts == 8 ? MPI_DOUBLE : MPI_DATATYPE_NULL;
    if (dt == MPI_DATATYPE_NULL) die("TYPE_SIZE must be 1, 4 or 8");
    if (count < 0 || root < 0 || root >= size) die("COUNT or ROOT out of range");
    size_t total = (size_t)count * ts * size + 64;
    if (strcmp(coll, "reduce_scatter") == 0) {
        total = 64;
        for (int i = 0; i < size; i++) total += (size_t)probe_rs_count(i, count) * ts;
    }
    char *a = calloc(total, 1), *b = calloc(total, 1);
    if (!a || !b) die("out of memory");
    int rc;
    int n = (int)count;
    if (strcmp(coll, "bcast") == 0) rc = MPI_Bcast(a, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce") == 0) rc = MPI_Reduce(a, b, n, dt, MPI_SUM, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "allreduce") == 0) rc = MPI_Allreduce(a, b, n, dt, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoall") == 0) rc = MPI_Alltoall(a, n, dt, b, n, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgather") == 0) rc = MPI_Allgather(a, n, dt, b, n, dt, MPI_COMM_WORLD);
    else if (strcmp(coll, "gather") == 0) rc = MPI_Gather(a, n, dt, b, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatter") == 0) rc = MPI_Scatter(a, n, dt, b, n, dt, root, MPI_COMM_WORLD);
    else if (strcmp(coll, "barrier") == 0) rc = MPI_Barrier(MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce_scatter") == 0) {
        int *rc_counts = malloc(size * sizeof *rc_counts);
        if (!rc_counts) die("out of memory");
        for (int i = 0; i < size; i++) rc_counts[i] = (int)probe_rs_count(i, count);
        rc = MPI_Reduce_scatter(a, b, rc_counts, dt, MPI_SUM, MPI_COMM_WORLD);
        free(rc_counts);
    } else {
        die("unknown collective");
        rc = MPI_ERR_ARG;
    }
    if (rc != MPI_SUCCESS) die("the collective failed");
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
