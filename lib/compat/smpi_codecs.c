/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec table of the smpi build flavour: every codec of
 * lib/codecs/codec_table.c, its compress and decompress charged to the
 * simulated clock by a cost model instead of the simulating machine's CPU
 * time, so a simulated run gives the same times on a busy or an idle host
 * and can stand for another CPU (docs/simulate.md).
 *
 * COMPI_SIM_CODEC_COST (read once per simulated rank):
 *   model       (default) seconds = bytes / throughput of the table below
 *   model:F     the same on a CPU F times as fast (model:2 halves every cost)
 *   measured    no charge here: SMPI injects the measured host CPU time
 *               (run with smpi/simulate-computation:yes, the default)
 * Throughputs, MB/s of uncompressed bytes, compress / decompress: the
 * calibration quoted in lib/engine/model_default.c (the development machine,
 * median over its data sets) where it lists the codec, dfcm's its double
 * sets at 100 KB (lib/engine/model_default.c); the others are that same
 * machine's single-thread order of magnitude for such coders. Data a codec
 * compresses 10 times or more is coded much faster than that median (lz4
 * compresses it 18 times faster): the second pair of throughputs is for
 * such data, measured by `compi calibrate codecs --files ... --class double`
 * on 8 KiB halo faces of stencil3d's field (iterations 1, 5 and 10, 24
 * faces, mean over those of ratio >= 10, thread CPU time; 0:
 * not measured, the first pair holds). */
#include <stdlib.h>
#include <string.h>
#include <simgrid/host.h>
#include "compat/smpi_compat.h"
#include "codecs/codecs.h"

typedef struct {
    const char *name;
    double c_mbs, d_mbs;       /* any data */
    double c_hi_mbs, d_hi_mbs; /* data compressed COMPI_SIM_HI_RATIO times or more */
} compi_sim_speed;

#define COMPI_SIM_HI_RATIO 10.0

static const compi_sim_speed compi_sim_speeds[] = {
    {"lz4", 1128, 4039, 19942, 12671},
    {"zstd", 551, 1304, 6738, 10161},
    {"blosc-lz4", 2057, 5067, 3826, 3836},
    {"blosc-zstd", 80, 1692, 392, 542},
    {"rice", 636, 610, 0, 0},
    {"lzo", 1096, 1396, 0, 0},
    {"snappy", 1000, 3000, 0, 0},
    {"rle", 2000, 4000, 0, 0},
    {"huffman", 300, 300, 0, 0},
    {"fpc", 500, 500, 0, 0},
    {"dfcm", 1373, 1263, 3241, 2880},
    {"poly-lz4", 1100, 1300, 316, 1780},
};

static double compi_sim_factor = -1; /* < 0: not read yet; 0: measured */

static double compi_sim_cost_factor(void)
{
    if (compi_sim_factor >= 0) return compi_sim_factor;
    const char *v = getenv("COMPI_SIM_CODEC_COST");
    compi_sim_factor = 1;
    if (v && strcmp(v, "measured") == 0) {
        compi_sim_factor = 0;
    } else if (v && strncmp(v, "model:", 6) == 0) {
        double f = atof(v + 6);
        if (f > 0) compi_sim_factor = 1 / f;
    }
    return compi_sim_factor;
}

/* bytes: uncompressed; coded: compressed (<= 0: the call failed, no ratio) */
static void compi_sim_charge(const compi_sim_speed *s, size_t bytes, long long coded, int compress)
{
    double f = compi_sim_cost_factor();
    if (f <= 0 || !s || bytes == 0) return;
    int hi = coded > 0 && (double)bytes >= COMPI_SIM_HI_RATIO * (double)coded;
    double mbs =
        compress ? (hi && s->c_hi_mbs > 0 ? s->c_hi_mbs : s->c_mbs) : (hi && s->d_hi_mbs > 0 ? s->d_hi_mbs : s->d_mbs);
    /* as work at the simulated host's speed: smpi_execute(seconds) would
     * scale by smpi/host-speed, the measured-time calibration */
    smpi_execute_flops(f * (double)bytes / (mbs * 1e6) * sg_host_get_speed(sg_host_self()));
}

/* One modelled copy per codec, filled at load time from the real codec. */
#define COMPI_SIM_CODEC(var)                                                                                           \
    static compi_codec compi_sim_##var;                                                                                \
    static const compi_sim_speed *compi_sim_speed_##var;                                                               \
    static long long compi_sim_c_##var(const void *s, size_t n, void *d, size_t cap, const compi_codec_params *p)      \
    {                                                                                                                  \
        long long r = compi_codec_##var.compress(s, n, d, cap, p);                                                     \
        compi_sim_charge(compi_sim_speed_##var, n, r, 1);                                                              \
        return r;                                                                                                      \
    }                                                                                                                  \
    static long long compi_sim_d_##var(const void *s, size_t n, void *d, size_t len, const compi_codec_params *p)      \
    {                                                                                                                  \
        long long r = compi_codec_##var.decompress(s, n, d, len, p);                                                   \
        compi_sim_charge(compi_sim_speed_##var, len, (long long)n, 0);                                                 \
        return r;                                                                                                      \
    }                                                                                                                  \
    static void compi_sim_init_##var(void)                                                                             \
    {                                                                                                                  \
        compi_sim_##var = compi_codec_##var;                                                                           \
        compi_sim_##var.compress = compi_sim_c_##var;                                                                  \
        compi_sim_##var.decompress = compi_sim_d_##var;                                                                \
        for (size_t i = 0; i < sizeof compi_sim_speeds / sizeof compi_sim_speeds[0]; i++)                              \
            if (strcmp(compi_sim_speeds[i].name, compi_codec_##var.name) == 0)                                         \
                compi_sim_speed_##var = &compi_sim_speeds[i];                                                          \
    }

COMPI_SIM_CODEC(rle)
COMPI_SIM_CODEC(huffman)
COMPI_SIM_CODEC(rice)
COMPI_SIM_CODEC(fpc)
COMPI_SIM_CODEC(dfcm)
#ifdef COMPI_WITH_LZO
COMPI_SIM_CODEC(lzo)
#endif
COMPI_SIM_CODEC(lz4)
COMPI_SIM_CODEC(zstd)
COMPI_SIM_CODEC(snappy)
COMPI_SIM_CODEC(blosc_lz4)
COMPI_SIM_CODEC(blosc_zstd)
COMPI_SIM_CODEC(poly_lz4)

__attribute__((constructor)) static void compi_sim_codecs_init(void)
{
    compi_sim_init_rle();
    compi_sim_init_huffman();
    compi_sim_init_rice();
    compi_sim_init_fpc();
    compi_sim_init_dfcm();
#ifdef COMPI_WITH_LZO
    compi_sim_init_lzo();
#endif
    compi_sim_init_lz4();
    compi_sim_init_zstd();
    compi_sim_init_snappy();
    compi_sim_init_blosc_lz4();
    compi_sim_init_blosc_zstd();
    compi_sim_init_poly_lz4();
}

/* The table itself is codec_table.c's, over the modelled copies. */
#define compi_codec_rle compi_sim_rle
#define compi_codec_huffman compi_sim_huffman
#define compi_codec_rice compi_sim_rice
#define compi_codec_fpc compi_sim_fpc
#define compi_codec_dfcm compi_sim_dfcm
#define compi_codec_lzo compi_sim_lzo
#define compi_codec_lz4 compi_sim_lz4
#define compi_codec_zstd compi_sim_zstd
#define compi_codec_snappy compi_sim_snappy
#define compi_codec_blosc_lz4 compi_sim_blosc_lz4
#define compi_codec_blosc_zstd compi_sim_blosc_zstd
#define compi_codec_poly_lz4 compi_sim_poly_lz4
#include "codecs/codec_table.c"
