/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: whole frames held in memory (lib/frame/frame.c,
 * compi_frame_decode_whole), as a collective's block or a stashed message
 * arrives from another process: header, payload length and original length
 * are the peer's word.
 *
 * Input: [0] mode, then
 *   decode (mode bit 3 clear): [1..] a frame as it arrived. Mode bit 0:
 *       reseal the header (keep its fields, recompute its check) so that
 *       lengths, codec and class mutate freely past the checksum. Mode bits
 *       1-2: the receive room: 0 the declared original length, 1 one byte
 *       less, 2 17 bytes more, 3 64 bytes. Decoding must return COMPI_OK,
 *       COMPI_ERR_CORRUPT or COMPI_ERR_DST_TOO_SMALL; COMPI_OK only with
 *       the original length within the room; DST_TOO_SMALL only when it is
 *       not, and with nothing written; nothing is ever written past the
 *       original length nor read past the frame (exact-size buffers that
 *       end at a guard page: the codec libraries are not instrumented).
 *   round trip (mode bit 3 set): [1] params selector, [2] codec index,
 *       [3..] data: encoded as a whole frame with that codec (raw when it
 *       does not shrink), decoded back: exactly the data. */
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

/* The header's fields as they are, under a valid check. */
static void fz_reseal(uint8_t *f)
{
    compi_frame_header h = {f[5], f[6], fz_le64(f + 8), fz_le64(f + 16), f[7]};
    compi_frame_write_header(f, &h);
}

static int fz_untouched(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xA5) return 0;
    return 1;
}

static void fz_decode(uint8_t mode, const uint8_t *bytes, size_t n)
{
    compi_fuzz_guard gf, gd;
    unsigned char *frame = compi_fuzz_guard_alloc(n, &gf);
    if (n) memcpy(frame, bytes, n);
    if ((mode & 1) && n >= COMPI_FRAME_HEADER_SIZE) fz_reseal(frame);
    uint64_t orig = n >= 16 ? fz_le64(frame + 8) : 0;
    size_t cap;
    switch ((mode >> 1) & 3) {
    case 0: cap = (size_t)orig; break;
    case 1: cap = orig ? (size_t)orig - 1 : 0; break;
    case 2: cap = (size_t)orig + 17; break;
    default: cap = 64; break;
    }
    if (orig > COMPI_FUZZ_MAX_DST) cap = 64;   /* a huge claim: the room stays small */
    unsigned char *dst = compi_fuzz_guard_alloc(cap, &gd);
    memset(dst, 0xA5, cap);
    compi_frame_header h;
    char why[256];
    int rc = compi_frame_decode_whole(frame, n, dst, cap, &h, why, sizeof why);
    if (rc != COMPI_OK && rc != COMPI_ERR_CORRUPT && rc != COMPI_ERR_DST_TOO_SMALL) {
        fprintf(stderr, "decode_whole returned %d\n", rc);
        abort();
    }
    if (rc == COMPI_OK) {
        if (h.original_len > cap) {
            fprintf(stderr, "frame of %llu bytes decoded into %zu bytes of room\n",
                    (unsigned long long)h.original_len, cap);
            abort();
        }
        if (!fz_untouched(dst + h.original_len, cap - (size_t)h.original_len)) {
            fprintf(stderr, "decoding a %llu-byte frame wrote past its length\n", (unsigned long long)h.original_len);
            abort();
        }
        if (h.codec == COMPI_CODEC_RAW &&
            (n != COMPI_FRAME_HEADER_SIZE + h.original_len ||
             (h.original_len && memcmp(dst, frame + COMPI_FRAME_HEADER_SIZE, (size_t)h.original_len) != 0))) {
            fprintf(stderr, "raw frame decoded to other bytes\n");
            abort();
        }
    }
    if (rc == COMPI_ERR_DST_TOO_SMALL && (h.original_len <= cap || !fz_untouched(dst, cap))) {
        fprintf(stderr, "DST_TOO_SMALL for %llu bytes into %zu (or it wrote)\n", (unsigned long long)h.original_len,
                cap);
        abort();
    }
    compi_fuzz_guard_free(&gd);
    compi_fuzz_guard_free(&gf);
}

static void fz_roundtrip(const uint8_t *data, size_t size)
{
    if (size < 3) return;
    compi_codec_params p = compi_fuzz_params(data[1]);
    const compi_codec *codec = compi_codec_at((size_t)data[2] % compi_codec_count());
    const uint8_t *bytes = data + 3;
    size_t n = size - 3;
    size_t cap = compi_chunk_capacity(n);
    unsigned char *buf = malloc(cap);
    int compressed;
    /* chunk number 0 is a whole frame: flags 0 */
    long long len = buf ? compi_chunk_encode(0, bytes, n, codec, &p, buf, cap, &compressed) : -1;
    if (len < COMPI_FRAME_HEADER_SIZE) {
        fprintf(stderr, "%s: frame of %zu bytes not encoded (%lld)\n", codec->name, n, len);
        abort();
    }
    compi_fuzz_guard gf, gd;
    unsigned char *frame = compi_fuzz_guard_alloc((size_t)len, &gf), *dst = compi_fuzz_guard_alloc(n, &gd);
    memcpy(frame, buf, (size_t)len);
    compi_frame_header h;
    char why[256];
    int rc = compi_frame_decode_whole(frame, (size_t)len, dst, n, &h, why, sizeof why);
    if (rc != COMPI_OK || h.original_len != n || (n && memcmp(dst, bytes, n) != 0)) {
        fprintf(stderr, "%s: whole frame of %zu bytes did not round-trip (%d: %s)\n", codec->name, n, rc,
                rc ? why : "other bytes");
        abort();
    }
    if (n && compi_frame_decode_whole(frame, (size_t)len, dst, n - 1, &h, why, sizeof why) != COMPI_ERR_DST_TOO_SMALL) {
        fprintf(stderr, "%s: a frame of %zu bytes decoded into %zu\n", codec->name, n, n - 1);
        abort();
    }
    compi_fuzz_guard_free(&gd);
    compi_fuzz_guard_free(&gf);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if (data[0] & 8) fz_roundtrip(data, size);
    else fz_decode(data[0], data + 1, size - 1);
    return 0;
}
