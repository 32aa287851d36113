/* SPDX-License-Identifier: BSD-3-Clause */
/* Rooted collectives with compressed payloads (PRAcTiCaL's set).
 *
 * Bcast/Scatter/Gather: every rank knows the block size, so all agree
 * without talking whether it is large enough to compress. A broadcast's
 * root then sends a header (raw, or the compressed frame's) and the payload
 * follows: raw data as the MPI's own broadcast of the application's buffer
 * (no copy), a compressed payload over each node's link once, in pieces of
 * at most 1 GiB. Gather/Scatter(v) run one exchange of blocks (lib/coll,
 * pipex.c): lengths first, then each block point to point, raw ones
 * straight from and into the application's buffers. Scatterv/Gatherv:
 * block sizes differ per rank, so on framed communicators they always take
 * that path. Blocks between ranks of the root's node are never compressed.
 * Errors in any step are raised on the application's communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/bigcount.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"
#include "frame/coll_meta.h"
#include "wrappers/impl.h"

/* Decodes frame into (buf,count,dt); frame errors go to the comm's handler. */
static int compi_coll_decode(const unsigned char *frame, size_t len, void *buf, int count, MPI_Datatype dt, int from,
                             MPI_Comm comm)
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
 * picks its algorithm for the payload's size, not the data's. Each step
 * moves len bytes as pieces of at most compi_coll_piece() bytes. */
static int compi_bcast_piece(unsigned char *pay, int len, int root, MPI_Comm comm, const compi_coll_layout *l)
{
    if (l->nnodes < 2) return PMPI_Bcast(pay, len, MPI_BYTE, root, comm);
    const int root_node = l->node_of[root], leader = l->local_rank == 0;
    int rc = MPI_SUCCESS;
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

static int compi_bcast_payload(unsigned char *pay, uint64_t len, int root, MPI_Comm comm, const compi_comm_info *ci)
{
    int rc;
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, &rc);
    if (!l) return rc;
    const uint64_t piece = compi_coll_piece();
    for (uint64_t k = 0; k < compi_coll_pieces(len, piece) && rc == MPI_SUCCESS; k++)
        rc = compi_bcast_piece(pay + k * piece, (int)compi_coll_piece_len(len, piece, k), root, comm, l);
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
    if (compi_coll_gate_begin(ci, l, kind, size, t) != COMPI_TRIALS_PATH_COMPI) return 0;
    COMPI_ROOTED_ADD(kind);
    return 1;
}

static int compi_rooted_done(compi_coll_ticket *t, MPI_Comm comm, int rc)
{
    int vrc = compi_coll_gate_end(t, comm);
    return rc != MPI_SUCCESS ? rc : vrc;
}

/* A compressed broadcast of more than this many bytes goes in chunks of
 * COMPI_BCAST_CHUNK_LOG2 (compi_bcast_chunked), so no rank holds a whole
 * compressed copy beside the data: compi's extra memory per broadcast is
 * one chunk's room, not the payload. Smaller ones go as one frame unless
 * COMPI_CHUNK fixes a chunk size. */
#define COMPI_BCAST_WHOLE_MAX ((uint64_t)64 << 20)
#define COMPI_BCAST_CHUNK_LOG2 24

/* The chunk size (log2) a compressed broadcast of size bytes goes in, 0
 * for one frame: COMPI_CHUNK when set (not off), else chunks beyond
 * COMPI_BCAST_WHOLE_MAX or beyond what the codec takes in one call. */
static unsigned compi_bcast_chunk_log2(const compi_codec *codec, uint64_t size)
{
    size_t fixed = compi_cfg.chunk;
    if (fixed == COMPI_CHUNK_OFF) return 0;
    if (fixed) {
        unsigned lg = COMPI_CHUNK_LOG2_MIN;
        while (lg < COMPI_CHUNK_LOG2_MAX && ((size_t)1 << lg) < fixed) lg++;
        return compi_chunk_count(size, lg) >= 2 ? lg : 0;
    }
    if (size > COMPI_BCAST_WHOLE_MAX || !compi_codec_accepts(codec, (size_t)size)) return COMPI_BCAST_CHUNK_LOG2;
    return 0;
}

/* What the root sends: one frame (compressed), chunks, or nothing of its
 * own (raw: the MPI broadcasts the application's buffer, no copy). */
typedef struct {
    unsigned char *frame; /* a whole compressed frame, or NULL */
    size_t flen;
    const compi_codec *codec; /* chunked: the codec the chunks try */
    unsigned chunk_log2;      /* chunked: log2 of the chunk size; else 0 */
    const char *src;          /* chunked: the data's bytes in pack order */
    unsigned char *packed;    /* compi's packed copy of non-contiguous data, or NULL */
    compi_decision d;
} compi_bcast_plan;

static void compi_bcast_plan_free(compi_bcast_plan *p)
{
    free(p->frame);
    free(p->packed);
    p->frame = p->packed = NULL;
}

/* The root's plan for the broadcast data (see compi_bcast_plan). */
static int compi_bcast_encode(void *buf, int count, MPI_Datatype dt, const compi_comm_info *ci,
                              const compi_typeinfo *ti, compi_bcast_plan *plan)
{
    compi_decision *dp = &plan->d;
    memset(plan, 0, sizeof *plan);
    compi_decide(dp, ci, -1, -1, ti, COMPI_FAM_BCAST);
    if (dp->watch && ti->contiguous && ti->size > 0)
        compi_decision_watch(dp, (const char *)buf + ti->true_lb, (size_t)ti->size);
    unsigned char **frame = &plan->frame;
    size_t *flen = &plan->flen;
    if (!compi_decision_needs_data(dp) || ti->size == 0) return MPI_SUCCESS;
    unsigned char *packed = NULL;
    const char *src = (const char *)buf + ti->true_lb;
    compi_typeinfo pti = *ti;
    if (!ti->contiguous) {
        if (!(packed = malloc((size_t)ti->size))) return MPI_ERR_NO_MEM;
        int rc = compi_pack_bytes(buf, count, dt, packed, (size_t)ti->size);
        if (rc != MPI_SUCCESS) {
            free(packed);
            return rc;
        }
        src = (const char *)packed;
        pti.contiguous = 1;
        pti.true_lb = 0;
    }
    size_t chunk;
    int rc = MPI_SUCCESS;
    const compi_codec *codec = compi_decision_settle(dp, src, &pti, &chunk);
    unsigned lg = codec ? compi_bcast_chunk_log2(codec, (uint64_t)ti->size) : 0;
    if (lg) { /* chunks, encoded one by one as they go (compi_bcast_chunked) */
        plan->codec = codec;
        plan->chunk_log2 = lg;
        plan->src = src;
        plan->packed = packed;
        return MPI_SUCCESS;
    }
    if (codec) rc = compi_frame_encode(packed ? (const void *)packed : buf, count, dt, &pti, dp, frame, flen);
    free(packed);
    if (rc != MPI_SUCCESS) return rc;
    compi_frame_header h;
    char why[160];
    if (*frame &&
        (compi_frame_read_header(*frame, *flen, &h, why, sizeof why) != COMPI_OK || h.codec == COMPI_CODEC_RAW)) {
        free(*frame); /* it did not shrink: raw after all */
        *frame = NULL;
        *flen = 0;
    }
    return MPI_SUCCESS;
}

/* A broadcast in chunks (header h: COMPI_CODEC_CHUNKED, flags = log2 of
 * the chunk size): for each chunk the root encodes it (compi_chunk_encode:
 * compressed, or raw where that does not shrink it), broadcasts its length,
 * then the chunk message as a compressed payload is (compi_bcast_payload);
 * the others decode it straight into place (a contiguous buffer) or into a
 * staging copy unpacked at the end. While the others decode chunk k the
 * root encodes chunk k+1. A rank that meets a bad chunk keeps taking part
 * in the remaining steps (no rank waits for one that left) and fails the
 * call with compi's frame error naming the chunk. plan: the root's. */
static int compi_bcast_chunked(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                               const compi_comm_info *ci, const compi_typeinfo *ti, const compi_frame_header *h,
                               compi_bcast_plan *plan)
{
    const uint64_t size = h->original_len;
    const size_t chunk = (size_t)1 << h->flags, n = compi_chunk_count(size, h->flags);
    const size_t cap = compi_chunk_capacity(chunk);
    unsigned char *msg = malloc(cap), *stage = NULL;
    int rc = msg ? MPI_SUCCESS : MPI_ERR_NO_MEM, fail = MPI_SUCCESS;
    char *dst = NULL;
    if (!plan && rc == MPI_SUCCESS) {
        if (ti->contiguous) dst = (char *)buf + ti->true_lb;
        else if (!(dst = (char *)(stage = malloc((size_t)size)))) rc = MPI_ERR_NO_MEM;
    }
    compi_codec_params params = {ti->dtclass, ti->elem_size, compi_cfg.level};
    uint64_t wire = 0, ns = 0, raw_chunks = 0, decode_ns = 0;
    uint8_t codec_id = COMPI_CODEC_RAW;
    char why[256] = "";
    for (size_t k = 0; k < n; k++) {
        size_t len = k + 1 < n ? chunk : (size_t)(size - (uint64_t)k * chunk);
        uint64_t mlen = 0; /* 0: the root has nothing to send (an error of its own) */
        if (plan && rc == MPI_SUCCESS) {
            int compressed = 0;
            uint64_t t0 = compi_now_ns();
            long long m =
                compi_chunk_encode(k, plan->src + (size_t)k * chunk, len, plan->codec, &params, msg, cap, &compressed);
            ns += compi_now_ns() - t0;
            if (m < 0) rc = MPI_ERR_INTERN;
            else {
                mlen = (uint64_t)m;
                wire += mlen;
                raw_chunks += !compressed;
            }
        }
        int brc = PMPI_Bcast(&mlen, 1, MPI_UINT64_T, root, comm);
        if (brc != MPI_SUCCESS) {
            rc = brc;
            break;
        } /* the MPI's own failure: every rank sees it */
        if (mlen == 0 || mlen > cap) {
            if (!plan && fail == MPI_SUCCESS)
                snprintf(why, sizeof why,
                         mlen ? "chunk %zu of %zu of a broadcast declares %llu bytes (at most %zu)"
                              : "chunk %zu of %zu of a broadcast: the root sent none (%llu bytes, "
                                "its own error)",
                         k, n, (unsigned long long)mlen, cap);
            if (!plan && fail == MPI_SUCCESS) fail = compi_g.frame_error_code;
            continue;
        }
        brc = compi_bcast_payload(msg, mlen, root, comm, ci);
        if (brc != MPI_SUCCESS) {
            rc = brc;
            break;
        }
        if (plan || rc != MPI_SUCCESS || fail != MPI_SUCCESS) continue;
        uint8_t cid = COMPI_CODEC_RAW;
        char cwhy[160];
        uint64_t t0 = compi_now_ns();
        if (compi_chunk_decode(k, msg, (size_t)mlen, len, (unsigned char *)dst + (size_t)k * chunk, &cid, cwhy,
                               sizeof cwhy) != COMPI_OK) {
            snprintf(why, sizeof why, "chunk %zu of %zu of a broadcast: %s", k, n, cwhy);
            fail = compi_g.frame_error_code;
        }
        decode_ns += compi_now_ns() - t0;
        if (cid != COMPI_CODEC_RAW) codec_id = cid;
    }
    if (plan) {
        compi_pipe_count_sent(plan->codec, (size_t)size, n, (size_t)wire, (size_t)raw_chunks, ns, 0);
        compi_decision_outcome(&plan->d, (size_t)size, wire < size ? (long long)wire : -1, ns);
    } else if (rc == MPI_SUCCESS && fail == MPI_SUCCESS) {
        compi_pipe_count_received(codec_id, decode_ns, 0, 0);
        if (stage) rc = compi_unpack_bytes(stage, (size_t)size, buf, count, dt);
    }
    if (!plan && fail != MPI_SUCCESS && why[0]) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = root;
        st.MPI_TAG = -1;
        fail = compi_frame_fail(comm, &st, why);
    }
    free(msg);
    free(stage);
    return compi_raise(comm, rc != MPI_SUCCESS ? rc : fail);
}

static int compi_bcast_framed(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, const compi_comm_info *ci,
                              const compi_typeinfo *ti)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    unsigned char *frame = NULL, head[COMPI_FRAME_HEADER_SIZE];
    size_t flen = 0;
    int rc = MPI_SUCCESS;
    compi_bcast_plan plan;
    memset(&plan, 0, sizeof plan);
    if (rank == root) {
        rc = compi_bcast_encode(buf, count, dt, ci, ti, &plan);
        frame = plan.frame;
        flen = plan.flen;
        plan.frame = NULL;
        /* an encoding failure still sends a header (raw), so no rank waits for a payload */
        if (frame) {
            memcpy(head, frame, COMPI_FRAME_HEADER_SIZE);
        } else if (plan.chunk_log2) {
            compi_frame_header ch = {COMPI_CODEC_CHUNKED, (uint8_t)ti->dtclass, (uint64_t)ti->size, 0,
                                     (uint8_t)plan.chunk_log2};
            compi_frame_write_header(head, &ch);
        } else {
            compi_frame_header raw = {COMPI_CODEC_RAW, (uint8_t)ti->dtclass, (uint64_t)ti->size, (uint64_t)ti->size, 0};
            compi_frame_write_header(head, &raw);
        }
    }
    int hrc = PMPI_Bcast(head, COMPI_FRAME_HEADER_SIZE, MPI_BYTE, root, comm);
    if (hrc != MPI_SUCCESS) {
        free(frame);
        compi_bcast_plan_free(&plan);
        return hrc;
    } /* raised on comm by the MPI */
    compi_frame_header h;
    char why[200];
    if (compi_bcast_header_read(head, sizeof head, (uint64_t)ti->size, &h, why, sizeof why) != COMPI_OK) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = root;
        st.MPI_TAG = -1;
        free(frame);
        compi_bcast_plan_free(&plan);
        return compi_raise(comm, compi_frame_fail(comm, &st, why));
    }
    if (h.codec == COMPI_CODEC_CHUNKED) {
        rc = compi_bcast_chunked(buf, count, dt, root, comm, ci, ti, &h, rank == root ? &plan : NULL);
        compi_bcast_plan_free(&plan);
        return rc;
    }
    if (h.codec == COMPI_CODEC_RAW) {
        /* incompressible (or not worth it): the data goes as it is, no copy */
        free(frame);
        int brc = PMPI_Bcast(buf, count, dt, root, comm);
        return rc != MPI_SUCCESS ? compi_raise(comm, rc) : brc;
    }
    flen = COMPI_FRAME_HEADER_SIZE + (size_t)h.payload_len;
    if (rank != root) {
        /* payload_len <= the data's size (checked): never more than the caller's buffer holds */
        frame = malloc(flen);
        if (!frame) return compi_raise(comm, MPI_ERR_NO_MEM);
        memcpy(frame, head, COMPI_FRAME_HEADER_SIZE);
    }
    rc = compi_bcast_payload(frame + COMPI_FRAME_HEADER_SIZE, h.payload_len, root, comm, ci);
    if (rc == MPI_SUCCESS && rank != root) rc = compi_coll_decode(frame, flen, buf, count, dt, root, comm);
    else rc = compi_raise(comm, rc);
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

/* Gather(v): every rank's block to the root in one exchange (lib/coll,
 * pipex.c) on the layout's dup of comm: compressed blocks as frames
 * decoded at the root, raw ones typed, straight into recvbuf. */
static int compi_gather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *rdispls, int recvcount_uniform, MPI_Datatype recvtype,
                               int root, MPI_Comm comm, const compi_comm_info *ci)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, &rc);
    if (!l) return compi_raise(comm, rc);
    compi_coll_out o;
    compi_coll_xfer x;
    int built = 0;
    rc = compi_coll_xfer_init(&x, size);
    if (rc == MPI_SUCCESS && !(rank == root && sendbuf == MPI_IN_PLACE)) {
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, sendcount, &ti);
        if (ti.size > 0) {
            rc = compi_coll_out_build(&o, ci, root, COMPI_FAM_GATHER, sendbuf, sendcount, sendtype, &ti, 0);
            built = rc == MPI_SUCCESS;
            if (built) x.out[root] = &o;
        }
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS && rank == root; i++) {
        int cnt = recvcounts ? recvcounts[i] : recvcount_uniform;
        if (cnt <= 0 || (i == root && sendbuf == MPI_IN_PLACE)) continue;
        MPI_Aint at = rdispls ? rdispls[i] : (MPI_Aint)i * recvcount_uniform;
        char *dst = compi_block(recvbuf, at, recvtype);
        compi_typeinfo t;
        compi_typeinfo_get(recvtype, cnt, &t);
        rc = compi_coll_xfer_expect(&x, i, (size_t)t.size, t.contiguous ? (unsigned char *)dst + t.true_lb : NULL, dst,
                                    cnt, recvtype);
    }
    /* a rank that failed before the exchange still takes part in it (sending nothing) */
    int xrc = x.out ? compi_coll_xfer_run(&x, comm, l->xall, 0, NULL, comm) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = xrc;
    for (int pass = 0; pass < 2 && rank == root; pass++) { /* the frames decoded side by side, then checked */
        for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
            int cnt = recvcounts ? recvcounts[i] : recvcount_uniform;
            if (cnt <= 0 || (i == root && sendbuf == MPI_IN_PLACE)) continue;
            char *dst = compi_block(recvbuf, rdispls ? rdispls[i] : (MPI_Aint)i * recvcount_uniform, recvtype);
            rc = pass ? compi_coll_xfer_deliver(&x, i, dst, cnt, recvtype, i, comm)
                      : compi_coll_xfer_prepare(&x, i, dst, cnt, recvtype);
        }
        if (rc == MPI_SUCCESS && !pass) rc = compi_coll_xfer_decode(&x);
    }
    if (built) compi_coll_out_free(&o);
    compi_coll_xfer_free(&x);
    return compi_raise(comm, rc);
}

static int compi_gather_run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, int *path)
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
        rc =
            compi_gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root, comm, ci);
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
        rc =
            compi_gather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root, comm, ci);
    } else if (rc == MPI_SUCCESS) {
        rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    } else {
        return compi_raise(comm, rc);
    }
    return compi_rooted_done(&tk, comm, rc);
}

int compi_impl_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int path = COMPI_PROF_PATH_MPI;
    int rc = compi_gatherv_run(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &path);
    if (COMPI_PROF_ACTIVE())
        compi_rooted_record(comm, COMPI_PROF_GATHERV, root, 0, recvtype, recvcounts, sendcount, sendtype, NULL, path);
    return rc;
}

/* ---------------------------------------------------------------- scatter */

/* Scatter(v): the root's block for every rank in one exchange (lib/coll,
 * pipex.c), as compi_gather_common in the other direction. */
static int compi_scatter_common(const void *sendbuf, const int *sendcounts, const int *sdispls, int sendcount_uniform,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, const compi_comm_info *ci)
{
    int rank, size, rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    const compi_coll_layout *l = compi_coll_layout_get(comm, ci, &rc);
    if (!l) return compi_raise(comm, rc);
    compi_coll_xfer x;
    compi_coll_out *outs = rank == root ? calloc((size_t)size, sizeof *outs) : NULL;
    rc = compi_coll_xfer_init(&x, size);
    if (rc == MPI_SUCCESS && rank == root && !outs) rc = MPI_ERR_NO_MEM;
    for (int i = 0; i < size && rc == MPI_SUCCESS && rank == root; i++) {
        int cnt = sendcounts ? sendcounts[i] : sendcount_uniform;
        if (cnt <= 0 || (i == root && recvbuf == MPI_IN_PLACE)) continue;
        MPI_Aint at = sdispls ? sdispls[i] : (MPI_Aint)i * sendcount_uniform;
        compi_typeinfo ti;
        compi_typeinfo_get(sendtype, cnt, &ti);
        if (ti.size == 0) continue;
        rc = compi_coll_out_begin(&outs[i], ci, i, COMPI_FAM_SCATTER, compi_block(sendbuf, at, sendtype), cnt, sendtype,
                                  &ti, 0, 0);
        if (rc == MPI_SUCCESS) x.out[i] = &outs[i];
    }
    if (rc == MPI_SUCCESS && outs) rc = compi_coll_outs_code(outs, size); /* the frames, on the codec pool */
    if (rc == MPI_SUCCESS && recvcount > 0 && !(rank == root && recvbuf == MPI_IN_PLACE)) {
        compi_typeinfo t;
        compi_typeinfo_get(recvtype, recvcount, &t);
        rc =
            compi_coll_xfer_expect(&x, root, (size_t)t.size, t.contiguous ? (unsigned char *)recvbuf + t.true_lb : NULL,
                                   recvbuf, recvcount, recvtype);
    }
    /* a rank that failed before the exchange still takes part in it (sending nothing) */
    if (rc != MPI_SUCCESS && x.out)
        for (int i = 0; i < size; i++) x.out[i] = NULL;
    int xrc = x.out ? compi_coll_xfer_run(&x, comm, l->xall, 0, NULL, comm) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = xrc;
    if (rc == MPI_SUCCESS && recvcount > 0 && !(rank == root && recvbuf == MPI_IN_PLACE))
        rc = compi_coll_xfer_deliver(&x, root, recvbuf, recvcount, recvtype, root, comm);
    for (int i = 0; i < size && outs; i++) compi_coll_out_free(&outs[i]);
    free(outs);
    compi_coll_xfer_free(&x);
    return compi_raise(comm, rc);
}

static int compi_scatter_run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, int *path)
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
        rc = compi_scatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                  ci);
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
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int *path)
{
    const compi_comm_info *ci;
    if (!compi_coll_applies(comm, &ci))
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    compi_coll_ticket tk;
    int rc = MPI_SUCCESS;
    if (compi_rooted_gate(comm, ci, COMPI_GATE_SCATTERV, 0, &tk, &rc)) {
        *path = COMPI_PROF_PATH_COMPI;
        rc = compi_scatter_common(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                  ci);
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
