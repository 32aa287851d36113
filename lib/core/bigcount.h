/* SPDX-License-Identifier: BSD-3-Clause */
/* Sizes beyond what one int count or one codec call takes: the arithmetic
 * (MPI-free, unit-tested in tests/engine/test_bigcount.c). The MPI side is
 * lib/core/bigcount.c. */
#ifndef COMPI_BIGCOUNT_H
#define COMPI_BIGCOUNT_H
#include <stddef.h>
#include "common/intrange.h"
#include "compi.h"
#include "frame/frame.h"

/* len bytes as *blocks blocks of *block bytes and *rest bytes, every number
 * within an int: the block and the rest at most limit (>= 2), blocks of at
 * most 1 GiB and half the limit. */
static inline void compi_bytes_split(size_t len, size_t limit, size_t *block, size_t *blocks, size_t *rest)
{
    size_t b = limit / 2 < ((size_t)1 << 30) ? limit / 2 : ((size_t)1 << 30);
    if (b == 0) b = 1;
    *block = b;
    *blocks = len / b;
    *rest = len % b;
}

/* A frame of size bytes for codec: compressed whole when the codec takes
 * that much in one call (max_input), else pipelined where the message can
 * be (p2p), in chunks of *chunk bytes that every codec of the table takes,
 * else raw (counted raw_too_large, not "incompressible"). */
typedef enum { COMPI_WHOLE_COMPRESS, COMPI_WHOLE_PIPELINE, COMPI_WHOLE_RAW } compi_whole_plan;
static inline compi_whole_plan compi_whole_frame_plan(const compi_codec *codec, size_t size, int can_pipeline,
                                                      size_t *chunk)
{
    *chunk = 0;
    if (compi_codec_accepts(codec, size)) return COMPI_WHOLE_COMPRESS;
    if (!can_pipeline) return COMPI_WHOLE_RAW;
    *chunk = (size_t)1 << COMPI_CHUNK_LOG2_MAX;
    return COMPI_WHOLE_PIPELINE;
}
#endif
