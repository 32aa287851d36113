/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware schedules of the nonblocking reductions (nbc.h), for
 * communicators where some node holds several ranks.
 *
 * The vector is cut into one piece per rank, each owned by one rank:
 * reduce_scatter's pieces are the ranks' blocks, owned by their ranks;
 * allreduce and reduce cut it equally, piece (j, c) owned by the j-th rank
 * of node c, pieces in the order of j then c. On every node each piece has
 * a handler: its owner on the owner's node; elsewhere the rank of the same
 * position in its node (modulo the node's size). Then
 *
 *   round 1  every rank sends each piece to its handler on its node
 *            (inside the node: plain)
 *   round 2  each handler combines its node's copies of its pieces (its own
 *            first, then its node mates' in rank order) and sends the node's
 *            partial to the piece's owner (between nodes: compressed)
 *   round 3  each owner combines the nodes' partials in node order, and
 *            hands the result on:
 *              allreduce       to its handlers on the other nodes and to
 *                              its node mates
 *              reduce          to the root
 *              reduce_scatter  into its own receive buffer
 *   round 4  allreduce only: each handler passes the results it got from
 *            other nodes to its node mates
 *
 * Every node's link carries the vector about twice (once out, once back),
 * as the MPI's best algorithms do, in as many concurrent streams as the
 * node has ranks, each rank compressing its share: the direct schedule
 * would send every rank's shares across it, a single leader would be one
 * stream and one codec. One rank combines each piece and every rank gets
 * those bits, so all ranks agree on the result.
 *
 * Allreduce between two nodes exchanges the node partials instead
 * (compi_nred_whole): in round 2 each handler sends its node's partials of
 * the pieces it handles to their handlers on the other node and receives
 * theirs; each handler then combines the two nodes' partials in node order
 * (node 0's first, the same bits on both nodes), and round 3 passes the
 * results to its node mates. The link carries the same bytes uncompressed
 * (half the vector each way) as rounds 2 and 3 would, but all of them are
 * partials of one node, never results of all ranks: the sum of more ranks'
 * data compresses less (the bench's double_r75: partials of two ranks
 * 1.72x, results of four 1.15x), and the two nodes' streams are the
 * codec's work alike (each rank compresses and decodes half its share of
 * the vector either way). One round fewer, too. With more nodes each
 * partial would cross to every other node: the rounds above. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "engine/leaders.h"

typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
    size_t ext;
    int npieces;
    const int *start, *len, *owner; /* per piece */
    int sub;                        /* the lane's first sub tag: rounds sub .. sub + 3 */
    char *acc; /* node partials of the pieces I handle, results of those I own, from element start[0] */
    /* local combining steps: piece and the buffer to fold into acc */
    int nlocal, ninter;
    int *local_piece, *inter_piece;
    char **local_buf, **inter_buf;
    int nnodes, my_node; /* the whole exchange's combining order */
} compi_nred;

/* The node layout the schedule is built from (the communicator's, read
 * while building only). */
typedef struct {
    const compi_coll_layout *l;
    int *lidx; /* comm rank -> its position in its node */
} compi_nred_map;

static MPI_Aint compi_nred_extent(MPI_Datatype dt)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    return ext;
}

static size_t compi_nred_span(MPI_Datatype dt, int n, size_t ext)
{
    if (n <= 0) return 0;
    MPI_Aint tlb, textent;
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    return (size_t)(n - 1) * ext + (size_t)textent;
}

static char *compi_nred_at(const compi_nred *q, const void *base, int k)
{
    return (char *)base + (size_t)q->start[k] * q->ext;
}

/* Who handles piece k on node c. */
static int compi_nred_handler(const compi_nred_map *m, const compi_nred *q, int c, int k)
{
    const compi_coll_layout *l = m->l;
    int o = q->owner[k];
    if (l->node_of[o] == c) return o;
    int n = l->first[c + 1] - l->first[c];
    return l->members[l->first[c] + m->lidx[o] % n];
}

/* Piece k in acc. */
static char *compi_nred_acc(const compi_nred *q, int k)
{
    return q->acc + (size_t)(q->start[k] - q->start[0]) * q->ext;
}

static int compi_nred_fold(const compi_nred *q, int n, const int *piece, char *const *buf)
{
    for (int i = 0; i < n; i++) {
        int k = piece[i];
        int rc = PMPI_Reduce_local(buf[i], compi_nred_acc(q, k), q->len[k], q->dt, q->op);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

static int compi_nred_fold_local(void *arg)
{
    compi_nred *q = arg;
    return compi_nred_fold(q, q->nlocal, q->local_piece, q->local_buf);
}

static int compi_nred_fold_inter(void *arg)
{
    compi_nred *q = arg;
    return compi_nred_fold(q, q->ninter, q->inter_piece, q->inter_buf);
}

/* The whole exchange's combining: each piece handled here is the nodes'
 * partials folded in node order (acc holds this node's, inter_buf the
 * others', listed per piece in node order), so every node's handler of a
 * piece computes the same bits. */
static int compi_nred_fold_whole(void *arg)
{
    compi_nred *q = arg;
    int per = q->nnodes - 1;
    for (int i = 0; i + per <= q->ninter; i += per) {
        int k = q->inter_piece[i];
        char *acc = compi_nred_acc(q, k), *r = q->my_node == 0 ? acc : q->inter_buf[i];
        for (int c = 1, j = i + (q->my_node != 0); c < q->nnodes; c++) {
            const char *in = c == q->my_node ? acc : q->inter_buf[j++];
            int rc = PMPI_Reduce_local(in, r, q->len[k], q->dt, q->op);
            if (rc != MPI_SUCCESS) return rc;
        }
        if (r != acc) memcpy(acc, r, compi_nred_span(q->dt, q->len[k], q->ext));
    }
    return MPI_SUCCESS;
}

/* A receive into a new buffer, listed for a combining step. */
static int compi_nred_recv_part(compi_sched *s, compi_nred *q, int k, int from, int sub, int *n, int *piece, char **buf)
{
    char *b = compi_sched_alloc(s, (size_t)q->len[k] * q->ext);
    if (!b) return MPI_ERR_NO_MEM;
    piece[*n] = k;
    buf[(*n)++] = b;
    return compi_sched_recv(s, b, q->len[k], q->dt, from, sub);
}

/* Round 2 of the whole exchange (whole: see the top): the partials of the
 * pieces this rank handles to and from their handlers on the other nodes,
 * then their combining; afterwards acc holds the results of those pieces. */
static int compi_nred_build_whole(compi_sched *s, const compi_nred_map *m, compi_nred *q)
{
    const compi_coll_layout *l = m->l;
    int me = l->rank, c0 = l->my_node, rc = MPI_SUCCESS;
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        if (q->len[k] <= 0 || compi_nred_handler(m, q, c0, k) != me) continue;
        for (int c = 0; c < l->nnodes && rc == MPI_SUCCESS; c++) {
            if (c == c0) continue;
            int h = compi_nred_handler(m, q, c, k);
            rc = compi_sched_send(s, compi_nred_acc(q, k), q->len[k], q->dt, h, q->sub + 1);
            if (rc == MPI_SUCCESS)
                rc = compi_nred_recv_part(s, q, k, h, q->sub + 1, &q->ninter, q->inter_piece, q->inter_buf);
        }
    }
    compi_sched_round(s);
    return rc == MPI_SUCCESS ? compi_sched_call(s, compi_nred_fold_whole, q) : rc;
}

/* Rounds 1 and 2 and round 3's combining: afterwards acc holds the results
 * of the pieces this rank owns (whole: of those it handles). */
static int compi_nred_build(compi_sched *s, const compi_nred_map *m, const void *sbuf, compi_nred *q, int whole)
{
    const compi_coll_layout *l = m->l;
    int me = l->rank, c0 = l->my_node, *mates = l->members + l->first[c0];
    int nmates = l->first[c0 + 1] - l->first[c0];
    size_t np = (size_t)q->npieces, ninter = whole ? np * (size_t)l->nnodes : (size_t)l->nnodes;
    q->nnodes = l->nnodes;
    q->my_node = c0;
    q->acc = compi_sched_alloc(s, compi_nred_span(q->dt, q->start[np - 1] + q->len[np - 1] - q->start[0], q->ext));
    q->local_piece = compi_sched_alloc(s, sizeof(int) * np * (size_t)nmates);
    q->local_buf = compi_sched_alloc(s, sizeof(char *) * np * (size_t)nmates);
    q->inter_piece = compi_sched_alloc(s, sizeof(int) * ninter);
    q->inter_buf = compi_sched_alloc(s, sizeof(char *) * ninter);
    if (!q->acc || !q->local_piece || !q->local_buf || !q->inter_piece || !q->inter_buf) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    /* round 1: each piece to its handler here */
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        if (q->len[k] <= 0) continue;
        int h = compi_nred_handler(m, q, c0, k);
        if (h != me) {
            rc = compi_sched_send(s, compi_nred_at(q, sbuf, k), q->len[k], q->dt, h, q->sub);
            continue;
        }
        /* my own copy: in place, results land over my send buffer */
        memcpy(compi_nred_acc(q, k), compi_nred_at(q, sbuf, k), compi_nred_span(q->dt, q->len[k], q->ext));
        for (int j = 0; j < nmates && rc == MPI_SUCCESS; j++)
            if (mates[j] != me)
                rc = compi_nred_recv_part(s, q, k, mates[j], q->sub, &q->nlocal, q->local_piece, q->local_buf);
    }
    compi_sched_round(s);
    /* round 2: the node's partials to their owners */
    if (rc == MPI_SUCCESS) rc = compi_sched_call(s, compi_nred_fold_local, q);
    if (whole) return rc == MPI_SUCCESS ? compi_nred_build_whole(s, m, q) : rc;
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        if (q->len[k] <= 0) continue;
        int o = q->owner[k];
        if (o != me && compi_nred_handler(m, q, c0, k) == me)
            rc = compi_sched_send(s, compi_nred_acc(q, k), q->len[k], q->dt, o, q->sub + 1);
        for (int c = 0; o == me && c < l->nnodes && rc == MPI_SUCCESS; c++)
            if (c != c0)
                rc = compi_nred_recv_part(s, q, k, compi_nred_handler(m, q, c, k), q->sub + 1, &q->ninter,
                                          q->inter_piece, q->inter_buf);
    }
    compi_sched_round(s);
    if (rc == MPI_SUCCESS) rc = compi_sched_call(s, compi_nred_fold_inter, q);
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

/* A local step copying piece k from acc to buf. */
static int compi_nred_copy_out(compi_sched *s, const compi_nred *q, void *buf, int k)
{
    compi_nred_copy *c = compi_sched_alloc(s, sizeof *c);
    if (!c) return MPI_ERR_NO_MEM;
    *c = (compi_nred_copy){compi_nred_at(q, buf, k), compi_nred_acc(q, k), compi_nred_span(q->dt, q->len[k], q->ext)};
    return compi_sched_call(s, compi_nred_copy_fn, c);
}

/* A lane's pieces (npieces, from the layout), their arrays unset; NULL
 * when out of memory. */
static compi_nred *compi_nred_piece_new(compi_sched *s, const compi_nred_map *m, MPI_Datatype dt, MPI_Op op, int sub)
{
    int n = m->l->size;
    compi_nred *q = compi_sched_alloc(s, sizeof *q);
    int *start = compi_sched_alloc(s, sizeof(int) * (size_t)n), *len = compi_sched_alloc(s, sizeof(int) * (size_t)n),
        *owner = compi_sched_alloc(s, sizeof(int) * (size_t)n);
    if (!q || !start || !len || !owner) return NULL;
    memset(q, 0, sizeof *q);
    q->dt = dt;
    q->op = op;
    q->ext = (size_t)compi_nred_extent(dt);
    q->npieces = n;
    q->start = start;
    q->len = len;
    q->owner = owner;
    q->sub = sub;
    return q;
}

/* The schedule and the map; NULL with *rc on failure. */
static compi_sched *compi_nred_new(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, compi_family fam,
                                   compi_nred_map *m, int *rc)
{
    m->l = compi_coll_nodes_get(comm, ci, rc); /* local: no collective */
    if (!m->l) return NULL;
    compi_sched *s = compi_sched_new(comm, ci, kind, fam, rc);
    if (!s) return NULL;
    int n = m->l->size;
    m->lidx = compi_sched_alloc(s, sizeof(int) * (size_t)n);
    if (!m->lidx) {
        compi_sched_abandon(s);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    for (int c = 0; c < m->l->nnodes; c++)
        for (int i = m->l->first[c]; i < m->l->first[c + 1]; i++) m->lidx[m->l->members[i]] = i - m->l->first[c];
    return s;
}

/* Allreduce's and reduce's pieces of the count elements from element at:
 * cut equally, piece (j, c) owned by node c's j-th rank. */
static void compi_nred_equal(const compi_nred_map *m, compi_nred *q, int at, int count)
{
    const compi_coll_layout *l = m->l;
    int *start = (int *)q->start, *len = (int *)q->len, *owner = (int *)q->owner, p = 0;
    for (int j = 0; p < l->size; j++)
        for (int c = 0; c < l->nnodes; c++) {
            if (j >= l->first[c + 1] - l->first[c]) continue;
            int64_t a, b;
            compi_leaders_chunk(count, l->size, p, &a, &b);
            start[p] = at + (int)a;
            len[p] = (int)b;
            owner[p++] = l->members[l->first[c] + j];
        }
}

/* Lanes of allreduce and reduce: the vector cut into segments of about
 * COMPI_NRED_SEGMENT bytes (at most COMPI_NRED_LANES), each reduced by a
 * lane of its own. One lane's rounds leave the link idle while its pieces
 * are combined and its slowest stream finishes; with several, one lane's
 * later rounds travel while another's earlier ones do. The segments depend
 * on the call's arguments only, so all ranks cut alike. */
#define COMPI_NRED_SEGMENT ((size_t)1 << 19)
#define COMPI_NRED_LANES (COMPI_NBC_SUBTAGS / 4)
static int compi_nred_lanes(int count, size_t ext)
{
    size_t bytes = (size_t)(count > 0 ? count : 0) * ext, n = bytes / COMPI_NRED_SEGMENT;
    if (n < 1) n = 1;
    if (n > COMPI_NRED_LANES) n = COMPI_NRED_LANES;
    if ((size_t)count < n) n = 1;
    return (int)n;
}

static int compi_nred_go(compi_sched *s, int rc, MPI_Comm comm, MPI_Request *request)
{
    if (rc != MPI_SUCCESS) {
        compi_sched_abandon(s);
        return compi_raise(comm, rc);
    }
    return compi_raise(comm, compi_sched_start(s, request));
}

/* Allreduce's rounds 3 and 4: the results to every rank. */
static int compi_nred_spread(compi_sched *s, const compi_nred_map *m, compi_nred *q, void *recvbuf)
{
    const compi_coll_layout *l = m->l;
    int me = l->rank, c0 = l->my_node, *mates = l->members + l->first[c0];
    int nmates = l->first[c0 + 1] - l->first[c0], rc = MPI_SUCCESS;
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        int o = q->owner[k];
        if (q->len[k] <= 0) continue;
        if (o == me) {
            rc = compi_nred_copy_out(s, q, recvbuf, k);
            for (int c = 0; c < l->nnodes && rc == MPI_SUCCESS; c++)
                if (c != c0)
                    rc = compi_sched_send(s, compi_nred_acc(q, k), q->len[k], q->dt, compi_nred_handler(m, q, c, k),
                                          q->sub + 2);
            for (int j = 0; j < nmates && rc == MPI_SUCCESS; j++)
                if (mates[j] != me)
                    rc = compi_sched_send(s, compi_nred_acc(q, k), q->len[k], q->dt, mates[j], q->sub + 2);
        } else if (l->node_of[o] == c0 || compi_nred_handler(m, q, c0, k) == me) {
            rc = compi_sched_recv(s, compi_nred_at(q, recvbuf, k), q->len[k], q->dt, o, q->sub + 2);
        }
    }
    compi_sched_round(s);
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        int o = q->owner[k];
        if (q->len[k] <= 0 || l->node_of[o] == c0) continue;
        int h = compi_nred_handler(m, q, c0, k);
        if (h != me) {
            rc = compi_sched_recv(s, compi_nred_at(q, recvbuf, k), q->len[k], q->dt, h, q->sub + 3);
            continue;
        }
        for (int j = 0; j < nmates && rc == MPI_SUCCESS; j++)
            if (mates[j] != me)
                rc = compi_sched_send(s, compi_nred_at(q, recvbuf, k), q->len[k], q->dt, mates[j], q->sub + 3);
    }
    return rc;
}

/* The whole exchange's round 3: each handler passes the results of its
 * pieces to its node mates. */
static int compi_nred_spread_whole(compi_sched *s, const compi_nred_map *m, compi_nred *q, void *recvbuf)
{
    const compi_coll_layout *l = m->l;
    int me = l->rank, c0 = l->my_node, *mates = l->members + l->first[c0];
    int nmates = l->first[c0 + 1] - l->first[c0], rc = MPI_SUCCESS;
    for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
        if (q->len[k] <= 0) continue;
        int h = compi_nred_handler(m, q, c0, k);
        if (h != me) {
            rc = compi_sched_recv(s, compi_nred_at(q, recvbuf, k), q->len[k], q->dt, h, q->sub + 2);
            continue;
        }
        rc = compi_nred_copy_out(s, q, recvbuf, k);
        for (int j = 0; j < nmates && rc == MPI_SUCCESS; j++)
            if (mates[j] != me) rc = compi_sched_send(s, compi_nred_acc(q, k), q->len[k], q->dt, mates[j], q->sub + 2);
    }
    return rc;
}

/* Whether allreduce exchanges whole node partials (see the top): between
 * two nodes. */
static int compi_nred_whole(const compi_nred_map *m)
{
    return m->l->nnodes == 2;
}

/* Lane j of lanes: segment j of the count elements, its pieces and the
 * rounds that reduce them onto their owners (compi_nred_build; whole: onto
 * their handlers). */
static int compi_nred_lane(compi_sched *s, compi_nred_map *m, const void *sbuf, int count, MPI_Datatype dt, MPI_Op op,
                           int lanes, int j, int whole, compi_nred **qp)
{
    int64_t at, n;
    compi_leaders_chunk(count, lanes, j, &at, &n);
    compi_nred *q = *qp = compi_nred_piece_new(s, m, dt, op, 4 * j);
    int rc = q ? compi_sched_lane(s) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) return rc;
    compi_nred_equal(m, q, (int)at, (int)n);
    return compi_nred_build(s, m, sbuf, q, whole);
}

int compi_nbc_node_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                             const compi_comm_info *ci, MPI_Request *request)
{
    compi_nred_map m;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, COMPI_NBC_IALLREDUCE, COMPI_FAM_ALLREDUCE, &m, &rc);
    if (!s) return compi_raise(comm, rc);
    const void *sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int lanes = compi_nred_lanes(count, (size_t)compi_nred_extent(dt)), whole = compi_nred_whole(&m);
    for (int j = 0; j < lanes && rc == MPI_SUCCESS; j++) {
        compi_nred *q;
        rc = compi_nred_lane(s, &m, sbuf, count, dt, op, lanes, j, whole, &q);
        if (rc == MPI_SUCCESS)
            rc = whole ? compi_nred_spread_whole(s, &m, q, recvbuf) : compi_nred_spread(s, &m, q, recvbuf);
    }
    return compi_nred_go(s, rc, comm, request);
}

int compi_nbc_node_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                          MPI_Comm comm, const compi_comm_info *ci, MPI_Request *request)
{
    compi_nred_map m;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, COMPI_NBC_IREDUCE, COMPI_FAM_REDUCE, &m, &rc);
    if (!s) return compi_raise(comm, rc);
    int me = m.l->rank;
    const void *sbuf = sendbuf == MPI_IN_PLACE && me == root ? recvbuf : sendbuf;
    int lanes = compi_nred_lanes(count, (size_t)compi_nred_extent(dt));
    for (int j = 0; j < lanes && rc == MPI_SUCCESS; j++) {
        compi_nred *q;
        rc = compi_nred_lane(s, &m, sbuf, count, dt, op, lanes, j, 0, &q);
        if (rc != MPI_SUCCESS) break;
        /* round 3: every piece to the root */
        for (int k = 0; k < q->npieces && rc == MPI_SUCCESS; k++) {
            if (q->len[k] <= 0) continue;
            if (q->owner[k] == me)
                rc = me == root ? compi_nred_copy_out(s, q, recvbuf, k)
                                : compi_sched_send(s, compi_nred_acc(q, k), q->len[k], dt, root, q->sub + 2);
            else if (me == root)
                rc = compi_sched_recv(s, compi_nred_at(q, recvbuf, k), q->len[k], dt, q->owner[k], q->sub + 2);
        }
    }
    return compi_nred_go(s, rc, comm, request);
}

int compi_nbc_node_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, int recvcount,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const compi_comm_info *ci,
                                  compi_nbc_kind kind, MPI_Request *request)
{
    compi_nred_map m;
    int rc;
    compi_sched *s = compi_nred_new(comm, ci, kind, COMPI_FAM_REDUCE, &m, &rc);
    if (!s) return compi_raise(comm, rc);
    compi_nred *q = compi_nred_piece_new(s, &m, dt, op, 0);
    if (!q) return compi_nred_go(s, MPI_ERR_NO_MEM, comm, request);
    /* one piece per rank: its block, its own */
    int *start = (int *)q->start, *len = (int *)q->len, *owner = (int *)q->owner;
    for (int i = 0, at = 0; i < q->npieces; i++) {
        start[i] = at;
        len[i] = recvcounts ? recvcounts[i] : recvcount;
        owner[i] = i;
        at += len[i];
    }
    int me = m.l->rank;
    rc = compi_nred_build(s, &m, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, q, 0);
    /* round 3: my block into place (its start in recvbuf is 0) */
    if (rc == MPI_SUCCESS && len[me] > 0) {
        compi_nred_copy *c = compi_sched_alloc(s, sizeof *c);
        if (!c) rc = MPI_ERR_NO_MEM;
        else {
            *c = (compi_nred_copy){recvbuf, compi_nred_acc(q, me), compi_nred_span(dt, len[me], q->ext)};
            rc = compi_sched_call(s, compi_nred_copy_fn, c);
        }
    }
    return compi_nred_go(s, rc, comm, request);
}
