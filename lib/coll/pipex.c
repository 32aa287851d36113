/* SPDX-License-Identifier: BSD-3-Clause */
/* Pipelined exchange of collective blocks (coll.h, "pipelined blocks").
 *
 * A block the sender's decision compresses and that is long enough for the
 * chunk rule of point-to-point messages (compi_decision_chunk, COMPI_CHUNK)
 * is not encoded whole before the exchange: its chunks (lib/frame/frame.h,
 * compi_chunk_encode) are compressed one by one during it, each posted with
 * PMPI_Isend as soon as it is ready, destinations interleaved chunk by
 * chunk, while the receivers keep COMPI_COLL_SLOTS chunk receives posted per
 * source and decode each chunk straight into its place as it arrives. Cost:
 * about c + w + d + (n-1) max(c, w, d) instead of c + w + d.
 *
 * Agreement: the exchange's metadata step (the lengths the unpipelined
 * exchange sends anyway) carries per block its frame length or its chunk
 * size and length, and per sender whether it pipelines anything. When no
 * rank pipelines, the blocks travel as before (one alltoallv of frames);
 * when one does, every block goes point to point on a communicator
 * reserved for it (whole frames as one message, tag COMPI_COLL_TAG_WHOLE;
 * chunks in order, tag COMPI_COLL_TAG_CHUNK), so no rank waits in a
 * blocking collective while others stream. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

#define COMPI_COLL_SLOTS 4
#define COMPI_COLL_TAG_WHOLE 1
#define COMPI_COLL_TAG_CHUNK 2

int compi_coll_out_build(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy)
{
    memset(o, 0, sizeof *o);
    size_t size = (size_t)ti->size;
    compi_decide(&o->d, ci, peer, -1, ti, fam);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], size);
    if (compi_coll_pipelines() && compi_decision_needs_data(&o->d) &&
        size >= (size_t)2 << COMPI_CHUNK_LOG2_MIN) {
        const unsigned char *src = (const unsigned char *)buf + ti->true_lb;
        if (!ti->contiguous) {
            if (!(o->packed = malloc(size))) return MPI_ERR_NO_MEM;
            int rc = compi_pack_bytes(buf, count, dt, o->packed, size);
            if (rc != MPI_SUCCESS) { compi_coll_out_free(o); return rc; }
            src = o->packed;
        }
        size_t chunk;
        const compi_codec *codec = compi_decision_settle(&o->d, (const char *)src, ti, &chunk);
        if (codec && chunk) {
            unsigned log2 = 0;
            while (((size_t)1 << log2) < chunk) log2++;
            if (((size_t)1 << log2) != chunk || log2 < COMPI_CHUNK_LOG2_MIN || log2 > COMPI_CHUNK_LOG2_MAX) {
                compi_coll_out_free(o);
                return MPI_ERR_INTERN;
            }
            if (copy && !o->packed) {   /* the send data is overwritten during the exchange (in place) */
                if (!(o->packed = malloc(size))) { compi_coll_out_free(o); return MPI_ERR_NO_MEM; }
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
            if (!o->bufs || !o->blen) { compi_coll_out_free(o); return MPI_ERR_NO_MEM; }
            return MPI_SUCCESS;
        }
        free(o->packed);   /* whole after all: encoded from the application's buffer as before */
        o->packed = NULL;
    }
    return compi_frame_encode(buf, count, dt, ti, &o->d, &o->frame, &o->flen);
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

/* metadata per block: the frame length (whole) or -log2 of the chunk size */
enum { COMPI_META_LEN, COMPI_META_SIZE, COMPI_META_ANY, COMPI_META_INTS };

int compi_coll_exchange(MPI_Comm sub, MPI_Comm chunks, int same, int sparse, compi_coll_out *const out[],
                        const compi_coll_in in[], compi_coll_blocks *got, int *piped, const int *names,
                        MPI_Comm comm)
{
    int n, me;
    PMPI_Comm_size(sub, &n);
    PMPI_Comm_rank(sub, &me);
    int rc = MPI_SUCCESS;
    got->bytes = NULL;
    got->lens = malloc(sizeof(int) * (size_t)n);
    got->displs = malloc(sizeof(int) * (size_t)n);
    int *smeta = calloc((size_t)n * COMPI_META_INTS, sizeof(int));
    int *rmeta = calloc((size_t)n * COMPI_META_INTS, sizeof(int));
    if (!got->lens || !got->displs || !smeta || !rmeta) {
        free(smeta);
        free(rmeta);
        compi_coll_blocks_free(got);
        return MPI_ERR_NO_MEM;
    }
    int any = 0;
    for (int j = 0; j < n; j++) {
        compi_coll_out *o = out[j];
        int *m = smeta + (size_t)j * COMPI_META_INTS;
        if (!o) continue;
        if (o->chunk) {
            if (o->size > 0x7fffffff) compi_die("a pipelined collective block exceeds 2 GiB");
            m[COMPI_META_LEN] = -(int)o->log2;
            m[COMPI_META_SIZE] = (int)o->size;
            any = 1;
        } else {
            if (o->flen > 0x7fffffff) compi_die("a collective frame exceeds 2 GiB");
            m[COMPI_META_LEN] = (int)o->flen;
        }
    }
    for (int j = 0; j < n; j++) smeta[(size_t)j * COMPI_META_INTS + COMPI_META_ANY] = any;
    /* same: one block for every rank (allgather): each rank's metadata once */
    if (same) {
        int mine[COMPI_META_INTS] = {0, 0, any};
        for (int j = 0; j < n; j++)
            if (out[j]) { memcpy(mine, smeta + (size_t)j * COMPI_META_INTS, sizeof mine); break; }
        rc = PMPI_Allgather(mine, COMPI_META_INTS, MPI_INT, rmeta, COMPI_META_INTS, MPI_INT, sub);
        /* nothing to myself */
        rmeta[(size_t)me * COMPI_META_INTS + COMPI_META_LEN] = rmeta[(size_t)me * COMPI_META_INTS + COMPI_META_SIZE] = 0;
    } else {
        rc = PMPI_Alltoall(smeta, COMPI_META_INTS, MPI_INT, rmeta, COMPI_META_INTS, MPI_INT, sub);
    }
    int anyone = 0;
    long long total = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        const int *m = rmeta + (size_t)i * COMPI_META_INTS;
        anyone |= m[COMPI_META_ANY];
        got->lens[i] = m[COMPI_META_LEN] > 0 ? m[COMPI_META_LEN] : 0;
        got->displs[i] = (int)total;
        total += got->lens[i];
        piped[i] = m[COMPI_META_LEN] < 0;
    }
    if (total > 0x7fffffff) compi_die("collective blocks to receive exceed 2 GiB");
    if (rc == MPI_SUCCESS && !(got->bytes = malloc(total ? (size_t)total : 1))) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) goto fail;

    if (!anyone && sparse) {
        /* sparse, nothing pipelined: every block with one Isend from where it
         * lies, one Irecv per source that has one, then one Waitall (a
         * blocking wait, so oversubscribed ranks yield as in a collective) */
        if (chunks == MPI_COMM_NULL) compi_die("a point-to-point collective exchange without its communicator");
        MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)n);
        int nq = 0;
        if (!rq) rc = MPI_ERR_NO_MEM;
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
            if (got->lens[i] > 0)
                rc = PMPI_Irecv(got->bytes + got->displs[i], got->lens[i], MPI_BYTE, i, COMPI_COLL_TAG_WHOLE, chunks,
                                &rq[nq++]);
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
            if (out[j] && out[j]->flen)
                rc = PMPI_Isend(out[j]->frame ? out[j]->frame : out[j]->ref, (int)out[j]->flen, MPI_BYTE, j,
                                COMPI_COLL_TAG_WHOLE, chunks, &rq[nq++]);
        int wrc = nq ? PMPI_Waitall(nq, rq, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS) rc = wrc;
        free(rq);
        if (rc != MPI_SUCCESS) goto fail;
        free(smeta);
        free(rmeta);
        return MPI_SUCCESS;
    }
    if (!anyone) {
        /* nothing pipelined anywhere: one alltoallv of the whole blocks. With
         * same (an allgather), an alltoallv of one send block too, not an
         * allgatherv: measured on the emulated 100 Mbit/s link between two
         * MPICH 4.0 ranks, an allgather(v) of 4 MiB took 706 ms, a sendrecv
         * or an alltoallv of the same 4 MiB 384-397 ms (the allgather did
         * not use both directions of the link at once) */
        int *slens = calloc((size_t)n, sizeof(int)), *sdb = calloc((size_t)n, sizeof(int));
        unsigned char *sbytes = NULL;
        long long stotal = 0;
        for (int j = 0; j < n && slens && sdb; j++) {
            slens[j] = smeta[(size_t)j * COMPI_META_INTS + COMPI_META_LEN];
            /* same: the one frame, sent to every rank from one copy */
            sdb[j] = same ? 0 : (int)stotal;
            if (same) stotal = slens[j] > stotal ? slens[j] : stotal;
            else stotal += slens[j];
        }
        if (stotal > 0x7fffffff) compi_die("collective send blocks exceed 2 GiB");
        if (!slens || !sdb || !(sbytes = malloc(stotal ? (size_t)stotal : 1))) rc = MPI_ERR_NO_MEM;
        for (int j = 0, copied = 0; j < n && rc == MPI_SUCCESS; j++)
            if (slens[j] && !(same && copied++))
                memcpy(sbytes + sdb[j], out[j]->frame ? out[j]->frame : out[j]->ref, (size_t)slens[j]);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Alltoallv(sbytes, slens, sdb, MPI_BYTE, got->bytes, got->lens, got->displs, MPI_BYTE, sub);
        free(sbytes);
        free(slens);
        free(sdb);
        if (rc != MPI_SUCCESS) goto fail;
        free(smeta);
        free(rmeta);
        return MPI_SUCCESS;
    }

    /* point to point (something pipelined, or sparse: only the pairs with a
     * block, sent from where it lies): receives first (whole frames, then
     * chunk slots) */
    if (chunks == MPI_COMM_NULL) compi_die("a point-to-point collective exchange without its communicator");
    compi_coll_stream *st = calloc((size_t)n, sizeof *st);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    int *ridx = malloc(sizeof(int) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    MPI_Status *rst = malloc(sizeof(MPI_Status) * (size_t)n * (COMPI_COLL_SLOTS + 1));
    size_t nsreq = 0, maxk = 0;
    for (int j = 0; j < n; j++)
        if (out[j]) nsreq += out[j]->chunk ? out[j]->n : 1;
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (nsreq ? nsreq : 1));
    char why[320] = "";
    int bad_source = -1;
    if (!st || !rreq || !ridx || !rst || !sreq) {
        free(st); free(rreq); free(ridx); free(rst); free(sreq);
        rc = MPI_ERR_NO_MEM;
        goto fail;
    }
    const int nr = n * (COMPI_COLL_SLOTS + 1);   /* request i*(SLOTS+1): whole; then the slots */
    for (int r = 0; r < nr; r++) rreq[r] = MPI_REQUEST_NULL;
    /* messages still to arrive: whole frames, and the chunks still due */
    size_t pending = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        const int *m = rmeta + (size_t)i * COMPI_META_INTS;
        MPI_Request *q = rreq + (size_t)i * (COMPI_COLL_SLOTS + 1);
        if (got->lens[i] > 0) {
            rc = PMPI_Irecv(got->bytes + got->displs[i], got->lens[i], MPI_BYTE, i, COMPI_COLL_TAG_WHOLE, chunks, q);
            pending++;   /* a whole frame */
        }
        if (!piped[i] || rc != MPI_SUCCESS) continue;
        compi_coll_stream *s = &st[i];
        unsigned log2 = (unsigned)-m[COMPI_META_LEN];
        s->size = (size_t)(unsigned)m[COMPI_META_SIZE];
        if (log2 < COMPI_CHUNK_LOG2_MIN || log2 > COMPI_CHUNK_LOG2_MAX) compi_die("collective metadata damaged");
        s->chunk = (size_t)1 << log2;
        s->n = s->due = compi_chunk_count(s->size, log2);
        s->dst = in[i].dst;
        if (s->size != in[i].size) {
            snprintf(why, sizeof why, "a pipelined block of %zu bytes from rank %d where %zu bytes were due "
                     "(type signatures differ)", s->size, names ? names[i] : i, in[i].size);
            bad_source = i;
            s->bad = 1;
        }
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
    /* sends: whole frames at once, chunks round by round over the destinations */
    size_t ns = 0;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
        compi_coll_out *o = out[j];
        if (!o) continue;
        if (o->chunk) {
            if (o->n > maxk) maxk = o->n;
        } else if (o->flen) {
            rc = PMPI_Isend(o->frame ? o->frame : o->ref, (int)o->flen, MPI_BYTE, j, COMPI_COLL_TAG_WHOLE, chunks,
                            &sreq[ns++]);
        }
    }
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
    if (ns) {
        int wrc = PMPI_Waitall((int)ns, sreq, MPI_STATUSES_IGNORE);
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
    free(smeta);
    free(rmeta);
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
fail:
    free(smeta);
    free(rmeta);
    compi_coll_blocks_free(got);
    return rc;
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

int compi_coll_xfer_expect(compi_coll_xfer *x, int i, size_t size, unsigned char *dst)
{
    x->in[i].size = size;
    if (!dst && !(dst = x->stage[i] = malloc(size ? size : 1))) return MPI_ERR_NO_MEM;
    x->in[i].dst = dst;
    return MPI_SUCCESS;
}

int compi_coll_xfer_run(compi_coll_xfer *x, MPI_Comm sub, MPI_Comm chunks, int same, const int *names, MPI_Comm comm)
{
    return compi_coll_exchange(sub, chunks, same, x->sparse, x->out, x->in, &x->got, x->piped, names, comm);
}

int compi_coll_xfer_deliver(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt, int source,
                            MPI_Comm comm)
{
    if (x->piped[i]) return x->stage[i] ? compi_unpack_bytes(x->stage[i], x->in[i].size, dst, count, dt) : MPI_SUCCESS;
    if (x->got.lens[i] <= 0) return MPI_SUCCESS;
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = source;
    return compi_frame_deliver(x->got.bytes + x->got.displs[i], (size_t)x->got.lens[i], dst, count, dt, &st, comm);
}
