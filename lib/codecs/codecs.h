/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal: every codec object, defined one per file in lib/codecs/. */
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

#endif
