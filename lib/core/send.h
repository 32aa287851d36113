/* SPDX-License-Identifier: BSD-3-Clause */
/* Sending one message on a framed communicator (lib/core/message.c,
 * pipeline.c, escape.c): its frame, pipelined chunks and escapes. */
#ifndef COMPI_CORE_SEND_H
#define COMPI_CORE_SEND_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "compi.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/stats.h"

/* What goes on the wire for one message on a framed communicator (see
 * message.c): the application's own buffer when the message goes raw and
 * unframed, else bytes compi holds (a frame, a packed copy, an escape). */
struct compi_pipe;
typedef struct {
    void *tmp;        /* compi's allocation, freed at release */
    const void *addr; /* what PMPI sends: (addr, count, dt) */
    int count;
    MPI_Datatype dt;
    int dt_owned;            /* dt is compi's (compi_bytes_type), freed at release */
    size_t wire_len;         /* bytes on the wire */
    struct compi_pipe *pipe; /* pipelined: addr is its header, the chunks follow (pipeline.c) */
} compi_outgoing;
/* keep_ref: the application's buffer may be sent from (not for buffered
 * sends, whose buffer is free again at once). away: an alltoall's blocks
 * this rank sends to other nodes in the call (compi_decide_in_burst; 0 for
 * the other families). */
int compi_outgoing_build(compi_outgoing *out, const void *buf, int count, MPI_Datatype dt, const compi_comm_info *ci,
                         int dest, int tag, compi_family fam, int away, compi_decision *d, int keep_ref);
/* Releasing a pipelined message whose chunks are still on their way hands
 * them to compi, which completes them in the background. */
void compi_outgoing_release(compi_outgoing *out);
/* Pipelined messages (lib/core/pipeline.c). After the caller posted out's
 * header-only frame with the application's send mode, this compresses and
 * posts the chunks (nothing to do unless out->pipe), and reports the
 * outcome to d. */
int compi_outgoing_stream(compi_outgoing *out, compi_decision *d);
/* out's header frame for a message of size packed bytes at src (packed:
 * compi's copy, freed once streamed) in chunks of chunk bytes. */
int compi_pipe_prepare(compi_outgoing *out, const char *src, void *packed, size_t size, size_t chunk,
                       const compi_codec *codec, const compi_codec_params *params, const compi_comm_info *ci, int dest);
/* Fault injection for tests (COMPI_DEBUG_DAMAGE_CHUNK=k, drop:k, fail:k,
 * rfail:k or stall:k:S): whether chunk k of a pipelined message (p2p or collective) is
 * the faulty one, and *how: damaged, never sent (drop), or the sender's
 * compi fails there (fail). compi_chunk_fault_recv: whether the receiver of
 * a pipelined collective block fails at chunk k as on an error of its own
 * (rfail; the sender's side is not affected). compi_chunk_fault_stall
 * (stall:k:S): the seconds the sender of a collective block stays away
 * before its chunk k, the first time only (0: not this chunk). */
enum {
    COMPI_CHUNK_FAULT_DAMAGE,
    COMPI_CHUNK_FAULT_DROP,
    COMPI_CHUNK_FAULT_FAIL,
    COMPI_CHUNK_FAULT_RECV_FAIL,
    COMPI_CHUNK_FAULT_STALL
};
int compi_chunk_fault(size_t k, int *how);
int compi_chunk_fault_recv(size_t k);
double compi_chunk_fault_stall(size_t k);
/* The report's counters for one pipelined stream: sent (size bytes in n
 * chunks, wire bytes, raw_chunks of them raw, ns of codec time of which
 * hidden ran while earlier chunks travelled) and received (codec_id: its
 * codec, or raw). */
void compi_pipe_count_sent(const compi_codec *codec, size_t size, size_t n, size_t wire, size_t raw_chunks, uint64_t ns,
                           uint64_t hidden);
void compi_pipe_count_received(uint8_t codec_id, uint64_t decode_ns, uint64_t hidden_ns, uint64_t wait_ns);
/* 1 when every chunk send completed (wait: block until they have). */
int compi_pipe_done(struct compi_pipe *p, int wait);
/* The header's send was cancelled: so are the chunks. */
void compi_pipe_cancel(struct compi_pipe *p);
void compi_pipe_free(struct compi_pipe *p);
/* Encodes (buf,count,dt) as one contiguous frame in a new buffer, trying
 * codec unless NULL (raw if it does not shrink the data). A compressed
 * frame is never longer than the data. */
int compi_frame_encode(const void *buf, int count, MPI_Datatype dt, const compi_typeinfo *ti, compi_decision *d,
                       unsigned char **frame, size_t *frame_len);
/* The codec work of one whole frame, split from its bookkeeping so that a
 * codec pool helper (lib/pool) may run it: compi_frame_work_run is
 * MPI-free and touches nothing shared; compi_frame_work_count then records
 * the statistics and the decision's outcome on the thread that decided
 * (a collective's scope is that thread's). In: size bytes at src (packed),
 * codec (NULL: raw), params; fill_raw: copy the bytes into the frame if it
 * ends up raw (else the caller sends them from where they are). Out: the
 * frame (malloc'd, flen bytes), its codec id, the codec's output length
 * (clen, negative: failed) and time. The bytes depend on the input alone. */
typedef struct {
    const char *src;
    size_t size;
    const compi_codec *codec;
    compi_codec_params params;
    int fill_raw;
    unsigned char *frame;
    size_t flen;
    long long clen;
    uint64_t ns;
    uint8_t id;
} compi_frame_work;
int compi_frame_work_run(compi_frame_work *w);
void compi_frame_work_count(const compi_frame_work *w, compi_decision *d);
/* Escapes (lib/core/escape.c): the first 32 bytes of bytes[0..size) leave
 * for dest (a rank of ci) on the aside communicator, and a header naming
 * them takes their place. */
int compi_escape_send(const compi_comm_info *ci, int dest, unsigned char *bytes, size_t size, int dtclass);

#endif
