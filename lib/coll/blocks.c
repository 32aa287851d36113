/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocks of a collective on compi's path (coll.h, "blocks of an
 * exchange"): how each is built before the exchange and delivered after
 * it, and the codec work of several blocks spread over the codec pool
 * (lib/pool).
 *
 * Building a block is three steps. The first (compi_coll_out_begin) runs
 * on the calling thread: the decision, packing a non-contiguous block (an
 * MPI call) and the decision's evaluation and sample. The second is the
 * codec work of a whole frame (compi_frame_work_run: MPI-free, nothing
 * shared), which compi_coll_outs_code hands to the pool for every block
 * of the call at once. The third, again on the calling thread and in block
 * order, records statistics and the decision's outcome (the collective's
 * scope belongs to that thread) and turns a frame that did not shrink into
 * a typed block. Delivering mirrors it: compi_coll_xfer_prepare notes the
 * compressed frames, compi_coll_xfer_decode decodes them side by side
 * (straight into a contiguous destination, else into a buffer of their
 * own), and compi_coll_xfer_deliver checks and unpacks each one in order.
 * Every frame's bytes depend on its block alone, so they are the same
 * whatever the thread count on either side. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/bigcount.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/stats.h"
#include "frame/frame.h"
#include "pool/pool.h"

void compi_coll_out_typed(compi_coll_out *o, const void *buf, int count, MPI_Datatype dt, size_t size)
{
    o->typed = 1;
    o->tbuf = buf;
    o->tcount = count;
    o->ttype = dt;
    o->flen = size;
}

/* A pipelined block of size bytes at src, compressed with codec in chunks
 * of chunk bytes (o->packed, if set, is compi's copy src points into). */
static int compi_coll_out_pipe(compi_coll_out *o, const unsigned char *src, size_t size, size_t chunk,
                               const compi_codec *codec, const compi_typeinfo *ti, int copy)
{
    unsigned log2 = 0;
    while (((size_t)1 << log2) < chunk) log2++;
    if (((size_t)1 << log2) != chunk || log2 < COMPI_CHUNK_LOG2_MIN || log2 > COMPI_CHUNK_LOG2_MAX)
        return MPI_ERR_INTERN;
    if (copy && !o->packed) { /* the send data is overwritten during the exchange (in place) */
        if (!(o->packed = malloc(size))) return MPI_ERR_NO_MEM;
        memcpy(o->packed, src, size);
        src = o->packed;
    }
    o->log2 = log2;
    o->chunk = chunk;
    o->src = src;
    o->size = size;
    o->codec = codec;
    o->params = (compi_codec_params){ti->dtclass, ti->elem_size, compi_cfg.level};
    o->n = compi_chunk_count(size, log2);
    o->bufs = calloc(o->n, sizeof *o->bufs);
    o->blen = calloc(o->n, sizeof *o->blen);
    return o->bufs && o->blen ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* A whole frame of the block, its codec work left for
 * compi_coll_out_code: compressed (codec), or raw because the caller's
 * data is overwritten during the exchange (copy). */
static int compi_coll_out_pend(compi_coll_out *o, const void *buf, int count, MPI_Datatype dt, const compi_typeinfo *ti,
                               const compi_codec *codec, int copy)
{
    size_t size = (size_t)ti->size, chunk;
    if (codec && compi_whole_frame_plan(codec, size, 0, &chunk) == COMPI_WHOLE_RAW) {
        COMPI_STAT_ADD(raw_too_large, 1); /* the data may well compress: not "incompressible" */
        codec = NULL;
    }
    compi_coll_out_typed(o, buf, count, dt, size); /* where the block is if its frame goes raw */
    if (!codec && !copy) return MPI_SUCCESS;
    o->typed = 0;
    o->flen = 0;
    if (!ti->contiguous && !o->packed && size > 0) {
        if (!(o->packed = malloc(size))) return MPI_ERR_NO_MEM;
        int rc = compi_pack_bytes(buf, count, dt, o->packed, size);
        if (rc != MPI_SUCCESS) return rc;
    }
    o->work = (compi_frame_work){
        .src = o->packed ? (const char *)o->packed : (const char *)buf + ti->true_lb,
        .size = size,
        .codec = codec,
        .params = {ti->dtclass, ti->elem_size, compi_cfg.level},
        .fill_raw = copy, /* else a raw block is sent from the caller's buffer */
    };
    o->copy = copy;
    o->pending = 1;
    return MPI_SUCCESS;
}

int compi_coll_out_begin(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy, int away)
{
    memset(o, 0, sizeof *o);
    size_t size = (size_t)ti->size;
    compi_decide_in_burst(&o->d, ci, peer, -1, ti, fam, away);
    /* a raw window's watch: new data that compress are evaluated at once */
    if (o->d.watch && ti->contiguous && size > 0) compi_decision_watch(&o->d, (const char *)buf + ti->true_lb, size);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], size);
    const compi_codec *codec = NULL;
    size_t chunk = 0;
    const unsigned char *src = (const unsigned char *)buf + ti->true_lb;
    int rc = MPI_SUCCESS;
    if (compi_decision_needs_data(&o->d) && size > 0) {
        if (!ti->contiguous) {
            if (!(o->packed = malloc(size))) return MPI_ERR_NO_MEM;
            rc = compi_pack_bytes(buf, count, dt, o->packed, size);
            src = o->packed;
        }
        if (rc == MPI_SUCCESS) codec = compi_decision_settle(&o->d, (const char *)src, ti, &chunk);
    }
    if (rc == MPI_SUCCESS && codec && chunk && compi_coll_pipelines() && size >= (size_t)2 << COMPI_CHUNK_LOG2_MIN)
        rc = compi_coll_out_pipe(o, src, size, chunk, codec, ti, copy);
    else if (rc == MPI_SUCCESS) rc = compi_coll_out_pend(o, buf, count, dt, ti, codec, copy);
    if (rc != MPI_SUCCESS) compi_coll_out_free(o);
    else if (!o->pending && !o->chunk) { /* typed: the packed copy is not needed */ free(o->packed);
        o->packed = NULL;
    }
    return rc;
}

/* The codec work of a pending block (any thread: MPI-free). */
static void compi_coll_out_code(compi_coll_out *o)
{
    o->work_rc = compi_frame_work_run(&o->work);
}

/* After the codec work, on the calling thread: the outcome recorded, and a
 * frame that went raw without need sent typed from the caller's buffer. */
static int compi_coll_out_finish(compi_coll_out *o)
{
    if (!o->pending) return MPI_SUCCESS;
    o->pending = 0;
    free(o->packed);
    o->packed = NULL;
    if (o->work_rc != MPI_SUCCESS) return o->work_rc;
    compi_frame_work_count(&o->work, &o->d);
    o->frame = o->work.frame;
    o->work.frame = NULL;
    if (o->copy || o->work.id != COMPI_CODEC_RAW) {
        o->typed = 0;
        o->flen = o->work.flen;
        return MPI_SUCCESS;
    }
    free(o->frame); /* raw after all: sent from the caller's buffer, not from a copy */
    o->frame = NULL;
    o->typed = 1;
    o->flen = o->work.size;
    return MPI_SUCCESS;
}

/* Runs fn on items 0..n-1: on the pool's helpers and this thread when the
 * pool has helpers and there are at least two, else here in order. 1 if
 * the pool ran them. */
static int compi_coll_pool_run(size_t n, compi_pool_fn fn, void *arg)
{
    compi_pool_job *j = n > 1 ? compi_pool_job_new(n, fn, arg) : NULL;
    if (!j) {
        for (size_t i = 0; i < n; i++) fn(arg, i);
        return 0;
    }
    compi_pool_release(j, n);
    for (size_t i = 0; i < n; i++) compi_pool_wait(j, i);
    compi_pool_job_end(j);
    return 1;
}

static void compi_coll_out_item(void *arg, size_t i)
{
    compi_coll_out_code(((compi_coll_out **)arg)[i]);
}

int compi_coll_outs_code(compi_coll_out *outs, int n)
{
    size_t k = 0;
    for (int j = 0; j < n; j++) k += outs[j].pending;
    compi_coll_out **todo = k ? malloc(k * sizeof *todo) : NULL;
    if (k && !todo) { /* no room for the list: one by one, here */
        for (int j = 0; j < n; j++)
            if (outs[j].pending) compi_coll_out_code(&outs[j]);
    } else {
        k = 0;
        for (int j = 0; j < n; j++)
            if (outs[j].pending) todo[k++] = &outs[j];
        if (compi_coll_pool_run(k, compi_coll_out_item, todo)) COMPI_STAT_ADD(pool_blocks_encoded, k);
    }
    free(todo);
    int rc = MPI_SUCCESS;
    for (int j = 0; j < n; j++) {
        int frc = compi_coll_out_finish(&outs[j]);
        if (rc == MPI_SUCCESS) rc = frc;
    }
    return rc;
}

int compi_coll_out_build(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy)
{
    int rc = compi_coll_out_begin(o, ci, peer, fam, buf, count, dt, ti, copy, 0);
    if (rc == MPI_SUCCESS) rc = compi_coll_outs_code(o, 1);
    if (rc != MPI_SUCCESS) compi_coll_out_free(o);
    return rc;
}

void compi_coll_out_free(compi_coll_out *o)
{
    if (!o) return;
    free(o->frame);
    free(o->packed);
    free(o->work.frame);
    if (o->bufs)
        for (size_t k = 0; k < o->n; k++) free(o->bufs[k]);
    free(o->bufs);
    free(o->blen);
    memset(o, 0, sizeof *o);
}

size_t compi_coll_out_wire(const compi_coll_out *o)
{
    return o->chunk ? o->wire : o->flen;
}

/* ---- delivering */

/* A compressed frame from one source, decoded by the pool. */
struct compi_coll_dec {
    int queued, done;
    compi_frame_header h;
    const unsigned char *payload;
    unsigned char *dst; /* where it decodes: the destination itself, or tmp */
    unsigned char *tmp; /* its own buffer (a non-contiguous destination) */
    int rc;             /* COMPI_OK, or the frame error (why) */
    uint64_t ns;
    char why[160];
};

void compi_coll_dec_free(compi_coll_xfer *x)
{
    for (int i = 0; i < x->n && x->dec; i++) free(x->dec[i].tmp);
    free(x->dec);
    x->dec = NULL;
}

int compi_coll_xfer_prepare(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt)
{
    if (x->piped[i] || !x->got.lens || x->got.lens[i] == 0) return MPI_SUCCESS;
    const unsigned char *frame = x->got.bytes + x->got.displs[i];
    compi_frame_header h;
    char why[160];
    /* a damaged frame, a raw one, one that does not fit: delivered one by
     * one as before (compi_coll_xfer_deliver) */
    if (compi_frame_check_whole(frame, x->got.lens[i], &h, why, sizeof why) != COMPI_OK || h.codec == COMPI_CODEC_RAW)
        return MPI_SUCCESS;
    compi_typeinfo ti;
    compi_typeinfo_get(dt, count, &ti);
    if (h.original_len > (uint64_t)ti.size) return MPI_SUCCESS;
    if (!x->dec && !(x->dec = calloc((size_t)x->n, sizeof *x->dec))) return MPI_ERR_NO_MEM;
    struct compi_coll_dec *d = &x->dec[i];
    memset(d, 0, sizeof *d);
    d->h = h;
    d->payload = frame + COMPI_FRAME_HEADER_SIZE;
    if (ti.contiguous) {
        d->dst = (unsigned char *)dst + ti.true_lb;
    } else {
        if (!(d->tmp = malloc(h.original_len ? (size_t)h.original_len : 1))) return MPI_ERR_NO_MEM;
        d->dst = d->tmp;
    }
    d->queued = 1;
    return MPI_SUCCESS;
}

static void compi_coll_dec_item(void *arg, size_t i)
{
    struct compi_coll_dec *d = ((struct compi_coll_dec **)arg)[i];
    uint64_t t0 = compi_now_ns();
    d->rc = compi_frame_decode_payload(&d->h, d->payload, d->dst, (size_t)d->h.original_len, d->why, sizeof d->why);
    d->ns = compi_now_ns() - t0;
    d->done = 1;
}

int compi_coll_xfer_decode(compi_coll_xfer *x)
{
    if (!x->dec) return MPI_SUCCESS;
    struct compi_coll_dec **todo = malloc((size_t)x->n * sizeof *todo);
    if (!todo) return MPI_SUCCESS; /* each is decoded when delivered */
    size_t k = 0;
    for (int i = 0; i < x->n; i++)
        if (x->dec[i].queued) todo[k++] = &x->dec[i];
    if (compi_coll_pool_run(k, compi_coll_dec_item, todo)) COMPI_STAT_ADD(pool_blocks_decoded, k);
    free(todo);
    return MPI_SUCCESS;
}

/* Rank i's frame, decoded by the pool, into count dt at dst (it fits:
 * compi_coll_xfer_prepare checked). */
static int compi_coll_dec_deliver(struct compi_coll_dec *d, void *dst, int count, MPI_Datatype dt, int source,
                                  MPI_Comm comm)
{
    if (!d->done) compi_coll_dec_item(&d, 0);
    d->queued = 0;
    COMPI_STAT_ADD(frames_decoded, 1);
    COMPI_STAT_ADD(decompress_ns, d->ns);
    COMPI_STAT_ADD(frames_decoded_compressed, 1);
    int rc = MPI_SUCCESS;
    if (d->rc != COMPI_OK) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = source;
        rc = compi_frame_fail(comm, &st, d->why);
    } else if (d->tmp) {
        rc = compi_unpack_bytes(d->tmp, (size_t)d->h.original_len, dst, count, dt);
    }
    free(d->tmp);
    d->tmp = NULL;
    return rc;
}

int compi_coll_xfer_deliver(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt, int source, MPI_Comm comm)
{
    if (x->piped[i]) return x->stage[i] ? compi_unpack_bytes(x->stage[i], x->in[i].size, dst, count, dt) : MPI_SUCCESS;
    if (x->got.lens[i] == 0) return MPI_SUCCESS; /* nothing, or it came typed: in place already */
    if (x->dec && x->dec[i].queued) return compi_coll_dec_deliver(&x->dec[i], dst, count, dt, source, comm);
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = source;
    return compi_frame_deliver(x->got.bytes + x->got.displs[i], x->got.lens[i], dst, count, dt, &st, comm);
}
