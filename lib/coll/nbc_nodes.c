/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware schedules of the nonblocking reductions (nbc.h), for
 * communicators where some node holds several ranks:
 *
 *   round 1  every rank sends its vector to its node's leader (inside the
 *            node: plain)
 *   round 2  each leader combines its node's vectors (its own first, then
 *            its members' in rank order) and sends every segment another
 *            node owns to that node's leader (compressed: between nodes)
 *   round 3  each leader combines, for the segments its node owns, the
 *            other nodes' partials in node order, and hands the results on:
 *              allreduce       to every other leader (an allgather)
 *              reduce          to the root
 *              reduce_scatter  each member's block to that member
 *   round 4  allreduce only: the leader sends the whole result inside its
 *            node
 *
 * The vector is cut into segments, each owned by one node: allreduce and
 * reduce one segment per node (the equal split of engine/leaders.h);
 * reduce_scatter one per rank (its block), owned by that rank's node. Only
 * the leaders' segments cross nodes: each node's link carries the vector
 * about twice, once out and once back, whatever the ranks per node (the
 * direct schedule sends every rank's shares across it). One leader
 * combines each segment and every rank gets those bits, so all ranks agree
 * on the result. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "engine/leaders.h"

typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
    int count;
    size_t ext, span; /* an element's extent; the bytes count elements touch */
    char *acc;        /* leader: my node's partial, then my segments' results */
    char **mine;      /* leader: each member's vector (local_size - 1) */
    int nmine;
    int nseg, nnodes, my_node;
    const int *start, *len, *owner; /* per segment; owner: a node */
    char **in;                      /* leader: in[k * nnodes + c], node c's partial of my segment k */
} compi_nred;

static size_t compi_nred_span(MPI_Datatype dt, int n, size_t ext)
{
    if (n <= 0) return 0;
    MPI_Aint tlb, textent;
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    return (size_t)(n - 1) * ext + (size_t)textent;
}

/* Round 2's local step: acc = member vectors combined into my own. */
static int compi_nred_node(void *arg)
{
    compi_nred *q = arg;
    for (int j = 0; j < q->nmine; j++) {
        int rc = q->count > 0 ? PMPI_Reduce_local(q->mine[j], q->acc, q->count, q->dt, q->op) : MPI_SUCCESS;
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Round 3's local step: my segments combined with the other nodes' partials. */
static int compi_nred_segs(void *arg)
{
    compi_nred *q = arg;
    for (int k = 0; k < q->nseg; k++) {
        if (q->owner[k] != q->my_node || q->len[k] <= 0) continue;
        char *dst = q->acc + (size_t)q->start[k] * q->ext;
        for (int c = 0; c < q->nnodes; c++) {
            if (c == q->my_node) continue;
            int rc = PMPI_Reduce_local(q->in[(size_t)k * (size_t)q->nnodes + (size_t)c], dst, q->len[k], q->dt, q->op);
            if (rc != MPI_SUCCESS) return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Rounds 1 to 3 up to the combining of round 3: on a leader q holds its
 * segments' results in acc once round 3's local step has run. */
static int compi_nred_build(compi_sched *s, const compi_coll_layout *l, const void *sbuf, compi_nred *q)
{
    int leader = l->leader_of[l->my_node];
    const int *mem = l->members + l->first[l->my_node];
    int nlocal = l->first[l->my_node + 1] - l->first[l->my_node];
    q->nnodes = l->nnodes;
    q->my_node = l->my_node;
    if (l->rank != leader) {
        int rc = compi_sched_send(s, sbuf, q->count, q->dt, leader, 0);
        compi_sched_round(s);
        compi_sched_round(s);
        return rc;
    }
    /* my own contribution is copied: in place, the results land over it */
    q->acc = compi_sched_alloc(s, q->span);
    q->mine = compi_sched_alloc(s, sizeof(char *) * (size_t)nlocal);
    q->in = compi_sched_alloc(s, sizeof(char *) * (size_t)q->nseg * (size_t)q->nnodes);
    if (!q->acc || !q->mine || !q->in) return MPI_ERR_NO_MEM;
    memcpy(q->acc, sbuf, q->span);
    int rc = MPI_SUCCESS;
    for (int j = 0; j < nlocal && rc == MPI_SUCCESS; j++) {
        if (mem[j] == l->rank) continue;
        char *b = compi_sched_alloc(s, q->span);
        if (!b) return MPI_ERR_NO_MEM;
        q->mine[q->nmine++] = b;
        rc = compi_sched_recv(s, b, q->count, q->dt, mem[j], 0);
    }
    compi_sched_round(s);
    if (rc == MPI_SUCCESS) rc = compi_sched_call(s, compi_nred_node, q);
    for (int k = 0; k < q->nseg && rc == MPI_SUCCESS; k++) {
        if (q->len[k] <= 0) continue;
        if (q->owner[k] != q->my_node) {
            rc = compi_sched_send(s, q->acc + (size_t)q->start[k] * q->ext, q->len[k], q->dt, l->leader_of[q->owner[k]],
                                  1);
            continue;
        }
        for (int c = 0; c < q->nnodes && rc == MPI_SUCCESS; c++) {
            if (c == q->my_node) continue;
            char *b = compi_sched_alloc(s, (size_t)q->len[k] * q->ext);
            if (!b) return MPI_ERR_NO_MEM;
            q->in[(size_t)k * (size_t)q->nnodes + (size_t)c] = b;
            rc = compi_sched_recv(s, b, q->len[k], q->dt, l->leader_of[c], 1);
        }
    }
    compi_sched_round(s);
    if (rc == MPI_SUCCESS) rc = compi_sched_call(s, compi_nred_segs, q);
    return rc;
}

typedef struct {
    void *dst;
    const void *src;
    size_t n;
} compi_nred_copy;

static int compi_nred_copy_fn(void *arg)
{
    compi_nred_copy *c = arg;
    if (c->n) memmove(c->dst, c->src, c->n);
    return MPI_SUCCESS;
}

static int compi_nred_copy_step(compi_sched *s, void *dst, const void *src, size_t n)
{
    compi_nred_copy *c = compi_sched_alloc(s, sizeof *c);
    if (!c) return MPI_ERR_NO_MEM;
    *c = (compi_nred_copy){dst, src, n};
    return compi_sched_call(s, compi_nred_copy_fn, c);
}

/* A schedule with q's common fields set; *l the layout. */
static compi_sched *compi_nred_new(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, compi_family fam,
                                   const compi_coll_layout **l, int *rc)
{
    *l = compi_coll_layout_get(comm, ci, rc);
    if (!*l) return NULL;
    return compi_sched_new(comm, ci, kind, fam, rc);
}

/* One segment per node, the equal split. */
static int compi_nred_split(compi_sched *s, compi_nred *q, int nnodes)
{
    int *start = compi_sched_alloc(s, sizeof(int) * (size_t)nnodes),
        *len = compi_sched_alloc(s, sizeof(int) * (size_t)nnodes),
        *owner = compi_sched_alloc(s, sizeof(int) * (size_t)nnodes);
    if (!start || !len || !owner) return MPI_ERR_NO_MEM;
    for (int c = 0; c < nnodes; c++) {
        int64_t a, b;
        compi_leaders_chunk(q->count, nnodes, c, &a, &b);
        start[c] = (int)a;
        len[c] = (int)b;
        owner[c] = c;
    }
    q->nseg = nnodes;
    q->start = start;
    q->len = len;
    q->owner = owner;
    return MPI_SUCCESS;
}

static compi_nred *compi_nred_alloc(compi_sched *s, int count, MPI_Datatype dt, MPI_Op op)
{
    compi_nred *q = compi_sched_alloc(s, sizeof *q);
    if (!q) return NULL;
    memset(q, 0, sizeof *q);
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    q->dt = dt;
    q->op = op;
    q->count = count;
    q->ext = (size_t)ext;
    q->span = compi_nred_span(dt, count, q->ext);
    return q;
}

static int compi_nred_go(compi_sched *s, int rc, MPI_Comm comm, MPI_Request *request)
{
    if (rc != MPI_SUCCESS) {
        compi_sched_abandon(s);
        return compi_raise(comm, rc);
    }
    return compi_raise(comm, compi_sched_start(s, request));
}

int compi_nbc_node_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                             const compi_comm_info *ci, MPI_Request *request)
{
    const compi_coll_layout *l;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, COMPI_NBC_IALLREDUCE, COMPI_FAM_ALLREDUCE, &l, &rc);
    if (!s) return compi_raise(comm, rc);
    compi_nred *q = compi_nred_alloc(s, count, dt, op);
    rc = q ? compi_nred_split(s, q, l->nnodes) : MPI_ERR_NO_MEM;
    const void *sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS) rc = compi_nred_build(s, l, sbuf, q);
    int leader = l->leader_of[l->my_node];
    const int *mem = l->members + l->first[l->my_node];
    int nlocal = l->first[l->my_node + 1] - l->first[l->my_node];
    if (rc == MPI_SUCCESS && l->rank == leader) {
        /* round 3: my segment to every other leader, theirs into acc */
        for (int c = 0; c < l->nnodes && rc == MPI_SUCCESS; c++) {
            if (c == l->my_node || q->len[c] <= 0) continue;
            rc = compi_sched_recv(s, q->acc + (size_t)q->start[c] * q->ext, q->len[c], dt, l->leader_of[c], 2);
        }
        int me = l->my_node;
        for (int c = 0; c < l->nnodes && rc == MPI_SUCCESS && q->len[me] > 0; c++)
            if (c != me)
                rc = compi_sched_send(s, q->acc + (size_t)q->start[me] * q->ext, q->len[me], dt, l->leader_of[c], 2);
        compi_sched_round(s);
        /* round 4: the result in place, and to my members */
        if (rc == MPI_SUCCESS) rc = compi_nred_copy_step(s, recvbuf, q->acc, q->span);
        for (int j = 0; j < nlocal && rc == MPI_SUCCESS; j++)
            if (mem[j] != l->rank) rc = compi_sched_send(s, q->acc, count, dt, mem[j], 3);
    } else if (rc == MPI_SUCCESS) {
        compi_sched_round(s);
        rc = compi_sched_recv(s, recvbuf, count, dt, leader, 3);
    }
    return compi_nred_go(s, rc, comm, request);
}

int compi_nbc_node_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                          MPI_Comm comm, const compi_comm_info *ci, MPI_Request *request)
{
    const compi_coll_layout *l;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, COMPI_NBC_IREDUCE, COMPI_FAM_REDUCE, &l, &rc);
    if (!s) return compi_raise(comm, rc);
    compi_nred *q = compi_nred_alloc(s, count, dt, op);
    rc = q ? compi_nred_split(s, q, l->nnodes) : MPI_ERR_NO_MEM;
    const void *sbuf = sendbuf == MPI_IN_PLACE && l->rank == root ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS) rc = compi_nred_build(s, l, sbuf, q);
    int leader = l->leader_of[l->my_node];
    /* round 3: every leader's segment to the root */
    if (rc == MPI_SUCCESS && l->rank == leader) {
        int me = l->my_node;
        char *seg = q->acc + (size_t)q->start[me] * q->ext;
        size_t bytes = compi_nred_span(dt, q->len[me], q->ext);
        if (root == l->rank) rc = compi_nred_copy_step(s, (char *)recvbuf + (size_t)q->start[me] * q->ext, seg, bytes);
        else if (q->len[me] > 0) rc = compi_sched_send(s, seg, q->len[me], dt, root, 2);
    }
    for (int c = 0; c < l->nnodes && rc == MPI_SUCCESS && l->rank == root; c++)
        if (l->leader_of[c] != root && q->len[c] > 0)
            rc = compi_sched_recv(s, (char *)recvbuf + (size_t)q->start[c] * q->ext, q->len[c], dt, l->leader_of[c], 2);
    return compi_nred_go(s, rc, comm, request);
}

int compi_nbc_node_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, int recvcount,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const compi_comm_info *ci,
                                  compi_nbc_kind kind, MPI_Request *request)
{
    const compi_coll_layout *l;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, kind, COMPI_FAM_REDUCE, &l, &rc);
    if (!s) return compi_raise(comm, rc);
    int n = l->size, total = 0;
    int *start = compi_sched_alloc(s, sizeof(int) * (size_t)n), *len = compi_sched_alloc(s, sizeof(int) * (size_t)n);
    if (!start || !len) rc = MPI_ERR_NO_MEM;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        start[i] = total;
        len[i] = recvcounts ? recvcounts[i] : recvcount;
        total += len[i];
    }
    compi_nred *q = rc == MPI_SUCCESS ? compi_nred_alloc(s, total, dt, op) : NULL;
    if (rc == MPI_SUCCESS && !q) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        /* one segment per rank, owned by its node */
        q->nseg = n;
        q->start = start;
        q->len = len;
        /* a copy: the schedule may outlive the communicator's layout */
        int *owner = compi_sched_alloc(s, sizeof(int) * (size_t)n);
        if (!owner) rc = MPI_ERR_NO_MEM;
        else memcpy(owner, l->node_of, sizeof(int) * (size_t)n);
        q->owner = owner;
        const void *sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
        if (rc == MPI_SUCCESS) rc = compi_nred_build(s, l, sbuf, q);
    }
    int leader = l->leader_of[l->my_node];
    if (rc == MPI_SUCCESS && l->rank == leader) {
        /* round 3: each member's block to it, mine in place */
        for (int m = 0; m < n && rc == MPI_SUCCESS; m++) {
            if (l->node_of[m] != l->my_node || len[m] <= 0) continue;
            char *seg = q->acc + (size_t)start[m] * q->ext;
            if (m == l->rank) rc = compi_nred_copy_step(s, recvbuf, seg, compi_nred_span(dt, len[m], q->ext));
            else rc = compi_sched_send(s, seg, len[m], dt, m, 2);
        }
    } else if (rc == MPI_SUCCESS && len[l->rank] > 0) {
        rc = compi_sched_recv(s, recvbuf, len[l->rank], dt, leader, 2);
    }
    return compi_nred_go(s, rc, comm, request);
}
