/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware allgather(v): gather inside the node, one frame per node
 * between leaders, broadcast inside the node (see coll.h). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

/* Steps 2-3, leaders: my node's packed bytes (mine, nbytes) to every other
 * leader, one exchange (pipex.c); a pipelined block from a node whose
 * blocks lie contiguous in recvbuf (a contiguous type, its members' blocks
 * in rank order one after the other) is decoded straight there as it
 * arrives, others are staged or delivered whole and unpacked block by
 * block. */
static int compi_coll_allgather_leaders(const unsigned char *mine, size_t nbytes, void *recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l,
                                        uint64_t *wire)
{
    const int p = l->nnodes, k = l->my_node;
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(recvtype, &lb, &ext);
    compi_typeinfo elem;
    compi_typeinfo_get(recvtype, 1, &elem);
    compi_coll_out o;
    compi_coll_xfer x;
    int rc = compi_coll_xfer_init(&x, p), built = 0;
    if (rc != MPI_SUCCESS) return rc;
    compi_typeinfo ti = elem;
    ti.size = (MPI_Count)nbytes;
    ti.contiguous = 1;
    ti.true_lb = 0;
    ti.type_size = 1;
    rc = compi_coll_out_build(&o, ci, -1, COMPI_FAM_ALLGATHER, mine, (int)nbytes, MPI_BYTE, &ti, 0);
    if (rc != MPI_SUCCESS) goto out;
    built = 1;
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++) {
        if (kk == k) continue;
        x.out[kk] = &o;
        long long cnt = 0;
        int consecutive = 1, r0 = l->members[l->first[kk]];
        for (int j = l->first[kk]; j < l->first[kk + 1]; j++) {
            int r = l->members[j];
            if ((long long)displs[r] != (long long)displs[r0] + cnt) consecutive = 0;
            cnt += recvcounts[r];
        }
        compi_typeinfo t;
        compi_typeinfo_get(recvtype, cnt < 0x7fffffff ? (int)cnt : 0, &t);
        size_t size = (size_t)cnt * (size_t)elem.type_size;
        if (size == 0) continue;
        rc = compi_coll_xfer_expect(&x, kk, size,
                                    consecutive && t.contiguous
                                        ? (unsigned char *)recvbuf + (MPI_Aint)displs[r0] * ext + t.true_lb
                                        : NULL);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->xleaders, 1, l->leader_of, comm);
    if (rc != MPI_SUCCESS) goto out;
    *wire += compi_coll_out_wire(&o) * (size_t)(p - 1);
    /* every other node's bytes, unpacked block by block where they did not land in place */
    unsigned char *scratch = NULL;
    for (int kk = 0; kk < p && rc == MPI_SUCCESS; kk++) {
        if (kk == k || x.in[kk].size == 0 || (x.piped[kk] && !x.stage[kk])) continue;
        const unsigned char *from = x.stage[kk];
        if (!x.piped[kk]) {
            free(scratch);
            scratch = malloc(x.in[kk].size);
            if (!scratch) { rc = MPI_ERR_NO_MEM; break; }
            rc = compi_coll_xfer_deliver(&x, kk, scratch, (int)x.in[kk].size, MPI_BYTE, l->leader_of[kk], comm);
            from = scratch;
        }
        size_t off = 0;
        for (int j = l->first[kk]; j < l->first[kk + 1] && rc == MPI_SUCCESS; j++) {
            int r = l->members[j];
            size_t rb = (size_t)recvcounts[r] * (size_t)elem.type_size;
            rc = compi_unpack_bytes(from + off, rb, (char *)recvbuf + (MPI_Aint)displs[r] * ext, recvcounts[r],
                                    recvtype);
            off += rb;
        }
    }
    free(scratch);
out:
    if (built) compi_coll_out_free(&o);
    compi_coll_xfer_free(&x);
    return rc;
}

int compi_coll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(recvtype, &lb, &ext);
    compi_typeinfo elem;
    compi_typeinfo_get(recvtype, 1, &elem);
    size_t tsize = (size_t)elem.type_size;
    const int me = l->rank, k = l->my_node;
    const int *mine = l->members + l->first[k];
    const int nmine = l->first[k + 1] - l->first[k];
    int leader = l->local_rank == 0;
    int rc = MPI_SUCCESS;

    /* 1. the node's blocks land in the leader's recvbuf, where they belong */
    int *lcounts = malloc(sizeof(int) * (size_t)nmine), *ldispls = malloc(sizeof(int) * (size_t)nmine);
    if (!lcounts || !ldispls) { free(lcounts); free(ldispls); return MPI_ERR_NO_MEM; }
    for (int j = 0; j < nmine; j++) {
        lcounts[j] = recvcounts[mine[j]];
        ldispls[j] = displs[mine[j]];
    }
    int in_place = sendbuf == MPI_IN_PLACE;
    if (leader) {
        rc = PMPI_Gatherv(in_place ? MPI_IN_PLACE : sendbuf, sendcount, sendtype, recvbuf, lcounts, ldispls,
                          recvtype, 0, l->local);
    } else {
        const void *sb = in_place ? (const char *)recvbuf + (MPI_Aint)displs[me] * ext : sendbuf;
        rc = PMPI_Gatherv(sb, in_place ? recvcounts[me] : sendcount, in_place ? recvtype : sendtype, NULL, NULL,
                          NULL, recvtype, 0, l->local);
    }
    free(lcounts);
    free(ldispls);
    if (rc != MPI_SUCCESS) return rc;

    /* 2. leaders: the node's blocks packed in rank order, one frame to all */
    if (leader && l->nnodes > 1) {
        size_t nbytes = 0;
        for (int j = 0; j < nmine; j++) nbytes += (size_t)recvcounts[mine[j]] * tsize;
        unsigned char *packed = malloc(nbytes ? nbytes : 1);
        if (!packed) return MPI_ERR_NO_MEM;
        size_t off = 0;
        for (int j = 0; j < nmine && rc == MPI_SUCCESS; j++) {
            int r = mine[j];
            size_t b = (size_t)recvcounts[r] * tsize;
            rc = compi_pack_bytes((char *)recvbuf + (MPI_Aint)displs[r] * ext, recvcounts[r], recvtype,
                                  packed + off, b);
            off += b;
        }
        if (rc == MPI_SUCCESS)
            rc = compi_coll_allgather_leaders(packed, nbytes, recvbuf, recvcounts, displs, recvtype, comm, ci, l, wire);
        free(packed);
        if (rc != MPI_SUCCESS) return rc;
    }

    /* 4. the whole result from the leader to the node */
    if (l->local_size > 1) {
        MPI_Datatype whole;
        rc = PMPI_Type_indexed(l->size, recvcounts, displs, recvtype, &whole);
        if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&whole);
        if (rc == MPI_SUCCESS) {
            rc = PMPI_Bcast(recvbuf, 1, whole, 0, l->local);
            PMPI_Type_free(&whole);
        }
    }
    return rc;
}
