/* SPDX-License-Identifier: BSD-3-Clause */
/* The application's data as compi handles it (lib/core/datatype.c): a
 * datatype's packed size and layout, packing, datatypes held past the call,
 * and byte buffers of any size for PMPI calls (lib/core/bigcount.c). */
#ifndef COMPI_CORE_DATATYPE_H
#define COMPI_CORE_DATATYPE_H
#include <mpi.h>
#include <stddef.h>
#include "compi.h"

#define COMPI_PARTIAL_ELEM_MAX 16
typedef struct {
    MPI_Count size;      /* packed bytes of count elements */
    MPI_Count type_size; /* packed bytes of one element */
    int contiguous;      /* data is one block starting at buf + lb */
    MPI_Aint true_lb;
    compi_dtclass dtclass;
    size_t elem_size;
    int wide; /* a basic element wider than COMPI_PARTIAL_ELEM_MAX bytes (long
                 double complex), or too deep to tell: a message that ends
                 inside one must not be received into the type's layout
                 (see compi_incoming_prepare) */
} compi_typeinfo;
void compi_typeinfo_get(MPI_Datatype dt, int count, compi_typeinfo *ti);
/* Byte buffers of any size for PMPI calls (lib/core/bigcount.c): len bytes
 * as (*count, *dt), MPI_BYTE up to compi_int_limit() bytes (INT_MAX unless
 * COMPI_DEBUG_INT_LIMIT lowers it), else one element of a committed
 * gap-free derived type that compi_bytes_type_free releases. */
int compi_bytes_type(size_t len, int *count, MPI_Datatype *dt);
void compi_bytes_type_free(MPI_Datatype *dt); /* no-op for MPI_BYTE */
size_t compi_int_limit(void);
/* MPI 4.0 large-count calls (MPI_Send_c, ...): whether count goes as an
 * int (0 <= count <= compi_int_limit()); else compi_count_big gives
 * (*icount, *big) = (1, a committed type of count elements of dt), which
 * compi_count_type_free(dt, big) releases (a no-op when *big is dt). */
static inline int compi_count_fits(MPI_Count count)
{
    return count >= 0 && (size_t)count <= compi_int_limit();
}
int compi_count_big(MPI_Count count, MPI_Datatype dt, int *icount, MPI_Datatype *big);
void compi_count_type_free(MPI_Datatype dt, MPI_Datatype *big);
/* Bytes in pack order from/to (buf, count, dt); MPI_BOTTOM allowed. Unpack
 * places a trailing partial element the way a receive would. */
int compi_pack_bytes(const void *buf, int count, MPI_Datatype dt, void *dst, size_t size);
int compi_unpack_bytes(const void *src, size_t nbytes, void *buf, int count, MPI_Datatype dt);
/* A datatype compi uses after the call that gave it (persistent requests,
 * receives decoded at completion): the application may MPI_Type_free it at
 * once. *held stands for dt (a reference of compi's own for derived types,
 * dt itself for predefined ones) until compi_type_release(dt, held). */
int compi_type_hold(MPI_Datatype dt, MPI_Datatype *held);
void compi_type_release(MPI_Datatype original, MPI_Datatype *held);

#endif
