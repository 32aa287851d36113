/* The wire frame header. Little-endian fixed layout, 32 bytes:
 *   0 magic "CMPI" | 4 version | 5 codec id (0 raw) | 6 dtclass | 7 flags (0)
 *   8 original_len u64 | 16 payload_len u64 | 24 check u32 | 28 reserved (0)
 * The check is FNV-1a over bytes 0..23, so a damaged header is named as such
 * instead of being decoded as garbage lengths. */
#include <stdio.h>
#include <string.h>
#include "core/internal.h"

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
    p[7] = 0;
    compi_put_u64(p + 8, h->original_len);
    compi_put_u64(p + 16, h->payload_len);
    compi_put_u32(p + 24, compi_header_check(p));
    compi_put_u32(p + 28, 0);
}

int compi_frame_read_header(const void *src, size_t avail, compi_frame_header *h,
                            char *why, size_t whylen)
{
    const unsigned char *p = src;
    if (avail < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "message of %zu bytes is shorter than a compi frame header "
                 "(was it sent without compi?)", avail);
        return COMPI_ERR_CORRUPT;
    }
    if (compi_get_u32(p) != COMPI_FRAME_MAGIC) {
        snprintf(why, whylen, "bad frame magic 0x%08x (sender not using compi, or data damaged)",
                 compi_get_u32(p));
        return COMPI_ERR_CORRUPT;
    }
    if (p[4] != COMPI_FRAME_VERSION) {
        snprintf(why, whylen, "unsupported frame version %u (this compi speaks %u)", p[4],
                 COMPI_FRAME_VERSION);
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
    if (h->codec != COMPI_CODEC_RAW && h->codec != COMPI_CODEC_ESCAPE && !compi_codec_by_id(h->codec)) {
        snprintf(why, whylen, "frame names unknown codec id %u", h->codec);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec == COMPI_CODEC_RAW && h->payload_len != h->original_len) {
        snprintf(why, whylen, "raw frame with payload %llu != original %llu bytes",
                 (unsigned long long)h->payload_len, (unsigned long long)h->original_len);
        return COMPI_ERR_CORRUPT;
    }
    if (h->codec == COMPI_CODEC_ESCAPE && h->original_len < COMPI_FRAME_HEADER_SIZE) {
        snprintf(why, whylen, "escape header for a %llu-byte message (at least %d expected)",
                 (unsigned long long)h->original_len, COMPI_FRAME_HEADER_SIZE);
        return COMPI_ERR_CORRUPT;
    }
    if (h->dtclass >= COMPI_CLASS_COUNT) {
        snprintf(why, whylen, "frame names unknown datatype class %u", h->dtclass);
        return COMPI_ERR_CORRUPT;
    }
    return COMPI_OK;
}
