/* SPDX-License-Identifier: BSD-3-Clause */
/* The counters of compi's point-to-point and core paths (the report,
 * core/report.h): per family of MPI calls, per codec, per pipelined stream,
 * bumped from any thread. */
#ifndef COMPI_CORE_STATS_H
#define COMPI_CORE_STATS_H
#include <stdint.h>
#include "engine/trace.h"

typedef enum {
    COMPI_FAM_SEND = 0,
    COMPI_FAM_ISEND,
    COMPI_FAM_PERSISTENT_SEND,
    COMPI_FAM_RECV,
    COMPI_FAM_IRECV,
    COMPI_FAM_PERSISTENT_RECV,
    COMPI_FAM_SENDRECV,
    COMPI_FAM_PROBE,
    COMPI_FAM_MRECV,
    COMPI_FAM_BCAST,
    COMPI_FAM_SCATTER,
    COMPI_FAM_GATHER,
    COMPI_FAM_ALLGATHER,
    COMPI_FAM_ALLTOALL,
    COMPI_FAM_ALLREDUCE,
    COMPI_FAM_REDUCE,
    COMPI_FAM_IO, /* collective I/O redistribution (lib/io/twophase.c) */
    COMPI_FAM_COUNT
} compi_family;
_Static_assert(COMPI_FAM_BCAST == COMPI_TRACE_FAM_COLL_FIRST && COMPI_FAM_REDUCE == COMPI_TRACE_FAM_COLL_LAST,
               "engine/trace.h names compi's collective families by number");
typedef struct {
    uint64_t messages[COMPI_FAM_COUNT];
    uint64_t bytes[COMPI_FAM_COUNT];        /* application bytes */
    uint64_t intra_msgs, inter_msgs;        /* sends by peer locality (same-node persistent starts not seen) */
    uint64_t inter_decided;                 /* inter-node messages and collective blocks compi decided on
                                                 (compressed or raw; compi_decide) */
    uint64_t raw_small, raw_incompressible; /* why inter-node messages went raw */
    uint64_t raw_too_large;                 /* ... larger than the codec takes whole (max_input) */
    uint64_t raw_unframed, raw_escaped;     /* raw messages sent without a header; escapes (escape.c) */
    uint64_t codec_msgs[256], codec_in[256], codec_out[256];
    uint64_t frames_decoded, frames_decoded_compressed;
    uint64_t compress_ns, decompress_ns;
    uint64_t evaluations, evaluate_ns; /* adaptive: sample evaluations and their cost */
    uint64_t outcomes_after_send;      /* adaptive: outcomes recorded once their message was posted */
    /* pipelined messages (pipeline.c), by codec id: sent, chunks, chunks
     * that went raw, codec time and the part of it that ran while earlier
     * (sender) or later (receiver) chunks were on the wire */
    uint64_t pipe_msgs[256], pipe_chunks[256], pipe_raw_chunks[256];
    uint64_t pipe_compress_ns[256], pipe_compress_hidden_ns[256];
    uint64_t pipe_decompress_ns[256], pipe_decompress_hidden_ns[256];
    uint64_t pipe_recv_msgs, pipe_wait_ns; /* received; time waiting for chunks */
    /* collective blocks whose whole frame the codec pool encoded or decoded
     * side by side with others of the same call (lib/coll/blocks.c) */
    uint64_t pool_blocks_encoded, pool_blocks_decoded;
} compi_stats;
extern compi_stats compi_st;
/* relaxed atomics: counters may be bumped from many threads */
#define COMPI_STAT_ADD(field, v) __atomic_fetch_add(&compi_st.field, (uint64_t)(v), __ATOMIC_RELAXED)
uint64_t compi_now_ns(void);

#endif
