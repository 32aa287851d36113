/* Alltoall(v) with every block for another node sent as a frame (one
 * decision per destination) and blocks inside the node raw; lengths first,
 * then one alltoallv of bytes (see coll.h). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

/* With pipelined blocks (pipex.c): every block built first (frames, raw
 * same-node bytes, or pipelined blocks), then one exchange; blocks from
 * other nodes that come pipelined are decoded straight into recvbuf (a
 * contiguous receive) or staged and unpacked. */
static int compi_coll_alltoallv_piped(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                      const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire_out)
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
    compi_coll_out **outp = calloc((size_t)n, sizeof *outp);
    compi_coll_in *ins = calloc((size_t)n, sizeof *ins);
    unsigned char **stage = calloc((size_t)n, sizeof *stage);
    int *piped = calloc((size_t)n, sizeof(int));
    compi_coll_blocks got = {NULL, NULL, NULL};
    uint64_t wire = 0;
    if (!outs || !outp || !ins || !stage || !piped) { rc = MPI_ERR_NO_MEM; goto out; }
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const void *blk = (const char *)sendbuf + (MPI_Aint)sdispls[j] * sext;
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, sendcounts[j], &ti);
        size_t len = (size_t)ti.size;
        if (len == 0) continue;
        if (len > 0x7fffffff) compi_die("an alltoall block exceeds 2 GiB");
        outp[j] = &outs[j];
        if (compi_peer_is_remote(ci, j)) {
            rc = compi_coll_out_build(&outs[j], ci, j, COMPI_FAM_ALLTOALL, blk, sendcounts[j], sendtype, &ti, in_place);
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
        ins[i].size = (size_t)ti.size;
        if (ti.contiguous) ins[i].dst = (unsigned char *)recvbuf + (MPI_Aint)rdispls[i] * rext + ti.true_lb;
        else if (!(ins[i].dst = stage[i] = malloc(ins[i].size ? ins[i].size : 1))) rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_exchange(comm, l->xall, 0, outp, ins, &got, piped, NULL, comm);
    if (rc != MPI_SUCCESS) goto out;
    for (int j = 0; j < n; j++)
        if (outp[j] && compi_peer_is_remote(ci, j)) wire += compi_coll_out_wire(outp[j]);
    *wire_out += wire;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        void *dst = (char *)recvbuf + (MPI_Aint)rdispls[i] * rext;
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = i;
        const unsigned char *at = got.bytes + got.displs[i];
        if (piped[i]) {
            if (stage[i]) rc = compi_unpack_bytes(stage[i], ins[i].size, dst, recvcounts[i], recvtype);
        } else if (compi_peer_is_remote(ci, i) && got.lens[i] > 0) {
            rc = compi_frame_deliver(at, (size_t)got.lens[i], dst, recvcounts[i], recvtype, &st, comm);
        } else if (got.lens[i] > 0) {
            rc = compi_bytes_deliver(at, (size_t)got.lens[i], dst, recvcounts[i], recvtype, &st);
        }
    }
out:
    for (int j = 0; j < n && outs; j++) compi_coll_out_free(&outs[j]);
    for (int i = 0; i < n && stage; i++) free(stage[i]);
    free(outs);
    free(outp);
    free(ins);
    free(stage);
    free(piped);
    compi_coll_blocks_free(&got);
    return rc;
}

int compi_coll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, const compi_comm_info *ci, uint64_t *wire_out)
{
    if (ci->coll && ci->coll->xall != MPI_COMM_NULL)
        return compi_coll_alltoallv_piped(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm, ci, ci->coll, wire_out);
    int n, me, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    if (sendbuf == MPI_IN_PLACE) {   /* the data to send is where the result goes: packed first anyway */
        sendbuf = recvbuf;
        sendcounts = recvcounts;
        sdispls = rdispls;
        sendtype = recvtype;
    }
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    compi_typeinfo sti;
    compi_typeinfo_get(sendtype, 1, &sti);
    size_t stsize = (size_t)sti.type_size;
    int *slens = calloc((size_t)n, sizeof(int)), *sdb = calloc((size_t)n, sizeof(int));
    unsigned char **frames = calloc((size_t)n, sizeof *frames);
    unsigned char *sbytes = NULL;
    compi_coll_blocks in = {NULL, NULL, NULL};
    if (!slens || !sdb || !frames) { rc = MPI_ERR_NO_MEM; goto out; }

    /* frames for other nodes; raw lengths for my node */
    long long stotal = 0;
    uint64_t wire = 0;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const void *blk = (const char *)sendbuf + (MPI_Aint)sdispls[j] * sext;
        size_t len = (size_t)sendcounts[j] * stsize;
        if (len > 0 && compi_peer_is_remote(ci, j)) {
            compi_typeinfo ti;
            compi_typeinfo_get(sendtype, sendcounts[j], &ti);
            compi_decision d;
            compi_decide(&d, ci, j, -1, &ti, COMPI_FAM_ALLTOALL);
            COMPI_STAT_ADD(messages[COMPI_FAM_ALLTOALL], 1);
            COMPI_STAT_ADD(bytes[COMPI_FAM_ALLTOALL], len);
            rc = compi_frame_encode(blk, sendcounts[j], sendtype, &ti, &d, &frames[j], &len);
            wire += len;
        }
        if (len > 0x7fffffff) compi_die("an alltoall block exceeds 2 GiB");
        slens[j] = (int)len;
        sdb[j] = (int)stotal;
        stotal += (long long)len;
    }
    if (stotal > 0x7fffffff) compi_die("alltoall send blocks exceed 2 GiB");
    if (rc != MPI_SUCCESS) goto out;
    sbytes = malloc(stotal ? (size_t)stotal : 1);
    if (!sbytes) { rc = MPI_ERR_NO_MEM; goto out; }
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        if (frames[j]) memcpy(sbytes + sdb[j], frames[j], (size_t)slens[j]);
        else if (slens[j])
            rc = compi_pack_bytes((const char *)sendbuf + (MPI_Aint)sdispls[j] * sext, sendcounts[j], sendtype,
                                  sbytes + sdb[j], (size_t)slens[j]);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_alltoall_bytes(comm, sbytes, slens, sdb, &in);
    if (rc != MPI_SUCCESS) goto out;
    *wire_out += wire;
    free(sbytes);   /* in place: the send data must not be needed past here */
    sbytes = NULL;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        void *dst = (char *)recvbuf + (MPI_Aint)rdispls[i] * rext;
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = i;
        const unsigned char *got = in.bytes + in.displs[i];
        if (compi_peer_is_remote(ci, i) && in.lens[i] > 0)
            rc = compi_frame_deliver(got, (size_t)in.lens[i], dst, recvcounts[i], recvtype, &st, comm);
        else if (in.lens[i] > 0)
            rc = compi_bytes_deliver(got, (size_t)in.lens[i], dst, recvcounts[i], recvtype, &st);
    }
out:
    if (frames)
        for (int j = 0; j < n; j++) free(frames[j]);
    free(frames);
    free(sbytes);
    compi_coll_blocks_free(&in);
    free(slens);
    free(sdb);
    return rc;
}
