/* SPDX-License-Identifier: BSD-3-Clause */
/* LZ4 raw block codec. The block format carries no length; the decoder gets
 * the original length from the caller (dst_len) and LZ4_decompress_safe
 * must produce exactly that many bytes. */
#include <limits.h>
#include <lz4.h>
#include "codecs.h"

static size_t compi_lz4_bound(size_t src_len)
{
    /* Above LZ4_MAX_INPUT_SIZE (~2 GB) compress refuses; still report a
     * sane capacity so callers can size buffers before they learn that. */
    if (src_len > LZ4_MAX_INPUT_SIZE) return src_len + src_len / 255 + 16;
    return (size_t)LZ4_compressBound((int)src_len);
}

static long long compi_lz4_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                    const compi_codec_params *params)
{
    /* The block API is int-sized: callers split larger inputs (max_input). */
    if (src_len > LZ4_MAX_INPUT_SIZE) return COMPI_ERR_CODEC;
    if (dst == NULL || dst_cap == 0) return COMPI_ERR_DST_TOO_SMALL;
    char dummy = 0;
    if (src == NULL) src = &dummy; /* only legal when src_len == 0 */
    int cap = dst_cap > INT_MAX ? INT_MAX : (int)dst_cap;
    /* Positive levels keep LZ4's default (its strongest fast mode); a
     * negative level -N trades ratio for speed as acceleration N, like
     * zstd's negative levels. */
    int accel = 1;
    if (params && params->level < 0) accel = params->level < -65536 ? 65536 : -params->level;
    int n = LZ4_compress_fast((const char *)src, (char *)dst, (int)src_len, cap, accel);
    if (n <= 0) return COMPI_ERR_DST_TOO_SMALL;
    return n;
}

static long long compi_lz4_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                      const compi_codec_params *params)
{
    if (src_len == 0 || src_len > INT_MAX || src == NULL) return COMPI_ERR_CORRUPT;
    if (dst_len > LZ4_MAX_INPUT_SIZE) return COMPI_ERR_LENGTH;
    char dummy = 0;
    if (dst == NULL) {
        if (dst_len) return COMPI_ERR_LENGTH;
        dst = &dummy;
    }
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (n < 0) return COMPI_ERR_CORRUPT;
    if ((size_t)n != dst_len) return COMPI_ERR_LENGTH;
    return n;
}

const compi_codec compi_codec_lz4 = {
    .name = "lz4",
    .id = COMPI_CODEC_ID_LZ4,
    .summary = "LZ4 block (liblz4), very fast byte-oriented LZ77",
    .bound = compi_lz4_bound,
    .compress = compi_lz4_compress,
    .decompress = compi_lz4_decompress,
    .max_input = LZ4_MAX_INPUT_SIZE,
};
