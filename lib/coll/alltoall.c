/* SPDX-License-Identifier: BSD-3-Clause */
/* Alltoall(v) with every block for another node sent as a frame (one
 * decision per destination) and blocks inside the node raw (see coll.h).
 * Every block is built first (a frame, the raw bytes of a same-node block,
 * or a pipelined block), then one exchange (pipex.c): lengths first, then
 * one alltoallv of the whole blocks, or, when some rank pipelines, every
 * block point to point; blocks from other nodes that come pipelined are
 * decoded straight into recvbuf (a contiguous receive) or staged and
 * unpacked. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

int compi_coll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire_out)
{
    int n, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &n);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (in_place) {   /* the send data is where the result goes: built into compi's buffers first */
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
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const void *blk = (const char *)sendbuf + (MPI_Aint)sdispls[j] * sext;
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, sendcounts[j], &ti);
        size_t len = (size_t)ti.size;
        if (len == 0) continue;
        if (len > 0x7fffffff) compi_die("an alltoall block exceeds 2 GiB");
        x.out[j] = &outs[j];
        if (compi_peer_is_remote(ci, j)) {
            rc = compi_coll_out_build(&outs[j], ci, j, COMPI_FAM_ALLTOALL, blk, sendcounts[j], sendtype, &ti, in_place);
        } else if (ti.contiguous && !in_place) {   /* same node: sent from the caller's buffer */
            outs[j].ref = (const unsigned char *)blk + ti.true_lb;
            outs[j].flen = len;
        } else if (!(outs[j].frame = malloc(len))) {
            rc = MPI_ERR_NO_MEM;
        } else {
            outs[j].flen = len;
            rc = compi_pack_bytes(blk, sendcounts[j], sendtype, outs[j].frame, len);
        }
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (!compi_peer_is_remote(ci, i) || recvcounts[i] <= 0) continue;
        compi_typeinfo ti;
        compi_typeinfo_get(recvtype, recvcounts[i], &ti);
        rc = compi_coll_xfer_expect(&x, i, (size_t)ti.size,
                                    ti.contiguous ? (unsigned char *)recvbuf + (MPI_Aint)rdispls[i] * rext + ti.true_lb
                                                  : NULL);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, comm, l->xall, 0, NULL, comm);
    if (rc != MPI_SUCCESS) goto out;
    for (int j = 0; j < n; j++)
        if (x.out[j] && compi_peer_is_remote(ci, j)) wire += compi_coll_out_wire(x.out[j]);
    *wire_out += wire;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        void *dst = (char *)recvbuf + (MPI_Aint)rdispls[i] * rext;
        if (compi_peer_is_remote(ci, i)) {
            rc = compi_coll_xfer_deliver(&x, i, dst, recvcounts[i], recvtype, i, comm);
        } else if (x.got.lens[i] > 0) {
            MPI_Status st;
            memset(&st, 0, sizeof st);
            st.MPI_SOURCE = i;
            rc = compi_bytes_deliver(x.got.bytes + x.got.displs[i], (size_t)x.got.lens[i], dst, recvcounts[i], recvtype,
                                     &st);
        }
    }
out:
    for (int j = 0; j < n && outs; j++) compi_coll_out_free(&outs[j]);
    free(outs);
    compi_coll_xfer_free(&x);
    return rc;
}
