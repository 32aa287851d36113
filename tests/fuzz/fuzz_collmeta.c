/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: what compi's collectives read from other processes
 * before their data (lib/frame/coll_meta.c): the per-block metadata of an
 * exchange and a broadcast root's header.
 *
 * Input: [0] mode (bit 0: metadata / broadcast header; bit 1: round trip),
 * then:
 *   metadata, as received:  blocks of 24 bytes (3 little-endian int64
 *                           words): each read must return COMPI_OK with
 *                           consistent fields that write back to the same
 *                           words, or COMPI_ERR_CORRUPT with a reason and
 *                           an empty block; the lengths of the good ones
 *                           are split into pieces ([1..3]: piece size, at
 *                           most 2^30) that
 *                           must add up exactly, as the exchange posts them
 *   metadata, round trip:   [1] kind, [2] log2, [3] any, [4..11] len,
 *                           [12..19] size: a block built from them that
 *                           reads back OK must equal what was written; one
 *                           flipped bit ([20]) must still read OK or CORRUPT
 *   broadcast header:       [1..8] the bytes the receiver expects (LE), the
 *                           rest the header as it arrived: OK only for a raw
 *                           or codec header of exactly that many bytes whose
 *                           payload is no longer than the data
 *   header, round trip:     [1] codec, [2..9] original, [10..17] payload:
 *                           written with compi_frame_write_header, read
 *                           back as a broadcast of original bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compi.h"
#include "frame/coll_meta.h"

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void check_block(const compi_coll_meta *m, int rc, const char *why, const int64_t w[3], uint64_t piece)
{
    if (rc != COMPI_OK) {
        if (rc != COMPI_ERR_CORRUPT || !why[0] || m->kind != COMPI_COLL_BLOCK_NONE || m->len || m->size) {
            fprintf(stderr, "bad metadata read returned %d, kind %d, why '%s'\n", rc, m->kind, why);
            abort();
        }
        return;
    }
    int ok = m->kind >= COMPI_COLL_BLOCK_NONE && m->kind <= COMPI_COLL_BLOCK_CHUNKED && m->any <= 1 &&
             m->len <= COMPI_COLL_META_MAX && m->size <= COMPI_COLL_META_MAX;
    if (m->kind == COMPI_COLL_BLOCK_BYTES || m->kind == COMPI_COLL_BLOCK_TYPED) ok &= m->len > 0 && !m->size && !m->log2;
    if (m->kind == COMPI_COLL_BLOCK_CHUNKED)
        ok &= !m->len && m->log2 >= COMPI_CHUNK_LOG2_MIN && m->log2 <= COMPI_CHUNK_LOG2_MAX &&
              compi_chunk_count(m->size, m->log2) >= 2;
    int64_t back[3];
    compi_coll_meta_write(back, m);
    if (!ok || memcmp(back, w, sizeof back) != 0) {
        fprintf(stderr, "metadata read OK but inconsistent: kind %d log2 %u len %llu size %llu any %d\n", m->kind,
                m->log2, (unsigned long long)m->len, (unsigned long long)m->size, m->any);
        abort();
    }
    if (m->kind == COMPI_COLL_BLOCK_BYTES && m->len / piece < 4096) {
        uint64_t np = compi_coll_pieces(m->len, piece), sum = 0;
        for (uint64_t k = 0; k < np; k++) {
            uint64_t pl = compi_coll_piece_len(m->len, piece, k);
            if (pl == 0 || pl > piece || pl > 0x7fffffff) {
                fprintf(stderr, "piece %llu of %llu: %llu bytes\n", (unsigned long long)k, (unsigned long long)np,
                        (unsigned long long)pl);
                abort();
            }
            sum += pl;
        }
        if (sum != m->len) {
            fprintf(stderr, "pieces of %llu bytes add up to %llu\n", (unsigned long long)m->len, (unsigned long long)sum);
            abort();
        }
    }
}

static void check_header(const uint8_t *hdr, size_t n, uint64_t expect)
{
    compi_frame_header h;
    char why[256] = "";
    int rc = compi_bcast_header_read(hdr, n, expect, &h, why, sizeof why);
    if (rc != COMPI_OK) {
        if (rc != COMPI_ERR_CORRUPT || !why[0]) {
            fprintf(stderr, "bad broadcast header read returned %d, why '%s'\n", rc, why);
            abort();
        }
        return;
    }
    if (n < COMPI_FRAME_HEADER_SIZE || h.codec == COMPI_CODEC_ESCAPE || h.codec == COMPI_CODEC_CHUNKED ||
        h.original_len != expect || (h.codec == COMPI_CODEC_RAW && h.payload_len != h.original_len) ||
        (h.codec != COMPI_CODEC_RAW && (h.payload_len == 0 || h.payload_len > h.original_len))) {
        fprintf(stderr, "broadcast header accepted: codec %u original %llu payload %llu expect %llu\n", h.codec,
                (unsigned long long)h.original_len, (unsigned long long)h.payload_len, (unsigned long long)expect);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int header = data[0] & 1, roundtrip = data[0] & 2;
    char why[256];
    if (!header && !roundtrip) {
        if (size < 4) return 0;
        /* 1 .. 2^30 bytes, what compi_coll_piece() may return */
        uint64_t piece = 1 + ((uint64_t)data[1] | (uint64_t)data[2] << 8 | (uint64_t)data[3] << 16) * 4099u % (1u << 30);
        for (size_t at = 4; at + 24 <= size; at += 24) {
            int64_t w[3];
            for (int k = 0; k < 3; k++) w[k] = (int64_t)le64(data + at + 8 * (size_t)k);
            compi_coll_meta m;
            why[0] = 0;
            int rc = compi_coll_meta_read(w, &m, why, sizeof why);
            check_block(&m, rc, why, w, piece);
        }
    } else if (!header) {
        if (size < 21) return 0;
        compi_coll_meta m = {data[1] & 7, data[2] & 31, le64(data + 4), le64(data + 12), data[3] & 1};
        int64_t w[3];
        compi_coll_meta_write(w, &m);
        compi_coll_meta r;
        why[0] = 0;
        int rc = compi_coll_meta_read(w, &r, why, sizeof why);
        check_block(&r, rc, why, w, 1u << 20);
        if (rc == COMPI_OK && (r.kind != m.kind || r.log2 != m.log2 || r.len != m.len || r.size != m.size ||
                               r.any != m.any)) {
            fprintf(stderr, "metadata round trip changed the block\n");
            abort();
        }
        unsigned bit = data[20] % 192u;
        w[bit / 64] = (int64_t)((uint64_t)w[bit / 64] ^ (uint64_t)1 << (bit % 64));
        why[0] = 0;
        rc = compi_coll_meta_read(w, &r, why, sizeof why);
        check_block(&r, rc, why, w, 1u << 20);
    } else if (!roundtrip) {
        if (size < 9) return 0;
        uint64_t expect = le64(data + 1);
        size_t n = size - 9;
        unsigned char *hdr = malloc(n ? n : 1);   /* exact size: ASan sees any read past it */
        if (!hdr) abort();
        memcpy(hdr, data + 9, n);
        check_header(hdr, n, expect);
        free(hdr);
    } else {
        if (size < 18) return 0;
        compi_frame_header h = {data[1], 0, le64(data + 2), le64(data + 10), 0};
        if (h.codec == COMPI_CODEC_RAW) h.payload_len = h.original_len;
        unsigned char hdr[COMPI_FRAME_HEADER_SIZE];
        compi_frame_write_header(hdr, &h);
        check_header(hdr, sizeof hdr, h.original_len);
        check_header(hdr, sizeof hdr, h.original_len + 1);
    }
    return 0;
}
