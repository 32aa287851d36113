/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_calibrate_codecs: measures every codec of the table on synthetic data
 * (or on the user's sample files) and writes the codec heuristics file
 * (docs/heuristics.md): the candidate codecs per datatype class and the
 * T_decompress / T_compress relation per codec and compression-ratio bucket.
 * MPI-free.
 *
 *   compi_calibrate_codecs [-o codecs.txt] [--quick] [--reps N] [--sizes LIST]
 *                          [--codecs a,b,...] [--files F1 F2 ... --class C]
 *                          [--print-c] [--quiet]
 *
 * Data ([Filgueira 2010]'s synthetic sets, README.md References): buffer sizes 100 KB .. 3000 KB,
 * per class the redundancy levels 0/25/50/75/100 % without a pattern plus
 * sets with one:
 *   int     int_r0 .. int_r100, int_pattern (1000, 1003, 1006, ...)
 *   float   float_r0 .. float_r100, float_pattern (50001, 50003, ...)
 *   double  double_r0 .. double_r100, double_pattern, double_smooth
 *   byte    int_r0 .. int_r100 taken as bytes (binary records), text, random
 * (the *_rX, double_*, text and random sets are lib/common/datasets.c's; the
 * int/float patterns are made here).
 *
 * Per codec, data set and size: the compression ratio, compress and
 * decompress speed, each the median of several timed runs (a run repeats the
 * call until it lasts a few ms, so small buffers time well), timed in the
 * thread's CPU time so a busy shared machine does not skew them (--wall for
 * wall-clock time).
 *
 * Candidates (per class, at most 4): a codec is a candidate when it is the
 * fastest way to deliver some buffer of the class over some network, i.e. for
 * a buffer of S bytes and a bandwidth B in {10 Mbit/s, 100 Mbit/s, 1 Gbit/s,
 * 10 Gbit/s} it minimises S/(r*B) + T_c + T_d and beats sending raw (S/B):
 * the adaptive engine's own speedup test. Such a winner always sits on that
 * buffer's ratio/time Pareto front (else the codec dominating it would win). The
 * winners are ranked by how many (buffer, bandwidth) cases they win, ties by
 * aggregate ratio, and the top 4 kept.
 *
 * Relations: per codec and class, ratio buckets [0,1.1) [1.1,2) [2,4)
 * [4,10) [10,1e9), the median of T_d/T_c over the measurements whose ratio
 * falls in the bucket. Rows per class for that class's candidates; "*" rows
 * (all classes pooled) for every codec, an empty "*" bucket filled from the
 * nearest measured one so a codec's "*" rows cover every ratio. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/safefile.h"
#include "common/datasets.h"
#include "engine/model.h"
#include "engine/stats.h"

#define CC_MAX_SETS 64
#define CC_MAX_SIZES 16
#define CC_MAX_CODECS 32
#define CC_NBUCKETS 5
#define CC_MAX_CANDIDATES 4

static const double cc_bucket_lo[CC_NBUCKETS] = {0, 1.1, 2, 4, 10};
static const double cc_bucket_hi[CC_NBUCKETS] = {1.1, 2, 4, 10, 1e9};
/* Bandwidths (bytes/s) of the candidate rule: 10 Mbit/s .. 10 Gbit/s. */
static const double cc_bw[] = {1.25e6, 1.25e7, 1.25e8, 1.25e9};
#define CC_NBW (sizeof cc_bw / sizeof cc_bw[0])

typedef enum { CC_SRC_DATASET, CC_SRC_INT_PATTERN, CC_SRC_FLOAT_PATTERN, CC_SRC_FILE } cc_src;

typedef struct {
    char name[96];
    int cls;
    cc_src src;
    int ds;           /* data set index for CC_SRC_DATASET */
    const char *path; /* CC_SRC_FILE */
} cc_set;

typedef struct {
    int set, codec;
    size_t size;
    double ratio, tc, td; /* seconds per call */
} cc_row;

typedef struct {
    cc_set sets[CC_MAX_SETS];
    int nsets;
    size_t sizes[CC_MAX_SIZES];
    int nsizes;
    const compi_codec *codecs[CC_MAX_CODECS];
    int ncodecs;
    int reps;
    double min_run_s;
    int quiet;
    cc_row *rows;
    int nrows, caprows;
} cc_ctx;

static void cc_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "compi_calibrate_codecs: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *cc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) cc_die("out of memory (%zu bytes)", n);
    return p;
}

static double cc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The codec timer: this thread's CPU time (every codec runs in the calling
 * thread), so other processes on a shared machine do not inflate codec
 * times; on a dedicated node it equals wall time. --wall: CLOCK_MONOTONIC. */
static int cc_wall_clock;

static double cc_codec_now(void)
{
    struct timespec ts;
    clock_gettime(cc_wall_clock ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t cc_elem_size(int cls)
{
    return cls == COMPI_CLASS_DOUBLE ? 8 : cls == COMPI_CLASS_BYTE ? 1 : 4;
}

/* ------------------------------------------------------------ data */

static void cc_add_set(cc_ctx *c, const char *name, int cls, cc_src src, int ds, const char *path)
{
    if (c->nsets == CC_MAX_SETS) cc_die("too many data sets (max %d)", CC_MAX_SETS);
    cc_set *s = &c->sets[c->nsets++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->cls = cls;
    s->src = src;
    s->ds = ds;
    s->path = path;
}

static void cc_add_dataset(cc_ctx *c, const char *dsname, int cls, const char *label)
{
    int ds = compi_dataset_find(dsname);
    if (ds < 0) cc_die("internal: no data set '%s' in lib/common/datasets.c", dsname);
    cc_add_set(c, label ? label : dsname, cls, CC_SRC_DATASET, ds, NULL);
}

static void cc_synthetic_sets(cc_ctx *c, int skip_cls)
{
    static const char *const lv[] = {"r0", "r25", "r50", "r75", "r100"};
    char n[64], label[96];
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++) {
        if (cls == skip_cls) continue;
        const char *pre = cls == COMPI_CLASS_INT      ? "int"
                          : cls == COMPI_CLASS_FLOAT  ? "float"
                          : cls == COMPI_CLASS_DOUBLE ? "double"
                                                      : "int";
        for (int i = 0; i < 5; i++) {
            snprintf(n, sizeof n, "%s_%s", pre, lv[i]);
            snprintf(label, sizeof label, "%s%s", n, cls == COMPI_CLASS_BYTE ? ":bytes" : "");
            cc_add_dataset(c, n, cls, label);
        }
        switch (cls) {
        case COMPI_CLASS_BYTE:
            cc_add_dataset(c, "text", cls, NULL);
            cc_add_dataset(c, "random", cls, NULL);
            break;
        case COMPI_CLASS_INT: cc_add_set(c, "int_pattern", cls, CC_SRC_INT_PATTERN, -1, NULL); break;
        case COMPI_CLASS_FLOAT: cc_add_set(c, "float_pattern", cls, CC_SRC_FLOAT_PATTERN, -1, NULL); break;
        case COMPI_CLASS_DOUBLE:
            cc_add_dataset(c, "double_pattern", cls, NULL);
            cc_add_dataset(c, "double_smooth", cls, NULL);
            break;
        }
    }
}

/* Reads a whole file; *len its size. */
static unsigned char *cc_read_file(const char *path, size_t *len)
{
    char err[4400];
    FILE *f = compi_file_open_read(path, NULL, err, sizeof err);
    if (!f) cc_die("%s", err);
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = cc_xmalloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) cc_die("out of memory reading %s", path);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) cc_die("%s: read error", path);
    fclose(f);
    if (n == 0) cc_die("%s: empty file", path);
    *len = n;
    return buf;
}

/* The set's bytes, at least max_len of them (a file: all of it). */
static unsigned char *cc_make_data(const cc_set *s, size_t max_len, size_t *len, uint64_t seed)
{
    if (s->src == CC_SRC_FILE) return cc_read_file(s->path, len);
    unsigned char *p = cc_xmalloc(max_len);
    *len = max_len;
    if (s->src == CC_SRC_DATASET) {
        compi_dataset_fill((size_t)s->ds, p, max_len, seed);
    } else if (s->src == CC_SRC_INT_PATTERN) {
        for (size_t off = 0, i = 0; off < max_len; off += 4, i++) {
            int32_t v = (int32_t)(1000 + 3 * i);
            memcpy(p + off, &v, max_len - off < 4 ? max_len - off : 4);
        }
    } else {
        for (size_t off = 0, i = 0; off < max_len; off += 4, i++) {
            float v = (float)(50001.0 + 2.0 * (double)(i % 4000000));
            memcpy(p + off, &v, max_len - off < 4 ? max_len - off : 4);
        }
    }
    return p;
}

/* ------------------------------------------------------------ timing */

typedef struct {
    const compi_codec *codec;
    const unsigned char *src;
    size_t len;
    unsigned char *cbuf;
    size_t ccap, clen;
    unsigned char *dbuf;
    compi_codec_params cp, dp;
} cc_job;

static long long cc_compress(cc_job *j)
{
    return j->codec->compress(j->src, j->len, j->cbuf, j->ccap, &j->cp);
}

static long long cc_decompress(cc_job *j)
{
    return j->codec->decompress(j->cbuf, j->clen, j->dbuf, j->len, &j->dp);
}

/* Median over reps of the time per call; one run repeats the call until it
 * lasts min_run_s (at most 1000 calls). */
static double cc_time(const cc_ctx *c, cc_job *j, long long (*op)(cc_job *))
{
    double t0 = cc_codec_now();
    op(j);
    double one = cc_codec_now() - t0;
    int k = one > 0 ? (int)ceil(c->min_run_s / one) : 1000;
    if (k < 1) k = 1;
    if (k > 1000) k = 1000;
    double v[64];
    int reps = c->reps > 64 ? 64 : c->reps;
    for (int r = 0; r < reps; r++) {
        t0 = cc_codec_now();
        for (int i = 0; i < k; i++) op(j);
        v[r] = (cc_codec_now() - t0) / k;
    }
    return compi_median(v, reps);
}

static void cc_add_row(cc_ctx *c, const cc_row *r)
{
    if (c->nrows == c->caprows) {
        c->caprows = c->caprows ? 2 * c->caprows : 256;
        c->rows = realloc(c->rows, (size_t)c->caprows * sizeof *c->rows);
        if (!c->rows) cc_die("out of memory");
    }
    c->rows[c->nrows++] = *r;
}

static void cc_measure(cc_ctx *c)
{
    size_t maxsize = 0;
    for (int i = 0; i < c->nsizes; i++)
        if (c->sizes[i] > maxsize) maxsize = c->sizes[i];
    for (int s = 0; s < c->nsets; s++) {
        const cc_set *set = &c->sets[s];
        size_t len;
        unsigned char *data = cc_make_data(set, maxsize, &len, 20261123u + (uint64_t)s);
        size_t sizes[CC_MAX_SIZES];
        int nsizes = 0;
        for (int i = 0; i < c->nsizes; i++)
            if (c->sizes[i] <= len) sizes[nsizes++] = c->sizes[i];
        if (nsizes == 0) sizes[nsizes++] = len; /* a sample file smaller than every size */
        size_t biggest = sizes[0];
        for (int i = 1; i < nsizes; i++)
            if (sizes[i] > biggest) biggest = sizes[i];
        size_t es = cc_elem_size(set->cls);
        for (int k = 0; k < c->ncodecs; k++) {
            const compi_codec *codec = c->codecs[k];
            cc_job j = {.codec = codec, .src = data};
            j.ccap = codec->bound(biggest);
            j.cbuf = cc_xmalloc(j.ccap);
            j.dbuf = cc_xmalloc(biggest);
            j.cp = (compi_codec_params){(compi_dtclass)set->cls, es, 0};
            j.dp = (compi_codec_params){(compi_dtclass)set->cls, 0, 0}; /* as the receiver does */
            for (int i = 0; i < nsizes; i++) {
                j.len = sizes[i];
                j.ccap = codec->bound(j.len);
                long long r = cc_compress(&j);
                if (r < 0)
                    cc_die("%s failed to compress %s (%zu B): %s", codec->name, set->name, j.len,
                           compi_error_string((int)r));
                j.clen = (size_t)r;
                long long d = cc_decompress(&j);
                if (d != (long long)j.len || memcmp(j.dbuf, data, j.len) != 0)
                    cc_die("%s: round trip of %s (%zu B) failed", codec->name, set->name, j.len);
                cc_row row = {s, k, j.len, (double)j.len / (double)(j.clen ? j.clen : 1), 0, 0};
                row.tc = cc_time(c, &j, cc_compress);
                row.td = cc_time(c, &j, cc_decompress);
                cc_add_row(c, &row);
            }
            free(j.cbuf);
            free(j.dbuf);
        }
        if (!c->quiet && isatty(2)) {
            fprintf(stderr, "\rmeasured %d/%d data sets", s + 1, c->nsets);
            fflush(stderr);
        }
        free(data);
    }
    if (!c->quiet && isatty(2)) fprintf(stderr, "\n");
}

/* ------------------------------------------------------------ analysis */

typedef struct {
    double in, out, tc, td; /* sums over the class's rows */
    int wins;
} cc_agg;

static int cc_rank_cls; /* qsort context */
static cc_agg (*cc_rank_agg)[CC_MAX_CODECS];

static int cc_cmp_candidate(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    const cc_agg *ax = &cc_rank_agg[cc_rank_cls][x], *ay = &cc_rank_agg[cc_rank_cls][y];
    if (ax->wins != ay->wins) return ay->wins - ax->wins;
    double rx = ax->in / ax->out, ry = ay->in / ay->out;
    return (ry > rx) - (ry < rx);
}

static void cc_choose_candidates(const cc_ctx *c, cc_agg agg[COMPI_CLASS_COUNT][CC_MAX_CODECS], compi_codec_model *m)
{
    memset(agg, 0, sizeof(cc_agg) * COMPI_CLASS_COUNT * CC_MAX_CODECS);
    for (int i = 0; i < c->nrows; i++) {
        const cc_row *r = &c->rows[i];
        cc_agg *a = &agg[c->sets[r->set].cls][r->codec];
        a->in += (double)r->size;
        a->out += (double)r->size / r->ratio;
        a->tc += r->tc;
        a->td += r->td;
    }
    /* Wins: per (set, size) case and bandwidth, the codec delivering fastest. */
    for (int i = 0; i < c->nrows; i++) {
        const cc_row *r0 = &c->rows[i];
        if (r0->codec != 0) continue; /* the first codec's row stands for its case */
        for (size_t b = 0; b < CC_NBW; b++) {
            double best = (double)r0->size / cc_bw[b]; /* raw */
            int who = -1;
            for (int k = 0; k < c->nrows; k++) {
                const cc_row *r = &c->rows[k];
                if (r->set != r0->set || r->size != r0->size) continue;
                double t = (double)r->size / r->ratio / cc_bw[b] + r->tc + r->td;
                if (t < best) {
                    best = t;
                    who = r->codec;
                }
            }
            if (who >= 0) agg[c->sets[r0->set].cls][who].wins++;
        }
    }
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++) {
        int idx[CC_MAX_CODECS], n = 0;
        for (int k = 0; k < c->ncodecs; k++)
            if (agg[cls][k].wins > 0) idx[n++] = k;
        cc_rank_cls = cls;
        cc_rank_agg = agg;
        qsort(idx, (size_t)n, sizeof idx[0], cc_cmp_candidate);
        m->ncandidates[cls] = 0;
        for (int i = 0; i < n && i < CC_MAX_CANDIDATES; i++)
            m->candidates[cls][m->ncandidates[cls]++] = c->codecs[idx[i]];
    }
}

static int cc_bucket_of(double r)
{
    for (int b = 0; b < CC_NBUCKETS; b++)
        if (r >= cc_bucket_lo[b] && r < cc_bucket_hi[b]) return b;
    return CC_NBUCKETS - 1;
}

/* Median T_d/T_c of codec k's rows in bucket b, class cls (-1 = all); < 0 if none. */
static double cc_bucket_median(const cc_ctx *c, int k, int cls, int b)
{
    double *v = cc_xmalloc((size_t)c->nrows * sizeof *v);
    int n = 0;
    for (int i = 0; i < c->nrows; i++) {
        const cc_row *r = &c->rows[i];
        if (r->codec != k || (cls >= 0 && c->sets[r->set].cls != cls) || cc_bucket_of(r->ratio) != b) continue;
        if (r->tc > 0) v[n++] = r->td / r->tc;
    }
    double med = n ? compi_median(v, n) : -1;
    free(v);
    return med;
}

static void cc_add_relation(compi_codec_model *m, const compi_codec *codec, int cls, int b, double d_over_c)
{
    if (m->nrelations == COMPI_MODEL_MAX_RELATIONS) cc_die("more than %d relations", COMPI_MODEL_MAX_RELATIONS);
    if (d_over_c < 1e-4) d_over_c = 1e-4;
    if (d_over_c > 1e4) d_over_c = 1e4;
    m->relations[m->nrelations++] = (compi_codec_relation){codec, cls, cc_bucket_lo[b], cc_bucket_hi[b], d_over_c};
}

static void cc_relations(const cc_ctx *c, compi_codec_model *m)
{
    m->nrelations = 0;
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++)
        for (int i = 0; i < m->ncandidates[cls]; i++) {
            int k = 0;
            while (c->codecs[k] != m->candidates[cls][i]) k++;
            for (int b = 0; b < CC_NBUCKETS; b++) {
                double med = cc_bucket_median(c, k, cls, b);
                if (med > 0) cc_add_relation(m, c->codecs[k], cls, b, med);
            }
        }
    for (int k = 0; k < c->ncodecs; k++) {
        double med[CC_NBUCKETS];
        int any = 0;
        for (int b = 0; b < CC_NBUCKETS; b++) any |= (med[b] = cc_bucket_median(c, k, -1, b)) > 0;
        if (!any) continue;
        for (int b = 0; b < CC_NBUCKETS; b++) {
            double v = med[b];
            for (int d = 1; v <= 0; d++) { /* nearest measured bucket, lower first */
                if (b - d >= 0 && med[b - d] > 0) v = med[b - d];
                else if (b + d < CC_NBUCKETS && med[b + d] > 0) v = med[b + d];
            }
            cc_add_relation(m, c->codecs[k], -1, b, v);
        }
    }
}

/* Each class's candidates' aggregate compression speed (its "speed"
 * lines: what an evaluation expects a candidate it has not measured yet
 * to cost). */
static void cc_speeds(const cc_ctx *c, cc_agg agg[COMPI_CLASS_COUNT][CC_MAX_CODECS], compi_codec_model *m)
{
    m->nspeeds = 0;
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++)
        for (int i = 0; i < m->ncandidates[cls]; i++) {
            int k = 0;
            while (c->codecs[k] != m->candidates[cls][i]) k++;
            const cc_agg *a = &agg[cls][k];
            if (a->tc <= 0 || a->in <= 0 || m->nspeeds == COMPI_MODEL_MAX_SPEEDS) continue;
            m->speeds[m->nspeeds++] = (compi_codec_speed){c->codecs[k], cls, a->in / a->tc / 1e6, 0, 0};
            /* and per ratio bucket: data compressed ten times or more codes
             * many times faster than the aggregate says */
            for (int b = 0; b < CC_NBUCKETS; b++) {
                double in = 0, tc = 0;
                for (int j = 0; j < c->nrows; j++) {
                    const cc_row *r = &c->rows[j];
                    if (r->codec != k || c->sets[r->set].cls != cls || cc_bucket_of(r->ratio) != b) continue;
                    in += (double)r->size, tc += r->tc;
                }
                if (tc <= 0 || in <= 0 || m->nspeeds == COMPI_MODEL_MAX_SPEEDS) continue;
                m->speeds[m->nspeeds++] =
                    (compi_codec_speed){c->codecs[k], cls, in / tc / 1e6, cc_bucket_lo[b], cc_bucket_hi[b]};
            }
        }
}

/* ------------------------------------------------------------ output */

typedef struct {
    char *s;
    size_t len, cap;
} cc_str;

static void cc_printf(cc_str *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) cc_die("formatting failed");
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap ? 2 * b->cap + (size_t)n : 4096 + (size_t)n;
        b->s = realloc(b->s, b->cap);
        if (!b->s) cc_die("out of memory");
    }
}

static void cc_summary(const cc_ctx *c, cc_agg agg[COMPI_CLASS_COUNT][CC_MAX_CODECS], const compi_codec_model *m,
                       cc_str *out, const char *pfx)
{
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++) {
        int any = 0;
        for (int k = 0; k < c->ncodecs; k++) any |= agg[cls][k].in > 0;
        if (!any) continue;
        cc_printf(out, "%sclass %s: aggregate over its data sets and sizes\n", pfx, compi_dtclass_name(cls));
        cc_printf(out, "%s  %-11s %8s %10s %10s %6s %5s\n", pfx, "codec", "ratio", "comp MB/s", "dec MB/s", "d/c",
                  "wins");
        for (int k = 0; k < c->ncodecs; k++) {
            const cc_agg *a = &agg[cls][k];
            if (a->in <= 0) continue;
            cc_printf(out, "%s  %-11s %8.3f %10.1f %10.1f %6.3f %5d\n", pfx, c->codecs[k]->name, a->in / a->out,
                      a->in / a->tc / 1e6, a->in / a->td / 1e6, a->td / a->tc, a->wins);
        }
        cc_printf(out, "%s  candidates:", pfx);
        for (int i = 0; i < m->ncandidates[cls]; i++) cc_printf(out, " %s", m->candidates[cls][i]->name);
        cc_printf(out, "%s\n", m->ncandidates[cls] ? "" : " (none: never compressed)");
    }
}

static void cc_full_table(const cc_ctx *c, cc_str *out)
{
    cc_printf(out, "%-6s %-18s %8s %-11s %9s %10s %10s %7s\n", "class", "data", "size", "codec", "ratio", "comp MB/s",
              "dec MB/s", "d/c");
    for (int i = 0; i < c->nrows; i++) {
        const cc_row *r = &c->rows[i];
        const cc_set *s = &c->sets[r->set];
        cc_printf(out, "%-6s %-18.18s %8zu %-11s %9.3f %10.1f %10.1f %7.3f\n", compi_dtclass_name(s->cls), s->name,
                  r->size, c->codecs[r->codec]->name, r->ratio, (double)r->size / r->tc / 1e6,
                  (double)r->size / r->td / 1e6, r->td / r->tc);
    }
}

/* The model as C, for the body of compi_codec_model_default() in
 * lib/engine/model_default.c. */
static void cc_print_c(const compi_codec_model *m)
{
    static const char *const var[COMPI_CLASS_COUNT] = {"bytes", "ints", "floats", "doubles"};
    static const char *const cname[COMPI_CLASS_COUNT] = {"COMPI_CLASS_BYTE", "COMPI_CLASS_INT", "COMPI_CLASS_FLOAT",
                                                         "COMPI_CLASS_DOUBLE"};
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++) {
        printf("    static const char *const %s[] = {", var[cls]);
        for (int i = 0; i < m->ncandidates[cls]; i++) printf("\"%s\", ", m->candidates[cls][i]->name);
        printf("NULL};\n");
    }
    printf("    /* codec, class (-1 = any), ratio bucket [lo, hi), T_decompress / T_compress */\n");
    printf("    static const compi_model_relation_row relations[] = {\n");
    for (int i = 0; i < m->nrelations; i++) {
        const compi_codec_relation *r = &m->relations[i];
        printf("        {\"%s\", %s, %g, %g, %.4f},\n", r->codec->name, r->dtclass < 0 ? "-1" : cname[r->dtclass],
               r->ratio_lo, r->ratio_hi, r->d_over_c);
    }
    printf("    };\n");
    printf("    /* codec, class, compression MB/s, ratio bucket [lo, hi) (0, 0: the class's aggregate) */\n");
    printf("    static const compi_model_speed_row speeds[] = {\n");
    for (int i = 0; i < m->nspeeds; i++) {
        const compi_codec_speed *v = &m->speeds[i];
        printf("        {\"%s\", %s, %.0f, %g, %g},\n", v->codec->name, v->dtclass < 0 ? "-1" : cname[v->dtclass],
               v->compress_mbs, v->ratio_lo, v->ratio_hi);
    }
    printf("    };\n");
}

/* ------------------------------------------------------------ main */

static void cc_usage(FILE *f)
{
    fprintf(f,
            "usage: compi_calibrate_codecs [-o PATH] [--quick] [--reps N] [--sizes LIST] [--codecs LIST]\n"
            "                              [--files F1 F2 ... --class CLASS] [--print-c] [--wall] [--quiet]\n"
            "  -o PATH        codec heuristics file to write (default ./codecs.txt)\n"
            "  --quick        2 sizes (100 KB, 400 KB), 3 timed runs of >= 0.5 ms: seconds, not minutes\n"
            "  --reps N       timed runs per measurement, median kept (default 5)\n"
            "  --sizes LIST   buffer sizes in bytes, K = 1000 (default 100K,200K,500K,1000K,2000K,3000K)\n"
            "  --codecs LIST  only these codecs (default: every codec of the table: %s)\n"
            "  --files F...   calibrate CLASS on these sample files instead of synthetic data (each\n"
            "                 file's prefixes of the sizes above, or the whole file if smaller); the\n"
            "                 other classes still use the synthetic sets\n"
            "  --class CLASS  datatype class of the --files: byte, int, float or double\n"
            "  --print-c      also print the model as C (for lib/engine/model_default.c)\n"
            "  --wall         time codecs by wall clock (default: the thread's CPU time, which\n"
            "                 other processes on a shared machine do not inflate)\n"
            "  --quiet        no progress, no summary\n",
            compi_codec_names());
}

static void cc_parse_sizes(cc_ctx *c, const char *list)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    c->nsizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end == 'K' || *end == 'k') {
            v *= 1000;
            end++;
        } else if (*end == 'M' || *end == 'm') {
            v *= 1000000;
            end++;
        }
        if (*end || v < 1 || v > 1e9 || c->nsizes == CC_MAX_SIZES) cc_die("bad --sizes '%s'", list);
        c->sizes[c->nsizes++] = (size_t)v;
    }
    if (c->nsizes == 0) cc_die("empty --sizes");
}

int main(int argc, char **argv)
{
    static cc_ctx c;
    const char *out_path = "codecs.txt", *codec_list = NULL, *size_list = NULL;
    const char *files[CC_MAX_SETS];
    int nfiles = 0, file_cls = -2, quick = 0, print_c = 0, reps = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cc_usage(stdout);
            return 0;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && v) {
            out_path = v;
            i++;
        } else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--print-c")) print_c = 1;
        else if (!strcmp(a, "--quiet")) c.quiet = 1;
        else if (!strcmp(a, "--wall")) cc_wall_clock = 1;
        else if (!strcmp(a, "--reps") && v && atoi(v) >= 1) {
            reps = atoi(v);
            i++;
        } else if (!strcmp(a, "--sizes") && v) {
            size_list = v;
            i++;
        } else if (!strcmp(a, "--codecs") && v) {
            codec_list = v;
            i++;
        } else if (!strcmp(a, "--class") && v) {
            file_cls = compi_dtclass_parse(v);
            if (file_cls < 0) cc_die("--class takes byte, int, float or double, not '%s'", v);
            i++;
        } else if (!strcmp(a, "--files")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                if (nfiles == CC_MAX_SETS - 32) cc_die("too many --files");
                files[nfiles++] = argv[++i];
            }
            if (nfiles == 0) cc_die("--files needs at least one file");
        } else {
            fprintf(stderr, "compi_calibrate_codecs: bad or incomplete option '%s'\n", a);
            cc_usage(stderr);
            return 2;
        }
    }
    if (nfiles && file_cls < 0) cc_die("--files needs --class byte|int|float|double");
    if (!nfiles && file_cls >= 0) cc_die("--class only goes with --files");

    c.reps = reps ? reps : quick ? 3 : 5;
    c.min_run_s = quick ? 0.0005 : 0.002;
    if (size_list) cc_parse_sizes(&c, size_list);
    else cc_parse_sizes(&c, quick ? "100K,400K" : "100K,200K,500K,1000K,2000K,3000K");

    if (codec_list) {
        char buf[512], *save = NULL;
        snprintf(buf, sizeof buf, "%s", codec_list);
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const compi_codec *k = compi_codec_by_name(t);
            if (!k) cc_die("unknown codec '%s' (known: %s)", t, compi_codec_names());
            if (c.ncodecs < CC_MAX_CODECS) c.codecs[c.ncodecs++] = k;
        }
    } else {
        for (size_t i = 0; i < compi_codec_count() && c.ncodecs < CC_MAX_CODECS; i++)
            c.codecs[c.ncodecs++] = compi_codec_at(i);
    }
    if (c.ncodecs == 0) cc_die("no codecs");

    for (int i = 0; i < nfiles; i++) {
        const char *base = strrchr(files[i], '/');
        cc_add_set(&c, base ? base + 1 : files[i], file_cls, CC_SRC_FILE, -1, files[i]);
    }
    cc_synthetic_sets(&c, nfiles ? file_cls : -2);

    double t0 = cc_now();
    cc_measure(&c);
    double spent = cc_now() - t0;

    compi_codec_model m;
    memset(&m, 0, sizeof m);
    static cc_agg agg[COMPI_CLASS_COUNT][CC_MAX_CODECS];
    cc_choose_candidates(&c, agg, &m);
    cc_relations(&c, &m);
    cc_speeds(&c, agg, &m);

    char date[64], day[16];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    strftime(day, sizeof day, "%Y-%m-%d", localtime(&now));
    snprintf(m.source, sizeof m.source, "compi calibrate codecs, %s, %zu..%zu B, %s%s", day, c.sizes[0],
             c.sizes[c.nsizes - 1], nfiles ? "sample files for class " : "synthetic data, redundancy 0..100 %",
             nfiles ? compi_dtclass_name(file_cls) : "");

    cc_str com = {0};
    cc_printf(&com, "compi calibrate codecs, %s%s, %.1f s\n", date, quick ? " (--quick)" : "", spent);
    cc_printf(&com, "sizes:");
    for (int i = 0; i < c.nsizes; i++) cc_printf(&com, " %zu", c.sizes[i]);
    cc_printf(&com, " B; median of %d timed runs (each >= %.1f ms of repeated calls); level 0 (codec default)\n",
              c.reps, c.min_run_s * 1e3);
    cc_printf(&com, "timer: %s\n",
              cc_wall_clock ? "wall clock (CLOCK_MONOTONIC)"
                            : "thread CPU time (CLOCK_THREAD_CPUTIME_ID; = wall time on an idle core)");
    cc_printf(&com, "data sets:");
    for (int s = 0, col = 10; s < c.nsets; s++) {
        char item[128];
        int n = snprintf(item, sizeof item, " %s(%s)", c.sets[s].name, compi_dtclass_name(c.sets[s].cls));
        if (col + n > 100) {
            cc_printf(&com, "\n ");
            col = 1;
        }
        cc_printf(&com, "%s", item);
        col += n;
    }
    cc_printf(&com,
              "\n\ncandidates: per class at most %d codecs, those that deliver some buffer of the class\n"
              "fastest over some network: min over codecs of S/(r*B) + T_c + T_d, beating raw S/B, for\n"
              "B = 10 Mbit/s, 100 Mbit/s, 1 Gbit/s, 10 Gbit/s (the engine's own speedup test); ranked by the\n"
              "number of (buffer, bandwidth) cases won (\"wins\"), ties by aggregate ratio. A win is always by\n"
              "a codec on that buffer's ratio/time Pareto front. A class without winners gets no candidates\n"
              "(never compressed).\n"
              "relations: median T_d/T_c per ratio bucket [0,1.1) [1.1,2) [2,4) [4,10) [10,1e9); per class for\n"
              "the class's candidates, \"*\" rows for every codec (all classes pooled; an empty \"*\" bucket\n"
              "takes the nearest measured bucket's value).\n\n",
              CC_MAX_CANDIDATES);
    cc_summary(&c, agg, &m, &com, "");
    cc_printf(&com, "\nfull table (MB/s = 10^6 bytes of uncompressed data per second):\n");
    cc_full_table(&c, &com);

    char err[512];
    if (compi_codec_model_save(out_path, &m, com.s, err, sizeof err) != COMPI_OK) cc_die("%s", err);
    compi_codec_model check;
    if (compi_codec_model_load(out_path, &check, err, sizeof err) != COMPI_OK)
        cc_die("the file just written does not load: %s", err);

    if (!c.quiet) {
        cc_str sum = {0};
        cc_summary(&c, agg, &m, &sum, "");
        fputs(sum.s ? sum.s : "", stdout);
        free(sum.s);
    }
    if (print_c) cc_print_c(&m);
    printf("wrote %s (%d measurements, %d relations, %.1f s)\n", out_path, c.nrows, m.nrelations, spent);
    free(com.s);
    free(c.rows);
    return 0;
}
