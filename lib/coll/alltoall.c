/* Alltoall(v) with every block for another node sent as a frame (one
 * decision per destination) and blocks inside the node raw; lengths first,
 * then one alltoallv of bytes (see coll.h). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

int compi_coll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, const compi_comm_info *ci, uint64_t *wire_out)
{
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
