/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective metadata and the broadcast header (coll_meta.h). */
#include <stdio.h>
#include "frame/coll_meta.h"

void compi_coll_meta_write(int64_t w[COMPI_COLL_META_WORDS], const compi_coll_meta *m)
{
    w[0] = (int64_t)((uint64_t)(m->kind & 0xff) | (uint64_t)(m->log2 & 0xff) << 8 | (uint64_t)(m->any ? 1 : 0) << 16);
    w[1] = (int64_t)m->len;
    w[2] = (int64_t)m->size;
}

static int compi_coll_meta_bad(compi_coll_meta *m, char *why, size_t whylen, const char *what, int64_t v)
{
    snprintf(why, whylen, "collective metadata damaged: %s (%lld)", what, (long long)v);
    m->kind = COMPI_COLL_BLOCK_NONE;
    m->log2 = 0;
    m->len = m->size = 0;
    m->any = 0;
    return COMPI_ERR_CORRUPT;
}

int compi_coll_meta_read(const int64_t w[COMPI_COLL_META_WORDS], compi_coll_meta *m, char *why, size_t whylen)
{
    uint64_t w0 = (uint64_t)w[0];
    m->kind = (int)(w0 & 0xff);
    m->log2 = (unsigned)(w0 >> 8 & 0xff);
    m->any = (int)(w0 >> 16 & 0xff);
    m->len = (uint64_t)w[1];
    m->size = (uint64_t)w[2];
    if (w0 >> 24) return compi_coll_meta_bad(m, why, whylen, "reserved bits set", w[0]);
    if (m->any > 1) return compi_coll_meta_bad(m, why, whylen, "pipelining flag not 0 or 1", m->any);
    if (m->kind > COMPI_COLL_BLOCK_CHUNKED) return compi_coll_meta_bad(m, why, whylen, "unknown block kind", m->kind);
    if (w[1] < 0 || m->len > COMPI_COLL_META_MAX)
        return compi_coll_meta_bad(m, why, whylen, "length out of range", w[1]);
    if (w[2] < 0 || m->size > COMPI_COLL_META_MAX)
        return compi_coll_meta_bad(m, why, whylen, "size out of range", w[2]);
    switch (m->kind) {
    case COMPI_COLL_BLOCK_NONE:
        if (m->log2 || m->len || m->size)
            return compi_coll_meta_bad(m, why, whylen, "fields set on an empty block", w[0]);
        break;
    case COMPI_COLL_BLOCK_BYTES:
    case COMPI_COLL_BLOCK_TYPED:
        if (m->log2 || m->size) return compi_coll_meta_bad(m, why, whylen, "chunk fields on a whole block", w[2]);
        if (m->len == 0) return compi_coll_meta_bad(m, why, whylen, "a whole block of 0 bytes", w[1]);
        break;
    case COMPI_COLL_BLOCK_CHUNKED:
        if (m->len) return compi_coll_meta_bad(m, why, whylen, "a length on a pipelined block", w[1]);
        if (m->log2 < COMPI_CHUNK_LOG2_MIN || m->log2 > COMPI_CHUNK_LOG2_MAX)
            return compi_coll_meta_bad(m, why, whylen, "chunk size out of range (log2)", m->log2);
        if (compi_chunk_count(m->size, m->log2) < 2)
            return compi_coll_meta_bad(m, why, whylen, "a pipelined block of fewer than 2 chunks", w[2]);
        break;
    }
    return COMPI_OK;
}

int compi_bcast_header_read(const void *src, size_t avail, uint64_t expect, compi_frame_header *h, char *why,
                            size_t whylen)
{
    if (compi_frame_read_header(src, avail, h, why, whylen) != COMPI_OK) return COMPI_ERR_CORRUPT;
    if (h->codec == COMPI_CODEC_ESCAPE) {
        snprintf(why, whylen, "broadcast header with codec %u, which only point-to-point messages use", h->codec);
        return COMPI_ERR_CORRUPT;
    }
    /* a broadcast in chunks: its chunks follow, each with its length first */
    if (h->codec == COMPI_CODEC_CHUNKED && h->payload_len != 0) {
        snprintf(why, whylen, "chunked broadcast header with a payload length of %llu (0 expected)",
                 (unsigned long long)h->payload_len);
        return COMPI_ERR_CORRUPT;
    }
    if (h->original_len != expect) {
        snprintf(why, whylen, "broadcast of %llu bytes where %llu were due (type signatures differ)",
                 (unsigned long long)h->original_len, (unsigned long long)expect);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec != COMPI_CODEC_RAW && h->codec != COMPI_CODEC_CHUNKED &&
        (h->payload_len == 0 || h->payload_len > h->original_len)) {
        snprintf(why, whylen, "compressed broadcast payload of %llu bytes for %llu bytes of data",
                 (unsigned long long)h->payload_len, (unsigned long long)h->original_len);
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}
