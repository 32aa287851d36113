/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's side table for requests whose completion needs work (decode a
 * frame, free a frame buffer) and for persistent requests, which compi runs
 * itself. Keyed by the handle the application holds. */
#ifndef COMPI_REQUESTS_H
#define COMPI_REQUESTS_H
#include "core/comm.h"
#include "core/recv.h"
#include "core/send.h"
#include "core/stats.h"

typedef enum {
    COMPI_REQ_SEND,         /* nonblocking framed send: free the frame at completion */
    COMPI_REQ_RECV,         /* nonblocking framed receive: decode at completion */
    COMPI_REQ_PERSIST_SEND, /* persistent: handle is an inactive dummy, inner does the work */
    COMPI_REQ_PERSIST_RECV,
    COMPI_REQ_NBC /* nonblocking collective: inner is a generalized request (lib/coll/sched.c) */
} compi_req_kind;

typedef enum { COMPI_SMODE_STD, COMPI_SMODE_SYNC, COMPI_SMODE_READY, COMPI_SMODE_BUFFERED } compi_send_mode;

typedef struct compi_req {
    MPI_Request handle; /* what the application holds (the key) */
    compi_req_kind kind;
    MPI_Comm comm;             /* for error handlers; may be freed by the application */
    const compi_comm_info *ci; /* comm's info, held (NULL: compi's own traffic) */
    compi_family fam;
    int away;          /* an alltoall's send: the blocks this rank sends to other nodes in it (compi_outgoing_build) */
    MPI_Request inner; /* the PMPI request doing the current operation */
    compi_outgoing *out; /* current send's frame */
    compi_incoming *in;  /* current receive's target */
    void *landing;       /* a side receive's buffer, which the MPI may write until inner completes */
    int delivered;       /* result already known (stash, get_status, a schedule): read with compi_req_delivered */
    int delivered_rc;
    MPI_Status delivered_status;
    /* persistent parameters */
    const void *buf;
    int count;
    MPI_Datatype user_dt; /* as the application gave it */
    MPI_Datatype dt;      /* compi's hold on it (compi_type_hold) */
    int peer, tag;
    compi_send_mode smode;
    struct compi_req *next;
} compi_req;

/* A nonblocking collective's request is finished by whichever thread runs the
 * schedules' progress (lib/coll/sched.c), not by the thread that waits on it:
 * that thread writes delivered_rc and delivered_status, then sets delivered
 * with release order, then completes the generalized request. Every read of
 * delivered acquires, so the outcome it guards is seen whole. */
static inline int compi_req_delivered(const compi_req *r)
{
    return __atomic_load_n(&r->delivered, __ATOMIC_ACQUIRE);
}
static inline void compi_req_publish(compi_req *r, int rc, const MPI_Status *st)
{
    r->delivered_rc = rc;
    r->delivered_status = *st;
    __atomic_store_n(&r->delivered, 1, __ATOMIC_RELEASE);
}

extern int compi_req_live; /* entries in the table; 0 = every wait is plain PMPI */
extern int compi_orphan_live;

/* ci: comm's info, or NULL for compi's own traffic; the request holds it. */
compi_req *compi_req_new(compi_req_kind kind, MPI_Comm comm, const compi_comm_info *ci, compi_family fam);
void compi_req_insert(compi_req *r);
compi_req *compi_req_find(MPI_Request h);
void compi_req_remove(compi_req *r);
void compi_req_destroy(compi_req *r);

/* Finishes the current operation of r with the PMPI status st (rewritten in
 * place to the application's view). Returns an MPI error code. Does not
 * remove r from the table. */
int compi_req_finish_op(compi_req *r, MPI_Status *st);

/* For the completion calls that must not wait: advances r's pipelined
 * receive, if any (compi_incoming_advance). 0: r is not complete, whatever
 * its PMPI request says; 1: completing its PMPI request finishes it. */
int compi_req_advance(compi_req *r);
/* An active request that completes only at compi_standin_end (which frees
 * it): what a completion call is shown in place of such an r. */
int compi_standin_request(MPI_Request *req);
void compi_standin_end(MPI_Request *req);

/* Requests the application freed while active: compi completes them. */
void compi_orphan_add(compi_req *r);
void compi_orphans_progress(int wait_all);

/* A request that is already complete (data delivered by compi itself). */
int compi_completed_request(MPI_Comm comm, MPI_Request *req);

/* Posting helpers shared by nonblocking and persistent paths. */
int compi_post_send(compi_req *r, const void *buf, int count, MPI_Datatype dt, int dest, int tag, compi_send_mode mode,
                    const compi_comm_info *ci);
int compi_post_recv(compi_req *r, void *buf, int count, MPI_Datatype dt, int source, int tag);
/* r receives the message a probe took first (s, core/stash.h): a whole one
 * at once, a pipelined one's chunks as a posted receive takes them. */
struct compi_stashed;
int compi_post_stashed(compi_req *r, struct compi_stashed *s, void *buf, int count, MPI_Datatype dt);
/* The application's view of a request's state, for MPI_Request_get_status. */
int compi_req_get_status(compi_req *r, int *flag, MPI_Status *st);

#endif
