/* SPDX-License-Identifier: BSD-3-Clause */
/* The exchange of collective blocks (coll.h, "blocks of an exchange").
 *
 * Metadata first (frame/coll_meta.h: 64-bit lengths, so nothing is cut to
 * an int): per block its kind and length, and per sender whether it
 * pipelines anything. Then every block travels point to point on a
 * communicator reserved for it, only between the pairs that have one:
 * typed blocks as one message with the application's buffers and types,
 * bytes blocks as messages of at most compi_coll_piece() bytes (tag
 * COMPI_COLL_TAG_WHOLE), chunks in order (a tag of the exchange's own,
 * compi_coll_chunk_tag). No step stages a whole side of the exchange in one
 * buffer.
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
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/side.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"
#include "frame/coll_meta.h"

#define COMPI_COLL_SLOTS 4
#define COMPI_COLL_TAG_WHOLE 1
#define COMPI_COLL_TAG_CHUNK 2
#define COMPI_COLL_TAG_SPAN 30000 /* chunk tags up to 30001: below 32767, the least MPI_TAG_UB */

/* The number of the exchange about to run on chunks, kept on it as an
 * attribute (the value itself, nothing allocated). */
static int compi_coll_seq_keyval = MPI_KEYVAL_INVALID;
static void compi_coll_seq_keyval_make(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &compi_coll_seq_keyval, NULL);
}

/* This exchange's chunk tag: COMPI_COLL_TAG_CHUNK plus its number on
 * chunks (modulo COMPI_COLL_TAG_SPAN). Every rank of chunks runs the same
 * exchanges in the same order (each is part of a collective), so they
 * agree on it; chunks of a failed exchange that come late (a sender that
 * stalled beyond COMPI_CHUNK_WAIT) never match a later exchange's
 * receives. */
static int compi_coll_chunk_tag(MPI_Comm chunks)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, compi_coll_seq_keyval_make);
    if (compi_coll_seq_keyval == MPI_KEYVAL_INVALID) return COMPI_COLL_TAG_CHUNK;
    void *v = NULL;
    int found = 0;
    uintptr_t seq = 0;
    if (PMPI_Comm_get_attr(chunks, compi_coll_seq_keyval, &v, &found) == MPI_SUCCESS && found) seq = (uintptr_t)v;
    PMPI_Comm_set_attr(chunks, compi_coll_seq_keyval, (void *)((seq + 1) % COMPI_COLL_TAG_SPAN));
    return COMPI_COLL_TAG_CHUNK + (int)seq;
}

/* Chunk k of o, encoded once for every destination. */
static int compi_coll_chunk(compi_coll_out *o, size_t k)
{
    if (k < o->encoded) return MPI_SUCCESS;
    size_t off = k * o->chunk, len = compi_chunk_len(o->size, o->chunk, k);
    size_t cap = compi_chunk_capacity(len);
    unsigned char *m = malloc(cap);
    if (!m) return MPI_ERR_NO_MEM;
    int compressed, fault;
    uint64_t t0 = compi_now_ns();
    long long mlen = compi_chunk_encode(k, o->src + off, len, o->codec, &o->params, m, cap, &compressed);
    uint64_t t = compi_now_ns() - t0;
    if (mlen < 0) {
        free(m);
        return MPI_ERR_INTERN;
    }
    o->ns += t;
    if (k) o->hidden += t; /* ran while the chunks before it travelled */
    o->raw_chunks += !compressed;
    o->wire += (size_t)mlen;
    o->bufs[k] = m;
    o->blen[k] = (int)mlen;
    if (compi_chunk_fault(k, &fault)) {
        if (fault == COMPI_CHUNK_FAULT_FAIL) return MPI_ERR_INTERN; /* as a failure of its own; m freed with o */
        if (fault == COMPI_CHUNK_FAULT_DROP) o->blen[k] = -1;       /* never sent */
        else m[8] ^= 0x5a; /* the chunk's declared length: its header check fails */
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
    size_t size, chunk, n, due, next; /* bytes, chunk size, chunks, chunks still coming, next to complete */
    unsigned char *dst;               /* NULL: drained, not kept */
    unsigned char *slot[COMPI_COLL_SLOTS];
    size_t slot_k[COMPI_COLL_SLOTS];
    size_t completed, dec; /* chunks taken; the next to take */
    int arrived[COMPI_COLL_SLOTS], got[COMPI_COLL_SLOTS], trunc[COMPI_COLL_SLOTS];
    size_t posted; /* chunks whose receive was posted: chunk k goes to slot k % slots */
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

int compi_coll_waitall(int nq, MPI_Request *rq)
{
    if (nq == 0) return MPI_SUCCESS;
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nq);
    if (!st) { /* no room for statuses: one by one, each error as it is */
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
            if (st[q].MPI_ERROR != MPI_SUCCESS && st[q].MPI_ERROR != MPI_ERR_PENDING) {
                rc = st[q].MPI_ERROR;
                break;
            }
    free(st);
    return rc;
}

/* One exchange in progress (compi_coll_exchange), step by step. */
typedef struct {
    MPI_Comm sub, chunks;
    int n, me;
    compi_coll_out *const *out;
    const compi_coll_in *in;
    unsigned char **stage;
    compi_coll_blocks *got;
    int *piped;
    const int *names;
    int rc;
    int ctag; /* this exchange's chunk tag (compi_coll_chunk_tag) */
    size_t piece;
    compi_coll_meta *meta;     /* the metadata of every source's block to me */
    int any_chunked;           /* I send a pipelined block */
    int streaming;             /* chunks to send or to receive: the polling loop */
    size_t total;              /* bytes of the bytes blocks to me */
    size_t nrecv_whole, nsend; /* messages: whole blocks' receives; every send */
    size_t max_chunks;         /* chunks of my largest pipelined block */
    char why[320];             /* the first bad source's story */
    int bad_source;            /* -1: none */
    /* whole blocks: receives first, sends after them */
    MPI_Request *whole;
    size_t nwhole;
    /* pipelined blocks */
    compi_coll_stream *st;
    MPI_Request *rreq; /* request i*(SLOTS+1) + 1 + s: source i's chunk slot s */
    int *ridx;
    MPI_Status *rst;
    MPI_Request *sreq;
    int *done_idx;
    int nr;
    size_t pending; /* chunks still to arrive */
    size_t nsent;
    int send_rc;           /* my chunk sends failed: the rest go as stand-ins */
    int recv_rc;           /* my chunk receives failed: the rest are taken unread */
    unsigned char **stand; /* the stand-ins' messages (frame.h, COMPI_CODEC_UNSENT) */
    size_t nstand;
    uint64_t wait_ns, last;
} compi_coll_xchg;

static int compi_coll_name(const compi_coll_xchg *x, int i)
{
    return x->names ? x->names[i] : i;
}

/* A receive of mine failed at chunk k of source i's block (no memory to
 * stage it, or an injected fault): the exchange fails with rc, but every
 * chunk still due is taken into its slot unread, so no sender waits for
 * this rank, and my own chunks still go out. (Not into a zero-byte
 * receive: Open MPI 4.1 writes a truncated message's bytes past the
 * receive buffer when it does not travel eagerly.) */
static void compi_coll_xchg_recv_failed(compi_coll_xchg *x, int i, size_t k, int rc, const char *what)
{
    if (x->recv_rc != MPI_SUCCESS) return;
    x->recv_rc = rc;
    compi_log(0,
              "chunk %zu of %zu from rank %d: this rank's compi could not receive it (%s, error %d); the chunks "
              "still due are taken unread",
              k, x->st[i].n, compi_coll_name(x, i), what, rc);
}

/* Source i's next chunk receive, into slot `slot`. */
static int compi_coll_post_chunk(compi_coll_xchg *x, int i, int slot)
{
    compi_coll_stream *s = &x->st[i];
    return PMPI_Irecv(s->slot[slot], (int)(COMPI_FRAME_HEADER_SIZE + s->chunk), MPI_BYTE, i, x->ctag, x->chunks,
                      &x->rreq[(size_t)i * (COMPI_COLL_SLOTS + 1) + 1 + slot]);
}

/* Step 1: every rank's metadata to every rank: what each block to me is. */
static int compi_coll_xchg_meta(compi_coll_xchg *x, int same, int64_t **rmeta)
{
    const size_t W = COMPI_COLL_META_WORDS;
    int n = x->n;
    compi_coll_blocks *got = x->got;
    got->bytes = NULL;
    got->lens = calloc((size_t)n, sizeof(size_t));
    got->displs = calloc((size_t)n, sizeof(size_t));
    int64_t *smeta = calloc((size_t)n * W, sizeof(int64_t));
    *rmeta = calloc((size_t)n * W, sizeof(int64_t));
    x->meta = calloc((size_t)n, sizeof *x->meta);
    if (!got->lens || !got->displs || !smeta || !*rmeta || !x->meta) {
        free(smeta);
        free(*rmeta);
        *rmeta = NULL;
        free(x->meta);
        x->meta = NULL;
        compi_coll_blocks_free(got);
        return MPI_ERR_NO_MEM;
    }
    int any = 0;
    for (int j = 0; j < n; j++) any |= x->out[j] && x->out[j]->chunk;
    x->any_chunked = any;
    for (int j = 0; j < n; j++) compi_coll_meta_of(x->out[j], any, smeta + (size_t)j * W);
    int rc;
    /* same: one block for every rank (allgather): each rank's metadata once */
    if (same) {
        int64_t mine[COMPI_COLL_META_WORDS];
        compi_coll_meta_of(NULL, any, mine);
        for (int j = 0; j < n; j++)
            if (x->out[j]) {
                memcpy(mine, smeta + (size_t)j * W, sizeof mine);
                break;
            }
        rc = PMPI_Allgather(mine, (int)W, MPI_INT64_T, *rmeta, (int)W, MPI_INT64_T, x->sub);
        compi_coll_meta_of(NULL, any, *rmeta + (size_t)x->me * W); /* nothing to myself */
    } else {
        rc = PMPI_Alltoall(smeta, (int)W, MPI_INT64_T, *rmeta, (int)W, MPI_INT64_T, x->sub);
    }
    free(smeta);
    return rc;
}

/* Step 2: the metadata read and checked; where each bytes block lands. A
 * bad block is dropped (kind NONE) and its source remembered. */
static void compi_coll_xchg_read_meta(compi_coll_xchg *x, const int64_t *rmeta)
{
    const size_t W = COMPI_COLL_META_WORDS;
    compi_coll_meta *rm = x->meta;
    compi_coll_blocks *got = x->got;
    x->streaming = x->any_chunked;
    for (int i = 0; i < x->n && x->rc == MPI_SUCCESS; i++) {
        char mwhy[200];
        if (compi_coll_meta_read(rmeta + (size_t)i * W, &rm[i], mwhy, sizeof mwhy) != COMPI_OK && x->bad_source < 0) {
            snprintf(x->why, sizeof x->why, "from rank %d: %s", compi_coll_name(x, i), mwhy);
            x->bad_source = i;
        }
        x->piped[i] = rm[i].kind == COMPI_COLL_BLOCK_CHUNKED;
        x->streaming |= x->piped[i];
        if (rm[i].kind == COMPI_COLL_BLOCK_BYTES && rm[i].len > (uint64_t)(SIZE_MAX / 2 - x->total)) {
            if (x->bad_source < 0) {
                snprintf(x->why, sizeof x->why, "blocks from rank %d and before declare more bytes than memory holds",
                         compi_coll_name(x, i));
                x->bad_source = i;
            }
            rm[i].kind = COMPI_COLL_BLOCK_NONE;
        } else if (rm[i].kind == COMPI_COLL_BLOCK_BYTES) {
            got->lens[i] = (size_t)rm[i].len;
            got->displs[i] = x->total;
            x->total += got->lens[i];
            x->nrecv_whole += compi_coll_pieces(rm[i].len, x->piece);
        } else if (rm[i].kind == COMPI_COLL_BLOCK_TYPED) {
            if (!x->in[i].typed) {
                if (x->bad_source < 0) {
                    snprintf(x->why, sizeof x->why, "a raw block of %llu bytes from rank %d where none was due",
                             (unsigned long long)rm[i].len, compi_coll_name(x, i));
                    x->bad_source = i;
                }
                rm[i].kind = COMPI_COLL_BLOCK_NONE;
            } else {
                x->nrecv_whole++;
            }
        }
    }
}

/* Step 3: how many messages I send, and my longest pipelined block. */
static void compi_coll_xchg_count_sends(compi_coll_xchg *x)
{
    for (int j = 0; j < x->n; j++) {
        const compi_coll_out *o = x->out[j];
        if (!o) continue;
        if (o->chunk) {
            x->nsend += o->n;
            if (o->n > x->max_chunks) x->max_chunks = o->n;
        } else if (o->flen) {
            x->nsend += o->typed ? 1 : compi_coll_pieces(o->flen, x->piece);
        }
    }
}

/* Step 4: whole blocks: every receive, then every send, posted at once. */
static void compi_coll_xchg_post_whole(compi_coll_xchg *x)
{
    const compi_coll_meta *rm = x->meta;
    size_t piece = x->piece;
    for (int i = 0; i < x->n && x->rc == MPI_SUCCESS; i++) {
        if (rm[i].kind == COMPI_COLL_BLOCK_TYPED) {
            x->rc = PMPI_Irecv(x->in[i].tbuf, x->in[i].tcount, x->in[i].ttype, i, COMPI_COLL_TAG_WHOLE, x->chunks,
                               &x->whole[x->nwhole++]);
        } else if (rm[i].kind == COMPI_COLL_BLOCK_BYTES) {
            uint64_t np = compi_coll_pieces(rm[i].len, piece);
            for (uint64_t k = 0; k < np && x->rc == MPI_SUCCESS; k++)
                x->rc = PMPI_Irecv(x->got->bytes + x->got->displs[i] + k * piece,
                                   (int)compi_coll_piece_len(rm[i].len, piece, k), MPI_BYTE, i, COMPI_COLL_TAG_WHOLE,
                                   x->chunks, &x->whole[x->nwhole++]);
        }
    }
    for (int j = 0; j < x->n && x->rc == MPI_SUCCESS; j++) {
        const compi_coll_out *o = x->out[j];
        if (!o || o->chunk || !o->flen) continue;
        if (o->typed) {
            x->rc =
                PMPI_Isend(o->tbuf, o->tcount, o->ttype, j, COMPI_COLL_TAG_WHOLE, x->chunks, &x->whole[x->nwhole++]);
            continue;
        }
        const unsigned char *b = o->frame ? o->frame : o->ref;
        uint64_t np = compi_coll_pieces(o->flen, piece);
        for (uint64_t k = 0; k < np && x->rc == MPI_SUCCESS; k++)
            x->rc = PMPI_Isend(b + k * piece, (int)compi_coll_piece_len(o->flen, piece, k), MPI_BYTE, j,
                               COMPI_COLL_TAG_WHOLE, x->chunks, &x->whole[x->nwhole++]);
    }
}

/* Step 5: the chunk streams' state, and their first receives posted (one per
 * slot). Returns 0 when there is no memory for the state (x->rc set). */
static int compi_coll_xchg_open_streams(compi_coll_xchg *x)
{
    int n = x->n;
    x->st = calloc((size_t)n, sizeof *x->st);
    x->rreq = malloc(sizeof(MPI_Request) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    x->ridx = malloc(sizeof(int) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    x->rst = malloc(sizeof(MPI_Status) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    x->sreq = malloc(sizeof(MPI_Request) * (x->nsend ? x->nsend : 1));
    x->stand = malloc(sizeof(unsigned char *) * (x->nsend ? x->nsend : 1));
    if (!x->st || !x->rreq || !x->ridx || !x->rst || !x->sreq || !x->stand) {
        free(x->stand);
        free(x->st);
        free(x->rreq);
        free(x->ridx);
        free(x->rst);
        free(x->sreq);
        x->rc = MPI_ERR_NO_MEM;
        return 0;
    }
    x->nr = n * (COMPI_COLL_SLOTS + 1);
    for (int r = 0; r < x->nr; r++) x->rreq[r] = MPI_REQUEST_NULL;
    for (int i = 0; i < n && x->rc == MPI_SUCCESS; i++) {
        if (!x->piped[i]) continue;
        compi_coll_stream *s = &x->st[i];
        unsigned log2 = x->meta[i].log2;
        s->size = (size_t)x->meta[i].size;
        s->chunk = (size_t)1 << log2;
        s->n = s->due = compi_chunk_count(s->size, log2);
        s->dst = x->in[i].dst;
        if (s->size != x->in[i].size) {
            if (x->bad_source < 0) {
                snprintf(x->why, sizeof x->why,
                         "a pipelined block of %zu bytes from rank %d where %zu bytes were "
                         "due (type signatures differ)",
                         s->size, compi_coll_name(x, i), x->in[i].size);
                x->bad_source = i;
            }
            s->bad = 1;
        }
        if (!s->dst && !s->bad && x->stage && x->in[i].typed) {
            /* a destination that is not one contiguous run: staged, unpacked after */
            if ((x->stage[i] = malloc(s->size ? s->size : 1))) s->dst = x->stage[i];
            else compi_coll_xchg_recv_failed(x, i, 0, MPI_ERR_NO_MEM, "no memory to stage its block");
        }
        if (!s->dst) s->bad = 1;
        s->slots = s->n < COMPI_COLL_SLOTS ? (int)s->n : COMPI_COLL_SLOTS;
        x->pending += s->n;
        /* short of memory: fewer chunks in flight; none at all: the exchange
         * fails here (its senders may then wait for this rank) */
        for (int k = 0; k < s->slots; k++)
            if (!(s->slot[k] = malloc(COMPI_FRAME_HEADER_SIZE + s->chunk))) s->slots = k;
        if (s->slots == 0) x->rc = MPI_ERR_NO_MEM;
        for (int k = 0; k < s->slots && x->rc == MPI_SUCCESS; k++) {
            s->slot_k[k] = (size_t)k;
            s->busy[k] = 1;
            s->posted++;
            x->rc = compi_coll_post_chunk(x, i, k);
        }
    }
    return 1;
}

/* Chunk k of o to destination j, or its stand-in once a send of mine
 * failed: every receiver gets every chunk it waits for (or a stand-in that
 * fails its block at once), so none waits for one that never comes, and
 * this rank goes on receiving, so no sender waits for it. */
static void compi_coll_xchg_send_chunk(compi_coll_xchg *x, compi_coll_out *o, int j, size_t k)
{
    double away = compi_chunk_fault_stall(k);
    if (away > 0) {
        struct timespec ts = {(time_t)away, (long)((away - (double)(time_t)away) * 1e9)};
        nanosleep(&ts, NULL); /* a test's sender, computing outside MPI */
    }
    if (x->send_rc == MPI_SUCCESS) {
        int rc = compi_coll_chunk(o, k);
        if (rc == MPI_SUCCESS && o->blen[k] >= 0) {
            MPI_Request *q = &x->sreq[x->nsent];
            rc = PMPI_Isend(o->bufs[k], o->blen[k], MPI_BYTE, j, x->ctag, x->chunks, q);
            if (rc == MPI_SUCCESS) x->nsent++;
        }
        if (rc == MPI_SUCCESS) return;
        x->send_rc = rc;
        compi_log(0,
                  "a pipelined collective block to rank %d failed at chunk %zu of %zu (error %d); its receivers "
                  "are told by a stand-in for each chunk not sent",
                  compi_coll_name(x, j), k, o->n, rc);
    }
    size_t len = compi_chunk_len(o->size, o->chunk, k);
    unsigned char *m = malloc(COMPI_FRAME_HEADER_SIZE);
    if (!m) return; /* the receiver waits for it: nothing left to tell it with */
    long long mlen = compi_chunk_unsent(k, len, m);
    if (PMPI_Isend(m, (int)mlen, MPI_BYTE, j, x->ctag, x->chunks, &x->sreq[x->nsent]) != MPI_SUCCESS) {
        free(m);
        return;
    }
    x->nsent++;
    x->stand[x->nstand++] = m;
}

/* Chunk k of every pipelined block I send, destinations interleaved. */
static void compi_coll_xchg_send_round(compi_coll_xchg *x, size_t k)
{
    for (int jj = 0; jj < x->n && k < x->max_chunks && x->rc == MPI_SUCCESS; jj++) {
        int j = (x->me + 1 + jj) % x->n; /* each rank starts with the next one: not all on one rank first */
        compi_coll_out *o = x->out[j];
        if (!o || !o->chunk || k >= o->n) continue;
        compi_coll_xchg_send_chunk(x, o, j, k);
    }
}

/* Chunk kk of source i, in slot cs, decoded into its place. A bad one marks
 * the stream bad; a chunk the sender never sent (the next came in its
 * place) is no longer waited for. */
static void compi_coll_stream_decode(compi_coll_xchg *x, int i, compi_coll_stream *s, int cs, size_t kk)
{
    size_t off = kk * s->chunk, len = compi_chunk_len(s->size, s->chunk, kk);
    char cwhy[200];
    uint8_t cid = COMPI_CODEC_RAW;
    uint64_t d0 = compi_now_ns();
    int ok = !s->trunc[cs] && compi_chunk_decode(kk, s->slot[cs], (size_t)s->got[cs], len, s->dst + off, &cid, cwhy,
                                                 sizeof cwhy) == COMPI_OK;
    uint64_t dt = compi_now_ns() - d0;
    s->decode_ns += dt;
    if (kk + 1 < s->n) s->hidden_ns += dt;
    if (cid != COMPI_CODEC_RAW) s->codec = cid;
    if (ok) return;
    s->bad = 1;
    if (x->bad_source < 0) {
        snprintf(x->why, sizeof x->why, "chunk %zu of %zu from rank %d: %s", kk, s->n, compi_coll_name(x, i),
                 s->trunc[cs] ? "longer than the chunks its block's metadata declares" : cwhy);
        x->bad_source = i;
    }
    int num = s->trunc[cs] ? -1 : compi_chunk_number(s->slot[cs], (size_t)s->got[cs]);
    size_t missing = num < 0 ? 0 : (size_t)((unsigned)num - (unsigned)kk) & 0xffu;
    if (missing && missing < s->due - kk) {
        s->due -= missing;
        x->pending = x->pending > missing ? x->pending - missing : 0;
    }
}

/* Source i's chunks that arrived, taken in order (receives complete in any
 * order); each freed slot gets the next chunk's receive. */
static void compi_coll_stream_take(compi_coll_xchg *x, int i)
{
    compi_coll_stream *s = &x->st[i];
    while (x->rc == MPI_SUCCESS && s->dec < s->due && s->arrived[s->dec % (size_t)s->slots]) {
        int cs = (int)(s->dec % (size_t)s->slots);
        size_t kk = s->dec++;
        s->arrived[cs] = 0;
        s->next = kk + 1;
        s->completed++;
        if (compi_chunk_fault_recv(kk)) compi_coll_xchg_recv_failed(x, i, kk, MPI_ERR_INTERN, "an injected fault");
        if (!s->bad && x->recv_rc == MPI_SUCCESS) compi_coll_stream_decode(x, i, s, cs, kk);
        if (s->completed == s->due) compi_pipe_count_received(s->codec, s->decode_ns, s->hidden_ns, 0);
        /* receives match in posting order: chunk k's receive is
         * posted into slot k % slots once chunk k - slots left it */
        s->busy[cs] = 0;
        while (x->rc == MPI_SUCCESS && s->posted < s->due && !s->busy[s->posted % (size_t)s->slots]) {
            int ps = (int)(s->posted % (size_t)s->slots);
            s->slot_k[ps] = s->posted++;
            s->busy[ps] = 1;
            x->rc = compi_coll_post_chunk(x, i, ps);
        }
    }
}

/* No chunk arrived within COMPI_ESCAPE_WAIT of the one before: the story. */
static void compi_coll_xchg_timed_out(compi_coll_xchg *x)
{
    for (int i = 0; i < x->n && x->bad_source < 0; i++)
        if (x->piped[i] && x->st[i].next < x->st[i].due) {
            snprintf(x->why, sizeof x->why,
                     "chunk %zu of %zu from rank %d did not arrive within "
                     "COMPI_CHUNK_WAIT=%g s of the one before",
                     x->st[i].next, x->st[i].n, compi_coll_name(x, i), compi_cfg.chunk_wait_s);
            x->bad_source = i;
        }
    if (x->bad_source < 0) {
        snprintf(x->why, sizeof x->why, "a collective block did not arrive within COMPI_CHUNK_WAIT=%g s",
                 compi_cfg.chunk_wait_s);
        x->bad_source = 0;
    }
}

/* The receives: whatever arrived (blocking: once everything is sent, wait
 * for the rest). Returns 1 when the exchange must stop receiving (an error,
 * or a chunk that never came). */
static int compi_coll_xchg_receive(compi_coll_xchg *x, int blocking)
{
    for (;;) {
        int outcount = 0;
        uint64_t t0 = compi_now_ns();
        if (x->pending == 0) break;
        x->rc = PMPI_Testsome(x->nr, x->rreq, &outcount, x->done_idx, x->rst);
        /* the statuses' MPI_ERROR fields are set only with MPI_ERR_IN_STATUS */
        int in_status = x->rc != MPI_SUCCESS && compi_error_class(x->rc) == MPI_ERR_IN_STATUS;
        if (x->rc != MPI_SUCCESS && !in_status) return 1;
        if (x->rc != MPI_SUCCESS) {
            /* MPI_ERR_IN_STATUS: a chunk longer than its slot (damaged) */
            for (int t = 0; t < outcount; t++)
                if (x->rst[t].MPI_ERROR != MPI_SUCCESS && compi_error_class(x->rst[t].MPI_ERROR) != MPI_ERR_TRUNCATE)
                    return 1;
            x->rc = MPI_SUCCESS;
        }
        if (outcount == MPI_UNDEFINED) outcount = 0;
        if (outcount == 0) {
            if (!blocking) break;
            uint64_t now = compi_now_ns();
            if (compi_cfg.chunk_wait_s > 0 && now - x->last > (uint64_t)(compi_cfg.chunk_wait_s * 1e9)) {
                compi_coll_xchg_timed_out(x);
                return 1;
            }
            sched_yield();
            x->wait_ns += compi_now_ns() - t0;
            continue;
        }
        x->last = compi_now_ns();
        for (int t = 0; t < outcount && x->rc == MPI_SUCCESS; t++) {
            int r = x->done_idx[t], i = r / (COMPI_COLL_SLOTS + 1), sl = r % (COMPI_COLL_SLOTS + 1) - 1;
            if (x->pending) x->pending--;
            if (sl < 0) continue; /* a whole frame: delivered by the caller */
            compi_coll_stream *s = &x->st[i];
            s->trunc[sl] = in_status && x->rst[t].MPI_ERROR != MPI_SUCCESS &&
                           compi_error_class(x->rst[t].MPI_ERROR) == MPI_ERR_TRUNCATE;
            s->got[sl] = 0;
            if (!s->trunc[sl]) PMPI_Get_count(&x->rst[t], MPI_BYTE, &s->got[sl]);
            s->arrived[sl] = 1;
            compi_coll_stream_take(x, i);
        }
        if (!blocking) break;
    }
    return 0;
}

/* Step 6: rounds of chunk sends over the destinations, each followed by the
 * receives that completed, until every chunk is sent and received. */
static void compi_coll_xchg_stream(compi_coll_xchg *x)
{
    x->last = compi_now_ns();
    x->done_idx = malloc(sizeof(int) * (size_t)x->nr);
    if (!x->done_idx) x->rc = MPI_ERR_NO_MEM;
    for (size_t k = 0; x->rc == MPI_SUCCESS && (k < x->max_chunks || x->pending > 0); k++) {
        compi_coll_xchg_send_round(x, k);
        if (compi_coll_xchg_receive(x, k + 1 >= x->max_chunks)) return;
    }
}

/* Step 7: nothing stays posted: receives left over (a chunk that did not
 * come, an MPI error, fewer chunks due) are given up without waiting (one
 * the MPI matched already completes in the background: its sender may be
 * the one that stalled), the sends completed. The chunks still due that no
 * receive of this exchange takes may yet come (their sender stalled past
 * COMPI_CHUNK_WAIT): receives are posted for them, so that their sender,
 * which waits for them to be taken, is not left waiting while this rank
 * waits for it in the next collective. */
static void compi_coll_xchg_drain(compi_coll_xchg *x)
{
    for (int i = 0; i < x->n; i++) {
        compi_coll_stream *s = &x->st[i];
        size_t due = s->due > s->posted ? s->due - s->posted : 0; /* never posted */
        for (int sl = -1; sl < COMPI_COLL_SLOTS; sl++) {
            MPI_Request *q = &x->rreq[(size_t)i * (COMPI_COLL_SLOTS + 1) + 1 + sl];
            if (*q == MPI_REQUEST_NULL) continue;
            unsigned char **buf = sl >= 0 ? &s->slot[sl] : NULL;
            /* frees the slot, now or once complete */
            int cancelled = compi_side_recv_abandon(q, buf ? *buf : NULL);
            if (buf) *buf = NULL;
            /* its message may still come: a receive index below the chunks due */
            if (sl >= 0 && cancelled && s->slot_k[sl] < s->due) due++;
        }
        if (!x->piped[i] || !due) continue;
        size_t lost = compi_side_stale_expect(x->chunks, i, x->ctag, due, COMPI_FRAME_HEADER_SIZE + s->chunk);
        if (lost)
            compi_log(0, "%zu chunk(s) from rank %d that may still come cannot be taken: it may wait for them", lost,
                      compi_coll_name(x, i));
    }
    int wrc = compi_coll_waitall((int)x->nsent, x->sreq);
    if (x->rc == MPI_SUCCESS) x->rc = wrc;
    for (size_t i = 0; i < x->nstand; i++) free(x->stand[i]);
    free(x->stand);
    COMPI_STAT_ADD(pipe_wait_ns, x->wait_ns);
    for (int i = 0; i < x->n; i++)
        for (int k = 0; k < COMPI_COLL_SLOTS; k++) free(x->st[i].slot[k]);
    free(x->st);
    free(x->rreq);
    free(x->ridx);
    free(x->rst);
    free(x->sreq);
    free(x->done_idx);
}

int compi_coll_exchange(MPI_Comm sub, MPI_Comm chunks, int same, compi_coll_out *const out[], const compi_coll_in in[],
                        unsigned char **stage, compi_coll_blocks *got, int *piped, const int *names, MPI_Comm comm)
{
    compi_coll_xchg x = {.sub = sub,
                         .chunks = chunks,
                         .out = out,
                         .in = in,
                         .stage = stage,
                         .got = got,
                         .piped = piped,
                         .names = names,
                         .bad_source = -1,
                         .ctag = compi_coll_chunk_tag(chunks),
                         .piece = compi_coll_piece()};
    PMPI_Comm_size(sub, &x.n);
    PMPI_Comm_rank(sub, &x.me);
    int64_t *rmeta;
    x.rc = compi_coll_xchg_meta(&x, same, &rmeta);
    if (!x.meta) return MPI_ERR_NO_MEM; /* no room for the metadata */
    compi_coll_xchg_read_meta(&x, rmeta);
    free(rmeta);
    compi_coll_xchg_count_sends(&x);
    if (x.rc == MPI_SUCCESS && !(got->bytes = malloc(x.total ? x.total : 1))) x.rc = MPI_ERR_NO_MEM;
    x.whole = x.rc == MPI_SUCCESS ? malloc(sizeof(MPI_Request) * (x.nrecv_whole + x.nsend + 1)) : NULL;
    if (x.rc == MPI_SUCCESS && !x.whole) x.rc = MPI_ERR_NO_MEM;
    if (x.rc != MPI_SUCCESS) {
        free(x.meta);
        compi_coll_blocks_free(got);
        return x.rc;
    }
    compi_coll_xchg_post_whole(&x);
    if (x.streaming && x.rc == MPI_SUCCESS && compi_coll_xchg_open_streams(&x)) {
        compi_coll_xchg_stream(&x);
        compi_coll_xchg_drain(&x);
    }
    int wrc = compi_coll_waitall((int)x.nwhole, x.whole);
    if (x.rc == MPI_SUCCESS) x.rc = wrc;
    free(x.whole);
    free(x.meta);
    if (x.rc != MPI_SUCCESS) {
        compi_coll_blocks_free(got);
        return x.rc;
    }
    if (x.bad_source >= 0) {
        MPI_Status fst;
        memset(&fst, 0, sizeof fst);
        fst.MPI_SOURCE = compi_coll_name(&x, x.bad_source);
        fst.MPI_TAG = x.ctag;
        compi_coll_blocks_free(got);
        return compi_frame_fail(comm, &fst, x.why);
    }
    int rc = x.recv_rc != MPI_SUCCESS ? x.recv_rc : x.send_rc;
    if (rc != MPI_SUCCESS) compi_coll_blocks_free(got);
    return rc;
}

void compi_coll_blocks_free(compi_coll_blocks *b)
{
    free(b->bytes);
    free(b->lens);
    free(b->displs);
    b->bytes = NULL;
    b->lens = b->displs = NULL;
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
    compi_coll_dec_free(x);
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
