/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication profile (lib/core/profile.c, engine/commprof.h): the
 * wrappers call the COMPI_PROF_* hooks, which cost one test unless the run
 * writes a trace (COMPI_MODE=trace or profile) or a report. */
#ifndef COMPI_CORE_PROFILE_H
#define COMPI_CORE_PROFILE_H
#include <mpi.h>
#include "engine/commprof.h"

struct compi_trace_writer;
extern int compi_prof_on;
void compi_prof_pre_init(void); /* before PMPI_Init: MPICH's algorithm pins in trace/profile mode */
void compi_prof_init(void);
void compi_prof_finalize(void);
void compi_prof_trace_opened(struct compi_trace_writer *w);  /* writes the algorithms */
void compi_prof_trace_closing(struct compi_trace_writer *w); /* writes the profile */
char *compi_prof_report_json(void);                          /* malloc'd; "null" when off */
void compi_prof_send_(MPI_Comm comm, int dest, int count, MPI_Datatype dt, int family);
/* path: compi_prof_path, how the call ran */
void compi_prof_coll_(MPI_Comm comm, int family, int root, int count, MPI_Datatype dt, const int *counts, MPI_Op op,
                      int path);
void compi_prof_alltoallw_(MPI_Comm comm, const int *sendcounts, const MPI_Datatype *sendtypes);
void compi_prof_persistent_(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype dt);
void compi_prof_start_(MPI_Request req);
void compi_prof_request_free_(MPI_Request req);
#define COMPI_PROF_ACTIVE() __builtin_expect(__atomic_load_n(&compi_prof_on, __ATOMIC_RELAXED), 0)
#define COMPI_PROF_SEND_HOOK(comm, dest, count, dt, fam)                                                               \
    do {                                                                                                               \
        if (COMPI_PROF_ACTIVE()) compi_prof_send_(comm, dest, count, dt, fam);                                         \
    } while (0)
/* count/dt: the block (or vector); counts: per-rank counts (v variants) or NULL */
#define COMPI_PROF_COLL_HOOK(comm, fam, root, count, dt, counts, op)                                                   \
    COMPI_PROF_COLL_PATH_HOOK(comm, fam, root, count, dt, counts, op, COMPI_PROF_PATH_MPI)
/* the collectives compi may run itself record after the call, with the path it took */
#define COMPI_PROF_COLL_PATH_HOOK(comm, fam, root, count, dt, counts, op, path)                                        \
    do {                                                                                                               \
        if (COMPI_PROF_ACTIVE()) compi_prof_coll_(comm, fam, root, count, dt, counts, op, path);                       \
    } while (0)

#endif
