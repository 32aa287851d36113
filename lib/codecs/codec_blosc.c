/* SPDX-License-Identifier: BSD-3-Clause */
/* Blosc 1.x with byte shuffle (typesize = element size) over LZ4 or Zstd.
 * Uses the context API with one internal thread so calls share no state.
 *
 * Stream = one or more concatenated Blosc frames. A Blosc frame holds at most
 * BLOSC_MAX_BUFFERSIZE (~2 GB) bytes, so larger messages are cut into chunks
 * of COMPI_BLOSC_CHUNK bytes; every frame header carries its own nbytes and
 * cbytes, so the decoder walks the frames without an extra header. A zero
 * length message is one frame with nbytes = 0. */
#include <stdint.h>
#include <string.h>
#include <blosc.h>
#include "codecs.h"

/* Overridable so the test suite can exercise the multi-frame path cheaply. */
#ifndef COMPI_BLOSC_CHUNK
#define COMPI_BLOSC_CHUNK ((size_t)1 << 30)
#endif
#define COMPI_BLOSC_DEFAULT_CLEVEL 5

static size_t compi_blosc_nchunks(size_t src_len)
{
    return src_len == 0 ? 1 : (src_len + COMPI_BLOSC_CHUNK - 1) / COMPI_BLOSC_CHUNK;
}

static size_t compi_blosc_bound(size_t src_len)
{
    return src_len + compi_blosc_nchunks(src_len) * BLOSC_MAX_OVERHEAD;
}

long long compi_blosc_compress_any(const char *compressor, const void *src, size_t src_len, void *dst, size_t dst_cap,
                                   const compi_codec_params *params)
{
    size_t typesize =
        params && params->elem_size >= 1 && params->elem_size <= BLOSC_MAX_TYPESIZE ? params->elem_size : 1;
    int clevel = COMPI_BLOSC_DEFAULT_CLEVEL;
    if (params && params->level > 0) clevel = params->level > 9 ? 9 : params->level;
    if (dst == NULL) return COMPI_ERR_DST_TOO_SMALL;
    /* Keep chunk boundaries on element boundaries so shuffling stays aligned. */
    size_t chunk = COMPI_BLOSC_CHUNK - COMPI_BLOSC_CHUNK % typesize;
    char dummy = 0;
    const char *in = src ? (const char *)src : &dummy;
    char *out = (char *)dst;
    size_t done = 0, off = 0;
    do {
        size_t n = src_len - done < chunk ? src_len - done : chunk;
        /* Cap each frame at n + overhead: Blosc then falls back to a plain
         * copy instead of keeping a block-split result that is larger than
         * that and would eat the next frame's share of the bound. */
        size_t room = dst_cap - off < n + BLOSC_MAX_OVERHEAD ? dst_cap - off : n + BLOSC_MAX_OVERHEAD;
        int c = blosc_compress_ctx(clevel, BLOSC_SHUFFLE, typesize, n, in + done, out + off, room, compressor, 0, 1);
        if (c == 0) return COMPI_ERR_DST_TOO_SMALL;
        if (c < 0) return COMPI_ERR_CODEC;
        off += (size_t)c;
        done += n;
    } while (done < src_len);
    return (long long)off;
}

/* Any Blosc compressor decodes here (the frame header names it), so both
 * codec objects share this entry point; the wire id already chose the codec. */
long long compi_blosc_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                 const compi_codec_params *params)
{
    if (src == NULL || src_len == 0) return COMPI_ERR_CORRUPT;
    char dummy = 0;
    if (dst == NULL) {
        if (dst_len) return COMPI_ERR_LENGTH;
        dst = &dummy;
    }
    const unsigned char *in = (const unsigned char *)src;
    char *out = (char *)dst;
    size_t off = 0, done = 0;
    do {
        size_t avail = src_len - off;
        if (avail < BLOSC_MIN_HEADER_LENGTH) return COMPI_ERR_CORRUPT;
        size_t nbytes = 0, cbytes = 0, blocksize = 0;
        blosc_cbuffer_sizes(in + off, &nbytes, &cbytes, &blocksize);
        /* blosc_decompress_ctx trusts the header's cbytes, so it must lie
         * inside what we were given; validate checks the rest. */
        if (cbytes < BLOSC_MIN_HEADER_LENGTH || cbytes > avail) return COMPI_ERR_CORRUPT;
        if (blosc_cbuffer_validate(in + off, cbytes, &nbytes) != 0) return COMPI_ERR_CORRUPT;
        if (nbytes > dst_len - done) return COMPI_ERR_LENGTH;
        if (nbytes == 0 && dst_len != 0) return COMPI_ERR_CORRUPT; /* no progress */
        int d = blosc_decompress_ctx(in + off, out + done, nbytes, 1);
        if (d < 0 || (size_t)d != nbytes) return COMPI_ERR_CORRUPT;
        off += cbytes;
        done += nbytes;
    } while (off < src_len);
    if (done != dst_len) return COMPI_ERR_LENGTH;
    return (long long)done;
}

static long long compi_blosc_lz4_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                          const compi_codec_params *params)
{
    return compi_blosc_compress_any("lz4", src, src_len, dst, dst_cap, params);
}

static long long compi_blosc_zstd_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                           const compi_codec_params *params)
{
    return compi_blosc_compress_any("zstd", src, src_len, dst, dst_cap, params);
}

const compi_codec compi_codec_blosc_lz4 = {
    .name = "blosc-lz4",
    .id = COMPI_CODEC_ID_BLOSC_LZ4,
    .summary = "Blosc byte shuffle (typesize = element size) + LZ4, single-threaded context",
    .bound = compi_blosc_bound,
    .compress = compi_blosc_lz4_compress,
    .decompress = compi_blosc_decompress,
};

const compi_codec compi_codec_blosc_zstd = {
    .name = "blosc-zstd",
    .id = COMPI_CODEC_ID_BLOSC_ZSTD,
    .summary = "Blosc byte shuffle (typesize = element size) + Zstd, single-threaded context",
    .bound = compi_blosc_bound,
    .compress = compi_blosc_zstd_compress,
    .decompress = compi_blosc_decompress,
};
