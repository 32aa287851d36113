/* SPDX-License-Identifier: BSD-3-Clause */
/* Snappy raw format (snappy-c.h). The stream starts with a varint of the
 * uncompressed length, which is validated against dst_len. */
#include <stdint.h>
#include <snappy-c.h>
#include "codecs.h"

static size_t compi_snappy_bound(size_t src_len)
{
    return snappy_max_compressed_length(src_len);
}

static long long compi_snappy_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                       const compi_codec_params *params)
{
    /* The format's length prefix is a 32-bit varint. */
    if (src_len > UINT32_MAX) return COMPI_ERR_CODEC;
    if (dst == NULL) return COMPI_ERR_DST_TOO_SMALL;
    char dummy = 0;
    if (src == NULL) src = &dummy;
    size_t out = dst_cap;
    snappy_status st = snappy_compress((const char *)src, src_len, (char *)dst, &out);
    if (st == SNAPPY_BUFFER_TOO_SMALL) return COMPI_ERR_DST_TOO_SMALL;
    if (st != SNAPPY_OK) return COMPI_ERR_CODEC;
    return (long long)out;
}

static long long compi_snappy_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                         const compi_codec_params *params)
{
    if (src == NULL || src_len == 0) return COMPI_ERR_CORRUPT;
    size_t ulen = 0;
    if (snappy_uncompressed_length((const char *)src, src_len, &ulen) != SNAPPY_OK) return COMPI_ERR_CORRUPT;
    if (ulen != dst_len) return COMPI_ERR_LENGTH;
    /* Full validation pass first: snappy_uncompress writes as it goes, and
     * we want a corrupt stream rejected before touching dst. */
    if (snappy_validate_compressed_buffer((const char *)src, src_len) != SNAPPY_OK) return COMPI_ERR_CORRUPT;
    char dummy = 0;
    if (dst == NULL) {
        if (dst_len) return COMPI_ERR_LENGTH;
        dst = &dummy;
    }
    size_t out = dst_len;
    if (snappy_uncompress((const char *)src, src_len, (char *)dst, &out) != SNAPPY_OK) return COMPI_ERR_CORRUPT;
    if (out != dst_len) return COMPI_ERR_LENGTH;
    return (long long)out;
}

const compi_codec compi_codec_snappy = {
    .name = "snappy",
    .id = COMPI_CODEC_ID_SNAPPY,
    .summary = "Snappy (libsnappy), fast LZ77 with validated length prefix",
    .bound = compi_snappy_bound,
    .compress = compi_snappy_compress,
    .decompress = compi_snappy_decompress,
    .max_input = UINT32_MAX,
};
