/* SPDX-License-Identifier: BSD-3-Clause */
/* Byte segment lists of lib/io (see io.h). MPI-free. */
#include "io/io.h"

#include <stdlib.h>

void compi_io_segs_init(compi_io_segs *s)
{
    s->v = NULL;
    s->n = s->cap = 0;
    s->bytes = 0;
}

void compi_io_segs_free(compi_io_segs *s)
{
    free(s->v);
    compi_io_segs_init(s);
}

int compi_io_segs_add(compi_io_segs *s, int64_t off, int64_t len)
{
    if (len < 0) return COMPI_IO_ERR_ARG;
    if (len == 0) return COMPI_OK;
    if (s->n && s->v[s->n - 1].off + s->v[s->n - 1].len == off) {
        s->v[s->n - 1].len += len;
        s->bytes += len;
        return COMPI_OK;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        compi_io_seg *v = realloc(s->v, cap * sizeof *v);
        if (!v) return COMPI_ERR_NOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].off = off;
    s->v[s->n].len = len;
    s->n++;
    s->bytes += len;
    return COMPI_OK;
}

int compi_io_segs_append(compi_io_segs *s, const compi_io_segs *src, int64_t delta)
{
    for (size_t k = 0; k < src->n; k++) {
        int rc = compi_io_segs_add(s, src->v[k].off + delta, src->v[k].len);
        if (rc != COMPI_OK) return rc;
    }
    return COMPI_OK;
}

int compi_io_view_segments(int64_t disp, const compi_io_segs *ft, int64_t ft_extent, int64_t pos, int64_t nbytes,
                           compi_io_segs *out)
{
    if (pos < 0 || nbytes < 0 || !ft || !out) return COMPI_IO_ERR_ARG;
    if (nbytes == 0) return COMPI_OK;
    int64_t tile = ft->bytes;
    if (tile <= 0) return COMPI_IO_ERR_ARG;
    int64_t t = pos / tile, q = pos % tile;
    /* the segment of the filetype where byte q of a tile lies */
    size_t k = 0;
    while (q >= ft->v[k].len) {
        q -= ft->v[k].len;
        k++;
    }
    while (nbytes > 0) {
        int64_t take = ft->v[k].len - q;
        if (take > nbytes) take = nbytes;
        int rc = compi_io_segs_add(out, disp + t * ft_extent + ft->v[k].off + q, take);
        if (rc != COMPI_OK) return rc;
        nbytes -= take;
        q = 0;
        if (++k == ft->n) {
            k = 0;
            t++;
        }
    }
    return COMPI_OK;
}
