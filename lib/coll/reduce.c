/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware reductions (see coll.h): reduce inside the node, reduce-scatter
 * of framed chunks between leaders combined in node order, then allgather
 * (allreduce) or gather to the root's leader (reduce) of the reduced chunks,
 * and the result handed out inside the node. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/stats.h"
#include "engine/commprof.h"

int compi_coll_reduction_ok(MPI_Datatype dt, MPI_Op op)
{
    static const MPI_Op predefined[] = {MPI_MAX, MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                                        MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    int known = 0;
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) known |= op == predefined[i];
    if (!known) return 0;
    int ni, na, nd, combiner;
    return PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

/* chunk c of n elements split over p parts: [start, start + len)
 * (engine/leaders.h, the cut compi map's decomposition uses too) */
static void compi_chunk(int n, int p, int c, int *start, int *len)
{
    int64_t a, b;
    compi_leaders_chunk(n, p, c, &a, &b);
    *start = (int)a;
    *len = (int)b;
}

/* Which elements of the full vector each node reduces: node c's part is
 * segments first[c] .. first[c+1]-1, segment k being len[k] elements from
 * element start[k]. Allreduce and reduce: one segment per node (an equal
 * split); reduce_scatter: the blocks of the node's members, in rank order. */
typedef struct {
    int *first, *start, *len;
} compi_parts;

static void compi_parts_free(compi_parts *q)
{
    free(q->first);
    free(q->start);
    free(q->len);
}

static int compi_parts_total(const compi_parts *q, int c)
{
    long long t = 0;
    for (int k = q->first[c]; k < q->first[c + 1]; k++) t += q->len[k];
    return (int)t;
}

/* The elements of node c's part, packed: a pointer into acc when the part is
 * one segment, else a copy into a new buffer (*owned, to free). Elements keep
 * their extent; the last one is copied up to its true extent only. */
static char *compi_part_bytes(const compi_parts *q, int c, char *acc, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text,
                              char **owned)
{
    *owned = NULL;
    if (q->first[c + 1] - q->first[c] == 1) return acc + (MPI_Aint)q->start[q->first[c]] * ext;
    int total = compi_parts_total(q, c);
    if (total == 0) return acc;
    char *buf = malloc((size_t)(total - 1) * (size_t)ext + (size_t)text);
    if (!buf) return NULL;
    char *base = buf - tlb;
    long long at = 0;
    for (int k = q->first[c]; k < q->first[c + 1]; k++) {
        if (q->len[k] == 0) continue;
        memcpy(base + at * ext + tlb, acc + (MPI_Aint)q->start[k] * ext + tlb,
               (size_t)(q->len[k] - 1) * (size_t)ext + (size_t)text);
        at += q->len[k];
    }
    *owned = buf;
    return base;
}

/* Leaders: acc holds this node's partial result of the full vector; on
 * return *mine holds the reduction over all nodes of this node's part (a
 * pointer into acc, or into *mine_owned when the part is several segments).
 * Each other node's contribution to my part lands in a buffer of its own
 * (decoded in place as it arrives when pipelined and contiguous, else
 * staged), and the contributions are combined in node order once all are
 * in. */
static int compi_reduce_scatter_leaders(char *acc, const compi_parts *q, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                        const compi_comm_info *ci, const compi_coll_layout *l, compi_family fam,
                                        char **mine, char **mine_owned, uint64_t *wire)
{
    const int p = l->nnodes, my = l->my_node;
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    int rc = MPI_SUCCESS;
    compi_coll_out *outs = calloc((size_t)p, sizeof *outs);
    char **owned = calloc((size_t)p, sizeof *owned), **contrib = calloc((size_t)p, sizeof *contrib);
    compi_coll_xfer x;
    *mine = NULL;
    *mine_owned = NULL;
    rc = compi_coll_xfer_init(&x, p);
    if (rc == MPI_SUCCESS && (!outs || !owned || !contrib)) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) goto out;
    for (int c = 0; c < p && rc == MPI_SUCCESS; c++) {
        int len = compi_parts_total(q, c);
        if (c == my || len == 0) continue;
        char *part = compi_part_bytes(q, c, acc, ext, tlb, text, &owned[c]);
        if (!part) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        compi_typeinfo ti;
        compi_typeinfo_get(dt, len, &ti);
        rc = compi_coll_out_begin(&outs[c], ci, l->leader_of[c], fam, part, len, dt, &ti, 0, 0);
        x.out[c] = &outs[c];
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_outs_code(outs, p); /* the frames, on the codec pool */
    int len = compi_parts_total(q, my);
    compi_typeinfo mti;
    compi_typeinfo_get(dt, len, &mti);
    for (int c = 0; c < p && rc == MPI_SUCCESS && len > 0; c++) {
        if (c == my) continue;
        if (!(contrib[c] = malloc((size_t)(len - 1) * (size_t)ext + (size_t)text))) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        /* contrib[c] - tlb is the buffer: its first element's bytes start at contrib[c] */
        rc = compi_coll_xfer_expect(&x, c, (size_t)mti.size, mti.contiguous ? (unsigned char *)contrib[c] : NULL,
                                    contrib[c] - tlb, len, dt);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->leaders, 0, l->leader_of, comm);
    if (rc != MPI_SUCCESS) goto out;
    for (int c = 0; c < p; c++)
        if (x.out[c]) *wire += compi_coll_out_wire(x.out[c]);
    /* combine in node order: my part starts as this node's share and takes
     * every other node's in increasing node order (mine = c op mine). One
     * leader computes each element, always in the same order, so every rank
     * gets the same bits in every run with the same placement. Reduce_local
     * touches only the type's bytes: the application's buffer keeps its
     * padding (pair types) untouched. */
    *mine = compi_part_bytes(q, my, acc, ext, tlb, text, mine_owned);
    if (!*mine) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int c = 0; c < p && rc == MPI_SUCCESS && len > 0; c++)
        if (c != my) rc = compi_coll_xfer_prepare(&x, c, contrib[c] - tlb, len, dt);
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_decode(&x);
    for (int c = 0; c < p && rc == MPI_SUCCESS && len > 0; c++) {
        if (c == my) continue;
        rc = compi_coll_xfer_deliver(&x, c, contrib[c] - tlb, len, dt, l->leader_of[c], comm);
        if (rc == MPI_SUCCESS) rc = PMPI_Reduce_local(contrib[c] - tlb, *mine, len, dt, op);
    }
out:
    for (int c = 0; c < p && outs; c++) compi_coll_out_free(&outs[c]);
    for (int c = 0; c < p && owned; c++) free(owned[c]);
    for (int c = 0; c < p && contrib; c++) free(contrib[c]);
    free(outs);
    free(owned);
    free(contrib);
    compi_coll_xfer_free(&x);
    return rc;
}

/* Every other leader's chunk of the vector (chunks of n elements over p
 * leaders, compi_chunk) is due to arrive in its place in acc. */
static int compi_expect_chunks(compi_coll_xfer *x, void *acc, int n, MPI_Datatype dt, MPI_Aint ext, int p, int my)
{
    int rc = MPI_SUCCESS;
    for (int c = 0; c < p && rc == MPI_SUCCESS; c++) {
        int cs, clen;
        compi_chunk(n, p, c, &cs, &clen);
        if (c == my || clen == 0) continue;
        compi_typeinfo t;
        compi_typeinfo_get(dt, clen, &t);
        char *at = (char *)acc + (MPI_Aint)cs * ext;
        rc = compi_coll_xfer_expect(x, c, (size_t)t.size, t.contiguous ? (unsigned char *)at + t.true_lb : NULL, at,
                                    clen, dt);
    }
    return rc;
}
/* Every other leader's chunk into its place in acc after the exchange:
 * the frames decoded side by side on the codec pool, then each checked. */
static int compi_deliver_chunks(compi_coll_xfer *x, void *acc, int n, MPI_Datatype dt, MPI_Aint ext, int p, int my,
                                const compi_coll_layout *l, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < p && rc == MPI_SUCCESS; c++) {
            int cs, clen;
            compi_chunk(n, p, c, &cs, &clen);
            if (c == my || clen == 0) continue;
            char *at = (char *)acc + (MPI_Aint)cs * ext;
            rc = pass ? compi_coll_xfer_deliver(x, c, at, clen, dt, l->leader_of[c], comm)
                      : compi_coll_xfer_prepare(x, c, at, clen, dt);
        }
        if (rc == MPI_SUCCESS && !pass) rc = compi_coll_xfer_decode(x);
    }
    return rc;
}
/* Leaders: the reduced chunks, each leader's own, to every leader (one
 * exchange, pipex.c): a pipelined chunk is decoded into acc as it arrives
 * (a contiguous type), else staged and unpacked; whole frames are delivered
 * into acc after the exchange. */
static int compi_chunks_to_leaders(void *acc, int n, MPI_Datatype dt, MPI_Aint ext, MPI_Comm comm,
                                   const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire)
{
    const int p = l->nnodes, my = l->my_node;
    int s, len, rc = MPI_SUCCESS, built = 0;
    compi_chunk(n, p, my, &s, &len);
    compi_coll_out o;
    compi_coll_xfer x;
    rc = compi_coll_xfer_init(&x, p);
    if (rc != MPI_SUCCESS) return rc;
    if (len > 0) {
        compi_typeinfo ti;
        compi_typeinfo_get(dt, len, &ti);
        rc = compi_coll_out_build(&o, ci, -1, COMPI_FAM_ALLREDUCE, (char *)acc + (MPI_Aint)s * ext, len, dt, &ti, 0);
        if (rc != MPI_SUCCESS) goto out;
        built = 1;
        for (int c = 0; c < p; c++) x.out[c] = c == my ? NULL : &o;
    }
    if (rc == MPI_SUCCESS) rc = compi_expect_chunks(&x, acc, n, dt, ext, p, my);
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->leaders, 1, l->leader_of, comm);
    if (rc != MPI_SUCCESS) goto out;
    if (built) *wire += compi_coll_out_wire(&o) * (size_t)(p - 1);
    if (rc == MPI_SUCCESS) rc = compi_deliver_chunks(&x, acc, n, dt, ext, p, my, l, comm);
out:
    if (built) compi_coll_out_free(&o);
    compi_coll_xfer_free(&x);
    return rc;
}

/* Leaders: the reduced chunks, each leader's own, to the leader of
 * root_node (Reduce): one exchange (pipex.c) whose only receiver is that
 * leader; raw chunks land in acc as they are, frames are decoded there. */
static int compi_chunks_to_root(void *acc, int n, MPI_Datatype dt, MPI_Aint ext, int root_node, MPI_Comm comm,
                                const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire)
{
    const int p = l->nnodes, my = l->my_node;
    int s, len, rc, built = 0;
    compi_chunk(n, p, my, &s, &len);
    compi_coll_out o;
    compi_coll_xfer x;
    rc = compi_coll_xfer_init(&x, p);
    if (rc != MPI_SUCCESS) return rc;
    if (len > 0 && my != root_node) {
        compi_typeinfo ti;
        compi_typeinfo_get(dt, len, &ti);
        rc = compi_coll_out_build(&o, ci, l->leader_of[root_node], COMPI_FAM_REDUCE, (char *)acc + (MPI_Aint)s * ext,
                                  len, dt, &ti, 0);
        if (rc != MPI_SUCCESS) goto out;
        built = 1;
        x.out[root_node] = &o;
    }
    if (rc == MPI_SUCCESS && my == root_node) rc = compi_expect_chunks(&x, acc, n, dt, ext, p, my);
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->leaders, 0, l->leader_of, comm);
    if (rc != MPI_SUCCESS) goto out;
    if (built) *wire += compi_coll_out_wire(&o);
    if (rc == MPI_SUCCESS && my == root_node) rc = compi_deliver_chunks(&x, acc, n, dt, ext, p, my, l, comm);
out:
    if (built) compi_coll_out_free(&o);
    compi_coll_xfer_free(&x);
    return rc;
}

/* Leaders, one segment per node (allreduce, reduce), the "whole" way
 * (engine/leaders.h): the whole partial in acc goes as one frame to every
 * other leader (to < 0) or to node to's leader, and every receiving leader
 * combines each chunk k in the order the split way combines it (node k's
 * partial, then every other node's in increasing node order), so both ways
 * give the same bits. Types without gaps only (size == extent): a chunk
 * computed in a contribution's buffer is copied into acc as it is. ti: n
 * elements of dt; ext: dt's extent. */
static int compi_whole_partials(char *acc, int n, MPI_Datatype dt, const compi_typeinfo *ti, MPI_Aint ext, MPI_Op op,
                                int to, MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l,
                                compi_family fam, uint64_t *wire)
{
    const int p = l->nnodes, my = l->my_node;
    const int sending = n > 0 && to != my, receiving = n > 0 && (to < 0 || to == my);
    char **contrib = calloc((size_t)p, sizeof *contrib);
    compi_coll_out o;
    compi_coll_xfer x;
    int built = 0, rc = compi_coll_xfer_init(&x, p);
    if (rc == MPI_SUCCESS && !contrib) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && sending) {
        rc = compi_coll_out_build(&o, ci, to < 0 ? -1 : l->leader_of[to], fam, acc, n, dt, ti, 0);
        built = rc == MPI_SUCCESS;
        for (int c = 0; c < p && built; c++) x.out[c] = c != my && (to < 0 || c == to) ? &o : NULL;
    }
    for (int c = 0; c < p && rc == MPI_SUCCESS && receiving; c++) {
        if (c == my) continue;
        if (!(contrib[c] = malloc((size_t)ti->size))) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rc = compi_coll_xfer_expect(&x, c, (size_t)ti->size, (unsigned char *)contrib[c], contrib[c] - ti->true_lb, n,
                                    dt);
    }
    if (rc == MPI_SUCCESS) rc = compi_coll_xfer_run(&x, l->leaders, l->leaders, to < 0, l->leader_of, comm);
    if (rc == MPI_SUCCESS && built) *wire += compi_coll_out_wire(&o) * (size_t)(to < 0 ? p - 1 : 1);
    for (int c = 0; c < p && rc == MPI_SUCCESS && receiving; c++)
        if (c != my) rc = compi_coll_xfer_prepare(&x, c, contrib[c] - ti->true_lb, n, dt);
    if (rc == MPI_SUCCESS && receiving) rc = compi_coll_xfer_decode(&x);
    for (int c = 0; c < p && rc == MPI_SUCCESS && receiving; c++)
        if (c != my) rc = compi_coll_xfer_deliver(&x, c, contrib[c] - ti->true_lb, n, dt, l->leader_of[c], comm);
    for (int k = 0; k < p && rc == MPI_SUCCESS && receiving; k++) {
        int s, len;
        compi_chunk(n, p, k, &s, &len);
        if (len == 0) continue;
        MPI_Aint at = (MPI_Aint)s * ext;
        char *dst = k == my ? acc + at : contrib[k] - ti->true_lb + at;
        for (int c = 0; c < p && rc == MPI_SUCCESS; c++)
            if (c != k) rc = PMPI_Reduce_local(c == my ? acc + at : contrib[c] - ti->true_lb + at, dst, len, dt, op);
        if (rc == MPI_SUCCESS && k != my) memcpy(acc + at + ti->true_lb, dst + ti->true_lb, (size_t)len * (size_t)ext);
    }
    if (built) compi_coll_out_free(&o);
    for (int c = 0; c < p && contrib; c++) free(contrib[c]);
    free(contrib);
    compi_coll_xfer_free(&x);
    return rc;
}

/* Leaders, one segment per node (allreduce: to < 0; reduce: to = the
 * root's node), the "split" way: reduce-scatter, then the reduced chunks to
 * every leader or to the root's. A call lt measures agrees its frame sizes
 * among the leaders afterwards (even after an error, so no leader waits
 * alone). raw: the packed bytes of the n elements; ext: dt's extent. */
static int compi_split_partials(char *acc, int n, MPI_Datatype dt, MPI_Aint ext, MPI_Op op, int to, MPI_Comm comm,
                                const compi_comm_info *ci, const compi_coll_layout *l, compi_family fam,
                                compi_coll_leaders *lt, size_t raw, uint64_t *wire)
{
    const int p = l->nnodes;
    compi_parts q = {malloc(sizeof(int) * (size_t)(p + 1)), malloc(sizeof(int) * (size_t)p),
                     malloc(sizeof(int) * (size_t)p)};
    char *mine, *mine_owned;
    const uint64_t w0 = *wire;
    uint64_t w1 = w0;
    int rc = MPI_SUCCESS;
    if (!q.first || !q.start || !q.len) {
        rc = MPI_ERR_NO_MEM;
    } else {
        for (int c = 0; c <= p; c++) q.first[c] = c;
        for (int c = 0; c < p; c++) compi_chunk(n, p, c, &q.start[c], &q.len[c]);
        rc = compi_reduce_scatter_leaders(acc, &q, dt, op, comm, ci, l, fam, &mine, &mine_owned, wire);
        free(mine_owned); /* one segment per node: always in place in acc */
        w1 = *wire;
    }
    compi_parts_free(&q);
    if (rc == MPI_SUCCESS)
        rc = to < 0 ? compi_chunks_to_leaders(acc, n, dt, ext, comm, ci, l, wire)
                    : compi_chunks_to_root(acc, n, dt, ext, to, comm, ci, l, wire);
    uint64_t chunk = *wire - w1;
    if (to < 0) chunk /= (uint64_t)(p - 1);
    int arc = compi_coll_leaders_end(lt, l, raw, w1 - w0, chunk);
    return rc != MPI_SUCCESS ? rc : arc;
}

int compi_coll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire, int *path)
{
    *path = COMPI_PROF_PATH_COMPI;
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    const int me = l->rank;
    const int leader = l->local_rank == 0;
    const int all = root < 0;
    const int root_node = all ? -1 : l->node_of[root];
    /* MPI_IN_PLACE: the input is in recvbuf (allreduce: everywhere; reduce: at the root) */
    const int in_place = sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? recvbuf : sendbuf;
    int rc = MPI_SUCCESS;

    /* where a leader accumulates: recvbuf where it has one, else a buffer of compi's */
    void *acc = NULL, *own = NULL;
    if (leader) {
        if (all || me == root) {
            acc = recvbuf;
        } else {
            size_t span = count > 0 ? (size_t)text + (size_t)(count - 1) * (size_t)ext : 1;
            own = malloc(span);
            if (!own) return MPI_ERR_NO_MEM;
            acc = (char *)own - tlb;
        }
    }
    /* 1. inside the node, to the leader */
    if (leader) rc = PMPI_Reduce(acc == recvbuf && in_place ? MPI_IN_PLACE : input, acc, count, dt, op, 0, l->local);
    else rc = PMPI_Reduce(input, NULL, count, dt, op, 0, l->local);
    /* 2-3. between leaders: split (reduce-scatter, then the reduced chunks
     * to every leader or the root's) or whole partials (engine/leaders.h) */
    if (rc == MPI_SUCCESS && leader && l->nnodes > 1) {
        const compi_family fam = all ? COMPI_FAM_ALLREDUCE : COMPI_FAM_REDUCE;
        compi_typeinfo ti;
        compi_typeinfo_get(dt, count, &ti);
        compi_coll_leaders lt;
        /* whole needs elements without gaps (a pair type's padding would
         * be copied, and one element of it is "contiguous" yet shorter than
         * its extent) */
        const int gapless = ti.contiguous && ti.type_size == ext;
        if (compi_coll_leaders_begin(l, !all, (size_t)ti.size, gapless, &lt) == COMPI_LEADERS_WHOLE) {
            *path = COMPI_PROF_PATH_WHOLE;
            rc = compi_whole_partials(acc, count, dt, &ti, ext, op, root_node, comm, ci, l, fam, wire);
        } else {
            if (lt.measure) *path = COMPI_PROF_PATH_SPLIT_AGREE;
            rc = compi_split_partials(acc, count, dt, ext, op, root_node, comm, ci, l, fam, &lt, (size_t)ti.size, wire);
        }
    }
    /* 4. the result inside the node */
    if (rc == MPI_SUCCESS && all && l->local_size > 1) {
        rc = PMPI_Bcast(recvbuf, count, dt, 0, l->local);
    } else if (rc == MPI_SUCCESS && !all && l->node_of[root] == l->my_node && l->leader_of[root_node] != root) {
        /* a root that is not its node's leader gets the result from it */
        int root_local = 0;
        for (int j = l->first[root_node]; l->members[j] != root; j++) root_local++;
        if (leader) rc = PMPI_Send(acc, count, dt, root_local, 0, l->local);
        else if (me == root) rc = PMPI_Recv(recvbuf, count, dt, 0, 0, l->local, MPI_STATUS_IGNORE);
    }
    free(own);
    return rc;
}

int compi_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire)
{
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(dt, &lb, &ext);
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    const int n = l->size, me = l->rank, leader = l->local_rank == 0;
    int *off = malloc(sizeof(int) * (size_t)n);
    if (!off) return MPI_ERR_NO_MEM;
    long long total = 0;
    for (int r = 0; r < n; r++) {
        off[r] = (int)total;
        total += recvcounts[r];
    }
    /* MPI_IN_PLACE: the input vector is in recvbuf */
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *own = NULL, *acc = NULL, *mine = NULL, *mine_owned = NULL;
    int *lcounts = NULL, *ldispls = NULL;
    compi_parts q = {NULL, NULL, NULL};
    int rc = MPI_SUCCESS;
    if (leader) {
        own = malloc(total > 0 ? (size_t)text + (size_t)(total - 1) * (size_t)ext : 1);
        lcounts = malloc(sizeof(int) * (size_t)l->local_size);
        ldispls = malloc(sizeof(int) * (size_t)l->local_size);
        q.first = malloc(sizeof(int) * (size_t)(l->nnodes + 1));
        q.start = malloc(sizeof(int) * (size_t)n);
        q.len = malloc(sizeof(int) * (size_t)n);
        if (!own || !lcounts || !ldispls || !q.first || !q.start || !q.len) rc = MPI_ERR_NO_MEM;
        acc = own - tlb;
    }
    if (rc != MPI_SUCCESS) goto out; /* out of memory: fails the call, as the other paths do */
    /* 1. the full vector, reduced inside the node, at the leader */
    rc = PMPI_Reduce(input, leader ? acc : NULL, (int)total, dt, op, 0, l->local);
    if (rc != MPI_SUCCESS) goto out;
    if (leader) {
        /* 2. node c's part is its members' blocks, in rank order */
        for (int c = 0; c <= l->nnodes; c++) q.first[c] = l->first[c];
        for (int j = 0; j < n; j++) {
            q.start[j] = off[l->members[j]];
            q.len[j] = recvcounts[l->members[j]];
        }
        if (l->nnodes > 1) {
            rc = compi_reduce_scatter_leaders(acc, &q, dt, op, comm, ci, l, COMPI_FAM_REDUCE, &mine, &mine_owned, wire);
        } else {
            mine = compi_part_bytes(&q, l->my_node, acc, ext, tlb, text, &mine_owned);
            if (!mine) rc = MPI_ERR_NO_MEM;
        }
        int at = 0;
        for (int j = 0; j < l->local_size; j++) {
            lcounts[j] = recvcounts[l->members[l->first[l->my_node] + j]];
            ldispls[j] = at;
            at += lcounts[j];
        }
    }
    /* 3. each member's block from its leader */
    if (rc == MPI_SUCCESS) rc = PMPI_Scatterv(mine, lcounts, ldispls, dt, recvbuf, recvcounts[me], dt, 0, l->local);
out:
    free(mine_owned);
    free(own);
    free(lcounts);
    free(ldispls);
    compi_parts_free(&q);
    free(off);
    return rc;
}
