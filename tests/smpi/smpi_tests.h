/* SPDX-License-Identifier: BSD-3-Clause */
/* Force-included into tests/mpi programs built for SMPI: SMPI 3.32 aborts in
 * MPI_Get_elements(_x), which the programs use to check counts, so they
 * count with lib/compat's implementation (linked into each program). */
#include <mpi.h>
int compi_compat_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count);
int compi_compat_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count);
#define MPI_Get_elements(s, d, c) compi_compat_get_elements((s), (d), (c))
#define MPI_Get_elements_x(s, d, c) compi_compat_get_elements_x((s), (d), (c))
