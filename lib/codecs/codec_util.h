/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal helpers shared by the hand-written codecs (rle, huffman, fpc,
 * dfcm): LEB128 varints, little-endian word access and the common stream
 * header [version byte][LEB128 original length]. Header-only, everything
 * static inline; not part of the public API. */
#ifndef COMPI_CODEC_UTIL_H
#define COMPI_CODEC_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "codecs.h"

#if defined(__GNUC__)
#define COMPI_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define COMPI_ALWAYS_INLINE static inline
#endif

/* ---- LEB128 varints (7 bits per byte, low group first) ---- */

static inline size_t compi_varint_len(size_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline size_t compi_varint_put(uint8_t *p, size_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Returns bytes consumed, 0 on malformed/overlong input (more than 10 bytes,
 * or a value that would overflow 64 bits). */
static inline size_t compi_varint_get(const uint8_t *p, size_t avail, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < avail && i < 10; i++) {
        uint64_t b = p[i] & 0x7f;
        if (i == 9 && b > 1) return 0; /* would overflow 64 bits */
        v |= b << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

/* ---- little-endian loads/stores: streams are portable across byte orders ---- */

/* FNV-1a, 64 bit, over n bytes, continuing from h (start with
 * COMPI_FNV64_INIT): keys and fingerprints, not integrity checks. */
#define COMPI_FNV64_INIT 0xcbf29ce484222325ull
static inline uint64_t compi_fnv1a64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static inline uint64_t compi_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void compi_store_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static inline uint32_t compi_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline void compi_store_le32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, 4);
}

/* ---- stream header: [version][LEB128 original length] ---- */

/* Bytes the header takes for an n-byte message. */
static inline size_t compi_hdr_len(size_t n)
{
    return 1 + compi_varint_len(n);
}

/* Writes the header at p; returns bytes written (compi_hdr_len(n)). */
static inline size_t compi_hdr_put(uint8_t *p, uint8_t version, size_t n)
{
    p[0] = version;
    return 1 + compi_varint_put(p + 1, n);
}

/* Parses the header of src[0..src_len). min_len (>= 1) is the codec's
 * smallest valid stream; shorter input or a wrong version byte is
 * COMPI_ERR_CORRUPT, as is a malformed length; a length other than dst_len
 * is COMPI_ERR_LENGTH. On success stores the header size in *hdr_len and
 * returns COMPI_OK. */
static inline int compi_hdr_get(const uint8_t *src, size_t src_len, uint8_t version, size_t min_len, size_t dst_len,
                                size_t *hdr_len)
{
    if (src_len < min_len || src[0] != version) return COMPI_ERR_CORRUPT;
    uint64_t orig;
    size_t vl = compi_varint_get(src + 1, src_len - 1, &orig);
    if (!vl) return COMPI_ERR_CORRUPT;
    if (orig != (uint64_t)dst_len) return COMPI_ERR_LENGTH;
    *hdr_len = 1 + vl;
    return COMPI_OK;
}

/* ---- word codecs (fpc, dfcm): header, then a mode byte ---- */

#define COMPI_WMODE_RAW 0 /* the input follows verbatim (coding would expand it) */
#define COMPI_WMODE_64 1  /* 8-byte words */
#define COMPI_WMODE_32 2  /* 4-byte words */

/* Raw fallback: rewrites the stream from the mode byte at modep as mode raw
 * plus the n input bytes. Returns the total stream length. */
static inline long long compi_wmode_put_raw(uint8_t *dst, uint8_t *modep, const uint8_t *src, size_t n)
{
    uint8_t *op = modep;
    *op++ = COMPI_WMODE_RAW;
    memcpy(op, src, n);
    return (long long)(op + n - dst);
}

/* Parses the header (smallest stream: 3 bytes) and the mode byte. A raw
 * stream is checked and copied to dst here and *w is set to 0; otherwise *w
 * is the word width (8 or 4) and *pos the offset after the mode byte.
 * Returns COMPI_OK or a negative compi_status. */
static inline int compi_wmode_get(const uint8_t *src, size_t src_len, uint8_t version, uint8_t *dst, size_t dst_len,
                                  size_t *pos, unsigned *w)
{
    size_t hl;
    int rc = compi_hdr_get(src, src_len, version, 3, dst_len, &hl);
    if (rc) return rc;
    const uint8_t *ip = src + hl, *end = src + src_len;
    if (ip >= end) return COMPI_ERR_CORRUPT;
    unsigned mode = *ip++;
    if (mode == COMPI_WMODE_RAW) {
        if ((size_t)(end - ip) != dst_len) return COMPI_ERR_CORRUPT;
        memcpy(dst, ip, dst_len);
        *w = 0;
        return COMPI_OK;
    }
    if (mode != COMPI_WMODE_64 && mode != COMPI_WMODE_32) return COMPI_ERR_CORRUPT;
    *w = mode == COMPI_WMODE_64 ? 8 : 4;
    *pos = (size_t)(ip - src);
    return COMPI_OK;
}

#endif
