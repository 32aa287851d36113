/* SPDX-License-Identifier: BSD-3-Clause */
/* The built-in codec model, used when COMPI_HEURISTICS names no codec file.
 *
 * Measured by `compi calibrate codecs` (full run, not --quick) on the
 * development machine (2-core AMD EPYC VM, Debian 12, gcc -O2 RelWithDebInfo,
 * codec level 0 = each codec's default) on 2026-11-23: 26 synthetic data sets
 * (int/float/double at redundancy 0/25/50/75/100 % plus patterned sets, byte
 * = int data seen as bytes, text and random), sizes 100 KB .. 3000 KB, median
 * of 5 timed runs in thread CPU time. The candidate rule and the relation
 * buckets are described in tools/calibrate/calibrate_codecs.c; the run's
 * per-class summary (aggregate ratio, MB/s, wins):
 *   byte    zstd 1.89x 551/1559 MB/s, lz4 1.51x 1023/4132, blosc-zstd 2.01x 80/1211, lzo 1.50x 1096/1396
 *   int     blosc-lz4 2.05x 2832/6669, zstd 1.92x 520/1304, rice 2.22x 636/610, lz4 1.43x 1128/4039
 *   float   zstd 1.70x 582/1286, blosc-lz4 1.65x 1551/5067, lz4 1.37x 1774/6701, blosc-zstd 1.91x 80/1837
 *   double  zstd 1.99x 584/1243, blosc-lz4 1.56x 2057/4373, lz4 1.59x 1313/3936, blosc-zstd 1.74x 89/1692
 * (fpc and dfcm never deliver a buffer fastest at 10 Mbit/s .. 10 Gbit/s
 * often enough to make the top 4 on this data: dfcm wins 12 double cases.)
 * Regenerate: compi calibrate codecs --print-c, and paste the C it prints. */
#include <string.h>
#include <stdio.h>
#include "engine/model.h"

typedef struct {
    const char *codec;
    int cls;
    double lo, hi, d_over_c;
} compi_model_relation_row;

typedef struct {
    const char *codec;
    int cls;
    double compress_mbs;
    double lo, hi; /* ratio bucket [lo, hi); 0, 0: any ratio */
} compi_model_speed_row;

static void compi_model_add_candidates(compi_codec_model *m, int cls, const char *const *names)
{
    for (; *names; names++) {
        const compi_codec *c = compi_codec_by_name(*names);
        if (c && m->ncandidates[cls] < COMPI_MODEL_MAX_CANDIDATES) m->candidates[cls][m->ncandidates[cls]++] = c;
    }
}

static void compi_model_add_relation(compi_codec_model *m, const char *codec, int cls, double lo, double hi,
                                     double d_over_c)
{
    const compi_codec *c = compi_codec_by_name(codec);
    if (!c || m->nrelations == COMPI_MODEL_MAX_RELATIONS) return;
    m->relations[m->nrelations++] = (compi_codec_relation){c, cls, lo, hi, d_over_c};
}

void compi_codec_model_default(compi_codec_model *m)
{
    memset(m, 0, sizeof *m);
    static const char *const bytes[] = {"zstd", "lz4", "blosc-zstd", "lzo", NULL};
    static const char *const ints[] = {"blosc-lz4", "zstd", "rice", "lz4", NULL};
    static const char *const floats[] = {"zstd", "blosc-lz4", "lz4", "blosc-zstd", NULL};
    /* dfcm and poly-lz4 added by hand as a 5th and 6th: the calibration's
     * top 4 by wins leave out the predictors, yet they are the codecs that
     * compress smooth fields with noisy low bits (double_smooth in 128 KiB
     * pieces: poly-lz4 1.78x, dfcm 1.41x, zstd 1.10x, lz4 1.00x) -- the data
     * of the mesh and transport codes and the partial sums of reductions
     * over them. */
    static const char *const doubles[] = {"zstd", "blosc-lz4", "lz4", "blosc-zstd", "dfcm", "poly-lz4", NULL};
    /* codec, class (-1 = any), ratio bucket [lo, hi), T_decompress / T_compress */
    static const compi_model_relation_row relations[] = {
        {"zstd", COMPI_CLASS_BYTE, 0, 1.1, 0.2606},
        {"zstd", COMPI_CLASS_BYTE, 1.1, 2, 0.3893},
        {"zstd", COMPI_CLASS_BYTE, 2, 4, 0.3447},
        {"zstd", COMPI_CLASS_BYTE, 10, 1e+09, 0.6199},
        {"lz4", COMPI_CLASS_BYTE, 0, 1.1, 0.4056},
        {"lz4", COMPI_CLASS_BYTE, 1.1, 2, 0.2613},
        {"lz4", COMPI_CLASS_BYTE, 2, 4, 0.1744},
        {"lz4", COMPI_CLASS_BYTE, 10, 1e+09, 1.3057},
        {"blosc-zstd", COMPI_CLASS_BYTE, 0, 1.1, 0.0066},
        {"blosc-zstd", COMPI_CLASS_BYTE, 1.1, 2, 0.0719},
        {"blosc-zstd", COMPI_CLASS_BYTE, 2, 4, 0.0988},
        {"blosc-zstd", COMPI_CLASS_BYTE, 10, 1e+09, 0.1433},
        {"lzo", COMPI_CLASS_BYTE, 0, 1.1, 1.7207},
        {"lzo", COMPI_CLASS_BYTE, 1.1, 2, 0.4997},
        {"lzo", COMPI_CLASS_BYTE, 2, 4, 0.7412},
        {"lzo", COMPI_CLASS_BYTE, 10, 1e+09, 8.4878},
        {"blosc-lz4", COMPI_CLASS_INT, 1.1, 2, 0.4182},
        {"blosc-lz4", COMPI_CLASS_INT, 10, 1e+09, 0.7162},
        {"zstd", COMPI_CLASS_INT, 1.1, 2, 0.3906},
        {"zstd", COMPI_CLASS_INT, 2, 4, 0.4492},
        {"zstd", COMPI_CLASS_INT, 10, 1e+09, 0.6222},
        {"rice", COMPI_CLASS_INT, 1.1, 2, 1.0088},
        {"rice", COMPI_CLASS_INT, 4, 10, 1.3064},
        {"rice", COMPI_CLASS_INT, 10, 1e+09, 1.3998},
        {"lz4", COMPI_CLASS_INT, 0, 1.1, 0.4581},
        {"lz4", COMPI_CLASS_INT, 1.1, 2, 0.2694},
        {"lz4", COMPI_CLASS_INT, 10, 1e+09, 1.3022},
        {"zstd", COMPI_CLASS_FLOAT, 0, 1.1, 0.7113},
        {"zstd", COMPI_CLASS_FLOAT, 1.1, 2, 0.4008},
        {"zstd", COMPI_CLASS_FLOAT, 2, 4, 0.4396},
        {"zstd", COMPI_CLASS_FLOAT, 10, 1e+09, 0.5263},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 0, 1.1, 0.2599},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 1.1, 2, 0.3300},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 10, 1e+09, 0.7408},
        {"lz4", COMPI_CLASS_FLOAT, 0, 1.1, 0.4963},
        {"lz4", COMPI_CLASS_FLOAT, 1.1, 2, 0.2359},
        {"lz4", COMPI_CLASS_FLOAT, 10, 1e+09, 1.1073},
        {"blosc-zstd", COMPI_CLASS_FLOAT, 1.1, 2, 0.0347},
        {"blosc-zstd", COMPI_CLASS_FLOAT, 10, 1e+09, 0.1680},
        {"zstd", COMPI_CLASS_DOUBLE, 0, 1.1, 0.7178},
        {"zstd", COMPI_CLASS_DOUBLE, 1.1, 2, 0.4067},
        {"zstd", COMPI_CLASS_DOUBLE, 2, 4, 0.4085},
        {"zstd", COMPI_CLASS_DOUBLE, 4, 10, 0.5221},
        {"zstd", COMPI_CLASS_DOUBLE, 10, 1e+09, 0.5445},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 0, 1.1, 0.5047},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 1.1, 2, 0.4974},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 10, 1e+09, 0.8081},
        {"lz4", COMPI_CLASS_DOUBLE, 0, 1.1, 0.5507},
        {"lz4", COMPI_CLASS_DOUBLE, 1.1, 2, 0.1548},
        {"lz4", COMPI_CLASS_DOUBLE, 2, 4, 0.2032},
        {"lz4", COMPI_CLASS_DOUBLE, 10, 1e+09, 0.8155},
        {"blosc-zstd", COMPI_CLASS_DOUBLE, 1.1, 2, 0.0451},
        {"blosc-zstd", COMPI_CLASS_DOUBLE, 10, 1e+09, 0.2208},
        {"rle", -1, 0, 1.1, 0.0715},
        {"rle", -1, 1.1, 2, 0.4059},
        {"rle", -1, 2, 4, 0.4059},
        {"rle", -1, 4, 10, 0.4059},
        {"rle", -1, 10, 1e+09, 0.4059},
        {"huffman", -1, 0, 1.1, 0.3589},
        {"huffman", -1, 1.1, 2, 0.3625},
        {"huffman", -1, 2, 4, 0.3910},
        {"huffman", -1, 4, 10, 0.3390},
        {"huffman", -1, 10, 1e+09, 0.3390},
        {"rice", -1, 0, 1.1, 0.0118},
        {"rice", -1, 1.1, 2, 1.0263},
        {"rice", -1, 2, 4, 1.5087},
        {"rice", -1, 4, 10, 1.3475},
        {"rice", -1, 10, 1e+09, 1.6144},
        {"fpc", -1, 0, 1.1, 0.7834},
        {"fpc", -1, 1.1, 2, 1.1593},
        {"fpc", -1, 2, 4, 1.1564},
        {"fpc", -1, 4, 10, 1.1210},
        {"fpc", -1, 10, 1e+09, 1.1031},
        {"dfcm", -1, 0, 1.1, 0.9342},
        {"dfcm", -1, 1.1, 2, 0.9800},
        {"dfcm", -1, 2, 4, 0.9800},
        {"dfcm", -1, 4, 10, 1.0712},
        {"dfcm", -1, 10, 1e+09, 0.9581},
        {"lzo", -1, 0, 1.1, 1.6923},
        {"lzo", -1, 1.1, 2, 0.4881},
        {"lzo", -1, 2, 4, 0.5634},
        {"lzo", -1, 4, 10, 0.5634},
        {"lzo", -1, 10, 1e+09, 6.1261},
        {"lz4", -1, 0, 1.1, 0.5001},
        {"lz4", -1, 1.1, 2, 0.2405},
        {"lz4", -1, 2, 4, 0.1869},
        {"lz4", -1, 4, 10, 0.1869},
        {"lz4", -1, 10, 1e+09, 1.1877},
        {"zstd", -1, 0, 1.1, 0.6745},
        {"zstd", -1, 1.1, 2, 0.4006},
        {"zstd", -1, 2, 4, 0.4217},
        {"zstd", -1, 4, 10, 0.5221},
        {"zstd", -1, 10, 1e+09, 0.5847},
        {"snappy", -1, 0, 1.1, 0.6764},
        {"snappy", -1, 1.1, 2, 1.0095},
        {"snappy", -1, 2, 4, 1.2411},
        {"snappy", -1, 4, 10, 1.2411},
        {"snappy", -1, 10, 1e+09, 4.7539},
        {"blosc-lz4", -1, 0, 1.1, 0.2634},
        {"blosc-lz4", -1, 1.1, 2, 0.3969},
        {"blosc-lz4", -1, 2, 4, 0.1623},
        {"blosc-lz4", -1, 4, 10, 0.1623},
        {"blosc-lz4", -1, 10, 1e+09, 0.7902},
        {"blosc-zstd", -1, 0, 1.1, 0.0066},
        {"blosc-zstd", -1, 1.1, 2, 0.0467},
        {"blosc-zstd", -1, 2, 4, 0.0767},
        {"blosc-zstd", -1, 4, 10, 0.0767},
        {"blosc-zstd", -1, 10, 1e+09, 0.1640},
        /* poly-lz4 by hand (1 MiB double sets, best of 5, thread CPU time):
         * random 0.71, double_r0..r50 0.64-0.86, double_r75 0.49,
         * double_smooth 0.87, double_r100 and double_pattern 1.25 */
        {"poly-lz4", -1, 0, 1.1, 0.7500},
        {"poly-lz4", -1, 1.1, 2, 0.6800},
        {"poly-lz4", -1, 2, 4, 0.9000},
        {"poly-lz4", -1, 4, 10, 1.0000},
        {"poly-lz4", -1, 10, 1e+09, 1.2500},
    };
    /* codec, class, compression MB/s, ratio bucket [lo, hi) (0, 0: any
     * ratio). Any ratio: the class's aggregate in the run quoted above;
     * dfcm's from `compi calibrate codecs --quick --codecs
     * dfcm,lz4,zstd,blosc-lz4 --sizes 100K` on the same machine (double
     * dfcm 1373, lz4 1261 MB/s); poly-lz4 by hand on 128 KiB pieces
     * of double_smooth (~1.1 GB/s). By ratio bucket, the same machine
     * (thread CPU time): `compi calibrate codecs --quick --codecs
     * zstd,lz4,blosc-zstd,blosc-lz4,rice,dfcm,poly-lz4` (and `--codecs
     * dfcm,blosc-zstd`) on the synthetic sets below ratio 10 and for the
     * byte, int and float classes; for doubles of ratio 4 and more,
     * `--files ... --class double --reps 9` on 28 of stencil3d's 8 KiB halo
     * faces (iterations 1, 5 and 10: lz4 and zstd), blosc-lz4, blosc-zstd,
     * dfcm and poly-lz4 the mean over those faces of ratio >= 10. Data
     * compressed 10 times or more codes 5-40 times faster than the
     * aggregate, and lz4 skips data it cannot compress (ratio < 1.1) fast. */
    static const compi_model_speed_row speeds[] = {
        {"zstd", COMPI_CLASS_BYTE, 551, 0, 0},
        {"zstd", COMPI_CLASS_BYTE, 9810, 0, 1.1},
        {"zstd", COMPI_CLASS_BYTE, 513, 1.1, 2},
        {"zstd", COMPI_CLASS_BYTE, 384, 2, 4},
        {"zstd", COMPI_CLASS_BYTE, 22784, 10, 1e9},
        {"lz4", COMPI_CLASS_BYTE, 1023, 0, 0},
        {"lz4", COMPI_CLASS_BYTE, 2262, 0, 1.1},
        {"lz4", COMPI_CLASS_BYTE, 670, 1.1, 2},
        {"lz4", COMPI_CLASS_BYTE, 539, 2, 4},
        {"lz4", COMPI_CLASS_BYTE, 27500, 10, 1e9},
        {"blosc-zstd", COMPI_CLASS_BYTE, 80, 0, 0},
        {"blosc-zstd", COMPI_CLASS_BYTE, 244, 0, 1.1},
        {"blosc-zstd", COMPI_CLASS_BYTE, 98, 1.1, 2},
        {"blosc-zstd", COMPI_CLASS_BYTE, 68, 2, 4},
        {"blosc-zstd", COMPI_CLASS_BYTE, 1355, 10, 1e9},
        {"lzo", COMPI_CLASS_BYTE, 1096, 0, 0},
        {"blosc-lz4", COMPI_CLASS_INT, 2832, 0, 0},
        {"blosc-lz4", COMPI_CLASS_INT, 2835, 1.1, 2},
        {"blosc-lz4", COMPI_CLASS_INT, 9672, 10, 1e9},
        {"zstd", COMPI_CLASS_INT, 520, 0, 0},
        {"zstd", COMPI_CLASS_INT, 585, 1.1, 2},
        {"zstd", COMPI_CLASS_INT, 433, 2, 4},
        {"zstd", COMPI_CLASS_INT, 22759, 10, 1e9},
        {"rice", COMPI_CLASS_INT, 636, 0, 0},
        {"rice", COMPI_CLASS_INT, 550, 1.1, 2},
        {"rice", COMPI_CLASS_INT, 951, 4, 10},
        {"rice", COMPI_CLASS_INT, 3277, 10, 1e9},
        {"lz4", COMPI_CLASS_INT, 1128, 0, 0},
        {"lz4", COMPI_CLASS_INT, 2279, 0, 1.1},
        {"lz4", COMPI_CLASS_INT, 667, 1.1, 2},
        {"lz4", COMPI_CLASS_INT, 25132, 10, 1e9},
        {"zstd", COMPI_CLASS_FLOAT, 582, 0, 0},
        {"zstd", COMPI_CLASS_FLOAT, 1286, 0, 1.1},
        {"zstd", COMPI_CLASS_FLOAT, 524, 1.1, 2},
        {"zstd", COMPI_CLASS_FLOAT, 409, 2, 4},
        {"zstd", COMPI_CLASS_FLOAT, 22829, 10, 1e9},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 1551, 0, 0},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 1501, 0, 1.1},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 1000, 1.1, 2},
        {"blosc-lz4", COMPI_CLASS_FLOAT, 10065, 10, 1e9},
        {"lz4", COMPI_CLASS_FLOAT, 1774, 0, 0},
        {"lz4", COMPI_CLASS_FLOAT, 12545, 0, 1.1},
        {"lz4", COMPI_CLASS_FLOAT, 728, 1.1, 2},
        {"lz4", COMPI_CLASS_FLOAT, 28938, 10, 1e9},
        {"blosc-zstd", COMPI_CLASS_FLOAT, 80, 0, 0},
        {"blosc-zstd", COMPI_CLASS_FLOAT, 67, 1.1, 2},
        {"blosc-zstd", COMPI_CLASS_FLOAT, 948, 10, 1e9},
        {"zstd", COMPI_CLASS_DOUBLE, 584, 0, 0},
        {"zstd", COMPI_CLASS_DOUBLE, 1280, 0, 1.1},
        {"zstd", COMPI_CLASS_DOUBLE, 561, 1.1, 2},
        {"zstd", COMPI_CLASS_DOUBLE, 493, 2, 4},
        {"zstd", COMPI_CLASS_DOUBLE, 1051, 4, 10},
        {"zstd", COMPI_CLASS_DOUBLE, 5206, 10, 1e9},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 2057, 0, 0},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 2385, 0, 1.1},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 1498, 1.1, 2},
        {"blosc-lz4", COMPI_CLASS_DOUBLE, 3826, 10, 1e9},
        {"lz4", COMPI_CLASS_DOUBLE, 1313, 0, 0},
        {"lz4", COMPI_CLASS_DOUBLE, 23011, 0, 1.1},
        {"lz4", COMPI_CLASS_DOUBLE, 797, 1.1, 2},
        {"lz4", COMPI_CLASS_DOUBLE, 2405, 2, 4},
        {"lz4", COMPI_CLASS_DOUBLE, 4950, 4, 10},
        {"lz4", COMPI_CLASS_DOUBLE, 19026, 10, 1e9},
        {"blosc-zstd", COMPI_CLASS_DOUBLE, 89, 0, 0},
        {"blosc-zstd", COMPI_CLASS_DOUBLE, 89, 1.1, 2},
        {"blosc-zstd", COMPI_CLASS_DOUBLE, 392, 10, 1e9},
        {"dfcm", COMPI_CLASS_DOUBLE, 1373, 0, 0},
        {"dfcm", COMPI_CLASS_DOUBLE, 1272, 0, 1.1},
        {"dfcm", COMPI_CLASS_DOUBLE, 1183, 1.1, 2},
        {"dfcm", COMPI_CLASS_DOUBLE, 3241, 10, 1e9},
        {"poly-lz4", COMPI_CLASS_DOUBLE, 1100, 0, 0},
        {"poly-lz4", COMPI_CLASS_DOUBLE, 1079, 0, 1.1},
        {"poly-lz4", COMPI_CLASS_DOUBLE, 692, 1.1, 2},
        {"poly-lz4", COMPI_CLASS_DOUBLE, 316, 10, 1e9},
    };
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        const compi_codec *c = compi_codec_by_name(speeds[i].codec);
        if (c && m->nspeeds < COMPI_MODEL_MAX_SPEEDS)
            m->speeds[m->nspeeds++] = (compi_codec_speed){c, speeds[i].cls, speeds[i].compress_mbs, speeds[i].lo, speeds[i].hi};
    }
    compi_model_add_candidates(m, COMPI_CLASS_BYTE, bytes);
    compi_model_add_candidates(m, COMPI_CLASS_INT, ints);
    compi_model_add_candidates(m, COMPI_CLASS_FLOAT, floats);
    compi_model_add_candidates(m, COMPI_CLASS_DOUBLE, doubles);
    for (size_t i = 0; i < sizeof relations / sizeof relations[0]; i++)
        compi_model_add_relation(m, relations[i].codec, relations[i].cls, relations[i].lo, relations[i].hi,
                                 relations[i].d_over_c);
    snprintf(m->source, sizeof m->source, "built-in default (compi calibrate codecs, dev machine, 2026-11-23)");
}
