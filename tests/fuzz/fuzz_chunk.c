/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: chunks of pipelined messages (lib/frame/frame.c), the
 * part of the wire a receiver decodes from another process.
 *
 * Input: [0] params selector, [1] chunk number, [2..4] length (20 bits LE)
 * and, in [4] bit 4, the mode; [5] codec (index into the table, any
 * codec) and a flip position; [6..] bytes.
 *   decode mode:     the bytes are a chunk message as it arrived: decoding
 *                    must return COMPI_OK or COMPI_ERR_CORRUPT and never
 *                    touch memory outside the message or dst (exact sizes).
 *   round-trip mode: the bytes are encoded as chunk [1] with the codec;
 *                    decoding must give them back; then one byte of the
 *                    message is flipped: in the checked header (bytes
 *                    0..23) the decode must fail, elsewhere it must not
 *                    crash, and a chunk numbered otherwise must fail; a
 *                    pace hint (bytes 28..31 from [1]) changes nothing
 *                    read and reads back; the chunk's stand-in
 *                    (COMPI_CODEC_UNSENT) must carry its number and fail
 *                    to decode, naming the cause. */
#include <stdint.h>
#include <string.h>
#include "fuzz_common.h"
#include "frame/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6) return 0;
    compi_codec_params p = compi_fuzz_params(data[0]);
    size_t index = data[1];
    size_t len = ((size_t)data[2] | (size_t)data[3] << 8 | (size_t)(data[4] & 0x0f) << 16);
    int roundtrip = data[4] & 0x10;
    const compi_codec *codec = compi_codec_at((size_t)data[5] % compi_codec_count());
    const uint8_t *bytes = data + 6;
    size_t n = size - 6;
    char why[256];
    if (!roundtrip) {
        unsigned char *msg = malloc(n ? n : 1), *dst = malloc(len ? len : 1);
        if (!msg || !dst) abort();
        memcpy(msg, bytes, n);
        int rc = compi_chunk_decode(index, msg, n, len, dst, NULL, why, sizeof why);
        if (rc != COMPI_OK && rc != COMPI_ERR_CORRUPT) {
            fprintf(stderr, "chunk decode returned %d\n", rc);
            abort();
        }
        free(msg);
        free(dst);
        return 0;
    }
    size_t cap = compi_chunk_capacity(n);
    unsigned char *msg = malloc(cap), *dst = malloc(n ? n : 1);
    if (!msg || !dst) abort();
    int compressed;
    long long mlen = compi_chunk_encode(index, bytes, n, codec, &p, msg, cap, &compressed);
    if (mlen < COMPI_FRAME_HEADER_SIZE || (size_t)mlen > cap ||
        (compressed && (size_t)mlen >= COMPI_FRAME_HEADER_SIZE + n)) {
        fprintf(stderr, "%s: chunk of %zu bytes encoded to %lld (cap %zu, compressed %d)\n", codec->name, n, mlen, cap,
                compressed);
        abort();
    }
    unsigned char *exact = malloc((size_t)mlen);
    if (!exact) abort();
    memcpy(exact, msg, (size_t)mlen);
    if (compi_chunk_decode(index, exact, (size_t)mlen, n, dst, NULL, why, sizeof why) != COMPI_OK ||
        (n && memcmp(dst, bytes, n) != 0)) {
        fprintf(stderr, "%s: chunk round trip of %zu bytes failed: %s\n", codec->name, n, why);
        abort();
    }
    /* the stand-in for this chunk (its sender failed): numbered like it,
     * never decoded, never taken for a whole frame */
    unsigned char stand[COMPI_FRAME_HEADER_SIZE];
    compi_frame_header sh;
    if (compi_chunk_unsent(index, n, stand) != COMPI_FRAME_HEADER_SIZE ||
        compi_chunk_number(stand, sizeof stand) != (int)(index & 0xffu) ||
        compi_chunk_decode(index, stand, sizeof stand, n, dst, NULL, why, sizeof why) != COMPI_ERR_CORRUPT ||
        !strstr(why, "could not send") ||
        compi_frame_read_header(stand, sizeof stand, &sh, why, sizeof why) == COMPI_OK) {
        fprintf(stderr, "stand-in for chunk %zu of %zu bytes: number, decode or whole-frame check wrong\n", index, n);
        abort();
    }
    /* any pace hint (bytes 28..31, unchecked) leaves the chunk as it was read */
    double gap = (double)data[1] * 16843010.0; /* 0 .. past 2^32 us: saturates */
    compi_chunk_set_gap(exact, gap);
    double back = compi_chunk_gap(exact, (size_t)mlen),
           want = gap < 4294967294.0 ? (double)(uint32_t)gap : 4294967294.0;
    if (back != want || compi_chunk_decode(index, exact, (size_t)mlen, n, dst, NULL, why, sizeof why) != COMPI_OK ||
        (n && memcmp(dst, bytes, n) != 0)) {
        fprintf(stderr, "%s: chunk with pace hint %.0f us (read %.0f) did not decode as without: %s\n", codec->name,
                gap, back, why);
        abort();
    }
    if (compi_chunk_decode(index + 1, exact, (size_t)mlen, n, dst, NULL, why, sizeof why) == COMPI_OK) {
        fprintf(stderr, "chunk %zu decoded as chunk %zu\n", index, index + 1);
        abort();
    }
    size_t at = (size_t)data[5] * 7919u % (size_t)mlen;
    exact[at] ^= (unsigned char)(data[3] | 1);
    int rc = compi_chunk_decode(index, exact, (size_t)mlen, n, dst, NULL, why, sizeof why);
    if ((rc != COMPI_OK && rc != COMPI_ERR_CORRUPT) || (at < 24 && rc == COMPI_OK)) {
        fprintf(stderr, "flipped byte %zu of a %lld-byte chunk: decode returned %d\n", at, mlen, rc);
        abort();
    }
    free(exact);
    free(msg);
    free(dst);
    return 0;
}
