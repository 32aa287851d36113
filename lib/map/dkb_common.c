/* SPDX-License-Identifier: BSD-3-Clause */
/* The DKB's shared helpers (map.h, dkb_internal.h): message lists, the
 * collectives' names, the error texts, and the reader of a fixed decision
 * table, which every MPI's table is read by. */
#include <stdlib.h>
#include <string.h>
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* message list */

void compi_map_msgs_free(compi_map_msgs *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

int compi_map_msgs_add(compi_map_msgs *m, int src, int dst, uint64_t bytes)
{
    return compi_map_emit(m, src, dst, bytes);
}

/* ------------------------------------------------------------------ */
/* names, errors */

static const char *const coll_names[COMPI_MAP_NCOLLS] = {
    "bcast",          "reduce",  "allreduce", "alltoall",   "allgather", "gather",   "scatter",
    "reduce_scatter", "barrier", "alltoallv", "allgatherv", "gatherv",   "scatterv", "reduce_scatter_block",
};

const char *compi_map_coll_name(compi_map_coll c)
{
    return (unsigned)c < COMPI_MAP_NCOLLS ? coll_names[c] : "?";
}

int compi_map_coll_parse(const char *name)
{
    for (int i = 0; i < COMPI_MAP_NCOLLS; i++)
        if (name && strcmp(name, coll_names[i]) == 0) return i;
    return -1;
}

const char *compi_map_strerror(int rc)
{
    switch (rc) {
    case 0: return "ok";
    case COMPI_MAP_EARG: return "collective call parameters out of range";
    case COMPI_MAP_EALG: return "no such algorithm for this collective";
    case COMPI_MAP_EUNSUPP: return "the MPI refuses this algorithm for this call";
    case COMPI_MAP_ENOMEM: return "out of memory";
    case COMPI_MAP_ENOTYET: return "collective not decomposed by the DKB yet";
    default: return "unknown DKB error";
    }
}

/* ------------------------------------------------------------------ */
/* fixed decision tables (dkb_internal.h) */

static int size_in_band(int64_t size_lt, int size)
{
    if (size_lt == COMPI_MAP_DEC_EQ2) return size == 2;
    return size_lt == COMPI_MAP_DEC_ANY || size < size_lt;
}

int compi_map_dec_pick(const compi_map_dec_table *t, compi_map_coll coll, int size, uint64_t bytes, int commutative)
{
    int64_t band = 0;
    int have_band = 0;
    for (int i = 0; i < t->n; i++) {
        const compi_map_dec_row *r = &t->rows[i];
        if (r->coll != coll) continue;
        if (r->commute >= 0 && r->commute != (commutative ? 1 : 0)) continue;
        if (!have_band) {
            if (!size_in_band(r->size_lt, size)) continue;
            band = r->size_lt;
            have_band = 1;
        } else if (r->size_lt != band) {
            break;
        }
        if (r->bytes_lt == COMPI_MAP_DEC_ANY || bytes < (uint64_t)r->bytes_lt) return r->alg;
    }
    return -1;
}
