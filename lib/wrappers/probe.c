/* SPDX-License-Identifier: BSD-3-Clause */
/* Probes report the application's count, so a probed framed (inter-node)
 * message is received at once (matched probe + receive) and stashed; see
 * core/stash.h. Same-node messages are unframed and stay in MPI. */
#include <sched.h>
#include <stdlib.h>
#include "core/comm.h"
#include "core/requests.h"
#include "core/stash.h"
#include "core/stats.h"
#include "core/status.h"
#include "wrappers/impl.h"

/* Finds the next matching message: stash first (older), else MPI. On
 * success either *out is a detached or stashed entry (per keep_in_stash),
 * or *out is NULL and the message is a same-node one still in MPI: *direct
 * is its status and, for matched probes, *direct_msg its PMPI handle
 * (unframed, it needs nothing from compi). */
static int compi_probe_common(int source, int tag, MPI_Comm comm, int blocking, int keep_in_stash, int *flag,
                              compi_stashed **out, MPI_Status *direct, MPI_Message *direct_msg)
{
    *out = keep_in_stash ? compi_stash_peek(comm, source, tag) : compi_stash_take(comm, source, tag);
    if (*out) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    const compi_comm_info *ci = compi_comm_lookup(comm);
    MPI_Message msg;
    MPI_Status st;
    int rc;
    if (keep_in_stash) {
        /* A plain probe looks first: a same-node message is unframed and can
         * stay in MPI (an Issend to a same-node rank then completes only
         * when it is received, as without compi). */
        rc = blocking ? (*flag = 1, PMPI_Probe(source, tag, comm, &st)) : PMPI_Iprobe(source, tag, comm, flag, &st);
        if (rc != MPI_SUCCESS || !*flag) return rc;
        if (!compi_peer_is_remote(ci, st.MPI_SOURCE)) {
            *direct = st;
            return MPI_SUCCESS;
        }
        /* Inter-node: only the header knows the count; take that very message. */
        source = st.MPI_SOURCE;
        tag = st.MPI_TAG;
        blocking = 1;
    }
    rc = blocking ? (*flag = 1, PMPI_Mprobe(source, tag, comm, &msg, &st))
                  : PMPI_Improbe(source, tag, comm, flag, &msg, &st);
    if (rc != MPI_SUCCESS || !*flag) return rc;
    if (!compi_peer_is_remote(ci, st.MPI_SOURCE)) {
        *direct = st;
        *direct_msg = msg;
        return MPI_SUCCESS;
    }
    compi_stashed *s = compi_stash_pull(&msg, &st, comm, &rc);
    if (!s) return compi_raise(comm, rc);
    if (keep_in_stash) compi_stash_append(s);
    *out = s;
    return MPI_SUCCESS;
}

/* A blocking probe while a nonblocking collective of compi's is live: its
 * nonblocking twin, polled with the schedules (see p2p.c's
 * compi_nbc_blocking_send); 0 when none is live. */
static int compi_nbc_probe_poll(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status, int *rc)
{
    if (!__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED)) return 0;
    for (int flag = 0; !flag;) {
        *rc = message ? compi_impl_Improbe(source, tag, comm, &flag, message, status)
                      : compi_impl_Iprobe(source, tag, comm, &flag, status);
        if (*rc != MPI_SUCCESS) return 1;
        if (!flag && !compi_nbc_progress()) sched_yield();
    }
    return 1;
}

int compi_impl_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int prc;
    if (compi_nbc_probe_poll(source, tag, comm, NULL, status, &prc)) return prc;
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Probe(source, tag, comm, status);
    int flag;
    compi_stashed *s;
    MPI_Status direct;
    int rc = compi_probe_common(source, tag, comm, 1, 1, &flag, &s, &direct, NULL);
    if (rc == MPI_SUCCESS) compi_status_out(status, s ? &s->status : &direct);
    COMPI_STAT_ADD(messages[COMPI_FAM_PROBE], 1);
    return rc;
}

int compi_impl_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    /* polling loops drive progress: requests the application freed while
     * active complete here too, as they would inside MPI */
    compi_orphans_progress(0);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Iprobe(source, tag, comm, flag, status);
    compi_stashed *s;
    MPI_Status direct;
    int rc = compi_probe_common(source, tag, comm, 0, 1, flag, &s, &direct, NULL);
    if (rc == MPI_SUCCESS && *flag) compi_status_out(status, s ? &s->status : &direct);
    COMPI_STAT_ADD(messages[COMPI_FAM_PROBE], 1);
    return rc;
}

/* Matched probes hand out compi's handle for a stashed message, or MPI's own
 * for a same-node one (which Mrecv then passes to PMPI untouched). */
static void compi_mprobe_out(compi_stashed *s, const MPI_Status *direct, MPI_Message direct_msg, MPI_Message *message,
                             MPI_Status *status)
{
    if (s) {
        compi_status_out(status, &s->status);
        compi_message_claim(s, message);
    } else {
        compi_status_out(status, direct);
        *message = direct_msg;
    }
    COMPI_STAT_ADD(messages[COMPI_FAM_PROBE], 1);
}

int compi_impl_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int prc;
    if (compi_nbc_probe_poll(source, tag, comm, message, status, &prc)) return prc;
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Mprobe(source, tag, comm, message, status);
    int flag;
    compi_stashed *s;
    MPI_Status direct;
    MPI_Message direct_msg = MPI_MESSAGE_NULL;
    int rc = compi_probe_common(source, tag, comm, 1, 0, &flag, &s, &direct, &direct_msg);
    if (rc != MPI_SUCCESS) return rc;
    compi_mprobe_out(s, &direct, direct_msg, message, status);
    return MPI_SUCCESS;
}

int compi_impl_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    compi_orphans_progress(0);
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (compi_p2p_plain(ci, source)) return PMPI_Improbe(source, tag, comm, flag, message, status);
    compi_stashed *s;
    MPI_Status direct;
    MPI_Message direct_msg = MPI_MESSAGE_NULL;
    int rc = compi_probe_common(source, tag, comm, 0, 0, flag, &s, &direct, &direct_msg);
    if (rc != MPI_SUCCESS || !*flag) return rc;
    compi_mprobe_out(s, &direct, direct_msg, message, status);
    return MPI_SUCCESS;
}

int compi_impl_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    compi_stashed *s = compi_message_release(*message);
    if (!s) return PMPI_Mrecv(buf, count, dt, message, status);
    MPI_Comm comm = s->comm;
    MPI_Status st;
    int rc = compi_stash_deliver(s, buf, count, dt, &st);
    *message = MPI_MESSAGE_NULL;
    compi_status_out(status, &st);
    COMPI_STAT_ADD(messages[COMPI_FAM_MRECV], 1);
    return compi_raise(comm, rc);
}

int compi_impl_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    compi_stashed *s = compi_message_release(*message);
    if (!s) return PMPI_Imrecv(buf, count, dt, message, request);
    compi_req *r = compi_req_new(COMPI_REQ_RECV, s->comm, NULL, COMPI_FAM_MRECV);
    int rc = compi_post_stashed(r, s, buf, count, dt);
    if (rc != MPI_SUCCESS) {
        compi_req_destroy(r);
        return rc;
    }
    r->handle = r->inner;
    *request = r->handle;
    *message = MPI_MESSAGE_NULL;
    compi_req_insert(r);
    if (!r->in) COMPI_STAT_ADD(messages[COMPI_FAM_MRECV], 1); /* else counted at completion */
    return MPI_SUCCESS;
}
