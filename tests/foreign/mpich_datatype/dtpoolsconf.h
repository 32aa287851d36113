/* SPDX-License-Identifier: BSD-3-Clause */
/* What MPICH's configure would write for DTPools (dtpools_internal.h
 * includes "../dtpoolsconf.h"): nothing is needed on a C99 + POSIX system
 * (strdup is declared by <string.h>). */
