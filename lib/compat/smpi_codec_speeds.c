/* SPDX-License-Identifier: BSD-3-Clause */
/* The smpi build's codec throughputs by ratio bucket (smpi_codec_speeds.h).
 *
 * Any ratio (lo = hi = 0), MB/s of uncompressed bytes, compress /
 * decompress: the calibration quoted in lib/engine/model_default.c (the
 * development machine, median over its data sets) where it lists the codec,
 * dfcm's its double sets at 100 KB; the others are that same machine's
 * single-thread order of magnitude for such coders.
 *
 * By ratio bucket [lo, hi) of the codec's own ratio on the data: measured
 * on stencil3d's 8 KiB halo faces (`--n 32 --decomp 3d`, 64 ranks,
 * iterations 1-10: 63 distinct faces, 7 per lz4 ratio bucket), `compi
 * calibrate codecs --files ... --class double --sizes 8192 --reps 9`
 * (thread CPU time, median of the timed runs per face), the median over
 * the faces whose ratio with that codec falls in the bucket (a bucket
 * with fewer than 2 such faces left out; the count after each row). A
 * codec charges its buckets from the lowest bucket's lower bound up,
 * interpolated between bucket centres on a log scale of ratio as the codec
 * model does (lib/engine/codec_speed.c), so a face's charge has no step at
 * a bucket's edge; below the lowest bucket (data the halo faces did not
 * cover) the any-ratio pair holds. */
#include <math.h>
#include <string.h>
#include "compat/smpi_codec_speeds.h"

typedef struct {
    const char *name;
    double c_mbs, d_mbs;
    double lo, hi; /* ratio bucket [lo, hi); 0, 0: any ratio */
} compi_sim_speed_row;

static const compi_sim_speed_row compi_sim_speed_rows[] = {
    {"lz4", 2448, 9387, 2, 4},          /* 7 faces */
    {"lz4", 2988, 11076, 4, 6},         /* 7 faces */
    {"lz4", 4101, 13940, 6, 8},         /* 7 faces */
    {"lz4", 5214, 14101, 8, 10},        /* 7 faces */
    {"lz4", 6499, 16196, 10, 14},       /* 7 faces */
    {"lz4", 8214, 13371, 14, 20},       /* 7 faces */
    {"lz4", 11641, 14356, 20, 50},      /* 7 faces */
    {"lz4", 15980, 11812, 50, 100},     /* 7 faces */
    {"lz4", 20774, 12193, 100, 1e9},    /* 7 faces */
    {"zstd", 742, 1619, 4, 6},          /* 11 faces */
    {"zstd", 942, 4285, 6, 8},          /* 6 faces */
    {"zstd", 1039, 2378, 8, 10},        /* 8 faces */
    {"zstd", 1328, 5512, 10, 14},       /* 8 faces */
    {"zstd", 1572, 7209, 14, 20},       /* 7 faces */
    {"zstd", 1770, 10892, 20, 50},      /* 7 faces */
    {"zstd", 5804, 15929, 50, 100},     /* 5 faces */
    {"zstd", 7082, 10233, 100, 1e9},    /* 10 faces */
    {"blosc-lz4", 1995, 2890, 2, 4},    /* 20 faces */
    {"blosc-lz4", 2139, 3918, 4, 6},    /* 14 faces */
    {"blosc-lz4", 2248, 3023, 6, 8},    /* 6 faces */
    {"blosc-lz4", 2744, 4706, 8, 10},   /* 5 faces */
    {"blosc-lz4", 3076, 5680, 10, 14},  /* 2 faces */
    {"blosc-lz4", 3056, 3713, 14, 20},  /* 5 faces */
    {"blosc-lz4", 3702, 3688, 20, 50},  /* 11 faces */
    {"blosc-zstd", 63, 480, 2, 4},      /* 10 faces */
    {"blosc-zstd", 74, 485, 4, 6},      /* 9 faces */
    {"blosc-zstd", 55, 491, 6, 8},      /* 6 faces */
    {"blosc-zstd", 81, 456, 8, 10},     /* 6 faces */
    {"blosc-zstd", 108, 495, 10, 14},   /* 6 faces */
    {"blosc-zstd", 127, 490, 14, 20},   /* 7 faces */
    {"blosc-zstd", 164, 473, 20, 50},   /* 9 faces */
    {"blosc-zstd", 323, 534, 50, 100},  /* 2 faces */
    {"blosc-zstd", 414, 533, 100, 1e9}, /* 8 faces */
    {"rice", 620, 709, 2, 4},           /* 28 faces */
    {"rice", 709, 972, 4, 6},           /* 2 faces */
    {"rice", 753, 1104, 6, 8},          /* 3 faces */
    {"rice", 822, 1340, 10, 14},        /* 4 faces */
    {"rice", 852, 1397, 14, 20},        /* 3 faces */
    {"rice", 893, 1574, 20, 50},        /* 3 faces */
    {"rice", 917, 1621, 50, 100},       /* 2 faces */
    {"snappy", 2506, 2398, 2, 4},       /* 10 faces */
    {"snappy", 3552, 3300, 4, 6},       /* 8 faces */
    {"snappy", 4435, 3939, 6, 8},       /* 11 faces */
    {"snappy", 7147, 3722, 8, 10},      /* 8 faces */
    {"snappy", 7724, 3814, 10, 14},     /* 9 faces */
    {"snappy", 12456, 4168, 14, 20},    /* 10 faces */
    {"snappy", 16824, 3766, 20, 50},    /* 7 faces */
    {"huffman", 259, 1048, 2, 4},       /* 40 faces */
    {"huffman", 418, 1269, 4, 6},       /* 19 faces */
    {"fpc", 2985, 1827, 2, 4},          /* 15 faces */
    {"fpc", 3062, 2120, 4, 6},          /* 15 faces */
    {"fpc", 3222, 2598, 6, 8},          /* 9 faces */
    {"fpc", 3314, 2784, 8, 10},         /* 6 faces */
    {"fpc", 3395, 3006, 10, 14},        /* 12 faces */
    {"fpc", 3604, 3189, 14, 20},        /* 6 faces */
    {"dfcm", 2523, 1708, 2, 4},         /* 20 faces */
    {"dfcm", 2797, 1712, 4, 6},         /* 13 faces */
    {"dfcm", 2928, 2050, 6, 8},         /* 11 faces */
    {"dfcm", 3045, 2126, 8, 10},        /* 5 faces */
    {"dfcm", 3121, 2452, 10, 14},       /* 9 faces */
    {"dfcm", 3134, 2792, 14, 20},       /* 5 faces */
    {"poly-lz4", 341, 1560, 2, 4},      /* 26 faces */
    {"poly-lz4", 349, 1576, 4, 6},      /* 12 faces */
    {"poly-lz4", 354, 1897, 6, 8},      /* 4 faces */
    {"poly-lz4", 356, 1554, 8, 10},     /* 3 faces */
    {"poly-lz4", 361, 1647, 10, 14},    /* 5 faces */
    {"poly-lz4", 379, 1869, 14, 20},    /* 2 faces */
    {"poly-lz4", 366, 1765, 20, 50},    /* 11 faces */
    {"lz4", 1128, 4039, 0, 0},          {"zstd", 551, 1304, 0, 0},
    {"blosc-lz4", 2057, 5067, 0, 0},    {"blosc-zstd", 80, 1692, 0, 0},
    {"rice", 636, 610, 0, 0},           {"lzo", 1096, 1396, 0, 0},
    {"snappy", 1000, 3000, 0, 0},       {"rle", 2000, 4000, 0, 0},
    {"huffman", 300, 300, 0, 0},        {"fpc", 500, 500, 0, 0},
    {"dfcm", 1373, 1263, 0, 0},         {"poly-lz4", 1100, 1300, 0, 0},
};
#define COMPI_SIM_NROWS (sizeof compi_sim_speed_rows / sizeof compi_sim_speed_rows[0])

/* A bucket's centre on a log scale: the codec model's (codec_speed.c), the
 * geometric mean of its bounds, the upper taken as at most 4 times the
 * lower. */
static double compi_sim_centre(const compi_sim_speed_row *r)
{
    double lo = r->lo < 1 ? 1 : r->lo, hi = r->hi > 4 * lo ? 4 * lo : r->hi;
    return sqrt(lo * hi);
}

static double compi_sim_row_mbs(const compi_sim_speed_row *r, int compress)
{
    return compress ? r->c_mbs : r->d_mbs;
}

double compi_sim_codec_mbs(const char *name, double ratio, int compress)
{
    const compi_sim_speed_row *any = NULL, *b[16];
    int n = 0;
    for (size_t i = 0; i < COMPI_SIM_NROWS; i++) {
        const compi_sim_speed_row *r = &compi_sim_speed_rows[i];
        if (strcmp(r->name, name) != 0) continue;
        if (r->hi <= 0) {
            any = r;
            continue;
        }
        if (n == 16) continue;
        int j = n++; /* by increasing ratio */
        for (; j > 0 && b[j - 1]->lo > r->lo; j--) b[j] = b[j - 1];
        b[j] = r;
    }
    if (n == 0 || !(ratio >= b[0]->lo)) return any ? compi_sim_row_mbs(any, compress) : 0;
    double lr = log(ratio);
    if (lr <= log(compi_sim_centre(b[0]))) return compi_sim_row_mbs(b[0], compress);
    for (int i = 1; i < n; i++) {
        double l0 = log(compi_sim_centre(b[i - 1])), l1 = log(compi_sim_centre(b[i]));
        if (lr > l1) continue;
        double f = (lr - l0) / (l1 - l0);
        /* time per byte interpolated on the log scale */
        double t0 = log(1 / compi_sim_row_mbs(b[i - 1], compress)), t1 = log(1 / compi_sim_row_mbs(b[i], compress));
        return 1 / exp(t0 + f * (t1 - t0));
    }
    return compi_sim_row_mbs(b[n - 1], compress);
}
