/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: every codec object, defined one per file in lib/codecs/.
 *
 * Input limits (compi_codec.max_input, 0 = none): a codec whose library or
 * format counts lengths in an int or 32 bits declares its largest input, and
 * compress refuses more. Whole-frame callers check compi_codec_accepts
 * before compressing: a p2p message beyond it is pipelined (chunks of at
 * most 2^COMPI_CHUNK_LOG2_MAX bytes, which every codec takes), a collective
 * frame goes raw and is counted raw_too_large, never "incompressible".
 *   lz4     LZ4_MAX_INPUT_SIZE (0x7E000000, ~2.11 GB): the block API's int lengths
 *   snappy  UINT32_MAX: the stream's length prefix is a 32-bit varint
 *   others  none: lengths are size_t throughout (zstd, lzo, blosc in 1 GiB
 *           frames, poly-lz4 in 256 KiB ones, huffman in 64 KiB blocks, rice via libaec's size_t
 *           stream, fpc, dfcm, rle with a LEB128 length header) */
#ifndef COMPI_CODECS_H
#define COMPI_CODECS_H
#include "compi.h"

/* Wire ids: stable, never reused. */
enum {
    COMPI_CODEC_ID_RLE = 1,
    COMPI_CODEC_ID_HUFFMAN = 2,
    COMPI_CODEC_ID_RICE = 3,
    COMPI_CODEC_ID_FPC = 4,
    COMPI_CODEC_ID_DFCM = 5,
    COMPI_CODEC_ID_LZO = 6,
    COMPI_CODEC_ID_LZ4 = 7,
    COMPI_CODEC_ID_ZSTD = 8,
    COMPI_CODEC_ID_SNAPPY = 9,
    COMPI_CODEC_ID_BLOSC_LZ4 = 10,
    COMPI_CODEC_ID_BLOSC_ZSTD = 11,
    COMPI_CODEC_ID_POLY_LZ4 = 12,
};

extern const compi_codec compi_codec_rle;
extern const compi_codec compi_codec_huffman;
extern const compi_codec compi_codec_rice;
extern const compi_codec compi_codec_fpc;
extern const compi_codec compi_codec_dfcm;
extern const compi_codec compi_codec_lzo;
extern const compi_codec compi_codec_lz4;
extern const compi_codec compi_codec_zstd;
extern const compi_codec compi_codec_snappy;
extern const compi_codec compi_codec_blosc_lz4;
extern const compi_codec compi_codec_blosc_zstd;
extern const compi_codec compi_codec_poly_lz4;

/* Blosc streams (codec_blosc.c), shared with poly-lz4: src_len bytes of
 * elements of params->elem_size as concatenated Blosc frames (byte shuffle,
 * compressor "lz4" or "zstd"), at most src_len + BLOSC_MAX_OVERHEAD per
 * started GiB; and their decoder (any compressor). */
long long compi_blosc_compress_any(const char *compressor, const void *src, size_t src_len, void *dst, size_t dst_cap,
                                   const compi_codec_params *params);
long long compi_blosc_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                 const compi_codec_params *params);

#endif
