/* SPDX-License-Identifier: BSD-3-Clause */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/datatype.h"
#include "core/recv.h"
#include "core/stash.h"
#include "core/state.h"

/* Fortran message handles of compi's messages: above this base, far from
 * the small table indices Open MPI uses for its own. */
#define COMPI_FMSG_BASE 0x40000000

static compi_stashed *compi_stash_head, *compi_stash_tail;
static compi_stashed *compi_claimed;
static unsigned compi_claim_seq, compi_fint_seq;
int compi_stash_live;

static int compi_stash_matches(const compi_stashed *s, MPI_Comm comm, int source, int tag)
{
    return s->comm == comm && (source == MPI_ANY_SOURCE || source == s->source) &&
           (tag == MPI_ANY_TAG || tag == s->tag);
}

static compi_stashed *compi_stash_find(MPI_Comm comm, int source, int tag, int remove)
{
    if (!__atomic_load_n(&compi_stash_live, __ATOMIC_RELAXED)) return NULL;
    pthread_mutex_lock(&compi_g.lock);
    compi_stashed *prev = NULL, *s = compi_stash_head;
    while (s && !compi_stash_matches(s, comm, source, tag)) {
        prev = s;
        s = s->next;
    }
    if (s && remove) {
        if (prev) prev->next = s->next;
        else compi_stash_head = s->next;
        if (compi_stash_tail == s) compi_stash_tail = prev;
        s->next = NULL;
        __atomic_sub_fetch(&compi_stash_live, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&compi_g.lock);
    return s;
}

compi_stashed *compi_stash_peek(MPI_Comm comm, int source, int tag)
{
    return compi_stash_find(comm, source, tag, 0);
}

compi_stashed *compi_stash_take(MPI_Comm comm, int source, int tag)
{
    return compi_stash_find(comm, source, tag, 1);
}

void compi_stash_append(compi_stashed *s)
{
    pthread_mutex_lock(&compi_g.lock);
    s->next = NULL;
    if (compi_stash_tail) compi_stash_tail->next = s;
    else compi_stash_head = s;
    compi_stash_tail = s;
    __atomic_add_fetch(&compi_stash_live, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_g.lock);
}

/* Frees an entry; the chunks of a pipelined one are received and dropped
 * (nothing may stay on compi's side communicator). */
static void compi_stash_free(compi_stashed *s)
{
    if (s->pipelined) {
        compi_typeinfo ti;
        compi_typeinfo_get(MPI_BYTE, 0, &ti);
        MPI_Status st = s->status;
        compi_pipe_receive(s->ci, s->source, &s->pipe_h, NULL, 0, MPI_BYTE, &ti, &st, s->comm);
        compi_comm_info_release(s->ci);
    }
    free(s->frame);
    free(s);
}

void compi_stash_purge(MPI_Comm comm)
{
    if (!__atomic_load_n(&compi_stash_live, __ATOMIC_RELAXED)) return;
    pthread_mutex_lock(&compi_g.lock);
    compi_stashed **p = &compi_stash_head, *last = NULL, *gone = NULL;
    int dropped = 0;
    while (*p) {
        compi_stashed *s = *p;
        if (s->comm == comm) {
            *p = s->next;
            s->next = gone;
            gone = s;
            dropped++;
        } else {
            last = s;
            p = &s->next;
        }
    }
    compi_stash_tail = last;
    __atomic_sub_fetch(&compi_stash_live, dropped, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&compi_g.lock);
    while (gone) { /* outside the lock: draining chunks calls MPI */
        compi_stashed *s = gone;
        gone = s->next;
        compi_stash_free(s);
    }
    if (dropped) compi_log(2, "%d probed message(s) dropped with their freed communicator", dropped);
}

compi_stashed *compi_stash_pull(MPI_Message *msg, const MPI_Status *probe_status, MPI_Comm comm, int *rc)
{
    MPI_Count wire = 0;
    PMPI_Get_elements_x(probe_status, MPI_BYTE, &wire);
    compi_stashed *s = calloc(1, sizeof *s);
    unsigned char *frame = malloc(wire > 0 ? (size_t)wire : 1);
    if (!s || !frame) {
        free(s);
        free(frame);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    MPI_Status st;
    int wcount;
    MPI_Datatype wtype;
    *rc = compi_bytes_type((size_t)wire, &wcount, &wtype); /* a frame may exceed an int count */
    if (*rc == MPI_SUCCESS) {
        *rc = PMPI_Mrecv(frame, wcount, wtype, msg, &st);
        compi_bytes_type_free(&wtype);
    }
    if (*rc != MPI_SUCCESS) {
        free(s);
        free(frame);
        return NULL;
    }
    compi_frame_header h;
    char why[200];
    const compi_comm_info *ci = compi_comm_lookup(comm);
    compi_arrival kind =
        compi_arrival_resolve(ci, st.MPI_SOURCE, frame, (size_t)wire, (size_t)wire, 0, &h, rc, why, sizeof why);
    if (*rc == MPI_SUCCESS && kind == COMPI_ARRIVAL_BAD) *rc = compi_frame_fail(comm, &st, why);
    if (*rc == MPI_SUCCESS && kind == COMPI_ARRIVAL_FRAME && h.codec == COMPI_CODEC_CHUNKED) {
        /* A pipelined message: the header is all a probe needs; the chunks
         * go straight to the application's buffer when it receives. */
        if (!compi_frame_length_check(&h, (uint64_t)wire - COMPI_FRAME_HEADER_SIZE, why, sizeof why)) {
            *rc = compi_frame_fail(comm, &st, why);
        } else if (h.payload_len > (uint64_t)compi_g.aside_tag_ub) {
            snprintf(why, sizeof why, "pipelined message names side tag %llu (MPI_TAG_UB is %d)",
                     (unsigned long long)h.payload_len, compi_g.aside_tag_ub);
            *rc = compi_frame_fail(comm, &st, why);
        } else {
            s->pipelined = 1;
            s->pipe_h = h;
            s->ci = compi_comm_info_hold(ci);
            free(frame);
            frame = NULL;
            wire = 0;
        }
    }
    if (*rc != MPI_SUCCESS) {
        free(s);
        free(frame);
        return NULL;
    }
    s->unframed = kind == COMPI_ARRIVAL_UNFRAMED; /* a pipelined message counts original bytes below */
    s->comm = comm;
    s->source = st.MPI_SOURCE;
    s->tag = st.MPI_TAG;
    s->frame = frame;
    s->frame_len = (size_t)wire;
    s->status = st;
    s->handle = MPI_MESSAGE_NULL;
    PMPI_Status_set_elements_x(&s->status, MPI_BYTE, (MPI_Count)(s->unframed ? (uint64_t)wire : h.original_len));
    return s;
}

int compi_stash_begin(compi_stashed *s, compi_incoming *in)
{
    MPI_Status st = s->status;
    int rc = compi_pipe_recv_begin(s->ci, s->source, &s->pipe_h, in->buf, in->count, in->dt, &in->ti, &st, s->comm,
                                   &in->pipe);
    if (!in->pipe) return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN;
    in->stashed = 1;
    in->stash_st = s->status;
    compi_comm_info_release(s->ci);
    s->pipelined = 0;
    compi_stash_free(s);
    return MPI_SUCCESS;
}

int compi_stash_deliver(compi_stashed *s, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    *st = s->status;
    int rc;
    if (s->pipelined) {
        compi_typeinfo ti;
        compi_typeinfo_get(dt, count, &ti);
        rc = compi_pipe_receive(s->ci, s->source, &s->pipe_h, buf, count, dt, &ti, st, s->comm);
        compi_comm_info_release(s->ci);
        s->pipelined = 0;
    } else {
        rc = s->unframed ? compi_bytes_deliver(s->frame, s->frame_len, buf, count, dt, st)
                         : compi_frame_deliver(s->frame, s->frame_len, buf, count, dt, st, s->comm);
    }
    compi_stash_free(s);
    return rc;
}

/* Handles: Open MPI's MPI_Message is a pointer, MPICH's an int. compi's
 * handles are values no MPI hands out: the entry's own address where the
 * handle is pointer-sized, else an int with MPICH's handle-kind bits clear
 * (kind 0 is used only by null handles, which have object bits set). */
void compi_message_claim(compi_stashed *s, MPI_Message *out)
{
    MPI_Message m;
    memset(&m, 0, sizeof m);
    pthread_mutex_lock(&compi_g.lock);
    if (sizeof(MPI_Message) >= sizeof(void *)) {
        memcpy(&m, &s, sizeof s);
    } else {
        unsigned v = 0x00100000u | (++compi_claim_seq & 0x000fffffu);
        memcpy(&m, &v, sizeof v < sizeof m ? sizeof v : sizeof m);
    }
    s->handle = m;
    s->fint = (MPI_Fint)(COMPI_FMSG_BASE + (++compi_fint_seq & 0x0fffffff));
    s->next = compi_claimed;
    compi_claimed = s;
    pthread_mutex_unlock(&compi_g.lock);
    *out = m;
}

compi_stashed *compi_message_release(MPI_Message m)
{
    if (!compi_claimed) return NULL;
    pthread_mutex_lock(&compi_g.lock);
    compi_stashed **p = &compi_claimed, *s = NULL;
    for (; *p; p = &(*p)->next) {
        if (memcmp(&(*p)->handle, &m, sizeof m) == 0) {
            s = *p;
            *p = s->next;
            s->next = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&compi_g.lock);
    return s;
}

static compi_stashed *compi_claimed_find(int by_fint, MPI_Fint f, MPI_Message m)
{
    compi_stashed *s;
    pthread_mutex_lock(&compi_g.lock);
    for (s = compi_claimed; s; s = s->next)
        if (by_fint ? s->fint == f : memcmp(&s->handle, &m, sizeof m) == 0) break;
    pthread_mutex_unlock(&compi_g.lock);
    return s;
}

/* Where MPI_Message is an int (MPICH), the MPI's own Fortran layer converts
 * by a cast (MPI_Message_c2f/f2c are macros), so compi's Fortran-facing
 * value must be the C handle itself: its f08 entry points and the _f08ts_
 * calls that MPICH sends to the C MPI_Mrecv then agree on one value. */
MPI_Fint compi_message_c2f(MPI_Message m)
{
    if (sizeof(MPI_Message) == sizeof(MPI_Fint)) {
        MPI_Fint f;
        memcpy(&f, &m, sizeof f);
        return f;
    }
    compi_stashed *s = compi_claimed_find(0, 0, m);
    return s ? s->fint : PMPI_Message_c2f(m);
}

MPI_Message compi_message_f2c(MPI_Fint f)
{
    if (sizeof(MPI_Message) == sizeof(MPI_Fint)) {
        MPI_Message m;
        memcpy(&m, &f, sizeof m);
        return m;
    }
    compi_stashed *s = f >= COMPI_FMSG_BASE ? compi_claimed_find(1, f, MPI_MESSAGE_NULL) : NULL;
    return s ? s->handle : PMPI_Message_f2c(f);
}
