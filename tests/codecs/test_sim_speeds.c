/* SPDX-License-Identifier: BSD-3-Clause */
/* The smpi build's codec throughputs (lib/compat/smpi_codec_speeds.c),
 * checked without MPI or SimGrid: every codec of the table is charged a
 * positive speed whatever the ratio; over the ratios of stencil3d's halo
 * faces (2 and up) lz4's charge has no step (1 % more ratio changes it by
 * less than 5 %), at a bucket's centre it is that bucket's measurement,
 * and below the measured buckets the any-ratio pair holds. Prints "FAIL "
 * on a failure. */
#include <math.h>
#include <stdio.h>
#include "compat/smpi_codec_speeds.h"

static int failures;

static void check(int ok, const char *what, double a, double b)
{
    if (!ok) {
        printf("FAIL %s (%g, %g)\n", what, a, b);
        failures++;
    }
}

int main(void)
{
    const char *names[] = {"lz4",    "zstd", "blosc-lz4", "blosc-zstd", "rice", "lzo",
                           "snappy", "rle",  "huffman",   "fpc",        "dfcm", "poly-lz4"};
    const double ratios[] = {0, 0.9, 1, 1.5, 3, 7, 9.99, 10, 30, 250, 1e6};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t j = 0; j < sizeof ratios / sizeof ratios[0]; j++)
            for (int c = 0; c < 2; c++) {
                double m = compi_sim_codec_mbs(names[i], ratios[j], c);
                check(m > 0 && isfinite(m), names[i], ratios[j], m);
            }
    check(compi_sim_codec_mbs("no-such-codec", 5, 1) == 0, "unknown codec charged", 5, 0);
    for (int c = 0; c < 2; c++)
        for (double r = 2; r < 1000; r *= 1.01) {
            double a = compi_sim_codec_mbs("lz4", r, c), b = compi_sim_codec_mbs("lz4", r * 1.01, c);
            check(fabs(b / a - 1) < 0.05, c ? "lz4 compress step" : "lz4 decompress step", r, b / a);
        }
    /* lz4's [8, 10) bucket (centre sqrt(80)) and its any-ratio pair */
    check(fabs(compi_sim_codec_mbs("lz4", sqrt(80), 1) - 5214) < 0.5, "lz4 [8,10) compress",
          compi_sim_codec_mbs("lz4", sqrt(80), 1), 5214);
    check(compi_sim_codec_mbs("lz4", 1.2, 1) == 1128 && compi_sim_codec_mbs("lz4", 0, 0) == 4039, "lz4 any ratio",
          compi_sim_codec_mbs("lz4", 1.2, 1), compi_sim_codec_mbs("lz4", 0, 0));
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
