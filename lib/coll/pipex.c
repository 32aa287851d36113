/* SPDX-License-Identifier: BSD-3-Clause */
/* The exchange of collective blocks (coll.h, "blocks of an exchange").
 *
 * Metadata first (frame/coll_meta.h: 64-bit lengths, so nothing is cut to
 * an int): per block its kind and length, and per sender whether it
 * pipelines anything. Then every block travels point to point on a
 * communicator reserved for it, only between the pairs that have one:
 * typed blocks as one message with the application's buffers and types,
 * bytes blocks as messages of at most compi_coll_piece() bytes (tag
 * COMPI_COLL_TAG_WHOLE), chunks in order (tag COMPI_COLL_TAG_CHUNK). No
 * step stages a whole side of the exchange in one buffer.
 *
 * A pipelined block is not encoded whole before the exchange: its chunks
 * (lib/frame/frame.h, compi_chunk_encode) are compressed one by one during
 * it, each posted with PMPI_Isend as soon as it is ready, destinations
 * interleaved chunk by chunk, while the receivers keep COMPI_COLL_SLOTS
 * chunk receives posted per source and decode each chunk straight into its
 * place as it arrives. Cost: about c + w + d + (n-1) max(c, w, d) instead
 * of c + w + d. When no rank pipelines, every receive and send is posted at
 * once and one blocking Waitall completes them (oversubscribed ranks yield
 * as in a collective). */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"
#include "frame/coll_meta.h"

#define COMPI_COLL_SLOTS 4
#define COMPI_COLL_TAG_WHOLE 1
#define COMPI_COLL_TAG_CHUNK 2

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
    if (copy && !o->packed) {   /* the send data is overwritten during the exchange (in place) */
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

int compi_coll_out_build(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy)
{
    memset(o, 0, sizeof *o);
    size_t size = (size_t)ti->size;
    compi_decide(&o->d, ci, peer, -1, ti, fam);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], size);
    const compi_codec *codec = NULL;
    size_t chunk = 0;
    const unsigned char *src = (const unsigned char *)buf + ti->true_lb;
    if (compi_decision_needs_data(&o->d) && size > 0) {
        if (!ti->contiguous) {
            if (!(o->packed = malloc(size))) return MPI_ERR_NO_MEM;
            int rc = compi_pack_bytes(buf, count, dt, o->packed, size);
            if (rc != MPI_SUCCESS) { compi_coll_out_free(o); return rc; }
            src = o->packed;
        }
        codec = compi_decision_settle(&o->d, (const char *)src, ti, &chunk);
    }
    int rc = MPI_SUCCESS;
    if (codec && chunk && compi_coll_pipelines() && size >= (size_t)2 << COMPI_CHUNK_LOG2_MIN) {
        rc = compi_coll_out_pipe(o, src, size, chunk, codec, ti, copy);
        if (rc != MPI_SUCCESS) compi_coll_out_free(o);
        return rc;
    }
    if (codec || copy) {
        /* compressed (the settled decision compresses the packed bytes), or
         * raw but the caller's data is overwritten during the exchange: a
         * frame of compi's own */
        compi_typeinfo packed_ti = *ti;
        packed_ti.type_size = 1;   /* frames land in compi's buffer as bytes: no element padding needed */
        if (o->packed) {
            packed_ti.contiguous = 1;
            packed_ti.true_lb = 0;
        }
        rc = compi_frame_encode(o->packed ? o->packed : buf, count, dt, &packed_ti, &o->d, &o->frame, &o->flen);
        free(o->packed);
        o->packed = NULL;
        if (rc != MPI_SUCCESS) { compi_coll_out_free(o); return rc; }
        compi_frame_header h;
        char why[160];
        if (copy || (compi_frame_read_header(o->frame, o->flen, &h, why, sizeof why) == COMPI_OK &&
                     h.codec != COMPI_CODEC_RAW))
            return MPI_SUCCESS;
        free(o->frame);   /* raw after all: sent from the caller's buffer, not from a copy */
        o->frame = NULL;
    }
    free(o->packed);
    o->packed = NULL;
    compi_coll_out_typed(o, buf, count, dt, size);
    return MPI_SUCCESS;
}

void compi_coll_out_free(compi_coll_out *o)
{
    if (!o) return;
    free(o->frame);
    free(o->packed);
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

/* Chunk k of o, encoded once for every destination. */
static int compi_coll_chunk(compi_coll_out *o, size_t k)
{
    if (k < o->encoded) return MPI_SUCCESS;
    size_t off = k * o->chunk, len = o->size - off < o->chunk ? o->size - off : o->chunk;
    size_t cap = compi_chunk_capacity(len);
    unsigned char *m = malloc(cap);
    if (!m) return MPI_ERR_NO_MEM;
    int compressed, drop;
    uint64_t t0 = compi_now_ns();
    long long mlen = compi_chunk_encode(k, o->src + off, len, o->codec, &o->params, m, cap, &compressed);
    uint64_t t = compi_now_ns() - t0;
    if (mlen < 0) { free(m); return MPI_ERR_INTERN; }
    o->ns += t;
    if (k) o->hidden += t;   /* ran while the chunks before it travelled */
    o->raw_chunks += !compressed;
    o->wire += (size_t)mlen;
    o->bufs[k] = m;
    o->blen[k] = (int)mlen;
    if (compi_chunk_fault(k, &drop)) {
        if (drop) o->blen[k] = -1;   /* never sent */
        else m[8] ^= 0x5a;           /* the chunk's declared length: its header check fails */
    }
    o->encoded = k + 1;
    if (o->encoded == o->n) {
        compi_pipe_count_sent(o->codec, o->size, o->n, o->wire, o->raw_chunks, o->ns, o->hidden);
        compi_decision_outcome(&o->d, o->size, o->wire < o->size ? (long long)o->wire : -1, o->ns);
    }
    return MPI_SUCCESS;
}

/* A source's pipelined block as it arrives. */
typedef struct {
    size_t size, chunk, n, due, next;   /* bytes, chunk size, chunks, chunks still coming, next to complete */
    unsigned char *dst;                 /* NULL: drained, not kept */
    unsigned char *slot[COMPI_COLL_SLOTS];
    size_t slot_k[COMPI_COLL_SLOTS];
    size_t completed, dec;              /* chunks taken; the next to take */
    int arrived[COMPI_COLL_SLOTS], got[COMPI_COLL_SLOTS], trunc[COMPI_COLL_SLOTS];
    size_t posted;                      /* chunks whose receive was posted: chunk k goes to slot k % slots */
    int busy[COMPI_COLL_SLOTS];
    int slots, bad;
    uint64_t decode_ns, hidden_ns;
    uint8_t codec;
} compi_coll_stream;

size_t compi_coll_piece(void)
{
    static size_t piece;
    size_t p = __atomic_load_n(&piece, __ATOMIC_RELAXED);
    if (p) return p;
    p = (size_t)1 << 30;
    const char *v = getenv("COMPI_DEBUG_COLL_PIECE");
    if (v && *v) {
        unsigned long long t = strtoull(v, NULL, 10);
        if (t >= 1 && t < p) p = (size_t)t;
    }
    __atomic_store_n(&piece, p, __ATOMIC_RELAXED);
    return p;
}

static void compi_coll_meta_of(const compi_coll_out *o, int any, int64_t w[COMPI_COLL_META_WORDS])
{
    compi_coll_meta m = {COMPI_COLL_BLOCK_NONE, 0, 0, 0, any};
    if (o && o->chunk) {
        m.kind = COMPI_COLL_BLOCK_CHUNKED;
        m.log2 = o->log2;
        m.size = o->size;
    } else if (o && o->flen) {
        m.kind = o->typed ? COMPI_COLL_BLOCK_TYPED : COMPI_COLL_BLOCK_BYTES;
        m.len = o->flen;
    }
    compi_coll_meta_write(w, &m);
}

/* Waitall; with MPI_ERR_IN_STATUS, the first failed request's own error
 * (a truncated typed block: MPI_ERR_TRUNCATE, as the MPI's collective says). */
static int compi_coll_waitall(int nq, MPI_Request *rq)
{
    if (nq == 0) return MPI_SUCCESS;
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nq);
    if (!st) {   /* no room for statuses: one by one, each error as it is */
        int rc = MPI_SUCCESS;
        for (int q = 0; q < nq; q++) {
            int w = PMPI_Wait(&rq[q], MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = w;
        }
        return rc;
    }
    int rc = PMPI_Waitall(nq, rq, st);
    if (rc != MPI_SUCCESS && compi_error_class(rc) == MPI_ERR_IN_STATUS)
        for (int q = 0; q < nq; q++)
            if (st[q].MPI_ERROR != MPI_SUCCESS && st[q].MPI_ERROR != MPI_ERR_PENDING) { rc = st[q].MPI_ERROR; break; }
    free(st);
    return rc;
}

int compi_coll_exchange(MPI_Comm sub, MPI_Comm chunks, int same, compi_coll_out *const out[],
                        const compi_coll_in in[], unsigned char **stage, compi_coll_blocks *got, int *piped,
                        const int *names, MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(sub, &n);
    PMPI_Comm_rank(sub, &me);
    const size_t W = COMPI_COLL_META_WORDS;
    int rc = MPI_SUCCESS;
    got->bytes = NULL;
    got->lens = calloc((size_t)n, sizeof(size_t));
    got->displs = calloc((size_t)n, sizeof(size_t));
    int64_t *smeta = calloc((size_t)n * W, sizeof(int64_t));
    int64_t *rmeta = calloc((size_t)n * W, sizeof(int64_t));
    compi_coll_meta *rm = calloc((size_t)n, sizeof *rm);
    if (!got->lens || !got->displs || !smeta || !rmeta || !rm) {
        free(smeta);
        free(rmeta);
        free(rm);
        compi_coll_blocks_free(got);
        return MPI_ERR_NO_MEM;
    }
    int any = 0;
    for (int j = 0; j < n; j++) any |= out[j] && out[j]->chunk;
    for (int j = 0; j < n; j++) compi_coll_meta_of(out[j], any, smeta + (size_t)j * W);
    /* same: one block for every rank (allgather): each rank's metadata once */
    if (same) {
        int64_t mine[COMPI_COLL_META_WORDS];
        compi_coll_meta_of(NULL, any, mine);
        for (int j = 0; j < n; j++)
            if (out[j]) { memcpy(mine, smeta + (size_t)j * W, sizeof mine); break; }
        rc = PMPI_Allgather(mine, (int)W, MPI_INT64_T, rmeta, (int)W, MPI_INT64_T, sub);
        compi_coll_meta_of(NULL, any, rmeta + (size_t)me * W);   /* nothing to myself */
    } else {
        rc = PMPI_Alltoall(smeta, (int)W, MPI_INT64_T, rmeta, (int)W, MPI_INT64_T, sub);
    }
    free(smeta);
    char why[320] = "";
    int bad_source = -1;
    size_t total = 0, nwq = 0, nsq = 0, maxk = 0;
    int streaming = any;   /* chunks to send or to receive: the polling loop below */
    const size_t piece = compi_coll_piece();
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        char mwhy[200];
        if (compi_coll_meta_read(rmeta + (size_t)i * W, &rm[i], mwhy, sizeof mwhy) != COMPI_OK && bad_source < 0) {
            snprintf(why, sizeof why, "from rank %d: %s", names ? names[i] : i, mwhy);
            bad_source = i;
        }
        piped[i] = rm[i].kind == COMPI_COLL_BLOCK_CHUNKED;
        streaming |= piped[i];
        if (rm[i].kind == COMPI_COLL_BLOCK_BYTES && rm[i].len > (uint64_t)(SIZE_MAX / 2 - total)) {
            if (bad_source < 0) {
                snprintf(why, sizeof why, "blocks from rank %d and before declare more bytes than memory holds",
                         names ? names[i] : i);
                bad_source = i;
            }
            rm[i].kind = COMPI_COLL_BLOCK_NONE;
        } else if (rm[i].kind == COMPI_COLL_BLOCK_BYTES) {
            got->lens[i] = (size_t)rm[i].len;
            got->displs[i] = total;
            total += got->lens[i];
            nwq += compi_coll_pieces(rm[i].len, piece);
        } else if (rm[i].kind == COMPI_COLL_BLOCK_TYPED) {
            if (!in[i].typed) {
                if (bad_source < 0) {
                    snprintf(why, sizeof why, "a raw block of %llu bytes from rank %d where none was due",
                             (unsigned long long)rm[i].len, names ? names[i] : i);
                    bad_source = i;
                }
                rm[i].kind = COMPI_COLL_BLOCK_NONE;
            } else {
                nwq++;
            }
        }
    }
    free(rmeta);
    for (int j = 0; j < n; j++) {
        const compi_coll_out *o = out[j];
        if (!o) continue;
        if (o->chunk) {
            nsq += o->n;
            if (o->n > maxk) maxk = o->n;
        } else if (o->flen) {
            nsq += o->typed ? 1 : compi_coll_pieces(o->flen, piece);
        }
    }
    if (rc == MPI_SUCCESS && !(got->bytes = malloc(total ? total : 1))) rc = MPI_ERR_NO_MEM;
    MPI_Request *wq = rc == MPI_SUCCESS ? malloc(sizeof(MPI_Request) * (nwq + nsq + 1)) : NULL;
    if (rc == MPI_SUCCESS && !wq) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(rm);
        compi_coll_blocks_free(got);
        return rc;
    }
    /* whole blocks: every receive, then every send, posted at once (wq:
     * receives first, sends after them) */
    size_t nq = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (rm[i].kind == COMPI_COLL_BLOCK_TYPED) {
            rc = PMPI_Irecv(in[i].tbuf, in[i].tcount, in[i].ttype, i, COMPI_COLL_TAG_WHOLE, chunks, &wq[nq++]);
        } else if (rm[i].kind == COMPI_COLL_BLOCK_BYTES) {
            uint64_t np = compi_coll_pieces(rm[i].len, piece);
            for (uint64_t k = 0; k < np && rc == MPI_SUCCESS; k++)
                rc = PMPI_Irecv(got->bytes + got->displs[i] + k * piece, (int)compi_coll_piece_len(rm[i].len, piece, k),
                                MPI_BYTE, i, COMPI_COLL_TAG_WHOLE, chunks, &wq[nq++]);
        }
    }
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        const compi_coll_out *o = out[j];
        if (!o || o->chunk || !o->flen) continue;
        if (o->typed) {
            rc = PMPI_Isend(o->tbuf, o->tcount, o->ttype, j, COMPI_COLL_TAG_WHOLE, chunks, &wq[nq++]);
            continue;
        }
        const unsigned char *b = o->frame ? o->frame : o->ref;
        uint64_t np = compi_coll_pieces(o->flen, piece);
        for (uint64_t k = 0; k < np && rc == MPI_SUCCESS; k++)
            rc = PMPI_Isend(b + k * piece, (int)compi_coll_piece_len(o->flen, piece, k), MPI_BYTE, j,
                            COMPI_COLL_TAG_WHOLE, chunks, &wq[nq++]);
    }
    if (!streaming || rc != MPI_SUCCESS) {
        int wrc = compi_coll_waitall((int)nq, wq);
        if (rc == MPI_SUCCESS) rc = wrc;
        free(wq);
        free(rm);
        goto done;
    }

    /* chunks: receives first (slots), then rounds of sends over the destinations */
    compi_coll_stream *st = calloc((size_t)n, sizeof *st);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    int *ridx = malloc(sizeof(int) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    MPI_Status *rst = malloc(sizeof(MPI_Status) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (nsq ? nsq : 1));
    if (!st || !rreq || !ridx || !rst || !sreq) {
        free(st); free(rreq); free(ridx); free(rst); free(sreq);
        int wrc = compi_coll_waitall((int)nq, wq);
        (void)wrc;
        free(wq);
        free(rm);
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    const int nr = n * (COMPI_COLL_SLOTS + 1);   /* request i*(SLOTS+1) + 1 + s: source i's chunk slot s */
    for (int r = 0; r < nr; r++) rreq[r] = MPI_REQUEST_NULL;
    /* chunks still to arrive */
    size_t pending = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Request *q = rreq + (size_t)i * (COMPI_COLL_SLOTS + 1);
        if (!piped[i]) continue;
        compi_coll_stream *s = &st[i];
        unsigned log2 = rm[i].log2;
        s->size = (size_t)rm[i].size;
        s->chunk = (size_t)1 << log2;
        s->n = s->due = compi_chunk_count(s->size, log2);
        s->dst = in[i].dst;
        if (s->size != in[i].size) {
            if (bad_source < 0) {
                snprintf(why, sizeof why, "a pipelined block of %zu bytes from rank %d where %zu bytes were due "
                         "(type signatures differ)", s->size, names ? names[i] : i, in[i].size);
                bad_source = i;
            }
            s->bad = 1;
        }
        if (!s->dst && !s->bad && stage && in[i].typed && (stage[i] = malloc(s->size ? s->size : 1)))
            s->dst = stage[i];   /* a destination that is not one contiguous run: staged, unpacked after */
        if (!s->dst) s->bad = 1;
        s->slots = s->n < COMPI_COLL_SLOTS ? (int)s->n : COMPI_COLL_SLOTS;
        pending += s->n;
        for (int k = 0; k < s->slots && rc == MPI_SUCCESS; k++) {
            if (!(s->slot[k] = malloc(COMPI_FRAME_HEADER_SIZE + s->chunk))) { rc = MPI_ERR_NO_MEM; break; }
            s->slot_k[k] = (size_t)k;
            s->busy[k] = 1;
            s->posted++;
            rc = PMPI_Irecv(s->slot[k], (int)(COMPI_FRAME_HEADER_SIZE + s->chunk), MPI_BYTE, i, COMPI_COLL_TAG_CHUNK,
                            chunks, q + 1 + k);
        }
    }
    free(rm);
    size_t ns = 0;
    uint64_t wait_ns = 0;
    uint64_t last = compi_now_ns();
    int *done_idx = malloc(sizeof(int) * (size_t)nr);
    if (!done_idx) rc = MPI_ERR_NO_MEM;
    for (size_t k = 0; rc == MPI_SUCCESS && (k < maxk || pending > 0); k++) {
        for (int jj = 0; jj < n && k < maxk && rc == MPI_SUCCESS; jj++) {
            int j = (me + 1 + jj) % n;   /* each rank starts with the next one: not all on one rank first */
            compi_coll_out *o = out[j];
            if (!o || !o->chunk || k >= o->n) continue;
            rc = compi_coll_chunk(o, k);
            if (rc == MPI_SUCCESS && o->blen[k] >= 0)
                rc = PMPI_Isend(o->bufs[k], o->blen[k], MPI_BYTE, j, COMPI_COLL_TAG_CHUNK, chunks, &sreq[ns++]);
        }
        /* receives: whatever arrived; once everything is sent, wait for the rest */
        int blocking = k + 1 >= maxk;
        for (;;) {
            int outcount = 0;
            uint64_t t0 = compi_now_ns();
            if (pending == 0) break;
            rc = PMPI_Testsome(nr, rreq, &outcount, done_idx, rst);
            /* the statuses' MPI_ERROR fields are set only with MPI_ERR_IN_STATUS */
            int in_status = rc != MPI_SUCCESS && compi_error_class(rc) == MPI_ERR_IN_STATUS;
            if (rc != MPI_SUCCESS && !in_status) goto drained;
            if (rc != MPI_SUCCESS) {
                /* MPI_ERR_IN_STATUS: a chunk longer than its slot (damaged) */
                for (int t = 0; t < outcount; t++)
                    if (rst[t].MPI_ERROR != MPI_SUCCESS && compi_error_class(rst[t].MPI_ERROR) != MPI_ERR_TRUNCATE)
                        goto drained;
                rc = MPI_SUCCESS;
            }
            if (outcount == MPI_UNDEFINED) outcount = 0;
            if (outcount == 0) {
                if (!blocking) break;
                uint64_t now = compi_now_ns();
                if (now - last > (uint64_t)(compi_cfg.escape_wait_s * 1e9)) {
                    for (int i = 0; i < n && bad_source < 0; i++)
                        if (piped[i] && st[i].next < st[i].due) {
                            snprintf(why, sizeof why, "chunk %zu of %zu from rank %d did not arrive within "
                                     "COMPI_ESCAPE_WAIT=%g s of the one before", st[i].next, st[i].n,
                                     names ? names[i] : i, compi_cfg.escape_wait_s);
                            bad_source = i;
                        }
                    if (bad_source < 0) {
                        snprintf(why, sizeof why, "a collective block did not arrive within COMPI_ESCAPE_WAIT=%g s",
                                 compi_cfg.escape_wait_s);
                        bad_source = 0;
                    }
                    goto drained;
                }
                sched_yield();
                wait_ns += compi_now_ns() - t0;
                continue;
            }
            last = compi_now_ns();
            for (int t = 0; t < outcount && rc == MPI_SUCCESS; t++) {
                int r = done_idx[t], i = r / (COMPI_COLL_SLOTS + 1), sl = r % (COMPI_COLL_SLOTS + 1) - 1;
                if (pending) pending--;
                if (sl < 0) continue;   /* a whole frame: delivered by the caller */
                compi_coll_stream *s = &st[i];
                s->trunc[sl] = in_status && rst[t].MPI_ERROR != MPI_SUCCESS &&
                               compi_error_class(rst[t].MPI_ERROR) == MPI_ERR_TRUNCATE;
                s->got[sl] = 0;
                if (!s->trunc[sl]) PMPI_Get_count(&rst[t], MPI_BYTE, &s->got[sl]);
                s->arrived[sl] = 1;
                /* chunks are taken in order (receives complete in any order) */
                while (rc == MPI_SUCCESS && s->dec < s->due && s->arrived[s->dec % (size_t)s->slots]) {
                    int cs = (int)(s->dec % (size_t)s->slots);
                    size_t kk = s->dec++;
                    s->arrived[cs] = 0;
                    s->next = kk + 1;
                    s->completed++;
                    if (!s->bad) {
                        size_t off = kk * s->chunk, len = s->size - off < s->chunk ? s->size - off : s->chunk;
                        char cwhy[200];
                        uint8_t cid = COMPI_CODEC_RAW;
                        uint64_t d0 = compi_now_ns();
                        int ok = !s->trunc[cs] && compi_chunk_decode(kk, s->slot[cs], (size_t)s->got[cs], len,
                                                                     s->dst + off, &cid, cwhy, sizeof cwhy) == COMPI_OK;
                        uint64_t dt = compi_now_ns() - d0;
                        s->decode_ns += dt;
                        if (kk + 1 < s->n) s->hidden_ns += dt;
                        if (cid != COMPI_CODEC_RAW) s->codec = cid;
                        if (!ok) {
                            s->bad = 1;
                            if (bad_source < 0) {
                                snprintf(why, sizeof why, "chunk %zu of %zu from rank %d: %s", kk, s->n,
                                         names ? names[i] : i,
                                         s->trunc[cs] ? "longer than the chunks its block's metadata declares" : cwhy);
                                bad_source = i;
                            }
                            /* a chunk the sender never sent: the next one came in its place */
                            int num = s->trunc[cs] ? -1 : compi_chunk_number(s->slot[cs], (size_t)s->got[cs]);
                            size_t missing = num < 0 ? 0 : (size_t)((unsigned)num - (unsigned)kk) & 0xffu;
                            if (missing && missing < s->due - kk) {
                                s->due -= missing;
                                pending = pending > missing ? pending - missing : 0;
                            }
                        }
                    }
                    if (s->completed == s->due) compi_pipe_count_received(s->codec, s->decode_ns, s->hidden_ns, 0);
                    /* receives match in posting order: chunk k's receive is
                     * posted into slot k % slots once chunk k - slots left it */
                    s->busy[cs] = 0;
                    while (rc == MPI_SUCCESS && s->posted < s->due && !s->busy[s->posted % (size_t)s->slots]) {
                        int ps = (int)(s->posted % (size_t)s->slots);
                        s->slot_k[ps] = s->posted++;
                        s->busy[ps] = 1;
                        rc = PMPI_Irecv(s->slot[ps], (int)(COMPI_FRAME_HEADER_SIZE + s->chunk), MPI_BYTE, i,
                                        COMPI_COLL_TAG_CHUNK, chunks,
                                        &rreq[(size_t)i * (COMPI_COLL_SLOTS + 1) + 1 + ps]);
                    }
                }
            }
            if (!blocking) break;
        }
    }
drained:
    /* nothing stays posted: receives left over (a lost chunk, an error, fewer chunks due) are cancelled */
    for (int r = 0; r < nr; r++) {
        if (rreq[r] == MPI_REQUEST_NULL) continue;
        PMPI_Cancel(&rreq[r]);
        PMPI_Wait(&rreq[r], MPI_STATUS_IGNORE);
    }
    {
        int wrc = compi_coll_waitall((int)ns, sreq);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    COMPI_STAT_ADD(pipe_wait_ns, wait_ns);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < COMPI_COLL_SLOTS; k++) free(st[i].slot[k]);
    free(st);
    free(rreq);
    free(ridx);
    free(rst);
    free(sreq);
    free(done_idx);
    {
        int wrc = compi_coll_waitall((int)nq, wq);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    free(wq);
done:
    if (rc != MPI_SUCCESS) {
        compi_coll_blocks_free(got);
        return rc;
    }
    if (bad_source >= 0) {
        MPI_Status fst;
        memset(&fst, 0, sizeof fst);
        fst.MPI_SOURCE = names ? names[bad_source] : bad_source;
        fst.MPI_TAG = COMPI_COLL_TAG_CHUNK;
        compi_coll_blocks_free(got);
        return compi_frame_fail(comm, &fst, why);
    }
    return MPI_SUCCESS;
}

int compi_coll_xfer_init(compi_coll_xfer *x, int n)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->out = calloc((size_t)n, sizeof *x->out);
    x->in = calloc((size_t)n, sizeof *x->in);
    x->stage = calloc((size_t)n, sizeof *x->stage);
    x->piped = calloc((size_t)n, sizeof(int));
    if (x->out && x->in && x->stage && x->piped) return MPI_SUCCESS;
    compi_coll_xfer_free(x);
    return MPI_ERR_NO_MEM;
}

void compi_coll_xfer_free(compi_coll_xfer *x)
{
    for (int i = 0; i < x->n && x->stage; i++) free(x->stage[i]);
    free(x->out);
    free(x->in);
    free(x->stage);
    free(x->piped);
    compi_coll_blocks_free(&x->got);
    memset(x, 0, sizeof *x);
}

int compi_coll_xfer_expect(compi_coll_xfer *x, int i, size_t size, unsigned char *dst, void *buf, int count,
                           MPI_Datatype dt)
{
    x->in[i].size = size;
    x->in[i].typed = 1;
    x->in[i].tbuf = buf;
    x->in[i].tcount = count;
    x->in[i].ttype = dt;
    x->in[i].dst = dst;
    return MPI_SUCCESS;
}

int compi_coll_xfer_run(compi_coll_xfer *x, MPI_Comm sub, MPI_Comm chunks, int same, const int *names, MPI_Comm comm)
{
    return compi_coll_exchange(sub, chunks, same, x->out, x->in, x->stage, &x->got, x->piped, names, comm);
}

int compi_coll_xfer_deliver(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt, int source,
                            MPI_Comm comm)
{
    if (x->piped[i]) return x->stage[i] ? compi_unpack_bytes(x->stage[i], x->in[i].size, dst, count, dt) : MPI_SUCCESS;
    if (x->got.lens[i] == 0) return MPI_SUCCESS;   /* nothing, or it came typed: in place already */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = source;
    return compi_frame_deliver(x->got.bytes + x->got.displs[i], x->got.lens[i], dst, count, dt, &st, comm);
}
