/* SPDX-License-Identifier: BSD-3-Clause */
/* Escapes: raw messages that look like frames.
 *
 * On a framed communicator a raw inter-node message travels unframed, the
 * application's bytes exactly as posted, unless it starts with the frame
 * magic (compi_bytes_look_framed): the receiver could not tell it from a
 * frame. It may land straight in a receive buffer of exactly its size, and
 * nothing past its end may be written, so it keeps its length: its first
 * 32 bytes go ahead
 * as a separate message on compi's own duplicate of MPI_COMM_WORLD, and a
 * header naming that message's tag takes their place. The receiver fetches
 * them by (sender, tag), which no application receive can intercept, and
 * puts them back. The aside is sent before the message and is tiny (always
 * eager), so fetching it never waits on the sender. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/recv.h"
#include "core/requests.h"
#include "core/send.h"
#include "core/side.h"
#include "core/state.h"
#include "core/stats.h"

int compi_escape_send(const compi_comm_info *ci, int dest, unsigned char *bytes, size_t size, int dtclass)
{
    compi_orphans_progress(0); /* earlier asides: done long ago, free them */
    int world = ci->peer_world[dest];
    int tag = compi_side_tag();
    compi_outgoing *aside = calloc(1, sizeof *aside);
    if (!aside || !(aside->tmp = malloc(COMPI_FRAME_HEADER_SIZE))) {
        free(aside);
        return MPI_ERR_NO_MEM;
    }
    memcpy(aside->tmp, bytes, COMPI_FRAME_HEADER_SIZE);
    compi_req *r = compi_req_new(COMPI_REQ_SEND, compi_g.aside_comm, NULL, COMPI_FAM_SEND);
    int rc = compi_side_isend(aside->tmp, COMPI_FRAME_HEADER_SIZE, world, tag, &r->inner);
    if (rc != MPI_SUCCESS) {
        compi_outgoing_release(aside);
        free(aside);
        compi_req_destroy(r);
        return rc;
    }
    r->out = aside;
    compi_orphan_add(r); /* compi completes and frees it */
    compi_frame_header h = {COMPI_CODEC_ESCAPE, (uint8_t)dtclass, size, (uint64_t)tag, 0};
    compi_frame_write_header(bytes, &h);
    COMPI_STAT_ADD(raw_escaped, 1);
    return MPI_SUCCESS;
}

int compi_escape_restore(const compi_comm_info *ci, int source, const compi_frame_header *h, void *head, int *arrived)
{
    int world = ci->peer_world[source], tag = (int)h->payload_len, flag = 0;
    MPI_Status st;
    uint64_t deadline = 0;
    /* Sent first, so almost always there already; waiting without bound would
     * turn a damaged header into a hang. */
    for (;;) {
        int rc = compi_side_iprobe(world, tag, &flag, &st);
        if (rc != MPI_SUCCESS) return rc;
        if (flag) break;
        uint64_t now = compi_now_ns();
        if (!deadline) {
            deadline = now + (uint64_t)(compi_cfg.escape_wait_s * 1e9);
        } else if (now > deadline) {
            *arrived = 0;
            return MPI_SUCCESS;
        }
        sched_yield();
    }
    *arrived = 1;
    MPI_Request req;
    int rc = compi_side_irecv(head, COMPI_FRAME_HEADER_SIZE, world, tag, &req);
    return rc == MPI_SUCCESS ? PMPI_Wait(&req, &st) : rc;
}
