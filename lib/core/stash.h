/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages compi had to receive early: a probe must report the application's
 * count, which only the frame header knows, so probing a framed message means
 * receiving it (matched probe + receive) and holding it here until the
 * application receives it. Matching is FIFO, which keeps MPI's per-sender
 * ordering: a stashed message is older than anything still in MPI.
 * A pipelined message's header alone says its count: only the header is
 * stashed, and its chunks, which wait on compi's side communicator under
 * their own tag, are received into the application's buffer when it
 * receives the message (no second copy of a large message). */
#ifndef COMPI_STASH_H
#define COMPI_STASH_H
#include "core/comm.h"
#include "core/recv.h"
#include "frame/frame.h"

typedef struct compi_stashed {
    MPI_Comm comm;
    int source, tag;
    unsigned char *frame; /* the message as it arrived: a frame, or */
    size_t frame_len;
    int unframed;  /* raw bytes (unframed or a resolved escape) */
    int pipelined; /* a pipelined message's header (pipe_h), no bytes yet */
    compi_frame_header pipe_h;
    const compi_comm_info *ci; /* held while the chunks are due */
    MPI_Status status;         /* application view: counts are original bytes */
    MPI_Message handle;        /* when claimed by a matched probe */
    MPI_Fint fint;             /* its Fortran value */
    struct compi_stashed *next;
} compi_stashed;

extern int compi_stash_live;

/* First stashed message matching (comm, source, tag) with wildcards; NULL if none. */
compi_stashed *compi_stash_peek(MPI_Comm comm, int source, int tag);
compi_stashed *compi_stash_take(MPI_Comm comm, int source, int tag);
/* Receives the message behind a PMPI matched-probe handle into a new entry
 * (not yet queued). Returns NULL with *rc set on failure. */
compi_stashed *compi_stash_pull(MPI_Message *msg, const MPI_Status *probe_status, MPI_Comm comm, int *rc);
void compi_stash_append(compi_stashed *s);
/* Drops what is stashed for a communicator being freed (its handle may be
 * reused by a new communicator, which must not see old messages); the
 * chunks of a stashed pipelined message are drained. */
void compi_stash_purge(MPI_Comm comm);
/* A pipelined entry (s->pipelined) into in, prepared for the application's
 * buffer: begins taking its chunks (in->pipe, compi_incoming_advance and
 * compi_incoming_finish go on) and frees s. Not MPI_SUCCESS: nothing was
 * begun and s is as it was. */
int compi_stash_begin(compi_stashed *s, compi_incoming *in);
/* Decodes into the user buffer, frees s, returns an MPI error code; st gets the status. */
int compi_stash_deliver(compi_stashed *s, void *buf, int count, MPI_Datatype dt, MPI_Status *st);

/* Matched-probe handles compi hands out for stashed messages. */
void compi_message_claim(compi_stashed *s, MPI_Message *out);
compi_stashed *compi_message_release(MPI_Message m); /* NULL if not compi's */
MPI_Fint compi_message_c2f(MPI_Message m);
MPI_Message compi_message_f2c(MPI_Fint f);
#endif
