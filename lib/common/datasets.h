/* SPDX-License-Identifier: BSD-3-Clause */
/* Synthetic data sets shared by codec tests, fuzz seeds, calibration and
 * benchmarks ([Filgueira 2010]'s redundancy levels plus float-specific patterns). */
#ifndef COMPI_DATASETS_H
#define COMPI_DATASETS_H
#include <stddef.h>
#include <stdint.h>
#include "compi.h"

/* Index-based registry, like the codec table. Names (stable, used on command lines):
 *   zeros, random,
 *   int_r0 int_r25 int_r50 int_r75 int_r100,      (4-byte ints, X% redundancy)
 *   float_r0 ... float_r100, double_r0 ... double_r100,
 *   double_pattern  (50001.0, 50003.0, 50005.0, ...),
 *   double_smooth   (smooth field sin/cos with noise in the low mantissa bits),
 *   text            (English-like words) */
size_t compi_dataset_count(void);
const char *compi_dataset_name(size_t index);
compi_dtclass compi_dataset_class(size_t index);
/* -1 if unknown */
int compi_dataset_find(const char *name);
/* Fill len bytes (any len, also not a multiple of the element size);
 * deterministic for a given seed. */
void compi_dataset_fill(size_t index, void *buf, size_t len, uint64_t seed);

#endif
