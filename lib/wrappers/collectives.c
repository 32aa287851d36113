/* SPDX-License-Identifier: BSD-3-Clause */
/* Rooted collectives with compressed payloads (PRAcTiCaL's set).
 *
 * Bcast/Scatter/Gather: every rank knows the block size, so all agree
 * without talking whether it is large enough to compress; then the frames'
 * lengths travel first and the frames (compressed or raw) after, through
 * MPI's own collective algorithms. Scatterv/Gatherv: block sizes differ per
 * rank, so on framed communicators they always take the two-step path.
 * Blocks between ranks of the root's node are never compressed. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "wrappers/impl.h"


/* Decodes frame into (buf,count,dt); frame errors go to the comm's handler. */
static int compi_coll_decode(const unsigned char *frame, size_t len, void *buf, int count,
                             MPI_Datatype dt, int from, MPI_Comm comm)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = from;
    st.MPI_TAG = -1;
    int rc = compi_frame_deliver(frame, len, buf, count, dt, &st, comm);
    return compi_raise(comm, rc);
}

/* Packed bytes of count elements of dt. */
static MPI_Count compi_bytes(MPI_Datatype dt, int count)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(dt, &size);
    return size * count;
}

static char *compi_block(const void *base, MPI_Aint displ_elems, MPI_Datatype dt)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    return (char *)base + displ_elems * extent;
}

/* The compressed payload of a broadcast, once over each node's link: the
 * root hands it to its node's leader, the leaders broadcast it among
 * themselves, each leader broadcasts it inside its node (where every rank
 * decodes it itself, in parallel). The MPI's own broadcast of the payload
 * over the whole communicator may send it over a link more than once and
 * picks its algorithm for the payload's size, not the data's. */
static int compi_bcast_payload(unsigned char *pay, int len, int root, MPI_Comm comm, const compi_comm_info *ci)
{
    int rc;
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, &rc);
    if (!l) return rc;
    if (l->nnodes < 2) return PMPI_Bcast(pay, len, MPI_BYTE, root, comm);
    const int root_node = l->node_of[root], leader = l->local_rank == 0;
    rc = MPI_SUCCESS;
    if (l->my_node == root_node && l->leader_of[root_node] != root) {
        if (l->rank == root) {
            rc = PMPI_Send(pay, len, MPI_BYTE, 0, 0, l->local);
        } else if (leader) {
            int root_local = 0;
            for (int j = l->first[root_node]; l->members[j] != root; j++) root_local++;
            rc = PMPI_Recv(pay, len, MPI_BYTE, root_local, 0, l->local, MPI_STATUS_IGNORE);
        }
    }
    if (rc == MPI_SUCCESS && leader) rc = PMPI_Bcast(pay, len, MPI_BYTE, root_node, l->leaders);
    if (rc == MPI_SUCCESS && l->local_size > 1) rc = PMPI_Bcast(pay, len, MPI_BYTE, 0, l->local);
    return rc;
}

/* The gate of this call (coll.h): 1 when it runs compi's path, 0 when the
 * MPI's own (*rc: an error building the node layout). */
static int compi_rooted_gate(MPI_Comm comm, const compi_comm_info *ci, int kind, size_t size, compi_coll_ticket *t,
                             int *rc)
{
    t->g = NULL;
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, rc);
    if (!l) return 0;
    return compi_coll_gate_begin(ci, l, kind, size, t) == COMPI_GATE_PATH_COMPI;
}

static int compi_rooted_done(compi_coll_ticket *t, MPI_Comm comm, int rc)
{
    int vrc = compi_coll_gate_end(t, comm);
    return rc != MPI_SUCCESS ? rc : vrc;
}

static int compi_bcast_framed(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                              const compi_comm_info *ci, const compi_typeinfo *tip)
{
    compi_typeinfo ti = *tip;
    int rank;
    PMPI_Comm_rank(comm, &rank);
    unsigned char *frame = NULL;
    size_t flen = 0;
    int rc;
    if (rank == root) {
        compi_decision d;
        compi_decide(&d, ci, -1, -1, &ti, COMPI_FAM_BCAST);
        rc = compi_frame_encode(buf, count, dt, &ti, &d, &frame, &flen);
        if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    } else {
        frame = malloc(COMPI_FRAME_HEADER_SIZE);
        if (!frame) return compi_raise(comm, MPI_ERR_NO_MEM);
    }
    rc = PMPI_Bcast(frame, COMPI_FRAME_HEADER_SIZE, MPI_BYTE, root, comm);
    if (rc != MPI_SUCCESS) { free(frame); return rc; }
    compi_frame_header h;
    char why[200];
    if (compi_frame_read_header(frame, COMPI_FRAME_HEADER_SIZE, &h, why, sizeof why) != COMPI_OK)
        compi_die("broadcast frame header from root %d invalid: %s", root, why);
    if (h.codec == COMPI_CODEC_RAW) {
        /* Incompressible: the data goes as it is, no copy. */
        free(frame);
        return PMPI_Bcast(buf, count, dt, root, comm);
    }
    flen = COMPI_FRAME_HEADER_SIZE + (size_t)h.payload_len;
    if (rank != root) {
        unsigned char *grown = realloc(frame, flen);
        if (!grown) { free(frame); return compi_raise(comm, MPI_ERR_NO_MEM); }
        frame = grown;
    }
    rc = compi_bcast_payload(frame + COMPI_FRAME_HEADER_SIZE, (int)h.payload_len, root, comm, ci);
    if (rc == MPI_SUCCESS && rank != root) rc = compi_coll_decode(frame, flen, buf, count, dt, root, comm);
    free(frame);
    return rc;
}

static int compi_bcast_run(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci)) return PMPI_Bcast(buf, count, dt, root, comm);
    compi_typeinfo ti;
    compi_typeinfo_get(dt, count, &ti);
    COMPI_STAT_ADD(messages[COMPI_FAM_BCAST], 1);
    COMPI_STAT_ADD(bytes[COMPI_FAM_BCAST], ti.size);
    /* Receivers must know before the root decides whether a frame comes */
    if (!compi_coll_may_compress(ci, (size_t)ti.size)) return PMPI_Bcast(buf, count, dt, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_BCAST, (size_t)ti.size, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_bcast_framed(buf, count, dt, root, comm, ci, &ti);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Bcast(buf, count, dt, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_bcast_run(buf, count, dt, root, comm, &path);
    COMPI_PROF_COLL_PATH_HOOK(comm, COMPI_PROF_BCAST, root, count, dt, NULL, MPI_OP_NULL, path);
    return rc;
}

/* The profile's record of a rooted call, after it ran (path: how): the
 * root describes it by its side (the v variants: every rank's count), the
 * others by theirs. */
static void compi_rooted_record(MPI_Comm comm, int fam, int root, int rcount, MPI_Datatype rtype, const int *rcounts,
                                int count, MPI_Datatype type, const int *counts, int path)
{
    int me;
    PMPI_Comm_rank(comm, &me);
    if (me == root) compi_prof_coll_(comm, fam, root, rcount, rtype, rcounts, MPI_OP_NULL, path);
    else compi_prof_coll_(comm, fam, root, count, type, counts, MPI_OP_NULL, path);
}

/* ---------------------------------------------------------------- gather */

/* Two-step gather of per-rank frames to root: lengths, then bytes. On the
 * root, frames[] gets one pointer per rank into *all (NULL length 0 = none). */
static int compi_gather_frames(const unsigned char *mine, int mylen, int root, MPI_Comm comm,
                               unsigned char **all, int **lens_out, int **displs_out)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    int *lens = NULL, *displs = NULL;
    *all = NULL;
    if (rank == root) {
        lens = malloc(sizeof(int) * (size_t)size);
        displs = malloc(sizeof(int) * (size_t)size);
        if (!lens || !displs) { free(lens); free(displs); return MPI_ERR_NO_MEM; }
    }
    int rc = PMPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, root, comm);
    if (rc != MPI_SUCCESS) { free(lens); free(displs); return rc; }
    if (rank == root) {
        long long total = 0;
        for (int i = 0; i < size; i++) {
            displs[i] = (int)total;
            total += lens[i];
        }
        if (total > 0x7fffffff) compi_die("gathered frames exceed 2 GiB");
        *all = malloc(total ? (size_t)total : 1);
        if (!*all) { free(lens); free(displs); return MPI_ERR_NO_MEM; }
    }
    rc = PMPI_Gatherv(mine, mylen, MPI_BYTE, *all, lens, displs, MPI_BYTE, root, comm);
    *lens_out = lens;
    *displs_out = displs;
    return rc;
}

static int compi_gather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *rdispls, int recvcount_uniform,
                               MPI_Datatype recvtype, int root, MPI_Comm comm, const compi_comm_info *ci)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    unsigned char *mine = NULL;
    size_t mylen = 0;
    int rc = MPI_SUCCESS;
    if (!(rank == root && sendbuf == MPI_IN_PLACE)) {
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, sendcount, &ti);
        COMPI_STAT_ADD(messages[COMPI_FAM_GATHER], 1);
        COMPI_STAT_ADD(bytes[COMPI_FAM_GATHER], ti.size);
        compi_decision d;
        compi_decide(&d, ci, root, -1, &ti, COMPI_FAM_GATHER);
        rc = compi_frame_encode(sendbuf, sendcount, sendtype, &ti, &d, &mine, &mylen);
        if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    }
    unsigned char *all;
    int *lens, *displs;
    rc = compi_gather_frames(mine, (int)mylen, root, comm, &all, &lens, &displs);
    free(mine);
    if (rc != MPI_SUCCESS) return rc;
    if (rank == root) {
        for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
            if (lens[i] == 0) continue;      /* the root's in-place block */
            int cnt = recvcounts ? recvcounts[i] : recvcount_uniform;
            MPI_Aint at = rdispls ? rdispls[i] : (MPI_Aint)i * recvcount_uniform;
            rc = compi_coll_decode(all + displs[i], (size_t)lens[i], compi_block(recvbuf, at, recvtype), cnt,
                                   recvtype, i, comm);
        }
        free(all);
        free(lens);
        free(displs);
    }
    return rc;
}

static int compi_gather_run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                             int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    /* Every rank knows the block size: non-roots from their send side, the
     * root from its receive side. */
    int rank;
    PMPI_Comm_rank(comm, &rank);
    MPI_Count tsize = rank == root ? compi_bytes(recvtype, recvcount) : compi_bytes(sendtype, sendcount);
    if (!compi_coll_may_compress(ci, (size_t)tsize))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_GATHER, (size_t)tsize, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
                                 comm, ci);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_gather_run(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &path);
    if (COMPI_PROF_ACTIVE())
        compi_rooted_record(comm, COMPI_PROF_GATHER, root, recvcount, recvtype, NULL, sendcount, sendtype, NULL, path);
    return rc;
}

static int compi_gatherv_run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                             int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci))
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_GATHERV, 0, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_gather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
                                 comm, ci);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_gatherv_run(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &path);
    if (COMPI_PROF_ACTIVE())
        compi_rooted_record(comm, COMPI_PROF_GATHERV, root, 0, recvtype, recvcounts, sendcount, sendtype, NULL, path);
    return rc;
}

/* ---------------------------------------------------------------- scatter */

static int compi_scatter_common(const void *sendbuf, const int *sendcounts, const int *sdispls,
                                int sendcount_uniform, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm, const compi_comm_info *ci)
{
    int rank, size, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    unsigned char *all = NULL;
    int *lens = NULL, *displs = NULL;
    if (rank == root) {
        lens = calloc((size_t)size, sizeof(int));
        displs = calloc((size_t)size, sizeof(int));
        unsigned char **frames = calloc((size_t)size, sizeof *frames);
        if (!lens || !displs || !frames) compi_die("out of memory in scatter");
        long long total = 0;
        for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
            displs[i] = (int)total;
            if (i == root && recvbuf == MPI_IN_PLACE) continue;
            int cnt = sendcounts ? sendcounts[i] : sendcount_uniform;
            MPI_Aint at = sdispls ? sdispls[i] : (MPI_Aint)i * sendcount_uniform;
            compi_typeinfo ti;
            compi_typeinfo_get(sendtype, cnt, &ti);
            size_t flen;
            const void *blk = compi_block(sendbuf, at, sendtype);
            COMPI_STAT_ADD(messages[COMPI_FAM_SCATTER], 1);
            COMPI_STAT_ADD(bytes[COMPI_FAM_SCATTER], ti.size);
            compi_decision d;
            compi_decide(&d, ci, i, -1, &ti, COMPI_FAM_SCATTER);
            rc = compi_frame_encode(blk, cnt, sendtype, &ti, &d, &frames[i], &flen);
            lens[i] = (int)flen;
            total += (long long)flen;
        }
        if (total > 0x7fffffff) compi_die("scattered frames exceed 2 GiB");
        all = malloc(total ? (size_t)total : 1);
        if (!all) compi_die("out of memory in scatter");
        for (int i = 0; i < size; i++) {
            if (frames[i]) memcpy(all + displs[i], frames[i], (size_t)lens[i]);
            free(frames[i]);
        }
        free(frames);
        if (rc != MPI_SUCCESS) compi_die("encoding scatter blocks failed: error %d", rc);
    }
    int mylen = 0;
    rc = PMPI_Scatter(lens, 1, MPI_INT, &mylen, 1, MPI_INT, root, comm);
    unsigned char *mine = malloc(mylen ? (size_t)mylen : 1);
    if (!mine) compi_die("out of memory in scatter");
    if (rc == MPI_SUCCESS) rc = PMPI_Scatterv(all, lens, displs, MPI_BYTE, mine, mylen, MPI_BYTE, root, comm);
    if (rc == MPI_SUCCESS && mylen > 0)
        rc = compi_coll_decode(mine, (size_t)mylen, recvbuf, recvcount, recvtype, root, comm);
    free(mine);
    free(all);
    free(lens);
    free(displs);
    return rc;
}

static int compi_scatter_run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm,
                             int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci))
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    MPI_Count tsize = rank == root ? compi_bytes(sendtype, sendcount) : compi_bytes(recvtype, recvcount);
    if (!compi_coll_may_compress(ci, (size_t)tsize))
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_SCATTER, (size_t)tsize, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_scatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                  comm, ci);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_scatter_run(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &path);
    if (COMPI_PROF_ACTIVE())
        compi_rooted_record(comm, COMPI_PROF_SCATTER, root, sendcount, sendtype, NULL, recvcount, recvtype, NULL, path);
    return rc;
}

static int compi_scatterv_run(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                             int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci))
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_SCATTERV, 0, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_scatter_common(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root,
                                  comm, ci);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_scatterv_run(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &path);
    if (COMPI_PROF_ACTIVE())
        compi_rooted_record(comm, COMPI_PROF_SCATTERV, root, 0, sendtype, sendcounts, recvcount, recvtype, NULL, path);
    return rc;
}
