/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls SimGrid SMPI 3.32 declares but does not implement, for the smpi
 * build flavour (lib/compat/smpi_compat.h says how and why). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compat/smpi_compat.h"

/* A matched message: its status and its whole content, received at the probe. */
typedef struct compi_compat_msg {
    MPI_Status status;
    unsigned char *data;
    int bytes;
    MPI_Fint fint;                 /* its Fortran handle, 0 until asked */
    struct compi_compat_msg *next; /* messages with a Fortran handle */
} compi_compat_msg;

/* Fortran handles of live messages (few: a handle lives from a probe to its
 * receive). Each simulated rank has its own copy: libcompi is privatized. */
static compi_compat_msg *compi_compat_fmsgs;
static MPI_Fint compi_compat_next_fint = 1;

static void compi_compat_status_proc_null(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
}

/* Takes the message a probe found (st) out of MPI into a new handle. */
static int compi_compat_take(const MPI_Status *st, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        compi_compat_status_proc_null(status);
        return MPI_SUCCESS;
    }
    int bytes = 0;
    int rc = PMPI_Get_count(st, MPI_BYTE, &bytes);
    if (rc != MPI_SUCCESS) return rc;
    compi_compat_msg *m = calloc(1, sizeof *m);
    if (!m) return MPI_ERR_NO_MEM;
    m->data = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!m->data) {
        free(m);
        return MPI_ERR_NO_MEM;
    }
    /* the first message from this source with this tag is the probed one
     * (MPI's non-overtaking order), and no receive can run in between */
    rc = PMPI_Recv(m->data, bytes, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, comm, &m->status);
    if (rc != MPI_SUCCESS) {
        free(m->data);
        free(m);
        return rc;
    }
    m->bytes = bytes;
    *message = (MPI_Message)m;
    if (status != MPI_STATUS_IGNORE) *status = m->status;
    return MPI_SUCCESS;
}

int compi_compat_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPI_Status st;
    int rc = PMPI_Probe(source, tag, comm, &st);
    if (rc != MPI_SUCCESS) return rc;
    return compi_compat_take(&st, comm, message, status);
}

int compi_compat_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    MPI_Status st;
    int rc = PMPI_Iprobe(source, tag, comm, flag, &st);
    if (rc != MPI_SUCCESS || !*flag) return rc;
    return compi_compat_take(&st, comm, message, status);
}

static void compi_compat_forget(compi_compat_msg *m)
{
    for (compi_compat_msg **p = &compi_compat_fmsgs; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    free(m->data);
    free(m);
}

/* Delivers a taken message into (buf, count, dt) as a receive would:
 * whole elements, MPI_ERR_TRUNCATE (the buffer's worth delivered) when the
 * message is longer than the buffer. */
static int compi_compat_deliver(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    if (*message == MPI_MESSAGE_NO_PROC) { /* == MPI_MESSAGE_NULL under SMPI */
        compi_compat_status_proc_null(status);
        return MPI_SUCCESS;
    }
    compi_compat_msg *m = (compi_compat_msg *)*message;
    int size = 0;
    int rc = PMPI_Type_size(dt, &size);
    if (rc != MPI_SUCCESS) return rc;
    long long cap = (long long)size * count;
    int fits = m->bytes <= cap;
    int elems = size > 0 ? (int)((fits ? m->bytes : cap) / size) : 0;
    int pos = 0;
    if (elems > 0) rc = PMPI_Unpack(m->data, m->bytes, &pos, buf, elems, dt, MPI_COMM_SELF);
    MPI_Status st = m->status;
    if (rc == MPI_SUCCESS) {
        PMPI_Status_set_elements(&st, MPI_BYTE, fits ? m->bytes : (int)cap);
        if (!fits) rc = MPI_ERR_TRUNCATE;
    }
    st.MPI_ERROR = rc;
    if (status != MPI_STATUS_IGNORE) *status = st;
    compi_compat_forget(m);
    *message = MPI_MESSAGE_NULL;
    return rc;
}

int compi_compat_mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    return compi_compat_deliver(buf, count, dt, message, status);
}

/* A nonblocking matched receive completes at once (the data is here): a
 * generalized request that reports the delivery's status. */
typedef struct {
    MPI_Status status;
} compi_compat_done;

static int compi_compat_done_query(void *extra, MPI_Status *status)
{
    *status = ((compi_compat_done *)extra)->status;
    return MPI_SUCCESS;
}
static int compi_compat_done_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}
static int compi_compat_done_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int compi_compat_imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    compi_compat_done *d = malloc(sizeof *d);
    if (!d) return MPI_ERR_NO_MEM;
    int rc = compi_compat_deliver(buf, count, dt, message, &d->status);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE) {
        free(d);
        return rc;
    }
    /* a truncation is the request's error, reported at its completion */
    rc = PMPI_Grequest_start(compi_compat_done_query, compi_compat_done_free, compi_compat_done_cancel, d, request);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    return PMPI_Grequest_complete(*request);
}

MPI_Fint compi_compat_message_c2f(MPI_Message message)
{
    if (message == MPI_MESSAGE_NULL) return 0;
    compi_compat_msg *m = (compi_compat_msg *)message;
    if (!m->fint) {
        m->fint = compi_compat_next_fint++;
        m->next = compi_compat_fmsgs;
        compi_compat_fmsgs = m;
    }
    return m->fint;
}

MPI_Message compi_compat_message_f2c(MPI_Fint f)
{
    for (compi_compat_msg *m = compi_compat_fmsgs; m && f; m = m->next)
        if (m->fint == f) return (MPI_Message)m;
    return MPI_MESSAGE_NULL;
}

/* Basic elements in one item of dt (0 for an empty type, -1 for a type
 * whose constructor SMPI cannot describe). */
static long long compi_compat_basic_elements(MPI_Datatype dt)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return -1;
    if (combiner == MPI_COMBINER_NAMED) return 1;
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    long long n = -1;
    if (ints && aints && types && PMPI_Type_get_contents(dt, ni, na, nd, ints, aints, types) == MPI_SUCCESS) {
        long long reps = -1;
        switch (combiner) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED: reps = 1; break;
        case MPI_COMBINER_CONTIGUOUS: reps = ints[0]; break;
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR: reps = (long long)ints[0] * ints[1]; break;
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK: reps = (long long)ints[0] * ints[1]; break;
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED:
            reps = 0;
            for (int i = 0; i < ints[0]; i++) reps += ints[1 + i];
            break;
        case MPI_COMBINER_STRUCT:
            n = 0;
            for (int i = 0; i < ints[0] && n >= 0; i++) {
                long long e = compi_compat_basic_elements(types[i]);
                n = e < 0 ? -1 : n + (long long)ints[1 + i] * e;
            }
            break;
        default: break;
        }
        if (reps >= 0) {
            long long e = compi_compat_basic_elements(types[0]);
            n = e < 0 ? -1 : reps * e;
        }
    }
    free(ints);
    free(aints);
    free(types);
    return n;
}

int compi_compat_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    int bytes = 0, size = 0;
    int rc = PMPI_Get_count(status, MPI_BYTE, &bytes);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_size(dt, &size);
    if (rc != MPI_SUCCESS) return rc;
    if (dt == MPI_BYTE || size == 1) {
        *count = bytes;
        return MPI_SUCCESS;
    }
    long long per = compi_compat_basic_elements(dt);
    if (per < 0) return MPI_ERR_TYPE;
    /* whole items; a partial last item counts its whole basic elements only
     * when the type is one basic type repeated (every element the same size) */
    long long whole = size > 0 ? bytes / size : 0;
    long long rest = size > 0 ? bytes % size : 0;
    long long elsize = per > 0 ? size / per : 0;
    if (rest && (elsize == 0 || (long long)size != per * elsize || rest % elsize)) {
        *count = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *count = whole * per + (rest ? rest / elsize : 0);
    return MPI_SUCCESS;
}

int compi_compat_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    MPI_Count n = 0;
    int rc = compi_compat_get_elements_x(status, dt, &n);
    if (rc == MPI_SUCCESS) *count = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int compi_compat_topo_test(MPI_Comm comm, int *status)
{
    (void)comm;
    *status = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ------------------------------------------- compi's side channel (see .h) */

/* SMPI's request calls (C++ static members of simgrid::smpi::Request,
 * exported by libsimgrid; MPI handles are pointers to those classes). */
extern MPI_Request _ZN7simgrid4smpi7Request5isendEPKviPNS0_8DatatypeEiiPNS0_4CommE(const void *buf, int count,
                                                                                   MPI_Datatype dt, int dst, int tag,
                                                                                   MPI_Comm comm);
extern MPI_Request _ZN7simgrid4smpi7Request5irecvEPviPNS0_8DatatypeEiiPNS0_4CommE(void *buf, int count, MPI_Datatype dt,
                                                                                  int src, int tag, MPI_Comm comm);
extern void _ZN7simgrid4smpi7Request6iprobeEiiPNS0_4CommEPiP10MPI_Status(int source, int tag, MPI_Comm comm, int *flag,
                                                                         MPI_Status *status);

/* compi's side tag t (0 .. COMPI_COMPAT_SIDE_TAG_UB) on the wire */
static int compi_compat_side_tag(int tag)
{
    return -(1 << 30) - tag;
}

static int compi_compat_side_check(int world, int tag)
{
    int size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (world < 0 || world >= size) return MPI_ERR_RANK;
    return tag < 0 || tag > COMPI_COMPAT_SIDE_TAG_UB ? MPI_ERR_TAG : MPI_SUCCESS;
}

/* As SMPI's own MPI calls do, the host time since the last MPI call is
 * charged to the simulated rank before the call (smpi_bench_end) and
 * measuring starts again after it. */
int compi_compat_side_isend(const void *buf, int n, int world, int tag, MPI_Request *req)
{
    int rc = compi_compat_side_check(world, tag);
    if (rc != MPI_SUCCESS) return rc;
    smpi_bench_end();
    *req = _ZN7simgrid4smpi7Request5isendEPKviPNS0_8DatatypeEiiPNS0_4CommE(buf, n, MPI_BYTE, world,
                                                                           compi_compat_side_tag(tag), MPI_COMM_WORLD);
    smpi_bench_begin();
    return MPI_SUCCESS;
}

int compi_compat_side_irecv(void *buf, int n, int world, int tag, MPI_Request *req)
{
    int rc = compi_compat_side_check(world, tag);
    if (rc != MPI_SUCCESS) return rc;
    smpi_bench_end();
    *req = _ZN7simgrid4smpi7Request5irecvEPviPNS0_8DatatypeEiiPNS0_4CommE(buf, n, MPI_BYTE, world,
                                                                          compi_compat_side_tag(tag), MPI_COMM_WORLD);
    smpi_bench_begin();
    return MPI_SUCCESS;
}

int compi_compat_side_iprobe(int world, int tag, int *flag, MPI_Status *st)
{
    int rc = compi_compat_side_check(world, tag);
    if (rc != MPI_SUCCESS) return rc;
    smpi_bench_end();
    _ZN7simgrid4smpi7Request6iprobeEiiPNS0_4CommEPiP10MPI_Status(world, compi_compat_side_tag(tag), MPI_COMM_WORLD,
                                                                 flag, st);
    smpi_bench_begin();
    return MPI_SUCCESS;
}
