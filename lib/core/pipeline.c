/* SPDX-License-Identifier: BSD-3-Clause */
/* Pipelined transfers: a large compressed message goes in chunks, so the
 * codec of one chunk overlaps the wire time of the others.
 *
 * Sent whole, a compressed message costs compress + wire + decompress;
 * pipelined, about the largest of the three (lib/engine/estimate.h has the
 * model the decisions use). On the wire (lib/frame/frame.h):
 *   - the application's message is a header-only frame, codec
 *     COMPI_CODEC_CHUNKED, sent with the application's (comm, tag) and send
 *     mode, so matching, wildcards, probes, ordering and synchronous-mode
 *     completion are those of the application's message;
 *   - the chunks follow on compi's side communicator (compi_g.aside_comm)
 *     from the sender's world rank, with a tag named in the header (no
 *     application receive can take them), in order, each a frame of its
 *     own: compressed if that made it smaller, else raw.
 * The sender posts the header first, then compresses chunk k+1 while chunks
 * up to k travel (nonblocking sends, progress between chunks). The
 * receiver, once the header matched, keeps COMPI_PIPE_SLOTS chunk receives
 * posted and decodes chunk k straight into the application's buffer while
 * the next ones arrive: it needs the buffer plus those slots (a
 * non-contiguous receive stages the whole message, as it does unpipelined).
 * A chunk that fails validation fails the receive naming the chunk; one
 * that does not arrive within COMPI_ESCAPE_WAIT seconds of the previous one
 * too. The chunks that are still due are drained either way; a chunk
 * receive that the MPI matched but that needs its sender to end is
 * completed in the background, so the failed receive never waits for a
 * sender that is outside MPI. */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/side.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"
#include "core/requests.h"
#include "pool/pool.h"

#define COMPI_PIPE_SLOTS 4
/* A chunk's message (header + at most a chunk, compi_chunk_capacity) goes
 * with an int count of bytes. */
_Static_assert(((size_t)1 << COMPI_CHUNK_LOG2_MAX) <= (size_t)INT_MAX / 2, "a chunk must fit an int count");

/* an outgoing pipelined message: its chunk sends */
struct compi_pipe {
    const char *src; /* the packed bytes while streaming */
    void *packed;    /* compi's packed copy (non-contiguous data), or NULL */
    size_t size, chunk, n;
    const compi_codec *codec;
    compi_codec_params params;
    int world_dest, tag;
    MPI_Request *reqs;    /* n chunk sends */
    unsigned char **bufs; /* their messages */
    size_t posted;        /* chunks handed to MPI (or dropped by a test) */
    size_t done;          /* leading completed sends (all when == n) */
    long long *mlen;      /* while streaming: each chunk's encoded length (< 0: failed) */
    int *raw;             /* ... whether it went raw */
    uint64_t *ns;         /* ... its codec time */
};

static unsigned compi_pipe_damage = (unsigned)-1; /* COMPI_DEBUG_DAMAGE_CHUNK (tests) */
static int compi_pipe_damage_read;

/* Tests inject faults with COMPI_DEBUG_DAMAGE_CHUNK=k (damage the header of
 * every message's chunk k), =drop:k (never send chunk k: the receiver
 * finds the next one where k was due, drains exactly the chunks still due
 * and fails the receive), =fail:k (the send fails at chunk k as on an
 * error of its own: chunk k and those after it go as stand-ins) or
 * =rfail:k (a collective block's receiver fails at chunk k as on an error
 * of its own: compi_chunk_fault_recv) or =stall:k:S (the sender of a
 * collective block stays away S seconds before chunk k, once:
 * compi_chunk_fault_stall). */
static double compi_pipe_stall_s;
static int compi_chunk_fault_kind(unsigned *k)
{
    static int kind;
    if (!__atomic_load_n(&compi_pipe_damage_read, __ATOMIC_ACQUIRE)) {
        const char *v = getenv("COMPI_DEBUG_DAMAGE_CHUNK");
        static const struct {
            const char *prefix;
            int kind;
        } kinds[] = {{"drop:", COMPI_CHUNK_FAULT_DROP},
                     {"fail:", COMPI_CHUNK_FAULT_FAIL},
                     {"rfail:", COMPI_CHUNK_FAULT_RECV_FAIL},
                     {"stall:", COMPI_CHUNK_FAULT_STALL}};
        for (size_t i = 0; v && i < sizeof kinds / sizeof kinds[0]; i++)
            if (strncmp(v, kinds[i].prefix, strlen(kinds[i].prefix)) == 0) {
                kind = kinds[i].kind;
                v += strlen(kinds[i].prefix);
                break;
            }
        if (v && *v) {
            char *end = NULL;
            compi_pipe_damage = (unsigned)strtoul(v, &end, 10);
            compi_pipe_stall_s = end && *end == ':' ? strtod(end + 1, NULL) : 2.0;
        }
        __atomic_store_n(&compi_pipe_damage_read, 1, __ATOMIC_RELEASE);
    }
    *k = compi_pipe_damage;
    return kind;
}

int compi_chunk_fault(size_t k, int *how)
{
    unsigned at;
    *how = compi_chunk_fault_kind(&at);
    return k == at && *how != COMPI_CHUNK_FAULT_RECV_FAIL && *how != COMPI_CHUNK_FAULT_STALL;
}

double compi_chunk_fault_stall(size_t k)
{
    static int stalled;
    unsigned at;
    if (compi_chunk_fault_kind(&at) != COMPI_CHUNK_FAULT_STALL || k != at) return 0;
    return __atomic_exchange_n(&stalled, 1, __ATOMIC_RELAXED) ? 0 : compi_pipe_stall_s;
}

int compi_chunk_fault_recv(size_t k)
{
    unsigned at;
    return compi_chunk_fault_kind(&at) == COMPI_CHUNK_FAULT_RECV_FAIL && k == at;
}

void compi_pipe_count_sent(const compi_codec *codec, size_t size, size_t n, size_t wire, size_t raw_chunks, uint64_t ns,
                           uint64_t hidden)
{
    uint8_t id = codec ? codec->id : 0;
    COMPI_STAT_ADD(compress_ns, ns);
    COMPI_STAT_ADD(codec_msgs[id], 1);
    COMPI_STAT_ADD(codec_in[id], size);
    COMPI_STAT_ADD(codec_out[id], wire);
    COMPI_STAT_ADD(pipe_msgs[id], 1);
    COMPI_STAT_ADD(pipe_chunks[id], n);
    COMPI_STAT_ADD(pipe_raw_chunks[id], raw_chunks);
    COMPI_STAT_ADD(pipe_compress_ns[id], ns);
    COMPI_STAT_ADD(pipe_compress_hidden_ns[id], hidden);
}

void compi_pipe_count_received(uint8_t codec_id, uint64_t decode_ns, uint64_t hidden_ns, uint64_t wait_ns)
{
    COMPI_STAT_ADD(decompress_ns, decode_ns);
    COMPI_STAT_ADD(frames_decoded_compressed, 1);
    COMPI_STAT_ADD(pipe_recv_msgs, 1);
    COMPI_STAT_ADD(pipe_wait_ns, wait_ns);
    COMPI_STAT_ADD(pipe_decompress_ns[codec_id], decode_ns);
    COMPI_STAT_ADD(pipe_decompress_hidden_ns[codec_id], hidden_ns);
}

int compi_pipe_prepare(compi_outgoing *out, const char *src, void *packed, size_t size, size_t chunk,
                       const compi_codec *codec, const compi_codec_params *params, const compi_comm_info *ci, int dest)
{
    struct compi_pipe *p = calloc(1, sizeof *p);
    unsigned char *hdr = malloc(COMPI_FRAME_HEADER_SIZE);
    unsigned log2 = 0;
    while (((size_t)1 << log2) < chunk) log2++;
    if (!p || !hdr || ((size_t)1 << log2) != chunk || log2 < COMPI_CHUNK_LOG2_MIN || log2 > COMPI_CHUNK_LOG2_MAX) {
        free(p);
        free(hdr);
        return p && hdr ? MPI_ERR_INTERN : MPI_ERR_NO_MEM;
    }
    p->src = src;
    p->packed = packed;
    p->size = size;
    p->chunk = chunk;
    p->n = compi_chunk_count(size, log2);
    p->codec = codec;
    p->params = *params;
    p->world_dest = ci->peer_world[dest];
    p->tag = compi_side_tag();
    p->reqs = malloc(sizeof *p->reqs * p->n);
    p->bufs = calloc(p->n, sizeof *p->bufs);
    if (!p->reqs || !p->bufs) {
        free(p->reqs);
        free(p->bufs);
        free(p);
        free(hdr);
        return MPI_ERR_NO_MEM;
    }
    for (size_t k = 0; k < p->n; k++) p->reqs[k] = MPI_REQUEST_NULL;
    compi_frame_header h = {COMPI_CODEC_CHUNKED, (uint8_t)params->dtclass, size, (uint64_t)p->tag, (uint8_t)log2};
    compi_frame_write_header(hdr, &h);
    out->tmp = hdr;
    out->addr = hdr;
    out->count = COMPI_FRAME_HEADER_SIZE;
    out->dt = MPI_BYTE;
    out->wire_len = COMPI_FRAME_HEADER_SIZE;
    out->pipe = p;
    return MPI_SUCCESS;
}

/* Frees the sends that completed in order; returns 1 when all have. */
int compi_pipe_done(struct compi_pipe *p, int wait)
{
    while (p->done < p->posted) {
        int flag = 1;
        if (p->reqs[p->done] != MPI_REQUEST_NULL) {
            int rc = wait ? PMPI_Wait(&p->reqs[p->done], MPI_STATUS_IGNORE)
                          : PMPI_Test(&p->reqs[p->done], &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) compi_log(0, "a pipelined chunk send failed (error %d)", rc);
        }
        if (!flag) return 0;
        free(p->bufs[p->done]);
        p->bufs[p->done] = NULL;
        p->done++;
    }
    return p->done == p->n;
}

/* Encodes chunk k of p into a buffer of its own: run by the codec pool's
 * helpers or by the sending thread, any chunks side by side. */
static void compi_pipe_encode(void *arg, size_t k)
{
    struct compi_pipe *p = arg;
    size_t off = k * p->chunk, len = compi_chunk_len(p->size, p->chunk, k);
    size_t cap = compi_chunk_capacity(p->chunk);
    unsigned char *m = malloc(cap);
    int compressed = 0;
    uint64_t t0 = compi_now_ns();
    p->mlen[k] = m ? compi_chunk_encode(k, p->src + off, len, p->codec, &p->params, m, cap, &compressed) : LLONG_MIN;
    p->ns[k] = compi_now_ns() - t0;
    p->raw[k] = !compressed;
    if (p->mlen[k] < 0) {
        free(m);
        m = NULL;
    }
    p->bufs[k] = m;
}

/* After a failure part way through p: a stand-in (frame.h,
 * COMPI_CODEC_UNSENT) for every chunk not posted, so that the receiver
 * fails the message when it reaches them instead of waiting for them. Stops
 * at the first stand-in the MPI refuses. */
static void compi_pipe_stand_ins(struct compi_pipe *p)
{
    for (size_t k = p->posted; k < p->n; k++) {
        size_t len = compi_chunk_len(p->size, p->chunk, k);
        unsigned char *m = malloc(COMPI_FRAME_HEADER_SIZE);
        if (!m) return;
        long long mlen = compi_chunk_unsent(k, len, m);
        if (compi_side_isend(m, (int)mlen, p->world_dest, p->tag, &p->reqs[k]) != MPI_SUCCESS) {
            free(m);
            return;
        }
        p->bufs[k] = m;
        p->posted++;
    }
}

/* Chunks encoded ahead of the wire with the pool: enough to keep every
 * helper busy, few enough to bound the memory they hold. */
static size_t compi_pipe_ahead(void)
{
    return 2 * ((size_t)compi_pool_threads() + 1);
}

int compi_outgoing_stream(compi_outgoing *out, compi_decision *d)
{
    struct compi_pipe *p = out->pipe;
    if (!p) return MPI_SUCCESS;
    size_t wire = 0, raw_chunks = 0;
    uint64_t ns = 0, hidden = 0;
    int rc = MPI_SUCCESS, fault;
    p->mlen = malloc(sizeof *p->mlen * p->n);
    p->raw = malloc(sizeof *p->raw * p->n);
    p->ns = malloc(sizeof *p->ns * p->n);
    if (!p->mlen || !p->raw || !p->ns) rc = MPI_ERR_NO_MEM;
    /* the chunks are encoded in any order on any thread, and sent in order
     * from this one: the wire is the same at every pool size */
    compi_pool_job *job = rc == MPI_SUCCESS && p->n > 1 ? compi_pool_job_new(p->n, compi_pipe_encode, p) : NULL;
    size_t ahead = compi_pipe_ahead();
    uint64_t posted_at = 0;
    for (size_t k = 0; k < p->n && rc == MPI_SUCCESS; k++) {
        if (job) {
            compi_pool_release(job, k + ahead);
            compi_pool_wait(job, k);
        } else {
            compi_pipe_encode(p, k);
        }
        unsigned char *m = p->bufs[k];
        if (p->mlen[k] < 0) {
            rc = p->mlen[k] == LLONG_MIN ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
            break;
        }
        long long mlen = p->mlen[k];
        /* the pace hint (frame.h): how long after the chunk before this one
         * goes; injected link timings: the injected coding's time */
        uint64_t now = compi_now_ns();
        size_t len = compi_chunk_len(p->size, p->chunk, k);
        compi_chunk_set_gap(m, compi_cfg.debug_link.set ? compi_engine_injected_gap_us((double)len)
                               : k                      ? (double)(now - posted_at) * 1e-3
                                                        : 0);
        posted_at = now;
        ns += p->ns[k];
        if (k) hidden += p->ns[k]; /* ran while the chunks before it travelled */
        raw_chunks += (size_t)p->raw[k];
        wire += (size_t)mlen;
        if (compi_chunk_fault(k, &fault)) {
            if (fault == COMPI_CHUNK_FAULT_FAIL) {
                rc = MPI_ERR_INTERN;
                break;
            }
            if (fault == COMPI_CHUNK_FAULT_DROP) {
                p->posted++;
                continue;
            }
            m[8] ^= 0x5a; /* the chunk's declared length: its header check fails */
        }
        rc = compi_side_isend(m, (int)mlen, p->world_dest, p->tag, &p->reqs[k]);
        if (rc != MPI_SUCCESS) {
            free(m);
            p->bufs[k] = NULL;
            break;
        }
        p->posted++;
        compi_pipe_done(p, 0); /* progress for what is on the wire */
    }
    compi_pool_job_end(job);
    /* chunks encoded ahead of a failure are never sent */
    for (size_t k = p->posted; k < p->n; k++) {
        free(p->bufs[k]);
        p->bufs[k] = NULL;
    }
    size_t failed_at = p->posted;
    if (rc != MPI_SUCCESS) compi_pipe_stand_ins(p);
    free(p->mlen);
    free(p->raw);
    free(p->ns);
    p->mlen = NULL;
    p->raw = NULL;
    p->ns = NULL;
    if (p->packed) {
        free(p->packed);
        p->packed = NULL;
    }
    p->src = NULL;
    compi_pipe_count_sent(p->codec, p->size, p->n, wire, raw_chunks, ns, hidden);
    /* chunks sent raw still travelled in the pipeline: the whole message is the outcome */
    compi_decision_outcome(d, p->size, wire < p->size ? (long long)wire : -1, ns);
    if (rc != MPI_SUCCESS) {
        compi_log(0, "pipelined send of %zu bytes to world rank %d failed at chunk %zu of %zu (error %d); %s", p->size,
                  p->world_dest, failed_at, p->n, rc,
                  p->posted == p->n ? "the receiver is told by a stand-in for each chunk not sent"
                                    : "the receiver could not be told and waits for the chunks not sent");
        p->n = p->posted; /* what was never posted is not waited for */
    }
    return rc;
}

void compi_pipe_cancel(struct compi_pipe *p)
{
    for (size_t k = p->done; k < p->n; k++)
        if (p->reqs[k] != MPI_REQUEST_NULL) PMPI_Cancel(&p->reqs[k]);
    compi_pipe_done(p, 1);
}

void compi_pipe_free(struct compi_pipe *p)
{
    if (!p) return;
    for (size_t k = 0; k < p->n; k++) free(p->bufs[k]);
    free(p->bufs);
    free(p->reqs);
    free(p->packed);
    free(p);
}

/* ------------------------------------------------------------- receiving */

/* The first chunk whose bytes time the link's rate: the later half of n.
 * A bucket or buffer that filled while the link was idle passes a
 * message's first bytes at once; what follows them comes at the rate. */
static size_t compi_pipe_flow_from(size_t n)
{
    return n / 2 ? n / 2 : 1;
}

/* A timed chunk that arrived at least this many times its sender's gap
 * after the one before it (frame.h, compi_chunk_gap) was paced by the wire
 * (its arrival after the one before is the larger of the two); one that
 * arrived sooner, by the sender's coding (or the two were too close to
 * tell). */
#define COMPI_PIPE_WIRE_PACED 1.25

/* The link's rate from a pipelined message: what its timed chunks
 * (compi_pipe_flow_from on) say. Each timed chunk's time is from the
 * arrival of the chunk before it to its own; the chunks the sender's
 * coding paced are left out, since their time is the sender's; the
 * others' bytes and times make the sample. */
typedef struct {
    uint64_t prev_at;  /* arrival of the chunk before */
    size_t wire_bytes; /* of the chunks so far */
    size_t timed;      /* timed chunks taken */
    size_t waited;     /* ... this receiver waited at least 20 us for */
    size_t coded;      /* ... the sender's coding paced: left out */
    size_t bytes;      /* the sample: wire bytes of the timed chunks not left out */
    double us;         /* ... and their times */
} compi_pipe_flow_t;

/* Notes chunk k's arrival (`arrived`; t0: when this receiver started
 * waiting for it) with its wire bytes at msg (got) and len bytes of data. */
static void compi_pipe_flow(compi_pipe_flow_t *f, const unsigned char *msg, const MPI_Status *st, size_t k, size_t from,
                            size_t len, uint64_t arrived, uint64_t t0)
{
    int got = 0;
    PMPI_Get_count(st, MPI_BYTE, &got);
    size_t g = got > 0 ? (size_t)got : 0;
    if (k >= from) {
        double gap = compi_chunk_gap(msg, g);
        /* injected: the times are not the clock's, but those of the
         * injected wire and sender's coding, whatever the hint says */
        double us = compi_cfg.debug_link.set ? compi_engine_injected_chunk_us((double)g, (double)f->wire_bytes,
                                                                              compi_engine_injected_gap_us((double)len))
                                             : (double)(arrived - f->prev_at) * 1e-3;
        f->timed++;
        if (arrived - t0 >= 20000) f->waited++;
        if (gap >= 0 && us < COMPI_PIPE_WIRE_PACED * gap) {
            f->coded++;
        } else {
            f->bytes += g;
            f->us += us;
        }
    }
    f->wire_bytes += g;
    f->prev_at = arrived;
}

/* Waits for one chunk receive; 0 when nothing arrived within
 * COMPI_CHUNK_WAIT (by default it waits as long as the sender takes: its
 * chunks move when its process is inside MPI, as a large message does).
 * With a codec pool, a long wait sleeps between looks (compi_pool_idle):
 * the chunk is being coded by helpers that need the core this thread
 * would keep runnable, or travels a wire slower than its polling. */
static int compi_pipe_wait_chunk(MPI_Request *req, MPI_Status *st, int *rc)
{
    uint64_t start = compi_now_ns();
    uint64_t deadline = compi_cfg.chunk_wait_s > 0 ? start + (uint64_t)(compi_cfg.chunk_wait_s * 1e9) : UINT64_MAX;
    int pauses = compi_pool_threads() > 0;
    for (unsigned spins = 0;; spins++) {
        int flag = 0;
        *rc = PMPI_Test(req, &flag, st);
        if (*rc != MPI_SUCCESS || flag) return 1;
        if ((spins & 63) == 63 || (pauses && compi_pool_pause_ns(compi_now_ns() - start))) {
            uint64_t now = compi_now_ns();
            if (now > deadline) return 0;
            compi_pool_idle(now - start);
        }
    }
}

/* The receiving side of the codec pool: chunk k waits in slot k % nslots
 * until it is decoded (by a helper or this thread), and only then does the
 * slot take the receive of a later chunk. */
#define COMPI_PIPE_SLOTS_MAX 32
typedef struct {
    unsigned char **slot;
    size_t nslots, chunk, total, n;
    unsigned char *out;
    int got[COMPI_PIPE_SLOTS_MAX], res[COMPI_PIPE_SLOTS_MAX], pending[COMPI_PIPE_SLOTS_MAX];
    uint8_t cid[COMPI_PIPE_SLOTS_MAX];
    uint64_t ns[COMPI_PIPE_SLOTS_MAX];
    char cwhy[COMPI_PIPE_SLOTS_MAX][200];
    /* the outcome, filed in chunk order by the receiving thread */
    int bad;
    char *why;
    size_t whylen;
    uint64_t decode_ns, hidden_ns;
    uint8_t codec_id;
} compi_pipe_rx;

static void compi_pipe_decode(void *arg, size_t k)
{
    compi_pipe_rx *x = arg;
    size_t s = k % x->nslots, off = k * x->chunk, len = compi_chunk_len(x->total, x->chunk, k);
    uint64_t t0 = compi_now_ns();
    x->cid[s] = COMPI_CODEC_RAW;
    x->res[s] = compi_chunk_decode(k, x->slot[s], (size_t)x->got[s], len, x->out + off, &x->cid[s], x->cwhy[s],
                                   sizeof x->cwhy[s]);
    x->ns[s] = compi_now_ns() - t0;
}

/* Files the outcome of chunk k's decode by the pool (waiting for it). */
static void compi_pipe_collect(compi_pipe_rx *x, compi_pool_job *job, size_t k)
{
    size_t s = k % x->nslots;
    if (!x->pending[s]) return;
    compi_pool_wait(job, k);
    x->pending[s] = 0;
    if (!x->bad && x->res[s] != COMPI_OK) {
        snprintf(x->why, x->whylen, "chunk %zu of %zu: %s", k, x->n, x->cwhy[s]);
        x->bad = 1;
    }
    x->decode_ns += x->ns[s];
    if (k + 1 < x->n) x->hidden_ns += x->ns[s]; /* the next chunks were on their way meanwhile */
    if (x->cid[s] != COMPI_CODEC_RAW) x->codec_id = x->cid[s];
}

/* Chunk k, in slot s with `got` bytes, decoded by the receiving thread
 * (the pool did not take it): into the buffer, or through scratch for the
 * part beyond what a truncated buffer keeps. A chunk that does not decode
 * marks the message bad, and *due shrinks when its number says chunks the
 * sender never sent are missing. */
static void compi_pipe_decode_here(compi_pipe_rx *x, size_t k, size_t s, size_t got, size_t keep,
                                   unsigned char *scratch, size_t *due)
{
    size_t off = k * x->chunk, len = compi_chunk_len(x->total, x->chunk, k);
    unsigned char *to = off + len <= keep ? x->out + off : scratch;
    uint64_t t0 = compi_now_ns();
    char cwhy[200];
    uint8_t cid = COMPI_CODEC_RAW;
    if (compi_chunk_decode(k, x->slot[s], got, len, to, &cid, cwhy, sizeof cwhy) != COMPI_OK) {
        snprintf(x->why, x->whylen, "chunk %zu of %zu: %s", k, x->n, cwhy);
        x->bad = 1;
        int num = compi_chunk_number(x->slot[s], got);
        size_t missing = num < 0 ? 0 : (size_t)((unsigned)num - (unsigned)k) & 0xffu;
        *due = missing < *due - k ? *due - missing : k + 1;
    } else if (to == scratch && off < keep) {
        memcpy(x->out + off, scratch, keep - off);
    }
    uint64_t t = compi_now_ns() - t0;
    x->decode_ns += t;
    if (k + 1 < x->n) x->hidden_ns += t;           /* the next chunks were on their way meanwhile */
    if (cid != COMPI_CODEC_RAW) x->codec_id = cid; /* the report files the message under its codec */
}

/* A pipelined receive under way: its header matched, its chunks are being
 * taken. A completion call that must not wait (MPI_Test and its kin)
 * advances it as far as the chunks that arrived allow and leaves it with
 * compi's request; a blocking one takes it to its end. */
struct compi_pipe_recv {
    compi_pipe_rx x;
    compi_pool_job *job;
    unsigned char *slot[COMPI_PIPE_SLOTS_MAX];
    MPI_Request req[COMPI_PIPE_SLOTS_MAX];
    void *buf;
    int count;
    MPI_Datatype dt;
    size_t total, chunk, n, keep, room;
    int world, tag, truncated, rc, lost;
    uint8_t dtclass;
    unsigned char *linear, *scratch;
    size_t k;     /* the next chunk to take */
    size_t due;   /* chunks still to come: fewer than n when one the sender
                   * never sent is found missing (the next one arrived in its place) */
    size_t given; /* chunks whose slot went on to a later chunk's receive (or was done with) */
    uint64_t wait_ns;
    /* the link's rate: the later half of the chunks, back to back after
     * the one before them, timed where this receiver was already waiting
     * (a chunk found there at once says how fast this side decoded, not
     * how fast the link carried it) */
    compi_pipe_flow_t flow;
    char why[256];
};

static void compi_pipe_recv_free(compi_pipe_recv *r)
{
    for (size_t s = 0; s < COMPI_PIPE_SLOTS_MAX; s++) free(r->slot[s]);
    free(r->linear);
    free(r->scratch);
    free(r);
}

int compi_pipe_recv_begin(const compi_comm_info *ci, int source, const compi_frame_header *h, void *buf, int count,
                          MPI_Datatype dt, const compi_typeinfo *ti, MPI_Status *st, MPI_Comm comm,
                          compi_pipe_recv **out)
{
    *out = NULL;
    if (h->payload_len > (uint64_t)compi_g.aside_tag_ub) {
        char why[256];
        snprintf(why, sizeof why, "pipelined message names side tag %llu (MPI_TAG_UB is %d)",
                 (unsigned long long)h->payload_len, compi_g.aside_tag_ub);
        return compi_frame_fail(comm, st, why);
    }
    compi_pipe_recv *r = calloc(1, sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    r->total = (size_t)h->original_len;
    r->chunk = (size_t)1 << h->flags;
    r->n = compi_chunk_count(h->original_len, h->flags);
    size_t cap = (size_t)ti->size;
    r->world = ci->peer_world[source];
    r->tag = (int)h->payload_len;
    r->dtclass = h->dtclass;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->truncated = r->total > cap;
    /* bytes of the message the application's buffer gets (compi_truncated_count's rule) */
    r->keep = !r->truncated ? r->total : compi_trunc_writes_prefix() ? cap : 0;
    unsigned char *dst = ti->contiguous ? (unsigned char *)buf + ti->true_lb : NULL;
    /* with helpers, more chunks in flight: one decoding per thread while
     * the next ones arrive */
    size_t want = COMPI_PIPE_SLOTS + 2 * (size_t)compi_pool_threads();
    if (want > COMPI_PIPE_SLOTS_MAX) want = COMPI_PIPE_SLOTS_MAX;
    size_t nslots = r->n < want ? r->n : want;
    r->room = COMPI_FRAME_HEADER_SIZE + r->chunk;
    if (!dst && r->keep) r->linear = malloc(r->keep);
    if (r->keep < r->total) r->scratch = malloc(r->chunk);
    int nomem = (!dst && r->keep && !r->linear) || (r->keep < r->total && !r->scratch);
    for (size_t s = 0; s < COMPI_PIPE_SLOTS_MAX; s++) r->req[s] = MPI_REQUEST_NULL;
    for (size_t s = 0; s < nslots; s++) nomem |= !(r->slot[s] = malloc(r->room));
    if (nomem) {
        /* the chunks stay unreceived: nothing sensible remains but to say so */
        compi_pipe_recv_free(r);
        return MPI_ERR_NO_MEM;
    }
    compi_pipe_rx *x = &r->x;
    x->slot = r->slot;
    x->nslots = nslots;
    x->chunk = r->chunk;
    x->total = r->total;
    x->n = r->n;
    x->out = dst ? dst : r->linear;
    x->why = r->why;
    x->whylen = sizeof r->why;
    r->job = r->n > 1 ? compi_pool_job_new(r->n, compi_pipe_decode, x) : NULL;
    r->due = r->n;
    for (size_t s = 0; s < nslots && r->rc == MPI_SUCCESS; s++)
        r->rc = compi_side_irecv(r->slot[s], (int)r->room, r->world, r->tag, &r->req[s]);
    *out = r;
    return MPI_SUCCESS;
}

/* Takes chunk k, which arrived with status cst, and passes its slot on. */
static void compi_pipe_recv_take(compi_pipe_recv *r, MPI_Status *cst, uint64_t t0)
{
    compi_pipe_rx *x = &r->x;
    size_t k = r->k, s = k % x->nslots, n = r->n, chunk = r->chunk;
    uint64_t arrived = compi_now_ns();
    r->wait_ns += arrived - t0;
    if (r->rc == MPI_SUCCESS)
        compi_pipe_flow(&r->flow, r->slot[s], cst, k, compi_pipe_flow_from(n), compi_chunk_len(r->total, chunk, k),
                        arrived, t0);
    if (r->rc != MPI_SUCCESS && compi_error_class(r->rc) == MPI_ERR_TRUNCATE) {
        /* longer than a chunk can be: damaged, but the message is drained */
        if (!x->bad)
            snprintf(r->why, sizeof r->why, "chunk %zu of %zu is longer than the %zu-byte chunks its header declares",
                     k, n, chunk);
        x->bad = 1;
        r->rc = MPI_SUCCESS;
    }
    if (r->rc != MPI_SUCCESS) return;
    int got = 0;
    PMPI_Get_count(cst, MPI_BYTE, &got);
    size_t off = k * chunk, len = compi_chunk_len(r->total, chunk, k);
    /* a chunk that is where it belongs and goes whole into the buffer
     * is decoded by the pool; any other case here, in order */
    if (!x->bad && r->job && off + len <= r->keep && compi_chunk_number(r->slot[s], (size_t)got) == (int)(k & 0xffu)) {
        x->got[s] = got;
        x->pending[s] = 1;
        compi_pool_release(r->job, k + 1);
    } else if (!x->bad) {
        for (size_t j = r->given; j < k; j++) compi_pipe_collect(x, r->job, j);
    }
    if (!x->bad && !x->pending[s]) compi_pipe_decode_here(x, k, s, (size_t)got, r->keep, r->scratch, &r->due);
    /* slots go on to later chunks once decoded; chunk k + 1's receive
     * must be posted before it is awaited */
    while (r->given <= k && r->rc == MPI_SUCCESS) {
        size_t j = r->given, sj = j % x->nslots;
        if (x->pending[sj]) {
            if (!compi_pool_done(r->job, j) && j + x->nslots > k + 1) break; /* its slot is not needed yet */
            compi_pipe_collect(x, r->job, j);
        }
        if (j + x->nslots < r->due) r->rc = compi_side_irecv(r->slot[sj], (int)r->room, r->world, r->tag, &r->req[sj]);
        r->given++;
    }
    r->k++;
}

int compi_pipe_recv_step(compi_pipe_recv *r, int block)
{
    while (r->k < r->due && r->rc == MPI_SUCCESS && !r->lost) {
        MPI_Request *req = &r->req[r->k % r->x.nslots];
        MPI_Status cst;
        uint64_t t0 = compi_now_ns();
        int flag = 1;
        if (!block) {
            r->rc = PMPI_Test(req, &flag, &cst);
            if (r->rc == MPI_SUCCESS && !flag) return 0;
        } else if (!compi_pipe_wait_chunk(req, &cst, &r->rc)) {
            if (!r->x.bad)
                snprintf(r->why, sizeof r->why,
                         "chunk %zu of %zu (side tag %d) did not arrive within COMPI_CHUNK_WAIT=%g s "
                         "of the one before (lost, or a sender without compi)",
                         r->k, r->n, r->tag, compi_cfg.chunk_wait_s);
            r->lost = 1;
            break;
        }
        compi_pipe_recv_take(r, &cst, t0);
    }
    return 1;
}

int compi_pipe_recv_end(compi_pipe_recv *r, MPI_Status *st, MPI_Comm comm)
{
    compi_pipe_recv_step(r, 1);
    compi_pipe_rx *x = &r->x;
    size_t n = r->n, nslots = x->nslots;
    int rc = r->rc, lost = r->lost;
    /* the decodes still under way write into the buffer: they end first */
    for (size_t j = r->given; j < r->given + nslots && j < n; j++) compi_pipe_collect(x, r->job, j);
    compi_pool_job_end(r->job);
    /* do not leave receives posted on compi's side communicator (a lost
     * chunk, an error, or fewer chunks due than were posted for); one the
     * MPI matched already (a chunk on its way, maybe one that arrived
     * where a missing one was due) cannot be cancelled and may need its
     * sender to end: the receive fails now, and compi completes that one
     * in the background; the chunks still due that no receive took come
     * to nobody (side.h: taken and dropped when they arrive) */
    size_t matched = 0;
    for (size_t s = 0; s < nslots; s++) {
        if (r->req[s] == MPI_REQUEST_NULL) continue;
        matched += !compi_side_recv_abandon(&r->req[s], r->slot[s]);
        r->slot[s] = NULL;
    }
    if (r->due > r->k + matched) compi_side_stale_add(r->world, r->tag, r->due - r->k - matched);
    int bad = x->bad;
    if (rc == MPI_SUCCESS && !bad && !lost && r->linear)
        rc = compi_unpack_bytes(r->linear, r->keep, r->buf, r->count, r->dt);
    compi_pipe_count_received(x->codec_id, x->decode_ns, x->hidden_ns, r->wait_ns);
    /* a clean sample: every timed chunk was waited for, not found waiting
     * (injected: the times are not the clock's), and the wire paced some */
    compi_pipe_flow_t *f = &r->flow;
    if (rc == MPI_SUCCESS && !bad && !lost && n >= 3 && (f->waited == f->timed || compi_cfg.debug_link.set)) {
        if (f->bytes && f->us > 0)
            compi_engine_observe_pipe(r->world, (double)f->bytes, f->us, (double)(f->timed - f->coded), x->codec_id,
                                      r->dtclass, (double)r->total / (double)(f->wire_bytes ? f->wire_bytes : 1),
                                      (double)x->decode_ns * 1e-3 * (double)f->bytes /
                                          (double)(f->wire_bytes ? f->wire_bytes : 1));
        else if (f->coded) compi_engine_sender_bound(r->world);
    }
    int truncated = r->truncated;
    size_t total = r->total;
    if (rc == MPI_SUCCESS && (bad || lost)) rc = compi_frame_fail(comm, st, r->why);
    compi_pipe_recv_free(r);
    if (rc != MPI_SUCCESS || bad || lost) return rc;
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)(truncated ? compi_truncated_count(total) : total));
    return truncated ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

int compi_pipe_receive(const compi_comm_info *ci, int source, const compi_frame_header *h, void *buf, int count,
                       MPI_Datatype dt, const compi_typeinfo *ti, MPI_Status *st, MPI_Comm comm)
{
    compi_pipe_recv *r;
    int rc = compi_pipe_recv_begin(ci, source, h, buf, count, dt, ti, st, comm, &r);
    return r ? compi_pipe_recv_end(r, st, comm) : rc;
}
