/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the communication graph from the traced profiles (place.h).
 *
 * Which rank decomposes a collective (commprof.h): Alltoallv and Alltoallw
 * every rank for its own send row (the DKB gets the row, the rest zero, and
 * only this rank's messages are kept: both Open MPI algorithms send block
 * (i, j) straight from i to j); Gatherv and Scatterv the root, which knows
 * every count; everything else rank 0 of the communicator, which knows the
 * whole call. Stand-ins (counted in graph->approximated, printed by
 * `compi map`): Scan and Exscan as coll/basic's chain (rank i sends its
 * vector to i + 1); Reduce_scatter_block as Reduce_scatter with equal
 * counts; under MPICH, the stand-in of place_pins.c. Calls that ran compi's
 * own node-aware algorithm (the record's path) are kept aside and
 * decomposed under each placement (dkb_compi.c): their messages follow
 * which ranks share a node. */
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "map/place_internal.h"

int compi_map_graph_init(compi_map_graph *g, int n)
{
    memset(g, 0, sizeof *g);
    if (n < 1 || n > 65536) return COMPI_MAP_EARG;
    g->msgs = calloc((size_t)n * (size_t)n, sizeof *g->msgs);
    g->bytes = calloc((size_t)n * (size_t)n, sizeof *g->bytes);
    if (!g->msgs || !g->bytes) {
        compi_map_graph_free(g);
        return COMPI_MAP_ENOMEM;
    }
    g->n = n;
    return 0;
}

void compi_map_graph_free(compi_map_graph *g)
{
    for (int q = 0; q < g->nseq; q++) {
        free(g->seq[q].peer);
        free(g->seq[q].bytes);
    }
    free(g->seq);
    for (int q = 0; q < g->nna; q++) {
        free((void *)g->na[q].c.call.counts);
        free(g->na[q].world);
    }
    free(g->na);
    free(g->frame_ratio);
    free(g->msgs);
    free(g->bytes);
    memset(g, 0, sizeof *g);
}

static int pl_fam2coll(int fam)
{
    switch (fam) {
    case COMPI_PROF_BCAST: return COMPI_MAP_BCAST;
    case COMPI_PROF_REDUCE: return COMPI_MAP_REDUCE;
    case COMPI_PROF_ALLREDUCE: return COMPI_MAP_ALLREDUCE;
    case COMPI_PROF_ALLTOALL: return COMPI_MAP_ALLTOALL;
    case COMPI_PROF_ALLGATHER: return COMPI_MAP_ALLGATHER;
    case COMPI_PROF_GATHER: return COMPI_MAP_GATHER;
    case COMPI_PROF_SCATTER: return COMPI_MAP_SCATTER;
    case COMPI_PROF_REDUCE_SCATTER: return COMPI_MAP_REDUCE_SCATTER;
    case COMPI_PROF_BARRIER: return COMPI_MAP_BARRIER;
    case COMPI_PROF_ALLTOALLV: return COMPI_MAP_ALLTOALLV;
    case COMPI_PROF_ALLGATHERV: return COMPI_MAP_ALLGATHERV;
    case COMPI_PROF_GATHERV: return COMPI_MAP_GATHERV;
    case COMPI_PROF_SCATTERV: return COMPI_MAP_SCATTERV;
    case COMPI_PROF_ALLTOALLW: return COMPI_MAP_ALLTOALLV;
    case COMPI_PROF_REDUCE_SCATTER_BLOCK: return COMPI_MAP_REDUCE_SCATTER;
    default: return -1;
    }
}

static void pl_add(compi_map_graph *g, int src, int dst, double msgs, double bytes)
{
    size_t k = (size_t)src * (size_t)g->n + (size_t)dst;
    g->msgs[k] += msgs;
    g->bytes[k] += bytes;
}

int compi_map_graph_add_seq(compi_map_graph *g, const compi_map_seq *s)
{
    if (s->root < 0 || s->root >= g->n || s->len < 0) return COMPI_MAP_EARG;
    for (int i = 0; i < s->len; i++)
        if (s->peer[i] < 0 || s->peer[i] >= g->n || s->peer[i] == s->root) return COMPI_MAP_EARG;
    for (int q = 0; q < g->nseq; q++) {
        compi_map_seq *t = &g->seq[q];
        if (t->root == s->root && t->recv == s->recv && t->blocking == s->blocking && t->len == s->len &&
            !memcmp(t->peer, s->peer, sizeof *s->peer * (size_t)s->len) &&
            !memcmp(t->bytes, s->bytes, sizeof *s->bytes * (size_t)s->len)) {
            t->calls += s->calls;
            return 0;
        }
    }
    if (g->nseq == g->capseq) {
        int cap = g->capseq ? 2 * g->capseq : 8;
        compi_map_seq *v = realloc(g->seq, sizeof *v * (size_t)cap);
        if (!v) return COMPI_MAP_ENOMEM;
        g->seq = v;
        g->capseq = cap;
    }
    compi_map_seq *t = &g->seq[g->nseq];
    *t = *s;
    t->peer = malloc(sizeof *t->peer * (size_t)(s->len ? s->len : 1));
    t->bytes = malloc(sizeof *t->bytes * (size_t)(s->len ? s->len : 1));
    if (!t->peer || !t->bytes) {
        free(t->peer);
        free(t->bytes);
        return COMPI_MAP_ENOMEM;
    }
    memcpy(t->peer, s->peer, sizeof *s->peer * (size_t)s->len);
    memcpy(t->bytes, s->bytes, sizeof *s->bytes * (size_t)s->len);
    g->nseq++;
    return 0;
}

/* A rooted linear collective's messages (the DKB's, in its order: rank
 * order) as the root's sequence: Open MPI's coll/basic blocks on each,
 * MPICH posts them all (place.h). */
static int pl_add_rooted(compi_map_graph *g, const compi_prof_comm *c, const compi_map_msgs *out, int recv,
                         int blocking, double calls)
{
    compi_map_seq s = {.recv = recv, .blocking = blocking, .calls = calls, .len = 0};
    s.peer = malloc(sizeof *s.peer * out->n);
    s.bytes = malloc(sizeof *s.bytes * out->n);
    int rc = s.peer && s.bytes ? 0 : COMPI_MAP_ENOMEM;
    for (size_t k = 0; k < out->n && !rc; k++) {
        const compi_map_msg *m = &out->v[k];
        int root = c->world[recv ? m->dst : m->src];
        if (k == 0) s.root = root;
        if (root != s.root) {
            rc = COMPI_MAP_EARG;
            break;
        } /* not a rooted linear decomposition */
        s.peer[s.len] = c->world[recv ? m->src : m->dst];
        s.bytes[s.len++] = (double)m->bytes;
    }
    if (!rc) rc = compi_map_graph_add_seq(g, &s);
    free(s.peer);
    free(s.bytes);
    return rc == COMPI_MAP_EARG ? 0 : rc; /* a decomposition that is not linear stays priced by the sum */
}

/* The MPI's DKB for the sub-steps of compi's node-aware collectives. */
static int pl_sub(void *ctx, const compi_map_call *c, compi_map_msgs *out)
{
    int approx = 0;
    return compi_place_decompose(c, (const compi_map_algs *)ctx, out, &approx);
}

static compi_map_way pl_way(int path)
{
    return path == COMPI_PROF_PATH_WHOLE         ? COMPI_MAP_WAY_WHOLE
           : path == COMPI_PROF_PATH_SPLIT_AGREE ? COMPI_MAP_WAY_SPLIT_AGREE
                                                 : COMPI_MAP_WAY_SPLIT;
}

/* entries of a call's counts: size x size for Alltoallv, else size */
static size_t pl_counts_len(const compi_map_call *call)
{
    return call->coll == COMPI_MAP_ALLTOALLV ? (size_t)call->size * (size_t)call->size : (size_t)call->size;
}

/* A call that ran compi's algorithm: kept with its communicator's members
 * (counts copied: n, or n x n with row me for Alltoallv). */
static int pl_add_nodeaware(compi_map_graph *g, const compi_prof_comm *c, const compi_map_call *call, int path, int me,
                            double calls)
{
    for (int q = 0; q < g->nna; q++) {
        compi_map_nodeaware *x = &g->na[q];
        const compi_map_call *y = &x->c.call;
        if (y->coll != call->coll || y->size != call->size || y->root != call->root || y->count != call->count ||
            y->type_size != call->type_size || y->commutative != call->commutative || x->c.way != (int)pl_way(path) ||
            x->c.me != me || memcmp(x->world, c->world, sizeof *x->world * (size_t)c->size) != 0 ||
            (y->counts == NULL) != (call->counts == NULL))
            continue;
        if (call->counts && memcmp(y->counts, call->counts, sizeof *y->counts * pl_counts_len(call)) != 0) continue;
        x->calls += calls;
        return 0;
    }
    if (g->nna == g->capna) {
        int cap = g->capna ? 2 * g->capna : 16;
        compi_map_nodeaware *na = realloc(g->na, sizeof *na * (size_t)cap);
        if (!na) return COMPI_MAP_ENOMEM;
        g->na = na;
        g->capna = cap;
    }
    compi_map_nodeaware x = {.c = {.call = *call, .node = NULL, .way = (int)pl_way(path), .me = me}, .calls = calls};
    x.world = malloc(sizeof *x.world * (size_t)c->size);
    int64_t *counts = NULL;
    if (call->counts && (counts = malloc(sizeof *counts * pl_counts_len(call))))
        memcpy(counts, call->counts, sizeof *counts * pl_counts_len(call));
    if (!x.world || (call->counts && !counts)) {
        free(x.world);
        free(counts);
        return COMPI_MAP_ENOMEM;
    }
    memcpy(x.world, c->world, sizeof *x.world * (size_t)c->size);
    x.c.call.counts = counts;
    g->na[g->nna++] = x;
    return 0;
}

int compi_map_graph_set_frame_ratio(compi_map_graph *g, const double *ratio)
{
    int n = g->n;
    double *r = malloc(sizeof *r * (size_t)n * (size_t)n);
    if (!r) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < n; i++) {
        double sum = 0;
        int k = 0;
        for (int j = 0; j < n; j++)
            if (ratio[(size_t)i * n + j] > 1) sum += ratio[(size_t)i * n + j], k++;
        for (int j = 0; j < n; j++) {
            double v = ratio[(size_t)i * n + j];
            r[(size_t)i * n + j] = v > 1 ? v : k ? sum / k : 1;
        }
    }
    free(g->frame_ratio);
    g->frame_ratio = r;
    return 0;
}

/* a node-aware call's frames: the graph's ratio of the pair's world ranks */
typedef struct {
    const compi_map_graph *g;
    const int *world;
} pl_ratio_ctx;
static double pl_ratio(void *ctx, int src, int dst)
{
    const pl_ratio_ctx *r = ctx;
    return r->g->frame_ratio[(size_t)r->world[src] * r->g->n + r->world[dst]];
}

/* Node-aware call q's messages under the placement node (world rank ->
 * node), in out (comm ranks), its steps in ph. */
int compi_place_nodeaware_call(const compi_map_graph *g, int q, const int *node, compi_map_msgs *out,
                               compi_map_phases *ph)
{
    const compi_map_nodeaware *x = &g->na[q];
    int n = x->c.call.size, stack[64], *nid = n <= 64 ? stack : malloc(sizeof *nid * (size_t)n);
    if (!nid) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < n; i++) nid[i] = node[x->world[i]];
    compi_map_compi_call c = x->c;
    pl_ratio_ctx rc_ = {g, x->world};
    c.node = nid;
    if (g->frame_ratio) c.ratio = pl_ratio, c.ratio_ctx = &rc_;
    c.self_comm_local = g->algs.mpich;
    out->n = 0;
    int rc = compi_map_compi_messages(&c, pl_sub, (void *)&g->algs, out, ph);
    if (nid != stack) free(nid);
    return rc;
}

/* Every message of every node-aware call under the placement node, world
 * ranks, calls x bytes, to fn; scratch messages in out. */
int compi_place_nodeaware_each(const compi_map_graph *g, const int *node, compi_map_msgs *out, compi_place_msg_fn fn,
                               void *ctx)
{
    int rc = 0;
    for (int q = 0; q < g->nna && !rc; q++) {
        const compi_map_nodeaware *x = &g->na[q];
        rc = compi_place_nodeaware_call(g, q, node, out, NULL);
        for (size_t k = 0; k < out->n && !rc; k++)
            fn(ctx, x->world[out->v[k].src], x->world[out->v[k].dst], x->calls, x->calls * (double)out->v[k].bytes);
    }
    return rc;
}

int compi_map_graph_add(compi_map_graph *g, const compi_commprof *p, const compi_map_algs *a, char *err, size_t errlen)
{
    g->algs = *a;
    if (p->world_size != g->n) {
        compi_errf(err, errlen, "a trace of rank %d is from a run of %d ranks, the others of %d", p->world_rank,
                   p->world_size, g->n);
        return COMPI_MAP_EARG;
    }
    for (size_t i = 0; i < p->nbyid; i++) {
        const compi_prof_comm *c = p->byid[i];
        if (!c || !c->peer_msgs) continue;
        for (int k = 0; k < c->size; k++)
            if (c->peer_msgs[k])
                pl_add(g, p->world_rank, c->world[k], (double)c->peer_msgs[k], (double)c->peer_bytes[k]);
    }
    compi_map_msgs out = {0};
    int64_t *counts = NULL;
    int rc = 0;
    for (size_t i = 0; i < p->ncolls && rc == 0; i++) {
        const compi_prof_coll *r = &p->colls[i];
        const compi_prof_comm *c = p->byid[r->comm];
        int fam = r->family, me = c->rank, n = c->size;
        int per_rank = fam == COMPI_PROF_ALLTOALLV || fam == COMPI_PROF_ALLTOALLW;
        int by_root = fam == COMPI_PROF_GATHERV || fam == COMPI_PROF_SCATTERV;
        if (per_rank ? 0 : by_root ? me != r->root : me != 0) continue;
        double calls = (double)r->calls;
        if (fam == COMPI_PROF_SCAN || fam == COMPI_PROF_EXSCAN) {
            for (int k = 0; k + 1 < n; k++)
                pl_add(g, c->world[k], c->world[k + 1], calls, calls * (double)r->count * r->type_size);
            g->approximated[fam] += r->calls;
            continue;
        }
        if (pl_fam2coll(fam) < 0) continue;
        compi_map_call call = {.coll = (compi_map_coll)pl_fam2coll(fam),
                               .size = n,
                               .root = r->root < 0 ? 0 : r->root,
                               .count = r->count,
                               .type_size = r->type_size,
                               .commutative = r->commutative};
        free(counts);
        counts = NULL;
        if (fam == COMPI_PROF_REDUCE_SCATTER_BLOCK) {
            if (!(counts = malloc(sizeof *counts * (size_t)n))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            for (int k = 0; k < n; k++) counts[k] = r->count;
            call.counts = counts;
            if (r->path == COMPI_PROF_PATH_MPI) g->approximated[fam] += r->calls;
        } else if (per_rank) {
            if (r->ncounts != n) continue;
            if (!(counts = calloc((size_t)n * (size_t)n, sizeof *counts))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            memcpy(counts + (size_t)me * n, r->counts, sizeof *counts * (size_t)n);
            call.counts = counts;
        } else if (r->ncounts) {
            call.counts = r->counts;
        } else if (by_root || fam == COMPI_PROF_ALLGATHERV || fam == COMPI_PROF_REDUCE_SCATTER) {
            continue; /* a record without the vector (not the root's) */
        }
        if (r->path != COMPI_PROF_PATH_MPI) {
            /* compi's own algorithm: decomposed under each placement (checked here under one) */
            call.coll = fam == COMPI_PROF_REDUCE_SCATTER_BLOCK ? COMPI_MAP_REDUCE_SCATTER_BLOCK : call.coll;
            if (fam == COMPI_PROF_REDUCE_SCATTER_BLOCK) call.counts = NULL;
            int *one = calloc((size_t)n, sizeof *one);
            compi_map_compi_call cc = {.call = call,
                                       .node = one,
                                       .way = (int)pl_way(r->path),
                                       .me = per_rank ? me : -1,
                                       .self_comm_local = a->mpich};
            out.n = 0;
            rc = one ? compi_map_compi_messages(&cc, pl_sub, (void *)a, &out, NULL) : COMPI_MAP_ENOMEM;
            free(one);
            if (!rc) rc = pl_add_nodeaware(g, c, &call, r->path, per_rank ? me : -1, calls);
            if (rc) {
                compi_errf(err, errlen, "rank %d: %s (compi's node-aware path) on a communicator of %d ranks: %s",
                           p->world_rank, compi_prof_family_name(fam), n, compi_map_strerror(rc));
                break;
            }
            g->node_aware[fam] += r->calls;
            continue;
        }
        out.n = 0;
        int approx = 0;
        rc = compi_place_decompose(&call, a, &out, &approx);
        if (rc) {
            compi_errf(err, errlen, "rank %d: %s on a communicator of %d ranks (%lld x %u bytes): %s", p->world_rank,
                       compi_prof_family_name(fam), n, (long long)r->count, r->type_size, compi_map_strerror(rc));
            break;
        }
        if (approx) g->approximated[fam] += r->calls;
        for (size_t k = 0; k < out.n; k++) {
            const compi_map_msg *m = &out.v[k];
            if (per_rank && m->src != me) continue;
            pl_add(g, c->world[m->src], c->world[m->dst], calls, calls * (double)m->bytes);
        }
        if (by_root && out.n > 0 && (rc = pl_add_rooted(g, c, &out, fam == COMPI_PROF_GATHERV, !a->mpich, calls)) != 0)
            break;
    }
    free(counts);
    compi_map_msgs_free(&out);
    return rc;
}

/* adds a message to the matrices of the graph ctx */
void compi_place_mat_msg(void *ctx, int src, int dst, double msgs, double bytes)
{
    compi_map_graph *g = ctx;
    size_t k = (size_t)src * (size_t)g->n + (size_t)dst;
    g->msgs[k] += msgs;
    g->bytes[k] += bytes;
}

int compi_map_graph_materialize(compi_map_graph *g, const int *node_of_rank)
{
    compi_map_msgs out = {0};
    int rc = compi_place_nodeaware_each(g, node_of_rank, &out, compi_place_mat_msg, g);
    compi_map_msgs_free(&out);
    if (rc) return rc;
    for (int q = 0; q < g->nna; q++) {
        free((void *)g->na[q].c.call.counts);
        free(g->na[q].world);
    }
    g->nna = 0;
    return 0;
}
