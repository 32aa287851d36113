/* SPDX-License-Identifier: BSD-3-Clause */
/* Adaptive Rice coding (CCSDS 121.0, libaec) with the unit-delay predictor
 * (AEC_DATA_PREPROCESS), block size 16 (8-bit samples) or 32 (32-bit
 * samples), reference sample interval 128.
 *
 * Sample layout by data class:
 *   byte   -> 8-bit unsigned samples;
 *   int    -> 32-bit signed samples (predictor sees true differences);
 *   float  -> 32-bit unsigned samples over the raw IEEE words;
 *   double -> 32-bit samples after splitting each double into its low and high
 *             word and coding all low words, then all high words. Coding the
 *             raw interleaved words makes the predictor difference low-vs-high
 *             garbage on every sample, and 8-bit samples mix the 8 byte
 *             planes the same way; the split keeps the slowly varying high
 *             words (sign, exponent, top mantissa) adjacent, which is what
 *             Rice can exploit. Measured on 1 MiB: double_smooth 1.36 split vs
 *             0.99 raw words vs 0.98 bytes; double_pattern 8.7 vs 0.99 vs 0.99.
 * Floats gain nothing from any layout (the redundancy is repeats, which a
 * delta predictor cannot see) and usually fall back to stored raw.
 *
 * libaec needs a whole number of samples and carries no length, so we
 * prepend a small header:
 *   byte 0   : bits 0-1 layout (0 stored raw, 1 u8, 2 32-bit, 3 split double),
 *              bit 2 signed samples, bit 3 block size 32 (else 16), rest 0
 *   LEB128   : original length (checked against dst_len)
 *   tail     : the last (length mod unit) bytes, stored raw
 *   payload  : the libaec stream for the leading whole samples.
 * When Rice would expand the data, layout 0 stores it raw instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libaec.h>
#include "codecs.h"

enum { COMPI_RICE_RAW = 0, COMPI_RICE_U8 = 1, COMPI_RICE_W32 = 2, COMPI_RICE_SPLIT64 = 3 };
#define COMPI_RICE_SIGNED 0x4u
#define COMPI_RICE_BLOCK32 0x8u
#define COMPI_RICE_RSI 128
#define COMPI_RICE_MAX_HDR (1 + 10 + 7)

static size_t compi_rice_unit(unsigned layout)
{
    static const size_t units[4] = {1, 1, 4, 8};
    return units[layout & 3u];
}

static size_t compi_rice_bound(size_t src_len)
{
    /* Raw fallback never exceeds header + src_len; the slack lets libaec
     * finish its attempt in place (Rice expands incompressible 8-bit data by
     * about 3 bits per 16-sample block). */
    return COMPI_RICE_MAX_HDR + src_len + src_len / 8 + 256;
}

static size_t compi_rice_put_len(unsigned char *p, size_t len)
{
    size_t n = 0;
    do {
        unsigned char b = (unsigned char)(len & 0x7f);
        len >>= 7;
        p[n++] = (unsigned char)(b | (len ? 0x80 : 0));
    } while (len);
    return n;
}

/* Returns bytes consumed or 0 on a malformed / overlong varint. */
static size_t compi_rice_get_len(const unsigned char *p, size_t avail, size_t *len)
{
    size_t v = 0;
    for (size_t i = 0; i < avail && i < 10; i++) {
        size_t bits = p[i] & 0x7fu;
        unsigned shift = (unsigned)(7 * i);
        if (shift >= 64 || (shift > 0 && (bits >> (64 - shift)) != 0)) return 0;
        v |= bits << shift;
        if (!(p[i] & 0x80)) {
            *len = v;
            return i + 1;
        }
    }
    return 0;
}

/* Split n doubles into n low words followed by n high words (and back). */
static void compi_rice_split(const unsigned char *src, size_t n, uint32_t *planes)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, src + 8 * i, 8);
        planes[i] = (uint32_t)v;
        planes[n + i] = (uint32_t)(v >> 32);
    }
}

static void compi_rice_join(const uint32_t *planes, size_t n, unsigned char *dst)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = ((uint64_t)planes[n + i] << 32) | planes[i];
        memcpy(dst + 8 * i, &v, 8);
    }
}

static void compi_rice_setup(struct aec_stream *s, unsigned mode)
{
    memset(s, 0, sizeof *s);
    s->bits_per_sample = (mode & 3u) == COMPI_RICE_U8 ? 8 : 32;
    s->block_size = (mode & COMPI_RICE_BLOCK32) ? 32 : 16;
    s->rsi = COMPI_RICE_RSI;
    s->flags = AEC_DATA_PREPROCESS | ((mode & COMPI_RICE_SIGNED) ? AEC_DATA_SIGNED : 0);
}

static long long compi_rice_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                     const compi_codec_params *params)
{
    if (dst == NULL || dst_cap < COMPI_RICE_MAX_HDR + src_len) return COMPI_ERR_DST_TOO_SMALL;
    const unsigned char *in = (const unsigned char *)src;
    unsigned char *out = (unsigned char *)dst;
    compi_dtclass cls = params ? params->dtclass : COMPI_CLASS_BYTE;
    size_t esz = params ? params->elem_size : 1;
    unsigned mode;
    if (cls == COMPI_CLASS_DOUBLE || (cls == COMPI_CLASS_BYTE && esz == 8))
        mode = COMPI_RICE_SPLIT64 | COMPI_RICE_BLOCK32;
    else if (cls == COMPI_CLASS_INT) mode = COMPI_RICE_W32 | COMPI_RICE_SIGNED | COMPI_RICE_BLOCK32;
    else if (cls == COMPI_CLASS_FLOAT || esz == 4) mode = COMPI_RICE_W32 | COMPI_RICE_BLOCK32;
    else mode = COMPI_RICE_U8;

    size_t unit = compi_rice_unit(mode);
    size_t tail = src_len % unit, payload = src_len - tail;
    size_t hdr = 1 + compi_rice_put_len(out + 1, src_len);
    if (payload > 0) {
        uint32_t *planes = NULL;
        const unsigned char *samples = in;
        if ((mode & 3u) == COMPI_RICE_SPLIT64) {
            planes = malloc(payload);
            if (!planes) return COMPI_ERR_NOMEM;
            compi_rice_split(in, payload / 8, planes);
            samples = (const unsigned char *)planes;
        }
        struct aec_stream s;
        compi_rice_setup(&s, mode);
        s.next_in = samples;
        s.avail_in = payload;
        s.next_out = out + hdr + tail;
        s.avail_out = dst_cap - hdr - tail;
        int rc = aec_buffer_encode(&s);
        free(planes);
        /* Keep the Rice stream only if it ran to completion and beats raw;
         * a full output buffer is treated as "did not fit". */
        if (rc == AEC_OK && s.avail_in == 0 && s.avail_out > 0 && s.total_out < payload) {
            out[0] = (unsigned char)mode;
            if (tail) memcpy(out + hdr, in + payload, tail);
            return (long long)(hdr + tail + s.total_out);
        }
    }
    /* Stored raw: header + all bytes. */
    out[0] = COMPI_RICE_RAW;
    if (src_len) memcpy(out + hdr, in, src_len);
    return (long long)(hdr + src_len);
}

static long long compi_rice_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                       const compi_codec_params *params)
{
    const unsigned char *in = (const unsigned char *)src;
    unsigned char *out = (unsigned char *)dst;
    if (in == NULL || src_len < 2) return COMPI_ERR_CORRUPT;
    unsigned mode = in[0];
    if (mode & 0xf0u) return COMPI_ERR_CORRUPT;
    size_t len = 0, nl = compi_rice_get_len(in + 1, src_len - 1, &len);
    if (nl == 0) return COMPI_ERR_CORRUPT;
    if (len != dst_len) return COMPI_ERR_LENGTH;
    if (out == NULL && dst_len) return COMPI_ERR_LENGTH;
    size_t pos = 1 + nl;
    if ((mode & 3u) == COMPI_RICE_RAW) {
        if (mode != COMPI_RICE_RAW || src_len - pos != dst_len) return COMPI_ERR_CORRUPT;
        if (dst_len) memcpy(out, in + pos, dst_len);
        return (long long)dst_len;
    }
    size_t unit = compi_rice_unit(mode);
    size_t tail = dst_len % unit, payload = dst_len - tail;
    if (src_len - pos < tail) return COMPI_ERR_CORRUPT;
    if (tail) memcpy(out + payload, in + pos, tail);
    pos += tail;
    if (payload == 0) return pos == src_len ? (long long)dst_len : COMPI_ERR_CORRUPT;
    if (pos >= src_len) return COMPI_ERR_CORRUPT;

    uint32_t *planes = NULL;
    unsigned char *samples = out;
    if ((mode & 3u) == COMPI_RICE_SPLIT64) {
        planes = malloc(payload);
        if (!planes) return COMPI_ERR_NOMEM;
        samples = (unsigned char *)planes;
    }
    struct aec_stream s;
    compi_rice_setup(&s, mode);
    s.next_in = in + pos;
    s.avail_in = src_len - pos;
    s.next_out = samples;
    s.avail_out = payload;
    int rc = aec_buffer_decode(&s);
    long long ret = (long long)dst_len;
    if (rc != AEC_OK) ret = COMPI_ERR_CORRUPT;
    else if (s.total_out != payload) ret = COMPI_ERR_LENGTH;
    else if (planes) compi_rice_join(planes, payload / 8, out);
    free(planes);
    return ret;
}

const compi_codec compi_codec_rice = {
    .name = "rice",
    .id = COMPI_CODEC_ID_RICE,
    .summary = "Adaptive Rice / CCSDS 121 (libaec) with delta predictor, raw fallback",
    .bound = compi_rice_bound,
    .compress = compi_rice_compress,
    .decompress = compi_rice_decompress,
};
