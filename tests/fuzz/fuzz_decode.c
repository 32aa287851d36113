/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: a decoder on arbitrary input must return an error or
 * exactly dst_len bytes, and never touch memory outside src or dst (ASan
 * sees both as exact-size heap blocks). */
#include <stdint.h>
#include <string.h>
#include "fuzz_common.h"

static const compi_codec *fz_codec;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_codec = compi_fuzz_codec();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < COMPI_FUZZ_HDR_DECODE) return 0;
    compi_codec_params p = compi_fuzz_params(data[0]);
    size_t dst_len = ((size_t)data[1] | (size_t)data[2] << 8 | (size_t)(data[3] & 0x0f) << 16);
    size_t len = size - COMPI_FUZZ_HDR_DECODE;
    /* Alternate between malloc (ASan redzones, both ends) and guard pages
     * (catch over-runs inside the uninstrumented codec libraries). */
    int guarded = data[3] & 0x10;
    compi_fuzz_guard gs = {0}, gd = {0};
    unsigned char *src = guarded ? compi_fuzz_guard_alloc(len, &gs) : malloc(len ? len : 1);
    unsigned char *dst = guarded ? compi_fuzz_guard_alloc(dst_len, &gd) : malloc(dst_len ? dst_len : 1);
    if (!src || !dst) abort();
    memcpy(src, data + COMPI_FUZZ_HDR_DECODE, len);
    long long r = fz_codec->decompress(src, len, dst, dst_len, &p);
    if (r >= 0 && r != (long long)dst_len) {
        fprintf(stderr, "%s: decompress returned %lld for dst_len %zu\n", fz_codec->name, r, dst_len);
        abort();
    }
    if (guarded) {
        compi_fuzz_guard_free(&gs);
        compi_fuzz_guard_free(&gd);
    } else {
        free(src);
        free(dst);
    }
    return 0;
}
