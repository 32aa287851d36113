/* SPDX-License-Identifier: BSD-3-Clause */
/* The binary layout of a trace file, shared by its writer (trace_write.c)
 * and its reader (trace_read.c); the public API is engine/trace.h, the
 * format's description for users docs/guided.md. Internal to lib/engine.
 *
 * Trace file, all integers little-endian:
 *   header  (TR_HDR_LEN bytes): "COMPITRC", u32 version, u32 header length,
 *           i32 rank, i32 world size, u64 cap, u32 sample max, u32 slice,
 *           u32 samples per key, u32 0, char program[256], char node[64],
 *           u32 CRC-32 of everything before it
 *   chunks: u32 type, u32 payload length, payload, u32 CRC-32 of type,
 *           length and payload. In order: at most one ALGS (the
 *           collective algorithms in force, text), any number of SMPL, at
 *           most one PROF (the communication profile, engine/commprof.h),
 *           one INDX, one SUMM, end of file. Version 1 files (no ALGS/PROF)
 *           and version 2 files (index entries without the burst,
 *           TR_INDX_ENTRY_V2 bytes) are still read. */
#ifndef COMPI_ENGINE_TRACE_FORMAT_H
#define COMPI_ENGINE_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "engine/trace.h"

#define TR_MAGIC "COMPITRC"
#define TR_VERSION 3u
#define TR_ALGS_MAX (1u << 20)
#define TR_HDR_CRC_OFF 368
#define TR_HDR_LEN (TR_HDR_CRC_OFF + 4)
#define TR_CHUNK_OVH 12u      /* type, length, crc */
#define TR_SMPL_FIXED 28u     /* key, seq, occurrence, nslices, len */
#define TR_INDX_ENTRY 124u    /* ... u32 share, u32 own (version 3) */
#define TR_INDX_ENTRY_V2 116u /* versions 1 and 2 */
#define TR_SUMM_LEN 96u
#define TR_MAX_KEYS (1u << 24)

#define TR_FOURCC(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TR_SMPL TR_FOURCC('S', 'M', 'P', 'L')
#define TR_INDX TR_FOURCC('I', 'N', 'D', 'X')
#define TR_SUMM TR_FOURCC('S', 'U', 'M', 'M')
#define TR_ALGS TR_FOURCC('A', 'L', 'G', 'S')
#define TR_PROF TR_FOURCC('P', 'R', 'O', 'F')

/* CRC-32 (IEEE, zlib's), continued from crc (start with 0). */
static inline uint32_t tr_crc32(uint32_t crc, const void *buf, size_t len)
{
    return (uint32_t)crc32_z(crc, buf, len);
}

/* Bytes of an index chunk of nkeys entries, and of the summary chunk. */
static inline uint64_t tr_index_size(uint64_t nkeys)
{
    return TR_CHUNK_OVH + 8 + nkeys * TR_INDX_ENTRY;
}
static inline uint64_t tr_summ_size(void)
{
    return TR_CHUNK_OVH + TR_SUMM_LEN;
}

/* A message's burst as a trace records it: 1 and 1 when not said (0),
 * and never more of the rank's own than cross the link. */
static inline void tr_norm_burst(compi_trace_msg *m)
{
    if (m->share < 1) m->share = 1;
    if (m->own < 1) m->own = 1;
    if (m->own > m->share) m->own = m->share;
}

/* The element sizes a trace records (anything else is recorded as 1). */
static inline size_t tr_norm_elem(size_t e)
{
    return e == 1 || e == 2 || e == 4 || e == 8 ? e : 1;
}

#endif
