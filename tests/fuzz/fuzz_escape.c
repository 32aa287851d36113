/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: escapes (lib/frame/frame.c compi_escape_check and
 * compi_escape_put_back), the steps lib/core/message.c takes when a
 * message's head is an escape header: its first 32 bytes come back from a
 * side message and go over the header. Header, lengths, side tag and side
 * message are the peer's word.
 *
 * Input: [0] flags: bit 0 the MPI truncated the message, bit 1 reseal the
 * header (recompute its check so that its fields mutate freely), bits 2-7
 * the side message's length when it is not 32 (0..63); [1] tag_ub: 2^k - 1,
 * k = [1] % 32; [2..3] bytes of the message beyond those that landed (LE);
 * [4..35] the side message; [36..] the bytes that landed.
 * The steps run as message.c runs them (looks framed, header, escape
 * check, put back), then put back runs once more on its own with any room
 * and side length. Put back succeeds only with 32 side bytes that look
 * framed and 32 bytes of room, then the head is exactly the side bytes
 * followed by what landed after the header; on failure the head is as it
 * was. Nothing is touched outside the exact-size buffers. */
#include <stdint.h>
#include <string.h>
#include "fuzz_common.h"
#include "frame/frame.h"

static uint64_t fz_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void fz_put_back(unsigned char *head, size_t landed, const unsigned char *aside, size_t got)
{
    unsigned char *before = malloc(landed ? landed : 1);
    if (!before) abort();
    if (landed) memcpy(before, head, landed);
    char why[256];
    int rc = compi_escape_put_back(head, landed, aside, got, why, sizeof why);
    if (rc == COMPI_OK) {
        if (got != COMPI_FRAME_HEADER_SIZE || landed < COMPI_FRAME_HEADER_SIZE ||
            !compi_bytes_look_framed(aside, got, got) || memcmp(head, aside, COMPI_FRAME_HEADER_SIZE) != 0 ||
            memcmp(head + COMPI_FRAME_HEADER_SIZE, before + COMPI_FRAME_HEADER_SIZE,
                   landed - COMPI_FRAME_HEADER_SIZE) != 0) {
            fprintf(stderr, "put back of %zu side bytes into %zu accepted wrongly\n", got, landed);
            abort();
        }
    } else if (rc != COMPI_ERR_CORRUPT || (landed && memcmp(head, before, landed) != 0)) {
        fprintf(stderr, "refused put back (%d) changed the head\n", rc);
        abort();
    }
    free(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 36) return 0;
    int truncated = data[0] & 1;
    size_t side_len = (data[0] >> 2) & 63;
    uint64_t tag_ub = ((uint64_t)1 << (data[1] % 32)) - 1;
    size_t landed = size - 36, n = landed + ((size_t)data[2] | (size_t)data[3] << 8);
    compi_fuzz_guard ga, gh;
    unsigned char *aside = compi_fuzz_guard_alloc(COMPI_FRAME_HEADER_SIZE, &ga);
    unsigned char *head = compi_fuzz_guard_alloc(landed, &gh);
    memcpy(aside, data + 4, COMPI_FRAME_HEADER_SIZE);
    if (landed) memcpy(head, data + 36, landed);
    if ((data[0] & 2) && landed >= COMPI_FRAME_HEADER_SIZE) {
        compi_frame_header r = {head[5], head[6], fz_le64(head + 8), fz_le64(head + 16), head[7]};
        compi_frame_write_header(head, &r);
    }
    compi_frame_header h;
    char why[256];
    /* message.c: compi_arrival_resolve */
    if (compi_bytes_look_framed(head, landed, n) &&
        compi_frame_read_header(head, landed, &h, why, sizeof why) == COMPI_OK && h.codec == COMPI_CODEC_ESCAPE) {
        int rc = compi_escape_check(&h, landed, n, truncated, tag_ub, why, sizeof why);
        if (rc == COMPI_OK &&
            ((!truncated && h.original_len != n) || h.payload_len > tag_ub || landed < COMPI_FRAME_HEADER_SIZE)) {
            fprintf(stderr, "escape header accepted: %llu bytes for %zu, tag %llu of %llu, %zu landed\n",
                    (unsigned long long)h.original_len, n, (unsigned long long)h.payload_len,
                    (unsigned long long)tag_ub, landed);
            abort();
        }
        if (rc != COMPI_OK && rc != COMPI_ERR_CORRUPT) abort();
        if (rc == COMPI_OK) fz_put_back(head, landed, aside, COMPI_FRAME_HEADER_SIZE);
    }
    /* on its own: any room, any side length */
    fz_put_back(head, landed, aside, side_len);
    fz_put_back(head, landed < 40 ? landed : landed % 40, aside, COMPI_FRAME_HEADER_SIZE);
    compi_fuzz_guard_free(&gh);
    compi_fuzz_guard_free(&ga);
    return 0;
}
