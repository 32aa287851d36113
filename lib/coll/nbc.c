/* SPDX-License-Identifier: BSD-3-Clause */
/* The nonblocking collectives over a whole communicator as schedules of
 * compi messages (nbc.h, sched.c).
 *
 *   ibcast            the root sends the buffer to every rank (one round)
 *   igather(v)        every rank sends its block to the root (one round)
 *   iscatter(v)       the root sends every rank its block (one round)
 *   iallgather(v)     every rank sends its block to every rank (one round)
 *   ialltoall(v)      every rank pair exchanges its blocks (one round)
 *   iallreduce        reduce-scatter: every rank sends each rank its part of
 *                     the vector (an equal split) and combines the parts it
 *                     gets in rank order; then allgather of the combined
 *                     parts (two rounds). One rank combines each part, so
 *                     every rank gets the same bits.
 *   ireduce           the same reduce-scatter, then the parts go to the root
 *   ireduce_scatter(_block)  the reduce-scatter with the caller's parts
 * These reduction schedules run where every rank is a node of its own
 * (compi_nbc_one_per_node); elsewhere the node-aware ones of nbc_nodes.c.
 * Each message is a compi message: compressed per the point-to-point
 * decision when it goes to another node, plain inside the node. Which
 * calls take this path is decided from sizes every rank knows (the
 * collective floor, compi_coll_may_compress) or, for the v variants whose
 * sizes differ per rank, from the communicator alone, so all ranks agree.
 * Reductions with user ops or derived datatypes, intercommunicators and
 * communicators compi does not frame go to the MPI's own call. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "core/profile.h"

uint64_t compi_nbc_st[COMPI_NBC_KINDS][COMPI_NBC_FIELDS];
const char *const compi_nbc_names[COMPI_NBC_KINDS] = {
    "ibcast",
    "igather",
    "igatherv",
    "iscatter",
    "iscatterv",
    "iallgather",
    "iallgatherv",
    "ialltoall",
    "ialltoallv",
    "ialltoallw",
    "iallreduce",
    "ireduce",
    "ireduce_scatter",
    "ireduce_scatter_block",
    "neighbor_allgather",
    "neighbor_allgatherv",
    "neighbor_alltoall",
    "neighbor_alltoallv",
    "ineighbor_allgather",
    "ineighbor_allgatherv",
    "ineighbor_alltoall",
    "ineighbor_alltoallv",
    "ibarrier",
    "iscan",
    "iexscan",
    "neighbor_alltoallw",
    "ineighbor_alltoallw",
};
const char *const compi_nbc_field_names[COMPI_NBC_FIELDS] = {"calls", "compressed_path", "bytes", "inter_msgs",
                                                             "gated"};

/* Counts the call; the communicator's info when compi's path may apply. */
static const compi_comm_info *compi_nbc_enter(compi_nbc_kind kind, MPI_Comm comm)
{
    COMPI_NBC_ADD(kind, COMPI_NBC_CALLS, 1);
    const compi_comm_info *ci;
    return compi_coll_applies(comm, &ci) ? ci : NULL;
}

static MPI_Aint compi_nbc_extent(MPI_Datatype dt)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    return extent;
}

static char *compi_nbc_at(const void *base, MPI_Aint elems, MPI_Datatype dt)
{
    return (char *)base + elems * compi_nbc_extent(dt);
}

static size_t compi_nbc_bytes(MPI_Datatype dt, int count)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(dt, &size);
    return (size_t)(size * (MPI_Count)(count > 0 ? count : 0));
}

/* A copy of the memory n elements of dt span at buf, for in-place calls
 * whose data is sent from the buffer the receives write: returns the base
 * the same displacements apply to. */
static const void *compi_nbc_span_copy(compi_sched *s, const void *buf, MPI_Aint n, MPI_Datatype dt, int *rc)
{
    *rc = MPI_SUCCESS;
    if (n <= 0) return buf;
    MPI_Aint tlb, textent, extent = compi_nbc_extent(dt);
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    size_t span = (size_t)((n - 1) * extent + textent);
    char *tmp = compi_sched_alloc(s, span);
    if (!tmp) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    memcpy(tmp, (const char *)buf + tlb, span);
    return tmp - tlb;
}

/* Starts s, or on failure raises the error on comm. */
static int compi_nbc_go(compi_sched *s, int rc, MPI_Comm comm, MPI_Request *request)
{
    if (rc != MPI_SUCCESS) {
        compi_sched_abandon(s);
        return compi_raise(comm, rc);
    }
    return compi_raise(comm, compi_sched_start(s, request));
}

/* Ends the gate's ticket of a call that returns rc. */
static int compi_nbc_gated(compi_nbc_ticket *t, int rc)
{
    if (t) compi_nbc_gate_end(t);
    return rc;
}

/* ---------------------------------------------------------------- ibcast */

static int compi_ibcast_sched(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, const compi_comm_info *ci,
                              MPI_Request *request)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, COMPI_NBC_IBCAST, COMPI_FAM_BCAST, &rc);
    if (!s) return compi_raise(comm, rc);
    for (int k = 1; k < size && rc == MPI_SUCCESS && rank == root; k++)
        rc = compi_sched_send(s, buf, count, dt, (root + k) % size, 0);
    if (rank != root) rc = compi_sched_recv(s, buf, count, dt, root, 0);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IBCAST, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_BCAST, root, count, dt, NULL, MPI_OP_NULL);
    size_t bytes = compi_nbc_bytes(dt, count);
    if (!ci || !compi_coll_may_compress(ci, bytes)) return PMPI_Ibcast(buf, count, dt, root, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IBCAST, bytes, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(&t, PMPI_Ibcast(buf, count, dt, root, comm, request));
    return compi_nbc_gated(&t, compi_ibcast_sched(buf, count, dt, root, comm, ci, request));
}

/* ---------------------------------------------------------------- igather(v), iscatter(v) */

static int compi_igather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                const int *recvcounts, const int *displs, int recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind,
                                MPI_Request *request)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, kind, COMPI_FAM_GATHER, &rc);
    if (!s) return compi_raise(comm, rc);
    for (int i = 0; i < size && rc == MPI_SUCCESS && rank == root; i++) {
        int cnt = recvcounts ? recvcounts[i] : recvcount;
        if (cnt <= 0 || (i == root && sendbuf == MPI_IN_PLACE)) continue;
        MPI_Aint at = displs ? displs[i] : (MPI_Aint)i * recvcount;
        rc = compi_sched_recv(s, compi_nbc_at(recvbuf, at, recvtype), cnt, recvtype, i, 0);
    }
    if (rc == MPI_SUCCESS && sendcount > 0 && !(rank == root && sendbuf == MPI_IN_PLACE))
        rc = compi_sched_send(s, sendbuf, sendcount, sendtype, root, 0);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IGATHER, comm);
    compi_nbc_rooted_prof(comm, COMPI_PROF_GATHER, root, recvcount, recvtype, NULL, sendcount, sendtype);
    int rank = 0;
    if (ci) PMPI_Comm_rank(comm, &rank);
    size_t block = rank == root ? compi_nbc_bytes(recvtype, recvcount) : compi_nbc_bytes(sendtype, sendcount);
    if (!ci || !compi_coll_may_compress(ci, block))
        return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IGATHER, block, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(
            &t, PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
    return compi_nbc_gated(&t, compi_igather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                                                    recvtype, root, comm, ci, COMPI_NBC_IGATHER, request));
}

int compi_impl_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IGATHERV, comm);
    compi_nbc_rooted_prof(comm, COMPI_PROF_GATHERV, root, 0, recvtype, recvcounts, sendcount, sendtype);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_IGATHERV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(ci ? &t : NULL, PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                             recvtype, root, comm, request));
    return compi_nbc_gated(&t, compi_igather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                                                    recvtype, root, comm, ci, COMPI_NBC_IGATHERV, request));
}

static int compi_iscatter_common(const void *sendbuf, const int *sendcounts, const int *displs, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, MPI_Request *request)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, kind, COMPI_FAM_SCATTER, &rc);
    if (!s) return compi_raise(comm, rc);
    if (recvcount > 0 && !(rank == root && recvbuf == MPI_IN_PLACE))
        rc = compi_sched_recv(s, recvbuf, recvcount, recvtype, root, 0);
    for (int k = 0; k < size && rc == MPI_SUCCESS && rank == root; k++) {
        int i = (root + k) % size;
        int cnt = sendcounts ? sendcounts[i] : sendcount;
        if (cnt <= 0 || (i == root && recvbuf == MPI_IN_PLACE)) continue;
        MPI_Aint at = displs ? displs[i] : (MPI_Aint)i * sendcount;
        rc = compi_sched_send(s, compi_nbc_at(sendbuf, at, sendtype), cnt, sendtype, i, 0);
    }
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_ISCATTER, comm);
    compi_nbc_rooted_prof(comm, COMPI_PROF_SCATTER, root, sendcount, sendtype, NULL, recvcount, recvtype);
    int rank = 0;
    if (ci) PMPI_Comm_rank(comm, &rank);
    size_t block = rank == root ? compi_nbc_bytes(sendtype, sendcount) : compi_nbc_bytes(recvtype, recvcount);
    if (!ci || !compi_coll_may_compress(ci, block))
        return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_ISCATTER, block, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(
            &t, PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request));
    return compi_nbc_gated(&t, compi_iscatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                                                     recvtype, root, comm, ci, COMPI_NBC_ISCATTER, request));
}

int compi_impl_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_ISCATTERV, comm);
    compi_nbc_rooted_prof(comm, COMPI_PROF_SCATTERV, root, 0, sendtype, sendcounts, recvcount, recvtype);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_ISCATTERV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(ci ? &t : NULL, PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                              recvtype, root, comm, request));
    return compi_nbc_gated(&t, compi_iscatter_common(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                                                     recvtype, root, comm, ci, COMPI_NBC_ISCATTERV, request));
}

/* ---------------------------------------------------------------- iallgather(v) */

static int compi_iallgather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int *recvcounts, const int *displs, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, MPI_Request *request)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, kind, COMPI_FAM_ALLGATHER, &rc);
    if (!s) return compi_raise(comm, rc);
    int inplace = sendbuf == MPI_IN_PLACE;
    for (int k = inplace ? 1 : 0; k < size && rc == MPI_SUCCESS; k++) {
        int i = (rank + size - k) % size; /* from the left neighbour round the ring */
        int cnt = recvcounts ? recvcounts[i] : recvcount;
        MPI_Aint at = displs ? displs[i] : (MPI_Aint)i * recvcount;
        if (cnt > 0) rc = compi_sched_recv(s, compi_nbc_at(recvbuf, at, recvtype), cnt, recvtype, i, 0);
    }
    const void *sbuf = sendbuf;
    int scount = sendcount;
    MPI_Datatype stype = sendtype;
    if (inplace) { /* my block is in place: it is sent from there, nothing receives into it */
        scount = recvcounts ? recvcounts[rank] : recvcount;
        stype = recvtype;
        sbuf = compi_nbc_at(recvbuf, displs ? displs[rank] : (MPI_Aint)rank * recvcount, recvtype);
    }
    for (int k = inplace ? 1 : 0; k < size && rc == MPI_SUCCESS && scount > 0; k++)
        rc = compi_sched_send(s, sbuf, scount, stype, (rank + k) % size, 0);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IALLGATHER, comm);
    /* profiled as the blocking twin, which compi map's DKB decomposes */
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLGATHER, -1, recvcount, recvtype, NULL, MPI_OP_NULL);
    size_t bytes = compi_nbc_bytes(recvtype, recvcount);
    if (!ci || !compi_coll_may_compress(ci, bytes))
        return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IALLGATHER, bytes, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(
            &t, PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
    return compi_nbc_gated(&t, compi_iallgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                                                       recvtype, comm, ci, COMPI_NBC_IALLGATHER, request));
}

int compi_impl_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IALLGATHERV, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLGATHERV, -1, 0, recvtype, recvcounts, MPI_OP_NULL);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_IALLGATHERV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(ci ? &t : NULL, PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                                displs, recvtype, comm, request));
    return compi_nbc_gated(&t, compi_iallgather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                                                       recvtype, comm, ci, COMPI_NBC_IALLGATHERV, request));
}

/* ---------------------------------------------------------------- ialltoall(v) */

static int compi_ialltoall_common(const void *sendbuf, const int *sendcounts, const int *sdispls, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const compi_comm_info *ci,
                                  compi_nbc_kind kind, MPI_Request *request)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, kind, COMPI_FAM_ALLTOALL, &rc);
    if (!s) return compi_raise(comm, rc);
    if (sendbuf == MPI_IN_PLACE) {
        /* the blocks to send are where the received ones land: send a copy */
        MPI_Aint span = 0;
        for (int i = 0; i < size; i++) {
            MPI_Aint end = recvcounts ? (MPI_Aint)rdispls[i] + recvcounts[i] : (MPI_Aint)(i + 1) * recvcount;
            if ((recvcounts ? recvcounts[i] : recvcount) > 0 && end > span) span = end;
        }
        sendbuf = compi_nbc_span_copy(s, recvbuf, span, recvtype, &rc);
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    if (sendcounts) compi_sched_away(s, compi_coll_blocks_away(ci, sendcounts));
    for (int k = 0; k < size && rc == MPI_SUCCESS; k++) {
        int i = (rank + size - k) % size;
        int cnt = recvcounts ? recvcounts[i] : recvcount;
        MPI_Aint at = rdispls ? rdispls[i] : (MPI_Aint)i * recvcount;
        if (cnt > 0) rc = compi_sched_recv(s, compi_nbc_at(recvbuf, at, recvtype), cnt, recvtype, i, 0);
    }
    for (int k = 0; k < size && rc == MPI_SUCCESS; k++) {
        int i = (rank + k) % size;
        int cnt = sendcounts ? sendcounts[i] : sendcount;
        MPI_Aint at = sdispls ? sdispls[i] : (MPI_Aint)i * sendcount;
        if (cnt > 0) rc = compi_sched_send(s, compi_nbc_at(sendbuf, at, sendtype), cnt, sendtype, i, 0);
    }
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IALLTOALL, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLTOALL, -1, recvcount, recvtype, NULL, MPI_OP_NULL);
    size_t bytes = compi_nbc_bytes(recvtype, recvcount);
    /* judged as the blocking call (lib/core/decide.h) */
    if (!ci || !compi_coll_worth(ci, compi_alltoall_link_bytes(ci, bytes), compi_alltoall_extra(ci)))
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IALLTOALL, bytes, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(
            &t, PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request));
    return compi_nbc_gated(&t, compi_ialltoall_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL,
                                                      recvcount, recvtype, comm, ci, COMPI_NBC_IALLTOALL, request));
}

int compi_impl_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IALLTOALLV, comm);
    if (sendbuf == MPI_IN_PLACE)
        COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLTOALLV, -1, 0, recvtype, recvcounts, MPI_OP_NULL);
    else COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLTOALLV, -1, 0, sendtype, sendcounts, MPI_OP_NULL);
    compi_nbc_ticket t;
    if (!ci || compi_nbc_gate_begin(comm, ci, COMPI_NBC_IALLTOALLV, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(ci ? &t : NULL, PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                               recvcounts, rdispls, recvtype, comm, request));
    return compi_nbc_gated(&t, compi_ialltoall_common(sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts,
                                                      rdispls, 0, recvtype, comm, ci, COMPI_NBC_IALLTOALLV, request));
}

int compi_impl_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    COMPI_NBC_ADD(COMPI_NBC_IALLTOALLW, COMPI_NBC_CALLS, 1);
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                           request);
}

/* ---------------------------------------------------------------- passed to the MPI */

/* No data (Ibarrier), or a result that differs on every rank (the prefix
 * reductions, as their blocking twins): the MPI's own, counted. */
int compi_impl_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    COMPI_NBC_ADD(COMPI_NBC_IBARRIER, COMPI_NBC_CALLS, 1);
    return PMPI_Ibarrier(comm, request);
}

int compi_impl_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                     MPI_Request *request)
{
    COMPI_NBC_ADD(COMPI_NBC_ISCAN, COMPI_NBC_CALLS, 1);
    return PMPI_Iscan(sendbuf, recvbuf, count, dt, op, comm, request);
}

int compi_impl_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                       MPI_Request *request)
{
    COMPI_NBC_ADD(COMPI_NBC_IEXSCAN, COMPI_NBC_CALLS, 1);
    return PMPI_Iexscan(sendbuf, recvbuf, count, dt, op, comm, request);
}

/* ---------------------------------------------------------------- reductions */

/* The reduce-scatter every reduction here starts with: part j (len[j]
 * elements from start[j]) of every rank's vector goes to rank j, which
 * combines the parts in rank order into dst (its part's len elements).
 * Adds round 1 (the exchange) and the combining steps of round 2. */
typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
    int n, len;
    char **part; /* part[i]: rank i's contribution (mine: a copy) */
    char *dst;
    size_t esize; /* the extent */
    size_t span;  /* bytes len elements touch: no padding after the last */
} compi_rs;

static int compi_rs_combine(void *arg)
{
    compi_rs *q = arg;
    if (q->len <= 0) return MPI_SUCCESS;
    /* dst = part[0] op (part[1] op (... part[n-1])): one rank combines each
     * part, so the result is the same on every rank */
    memmove(q->dst, q->part[q->n - 1], q->span);
    for (int i = q->n - 2; i >= 0; i--) {
        int rc = PMPI_Reduce_local(q->part[i], q->dst, q->len, q->dt, q->op);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* sbuf: the whole vector (count elements); start/len per rank; dst: where
 * my combined part goes (may lie in sbuf: my contribution is copied). */
static int compi_rs_build(compi_sched *s, const void *sbuf, MPI_Datatype dt, MPI_Op op, const int *start,
                          const int *len, char *dst, int rank, int size)
{
    compi_rs *q = compi_sched_alloc(s, sizeof *q);
    char **part = compi_sched_alloc(s, sizeof(char *) * (size_t)size);
    if (!q || !part) return MPI_ERR_NO_MEM;
    /* predefined types, but pair types (MPI_DOUBLE_INT) have padding:
     * elements lie an extent apart */
    *q = (compi_rs){dt, op, size, len[rank], part, dst, (size_t)compi_nbc_extent(dt), 0};
    MPI_Aint tlb, textent;
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    if (len[rank] > 0) q->span = (size_t)(len[rank] - 1) * q->esize + (size_t)textent;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        part[i] = compi_sched_alloc(s, (size_t)len[rank] * q->esize);
        if (!part[i]) return MPI_ERR_NO_MEM;
        if (i == rank) memcpy(part[i], (const char *)sbuf + (size_t)start[rank] * q->esize, q->span);
        else if (len[rank] > 0) rc = compi_sched_recv(s, part[i], len[rank], dt, i, 1);
    }
    for (int k = 1; k < size && rc == MPI_SUCCESS; k++) {
        int j = (rank + k) % size;
        if (len[j] > 0) rc = compi_sched_send(s, (const char *)sbuf + (size_t)start[j] * q->esize, len[j], dt, j, 1);
    }
    compi_sched_round(s);
    if (rc == MPI_SUCCESS) rc = compi_sched_call(s, compi_rs_combine, q);
    return rc;
}

/* The equal split of count elements over size parts (the first count %
 * size parts one longer). */
static int compi_rs_split(compi_sched *s, int count, int size, int **start, int **len)
{
    *start = compi_sched_alloc(s, sizeof(int) * (size_t)size);
    *len = compi_sched_alloc(s, sizeof(int) * (size_t)size);
    if (!*start || !*len) return MPI_ERR_NO_MEM;
    int q = count / size, r = count % size, at = 0;
    for (int i = 0; i < size; i++) {
        (*start)[i] = at;
        (*len)[i] = q + (i < r);
        at += (*len)[i];
    }
    return MPI_SUCCESS;
}

/* The reductions' schedule here is direct, not node-aware: with several
 * ranks on a node every rank's shares would cross the node's link, a third
 * more than the MPI's ring moves there. So it runs only where every rank is
 * a node of its own (there it moves what a ring moves, compressed); other
 * layouts take the node-aware schedules (nbc_nodes.c). The node map is
 * local (no collective: the call must not block). */
static int compi_nbc_one_per_node(MPI_Comm comm, const compi_comm_info *ci)
{
    int rc;
    const compi_coll_layout *l = compi_coll_nodes_get(comm, ci, &rc);
    return l && l->nnodes == l->size;
}

/* Where some node holds several ranks the node-aware schedules run with
 * COMPI_NBC_NODE_REDUCE on (the default; every rank has the same setting),
 * else the MPI's own call: the MPI's own Iallreduce already moves the
 * vector about twice per node link, so compi gains at most the partial
 * sums' compression ratio; data that does not compress goes to the MPI's
 * own call through the gate (nbc_gate.c, docs/nbc.md). */
static int compi_nbc_node_path(MPI_Comm comm, const compi_comm_info *ci)
{
    return !compi_nbc_one_per_node(comm, ci) && compi_cfg.nbc_node_reduce;
}

/* Whether compi has a schedule of its own for a reduction on comm. */
static int compi_nbc_reduction_path(MPI_Comm comm, const compi_comm_info *ci)
{
    return compi_nbc_one_per_node(comm, ci) || compi_cfg.nbc_node_reduce;
}

static int compi_nbc_reduction_gate(const compi_comm_info *ci, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    (void)comm;
    return ci && compi_coll_reduction_ok(dt, op) && compi_coll_may_compress(ci, compi_nbc_bytes(dt, count));
}

static int compi_iallreduce_sched(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                                  MPI_Comm comm, const compi_comm_info *ci, MPI_Request *request)
{
    if (compi_nbc_node_path(comm, ci))
        return compi_nbc_node_allreduce(sendbuf, recvbuf, count, dt, op, comm, ci, request);
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, COMPI_NBC_IALLREDUCE, COMPI_FAM_ALLREDUCE, &rc);
    if (!s) return compi_raise(comm, rc);
    const void *sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int *start, *len;
    rc = compi_rs_split(s, count, size, &start, &len);
    size_t es = (size_t)compi_nbc_extent(dt);
    if (rc == MPI_SUCCESS)
        rc = compi_rs_build(s, sbuf, dt, op, start, len, (char *)recvbuf + (size_t)start[rank] * es, rank, size);
    /* round 2: every combined part to every rank */
    for (int k = 1; k < size && rc == MPI_SUCCESS; k++) {
        int i = (rank + size - k) % size;
        if (len[i] > 0) rc = compi_sched_recv(s, (char *)recvbuf + (size_t)start[i] * es, len[i], dt, i, 2);
    }
    for (int k = 1; k < size && rc == MPI_SUCCESS && len[rank] > 0; k++)
        rc = compi_sched_send(s, (char *)recvbuf + (size_t)start[rank] * es, len[rank], dt, (rank + k) % size, 2);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IALLREDUCE, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_ALLREDUCE, -1, count, dt, NULL, op);
    if (!compi_nbc_reduction_gate(ci, count, dt, op, comm) || !compi_nbc_reduction_path(comm, ci))
        return PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IALLREDUCE, compi_nbc_bytes(dt, count), &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(&t, PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, request));
    return compi_nbc_gated(&t, compi_iallreduce_sched(sendbuf, recvbuf, count, dt, op, comm, ci, request));
}

static int compi_ireduce_sched(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                               MPI_Comm comm, const compi_comm_info *ci, MPI_Request *request)
{
    if (compi_nbc_node_path(comm, ci))
        return compi_nbc_node_reduce(sendbuf, recvbuf, count, dt, op, root, comm, ci, request);
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, COMPI_NBC_IREDUCE, COMPI_FAM_REDUCE, &rc);
    if (!s) return compi_raise(comm, rc);
    const void *sbuf = sendbuf == MPI_IN_PLACE && rank == root ? recvbuf : sendbuf;
    int *start, *len;
    rc = compi_rs_split(s, count, size, &start, &len);
    size_t es = (size_t)compi_nbc_extent(dt);
    /* the root combines its part straight into place; the others stage it */
    char *mine = NULL;
    if (rc == MPI_SUCCESS)
        mine = rank == root ? (char *)recvbuf + (size_t)start[rank] * es : compi_sched_alloc(s, (size_t)len[rank] * es);
    if (rc == MPI_SUCCESS && !mine) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = compi_rs_build(s, sbuf, dt, op, start, len, mine, rank, size);
    for (int i = 0; i < size && rc == MPI_SUCCESS && rank == root; i++)
        if (i != root && len[i] > 0)
            rc = compi_sched_recv(s, (char *)recvbuf + (size_t)start[i] * es, len[i], dt, i, 2);
    if (rc == MPI_SUCCESS && rank != root && len[rank] > 0) rc = compi_sched_send(s, mine, len[rank], dt, root, 2);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IREDUCE, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_REDUCE, root, count, dt, NULL, op);
    if (!compi_nbc_reduction_gate(ci, count, dt, op, comm) || !compi_nbc_reduction_path(comm, ci))
        return PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IREDUCE, compi_nbc_bytes(dt, count), &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(&t, PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, request));
    return compi_nbc_gated(&t, compi_ireduce_sched(sendbuf, recvbuf, count, dt, op, root, comm, ci, request));
}

static int compi_ireduce_scatter_common(const void *sendbuf, void *recvbuf, const int *recvcounts, int recvcount,
                                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const compi_comm_info *ci,
                                        compi_nbc_kind kind, MPI_Request *request)
{
    if (compi_nbc_node_path(comm, ci))
        return compi_nbc_node_reduce_scatter(sendbuf, recvbuf, recvcounts, recvcount, dt, op, comm, ci, kind, request);
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    compi_sched *s = compi_sched_new(comm, ci, kind, COMPI_FAM_REDUCE, &rc);
    if (!s) return compi_raise(comm, rc);
    int *start = compi_sched_alloc(s, sizeof(int) * (size_t)size),
        *len = compi_sched_alloc(s, sizeof(int) * (size_t)size);
    if (!start || !len) rc = MPI_ERR_NO_MEM;
    for (int i = 0, at = 0; i < size && rc == MPI_SUCCESS; i++) {
        start[i] = at;
        len[i] = recvcounts ? recvcounts[i] : recvcount;
        at += len[i];
    }
    /* in place: the whole vector is in recvbuf, my part lands at its start
     * (my contribution was copied, the others' parts sent, by then) */
    const void *sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS) rc = compi_rs_build(s, sbuf, dt, op, start, len, recvbuf, rank, size);
    return compi_nbc_go(s, rc, comm, request);
}

int compi_impl_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IREDUCE_SCATTER, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_REDUCE_SCATTER, -1, 0, dt, recvcounts, op);
    if (!ci || !compi_coll_reduction_ok(dt, op) || !compi_nbc_reduction_path(comm, ci))
        return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IREDUCE_SCATTER, 0, &t) == COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(&t, PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm, request));
    return compi_nbc_gated(&t, compi_ireduce_scatter_common(sendbuf, recvbuf, recvcounts, 0, dt, op, comm, ci,
                                                            COMPI_NBC_IREDUCE_SCATTER, request));
}

int compi_impl_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm, MPI_Request *request)
{
    const compi_comm_info *ci = compi_nbc_enter(COMPI_NBC_IREDUCE_SCATTER_BLOCK, comm);
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_REDUCE_SCATTER_BLOCK, -1, recvcount, dt, NULL, op);
    if (!compi_nbc_reduction_gate(ci, recvcount, dt, op, comm) || !compi_nbc_reduction_path(comm, ci))
        return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm, request);
    compi_nbc_ticket t;
    if (compi_nbc_gate_begin(comm, ci, COMPI_NBC_IREDUCE_SCATTER_BLOCK, compi_nbc_bytes(dt, recvcount), &t) ==
        COMPI_TRIALS_PATH_MPI)
        return compi_nbc_gated(&t, PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm, request));
    return compi_nbc_gated(&t, compi_ireduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, dt, op, comm, ci,
                                                            COMPI_NBC_IREDUCE_SCATTER_BLOCK, request));
}
