/* SPDX-License-Identifier: BSD-3-Clause */
/* One cycle of compi's two-phase collective I/O: every process's pieces in
 * each aggregator's window travel to it (writes) or back from it (reads),
 * and the aggregator writes (reads) the runs of bytes they cover. */
#include "io/twophase_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define COMPI_IO_READ_GAP ((int64_t)64 << 10) /* reads: runs this close are read as one */

/* Window of domain k in cycle c. */
static void compi_io_window(const compi_io_call *c, int k, int64_t cyc, int64_t *lo, int64_t *hi)
{
    *lo = c->d.begin[k] + cyc * c->cb;
    *hi = *lo + c->cb < c->d.stop[k] ? *lo + c->cb : c->d.stop[k];
    if (*lo > *hi) *lo = *hi;
}

/* My pieces in [lo, hi): calls fn(arg, off, len, stream position) for each, in order. */
typedef void (*compi_io_piece_fn)(void *arg, int64_t off, int64_t len, int64_t spos);
static void compi_io_pieces(const compi_io_call *c, int64_t lo, int64_t hi, compi_io_piece_fn fn, void *arg)
{
    if (lo >= hi || c->fs.n == 0) return;
    size_t a = 0, b = c->fs.n; /* first segment ending after lo */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (c->fs.v[m].off + c->fs.v[m].len <= lo) a = m + 1;
        else b = m;
    }
    for (size_t i = a; i < c->fs.n && c->fs.v[i].off < hi; i++) {
        int64_t s = c->fs.v[i].off > lo ? c->fs.v[i].off : lo;
        int64_t e = c->fs.v[i].off + c->fs.v[i].len < hi ? c->fs.v[i].off + c->fs.v[i].len : hi;
        if (e > s) fn(arg, s, e - s, c->spos[i] + (s - c->fs.v[i].off));
    }
}

typedef struct {
    int64_t n, bytes;
} compi_io_tally;
static void compi_io_tally_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off;
    (void)spos;
    compi_io_tally *t = arg;
    t->n++;
    t->bytes += len;
}

/* A message under construction: the piece list (compact, lib/io/plist.c),
 * then (writes) the bytes. */
typedef struct {
    compi_io_plist pl;
    int rc;
} compi_io_meta;
static void compi_io_meta_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)spos;
    compi_io_meta *m = arg;
    if (m->rc == COMPI_OK) m->rc = compi_io_plist_add(&m->pl, off, len);
}
typedef struct {
    unsigned char *data;
    const unsigned char *stream;
} compi_io_fill;
static void compi_io_fill_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off;
    compi_io_fill *w = arg;
    memcpy(w->data, w->stream + spos, (size_t)len);
    w->data += len;
}

/* The piece list of my pieces in [lo, hi), finished; *size its bytes. */
static void compi_io_meta_build(const compi_io_call *c, int64_t lo, int64_t hi, compi_io_meta *m)
{
    compi_io_plist_init(&m->pl, lo);
    m->rc = COMPI_OK;
    compi_io_pieces(c, lo, hi, compi_io_meta_fn, m);
    if (m->rc == COMPI_OK) m->rc = compi_io_plist_finish(&m->pl);
    if (m->rc != COMPI_OK) compi_die("out of memory in collective I/O (piece list)");
}

/* The reply of an aggregator, copied to my stream in request order. */
typedef struct {
    unsigned char *stream;
    const unsigned char *data;
} compi_io_take;
static void compi_io_take_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off;
    compi_io_take *t = arg;
    memcpy(t->stream + spos, t->data, (size_t)len);
    t->data += len;
}

static int compi_io_remote(const compi_io_call *c, int p)
{
    return c->node_of[p] != c->node_of[c->me];
}

/* Counts one redistribution message of `bytes` data bytes and `meta` piece
 * list bytes to p, `wire` on the wire. */
static void compi_io_count(compi_io_call *c, int p, int64_t bytes, int64_t meta, size_t wire)
{
    compi_io_stats *st = &c->f->st;
    if (p == c->me) {
        st->local += (uint64_t)bytes;
        return;
    }
    st->meta += (uint64_t)meta;
    if (compi_io_remote(c, p)) {
        st->inter += (uint64_t)bytes;
        st->msgs_inter++;
        st->wire_inter += wire;
        st->meta_inter += (uint64_t)meta;
    } else {
        st->intra += (uint64_t)bytes;
        st->msgs_intra++;
    }
}

/* One exchange of messages msgs[p] (lens[p] bytes; NULL/0: none) with
 * every process, through the collective layer's exchange (lib/coll/pipex.c:
 * lengths first, then point to point with only the processes that
 * have a message, each sent from where it lies) on the file's duplicate
 * communicator; inter-node ones as compi frames. A message to myself is
 * never sent: the caller handles its own part in place. Frees msgs[p];
 * x->got holds what arrived (compi_coll_xfer_free). */
static int compi_io_exchange(compi_io_call *c, unsigned char **msgs, size_t *lens, const int64_t *data_bytes,
                             const int64_t *meta_bytes, compi_coll_xfer *x)
{
    int rc = MPI_SUCCESS;
    compi_coll_out *outs = calloc((size_t)c->n, sizeof *outs);
    if (!outs || compi_coll_xfer_init(x, c->n) != MPI_SUCCESS) compi_die("out of memory in collective I/O");
    for (int p = 0; p < c->n; p++) {
        if (!msgs[p] || lens[p] == 0 || p == c->me) continue;
        compi_coll_out *o = &outs[p];
        if (c->frames && compi_io_remote(c, p)) {
            int erc = compi_coll_encode(c->f->ci, p, COMPI_FAM_IO, msgs[p], lens[p], &c->elem, &o->frame, &o->flen);
            if (erc != MPI_SUCCESS) {
                rc = erc;
                break;
            }
        } else {
            o->ref = msgs[p];
            o->flen = lens[p];
        }
        compi_io_count(c, p, data_bytes ? data_bytes[p] : 0, meta_bytes ? meta_bytes[p] : 0, o->flen);
        x->out[p] = o;
    }
    /* an encoding failure still takes part in the exchange (nothing sent) */
    if (rc != MPI_SUCCESS)
        for (int p = 0; p < c->n; p++) x->out[p] = NULL;
    int xrc = compi_coll_xfer_run(x, c->f->comm, c->f->comm, 0, NULL, c->f->comm);
    for (int p = 0; p < c->n; p++) {
        free(outs[p].frame);
        free(msgs[p]);
        msgs[p] = NULL;
    }
    free(outs);
    return rc != MPI_SUCCESS ? rc : xrc;
}

/* Block i of in as plain bytes: decoded when it is a frame (*owned set). */
static int compi_io_block(compi_io_call *c, const compi_coll_blocks *in, int i, const unsigned char **p, size_t *n,
                          unsigned char **owned)
{
    *owned = NULL;
    *p = in->bytes + in->displs[i];
    *n = (size_t)in->lens[i];
    if (*n == 0 || !c->frames || !compi_io_remote(c, i)) return MPI_SUCCESS;
    compi_frame_header h;
    char why[200];
    if (compi_frame_read_header(*p, *n, &h, why, sizeof why) != COMPI_OK) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = i;
        return compi_frame_fail(c->f->comm, &st, why);
    }
    unsigned char *b = malloc(h.original_len ? (size_t)h.original_len : 1);
    if (!b) compi_die("out of memory in collective I/O");
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = i;
    int rc;
    if (compi_fits_int(h.original_len)) {
        rc = compi_frame_deliver(*p, *n, b, (int)h.original_len, MPI_BYTE, &st, c->f->comm);
    } else { /* beyond an int count: the MPI-free decoder, no MPI datatype involved */
        rc = compi_frame_decode_whole(*p, *n, b, (size_t)h.original_len, &h, why, sizeof why) == COMPI_OK
                 ? MPI_SUCCESS
                 : compi_frame_fail(c->f->comm, &st, why);
    }
    if (rc != MPI_SUCCESS) {
        free(b);
        return rc;
    }
    *owned = b;
    *p = b;
    *n = (size_t)h.original_len;
    return MPI_SUCCESS;
}

static int compi_io_seg_cmp(const void *x, const void *y)
{
    const compi_io_seg *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Sorted pieces merged into runs (gap: pieces this close join one run). */
static size_t compi_io_runs(compi_io_seg *v, size_t n, int64_t gap)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, compi_io_seg_cmp);
    size_t r = 0;
    for (size_t i = 1; i < n; i++) {
        int64_t end = v[r].off + v[r].len;
        if (v[i].off <= end + gap) {
            if (v[i].off + v[i].len > end) v[r].len = v[i].off + v[i].len - v[r].off;
        } else {
            v[++r] = v[i];
        }
    }
    return r + 1;
}

/* Checks a message: a piece list inside [lo, hi), then (with_data) exactly
 * its bytes. *data: where they start. */
static int compi_io_parse(const unsigned char *p, size_t n, int64_t lo, int64_t hi, int with_data, int64_t *np,
                          int64_t *bytes, const unsigned char **data)
{
    size_t used = 0;
    if (compi_io_plist_parse(p, n, lo, hi, NULL, NULL, np, bytes, &used) != COMPI_OK) return 0;
    *data = p + used;
    return n - used == (with_data ? (size_t)*bytes : 0);
}

static void compi_io_pieces_grow(compi_io_seg **v, size_t *n, size_t *cap, int64_t off, int64_t len)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        compi_io_seg *nv = realloc(*v, *cap * sizeof **v);
        if (!nv) compi_die("out of memory in collective I/O");
        *v = nv;
    }
    (*v)[*n].off = off;
    (*v)[(*n)++].len = len;
}

static int compi_io_internal(compi_io_call *c, int src, const char *what)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = src;
    return compi_frame_fail(c->f->comm, &st, what);
}

/* An aggregator takes a writer's pieces: bytes into the cycle buffer, pieces into the run list. */
typedef struct {
    unsigned char *cbuf;
    int64_t lo;
    const unsigned char *data;
    compi_io_seg **pv;
    size_t *pn, *pcap;
} compi_io_put;
static void compi_io_put_fn(void *arg, int64_t off, int64_t len)
{
    compi_io_put *u = arg;
    if (u->cbuf) {
        memcpy(u->cbuf + (off - u->lo), u->data, (size_t)len);
        u->data += len;
    }
    compi_io_pieces_grow(u->pv, u->pn, u->pcap, off, len);
}

/* An aggregator's own pieces, straight from its stream into the cycle buffer. */
typedef struct {
    const compi_io_call *c;
    unsigned char *cbuf;
    int64_t lo;
    compi_io_seg **pv;
    size_t *pn, *pcap;
    int64_t bytes;
} compi_io_own;
static void compi_io_own_put_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    compi_io_own *u = arg;
    if (u->cbuf) memcpy(u->cbuf + (off - u->lo), u->c->stream + spos, (size_t)len);
    compi_io_pieces_grow(u->pv, u->pn, u->pcap, off, len);
    u->bytes += len;
}
/* ... and back (reads), once the cycle buffer holds them. */
static void compi_io_own_get_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    compi_io_own *u = arg;
    memcpy(u->c->stream + spos, u->cbuf + (off - u->lo), (size_t)len);
}

/* One cycle's messages to every process: msgs[p] (lens[p] bytes; NULL:
 * none), of which dbytes[p] data and mbytes[p] piece list. */
typedef struct {
    unsigned char **msgs;
    size_t *lens;
    int64_t *dbytes, *mbytes;
} compi_io_outbox;

static void compi_io_outbox_init(compi_io_outbox *o, int n)
{
    o->msgs = calloc((size_t)n, sizeof *o->msgs);
    o->lens = calloc((size_t)n, sizeof *o->lens);
    o->dbytes = calloc((size_t)n, sizeof(int64_t));
    o->mbytes = calloc((size_t)n, sizeof(int64_t));
    if (!o->msgs || !o->lens || !o->dbytes || !o->mbytes) compi_die("out of memory in collective I/O");
}

static void compi_io_outbox_free(compi_io_outbox *o)
{
    free(o->msgs);
    free(o->lens);
    free(o->dbytes);
    free(o->mbytes);
}

/* My message to each aggregator of another domain for its window in cycle
 * cyc: my piece list, then (with_data: writes) my bytes. My own domain's
 * pieces travel in no message. */
static void compi_io_to_aggregators(compi_io_call *c, int64_t cyc, int with_data, compi_io_outbox *o)
{
    for (int k = 0; k < c->d.n; k++) {
        if (c->agg[k] == c->me) continue;
        int64_t lo, hi;
        compi_io_window(c, k, cyc, &lo, &hi);
        compi_io_meta meta;
        compi_io_meta_build(c, lo, hi, &meta);
        if (meta.pl.n == 0) {
            compi_io_plist_free(&meta.pl);
            continue;
        }
        int a = c->agg[k];
        size_t msize = compi_io_plist_size(&meta.pl), size = msize + (with_data ? (size_t)meta.pl.bytes : 0);
        unsigned char *m = malloc(size);
        if (!m) compi_die("out of memory in collective I/O");
        compi_io_plist_write(&meta.pl, m);
        if (with_data) {
            compi_io_fill w = {m + msize, c->stream};
            compi_io_pieces(c, lo, hi, compi_io_fill_fn, &w);
            o->dbytes[a] = meta.pl.bytes;
        }
        o->msgs[a] = m;
        o->lens[a] = size;
        o->mbytes[a] = (int64_t)msize;
        compi_io_plist_free(&meta.pl);
    }
}

void compi_io_write_cycle(compi_io_call *c, int64_t cyc)
{
    compi_io_outbox o;
    compi_io_outbox_init(&o, c->n);
    unsigned char **msgs = o.msgs;
    size_t *lens = o.lens;
    int64_t *dbytes = o.dbytes, *mbytes = o.mbytes;
    uint64_t t0 = compi_now_ns();
    compi_io_to_aggregators(c, cyc, 1, &o); /* my own domain: my pieces go straight to the cycle buffer */
    compi_coll_xfer x;
    int rc = compi_io_exchange(c, msgs, lens, dbytes, mbytes, &x);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    if (c->mydom >= 0 && rc == MPI_SUCCESS) {
        int64_t lo, hi;
        compi_io_window(c, c->mydom, cyc, &lo, &hi);
        compi_io_seg *pv = NULL;
        size_t pn = 0, pcap = 0;
        /* senders in rank order: where processes wrote the same byte, the
         * highest rank's stays (MPI leaves it undefined; ROMIO does this) */
        for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
            if (i == c->me) {
                compi_io_own own = {c, c->cbuf, lo, &pv, &pn, &pcap, 0};
                compi_io_pieces(c, lo, hi, compi_io_own_put_fn, &own);
                if (own.bytes) compi_io_count(c, c->me, own.bytes, 0, 0);
                continue;
            }
            const unsigned char *p, *data;
            size_t len;
            unsigned char *owned;
            if (x.got.lens[i] == 0) continue;
            if ((rc = compi_io_block(c, &x.got, i, &p, &len, &owned)) != MPI_SUCCESS) {
                c->rc = rc;
                break;
            }
            int64_t np, nb;
            if (!compi_io_parse(p, len, lo, hi, 1, &np, &nb, &data)) {
                c->rc = compi_io_internal(c, i, "a collective I/O message does not match the aggregator's window");
                free(owned);
                break;
            }
            compi_io_put put = {c->cbuf, lo, data, &pv, &pn, &pcap};
            compi_io_plist_parse(p, len, lo, hi, compi_io_put_fn, &put, NULL, NULL, NULL);
            free(owned);
        }
        uint64_t t1 = compi_now_ns();
        c->f->st.ns[COMPI_IO_T_EXCHANGE] += t1 - t0;
        t0 = t1;
        /* only the bytes processes wrote: each contiguous run once */
        size_t nr = c->rc == MPI_SUCCESS ? compi_io_runs(pv, pn, 0) : 0;
        if (nr > 0 && (rc = compi_io_open_raw(c->f)) != MPI_SUCCESS) c->rc = rc;
        for (size_t r = 0; r < nr && c->rc == MPI_SUCCESS; r++) {
            MPI_Status st;
            int wrc = PMPI_File_write_at(c->f->raw, (MPI_Offset)pv[r].off, c->cbuf + (pv[r].off - lo), (int)pv[r].len,
                                         MPI_BYTE, &st);
            c->f->st.io_runs++;
            if (wrc != MPI_SUCCESS) c->rc = wrc;
        }
        c->f->st.ns[COMPI_IO_T_IO] += compi_now_ns() - t0;
        free(pv);
    } else {
        c->f->st.ns[COMPI_IO_T_EXCHANGE] += compi_now_ns() - t0;
    }
    compi_coll_xfer_free(&x);
    compi_io_outbox_free(&o);
}

/* An aggregator answers a reader: the bytes of its pieces, in its order. */
typedef struct {
    const unsigned char *cbuf;
    int64_t lo;
    unsigned char *out;
} compi_io_get;
static void compi_io_get_fn(void *arg, int64_t off, int64_t len)
{
    compi_io_get *g = arg;
    memcpy(g->out, g->cbuf + (off - g->lo), (size_t)len);
    g->out += len;
}

/* Step 2 of a read cycle, on an aggregator: the runs the requests ask for
 * read, the answers (each process's pieces, in its order) put in o; the
 * stage times counted from *t0 on. */
static void compi_io_serve_reads(compi_io_call *c, int64_t cyc, const compi_coll_xfer *req, compi_io_outbox *o,
                                 uint64_t *t0_io)
{
    unsigned char **msgs = o->msgs;
    size_t *lens = o->lens;
    int64_t *dbytes = o->dbytes;
    uint64_t t0 = *t0_io;
    int rc;
    int64_t lo, hi;
    compi_io_window(c, c->mydom, cyc, &lo, &hi);
    compi_io_seg *pv = NULL;
    size_t pn = 0, pcap = 0;
    const unsigned char **reqp = calloc((size_t)c->n, sizeof *reqp);
    unsigned char **owned = calloc((size_t)c->n, sizeof *owned);
    size_t *reql = calloc((size_t)c->n, sizeof *reql);
    if (!reqp || !owned || !reql) compi_die("out of memory in collective I/O");
    int64_t own_bytes = 0;
    for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
        const unsigned char *p, *data;
        size_t len;
        int64_t np, nb;
        if (i == c->me) { /* my own pieces of my domain: runs to read, no request */
            compi_io_own own = {c, NULL, lo, &pv, &pn, &pcap, 0};
            compi_io_pieces(c, lo, hi, compi_io_own_put_fn, &own);
            own_bytes = own.bytes;
            continue;
        }
        if (req->got.lens[i] == 0) continue;
        if ((rc = compi_io_block(c, &req->got, i, &p, &len, &owned[i])) != MPI_SUCCESS) {
            c->rc = rc;
            break;
        }
        if (!compi_io_parse(p, len, lo, hi, 0, &np, &nb, &data)) {
            c->rc = compi_io_internal(c, i, "a collective I/O request does not match the aggregator's window");
            break;
        }
        reqp[i] = p;
        reql[i] = len;
        dbytes[i] = nb;
        compi_io_put put = {NULL, lo, NULL, &pv, &pn, &pcap};
        compi_io_plist_parse(p, len, lo, hi, compi_io_put_fn, &put, NULL, NULL, NULL);
    }
    uint64_t t1 = compi_now_ns();
    c->f->st.ns[COMPI_IO_T_EXCHANGE] += t1 - t0;
    t0 = t1;
    size_t nr = c->rc == MPI_SUCCESS ? compi_io_runs(pv, pn, COMPI_IO_READ_GAP) : 0;
    if (nr > 0 && (rc = compi_io_open_raw(c->f)) != MPI_SUCCESS) c->rc = rc;
    for (size_t r = 0; r < nr && c->rc == MPI_SUCCESS; r++) {
        MPI_Status st;
        int got = 0;
        int rrc = PMPI_File_read_at(c->f->raw, (MPI_Offset)pv[r].off, c->cbuf + (pv[r].off - lo), (int)pv[r].len,
                                    MPI_BYTE, &st);
        c->f->st.io_runs++;
        if (rrc == MPI_SUCCESS) PMPI_Get_count(&st, MPI_BYTE, &got);
        if (rrc != MPI_SUCCESS) c->rc = rrc;
        else if (got != (int)pv[r].len) {
            /* the file got shorter since the size was checked: a read past its end */
            c->rc = compi_io_internal(c, c->me, "collective I/O: the file ended before the bytes asked for");
        }
    }
    uint64_t t2 = compi_now_ns();
    c->f->st.ns[COMPI_IO_T_IO] += t2 - t0;
    t0 = t2;
    if (c->rc == MPI_SUCCESS && own_bytes) { /* my own pieces, from the cycle buffer to my stream */
        compi_io_own own = {c, c->cbuf, lo, NULL, NULL, NULL, 0};
        compi_io_pieces(c, lo, hi, compi_io_own_get_fn, &own);
        compi_io_count(c, c->me, own_bytes, 0, 0);
    }
    for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
        if (!reqp[i] || dbytes[i] == 0) continue;
        unsigned char *m = malloc((size_t)dbytes[i]);
        if (!m) compi_die("out of memory in collective I/O");
        compi_io_get get = {c->cbuf, lo, m};
        compi_io_plist_parse(reqp[i], reql[i], lo, hi, compi_io_get_fn, &get, NULL, NULL, NULL);
        msgs[i] = m;
        lens[i] = (size_t)dbytes[i];
    }
    if (c->rc != MPI_SUCCESS) /* nothing half-answered */
        for (int i = 0; i < c->n; i++) {
            free(msgs[i]);
            msgs[i] = NULL;
            lens[i] = 0;
        }
    for (int i = 0; i < c->n; i++) free(owned[i]);
    free(owned);
    free(reqp);
    free(reql);
    free(pv);
    *t0_io = t0;
}

void compi_io_read_cycle(compi_io_call *c, int64_t cyc)
{
    compi_io_outbox o;
    compi_io_outbox_init(&o, c->n);
    unsigned char **msgs = o.msgs;
    size_t *lens = o.lens;
    int64_t *dbytes = o.dbytes, *mbytes = o.mbytes;
    uint64_t t0 = compi_now_ns();
    /* 1: requests (piece lists) to the aggregators; my own domain's pieces need none */
    compi_io_to_aggregators(c, cyc, 0, &o);
    compi_coll_xfer req, rep;
    memset(&rep, 0, sizeof rep);
    int rc = compi_io_exchange(c, msgs, lens, NULL, mbytes, &req);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    /* 2: the aggregator reads the runs asked for and answers each process */
    memset(lens, 0, sizeof *lens * (size_t)c->n);
    if (c->mydom >= 0 && rc == MPI_SUCCESS) compi_io_serve_reads(c, cyc, &req, &o, &t0);
    rc = compi_io_exchange(c, msgs, lens, dbytes, NULL, &rep);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    /* 3: my pieces from each other aggregator's reply, in the order asked */
    for (int k = 0; k < c->d.n && rc == MPI_SUCCESS; k++) {
        int a = c->agg[k];
        if (a == c->me) continue; /* taken from my cycle buffer above */
        int64_t lo, hi;
        compi_io_window(c, k, cyc, &lo, &hi);
        compi_io_tally t = {0, 0};
        compi_io_pieces(c, lo, hi, compi_io_tally_fn, &t);
        if (t.n == 0) continue;
        const unsigned char *p;
        size_t len;
        unsigned char *own;
        if (rep.got.lens[a] == 0) { /* the aggregator failed: its error comes back in the final agreement */
            if (c->rc == MPI_SUCCESS) c->rc = MPI_ERR_IO;
            continue;
        }
        if ((rc = compi_io_block(c, &rep.got, a, &p, &len, &own)) != MPI_SUCCESS) {
            c->rc = rc;
            break;
        }
        if (len != (size_t)t.bytes) {
            c->rc = compi_io_internal(c, a, "a collective I/O reply has the wrong length");
            free(own);
            break;
        }
        compi_io_take tk = {c->stream, p};
        compi_io_pieces(c, lo, hi, compi_io_take_fn, &tk);
        free(own);
    }
    c->f->st.ns[COMPI_IO_T_EXCHANGE] += compi_now_ns() - t0;
    compi_coll_xfer_free(&req);
    compi_coll_xfer_free(&rep);
    compi_io_outbox_free(&o);
}
