/* SPDX-License-Identifier: BSD-3-Clause */
/* Alltoall(v) with every block for another node decided like a p2p
 * message (one decision per destination) and blocks inside the node raw
 * (see coll.h). Every block is built first (a frame, a pipelined block, or
 * the application's data as it is: raw blocks, the rank's own and those
 * inside its node, travel typed from the send buffer straight into the
 * receive buffer), then one exchange (pipex.c); frames are decoded into
 * recvbuf after it. The frames' codec work runs on the codec pool
 * (blocks.c). An in-place call sends copies (its send data is where
 * the blocks arrive). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/recv.h"
#include "core/stats.h"

int compi_coll_blocks_away(const compi_comm_info *ci, const int counts[])
{
    int away = 0;
    for (int j = 0; j < ci->peer_count; j++)
        if (counts[j] > 0 && compi_peer_is_remote(ci, j)) away++;
    return away;
}

int compi_coll_alltoallv(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire_out)
{
    int n, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &n);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (in_place) { /* the send data is where the result goes: built into compi's buffers first */
        sendbuf = recvbuf;
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendtype = recvtype;
    }
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    compi_coll_out *outs = calloc((size_t)n, sizeof *outs);
    compi_coll_xfer x;
    uint64_t wire = 0;
    rc = compi_coll_xfer_init(&x, n);
    if (rc == MPI_SUCCESS && !outs) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) goto out;
    int away = compi_coll_blocks_away(ci, sendcounts);
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const void *blk = (const char *)sendbuf + sdispls[j] * sext;
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, sendcounts[j], &ti);
        size_t len = (size_t)ti.size;
        if (len == 0 || (in_place && j == l->rank)) continue; /* in place: my own block stays where it is */
        x.out[j] = &outs[j];
        if (compi_peer_is_remote(ci, j)) {
            rc = compi_coll_out_begin(&outs[j], ci, j, COMPI_FAM_ALLTOALL, blk, sendcounts[j], sendtype, &ti, in_place,
                                      away);
        } else if (!in_place) { /* same node: sent from the caller's buffer as it is */
            compi_coll_out_typed(&outs[j], blk, sendcounts[j], sendtype, len);
        } else if (!(outs[j].frame = malloc(len))) {
            rc = MPI_ERR_NO_MEM;
        } else { /* in place, same node: packed bytes (no header), delivered after the exchange */
            outs[j].flen = len;
            rc = compi_pack_bytes(blk, sendcounts[j], sendtype, outs[j].frame, len);
        }
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_outs_code(outs, n); /* the frames, on the codec pool */
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (recvcounts[i] <= 0 || (in_place && i == l->rank)) continue;
        compi_typeinfo ti;
        compi_typeinfo_get(recvtype, recvcounts[i], &ti);
        void *dst = (char *)recvbuf + rdispls[i] * rext;
        rc = compi_coll_xfer_expect(&x, i, (size_t)ti.size, ti.contiguous ? (unsigned char *)dst + ti.true_lb : NULL,
                                    dst, recvcounts[i], recvtype);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, comm, l->xall, 0, NULL, comm);
    if (rc != MPI_SUCCESS) goto out;
    for (int j = 0; j < n; j++)
        if (x.out[j] && compi_peer_is_remote(ci, j)) wire += compi_coll_out_wire(x.out[j]);
    *wire_out += wire;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (compi_peer_is_remote(ci, i))
            rc = compi_coll_xfer_prepare(&x, i, (char *)recvbuf + rdispls[i] * rext, recvcounts[i], recvtype);
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_decode(&x);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        void *dst = (char *)recvbuf + rdispls[i] * rext;
        if (compi_peer_is_remote(ci, i)) {
            rc = compi_coll_xfer_deliver(&x, i, dst, recvcounts[i], recvtype, i, comm);
        } else if (x.got.lens[i] > 0) {
            MPI_Status st;
            memset(&st, 0, sizeof st);
            st.MPI_SOURCE = i;
            rc = compi_bytes_deliver(x.got.bytes + x.got.displs[i], x.got.lens[i], dst, recvcounts[i], recvtype, &st);
        }
    }
out:
    for (int j = 0; j < n && outs; j++) compi_coll_out_free(&outs[j]);
    free(outs);
    compi_coll_xfer_free(&x);
    return rc;
}
