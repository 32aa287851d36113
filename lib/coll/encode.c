/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether a communicator's collectives go through compi, and a block of
 * packed bytes encoded as one frame with the communicator's decision. */
#include "coll/coll.h"
#include "core/bigcount.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/send.h"
#include "core/stats.h"

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
    ti.type_size = 1; /* frames travel as bytes: no element padding needed */
    compi_decision d;
    compi_decide(&d, ci, peer, -1, &ti, fam);
    if (d.watch && n > 0) compi_decision_watch(&d, bytes, n);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], n);
    return compi_frame_encode(bytes, compi_int_clamp(n), MPI_BYTE, &ti, &d, frame, flen);
}
