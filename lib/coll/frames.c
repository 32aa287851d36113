/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames of packed bytes for the node-aware collectives, and their report
 * counters. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/bigcount.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/send.h"
#include "core/stats.h"

const char *const compi_coll_names[COMPI_COLL_KINDS] = {
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce",
    "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
};
const char *const compi_coll_field_names[COMPI_COLL_FIELDS] = {
    "calls", "node_aware_calls", "gated_calls", "bytes", "inter_node_wire_bytes", "seconds",
    "leaders_split_calls", "leaders_whole_calls",
};
uint64_t compi_coll_st[COMPI_COLL_KINDS][COMPI_COLL_FIELDS];

int compi_coll_applies(MPI_Comm comm, const compi_comm_info **ci)
{
    *ci = compi_comm_lookup(comm);
    return compi_coll_frames(*ci);
}

int compi_coll_encode(const compi_comm_info *ci, int peer, compi_family fam, const void *bytes, size_t n,
                      const compi_typeinfo *elem, unsigned char **frame, size_t *flen)
{
    compi_typeinfo ti = *elem;
    ti.size = (MPI_Count)n;
    ti.contiguous = 1;
    ti.true_lb = 0;
    ti.type_size = 1;   /* frames travel as bytes: no element padding needed */
    compi_decision d;
    compi_decide(&d, ci, peer, -1, &ti, fam);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], n);
    return compi_frame_encode(bytes, compi_int_clamp(n), MPI_BYTE, &ti, &d, frame, flen);
}

void compi_coll_blocks_free(compi_coll_blocks *b)
{
    free(b->bytes);
    free(b->lens);
    free(b->displs);
    b->bytes = NULL;
    b->lens = b->displs = NULL;
}
