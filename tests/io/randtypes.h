/* SPDX-License-Identifier: BSD-3-Clause */
/* Random MPI datatypes for the lib/io tests (flatten_view.c, io_collective.c):
 * gen() draws nested filetypes (mono: nonnegative, increasing, well tiled)
 * or memory types; typemap() reads a type map back from MPI_Pack;
 * valid_filetype / valid_memtype reject the generator's rare slips. */
#ifndef COMPI_TESTS_IO_RANDTYPES_H
#define COMPI_TESTS_IO_RANDTYPES_H
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
static uint64_t rs;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static int rr(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }   /* [lo, hi] */

typedef struct { MPI_Aint lb, ext, tlb, text; } tinfo;
static tinfo info_of(MPI_Datatype t)
{
    tinfo i;
    MPI_Type_get_extent(t, &i.lb, &i.ext);
    MPI_Type_get_true_extent(t, &i.tlb, &i.text);
    return i;
}

static void free_type(MPI_Datatype *t);
static MPI_Datatype commit(MPI_Datatype t) { MPI_Type_commit(&t); return t; }

/* Random type. mono: type map nonnegative, nondecreasing, non-overlapping, and
 * "well tiled" (true range inside [lb, lb + extent)), as a filetype needs;
 * otherwise memory type (any order, overlaps allowed). Derived results are
 * committed; the caller frees them. */
static MPI_Datatype gen(int depth, int mono)
{
    static const MPI_Datatype leaves[] = {MPI_BYTE, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    int kind = depth <= 0 ? 0 : rr(0, 12);
    if (kind == 0) return leaves[rr(0, 3)];
    MPI_Datatype c = gen(depth - 1, mono), t = MPI_DATATYPE_NULL;
    tinfo ci = info_of(c);
    if (mono && ci.ext <= 0) {   /* an empty child: placing by extent needs one > 0 */
        free_type(&c);
        c = MPI_BYTE;
        ci = info_of(c);
    }
    /* smallest multiple k of ext with k*ext + tlb >= cursor */
    #define AT_LEAST(cursor, tlb, ext) ((((cursor) - (tlb)) + (ext) - 1) / (ext) > 0 ? (((cursor) - (tlb)) + (ext) - 1) / (ext) : 0)
    switch (kind) {
    case 1:
        MPI_Type_contiguous(rr(1, 4), c, &t);
        break;
    case 2: {
        int bl = rr(1, 3);
        /* no negative vector strides: Open MPI 4.1.4 gives vector(3, 1, -1,
         * MPI_BYTE) lb 0 (not -2) and packs it as bytes 0, 1, 2 */
        MPI_Type_vector(rr(1, 4), bl, mono ? bl + rr(0, 3) : rr(0, 5), c, &t);
        break;
    }
    case 3: {
        int bl = rr(1, 3);
        MPI_Aint stride = mono ? bl * ci.ext + rr(0, 9) : rr(-20, 40);
        MPI_Type_create_hvector(rr(1, 4), bl, stride, c, &t);
        break;
    }
    case 4: case 5: case 6: case 7: {   /* indexed, hindexed, indexed_block, hindexed_block */
        int n = rr(1, 4), bl[4], d[4];
        MPI_Aint ad[4];
        int64_t cursor = 0;
        int same = rr(1, 3);
        for (int i = 0; i < n; i++) {
            bl[i] = (kind >= 6) ? same : rr(0, 3);
            if (mono) {
                if (kind == 4 || kind == 6) {
                    d[i] = (int)AT_LEAST(cursor, ci.tlb, ci.ext) + rr(0, 2);
                    ad[i] = (MPI_Aint)d[i] * ci.ext;
                } else {
                    ad[i] = (MPI_Aint)(cursor - ci.tlb) + rr(0, 7);
                    if (ad[i] < 0) ad[i] = 0;
                }
                if (bl[i] > 0) cursor = ad[i] + ci.tlb + (bl[i] - 1) * ci.ext + ci.text;
            } else {
                d[i] = rr(-2, 6);
                ad[i] = rr(-16, 48);
            }
        }
        if (kind == 4) MPI_Type_indexed(n, bl, d, c, &t);
        else if (kind == 5) MPI_Type_create_hindexed(n, bl, ad, c, &t);
        else if (kind == 6) MPI_Type_create_indexed_block(n, same, d, c, &t);
        else MPI_Type_create_hindexed_block(n, same, ad, c, &t);
        break;
    }
    case 8: {   /* struct of up to three different children */
        int n = rr(1, 3), bl[3];
        MPI_Aint ad[3];
        MPI_Datatype ts[3];
        int64_t cursor = 0;
        ts[0] = c;
        for (int i = 0; i < n; i++) {
            if (i > 0) ts[i] = gen(depth - 1, mono);
            tinfo ti = info_of(ts[i]);
            bl[i] = rr(1, 3);
            ad[i] = mono ? (MPI_Aint)(cursor - ti.tlb) + rr(0, 5) : rr(-8, 40);
            if (mono && ad[i] + ti.tlb < 0) ad[i] = -ti.tlb;
            cursor = ad[i] + ti.tlb + (bl[i] - 1) * ti.ext + ti.text;
        }
        MPI_Type_create_struct(n, bl, ad, ts, &t);
        for (int i = 1; i < n; i++) if (ts[i] != MPI_BYTE && ts[i] != MPI_SHORT && ts[i] != MPI_INT && ts[i] != MPI_DOUBLE) MPI_Type_free(&ts[i]);
        break;
    }
    case 9: {   /* subarray, C or Fortran order */
        int nd = rr(1, 3), sizes[3], subs[3], starts[3];
        for (int k = 0; k < nd; k++) {
            sizes[k] = rr(1, 5);
            subs[k] = rr(1, sizes[k]);
            starts[k] = rr(0, sizes[k] - subs[k]);
        }
        if (ci.tlb < ci.lb || ci.tlb + ci.text > ci.lb + ci.ext || ci.lb != 0) {   /* subarray needs a well-tiled child */
            MPI_Type_contiguous(1, c, &t);
            break;
        }
        MPI_Type_create_subarray(nd, sizes, subs, starts, rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, c, &t);
        break;
    }
    case 10: {   /* darray: one rank's piece of a small global array */
        int nd = rr(1, 2), g[2], dist[2], darg[2], ps[2], nprocs = 1;
        for (int k = 0; k < nd; k++) {
            g[k] = rr(2, 8);
            ps[k] = rr(1, 2);
            nprocs *= ps[k];
            int m = rr(0, 2);
            dist[k] = m == 0 ? MPI_DISTRIBUTE_BLOCK : m == 1 ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_NONE;
            if (dist[k] == MPI_DISTRIBUTE_NONE) ps[k] = 1;
            darg[k] = dist[k] == MPI_DISTRIBUTE_CYCLIC && rr(0, 1) ? rr(1, 2) : MPI_DISTRIBUTE_DFLT_DARG;
        }
        nprocs = 1;
        for (int k = 0; k < nd; k++) nprocs *= ps[k];
        if (ci.tlb < 0 || ci.lb != 0 || ci.tlb + ci.text > ci.ext) { MPI_Type_dup(c, &t); break; }
        if (MPI_Type_create_darray(nprocs, rr(0, nprocs - 1), nd, g, dist, darg, ps,
                                   rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, c, &t) != MPI_SUCCESS)
            MPI_Type_dup(c, &t);
        break;
    }
    case 11: {   /* resized: larger extent, lb 0 or the true lb */
        MPI_Aint lb = mono ? (rr(0, 1) ? 0 : (ci.tlb < 0 ? ci.tlb : ci.tlb)) : rr(-8, 8);
        if (mono && lb > ci.tlb) lb = ci.tlb;
        MPI_Aint ext = ci.tlb + ci.text - lb + rr(0, 9);
        if (!mono) ext = rr(1, 64);
        MPI_Type_create_resized(c, lb, ext, &t);
        break;
    }
    default:
        MPI_Type_dup(c, &t);
    }
    if (c != MPI_BYTE && c != MPI_SHORT && c != MPI_INT && c != MPI_DOUBLE) MPI_Type_free(&c);
    return commit(t);
}

/* The type map of t read back from MPI_Pack, independently of lib/io: a
 * buffer whose bytes hold their index (low byte, then high byte pass).
 * Returns the byte positions (relative to the buffer) or NULL when the true
 * extent exceeds 64 KiB. */
static int *typemap(MPI_Datatype t, int *n)
{
    tinfo i = info_of(t);
    int size, psize, pos;
    MPI_Type_size(t, &size);
    *n = size;
    if (i.text > 65536) return NULL;
    MPI_Pack_size(1, t, MPI_COMM_SELF, &psize);
    unsigned char *b = malloc(65536), *p = malloc((size_t)psize + 1), *q = malloc((size_t)psize + 1);
    int *map = malloc(sizeof(int) * ((size_t)size + 1));
    for (int k = 0; k < 65536; k++) b[k] = (unsigned char)k;
    pos = 0;
    MPI_Pack(b - i.tlb, 1, t, p, psize, &pos, MPI_COMM_SELF);
    for (int k = 0; k < 65536; k++) b[k] = (unsigned char)(k >> 8);
    pos = 0;
    MPI_Pack(b - i.tlb, 1, t, q, psize, &pos, MPI_COMM_SELF);
    for (int k = 0; k < size; k++) map[k] = (int)i.tlb + (p[k] | q[k] << 8);
    free(b); free(p); free(q);
    return map;
}

/* The generator's promise for filetypes: nonnegative, increasing. */
static int valid_filetype(MPI_Datatype t)
{
    int n, ok = 1;
    int *m = typemap(t, &n);
    if (!m) return 0;
    for (int k = 0; k < n && ok; k++)
        if (m[k] < 0 || (k > 0 && m[k] <= m[k - 1])) ok = 0;
    free(m);
    return ok;
}

/* Memory types may go in any order, but no byte twice: Open MPI 4.1.4's
 * MPI_Pack and OMPIO do not follow the type map order when blocks overlap
 * (hvector(2, 2, -1, MPI_DOUBLE) packs bytes 0-15 then 15, not -1-14), so
 * overlapping memory types are redrawn. MPI's pack cannot tell overlap here
 * (it is what misbehaves), so the check uses lib/io's segments: a flattening
 * bug could only make it skip a type, never hide a difference. */
static int cmp_seg(const void *x, const void *y)
{
    const compi_io_seg *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

static int valid_memtype(MPI_Datatype t)
{
    compi_io_segs sg;
    compi_io_segs_init(&sg);
    if (compi_io_flatten_type(t, &sg) != COMPI_OK) return 0;
    if (sg.n > 1) qsort(sg.v, sg.n, sizeof *sg.v, cmp_seg);
    int ok = 1;
    for (size_t k = 1; k < sg.n && ok; k++)
        if (sg.v[k].off < sg.v[k - 1].off + sg.v[k - 1].len) ok = 0;
    compi_io_segs_free(&sg);
    return ok;
}

static void print_type(MPI_Datatype t, int ind)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    tinfo i = info_of(t);
    fprintf(stderr, "%*scombiner %d lb %ld ext %ld tlb %ld text %ld", ind, "", comb, (long)i.lb, (long)i.ext, (long)i.tlb, (long)i.text);
    if (comb == MPI_COMBINER_NAMED) { fprintf(stderr, "\n"); return; }
    int ints[64]; MPI_Aint ad[64]; MPI_Datatype ts[16];
    if (ni > 64 || na > 64 || nd > 16) { fprintf(stderr, " (big)\n"); return; }
    MPI_Type_get_contents(t, ni, na, nd, ints, ad, ts);
    fprintf(stderr, " ints");
    for (int k = 0; k < ni; k++) fprintf(stderr, " %d", ints[k]);
    fprintf(stderr, " addrs");
    for (int k = 0; k < na; k++) fprintf(stderr, " %ld", (long)ad[k]);
    fprintf(stderr, "\n");
    for (int k = 0; k < nd; k++) print_type(ts[k], ind + 2);
}

static void free_type(MPI_Datatype *t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED) MPI_Type_free(t);
}

#pragma GCC diagnostic pop
#endif
