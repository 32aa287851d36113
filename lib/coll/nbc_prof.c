/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication profile of the neighbourhood and nonblocking
 * collectives (core/profile.h, engine/commprof.h), for `compi map`.
 *
 * A neighbourhood collective's graph is explicit: whatever path the call
 * takes (compi's schedule or the MPI's own), each block goes straight from
 * a rank to one of its out-neighbours, so the call is recorded as those
 * point-to-point sends on the application's communicator, and compi map's
 * graph has exactly its edges. The nonblocking collectives are recorded as
 * their blocking twins (nbc.c), which compi map's DKB decomposes (lib/map),
 * whatever path the call takes. */
#include <stdlib.h>
#include "coll/nbc.h"
#include "core/profile.h"

void compi_nbr_prof(MPI_Comm comm, const int *sendcounts, int sendcount, MPI_Datatype sendtype, int family)
{
    if (!COMPI_PROF_ACTIVE()) return;
    int indeg = 0, outdeg = 0, *in, *out, *ssub, *rsub;
    /* no topology: the call fails in the MPI, nothing to record */
    if (compi_nbc_neighbors(comm, &indeg, &in, &outdeg, &out, &ssub, &rsub) == MPI_SUCCESS)
        for (int i = 0; i < outdeg; i++)
            compi_prof_send_(comm, out[i], sendcounts ? sendcounts[i] : sendcount, sendtype, family);
    free(in);
    free(out);
    free(ssub);
    free(rsub);
}

void compi_nbc_rooted_prof(MPI_Comm comm, int family, int root, int rcount, MPI_Datatype rtype, const int *rcounts,
                           int count, MPI_Datatype type)
{
    if (!COMPI_PROF_ACTIVE()) return;
    int me;
    PMPI_Comm_rank(comm, &me);
    if (me == root) compi_prof_coll_(comm, family, root, rcount, rtype, rcounts, MPI_OP_NULL, COMPI_PROF_PATH_MPI);
    else compi_prof_coll_(comm, family, root, count, type, NULL, MPI_OP_NULL, COMPI_PROF_PATH_MPI);
}
