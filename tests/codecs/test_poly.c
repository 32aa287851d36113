/* SPDX-License-Identifier: BSD-3-Clause */
/* poly-lz4 (lib/codecs/codec_poly.c): the order it chooses, exact round
 * trips of any bits (NaN, infinities, -0, subnormals, odd lengths, 4- and
 * 8-byte words) and its ratio on smooth doubles with noisy low bits, the
 * data it is for (deterministic data sets: the ratio is a property of the
 * format, not of timing). Prints "FAIL " on a failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compi.h"
#include "common/datasets.h"

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

/* Compresses and decompresses n bytes; returns the compressed length (0 on
 * failure) and the stream's first byte (the order) in *order. */
static size_t roundtrip(const compi_codec *c, const void *src, size_t n, size_t elem, int *order, const char *what)
{
    compi_codec_params p = {elem == 4 ? COMPI_CLASS_FLOAT : COMPI_CLASS_DOUBLE, elem, 0};
    size_t cap = c->bound(n);
    unsigned char *dst = malloc(cap), *back = malloc(n ? n : 1);
    long long z = dst && back ? c->compress(src, n, dst, cap, &p) : -1;
    long long d = z > 0 ? c->decompress(dst, (size_t)z, back, n, &p) : -1;
    int ok = z > 0 && d == (long long)n && (n == 0 || memcmp(src, back, n) == 0);
    check(ok, what);
    if (order) *order = z > 0 ? dst[0] : -1;
    free(dst);
    free(back);
    return ok ? (size_t)z : 0;
}

int main(void)
{
    const compi_codec *c = compi_codec_by_name("poly-lz4");
    check(c != NULL, "poly-lz4 is in the codec table");
    if (!c) return 1;
    size_t nw = 40000;
    uint64_t *w = malloc(nw * 8);
    char what[96];
    /* integer polynomials of degree d are predicted exactly from order d + 1 */
    for (int d = 0; d <= 5; d++) {
        for (size_t i = 0; i < nw; i++) { /* 0x0123456789ab + 31 x^(d-1) + 977 x^d, modulo 2^64 */
            uint64_t x = i + 1, t = 1, v = 0x0123456789abull;
            for (int e = 0; e < d; e++) {
                v += e == d - 1 ? 31 * t : 0;
                t *= x;
            }
            w[i] = d ? v + 977 * t : v;
        }
        int order;
        snprintf(what, sizeof what, "degree %d polynomial round trip", d);
        size_t z = roundtrip(c, w, nw * 8, 8, &order, what);
        snprintf(what, sizeof what, "degree %d polynomial: order %d chosen, want %d..6", d, order, d + 1);
        check(order >= d + 1 && order <= 6, what);
        snprintf(what, sizeof what, "degree %d polynomial: ratio %.1f, want > 20", d,
                 z ? (double)nw * 8 / (double)z : 0.0);
        check(z && nw * 8 > 20 * z, what);
    }
    /* special values, every length around the word size, 4-byte words */
    double special[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 5e-324, -5e-324, 1.7976931348623157e308, 1.0, 3.0};
    unsigned char *b = malloc(4096);
    for (int i = 0; i < 4096; i++) b[i] = ((const unsigned char *)special)[i % sizeof special];
    for (size_t n = 0; n <= 80; n++)
        for (size_t e = 4; e <= 8; e += 4) {
            snprintf(what, sizeof what, "special values, %zu bytes, %zu-byte words", n, e);
            roundtrip(c, b + 3, n, e, NULL, what);
        }
    roundtrip(c, b, 4096, 8, NULL, "special values, 4096 bytes");
    /* smooth doubles with noisy low bits in 128 KiB pieces, a rank's and the
     * sum of two ranks' (a reduction's partials): dfcm reaches 1.41 here */
    int ds = compi_dataset_find("double_smooth");
    check(ds >= 0, "double_smooth data set");
    size_t n = (size_t)1 << 17, m = n / 8;
    double *x = malloc(n), *y = malloc(n);
    compi_dataset_fill((size_t)ds, x, n, 1);
    compi_dataset_fill((size_t)ds, y, n, 2);
    size_t z1 = roundtrip(c, x, n, 8, NULL, "double_smooth round trip");
    for (size_t i = 0; i < m; i++) y[i] += x[i];
    size_t z2 = roundtrip(c, y, n, 8, NULL, "double_smooth partial sum round trip");
    snprintf(what, sizeof what, "double_smooth ratio %.2f and its partial sum's %.2f, want >= 1.6",
             z1 ? (double)n / (double)z1 : 0.0, z2 ? (double)n / (double)z2 : 0.0);
    check(z1 && z2 && (double)n >= 1.6 * (double)z1 && (double)n >= 1.6 * (double)z2, what);
    printf("poly-lz4: %s\n", failures ? "failures" : "ok");
    free(w);
    free(b);
    free(x);
    free(y);
    return failures != 0;
}
