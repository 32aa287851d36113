/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulated time of the application's first broadcast on
 * MPI_COMM_WORLD, after a barrier that lines the ranks up. SMPI sets up a
 * communicator's node-aware tables at its first broadcast (or a reduction
 * that broadcasts; with the ompi selector, from 64 ranks on for a
 * broadcast): a ring over all ranks. So the first broadcast costs the same
 * with compi as without only if compi's MPI_Init left MPI_COMM_WORLD's
 * collectives to the application (check_sim.py compares the two). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, v, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    v = rank == 0 ? size : -1;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (v != size) printf("FAIL [startup_world] rank %d: received %d, expected %d\n", rank, v, size);
    if (rank == 0) printf("RESULT first_bcast_s=%.9f\n", t);
    MPI_Finalize();
    return 0;
}
