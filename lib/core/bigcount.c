/* SPDX-License-Identifier: BSD-3-Clause */
/* Byte buffers beyond an int count.
 *
 * MPI-3.1 calls take an int count, so a frame, a staging buffer or a stashed
 * message of more than INT_MAX bytes cannot go as (len, MPI_BYTE): it goes
 * as one element of a derived type of 1 GiB blocks plus the remainder, which
 * both MPIs move like plain bytes (no gaps, so no packing) and whose status
 * reports the byte count through MPI_Get_elements_x. Every PMPI call compi
 * makes on a buffer of its own takes its (count, type) from here.
 *
 * MPI 4.0's large-count calls (MPI_Send_c, ...) take the same path: a count
 * beyond an int becomes one element of a derived type of count elements.
 *
 * Tests lower the limit with COMPI_DEBUG_INT_LIMIT=n: buffers of more than
 * n bytes and large-count calls of more than n elements then take the
 * derived-type path, so small messages exercise it in the default test
 * stages. */
#include <limits.h>
#include <stdlib.h>
#include "core/bigcount.h"
#include "core/datatype.h"

static size_t compi_limit_value = (size_t)INT_MAX;
static int compi_limit_read;

size_t compi_int_limit(void)
{
    if (!__atomic_load_n(&compi_limit_read, __ATOMIC_ACQUIRE)) {
        const char *v = getenv("COMPI_DEBUG_INT_LIMIT");
        unsigned long long n = v && *v ? strtoull(v, NULL, 10) : 0;
        if (n >= 2 && n < (unsigned long long)INT_MAX) compi_limit_value = (size_t)n;
        __atomic_store_n(&compi_limit_read, 1, __ATOMIC_RELEASE);
    }
    return compi_limit_value;
}

/* n elements of dt (n beyond the int limit) as one element of a derived
 * type: blocks of `block` elements, then the rest, at their places in the
 * layout n elements of dt have. */
static int compi_elements_type(size_t n, MPI_Datatype dt, MPI_Datatype *whole)
{
    size_t block, blocks, rest;
    compi_bytes_split(n, compi_int_limit(), &block, &blocks, &rest);
    if (!compi_fits_int(blocks)) return MPI_ERR_COUNT; /* beyond 2^61 elements */
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(dt, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Datatype blk;
    *whole = MPI_DATATYPE_NULL;
    rc = PMPI_Type_contiguous((int)block, dt, &blk);
    if (rc != MPI_SUCCESS) return rc;
    if (rest == 0) {
        rc = PMPI_Type_contiguous((int)blocks, blk, whole);
    } else {
        int lens[2] = {(int)blocks, (int)rest};
        MPI_Aint disp[2] = {0, (MPI_Aint)(blocks * block) * extent};
        MPI_Datatype types[2] = {blk, dt};
        rc = PMPI_Type_create_struct(2, lens, disp, types, whole);
    }
    PMPI_Type_free(&blk);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(whole);
    if (rc != MPI_SUCCESS && *whole != MPI_DATATYPE_NULL) PMPI_Type_free(whole);
    return rc;
}

int compi_bytes_type(size_t len, int *count, MPI_Datatype *dt)
{
    if (len <= compi_int_limit()) {
        *count = (int)len;
        *dt = MPI_BYTE;
        return MPI_SUCCESS;
    }
    MPI_Datatype whole;
    int rc = compi_elements_type(len, MPI_BYTE, &whole);
    if (rc != MPI_SUCCESS) return rc;
    *count = 1;
    *dt = whole;
    return MPI_SUCCESS;
}

void compi_bytes_type_free(MPI_Datatype *dt)
{
    if (*dt != MPI_BYTE && *dt != MPI_DATATYPE_NULL) PMPI_Type_free(dt);
    *dt = MPI_BYTE;
}

int compi_count_big(MPI_Count count, MPI_Datatype dt, int *icount, MPI_Datatype *big)
{
    *big = dt;
    if (compi_count_fits(count)) {
        *icount = (int)count;
        return MPI_SUCCESS;
    }
    if (count < 0 || dt == MPI_DATATYPE_NULL) return MPI_ERR_COUNT; /* the MPI's own call says which */
    MPI_Datatype whole;
    int rc = compi_elements_type((size_t)count, dt, &whole);
    if (rc != MPI_SUCCESS) return rc;
    *icount = 1;
    *big = whole;
    return MPI_SUCCESS;
}

void compi_count_type_free(MPI_Datatype dt, MPI_Datatype *big)
{
    if (*big != dt && *big != MPI_DATATYPE_NULL) PMPI_Type_free(big);
    *big = dt;
}
