/* SPDX-License-Identifier: BSD-3-Clause */
/* Receiving one message on a framed communicator (lib/core/message.c,
 * pipeline.c, escape.c): where it lands, how its frame is judged and
 * decoded, and what a truncated receive reports. */
#ifndef COMPI_CORE_RECV_H
#define COMPI_CORE_RECV_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "frame/frame.h"

/* Contiguous receives of at least this many bytes land straight in the
 * application's buffer (smaller ones are staged). A frame is therefore
 * never longer than the data it stands for. */
#define COMPI_DIRECT_MIN 16384

/* Receives an escaped message's first 32 bytes into head (32 bytes;
 * compi_escape_put_back, frame/frame.h, checks them and puts them over the
 * header). They were sent first; if they are still missing after
 * COMPI_ESCAPE_WAIT seconds (*arrived = 0) the header was damaged or forged:
 * compi's frame error, cause on stderr. */
int compi_escape_restore(const compi_comm_info *ci, int source, const compi_frame_header *h, void *head, int *arrived);

/* a pipelined receive under way (pipeline.c) */
typedef struct compi_pipe_recv compi_pipe_recv;

typedef struct {
    void *buf;
    int count;
    MPI_Datatype dt;      /* the application's receive buffer */
    MPI_Datatype user_dt; /* dt as the application gave it (dt may be compi's hold) */
    compi_typeinfo ti;
    int direct; /* contiguous and large: lands in the user buffer */
    void *tmp;  /* else the message lands here (small or non-contiguous) */
    size_t tmp_cap;
    MPI_Datatype tmp_dt; /* tmp_cap bytes as PMPI's type (compi_bytes_type), compi's to free */
    MPI_Datatype dtype;  /* else: header + user buffer as one datatype */
    unsigned char header[COMPI_FRAME_HEADER_SIZE];
    void *post_addr; /* what the PMPI receive is posted on (COMPI_IN_*): */
    int post_count;  /* a layout that takes a message of any byte length */
    MPI_Datatype post_dt;
    compi_pipe_recv *pipe; /* a pipelined message's chunks being taken (compi_incoming_advance) */
    unsigned char before[COMPI_FRAME_HEADER_SIZE]; /* where the first bytes land, as posted (compi_incoming_mark) */
    int stashed;                                   /* pipe begun from a probed message's header (compi_stash_begin): */
    MPI_Status stash_st;                           /* that message's status, which completion reports */
} compi_incoming;
/* hold: the receive completes after this call returns (nonblocking,
 * persistent), so compi keeps its own reference on a derived dt it will
 * need at completion. */
int compi_incoming_prepare(compi_incoming *in, void *buf, int count, MPI_Datatype dt, int hold);
/* The PMPI receive is posted on (COMPI_IN_ADDR, COMPI_IN_COUNT, COMPI_IN_TYPE)
 * and holds at most compi_incoming_room bytes. */
#define COMPI_IN_ADDR(in) ((in)->post_addr)
#define COMPI_IN_COUNT(in) ((in)->post_count)
#define COMPI_IN_TYPE(in) ((in)->post_dt)
size_t compi_incoming_room(const compi_incoming *in);
/* A nonblocking receive, just before it is posted: notes what lies where
 * the message's first bytes will land (compi's own staging is cleared). */
void compi_incoming_mark(compi_incoming *in);
/* 1 when what lies there now is a sound pipelined header that was not there
 * when the receive was posted: the one message that may then be looked at
 * before its completion (PMPI_Request_get_status), as a 32-byte header
 * cannot be truncated by any receive compi posts. Anything else, truncated
 * receives included, is left to the completion call. */
int compi_incoming_header_landed(const compi_incoming *in);
/* After the PMPI receive completed with wire status st: decodes into the user
 * buffer, rewrites st so counts are the application's, returns an MPI error
 * code (MPI_SUCCESS, MPI_ERR_TRUNCATE or compi's frame error). */
int compi_incoming_finish(compi_incoming *in, MPI_Status *st, const compi_comm_info *ci, MPI_Comm comm);
/* For the completion calls that must not wait (MPI_Test, Testany,
 * Testsome, Testall, Request_get_status), before they complete the PMPI
 * receive of in. done: its status when it completed (MPI_Request_get_status),
 * else NULL. When it completed with a pipelined message's header, takes
 * the chunks that arrived without waiting for the others. 0 while chunks
 * are missing (the receive is not complete, its PMPI request stays as it
 * is); 1 when completing the PMPI request may finish the receive now
 * (compi_incoming_finish). */
int compi_incoming_advance(compi_incoming *in, const MPI_Status *done, const compi_comm_info *ci, MPI_Comm comm);
/* What arrived from an inter-node peer, judged by its first landed of n
 * bytes at head: the application's bytes (an escape's first 32 bytes are
 * fetched and put back over its header), a frame (*h read) or a bad one
 * (why says what is wrong). *rc: an MPI error fetching an escape's bytes.
 * The one classification for receives and probes alike. */
typedef enum { COMPI_ARRIVAL_UNFRAMED, COMPI_ARRIVAL_FRAME, COMPI_ARRIVAL_BAD } compi_arrival;
compi_arrival compi_arrival_resolve(const compi_comm_info *ci, int source, unsigned char *head, size_t landed, size_t n,
                                    int truncated, compi_frame_header *h, int *rc, char *why, size_t whylen);
/* compi_frame_length_check: frame/frame.h */
/* Reports a message that failed validation (naming why) and returns compi's frame error code. */
int compi_frame_fail(MPI_Comm comm, const MPI_Status *st, const char *why);
/* Decodes a whole frame held in memory (probed/stashed messages). */
int compi_frame_deliver(const void *frame, size_t frame_len, void *buf, int count, MPI_Datatype dt, MPI_Status *st,
                        MPI_Comm comm);
/* Places an unframed message held in memory into (buf,count,dt). */
int compi_bytes_deliver(const void *bytes, size_t n, void *buf, int count, MPI_Datatype dt, MPI_Status *st);
void compi_incoming_release(compi_incoming *in);
/* Receives and decodes the chunks of the pipelined message whose header h
 * came from source (a rank of ci) into (buf,count,dt); sets st's count;
 * MPI_SUCCESS, MPI_ERR_TRUNCATE or compi's frame error (naming the chunk). */
int compi_pipe_receive(const compi_comm_info *ci, int source, const compi_frame_header *h, void *buf, int count,
                       MPI_Datatype dt, const compi_typeinfo *ti, MPI_Status *st, MPI_Comm comm);
/* The same in steps: begin (*r NULL when it failed: the error code says
 * why, st names the message), step (takes the chunks that arrived; with
 * block, waits for each as compi_pipe_receive does; 1 when nothing more is
 * due, 0 while chunks are missing), end (takes what is still due, waiting,
 * and frees r; what compi_pipe_receive returns). */
int compi_pipe_recv_begin(const compi_comm_info *ci, int source, const compi_frame_header *h, void *buf, int count,
                          MPI_Datatype dt, const compi_typeinfo *ti, MPI_Status *st, MPI_Comm comm,
                          compi_pipe_recv **r);
int compi_pipe_recv_step(compi_pipe_recv *r, int block);
int compi_pipe_recv_end(compi_pipe_recv *r, MPI_Status *st, MPI_Comm comm);
/* What a truncated receive leaves in the buffer and reports, as the MPI
 * underneath does (message.c). */
int compi_trunc_writes_prefix(void);
size_t compi_truncated_count(uint64_t original);

#endif
