/* SPDX-License-Identifier: BSD-3-Clause */
/* Synthetic data sets (see datasets.h).
 *
 * Redundancy level X% (int_rX, float_rX, double_rX): each element, with
 * probability X/100, repeats a recent value -- half of those times the
 * previous element, otherwise one of the last 8 elements -- and is otherwise a
 * fresh random value in a realistic range: ints uniform in [0, 1000000),
 * floats and doubles uniform in [-1000, 1000) with a full random mantissa.
 * So r0 is (almost) incompressible beyond its value range, and r100 repeats
 * its first value forever.
 *
 * Every generator is a pure function of (seed, element index stream): a
 * splitmix64 PRNG seeded from the seed and the data set index, so a fill of n
 * bytes is a prefix of any longer fill with the same seed. Lengths that are
 * not a multiple of the element size end with a partial element. */
#include <math.h>
#include <string.h>
#include "common/datasets.h"
#include "common/rng.h"

typedef enum {
    COMPI_DS_ZEROS,
    COMPI_DS_RANDOM,
    COMPI_DS_REDUNDANT,
    COMPI_DS_PATTERN,
    COMPI_DS_SMOOTH,
    COMPI_DS_TEXT
} compi_ds_kind;

typedef struct {
    const char *name;
    compi_dtclass cls;
    compi_ds_kind kind;
    int redundancy; /* percent, for COMPI_DS_REDUNDANT */
} compi_ds_info;

static const compi_ds_info compi_ds_table[] = {
    {"zeros", COMPI_CLASS_BYTE, COMPI_DS_ZEROS, 0},
    {"random", COMPI_CLASS_BYTE, COMPI_DS_RANDOM, 0},
    {"int_r0", COMPI_CLASS_INT, COMPI_DS_REDUNDANT, 0},
    {"int_r25", COMPI_CLASS_INT, COMPI_DS_REDUNDANT, 25},
    {"int_r50", COMPI_CLASS_INT, COMPI_DS_REDUNDANT, 50},
    {"int_r75", COMPI_CLASS_INT, COMPI_DS_REDUNDANT, 75},
    {"int_r100", COMPI_CLASS_INT, COMPI_DS_REDUNDANT, 100},
    {"float_r0", COMPI_CLASS_FLOAT, COMPI_DS_REDUNDANT, 0},
    {"float_r25", COMPI_CLASS_FLOAT, COMPI_DS_REDUNDANT, 25},
    {"float_r50", COMPI_CLASS_FLOAT, COMPI_DS_REDUNDANT, 50},
    {"float_r75", COMPI_CLASS_FLOAT, COMPI_DS_REDUNDANT, 75},
    {"float_r100", COMPI_CLASS_FLOAT, COMPI_DS_REDUNDANT, 100},
    {"double_r0", COMPI_CLASS_DOUBLE, COMPI_DS_REDUNDANT, 0},
    {"double_r25", COMPI_CLASS_DOUBLE, COMPI_DS_REDUNDANT, 25},
    {"double_r50", COMPI_CLASS_DOUBLE, COMPI_DS_REDUNDANT, 50},
    {"double_r75", COMPI_CLASS_DOUBLE, COMPI_DS_REDUNDANT, 75},
    {"double_r100", COMPI_CLASS_DOUBLE, COMPI_DS_REDUNDANT, 100},
    {"double_pattern", COMPI_CLASS_DOUBLE, COMPI_DS_PATTERN, 0},
    {"double_smooth", COMPI_CLASS_DOUBLE, COMPI_DS_SMOOTH, 0},
    {"text", COMPI_CLASS_BYTE, COMPI_DS_TEXT, 0},
};

#define COMPI_DS_COUNT (sizeof compi_ds_table / sizeof compi_ds_table[0])
#define COMPI_DS_HISTORY 8

size_t compi_dataset_count(void)
{
    return COMPI_DS_COUNT;
}

const char *compi_dataset_name(size_t index)
{
    return index < COMPI_DS_COUNT ? compi_ds_table[index].name : NULL;
}

compi_dtclass compi_dataset_class(size_t index)
{
    return index < COMPI_DS_COUNT ? compi_ds_table[index].cls : COMPI_CLASS_BYTE;
}

int compi_dataset_find(const char *name)
{
    for (size_t i = 0; name && i < COMPI_DS_COUNT; i++)
        if (strcmp(compi_ds_table[i].name, name) == 0) return (int)i;
    return -1;
}

/* Uniform double in [0, 1) from the top 53 bits. */
static double compi_ds_unit(uint64_t *state)
{
    return (double)(compi_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

static size_t compi_ds_elem_size(compi_dtclass cls)
{
    return cls == COMPI_CLASS_DOUBLE ? 8 : cls == COMPI_CLASS_BYTE ? 1 : 4;
}

/* A fresh random element of the given class, as raw bytes in out[8]. */
static void compi_ds_fresh(compi_dtclass cls, uint64_t *state, unsigned char out[8])
{
    if (cls == COMPI_CLASS_INT) {
        int32_t v = (int32_t)(compi_rng_next(state) % 1000000u);
        memcpy(out, &v, 4);
    } else if (cls == COMPI_CLASS_FLOAT) {
        float v = (float)(compi_ds_unit(state) * 2000.0 - 1000.0);
        memcpy(out, &v, 4);
    } else {
        double v = compi_ds_unit(state) * 2000.0 - 1000.0;
        memcpy(out, &v, 8);
    }
}

static void compi_ds_fill_redundant(compi_dtclass cls, int pct, unsigned char *buf, size_t len, uint64_t *state)
{
    size_t es = compi_ds_elem_size(cls);
    unsigned char hist[COMPI_DS_HISTORY][8];
    size_t nhist = 0, head = 0; /* ring buffer of recent elements; head = newest */
    for (size_t off = 0; off < len; off += es) {
        unsigned char e[8];
        uint64_t r = compi_rng_next(state);
        if (nhist > 0 && (int)(r % 100u) < pct) {
            /* Repetition: the previous element half of the time, otherwise
             * any of the recent ones. */
            size_t back = ((r >> 8) & 1u) ? 0 : (size_t)((r >> 16) % nhist);
            memcpy(e, hist[(head + COMPI_DS_HISTORY - back) % COMPI_DS_HISTORY], es);
        } else {
            compi_ds_fresh(cls, state, e);
        }
        head = (head + 1) % COMPI_DS_HISTORY;
        memcpy(hist[head], e, es);
        if (nhist < COMPI_DS_HISTORY) nhist++;
        memcpy(buf + off, e, len - off < es ? len - off : es);
    }
}

/* A smooth 3-D field sampled on a 64 x 64 x Z grid (x fastest), the kind of
 * halo/slab a stencil code sends, with the low 20 mantissa bits replaced by
 * noise as in measured or iterated data. */
static void compi_ds_fill_smooth(unsigned char *buf, size_t len, uint64_t *state)
{
    for (size_t off = 0, i = 0; off < len; off += 8, i++) {
        double x = (double)(i % 64), y = (double)((i / 64) % 64), z = (double)(i / 4096);
        double v = 300.0 + 25.0 * sin(0.11 * x + 0.3 * z) * cos(0.07 * y) + 5.0 * cos(0.05 * (x + y + z));
        uint64_t bits;
        memcpy(&bits, &v, 8);
        bits ^= compi_rng_next(state) & ((1ull << 20) - 1);
        memcpy(&v, &bits, 8);
        memcpy(buf + off, &v, len - off < 8 ? len - off : 8);
    }
}

static void compi_ds_fill_pattern(unsigned char *buf, size_t len)
{
    for (size_t off = 0, i = 0; off < len; off += 8, i++) {
        double v = 50001.0 + 2.0 * (double)i;
        memcpy(buf + off, &v, len - off < 8 ? len - off : 8);
    }
}

/* English-like text: words drawn with a Zipf-like skew from a small
 * vocabulary, with punctuation, capitalised sentence starts and line breaks. */
static void compi_ds_fill_text(unsigned char *buf, size_t len, uint64_t *state)
{
    static const char *const words[] = {"the",         "of",
                                        "and",         "to",
                                        "a",           "in",
                                        "is",          "that",
                                        "for",         "it",
                                        "as",          "was",
                                        "with",        "be",
                                        "by",          "on",
                                        "not",         "he",
                                        "this",        "are",
                                        "or",          "his",
                                        "from",        "at",
                                        "which",       "but",
                                        "have",        "an",
                                        "had",         "they",
                                        "you",         "were",
                                        "their",       "one",
                                        "all",         "we",
                                        "can",         "her",
                                        "has",         "there",
                                        "been",        "if",
                                        "more",        "when",
                                        "will",        "would",
                                        "who",         "so",
                                        "no",          "message",
                                        "process",     "rank",
                                        "buffer",      "compression",
                                        "data",        "time",
                                        "system",      "network",
                                        "value",       "memory",
                                        "result",      "between",
                                        "through",     "during",
                                        "without",     "because",
                                        "however",     "communication",
                                        "performance", "application",
                                        "parallel",    "computation",
                                        "interface",   "bandwidth",
                                        "latency",     "throughput",
                                        "algorithm",   "implementation",
                                        "experiment",  "measurement",
                                        "distributed"};
    const size_t nwords = sizeof words / sizeof words[0];
    size_t off = 0;
    int sentence_start = 1;
    while (off < len) {
        double u = compi_ds_unit(state);
        const char *w = words[(size_t)(u * u * u * (double)nwords)]; /* skew to common words */
        char tmp[32];
        size_t n = strlen(w);
        memcpy(tmp, w, n);
        if (sentence_start && tmp[0] >= 'a' && tmp[0] <= 'z') tmp[0] = (char)(tmp[0] - 'a' + 'A');
        sentence_start = 0;
        uint64_t r = compi_rng_next(state) % 100u;
        if (r < 8) {
            tmp[n++] = '.';
            sentence_start = 1;
        } else if (r < 14) {
            tmp[n++] = ',';
        }
        tmp[n++] = (r == 0) ? '\n' : ' ';
        size_t take = len - off < n ? len - off : n;
        memcpy(buf + off, tmp, take);
        off += take;
    }
}

void compi_dataset_fill(size_t index, void *buf, size_t len, uint64_t seed)
{
    if (buf == NULL || len == 0) return;
    unsigned char *p = (unsigned char *)buf;
    if (index >= COMPI_DS_COUNT) {
        memset(p, 0, len);
        return;
    }
    const compi_ds_info *d = &compi_ds_table[index];
    uint64_t state = seed ^ (0x6a09e667f3bcc909ull * (uint64_t)(index + 1));
    switch (d->kind) {
    case COMPI_DS_ZEROS: memset(p, 0, len); break;
    case COMPI_DS_RANDOM:
        for (size_t off = 0; off < len; off += 8) {
            uint64_t r = compi_rng_next(&state);
            memcpy(p + off, &r, len - off < 8 ? len - off : 8);
        }
        break;
    case COMPI_DS_REDUNDANT: compi_ds_fill_redundant(d->cls, d->redundancy, p, len, &state); break;
    case COMPI_DS_PATTERN: compi_ds_fill_pattern(p, len); break;
    case COMPI_DS_SMOOTH: compi_ds_fill_smooth(p, len, &state); break;
    case COMPI_DS_TEXT: compi_ds_fill_text(p, len, &state); break;
    }
}
