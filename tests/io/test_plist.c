/* SPDX-License-Identifier: BSD-3-Clause */
/* Compact piece lists (lib/io/plist.c), MPI-free.
 *   - known encodings, byte for byte (the format of io.h)
 *   - round trips of random lists (irregular, strided, touching pieces, huge
 *     offsets): parse gives back exactly the pieces added (the oracle is the
 *     input list), count, bytes and the encoded size
 *   - sizes: a strided list costs O(1), an irregular one a few bytes a piece
 *     (the old format: 16)
 *   - bad input: every truncation and every single-byte change either fails
 *     or parses into pieces that are valid (inside the window, increasing);
 *     hand-made bad lists (k = 0, len = 0, beyond hi, overlong varint,
 *     counts that disagree) fail; add() refuses overlaps and empty pieces.
 * usage: test_plist [rounds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "common/rng.h"

static int failures;
#define CHECK(c, ...)                                                                   \
    do {                                                                                \
        if (!(c)) {                                                                     \
            failures++;                                                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                 \
            printf(__VA_ARGS__);                                                        \
            printf("\n");                                                               \
        }                                                                               \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) { return compi_rng_next(&rng); }

typedef struct { compi_io_seg *v; size_t n, cap; int64_t lo, hi, prev; int bad; } collect;
static void collect_fn(void *arg, int64_t off, int64_t len)
{
    collect *c = arg;
    if (off < c->lo || len < 1 || off + len > c->hi || off < c->prev) c->bad = 1;
    c->prev = off + len;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        if (!c->v) abort();
    }
    c->v[c->n].off = off;
    c->v[c->n++].len = len;
}

/* Encodes v[0..n) in window lo; returns the malloc'd message, *size. */
static unsigned char *encode(const compi_io_seg *v, size_t n, int64_t lo, size_t *size)
{
    compi_io_plist pl;
    compi_io_plist_init(&pl, lo);
    for (size_t i = 0; i < n; i++)
        if (compi_io_plist_add(&pl, v[i].off, v[i].len) != COMPI_OK) abort();
    if (compi_io_plist_finish(&pl) != COMPI_OK) abort();
    *size = compi_io_plist_size(&pl);
    unsigned char *m = malloc(*size);
    if (!m) abort();
    compi_io_plist_write(&pl, m);
    compi_io_plist_free(&pl);
    return m;
}

static void known(void)
{
    /* three 8-byte pieces 8 apart from lo + 4: one record */
    compi_io_seg v[3] = {{104, 8}, {120, 8}, {136, 8}};
    size_t size;
    unsigned char *m = encode(v, 3, 100, &size);
    const unsigned char want[] = {3, 24, 4, 4, 3, 8, 8};
    CHECK(size == sizeof want && memcmp(m, want, size) == 0, "strided encoding (size %zu)", size);
    free(m);
    /* lengths 300 (varint 0xac 0x02) then 1, a gap of 0 between them */
    compi_io_seg w[2] = {{0, 300}, {300, 1}};
    m = encode(w, 2, 0, &size);
    const unsigned char want2[] = {2, 0xad, 0x02, 7, 0, 1, 0xac, 0x02, 0, 1, 1};
    CHECK(size == sizeof want2 && memcmp(m, want2, size) == 0, "two records (size %zu)", size);
    free(m);
    /* empty list */
    m = encode(NULL, 0, 5, &size);
    const unsigned char want3[] = {0, 0, 0};
    CHECK(size == 3 && memcmp(m, want3, 3) == 0, "empty list");
    int64_t np = -1, nb = -1;
    size_t used = 0;
    CHECK(compi_io_plist_parse(m, size, 5, 5, NULL, NULL, &np, &nb, &used) == COMPI_OK && np == 0 && nb == 0 &&
              used == 3, "empty list parses");
    free(m);
}

static void bad_lists(void)
{
    compi_io_plist pl;
    compi_io_plist_init(&pl, 100);
    CHECK(compi_io_plist_add(&pl, 99, 1) == COMPI_IO_ERR_ARG, "a piece below lo is refused");
    CHECK(compi_io_plist_add(&pl, 100, 0) == COMPI_IO_ERR_ARG, "an empty piece is refused");
    CHECK(compi_io_plist_add(&pl, 100, 10) == COMPI_OK, "first piece");
    CHECK(compi_io_plist_add(&pl, 109, 2) == COMPI_IO_ERR_ARG, "an overlapping piece is refused");
    compi_io_plist_free(&pl);
    struct { const char *what; unsigned char b[16]; size_t n; int64_t lo, hi; } cases[] = {
        {"k = 0", {1, 4, 3, 0, 0, 4}, 6, 0, 100},
        {"len = 0", {1, 0, 3, 0, 1, 0}, 6, 0, 100},
        {"beyond hi", {1, 4, 3, 98, 1, 4}, 6, 0, 100},
        {"one byte beyond hi", {1, 3, 3, 98, 1, 3}, 6, 0, 100},
        {"a gap ending one byte beyond hi", {2, 2, 4, 0, 2, 1, 99}, 7, 0, 100},
        {"count too high", {2, 4, 3, 0, 1, 4}, 6, 0, 100},
        {"bytes disagree", {1, 5, 3, 0, 1, 4}, 6, 0, 100},
        {"body longer than the message", {1, 4, 9, 0, 1, 4}, 6, 0, 100},
        {"truncated varint", {1, 4, 3, 0, 1, 0x84}, 6, 0, 100},
        {"overlong varint", {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0}, 12, 0, 100},
        {"more pieces than the window holds", {101, 101, 0}, 3, 0, 100},
        {"k beyond the count", {1, 8, 4, 0, 2, 4, 0}, 7, 0, 100},
        {"gap beyond hi", {2, 8, 4, 0, 2, 4, 99}, 7, 0, 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(compi_io_plist_parse(cases[i].b, cases[i].n, cases[i].lo, cases[i].hi, NULL, NULL, NULL, NULL, NULL) ==
                  COMPI_IO_ERR_ARG,
              "bad list accepted: %s", cases[i].what);
}

/* A random list in [lo, lo + span): kind 0 irregular, 1 strided runs, 2 touching. */
static size_t random_list(compi_io_seg *v, size_t max, int kind, int64_t lo, int64_t span)
{
    size_t n = 0;
    int64_t at = lo + (int64_t)(next() % 64);
    int64_t len = 1 + (int64_t)(next() % 200), gap = (int64_t)(next() % 300);
    while (n < max) {
        if (kind == 0) len = 1 + (int64_t)(next() % (next() % 2 ? 16 : 5000)), gap = (int64_t)(next() % 1000);
        else if (kind == 1 && next() % 50 == 0) len = 1 + (int64_t)(next() % 200), gap = (int64_t)(next() % 300);
        else if (kind == 2) len = 1 + (int64_t)(next() % 8), gap = next() % 4 ? 0 : (int64_t)(next() % 3);
        if (at + len > lo + span) break;
        v[n].off = at;
        v[n++].len = len;
        at += len + gap;
    }
    return n;
}

static void round_trips(int rounds)
{
    enum { MAX = 4000 };
    compi_io_seg *v = malloc(MAX * sizeof *v);
    if (!v) abort();
    double per_piece[3] = {0, 0, 0};
    size_t pieces[3] = {0, 0, 0};
    for (int r = 0; r < rounds; r++) {
        int kind = r % 3;
        int64_t lo = r % 5 == 4 ? ((int64_t)1 << 50) + (int64_t)(next() % 1000) : (int64_t)(next() % 100000);
        int64_t span = 1 + (int64_t)(next() % (r % 2 ? 4000000 : 20000));
        size_t n = random_list(v, 1 + next() % MAX, kind, lo, span);
        size_t size;
        unsigned char *m = encode(v, n, lo, &size);
        collect c = {NULL, 0, 0, lo, lo + span, lo, 0};
        int64_t np = -1, nb = -1, bytes = 0;
        size_t used = 0;
        /* trailing data after the list is the caller's */
        unsigned char *mt = malloc(size + 7);
        memcpy(mt, m, size);
        memset(mt + size, 0xa5, 7);
        int rc = compi_io_plist_parse(mt, size + 7, lo, lo + span, collect_fn, &c, &np, &nb, &used);
        for (size_t i = 0; i < n; i++) bytes += v[i].len;
        int same = rc == COMPI_OK && c.n == n && !c.bad && np == (int64_t)n && nb == bytes && used == size;
        for (size_t i = 0; same && i < n; i++) same = c.v[i].off == v[i].off && c.v[i].len == v[i].len;
        CHECK(same, "round %d (kind %d, %zu pieces): rc %d, %zu pieces back, used %zu of %zu", r, kind, n, rc, c.n,
              used, size);
        if (n) per_piece[kind] += (double)size / (double)n, pieces[kind]++;
        /* every truncation fails (the body size is in the header) */
        for (size_t t = 0; t < size && r < 60; t++)
            CHECK(compi_io_plist_parse(m, t, lo, lo + span, NULL, NULL, NULL, NULL, NULL) != COMPI_OK,
                  "round %d: a list cut to %zu of %zu bytes parses", r, t, size);
        /* a changed byte fails or stays a valid list */
        for (int f = 0; f < 40 && size; f++) {
            size_t at = next() % size;
            unsigned char old = m[at];
            m[at] ^= (unsigned char)(1 + next() % 255);
            collect d = {NULL, 0, 0, lo, lo + span, lo, 0};
            if (compi_io_plist_parse(m, size, lo, lo + span, collect_fn, &d, &np, &nb, NULL) == COMPI_OK)
                CHECK(!d.bad && (int64_t)d.n == np, "round %d: a changed list parsed into invalid pieces", r);
            free(d.v);
            m[at] = old;
        }
        free(c.v);
        free(m);
        free(mt);
    }
    /* sizes: strided O(1) per run, irregular a few bytes (old format: 16 B a piece) */
    printf("bytes per piece: irregular %.2f, strided %.2f, touching %.2f (the old format: 16)\n",
           per_piece[0] / (double)pieces[0], per_piece[1] / (double)pieces[1], per_piece[2] / (double)pieces[2]);
    CHECK(per_piece[0] / (double)pieces[0] < 8, "irregular lists take %.2f bytes a piece", per_piece[0] / pieces[0]);
    CHECK(per_piece[1] / (double)pieces[1] < 2, "strided lists take %.2f bytes a piece", per_piece[1] / pieces[1]);
    free(v);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    known();
    bad_lists();
    round_trips(rounds);
    if (failures) {
        printf("%d FAILED\n", failures);
        return 1;
    }
    printf("plist: all checks passed (%d rounds)\n", rounds);
    return 0;
}
