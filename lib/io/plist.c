/* SPDX-License-Identifier: BSD-3-Clause */
/* Compact piece lists (see io.h, "plist.c"). MPI-free. */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

/* LEB128: 7 bits a byte, low first; at most 10 bytes for 64 bits. */
static size_t compi_plist_put(unsigned char *o, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        o[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    o[n++] = (unsigned char)v;
    return n;
}

/* Reads one varint below 2^63 (a nonnegative int64_t); 0 on a truncated or
 * overlong one. */
static int compi_plist_get(const unsigned char **p, const unsigned char *end, int64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 63; shift += 7) {
        if (*p >= end) return 0;
        unsigned char b = *(*p)++;
        if (shift == 56 && b > 0x7f) return 0; /* would need bit 63 */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (int64_t)v;
            return 1;
        }
    }
    return 0;
}

void compi_io_plist_init(compi_io_plist *pl, int64_t lo)
{
    memset(pl, 0, sizeof *pl);
    pl->lo = lo;
    pl->end = lo;
}

void compi_io_plist_free(compi_io_plist *pl)
{
    free(pl->body);
    pl->body = NULL;
    pl->len = pl->cap = 0;
}

/* Appends the pending record (delta, k, len[, gap]). */
static int compi_plist_flush(compi_io_plist *pl)
{
    if (pl->rk == 0) return COMPI_OK;
    if (pl->cap - pl->len < 40) {
        size_t nc = pl->cap ? 2 * pl->cap : 256;
        unsigned char *nb = realloc(pl->body, nc);
        if (!nb) return COMPI_ERR_NOMEM;
        pl->body = nb;
        pl->cap = nc;
    }
    unsigned char *o = pl->body + pl->len;
    size_t n = compi_plist_put(o, (uint64_t)pl->rdelta);
    n += compi_plist_put(o + n, (uint64_t)pl->rk);
    n += compi_plist_put(o + n, (uint64_t)pl->rlen);
    if (pl->rk > 1) n += compi_plist_put(o + n, (uint64_t)pl->rgap);
    pl->len += n;
    pl->rk = 0;
    return COMPI_OK;
}

int compi_io_plist_add(compi_io_plist *pl, int64_t off, int64_t len)
{
    if (len <= 0 || off < pl->end) return COMPI_IO_ERR_ARG;
    int64_t gap = off - pl->end;
    if (pl->rk > 0 && len == pl->rlen && (pl->rk == 1 || gap == pl->rgap)) {
        if (pl->rk == 1) pl->rgap = gap;
        pl->rk++;
    } else {
        int rc = compi_plist_flush(pl);
        if (rc != COMPI_OK) return rc;
        pl->rdelta = gap;
        pl->rk = 1;
        pl->rlen = len;
        pl->rgap = 0;
    }
    pl->end = off + len;
    pl->n++;
    pl->bytes += len;
    return COMPI_OK;
}

int compi_io_plist_finish(compi_io_plist *pl)
{
    int rc = compi_plist_flush(pl);
    if (rc != COMPI_OK) return rc;
    unsigned char *o = pl->head;
    size_t n = compi_plist_put(o, (uint64_t)pl->n);
    n += compi_plist_put(o + n, (uint64_t)pl->bytes);
    n += compi_plist_put(o + n, (uint64_t)pl->len);
    pl->head_len = n;
    return COMPI_OK;
}

size_t compi_io_plist_size(const compi_io_plist *pl)
{
    return pl->head_len + pl->len;
}

void compi_io_plist_write(const compi_io_plist *pl, unsigned char *out)
{
    memcpy(out, pl->head, pl->head_len);
    if (pl->len) memcpy(out + pl->head_len, pl->body, pl->len);
}

int compi_io_plist_parse(const unsigned char *p, size_t size, int64_t lo, int64_t hi, compi_io_plist_fn fn, void *arg,
                         int64_t *np, int64_t *bytes, size_t *used)
{
    const unsigned char *q = p, *end = p + size;
    int64_t n, total, body;
    if (lo < 0 || hi < lo) return COMPI_IO_ERR_ARG;
    if (!compi_plist_get(&q, end, &n) || !compi_plist_get(&q, end, &total) || !compi_plist_get(&q, end, &body))
        return COMPI_IO_ERR_ARG;
    /* pieces of at least one byte, increasing, inside [lo, hi) */
    if (n > hi - lo || total > hi - lo || total < n || body > end - q) return COMPI_IO_ERR_ARG;
    const unsigned char *bend = q + body;
    int64_t pos = lo, count = 0, sum = 0;
    while (q < bend) {
        int64_t delta, k, len, gap = 0;
        if (!compi_plist_get(&q, bend, &delta) || !compi_plist_get(&q, bend, &k) || !compi_plist_get(&q, bend, &len))
            return COMPI_IO_ERR_ARG;
        if (k < 1 || len < 1 || k > n - count) return COMPI_IO_ERR_ARG;
        if (k > 1 && !compi_plist_get(&q, bend, &gap)) return COMPI_IO_ERR_ARG;
        if (delta > hi - pos) return COMPI_IO_ERR_ARG;
        pos += delta;
        for (int64_t i = 0; i < k; i++) {
            if (len > hi - pos) return COMPI_IO_ERR_ARG;
            if (fn) fn(arg, pos, len);
            pos += len;
            sum += len;
            count++;
            if (i + 1 < k) {
                if (gap > hi - pos) return COMPI_IO_ERR_ARG;
                pos += gap;
            }
        }
    }
    if (count != n || sum != total) return COMPI_IO_ERR_ARG;
    if (np) *np = n;
    if (bytes) *bytes = total;
    if (used) *used = (size_t)(bend - p);
    return COMPI_OK;
}
