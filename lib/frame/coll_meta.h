/* SPDX-License-Identifier: BSD-3-Clause */
/* What compi's collectives exchange before their data (MPI-free, fuzzed):
 * the per-block metadata of an exchange (lib/coll/pipex.c) and the header
 * a broadcast root sends first (lib/wrappers/collectives.c). Both come from
 * another process, so a receiver reads them only through these checks:
 * damaged values give COMPI_ERR_CORRUPT with a reason, never a crash, an
 * allocation sized by garbage or an abort.
 *
 * Block metadata: COMPI_COLL_META_WORDS signed 64-bit words per block, so
 * no length is ever cut to an int:
 *   word 0  kind | log2 << 8 | any << 16 (all other bits zero)
 *   word 1  len: the bytes of the block's messages (BYTES), the packed bytes
 *           of a typed block (TYPED); 0 otherwise
 *   word 2  size: the packed bytes of a pipelined block (CHUNKED); 0 otherwise
 * kind:
 *   NONE     nothing for this receiver
 *   BYTES    len opaque bytes (a frame, or raw bytes the caller knows how to
 *            read) that land in compi's buffer, sent as messages of at most
 *            compi_coll_piece() bytes each
 *   TYPED    the application's data as it is (raw), sent and received as
 *            one message with the application's own buffers and datatypes
 *   CHUNKED  a pipelined block: size bytes in chunks of 2^log2 bytes
 * any: the sender pipelines some block of this exchange (the same on all
 * of its blocks). */
#ifndef COMPI_COLL_META_H
#define COMPI_COLL_META_H

#include <stddef.h>
#include <stdint.h>
#include "frame/frame.h"

#define COMPI_COLL_META_WORDS 3
enum { COMPI_COLL_BLOCK_NONE = 0, COMPI_COLL_BLOCK_BYTES, COMPI_COLL_BLOCK_TYPED, COMPI_COLL_BLOCK_CHUNKED };
/* The largest length metadata may declare (2^62): keeps every sum of a
 * few of them far from overflowing. */
#define COMPI_COLL_META_MAX ((uint64_t)1 << 62)

typedef struct {
    int kind;
    unsigned log2; /* CHUNKED: log2 of the chunk size */
    uint64_t len;  /* BYTES, TYPED */
    uint64_t size; /* CHUNKED */
    int any;
} compi_coll_meta;

void compi_coll_meta_write(int64_t w[COMPI_COLL_META_WORDS], const compi_coll_meta *m);
/* COMPI_OK, or COMPI_ERR_CORRUPT with why naming what is wrong (*m is then
 * NONE: nothing is received for the block). */
int compi_coll_meta_read(const int64_t w[COMPI_COLL_META_WORDS], compi_coll_meta *m, char *why, size_t whylen);

/* Messages of BYTES blocks carry at most this many bytes each (an MPI
 * count is an int): piece is 2^30 unless a test lowers it. Messages a block
 * of len bytes takes, and the length of message k of them. */
static inline uint64_t compi_coll_pieces(uint64_t len, uint64_t piece)
{
    return len ? (len + piece - 1) / piece : 0;
}
static inline uint64_t compi_coll_piece_len(uint64_t len, uint64_t piece, uint64_t k)
{
    uint64_t off = k * piece;
    return len - off < piece ? len - off : piece;
}

/* The header a broadcast root sends before its data: raw (the data
 * follows as the application's own broadcast), compressed (payload_len
 * bytes of codec output follow, in pieces) or chunked (COMPI_CODEC_CHUNKED,
 * flags = log2 of the chunk size, payload_len 0: each chunk message follows
 * after its length). Checks it as a receiver expecting expect packed bytes:
 * a frame header (compi_frame_read_header), not an escape, of exactly
 * expect bytes, and a compressed payload no longer than the data. */
int compi_bcast_header_read(const void *src, size_t avail, uint64_t expect, compi_frame_header *h, char *why,
                            size_t whylen);

#endif
