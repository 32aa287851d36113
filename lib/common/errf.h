/* SPDX-License-Identifier: BSD-3-Clause */
/* Filling a caller's error buffer (MPI-free; lib/common/errors.c). */
#ifndef COMPI_COMMON_ERRF_H
#define COMPI_COMMON_ERRF_H
#include <stddef.h>

/* printf into err[0..errlen); nothing when err is NULL or errlen 0. */
void compi_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
