/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/requests.h"
#include "core/send.h"
#include "core/side.h"
#include "core/stash.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"

#define COMPI_REQ_BUCKETS 4096
/* Allocated at the first request compi tracks (under compi_g.lock), not in
 * the data segment: a program without one pays nothing for it, and under
 * SimGrid SMPI, which gives every simulated rank its own copy of the data
 * segment, the copies are 32 KiB smaller. */
static compi_req **compi_req_table;
static compi_req *compi_orphans;
int compi_req_live;
int compi_orphan_live;

static size_t compi_req_hash(MPI_Request h)
{
    uintptr_t v = 0;
    memcpy(&v, &h, sizeof h < sizeof v ? sizeof h : sizeof v);
    v ^= v >> 17;
    v *= 0x9E3779B97F4A7C15ull;
    return (size_t)(v >> 40) % COMPI_REQ_BUCKETS;
}

compi_req *compi_req_new(compi_req_kind kind, MPI_Comm comm, const compi_comm_info *ci, compi_family fam)
{
    compi_req *r = calloc(1, sizeof *r);
    if (!r) compi_die("out of memory allocating a request");
    r->kind = kind;
    r->comm = comm;
    r->ci = compi_comm_info_hold(ci);
    r->fam = fam;
    r->handle = MPI_REQUEST_NULL;
    r->inner = MPI_REQUEST_NULL;
    r->user_dt = r->dt = MPI_DATATYPE_NULL;
    return r;
}

void compi_req_insert(compi_req *r)
{
    size_t b = compi_req_hash(r->handle);
    pthread_mutex_lock(&compi_g.lock);
    if (!compi_req_table && !(compi_req_table = calloc(COMPI_REQ_BUCKETS, sizeof *compi_req_table))) {
        pthread_mutex_unlock(&compi_g.lock);
        compi_die("out of memory allocating the request table");
    }
    /* The same handle value may still be listed: another thread's request
     * that MPI completed and freed (so the value was reused) and that is
     * about to be removed by pointer. Newest first keeps lookups right. */
    r->next = compi_req_table[b];
    compi_req_table[b] = r;
    __atomic_add_fetch(&compi_req_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_g.lock);
}

compi_req *compi_req_find(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL || !__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED)) return NULL;
    size_t b = compi_req_hash(h);
    pthread_mutex_lock(&compi_g.lock);
    compi_req *r = compi_req_table ? compi_req_table[b] : NULL;
    while (r && r->handle != h) r = r->next;
    pthread_mutex_unlock(&compi_g.lock);
    return r;
}

void compi_req_remove(compi_req *r)
{
    size_t b = compi_req_hash(r->handle);
    pthread_mutex_lock(&compi_g.lock);
    for (compi_req **p = compi_req_table ? &compi_req_table[b] : NULL; p && *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            __atomic_sub_fetch(&compi_req_live, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    pthread_mutex_unlock(&compi_g.lock);
}

static void compi_req_release_op(compi_req *r)
{
    if (r->out) {
        compi_outgoing_release(r->out);
        free(r->out);
        r->out = NULL;
    }
    if (r->in) {
        compi_incoming_release(r->in);
        free(r->in);
        r->in = NULL;
    }
    free(r->landing);
    r->landing = NULL;
}

void compi_req_destroy(compi_req *r)
{
    compi_req_release_op(r);
    compi_type_release(r->user_dt, &r->dt);
    compi_comm_info_release(r->ci);
    free(r);
}

int compi_req_finish_op(compi_req *r, MPI_Status *st)
{
    int rc = MPI_SUCCESS;
    if (r->out && r->out->pipe) {
        /* a pipelined send whose header was cancelled takes its chunks along */
        int cancelled = 0;
        PMPI_Test_cancelled(st, &cancelled);
        if (cancelled) compi_pipe_cancel(r->out->pipe);
    }
    if (compi_req_delivered(r)) {
        *st = r->delivered_status;
        rc = r->delivered_rc;
        __atomic_store_n(&r->delivered, 0, __ATOMIC_RELAXED);
    } else if (r->in) {
        rc = compi_incoming_finish(r->in, st, r->ci, r->comm);
        if (rc == MPI_SUCCESS || rc == MPI_ERR_TRUNCATE) {
            MPI_Count n = 0;
            PMPI_Get_elements_x(st, MPI_BYTE, &n);
            COMPI_STAT_ADD(messages[r->fam], 1);
            COMPI_STAT_ADD(bytes[r->fam], n > 0 ? n : 0);
        }
    }
    compi_req_release_op(r);
    r->inner = MPI_REQUEST_NULL;
    return rc;
}

static int compi_done_query(void *extra, MPI_Status *st)
{
    /* compi overwrites this status with the delivered one at completion */
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    return MPI_SUCCESS;
}
static int compi_done_free(void *extra)
{
    return MPI_SUCCESS;
}
static int compi_done_cancel(void *extra, int complete)
{
    return MPI_SUCCESS;
}

int compi_completed_request(MPI_Comm comm, MPI_Request *req)
{
    /* A generalized request completed at once: unlike a receive from
     * MPI_PROC_NULL (a shared static request in Open MPI), every one is a
     * distinct handle, so it can key compi's request table. */
    (void)comm;
    int rc = PMPI_Grequest_start(compi_done_query, compi_done_free, compi_done_cancel, NULL, req);
    if (rc == MPI_SUCCESS) rc = PMPI_Grequest_complete(*req);
    return rc;
}

int compi_standin_request(MPI_Request *req)
{
    return PMPI_Grequest_start(compi_done_query, compi_done_free, compi_done_cancel, NULL, req);
}

void compi_standin_end(MPI_Request *req)
{
    PMPI_Grequest_complete(*req);
    PMPI_Request_free(req);
}

static int (*const compi_isend_fn[])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
    [COMPI_SMODE_STD] = PMPI_Isend,
    [COMPI_SMODE_SYNC] = PMPI_Issend,
    [COMPI_SMODE_READY] = PMPI_Irsend,
    [COMPI_SMODE_BUFFERED] = PMPI_Isend,
};

int compi_post_send(compi_req *r, const void *buf, int count, MPI_Datatype dt, int dest, int tag, compi_send_mode mode,
                    const compi_comm_info *ci)
{
    compi_outgoing *out = malloc(sizeof *out);
    if (!out) return MPI_ERR_NO_MEM;
    int buffered = mode == COMPI_SMODE_BUFFERED;
    compi_decision d;
    /* a buffered send's data is copied: the application may reuse it at once */
    int rc = compi_outgoing_build(out, buf, count, dt, ci, dest, tag, r->fam, r->away, &d, !buffered);
    if (rc != MPI_SUCCESS) {
        free(out);
        return rc;
    }
    MPI_Request inner;
    rc = compi_isend_fn[mode](out->addr, out->count, out->dt, dest, tag, r->comm, &inner);
    compi_decision_outcome_due(&d); /* posted: learning is off the message's path */
    if (rc != MPI_SUCCESS) {
        compi_outgoing_release(out);
        free(out);
        return rc;
    }
    /* a pipelined message's chunks follow its header (pipeline.c) */
    rc = compi_outgoing_stream(out, &d);
    if (rc != MPI_SUCCESS) {
        PMPI_Request_free(&inner);
        compi_outgoing_release(out);
        free(out);
        return rc;
    }
    if (buffered) {
        /* Buffered sends complete locally: compi owns the copy, sends it in
         * the background, and the application's request is already done. */
        compi_req *bg = compi_req_new(COMPI_REQ_SEND, r->comm, r->ci, r->fam);
        bg->inner = bg->handle = inner;
        bg->out = out;
        compi_orphan_add(bg);
        return compi_completed_request(r->comm, &r->inner);
    }
    r->out = out;
    r->inner = inner;
    return MPI_SUCCESS;
}

int compi_post_stashed(compi_req *r, compi_stashed *s, void *buf, int count, MPI_Datatype dt)
{
    if (s->pipelined) {
        /* Only its header was taken: the chunks are taken as for a posted
         * receive whose header matched (compi_req_advance), under a request
         * complete in the MPI's eyes that the completion calls hide until
         * they are in. The call stays local. */
        compi_incoming *in = malloc(sizeof *in);
        int rc = in ? compi_incoming_prepare(in, buf, count, dt, 1) : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS && compi_stash_begin(s, in) == MPI_SUCCESS) {
            r->in = in; /* on failure, compi_req_destroy drains the chunks */
            return compi_completed_request(r->comm, &r->inner);
        }
        if (in) compi_incoming_release(in);
        free(in);
        /* no memory to begin with: taken whole here, as a blocking receive */
    }
    r->delivered = 1;
    r->delivered_status = s->status;
    r->delivered_rc = compi_stash_deliver(s, buf, count, dt, &r->delivered_status);
    return compi_completed_request(r->comm, &r->inner);
}

int compi_post_recv(compi_req *r, void *buf, int count, MPI_Datatype dt, int source, int tag)
{
    compi_stashed *s = compi_stash_take(r->comm, source, tag);
    if (s) return compi_post_stashed(r, s, buf, count, dt);
    compi_incoming *in = malloc(sizeof *in);
    if (!in) return MPI_ERR_NO_MEM;
    int rc = compi_incoming_prepare(in, buf, count, dt, 1);
    if (rc == MPI_SUCCESS) compi_incoming_mark(in);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Irecv(COMPI_IN_ADDR(in), COMPI_IN_COUNT(in), COMPI_IN_TYPE(in), source, tag, r->comm, &r->inner);
    if (rc != MPI_SUCCESS) {
        compi_incoming_release(in);
        free(in);
        return rc;
    }
    r->in = in;
    return MPI_SUCCESS;
}

void compi_orphan_add(compi_req *r)
{
    pthread_mutex_lock(&compi_g.lock);
    r->next = compi_orphans;
    compi_orphans = r;
    __atomic_add_fetch(&compi_orphan_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_g.lock);
}

static void compi_orphans_pass(int wait_all);

void compi_orphans_progress(int wait_all)
{
    compi_side_stale_take();
    /* completing one may leave another (a failed pipelined receive's chunk
     * receive): waiting for all takes those too */
    do compi_orphans_pass(wait_all);
    while (wait_all && __atomic_load_n(&compi_orphan_live, __ATOMIC_RELAXED));
}

static void compi_orphans_pass(int wait_all)
{
    if (!__atomic_load_n(&compi_orphan_live, __ATOMIC_RELAXED)) return;
    /* Detach the list so PMPI calls run without holding the lock. */
    pthread_mutex_lock(&compi_g.lock);
    compi_req *list = compi_orphans;
    compi_orphans = NULL;
    pthread_mutex_unlock(&compi_g.lock);
    compi_req *keep = NULL;
    int done_count = 0;
    while (list) {
        compi_req *r = list;
        list = r->next;
        MPI_Status st;
        int done = 0;
        if ((r->out && r->out->pipe && r->inner == MPI_REQUEST_NULL && !compi_pipe_done(r->out->pipe, wait_all)) ||
            (!wait_all && !compi_req_advance(r))) {
            /* a pipelined message's chunks, still travelling: a receive
             * takes those that arrived, as MPI_Test does, and never waits
             * here, inside whichever call of the application's came by */
            r->next = keep;
            keep = r;
            continue;
        }
        int prc = wait_all ? (done = 1, PMPI_Wait(&r->inner, &st)) : PMPI_Test(&r->inner, &done, &st);
        st.MPI_ERROR = prc;
        if (done) {
            int rc = compi_req_finish_op(r, &st);
            if (rc != MPI_SUCCESS)
                compi_log(0, "a request freed by the application failed at completion: error %d", rc);
            compi_req_destroy(r);
            done_count++;
        } else {
            r->next = keep;
            keep = r;
        }
    }
    pthread_mutex_lock(&compi_g.lock);
    if (keep) {
        compi_req *tail = keep;
        while (tail->next) tail = tail->next;
        tail->next = compi_orphans;
        compi_orphans = keep;
    }
    __atomic_sub_fetch(&compi_orphan_live, done_count, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_g.lock);
}

/* What MPI_Request_get_status returns for a completed request that failed
 * (a truncated receive), measured: MPICH 4.0 returns the request's error and
 * raises it on MPI_COMM_WORLD's handler (the call has no communicator), as
 * the later completion does again; Open MPI 4.1 returns MPI_SUCCESS and
 * reports the error only at completion. */
#if defined(COMPI_MPI_mpich)
#define COMPI_GET_STATUS_RETURNS_ERROR 1
#else
#define COMPI_GET_STATUS_RETURNS_ERROR 0
#endif

int compi_req_advance(compi_req *r)
{
    if (compi_req_delivered(r) || !r->in || r->inner == MPI_REQUEST_NULL) return 1;
    if (r->in->pipe) return compi_incoming_advance(r->in, NULL, r->ci, r->comm);
    /* compi looks at its PMPI request before the application's call
     * completes it only when a pipelined header landed: that receive cannot
     * have failed, so MPICH's MPI_Request_get_status raises nothing on
     * MPI_COMM_WORLD, and no error handler is ever touched. */
    if (!compi_incoming_header_landed(r->in)) {
        /* The MPI moves what arrived into the posted receives inside its
         * calls: a probe of compi's side communicator does that and
         * completes nothing. */
        int found = 0;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, compi_g.aside_comm, &found, MPI_STATUS_IGNORE);
        if (!compi_incoming_header_landed(r->in)) return 1;
    }
    MPI_Status st;
    int flag = 0;
    if (PMPI_Request_get_status(r->inner, &flag, &st) != MPI_SUCCESS || !flag) return 1;
    return compi_incoming_advance(r->in, &st, r->ci, r->comm);
}

int compi_req_get_status(compi_req *r, int *flag, MPI_Status *status)
{
    MPI_Status st;
    if (r->inner == MPI_REQUEST_NULL && !compi_req_delivered(r)) {
        /* an inactive persistent request: MPI's empty status */
        *flag = 1;
        compi_status_empty(&st);
        if (status != MPI_STATUS_IGNORE) *status = st;
        return MPI_SUCCESS;
    }
    if (!compi_req_advance(r)) {
        *flag = 0; /* a pipelined message's chunks are still due */
        return MPI_SUCCESS;
    }
    int prc = PMPI_Request_get_status(r->inner, flag, &st);
    if (!*flag) return prc;
    /* a failure of the MPI's own (already raised) other than truncation,
     * which compi resolves below as it resolves its receives' */
    if (prc != MPI_SUCCESS && compi_error_class(prc) != MPI_ERR_TRUNCATE) return prc;
    /* MPI_Request_get_status, like every single-completion call, leaves
     * MPI_ERROR unwritten (Open MPI 4.1 and MPICH 4.0 alike): the outcome is
     * its return code, which compi_incoming_finish reads from there. */
    st.MPI_ERROR = prc;
    if (!compi_req_delivered(r) && r->in) {
        /* Decode now and remember the outcome: the request stays valid and
         * its later completion must report the same status. */
        r->delivered_rc = compi_incoming_finish(r->in, &st, r->ci, r->comm);
        r->delivered_status = st;
        r->delivered = 1;
        compi_incoming_release(r->in);
        free(r->in);
        r->in = NULL;
    }
    if (compi_req_delivered(r)) st = r->delivered_status;
    compi_status_out(status, &st);
    if (!COMPI_GET_STATUS_RETURNS_ERROR || !compi_req_delivered(r) || r->delivered_rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    /* the MPI raised its own truncation already; compi raises the rest */
    return prc != MPI_SUCCESS ? prc : compi_raise(MPI_COMM_WORLD, r->delivered_rc);
}
