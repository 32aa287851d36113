/* SPDX-License-Identifier: BSD-3-Clause */
/* The trace reader: compi_trace_load and compi_trace_free (engine/trace.h)
 * read back, validating everything, a file laid out as trace_format.h
 * says. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "common/safefile.h"
#include "codecs/codec_util.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "engine/trace_format.h"

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

static int tr_cstr_ok(const uint8_t *p, size_t cap)
{
    return memchr(p, 0, cap) != NULL;
}

static int tr_cmp_key_idx(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Pending samples are kept as offsets into the file buffer until the index
 * (which comes after them) is known. */
typedef struct {
    uint64_t key;
    size_t off;
} tr_pending;

/* One load in progress: the file's bytes, the trace being filled, and what
 * the chunks seen so far announced. Every step returns 0, or -1 with the
 * error reported through x. */
typedef struct {
    tr_rctx x;
    const uint8_t *buf;
    size_t len;
    compi_trace *t;
    tr_pending *pend; /* SMPL chunks, in file order */
    size_t npend, pend_cap;
    uint64_t *kidx; /* (key, entry index) pairs sorted by key */
    uint32_t *ann;  /* samples announced per index entry */
    int have_index, have_summ, nchunks;
} tr_reader;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        tr_fail(&r->x, __VA_ARGS__);                                                                                   \
        return -1;                                                                                                     \
    } while (0)

/* The whole file into a malloc'd buffer. */
static uint8_t *tr_read_file(const char *path, size_t *lenp, char *err, size_t errlen)
{
    FILE *f = compi_file_open_read(path, NULL, err, errlen);
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 1 << 16;
            uint8_t *g = realloc(buf, ncap);
            if (!g) {
                free(buf);
                fclose(f);
                compi_errf(err, errlen, "%s: out of memory", path);
                return NULL;
            }
            buf = g;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        compi_errf(err, errlen, "%s: read error", path);
        return NULL;
    }
    *lenp = len;
    return buf;
}

/* The fixed header: magic, version, geometry, names, checksum. */
static int tr_read_header(tr_reader *r)
{
    const uint8_t *buf = r->buf;
    size_t len = r->len;
    compi_trace *t = r->t;
    if (len < 8 || memcmp(buf, TR_MAGIC, 8) != 0) FAIL("not a compi trace file (no COMPITRC magic at the start)");
    if (len < 16) FAIL("truncated: %zu bytes, shorter than the header", len);
    t->version = compi_load_le32(buf + 8);
    if (t->version < 1 || t->version > TR_VERSION)
        FAIL("trace format version %u is not supported (this compi reads versions 1 to %u)", t->version, TR_VERSION);
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
    return 0;
}

/* ALGS: the collective algorithms' text, first chunk only. */
static int tr_read_algs(tr_reader *r, const uint8_t *p, uint32_t plen, size_t pos)
{
    compi_trace *t = r->t;
    if (r->nchunks != 1 || plen > TR_ALGS_MAX)
        FAIL("corrupt: algorithm chunk at offset %zu is not the first chunk or too long", pos);
    if (memchr(p, 0, plen)) FAIL("corrupt: algorithm chunk at offset %zu holds a NUL byte", pos);
    if (!(t->algorithms = malloc((size_t)plen + 1))) FAIL("out of memory");
    memcpy(t->algorithms, p, plen);
    t->algorithms[plen] = 0;
    return 0;
}

/* PROF: the communication profile, kept as bytes (engine/commprof.h parses it). */
static int tr_read_prof(tr_reader *r, const uint8_t *p, uint32_t plen, size_t pos)
{
    compi_trace *t = r->t;
    if (r->have_index || t->profile) FAIL("corrupt: profile chunk at offset %zu after the index or repeated", pos);
    if (!(t->profile = malloc(plen ? plen : 1))) FAIL("out of memory");
    memcpy(t->profile, p, plen);
    t->profile_len = plen;
    return 0;
}

/* SMPL: checked for its own consistency and kept pending until the index
 * says which entry it belongs to (tr_attach_samples). */
static int tr_read_smpl(tr_reader *r, const uint8_t *p, uint32_t plen, size_t pos)
{
    if (r->have_index || r->t->profile) FAIL("corrupt: sample chunk after the index at offset %zu", pos);
    if (plen < TR_SMPL_FIXED || compi_load_le32(p + 24) != plen - TR_SMPL_FIXED ||
        plen - TR_SMPL_FIXED > COMPI_TRACE_SAMPLE_MAX || compi_load_le32(p + 20) == 0)
        FAIL("corrupt: malformed sample chunk at offset %zu", pos);
    if (r->npend == r->pend_cap) {
        size_t nc = r->pend_cap ? r->pend_cap * 2 : 64;
        tr_pending *g = realloc(r->pend, nc * sizeof *g);
        if (!g) FAIL("out of memory");
        r->pend = g;
        r->pend_cap = nc;
    }
    r->pend[r->npend].key = compi_load_le64(p);
    r->pend[r->npend++].off = (size_t)(p - r->buf);
    return 0;
}

/* Index entry i at q: the key's descriptor, count and announced samples. */
static int tr_read_indx_entry(tr_reader *r, uint64_t i, const uint8_t *q)
{
    compi_trace_entry *e = &r->t->entries[i];
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
    r->ann[i] = compi_load_le32(q + 48);
    if (!tr_cstr_ok(q + 52, 64))
        FAIL("corrupt: index entry %llu: peer node name not terminated", (unsigned long long)i);
    memcpy(e->msg.peer_node, q + 52, 64);
    e->msg.share = e->msg.own = 1; /* versions 1 and 2: alone */
    if (r->t->version >= 3) {
        e->msg.share = compi_load_le32(q + 116);
        e->msg.own = compi_load_le32(q + 120);
        if (e->msg.own < 1 || e->msg.own > e->msg.share)
            FAIL("corrupt: index entry %llu: burst of %u messages, %u of them its rank's", (unsigned long long)i,
                 e->msg.share, e->msg.own);
    }
    if (e->msg.dtclass >= COMPI_CLASS_COUNT || e->msg.link_cls > 1 ||
        tr_norm_elem(e->msg.elem_size) != e->msg.elem_size || e->count == 0 || r->ann[i] > e->count ||
        r->ann[i] > COMPI_TRACE_SAMPLES_PER_KEY)
        FAIL("corrupt: index entry %llu has out-of-range fields", (unsigned long long)i);
    if (compi_trace_key(&e->msg) != e->key)
        FAIL("corrupt: index entry %llu: key %016llx does not match its fields", (unsigned long long)i,
             (unsigned long long)e->key);
    if (r->ann[i] && !(e->samples = calloc(r->ann[i], sizeof *e->samples))) FAIL("out of memory");
    r->kidx[2 * i] = e->key;
    r->kidx[2 * i + 1] = i;
    return 0;
}

/* INDX: one entry per key, no key twice. */
static int tr_read_indx(tr_reader *r, const uint8_t *p, uint32_t plen, size_t pos)
{
    compi_trace *t = r->t;
    if (r->have_index) FAIL("corrupt: second index chunk at offset %zu", pos);
    r->have_index = 1;
    if (plen < 8) FAIL("corrupt: malformed index chunk at offset %zu", pos);
    uint64_t n = compi_load_le64(p);
    uint64_t esz = t->version >= 3 ? TR_INDX_ENTRY : TR_INDX_ENTRY_V2;
    if (n > TR_MAX_KEYS || 8 + n * esz != plen)
        FAIL("corrupt: index chunk at offset %zu: %llu entries do not fill %u bytes", pos, (unsigned long long)n, plen);
    t->entries = calloc(n ? n : 1, sizeof *t->entries);
    r->kidx = malloc((n ? n : 1) * 2 * sizeof *r->kidx);
    r->ann = malloc((n ? n : 1) * sizeof *r->ann);
    if (!t->entries || !r->kidx || !r->ann) FAIL("out of memory");
    t->nentries = n;
    for (uint64_t i = 0; i < n; i++)
        if (tr_read_indx_entry(r, i, p + 8 + i * esz) != 0) return -1;
    qsort(r->kidx, n, 2 * sizeof *r->kidx, tr_cmp_key_idx);
    for (uint64_t i = 1; i < n; i++)
        if (r->kidx[2 * i] == r->kidx[2 * i - 2])
            FAIL("corrupt: key %016llx appears twice in the index", (unsigned long long)r->kidx[2 * i]);
    return 0;
}

/* SUMM: the writer's counters at close. */
static int tr_read_summ(tr_reader *r, const uint8_t *p, uint32_t plen, size_t pos)
{
    if (!r->have_index) FAIL("corrupt: summary chunk before the index at offset %zu", pos);
    if (plen != TR_SUMM_LEN) FAIL("corrupt: summary chunk has %u bytes, expected %u", plen, TR_SUMM_LEN);
    r->have_summ = 1;
    compi_trace_stats *s = &r->t->stats;
    uint64_t *v[11] = {
        &s->messages,     &s->bytes,     &s->keys,        &s->untracked_messages, &s->untracked_bytes, &s->samples,
        &s->sample_bytes, &s->cycle_len, &s->cycle_start, &s->cycle_detected_at,  &s->cycle_deviations};
    for (int i = 0; i < 11; i++) *v[i] = compi_load_le64(p + 8 * i);
    uint32_t flags = compi_load_le32(p + 88);
    if (flags > 1) FAIL("corrupt: summary flags 0x%x", flags);
    s->cap_reached = (int)flags;
    return 0;
}

/* The chunk at pos: framing (known type, length within the file, checksum),
 * then its type's reader. *plenp = its payload length. */
static int tr_read_chunk(tr_reader *r, size_t pos, uint32_t *plenp)
{
    const uint8_t *buf = r->buf;
    size_t len = r->len;
    if (r->have_summ) FAIL("corrupt: %zu unexpected bytes after the summary at offset %zu", len - pos, pos);
    if (len - pos < 8) FAIL("truncated: chunk header at offset %zu cut after %zu bytes", pos, len - pos);
    uint32_t type = compi_load_le32(buf + pos), plen = compi_load_le32(buf + pos + 4);
    if (type != TR_SMPL && type != TR_INDX && type != TR_SUMM &&
        (r->t->version < 2 || (type != TR_ALGS && type != TR_PROF)))
        FAIL("corrupt: unknown chunk type 0x%08x at offset %zu", type, pos);
    if ((uint64_t)plen + TR_CHUNK_OVH > len - pos)
        FAIL("truncated: chunk at offset %zu needs %llu bytes, the file has %zu more", pos,
             (unsigned long long)plen + TR_CHUNK_OVH, len - pos);
    const uint8_t *p = buf + pos + 8;
    if (compi_load_le32(p + plen) != tr_crc32(0, buf + pos, 8 + (size_t)plen))
        FAIL("corrupt: checksum mismatch in the chunk at offset %zu", pos);
    r->nchunks++;
    *plenp = plen;
    switch (type) {
    case TR_ALGS: return tr_read_algs(r, p, plen, pos);
    case TR_PROF: return tr_read_prof(r, p, plen, pos);
    case TR_SMPL: return tr_read_smpl(r, p, plen, pos);
    case TR_INDX: return tr_read_indx(r, p, plen, pos);
    default: return tr_read_summ(r, p, plen, pos);
    }
}

/* Every chunk after the header, up to the summary, which must end the file. */
static int tr_read_chunks(tr_reader *r)
{
    size_t pos = TR_HDR_LEN;
    while (pos < r->len) {
        uint32_t plen;
        if (tr_read_chunk(r, pos, &plen) != 0) return -1;
        pos += TR_CHUNK_OVH + plen;
    }
    if (!r->have_index || !r->have_summ)
        FAIL("truncated: the file ends at %zu bytes without its %s (was the program stopped before "
             "MPI_Finalize, or the file cut?)",
             r->len, r->have_index ? "summary" : "index and summary");
    r->t->stats.file_bytes = r->len;
    return 0;
}

/* Pending samples -> entries; each entry must get exactly the samples its
 * index entry announced. *sample_bytes = their content bytes. */
static int tr_attach_samples(tr_reader *r, uint64_t *sample_bytes)
{
    compi_trace *t = r->t;
    *sample_bytes = 0;
    for (size_t k = 0; k < r->npend; k++) {
        uint64_t probe[2] = {r->pend[k].key, 0};
        uint64_t *hit = bsearch(probe, r->kidx, t->nentries, 2 * sizeof *r->kidx, tr_cmp_key_idx);
        if (!hit) FAIL("corrupt: sample of key %016llx, which is not in the index", (unsigned long long)r->pend[k].key);
        compi_trace_entry *e = &t->entries[hit[1]];
        const uint8_t *p = r->buf + r->pend[k].off;
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
        if (e->nsamples >= r->ann[hit[1]])
            FAIL("corrupt: more samples of key %016llx than its index entry announces (%u)", (unsigned long long)e->key,
                 r->ann[hit[1]]);
        s.data = malloc(s.len ? s.len : 1);
        if (!s.data) FAIL("out of memory");
        memcpy(s.data, p + TR_SMPL_FIXED, s.len);
        e->samples[e->nsamples++] = s;
        *sample_bytes += s.len;
    }
    for (size_t i = 0; i < t->nentries; i++)
        if (r->ann[i] != t->entries[i].nsamples)
            FAIL("corrupt: key %016llx announces %u samples, the file has %u", (unsigned long long)t->entries[i].key,
                 r->ann[i], t->entries[i].nsamples);
    return 0;
}

/* The summary's counters against what the index and samples hold. */
static int tr_check_summary(tr_reader *r, uint64_t sample_bytes)
{
    const compi_trace *t = r->t;
    uint64_t counted = 0;
    for (size_t i = 0; i < t->nentries; i++) counted += t->entries[i].count;
    const compi_trace_stats *s = &t->stats;
    if (s->keys != t->nentries || s->samples != r->npend || s->sample_bytes != sample_bytes ||
        counted + s->untracked_messages != s->messages || (s->cycle_len && s->cycle_detected_at >= s->messages))
        FAIL("corrupt: the summary disagrees with the index and samples");
    return 0;
}

#undef FAIL

compi_trace *compi_trace_load(const char *path, char *err, size_t errlen)
{
    tr_reader r = {.x = {path, err, errlen}};
    uint8_t *buf = tr_read_file(path, &r.len, err, errlen);
    if (!buf) return NULL;
    r.buf = buf;
    r.t = calloc(1, sizeof *r.t);
    uint64_t sample_bytes = 0;
    int rc = -1;
    if (!r.t) tr_fail(&r.x, "out of memory");
    else if (tr_read_header(&r) == 0 && tr_read_chunks(&r) == 0 && tr_attach_samples(&r, &sample_bytes) == 0)
        rc = tr_check_summary(&r, sample_bytes);
    free(buf);
    free(r.pend);
    free(r.kidx);
    free(r.ann);
    if (rc == 0) return r.t;
    compi_trace_free(r.t);
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
