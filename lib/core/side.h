/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's side channel (lib/core/side.c): a communicator of compi's own over
 * the ranks of MPI_COMM_WORLD, opened in MPI_Init and closed at
 * MPI_Finalize, that carries the parts of a message that travel beside it
 * (an escaped message's first bytes, a pipelined message's chunks), each
 * message's under a tag of its own, so no application receive can take them.
 *
 * A receive of such parts that fails (a chunk damaged, missing, or not come
 * within COMPI_CHUNK_WAIT) gives up the side receives it posted; the parts
 * its sender still sends then arrive with nobody to take them, and a sender
 * whose MPI moves a large message only into a posted receive would wait
 * for them for ever (in its MPI_Wait, or at MPI_Finalize). compi takes
 * such stale parts as they arrive and drops them. */
#ifndef COMPI_CORE_SIDE_H
#define COMPI_CORE_SIDE_H
#include <mpi.h>
#include <stddef.h>

int compi_side_open(void);
void compi_side_close(void);
/* Byte messages to or from world rank `world` on the side channel. */
int compi_side_isend(const void *buf, int n, int world, int tag, MPI_Request *req);
int compi_side_irecv(void *buf, int n, int world, int tag, MPI_Request *req);
int compi_side_iprobe(int world, int tag, int *flag, MPI_Status *st);
/* A fresh tag on the side channel (escapes, pipelined chunks). */
int compi_side_tag(void);

/* Gives up a receive compi posted on its side channel, or on another
 * communicator of its own, into buf (a failed pipelined receive's or
 * collective exchange's chunk slot): cancelled, and buf freed, unless the MPI
 * matched it already; such a receive cannot be cancelled and may need its
 * sender to end, so compi completes it in the background (as a freed
 * request) and frees buf then. Never waits; *req becomes MPI_REQUEST_NULL
 * and buf is no longer the caller's. Returns 1 when the receive was
 * cancelled (its message, if it comes, is stale), else 0. */
int compi_side_recv_abandon(MPI_Request *req, void *buf);
/* count messages from world rank `world` under tag `tag` that a failed
 * receive no longer waits for and that may still come: taken and dropped
 * when they arrive (compi_side_stale_take). */
void compi_side_stale_add(int world, int tag, size_t count);
/* count messages of at most cap bytes from rank `source` of comm (a
 * communicator of compi's own: a failed collective exchange's chunks) under
 * tag `tag` that a failed exchange no longer waits for and that may still
 * come: their receives are posted now, so that they complete while this
 * rank is blocked in any MPI call (their sender may wait for them while
 * this rank waits for it in the next collective), and freed as they
 * complete (compi_side_stale_take). Returns how many could not be posted
 * (no memory, an MPI error): 0 normally. */
size_t compi_side_stale_expect(MPI_Comm comm, int source, int tag, size_t count, size_t cap);
/* Takes the stale messages that arrived: each one's receive is posted and
 * completed in the background like a freed request. Never waits. */
void compi_side_stale_take(void);
/* At MPI_Finalize, after compi's own requests completed: waits up to
 * COMPI_CHUNK_WAIT seconds (at least COMPI_ESCAPE_WAIT's 0.001) for stale
 * messages still due, taking them, cancels the receives posted for those
 * that did not come, and says how many never came. */
void compi_side_stale_finish(void);

#endif
