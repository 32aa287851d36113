/* SPDX-License-Identifier: BSD-3-Clause */
/* Zstandard single frame. ZSTD_compress always records the content size in
 * the frame header; the decoder checks it against dst_len before decoding. */
#include <zstd.h>
#include <zstd_errors.h>
#include "codec_tls.h"
#include "codecs.h"

#define COMPI_ZSTD_DEFAULT_LEVEL 1 /* MPI messages favour speed over ratio */

static size_t compi_zstd_bound(size_t src_len)
{
    size_t b = ZSTD_compressBound(src_len);
    return ZSTD_isError(b) ? src_len + src_len / 128 + 64 : b;
}

static void *compi_zstd_new_cctx(void)
{
    return ZSTD_createCCtx();
}
static void compi_zstd_free_cctx(void *c)
{
    ZSTD_freeCCtx(c);
}
static void *compi_zstd_new_dctx(void)
{
    return ZSTD_createDCtx();
}
static void compi_zstd_free_dctx(void *d)
{
    ZSTD_freeDCtx(d);
}

static long long compi_zstd_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                     const compi_codec_params *params)
{
    int level = COMPI_ZSTD_DEFAULT_LEVEL;
    if (params && params->level != 0) {
        level = params->level;
        if (level < ZSTD_minCLevel()) level = ZSTD_minCLevel();
        if (level > ZSTD_maxCLevel()) level = ZSTD_maxCLevel();
    }
    if (dst == NULL) return COMPI_ERR_DST_TOO_SMALL;
    char dummy = 0;
    if (src == NULL) src = &dummy;
    /* this thread's context: no shared state, no allocation per message */
    ZSTD_CCtx *cctx = compi_codec_tls(COMPI_TLS_ZSTD_CCTX, compi_zstd_new_cctx, compi_zstd_free_cctx);
    size_t n = cctx ? ZSTD_compressCCtx(cctx, dst, dst_cap, src, src_len, level)
                    : ZSTD_compress(dst, dst_cap, src, src_len, level);
    if (ZSTD_isError(n)) {
        return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? COMPI_ERR_DST_TOO_SMALL : COMPI_ERR_CODEC;
    }
    return (long long)n;
}

static long long compi_zstd_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                       const compi_codec_params *params)
{
    if (src == NULL || src_len == 0) return COMPI_ERR_CORRUPT;
    unsigned long long fcs = ZSTD_getFrameContentSize(src, src_len);
    if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN) return COMPI_ERR_CORRUPT;
    if (fcs != (unsigned long long)dst_len) return COMPI_ERR_LENGTH;
    char dummy = 0;
    if (dst == NULL) {
        if (dst_len) return COMPI_ERR_LENGTH;
        dst = &dummy;
    }
    /* ZSTD_decompress would also accept concatenated frames; the exact
     * length check below rejects anything that does not match the header. */
    ZSTD_DCtx *dctx = compi_codec_tls(COMPI_TLS_ZSTD_DCTX, compi_zstd_new_dctx, compi_zstd_free_dctx);
    size_t n =
        dctx ? ZSTD_decompressDCtx(dctx, dst, dst_len, src, src_len) : ZSTD_decompress(dst, dst_len, src, src_len);
    if (ZSTD_isError(n)) return COMPI_ERR_CORRUPT;
    if (n != dst_len) return COMPI_ERR_LENGTH;
    return (long long)n;
}

const compi_codec compi_codec_zstd = {
    .name = "zstd",
    .id = COMPI_CODEC_ID_ZSTD,
    .summary = "Zstandard frame (libzstd), level 1 by default, level param overrides",
    .bound = compi_zstd_bound,
    .compress = compi_zstd_compress,
    .decompress = compi_zstd_decompress,
};
