/* SPDX-License-Identifier: BSD-3-Clause */
/* rle: PackBits-style byte run-length coding.
 *
 * Stream: [version=1][LEB128 original length][control-coded body]
 * Body:   control c < 128  -> c+1 literal bytes follow (1..128)
 *         control c >= 128 -> the next byte repeated (c-128)+3 times (3..130)
 * Runs shorter than 3 stay literal (a 2-byte repeat would save nothing), so
 * the body is at most n + ceil(n/128) bytes: every literal chunk costs one
 * control byte and every repeat saves at least one. */
#include <string.h>
#include "codec_util.h"

#define RLE_VERSION 1
#define RLE_MAX_LIT 128
#define RLE_MIN_RUN 3
#define RLE_MAX_RUN (127 + RLE_MIN_RUN)

static size_t rle_bound(size_t n)
{
    return compi_hdr_len(n) + n + (n + RLE_MAX_LIT - 1) / RLE_MAX_LIT;
}

/* Emit src[from..to) as literal chunks of at most 128 bytes. */
static uint8_t *rle_put_literals(uint8_t *op, const uint8_t *src, size_t from, size_t to)
{
    while (from < to) {
        size_t len = to - from;
        if (len > RLE_MAX_LIT) len = RLE_MAX_LIT;
        *op++ = (uint8_t)(len - 1);
        memcpy(op, src + from, len);
        op += len;
        from += len;
    }
    return op;
}

static long long rle_compress(const void *srcv, size_t n, void *dstv, size_t cap, const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    if (cap < rle_bound(n)) return COMPI_ERR_DST_TOO_SMALL;
    uint8_t *op = dst;
    op += compi_hdr_put(op, RLE_VERSION, n);
    size_t i = 0, lit = 0; /* lit: start of the pending literal segment */
    while (i < n) {
        uint8_t b = src[i];
        size_t j = i + 1;
        while (j < n && src[j] == b && j - i < RLE_MAX_RUN) j++;
        if (j - i >= RLE_MIN_RUN) {
            op = rle_put_literals(op, src, lit, i);
            *op++ = (uint8_t)(128 + (j - i - RLE_MIN_RUN));
            *op++ = b;
            lit = j;
        }
        i = j;
    }
    op = rle_put_literals(op, src, lit, n);
    return (long long)(op - dst);
}

static long long rle_decompress(const void *srcv, size_t src_len, void *dstv, size_t dst_len,
                                const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    size_t ip;
    int rc = compi_hdr_get(src, src_len, RLE_VERSION, 2, dst_len, &ip);
    if (rc) return rc;
    size_t op = 0;
    while (op < dst_len) {
        if (ip >= src_len) return COMPI_ERR_CORRUPT;
        unsigned c = src[ip++];
        if (c < 128) {
            size_t len = (size_t)c + 1;
            if (len > src_len - ip || len > dst_len - op) return COMPI_ERR_CORRUPT;
            memcpy(dst + op, src + ip, len);
            ip += len;
            op += len;
        } else {
            size_t len = (size_t)c - 128 + RLE_MIN_RUN;
            if (ip >= src_len || len > dst_len - op) return COMPI_ERR_CORRUPT;
            memset(dst + op, src[ip++], len);
            op += len;
        }
    }
    if (ip != src_len) return COMPI_ERR_CORRUPT; /* trailing bytes */
    return (long long)dst_len;
}

const compi_codec compi_codec_rle = {
    .name = "rle",
    .id = COMPI_CODEC_ID_RLE,
    .summary = "PackBits-style byte run-length coding (hand-written)",
    .bound = rle_bound,
    .compress = rle_compress,
    .decompress = rle_decompress,
};
