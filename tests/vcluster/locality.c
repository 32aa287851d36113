/* SPDX-License-Identifier: BSD-3-Clause */
/* Every rank sends one compressible 1 MiB message to every other rank and
 * checks what it receives. On the emulated cluster (2 nodes x 2 ranks) the
 * report must show the inter-node sends compressed and the intra-node ones
 * raw; test_locality.sh reads it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 17; /* doubles: 1 MiB */
    double *out = malloc(sizeof(double) * n), *in = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) out[i] = 1000.0 * rank + (double)(i / 64);
    for (int step = 1; step < size; step++) {
        int to = (rank + step) % size, from = (rank - step + size) % size;
        MPI_Status st;
        MPI_Sendrecv(out, n, MPI_DOUBLE, to, 7, in, n, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        if (count != n || st.MPI_SOURCE != from) bad++;
        for (int i = 0; i < n; i++)
            if (in[i] != 1000.0 * from + (double)(i / 64)) { bad++; break; }
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("locality: %d ranks, %d bad receives\n", size, total);
    free(out);
    free(in);
    MPI_Finalize();
    return total ? 1 : 0;
}
