/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood collectives (blocking and nonblocking) on cartesian, graph
 * and distributed-graph communicators: every block is one compi message
 * (compressed to another node per the point-to-point decision), as a
 * one-round schedule (nbc.h); the blocking forms run it to completion.
 *
 * Neighbours come from the topology in the standard's order: cartesian,
 * for each dimension the -1 then the +1 neighbour (MPI_Cart_shift), both as
 * sources and destinations, MPI_PROC_NULL ones taking part in nothing;
 * graph, MPI_Graph_neighbors; distributed graph, MPI_Dist_graph_neighbors.
 * On a cartesian communicator the same rank can be a process's -1 and +1
 * neighbour (a periodic dimension of size 1 or 2): the block sent to the +1
 * neighbour must land in that rank's -1 slot, so each direction has a tag
 * of its own. Graph edges repeated between two ranks match in order.
 * The w variants go to the MPI unchanged, counted. */
#include <stdlib.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "core/profile.h"

static int *compi_nbc_ints(int n)
{
    return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
}

int compi_nbc_degrees(MPI_Comm comm, int *topo, int *indeg, int *outdeg, int *weighted)
{
    int rc;
    *topo = MPI_UNDEFINED;
    *indeg = *outdeg = *weighted = 0;
    if ((rc = PMPI_Topo_test(comm, topo)) != MPI_SUCCESS) return rc;
    if (*topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *indeg = *outdeg = 2 * nd;
    } else if (*topo == MPI_GRAPH) {
        int rank, n = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        *indeg = *outdeg = n;
    } else if (*topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, weighted);
    } else {
        return MPI_ERR_TOPOLOGY;
    }
    return MPI_SUCCESS;
}

int compi_nbc_neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out, int **send_sub, int **recv_sub)
{
    int topo, weighted, rc;
    *in = *out = *send_sub = *recv_sub = NULL;
    if ((rc = compi_nbc_degrees(comm, &topo, indeg, outdeg, &weighted)) != MPI_SUCCESS) return rc;
    if (topo == MPI_CART) {
        int nd = *indeg / 2;
        if (2 * nd > COMPI_NBC_SUBTAGS) return MPI_ERR_DIMS;
        *in = compi_nbc_ints(2 * nd), *out = compi_nbc_ints(2 * nd);
        *send_sub = compi_nbc_ints(2 * nd), *recv_sub = compi_nbc_ints(2 * nd);
        if (!*in || !*out || !*send_sub || !*recv_sub) return MPI_ERR_NO_MEM;
        for (int d = 0; d < nd; d++) {
            int lo, hi;
            if ((rc = PMPI_Cart_shift(comm, d, 1, &lo, &hi)) != MPI_SUCCESS) return rc;
            (*in)[2 * d] = (*out)[2 * d] = lo;
            (*in)[2 * d + 1] = (*out)[2 * d + 1] = hi;
            /* what I send towards -1 arrives at that rank from its +1 side */
            (*send_sub)[2 * d] = 2 * d;
            (*send_sub)[2 * d + 1] = 2 * d + 1;
            (*recv_sub)[2 * d] = 2 * d + 1;
            (*recv_sub)[2 * d + 1] = 2 * d;
        }
        return MPI_SUCCESS;
    }
    *in = compi_nbc_ints(*indeg), *out = compi_nbc_ints(*outdeg);
    if (!*in || !*out) return MPI_ERR_NO_MEM;
    if (topo == MPI_GRAPH) {
        int rank, n = *indeg;
        PMPI_Comm_rank(comm, &rank);
        if (n > 0 && (rc = PMPI_Graph_neighbors(comm, rank, n, *in)) != MPI_SUCCESS) return rc;
        for (int i = 0; i < n; i++) (*out)[i] = (*in)[i];
    } else {
        int *w1 = compi_nbc_ints(*indeg), *w2 = compi_nbc_ints(*outdeg);
        if (!w1 || !w2) {
            free(w1);
            free(w2);
            return MPI_ERR_NO_MEM;
        }
        rc = PMPI_Dist_graph_neighbors(comm, *indeg, *in, weighted ? w1 : MPI_UNWEIGHTED, *outdeg, *out,
                                       weighted ? w2 : MPI_UNWEIGHTED);
        free(w1);
        free(w2);
        if (rc != MPI_SUCCESS) return rc;
    }
    *send_sub = calloc((size_t)(*outdeg > 0 ? *outdeg : 1), sizeof(int));
    *recv_sub = calloc((size_t)(*indeg > 0 ? *indeg : 1), sizeof(int));
    return *send_sub && *recv_sub ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static MPI_Aint compi_nbr_extent(MPI_Datatype dt)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    return extent;
}

/* One neighbourhood exchange. sendcounts/sdispls NULL: every destination
 * gets sendcount elements at block i (alltoall) or the same block
 * (allgather: same_block); likewise for the receive side. request NULL:
 * blocking. */
static int compi_nbr_run(const void *sendbuf, const int *sendcounts, const int *sdispls, int sendcount,
                         MPI_Datatype sendtype, int same_block, void *recvbuf, const int *recvcounts,
                         const int *rdispls, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         const compi_comm_info *ci, compi_nbc_kind kind, compi_family fam, MPI_Request *request)
{
    int indeg = 0, outdeg = 0, *in, *out, *ssub, *rsub;
    int rc = compi_nbc_neighbors(comm, &indeg, &in, &outdeg, &out, &ssub, &rsub);
    compi_sched *s = rc == MPI_SUCCESS ? compi_sched_new(comm, ci, kind, fam, &rc) : NULL;
    MPI_Aint sext = compi_nbr_extent(sendtype), rext = compi_nbr_extent(recvtype);
    for (int i = 0; i < indeg && s && rc == MPI_SUCCESS; i++) {
        int cnt = recvcounts ? recvcounts[i] : recvcount;
        MPI_Aint at = rdispls ? rdispls[i] : (MPI_Aint)i * recvcount;
        if (cnt > 0) rc = compi_sched_recv(s, (char *)recvbuf + at * rext, cnt, recvtype, in[i], rsub[i]);
    }
    for (int i = 0; i < outdeg && s && rc == MPI_SUCCESS; i++) {
        int cnt = sendcounts ? sendcounts[i] : sendcount;
        MPI_Aint at = same_block ? 0 : sdispls ? sdispls[i] : (MPI_Aint)i * sendcount;
        if (cnt > 0) rc = compi_sched_send(s, (const char *)sendbuf + at * sext, cnt, sendtype, out[i], ssub[i]);
    }
    free(in);
    free(out);
    free(ssub);
    free(rsub);
    if (!s) return compi_raise(comm, rc);
    if (rc != MPI_SUCCESS) {
        compi_sched_abandon(s);
        return compi_raise(comm, rc);
    }
    rc = request ? compi_sched_start(s, request) : compi_sched_run(s);
    return compi_raise(comm, rc);
}

/* The neighbourhood calls take compi's path on any communicator compi
 * frames, unless the gate (nbc_gate.c) passes them to the MPI: which blocks
 * compress is each message's own decision, and every rank of the
 * communicator takes the same path. Their gate's size class is 0: a rank's
 * block sizes need not match those of ranks it has no edge with. */
static const compi_comm_info *compi_nbr_enter(compi_nbc_kind kind, MPI_Comm comm)
{
    COMPI_NBC_ADD(kind, COMPI_NBC_CALLS, 1);
    const compi_comm_info *ci;
    return compi_coll_applies(comm, &ci) ? ci : NULL;
}

/* Ends the gate's ticket (NULL: none) of a call that returns rc. */
static int compi_nbr_gated(compi_nbc_ticket *t, int rc)
{
    if (t) compi_nbc_gate_end(t);
    return rc;
}

int compi_impl_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_NEIGHBOR_ALLTOALL, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_SEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_NEIGHBOR_ALLTOALL, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(
            ci ? &t : NULL, PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    return compi_nbr_gated(&t,
                           compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 0, recvbuf, NULL, NULL, recvcount,
                                         recvtype, comm, ci, COMPI_NBC_NEIGHBOR_ALLTOALL, COMPI_FAM_ALLTOALL, NULL));
}

int compi_impl_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_INEIGHBOR_ALLTOALL, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_ISEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_INEIGHBOR_ALLTOALL, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                                       recvtype, comm, request));
    return compi_nbr_gated(&t, compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 0, recvbuf, NULL, NULL,
                                             recvcount, recvtype, comm, ci, COMPI_NBC_INEIGHBOR_ALLTOALL,
                                             COMPI_FAM_ALLTOALL, request));
}

int compi_impl_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_NEIGHBOR_ALLTOALLV, comm);
    compi_nbr_prof(comm, sendcounts, 0, sendtype, COMPI_PROF_SEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_NEIGHBOR_ALLTOALLV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                                       recvcounts, rdispls, recvtype, comm));
    return compi_nbr_gated(&t,
                           compi_nbr_run(sendbuf, sendcounts, sdispls, 0, sendtype, 0, recvbuf, recvcounts, rdispls, 0,
                                         recvtype, comm, ci, COMPI_NBC_NEIGHBOR_ALLTOALLV, COMPI_FAM_ALLTOALL, NULL));
}

int compi_impl_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_INEIGHBOR_ALLTOALLV, comm);
    compi_nbr_prof(comm, sendcounts, 0, sendtype, COMPI_PROF_ISEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_INEIGHBOR_ALLTOALLV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                                        recvcounts, rdispls, recvtype, comm, request));
    return compi_nbr_gated(&t, compi_nbr_run(sendbuf, sendcounts, sdispls, 0, sendtype, 0, recvbuf, recvcounts, rdispls,
                                             0, recvtype, comm, ci, COMPI_NBC_INEIGHBOR_ALLTOALLV, COMPI_FAM_ALLTOALL,
                                             request));
}

int compi_impl_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_NEIGHBOR_ALLGATHER, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_SEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_NEIGHBOR_ALLGATHER, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(
            ci ? &t : NULL, PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
    return compi_nbr_gated(&t,
                           compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 1, recvbuf, NULL, NULL, recvcount,
                                         recvtype, comm, ci, COMPI_NBC_NEIGHBOR_ALLGATHER, COMPI_FAM_ALLGATHER, NULL));
}

int compi_impl_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_INEIGHBOR_ALLGATHER, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_ISEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_INEIGHBOR_ALLGATHER, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                                                        recvcount, recvtype, comm, request));
    return compi_nbr_gated(&t, compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 1, recvbuf, NULL, NULL,
                                             recvcount, recvtype, comm, ci, COMPI_NBC_INEIGHBOR_ALLGATHER,
                                             COMPI_FAM_ALLGATHER, request));
}

int compi_impl_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_NEIGHBOR_ALLGATHERV, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_SEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_NEIGHBOR_ALLGATHERV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                                        recvcounts, displs, recvtype, comm));
    return compi_nbr_gated(&t,
                           compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 1, recvbuf, recvcounts, displs, 0,
                                         recvtype, comm, ci, COMPI_NBC_NEIGHBOR_ALLGATHERV, COMPI_FAM_ALLGATHER, NULL));
}

int compi_impl_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbr_enter(COMPI_NBC_INEIGHBOR_ALLGATHERV, comm);
    compi_nbr_prof(comm, NULL, sendcount, sendtype, COMPI_PROF_ISEND);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_INEIGHBOR_ALLGATHERV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbr_gated(ci ? &t : NULL, PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                                         recvcounts, displs, recvtype, comm, request));
    return compi_nbr_gated(&t, compi_nbr_run(sendbuf, NULL, NULL, sendcount, sendtype, 1, recvbuf, recvcounts, displs,
                                             0, recvtype, comm, ci, COMPI_NBC_INEIGHBOR_ALLGATHERV, COMPI_FAM_ALLGATHER,
                                             request));
}

/* The w variants: a datatype per block and byte displacements; the MPI's
 * own, counted. */
int compi_impl_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    COMPI_NBC_ADD(COMPI_NBC_NEIGHBOR_ALLTOALLW, COMPI_NBC_CALLS, 1);
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm);
}

int compi_impl_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Request *request)
{
    COMPI_NBC_ADD(COMPI_NBC_INEIGHBOR_ALLTOALLW, COMPI_NBC_CALLS, 1);
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, request);
}
