/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace writer (COMPI_MODE=trace): compi_trace_open, _record, _close
 * (engine/trace.h). Counts every message, keeps bounded content samples,
 * detects the application's cycle and writes the file laid out in
 * trace_format.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "common/safefile.h"
#include "codecs/codec_util.h"
#include "engine/trace.h"
#include "engine/trace_format.h"

#define TR_MAX_CAND 16
#define TR_OCC 4 /* latest occurrences kept per key */

size_t compi_trace_min_cap(void)
{
    return (size_t)(TR_HDR_LEN + tr_index_size(0) + tr_summ_size());
}

typedef struct {
    uint64_t key;
    compi_trace_msg msg;
    uint64_t count;
    uint32_t nsamples;
    unsigned nocc;
    uint64_t occ[TR_OCC]; /* latest positions, most recent first */
} tr_wentry;

struct compi_trace_writer {
    pthread_mutex_t lock;
    FILE *f;
    char path[4096];
    size_t cap;
    int samples_stopped;
    int chunks_written; /* any chunk after the header (ALGS must come first) */
    int profile_written;
    compi_trace_stats st;
    /* keys: entries in first-occurrence order + open-addressing table of index+1 */
    tr_wentry *entries;
    size_t nentries, entries_cap;
    uint32_t *table;
    size_t table_cap; /* power of two */
    /* cycle detection */
    uint64_t *hist; /* ring of the latest COMPI_TRACE_MAX_PERIOD keys */
    struct {
        uint64_t period, run;
    } cand[TR_MAX_CAND];
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

/* The file's fixed header (trace_format.h). */
static void tr_write_header(compi_trace_writer *w, int rank, int world_size, const char *program, const char *my_node,
                            size_t cap_bytes)
{
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
}

compi_trace_writer *compi_trace_open(const char *dir, int rank, int world_size, const char *program,
                                     const char *my_node, size_t cap_bytes, char *err, size_t errlen)
{
    if (!dir || !program || !my_node) {
        compi_errf(err, errlen, "trace: missing directory, program or node name");
        return NULL;
    }
    if (rank < 0 || world_size < 1 || rank >= world_size) {
        compi_errf(err, errlen, "trace: rank %d out of range for %d ranks", rank, world_size);
        return NULL;
    }
    if (cap_bytes == 0) cap_bytes = COMPI_TRACE_DEFAULT_CAP;
    if (cap_bytes < compi_trace_min_cap()) {
        compi_errf(err, errlen, "trace: cap of %zu bytes is below the minimum of %zu", cap_bytes,
                   compi_trace_min_cap());
        return NULL;
    }
    /* traces hold samples of message contents: a directory compi makes for
     * them, and every trace file, is its user's alone */
    if (compi_dir_create(dir, 0700, err, errlen) != COMPI_OK) return NULL;
    compi_trace_writer *w = calloc(1, sizeof *w);
    if (!w) {
        compi_errf(err, errlen, "trace: out of memory");
        return NULL;
    }
    w->hist = malloc(sizeof(uint64_t) * COMPI_TRACE_MAX_PERIOD);
    w->table_cap = 1024;
    w->table = calloc(w->table_cap, sizeof *w->table);
    if (!w->hist || !w->table) {
        free(w->hist);
        free(w->table);
        free(w);
        compi_errf(err, errlen, "trace: out of memory");
        return NULL;
    }
    w->cap = cap_bytes;
    if ((size_t)compi_trace_path(w->path, sizeof w->path, dir, rank) >= sizeof w->path) {
        free(w->hist);
        free(w->table);
        free(w);
        compi_errf(err, errlen, "trace: directory name too long");
        return NULL;
    }
    compi_wfile wf;
    if (compi_file_create(&wf, w->path, 0600, COMPI_FILE_IN_PLACE | COMPI_FILE_PRIVATE, err, errlen) != COMPI_OK) {
        free(w->hist);
        free(w->table);
        free(w);
        return NULL;
    }
    w->f = wf.f;
    pthread_mutex_init(&w->lock, NULL);

    tr_write_header(w, rank, world_size, program, my_node, cap_bytes);
    if (w->st.write_error) {
        compi_errf(err, errlen, "%s: write failed: %s", w->path, strerror(w->st.write_error));
        fclose(w->f);
        pthread_mutex_destroy(&w->lock);
        free(w->hist);
        free(w->table);
        free(w);
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
    if (w->nentries >= TR_MAX_KEYS || w->nentries + 2 > w->table_cap || /* (a failed table growth) */
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
    tr_norm_burst(&e->msg);
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
        if (++w->cand[k].run == w->cand[k].period && (!found || w->cand[k].period < found)) found = w->cand[k].period;
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
    compi_store_le32(b + 24, (uint32_t)(e->count - 1)); /* occurrence number (count already bumped) */
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
        if (want && data && m->size > 0 && !w->samples_stopped && !w->st.write_error) tr_sample(w, e, m, data);
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
typedef struct {
    compi_trace_writer *w;
    uint32_t crc;
} tr_chunk;

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

/* INDX: one entry per key, in first-occurrence order. Lock held. */
static void tr_write_index(compi_trace_writer *w)
{
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
        compi_store_le32(b + 116, e->msg.share);
        compi_store_le32(b + 120, e->msg.own);
        tr_chunk_put(&c, b, TR_INDX_ENTRY);
    }
    tr_chunk_end(&c);
}

/* SUMM: the counters, the last chunk. Lock held. */
static void tr_write_summary(compi_trace_writer *w)
{
    tr_chunk c;
    const compi_trace_stats *s = &w->st;
    uint8_t m[TR_SUMM_LEN];
    const uint64_t v[11] = {
        s->messages,     s->bytes,     s->keys,        s->untracked_messages, s->untracked_bytes, s->samples,
        s->sample_bytes, s->cycle_len, s->cycle_start, s->cycle_detected_at,  s->cycle_deviations};
    for (int i = 0; i < 11; i++) compi_store_le64(m + 8 * i, v[i]);
    compi_store_le32(m + 88, s->cap_reached ? 1u : 0u);
    compi_store_le32(m + 92, 0);
    tr_chunk_begin(&c, w, TR_SUMM, TR_SUMM_LEN);
    tr_chunk_put(&c, m, sizeof m);
    tr_chunk_end(&c);
}

int compi_trace_close(compi_trace_writer *w, char *err, size_t errlen)
{
    if (!w) return COMPI_OK;
    pthread_mutex_lock(&w->lock);
    tr_write_index(w);
    tr_write_summary(w);

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
