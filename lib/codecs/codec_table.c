/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec table: one line per codec. Wire ids live in each codec's file. */
#include <stdio.h>
#include <string.h>
#include "compi.h"
#include "codecs.h"

static const compi_codec *const codec_table[] = {
    &compi_codec_rle,      &compi_codec_huffman, &compi_codec_rice,   &compi_codec_fpc,       &compi_codec_dfcm,
#ifdef COMPI_WITH_LZO /* optional: liblzo2 is GPL (CMake option COMPI_WITH_LZO) */
    &compi_codec_lzo,
#endif
    &compi_codec_lz4,      &compi_codec_zstd,    &compi_codec_snappy, &compi_codec_blosc_lz4, &compi_codec_blosc_zstd,
    &compi_codec_poly_lz4,
};

size_t compi_codec_count(void)
{
    return sizeof codec_table / sizeof codec_table[0];
}

const compi_codec *compi_codec_at(size_t index)
{
    return index < compi_codec_count() ? codec_table[index] : NULL;
}

size_t compi_codec_bound_max(size_t len)
{
    size_t worst = 0;
    for (size_t i = 0; i < compi_codec_count(); i++) {
        size_t b = codec_table[i]->bound(len);
        if (b > worst) worst = b;
    }
    return worst;
}

int compi_codec_accepts(const compi_codec *codec, size_t len)
{
    return codec && (codec->max_input == 0 || len <= codec->max_input);
}

const compi_codec *compi_codec_by_name(const char *name)
{
    for (size_t i = 0; name && i < compi_codec_count(); i++)
        if (strcmp(codec_table[i]->name, name) == 0) return codec_table[i];
    return NULL;
}

const compi_codec *compi_codec_by_id(uint8_t id)
{
    for (size_t i = 0; i < compi_codec_count(); i++)
        if (codec_table[i]->id == id) return codec_table[i];
    return NULL;
}

const char *compi_codec_names(void)
{
    static char names[256];
    if (names[0]) return names;
    size_t off = 0;
    for (size_t i = 0; i < compi_codec_count(); i++) {
        int n = snprintf(names + off, sizeof names - off, "%s%s", i ? "," : "", codec_table[i]->name);
        if (n < 0 || (size_t)n >= sizeof names - off) break;
        off += (size_t)n;
    }
    return names;
}

int compi_codec_not_built(const char *name)
{
#ifndef COMPI_WITH_LZO
    if (name && strcmp(name, "lzo") == 0) return 1;
#endif
    return 0;
}
