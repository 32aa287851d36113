/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the GUIDED strategy's MPI-free parts: trace writer/reader
 * (lib/engine/trace_write.c, trace_read.c), the compi_guide tool and the rules
 * loader (rules.c).
 *
 *   test_guide --roundtrip DIR          trace round trip, cycle detection, samples
 *   test_guide --cap DIR                the file cap: samples stop, counting goes on
 *   test_guide --threads DIR            concurrent compi_trace_record
 *   test_guide --guide DIR GUIDE_BIN    compi_guide on a synthetic trace -> rules -> lookups
 *   test_guide --errors DIR GUIDE_BIN   corrupt/truncated traces, malformed/stale rules
 *
 * DIR is a scratch directory (emptied first). Each failure prints a line
 * "FAIL [part] ..."; the exit status is non-zero on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "compi.h"
#include "engine/trace.h"

static int failures;
static const char *part = "";

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL [%s] %s:%d: ", part, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void run_or_die(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0) { fprintf(stderr, "FAIL [%s] '%s' exited with %d\n", part, cmd, rc); exit(1); }
}

static void fresh_dir(const char *dir)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    run_or_die(cmd);
}

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* ------------------------------------------------------------ workload */

/* One rank's synthetic application: an init phase (3 small broadcasts), a
 * cycle of 6 messages repeated `iters` times (key A twice per cycle, so the
 * period is not the gap between A's occurrences), then a finalize phase
 * repeating init key I0 and one new key F.
 *   I0..I2  64-byte ints, inter-node, tiny          -> raw
 *   A       1 MiB mostly-constant doubles, inter    -> compress
 *   B       256 KiB random bytes, inter             -> raw (incompressible)
 *   C       1 MiB + 24 B doubles d[j] = j, INTRA    -> raw (intra-node)
 *   D       40 bytes of zeros, inter                -> raw (too small to pay)
 *   E       32 KiB zero floats, inter               -> compress
 *   F       200 KiB zero doubles, after the cycle   -> compress */
enum { K_I0, K_I1, K_I2, K_A, K_B, K_C, K_D, K_E, K_F, NKEYS };
#define CYCLE_LEN 6
#define INIT_LEN 3
static const int cycle_keys[CYCLE_LEN] = {K_A, K_B, K_A, K_C, K_D, K_E};

typedef struct {
    compi_trace_msg m;
    uint8_t *data;
} wl_msg;

static wl_msg wl[NKEYS];

static void wl_set(int k, uint32_t comm, int peer, int tag, int cls, int fam, int link, uint64_t size, size_t elem,
                   const char *node)
{
    compi_trace_msg *m = &wl[k].m;
    memset(m, 0, sizeof *m);
    m->comm_id = comm;
    m->peer = peer;
    m->tag = tag;
    m->dtclass = (uint8_t)cls;
    m->family = (uint8_t)fam;
    m->link_cls = (uint8_t)link;
    m->size = size;
    m->elem_size = elem;
    m->share = m->own = k == K_D ? 0 : 1; /* D: not said, recorded as alone */
    snprintf(m->peer_node, sizeof m->peer_node, "%s", node);
    free(wl[k].data);
    wl[k].data = calloc(size ? size : 1, 1);
}

static void wl_init(void)
{
    uint64_t seed = 42;
    for (int k = K_I0; k <= K_I2; k++) {
        wl_set(k, 0, 1, -1, COMPI_CLASS_INT, 7, 1, 64, 4, "nodeB");
        wl[k].m.tag = k;   /* three distinct keys */
        int32_t *v = (int32_t *)wl[k].data;
        for (int i = 0; i < 16; i++) v[i] = i * (k + 1);
    }
    wl_set(K_A, 1, 1, 10, COMPI_CLASS_DOUBLE, 1, 1, 1 << 20, 8, "nodeB");
    double *a = (double *)wl[K_A].data;
    for (size_t i = 0; i < (1 << 20) / 8; i++) a[i] = i % 4096 == 0 ? 2.5 : 1.0;
    wl_set(K_B, 1, 2, 11, COMPI_CLASS_BYTE, 1, 1, 256 << 10, 1, "nodeB");
    wl[K_B].m.share = 448; /* an alltoall's block among 64 ranks on 8 nodes */
    wl[K_B].m.own = 56;
    for (size_t i = 0; i < (256 << 10); i += 8) {
        uint64_t r = rng(&seed);
        memcpy(wl[K_B].data + i, &r, 8);
    }
    wl_set(K_C, 1, 3, 12, COMPI_CLASS_DOUBLE, 2, 0, (1 << 20) + 24, 8, "nodeA");
    double *c = (double *)wl[K_C].data;
    for (size_t i = 0; i < ((1 << 20) + 24) / 8; i++) c[i] = (double)i;
    wl_set(K_D, 1, 1, 13, COMPI_CLASS_BYTE, 1, 1, 40, 1, "nodeB");
    wl_set(K_E, 2, 2, 14, COMPI_CLASS_FLOAT, 3, 1, 32 << 10, 4, "nodeC");
    wl_set(K_F, 1, 1, 15, COMPI_CLASS_DOUBLE, 1, 1, 200 << 10, 8, "nodeB");
}

static uint64_t wl_key(int k) { return compi_trace_key(&wl[k].m); }

/* Records the workload; returns the number of messages. */
static uint64_t wl_run(compi_trace_writer *w, int iters)
{
    uint64_t seq = 0;
    for (int k = K_I0; k <= K_I2; k++) {
        wl[k].m.seq = seq++;
        compi_trace_record(w, &wl[k].m, wl[k].data);
    }
    for (int it = 0; it < iters; it++)
        for (int j = 0; j < CYCLE_LEN; j++) {
            wl_msg *x = &wl[cycle_keys[j]];
            x->m.seq = seq++;
            compi_trace_record(w, &x->m, x->data);
        }
    wl[K_I0].m.seq = seq++;
    compi_trace_record(w, &wl[K_I0].m, wl[K_I0].data);
    wl[K_F].m.seq = seq++;
    compi_trace_record(w, &wl[K_F].m, wl[K_F].data);
    return seq;
}

static void write_trace(const char *dir, int rank, int world, const char *my_node, int iters, size_t cap)
{
    char err[1024];
    compi_trace_writer *w = compi_trace_open(dir, rank, world, "test_guide", my_node, cap, err, sizeof err);
    if (!w) { fprintf(stderr, "FAIL [%s] compi_trace_open: %s\n", part, err); exit(1); }
    wl_run(w, iters);
    if (compi_trace_close(w, err, sizeof err) != COMPI_OK) { fprintf(stderr, "FAIL [%s] close: %s\n", part, err); exit(1); }
}

static const compi_trace_entry *find_entry(const compi_trace *t, uint64_t key)
{
    for (size_t i = 0; i < t->nentries; i++)
        if (t->entries[i].key == key) return &t->entries[i];
    return NULL;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* ------------------------------------------------------------ (a) round trip */

static uint8_t *slurp(const char *path, size_t *len);
static void spit(const char *path, const void *b, size_t len);
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_le32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

/* The trace at path rewritten as a version 2 file (index entries of 116
 * bytes: no burst), as an older compi wrote it, by hand from the format
 * in docs/guided.md: it must read back as v3's t with every burst 1/1. */
static void test_read_v2(const char *dir, const char *path, const compi_trace *t)
{
    size_t len = 0;
    uint8_t *img = slurp(path, &len), *v2 = malloc(len);
    CHECK(img && v2 && len > 372, "cannot read %s", path);
    if (!img || !v2) return;
    memcpy(v2, img, 372);
    put_le32(v2 + 8, 2);
    put_le32(v2 + 368, (uint32_t)crc32(0, v2, 368));
    size_t at = 372, out = 372;
    int indexed = 0;
    while (at + 12 <= len) {
        uint32_t type = le32(img + at), plen = le32(img + at + 4);
        const uint8_t *p = img + at + 8;
        uint8_t *q = v2 + out + 8;
        uint32_t qlen = plen;
        if (type == ((uint32_t)'I' | (uint32_t)'N' << 8 | (uint32_t)'D' << 16 | (uint32_t)'X' << 24)) {
            uint64_t n = le32(p) | (uint64_t)le32(p + 4) << 32;
            memcpy(q, p, 8);
            for (uint64_t i = 0; i < n; i++) memcpy(q + 8 + i * 116, p + 8 + i * 124, 116);
            qlen = (uint32_t)(8 + n * 116);
            indexed = 1;
        } else {
            memcpy(q, p, plen);
        }
        put_le32(v2 + out, type);
        put_le32(v2 + out + 4, qlen);
        put_le32(q + qlen, (uint32_t)crc32(crc32(0, v2 + out, 8), q, qlen));
        at += 12 + plen;
        out += 12 + qlen;
    }
    CHECK(indexed && at == len, "could not walk the chunks of %s", path);
    char v2path[4200], err[1024];
    snprintf(v2path, sizeof v2path, "%s/v2.bin", dir);
    spit(v2path, v2, out);
    compi_trace *o = compi_trace_load(v2path, err, sizeof err);
    CHECK(o && o->version == 2, "version 2 file not read: %s", o ? "wrong version" : err);
    if (o) {
        CHECK(o->nentries == t->nentries, "v2: %zu keys, v3 %zu", o->nentries, t->nentries);
        for (size_t i = 0; i < o->nentries && i < t->nentries; i++) {
            const compi_trace_entry *a = &o->entries[i], *b = &t->entries[i];
            CHECK(a->key == b->key && a->count == b->count && a->nsamples == b->nsamples &&
                      a->msg.size == b->msg.size && !strcmp(a->msg.peer_node, b->msg.peer_node),
                  "v2 entry %zu differs from v3's", i);
            CHECK(a->msg.share == 1 && a->msg.own == 1, "v2 entry %zu: burst %u/%u, not alone", i, a->msg.share,
                  a->msg.own);
        }
        compi_trace_free(o);
    }
    free(img);
    free(v2);
}

static void test_roundtrip(const char *dir)
{
    part = "roundtrip";
    fresh_dir(dir);
    wl_init();
    const int iters = 10;
    char err[1024], path[4096];
    compi_trace_writer *w = compi_trace_open(dir, 0, 4, "test_guide", "nodeA", 0, err, sizeof err);
    CHECK(w, "open: %s", err);
    if (!w) return;
    uint64_t n = wl_run(w, iters);
    compi_trace_stats live;
    compi_trace_get_stats(w, &live);
    CHECK(live.messages == n, "live messages %llu != %llu", (unsigned long long)live.messages, (unsigned long long)n);
    CHECK(live.cycle_len == CYCLE_LEN, "live cycle_len %llu", (unsigned long long)live.cycle_len);
    CHECK(compi_trace_close(w, err, sizeof err) == COMPI_OK, "close: %s", err);

    compi_trace_path(path, sizeof path, dir, 0);
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    CHECK(t, "load: %s", err);
    if (!t) return;
    CHECK(t->rank == 0 && t->world_size == 4, "rank %d world %d", t->rank, t->world_size);
    CHECK(!strcmp(t->program, "test_guide") && !strcmp(t->my_node, "nodeA"), "program '%s' node '%s'", t->program,
          t->my_node);
    CHECK(t->cap_bytes == COMPI_TRACE_DEFAULT_CAP, "cap %llu", (unsigned long long)t->cap_bytes);
    const compi_trace_stats *s = &t->stats;
    CHECK(s->messages == n && n == (uint64_t)(INIT_LEN + CYCLE_LEN * iters + 2), "messages %llu", (unsigned long long)s->messages);
    CHECK(t->nentries == NKEYS && s->keys == NKEYS, "keys %zu", t->nentries);
    CHECK(s->untracked_messages == 0 && !s->cap_reached, "untracked %llu cap_reached %d",
          (unsigned long long)s->untracked_messages, s->cap_reached);
    /* cycle: found when the second copy completed, right after the init phase */
    CHECK(s->cycle_len == CYCLE_LEN, "cycle_len %llu (expected %d)", (unsigned long long)s->cycle_len, CYCLE_LEN);
    CHECK(s->cycle_start == INIT_LEN, "cycle_start %llu", (unsigned long long)s->cycle_start);
    CHECK(s->cycle_detected_at == INIT_LEN + 2 * CYCLE_LEN - 1, "cycle_detected_at %llu",
          (unsigned long long)s->cycle_detected_at);
    CHECK(s->cycle_deviations == 2, "cycle_deviations %llu (the finalize phase's 2 messages)",
          (unsigned long long)s->cycle_deviations);
    CHECK(s->file_bytes == (uint64_t)file_size(path), "file_bytes");

    uint64_t bytes = 0, samples = 0, sbytes = 0;
    static const uint64_t want_count[NKEYS] = {2, 1, 1, 2 * iters, iters, iters, iters, iters, 1};
    /* occurrences 1, 2, 4, 8, 16 are sampled: 2 of 2, 5 of 20, 4 of 10 */
    static const uint32_t want_samples[NKEYS] = {2, 1, 1, 5, 4, 4, 4, 4, 1};
    for (int k = 0; k < NKEYS; k++) {
        const compi_trace_entry *e = find_entry(t, wl_key(k));
        CHECK(e, "key %d missing", k);
        if (!e) continue;
        bytes += e->count * e->msg.size;
        CHECK(e->count == want_count[k], "key %d count %llu, expected %llu", k, (unsigned long long)e->count,
              (unsigned long long)want_count[k]);
        CHECK(e->nsamples == want_samples[k], "key %d has %u samples, expected %u", k, e->nsamples, want_samples[k]);
        const compi_trace_msg *m = &e->msg, *x = &wl[k].m;
        CHECK(m->comm_id == x->comm_id && m->peer == x->peer && m->tag == x->tag && m->dtclass == x->dtclass &&
              m->family == x->family && m->link_cls == x->link_cls && m->size == x->size &&
              m->elem_size == x->elem_size && !strcmp(m->peer_node, x->peer_node), "key %d descriptor differs", k);
        CHECK(m->share == (x->share ? x->share : 1) && m->own == (x->own ? x->own : 1), "key %d: burst %u/%u", k,
              m->share, m->own);
        for (uint32_t j = 0; j < e->nsamples; j++) {
            const compi_trace_sample *sm = &e->samples[j];
            samples++;
            sbytes += sm->len;
            CHECK(sm->occurrence == (1u << j) - 1, "key %d sample %u occurrence %u", k, j, sm->occurrence);
            if (x->size <= COMPI_TRACE_SAMPLE_MAX) {
                CHECK(sm->nslices == 1 && sm->len == x->size && !memcmp(sm->data, wl[k].data, sm->len),
                      "key %d: whole-message sample differs", k);
            } else {
                CHECK(sm->nslices == COMPI_TRACE_SAMPLE_MAX / COMPI_TRACE_SLICE && sm->len == COMPI_TRACE_SAMPLE_MAX,
                      "key %d: strided sample of %u bytes in %u slices", k, sm->len, sm->nslices);
            }
        }
    }
    CHECK(s->bytes == bytes, "bytes %llu != %llu", (unsigned long long)s->bytes, (unsigned long long)bytes);
    CHECK(s->samples == samples && s->sample_bytes == sbytes, "sample totals");
    CHECK(find_entry(t, wl_key(K_I0))->msg.seq == 0, "first seq of I0");
    CHECK(t->entries[0].key == wl_key(K_I0) && t->entries[3].key == wl_key(K_A), "entries not in first-use order");

    /* strided slices of C (d[j] = j, 1 MiB + 24 B): every slice is whole,
     * consecutive doubles starting at an 8-byte aligned offset, the first at
     * 0 and the last ending near the message's end */
    const compi_trace_entry *c = find_entry(t, wl_key(K_C));
    if (c && c->nsamples) {
        const compi_trace_sample *sm = &c->samples[0];
        uint64_t size = c->msg.size, stride = (size - COMPI_TRACE_SLICE) / (sm->nslices - 1);
        for (uint32_t sl = 0; sl < sm->nslices; sl++) {
            double first;
            memcpy(&first, sm->data + (size_t)sl * COMPI_TRACE_SLICE, 8);
            uint64_t off = sl * stride;
            off -= off % 8;
            CHECK(first == (double)(off / 8), "C slice %u starts at value %g, expected %llu", sl, first,
                  (unsigned long long)(off / 8));
            CHECK(!memcmp(sm->data + (size_t)sl * COMPI_TRACE_SLICE, wl[K_C].data + off, COMPI_TRACE_SLICE),
                  "C slice %u content", sl);
        }
    }
    /* keys: distinct per field, independent of seq */
    compi_trace_msg m = wl[K_A].m;
    uint64_t k0 = compi_trace_key(&m);
    m.seq += 12345;
    strcpy(m.peer_node, "elsewhere");
    m.share = 7;
    m.own = 3;
    CHECK(compi_trace_key(&m) == k0, "key depends on seq, peer_node or the burst");
    m = wl[K_A].m; m.comm_id++; CHECK(compi_trace_key(&m) != k0, "key ignores comm_id");
    m = wl[K_A].m; m.peer++; CHECK(compi_trace_key(&m) != k0, "key ignores peer");
    m = wl[K_A].m; m.tag++; CHECK(compi_trace_key(&m) != k0, "key ignores tag");
    m = wl[K_A].m; m.dtclass = 0; CHECK(compi_trace_key(&m) != k0, "key ignores dtclass");
    m = wl[K_A].m; m.family++; CHECK(compi_trace_key(&m) != k0, "key ignores family");
    m = wl[K_A].m; m.size++; CHECK(compi_trace_key(&m) != k0, "key ignores size");
    test_read_v2(dir, path, t);
    compi_trace_free(t);

    /* no cycle: every message a new key */
    w = compi_trace_open(dir, 1, 4, "test_guide", "nodeA", 0, err, sizeof err);
    CHECK(w, "open: %s", err);
    if (!w) return;
    compi_trace_msg u = wl[K_D].m;
    for (int i = 0; i < 50; i++) {
        u.tag = 1000 + i;
        u.seq = (uint64_t)i;
        compi_trace_record(w, &u, wl[K_D].data);
    }
    compi_trace_get_stats(w, &live);
    CHECK(live.cycle_len == 0 && live.keys == 50 && live.samples == 50, "no-cycle run: cycle %llu keys %llu samples %llu",
          (unsigned long long)live.cycle_len, (unsigned long long)live.keys, (unsigned long long)live.samples);
    /* one key over and over: period 1 */
    u.tag = 7;
    for (int i = 0; i < 5; i++) compi_trace_record(w, &u, wl[K_D].data);
    compi_trace_get_stats(w, &live);
    CHECK(live.cycle_len == 1, "repeated key: cycle %llu", (unsigned long long)live.cycle_len);
    CHECK(compi_trace_close(w, err, sizeof err) == COMPI_OK, "close: %s", err);
}

/* ------------------------------------------------------------ cap */

static void test_cap(const char *dir)
{
    part = "cap";
    fresh_dir(dir);
    wl_init();
    char err[1024], path[4096];
    compi_trace_path(path, sizeof path, dir, 0);
    /* room for the index and a few samples: samples stop, counting goes on */
    size_t cap = compi_trace_min_cap() + NKEYS * 116 + 150000;
    write_trace(dir, 0, 2, "nodeA", 8, cap);
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    CHECK(t, "load: %s", err);
    CHECK(file_size(path) <= (long)cap, "file %ld bytes > cap %zu", file_size(path), cap);
    if (t) {
        CHECK(t->stats.cap_reached, "cap_reached not set");
        CHECK(t->stats.messages == INIT_LEN + 8 * CYCLE_LEN + 2, "messages %llu", (unsigned long long)t->stats.messages);
        CHECK(t->nentries == NKEYS && t->stats.untracked_messages == 0, "keys %zu untracked %llu", t->nentries,
              (unsigned long long)t->stats.untracked_messages);
        CHECK(t->stats.samples < 2 * NKEYS && t->stats.samples >= 2, "samples %llu", (unsigned long long)t->stats.samples);
        const compi_trace_entry *a = find_entry(t, wl_key(K_A));
        CHECK(a && a->count == 16, "A counted %llu times", a ? (unsigned long long)a->count : 0ull);
        CHECK(t->stats.cycle_len == CYCLE_LEN, "cycle still detected: %llu", (unsigned long long)t->stats.cycle_len);
        compi_trace_free(t);
    }
    /* room for only 2 index entries: later keys are counted as untracked */
    cap = compi_trace_min_cap() + 2 * 116 + 200;
    write_trace(dir, 0, 2, "nodeA", 8, cap);
    t = compi_trace_load(path, err, sizeof err);
    CHECK(t, "load: %s", err);
    CHECK(file_size(path) <= (long)cap, "file %ld bytes > cap %zu", file_size(path), cap);
    if (t) {
        uint64_t counted = 0;
        for (size_t i = 0; i < t->nentries; i++) counted += t->entries[i].count;
        CHECK(t->nentries == 2, "%zu keys", t->nentries);
        CHECK(t->stats.untracked_messages > 0 && counted + t->stats.untracked_messages == t->stats.messages,
              "untracked %llu", (unsigned long long)t->stats.untracked_messages);
        CHECK(t->stats.messages == INIT_LEN + 8 * CYCLE_LEN + 2, "messages %llu", (unsigned long long)t->stats.messages);
        compi_trace_free(t);
    }
    /* the smallest cap still gives a valid (empty) trace; below it open refuses */
    write_trace(dir, 0, 2, "nodeA", 2, compi_trace_min_cap());
    t = compi_trace_load(path, err, sizeof err);
    CHECK(t && t->nentries == 0 && t->stats.messages == INIT_LEN + 2 * CYCLE_LEN + 2, "min cap trace: %s",
          t ? "wrong counts" : err);
    compi_trace_free(t);
    compi_trace_writer *w = compi_trace_open(dir, 0, 2, "p", "n", compi_trace_min_cap() - 1, err, sizeof err);
    CHECK(!w && contains(err, "below the minimum"), "small cap: %s", w ? "accepted" : err);
    if (w) compi_trace_close(w, NULL, 0);
}

/* ------------------------------------------------------------ threads */

typedef struct { compi_trace_writer *w; int id; } th_arg;

static void *th_main(void *p)
{
    th_arg *a = p;
    uint8_t buf[512];
    memset(buf, a->id, sizeof buf);
    compi_trace_msg m = {0};
    m.peer = a->id;
    m.link_cls = 1;
    m.elem_size = 1;
    strcpy(m.peer_node, "nodeB");
    for (int i = 0; i < 20000; i++) {
        m.tag = i % 50;
        m.size = 64 + (uint64_t)(i % 7) * 64;
        m.seq = (uint64_t)i;
        compi_trace_record(a->w, &m, buf);
    }
    return NULL;
}

static void test_threads(const char *dir)
{
    part = "threads";
    fresh_dir(dir);
    char err[1024], path[4096];
    compi_trace_writer *w = compi_trace_open(dir, 0, 1, "test_guide", "nodeA", 0, err, sizeof err);
    CHECK(w, "open: %s", err);
    if (!w) return;
    pthread_t th[4];
    th_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (th_arg){w, i + 1};
        pthread_create(&th[i], NULL, th_main, &args[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    CHECK(compi_trace_close(w, err, sizeof err) == COMPI_OK, "close: %s", err);
    compi_trace_path(path, sizeof path, dir, 0);
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    CHECK(t, "load: %s", err);
    if (!t) return;
    uint64_t counted = 0;
    for (size_t i = 0; i < t->nentries; i++) counted += t->entries[i].count;
    CHECK(t->stats.messages == 80000 && counted == 80000, "messages %llu counted %llu",
          (unsigned long long)t->stats.messages, (unsigned long long)counted);
    CHECK(t->nentries == 4 * 350, "%zu keys (expected 4 threads x lcm(50,7))", t->nentries);
    compi_trace_free(t);
}

/* ------------------------------------------------------------ (b) guide */

static char *run_capture(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    if (!p) { *status = -1; return strdup(""); }
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap) out = realloc(out, cap *= 2);
    }
    out[len] = 0;
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

/* The ratio compi_guide -v -v printed for zstd on its first key, or -1. */
static double first_zstd_ratio(const char *out)
{
    const char *p = strstr(out, " zstd ");
    double r = -1;
    if (p && sscanf(p, " zstd ratio %lf", &r) != 1) r = -1;
    return r;
}

/* The guided run codes with COMPI_LEVEL: compi_guide codes the samples at
 * that level too (zstd at 19 finds more than at its default on the same
 * sample: compression output is deterministic), from the environment or
 * --level; a level out of range is refused with its name. */
static void test_guide_level(const char *guide, const char *tdir, const char *dir)
{
    char cmd[16384];
    int st;
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s/rl0' --time-ms 0.05 -v -v 2>&1", guide, tdir, dir);
    char *out0 = run_capture(cmd, &st);
    CHECK(st == 0, "compi_guide exited %d:\n%s", st, out0);
    snprintf(cmd, sizeof cmd, "COMPI_LEVEL=19 '%s' '%s' -o '%s/rl19' --time-ms 0.05 -v -v 2>&1", guide, tdir, dir);
    char *out19 = run_capture(cmd, &st);
    CHECK(st == 0, "compi_guide exited %d:\n%s", st, out19);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s/rl19b' --time-ms 0.05 --level 19 -v -v 2>&1", guide, tdir, dir);
    char *opt19 = run_capture(cmd, &st);
    double r0 = first_zstd_ratio(out0), r19 = first_zstd_ratio(out19), o19 = first_zstd_ratio(opt19);
    CHECK(r0 > 0 && r19 > r0, "zstd's ratio at COMPI_LEVEL=19 (%.2f) above its default's (%.2f)", r19, r0);
    CHECK(o19 == r19, "--level 19 (%.2f) as COMPI_LEVEL=19 (%.2f)", o19, r19);
    free(out0);
    free(out19);
    free(opt19);
    snprintf(cmd, sizeof cmd, "COMPI_LEVEL=30 '%s' '%s' -o '%s/rlbad' 2>&1", guide, tdir, dir);
    char *bad = run_capture(cmd, &st);
    CHECK(st != 0 && contains(bad, "COMPI_LEVEL needs an integer from -100 to 22"), "COMPI_LEVEL=30: %d %s", st, bad);
    free(bad);
}

/* An alltoall's block priced in its burst: the same 2 KiB of one
 * repeated double to two peers over a link of 500 us latency, once alone
 * (share 1: the latency leaves nothing to gain, raw) and once as one of
 * 448 blocks crossing the link, 56 of them this rank's (the burst's bytes
 * are worth compressing). */
static void test_guide_burst(const char *dir, const char *guide)
{
    char tdir[4096], rdir[4096], hdir[4096], cmd[16384], err[1024], path[4200];
    snprintf(tdir, sizeof tdir, "%s/burst_trace", dir);
    snprintf(rdir, sizeof rdir, "%s/burst_rules", dir);
    snprintf(hdir, sizeof hdir, "%s/burst_heur", dir);
    run_or_die((snprintf(cmd, sizeof cmd, "mkdir -p '%s'", hdir), cmd));
    snprintf(path, sizeof path, "%s/network.txt", hdir);
    FILE *f = fopen(path, "w");
    fprintf(f, "compi-heuristics 1 network\nsource test\nlink inter * *\nalpha_us 500\nbeta 1 8\nend\n"
               "link intra * *\nalpha_us 1\nbeta 1 0.2\nend\n");
    fclose(f);
    double blk[256];
    for (int i = 0; i < 256; i++) blk[i] = 20.0;
    compi_trace_msg alone = {0}, burst;
    alone.comm_id = 0;
    alone.peer = 9;
    alone.tag = -1;
    alone.dtclass = COMPI_CLASS_DOUBLE;
    alone.family = 14;
    alone.link_cls = 1;
    alone.size = sizeof blk;
    alone.elem_size = 8;
    alone.share = alone.own = 1;
    strcpy(alone.peer_node, "nodeB");
    burst = alone;
    burst.peer = 10;
    burst.share = 448;
    burst.own = 56;
    compi_trace_writer *w = compi_trace_open(tdir, 0, 64, "test_guide", "nodeA", 0, err, sizeof err);
    CHECK(w, "open: %s", err);
    if (!w) return;
    for (int i = 0; i < 4; i++) {
        alone.seq = (uint64_t)(2 * i);
        burst.seq = alone.seq + 1;
        compi_trace_record(w, &alone, blk);
        compi_trace_record(w, &burst, blk);
    }
    CHECK(compi_trace_close(w, err, sizeof err) == COMPI_OK, "close: %s", err);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --heuristics '%s' --time-ms 0.05 -v 2>&1", guide, tdir, rdir, hdir);
    int st;
    char *out = run_capture(cmd, &st);
    CHECK(st == 0, "compi_guide exited %d:\n%s", st, out);
    free(out);
    compi_rules *r = compi_rules_load(rdir, 0, 64, "test_guide", err, sizeof err);
    CHECK(r, "rules_load: %s", err);
    if (r) {
        const compi_codec *c = (const compi_codec *)1;
        CHECK(compi_rules_lookup(r, compi_trace_key(&alone), &c, NULL) == 1 && c == NULL,
              "the block alone: rule %s, expected raw", c ? "a codec" : "raw");
        c = NULL;
        CHECK(compi_rules_lookup(r, compi_trace_key(&burst), &c, NULL) == 1 && c != NULL,
              "the block in its burst: raw, expected a codec");
        compi_rules_free(r);
    }
    compi_rules_path(path, sizeof path, rdir, 0);
    size_t n = 0;
    uint8_t *img = slurp(path, &n), *text = img ? realloc(img, n + 1) : NULL;
    if (text) text[n] = 0;
    else free(img);
    CHECK(text && contains((char *)text, " burst=448/56 "), "rules file does not name the burst:\n%s",
          text ? (char *)text : "(none)");
    free(text);
}

static void test_guide(const char *dir, const char *guide)
{
    part = "guide";
    fresh_dir(dir);
    wl_init();
    char tdir[4096], rdir[4096], hdir[4096], cmd[16384], err[1024], path[4200];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    snprintf(rdir, sizeof rdir, "%s/rules", dir);
    snprintf(hdir, sizeof hdir, "%s/heur", dir);
    run_or_die((snprintf(cmd, sizeof cmd, "mkdir -p '%s'", hdir), cmd));
    /* ranks 0 and 1 of 4 traced (the others would run without rules) */
    write_trace(tdir, 0, 4, "nodeA", 6, 0);
    write_trace(tdir, 1, 4, "nodeA", 6, 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --heuristics '%s' --time-ms 0.05 -v 2>&1", guide, tdir, rdir, hdir);
    int st;
    char *out = run_capture(cmd, &st);
    CHECK(st == 0, "compi_guide exited %d:\n%s", st, out);
    CHECK(contains(out, "rank 0 (nodeA): 9 keys: 3 compress, 6 raw (1 intra-node)"), "summary line missing:\n%s", out);
    CHECK(contains(out, "cycle of 6 messages"), "cycle not reported:\n%s", out);
    CHECK(contains(out, "2 trace files for 4 ranks"), "missing-ranks warning absent:\n%s", out);
    CHECK(contains(out, "built-in network model") && contains(out, "built-in codec model"), "models:\n%s", out);
    free(out);
    test_guide_level(guide, tdir, dir);
    test_guide_burst(dir, guide);

    compi_rules *r = compi_rules_load(rdir, 0, 4, "test_guide", err, sizeof err);
    CHECK(r, "rules_load: %s", err);
    if (r) {
        CHECK(compi_rules_count(r) == NKEYS, "%zu rules", compi_rules_count(r));
        static const int compress[NKEYS] = {0, 0, 0, 1, 0, 0, 0, 1, 1};
        for (int k = 0; k < NKEYS; k++) {
            const compi_codec *c = (const compi_codec *)1;
            int has = compi_rules_lookup(r, wl_key(k), &c, NULL);
            CHECK(has == 1, "key %d has no rule", k);
            CHECK(has != 1 || (compress[k] ? c != NULL : c == NULL), "key %d: rule %s, expected %s", k,
                  c ? c->name : "raw", compress[k] ? "a codec" : "raw");
        }
        const compi_codec *c = NULL;
        CHECK(compi_rules_lookup(r, 0x1234, &c, NULL) == 0, "lookup of an unknown key succeeded");
        compi_rules_free(r);
    }
    /* the text format */
    compi_rules_path(path, sizeof path, rdir, 0);
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot open %s", path);
    if (f) {
        char line[1024];
        int nline = 0, nrule = 0, saw_prog = 0, saw_ranks = 0, saw_rank = 0, saw_end = 0, intra_why = 0;
        while (fgets(line, sizeof line, f)) {
            nline++;
            if (nline == 1) CHECK(!strcmp(line, "compi-rules 1\n"), "first line '%s'", line);
            saw_prog |= !strcmp(line, "program test_guide\n");
            saw_ranks |= !strcmp(line, "ranks 4\n");
            saw_rank |= !strcmp(line, "rank 0\n");
            if (!strncmp(line, "end ", 4)) saw_end = atoi(line + 4) == NKEYS;
            if (!strncmp(line, "rule ", 5)) {
                nrule++;
                CHECK(strlen(line) > 22 && line[21] == ' ' && contains(line, "# size=") && contains(line, " peer=") &&
                      contains(line, " tag=") && contains(line, " class="), "rule line '%s'", line);
                intra_why |= contains(line, "why=intra-node");
                if (!contains(line, " raw ")) CHECK(contains(line, "predicted="), "no prediction: %s", line);
            }
        }
        fclose(f);
        CHECK(saw_prog && saw_ranks && saw_rank && saw_end && nrule == NKEYS && intra_why, "rules file layout");
    }
    /* rank 1 too, and rank 2 has none */
    r = compi_rules_load(rdir, 1, 4, "test_guide", err, sizeof err);
    CHECK(r && compi_rules_count(r) == NKEYS, "rank 1: %s", r ? "wrong count" : err);
    compi_rules_free(r);
    r = compi_rules_load(rdir, 2, 4, "test_guide", err, sizeof err);
    CHECK(!r && contains(err, "rules.2.txt: cannot open"), "rank 2: %s", r ? "loaded" : err);
    compi_rules_free(r);

    /* a network model where bandwidth is free: nothing pays, all raw; the
     * exact node pair is found (the "*" default would say compress) */
    snprintf(path, sizeof path, "%s/network.txt", hdir);
    f = fopen(path, "w");
    fprintf(f, "compi-heuristics 1 network\nsource test\n"
               "link inter nodeB nodeA\nalpha_us 1\nbeta 1 0.0001\nend\n"
               "link inter nodeC nodeA\nalpha_us 1\nbeta 1 0.0001\nend\n"
               "link inter * *\nalpha_us 50\nbeta 1 8\nend\n"
               "link intra * *\nalpha_us 1\nbeta 1 0.2\nend\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --heuristics '%s' --time-ms 0.05 --all-codecs 2>&1", guide, tdir, rdir,
             hdir);
    out = run_capture(cmd, &st);
    CHECK(st == 0 && contains(out, "rank 0 (nodeA): 9 keys: 0 compress, 9 raw"), "fast network:\n%s", out);
    free(out);
    /* a --min-speedup nothing reaches */
    remove(path);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --heuristics '%s' --time-ms 0.05 --min-speedup 1e6 -q 2>&1", guide,
             tdir, rdir, hdir);
    out = run_capture(cmd, &st);
    CHECK(st == 0 && !contains(out, "rank 0"), "quiet run printed:\n%s", out);
    free(out);
    r = compi_rules_load(rdir, 0, 4, "test_guide", err, sizeof err);
    if (r) {
        const compi_codec *c = NULL;
        CHECK(compi_rules_lookup(r, wl_key(K_A), &c, NULL) == 1 && c == NULL, "min-speedup 1e6: A not raw");
        compi_rules_free(r);
    } else {
        CHECK(0, "rules_load: %s", err);
    }
    /* a trace that hit its cap: keys without samples get no rule (the
     * intra-node key needs none), and the guide says so */
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/capped", dir);
    write_trace(cdir, 0, 1, "nodeA", 6, compi_trace_min_cap() + NKEYS * 116 + 150000);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --heuristics '%s' --time-ms 0.05 2>&1", guide, cdir, hdir);
    out = run_capture(cmd, &st);
    CHECK(st == 0 && contains(out, "9 keys: 1 compress, 5 raw (1 intra-node), 3 without samples (no rule)") &&
          contains(out, "reached its size cap"), "capped trace:\n%s", out);
    free(out);
    r = compi_rules_load(cdir, 0, 1, "test_guide", err, sizeof err);
    CHECK(r && compi_rules_count(r) == 6, "capped rules: %s", r ? "count" : err);
    if (r) {
        const compi_codec *c = NULL;
        CHECK(compi_rules_lookup(r, wl_key(K_E), &c, NULL) == 0, "unsampled key E has a rule");
        CHECK(compi_rules_lookup(r, wl_key(K_C), &c, NULL) == 1 && c == NULL, "intra key C: no raw rule");
        CHECK(compi_rules_lookup(r, wl_key(K_A), &c, NULL) == 1 && c != NULL, "sampled key A not compressed");
        compi_rules_free(r);
    }

    /* default output dir = the trace dir */
    snprintf(cmd, sizeof cmd, "'%s' '%s' --heuristics '%s' --time-ms 0.05 -q 2>&1", guide, tdir, hdir);
    out = run_capture(cmd, &st);
    free(out);
    r = compi_rules_load(tdir, 0, 4, "test_guide", err, sizeof err);
    CHECK(st == 0 && r, "rules next to the trace: %s", r ? "" : err);
    compi_rules_free(r);
}

/* ------------------------------------------------------------ (c) errors */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len ? *len : 1);
    if (fread(b, 1, *len, f) != *len) { free(b); b = NULL; }
    fclose(f);
    return b;
}

static void spit(const char *path, const void *b, size_t len)
{
    /* a new file each time: rewriting one in place makes ext4 flush it to
     * disk on close (auto_da_alloc), which made this test slow */
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, len, f) != len) { fprintf(stderr, "FAIL cannot write %s\n", path); exit(1); }
    fclose(f);
}

static void spit_text(const char *path, const char *s) { spit(path, s, strlen(s)); }

/* A small trace (~67 KB, so the many damaged copies below are quick) with
 * every kind of chunk: I0 D I0 D I0 D (a cycle of 2), then F once (a
 * strided sample taken after the cycle was found). */
static void write_small_trace(const char *dir)
{
    char err[1024];
    compi_trace_writer *w = compi_trace_open(dir, 0, 4, "test_guide", "nodeA", 0, err, sizeof err);
    if (!w) { fprintf(stderr, "FAIL [%s] compi_trace_open: %s\n", part, err); exit(1); }
    uint64_t seq = 0;
    for (int it = 0; it < 3; it++) {
        wl[K_I0].m.seq = seq++;
        compi_trace_record(w, &wl[K_I0].m, wl[K_I0].data);
        wl[K_D].m.seq = seq++;
        compi_trace_record(w, &wl[K_D].m, wl[K_D].data);
    }
    wl[K_F].m.seq = seq++;
    compi_trace_record(w, &wl[K_F].m, wl[K_F].data);
    compi_trace_stats s;
    compi_trace_get_stats(w, &s);
    CHECK(s.cycle_len == 2 && s.samples == 5 && s.keys == 3, "small trace: cycle %llu samples %llu keys %llu",
          (unsigned long long)s.cycle_len, (unsigned long long)s.samples, (unsigned long long)s.keys);
    if (compi_trace_close(w, err, sizeof err) != COMPI_OK) { fprintf(stderr, "FAIL [%s] close: %s\n", part, err); exit(1); }
}

/* Loads a damaged trace: must fail, with one of the expected words. */
static void expect_bad_trace(const char *path, const char *what, const char *w1, const char *w2)
{
    char err[1024] = "";
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    CHECK(!t, "%s: accepted", what);
    CHECK(t || contains(err, path), "%s: error does not name the file: %s", what, err);
    CHECK(t || contains(err, w1) || (w2 && contains(err, w2)), "%s: error '%s' lacks '%s'%s%s", what, err, w1,
          w2 ? " or " : "", w2 ? w2 : "");
    compi_trace_free(t);
}

static void expect_bad_rules(const char *dir, const char *text, const char *what, const char *needle)
{
    char path[4200], err[1024] = "";
    compi_rules_path(path, sizeof path, dir, 0);
    spit_text(path, text);
    compi_rules *r = compi_rules_load(dir, 0, 4, "test_guide", err, sizeof err);
    CHECK(!r, "%s: accepted", what);
    CHECK(r || contains(err, needle), "%s: error '%s' lacks '%s'", what, err, needle);
    compi_rules_free(r);
}


typedef struct {
    compi_rules *r;
    size_t index;
    int drops;
} outcome_args;

static void *outcome_main(void *p)
{
    outcome_args *a = p;
    for (int k = 0; k < 1000; k++) a->drops += compi_rules_outcome(a->r, a->index, 1, 4, 16);
    return NULL;
}

static void test_errors(const char *dir, const char *guide)
{
    part = "errors";
    fresh_dir(dir);
    wl_init();
    char tdir[4096], bad[4200], good[4200], err[1024], cmd[16384];
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    write_small_trace(tdir);
    compi_trace_path(good, sizeof good, tdir, 0);
    snprintf(bad, sizeof bad, "%s/bad.bin", dir);
    size_t len = 0;
    uint8_t *img = slurp(good, &len);
    CHECK(img && len > 65536 && len < 70000, "trace image of %zu bytes", len);
    if (!img) return;

    /* missing, not a trace */
    snprintf(err, sizeof err, "%s/nope.bin", dir);
    expect_bad_trace(err, "missing file", "cannot open", NULL);
    spit_text(bad, "compi-rules 1\nthis is text\n");
    expect_bad_trace(bad, "text file", "not a compi trace file", NULL);
    spit(bad, "", 0);
    expect_bad_trace(bad, "empty file", "not a compi trace file", NULL);

    /* truncated anywhere: header, chunk headers, samples, index, summary */
    int ntrunc = 0;
    for (size_t cut = 8; cut < len; cut += (cut < 600 || cut > len - 400) ? 1 : 97) {
        spit(bad, img, cut);
        char what[64];
        snprintf(what, sizeof what, "truncated at %zu of %zu", cut, len);
        expect_bad_trace(bad, what, "truncated", NULL);
        ntrunc++;
    }
    CHECK(ntrunc > 1000, "only %d truncations tried", ntrunc);
    spit(bad, img, len - 108);   /* cut exactly before the summary chunk */
    expect_bad_trace(bad, "no summary", "without its summary", NULL);

    /* one flipped byte anywhere is detected */
    uint8_t *cp = malloc(len);
    for (size_t off = 0; off < len; off += (off < 600 || off > len - 400) ? 1 : 97) {
        memcpy(cp, img, len);
        cp[off] ^= 0x20;
        spit(bad, cp, len);
        char what[64];
        snprintf(what, sizeof what, "byte %zu of %zu flipped", off, len);
        char err2[1024] = "";
        compi_trace *t = compi_trace_load(bad, err2, sizeof err2);
        CHECK(!t, "%s: accepted", what);
        CHECK(t || contains(err2, "corrupt") || contains(err2, "truncated") || contains(err2, "not a compi trace") ||
              contains(err2, "version"), "%s: unclear error '%s'", what, err2);
        compi_trace_free(t);
    }
    /* another format version */
    memcpy(cp, img, len);
    cp[8] = 4;
    spit(bad, cp, len);
    expect_bad_trace(bad, "version 4", "trace format version 4 is not supported", NULL);
    /* bytes after the summary */
    memcpy(cp, img, len);
    FILE *f = fopen(bad, "wb");
    fwrite(cp, 1, len, f);
    fwrite("junk", 1, 4, f);
    fclose(f);
    expect_bad_trace(bad, "trailing bytes", "unexpected bytes after the summary", NULL);
    free(cp);

    /* compi_guide on a directory with a corrupt trace: exit 1, names the file */
    spit(good, img, len / 2);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --heuristics '%s' --time-ms 0.05 2>&1", guide, tdir, dir);
    int st;
    char *out = run_capture(cmd, &st);
    CHECK(st == 1 && contains(out, "trace.0.bin: truncated"), "guide on a truncated trace (exit %d):\n%s", st, out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' '%s' 2>&1", guide, dir);   /* no trace.*.bin there */
    out = run_capture(cmd, &st);
    CHECK(st == 1 && contains(out, "no trace.<rank>.bin files"), "guide on an empty dir (exit %d):\n%s", st, out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --min-speedup abc 2>&1", guide, tdir);
    out = run_capture(cmd, &st);
    CHECK(st == 2 && contains(out, "--min-speedup needs a number"), "bad option (exit %d):\n%s", st, out);
    free(out);
    spit(good, img, len);
    char hdir[4200];
    snprintf(hdir, sizeof hdir, "%s/heur", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && printf 'compi-heuristics 1 codecs\\ncandidates double nosuch\\n' > '%s/codecs.txt'",
             hdir, hdir);
    run_or_die(cmd);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --heuristics '%s' 2>&1", guide, tdir, hdir);
    out = run_capture(cmd, &st);
    CHECK(st == 1 && contains(out, "codecs.txt:2: unknown codec 'nosuch'"), "bad heuristics (exit %d):\n%s", st, out);
    free(out);
    /* a mistyped directory is an error, not the built-in models */
    snprintf(cmd, sizeof cmd, "'%s' '%s' --heuristics '%s-typo' 2>&1", guide, tdir, hdir);
    out = run_capture(cmd, &st);
    CHECK(st == 1 && contains(out, "heur-typo: no such directory"), "mistyped heuristics (exit %d):\n%s", st, out);
    free(out);
    free(img);

    /* writer: a directory that cannot be created */
    snprintf(err, sizeof err, "%s/afile", dir);
    spit_text(err, "x");
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/afile/sub", dir);
    compi_trace_writer *w = compi_trace_open(sub, 0, 1, "p", "n", 0, err, sizeof err);
    CHECK(!w && contains(err, "cannot create directory"), "open under a file: %s", w ? "accepted" : err);
    w = compi_trace_open(dir, 3, 2, "p", "n", 0, err, sizeof err);
    CHECK(!w && contains(err, "rank 3 out of range"), "rank out of range: %s", w ? "accepted" : err);

    /* rules: a good file, then one defect at a time */
    char rdir[4200];
    snprintf(rdir, sizeof rdir, "%s/rules", dir);
    compi_rule rl[3] = {{0x00000000000000aaull, compi_codec_by_name("lz4"), &wl[K_A].m, 4, 3.5, 2.1, NULL, 5.0},
                        {0xffffffffffffff01ull, NULL, &wl[K_B].m, 4, 1.0, 0.9, "incompressible", 0},
                        {0x123456789abcdef0ull, compi_codec_by_name("zstd"), NULL, 0, 0, 0, NULL, 0}};
    CHECK(compi_rules_save(rdir, 0, 4, "test_guide", rl, 3, "a comment\nsecond line", err, sizeof err) == COMPI_OK,
          "save: %s", err);
    {   /* the best candidate's ratio is written for compi map (not read back by guided mode) */
        char rf[4300], text[4096] = "";
        snprintf(rf, sizeof rf, "%s/rules.0.txt", rdir);
        FILE *f = fopen(rf, "r");
        size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f) fclose(f);
        text[got] = 0;
        const char *a = strstr(text, "ratio=3.50 max_ratio=5.00"), *b = strstr(text, "ratio=1.00");
        CHECK(a && b && !strstr(b, "ratio=1.00 max_ratio"), "max_ratio written when measured, only then:\n%s", text);
    }
    compi_rules *r = compi_rules_load(rdir, 0, 4, "test_guide", err, sizeof err);
    CHECK(r && compi_rules_count(r) == 3, "good rules: %s", r ? "count" : err);
    if (r) {
        const compi_codec *c = NULL;
        CHECK(compi_rules_lookup(r, 0xaa, &c, NULL) == 1 && c == compi_codec_by_name("lz4"), "lookup aa");
        CHECK(compi_rules_lookup(r, 0xffffffffffffff01ull, &c, NULL) == 1 && c == NULL, "lookup raw");
        CHECK(compi_rules_lookup(r, 0x123456789abcdef0ull, &c, NULL) == 1 && c == compi_codec_by_name("zstd"), "lookup zstd");
        CHECK(compi_rules_lookup(r, 0xab, &c, NULL) == 0, "lookup missing");

        /* run-time feedback: 4 mistakes among the last 16 compressions drop a
         * rule (lookups then miss it); successes in between age mistakes out */
        size_t ia = 99, iz = 99;
        CHECK(compi_rules_lookup(r, 0xaa, &c, &ia) == 1 && ia < 3, "index of aa: %zu", ia);
        CHECK(compi_rules_lookup(r, 0x123456789abcdef0ull, &c, &iz) == 1 && iz < 3 && iz != ia, "index of zstd: %zu", iz);
        int dropped = 0;
        for (int k = 0; k < 3; k++) dropped |= compi_rules_outcome(r, ia, 1, 4, 16);
        for (int k = 0; k < 14; k++) dropped |= compi_rules_outcome(r, ia, 0, 4, 16);   /* the 3 mistakes age out */
        dropped |= compi_rules_outcome(r, ia, 1, 4, 16);
        CHECK(!dropped && compi_rules_lookup(r, 0xaa, &c, NULL) == 1 && compi_rules_dropped(r) == 0,
              "aa dropped by 3 old mistakes and 1 new one");
        for (int k = 0; k < 2; k++) dropped |= compi_rules_outcome(r, ia, 1, 4, 16);
        CHECK(!dropped, "aa dropped at 3 mistakes in its last 16");
        CHECK(compi_rules_outcome(r, ia, 1, 4, 16) == 1, "the 4th mistake in 16 did not drop aa");
        CHECK(compi_rules_outcome(r, ia, 1, 4, 16) == 0, "a dropped rule reported dropped twice");
        CHECK(compi_rules_lookup(r, 0xaa, &c, NULL) == 0 && compi_rules_dropped(r) == 1, "dropped aa still found");
        CHECK(compi_rules_lookup(r, 0x123456789abcdef0ull, &c, NULL) == 1, "dropping aa dropped the zstd rule too");
        for (int k = 0; k < 100; k++) dropped |= compi_rules_outcome(r, iz, 1, 0, 16);
        CHECK(!dropped && compi_rules_lookup(r, 0x123456789abcdef0ull, &c, NULL) == 1, "limit 0 dropped a rule");
        CHECK(compi_rules_outcome(r, 3, 1, 1, 16) == 0 && compi_rules_outcome(NULL, 0, 1, 1, 16) == 0,
              "out-of-range index or NULL rules");
        CHECK(compi_rules_outcome(r, iz, 1, 1, 1) == 1 && compi_rules_dropped(r) == 2, "limit 1 of 1 did not drop");
        compi_rules_free(r);
    }
    /* many threads judging one rule: it is dropped once */
    r = compi_rules_load(rdir, 0, 4, "test_guide", err, sizeof err);
    CHECK(r, "reload: %s", err);
    if (r) {
        size_t ia = 0;
        CHECK(compi_rules_lookup(r, 0xaa, NULL, &ia) == 1, "reload: aa");
        outcome_args oa[4];
        pthread_t th[4];
        for (int i = 0; i < 4; i++) {
            oa[i] = (outcome_args){r, ia, 0};
            pthread_create(&th[i], NULL, outcome_main, &oa[i]);
        }
        int drops = 0;
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            drops += oa[i].drops;
        }
        CHECK(drops == 1 && compi_rules_dropped(r) == 1, "4 threads: %d drops reported, %zu counted", drops,
              compi_rules_dropped(r));
        compi_rules_free(r);
    }
    /* stale: other program, world size, rank */
    r = compi_rules_load(rdir, 0, 4, "other_prog", err, sizeof err);
    CHECK(!r && contains(err, "stale rules") && contains(err, "'test_guide'") && contains(err, "'other_prog'"),
          "other program: %s", r ? "accepted" : err);
    compi_rules_free(r);
    r = compi_rules_load(rdir, 0, 8, "test_guide", err, sizeof err);
    CHECK(!r && contains(err, "stale rules") && contains(err, "with 4 ranks") && contains(err, "with 8 ranks"),
          "other world size: %s", r ? "accepted" : err);
    compi_rules_free(r);
    /* program names with blanks and '#' survive the text format */
    CHECK(compi_rules_save(rdir, 0, 4, "my prog#2", rl, 1, NULL, err, sizeof err) == COMPI_OK, "save: %s", err);
    r = compi_rules_load(rdir, 0, 4, "my prog#2", err, sizeof err);
    CHECK(r && compi_rules_count(r) == 1, "odd program name: %s", r ? "count" : err);
    compi_rules_free(r);

    const char *hdr = "compi-rules 1\nprogram test_guide\nranks 4\nrank 0\n";
    char text[2048];
    expect_bad_rules(rdir, "", "empty", "empty file");
    expect_bad_rules(rdir, "hello world\n", "not rules", "rules.0.txt:1: not a compi rules file");
    expect_bad_rules(rdir, "compi-rules 2\nprogram test_guide\nranks 4\nrank 0\nend 0\n", "version 2",
                     "rules.0.txt:1: rules format version '2' is not supported");
    snprintf(text, sizeof text, "%srule 00000000000000aa zzz\nend 1\n", hdr);
    expect_bad_rules(rdir, text, "unknown codec", "rules.0.txt:5: unknown codec 'zzz'");
    snprintf(text, sizeof text, "%srule 12345 lz4\nend 1\n", hdr);
    expect_bad_rules(rdir, text, "short key", "rules.0.txt:5: key '12345' is not 16 hex digits");
    snprintf(text, sizeof text, "%srule 00000000000000ag lz4\nend 1\n", hdr);
    expect_bad_rules(rdir, text, "non-hex key", "is not 16 hex digits");
    snprintf(text, sizeof text, "%srule 00000000000000aa lz4\n", hdr);
    expect_bad_rules(rdir, text, "no end", "no 'end' line: the file is truncated");
    snprintf(text, sizeof text, "%srule 00000000000000aa lz4\nrule 00000000000000bb raw\nend 3\n", hdr);
    expect_bad_rules(rdir, text, "end count", "rules.0.txt:7: 'end 3' but the file has 2 rules");
    snprintf(text, sizeof text, "%srule 00000000000000aa lz4\nrule 00000000000000AA raw\nend 2\n", hdr);
    expect_bad_rules(rdir, text, "duplicate", "two rules for key 00000000000000aa");
    expect_bad_rules(rdir, "compi-rules 1\nrule 00000000000000aa lz4\nend 1\n", "rule first",
                     "rules.0.txt:2: 'rule' before the program, ranks and rank lines");
    snprintf(text, sizeof text, "%scodec 00000000000000aa lz4\nend 0\n", hdr);
    expect_bad_rules(rdir, text, "unknown keyword", "rules.0.txt:5: unknown keyword 'codec'");
    snprintf(text, sizeof text, "%send 0\nrule 00000000000000aa lz4\n", hdr);
    expect_bad_rules(rdir, text, "after end", "rules.0.txt:6: 'rule' after the 'end' line");
    snprintf(text, sizeof text, "%srule 00000000000000aa lz4 extra\nend 1\n", hdr);
    expect_bad_rules(rdir, text, "extra field", "rules.0.txt:5: expected 'rule <key");
    expect_bad_rules(rdir, "compi-rules 1\nprogram test_guide\nranks zero\nrank 0\nend 0\n", "bad ranks",
                     "rules.0.txt:3: expected 'ranks <count >= 1>'");
    expect_bad_rules(rdir, "compi-rules 1\nprogram test_guide\nranks 4\nrank 1\nend 0\n", "other rank",
                     "made for program 'test_guide' with 4 ranks (rank 1)");
    r = compi_rules_load(dir, 7, 8, "test_guide", err, sizeof err);
    CHECK(!r && contains(err, "rules.7.txt: cannot open: No such file"), "missing rules: %s", r ? "loaded" : err);
    compi_rules_free(r);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_guide --roundtrip|--cap|--threads DIR | --guide|--errors DIR GUIDE_BIN\n");
        return 2;
    }
    const char *what = argv[1], *dir = argv[2], *guide = argc > 3 ? argv[3] : NULL;
    if (!strcmp(what, "--roundtrip")) test_roundtrip(dir);
    else if (!strcmp(what, "--cap")) test_cap(dir);
    else if (!strcmp(what, "--threads")) test_threads(dir);
    else if (!strcmp(what, "--guide") && guide) test_guide(dir, guide);
    else if (!strcmp(what, "--errors") && guide) test_errors(dir, guide);
    else { fprintf(stderr, "test_guide: unknown part '%s' (or GUIDE_BIN missing)\n", what); return 2; }
    for (int k = 0; k < NKEYS; k++) free(wl[k].data);
    if (failures) { fprintf(stderr, "%s: %d failures\n", what, failures); return 1; }
    printf("%s: OK\n", what);
    return 0;
}
