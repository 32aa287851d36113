/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's process-wide state (lib/core/runtime.c): the configuration every
 * rank agreed on, the node map, start and end, logging and fatal errors.
 * compi_mode, compi_config and their parsers are MPI-free
 * (engine/config.h), shared with `compi config`. */
#ifndef COMPI_CORE_STATE_H
#define COMPI_CORE_STATE_H
#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include "engine/config.h"

extern compi_config compi_cfg;
/* Every rank passes its own outcome of a step that can fail on some ranks
 * only; nonzero on all if any failed (runtime.c). Then call compi_config_fail. */
int compi_config_agree(int failed, char *err, size_t errlen);

typedef struct {
    int initialized;
    int finalized;
    int world_rank, world_size;
    int *node_of_world; /* node id of every world rank */
    int my_node, node_count;
    int host_ranks;       /* ranks sharing this machine's memory, when the node map asked MPI (else 0) */
    int comm_keyval;      /* caches compi_comm_info on communicators */
    int frame_error_code; /* MPI error code: "compi: frame failed validation" */
    MPI_Comm self_comm;   /* private dup of MPI_COMM_SELF for local unpacking */
    MPI_Comm aside_comm;  /* compi's side channel (side.h): escaped bytes, pipelined chunks */
    int aside_tag_ub;     /* MPI_TAG_UB */
    pthread_mutex_t lock; /* guards request table, stash, orphans */
} compi_state;
extern compi_state compi_g;

void compi_ensure_init(void);   /* lazy init for calls before MPI_Init wrappers ran */
int compi_core_init(void);      /* after PMPI_Init succeeded */
void compi_core_finalize(void); /* before PMPI_Finalize */
void compi_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void compi_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
