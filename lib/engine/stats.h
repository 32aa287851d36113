/* SPDX-License-Identifier: BSD-3-Clause */
/* Small statistics shared by the calibration code and the engine. */
#ifndef COMPI_ENGINE_STATS_H
#define COMPI_ENGINE_STATS_H

/* Median of v[0..n) (the mean of the middle two when n is even); sorts v
 * in place. 0 when n <= 0. */
double compi_median(double *v, int n);

#endif
