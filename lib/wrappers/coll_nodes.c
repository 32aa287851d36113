/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives every rank takes part in: allgather(v), alltoall(v)(w),
 * the reductions and scans. Each call either runs compi's node-aware
 * algorithm (lib/coll/coll.h) or passes to the MPI; the choice comes from
 * sizes every rank knows, so all ranks take the same path. Calls on
 * communicators that span nodes are counted in full (calls, path, bytes,
 * inter-node wire bytes, time) for the report; elsewhere only calls. */
#include <stdlib.h>
#include "coll/coll.h"
#include "core/bigcount.h"
#include "core/comm.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/stats.h"
#include "core/status.h"
#include "wrappers/impl.h"

/* Extra metadata collectives of compi's path over the MPI's own (frame
 * lengths, plus the node-local steps): the block size must be worth them. */
#define COMPI_EXTRA_ALLGATHER 2
#define COMPI_EXTRA_REDUCE 3

static MPI_Count compi_type_bytes(MPI_Datatype dt, int count)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(dt, &size);
    return size * (MPI_Count)(count > 0 ? count : 0);
}

/* ranks a collective's per-peer arrays are long (the remote group of an intercommunicator) */
static int compi_coll_peers(MPI_Comm comm)
{
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) PMPI_Comm_remote_size(comm, &n);
    else PMPI_Comm_size(comm, &n);
    return n;
}

static void compi_coll_count(compi_coll_kind kind, int node_aware, MPI_Count bytes, uint64_t wire, uint64_t t0)
{
    COMPI_COLL_ADD(kind, COMPI_COLL_CALLS, 1);
    COMPI_COLL_ADD(kind, COMPI_COLL_NODE_AWARE, node_aware);
    COMPI_COLL_ADD(kind, COMPI_COLL_BYTES, bytes > 0 ? bytes : 0);
    COMPI_COLL_ADD(kind, COMPI_COLL_WIRE, wire);
    COMPI_COLL_ADD(kind, COMPI_COLL_NS, compi_now_ns() - t0);
}

/* Communicators compi never runs collectives on (inside one node, an
 * intercommunicator, mode off): the call goes to the MPI at once and is only
 * counted, so its cost stays one attribute lookup. */
static const compi_comm_info *compi_coll_enter(compi_coll_kind kind, MPI_Comm comm)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (ci->framed && !ci->is_inter) return ci;
    COMPI_COLL_ADD(kind, COMPI_COLL_CALLS, 1);
    return NULL;
}

/* For the collectives compi always passes to the MPI: the start time when
 * the call is counted in full (a communicator that spans nodes), else 0. */
static uint64_t compi_coll_pass_begin(compi_coll_kind kind, MPI_Comm comm)
{
    return compi_coll_enter(kind, comm) ? compi_now_ns() : 0;
}

/* compi's path for this call on ci (compi_coll_enter's), or NULL (the
 * MPI's own): the size test (cheap, first: small calls go to the MPI at
 * once), for a reduction (op not MPI_OP_NULL) whether compi can run its op
 * on dt, then the gate of this collective and size class (its ticket t
 * must be ended with compi_coll_gate_end after the call, whichever path
 * ran). The layout is built (collectively) on first use. */
static const compi_coll_layout *compi_coll_path(MPI_Comm comm, const compi_comm_info *ci, compi_coll_kind kind,
                                                size_t size, int extra, MPI_Datatype dt, MPI_Op op,
                                                compi_coll_ticket *t, int *rc)
{
    *rc = MPI_SUCCESS;
    t->g = NULL;
    /* alltoallv: block sizes differ per rank, so no size test every rank
     * could share: compi's path always runs (blocks under the floor simply
     * go raw), unless its gate says otherwise */
    if (!compi_coll_frames(ci)) return NULL;
    /* the floors follow the learned links, agreed at the same calls on every rank */
    if ((*rc = compi_coll_floor_sync(comm, (compi_comm_info *)ci)) != MPI_SUCCESS) return NULL;
    if (kind != COMPI_COLL_ALLTOALLV && !compi_coll_worth(ci, size, extra)) return NULL;
    if (op != MPI_OP_NULL && !compi_coll_reduction_ok(dt, op)) return NULL;
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, rc);
    if (!l) return NULL;
    /* the v variants' sizes differ per rank: one gate for all their sizes */
    size_t cls = kind == COMPI_COLL_ALLTOALLV ? 0 : size;
    return compi_coll_gate_begin(ci, l, (int)kind, cls, t) == COMPI_TRIALS_PATH_COMPI ? l : NULL;
}

/* Ends the call's gate ticket; the call's own error comes first. */
static int compi_coll_gated(compi_coll_ticket *t, MPI_Comm comm, int rc)
{
    int vrc = compi_coll_gate_end(t, comm);
    return rc != MPI_SUCCESS ? rc : vrc;
}

static int compi_coll_done(MPI_Comm comm, int rc)
{
    return rc == MPI_SUCCESS ? rc : compi_raise(comm, rc);
}

/* ------------------------------------------------------------ allgather */

static int compi_allgather_common(compi_coll_kind kind, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int *recvcounts, const int *displs, int recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci = compi_coll_enter(kind, comm);
    if (!ci)
        return recvcounts ? PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)
                          : PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    uint64_t t0 = compi_now_ns(), wire = 0;
    int n = ci->peer_count, me, rc;
    PMPI_Comm_rank(comm, &me);
    /* the per-rank block size, known alike everywhere (the average for allgatherv) */
    MPI_Count total = 0;
    if (recvcounts)
        for (int i = 0; i < n; i++) total += compi_type_bytes(recvtype, recvcounts[i]);
    else total = compi_type_bytes(recvtype, recvcount) * n;
    MPI_Count mine =
        recvcounts ? (me < n ? compi_type_bytes(recvtype, recvcounts[me]) : 0) : compi_type_bytes(recvtype, recvcount);
    compi_coll_ticket tk;
    const compi_coll_layout *l = compi_coll_path(comm, ci, kind, n ? (size_t)(total / n) : 0, COMPI_EXTRA_ALLGATHER,
                                                 recvtype, MPI_OP_NULL, &tk, &rc);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (!l) {
        rc = recvcounts ? PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)
                        : PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        rc = compi_coll_gated(&tk, comm, rc);
        compi_coll_count(kind, 0, mine, 0, t0);
        return rc;
    }
    int *counts = (int *)recvcounts;
    MPI_Aint *at = malloc(sizeof(MPI_Aint) * (size_t)n);
    if (!recvcounts) counts = malloc(sizeof(int) * (size_t)n);
    if (!counts || !at) {
        if (!recvcounts) free(counts);
        free(at);
        return compi_raise(comm, compi_coll_gated(&tk, comm, MPI_ERR_NO_MEM));
    }
    for (int i = 0; i < n; i++) {
        if (!recvcounts) counts[i] = recvcount;
        at[i] = recvcounts ? (MPI_Aint)displs[i] : (MPI_Aint)i * recvcount;
    }
    *path = COMPI_PROF_PATH_COMPI;
    rc = compi_coll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts, at, recvtype, comm, ci, l, &wire);
    rc = compi_coll_gated(&tk, comm, rc);
    if (!recvcounts) free(counts);
    free(at);
    compi_coll_count(kind, 1, mine, wire, t0);
    return compi_coll_done(comm, rc);
}

int compi_impl_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_allgather_common(COMPI_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                                    recvtype, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLGATHER, -1, recvcount, recvtype, NULL, MPI_OP_NULL, path);
    return rc;
}

int compi_impl_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_allgather_common(COMPI_COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                                    recvtype, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLGATHERV, -1, 0, recvtype, recvcounts, MPI_OP_NULL, path);
    return rc;
}

/* ------------------------------------------------------------ alltoall */

static int compi_alltoall_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci = compi_coll_enter(COMPI_COLL_ALLTOALL, comm);
    if (!ci) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    uint64_t t0 = compi_now_ns(), wire = 0;
    int n = ci->peer_count, rc;
    MPI_Count block = compi_type_bytes(recvtype, recvcount);
    compi_coll_ticket tk;
    /* judged by what the block's node's link carries in the call */
    const compi_coll_layout *l =
        compi_coll_path(comm, ci, COMPI_COLL_ALLTOALL, compi_alltoall_link_bytes(ci, (size_t)block),
                        compi_alltoall_extra(ci), recvtype, MPI_OP_NULL, &tk, &rc);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (!l) {
        rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        rc = compi_coll_gated(&tk, comm, rc);
        compi_coll_count(COMPI_COLL_ALLTOALL, 0, block * n, 0, t0);
        return rc;
    }
    int *scounts = malloc(sizeof(int) * (size_t)n), *rcounts = malloc(sizeof(int) * (size_t)n);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * (size_t)n), *rd = malloc(sizeof(MPI_Aint) * (size_t)n);
    if (!scounts || !sd || !rcounts || !rd) {
        free(scounts);
        free(sd);
        free(rcounts);
        free(rd);
        return compi_raise(comm, compi_coll_gated(&tk, comm, MPI_ERR_NO_MEM));
    }
    for (int i = 0; i < n; i++) {
        scounts[i] = sendcount;
        sd[i] = (MPI_Aint)i * sendcount;
        rcounts[i] = recvcount;
        rd[i] = (MPI_Aint)i * recvcount;
    }
    *path = COMPI_PROF_PATH_COMPI;
    rc = compi_coll_alltoallv(sendbuf, scounts, sd, sendtype, recvbuf, rcounts, rd, recvtype, comm, ci, l, &wire);
    rc = compi_coll_gated(&tk, comm, rc);
    free(scounts);
    free(sd);
    free(rcounts);
    free(rd);
    compi_coll_count(COMPI_COLL_ALLTOALL, 1, block * n, wire, t0);
    return compi_coll_done(comm, rc);
}

int compi_impl_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_alltoall_common(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLTOALL, -1, recvcount, recvtype, NULL, MPI_OP_NULL, path);
    return rc;
}

static int compi_alltoallv_common(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci = compi_coll_enter(COMPI_COLL_ALLTOALLV, comm);
    if (!ci)
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    uint64_t t0 = compi_now_ns(), wire = 0;
    int n = ci->peer_count, rc;
    MPI_Count bytes = 0;
    for (int i = 0; i < n; i++) bytes += compi_type_bytes(recvtype, recvcounts[i]);
    compi_coll_ticket tk;
    const compi_coll_layout *l = compi_coll_path(comm, ci, COMPI_COLL_ALLTOALLV, 0, 1, recvtype, MPI_OP_NULL, &tk, &rc);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (!l) {
        rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
        rc = compi_coll_gated(&tk, comm, rc);
        compi_coll_count(COMPI_COLL_ALLTOALLV, 0, bytes, 0, t0);
        return rc;
    }
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * (size_t)n), *rd = malloc(sizeof(MPI_Aint) * (size_t)n);
    if (!sd || !rd) {
        free(sd);
        free(rd);
        return compi_raise(comm, compi_coll_gated(&tk, comm, MPI_ERR_NO_MEM));
    }
    for (int i = 0; i < n; i++) {
        /* in place: the send side is the receive side (and sdispls may be anything) */
        sd[i] = sendbuf == MPI_IN_PLACE ? 0 : sdispls[i];
        rd[i] = rdispls[i];
    }
    *path = COMPI_PROF_PATH_COMPI;
    rc = compi_coll_alltoallv(sendbuf, sendcounts, sd, sendtype, recvbuf, recvcounts, rd, recvtype, comm, ci, l, &wire);
    free(sd);
    free(rd);
    rc = compi_coll_gated(&tk, comm, rc);
    compi_coll_count(COMPI_COLL_ALLTOALLV, 1, bytes, wire, t0);
    return compi_coll_done(comm, rc);
}

int compi_impl_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_alltoallv_common(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                    comm, &path);
    /* in place: the receive side describes the blocks */
    if (sendbuf == MPI_IN_PLACE)
        COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLTOALLV, -1, 0, recvtype, recvcounts, MPI_OP_NULL, path);
    else COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLTOALLV, -1, 0, sendtype, sendcounts, MPI_OP_NULL, path);
    return rc;
}

int compi_impl_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    if (COMPI_PROF_ACTIVE()) {
        if (sendbuf == MPI_IN_PLACE) compi_prof_alltoallw_(comm, recvcounts, recvtypes);
        else compi_prof_alltoallw_(comm, sendcounts, sendtypes);
    }
    uint64_t t0 = compi_coll_pass_begin(COMPI_COLL_ALLTOALLW, comm);
    int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    if (t0) compi_coll_count(COMPI_COLL_ALLTOALLW, 0, 0, 0, t0);
    return rc;
}

/* ------------------------------------------------------------ reductions */

static int compi_reduce_common(compi_coll_kind kind, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                               MPI_Op op, int root, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci = compi_coll_enter(kind, comm);
    if (!ci)
        return root < 0 ? PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm)
                        : PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
    uint64_t t0 = compi_now_ns(), wire = 0;
    MPI_Count bytes = compi_type_bytes(dt, count);
    int rc;
    compi_coll_ticket tk;
    const compi_coll_layout *l = compi_coll_path(comm, ci, kind, (size_t)bytes, COMPI_EXTRA_REDUCE, dt, op, &tk, &rc);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (!l) {
        rc = root < 0 ? PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm)
                      : PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
        rc = compi_coll_gated(&tk, comm, rc);
        compi_coll_count(kind, 0, bytes, 0, t0);
        return rc;
    }
    rc = compi_coll_reduce(sendbuf, recvbuf, count, dt, op, root, comm, ci, l, &wire, path);
    rc = compi_coll_gated(&tk, comm, rc);
    compi_coll_count(kind, 1, bytes, wire, t0);
    return compi_coll_done(comm, rc);
}

int compi_impl_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_reduce_common(COMPI_COLL_ALLREDUCE, sendbuf, recvbuf, count, dt, op, -1, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_ALLREDUCE, -1, count, dt, NULL, op, path);
    return rc;
}

int compi_impl_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm comm)
{
    /* intercommunicator roots (MPI_ROOT, MPI_PROC_NULL) and roots out of
     * range are the MPI's to handle and report */
    int n = compi_coll_peers(comm);
    if (root < 0 || root >= n) {
        COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_REDUCE, root, count, dt, NULL, op);
        return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
    }
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_reduce_common(COMPI_COLL_REDUCE, sendbuf, recvbuf, count, dt, op, root, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_REDUCE, root, count, dt, NULL, op, path);
    return rc;
}

static int compi_reduce_scatter_common(compi_coll_kind kind, const void *sendbuf, void *recvbuf, const int *recvcounts,
                                       int recvcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci = compi_coll_enter(kind, comm);
    if (!ci)
        return recvcounts ? PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm)
                          : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm);
    uint64_t t0 = compi_now_ns(), wire = 0;
    int n = ci->peer_count, me, rc;
    PMPI_Comm_rank(comm, &me);
    /* the whole vector is reduced: its size (known alike everywhere) decides */
    long long total = 0;
    for (int r = 0; r < n; r++) total += recvcounts ? recvcounts[r] : recvcount;
    MPI_Count mine = compi_type_bytes(dt, recvcounts ? recvcounts[me] : recvcount);
    const compi_coll_layout *l = NULL;
    compi_coll_ticket tk = {NULL, 0, 0, 0};
    rc = MPI_SUCCESS;
    if (compi_fits_int((uint64_t)total))
        l = compi_coll_path(comm, ci, kind, (size_t)compi_type_bytes(dt, (int)total), COMPI_EXTRA_REDUCE, dt, op, &tk,
                            &rc);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (!l) {
        rc = recvcounts ? PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm)
                        : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm);
        rc = compi_coll_gated(&tk, comm, rc);
        compi_coll_count(kind, 0, mine, 0, t0);
        return rc;
    }
    int *counts = (int *)recvcounts;
    if (!recvcounts) {
        counts = malloc(sizeof(int) * (size_t)n);
        if (!counts) return compi_raise(comm, compi_coll_gated(&tk, comm, MPI_ERR_NO_MEM));
        for (int r = 0; r < n; r++) counts[r] = recvcount;
    }
    *path = COMPI_PROF_PATH_COMPI;
    rc = compi_coll_reduce_scatter(sendbuf, recvbuf, counts, dt, op, comm, ci, l, &wire);
    rc = compi_coll_gated(&tk, comm, rc);
    if (!recvcounts) free(counts);
    compi_coll_count(kind, 1, mine, wire, t0);
    return compi_coll_done(comm, rc);
}

int compi_impl_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc =
        compi_reduce_scatter_common(COMPI_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcounts, 0, dt, op, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_REDUCE_SCATTER, -1, 0, dt, recvcounts, op, path);
    return rc;
}

int compi_impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op,
                                    MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_reduce_scatter_common(COMPI_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, NULL, recvcount, dt, op,
                                         comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_REDUCE_SCATTER_BLOCK, -1, recvcount, dt, NULL, op, path);
    return rc;
}

/* Passed to the MPI (counted): a prefix reduction's result differs on every
 * rank, so it has no node-level shortcut like the reductions above. */
int compi_impl_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_SCAN, -1, count, dt, NULL, op);
    uint64_t t0 = compi_coll_pass_begin(COMPI_COLL_SCAN, comm);
    int rc = PMPI_Scan(sendbuf, recvbuf, count, dt, op, comm);
    if (t0) compi_coll_count(COMPI_COLL_SCAN, 0, compi_type_bytes(dt, count), 0, t0);
    return rc;
}

int compi_impl_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_EXSCAN, -1, count, dt, NULL, op);
    uint64_t t0 = compi_coll_pass_begin(COMPI_COLL_EXSCAN, comm);
    int rc = PMPI_Exscan(sendbuf, recvbuf, count, dt, op, comm);
    if (t0) compi_coll_count(COMPI_COLL_EXSCAN, 0, compi_type_bytes(dt, count), 0, t0);
    return rc;
}

int compi_impl_Barrier(MPI_Comm comm)
{
    COMPI_PROF_COLL_HOOK(comm, COMPI_PROF_BARRIER, -1, 0, MPI_BYTE, NULL, MPI_OP_NULL);
    return PMPI_Barrier(comm);
}
