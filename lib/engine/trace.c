/* SPDX-License-Identifier: BSD-3-Clause */
/* Message traces (COMPI_MODE=trace) and guided rules (COMPI_MODE=guided).
 * Formats are documented in docs/guided.md; the layout constants below are
 * the binary format's definition.
 *
 * Trace file, all integers little-endian:
 *   header  (TR_HDR_LEN bytes): "COMPITRC", u32 version, u32 header length,
 *           i32 rank, i32 world size, u64 cap, u32 sample max, u32 slice,
 *           u32 samples per key, u32 0, char program[256], char node[64],
 *           u32 CRC-32 of everything before it
 *   chunks: u32 type, u32 payload length, payload, u32 CRC-32 of type,
 *           length and payload. In order: at most one ALGS (the
 *           collective algorithms in force, text), any number of SMPL, at
 *           most one PROF (the communication profile, engine/commprof.h),
 *           one INDX, one SUMM, end of file. Version 1 files (no ALGS/PROF)
 *           are still read. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <zlib.h>
#include "common/errf.h"
#include "common/safefile.h"
#include "codecs/codec_util.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "engine/window.h"

/* ------------------------------------------------------------- helpers */


/* CRC-32 (IEEE, zlib's), continued from crc (start with 0). */
static uint32_t tr_crc32(uint32_t crc, const void *buf, size_t len)
{
    return (uint32_t)crc32_z(crc, buf, len);
}

static uint64_t tr_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t compi_trace_key(const compi_trace_msg *m)
{
    /* FNV-1a over a fixed little-endian layout, then a finalizer so that
     * keys differing in one field differ in every bit position. */
    uint8_t b[26];
    compi_store_le32(b, m->comm_id);
    compi_store_le32(b + 4, (uint32_t)m->peer);
    compi_store_le32(b + 8, (uint32_t)m->tag);
    b[12] = m->dtclass;
    b[13] = m->family;
    compi_store_le64(b + 14, m->size);
    memset(b + 22, 0, 4);
    return tr_mix64(compi_fnv1a64(COMPI_FNV64_INIT, b, sizeof b));
}

int compi_trace_path(char *buf, size_t len, const char *dir, int rank)
{
    return snprintf(buf, len, "%s/trace.%d.bin", dir, rank);
}

int compi_rules_path(char *buf, size_t len, const char *dir, int rank)
{
    return snprintf(buf, len, "%s/rules.%d.txt", dir, rank);
}

/* ------------------------------------------------------------- layout */

#define TR_MAGIC "COMPITRC"
#define TR_VERSION 2u
#define TR_ALGS_MAX (1u << 20)
#define TR_HDR_CRC_OFF 368
#define TR_HDR_LEN (TR_HDR_CRC_OFF + 4)
#define TR_CHUNK_OVH 12u                 /* type, length, crc */
#define TR_SMPL_FIXED 28u                /* key, seq, occurrence, nslices, len */
#define TR_INDX_ENTRY 116u
#define TR_SUMM_LEN 96u
#define TR_MAX_KEYS (1u << 24)
#define TR_MAX_CAND 16
#define TR_OCC 4                         /* latest occurrences kept per key */

#define TR_FOURCC(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TR_SMPL TR_FOURCC('S', 'M', 'P', 'L')
#define TR_INDX TR_FOURCC('I', 'N', 'D', 'X')
#define TR_SUMM TR_FOURCC('S', 'U', 'M', 'M')
#define TR_ALGS TR_FOURCC('A', 'L', 'G', 'S')
#define TR_PROF TR_FOURCC('P', 'R', 'O', 'F')

static uint64_t tr_index_size(uint64_t nkeys) { return TR_CHUNK_OVH + 8 + nkeys * TR_INDX_ENTRY; }
static uint64_t tr_summ_size(void) { return TR_CHUNK_OVH + TR_SUMM_LEN; }

size_t compi_trace_min_cap(void) { return (size_t)(TR_HDR_LEN + tr_index_size(0) + tr_summ_size()); }

static size_t tr_norm_elem(size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 ? e : 1; }

/* ------------------------------------------------------------- writer */

typedef struct {
    uint64_t key;
    compi_trace_msg msg;
    uint64_t count;
    uint32_t nsamples;
    unsigned nocc;
    uint64_t occ[TR_OCC];   /* latest positions, most recent first */
} tr_wentry;

struct compi_trace_writer {
    pthread_mutex_t lock;
    FILE *f;
    char path[4096];
    size_t cap;
    int samples_stopped;
    int chunks_written;        /* any chunk after the header (ALGS must come first) */
    int profile_written;
    compi_trace_stats st;
    /* keys: entries in first-occurrence order + open-addressing table of index+1 */
    tr_wentry *entries;
    size_t nentries, entries_cap;
    uint32_t *table;
    size_t table_cap;          /* power of two */
    /* cycle detection */
    uint64_t *hist;            /* ring of the latest COMPI_TRACE_MAX_PERIOD keys */
    struct { uint64_t period, run; } cand[TR_MAX_CAND];
    int ncand;
    uint8_t scratch[TR_CHUNK_OVH + TR_SMPL_FIXED + COMPI_TRACE_SAMPLE_MAX];
};

static void tr_write(compi_trace_writer *w, const void *p, size_t n)
{
    if (w->st.write_error) return;
    if (n && fwrite(p, 1, n, w->f) != n) {
        w->st.write_error = errno ? errno : EIO;
        return;
    }
    w->st.file_bytes += n;
}

compi_trace_writer *compi_trace_open(const char *dir, int rank, int world_size, const char *program,
                                     const char *my_node, size_t cap_bytes, char *err, size_t errlen)
{
    if (!dir || !program || !my_node) { compi_errf(err, errlen, "trace: missing directory, program or node name"); return NULL; }
    if (rank < 0 || world_size < 1 || rank >= world_size) {
        compi_errf(err, errlen, "trace: rank %d out of range for %d ranks", rank, world_size);
        return NULL;
    }
    if (cap_bytes == 0) cap_bytes = COMPI_TRACE_DEFAULT_CAP;
    if (cap_bytes < compi_trace_min_cap()) {
        compi_errf(err, errlen, "trace: cap of %zu bytes is below the minimum of %zu", cap_bytes, compi_trace_min_cap());
        return NULL;
    }
    /* traces hold samples of message contents: a directory compi makes for
     * them, and every trace file, is its user's alone */
    if (compi_dir_create(dir, 0700, err, errlen) != COMPI_OK) return NULL;
    compi_trace_writer *w = calloc(1, sizeof *w);
    if (!w) { compi_errf(err, errlen, "trace: out of memory"); return NULL; }
    w->hist = malloc(sizeof(uint64_t) * COMPI_TRACE_MAX_PERIOD);
    w->table_cap = 1024;
    w->table = calloc(w->table_cap, sizeof *w->table);
    if (!w->hist || !w->table) {
        free(w->hist); free(w->table); free(w);
        compi_errf(err, errlen, "trace: out of memory");
        return NULL;
    }
    w->cap = cap_bytes;
    if ((size_t)compi_trace_path(w->path, sizeof w->path, dir, rank) >= sizeof w->path) {
        free(w->hist); free(w->table); free(w);
        compi_errf(err, errlen, "trace: directory name too long");
        return NULL;
    }
    compi_wfile wf;
    if (compi_file_create(&wf, w->path, 0600, COMPI_FILE_IN_PLACE | COMPI_FILE_PRIVATE, err, errlen) != COMPI_OK) {
        free(w->hist); free(w->table); free(w);
        return NULL;
    }
    w->f = wf.f;
    pthread_mutex_init(&w->lock, NULL);

    uint8_t h[TR_HDR_LEN];
    memset(h, 0, sizeof h);
    memcpy(h, TR_MAGIC, 8);
    compi_store_le32(h + 8, TR_VERSION);
    compi_store_le32(h + 12, TR_HDR_LEN);
    compi_store_le32(h + 16, (uint32_t)rank);
    compi_store_le32(h + 20, (uint32_t)world_size);
    compi_store_le64(h + 24, cap_bytes);
    compi_store_le32(h + 32, COMPI_TRACE_SAMPLE_MAX);
    compi_store_le32(h + 36, COMPI_TRACE_SLICE);
    compi_store_le32(h + 40, COMPI_TRACE_SAMPLES_PER_KEY);
    snprintf((char *)h + 48, COMPI_TRACE_PROGRAM_MAX, "%s", program);
    snprintf((char *)h + 304, COMPI_TRACE_NODE_MAX, "%s", my_node);
    compi_store_le32(h + TR_HDR_CRC_OFF, tr_crc32(0, h, TR_HDR_CRC_OFF));
    tr_write(w, h, sizeof h);
    if (w->st.write_error) {
        compi_errf(err, errlen, "%s: write failed: %s", w->path, strerror(w->st.write_error));
        fclose(w->f);
        pthread_mutex_destroy(&w->lock);
        free(w->hist); free(w->table); free(w);
        return NULL;
    }
    return w;
}

static int tr_table_grow(compi_trace_writer *w)
{
    size_t ncap = w->table_cap * 2;
    uint32_t *t = calloc(ncap, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < w->nentries; i++) {
        size_t h = (size_t)w->entries[i].key & (ncap - 1);
        while (t[h]) h = (h + 1) & (ncap - 1);
        t[h] = (uint32_t)(i + 1);
    }
    free(w->table);
    w->table = t;
    w->table_cap = ncap;
    return 0;
}

/* The key's entry, added if the file has room for one more index entry;
 * NULL if untracked. */
static tr_wentry *tr_entry(compi_trace_writer *w, uint64_t key, const compi_trace_msg *m)
{
    size_t h = (size_t)key & (w->table_cap - 1);
    while (w->table[h]) {
        tr_wentry *e = &w->entries[w->table[h] - 1];
        if (e->key == key) return e;
        h = (h + 1) & (w->table_cap - 1);
    }
    if (w->nentries >= TR_MAX_KEYS || w->nentries + 2 > w->table_cap ||   /* (a failed table growth) */
        w->st.file_bytes + tr_index_size(w->nentries + 1) + tr_summ_size() > w->cap) {
        w->st.cap_reached = 1;
        return NULL;
    }
    if (w->nentries == w->entries_cap) {
        size_t ncap = w->entries_cap ? w->entries_cap * 2 : 64;
        tr_wentry *g = realloc(w->entries, ncap * sizeof *g);
        if (!g) return NULL;
        w->entries = g;
        w->entries_cap = ncap;
    }
    tr_wentry *e = &w->entries[w->nentries];
    memset(e, 0, sizeof *e);
    e->key = key;
    e->msg = *m;
    e->msg.elem_size = tr_norm_elem(m->elem_size);
    e->msg.peer_node[sizeof e->msg.peer_node - 1] = 0;
    w->table[h] = (uint32_t)++w->nentries;
    w->st.keys = w->nentries;
    if (w->nentries * 2 > w->table_cap && tr_table_grow(w) != 0) {
        /* keep working with the fuller table: it still has free slots */
    }
    return e;
}

/* Cycle detection: candidate periods come from the gaps between a key's
 * latest occurrences; a candidate survives while key[i] == key[i - P]; one
 * that matched P messages in a row has seen the cycle twice. */
static void tr_cycle(compi_trace_writer *w, uint64_t i, uint64_t key, tr_wentry *e)
{
    const uint64_t R = COMPI_TRACE_MAX_PERIOD;
    compi_trace_stats *st = &w->st;
    if (st->cycle_len) {
        if (w->hist[(i - st->cycle_len) % R] != key) st->cycle_deviations++;
        w->hist[i % R] = key;
        return;
    }
    uint64_t found = 0;
    int k = 0;
    for (int c = 0; c < w->ncand; c++) {
        if (w->hist[(i - w->cand[c].period) % R] != key) continue;
        w->cand[k] = w->cand[c];
        if (++w->cand[k].run == w->cand[k].period && (!found || w->cand[k].period < found))
            found = w->cand[k].period;
        k++;
    }
    w->ncand = k;
    for (unsigned o = 0; !found && e && o < e->nocc && w->ncand < TR_MAX_CAND; o++) {
        uint64_t p = i - e->occ[o];
        if (p == 0 || p > R) continue;
        int dup = 0;
        for (int c = 0; c < w->ncand; c++) dup |= w->cand[c].period == p;
        if (dup) continue;
        w->cand[w->ncand].period = p;
        w->cand[w->ncand++].run = 1;
        if (p == 1) found = 1;
    }
    if (found) {
        st->cycle_len = found;
        st->cycle_start = i + 1 - 2 * found;
        st->cycle_detected_at = i;
        w->ncand = 0;
    }
    w->hist[i % R] = key;
}

static void tr_sample(compi_trace_writer *w, tr_wentry *e, const compi_trace_msg *m, const uint8_t *data)
{
    uint64_t size = m->size;
    size_t elem = e->msg.elem_size;
    uint32_t len, nslices;
    if (size <= COMPI_TRACE_SAMPLE_MAX) {
        len = (uint32_t)size;
        nslices = 1;
    } else {
        nslices = COMPI_TRACE_SAMPLE_MAX / COMPI_TRACE_SLICE;
        len = nslices * COMPI_TRACE_SLICE;
    }
    w->chunks_written = 1;
    uint64_t need = TR_CHUNK_OVH + TR_SMPL_FIXED + len;
    if (w->st.file_bytes + need + tr_index_size(w->nentries) + tr_summ_size() > w->cap) {
        w->st.cap_reached = 1;
        w->samples_stopped = 1;
        return;
    }
    uint8_t *b = w->scratch;
    uint32_t plen = TR_SMPL_FIXED + len;
    compi_store_le32(b, TR_SMPL);
    compi_store_le32(b + 4, plen);
    compi_store_le64(b + 8, e->key);
    compi_store_le64(b + 16, m->seq);
    compi_store_le32(b + 24, (uint32_t)(e->count - 1));   /* occurrence number (count already bumped) */
    compi_store_le32(b + 28, nslices);
    compi_store_le32(b + 32, len);
    uint8_t *d = b + 8 + TR_SMPL_FIXED;
    if (nslices == 1) {
        memcpy(d, data, len);
    } else {
        uint64_t stride = (size - COMPI_TRACE_SLICE) / (nslices - 1);
        for (uint32_t s = 0; s < nslices; s++) {
            uint64_t off = s * stride;
            off -= off % elem;
            memcpy(d + (size_t)s * COMPI_TRACE_SLICE, data + off, COMPI_TRACE_SLICE);
        }
    }
    uint8_t crc[4];
    compi_store_le32(crc, tr_crc32(0, b, 8 + plen));
    tr_write(w, b, 8 + plen);
    tr_write(w, crc, 4);
    if (w->st.write_error) return;
    e->nsamples++;
    w->st.samples++;
    w->st.sample_bytes += len;
}

void compi_trace_record(compi_trace_writer *w, const compi_trace_msg *m, const void *data)
{
    if (!w || !m) return;
    uint64_t key = compi_trace_key(m);
    pthread_mutex_lock(&w->lock);
    uint64_t i = w->st.messages++;
    w->st.bytes += m->size;
    tr_wentry *e = tr_entry(w, key, m);
    if (e) {
        e->count++;
    } else {
        w->st.untracked_messages++;
        w->st.untracked_bytes += m->size;
    }
    /* occurrences 1, 2, 4, 8, ...: early and late data alike */
    int want = e && (e->count & (e->count - 1)) == 0 && e->nsamples < COMPI_TRACE_SAMPLES_PER_KEY;
    tr_cycle(w, i, key, e);
    if (e) {
        memmove(e->occ + 1, e->occ, (TR_OCC - 1) * sizeof e->occ[0]);
        e->occ[0] = i;
        if (e->nocc < TR_OCC) e->nocc++;
        if (want && data && m->size > 0 && !w->samples_stopped && !w->st.write_error)
            tr_sample(w, e, m, data);
    }
    pthread_mutex_unlock(&w->lock);
}

void compi_trace_get_stats(compi_trace_writer *w, compi_trace_stats *s)
{
    pthread_mutex_lock(&w->lock);
    *s = w->st;
    pthread_mutex_unlock(&w->lock);
}

/* A chunk written piecewise: header, payload parts, crc. */
typedef struct { compi_trace_writer *w; uint32_t crc; } tr_chunk;

static void tr_chunk_begin(tr_chunk *c, compi_trace_writer *w, uint32_t type, uint32_t len)
{
    uint8_t h[8];
    compi_store_le32(h, type);
    compi_store_le32(h + 4, len);
    c->w = w;
    c->crc = tr_crc32(0, h, 8);
    tr_write(w, h, 8);
}

static void tr_chunk_put(tr_chunk *c, const void *p, size_t n)
{
    c->crc = tr_crc32(c->crc, p, n);
    tr_write(c->w, p, n);
}

static void tr_chunk_end(tr_chunk *c)
{
    uint8_t b[4];
    compi_store_le32(b, c->crc);
    tr_write(c->w, b, 4);
}

int compi_trace_set_algorithms(compi_trace_writer *w, const char *text)
{
    size_t n = text ? strlen(text) : 0;
    if (!w || n > TR_ALGS_MAX) return COMPI_ERR_CONFIG;
    pthread_mutex_lock(&w->lock);
    int rc = COMPI_ERR_CONFIG;
    if (!w->chunks_written) {
        tr_chunk c;
        tr_chunk_begin(&c, w, TR_ALGS, (uint32_t)n);
        tr_chunk_put(&c, text, n);
        tr_chunk_end(&c);
        w->chunks_written = 1;
        rc = COMPI_OK;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int compi_trace_set_profile(compi_trace_writer *w, const void *blob, size_t len)
{
    if (!w || len > UINT32_MAX - TR_CHUNK_OVH) return COMPI_ERR_CONFIG;
    pthread_mutex_lock(&w->lock);
    int rc = COMPI_ERR_CONFIG;
    if (!w->profile_written) {
        tr_chunk c;
        tr_chunk_begin(&c, w, TR_PROF, (uint32_t)len);
        tr_chunk_put(&c, blob, len);
        tr_chunk_end(&c);
        w->chunks_written = w->profile_written = 1;
        rc = COMPI_OK;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int compi_trace_close(compi_trace_writer *w, char *err, size_t errlen)
{
    if (!w) return COMPI_OK;
    pthread_mutex_lock(&w->lock);
    tr_chunk c;
    uint8_t b[TR_INDX_ENTRY];
    compi_store_le64(b, w->nentries);
    tr_chunk_begin(&c, w, TR_INDX, (uint32_t)(8 + w->nentries * TR_INDX_ENTRY));
    tr_chunk_put(&c, b, 8);
    for (size_t i = 0; i < w->nentries; i++) {
        const tr_wentry *e = &w->entries[i];
        memset(b, 0, sizeof b);
        compi_store_le64(b, e->key);
        compi_store_le64(b + 8, e->msg.seq);
        compi_store_le64(b + 16, e->count);
        compi_store_le64(b + 24, e->msg.size);
        compi_store_le32(b + 32, e->msg.comm_id);
        compi_store_le32(b + 36, (uint32_t)e->msg.peer);
        compi_store_le32(b + 40, (uint32_t)e->msg.tag);
        b[44] = e->msg.dtclass;
        b[45] = e->msg.family;
        b[46] = e->msg.link_cls;
        b[47] = (uint8_t)e->msg.elem_size;
        compi_store_le32(b + 48, e->nsamples);
        memcpy(b + 52, e->msg.peer_node, 64);
        tr_chunk_put(&c, b, TR_INDX_ENTRY);
    }
    tr_chunk_end(&c);

    const compi_trace_stats *s = &w->st;
    uint8_t m[TR_SUMM_LEN];
    const uint64_t v[11] = {s->messages, s->bytes, s->keys, s->untracked_messages, s->untracked_bytes,
                            s->samples, s->sample_bytes, s->cycle_len, s->cycle_start,
                            s->cycle_detected_at, s->cycle_deviations};
    for (int i = 0; i < 11; i++) compi_store_le64(m + 8 * i, v[i]);
    compi_store_le32(m + 88, s->cap_reached ? 1u : 0u);
    compi_store_le32(m + 92, 0);
    tr_chunk_begin(&c, w, TR_SUMM, TR_SUMM_LEN);
    tr_chunk_put(&c, m, sizeof m);
    tr_chunk_end(&c);

    int rc = COMPI_OK;
    int werr = w->st.write_error;
    if (fclose(w->f) != 0 && !werr) werr = errno ? errno : EIO;
    if (werr) {
        compi_errf(err, errlen, "%s: write failed: %s (the trace is incomplete)", w->path, strerror(werr));
        rc = COMPI_ERR_CONFIG;
    }
    pthread_mutex_unlock(&w->lock);
    pthread_mutex_destroy(&w->lock);
    free(w->entries);
    free(w->table);
    free(w->hist);
    free(w);
    return rc;
}

/* ------------------------------------------------------------- reader */

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
} tr_rctx;

static void tr_fail(tr_rctx *x, const char *fmt, ...)
{
    if (x->err && x->errlen) {
        int n = snprintf(x->err, x->errlen, "%s: ", x->path);
        if (n < 0 || (size_t)n >= x->errlen) n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

static int tr_cstr_ok(const uint8_t *p, size_t cap) { return memchr(p, 0, cap) != NULL; }

static int tr_cmp_key_idx(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Pending samples are kept as offsets into the file buffer until the index
 * (which comes after them) is known. */
typedef struct { uint64_t key; size_t off; } tr_pending;

compi_trace *compi_trace_load(const char *path, char *err, size_t errlen)
{
    tr_rctx x = {path, err, errlen};
    FILE *f = compi_file_open_read(path, NULL, err, errlen);
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 1 << 16;
            uint8_t *g = realloc(buf, ncap);
            if (!g) { free(buf); fclose(f); compi_errf(err, errlen, "%s: out of memory", path); return NULL; }
            buf = g;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) { free(buf); compi_errf(err, errlen, "%s: read error", path); return NULL; }

    compi_trace *t = calloc(1, sizeof *t);
    tr_pending *pend = NULL;
    uint64_t *kidx = NULL;
    uint32_t *ann = NULL;   /* samples announced per index entry */
    size_t npend = 0, pend_cap = 0;
#define FAIL(...) do { tr_fail(&x, __VA_ARGS__); goto fail; } while (0)
    if (!t) FAIL("out of memory");
    if (len < 8 || memcmp(buf, TR_MAGIC, 8) != 0)
        FAIL("not a compi trace file (no COMPITRC magic at the start)");
    if (len < 16) FAIL("truncated: %zu bytes, shorter than the header", len);
    t->version = compi_load_le32(buf + 8);
    if (t->version != TR_VERSION && t->version != 1)
        FAIL("trace format version %u is not supported (this compi reads versions 1 and %u)", t->version, TR_VERSION);
    if (compi_load_le32(buf + 12) != TR_HDR_LEN)
        FAIL("corrupt header: header length %u, expected %u", compi_load_le32(buf + 12), TR_HDR_LEN);
    if (len < TR_HDR_LEN) FAIL("truncated: %zu bytes, shorter than the %u-byte header", len, TR_HDR_LEN);
    if (compi_load_le32(buf + TR_HDR_CRC_OFF) != tr_crc32(0, buf, TR_HDR_CRC_OFF))
        FAIL("corrupt header: checksum mismatch");
    t->rank = (int32_t)compi_load_le32(buf + 16);
    t->world_size = (int32_t)compi_load_le32(buf + 20);
    t->cap_bytes = compi_load_le64(buf + 24);
    if (t->world_size < 1 || t->rank < 0 || t->rank >= t->world_size)
        FAIL("corrupt header: rank %d of %d ranks", t->rank, t->world_size);
    if (compi_load_le32(buf + 32) != COMPI_TRACE_SAMPLE_MAX || compi_load_le32(buf + 36) != COMPI_TRACE_SLICE)
        FAIL("corrupt header: sample geometry %u/%u differs from %u/%u", compi_load_le32(buf + 32),
             compi_load_le32(buf + 36), COMPI_TRACE_SAMPLE_MAX, COMPI_TRACE_SLICE);
    if (!tr_cstr_ok(buf + 48, COMPI_TRACE_PROGRAM_MAX) || !buf[48] || !tr_cstr_ok(buf + 304, COMPI_TRACE_NODE_MAX))
        FAIL("corrupt header: program or node name is not a terminated string");
    memcpy(t->program, buf + 48, COMPI_TRACE_PROGRAM_MAX);
    memcpy(t->my_node, buf + 304, COMPI_TRACE_NODE_MAX);

    size_t pos = TR_HDR_LEN;
    int have_index = 0, have_summ = 0, nchunks = 0;
    while (pos < len) {
        if (have_summ) FAIL("corrupt: %zu unexpected bytes after the summary at offset %zu", len - pos, pos);
        if (len - pos < 8) FAIL("truncated: chunk header at offset %zu cut after %zu bytes", pos, len - pos);
        uint32_t type = compi_load_le32(buf + pos), plen = compi_load_le32(buf + pos + 4);
        if (type != TR_SMPL && type != TR_INDX && type != TR_SUMM &&
            (t->version < 2 || (type != TR_ALGS && type != TR_PROF)))
            FAIL("corrupt: unknown chunk type 0x%08x at offset %zu", type, pos);
        if ((uint64_t)plen + TR_CHUNK_OVH > len - pos)
            FAIL("truncated: chunk at offset %zu needs %llu bytes, the file has %zu more", pos,
                 (unsigned long long)plen + TR_CHUNK_OVH, len - pos);
        const uint8_t *p = buf + pos + 8;
        if (compi_load_le32(p + plen) != tr_crc32(0, buf + pos, 8 + (size_t)plen))
            FAIL("corrupt: checksum mismatch in the chunk at offset %zu", pos);
        nchunks++;
        if (type == TR_ALGS) {
            if (nchunks != 1 || plen > TR_ALGS_MAX)
                FAIL("corrupt: algorithm chunk at offset %zu is not the first chunk or too long", pos);
            if (memchr(p, 0, plen)) FAIL("corrupt: algorithm chunk at offset %zu holds a NUL byte", pos);
            if (!(t->algorithms = malloc((size_t)plen + 1))) FAIL("out of memory");
            memcpy(t->algorithms, p, plen);
            t->algorithms[plen] = 0;
        } else if (type == TR_PROF) {
            if (have_index || t->profile) FAIL("corrupt: profile chunk at offset %zu after the index or repeated", pos);
            if (!(t->profile = malloc(plen ? plen : 1))) FAIL("out of memory");
            memcpy(t->profile, p, plen);
            t->profile_len = plen;
        } else if (type == TR_SMPL) {
            if (have_index || t->profile) FAIL("corrupt: sample chunk after the index at offset %zu", pos);
            if (plen < TR_SMPL_FIXED || compi_load_le32(p + 24) != plen - TR_SMPL_FIXED ||
                plen - TR_SMPL_FIXED > COMPI_TRACE_SAMPLE_MAX || compi_load_le32(p + 20) == 0)
                FAIL("corrupt: malformed sample chunk at offset %zu", pos);
            if (npend == pend_cap) {
                size_t nc = pend_cap ? pend_cap * 2 : 64;
                tr_pending *g = realloc(pend, nc * sizeof *g);
                if (!g) FAIL("out of memory");
                pend = g;
                pend_cap = nc;
            }
            pend[npend].key = compi_load_le64(p);
            pend[npend++].off = (size_t)(p - buf);
        } else if (type == TR_INDX) {
            if (have_index) FAIL("corrupt: second index chunk at offset %zu", pos);
            have_index = 1;
            if (plen < 8) FAIL("corrupt: malformed index chunk at offset %zu", pos);
            uint64_t n = compi_load_le64(p);
            if (n > TR_MAX_KEYS || 8 + n * TR_INDX_ENTRY != plen)
                FAIL("corrupt: index chunk at offset %zu: %llu entries do not fill %u bytes", pos,
                     (unsigned long long)n, plen);
            t->entries = calloc(n ? n : 1, sizeof *t->entries);
            kidx = malloc((n ? n : 1) * 2 * sizeof *kidx);
            ann = malloc((n ? n : 1) * sizeof *ann);
            if (!t->entries || !kidx || !ann) FAIL("out of memory");
            t->nentries = n;
            for (uint64_t i = 0; i < n; i++) {
                const uint8_t *q = p + 8 + i * TR_INDX_ENTRY;
                compi_trace_entry *e = &t->entries[i];
                e->key = compi_load_le64(q);
                e->msg.seq = compi_load_le64(q + 8);
                e->count = compi_load_le64(q + 16);
                e->msg.size = compi_load_le64(q + 24);
                e->msg.comm_id = compi_load_le32(q + 32);
                e->msg.peer = (int32_t)compi_load_le32(q + 36);
                e->msg.tag = (int32_t)compi_load_le32(q + 40);
                e->msg.dtclass = q[44];
                e->msg.family = q[45];
                e->msg.link_cls = q[46];
                e->msg.elem_size = q[47];
                ann[i] = compi_load_le32(q + 48);
                if (!tr_cstr_ok(q + 52, 64)) FAIL("corrupt: index entry %llu: peer node name not terminated", (unsigned long long)i);
                memcpy(e->msg.peer_node, q + 52, 64);
                if (e->msg.dtclass >= COMPI_CLASS_COUNT || e->msg.link_cls > 1 ||
                    tr_norm_elem(e->msg.elem_size) != e->msg.elem_size || e->count == 0 ||
                    ann[i] > e->count || ann[i] > COMPI_TRACE_SAMPLES_PER_KEY)
                    FAIL("corrupt: index entry %llu has out-of-range fields", (unsigned long long)i);
                if (compi_trace_key(&e->msg) != e->key)
                    FAIL("corrupt: index entry %llu: key %016llx does not match its fields", (unsigned long long)i,
                         (unsigned long long)e->key);
                if (ann[i] && !(e->samples = calloc(ann[i], sizeof *e->samples))) FAIL("out of memory");
                kidx[2 * i] = e->key;
                kidx[2 * i + 1] = i;
            }
            qsort(kidx, n, 2 * sizeof *kidx, tr_cmp_key_idx);
            for (uint64_t i = 1; i < n; i++)
                if (kidx[2 * i] == kidx[2 * i - 2])
                    FAIL("corrupt: key %016llx appears twice in the index", (unsigned long long)kidx[2 * i]);
        } else {
            if (!have_index) FAIL("corrupt: summary chunk before the index at offset %zu", pos);
            if (plen != TR_SUMM_LEN) FAIL("corrupt: summary chunk has %u bytes, expected %u", plen, TR_SUMM_LEN);
            have_summ = 1;
            compi_trace_stats *s = &t->stats;
            uint64_t *v[11] = {&s->messages, &s->bytes, &s->keys, &s->untracked_messages, &s->untracked_bytes,
                               &s->samples, &s->sample_bytes, &s->cycle_len, &s->cycle_start,
                               &s->cycle_detected_at, &s->cycle_deviations};
            for (int i = 0; i < 11; i++) *v[i] = compi_load_le64(p + 8 * i);
            uint32_t flags = compi_load_le32(p + 88);
            if (flags > 1) FAIL("corrupt: summary flags 0x%x", flags);
            s->cap_reached = (int)flags;
        }
        pos += TR_CHUNK_OVH + plen;
    }
    if (!have_index || !have_summ)
        FAIL("truncated: the file ends at %zu bytes without its %s (was the program stopped before "
             "MPI_Finalize, or the file cut?)", len, have_index ? "summary" : "index and summary");
    t->stats.file_bytes = len;

    /* samples -> entries; each entry must get exactly the samples its index entry announced */
    uint64_t sample_bytes = 0;
    for (size_t k = 0; k < npend; k++) {
        uint64_t probe[2] = {pend[k].key, 0};
        uint64_t *hit = bsearch(probe, kidx, t->nentries, 2 * sizeof *kidx, tr_cmp_key_idx);
        if (!hit) FAIL("corrupt: sample of key %016llx, which is not in the index", (unsigned long long)pend[k].key);
        compi_trace_entry *e = &t->entries[hit[1]];
        const uint8_t *p = buf + pend[k].off;
        compi_trace_sample s;
        s.seq = compi_load_le64(p + 8);
        s.occurrence = compi_load_le32(p + 16);
        s.nslices = compi_load_le32(p + 20);
        s.len = compi_load_le32(p + 24);
        int whole = e->msg.size <= COMPI_TRACE_SAMPLE_MAX;
        if (s.occurrence >= e->count || (whole && (s.nslices != 1 || s.len != e->msg.size)) ||
            (!whole && (uint64_t)s.len != (uint64_t)s.nslices * COMPI_TRACE_SLICE))
            FAIL("corrupt: sample of key %016llx does not fit its %llu-byte message", (unsigned long long)e->key,
                 (unsigned long long)e->msg.size);
        if (e->nsamples >= ann[hit[1]])
            FAIL("corrupt: more samples of key %016llx than its index entry announces (%u)",
                 (unsigned long long)e->key, ann[hit[1]]);
        s.data = malloc(s.len ? s.len : 1);
        if (!s.data) FAIL("out of memory");
        memcpy(s.data, p + TR_SMPL_FIXED, s.len);
        e->samples[e->nsamples++] = s;
        sample_bytes += s.len;
    }
    for (size_t i = 0; i < t->nentries; i++)
        if (ann[i] != t->entries[i].nsamples)
            FAIL("corrupt: key %016llx announces %u samples, the file has %u",
                 (unsigned long long)t->entries[i].key, ann[i], t->entries[i].nsamples);
    uint64_t counted = 0;
    for (size_t i = 0; i < t->nentries; i++) counted += t->entries[i].count;
    const compi_trace_stats *s = &t->stats;
    if (s->keys != t->nentries || s->samples != npend || s->sample_bytes != sample_bytes ||
        counted + s->untracked_messages != s->messages || (s->cycle_len && s->cycle_detected_at >= s->messages))
        FAIL("corrupt: the summary disagrees with the index and samples");
#undef FAIL
    free(buf);
    free(pend);
    free(kidx);
    free(ann);
    return t;
fail:
    free(buf);
    free(pend);
    free(kidx);
    free(ann);
    compi_trace_free(t);
    return NULL;
}

void compi_trace_free(compi_trace *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nentries; i++) {
        for (uint32_t k = 0; k < t->entries[i].nsamples; k++) free(t->entries[i].samples[k].data);
        free(t->entries[i].samples);
    }
    free(t->entries);
    free(t->algorithms);
    free(t->profile);
    free(t);
}
