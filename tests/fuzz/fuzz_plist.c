/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: compact piece lists (lib/io/plist.c), the two-phase
 * metadata an aggregator parses from other processes.
 *
 * Input: [0] mode, [1..2] window size hi - lo (16 bits LE, lo from [3]), then bytes.
 *   parse mode (bit 0 clear): the bytes are a piece list as it arrived:
 *       parsing must return COMPI_OK or COMPI_IO_ERR_ARG, never read
 *       outside them; an accepted list has pieces inside [lo, hi),
 *       increasing, lengths >= 1, as many as it says; re-encoding those
 *       pieces must parse back to the same pieces (round-trip oracle)
 *   build mode (bit 0 set): the bytes, two at a time, are (gap, len - 1)
 *       of pieces laid out from lo; encoded, the list must parse back to
 *       exactly them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io.h"

typedef struct { compi_io_seg *v; size_t n, cap; int64_t lo, hi, prev; } fz_collect;
static void fz_collect_fn(void *arg, int64_t off, int64_t len)
{
    fz_collect *c = arg;
    if (off < c->lo || len < 1 || off + len > c->hi || off < c->prev) {
        fprintf(stderr, "parsed piece (%lld, %lld) outside [%lld, %lld) or overlapping\n", (long long)off,
                (long long)len, (long long)c->lo, (long long)c->hi);
        abort();
    }
    c->prev = off + len;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        if (!c->v) abort();
    }
    c->v[c->n].off = off;
    c->v[c->n++].len = len;
}

/* Encodes v, parses it back, compares. */
static void fz_roundtrip(const compi_io_seg *v, size_t n, int64_t lo, int64_t hi)
{
    compi_io_plist pl;
    compi_io_plist_init(&pl, lo);
    for (size_t i = 0; i < n; i++)
        if (compi_io_plist_add(&pl, v[i].off, v[i].len) != COMPI_OK) abort();
    if (compi_io_plist_finish(&pl) != COMPI_OK) abort();
    size_t size = compi_io_plist_size(&pl);
    unsigned char *m = malloc(size);
    if (!m) abort();
    compi_io_plist_write(&pl, m);
    fz_collect c = {NULL, 0, 0, lo, hi, lo};
    int64_t np;
    size_t used;
    if (compi_io_plist_parse(m, size, lo, hi, fz_collect_fn, &c, &np, NULL, &used) != COMPI_OK || c.n != n ||
        np != (int64_t)n || used != size) {
        fprintf(stderr, "round trip of %zu pieces failed\n", n);
        abort();
    }
    for (size_t i = 0; i < n; i++)
        if (c.v[i].off != v[i].off || c.v[i].len != v[i].len) abort();
    free(c.v);
    free(m);
    compi_io_plist_free(&pl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    int build = data[0] & 1;
    int64_t span = (int64_t)data[1] | (int64_t)data[2] << 8;
    int64_t lo = (int64_t)data[3] << (data[0] & 0x80 ? 40 : 4);
    int64_t hi = lo + span;
    const uint8_t *b = data + 4;
    size_t n = size - 4;
    if (!build) {
        unsigned char *msg = malloc(n ? n : 1);   /* exact size: ASan sees any overread */
        if (!msg) abort();
        memcpy(msg, b, n);
        fz_collect c = {NULL, 0, 0, lo, hi, lo};
        int64_t np = -1;
        int rc = compi_io_plist_parse(msg, n, lo, hi, fz_collect_fn, &c, &np, NULL, NULL);
        if (rc != COMPI_OK && rc != COMPI_IO_ERR_ARG) abort();
        if (rc == COMPI_OK) {
            if (np != (int64_t)c.n) abort();
            fz_roundtrip(c.v, c.n, lo, hi);
        }
        free(c.v);
        free(msg);
        return 0;
    }
    compi_io_seg *v = malloc(sizeof *v * (n / 2 + 1));
    if (!v) abort();
    size_t k = 0;
    int64_t at = lo;
    for (size_t i = 0; i + 1 < n; i += 2) {
        at += b[i];
        int64_t len = (int64_t)b[i + 1] + 1;
        v[k].off = at;
        v[k++].len = len;
        at += len;
    }
    fz_roundtrip(v, k, lo, at > lo ? at : lo);
    free(v);
    return 0;
}
