/* SPDX-License-Identifier: BSD-3-Clause */
/* Turning one application message into what goes on the wire and back.
 *
 * On a framed communicator an inter-node message is one of:
 *   - raw and unframed: the application's bytes exactly as posted, sent
 *     from its own buffer (no copy, no header);
 *   - a frame: a 32-byte header (lib/frame/frame.c) and a compressed
 *     payload, never longer than the data;
 *   - an escape: a raw message that starts like a header, its first 32
 *     bytes sent aside (lib/core/escape.c).
 * The receiver tells them apart by compi_bytes_look_framed on the first
 * bytes. Same-node messages are always unframed (compi_p2p_plain). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bigcount.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/requests.h"
#include "core/send.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"

/* Non-contiguous receives: under MPICH (ch4/UCX) bytes do not land in
 * non-contiguous typed layouts (measured: 15032 B into {32 B, struct x K}
 * fails), so they are staged as bytes and unpacked; Open MPI receives them
 * as one datatype joining a 32-byte header slot and the user's layout, which
 * never writes a same-node sender's too-long message past compi's memory,
 * except layouts with basic elements wider than Open MPI places in part
 * (compi_typeinfo's wide): a frame ends anywhere, so those are staged
 * there too. */
#if defined(COMPI_MPI_mpich) || defined(COMPI_COMPAT_STAGE_NONCONTIG)
#define COMPI_STAGE_NONCONTIG 1
#else
#define COMPI_STAGE_NONCONTIG 0
#endif
/* Messages from COMPI_SAMPLE_FROM bytes on are compressed whole only if a
 * COMPI_SAMPLE_BYTES slice shrinks to at most COMPI_SAMPLE_MAX_RATIO of its
 * size (measured: lz4 on 8 MiB of random data cost 3.6% at 1 Gbit/s). */
#define COMPI_SAMPLE_FROM (256 * 1024)
#define COMPI_SAMPLE_BYTES (32 * 1024)
#define COMPI_SAMPLE_MAX_RATIO 0.97
int compi_raise(MPI_Comm comm, int code)
{
    if (code != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* ------------------------------------------------------------- sending */

/* The decision's evaluation and the incompressibility sample, once per
 * decision: *codec is the codec the bytes go with (NULL: raw). */
static int compi_settle(compi_decision *d, const char *src, const compi_typeinfo *ti, const compi_codec **codec)
{
    size_t size = (size_t)ti->size;
    if (d->settled) { /* 1: with d->codec, 2: raw (the sample did not shrink) */
        *codec = d->settled == 1 ? d->codec : NULL;
        return MPI_SUCCESS;
    }
    if (d->evaluate || d->trace) compi_decision_evaluate(d, src, size, ti);
    *codec = d->codec;
    compi_codec_params params = {ti->dtclass, ti->elem_size, compi_cfg.level};
    if (*codec && !d->evaluate && size >= COMPI_SAMPLE_FROM) {
        /* Incompressible data (random, already compressed) would cost a whole
         * compression for nothing: try a slice from the middle first. */
        size_t off = (size / 2 - COMPI_SAMPLE_BYTES / 2) & ~(size_t)7;
        size_t scap = (*codec)->bound(COMPI_SAMPLE_BYTES);
        void *sample = malloc(scap);
        if (!sample) return MPI_ERR_NO_MEM;
        uint64_t t0 = compi_now_ns();
        long long slen = (*codec)->compress(src + off, COMPI_SAMPLE_BYTES, sample, scap, &params);
        COMPI_STAT_ADD(compress_ns, compi_now_ns() - t0);
        free(sample);
        if (slen < 0 || (double)slen > COMPI_SAMPLE_MAX_RATIO * COMPI_SAMPLE_BYTES) {
            COMPI_STAT_ADD(raw_incompressible, 1);
            compi_decision_outcome(d, size, -1, 0);
            *codec = NULL;
        }
    }
    d->settled = *codec ? 1 : 2;
    return MPI_SUCCESS;
}

const compi_codec *compi_decision_settle(compi_decision *d, const char *src, const compi_typeinfo *ti, size_t *chunk)
{
    const compi_codec *codec = NULL;
    *chunk = 0;
    if (!compi_decision_needs_data(d) || ti->size == 0) return NULL;
    if (compi_settle(d, src, ti, &codec) != MPI_SUCCESS) codec = NULL; /* no memory for the sample: raw */
    if (codec) *chunk = compi_decision_chunk(d, (size_t)ti->size);
    return codec;
}

/* fill_raw = 0: a contiguous message that ends up raw is not copied into
 * the frame (the caller sends it from the application's buffer). *codec_out:
 * the frame's codec id (COMPI_CODEC_RAW when it went raw). pipe: where a
 * message the decision pipelines gets its header frame (pipeline.c; then
 * *codec_out is COMPI_CODEC_CHUNKED and nothing else is returned); NULL
 * encodes every message whole. */
static int compi_encode(const void *buf, int count, MPI_Datatype dt, const compi_typeinfo *ti, compi_decision *d,
                        unsigned char **frame_out, size_t *frame_len, int fill_raw, uint8_t *codec_out,
                        compi_outgoing *pipe, const compi_comm_info *ci, int dest)
{
    size_t size = (size_t)ti->size;
    compi_frame_header h = {COMPI_CODEC_RAW, (uint8_t)ti->dtclass, size, size, 0};
    int use_data = compi_decision_needs_data(d) && size > 0;
    /* A frame is exactly header + codec output, whatever the datatype:
     * every receive compi posts accepts any byte length (see
     * compi_incoming_prepare), so nothing is padded to whole elements. */
    void *packed = NULL;
    const char *src = (const char *)buf + ti->true_lb;
    if (use_data && !ti->contiguous) {
        /* A codec reads the bytes packed aside (without one, they are packed
         * straight into the frame below). */
        packed = malloc(size);
        if (!packed) return MPI_ERR_NO_MEM;
        int rc = compi_pack_bytes(buf, count, dt, packed, size);
        if (rc != MPI_SUCCESS) {
            free(packed);
            return rc;
        }
        src = packed;
    }
    const compi_codec *codec = NULL;
    if (use_data) {
        int rc = compi_settle(d, src, ti, &codec);
        if (rc != MPI_SUCCESS) {
            free(packed);
            return rc;
        }
    }
    compi_codec_params params = {ti->dtclass, ti->elem_size, compi_cfg.level};
    /* A nonblocking collective's step (a collective family here: only
     * lib/coll/sched.c posts those through this path) goes whole: its
     * receiver would take a pipelined message's chunks inside whichever
     * progress call found the header, blocking there (the collective's own
     * call, before the application's compute) until the sender, maybe
     * computing meanwhile, moved every chunk. A whole frame lands in the
     * receive posted at the call, while both sides compute. Only a message
     * too large for one codec call is still pipelined (below). */
    int whole = codec && (d->fam >= COMPI_FAM_BCAST && d->fam <= COMPI_FAM_REDUCE);
    size_t chunk = codec && pipe && !whole ? compi_decision_chunk(d, size) : 0;
    if (codec && !chunk && compi_whole_frame_plan(codec, size, pipe != NULL, &chunk) == COMPI_WHOLE_RAW) {
        COMPI_STAT_ADD(raw_too_large, 1); /* the data may well compress: not "incompressible" */
        codec = NULL;
    }
    if (chunk) {
        int rc = compi_pipe_prepare(pipe, src, packed, size, chunk, codec, &params, ci, dest);
        if (rc != MPI_SUCCESS) {
            free(packed);
            return rc;
        }
        *codec_out = COMPI_CODEC_CHUNKED;
        return MPI_SUCCESS;
    }
    if (!ti->contiguous && !packed) { /* raw: packed straight into the frame */
        unsigned char *frame = malloc(COMPI_FRAME_HEADER_SIZE + size);
        if (!frame) return MPI_ERR_NO_MEM;
        int rc = compi_pack_bytes(buf, count, dt, frame + COMPI_FRAME_HEADER_SIZE, size);
        if (rc != MPI_SUCCESS) {
            free(frame);
            return rc;
        }
        compi_frame_write_header(frame, &h);
        *codec_out = COMPI_CODEC_RAW;
        *frame_out = frame;
        *frame_len = COMPI_FRAME_HEADER_SIZE + size;
        return MPI_SUCCESS;
    }
    compi_frame_work w = {.src = src, .size = size, .codec = codec, .params = params, .fill_raw = fill_raw || packed};
    int rc = compi_frame_work_run(&w);
    free(packed);
    if (rc != MPI_SUCCESS) return rc;
    compi_frame_work_count(&w, d);
    *codec_out = w.id;
    *frame_out = w.frame;
    *frame_len = w.flen;
    return MPI_SUCCESS;
}

int compi_frame_work_run(compi_frame_work *w)
{
    size_t size = w->size, cap = size;
    compi_frame_header h = {COMPI_CODEC_RAW, (uint8_t)w->params.dtclass, size, size, 0};
    if (w->codec) {
        /* room for whichever codec the decision ends with */
        size_t bound = compi_codec_bound_max(size);
        cap = bound > size ? bound : size;
    }
    w->clen = -1;
    w->ns = 0;
    unsigned char *frame = malloc(COMPI_FRAME_HEADER_SIZE + cap);
    if (!frame) return MPI_ERR_NO_MEM;
    unsigned char *payload = frame + COMPI_FRAME_HEADER_SIZE;
    size_t wire_payload = size;
    if (w->codec) {
        uint64_t t0 = compi_now_ns();
        w->clen = w->codec->compress(w->src, size, payload, cap, &w->params);
        w->ns = compi_now_ns() - t0;
        /* a frame may land in a buffer of exactly the data's size */
        if (w->clen >= 0 && (size_t)w->clen + COMPI_FRAME_HEADER_SIZE <= size) {
            h.codec = w->codec->id;
            h.payload_len = (uint64_t)w->clen;
            wire_payload = (size_t)w->clen;
        }
    }
    if (h.codec == COMPI_CODEC_RAW && size && w->fill_raw) memcpy(payload, w->src, size);
    compi_frame_write_header(frame, &h);
    w->id = h.codec;
    w->frame = frame;
    w->flen = COMPI_FRAME_HEADER_SIZE + wire_payload;
    return MPI_SUCCESS;
}

void compi_frame_work_count(const compi_frame_work *w, compi_decision *d)
{
    if (!w->codec) return;
    COMPI_STAT_ADD(compress_ns, w->ns);
    if (w->id != COMPI_CODEC_RAW) {
        COMPI_STAT_ADD(codec_msgs[w->id], 1);
        COMPI_STAT_ADD(codec_in[w->id], w->size);
        /* the report's ratio is data over what went on the wire */
        COMPI_STAT_ADD(codec_out[w->id], w->flen);
        compi_decision_outcome(d, w->size, w->clen, w->ns);
    } else {
        /* Incompressible (or a codec error): the raw bytes go instead. */
        COMPI_STAT_ADD(raw_incompressible, 1);
        compi_decision_outcome(d, w->size, -1, w->ns);
        if (w->clen < 0)
            compi_log(2, "codec %s failed (%s); sending raw", w->codec->name, compi_error_string((int)w->clen));
    }
}

int compi_frame_encode(const void *buf, int count, MPI_Datatype dt, const compi_typeinfo *ti, compi_decision *d,
                       unsigned char **frame, size_t *frame_len)
{
    uint8_t codec;
    return compi_encode(buf, count, dt, ti, d, frame, frame_len, 1, &codec, NULL, NULL, -1);
}

static void compi_outgoing_user(compi_outgoing *out, const void *buf, int count, MPI_Datatype dt, size_t size)
{
    out->addr = buf;
    out->count = count;
    out->dt = dt;
    out->wire_len = size;
}

/* compi's bytes tmp[off..off+len) as the message; takes tmp (freed here on failure). */
static int compi_outgoing_bytes(compi_outgoing *out, void *tmp, size_t off, size_t len)
{
    int rc = compi_bytes_type(len, &out->count, &out->dt);
    if (rc != MPI_SUCCESS) {
        free(tmp);
        return rc;
    }
    out->dt_owned = out->dt != MPI_BYTE;
    out->tmp = tmp;
    out->addr = (char *)tmp + off;
    out->wire_len = len;
    return MPI_SUCCESS;
}

int compi_outgoing_build(compi_outgoing *out, const void *buf, int count, MPI_Datatype dt, const compi_comm_info *ci,
                         int dest, int tag, compi_family fam, int away, compi_decision *d, int keep_ref)
{
    compi_typeinfo ti;
    compi_typeinfo_get(dt, count, &ti);
    size_t size = (size_t)ti.size;
    memset(out, 0, sizeof *out);

    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], size);
    COMPI_STAT_ADD(inter_msgs, 1); /* same-node messages never come here */

    compi_decide_in_burst(d, ci, dest, tag, &ti, fam, away);
    d->outcome_later = 1; /* the caller posts the message, then records it */
    if (d->watch && ti.contiguous && size > 0) compi_decision_watch(d, (const char *)buf + ti.true_lb, size);
    int in_place = ti.contiguous && keep_ref;
    if (!compi_decision_needs_data(d) && in_place &&
        !compi_bytes_look_framed((const char *)buf + ti.true_lb, size, size)) {
        COMPI_STAT_ADD(raw_unframed, 1);
        compi_outgoing_user(out, buf, count, dt, size);
        return MPI_SUCCESS;
    }
    unsigned char *frame;
    size_t flen;
    uint8_t codec;
    int rc = compi_encode(buf, count, dt, &ti, d, &frame, &flen, !in_place, &codec, out, ci, dest);
    if (rc != MPI_SUCCESS || codec == COMPI_CODEC_CHUNKED) return rc;
    if (codec != COMPI_CODEC_RAW) return compi_outgoing_bytes(out, frame, 0, flen);
    /* raw after all: where the bytes are, and whether they look like a frame */
    const char *data = in_place ? (const char *)buf + ti.true_lb : (const char *)frame + COMPI_FRAME_HEADER_SIZE;
    if (!compi_bytes_look_framed(data, size, size)) {
        COMPI_STAT_ADD(raw_unframed, 1);
        if (in_place) {
            free(frame);
            compi_outgoing_user(out, buf, count, dt, size);
            return MPI_SUCCESS;
        }
        return compi_outgoing_bytes(out, frame, COMPI_FRAME_HEADER_SIZE, size);
    }
    if (in_place) memcpy(frame + COMPI_FRAME_HEADER_SIZE, data, size);
    rc = compi_escape_send(ci, dest, frame + COMPI_FRAME_HEADER_SIZE, size, ti.dtclass);
    if (rc != MPI_SUCCESS) {
        free(frame);
        return rc;
    }
    return compi_outgoing_bytes(out, frame, COMPI_FRAME_HEADER_SIZE, size);
}

void compi_outgoing_release(compi_outgoing *out)
{
    free(out->tmp);
    out->tmp = NULL;
    if (out->dt_owned) compi_bytes_type_free(&out->dt);
    out->dt_owned = 0;
    if (!out->pipe) return;
    if (compi_pipe_done(out->pipe, 0)) {
        compi_pipe_free(out->pipe);
    } else {
        /* chunks still travelling: compi completes them (requests.c) */
        compi_req *r = compi_req_new(COMPI_REQ_SEND, compi_g.aside_comm, NULL, COMPI_FAM_SEND);
        r->out = calloc(1, sizeof *r->out);
        if (!r->out) compi_die("out of memory keeping a pipelined message's chunks");
        r->out->pipe = out->pipe;
        compi_orphan_add(r);
    }
    out->pipe = NULL;
}

/* ------------------------------------------------------------- receiving */

int compi_incoming_prepare(compi_incoming *in, void *buf, int count, MPI_Datatype dt, int hold)
{
    in->buf = buf;
    in->count = count;
    in->dt = in->user_dt = dt;
    in->direct = 0;
    in->tmp = NULL;
    in->tmp_cap = 0;
    in->tmp_dt = MPI_BYTE;
    in->dtype = MPI_DATATYPE_NULL;
    in->post_addr = buf;
    in->post_count = count;
    in->post_dt = dt;
    in->pipe = NULL;
    in->stashed = 0;
    compi_typeinfo_get(dt, count, &in->ti);
    size_t cap = (size_t)in->ti.size;
    if (in->ti.contiguous && cap >= COMPI_DIRECT_MIN) {
        /* raw messages arrive as they are: zero copies. The data is one
         * block at buf + true_lb, received as bytes, so a frame lands
         * whatever its length and the type's basic elements (MPICH refuses
         * a partial basic element in non-contiguous typed receives).
         * Beyond INT_MAX bytes an int count cannot say that and the typed
         * receive stays: both MPIs take any length in a contiguous type
         * (measured, also beyond 2 GiB). The PMPI receive holds its own
         * reference on dt, and completion never needs it. */
        in->direct = 1;
        if (compi_fits_int(cap)) {
            in->post_addr = (char *)buf + in->ti.true_lb;
            in->post_count = (int)cap;
            in->post_dt = MPI_BYTE;
        }
        return MPI_SUCCESS;
    }
    if (hold) { /* staged bytes are unpacked with dt at completion */
        int rc = compi_type_hold(dt, &in->dt);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (in->ti.contiguous || COMPI_STAGE_NONCONTIG || in->ti.wide) {
        in->tmp_cap = COMPI_FRAME_HEADER_SIZE + cap;
        in->tmp = malloc(in->tmp_cap);
        if (!in->tmp) return MPI_ERR_NO_MEM;
        /* beyond INT_MAX bytes, one element of a large-count type */
        int rc = compi_bytes_type(in->tmp_cap, &in->post_count, &in->tmp_dt);
        in->post_addr = in->tmp;
        in->post_dt = in->tmp_dt;
        return rc;
    }
    /* Open MPI places any byte length in a typed layout, partial basic
     * elements included (measured), so a frame lands here whole too. */
    MPI_Aint disp[2];
    int lens[2] = {COMPI_FRAME_HEADER_SIZE, count};
    MPI_Datatype types[2] = {MPI_BYTE, in->dt};
    PMPI_Get_address(in->header, &disp[0]);
    PMPI_Get_address(buf, &disp[1]);
    int rc = PMPI_Type_create_struct(2, lens, disp, types, &in->dtype);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&in->dtype);
    in->post_addr = MPI_BOTTOM;
    in->post_count = 1;
    in->post_dt = in->dtype;
    return rc;
}

/* Where the message's first bytes land. */
static unsigned char *compi_incoming_landing(const compi_incoming *in)
{
    return in->direct ? (unsigned char *)in->buf + in->ti.true_lb
           : in->tmp  ? (unsigned char *)in->tmp
                      : (unsigned char *)in->header;
}

/* Every receive compi posts holds at least a header's bytes there (a direct
 * one at least COMPI_DIRECT_MIN, staging and the struct path a header slot
 * more than the buffer). */
void compi_incoming_mark(compi_incoming *in)
{
    unsigned char *head = compi_incoming_landing(in);
    if (!in->direct) memset(head, 0, COMPI_FRAME_HEADER_SIZE); /* compi's memory: no stale header */
    memcpy(in->before, head, COMPI_FRAME_HEADER_SIZE);
}

int compi_incoming_header_landed(const compi_incoming *in)
{
    /* Read while the MPI may still be writing there: only a whole header,
     * checksum and all, counts, and the request's state then decides. A
     * receive the MPI truncated wrote nothing (MPICH; compi_trunc_writes_prefix)
     * or the prefix of a message longer than 32 bytes, which is never a
     * sound pipelined header from a compi sender (data that looks framed
     * goes escaped). */
    const unsigned char *head = compi_incoming_landing(in);
    if (memcmp(head, in->before, COMPI_FRAME_HEADER_SIZE) == 0) return 0;
    compi_frame_header h;
    char why[200];
    return compi_bytes_look_framed(head, COMPI_FRAME_HEADER_SIZE, COMPI_FRAME_HEADER_SIZE) &&
           compi_frame_read_header(head, COMPI_FRAME_HEADER_SIZE, &h, why, sizeof why) == COMPI_OK &&
           h.codec == COMPI_CODEC_CHUNKED;
}

size_t compi_incoming_room(const compi_incoming *in)
{
    if (in->direct) return (size_t)in->ti.size;
    return in->tmp ? in->tmp_cap : (size_t)in->ti.size + COMPI_FRAME_HEADER_SIZE;
}

void compi_incoming_release(compi_incoming *in)
{
    if (in->pipe) { /* never completed (compi's teardown): its chunks are drained */
        MPI_Status st = {0};
        compi_pipe_recv_end(in->pipe, &st, MPI_COMM_NULL);
        in->pipe = NULL;
    }
    free(in->tmp);
    in->tmp = NULL;
    compi_bytes_type_free(&in->tmp_dt);
    if (in->dtype != MPI_DATATYPE_NULL) PMPI_Type_free(&in->dtype);
    compi_type_release(in->user_dt, &in->dt);
}

int compi_frame_fail(MPI_Comm comm, const MPI_Status *st, const char *why)
{
    fprintf(stderr, "compi: rank %d: message from rank %d (tag %d) failed frame validation: %s\n", compi_g.world_rank,
            st->MPI_SOURCE, st->MPI_TAG, why);
    return compi_g.frame_error_code;
}

static void compi_status_set_bytes(MPI_Status *st, size_t bytes)
{
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)bytes);
}

void compi_status_empty(MPI_Status *st)
{
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
}

/* What a truncated receive leaves behind is up to the MPI; compi mirrors the
 * one it runs on. Measured: Open MPI 4.1 delivers the buffer's worth of data
 * and reports the message's full length; MPICH 4.0 writes nothing and
 * reports 0 bytes. */
#if defined(COMPI_MPI_mpich)
#define COMPI_TRUNC_WRITES_PREFIX 0
#else
#define COMPI_TRUNC_WRITES_PREFIX 1
#endif
int compi_trunc_writes_prefix(void)
{
    return COMPI_TRUNC_WRITES_PREFIX;
}
size_t compi_truncated_count(uint64_t original)
{
    return COMPI_TRUNC_WRITES_PREFIX ? (size_t)original : 0;
}

/* Decompresses payload into (buf,count,dt) whose capacity is cap bytes.
 * Returns MPI_SUCCESS, MPI_ERR_TRUNCATE or a frame error. */
static int compi_decode_payload(const compi_frame_header *h, const void *payload, void *buf, int count, MPI_Datatype dt,
                                const compi_typeinfo *ti, const MPI_Status *st, MPI_Comm comm)
{
    size_t cap = (size_t)ti->size;
    size_t orig = (size_t)h->original_len;
    int direct = ti->contiguous && orig <= cap;
    if (orig > cap && !COMPI_TRUNC_WRITES_PREFIX) return MPI_ERR_TRUNCATE;
    char *dst = direct ? (char *)buf + ti->true_lb : malloc(orig ? orig : 1);
    if (!dst) return MPI_ERR_NO_MEM;
    char why[200];
    uint64_t t0 = compi_now_ns();
    int drc = compi_frame_decode_payload(h, payload, dst, orig, why, sizeof why);
    COMPI_STAT_ADD(decompress_ns, compi_now_ns() - t0);
    COMPI_STAT_ADD(frames_decoded_compressed, 1);
    if (drc != COMPI_OK) {
        if (!direct) free(dst);
        return compi_frame_fail(comm, st, why);
    }
    int rc = MPI_SUCCESS;
    if (!direct) {
        size_t keep = orig <= cap ? orig : cap;
        if (ti->contiguous) memcpy((char *)buf + ti->true_lb, dst, keep);
        else rc = compi_unpack_bytes(dst, keep, buf, count, dt);
        free(dst);
    }
    if (rc == MPI_SUCCESS && orig > cap) rc = MPI_ERR_TRUNCATE;
    return rc;
}

int compi_bytes_deliver(const void *bytes, size_t n, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    compi_typeinfo ti;
    compi_typeinfo_get(dt, count, &ti);
    size_t cap = (size_t)ti.size;
    size_t keep = n <= cap ? n : cap;
    if (n > cap && !COMPI_TRUNC_WRITES_PREFIX) keep = 0;
    int rc = MPI_SUCCESS;
    if (keep && ti.contiguous) memcpy((char *)buf + ti.true_lb, bytes, keep);
    else if (keep) rc = compi_unpack_bytes(bytes, keep, buf, count, dt);
    if (rc == MPI_SUCCESS && n > cap) rc = MPI_ERR_TRUNCATE;
    compi_status_set_bytes(st, rc == MPI_ERR_TRUNCATE ? compi_truncated_count(n) : n);
    return rc;
}

/* A checked header and its payload in memory, into (buf,count,dt). */
static int compi_payload_deliver(const compi_frame_header *h, const unsigned char *payload, void *buf, int count,
                                 MPI_Datatype dt, MPI_Status *st, MPI_Comm comm)
{
    if (h->codec == COMPI_CODEC_RAW) return compi_bytes_deliver(payload, (size_t)h->original_len, buf, count, dt, st);
    compi_typeinfo ti;
    compi_typeinfo_get(dt, count, &ti);
    int rc = compi_decode_payload(h, payload, buf, count, dt, &ti, st, comm);
    compi_status_set_bytes(st,
                           rc == MPI_ERR_TRUNCATE ? compi_truncated_count(h->original_len) : (size_t)h->original_len);
    return rc;
}

int compi_frame_deliver(const void *frame, size_t frame_len, void *buf, int count, MPI_Datatype dt, MPI_Status *st,
                        MPI_Comm comm)
{
    compi_frame_header h;
    char why[200];
    COMPI_STAT_ADD(frames_decoded, 1);
    if (compi_frame_check_whole(frame, frame_len, &h, why, sizeof why) != COMPI_OK)
        return compi_frame_fail(comm, st, why);
    return compi_payload_deliver(&h, (const unsigned char *)frame + COMPI_FRAME_HEADER_SIZE, buf, count, dt, st, comm);
}

/* The message arrived unframed (a same-node sender, or a raw inter-node
 * message): no header. It landed in the user buffer (direct: nothing to
 * do), in the staging copy, or (struct path) its first 32 bytes in
 * in->header and the rest at the start of the user's layout. Either way the
 * user buffer gets its first min(length, capacity) bytes, and a message
 * longer than the capacity is truncated the way the MPI underneath does. */
static int compi_incoming_unframed(compi_incoming *in, MPI_Status *st)
{
    MPI_Count wire = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &wire);
    size_t n = wire > 0 ? (size_t)wire : 0, cap = (size_t)in->ti.size;
    int truncated = compi_error_class(st->MPI_ERROR) == MPI_ERR_TRUNCATE || n > cap;
    size_t keep = n < cap ? n : cap;
    if (truncated && !COMPI_TRUNC_WRITES_PREFIX) keep = 0;
    int rc = MPI_SUCCESS;
    const unsigned char *linear = in->tmp;
    unsigned char *joined = NULL;
    if (!in->tmp && !in->direct && keep) {
        size_t head = keep < COMPI_FRAME_HEADER_SIZE ? keep : COMPI_FRAME_HEADER_SIZE;
        if (in->ti.contiguous) {
            /* shift the tail into place, then put the head before it */
            char *b = (char *)in->buf + in->ti.true_lb;
            if (keep > head) memmove(b + head, b, keep - head);
            memcpy(b, in->header, head);
        } else {
            /* the layout holds bytes 32.. in pack order: join and re-place */
            joined = malloc(head + cap);
            if (!joined) return MPI_ERR_NO_MEM;
            memcpy(joined, in->header, head);
            if (keep > head) rc = compi_pack_bytes(in->buf, in->count, in->dt, joined + head, cap);
            linear = joined;
        }
    }
    if (linear && keep && rc == MPI_SUCCESS) {
        if (in->ti.contiguous) memcpy((char *)in->buf + in->ti.true_lb, linear, keep);
        else rc = compi_unpack_bytes(linear, keep, in->buf, in->count, in->dt);
    }
    free(joined);
    compi_status_set_bytes(st, truncated ? compi_truncated_count(n) : n);
    return rc == MPI_SUCCESS && truncated ? MPI_ERR_TRUNCATE : rc;
}

/* A frame whose payload lies in the user's layout: after the header
 * (direct) or from the start (struct path, header in in->header). */
static int compi_incoming_inplace_frame(compi_incoming *in, const compi_frame_header *h, MPI_Status *st, MPI_Comm comm)
{
    char *b = (char *)in->buf + in->ti.true_lb;
    size_t skip = in->direct ? COMPI_FRAME_HEADER_SIZE : 0, plen = (size_t)h->payload_len;
    int rc = MPI_SUCCESS;
    if (h->codec == COMPI_CODEC_RAW) {
        if (skip) memmove(b, b + skip, plen); /* it fit with its header: plen < capacity */
    } else {
        /* The compressed bytes were laid into the user buffer; take them out
         * (they are smaller than the original) and decode in place. */
        unsigned char *payload = malloc(plen ? plen : 1);
        if (!payload) return MPI_ERR_NO_MEM;
        if (in->ti.contiguous) {
            memcpy(payload, b + skip, plen);
        } else {
            /* Packing the typed layout back yields the bytes in arrival order. */
            size_t cap = (size_t)in->ti.size;
            unsigned char *all = malloc(cap ? cap : 1);
            if (!all) {
                free(payload);
                return MPI_ERR_NO_MEM;
            }
            int prc = compi_pack_bytes(in->buf, in->count, in->dt, all, cap);
            memcpy(payload, all, plen);
            free(all);
            if (prc != MPI_SUCCESS) {
                free(payload);
                return prc;
            }
        }
        rc = compi_decode_payload(h, payload, in->buf, in->count, in->dt, &in->ti, st, comm);
        free(payload);
    }
    compi_status_set_bytes(st,
                           rc == MPI_ERR_TRUNCATE ? compi_truncated_count(h->original_len) : (size_t)h->original_len);
    return rc;
}

compi_arrival compi_arrival_resolve(const compi_comm_info *ci, int source, unsigned char *head, size_t landed, size_t n,
                                    int truncated, compi_frame_header *h, int *rc, char *why, size_t whylen)
{
    *rc = MPI_SUCCESS;
    if (!compi_bytes_look_framed(head, landed, n)) return COMPI_ARRIVAL_UNFRAMED;
    if (compi_frame_read_header(head, landed, h, why, whylen) != COMPI_OK) return COMPI_ARRIVAL_BAD;
    if (h->codec != COMPI_CODEC_ESCAPE) return COMPI_ARRIVAL_FRAME;
    /* the message's own first bytes come back over the header: then it is
     * an unframed raw message like any other */
    if (compi_escape_check(h, landed, n, truncated, (uint64_t)compi_g.aside_tag_ub, why, whylen) != COMPI_OK)
        return COMPI_ARRIVAL_BAD;
    if (source < 0 || source >= ci->peer_count) { /* MPI's status names the sender: compi's bug */
        *rc = MPI_ERR_INTERN;
        return COMPI_ARRIVAL_BAD;
    }
    int arrived = 0;
    unsigned char aside[COMPI_FRAME_HEADER_SIZE];
    *rc = compi_escape_restore(ci, source, h, aside, &arrived);
    if (*rc == MPI_SUCCESS && !arrived) {
        snprintf(why, whylen,
                 "escape header names side message tag %llu, which did not arrive within "
                 "COMPI_ESCAPE_WAIT=%g s (damaged header, or a sender without compi)",
                 (unsigned long long)h->payload_len, compi_cfg.escape_wait_s);
        return COMPI_ARRIVAL_BAD;
    }
    if (*rc == MPI_SUCCESS && compi_escape_put_back(head, landed, aside, sizeof aside, why, whylen) != COMPI_OK)
        return COMPI_ARRIVAL_BAD;
    COMPI_STAT_ADD(frames_decoded, 1);
    return COMPI_ARRIVAL_UNFRAMED;
}

/* Where the message's first bytes are, and how many of them (n: the wire
 * length) */
static unsigned char *compi_incoming_head(compi_incoming *in, size_t n, int truncated, size_t *landed)
{
    *landed = in->direct || in->tmp ? compi_incoming_room(in) : COMPI_FRAME_HEADER_SIZE;
    if (n < *landed) *landed = n;
    if (truncated && !COMPI_TRUNC_WRITES_PREFIX) *landed = 0;
    return in->direct ? (unsigned char *)in->buf + in->ti.true_lb : in->tmp ? (unsigned char *)in->tmp : in->header;
}

int compi_incoming_advance(compi_incoming *in, const MPI_Status *done, const compi_comm_info *ci, MPI_Comm comm)
{
    if (!in->pipe) {
        /* The header's request stays incomplete in the MPI's eyes: the
         * application's handle stays valid until the chunks are in. Only a
         * sound pipelined header starts here; everything else (escapes
         * included) is judged at completion, as it always is. */
        if (!done) return 1;
        MPI_Status st = *done;
        int cancelled = 0;
        PMPI_Test_cancelled(&st, &cancelled);
        if (cancelled || st.MPI_SOURCE == MPI_PROC_NULL || !compi_peer_is_remote(ci, st.MPI_SOURCE)) return 1;
        MPI_Count wire = 0;
        PMPI_Get_elements_x(&st, MPI_BYTE, &wire);
        size_t n = wire > 0 ? (size_t)wire : 0, landed;
        if (n > compi_incoming_room(in)) return 1; /* truncated */
        unsigned char *head = compi_incoming_head(in, n, 0, &landed);
        compi_frame_header h;
        char why[200];
        if (!compi_bytes_look_framed(head, landed, n) ||
            compi_frame_read_header(head, landed, &h, why, sizeof why) != COMPI_OK || h.codec != COMPI_CODEC_CHUNKED ||
            !compi_frame_length_check(&h, (uint64_t)n - COMPI_FRAME_HEADER_SIZE, why, sizeof why))
            return 1;
        /* a side tag out of range or no memory: reported at completion,
         * which begins again */
        if (h.payload_len > (uint64_t)compi_g.aside_tag_ub ||
            compi_pipe_recv_begin(ci, st.MPI_SOURCE, &h, in->buf, in->count, in->dt, &in->ti, &st, comm, &in->pipe) !=
                MPI_SUCCESS)
            return 1;
        COMPI_STAT_ADD(frames_decoded, 1);
    }
    return compi_pipe_recv_step(in->pipe, 0);
}

int compi_incoming_finish(compi_incoming *in, MPI_Status *st, const compi_comm_info *ci, MPI_Comm comm)
{
    if (in->pipe) { /* begun by compi_incoming_advance or compi_stash_begin */
        compi_pipe_recv *r = in->pipe;
        in->pipe = NULL;
        if (in->stashed) *st = in->stash_st; /* completed a stand-in: the message's own status */
        return compi_pipe_recv_end(r, st, comm);
    }
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled || st->MPI_SOURCE == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!compi_peer_is_remote(ci, st->MPI_SOURCE)) return compi_incoming_unframed(in, st);
    MPI_Count wire = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &wire);
    size_t n = wire > 0 ? (size_t)wire : 0;
    /* The PMPI receive reports truncation itself when the message exceeds
     * its room; then the tail is missing (Open MPI) or nothing was written
     * (MPICH). Open MPI's MPI_Request_get_status returns MPI_SUCCESS for such
     * a receive, with the message's full length: that tells it too. */
    int truncated = compi_error_class(st->MPI_ERROR) == MPI_ERR_TRUNCATE || n > compi_incoming_room(in);
    size_t landed;
    unsigned char *head = compi_incoming_head(in, n, truncated, &landed);
    compi_frame_header h;
    char why[200];
    int rc;
    compi_arrival kind =
        compi_arrival_resolve(ci, st->MPI_SOURCE, head, landed, n, truncated, &h, &rc, why, sizeof why);
    if (rc != MPI_SUCCESS) return rc;
    if (kind == COMPI_ARRIVAL_UNFRAMED) return compi_incoming_unframed(in, st);
    if (truncated) {
        /* An incomplete frame: a raw one's prefix is placed as MPI would
         * have placed it, a compressed one cannot be decoded. */
        int ok = kind == COMPI_ARRIVAL_FRAME;
        uint64_t original = ok ? h.original_len : (uint64_t)in->ti.size;
        if (ok && h.codec == COMPI_CODEC_RAW && in->tmp && in->ti.contiguous && landed > COMPI_FRAME_HEADER_SIZE)
            memcpy((char *)in->buf + in->ti.true_lb, head + COMPI_FRAME_HEADER_SIZE, landed - COMPI_FRAME_HEADER_SIZE);
        compi_status_set_bytes(st, compi_truncated_count(original));
        return MPI_ERR_TRUNCATE;
    }
    COMPI_STAT_ADD(frames_decoded, 1);
    if (kind == COMPI_ARRIVAL_BAD) return compi_frame_fail(comm, st, why);
    if (!compi_frame_length_check(&h, (uint64_t)n - COMPI_FRAME_HEADER_SIZE, why, sizeof why))
        return compi_frame_fail(comm, st, why);
    if (h.codec == COMPI_CODEC_CHUNKED)
        return compi_pipe_receive(ci, st->MPI_SOURCE, &h, in->buf, in->count, in->dt, &in->ti, st, comm);
    if (in->tmp)
        return compi_payload_deliver(&h, (const unsigned char *)in->tmp + COMPI_FRAME_HEADER_SIZE, in->buf, in->count,
                                     in->dt, st, comm);
    return compi_incoming_inplace_frame(in, &h, st, comm);
}
