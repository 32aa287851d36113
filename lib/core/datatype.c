/* SPDX-License-Identifier: BSD-3-Clause */
/* Application datatypes as compi sees them: the class a codec is chosen
 * for, size and contiguity (compi_typeinfo), packing to and from bytes, and
 * the references compi keeps on datatypes that outlive the call that gave
 * them (MPI_Type_free must not pull a type away from a pending operation). */
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/state.h"

static compi_dtclass compi_class_of_named(MPI_Datatype dt, size_t *elem)
{
    if (dt == MPI_DOUBLE || dt == MPI_DOUBLE_PRECISION || dt == MPI_REAL8) {
        *elem = 8;
        return COMPI_CLASS_DOUBLE;
    }
    if (dt == MPI_FLOAT || dt == MPI_REAL || dt == MPI_REAL4) {
        *elem = 4;
        return COMPI_CLASS_FLOAT;
    }
    if (dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_INT32_T || dt == MPI_UINT32_T || dt == MPI_INTEGER ||
        dt == MPI_INTEGER4) {
        *elem = 4;
        return COMPI_CLASS_INT;
    }
    int sz = 1;
    PMPI_Type_size(dt, &sz);
    *elem = (sz == 2 || sz == 4 || sz == 8) ? (size_t)sz : 1;
    return COMPI_CLASS_BYTE;
}

/* One walk of a derived type's tree gives two facts:
 *  - the class a codec is chosen for: homogeneous types resolve to their
 *    base class, anything mixed is "byte". A hint, never needed for
 *    correctness, so it gives up ("byte") on deep or wide trees;
 *  - whether a basic element is wider than COMPI_PARTIAL_ELEM_MAX bytes.
 *    Open MPI 4.1 places a basic element that a message splits through two
 *    16-byte scratch arrays (opal_unpack_partial_datatype): one ending inside
 *    a wider element (long double complex, 32 bytes) overruns them and the
 *    process aborts (measured: 37 bytes into an indexed type of
 *    MPI_C_LONG_DOUBLE_COMPLEX; 16-byte long doubles are placed right).
 *    Needed for correctness, so it walks past the class's limits and says
 *    "wide" only when it cannot tell (staging costs a copy, never a byte). */
#define COMPI_CLASS_MAX_DEPTH 4
#define COMPI_WIDE_MAX_DEPTH 32
static compi_dtclass compi_type_walk(MPI_Datatype dt, size_t *elem, int *wide, int depth)
{
    int ni, na, nd, combiner;
    *elem = 1;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) {
        *wide = 1;
        return COMPI_CLASS_BYTE;
    }
    if (combiner == MPI_COMBINER_NAMED) {
        /* pair types wider than that (MPI_LONG_DOUBLE_INT) count as wide */
        int size = 0;
        PMPI_Type_size(dt, &size);
        *wide = size > COMPI_PARTIAL_ELEM_MAX;
        return compi_class_of_named(dt, elem);
    }
    *wide = 1;
    if (depth > COMPI_WIDE_MAX_DEPTH) return COMPI_CLASS_BYTE;
    int class_ok = depth <= COMPI_CLASS_MAX_DEPTH && nd <= 16 && ni <= 4096 && na <= 4096;
    /* small trees (nearly all) on the stack, big indexed ones on the heap */
    int ints_s[64];
    MPI_Aint addrs_s[64];
    MPI_Datatype types_s[16];
    int *ints = ni <= 64 ? ints_s : malloc(sizeof(int) * (size_t)ni);
    MPI_Aint *addrs = na <= 64 ? addrs_s : malloc(sizeof(MPI_Aint) * (size_t)na);
    MPI_Datatype *types = nd <= 16 ? types_s : malloc(sizeof(MPI_Datatype) * (size_t)nd);
    compi_dtclass cls = COMPI_CLASS_COUNT;
    if (ints && addrs && types && PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) == MPI_SUCCESS) {
        *wide = 0;
        for (int i = 0; i < nd; i++) {
            size_t ei = 1;
            int wi = 0;
            /* once wide, the rest only needs freeing */
            compi_dtclass c = *wide && !class_ok ? COMPI_CLASS_BYTE : compi_type_walk(types[i], &ei, &wi, depth + 1);
            *wide |= wi;
            int a, b, e, comb;
            PMPI_Type_get_envelope(types[i], &a, &b, &e, &comb);
            if (comb != MPI_COMBINER_NAMED) PMPI_Type_free(&types[i]);
            if (cls == COMPI_CLASS_COUNT) {
                cls = c;
                *elem = ei;
            } else if (cls != c || *elem != ei) cls = COMPI_CLASS_BYTE, *elem = 1;
        }
    }
    if (ints != ints_s) free(ints);
    if (addrs != addrs_s) free(addrs);
    if (types != types_s) free(types);
    if (!class_ok || cls == COMPI_CLASS_COUNT) {
        *elem = 1;
        return COMPI_CLASS_BYTE;
    }
    return cls;
}

void compi_typeinfo_get(MPI_Datatype dt, int count, compi_typeinfo *ti)
{
    MPI_Count tsize = 0, lb, extent, tlb, textent;
    int ni, na, nd, combiner;
    /* Predefined types (the common case) skip the derived-type walk. Not all
     * are contiguous: the pair types (MPI_DOUBLE_INT, ...) have holes. */
    int named = PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
    PMPI_Type_size_x(dt, &tsize);
    PMPI_Type_get_extent_x(dt, &lb, &extent);
    PMPI_Type_get_true_extent_x(dt, &tlb, &textent);
    ti->size = tsize * (MPI_Count)(count > 0 ? count : 0);
    ti->type_size = tsize;
    ti->true_lb = (MPI_Aint)tlb;
    ti->contiguous = count <= 0 || tsize == 0 || (tsize == textent && (count == 1 || extent == tsize));
    if (named) {
        ti->dtclass = compi_class_of_named(dt, &ti->elem_size);
        ti->wide = tsize > COMPI_PARTIAL_ELEM_MAX;
    } else ti->dtclass = compi_type_walk(dt, &ti->elem_size, &ti->wide, 0);
}

/* MPICH refuses a null buffer in MPI_Pack/MPI_Unpack, and MPI_BOTTOM is null
 * there: name the same bytes relative to the type's true lower bound. */
static int compi_bottom_shift(int count, MPI_Datatype dt, void **base, MPI_Datatype *shifted)
{
    MPI_Aint tlb, textent, disp;
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    disp = -tlb;
    int rc = PMPI_Type_create_struct(1, &count, &disp, &dt, shifted);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(shifted);
    *base = (void *)tlb;
    return rc;
}

/* MPI_Pack and MPI_Unpack count bytes in an int: beyond compi_int_limit()
 * the bytes are moved by a message to self between (buf,count,dt) and the
 * bytes as compi_bytes_type describes them, which has no such limit (and
 * takes MPI_BOTTOM as it is). */
static int compi_self_move(const void *from, int fcount, MPI_Datatype ftype, void *to, int tcount, MPI_Datatype ttype)
{
    MPI_Status st;
    return PMPI_Sendrecv(from, fcount, ftype, 0, 0, to, tcount, ttype, 0, 0, compi_g.self_comm, &st);
}

static int compi_pack_large(const void *buf, int count, MPI_Datatype dt, void *bytes, size_t n, int unpack)
{
    int bcount;
    MPI_Datatype btype;
    int rc = compi_bytes_type(n, &bcount, &btype);
    if (rc != MPI_SUCCESS) return rc;
    rc = unpack ? compi_self_move(bytes, bcount, btype, (void *)buf, count, dt)
                : compi_self_move(buf, count, dt, bytes, bcount, btype);
    compi_bytes_type_free(&btype);
    return rc;
}

int compi_pack_bytes(const void *buf, int count, MPI_Datatype dt, void *dst, size_t size)
{
    int pos = 0;
    if (size > compi_int_limit()) return compi_pack_large(buf, count, dt, dst, size, 0);
    if (buf != MPI_BOTTOM || count == 0) return PMPI_Pack(buf, count, dt, dst, (int)size, &pos, MPI_COMM_SELF);
    void *base;
    MPI_Datatype shifted;
    int rc = compi_bottom_shift(count, dt, &base, &shifted);
    if (rc == MPI_SUCCESS) rc = PMPI_Pack(base, 1, shifted, dst, (int)size, &pos, MPI_COMM_SELF);
    PMPI_Type_free(&shifted);
    return rc;
}

/* Local unpack of a byte stream into (buf,count,dt). Whole elements go
 * through MPI_Unpack; a trailing partial element (a receive that got fewer
 * basic elements than its type holds) is placed by a self-message, which does
 * exactly what a receive would. */
int compi_unpack_bytes(const void *src, size_t nbytes, void *buf, int count, MPI_Datatype dt)
{
    MPI_Count tsize = 0;
    PMPI_Type_size_x(dt, &tsize);
    MPI_Count whole = tsize > 0 ? (MPI_Count)nbytes / tsize : 0;
    if (whole > count) whole = count;
    if (nbytes > compi_int_limit()) /* a receive places a partial element as this must */
        return compi_pack_large(buf, count, dt, (void *)src, nbytes, 1);
    int pos = 0, rc = MPI_SUCCESS;
    if (whole > 0 && buf == MPI_BOTTOM) {
        void *base;
        MPI_Datatype shifted;
        rc = compi_bottom_shift((int)whole, dt, &base, &shifted);
        if (rc == MPI_SUCCESS) rc = PMPI_Unpack(src, (int)nbytes, &pos, base, 1, shifted, compi_g.self_comm);
        PMPI_Type_free(&shifted);
        return rc;
    }
    if (whole > 0) rc = PMPI_Unpack(src, (int)nbytes, &pos, buf, (int)whole, dt, compi_g.self_comm);
    size_t rest = nbytes - (size_t)pos;
    if (rc == MPI_SUCCESS && rest > 0 && whole < count) {
        MPI_Aint lb, extent;
        MPI_Status st;
        PMPI_Type_get_extent(dt, &lb, &extent);
        rc = PMPI_Sendrecv((const char *)src + pos, (int)rest, MPI_BYTE, 0, 0, (char *)buf + whole * extent, 1, dt, 0,
                           0, compi_g.self_comm, &st);
    }
    return rc;
}

/* A type of its own that stands for dt: contiguous(1, dt) has dt's type map,
 * bounds and extent, and holds a reference on dt inside the MPI. Unlike
 * MPI_Type_dup it copies no attributes, so the application's attribute
 * callbacks never run for compi. Predefined types need no reference. */
int compi_type_hold(MPI_Datatype dt, MPI_Datatype *held)
{
    int ni, na, nd, combiner;
    *held = dt;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED)
        return MPI_SUCCESS;
    MPI_Datatype copy;
    int rc = PMPI_Type_contiguous(1, dt, &copy);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&copy);
    if (rc == MPI_SUCCESS) *held = copy;
    return rc;
}

void compi_type_release(MPI_Datatype original, MPI_Datatype *held)
{
    if (*held != original && *held != MPI_DATATYPE_NULL) PMPI_Type_free(held);
    *held = original;
}
