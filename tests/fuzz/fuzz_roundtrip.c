/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: compress arbitrary data with arbitrary params, check the
 * bound, decompress into an exact-size buffer and compare. */
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
    if (size < 1) return 0;
    compi_codec_params p = compi_fuzz_params(data[0]);
    size_t n = size - 1;
    unsigned char *src = malloc(n ? n : 1);
    if (!src) abort();
    memcpy(src, data + 1, n);
    size_t cap = fz_codec->bound(n);
    unsigned char *c = malloc(cap ? cap : 1);
    unsigned char *out = malloc(n ? n : 1);
    if (!c || !out) abort();
    long long cl = fz_codec->compress(src, n, c, cap, &p);
    if (cl < 0 || (size_t)cl > cap) {
        fprintf(stderr, "%s: compress(%zu bytes) returned %lld, bound %zu\n", fz_codec->name, n, cl, cap);
        abort();
    }
    /* Decode from an exact-size copy of the stream. */
    unsigned char *s = malloc(cl ? (size_t)cl : 1);
    if (!s) abort();
    memcpy(s, c, (size_t)cl);
    long long d = fz_codec->decompress(s, (size_t)cl, out, n, &p);
    if (d != (long long)n || (n && memcmp(out, src, n) != 0)) {
        fprintf(stderr, "%s: round trip of %zu bytes failed (decompress returned %lld)\n",
                fz_codec->name, n, d);
        abort();
    }
    free(s);
    free(c);
    free(out);
    free(src);
    return 0;
}
