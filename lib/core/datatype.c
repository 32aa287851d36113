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

/* Resolves homogeneous derived types to their base class; anything mixed is
 * "byte". Depth-limited: the class is a hint, never needed for correctness. */
static compi_dtclass compi_class_of(MPI_Datatype dt, size_t *elem, int depth)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) goto mixed;
    if (combiner == MPI_COMBINER_NAMED) return compi_class_of_named(dt, elem);
    if (depth > 4 || nd > 16 || ni > 4096 || na > 4096) goto mixed;
    {
        int ints[ni > 0 ? ni : 1];
        MPI_Aint addrs[na > 0 ? na : 1];
        MPI_Datatype types[nd > 0 ? nd : 1];
        if (PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) goto mixed;
        compi_dtclass cls = COMPI_CLASS_COUNT;
        size_t e = 1;
        for (int i = 0; i < nd; i++) {
            size_t ei;
            compi_dtclass c = compi_class_of(types[i], &ei, depth + 1);
            int named, a, b, comb;
            PMPI_Type_get_envelope(types[i], &named, &a, &b, &comb);
            if (comb != MPI_COMBINER_NAMED) PMPI_Type_free(&types[i]);
            if (cls == COMPI_CLASS_COUNT) {
                cls = c;
                e = ei;
            } else if (cls != c || e != ei) cls = COMPI_CLASS_BYTE, e = 1;
        }
        if (cls == COMPI_CLASS_COUNT) goto mixed;
        *elem = e;
        return cls;
    }
mixed:
    *elem = 1;
    return COMPI_CLASS_BYTE;
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
    ti->dtclass = named ? compi_class_of_named(dt, &ti->elem_size) : compi_class_of(dt, &ti->elem_size, 0);
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

/* Open MPI 4.1 places a basic element that a message splits through two
 * 16-byte scratch arrays (opal_unpack_partial_datatype): one ending inside
 * a wider element (long double complex, 32 bytes) overruns them and the
 * process aborts (measured: 37 bytes into an indexed type of
 * MPI_C_LONG_DOUBLE_COMPLEX; 16-byte long doubles are placed right). */
static int compi_wide_walk(MPI_Datatype dt, int depth)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return 1;
    if (combiner == MPI_COMBINER_NAMED) {
        /* pair types wider than that (MPI_LONG_DOUBLE_INT) count as wide:
         * staging them costs a copy, never a byte */
        int size = 0;
        PMPI_Type_size(dt, &size);
        return size > COMPI_PARTIAL_ELEM_MAX;
    }
    if (depth > 32) return 1;
    int *ints = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na > 0 ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd > 0 ? nd : 1));
    int got = ints && addrs && types && PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) == MPI_SUCCESS;
    int wide = !got;
    for (int i = 0; got && i < nd; i++) {
        if (!wide) wide = compi_wide_walk(types[i], depth + 1);
        int a, b, c, comb;
        PMPI_Type_get_envelope(types[i], &a, &b, &c, &comb);
        if (comb != MPI_COMBINER_NAMED) PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return wide;
}

int compi_type_has_wide_elements(MPI_Datatype dt)
{
    return compi_wide_walk(dt, 0);
}
