/* The built-in codec model, used when COMPI_HEURISTICS names no codec file.
 * Provisional values; replaced by a `compi calibrate codecs` run (see
 * docs/heuristics.md for how they were measured). */
#include <string.h>
#include <stdio.h>
#include "engine/model.h"

static void compi_model_add_candidates(compi_codec_model *m, int cls, const char *const *names)
{
    for (; *names; names++) {
        const compi_codec *c = compi_codec_by_name(*names);
        if (c && m->ncandidates[cls] < COMPI_MODEL_MAX_CANDIDATES) m->candidates[cls][m->ncandidates[cls]++] = c;
    }
}

static void compi_model_add_relation(compi_codec_model *m, const char *codec, int cls, double lo, double hi, double d_over_c)
{
    const compi_codec *c = compi_codec_by_name(codec);
    if (!c || m->nrelations == COMPI_MODEL_MAX_RELATIONS) return;
    m->relations[m->nrelations++] = (compi_codec_relation){c, cls, lo, hi, d_over_c};
}

void compi_codec_model_default(compi_codec_model *m)
{
    memset(m, 0, sizeof *m);
    static const char *const bytes[] = {"lz4", "zstd", NULL};
    static const char *const ints[] = {"lz4", "blosc-lz4", "zstd", NULL};
    static const char *const floats[] = {"blosc-lz4", "lz4", "zstd", NULL};
    static const char *const doubles[] = {"fpc", "blosc-zstd", "lz4", NULL};
    compi_model_add_candidates(m, COMPI_CLASS_BYTE, bytes);
    compi_model_add_candidates(m, COMPI_CLASS_INT, ints);
    compi_model_add_candidates(m, COMPI_CLASS_FLOAT, floats);
    compi_model_add_candidates(m, COMPI_CLASS_DOUBLE, doubles);
    compi_model_add_relation(m, "lz4", -1, 0, 1e9, 0.3);
    compi_model_add_relation(m, "zstd", -1, 0, 1e9, 0.25);
    compi_model_add_relation(m, "blosc-lz4", -1, 0, 1e9, 0.6);
    compi_model_add_relation(m, "blosc-zstd", -1, 0, 1e9, 0.4);
    compi_model_add_relation(m, "fpc", -1, 0, 1e9, 1.0);
    compi_model_add_relation(m, "dfcm", -1, 0, 1e9, 1.0);
    snprintf(m->source, sizeof m->source, "built-in default (provisional)");
}
