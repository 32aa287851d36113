/* SPDX-License-Identifier: BSD-3-Clause */
/* The pool's MPI_Init and MPI_Finalize steps (core/pool_setup.c). */
#ifndef COMPI_CORE_POOL_SETUP_H
#define COMPI_CORE_POOL_SETUP_H

/* After the configuration is read; collective over MPI_COMM_WORLD. */
void compi_pool_setup_init(void);
/* The codec speedup the pipelined estimate uses: 1 without helpers for
 * the call, else what the pool measured, a core per helper before that
 * (compi_codec_model_threads_speedup). */
double compi_pool_speedup_now(void);
/* Joins the helpers: none is left after MPI_Finalize. */
void compi_pool_setup_finalize(void);

#endif
