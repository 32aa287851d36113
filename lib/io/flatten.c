/* SPDX-License-Identifier: BSD-3-Clause */
/* Flattening MPI datatypes and file views into byte segments (see io.h).
 * Walks the constructor tree with PMPI_Type_get_envelope/get_contents; a
 * child type is flattened once and its segments replicated per instance
 * (merging makes runs of contiguous children one segment). */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

static int flat(MPI_Datatype type, compi_io_segs *out);

static void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
}

static int extent_of(MPI_Datatype t, int64_t *ext)
{
    MPI_Aint lb, e;
    if (PMPI_Type_get_extent(t, &lb, &e) != MPI_SUCCESS) return COMPI_IO_ERR_MPI;
    *ext = (int64_t)e;
    return COMPI_OK;
}

/* Reads the type map back from MPI_Pack: a buffer whose byte i holds byte p
 * of i, packed once per p, tells where every packed byte came from. */
static int pack_probe(MPI_Datatype type, compi_io_segs *out)
{
    MPI_Aint tlb, text;
    int size;
    if (PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return COMPI_IO_ERR_MPI;
    if (size == 0) return COMPI_OK;
    if ((int64_t)text > COMPI_IO_PACK_PROBE_MAX) return COMPI_IO_ERR_UNSUPPORTED;
    int psize;
    if (PMPI_Pack_size(1, type, MPI_COMM_SELF, &psize) != MPI_SUCCESS) return COMPI_IO_ERR_MPI;
    unsigned char *buf = malloc((size_t)text + 1), *packed = malloc((size_t)psize + 1);
    int64_t *from = calloc((size_t)size, sizeof *from);
    int rc = COMPI_OK;
    if (!buf || !packed || !from) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    int passes = 1;
    while (passes < 8 && ((int64_t)text - 1) >> (8 * passes)) passes++;
    for (int p = 0; p < passes; p++) {
        for (int64_t i = 0; i < (int64_t)text; i++) buf[i] = (unsigned char)(i >> (8 * p));
        int position = 0;
        if (PMPI_Pack(buf - tlb, 1, type, packed, psize, &position, MPI_COMM_SELF) != MPI_SUCCESS) {
            rc = COMPI_IO_ERR_MPI;
            goto done;
        }
        if (position != size) {
            rc = COMPI_IO_ERR_UNSUPPORTED;
            goto done;
        } /* not a native byte copy */
        for (int k = 0; k < size; k++) from[k] |= (int64_t)packed[k] << (8 * p);
    }
    for (int k = 0; k < size && rc == COMPI_OK; k++) rc = compi_io_segs_add(out, (int64_t)tlb + from[k], 1);
done:
    free(buf);
    free(packed);
    free(from);
    return rc;
}

/* Appends count copies of child's segments (already flattened in cs), the
 * i-th at base + i * step. */
static int repeat(compi_io_segs *out, const compi_io_segs *cs, int64_t count, int64_t base, int64_t step)
{
    for (int64_t i = 0; i < count; i++) {
        int rc = compi_io_segs_append(out, cs, base + i * step);
        if (rc != COMPI_OK) return rc;
    }
    return COMPI_OK;
}

/* Subarray: elements in memory order (C: last index fastest; Fortran: first). */
static int subarray(int nd, const int *sizes, const int *subs, const int *starts, int order, const compi_io_segs *cs,
                    int64_t ext, compi_io_segs *out)
{
    if (nd <= 0) return COMPI_IO_ERR_ARG;
    int64_t stride[64];
    int dim[64]; /* dims from slowest to fastest */
    if (nd > 64) return COMPI_IO_ERR_UNSUPPORTED;
    for (int k = 0; k < nd; k++) dim[k] = order == MPI_ORDER_C ? k : nd - 1 - k;
    int64_t acc = ext;
    for (int k = nd - 1; k >= 0; k--) {
        stride[dim[k]] = acc;
        acc *= sizes[dim[k]];
    }
    for (int k = 0; k < nd; k++)
        if (subs[k] == 0) return COMPI_OK;
    int idx[64] = {0};
    for (;;) {
        int64_t off = 0;
        for (int k = 0; k < nd; k++) off += (int64_t)(starts[k] + idx[k]) * stride[k];
        int rc = compi_io_segs_append(out, cs, off);
        if (rc != COMPI_OK) return rc;
        int k = nd - 1;
        while (k >= 0 && ++idx[dim[k]] == subs[dim[k]]) {
            idx[dim[k]] = 0;
            k--;
        }
        if (k < 0) break;
    }
    return COMPI_OK;
}

static int flat_contents(MPI_Datatype type, int comb, int ni, int na, int nd, compi_io_segs *out)
{
    int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd ? nd : 1));
    compi_io_segs cs;
    compi_io_segs_init(&cs);
    int rc = COMPI_OK, got = 0;
    if (!ints || !addrs || !types) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    if (PMPI_Type_get_contents(type, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        rc = COMPI_IO_ERR_MPI;
        goto done;
    }
    got = 1;
    int64_t ext = 0;
    if (comb != MPI_COMBINER_STRUCT) {
        if ((rc = flat(types[0], &cs)) != COMPI_OK || (rc = extent_of(types[0], &ext)) != COMPI_OK) goto done;
    }
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* lb/extent only matter to enclosing types and tiling */
        rc = compi_io_segs_append(out, &cs, 0);
        break;
    case MPI_COMBINER_CONTIGUOUS: rc = repeat(out, &cs, ints[0], 0, ext); break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        int64_t stride = comb == MPI_COMBINER_VECTOR ? (int64_t)ints[2] * ext : (int64_t)addrs[0];
        for (int i = 0; i < ints[0] && rc == COMPI_OK; i++) rc = repeat(out, &cs, ints[1], i * stride, ext);
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {
        int n = ints[0];
        for (int i = 0; i < n && rc == COMPI_OK; i++) {
            int64_t d = comb == MPI_COMBINER_INDEXED ? (int64_t)ints[1 + n + i] * ext : (int64_t)addrs[i];
            rc = repeat(out, &cs, ints[1 + i], d, ext);
        }
        break;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        int n = ints[0];
        for (int i = 0; i < n && rc == COMPI_OK; i++) {
            int64_t d = comb == MPI_COMBINER_INDEXED_BLOCK ? (int64_t)ints[2 + i] * ext : (int64_t)addrs[i];
            rc = repeat(out, &cs, ints[1], d, ext);
        }
        break;
    }
    case MPI_COMBINER_STRUCT: {
        int n = ints[0];
        for (int i = 0; i < n && rc == COMPI_OK; i++) {
            compi_io_segs_free(&cs);
            if ((rc = flat(types[i], &cs)) != COMPI_OK || (rc = extent_of(types[i], &ext)) != COMPI_OK) break;
            rc = repeat(out, &cs, ints[1 + i], (int64_t)addrs[i], ext);
        }
        break;
    }
    case MPI_COMBINER_SUBARRAY: {
        int n = ints[0];
        rc = subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n, ints[1 + 3 * n], &cs, ext, out);
        break;
    }
    default: rc = pack_probe(type, out);
    }
done:
    if (got)
        for (int i = 0; i < nd; i++) free_if_derived(types[i]);
    compi_io_segs_free(&cs);
    free(ints);
    free(addrs);
    free(types);
    return rc;
}

static int flat(MPI_Datatype type, compi_io_segs *out)
{
    int ni, na, nd, comb;
    if (type == MPI_DATATYPE_NULL) return COMPI_IO_ERR_ARG;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS) return COMPI_IO_ERR_MPI;
    if (comb == MPI_COMBINER_NAMED) {
        MPI_Aint tlb, text;
        int size;
        if (PMPI_Type_get_true_extent(type, &tlb, &text) != MPI_SUCCESS || PMPI_Type_size(type, &size) != MPI_SUCCESS)
            return COMPI_IO_ERR_MPI;
        if ((MPI_Aint)size == text) return compi_io_segs_add(out, (int64_t)tlb, size);
        return pack_probe(type, out); /* pair types with padding, MPI_LB/UB-like markers */
    }
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_SUBARRAY: return flat_contents(type, comb, ni, na, nd, out);
    default: /* darray, F90 parameterised types, the deprecated _INTEGER forms */ return pack_probe(type, out);
    }
}

int compi_io_flatten_type(MPI_Datatype type, compi_io_segs *out)
{
    if (!out) return COMPI_IO_ERR_ARG;
    return flat(type, out);
}

int compi_io_flatten_memory(MPI_Datatype type, int count, compi_io_segs *out)
{
    if (!out || count < 0) return COMPI_IO_ERR_ARG;
    compi_io_segs one;
    compi_io_segs_init(&one);
    int64_t ext;
    int rc = flat(type, &one);
    if (rc == COMPI_OK) rc = extent_of(type, &ext);
    if (rc == COMPI_OK) rc = repeat(out, &one, count, 0, ext);
    compi_io_segs_free(&one);
    return rc;
}

int compi_io_flatten_view(MPI_Offset disp, MPI_Datatype filetype, int64_t pos, int64_t nbytes, compi_io_segs *out)
{
    if (!out || pos < 0 || nbytes < 0) return COMPI_IO_ERR_ARG;
    compi_io_segs ft;
    compi_io_segs_init(&ft);
    int64_t ext;
    int rc = flat(filetype, &ft);
    if (rc == COMPI_OK) rc = extent_of(filetype, &ext);
    if (rc == COMPI_OK) rc = compi_io_view_segments((int64_t)disp, &ft, ext, pos, nbytes, out);
    compi_io_segs_free(&ft);
    return rc;
}
