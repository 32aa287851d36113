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
 * Tests lower the limit with COMPI_DEBUG_INT_LIMIT=n (bytes): buffers of
 * more than n bytes then take the derived-type path, so small messages
 * exercise it in the default test stages. */
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

int compi_bytes_type(size_t len, int *count, MPI_Datatype *dt)
{
    size_t limit = compi_int_limit();
    if (len <= limit) {
        *count = (int)len;
        *dt = MPI_BYTE;
        return MPI_SUCCESS;
    }
    size_t block, blocks, rest;
    compi_bytes_split(len, limit, &block, &blocks, &rest);
    if (!compi_fits_int(blocks)) return MPI_ERR_COUNT; /* beyond 2^61 bytes */
    MPI_Datatype blk, whole = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_contiguous((int)block, MPI_BYTE, &blk);
    if (rc != MPI_SUCCESS) return rc;
    if (rest == 0) {
        rc = PMPI_Type_contiguous((int)blocks, blk, &whole);
    } else {
        int lens[2] = {(int)blocks, (int)rest};
        MPI_Aint disp[2] = {0, (MPI_Aint)(blocks * block)};
        MPI_Datatype types[2] = {blk, MPI_BYTE};
        rc = PMPI_Type_create_struct(2, lens, disp, types, &whole);
    }
    PMPI_Type_free(&blk);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&whole);
    if (rc != MPI_SUCCESS) {
        if (whole != MPI_DATATYPE_NULL) PMPI_Type_free(&whole);
        return rc;
    }
    *count = 1;
    *dt = whole;
    return MPI_SUCCESS;
}

void compi_bytes_type_free(MPI_Datatype *dt)
{
    if (*dt != MPI_BYTE && *dt != MPI_DATATYPE_NULL) PMPI_Type_free(dt);
    *dt = MPI_BYTE;
}
