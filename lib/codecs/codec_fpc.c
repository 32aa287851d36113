/* SPDX-License-Identifier: BSD-3-Clause */
/* fpc: Burtscher & Ratanaworabhan's FPC (IEEE TC 2009) for floating point.
 *
 * Stream: [version=1][LEB128 original length][mode] ...
 *   mode 0: raw copy of the input (used when FPC would expand it)
 *   mode 1: 8-byte words (doubles); mode 2: 4-byte words (floats/ints,
 *           chosen when params->elem_size == 4 so the predictors see the
 *           real values rather than pairs glued into fake doubles)
 *   then [k] (hash tables have 2^k entries, 10 <= k <= 16, from the length),
 *   then per pair of words one header byte (first word's code in the high
 *   nibble) followed by the residual bytes of both words, then the
 *   length % wordsize tail bytes raw.
 * Code nibble: bit 3 = predictor (1 = dfcm), bits 0-2 = count of leading
 * zero bytes of residual = word XOR prediction. For 8-byte words the count
 * 4 is coded as 3 (one extra byte) so 3 bits cover 0,1,2,3,5,6,7,8; the
 * residual's low (W - count) bytes follow, little-endian. An odd last word's
 * partner nibble is 0. */
#include <stdlib.h>
#include <string.h>
#include "codec_util.h"

#define FPC_VERSION 1
#define FPC_KMIN 10
#define FPC_KMAX 16

/* Raw fallback keeps the worst case at the input size plus the header. */
static size_t fpc_bound(size_t n)
{
    return compi_hdr_len(n) + 1 + n;
}

static unsigned fpc_pick_k(size_t nwords)
{
    unsigned k = FPC_KMIN;
    while (k < FPC_KMAX && ((size_t)1 << k) < nwords) k++;
    return k;
}

/* Predictor state; the same code runs in the encoder and the decoder. */
typedef struct {
    uint64_t *fcm, *dfcm;
    uint64_t mask, last;
    uint64_t fh, dh;
} fpc_state;

static int fpc_state_init(fpc_state *st, unsigned k)
{
    st->fcm = calloc((size_t)2 << k, sizeof(uint64_t));
    if (!st->fcm) return COMPI_ERR_NOMEM;
    st->dfcm = st->fcm + ((size_t)1 << k);
    st->mask = ((uint64_t)1 << k) - 1;
    st->last = st->fh = st->dh = 0;
    return COMPI_OK;
}

/* Hash shifts follow the FPC reference for doubles (sign/exponent/top
 * mantissa bits); for 32-bit words the same idea scaled to 32 bits. */
static inline void fpc_update64(fpc_state *st, uint64_t v)
{
    st->fcm[st->fh] = v;
    st->fh = ((st->fh << 6) ^ (v >> 48)) & st->mask;
    uint64_t d = v - st->last;
    st->dfcm[st->dh] = d;
    st->dh = ((st->dh << 2) ^ (d >> 40)) & st->mask;
    st->last = v;
}

static inline void fpc_update32(fpc_state *st, uint64_t v)
{
    st->fcm[st->fh] = v;
    st->fh = ((st->fh << 6) ^ (v >> 20)) & st->mask;
    uint64_t d = (v - st->last) & 0xffffffffu;
    st->dfcm[st->dh] = d;
    st->dh = ((st->dh << 2) ^ (d >> 12)) & st->mask;
    st->last = v;
}

/* Encodes one word: returns its nibble, writes residual bytes at *op. */
COMPI_ALWAYS_INLINE unsigned fpc_enc_word(fpc_state *st, uint64_t v, unsigned w, uint8_t **op)
{
    uint64_t pf = st->fcm[st->fh];
    uint64_t pd = st->dfcm[st->dh] + st->last;
    if (w == 4) pd &= 0xffffffffu;
    uint64_t xf = v ^ pf, xd = v ^ pd;
    unsigned sel = 0;
    uint64_t x = xf;
    if (xd < xf) {
        x = xd;
        sel = 8;
    } /* fewer significant bits */
    unsigned lzb;
    if (w == 8) {
        lzb = x ? (unsigned)__builtin_clzll(x) / 8 : 8;
        if (lzb == 4) lzb = 3;
    } else {
        lzb = x ? ((unsigned)__builtin_clzll(x) - 32) / 8 : 4;
    }
    unsigned nbytes = w - lzb;
    uint8_t tmp[8];
    compi_store_le64(tmp, x);
    memcpy(*op, tmp, nbytes);
    *op += nbytes;
    if (w == 8) {
        fpc_update64(st, v);
        return sel | (lzb > 4 ? lzb - 1 : lzb);
    }
    fpc_update32(st, v);
    return sel | lzb;
}

/* All words, with w a compile-time constant at each call site so the 4- and
 * 8-byte paths are specialised. NULL when the output would pass limit. */
COMPI_ALWAYS_INLINE uint8_t *fpc_encode_words(fpc_state *st, const uint8_t *src, size_t nwords, unsigned w, uint8_t *op,
                                              const uint8_t *limit)
{
    size_t i = 0;
    for (; i + 2 <= nwords; i += 2) {
        /* each pair adds at most 1 + 2w bytes */
        if ((size_t)(limit - op) < 1 + 2 * (size_t)w) return NULL;
        uint8_t *hp = op++;
        uint64_t a = w == 8 ? compi_load_le64(src + i * 8) : compi_load_le32(src + i * 4);
        uint64_t b = w == 8 ? compi_load_le64(src + i * 8 + 8) : compi_load_le32(src + i * 4 + 4);
        unsigned ca = fpc_enc_word(st, a, w, &op);
        unsigned cb = fpc_enc_word(st, b, w, &op);
        *hp = (uint8_t)(ca << 4 | cb);
    }
    if (i < nwords) {
        if ((size_t)(limit - op) < 1 + (size_t)w) return NULL;
        uint8_t *hp = op++;
        uint64_t a = w == 8 ? compi_load_le64(src + i * 8) : compi_load_le32(src + i * 4);
        *hp = (uint8_t)(fpc_enc_word(st, a, w, &op) << 4);
    }
    return op;
}

static long long fpc_compress(const void *srcv, size_t n, void *dstv, size_t cap, const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    if (cap < fpc_bound(n)) return COMPI_ERR_DST_TOO_SMALL;
    unsigned w = params && params->elem_size == 4 ? 4 : 8;
    uint8_t *op = dst;
    op += compi_hdr_put(op, FPC_VERSION, n);
    uint8_t *modep = op++;
    size_t nwords = n / w, tail = n % w;
    /* raw fallback if a pair could overrun the raw size (each pair adds at
     * most 1 + 2w bytes); checked per pair, so no temporary buffer */
    uint8_t *limit = dst + fpc_bound(n) - tail;
    if (nwords == 0) goto raw;
    unsigned k = fpc_pick_k(nwords);
    fpc_state st;
    if (fpc_state_init(&st, k)) return COMPI_ERR_NOMEM;
    *modep = w == 8 ? COMPI_WMODE_64 : COMPI_WMODE_32;
    *op++ = (uint8_t)k;
    op = w == 8 ? fpc_encode_words(&st, src, nwords, 8, op, limit) : fpc_encode_words(&st, src, nwords, 4, op, limit);
    if (!op) {
        free(st.fcm);
        goto raw;
    }
    free(st.fcm);
    memcpy(op, src + nwords * w, tail);
    op += tail;
    return (long long)(op - dst);
raw:
    return compi_wmode_put_raw(dst, modep, src, n);
}

/* Decodes one word from its nibble; 0 on truncated input. */
COMPI_ALWAYS_INLINE int fpc_dec_word(fpc_state *st, unsigned code, unsigned w, const uint8_t **ip, const uint8_t *end,
                                     uint8_t *out)
{
    unsigned lzb = code & 7;
    if (w == 8) {
        if (lzb > 3) lzb++;
    } else if (lzb > 4) return 0;
    unsigned nbytes = w - lzb;
    if ((size_t)(end - *ip) < nbytes) return 0;
    uint8_t tmp[8] = {0};
    memcpy(tmp, *ip, nbytes);
    *ip += nbytes;
    uint64_t x = compi_load_le64(tmp), v;
    if (code & 8) {
        v = st->dfcm[st->dh] + st->last;
        if (w == 4) v &= 0xffffffffu;
    } else {
        v = st->fcm[st->fh];
    }
    v ^= x;
    if (w == 8) {
        fpc_update64(st, v);
        compi_store_le64(out, v);
    } else {
        fpc_update32(st, v);
        compi_store_le32(out, (uint32_t)v);
    }
    return 1;
}

/* All words (w constant per call site); 0 on truncated or invalid input. */
COMPI_ALWAYS_INLINE int fpc_decode_words(fpc_state *st, const uint8_t **ipp, const uint8_t *bend, uint8_t *dst,
                                         size_t nwords, unsigned w)
{
    const uint8_t *ip = *ipp;
    for (size_t i = 0; i < nwords; i += 2) {
        if (ip >= bend) return 0;
        unsigned h = *ip++;
        if (!fpc_dec_word(st, h >> 4, w, &ip, bend, dst + i * w)) return 0;
        if (i + 1 < nwords) {
            if (!fpc_dec_word(st, h & 15, w, &ip, bend, dst + (i + 1) * w)) return 0;
        } else if (h & 15) {
            return 0; /* unused partner nibble must be zero */
        }
    }
    *ipp = ip;
    return 1;
}

static long long fpc_decompress(const void *srcv, size_t src_len, void *dstv, size_t dst_len,
                                const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    size_t pos;
    unsigned w;
    int rc = compi_wmode_get(src, src_len, FPC_VERSION, dst, dst_len, &pos, &w);
    if (rc) return rc;
    if (!w) return (long long)dst_len; /* stored raw */
    const uint8_t *ip = src + pos, *end = src + src_len;
    size_t nwords = dst_len / w, tail = dst_len % w;
    if (nwords == 0 || ip >= end) return COMPI_ERR_CORRUPT;
    unsigned k = *ip++;
    if (k < FPC_KMIN || k > FPC_KMAX) return COMPI_ERR_CORRUPT;
    /* the tail sits at the very end; residuals may not reach into it */
    if ((size_t)(end - ip) < tail) return COMPI_ERR_CORRUPT;
    const uint8_t *bend = end - tail;
    /* every pair needs at least its header byte: reject before allocating */
    if ((size_t)(bend - ip) < (nwords + 1) / 2) return COMPI_ERR_CORRUPT;
    fpc_state st;
    if (fpc_state_init(&st, k)) return COMPI_ERR_NOMEM;
    int ok =
        w == 8 ? fpc_decode_words(&st, &ip, bend, dst, nwords, 8) : fpc_decode_words(&st, &ip, bend, dst, nwords, 4);
    free(st.fcm);
    if (!ok || ip != bend) return COMPI_ERR_CORRUPT;
    memcpy(dst + nwords * w, bend, tail);
    return (long long)dst_len;
}

const compi_codec compi_codec_fpc = {
    .name = "fpc",
    .id = COMPI_CODEC_ID_FPC,
    .summary = "FPC fcm/dfcm predictive coder for doubles (4-byte variant for elem_size 4; hand-written)",
    .bound = fpc_bound,
    .compress = fpc_compress,
    .decompress = fpc_decompress,
};
