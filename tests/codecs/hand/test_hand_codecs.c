/* SPDX-License-Identifier: BSD-3-Clause */
/* Hard tests for the hand-written codecs (rle, huffman, fpc, dfcm): round
 * trips over generated data at every small length and large sizes with
 * unaligned buffers, exact worst-case bounds, truncation, bit flips, garbage,
 * wrong lengths, hand-crafted malformed streams, expected compression and
 * reentrancy. Buffers are malloc'ed at their exact size so ASan sees any
 * overrun; canaries catch writes past dst_len without ASan.
 * `test_hand_codecs --bench` prints ratio and MB/s instead;
 * `test_hand_codecs --group WORD` runs only the matching test groups. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compi.h"
#include "codecs/codecs.h"
#include "common/rng.h"

static const compi_codec *const hand[] = {
    &compi_codec_rle, &compi_codec_huffman, &compi_codec_fpc, &compi_codec_dfcm,
};
#define NHAND (sizeof hand / sizeof hand[0])

static long n_pass, n_fail;
static int verbose_fail_budget = 40;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (cond) n_pass++;                                                   \
        else {                                                                \
            n_fail++;                                                         \
            if (verbose_fail_budget-- > 0) {                                  \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
                fprintf(stderr, __VA_ARGS__);                                 \
                fprintf(stderr, "\n");                                        \
            }                                                                 \
        }                                                                     \
    } while (0)

/* ---- deterministic generators ------------------------------------------ */

static uint64_t test_rng(uint64_t *s) { return compi_rng_next(s); }

static void test_put_double(uint8_t *buf, size_t len, size_t i, double d)
{
    if (i * 8 + 8 <= len) memcpy(buf + i * 8, &d, 8);
    else if (i * 8 < len) memcpy(buf + i * 8, &d, len - i * 8);
}

typedef void (*test_gen_fn)(uint8_t *buf, size_t len, uint64_t seed);

static void gen_zeros(uint8_t *b, size_t n, uint64_t s) { memset(b, 0, n); }
static void gen_const(uint8_t *b, size_t n, uint64_t s) { memset(b, 0xA7, n); }

static void gen_random(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(test_rng(&s) >> 56);
}

static void gen_runs(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i < n;) {
        size_t run = 1 + test_rng(&s) % 300;
        uint8_t v = (uint8_t)test_rng(&s);
        for (size_t k = 0; k < run && i < n; k++) b[i++] = v;
    }
}

/* no run of 3 equal bytes: the RLE worst case */
static void gen_no_runs(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t v = (uint8_t)(test_rng(&s) >> 56);
        if (i >= 2 && b[i - 1] == b[i - 2] && v == b[i - 1]) v ^= 1;
        b[i] = v;
    }
}

/* skewed byte distribution with Fibonacci-like frequencies: forces Huffman
 * trees deeper than 11 bits before limiting */
static void gen_skewed(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rng(&s);
        unsigned sym = 0;
        while (sym < 40 && (r & 1)) { sym++; r >>= 1; } /* geometric: 2^-k */
        b[i] = (uint8_t)(sym * 5 + 32);
    }
}

static void gen_text(uint8_t *b, size_t n, uint64_t s)
{
    static const char *words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ",
                                  "lazy ", "dog, ", "MPI_Send ", "message ", "rank ", "of\n"};
    s |= 1;
    for (size_t i = 0; i < n;) {
        const char *w = words[test_rng(&s) % 12];
        for (size_t k = 0; w[k] && i < n; k++) b[i++] = (uint8_t)w[k];
    }
}

static void gen_smooth_doubles(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i * 8 < n; i++) {
        double d = 100.0 * sin((double)i * 0.001) * cos((double)i * 0.00037) + 250.0;
        uint64_t u;
        memcpy(&u, &d, 8);
        u ^= test_rng(&s) & 0xfff; /* noise in the low 12 mantissa bits */
        memcpy(&d, &u, 8);
        test_put_double(b, n, i, d);
    }
}

static void gen_pattern_seq(uint8_t *b, size_t n, uint64_t s)
{
    for (size_t i = 0; i * 8 < n; i++) test_put_double(b, n, i, 50001.0 + 2.0 * (double)i);
}

static void gen_pattern_alt(uint8_t *b, size_t n, uint64_t s)
{
    for (size_t i = 0; i * 8 < n; i++) test_put_double(b, n, i, (i & 1) ? 50003.0 : 50001.0);
}

static void gen_int_ramp(uint8_t *b, size_t n, uint64_t s)
{
    for (size_t i = 0; i * 4 < n; i++) {
        int32_t v = (int32_t)(i * 3 - 1000);
        memcpy(b + i * 4, &v, i * 4 + 4 <= n ? 4 : n - i * 4);
    }
}

static void gen_int64_ramp(uint8_t *b, size_t n, uint64_t s)
{
    for (size_t i = 0; i * 8 < n; i++) {
        int64_t v = (int64_t)i * -7 + 123456789;
        memcpy(b + i * 8, &v, i * 8 + 8 <= n ? 8 : n - i * 8);
    }
}

static void gen_double_ramp(uint8_t *b, size_t n, uint64_t s)
{
    for (size_t i = 0; i * 8 < n; i++) test_put_double(b, n, i, (double)i);
}

static void gen_specials(uint8_t *b, size_t n, uint64_t s)
{
    double sp[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, DBL_MIN / 3.0, -DBL_MIN / 7.0,
                   4.9e-324, DBL_MAX, -DBL_MAX, DBL_MIN, 1.0, -1.0, DBL_EPSILON};
    s |= 1;
    for (size_t i = 0; i * 8 < n; i++) {
        double d = sp[test_rng(&s) % (sizeof sp / sizeof sp[0])];
        if (test_rng(&s) % 4 == 0) { /* a NaN with a payload */
            uint64_t u = 0x7ff0000000000001ULL | (test_rng(&s) & 0x000fffffffffffffULL);
            memcpy(&d, &u, 8);
        }
        test_put_double(b, n, i, d);
    }
}

static void gen_ints_r50(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    uint32_t prev = 0;
    for (size_t i = 0; i * 4 < n; i++) {
        uint32_t v = (test_rng(&s) & 1) ? prev : (uint32_t)(test_rng(&s) >> 33);
        memcpy(b + i * 4, &v, i * 4 + 4 <= n ? 4 : n - i * 4);
        prev = v;
    }
}

static void gen_smooth_floats(uint8_t *b, size_t n, uint64_t s)
{
    s |= 1;
    for (size_t i = 0; i * 4 < n; i++) {
        float f = (float)(10.0 * sin((double)i * 0.01) + 20.0);
        uint32_t u;
        memcpy(&u, &f, 4);
        u ^= (uint32_t)(test_rng(&s) & 0x7);
        memcpy(b + i * 4, &u, i * 4 + 4 <= n ? 4 : n - i * 4);
    }
}

static const struct {
    const char *name;
    test_gen_fn fn;
} gens[] = {
    {"zeros", gen_zeros},           {"const", gen_const},
    {"random", gen_random},         {"runs", gen_runs},
    {"no_runs", gen_no_runs},       {"skewed", gen_skewed},
    {"text", gen_text},             {"smooth_doubles", gen_smooth_doubles},
    {"pattern_seq", gen_pattern_seq}, {"pattern_alt", gen_pattern_alt},
    {"int_ramp", gen_int_ramp},     {"int64_ramp", gen_int64_ramp},
    {"double_ramp", gen_double_ramp}, {"specials", gen_specials},
    {"ints_r50", gen_ints_r50},     {"smooth_floats", gen_smooth_floats},
};
#define NGENS (sizeof gens / sizeof gens[0])

static const compi_codec_params p_byte = {COMPI_CLASS_BYTE, 1, 0};
static const compi_codec_params p_int = {COMPI_CLASS_INT, 4, 0};
static const compi_codec_params p_float = {COMPI_CLASS_FLOAT, 4, 0};
static const compi_codec_params p_double = {COMPI_CLASS_DOUBLE, 8, 0};
static const compi_codec_params *const all_params[] = {&p_byte, &p_int, &p_float, &p_double, NULL};
#define NPARAMS (sizeof all_params / sizeof all_params[0])

static void *test_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    return p;
}

/* Decode src[0..clen) from an exact-size copy into an exact-size buffer
 * (+ canary). Returns the codec's result; *canary_ok says nothing was
 * written past dst_len. */
static long long test_decode(const compi_codec *c, const uint8_t *comp, size_t clen,
                             uint8_t *out_or_null, size_t dst_len, const compi_codec_params *p,
                             int *canary_ok)
{
    uint8_t *in = test_xmalloc(clen);
    if (clen) memcpy(in, comp, clen);
    uint8_t *out = test_xmalloc(dst_len + 16);
    memset(out + dst_len, 0x5A, 16);
    long long rc = c->decompress(in, clen, out, dst_len, p);
    int ok = 1;
    for (int k = 0; k < 16; k++) ok &= out[dst_len + k] == 0x5A;
    *canary_ok = ok;
    if (out_or_null && rc >= 0) memcpy(out_or_null, out, dst_len);
    free(out);
    free(in);
    return rc;
}

/* One round trip with src/dst/out at offsets (0..7) from malloc alignment.
 * Returns the compressed length or -1. */
static long long test_roundtrip(const compi_codec *c, const uint8_t *data, size_t n,
                                const compi_codec_params *p, size_t align, const char *what)
{
    size_t bound = c->bound(n);
    uint8_t *src = test_xmalloc(n + align);
    uint8_t *dst = test_xmalloc(bound + align + 16);
    memcpy(src + align, data, n);
    memset(dst + align + bound, 0x5A, 16);
    long long clen = c->compress(src + align, n, dst + align, bound, p);
    int canary = 1;
    for (int k = 0; k < 16; k++) canary &= dst[align + bound + k] == 0x5A;
    int ok = clen >= 0 && (size_t)clen <= bound && canary;
    CHECK(ok, "%s %s n=%zu elem=%zu align=%zu: compress rc=%lld bound=%zu canary=%d", c->name,
          what, n, p ? p->elem_size : 0, align, clen, bound, canary);
    if (!ok) { free(src); free(dst); return -1; }
    /* decompress into an unaligned exact-size window */
    uint8_t *out = test_xmalloc(n + align + 16);
    memset(out + align + n, 0x5A, 16);
    long long rc = c->decompress(dst + align, (size_t)clen, out + align, n, p);
    canary = 1;
    for (int k = 0; k < 16; k++) canary &= out[align + n + k] == 0x5A;
    ok = rc == (long long)n && canary && memcmp(out + align, data, n) == 0;
    CHECK(ok, "%s %s n=%zu elem=%zu align=%zu: decompress rc=%lld canary=%d equal=%d", c->name,
          what, n, p ? p->elem_size : 0, align, rc, canary,
          rc == (long long)n ? memcmp(out + align, data, n) == 0 : -1);
    free(out);
    free(src);
    free(dst);
    return ok ? clen : -1;
}

/* ---- test groups --------------------------------------------------------- */

static void test_all_small_lengths(void)
{
    uint8_t buf[301];
    for (size_t ci = 0; ci < NHAND; ci++)
        for (size_t g = 0; g < NGENS; g++)
            for (size_t n = 0; n <= 300; n++) {
                gens[g].fn(buf, n, 1000 + n);
                const compi_codec_params *p = all_params[n % NPARAMS];
                test_roundtrip(hand[ci], buf, n, p, n % 8, gens[g].name);
                if (n % NPARAMS != 3) test_roundtrip(hand[ci], buf, n, &p_double, 0, gens[g].name);
                if (n % NPARAMS != 1) test_roundtrip(hand[ci], buf, n, &p_int, 3, gens[g].name);
            }
}

static void test_large(void)
{
    const size_t sizes[] = {65535, 65536, 65537, 3 * 65536 + 5, 1 << 20, (1 << 20) + 7};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint8_t *buf = test_xmalloc(n);
        for (size_t g = 0; g < NGENS; g++) {
            if (n > 300000 && g % 2 == 1 && si % 2 == 0) continue; /* keep ASan runs short */
            gens[g].fn(buf, n, 77 + si);
            for (size_t ci = 0; ci < NHAND; ci++)
                for (size_t pi = 0; pi < NPARAMS; pi++) {
                    if (pi == 0 || pi == 2) continue; /* byte ~ NULL, float ~ int */
                    test_roundtrip(hand[ci], buf, n, all_params[pi], (si + pi) % 8, gens[g].name);
                }
        }
        free(buf);
    }
}

/* The bound is the exact worst case: some input reaches it. */
static void test_bound_exact(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 127, 128, 129, 255, 256, 1000, 65536, 65537, 300001};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint8_t *buf = test_xmalloc(n);
        gen_no_runs(buf, n, 5 + n);
        for (size_t ci = 0; ci < NHAND; ci++) {
            for (size_t pi = 0; pi < NPARAMS; pi++) {
                long long clen = test_roundtrip(hand[ci], buf, n, all_params[pi], 0, "bound");
                CHECK(clen == (long long)hand[ci]->bound(n),
                      "%s n=%zu elem=%zu: incompressible input gives %lld, bound %zu (not tight)",
                      hand[ci]->name, n, all_params[pi] ? all_params[pi]->elem_size : 0, clen,
                      hand[ci]->bound(n));
            }
            /* compress refuses a too-small buffer instead of overrunning it */
            size_t b = hand[ci]->bound(n);
            uint8_t *dst = test_xmalloc(b - 1);
            long long rc = hand[ci]->compress(buf, n, dst, b - 1, &p_double);
            CHECK(rc == COMPI_ERR_DST_TOO_SMALL, "%s n=%zu: cap bound-1 gave %lld", hand[ci]->name,
                  n, rc);
            free(dst);
        }
        free(buf);
    }
}

/* A stream's strict prefixes, bit flips and wrong dst_len; garbage. */
static void test_corruption_one(const compi_codec *c, const uint8_t *data, size_t n,
                                const compi_codec_params *p, const char *what, size_t stride)
{
    size_t bound = c->bound(n);
    uint8_t *comp = test_xmalloc(bound);
    long long clen = c->compress(data, n, comp, bound, p);
    if (clen < 0) { CHECK(0, "%s %s: compress failed", c->name, what); free(comp); return; }
    uint8_t *out = test_xmalloc(n + 1);
    int canary;
    long long rc;
    /* every strict prefix must be rejected */
    int prefix_ok = 1;
    for (size_t k = 0; k < (size_t)clen; k += k + stride < (size_t)clen ? stride : 1) {
        rc = test_decode(c, comp, k, NULL, n, p, &canary);
        if (rc >= 0 || !canary) {
            prefix_ok = 0;
            if (verbose_fail_budget > 0)
                fprintf(stderr, "  %s %s n=%zu prefix %zu/%lld -> %lld\n", c->name, what, n, k,
                        clen, rc);
        }
    }
    CHECK(prefix_ok, "%s %s n=%zu: a truncated stream was accepted", c->name, what, n);
    /* trailing garbage must be rejected */
    uint8_t *longer = test_xmalloc((size_t)clen + 1);
    memcpy(longer, comp, (size_t)clen);
    longer[clen] = 0;
    rc = test_decode(c, longer, (size_t)clen + 1, NULL, n, p, &canary);
    CHECK(rc < 0 && canary, "%s %s n=%zu: trailing byte accepted (%lld)", c->name, what, n, rc);
    free(longer);
    /* every single bit flip: either an error or exactly n bytes, in bounds */
    uint8_t *mut = test_xmalloc((size_t)clen);
    int flips_ok = 1;
    long detected = 0, total = 0;
    for (size_t bit = 0; bit < (size_t)clen * 8; bit += bit < 64 ? 1 : stride) {
        memcpy(mut, comp, (size_t)clen);
        mut[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        rc = test_decode(c, mut, (size_t)clen, NULL, n, p, &canary);
        total++;
        if (rc < 0) detected++;
        if (!(rc == (long long)n || rc == COMPI_ERR_CORRUPT || rc == COMPI_ERR_LENGTH) || !canary)
            flips_ok = 0;
    }
    CHECK(flips_ok, "%s %s n=%zu: bit flip gave an invalid result", c->name, what, n);
    /* header flips (version, length) must always be detected */
    if (clen > 0) {
        memcpy(mut, comp, (size_t)clen);
        mut[0] ^= 0x40;
        rc = test_decode(c, mut, (size_t)clen, NULL, n, p, &canary);
        CHECK(rc == COMPI_ERR_CORRUPT, "%s %s: bad version accepted (%lld)", c->name, what, rc);
    }
    free(mut);
    /* wrong dst_len is always an error, never a short or long success */
    const size_t wrong[] = {0, 1, n - 1, n + 1, n * 2 + 3, 8};
    for (size_t wi = 0; wi < sizeof wrong / sizeof wrong[0]; wi++) {
        size_t wl = wrong[wi];
        if (wl == n || wl > 4 * n + 64) continue;
        rc = test_decode(c, comp, (size_t)clen, NULL, wl, p, &canary);
        CHECK(rc < 0 && canary, "%s %s n=%zu: dst_len %zu accepted (%lld)", c->name, what, n, wl,
              rc);
    }
    /* and the original still decodes */
    rc = test_decode(c, comp, (size_t)clen, out, n, p, &canary);
    CHECK(rc == (long long)n && canary && memcmp(out, data, n) == 0, "%s %s: clean decode", c->name,
          what);
    free(out);
    free(comp);
}

static void test_corruption(void)
{
    const size_t lens[] = {0, 1, 5, 8, 13, 16, 40, 64, 100, 200, 333};
    uint8_t buf[400];
    for (size_t ci = 0; ci < NHAND; ci++)
        for (size_t g = 0; g < NGENS; g++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                size_t n = lens[li];
                gens[g].fn(buf, n, 31 * li + g);
                test_corruption_one(hand[ci], buf, n, (li & 1) ? &p_int : &p_double, gens[g].name,
                                    1);
            }
}

/* Larger streams reach the multi-stream Huffman blocks and several blocks;
 * prefixes and flips are sampled with a stride coprime to 8. */
static void test_corruption_large(void)
{
    const size_t lens[] = {4096, 9001, 70001};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t n = lens[li];
        uint8_t *buf = test_xmalloc(n);
        for (size_t g = 0; g < NGENS; g++) {
            if (gens[g].fn == gen_zeros || gens[g].fn == gen_random) continue;
            gens[g].fn(buf, n, 3 + li);
            for (size_t ci = 0; ci < NHAND; ci++)
                test_corruption_one(hand[ci], buf, n, (g & 1) ? &p_int : &p_double, gens[g].name,
                                    li == 2 ? 997 : 61);
        }
        free(buf);
    }
}

/* Random garbage, with and without a plausible header. */
static void test_garbage(void)
{
    uint64_t s = 0x1234567;
    uint8_t buf[600];
    for (size_t ci = 0; ci < NHAND; ci++) {
        int ok = 1;
        for (int iter = 0; iter < 20000; iter++) {
            size_t len = test_rng(&s) % sizeof buf;
            size_t dst_len = test_rng(&s) % 2000;
            for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)test_rng(&s);
            if (len > 4 && (iter & 1)) { /* valid version + length + mode-ish */
                buf[0] = 1;
                size_t v = dst_len, k = 1;
                while (v >= 0x80 && k < 4) { buf[k++] = (uint8_t)(v | 0x80); v >>= 7; }
                buf[k++] = (uint8_t)v;
                if (k < len && (iter & 2)) buf[k] = (uint8_t)(test_rng(&s) % 3);
                if (k + 1 < len && (iter & 4)) buf[k + 1] = (uint8_t)(10 + test_rng(&s) % 7);
            }
            int canary;
            long long rc = test_decode(hand[ci], buf, len, NULL, dst_len, &p_double, &canary);
            if (!(rc == (long long)dst_len || rc == COMPI_ERR_CORRUPT || rc == COMPI_ERR_LENGTH) ||
                !canary)
                ok = 0;
        }
        CHECK(ok, "%s: garbage gave an invalid result", hand[ci]->name);
    }
}

/* Hand-made malformed streams that must be rejected for a specific reason. */
static void test_crafted(void)
{
    uint8_t out[64];
    /* huffman: ver, len=4, block_log 16, coded block, symbols 0..2 */
    uint8_t h_incomplete[] = {1, 4, 16, 1, 0, 1, 0x21, 1, 0x00}; /* lengths 1,2: Kraft 3/4 */
    uint8_t h_over[] = {1, 4, 16, 1, 0, 2, 0x11, 0x01, 1, 0x00}; /* 1,1,1: Kraft 3/2 */
    uint8_t h_toolong[] = {1, 4, 16, 1, 0, 1, 0xC1, 1, 0x00};   /* length 12 > 11 */
    uint8_t h_good[] = {1, 4, 16, 1, 0, 1, 0x11, 1, 0x0A};      /* 0,1,0,1 */
    CHECK(compi_codec_huffman.decompress(h_incomplete, sizeof h_incomplete, out, 4, NULL) ==
              COMPI_ERR_CORRUPT, "huffman: incomplete code accepted");
    CHECK(compi_codec_huffman.decompress(h_over, sizeof h_over, out, 4, NULL) == COMPI_ERR_CORRUPT,
          "huffman: oversubscribed code accepted");
    CHECK(compi_codec_huffman.decompress(h_toolong, sizeof h_toolong, out, 4, NULL) ==
              COMPI_ERR_CORRUPT, "huffman: 12-bit code accepted");
    long long rc = compi_codec_huffman.decompress(h_good, sizeof h_good, out, 4, NULL);
    CHECK(rc == 4 && out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 1,
          "huffman: hand-made valid stream rc=%lld", rc);
    uint8_t h_padbits[] = {1, 4, 16, 1, 0, 1, 0x11, 1, 0x1A}; /* nonzero padding bit */
    CHECK(compi_codec_huffman.decompress(h_padbits, sizeof h_padbits, out, 4, NULL) ==
              COMPI_ERR_CORRUPT, "huffman: nonzero padding accepted");
    uint8_t h_blog[] = {1, 4, 40, 2, 7};
    CHECK(compi_codec_huffman.decompress(h_blog, sizeof h_blog, out, 4, NULL) == COMPI_ERR_CORRUPT,
          "huffman: block_log 40 accepted");
    uint8_t h_type[] = {1, 4, 16, 3, 7};
    CHECK(compi_codec_huffman.decompress(h_type, sizeof h_type, out, 4, NULL) == COMPI_ERR_CORRUPT,
          "huffman: block type 3 accepted");
    /* varint length: overlong and overflowing */
    uint8_t v_over[] = {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
    for (size_t ci = 0; ci < NHAND; ci++)
        CHECK(hand[ci]->decompress(v_over, sizeof v_over, out, 4, NULL) < 0,
              "%s: overflowing varint accepted", hand[ci]->name);
    /* rle: run past dst_len, literal past src end */
    uint8_t r_run[] = {1, 4, 0x82, 9};
    CHECK(compi_codec_rle.decompress(r_run, sizeof r_run, out, 4, NULL) < 0, "rle: long run");
    uint8_t r_lit[] = {1, 4, 0x03, 1, 2, 3};
    CHECK(compi_codec_rle.decompress(r_lit, sizeof r_lit, out, 4, NULL) < 0, "rle: short literal");
    uint8_t r_ok[] = {1, 4, 0x81, 9};
    CHECK(compi_codec_rle.decompress(r_ok, sizeof r_ok, out, 4, NULL) == 4 && out[3] == 9,
          "rle: valid run");
    /* fpc: table size out of range; word-size 4 code 5 is invalid */
    uint8_t f_k[] = {1, 8, 1, 30, 0x00, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(compi_codec_fpc.decompress(f_k, sizeof f_k, out, 8, NULL) == COMPI_ERR_CORRUPT,
          "fpc: k=30 accepted");
    uint8_t f_k_ok[] = {1, 8, 1, 10, 0x00, 1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(compi_codec_fpc.decompress(f_k_ok, sizeof f_k_ok, out, 8, NULL) == 8 && out[7] == 8,
          "fpc: hand-made valid stream");
    uint8_t f_c32[] = {1, 4, 2, 10, 0x50};
    CHECK(compi_codec_fpc.decompress(f_c32, sizeof f_c32, out, 4, NULL) == COMPI_ERR_CORRUPT,
          "fpc: 32-bit code 5 accepted");
    uint8_t f_mode[] = {1, 8, 3, 10, 0x00, 1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(compi_codec_fpc.decompress(f_mode, sizeof f_mode, out, 8, NULL) == COMPI_ERR_CORRUPT,
          "fpc: mode 3 accepted");
    /* dfcm: 32-bit code 9 is invalid; code 15 is an exact prediction (0) */
    uint8_t d_c32[] = {1, 4, 2, 0x09, 0, 0, 0};
    CHECK(compi_codec_dfcm.decompress(d_c32, sizeof d_c32, out, 4, NULL) == COMPI_ERR_CORRUPT,
          "dfcm: 32-bit code 9 accepted");
    uint8_t d_zero[] = {1, 8, 1, 0x0F};
    memset(out, 0xEE, 8);
    rc = compi_codec_dfcm.decompress(d_zero, sizeof d_zero, out, 8, NULL);
    CHECK(rc == 8 && out[0] == 0 && out[7] == 0, "dfcm: code 15 stream rc=%lld", rc);
    uint8_t d_pad[] = {1, 8, 1, 0x1F};
    CHECK(compi_codec_dfcm.decompress(d_pad, sizeof d_pad, out, 8, NULL) == COMPI_ERR_CORRUPT,
          "dfcm: nonzero padding accepted");
}

/* Compression that the codecs exist for; catches silently degraded models. */
static void test_effectiveness(void)
{
    size_t n = 1 << 20;
    size_t cap = compi_codec_rle.bound(n) + 64; /* the largest of the four */
    uint8_t *buf = test_xmalloc(n), *dst = test_xmalloc(cap);
    struct {
        const compi_codec *c;
        test_gen_fn gen;
        const compi_codec_params *p;
        double max_ratio; /* compressed / original must stay below */
        const char *what;
    } cases[] = {
        {&compi_codec_rle, gen_zeros, &p_byte, 0.016, "rle zeros"}, /* 2 bytes per 130 */
        {&compi_codec_rle, gen_runs, &p_byte, 0.05, "rle runs"},
        {&compi_codec_huffman, gen_skewed, &p_byte, 0.30, "huffman skewed"},
        {&compi_codec_huffman, gen_text, &p_byte, 0.70, "huffman text"},
        {&compi_codec_huffman, gen_zeros, &p_byte, 0.001, "huffman zeros"},
        {&compi_codec_fpc, gen_smooth_doubles, &p_double, 0.75, "fpc smooth"},
        {&compi_codec_fpc, gen_pattern_seq, &p_double, 0.25, "fpc 50001,50003,..."},
        {&compi_codec_fpc, gen_pattern_alt, &p_double, 0.10, "fpc 50001/50003"},
        {&compi_codec_fpc, gen_smooth_floats, &p_float, 0.85, "fpc smooth floats"},
        {&compi_codec_dfcm, gen_smooth_doubles, &p_double, 0.55, "dfcm smooth"}, /* drift corr. */
        {&compi_codec_dfcm, gen_pattern_seq, &p_double, 0.10, "dfcm 50001,50003,..."},
        {&compi_codec_dfcm, gen_pattern_alt, &p_double, 0.10, "dfcm 50001/50003"},
        {&compi_codec_dfcm, gen_int_ramp, &p_int, 0.15, "dfcm int ramp"},
        {&compi_codec_dfcm, gen_double_ramp, &p_double, 0.60, "dfcm double ramp"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cases[i].gen(buf, n, 9);
        long long clen = cases[i].c->compress(buf, n, dst, cap, cases[i].p);
        double r = clen > 0 ? (double)clen / (double)n : 99;
        CHECK(r < cases[i].max_ratio, "%s: ratio %.4f, expected < %.4f", cases[i].what, r,
              cases[i].max_ratio);
    }
    free(buf);
    free(dst);
}

/* Reentrancy: threads round-tripping different data at once must agree with
 * the single-threaded output byte for byte. */
typedef struct {
    const compi_codec *c;
    uint64_t seed;
    int ok;
} test_thread_arg;

static void *test_thread(void *argp)
{
    test_thread_arg *a = argp;
    size_t n = 200000 + a->seed % 1000;
    uint8_t *buf = test_xmalloc(n), *out = test_xmalloc(n);
    size_t b = a->c->bound(n);
    uint8_t *d1 = test_xmalloc(b), *d2 = test_xmalloc(b);
    a->ok = 1;
    for (int it = 0; it < 6; it++) {
        gens[(a->seed + it) % NGENS].fn(buf, n, a->seed + it);
        long long c1 = a->c->compress(buf, n, d1, b, &p_double);
        long long c2 = a->c->compress(buf, n, d2, b, &p_double);
        long long r = c1 >= 0 ? a->c->decompress(d1, (size_t)c1, out, n, &p_double) : -1;
        if (c1 < 0 || c1 != c2 || memcmp(d1, d2, (size_t)c1) || r != (long long)n ||
            memcmp(out, buf, n))
            a->ok = 0;
    }
    free(buf); free(out); free(d1); free(d2);
    return NULL;
}

static void test_threads(void)
{
    for (size_t ci = 0; ci < NHAND; ci++) {
        pthread_t th[4];
        test_thread_arg args[4];
        int started[4] = {0};
        for (int t = 0; t < 4; t++) {
            args[t] = (test_thread_arg){hand[ci], (uint64_t)t * 3 + 1, 0};
            started[t] = pthread_create(&th[t], NULL, test_thread, &args[t]) == 0;
        }
        for (int t = 0; t < 4; t++) {
            if (started[t]) pthread_join(th[t], NULL);
            CHECK(started[t] && args[t].ok, "%s: thread %d failed", hand[ci]->name, t);
        }
    }
}

/* ---- benchmark ----------------------------------------------------------- */

static double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time, not wall time: the build machine is shared and loaded */
static double test_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int test_bench(void)
{
    size_t n = 1 << 20;
    size_t cap = compi_codec_rle.bound(n) + 64;
    uint8_t *buf = test_xmalloc(n), *out = test_xmalloc(n), *dst = test_xmalloc(cap);
    struct {
        const char *name;
        test_gen_fn gen;
        const compi_codec_params *p;
    } sets[] = {
        {"smooth doubles+noise", gen_smooth_doubles, &p_double},
        {"50001,50003,... doubles", gen_pattern_seq, &p_double},
        {"50001/50003 alternating", gen_pattern_alt, &p_double},
        {"int32 50% repeated", gen_ints_r50, &p_int},
        {"random bytes", gen_random, &p_byte},
    };
    printf("%-26s %-8s %8s %10s %10s\n", "data (1 MiB)", "codec", "ratio", "comp MB/s",
           "dec MB/s");
    for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
        sets[si].gen(buf, n, 42);
        for (size_t ci = 0; ci < NHAND; ci++) {
            const compi_codec *c = hand[ci];
            long long clen = 0;
            int reps = 0;
            double t0 = test_cpu_now(), tc, td;
            do { clen = c->compress(buf, n, dst, cap, sets[si].p); reps++; }
            while ((tc = test_cpu_now() - t0) < 0.3);
            tc /= reps;
            reps = 0;
            long long rc;
            t0 = test_cpu_now();
            do { rc = c->decompress(dst, (size_t)clen, out, n, sets[si].p); reps++; }
            while ((td = test_cpu_now() - t0) < 0.3);
            td /= reps;
            if (rc != (long long)n || memcmp(out, buf, n)) printf("ROUND TRIP FAILED\n");
            printf("%-26s %-8s %8.3f %10.1f %10.1f\n", sets[si].name, c->name,
                   (double)n / (double)clen, n / tc / 1e6, n / td / 1e6);
        }
    }
    free(buf); free(out); free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) return test_bench();
    for (size_t ci = 0; ci < NHAND; ci++)
        CHECK(hand[ci]->name && hand[ci]->summary && hand[ci]->bound && hand[ci]->compress &&
              hand[ci]->decompress, "codec %zu incomplete", ci);
    CHECK(compi_codec_rle.id == COMPI_CODEC_ID_RLE && compi_codec_huffman.id == COMPI_CODEC_ID_HUFFMAN &&
          compi_codec_fpc.id == COMPI_CODEC_ID_FPC && compi_codec_dfcm.id == COMPI_CODEC_ID_DFCM,
          "wire ids");
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"small lengths", test_all_small_lengths}, {"large", test_large},
        {"bound exact", test_bound_exact},         {"corruption", test_corruption},
        {"corruption big", test_corruption_large},
        {"garbage", test_garbage},                 {"crafted", test_crafted},
        {"effectiveness", test_effectiveness},     {"threads", test_threads},
    };
    /* `--group WORD` runs only the groups whose name contains WORD */
    const char *only = argc > 2 && strcmp(argv[1], "--group") == 0 ? argv[2] : NULL;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (only && !strstr(groups[g].name, only)) continue;
        long f0 = n_fail, p0 = n_pass;
        double t0 = test_now();
        groups[g].fn();
        fprintf(stderr, "%-14s %7ld passed, %ld failed (%.1fs)\n", groups[g].name, n_pass - p0,
                n_fail - f0, test_now() - t0);
    }
    printf("%ld passed, %ld failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
