/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's side channel (side.h): the communicator, its tags, and the parts
 * of failed messages that still come over it. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "core/requests.h"
#include "core/side.h"
#include "core/state.h"
#include "core/stats.h"

static unsigned compi_side_seq;

/* compi's side channel: a duplicate of MPI_COMM_WORLD, made in MPI_Init;
 * in the smpi flavour, MPI_COMM_WORLD itself with tags no application
 * message can carry or match (lib/compat/smpi_compat.h), since SMPI pays a
 * ring over all ranks for every communicator that spans them. */
int compi_side_open(void)
{
#ifdef COMPI_COMPAT_SIDE_ON_WORLD
    compi_g.aside_comm = MPI_COMM_WORLD;
    compi_g.aside_tag_ub = COMPI_COMPAT_SIDE_TAG_UB;
    return MPI_SUCCESS;
#else
    int rc = PMPI_Comm_dup(MPI_COMM_WORLD, &compi_g.aside_comm);
    /* compi judges what goes wrong on its side communicator (a chunk longer
     * than declared is a damaged message, not a reason to abort the job) */
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(compi_g.aside_comm, MPI_ERRORS_RETURN);
    return rc;
#endif
}

void compi_side_close(void)
{
#ifndef COMPI_COMPAT_SIDE_ON_WORLD
    if (compi_g.aside_comm != MPI_COMM_NULL) PMPI_Comm_free(&compi_g.aside_comm);
#endif
    compi_g.aside_comm = MPI_COMM_NULL;
}

#ifdef COMPI_COMPAT_SIDE_ON_WORLD
int compi_side_isend(const void *buf, int n, int world, int tag, MPI_Request *req)
{
    return compi_compat_side_isend(buf, n, world, tag, req);
}

int compi_side_irecv(void *buf, int n, int world, int tag, MPI_Request *req)
{
    return compi_compat_side_irecv(buf, n, world, tag, req);
}

int compi_side_iprobe(int world, int tag, int *flag, MPI_Status *st)
{
    return compi_compat_side_iprobe(world, tag, flag, st);
}
#else
int compi_side_isend(const void *buf, int n, int world, int tag, MPI_Request *req)
{
    return PMPI_Isend(buf, n, MPI_BYTE, world, tag, compi_g.aside_comm, req);
}

int compi_side_irecv(void *buf, int n, int world, int tag, MPI_Request *req)
{
    return PMPI_Irecv(buf, n, MPI_BYTE, world, tag, compi_g.aside_comm, req);
}

int compi_side_iprobe(int world, int tag, int *flag, MPI_Status *st)
{
    return PMPI_Iprobe(world, tag, compi_g.aside_comm, flag, st);
}
#endif

int compi_side_tag(void)
{
    return (int)(__atomic_fetch_add(&compi_side_seq, 1, __ATOMIC_RELAXED) % ((unsigned)compi_g.aside_tag_ub + 1u));
}

/* A side receive that may need its sender to end: completed in the
 * background like a request the application freed; buf freed then. */
static void compi_side_orphan_recv(MPI_Request req, void *buf)
{
    compi_req *r = compi_req_new(COMPI_REQ_RECV, compi_g.aside_comm, NULL, COMPI_FAM_SEND);
    r->inner = req;
    r->landing = buf;
    compi_orphan_add(r);
}

int compi_side_recv_abandon(MPI_Request *req, void *buf)
{
    int done = 0, cancelled = 0;
    MPI_Status st;
    PMPI_Cancel(req);
    /* one not yet matched is complete now, cancelled */
    int rc = PMPI_Test(req, &done, &st);
    if (done) {
        if (rc == MPI_SUCCESS) PMPI_Test_cancelled(&st, &cancelled);
        /* complete with an error (a chunk longer than the slot): an MPI
         * may keep such a request (Open MPI 4.1's MPI_Test does) */
        if (rc != MPI_SUCCESS && *req != MPI_REQUEST_NULL) PMPI_Request_free(req);
        *req = MPI_REQUEST_NULL;
        free(buf);
        return cancelled;
    }
    compi_side_orphan_recv(*req, buf);
    *req = MPI_REQUEST_NULL;
    return 0;
}

/* Stale side messages still due, per (world rank, tag); few (one per failed
 * message), so a list. */
typedef struct compi_side_stale {
    struct compi_side_stale *next;
    int world, tag;
    size_t due;
} compi_side_stale;
static compi_side_stale *compi_stale;
static int compi_stale_live;

/* Stale messages expected on another communicator of compi's own: every
 * one's receive posted at once (compi_side_stale_expect). */
typedef struct compi_side_expect {
    struct compi_side_expect *next;
    int n;
    size_t left;
    MPI_Request *req;
    void **buf;
} compi_side_expect;
static compi_side_expect *compi_expect;

static void compi_side_expect_free(compi_side_expect *e)
{
    for (int i = 0; i < e->n; i++) free(e->buf[i]);
    free(e->buf);
    free(e->req);
    free(e);
}

static void compi_side_stale_relive(void)
{
    __atomic_store_n(&compi_stale_live, compi_stale != NULL || compi_expect != NULL, __ATOMIC_RELAXED);
}

size_t compi_side_stale_expect(MPI_Comm comm, int source, int tag, size_t count, size_t cap)
{
    compi_side_expect *e = count && count <= (size_t)1 << 24 ? calloc(1, sizeof *e) : NULL;
    if (e && (!(e->req = malloc(sizeof(MPI_Request) * count)) || !(e->buf = calloc(count, sizeof(void *))))) {
        compi_side_expect_free(e);
        e = NULL;
    }
    if (!e) return count;
    for (size_t i = 0; i < count; i++) {
        e->buf[i] = malloc(cap ? cap : 1);
        if (!e->buf[i] || PMPI_Irecv(e->buf[i], (int)cap, MPI_BYTE, source, tag, comm, &e->req[i]) != MPI_SUCCESS) {
            free(e->buf[i]);
            e->buf[i] = NULL;
            break;
        }
        e->n++;
    }
    size_t unposted = count - (size_t)e->n;
    if (!e->n) {
        compi_side_expect_free(e);
        return unposted;
    }
    e->left = (size_t)e->n;
    pthread_mutex_lock(&compi_g.lock);
    e->next = compi_expect;
    compi_expect = e;
    compi_side_stale_relive();
    pthread_mutex_unlock(&compi_g.lock);
    return unposted;
}

/* The expected stale messages that arrived: their buffers freed. Returns
 * how many are still due. */
static size_t compi_side_expect_take(void)
{
    pthread_mutex_lock(&compi_g.lock);
    compi_side_expect *list = compi_expect, *keep = NULL;
    compi_expect = NULL;
    pthread_mutex_unlock(&compi_g.lock);
    size_t due = 0;
    while (list) {
        compi_side_expect *e = list;
        list = e->next;
        for (int i = 0; i < e->n; i++) {
            int done = 0;
            if (e->req[i] == MPI_REQUEST_NULL) continue;
            /* an error (a message longer than its buffer) completes it too */
            if (PMPI_Test(&e->req[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS && e->req[i] != MPI_REQUEST_NULL)
                PMPI_Request_free(&e->req[i]), done = 1;
            if (!done) continue;
            e->req[i] = MPI_REQUEST_NULL;
            free(e->buf[i]);
            e->buf[i] = NULL;
            e->left--;
        }
        if (e->left) {
            due += e->left;
            e->next = keep;
            keep = e;
        } else {
            compi_side_expect_free(e);
        }
    }
    pthread_mutex_lock(&compi_g.lock);
    if (keep) {
        compi_side_expect *tail = keep;
        while (tail->next) tail = tail->next;
        tail->next = compi_expect;
        compi_expect = keep;
    }
    compi_side_stale_relive();
    pthread_mutex_unlock(&compi_g.lock);
    return due;
}

void compi_side_stale_add(int world, int tag, size_t count)
{
    compi_side_stale *s = malloc(sizeof *s);
    if (!s) return; /* then nothing takes them: as before a failure was known */
    s->world = world;
    s->tag = tag;
    s->due = count;
    pthread_mutex_lock(&compi_g.lock);
    s->next = compi_stale;
    compi_stale = s;
    compi_side_stale_relive();
    pthread_mutex_unlock(&compi_g.lock);
}

void compi_side_stale_take(void)
{
    if (!__atomic_load_n(&compi_stale_live, __ATOMIC_RELAXED)) return;
    compi_side_expect_take();
    /* detached, so that PMPI calls run without the lock */
    pthread_mutex_lock(&compi_g.lock);
    compi_side_stale *list = compi_stale, *keep = NULL;
    compi_stale = NULL;
    pthread_mutex_unlock(&compi_g.lock);
    while (list) {
        compi_side_stale *s = list;
        list = s->next;
        for (;;) {
            int flag = 0, n = 0;
            MPI_Status st;
            if (!s->due || compi_side_iprobe(s->world, s->tag, &flag, &st) != MPI_SUCCESS || !flag) break;
            PMPI_Get_count(&st, MPI_BYTE, &n);
            void *b = malloc(n > 0 ? (size_t)n : 1);
            MPI_Request q;
            if (!b || compi_side_irecv(b, n > 0 ? n : 0, s->world, s->tag, &q) != MPI_SUCCESS) {
                free(b);
                break;
            }
            compi_side_orphan_recv(q, b); /* may need its sender to end: completed in the background */
            s->due--;
        }
        if (s->due) {
            s->next = keep;
            keep = s;
        } else {
            free(s);
        }
    }
    pthread_mutex_lock(&compi_g.lock);
    if (keep) {
        compi_side_stale *tail = keep;
        while (tail->next) tail = tail->next;
        tail->next = compi_stale;
        compi_stale = keep;
    }
    compi_side_stale_relive();
    pthread_mutex_unlock(&compi_g.lock);
}

void compi_side_stale_finish(void)
{
    if (!__atomic_load_n(&compi_stale_live, __ATOMIC_RELAXED)) return;
    double wait_s = compi_cfg.chunk_wait_s > 0 ? compi_cfg.chunk_wait_s : compi_cfg.escape_wait_s;
    uint64_t deadline = compi_now_ns() + (uint64_t)(wait_s * 1e9);
    while (__atomic_load_n(&compi_stale_live, __ATOMIC_RELAXED) && compi_now_ns() < deadline) {
        compi_orphans_progress(0); /* takes the stale ones too */
        sched_yield();
    }
    compi_orphans_progress(1);
    size_t never = compi_side_expect_take();
    pthread_mutex_lock(&compi_g.lock);
    while (compi_stale) {
        compi_side_stale *s = compi_stale;
        compi_stale = s->next;
        never += s->due;
        free(s);
    }
    compi_side_expect *e = compi_expect;
    compi_expect = NULL;
    compi_stale_live = 0;
    pthread_mutex_unlock(&compi_g.lock);
    /* receives posted for messages that never came: cancelled (one the MPI
     * matched already completes as its message ends) */
    while (e) {
        compi_side_expect *next = e->next;
        for (int i = 0; i < e->n; i++)
            if (e->req[i] != MPI_REQUEST_NULL) {
                PMPI_Cancel(&e->req[i]);
                PMPI_Wait(&e->req[i], MPI_STATUS_IGNORE);
            }
        compi_side_expect_free(e);
        e = next;
    }
    if (never)
        compi_log(0, "%zu part(s) of messages that failed never arrived (waited %g s at MPI_Finalize)", never, wait_s);
}
