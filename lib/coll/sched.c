/* SPDX-License-Identifier: BSD-3-Clause */
/* Schedules of nonblocking collectives (see nbc.h): rounds of compi
 * point-to-point steps and local steps, advanced by compi_nbc_progress.
 * The rounds form one or more lanes; each lane's rounds run in order, the
 * lanes independently of each other. MPI_Isendrecv's pair of messages is a
 * one-round schedule of its own kind (compi_sched_new_p2p). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "coll/nbc.h"
#include "core/requests.h"

int compi_nbc_live;

enum { COMPI_OP_SEND, COMPI_OP_RECV, COMPI_OP_CALL, COMPI_OP_REDUCE };

typedef struct {
    int type;
    const void *sbuf; /* send; reduce: in */
    void *rbuf;       /* recv; reduce: inout */
    int count;
    MPI_Datatype user_dt, dt; /* dt: compi's hold on user_dt (a later round posts it) */
    int peer, tag;
    MPI_Op op;
    compi_sched_fn fn;
    void *arg;
    compi_req *r; /* a posted message, until it completed */
} compi_sched_op;

struct compi_nbc_comm;
struct compi_sched {
    MPI_Comm comm, x;          /* the application's; compi's dup of it (MPI_COMM_NULL: held) */
    struct compi_nbc_comm *c;  /* held: comm's set-up, until it completed */
    const compi_comm_info *ci; /* held */
    compi_nbc_kind kind;
    compi_family fam;
    int away; /* an alltoall's: blocks this rank sends to other nodes (compi_sched_away) */
    int tagbase;
    compi_sched_op *ops;
    int nops, cap;
    int *round_end; /* round k: ops [round_end[k-1], round_end[k]) */
    int nrounds, rcap;
    /* lane j: rounds [lane_first[j], lane_first[j+1]) (the last to nrounds);
     * cur[j]: its round running, posted[j]: whose steps were posted */
    int *lane_first, *cur, *posted;
    int nlanes, lcap;
    int rc; /* first error */
    void **mem;
    int nmem, memcap;
    compi_nbc_gate *gate; /* a gate's trial call: its rounds' frames counted there */
    int probe;            /* that trial wants the frames evaluated */
    compi_req *entry;     /* the application's request, until finished */
    int p2p;              /* on comm itself, application tags (compi_sched_new_p2p) */
    int result;           /* the op whose status is the request's (-1: none) */
    MPI_Status result_st;
    struct compi_sched *next;
};

/* Live schedules, oldest first (so earlier collectives post first). */
static compi_sched *compi_sched_head, *compi_sched_tail;
static pthread_mutex_t compi_sched_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- per communicator */

/* compi's dup of a communicator and its sequence of collectives, kept as an
 * attribute of the application's communicator (freed after it, once
 * nothing uses it: compi_nbc_comm_delete).
 *
 * The dup is a PMPI_Comm_idup posted by the first call that needs it: a
 * nonblocking collective must not block, and the idup is ordered on comm
 * like that call, so every rank posts it at the same point of comm's
 * collective order. Until it completes, the schedules on comm are held
 * (started, their requests given out, nothing posted) and the gates' votes
 * queued (nbc_gate.c); compi_nbc_progress notices the completion, posts
 * the held schedules' first rounds in the order they were started, then
 * the queued votes. */
typedef struct compi_nbc_comm {
    MPI_Comm x;       /* MPI_COMM_NULL until the set-up completed */
    MPI_Comm newx;    /* the idup's */
    MPI_Request idup; /* the set-up in flight */
    int ready;        /* the set-up completed (rc: how) */
    int rc;
    unsigned seq;
    compi_nbc_gates *gates;             /* nbc_gate.c's, on first use */
    struct compi_nbc_comm *next_setup;  /* the set-ups in flight */
    struct compi_nbc_comm *next_orphan; /* the freed communicators' */
} compi_nbc_comm;

static int compi_nbc_keyval = MPI_KEYVAL_INVALID;
/* set-ups in flight (under compi_sched_lock; each counts in compi_nbc_live,
 * so every entry point polls them) */
static compi_nbc_comm *compi_nbc_setups;
/* the state of communicators the application freed, until nothing uses it
 * (each counts in compi_nbc_live); a lock of its own: MPI may run the
 * delete callback inside any MPI call, compi's progress included */
static compi_nbc_comm *compi_nbc_orphans;
static pthread_mutex_t compi_nbc_orphan_lock = PTHREAD_MUTEX_INITIALIZER;
/* this thread holds compi_sched_lock around MPI calls */
static __thread int compi_sched_locked;

/* Whether s may post its rounds: the set-up of its communicator completed
 * (compi_sched_lock held). A failed set-up fails s, which then posts
 * nothing. */
static int compi_sched_unhold(compi_sched *s)
{
    compi_nbc_comm *c = s->c;
    if (c && !c->ready) return 0;
    if (c && c->rc == MPI_SUCCESS) s->x = c->x;
    else if (s->rc == MPI_SUCCESS) s->rc = c ? c->rc : MPI_ERR_COMM;
    s->c = NULL;
    return s->x != MPI_COMM_NULL;
}

/* Notices the set-ups that completed and moves them to *done
 * (compi_sched_lock held). */
static void compi_nbc_setups_poll(compi_nbc_comm **done)
{
    for (compi_nbc_comm **p = &compi_nbc_setups; *p;) {
        compi_nbc_comm *c = *p;
        int flag = 0;
        int rc = PMPI_Test(&c->idup, &flag, MPI_STATUS_IGNORE);
        if (!flag && rc == MPI_SUCCESS) {
            p = &c->next_setup;
            continue;
        }
        *p = c->next_setup;
        c->idup = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS) {
            c->x = c->newx;
            /* errors on compi's dup come back as codes, raised on comm */
            PMPI_Comm_set_errhandler(c->x, MPI_ERRORS_RETURN);
        }
        c->rc = rc;
        __atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
        __atomic_sub_fetch(&compi_nbc_live, 1, __ATOMIC_RELAXED);
        c->next_setup = *done;
        *done = c;
    }
}

/* After the held schedules of the set-ups in done posted their first
 * rounds (their frames counted for the gates' trials), the queued votes. */
static void compi_nbc_setups_flush(compi_nbc_comm *done)
{
    for (compi_nbc_comm *c = done; c; c = c->next_setup)
        if (c->gates) compi_nbc_gates_ready(c->gates, c->x, c->rc);
}

void compi_nbc_setups_complete(void)
{
    for (;;) {
        pthread_mutex_lock(&compi_sched_lock);
        int pending = compi_nbc_setups != NULL;
        pthread_mutex_unlock(&compi_sched_lock);
        if (!pending) return;
        if (!compi_nbc_progress()) sched_yield();
    }
}

/* The application freed comm. Its state may still be in use: the set-up
 * in flight, votes in flight, schedules not finished (freeing a
 * communicator with operations pending is legal). So it is handed to the
 * progress, which frees it once none is left. MPICH runs this callback
 * once comm's last pending operation (compi's idup among them) completed,
 * inside whatever MPI call completed it, compi's progress included. */
static int compi_nbc_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    compi_nbc_comm *c = attr;
    /* Open MPI 4.1 runs this inside MPI_Comm_free, and its idup still uses
     * comm after that: the set-up completes first (every rank posted it in
     * a collective call on comm before its own MPI_Comm_free, so this waits
     * for nothing that does not come). A call from inside compi's progress
     * is MPICH's, after the idup completed: the progress notices it. */
    while (!compi_sched_locked && !__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE))
        if (!compi_nbc_progress()) sched_yield();
    pthread_mutex_lock(&compi_nbc_orphan_lock);
    c->next_orphan = compi_nbc_orphans;
    compi_nbc_orphans = c;
    __atomic_add_fetch(&compi_nbc_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_nbc_orphan_lock);
    return MPI_SUCCESS;
}

/* Whether a freed communicator's state is still in use (compi_sched_lock
 * held). */
static int compi_nbc_comm_busy(compi_nbc_comm *c)
{
    if (!c->ready) return 1;
    for (compi_sched *s = compi_sched_head; s; s = s->next)
        if (s->c == c || (c->x != MPI_COMM_NULL && s->x == c->x)) return 1;
    return c->gates && !compi_nbc_gates_idle(c->gates);
}

/* Frees the freed communicators' state no longer in use (compi_sched_lock
 * held). */
static void compi_nbc_orphans_reap(void)
{
    pthread_mutex_lock(&compi_nbc_orphan_lock);
    compi_nbc_comm *list = compi_nbc_orphans, *keep = NULL;
    compi_nbc_orphans = NULL;
    pthread_mutex_unlock(&compi_nbc_orphan_lock);
    while (list) {
        compi_nbc_comm *c = list;
        list = c->next_orphan;
        if (compi_nbc_comm_busy(c)) {
            c->next_orphan = keep;
            keep = c;
            continue;
        }
        compi_nbc_gates_free(c->gates); /* idle: nothing to wait for */
        if (c->x != MPI_COMM_NULL) PMPI_Comm_free(&c->x);
        free(c);
        __atomic_sub_fetch(&compi_nbc_live, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&compi_nbc_orphan_lock);
    while (keep) {
        compi_nbc_comm *c = keep;
        keep = c->next_orphan;
        c->next_orphan = compi_nbc_orphans;
        compi_nbc_orphans = c;
    }
    pthread_mutex_unlock(&compi_nbc_orphan_lock);
}

/* The state of comm, made on its first compi-path collective (every rank
 * gets here in the same call), its set-up posted (nonblocking). */
static compi_nbc_comm *compi_nbc_comm_get(MPI_Comm comm, int *rc)
{
    *rc = MPI_SUCCESS;
    if (compi_nbc_keyval == MPI_KEYVAL_INVALID) {
        *rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, compi_nbc_comm_delete, &compi_nbc_keyval, NULL);
        if (*rc != MPI_SUCCESS) return NULL;
    }
    compi_nbc_comm *c = NULL;
    int found = 0;
    PMPI_Comm_get_attr(comm, compi_nbc_keyval, &c, &found);
    if (found) return c;
    c = calloc(1, sizeof *c);
    if (!c) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    c->x = c->newx = MPI_COMM_NULL;
    c->idup = MPI_REQUEST_NULL;
    *rc = PMPI_Comm_idup(comm, &c->newx, &c->idup);
    if (*rc == MPI_SUCCESS) *rc = PMPI_Comm_set_attr(comm, compi_nbc_keyval, c);
    if (*rc != MPI_SUCCESS) {
        /* the idup, if posted, is the same call on every rank: complete it */
        if (c->idup != MPI_REQUEST_NULL) PMPI_Wait(&c->idup, MPI_STATUS_IGNORE);
        if (c->newx != MPI_COMM_NULL) PMPI_Comm_free(&c->newx);
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&compi_sched_lock);
    c->next_setup = compi_nbc_setups;
    compi_nbc_setups = c;
    __atomic_add_fetch(&compi_nbc_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_sched_lock);
    return c;
}

compi_nbc_gates *compi_nbc_gates_of(MPI_Comm comm, int *rc)
{
    compi_nbc_comm *c = compi_nbc_comm_get(comm, rc);
    if (!c) return NULL;
    if (!c->gates) {
        /* under the lock: a set-up completing meanwhile hands them its dup */
        pthread_mutex_lock(&compi_sched_lock);
        compi_sched_locked = 1;
        c->gates = compi_nbc_gates_new();
        if (c->gates && c->ready) compi_nbc_gates_ready(c->gates, c->x, c->rc);
        compi_sched_locked = 0;
        pthread_mutex_unlock(&compi_sched_lock);
    }
    if (!c->gates) *rc = MPI_ERR_NO_MEM;
    return c->gates;
}

/* ---------------------------------------------------------------- building */

compi_sched *compi_sched_new(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, compi_family fam, int *rc)
{
    compi_nbc_comm *c = compi_nbc_comm_get(comm, rc);
    if (!c) return NULL;
    compi_sched *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->comm = comm;
    s->x = MPI_COMM_NULL; /* held until the set-up completed (compi_sched_unhold) */
    s->c = c;
    s->gate = compi_nbc_gate_trial(&s->probe);
    s->ci = compi_comm_info_hold(ci);
    s->kind = kind;
    s->fam = fam;
    /* 256 collectives in flight on one communicator have tags of their
     * own; beyond that equal tags still match in order (posted in order) */
    s->tagbase = (int)(c->seq++ % 256u) * COMPI_NBC_SUBTAGS;
    return s;
}

compi_sched *compi_sched_new_p2p(MPI_Comm comm, const compi_comm_info *ci, compi_family fam, int *rc)
{
    compi_sched *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    *rc = MPI_SUCCESS;
    s->comm = s->x = comm;
    s->ci = compi_comm_info_hold(ci);
    s->kind = COMPI_NBC_KINDS; /* no collective family */
    s->fam = fam;
    s->p2p = 1;
    s->result = -1;
    /* a receive from MPI_PROC_NULL (no step): MPI's status for it */
    compi_status_empty(&s->result_st);
    s->result_st.MPI_SOURCE = MPI_PROC_NULL;
    return s;
}

static compi_sched_op *compi_sched_add(compi_sched *s, int type)
{
    if (s->nops == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        compi_sched_op *ops = realloc(s->ops, sizeof *ops * (size_t)cap);
        if (!ops) return NULL;
        s->ops = ops;
        s->cap = cap;
    }
    compi_sched_op *op = &s->ops[s->nops++];
    memset(op, 0, sizeof *op);
    op->type = type;
    op->user_dt = op->dt = MPI_DATATYPE_NULL;
    op->op = MPI_OP_NULL;
    return op;
}

int compi_sched_lane(compi_sched *s)
{
    compi_sched_round(s);
    if (s->rc != MPI_SUCCESS) return s->rc;
    if (s->nlanes + 2 > s->lcap) { /* this lane, and maybe the one before it */
        int cap = s->lcap ? 2 * s->lcap : 8;
        int *f = realloc(s->lane_first, sizeof *f * (size_t)cap);
        if (!f) return s->rc = MPI_ERR_NO_MEM;
        s->lane_first = f;
        s->lcap = cap;
    }
    /* the rounds before the first lane was named are a lane of their own */
    if (s->nlanes == 0 && s->nrounds > 0) s->lane_first[s->nlanes++] = 0;
    s->lane_first[s->nlanes++] = s->nrounds;
    return MPI_SUCCESS;
}

void compi_sched_round(compi_sched *s)
{
    if (s->nrounds && s->round_end[s->nrounds - 1] == s->nops) return; /* an empty round */
    if (s->nrounds == s->rcap) {
        int cap = s->rcap ? 2 * s->rcap : 4;
        int *e = realloc(s->round_end, sizeof *e * (size_t)cap);
        if (!e) {
            s->rc = MPI_ERR_NO_MEM;
            return;
        }
        s->round_end = e;
        s->rcap = cap;
    }
    s->round_end[s->nrounds++] = s->nops;
}

static int compi_sched_msg(compi_sched *s, int type, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, int peer,
                           int sub)
{
    if (peer == MPI_PROC_NULL) return MPI_SUCCESS;
    compi_sched_op *op = compi_sched_add(s, type);
    if (!op) return MPI_ERR_NO_MEM;
    op->sbuf = sbuf;
    op->rbuf = rbuf;
    op->count = count;
    op->peer = peer;
    op->tag = s->p2p ? sub : s->tagbase + sub;
    op->user_dt = dt;
    int rc = compi_type_hold(dt, &op->dt);
    if (rc != MPI_SUCCESS) {
        s->nops--;
        return rc;
    }
    return MPI_SUCCESS;
}

void compi_sched_away(compi_sched *s, int away)
{
    s->away = away;
}

int compi_sched_send(compi_sched *s, const void *buf, int count, MPI_Datatype dt, int peer, int sub)
{
    return compi_sched_msg(s, COMPI_OP_SEND, buf, NULL, count, dt, peer, sub);
}

int compi_sched_recv(compi_sched *s, void *buf, int count, MPI_Datatype dt, int peer, int sub)
{
    return compi_sched_msg(s, COMPI_OP_RECV, NULL, buf, count, dt, peer, sub);
}

int compi_sched_p2p_send(compi_sched *s, const void *buf, int count, MPI_Datatype dt, int dest, int tag)
{
    return compi_sched_msg(s, COMPI_OP_SEND, buf, NULL, count, dt, dest, tag);
}

int compi_sched_p2p_recv(compi_sched *s, void *buf, int count, MPI_Datatype dt, int source, int tag)
{
    int n = s->nops, rc = compi_sched_msg(s, COMPI_OP_RECV, NULL, buf, count, dt, source, tag);
    if (rc == MPI_SUCCESS && s->nops > n) s->result = n;
    return rc;
}

int compi_sched_call(compi_sched *s, compi_sched_fn fn, void *arg)
{
    compi_sched_op *op = compi_sched_add(s, COMPI_OP_CALL);
    if (!op) return MPI_ERR_NO_MEM;
    op->fn = fn;
    op->arg = arg;
    return MPI_SUCCESS;
}

int compi_sched_reduce(compi_sched *s, const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op_)
{
    compi_sched_op *op = compi_sched_add(s, COMPI_OP_REDUCE);
    if (!op) return MPI_ERR_NO_MEM;
    op->sbuf = in;
    op->rbuf = inout;
    op->count = count;
    op->user_dt = op->dt = dt; /* predefined: nothing to hold */
    op->op = op_;
    return MPI_SUCCESS;
}

void *compi_sched_alloc(compi_sched *s, size_t n)
{
    if (s->nmem == s->memcap) {
        int cap = s->memcap ? 2 * s->memcap : 8;
        void **m = realloc(s->mem, sizeof *m * (size_t)cap);
        if (!m) return NULL;
        s->mem = m;
        s->memcap = cap;
    }
    void *p = malloc(n ? n : 1);
    if (p) s->mem[s->nmem++] = p;
    return p;
}

static void compi_sched_free(compi_sched *s)
{
    for (int i = 0; i < s->nops; i++) {
        compi_sched_op *op = &s->ops[i];
        if (op->r) { /* only after an error left it posted: complete it first */
            MPI_Status st;
            int prc = PMPI_Wait(&op->r->inner, &st);
            st.MPI_ERROR = prc;
            compi_req_finish_op(op->r, &st);
            compi_req_destroy(op->r);
        }
        if (op->type == COMPI_OP_SEND || op->type == COMPI_OP_RECV) compi_type_release(op->user_dt, &op->dt);
    }
    for (int i = 0; i < s->nmem; i++) free(s->mem[i]);
    free(s->mem);
    free(s->ops);
    free(s->round_end);
    free(s->lane_first);
    free(s->cur);
    free(s->posted);
    compi_comm_info_release(s->ci);
    free(s);
}

void compi_sched_abandon(compi_sched *s)
{
    compi_sched_free(s);
}

/* ---------------------------------------------------------------- running */

static void compi_sched_fail(compi_sched *s, int rc)
{
    if (rc != MPI_SUCCESS && s->rc == MPI_SUCCESS) s->rc = rc;
}

/* Posts one message step (a failure is recorded in s). */
static void compi_sched_post_msg(compi_sched *s, compi_sched_op *op)
{
    compi_req *r = compi_req_new(op->type == COMPI_OP_SEND ? COMPI_REQ_SEND : COMPI_REQ_RECV, s->x, s->ci, s->fam);
    r->away = s->away;
    int rc = op->type == COMPI_OP_SEND
                 ? compi_post_send(r, op->sbuf, op->count, op->dt, op->peer, op->tag, COMPI_SMODE_STD, s->ci)
                 : compi_post_recv(r, op->rbuf, op->count, op->dt, op->peer, op->tag);
    if (rc != MPI_SUCCESS) {
        compi_sched_fail(s, rc);
        compi_req_destroy(r);
        return;
    }
    if (op->type == COMPI_OP_SEND && !s->p2p) {
        compi_typeinfo ti;
        compi_typeinfo_get(op->dt, op->count, &ti);
        COMPI_NBC_ADD(s->kind, COMPI_NBC_BYTES, ti.size);
        if (compi_peer_is_remote(s->ci, op->peer)) COMPI_NBC_ADD(s->kind, COMPI_NBC_INTER_MSGS, 1);
    }
    op->r = r;
}

/* Posts round k: local steps in order, then its sends, then its receives.
 * A step that fails is recorded and skipped; the others still go, so no
 * peer waits for a message this rank never sends.
 *
 * Sends before receives: a large message goes by rendezvous (the sender
 * announces it, the receiver answers once its receive is posted, then the
 * data moves), and between two ranks the MPI carries both directions'
 * control messages and data on one connection in order. A receive posted
 * before this rank's own send answers a peer's announcement at once; the
 * peer then streams its data, and this rank's announcement, answered by
 * the peer behind that data, waits until it has all passed: the two
 * directions take turns instead of sharing the full-duplex link. With the
 * sends posted first, every rank's announcement leaves before any answer
 * it gives, so each rank's answer precedes its data and both directions
 * move at once. */
static void compi_sched_post_round(compi_sched *s, int k)
{
    int first = k ? s->round_end[k - 1] : 0, end = s->round_end[k];
    for (int i = first; i < end; i++) {
        compi_sched_op *op = &s->ops[i];
        if (op->type == COMPI_OP_CALL) compi_sched_fail(s, op->fn(op->arg));
        else if (op->type == COMPI_OP_REDUCE)
            compi_sched_fail(s, op->count > 0 ? PMPI_Reduce_local(op->sbuf, op->rbuf, op->count, op->dt, op->op)
                                              : MPI_SUCCESS);
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = first; i < end; i++)
            if (s->ops[i].type == (pass ? COMPI_OP_RECV : COMPI_OP_SEND)) compi_sched_post_msg(s, &s->ops[i]);
}

/* Posts round k; a trial call's schedule counts the frames of its every
 * round for its gate, whichever call's scope this runs in. */
static void compi_sched_post(compi_sched *s, int k)
{
    if (!s->gate) {
        compi_sched_post_round(s, k);
        return;
    }
    compi_coll_scope_state outer;
    compi_coll_scope_save(&outer);
    compi_coll_scope_begin(s->probe);
    compi_sched_post_round(s, k);
    uint64_t frame_bytes, saved_bytes;
    compi_coll_scope_end(&frame_bytes, &saved_bytes);
    compi_coll_scope_restore(&outer);
    compi_nbc_gate_count(s->gate, frame_bytes, saved_bytes);
}

/* Completes what finished of round k; 1 when all of it has. */
static int compi_sched_test_round(compi_sched *s, int k)
{
    int first = k ? s->round_end[k - 1] : 0, end = s->round_end[k], pending = 0;
    for (int i = first; i < end; i++) {
        compi_sched_op *op = &s->ops[i];
        if (!op->r) continue;
        int done = 0;
        MPI_Status st;
        int prc = PMPI_Test(&op->r->inner, &done, &st);
        if (!done && prc == MPI_SUCCESS) {
            pending++;
            continue;
        }
        st.MPI_ERROR = prc;
        compi_sched_fail(s, prc);
        compi_sched_fail(s, compi_req_finish_op(op->r, &st));
        if (i == s->result) s->result_st = st;
        compi_req_destroy(op->r);
        op->r = NULL;
    }
    return pending == 0;
}

/* Advances s as far as it goes now, every lane in turn; 1 when it has
 * finished. */
static int compi_sched_advance(compi_sched *s)
{
    if (s->x == MPI_COMM_NULL && !compi_sched_unhold(s)) return s->c == NULL; /* held, or failed */
    int finished = 1;
    for (int j = 0; j < s->nlanes; j++) {
        int last = j + 1 < s->nlanes ? s->lane_first[j + 1] : s->nrounds;
        while (s->cur[j] < last) {
            if (!s->posted[j]) {
                compi_sched_post(s, s->cur[j]);
                s->posted[j] = 1;
            }
            if (!compi_sched_test_round(s, s->cur[j])) break;
            s->cur[j]++;
            s->posted[j] = 0;
        }
        finished &= s->cur[j] >= last;
    }
    return finished;
}

static int compi_nbc_query(void *extra, MPI_Status *st)
{
    (void)extra;
    compi_status_empty(st);
    return MPI_SUCCESS;
}
static int compi_nbc_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
/* Cancelling a collective is erroneous (MPI 5.12): nothing to undo. */
static int compi_nbc_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* Hands the outcome to the application's request and completes it. */
static void compi_sched_finish(compi_sched *s)
{
    compi_req *e = s->entry;
    MPI_Status st;
    if (s->p2p) st = s->result_st;
    else compi_status_empty(&st);
    st.MPI_ERROR = s->rc;
    MPI_Request g = e->inner;
    s->entry = NULL;
    /* the waiting thread may look at e from here on (compi_req_delivered) */
    compi_req_publish(e, s->rc, &st);
    PMPI_Grequest_complete(g);
    compi_sched_free(s);
}

int compi_sched_start(compi_sched *s, MPI_Request *request)
{
    compi_sched_round(s);
    if (s->nlanes == 0 && s->rc == MPI_SUCCESS) compi_sched_lane(s); /* one lane: every round */
    if (s->rc == MPI_SUCCESS) {
        /* the lanes' running rounds: each its first */
        s->cur = malloc(sizeof *s->cur * (size_t)s->nlanes);
        s->posted = calloc((size_t)s->nlanes, sizeof *s->posted);
        if (!s->cur || !s->posted) s->rc = MPI_ERR_NO_MEM;
        for (int j = 0; s->cur && j < s->nlanes; j++) s->cur[j] = s->lane_first[j];
    }
    if (s->rc != MPI_SUCCESS) {
        int rc = s->rc;
        compi_sched_free(s);
        return rc;
    }
    compi_req *e = compi_req_new(COMPI_REQ_NBC, s->comm, s->ci, s->fam);
    int rc = PMPI_Grequest_start(compi_nbc_query, compi_nbc_free, compi_nbc_cancel, NULL, &e->inner);
    if (rc != MPI_SUCCESS) {
        compi_req_destroy(e);
        compi_sched_free(s);
        return rc;
    }
    e->handle = e->inner;
    s->entry = e;
    *request = e->handle;
    compi_req_insert(e);
    if (!s->p2p) COMPI_NBC_ADD(s->kind, COMPI_NBC_COMPI, 1);
    pthread_mutex_lock(&compi_sched_lock);
    compi_sched_locked = 1;
    /* post the first round at once: the MPI moves it from here on */
    int finished = compi_sched_advance(s);
    compi_sched_locked = 0;
    if (finished) {
        pthread_mutex_unlock(&compi_sched_lock);
        compi_sched_finish(s);
        return MPI_SUCCESS;
    }
    if (compi_sched_tail) compi_sched_tail->next = s;
    else compi_sched_head = s;
    compi_sched_tail = s;
    __atomic_add_fetch(&compi_nbc_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_sched_lock);
    return MPI_SUCCESS;
}

static int (*compi_sched_wait)(MPI_Request *request, MPI_Status *status);

void compi_sched_set_wait(int (*wait)(MPI_Request *request, MPI_Status *status))
{
    compi_sched_wait = wait;
}

int compi_sched_run(compi_sched *s)
{
    MPI_Request req;
    int rc = compi_sched_start(s, &req);
    if (rc != MPI_SUCCESS) return rc;
    /* through compi's Wait: it advances this and every other schedule */
    MPI_Status st;
    return compi_sched_wait(&req, &st);
}

int compi_nbc_progress(void)
{
    /* one thread at a time; another one already advancing them suffices */
    if (pthread_mutex_trylock(&compi_sched_lock) != 0) return 0;
    compi_sched_locked = 1;
    int finished = 0;
    compi_sched *done = NULL;
    compi_nbc_comm *ready = NULL;
    if (compi_nbc_setups) compi_nbc_setups_poll(&ready);
    for (compi_sched **p = &compi_sched_head; *p;) {
        compi_sched *s = *p;
        if (!compi_sched_advance(s)) {
            compi_sched_tail = s;
            p = &s->next;
            continue;
        }
        *p = s->next;
        s->next = done;
        done = s;
        finished++;
    }
    if (!compi_sched_head) compi_sched_tail = NULL;
    __atomic_sub_fetch(&compi_nbc_live, finished, __ATOMIC_RELAXED);
    compi_nbc_setups_flush(ready);
    if (__atomic_load_n(&compi_nbc_orphans, __ATOMIC_RELAXED)) compi_nbc_orphans_reap();
    compi_sched_locked = 0;
    pthread_mutex_unlock(&compi_sched_lock);
    while (done) {
        compi_sched *s = done;
        done = s->next;
        compi_sched_finish(s);
    }
    return finished + (ready != NULL);
}

void compi_nbc_drain(MPI_Comm comm)
{
    for (;;) {
        int pending = 0;
        pthread_mutex_lock(&compi_sched_lock);
        for (compi_sched *s = compi_sched_head; s && !pending; s = s->next) pending = s->comm == comm && !s->p2p;
        pthread_mutex_unlock(&compi_sched_lock);
        if (!pending) return;
        if (!compi_nbc_progress()) sched_yield();
    }
}

void compi_nbc_hold(int count, const MPI_Request reqs[], int need_all)
{
    for (unsigned idle = 0; __atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED);) {
        int ready = need_all, any_active = 0;
        for (int i = 0; i < count; i++) {
            int flag = 1;
            if (reqs[i] != MPI_REQUEST_NULL) {
                any_active = 1;
                PMPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE);
            }
            if (need_all && !flag) {
                ready = 0;
                break;
            }
            if (!need_all && flag && reqs[i] != MPI_REQUEST_NULL) {
                ready = 1;
                break;
            }
        }
        if (ready || !any_active) return;
        /* poll as the MPI's own wait does: yielding at every idle turn
         * leaves the sockets undrained while other processes run (on a
         * busy node, half the link's rate) */
        if (compi_nbc_progress()) idle = 0;
        else if ((++idle & 63) == 0) sched_yield();
    }
}
