/* SPDX-License-Identifier: BSD-3-Clause */
/* Statuses and error codes as the application sees them
 * (lib/core/message.c). */
#ifndef COMPI_CORE_STATUS_H
#define COMPI_CORE_STATUS_H
#include <mpi.h>

/* An error of compi's own (code: an MPI error code) goes to the
 * application's error handler on comm, as the MPI's own errors do; returns
 * code, for the handlers that return (MPI_ERRORS_RETURN). */
int compi_raise(MPI_Comm comm, int code);
/* The empty status (MPI 3.7.3): source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
 * error MPI_SUCCESS, count 0, not cancelled. */
void compi_status_empty(MPI_Status *st);
/* Copies compi's status to the application's: single-completion calls and
 * probes never modify MPI_ERROR (MPI-3.1 3.2.5), so it is kept. */
static inline void compi_status_out(MPI_Status *user, const MPI_Status *st)
{
    if (user == MPI_STATUS_IGNORE) return;
    int keep = user->MPI_ERROR;
    *user = *st;
    user->MPI_ERROR = keep;
}
/* MPICH returns rich error codes; compare classes, never codes. */
static inline int compi_error_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS) PMPI_Error_class(code, &cls);
    return cls;
}

#endif
