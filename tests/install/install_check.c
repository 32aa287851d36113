/* SPDX-License-Identifier: BSD-3-Clause */
/* install_check: a plain MPI program for tests/install/test_install.sh.
 * Every rank sends rank+1 (mod size) 1 MiB of smooth doubles (compressible)
 * and checks what it receives from rank-1 bit for bit.  Rank 0 prints
 * "install_check: OK ranks=N" when every rank agrees; exit status 1 and a
 * FAIL line otherwise.  It knows nothing of compi: whether compi was there
 * (preloaded or linked) is for its COMPI_REPORT to tell. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (128 * 1024)

static double value(int rank, int i) { return 1000.0 * rank + 0.25 * (i / 16); }

int main(int argc, char **argv)
{
    int rank, size, bad = 0, allbad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < N; i++) out[i] = value(rank, i);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Status st;
        MPI_Sendrecv(out, N, MPI_DOUBLE, to, 7, in, N, MPI_DOUBLE, from, 7, MPI_COMM_WORLD, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        if (count != N || st.MPI_SOURCE != from || st.MPI_TAG != 7) bad++;
        for (int i = 0; i < N; i++)
            if (in[i] != value(from, i)) { bad++; break; }
    }
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (allbad) printf("install_check: FAIL %d bad receives\n", allbad);
        else printf("install_check: OK ranks=%d\n", size);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
