/* SPDX-License-Identifier: BSD-3-Clause */
/* Completion calls. The application's handles are swapped for the PMPI
 * requests doing the work (they differ only for persistent requests), PMPI
 * completes them, and compi finishes what completed: decode frames, free
 * buffers, rewrite statuses to the application's counts.
 *
 * A nonpersistent entry leaves compi's table *before* PMPI may complete and
 * free its handle: once freed, MPI can hand the same value to another
 * thread's new request, which must not find this entry. Entries still
 * pending afterwards go back. */
#include <stdlib.h>
#include <string.h>
#include "core/profile.h"
#include "core/requests.h"
#include "core/status.h"
#include "wrappers/impl.h"

/* Live nonblocking collectives (lib/coll/sched.c) complete only as compi
 * advances them: a blocking completion call first polls them (and the
 * MPI) until it will not block on one. */
void compi_nbc_hold(int count, const MPI_Request reqs[], int need_all);
static void compi_nbc_progress_if_live(void)
{
    compi_nbc_poke();
}

#define COMPI_STACK_REQS 64

typedef struct {
    MPI_Request *work;   /* PMPI handles */
    compi_req **entries; /* compi entry per slot or NULL */
    MPI_Status *st;      /* always real statuses */
    MPI_Request work_s[COMPI_STACK_REQS];
    compi_req *entries_s[COMPI_STACK_REQS];
    MPI_Status st_s[COMPI_STACK_REQS];
    int n;
} compi_batch;

static int compi_req_persistent(const compi_req *r)
{
    return r->kind == COMPI_REQ_PERSIST_SEND || r->kind == COMPI_REQ_PERSIST_RECV;
}

static int compi_batch_open(compi_batch *b, int n, MPI_Request reqs[])
{
    b->n = 0;
    if (n <= COMPI_STACK_REQS) {
        b->work = b->work_s;
        b->entries = b->entries_s;
        b->st = b->st_s;
    } else {
        b->work = malloc(sizeof *b->work * (size_t)n);
        b->entries = malloc(sizeof *b->entries * (size_t)n);
        b->st = malloc(sizeof *b->st * (size_t)n);
        if (!b->work || !b->entries || !b->st) return MPI_ERR_NO_MEM;
    }
    b->n = n;
    for (int i = 0; i < n; i++) {
        compi_req *r = compi_req_find(reqs[i]);
        b->entries[i] = r;
        b->work[i] = r ? r->inner : reqs[i];
        if (r && !compi_req_persistent(r)) compi_req_remove(r);
    }
    return MPI_SUCCESS;
}

/* Puts back what did not complete (finished slots were cleared) and frees. */
static void compi_batch_close(compi_batch *b)
{
    for (int i = 0; i < b->n; i++)
        if (b->entries[i] && !compi_req_persistent(b->entries[i])) compi_req_insert(b->entries[i]);
    if (b->work != b->work_s) {
        free(b->work);
        free(b->entries);
        free(b->st);
    }
}

/* Slot completed in PMPI with status *st: finish compi's part and update the
 * application's handle (a nonpersistent entry is already out of the table).
 * Clears *slot. Returns the slot's MPI error code. */
static int compi_slot_done(compi_req **slot, MPI_Request *user, MPI_Request pmpi_after, MPI_Status *st)
{
    compi_req *r = *slot;
    *slot = NULL;
    if (!r) {
        *user = pmpi_after;
        return MPI_SUCCESS;
    }
    int rc = compi_req_finish_op(r, st);
    if (!compi_req_persistent(r)) {
        compi_req_destroy(r);
        *user = MPI_REQUEST_NULL;
    }
    /* persistent: the application's handle stays, now inactive */
    return rc;
}

/* Testany / Testsome: a slot whose pipelined receive still waits for
 * chunks (compi_req_advance) shows the MPI an incomplete stand-in, so the
 * call neither completes it nor waits for it. */
static void compi_batch_hold(compi_batch *b)
{
    for (int i = 0; i < b->n; i++)
        if (b->entries[i] && !compi_req_advance(b->entries[i]) && compi_standin_request(&b->work[i]) != MPI_SUCCESS)
            b->work[i] = b->entries[i]->inner; /* no stand-in: the receive completes as Wait completes it */
}

static void compi_batch_unhold(compi_batch *b)
{
    for (int i = 0; i < b->n; i++)
        if (b->entries[i] && b->work[i] != MPI_REQUEST_NULL && b->work[i] != b->entries[i]->inner) {
            compi_standin_end(&b->work[i]);
            b->work[i] = b->entries[i]->inner;
        }
}

static void compi_progress(void)
{
    compi_nbc_progress_if_live();
    compi_orphans_progress(0);
}

int compi_impl_Wait(MPI_Request *request, MPI_Status *status)
{
    compi_progress();
    compi_req *r = compi_req_find(*request);
    if (!r) return compi_nbc_hold(1, request, 1), PMPI_Wait(request, status);
    if (!compi_req_persistent(r)) compi_req_remove(r);
    MPI_Status st;
    MPI_Request w = r->inner;
    compi_nbc_hold(1, &w, 1);
    int prc = PMPI_Wait(&w, &st);
    st.MPI_ERROR = prc;
    MPI_Comm comm = r->comm;
    int rc = compi_slot_done(&r, request, w, &st);
    compi_status_out(status, &st);
    if (prc != MPI_SUCCESS) return prc;
    return compi_raise(comm, rc);
}

int compi_impl_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    compi_progress();
    compi_req *r = compi_req_find(*request);
    if (!r) return PMPI_Test(request, flag, status);
    if (!compi_req_advance(r)) {
        *flag = 0; /* a pipelined message's chunks are still due */
        return MPI_SUCCESS;
    }
    int persistent = compi_req_persistent(r);
    if (!persistent) compi_req_remove(r);
    MPI_Status st;
    MPI_Request w = r->inner;
    int prc = PMPI_Test(&w, flag, &st);
    if (!*flag) {
        if (!persistent) compi_req_insert(r); /* still pending: its handle is still live */
        return prc;
    }
    st.MPI_ERROR = prc;
    MPI_Comm comm = r->comm;
    int rc = compi_slot_done(&r, request, w, &st);
    compi_status_out(status, &st);
    if (prc != MPI_SUCCESS) return prc;
    return compi_raise(comm, rc);
}

/* Finishes every slot in done[0..ndone) and reports errors the MPI way:
 * MPI_ERR_IN_STATUS with per-status codes. */
static int compi_batch_finish(compi_batch *b, MPI_Request reqs[], const int *done, int ndone, MPI_Status *user_st,
                              int prc)
{
    /* The statuses' MPI_ERROR fields are written only with MPI_ERR_IN_STATUS.
     * Any other error is about the call itself: the MPI raised it, completed
     * nothing and wrote no status, so compi's entries stay as they are. */
    int in_status = prc != MPI_SUCCESS && compi_error_class(prc) == MPI_ERR_IN_STATUS;
    if (prc != MPI_SUCCESS && !in_status) return prc;
    int any_err = in_status;
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int k = 0; k < ndone; k++) {
        int i = done[k];
        if (prc == MPI_SUCCESS) b->st[i].MPI_ERROR = MPI_SUCCESS;
        else if (compi_error_class(b->st[i].MPI_ERROR) == MPI_ERR_PENDING) { /* not completed by a failed Waitall */
            compi_status_out(user_st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &user_st[k], &b->st[i]);
            continue;
        }
        MPI_Comm comm = b->entries[i] ? b->entries[i]->comm : MPI_COMM_NULL;
        int rc = compi_slot_done(&b->entries[i], &reqs[i], b->work[i], &b->st[i]);
        if (rc != MPI_SUCCESS) {
            b->st[i].MPI_ERROR = rc;
            any_err = 1;
            if (err_comm == MPI_COMM_NULL) err_comm = comm;
        }
        compi_status_out(user_st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &user_st[k], &b->st[i]);
    }
    if (!any_err) return MPI_SUCCESS;
    /* MPI_ERR_IN_STATUS: now every status carries its own code */
    if (user_st != MPI_STATUSES_IGNORE)
        for (int k = 0; k < ndone; k++) user_st[k].MPI_ERROR = b->st[done[k]].MPI_ERROR;
    if (prc == MPI_SUCCESS && err_comm != MPI_COMM_NULL) compi_raise(err_comm, MPI_ERR_IN_STATUS);
    return MPI_ERR_IN_STATUS;
}

/* Waitall/Testall report statuses by position, not by completion order. */
static int compi_batch_finish_all(compi_batch *b, int n, MPI_Request reqs[], MPI_Status *user_st, int prc)
{
    int *done = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!done) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) done[i] = i;
    int rc = compi_batch_finish(b, reqs, done, n, user_st, prc);
    free(done);
    return rc;
}

int compi_impl_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED))
        return compi_nbc_hold(count, reqs, 1), PMPI_Waitall(count, reqs, statuses);
    compi_batch b;
    int rc = compi_batch_open(&b, count, reqs);
    if (rc == MPI_SUCCESS) {
        compi_nbc_hold(count, b.work, 1);
        int prc = PMPI_Waitall(count, b.work, b.st);
        rc = compi_batch_finish_all(&b, count, reqs, statuses, prc);
    }
    compi_batch_close(&b);
    return rc;
}

int compi_impl_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED)) return PMPI_Testall(count, reqs, flag, statuses);
    compi_batch b;
    int rc = compi_batch_open(&b, count, reqs);
    int pending = 0; /* pipelined receives whose chunks are still due */
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) pending |= b.entries[i] && !compi_req_advance(b.entries[i]);
    if (pending) *flag = 0;
    else if (rc == MPI_SUCCESS) {
        int prc = PMPI_Testall(count, b.work, flag, b.st);
        rc = *flag || prc != MPI_SUCCESS ? compi_batch_finish_all(&b, count, reqs, statuses, prc) : MPI_SUCCESS;
        /* not all complete: persistent swaps leave the application's handles alone */
    }
    compi_batch_close(&b);
    return rc;
}

static int compi_any(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status, int wait)
{
    compi_batch b;
    int rc = compi_batch_open(&b, count, reqs);
    if (rc != MPI_SUCCESS) {
        compi_batch_close(&b);
        return rc;
    }
    MPI_Status st;
    int f = 1;
    if (wait) compi_nbc_hold(count, b.work, 0);
    else compi_batch_hold(&b);
    int prc = wait ? PMPI_Waitany(count, b.work, index, &st) : PMPI_Testany(count, b.work, index, &f, &st);
    compi_batch_unhold(&b);
    if (flag) *flag = f;
    /* an error about the call itself (not the completed request's) may
     * leave index unwritten */
    if (f && *index != MPI_UNDEFINED && *index >= 0 && *index < count) {
        int i = *index;
        b.st[i] = st;
        b.st[i].MPI_ERROR = prc;
        MPI_Comm comm = b.entries[i] ? b.entries[i]->comm : MPI_COMM_NULL;
        int drc = compi_slot_done(&b.entries[i], &reqs[i], b.work[i], &b.st[i]);
        st = b.st[i];
        if (prc == MPI_SUCCESS && drc != MPI_SUCCESS) prc = compi_raise(comm, drc);
    }
    if (f) compi_status_out(status, &st);
    compi_batch_close(&b);
    return prc;
}

int compi_impl_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED))
        return compi_nbc_hold(count, reqs, 0), PMPI_Waitany(count, reqs, index, status);
    return compi_any(count, reqs, index, NULL, status, 1);
}

int compi_impl_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED)) return PMPI_Testany(count, reqs, index, flag, status);
    return compi_any(count, reqs, index, flag, status, 0);
}

static int compi_some(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[], int wait)
{
    compi_batch b;
    int rc = compi_batch_open(&b, incount, reqs);
    if (rc != MPI_SUCCESS) {
        compi_batch_close(&b);
        return rc;
    }
    MPI_Status *pst = malloc(sizeof(MPI_Status) * (size_t)(incount > 0 ? incount : 1));
    if (!pst) {
        compi_batch_close(&b);
        return MPI_ERR_NO_MEM;
    }
    if (wait) compi_nbc_hold(incount, b.work, 0);
    else compi_batch_hold(&b);
    int prc = wait ? PMPI_Waitsome(incount, b.work, outcount, indices, pst)
                   : PMPI_Testsome(incount, b.work, outcount, indices, pst);
    compi_batch_unhold(&b);
    /* outcount and the statuses are written on success and with
     * MPI_ERR_IN_STATUS only */
    int written = prc == MPI_SUCCESS || compi_error_class(prc) == MPI_ERR_IN_STATUS;
    if (written && *outcount != MPI_UNDEFINED) {
        for (int k = 0; k < *outcount; k++) b.st[indices[k]] = pst[k];
        rc = compi_batch_finish(&b, reqs, indices, *outcount, statuses, prc);
    } else {
        rc = prc;
    }
    free(pst);
    compi_batch_close(&b);
    return rc;
}

int compi_impl_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED))
        return compi_nbc_hold(incount, reqs, 0), PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    return compi_some(incount, reqs, outcount, indices, statuses, 1);
}

int compi_impl_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    compi_progress();
    if (!__atomic_load_n(&compi_req_live, __ATOMIC_RELAXED))
        return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
    return compi_some(incount, reqs, outcount, indices, statuses, 0);
}

int compi_impl_Request_free(MPI_Request *request)
{
    if (COMPI_PROF_ACTIVE()) compi_prof_request_free_(*request);
    compi_req *r = compi_req_find(*request);
    if (!r) return PMPI_Request_free(request);
    compi_req_remove(r);
    if (r->kind == COMPI_REQ_PERSIST_SEND || r->kind == COMPI_REQ_PERSIST_RECV) {
        if (r->inner != MPI_REQUEST_NULL) {
            /* an active operation must still complete; compi finishes it */
            compi_req *op = compi_req_new(r->kind == COMPI_REQ_PERSIST_SEND ? COMPI_REQ_SEND : COMPI_REQ_RECV, r->comm,
                                          r->ci, r->fam);
            op->inner = r->inner;
            op->out = r->out;
            op->in = r->in;
            op->delivered = compi_req_delivered(r);
            op->delivered_status = r->delivered_status;
            op->delivered_rc = r->delivered_rc;
            r->out = NULL;
            r->in = NULL;
            compi_orphan_add(op);
        }
        int rc = PMPI_Request_free(&r->handle);
        compi_req_destroy(r);
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    compi_orphan_add(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int compi_impl_Cancel(MPI_Request *request)
{
    compi_req *r = compi_req_find(*request);
    if (!r || compi_req_delivered(r)) return PMPI_Cancel(request);
    if (r->inner == MPI_REQUEST_NULL) return MPI_SUCCESS;
    return PMPI_Cancel(&r->inner);
}

int compi_impl_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (request == MPI_REQUEST_NULL) {
        /* The empty status, MPI_ERROR included (Open MPI 4.1 leaves that
         * field as it was; MPICH and the standard set MPI_SUCCESS). */
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) compi_status_empty(status);
        return MPI_SUCCESS;
    }
    compi_req *r = compi_req_find(request);
    if (!r) return PMPI_Request_get_status(request, flag, status);
    return compi_req_get_status(r, flag, status);
}
