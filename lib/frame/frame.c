/* SPDX-License-Identifier: BSD-3-Clause */
/* The wire frame header. Little-endian fixed layout, 32 bytes:
 *   0 magic "CMPI" | 4 version | 5 codec id (0 raw) | 6 dtclass | 7 flags
 *   8 original_len u64 | 16 payload_len u64 | 24 check u32 | 28 pace hint u32
 *   (a chunk's; 0 elsewhere)
 * The check is FNV-1a over bytes 0..23, so a damaged header is named as such
 * instead of being decoded as garbage lengths. Bytes 28..31 are neither
 * checked nor validated: a hint (frame.h, compi_chunk_gap) never decides
 * how a message is read. */
#include <stdio.h>
#include <string.h>
#include "frame/frame.h"
#include "common/intrange.h"

static void compi_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void compi_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t compi_get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t compi_get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint32_t compi_header_check(const unsigned char *p)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 24; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

void compi_frame_write_header(void *dst, const compi_frame_header *h)
{
    unsigned char *p = dst;
    compi_put_u32(p, COMPI_FRAME_MAGIC);
    p[4] = COMPI_FRAME_VERSION;
    p[5] = h->codec;
    p[6] = h->dtclass;
    p[7] = h->flags;
    compi_put_u64(p + 8, h->original_len);
    compi_put_u64(p + 16, h->payload_len);
    compi_put_u32(p + 24, compi_header_check(p));
    compi_put_u32(p + 28, 0);
}

/* chunk: a pipelined message's chunk frame, whose flags byte is its index
 * (mod 256) */
static int compi_header_parse(const void *src, size_t avail, compi_frame_header *h, char *why, size_t whylen, int chunk)
{
    const unsigned char *p = src;
    if (avail < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen,
                 "message of %zu bytes is shorter than a compi frame header "
                 "(was it sent without compi?)",
                 avail);
        return COMPI_ERR_CORRUPT;
    }
    if (compi_get_u32(p) != COMPI_FRAME_MAGIC) {
        snprintf(why, whylen, "bad frame magic 0x%08x (sender not using compi, or data damaged)", compi_get_u32(p));
        return COMPI_ERR_CORRUPT;
    }
    if (p[4] != COMPI_FRAME_VERSION) {
        snprintf(why, whylen, "unsupported frame version %u (this compi speaks %u)", p[4], COMPI_FRAME_VERSION);
        return COMPI_ERR_CORRUPT;
    }
    if (compi_get_u32(p + 24) != compi_header_check(p)) {
        snprintf(why, whylen, "frame header checksum mismatch");
        return COMPI_ERR_CORRUPT;
    }
    h->codec = p[5];
    h->dtclass = p[6];
    h->original_len = compi_get_u64(p + 8);
    h->payload_len = compi_get_u64(p + 16);
    h->flags = p[7];
    if (h->codec != COMPI_CODEC_RAW && h->codec != COMPI_CODEC_ESCAPE && h->codec != COMPI_CODEC_CHUNKED &&
        !(chunk && h->codec == COMPI_CODEC_UNSENT) && !compi_codec_by_id(h->codec)) {
        snprintf(why, whylen, "frame names unknown codec id %u", h->codec);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec == COMPI_CODEC_RAW && h->payload_len != h->original_len) {
        snprintf(why, whylen, "raw frame with payload %llu != original %llu bytes", (unsigned long long)h->payload_len,
                 (unsigned long long)h->original_len);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec == COMPI_CODEC_ESCAPE && h->original_len < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "escape header for a %llu-byte message (at least %d expected)",
                 (unsigned long long)h->original_len, COMPI_FRAME_HEADER_SIZE);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec == COMPI_CODEC_CHUNKED) {
        if (h->flags < COMPI_CHUNK_LOG2_MIN || h->flags > COMPI_CHUNK_LOG2_MAX) {
            snprintf(why, whylen, "pipelined message header names chunks of 2^%u bytes (2^%d..2^%d expected)", h->flags,
                     COMPI_CHUNK_LOG2_MIN, COMPI_CHUNK_LOG2_MAX);
            return COMPI_ERR_CORRUPT;
        }
        if (compi_chunk_count(h->original_len, h->flags) < 2) {
            snprintf(why, whylen, "pipelined message of %llu bytes in chunks of %llu (at least two chunks expected)",
                     (unsigned long long)h->original_len, 1ull << h->flags);
            return COMPI_ERR_CORRUPT;
        }
        if (!compi_fits_int(h->payload_len)) {
            snprintf(why, whylen, "pipelined message header names side tag %llu (not an MPI tag)",
                     (unsigned long long)h->payload_len);
            return COMPI_ERR_CORRUPT;
        }
    } else if (h->flags && !chunk) {
        snprintf(why, whylen, "frame header flags 0x%02x on a frame that has none", h->flags);
        return COMPI_ERR_CORRUPT;
    }
    if (h->dtclass >= COMPI_CLASS_COUNT) {
        snprintf(why, whylen, "frame names unknown datatype class %u", h->dtclass);
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}

int compi_frame_read_header(const void *src, size_t avail, compi_frame_header *h, char *why, size_t whylen)
{
    return compi_header_parse(src, avail, h, why, whylen, 0);
}

/* ---------------------------------------------------------- whole frames */

int compi_frame_length_check(const compi_frame_header *h, uint64_t arrived, char *why, size_t whylen)
{
    int chunked = h->codec == COMPI_CODEC_CHUNKED;
    int ok = chunked ? arrived == 0 : arrived == h->payload_len;
    if (!ok)
        snprintf(why, whylen, "frame declares %llu payload bytes but %llu arrived%s",
                 (unsigned long long)(chunked ? 0 : h->payload_len), (unsigned long long)arrived,
                 chunked ? " (a pipelined header travels alone)" : "");
    return ok;
}

int compi_frame_check_whole(const void *frame, size_t frame_len, compi_frame_header *h, char *why, size_t whylen)
{
    if (compi_frame_read_header(frame, frame_len, h, why, whylen) != COMPI_OK) return COMPI_ERR_CORRUPT;
    if (h->codec == COMPI_CODEC_ESCAPE || h->codec == COMPI_CODEC_CHUNKED) {
        snprintf(why, whylen, "%s header where a whole frame was expected",
                 h->codec == COMPI_CODEC_ESCAPE ? "escape" : "pipelined");
        return COMPI_ERR_CORRUPT;
    }
    if (!compi_frame_length_check(h, (uint64_t)(frame_len - COMPI_FRAME_HEADER_SIZE), why, whylen))
        return COMPI_ERR_CORRUPT;
    return COMPI_OK;
}

int compi_frame_decode_payload(const compi_frame_header *h, const void *payload, void *dst, size_t cap, char *why,
                               size_t whylen)
{
    if (h->original_len > (uint64_t)cap) {
        snprintf(why, whylen, "frame of %llu bytes does not fit %zu bytes", (unsigned long long)h->original_len, cap);
        return COMPI_ERR_DST_TOO_SMALL;
    }
    size_t orig = (size_t)h->original_len;
    if (h->codec == COMPI_CODEC_RAW) { /* the header check made payload_len == original_len */
        if (orig) memcpy(dst, payload, orig);
        return COMPI_OK;
    }
    const compi_codec *codec = compi_codec_by_id(h->codec);
    if (!codec) {
        snprintf(why, whylen, "frame names unknown codec id %u", h->codec);
        return COMPI_ERR_CORRUPT;
    }
    compi_codec_params params = {(compi_dtclass)h->dtclass, 0, 0};
    /* the codec may write at most orig bytes: no more than the frame said */
    long long n = codec->decompress(payload, (size_t)h->payload_len, dst, orig, &params);
    if (n < 0 || (uint64_t)n != h->original_len) {
        snprintf(why, whylen, "%s payload of %llu bytes did not decode to %zu bytes: %s", codec->name,
                 (unsigned long long)h->payload_len, orig, n < 0 ? compi_error_string((int)n) : "length mismatch");
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}

int compi_frame_decode_whole(const void *frame, size_t frame_len, void *dst, size_t cap, compi_frame_header *h,
                             char *why, size_t whylen)
{
    if (compi_frame_check_whole(frame, frame_len, h, why, whylen) != COMPI_OK) return COMPI_ERR_CORRUPT;
    return compi_frame_decode_payload(h, (const unsigned char *)frame + COMPI_FRAME_HEADER_SIZE, dst, cap, why, whylen);
}

/* --------------------------------------------------------------- escapes */

int compi_escape_check(const compi_frame_header *h, size_t landed, size_t n, int truncated, uint64_t tag_ub, char *why,
                       size_t whylen)
{
    if (h->codec != COMPI_CODEC_ESCAPE) {
        snprintf(why, whylen, "frame with codec id %u is not an escape header", h->codec);
        return COMPI_ERR_CORRUPT;
    }
    if (!truncated && h->original_len != (uint64_t)n) {
        snprintf(why, whylen, "escaped message of %zu bytes declares %llu", n, (unsigned long long)h->original_len);
        return COMPI_ERR_CORRUPT;
    }
    if (h->payload_len > tag_ub) {
        snprintf(why, whylen, "escape header names side message tag %llu (MPI_TAG_UB is %llu)",
                 (unsigned long long)h->payload_len, (unsigned long long)tag_ub);
        return COMPI_ERR_CORRUPT;
    }
    if (landed < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "escape header with %zu of its %d bytes in memory", landed, COMPI_FRAME_HEADER_SIZE);
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}

int compi_escape_put_back(unsigned char *head, size_t landed, const unsigned char *aside, size_t got, char *why,
                          size_t whylen)
{
    if (got != COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "escape side message of %zu bytes (%d expected)", got, COMPI_FRAME_HEADER_SIZE);
        return COMPI_ERR_CORRUPT;
    }
    if (landed < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "escape header with %zu of its %d bytes in memory", landed, COMPI_FRAME_HEADER_SIZE);
        return COMPI_ERR_CORRUPT;
    }
    if (!compi_bytes_look_framed(aside, got, got)) {
        snprintf(why, whylen,
                 "escape side message does not hold the frame-like bytes it stands for "
                 "(a message of another sender?)");
        return COMPI_ERR_CORRUPT;
    }
    memcpy(head, aside, COMPI_FRAME_HEADER_SIZE);
    return COMPI_OK;
}

/* ---------------------------------------------------------------- chunks */

size_t compi_chunk_capacity(size_t len)
{
    size_t bound = compi_codec_bound_max(len);
    return COMPI_FRAME_HEADER_SIZE + (bound > len ? bound : len);
}

long long compi_chunk_encode(size_t index, const void *src, size_t len, const compi_codec *codec,
                             const compi_codec_params *p, unsigned char *out, size_t cap, int *compressed)
{
    compi_frame_header h = {COMPI_CODEC_RAW, (uint8_t)p->dtclass, len, len, (uint8_t)index};
    if (cap < COMPI_FRAME_HEADER_SIZE + len) return COMPI_ERR_DST_TOO_SMALL;
    unsigned char *payload = out + COMPI_FRAME_HEADER_SIZE;
    *compressed = 0;
    if (codec && len) {
        long long n = codec->compress(src, len, payload, cap - COMPI_FRAME_HEADER_SIZE, p);
        if (n >= 0 && (size_t)n < len) {
            h.codec = codec->id;
            h.payload_len = (uint64_t)n;
            *compressed = 1;
        }
    }
    if (!*compressed && len) memcpy(payload, src, len);
    compi_frame_write_header(out, &h);
    return (long long)(COMPI_FRAME_HEADER_SIZE + h.payload_len);
}

long long compi_chunk_unsent(size_t index, size_t len, unsigned char *out)
{
    compi_frame_header h = {COMPI_CODEC_UNSENT, 0, len, 0, (uint8_t)index};
    compi_frame_write_header(out, &h);
    return COMPI_FRAME_HEADER_SIZE;
}

int compi_chunk_number(const unsigned char *msg, size_t got)
{
    compi_frame_header h;
    char why[8];
    return compi_header_parse(msg, got, &h, why, sizeof why, 1) == COMPI_OK ? h.flags : -1;
}

int compi_chunk_decode(size_t index, const unsigned char *msg, size_t got, size_t len, unsigned char *dst,
                       uint8_t *codec_out, char *why, size_t whylen)
{
    compi_frame_header h;
    if (compi_header_parse(msg, got, &h, why, whylen, 1) != COMPI_OK) return COMPI_ERR_CORRUPT;
    if (codec_out) *codec_out = h.codec;
    if (h.codec == COMPI_CODEC_ESCAPE || h.codec == COMPI_CODEC_CHUNKED) {
        snprintf(why, whylen, "chunk carries a %s header", h.codec == COMPI_CODEC_ESCAPE ? "escape" : "pipelined");
        return COMPI_ERR_CORRUPT;
    }
    if (h.codec == COMPI_CODEC_UNSENT) {
        snprintf(why, whylen, "its sender's compi could not send it (see the sender's error)");
        return COMPI_ERR_CORRUPT;
    }
    if (h.flags != (uint8_t)index) {
        snprintf(why, whylen, "chunk numbered %u (mod 256) arrived where %u was due: a chunk is missing", h.flags,
                 (unsigned)(uint8_t)index);
        return COMPI_ERR_CORRUPT;
    }
    if (h.original_len != len) {
        snprintf(why, whylen, "chunk declares %llu bytes, %zu expected", (unsigned long long)h.original_len, len);
        return COMPI_ERR_CORRUPT;
    }
    size_t plen = got - COMPI_FRAME_HEADER_SIZE;
    if (h.payload_len != plen || (h.codec != COMPI_CODEC_RAW && plen >= len)) {
        snprintf(why, whylen, "chunk declares %llu payload bytes, %zu arrived", (unsigned long long)h.payload_len,
                 plen);
        return COMPI_ERR_CORRUPT;
    }
    const unsigned char *payload = msg + COMPI_FRAME_HEADER_SIZE;
    if (h.codec == COMPI_CODEC_RAW) {
        if (len) memcpy(dst, payload, len);
        return COMPI_OK;
    }
    const compi_codec *codec = compi_codec_by_id(h.codec);
    compi_codec_params params = {(compi_dtclass)h.dtclass, 0, 0};
    long long n = codec->decompress(payload, plen, dst, len, &params);
    if (n < 0 || (size_t)n != len) {
        snprintf(why, whylen, "%s chunk of %zu bytes did not decode to %zu bytes: %s", codec->name, plen, len,
                 n < 0 ? compi_error_string((int)n) : "length mismatch");
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}

void compi_chunk_set_gap(unsigned char *msg, double gap_us)
{
    double v = gap_us > 0 ? gap_us + 1 : 1;
    compi_put_u32(msg + 28, v < (double)UINT32_MAX ? (uint32_t)v : UINT32_MAX);
}

double compi_chunk_gap(const unsigned char *msg, size_t got)
{
    uint32_t v = got >= COMPI_FRAME_HEADER_SIZE ? compi_get_u32(msg + 28) : 0;
    return v ? (double)(v - 1) : -1;
}
