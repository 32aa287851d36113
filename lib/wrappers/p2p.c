/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point semantics. Every entry first asks whether the message needs
 * compi at all (compi_p2p_plain: the communicator is framed, i.e. spans
 * nodes with compi on, and the peer is on another node or a wildcard); if
 * not, the call goes straight to PMPI and compi costs one attribute lookup. */
#include <stdlib.h>
#include <string.h>
#include "coll/nbc.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/recv.h"
#include "core/requests.h"
#include "core/send.h"
#include "core/stash.h"
#include "core/stats.h"
#include "core/status.h"
#include "pool/pool.h"
#include "wrappers/impl.h"

static int (*const compi_send_fn[])(const void *, int, MPI_Datatype, int, int, MPI_Comm) = {
    [COMPI_SMODE_STD] = PMPI_Send,
    [COMPI_SMODE_SYNC] = PMPI_Ssend,
    [COMPI_SMODE_READY] = PMPI_Rsend,
    [COMPI_SMODE_BUFFERED] = PMPI_Bsend,
};
static int (*const compi_isend_plain[])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
    [COMPI_SMODE_STD] = PMPI_Isend,
    [COMPI_SMODE_SYNC] = PMPI_Issend,
    [COMPI_SMODE_READY] = PMPI_Irsend,
    [COMPI_SMODE_BUFFERED] = PMPI_Ibsend,
};
static int (*const compi_send_init_plain[])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
    [COMPI_SMODE_STD] = PMPI_Send_init,
    [COMPI_SMODE_SYNC] = PMPI_Ssend_init,
    [COMPI_SMODE_READY] = PMPI_Rsend_init,
    [COMPI_SMODE_BUFFERED] = PMPI_Bsend_init,
};

/* ------------------------------------------------------------ blocking */

/* A send that needs no frame; counts same-node sends for the report. */
static int compi_send_is_plain(const compi_comm_info *ci, int dest)
{
    if (!compi_p2p_plain(ci, dest)) return 0;
    if (ci->framed && dest != MPI_PROC_NULL) COMPI_STAT_ADD(intra_msgs, 1);
    return 1;
}

static int compi_blocking_send(compi_send_mode mode, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                               MPI_Comm comm, compi_family fam)
{
    COMPI_PROF_SEND_HOOK(comm, dest, count, dt, COMPI_PROF_SEND);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_send_is_plain(ci, dest)) return compi_send_fn[mode](buf, count, dt, dest, tag, comm);
    if (mode == COMPI_SMODE_BUFFERED) {
        /* compi buffers the frame itself; see compi_post_send */
        compi_req *r = compi_req_new(COMPI_REQ_SEND, comm, ci, fam);
        int rc = compi_post_send(r, buf, count, dt, dest, tag, mode, ci);
        if (rc == MPI_SUCCESS) PMPI_Request_free(&r->inner);
        compi_req_destroy(r);
        return compi_raise(comm, rc);
    }
    compi_outgoing out;
    compi_decision d;
    int rc = compi_outgoing_build(&out, buf, count, dt, ci, dest, tag, fam, 0, &d, 1);
    if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
    if (out.pipe) {
        /* Pipelined: the header goes first with the application's mode,
         * then the chunks. The send returns once they are all posted (compi
         * completes them), as a buffering MPI would: waiting for them would
         * deadlock the safe Irecv-Send-Wait exchange, whose receivers take
         * the chunks only in their Wait. */
        MPI_Request hreq;
        rc = compi_isend_plain[mode](out.addr, out.count, out.dt, dest, tag, comm, &hreq);
        if (rc != MPI_SUCCESS) {
            compi_outgoing_release(&out);
            return rc;
        } /* MPI raised it */
        int src = compi_outgoing_stream(&out, &d);
        rc = PMPI_Wait(&hreq, MPI_STATUS_IGNORE);
        compi_outgoing_release(&out);
        compi_decision_outcome_due(&d);
        return rc != MPI_SUCCESS ? rc : compi_raise(comm, src);
    }
    rc = compi_send_fn[mode](out.addr, out.count, out.dt, dest, tag, comm);
    compi_outgoing_release(&out);
    compi_decision_outcome_due(&d); /* the frame has left: learning is off its path */
    return rc;
}

static int compi_nonblocking_send(compi_send_mode mode, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                                  MPI_Comm comm, MPI_Request *request, compi_family fam);
static int compi_nonblocking_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                  MPI_Request *request, compi_family fam);

/* While a nonblocking collective of compi's is live (lib/coll/sched.c), a
 * blocking send or receive must not stop it advancing: the peer may send
 * what this call waits for (or receive what it sends) only once that
 * collective completed there. The call then runs as its nonblocking twin
 * and compi's Wait, which advances the schedules while it waits. */
static int compi_nbc_blocking_send(compi_send_mode mode, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                                   MPI_Comm comm)
{
    MPI_Request r;
    int rc = compi_nonblocking_send(mode, buf, count, dt, dest, tag, comm, &r, COMPI_FAM_SEND);
    return rc != MPI_SUCCESS ? rc : compi_impl_Wait(&r, MPI_STATUS_IGNORE);
}

int compi_impl_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED))
        return compi_nbc_blocking_send(COMPI_SMODE_STD, buf, count, dt, dest, tag, comm);
    return compi_blocking_send(COMPI_SMODE_STD, buf, count, dt, dest, tag, comm, COMPI_FAM_SEND);
}
int compi_impl_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED))
        return compi_nbc_blocking_send(COMPI_SMODE_SYNC, buf, count, dt, dest, tag, comm);
    return compi_blocking_send(COMPI_SMODE_SYNC, buf, count, dt, dest, tag, comm, COMPI_FAM_SEND);
}
int compi_impl_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED))
        return compi_nbc_blocking_send(COMPI_SMODE_READY, buf, count, dt, dest, tag, comm);
    return compi_blocking_send(COMPI_SMODE_READY, buf, count, dt, dest, tag, comm, COMPI_FAM_SEND);
}
int compi_impl_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return compi_blocking_send(COMPI_SMODE_BUFFERED, buf, count, dt, dest, tag, comm, COMPI_FAM_SEND);
}

/* PMPI_Mprobe; with a codec pool, its nonblocking twin polled until the
 * wait grows long, then with sleeps between looks (compi_pool_idle): the
 * message is being coded by helpers (this rank's, or a peer's on the same
 * cores) that need the core a blocked MPI's polling keeps runnable. */
static int compi_mprobe_wait(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    if (compi_pool_threads() <= 0) return PMPI_Mprobe(source, tag, comm, msg, st);
    uint64_t start = compi_now_ns();
    for (;;) {
        int flag = 0, rc = PMPI_Improbe(source, tag, comm, &flag, msg, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        compi_pool_idle(compi_now_ns() - start);
    }
}

static int compi_blocking_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                               MPI_Status *status, compi_family fam)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    MPI_Status st;
    int rc;
    compi_stashed *s = compi_stash_take(comm, source, tag);
    if (s) {
        rc = compi_stash_deliver(s, buf, count, dt, &st);
    } else {
        /* Matching first tells a wildcard whether the sender is on this node
         * (then the message is unframed and goes straight to the buffer).
         * Under Open MPI every receive matches first: its shared-memory
         * single-copy path writes a too-long message past the receive buffer
         * (measured: a 1 MiB message into a 4000 B buffer changed 1044576
         * bytes beyond it), so compi takes a too-long frame whole and
         * truncates it itself. With a codec pool every receive matches
         * first too: the match's wait sleeps when long (compi_mprobe_wait),
         * where PMPI_Recv would poll and keep a core the helpers need. */
#if defined(COMPI_MPI_openmpi)
        const int match_first = 1;
#else
        const int match_first = source == MPI_ANY_SOURCE || compi_pool_threads() > 0;
#endif
        compi_incoming in;
        rc = compi_incoming_prepare(&in, buf, count, dt, 0);
        if (rc != MPI_SUCCESS) return compi_raise(comm, rc);
        MPI_Message msg = MPI_MESSAGE_NULL;
        if (match_first) {
            MPI_Status pst;
            int mrc = compi_mprobe_wait(source, tag, comm, &msg, &pst);
            if (mrc == MPI_SUCCESS && !compi_peer_is_remote(ci, pst.MPI_SOURCE))
                mrc = PMPI_Mrecv(buf, count, dt, &msg, status);
            if (mrc != MPI_SUCCESS || msg == MPI_MESSAGE_NULL) { /* an error, or received same-node */
                compi_incoming_release(&in);
                return mrc;
            }
            MPI_Count wire = 0;
            PMPI_Get_elements_x(&pst, MPI_BYTE, &wire);
            if ((size_t)wire > compi_incoming_room(&in)) {
                compi_incoming_release(&in);
                s = compi_stash_pull(&msg, &pst, comm, &rc);
                if (!s) return compi_raise(comm, rc);
                rc = compi_stash_deliver(s, buf, count, dt, &st);
                compi_status_out(status, &st);
                return compi_raise(comm, rc);
            }
        }
        int prc = msg != MPI_MESSAGE_NULL
                      ? PMPI_Mrecv(COMPI_IN_ADDR(&in), COMPI_IN_COUNT(&in), COMPI_IN_TYPE(&in), &msg, &st)
                      : PMPI_Recv(COMPI_IN_ADDR(&in), COMPI_IN_COUNT(&in), COMPI_IN_TYPE(&in), source, tag, comm, &st);
        if (prc != MPI_SUCCESS && compi_error_class(prc) != MPI_ERR_TRUNCATE) {
            compi_incoming_release(&in);
            return prc; /* MPI already ran the error handler */
        }
        st.MPI_ERROR = prc;
        rc = compi_incoming_finish(&in, &st, ci, comm);
        compi_incoming_release(&in);
        if (prc != MPI_SUCCESS) { /* MPI reported truncation itself */
            compi_status_out(status, &st);
            return prc;
        }
    }
    MPI_Count n = 0;
    PMPI_Get_elements_x(&st, MPI_BYTE, &n);
    COMPI_STAT_ADD(messages[fam], 1);
    COMPI_STAT_ADD(bytes[fam], n);
    compi_status_out(status, &st);
    return compi_raise(comm, rc);
}

int compi_impl_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED)) { /* see compi_nbc_blocking_send */
        MPI_Request r;
        int rc = compi_nonblocking_recv(buf, count, dt, source, tag, comm, &r, COMPI_FAM_RECV);
        return rc != MPI_SUCCESS ? rc : compi_impl_Wait(&r, status);
    }
    return compi_blocking_recv(buf, count, dt, source, tag, comm, status, COMPI_FAM_RECV);
}

/* ------------------------------------------------------------ nonblocking */

static int compi_nonblocking_send(compi_send_mode mode, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                                  MPI_Comm comm, MPI_Request *request, compi_family fam)
{
    if (fam != COMPI_FAM_SENDRECV) COMPI_PROF_SEND_HOOK(comm, dest, count, dt, COMPI_PROF_ISEND);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_send_is_plain(ci, dest)) return compi_isend_plain[mode](buf, count, dt, dest, tag, comm, request);
    compi_req *r = compi_req_new(COMPI_REQ_SEND, comm, ci, fam);
    int rc = compi_post_send(r, buf, count, dt, dest, tag, mode, ci);
    if (rc != MPI_SUCCESS) {
        compi_req_destroy(r);
        return compi_raise(comm, rc);
    }
    r->handle = r->inner;
    *request = r->handle;
    /* Open MPI completes small sends inline and then returns one shared,
     * already-complete request for all of them: such a handle must not key
     * compi's table, and the frame is no longer needed anyway. */
    int done = 0;
    if (r->out && r->out->tmp) PMPI_Request_get_status(r->inner, &done, MPI_STATUS_IGNORE);
    if (r->out && r->out->tmp && !done) compi_req_insert(r); /* free compi's bytes at completion */
    else compi_req_destroy(r);
    return MPI_SUCCESS;
}

int compi_impl_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    return compi_nonblocking_send(COMPI_SMODE_STD, buf, count, dt, dest, tag, comm, request, COMPI_FAM_ISEND);
}
int compi_impl_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return compi_nonblocking_send(COMPI_SMODE_SYNC, buf, count, dt, dest, tag, comm, request, COMPI_FAM_ISEND);
}
int compi_impl_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return compi_nonblocking_send(COMPI_SMODE_READY, buf, count, dt, dest, tag, comm, request, COMPI_FAM_ISEND);
}
int compi_impl_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return compi_nonblocking_send(COMPI_SMODE_BUFFERED, buf, count, dt, dest, tag, comm, request, COMPI_FAM_ISEND);
}

static int compi_nonblocking_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                  MPI_Request *request, compi_family fam)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Irecv(buf, count, dt, source, tag, comm, request);
    compi_req *r = compi_req_new(COMPI_REQ_RECV, comm, ci, fam);
    int rc = compi_post_recv(r, buf, count, dt, source, tag);
    if (rc != MPI_SUCCESS) {
        compi_req_destroy(r);
        return compi_raise(comm, rc);
    }
    r->handle = r->inner;
    *request = r->handle;
    compi_req_insert(r);
    return MPI_SUCCESS;
}

int compi_impl_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return compi_nonblocking_recv(buf, count, dt, source, tag, comm, request, COMPI_FAM_IRECV);
}

/* ------------------------------------------------------------ persistent */

/* Persistent requests on framed communicators: the application holds an
 * inactive do-nothing persistent request, so handle conversions and
 * Request_free stay real; each Start runs a fresh framed operation because
 * the data (and so the frame) can change between starts. */
static int compi_persistent_create(compi_req_kind kind, compi_send_mode mode, const void *buf, int count,
                                   MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    int is_send = kind == COMPI_REQ_PERSIST_SEND;
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, peer)) {
        int rc = is_send ? compi_send_init_plain[mode](buf, count, dt, peer, tag, comm, request)
                         : PMPI_Recv_init((void *)buf, count, dt, peer, tag, comm, request);
        if (rc == MPI_SUCCESS && is_send && COMPI_PROF_ACTIVE())
            compi_prof_persistent_(*request, comm, peer, count, dt);
        return rc;
    }
    /* The request keeps the communicator's info and its own reference on a
     * derived datatype: the application may free either before it starts
     * the request. The handle is a real persistent request on comm that is
     * never started, so MPI keeps comm alive while it exists (Open MPI's
     * MPI_PROC_NULL persistent requests are no-ops that do not). */
    compi_req *r = compi_req_new(kind, comm, ci, is_send ? COMPI_FAM_PERSISTENT_SEND : COMPI_FAM_PERSISTENT_RECV);
    r->user_dt = dt;
    int rc = compi_type_hold(dt, &r->dt);
    if (rc == MPI_SUCCESS)
        rc = is_send ? PMPI_Send_init(NULL, 0, MPI_BYTE, 0, 0, comm, &r->handle)
                     : PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, 0, comm, &r->handle);
    if (rc != MPI_SUCCESS) {
        compi_req_destroy(r);
        return compi_raise(comm, rc);
    }
    r->buf = buf;
    r->count = count;
    r->peer = peer;
    r->tag = tag;
    r->smode = mode;
    *request = r->handle;
    compi_req_insert(r);
    if (is_send && COMPI_PROF_ACTIVE()) compi_prof_persistent_(*request, comm, peer, count, dt);
    return MPI_SUCCESS;
}

int compi_impl_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return compi_persistent_create(COMPI_REQ_PERSIST_SEND, COMPI_SMODE_STD, buf, count, dt, dest, tag, comm, request);
}
int compi_impl_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return compi_persistent_create(COMPI_REQ_PERSIST_SEND, COMPI_SMODE_SYNC, buf, count, dt, dest, tag, comm, request);
}
int compi_impl_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return compi_persistent_create(COMPI_REQ_PERSIST_SEND, COMPI_SMODE_READY, buf, count, dt, dest, tag, comm, request);
}
int compi_impl_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return compi_persistent_create(COMPI_REQ_PERSIST_SEND, COMPI_SMODE_BUFFERED, buf, count, dt, dest, tag, comm,
                                   request);
}
int compi_impl_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return compi_persistent_create(COMPI_REQ_PERSIST_RECV, COMPI_SMODE_STD, buf, count, dt, source, tag, comm, request);
}

int compi_impl_Start(MPI_Request *request)
{
    if (COMPI_PROF_ACTIVE()) compi_prof_start_(*request);
    compi_req *r = compi_req_find(*request);
    if (!r) return PMPI_Start(request);
    if (r->inner != MPI_REQUEST_NULL) return compi_raise(r->comm, MPI_ERR_REQUEST); /* already active */
    int rc;
    if (r->kind == COMPI_REQ_PERSIST_SEND)
        rc = compi_post_send(r, r->buf, r->count, r->dt, r->peer, r->tag, r->smode, r->ci);
    else rc = compi_post_recv(r, (void *)r->buf, r->count, r->dt, r->peer, r->tag);
    return compi_raise(r->comm, rc);
}

int compi_impl_Startall(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = compi_impl_Start(&requests[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ combined */

int compi_impl_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                        MPI_Status *status)
{
    COMPI_PROF_SEND_HOOK(comm, dest, sendcount, sendtype, COMPI_PROF_SENDRECV);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    /* while a nonblocking collective of compi's is live both halves are
     * nonblocking and completed by compi's Wait (see compi_nbc_blocking_send) */
    int live = __atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED) != 0;
    if (!live && compi_p2p_plain(ci, source) && compi_send_is_plain(ci, dest))
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                             comm, status);
    /* A named source: as MPI does it, the receive is posted before the send,
     * so a message that arrives early lands in place instead of waiting in
     * MPI's unexpected queue (measured, stem at 1 Gbit/s under Open MPI: a
     * send then a matching blocking receive cost 5% of the run). A wildcard
     * may meet a same-node sender: its blocking receive matches first
     * (compi_blocking_recv), after the send. Sends never block here. */
    int wildcard = source == MPI_ANY_SOURCE && !live, rc, rrc;
    MPI_Request rreq = MPI_REQUEST_NULL, sreq;
    if (!wildcard) {
        rc = compi_nonblocking_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rreq, COMPI_FAM_SENDRECV);
        if (rc != MPI_SUCCESS) return rc;
    }
    rc = compi_nonblocking_send(COMPI_SMODE_STD, sendbuf, sendcount, sendtype, dest, sendtag, comm, &sreq,
                                COMPI_FAM_SENDRECV);
    if (rc != MPI_SUCCESS) {
        if (!wildcard) {
            compi_impl_Cancel(&rreq);
            compi_impl_Wait(&rreq, MPI_STATUS_IGNORE);
        }
        return rc;
    }
    rrc = wildcard
              ? compi_blocking_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status, COMPI_FAM_SENDRECV)
              : compi_impl_Wait(&rreq, status);
    int wrc = compi_impl_Wait(&sreq, MPI_STATUS_IGNORE);
    return rrc != MPI_SUCCESS ? rrc : wrc;
}

/* The bytes a typed region (count, dt) spans: from its true lower bound
 * *tlb, *span bytes. A send from a copy of them leaves the region free for
 * the receive of a Sendrecv_replace. */
static void compi_replace_span(int count, MPI_Datatype dt, MPI_Aint *tlb, size_t *span)
{
    MPI_Aint lb, extent, textent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    PMPI_Type_get_true_extent(dt, tlb, &textent);
    *span = count > 0 ? (size_t)(textent + (MPI_Aint)(count - 1) * extent) : 0;
}

int compi_impl_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source, int recvtag,
                                MPI_Comm comm, MPI_Status *status)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (!__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED) && compi_p2p_plain(ci, source) &&
        compi_send_is_plain(ci, dest)) {
        COMPI_PROF_SEND_HOOK(comm, dest, count, dt, COMPI_PROF_SENDRECV);
        return PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, status);
    }
    MPI_Aint tlb;
    size_t span;
    compi_replace_span(count, dt, &tlb, &span);
    char *copy = malloc(span ? span : 1);
    if (!copy) return compi_raise(comm, MPI_ERR_NO_MEM);
    if (span) memcpy(copy, (char *)buf + tlb, span);
    int rc = compi_impl_Sendrecv(copy - tlb, count, dt, dest, sendtag, buf, count, dt, source, recvtag, comm, status);
    free(copy);
    return rc;
}

#if MPI_VERSION >= 4
/* MPI_Isendrecv: a receive and a send behind one request, as a schedule of
 * two compi messages on comm itself (lib/coll/nbc.h, compi_sched_new_p2p),
 * advanced like the nonblocking collectives. replace: the send's data is
 * the region the receive overwrites (MPI_Isendrecv_replace), sent from a
 * copy the schedule frees when it finishes. */
static int compi_isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           const compi_comm_info *ci, int replace, MPI_Request *request)
{
    int rc;
    compi_sched *s = compi_sched_new_p2p(comm, ci, COMPI_FAM_SENDRECV, &rc);
    if (!s) return compi_raise(comm, rc);
    if (replace && dest != MPI_PROC_NULL) {
        MPI_Aint tlb;
        size_t span;
        compi_replace_span(sendcount, sendtype, &tlb, &span);
        char *copy = compi_sched_alloc(s, span);
        if (!copy) {
            compi_sched_abandon(s);
            return compi_raise(comm, MPI_ERR_NO_MEM);
        }
        if (span) memcpy(copy, (const char *)sendbuf + tlb, span);
        sendbuf = copy - tlb;
    }
    /* the receive first, as MPI_Sendrecv posts it */
    rc = compi_sched_p2p_recv(s, recvbuf, recvcount, recvtype, source, recvtag);
    if (rc == MPI_SUCCESS) rc = compi_sched_p2p_send(s, sendbuf, sendcount, sendtype, dest, sendtag);
    if (rc != MPI_SUCCESS) {
        compi_sched_abandon(s);
        return compi_raise(comm, rc);
    }
    rc = compi_sched_start(s, request);
    return rc == MPI_SUCCESS ? rc : compi_raise(comm, rc);
}

/* Whether the MPI's own call does: both peers on this node. MPICH 4.0's
 * crashes when a peer is MPI_PROC_NULL (measured, 4.0.2): compi runs those. */
static int compi_isendrecv_plain(const compi_comm_info *ci, int source, int dest)
{
    if (source == MPI_PROC_NULL || dest == MPI_PROC_NULL) return 0;
    return compi_p2p_plain(ci, source) && compi_send_is_plain(ci, dest);
}

int compi_impl_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Request *request)
{
    COMPI_PROF_SEND_HOOK(comm, dest, sendcount, sendtype, COMPI_PROF_SENDRECV);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_isendrecv_plain(ci, source, dest))
        return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, request);
    return compi_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                           comm, ci, 0, request);
}

int compi_impl_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source, int recvtag,
                                 MPI_Comm comm, MPI_Request *request)
{
    COMPI_PROF_SEND_HOOK(comm, dest, count, dt, COMPI_PROF_SENDRECV);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_isendrecv_plain(ci, source, dest))
        return PMPI_Isendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, request);
    return compi_isendrecv(buf, count, dt, dest, sendtag, buf, count, dt, source, recvtag, comm, ci, 1, request);
}
#endif
