/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware allgather(v): gather inside the node, one frame per node
 * between leaders, broadcast inside the node (see coll.h). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/state.h"
#include "core/stats.h"

/* Blocks of recvtype in recvbuf as one datatype (count 1): m blocks, block
 * j recvcounts[r] elements at element displs[r] for r = ranks[j] (MPI_Aint:
 * no int limit on where a block lies). MPI_DATATYPE_NULL with MPI_SUCCESS:
 * no bytes. */
static int compi_blocks_type(int m, const int *ranks, const int recvcounts[], const MPI_Aint displs[],
                             MPI_Datatype recvtype, MPI_Datatype *t)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(recvtype, &lb, &ext);
    int *c = malloc(sizeof(int) * (size_t)(m ? m : 1));
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)(m ? m : 1));
    int rc = c && d ? MPI_SUCCESS : MPI_ERR_NO_MEM, any = 0;
    *t = MPI_DATATYPE_NULL;
    for (int j = 0; j < m && rc == MPI_SUCCESS; j++) {
        int r = ranks ? ranks[j] : j;
        c[j] = recvcounts[r];
        d[j] = displs[r] * ext;
        any |= c[j] > 0;
    }
    if (rc == MPI_SUCCESS && any) rc = PMPI_Type_create_hindexed(m, c, d, recvtype, t);
    if (rc == MPI_SUCCESS && any) rc = PMPI_Type_commit(t);
    free(c);
    free(d);
    return rc;
}

/* The blocks of node k's members in recvbuf: what a leader sends of its
 * node and receives of every other node, with no packing when it goes raw
 * (the MPI moves it), straight from and into recvbuf. */
static int compi_node_type(const compi_coll_layout *l, int k, const int recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Datatype *t)
{
    return compi_blocks_type(l->first[k + 1] - l->first[k], l->members + l->first[k], recvcounts, displs, recvtype, t);
}

/* Steps 2-3, leaders: my node's blocks (in recvbuf) to every other leader,
 * one exchange (pipex.c), every other node's blocks into recvbuf: raw ones
 * typed, straight there; a pipelined block decoded in place as it arrives
 * when its node's blocks are one contiguous run (else staged and unpacked);
 * frames decoded into place after the exchange. */
static int compi_coll_allgather_leaders(void *recvbuf, const int recvcounts[], const MPI_Aint displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm, const compi_comm_info *ci,
                                        const compi_coll_layout *l, uint64_t *wire)
{
    const int p = l->nnodes, k = l->my_node;
    MPI_Datatype *nt = malloc(sizeof(MPI_Datatype) * (size_t)p);
    compi_coll_out o;
    compi_coll_xfer x;
    int rc = compi_coll_xfer_init(&x, p), built = 0;
    if (rc == MPI_SUCCESS && !nt) rc = MPI_ERR_NO_MEM;
    for (int kk = 0; kk < p && nt; kk++) nt[kk] = MPI_DATATYPE_NULL;
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++)
        rc = compi_node_type(l, kk, recvcounts, displs, recvtype, &nt[kk]);
    if (rc != MPI_SUCCESS) goto out;
    if (nt[k] != MPI_DATATYPE_NULL) {
        compi_typeinfo ti;
        compi_typeinfo_get(nt[k], 1, &ti);
        rc = compi_coll_out_build(&o, ci, -1, COMPI_FAM_ALLGATHER, recvbuf, 1, nt[k], &ti, 0);
        if (rc != MPI_SUCCESS) goto out;
        built = 1;
        for (int kk = 0; kk < p; kk++) x.out[kk] = kk == k ? NULL : &o;
    }
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++) {
        if (kk == k || nt[kk] == MPI_DATATYPE_NULL) continue;
        compi_typeinfo t;
        compi_typeinfo_get(nt[kk], 1, &t);
        rc = compi_coll_xfer_expect(&x, kk, (size_t)t.size, t.contiguous ? (unsigned char *)recvbuf + t.true_lb : NULL,
                                    recvbuf, 1, nt[kk]);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->leaders, 1, l->leader_of, comm);
    if (rc != MPI_SUCCESS) goto out;
    if (built) *wire += compi_coll_out_wire(&o) * (size_t)(p - 1);
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++) /* node blocks do not overlap: decoded side by side */
        if (kk != k && nt[kk] != MPI_DATATYPE_NULL) rc = compi_coll_xfer_prepare(&x, kk, recvbuf, 1, nt[kk]);
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_decode(&x);
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++)
        if (kk != k && nt[kk] != MPI_DATATYPE_NULL)
            rc = compi_coll_xfer_deliver(&x, kk, recvbuf, 1, nt[kk], l->leader_of[kk], comm);
out:
    if (built) compi_coll_out_free(&o);
    for (int kk = 0; kk < p && nt; kk++)
        if (nt[kk] != MPI_DATATYPE_NULL) PMPI_Type_free(&nt[kk]);
    free(nt);
    compi_coll_xfer_free(&x);
    return rc;
}

int compi_coll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(recvtype, &lb, &ext);
    const int me = l->rank, k = l->my_node;
    const int *mine = l->members + l->first[k];
    const int nmine = l->first[k + 1] - l->first[k];
    int leader = l->local_rank == 0;
    int rc = MPI_SUCCESS;

    /* 1. the node's blocks land in the leader's recvbuf, where they belong
     * (point to point on the node's communicator: displacements need no int) */
    int in_place = sendbuf == MPI_IN_PLACE;
    MPI_Count rsize = 0;
    PMPI_Type_size_x(recvtype, &rsize);
    if (leader) {
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(nmine ? nmine : 1));
        int nq = 0;
        if (!rq) return MPI_ERR_NO_MEM;
        for (int j = 1; j < nmine && rc == MPI_SUCCESS; j++)
            if (recvcounts[mine[j]] > 0 && rsize > 0)
                rc = PMPI_Irecv((char *)recvbuf + displs[mine[j]] * ext, recvcounts[mine[j]], recvtype, j, 0, l->local,
                                &rq[nq++]);
        /* the leader's own block, from its send buffer (MPI_IN_PLACE: there already) */
        if (rc == MPI_SUCCESS && !in_place)
            rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, (char *)recvbuf + displs[me] * ext, recvcounts[me],
                               recvtype, 0, 0, compi_g.self_comm, MPI_STATUS_IGNORE);
        int wrc = compi_coll_waitall(nq, rq);
        if (rc == MPI_SUCCESS) rc = wrc;
        free(rq);
    } else {
        const void *sb = in_place ? (const char *)recvbuf + displs[me] * ext : sendbuf;
        int cnt = in_place ? recvcounts[me] : sendcount;
        MPI_Count bytes = 0;
        PMPI_Type_size_x(in_place ? recvtype : sendtype, &bytes);
        if (cnt > 0 && bytes > 0) rc = PMPI_Send(sb, cnt, in_place ? recvtype : sendtype, 0, 0, l->local);
    }
    if (rc != MPI_SUCCESS) return rc;

    /* 2-3. leaders: the node's blocks to every other leader, theirs into recvbuf */
    if (leader && l->nnodes > 1) {
        rc = compi_coll_allgather_leaders(recvbuf, recvcounts, displs, recvtype, comm, ci, l, wire);
        if (rc != MPI_SUCCESS) return rc;
    }

    /* 4. the whole result from the leader to the node */
    if (l->local_size > 1) {
        MPI_Datatype whole;
        rc = compi_blocks_type(l->size, NULL, recvcounts, displs, recvtype, &whole);
        if (rc == MPI_SUCCESS && whole != MPI_DATATYPE_NULL) {
            rc = PMPI_Bcast(recvbuf, 1, whole, 0, l->local);
            PMPI_Type_free(&whole);
        }
    }
    return rc;
}
