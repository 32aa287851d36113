/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec table of the smpi build flavour: every codec of
 * lib/codecs/codec_table.c, its compress and decompress charged to the
 * simulated clock by a cost model instead of the simulating machine's CPU
 * time, so a simulated run gives the same times on a busy or an idle host
 * and can stand for another CPU (docs/simulate.md).
 *
 * COMPI_SIM_CODEC_COST (read once per simulated rank):
 *   model       (default) seconds = bytes / throughput (below)
 *   model:F     the same on a CPU F times as fast (model:2 halves every cost)
 *   measured    no charge here: SMPI injects the measured host CPU time
 *               (run with smpi/simulate-computation:yes, the default)
 * Throughputs: lib/compat/smpi_codec_speeds.c, by the codec's ratio on the
 * data (measured on stencil3d's halo faces) where measured. */
#include <stdlib.h>
#include <string.h>
#include <simgrid/host.h>
#include "compat/smpi_compat.h"
#include "compat/smpi_codec_speeds.h"
#include "codecs/codecs.h"

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
static void compi_sim_charge(const char *codec, size_t bytes, long long coded, int compress)
{
    double f = compi_sim_cost_factor();
    if (f <= 0 || bytes == 0) return;
    double mbs = compi_sim_codec_mbs(codec, coded > 0 ? (double)bytes / (double)coded : 0, compress);
    if (mbs <= 0) return;
    /* as work at the simulated host's speed: smpi_execute(seconds) would
     * scale by smpi/host-speed, the measured-time calibration */
    smpi_execute_flops(f * (double)bytes / (mbs * 1e6) * sg_host_get_speed(sg_host_self()));
}

/* One modelled copy per codec, filled at load time from the real codec. */
#define COMPI_SIM_CODEC(var)                                                                                           \
    static compi_codec compi_sim_##var;                                                                                \
    static long long compi_sim_c_##var(const void *s, size_t n, void *d, size_t cap, const compi_codec_params *p)      \
    {                                                                                                                  \
        long long r = compi_codec_##var.compress(s, n, d, cap, p);                                                     \
        compi_sim_charge(compi_codec_##var.name, n, r, 1);                                                             \
        return r;                                                                                                      \
    }                                                                                                                  \
    static long long compi_sim_d_##var(const void *s, size_t n, void *d, size_t len, const compi_codec_params *p)      \
    {                                                                                                                  \
        long long r = compi_codec_##var.decompress(s, n, d, len, p);                                                   \
        compi_sim_charge(compi_codec_##var.name, len, (long long)n, 0);                                                \
        return r;                                                                                                      \
    }                                                                                                                  \
    static void compi_sim_init_##var(void)                                                                             \
    {                                                                                                                  \
        compi_sim_##var = compi_codec_##var;                                                                           \
        compi_sim_##var.compress = compi_sim_c_##var;                                                                  \
        compi_sim_##var.decompress = compi_sim_d_##var;                                                                \
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
