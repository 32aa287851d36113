/* SPDX-License-Identifier: BSD-3-Clause */
/* The smpi build's codec throughputs (lib/compat/smpi_codecs.c charges
 * them to the simulated clock): per codec an any-ratio pair and, where
 * measured, pairs by ratio bucket, the representation of the codec model's
 * "speed" lines (lib/engine/codec_speed.c) with decompression added. No
 * MPI and no SimGrid here, so the host builds' tests can check it. */
#ifndef COMPI_COMPAT_SMPI_CODEC_SPEEDS_H
#define COMPI_COMPAT_SMPI_CODEC_SPEEDS_H

/* MB/s of uncompressed bytes the simulation charges codec `name` for data
 * it compresses `ratio` times (<= 0: unknown), to compress (compress != 0)
 * or decompress; 0 for a codec the table does not know. */
double compi_sim_codec_mbs(const char *name, double ratio, int compress);

#endif
