/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: communication graph, network, cost, mappers (place.h).
 *
 * Which rank decomposes a collective (commprof.h): Alltoallv and Alltoallw
 * every rank for its own send row (the DKB gets the row, the rest zero, and
 * only this rank's messages are kept: both Open MPI algorithms send block
 * (i, j) straight from i to j); Gatherv and Scatterv the root, which knows
 * every count; everything else rank 0 of the communicator, which knows the
 * whole call. Stand-ins (counted in graph->approximated, printed by
 * `compi map`): Scan and Exscan as coll/basic's chain (rank i sends its
 * vector to i + 1); Reduce_scatter_block as Reduce_scatter with equal
 * counts; under MPICH, collectives compi did not pin or dkb_mpich.c does not
 * cover take Open MPI's fixed decision. Calls that ran compi's own
 * node-aware algorithm (the record's path) are kept aside and decomposed
 * under each placement (dkb_compi.c): their messages follow which ranks
 * share a node. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef COMPI_WITH_SCOTCH
#include <scotch.h>
#endif
#include "common/errf.h"
#include "map/place.h"


/* ------------------------------------------------------------- algorithms */

static int pl_num(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end) return -1;
    *out = v;
    return 0;
}

int compi_map_algs_parse(const char *text, compi_map_algs *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (!text) return 0;
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512];
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = 0;
        line += nl ? n + 1 : n;
        char *eq = strchr(buf, '=');
        if (!eq) continue;
        *eq = 0;
        const char *key = buf, *val = eq + 1;
        long v;
        if (strcmp(key, "mpi") == 0) {
            if (strcmp(val, "openmpi") == 0) a->mpich = 0;
            else if (strcmp(val, "mpich") == 0) a->mpich = 1;
            else { compi_errf(err, errlen, "the trace was made with an unknown MPI '%s'", val); return COMPI_MAP_EARG; }
        } else if (strncmp(key, "OMPI_MCA_coll_tuned_", 20) == 0) {
            const char *rest = key + 20;
            if (strcmp(rest, "use_dynamic_rules") == 0) {
                a->dynamic = pl_num(val, &v) == 0 ? v != 0 : (strcmp(val, "true") == 0);
                continue;
            }
            for (int c = 0; c < COMPI_MAP_NCOLLS; c++) {
                const char *name = compi_map_coll_name((compi_map_coll)c);
                size_t ln = strlen(name);
                if (strncmp(rest, name, ln) != 0 || strncmp(rest + ln, "_algorithm", 10) != 0) continue;
                const char *what = rest + ln + 10;
                if (*what == 0) {
                    int alg = -1;
                    if (pl_num(val, &v) == 0) alg = (int)v;
                    else
                        for (int k = 1; k <= compi_map_ompi41_nalgs((compi_map_coll)c); k++)
                            if (strcmp(val, compi_map_ompi41_alg_name((compi_map_coll)c, k)) == 0) alg = k;
                    if (alg < 0 || alg > compi_map_ompi41_nalgs((compi_map_coll)c)) {
                        compi_errf(err, errlen, "%s=%s: no such Open MPI algorithm in lib/map", key, val);
                        return COMPI_MAP_EALG;
                    }
                    a->alg[c] = alg;
                } else if (strcmp(what, "_segmentsize") == 0 && pl_num(val, &v) == 0 && v >= 0) {
                    a->segsize[c] = (uint32_t)v;
                } else if (strcmp(what, "_tree_fanout") == 0 && pl_num(val, &v) == 0 && v > 0) {
                    a->tree_fanout[c] = (int)v;
                } else if (strcmp(what, "_chain_fanout") == 0 && pl_num(val, &v) == 0 && v > 0) {
                    a->chain_fanout[c] = (int)v;
                }
                break;
            }
        } else if (strncmp(key, "MPIR_CVAR_", 10) == 0) {
            const char *rest = key + 10;
            const char *suffix = strstr(rest, "_INTRA_ALGORITHM");
            if (!suffix || suffix[16]) continue;
            char coll[64];
            size_t ln = (size_t)(suffix - rest);
            if (ln >= sizeof coll) continue;
            for (size_t i = 0; i < ln; i++) coll[i] = (char)(rest[i] >= 'A' && rest[i] <= 'Z' ? rest[i] + 32 : rest[i]);
            coll[ln] = 0;
            int c = compi_map_coll_parse(coll);
            if (c < 0 || strcmp(val, "auto") == 0) continue;
            int alg = compi_map_mpich40_alg_parse((compi_map_coll)c, val);
            if (alg < 0) {
                /* known to MPICH, not to lib/map: decomposed by the stand-in */
                a->alg[c] = -1;
                continue;
            }
            a->alg[c] = alg;
        }
    }
    return 0;
}

/* ------------------------------------------------------------- graph */

int compi_map_graph_init(compi_map_graph *g, int n)
{
    memset(g, 0, sizeof *g);
    if (n < 1 || n > 65536) return COMPI_MAP_EARG;
    g->msgs = calloc((size_t)n * (size_t)n, sizeof *g->msgs);
    g->bytes = calloc((size_t)n * (size_t)n, sizeof *g->bytes);
    if (!g->msgs || !g->bytes) { compi_map_graph_free(g); return COMPI_MAP_ENOMEM; }
    g->n = n;
    return 0;
}

void compi_map_graph_free(compi_map_graph *g)
{
    for (int q = 0; q < g->nseq; q++) { free(g->seq[q].peer); free(g->seq[q].bytes); }
    free(g->seq);
    for (int q = 0; q < g->nna; q++) { free((void *)g->na[q].c.call.counts); free(g->na[q].world); }
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

/* The messages of one call under the traced algorithms; *approx set when a stand-in decomposed it. */
static int pl_decompose(const compi_map_call *c, const compi_map_algs *a, compi_map_msgs *out, int *approx)
{
    if (a->mpich) {
        int alg = a->alg[c->coll];
        if (alg > 0) {
            int rc = compi_map_mpich40_messages(c, alg, out);
            if (rc != COMPI_MAP_EUNSUPP && rc != COMPI_MAP_ENOTYET) return rc;
            out->n = 0;   /* a restriction failed: MPICH falls back to its own selection */
        }
        *approx = 1;
    }
    compi_map_alg pins[COMPI_MAP_NCOLLS];
    memset(pins, 0, sizeof pins);
    for (int k = 0; k < COMPI_MAP_NCOLLS && !a->mpich && a->dynamic; k++) {
        int id = a->alg[k];
        if (id <= 0 || compi_map_ompi41_pinned((compi_map_coll)k, id, &pins[k]) != 0) {
            pins[k].alg = 0;
            continue;
        }
        pins[k].segsize = a->segsize[k];
        const char *name = compi_map_ompi41_alg_name((compi_map_coll)k, id);
        int fo = name && strstr(name, "chain") ? a->chain_fanout[k] : a->tree_fanout[k];
        if (fo > 0) pins[k].fanout = fo;
    }
    compi_map_alg alg = pins[c->coll];
    if (alg.alg <= 0) {
        int rc = compi_map_ompi41_decide(c, &alg);
        if (rc) return rc;
    }
    return compi_map_ompi41_messages_pins(c, &alg, pins, out);
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
    if (!t->peer || !t->bytes) { free(t->peer); free(t->bytes); return COMPI_MAP_ENOMEM; }
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
        if (root != s.root) { rc = COMPI_MAP_EARG; break; }   /* not a rooted linear decomposition */
        s.peer[s.len] = c->world[recv ? m->src : m->dst];
        s.bytes[s.len++] = (double)m->bytes;
    }
    if (!rc) rc = compi_map_graph_add_seq(g, &s);
    free(s.peer);
    free(s.bytes);
    return rc == COMPI_MAP_EARG ? 0 : rc;   /* a decomposition that is not linear stays priced by the sum */
}

/* The MPI's DKB for the sub-steps of compi's node-aware collectives. */
static int pl_sub(void *ctx, const compi_map_call *c, compi_map_msgs *out)
{
    int approx = 0;
    return pl_decompose(c, (const compi_map_algs *)ctx, out, &approx);
}

static compi_map_way pl_way(int path)
{
    return path == COMPI_PROF_PATH_WHOLE ? COMPI_MAP_WAY_WHOLE
           : path == COMPI_PROF_PATH_SPLIT_AGREE ? COMPI_MAP_WAY_SPLIT_AGREE : COMPI_MAP_WAY_SPLIT;
}

/* entries of a call's counts: size x size for Alltoallv, else size */
static size_t pl_counts_len(const compi_map_call *call)
{
    return call->coll == COMPI_MAP_ALLTOALLV ? (size_t)call->size * (size_t)call->size : (size_t)call->size;
}

/* A call that ran compi's algorithm: kept with its communicator's members
 * (counts copied: n, or n x n with row me for Alltoallv). */
static int pl_add_nodeaware(compi_map_graph *g, const compi_prof_comm *c, const compi_map_call *call, int path,
                            int me, double calls)
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
    if (!x.world || (call->counts && !counts)) { free(x.world); free(counts); return COMPI_MAP_ENOMEM; }
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
static int pl_nodeaware_call(const compi_map_graph *g, int q, const int *node, compi_map_msgs *out,
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
    out->n = 0;
    int rc = compi_map_compi_messages(&c, pl_sub, (void *)&g->algs, out, ph);
    if (nid != stack) free(nid);
    return rc;
}

/* Every message of every node-aware call under the placement node, world
 * ranks, calls x bytes, to fn; scratch messages in out. */
typedef void (*pl_msg_fn)(void *ctx, int src, int dst, double msgs, double bytes);
static int pl_nodeaware_each(const compi_map_graph *g, const int *node, compi_map_msgs *out, pl_msg_fn fn, void *ctx)
{
    int rc = 0;
    for (int q = 0; q < g->nna && !rc; q++) {
        const compi_map_nodeaware *x = &g->na[q];
        rc = pl_nodeaware_call(g, q, node, out, NULL);
        for (size_t k = 0; k < out->n && !rc; k++)
            fn(ctx, x->world[out->v[k].src], x->world[out->v[k].dst], x->calls, x->calls * (double)out->v[k].bytes);
    }
    return rc;
}

int compi_map_graph_add(compi_map_graph *g, const compi_commprof *p, const compi_map_algs *a, char *err,
                        size_t errlen)
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
            if (c->peer_msgs[k]) pl_add(g, p->world_rank, c->world[k], (double)c->peer_msgs[k], (double)c->peer_bytes[k]);
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
            for (int k = 0; k + 1 < n; k++) pl_add(g, c->world[k], c->world[k + 1], calls, calls * (double)r->count * r->type_size);
            g->approximated[fam] += r->calls;
            continue;
        }
        if (pl_fam2coll(fam) < 0) continue;
        compi_map_call call = {.coll = (compi_map_coll)pl_fam2coll(fam), .size = n, .root = r->root < 0 ? 0 : r->root,
                               .count = r->count, .type_size = r->type_size, .commutative = r->commutative};
        free(counts);
        counts = NULL;
        if (fam == COMPI_PROF_REDUCE_SCATTER_BLOCK) {
            if (!(counts = malloc(sizeof *counts * (size_t)n))) { rc = COMPI_MAP_ENOMEM; break; }
            for (int k = 0; k < n; k++) counts[k] = r->count;
            call.counts = counts;
            if (r->path == COMPI_PROF_PATH_MPI) g->approximated[fam] += r->calls;
        } else if (per_rank) {
            if (r->ncounts != n) continue;
            if (!(counts = calloc((size_t)n * (size_t)n, sizeof *counts))) { rc = COMPI_MAP_ENOMEM; break; }
            memcpy(counts + (size_t)me * n, r->counts, sizeof *counts * (size_t)n);
            call.counts = counts;
        } else if (r->ncounts) {
            call.counts = r->counts;
        } else if (by_root || fam == COMPI_PROF_ALLGATHERV || fam == COMPI_PROF_REDUCE_SCATTER) {
            continue;   /* a record without the vector (not the root's) */
        }
        if (r->path != COMPI_PROF_PATH_MPI) {
            /* compi's own algorithm: decomposed under each placement (checked here under one) */
            call.coll = fam == COMPI_PROF_REDUCE_SCATTER_BLOCK ? COMPI_MAP_REDUCE_SCATTER_BLOCK : call.coll;
            if (fam == COMPI_PROF_REDUCE_SCATTER_BLOCK) call.counts = NULL;
            int *one = calloc((size_t)n, sizeof *one);
            compi_map_compi_call cc = {.call = call, .node = one, .way = (int)pl_way(r->path), .me = per_rank ? me : -1};
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
        rc = pl_decompose(&call, a, &out, &approx);
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

/* ------------------------------------------------------------- network */

void compi_map_net_free(compi_map_net *net)
{
    free(net->names);
    free(net->slots);
    free(net->slots_hwloc);
    free(net->lat_us);
    free(net->us_per_byte);
    memset(net, 0, sizeof *net);
}

int compi_map_net_slots(const compi_map_net *net)
{
    int s = 0;
    for (int i = 0; i < net->nnodes; i++) s += net->slots[i];
    return s;
}

static void pl_link(const compi_net_link *l, double *lat, double *upb)
{
    *lat = l->alpha_us;
    *upb = (l->npoints ? l->beta_ns[l->npoints - 1] : 0) * 1e-3;
}

int compi_map_net_build(compi_map_net *net, const char *hosts, const compi_net_model *model, char *err,
                        size_t errlen)
{
    memset(net, 0, sizeof *net);
    if (!hosts || !*hosts) { compi_errf(err, errlen, "--hosts: empty host list"); return COMPI_MAP_EARG; }
    int cap = 1;
    for (const char *s = hosts; *s; s++) cap += *s == ',';
    net->names = calloc((size_t)cap, sizeof *net->names);
    net->slots = calloc((size_t)cap, sizeof *net->slots);
    net->slots_hwloc = calloc((size_t)cap, sizeof *net->slots_hwloc);
    if (!net->names || !net->slots || !net->slots_hwloc) { compi_map_net_free(net); return COMPI_MAP_ENOMEM; }
    const char *s = hosts;
    while (1) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char item[256];
        if (len == 0 || len >= sizeof item) {
            compi_errf(err, errlen, "--hosts: empty or overlong entry in '%s'", hosts);
            compi_map_net_free(net);
            return COMPI_MAP_EARG;
        }
        memcpy(item, s, len);
        item[len] = 0;
        char *colon = strchr(item, ':');
        long slots = 1;
        /* no ":S": the node's cores when the network file describes it (hwloc) */
        const compi_net_node *nd = !colon && model ? compi_net_node_find(model, item) : NULL;
        if (nd) slots = nd->cores;
        if (colon) {
            *colon = 0;
            if (pl_num(colon + 1, &slots) != 0 || slots < 1 || slots > 1 << 20) {
                compi_errf(err, errlen, "--hosts: '%s': slots must be a positive number", s);
                compi_map_net_free(net);
                return COMPI_MAP_EARG;
            }
        }
        if (!item[0] || strlen(item) >= COMPI_NET_NAME_MAX) {
            compi_errf(err, errlen, "--hosts: bad host name in '%.*s'", (int)len, s);
            compi_map_net_free(net);
            return COMPI_MAP_EARG;
        }
        for (int i = 0; i < net->nnodes; i++)
            if (strcmp(net->names[i], item) == 0) {
                compi_errf(err, errlen, "--hosts: host '%s' listed twice", item);
                compi_map_net_free(net);
                return COMPI_MAP_EARG;
            }
        snprintf(net->names[net->nnodes], COMPI_NET_NAME_MAX, "%s", item);
        net->slots_hwloc[net->nnodes] = nd && !colon;
        net->slots[net->nnodes++] = (int)slots;
        if (!end) break;
        s = end + 1;
    }
    int k = net->nnodes;
    net->lat_us = calloc((size_t)k * k, sizeof *net->lat_us);
    net->us_per_byte = calloc((size_t)k * k, sizeof *net->us_per_byte);
    if (!net->lat_us || !net->us_per_byte) { compi_map_net_free(net); return COMPI_MAP_ENOMEM; }
    compi_net_model dflt;
    compi_net_default(&dflt);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            compi_link_class cls = i == j ? COMPI_LINK_INTRA : COMPI_LINK_INTER;
            const compi_net_link *l = model ? compi_net_find(model, cls, net->names[i], net->names[j]) : NULL;
            if (!l) l = compi_net_find(&dflt, cls, net->names[i], net->names[j]);
            if (!l) l = compi_net_find(&dflt, cls, NULL, NULL);
            pl_link(l, &net->lat_us[i * k + j], &net->us_per_byte[i * k + j]);
        }
    compi_net_free(&dflt);
    return 0;
}

/* ------------------------------------------------------------- cost */

/* One call of a sequence (place.h): per link from or to the root's node,
 * the time it is busy until; the root's clock t. And the root node's NIC
 * (its fastest link to another node, in the sequence's direction: a node
 * sends and receives no faster than that) carries every byte that leaves
 * (or reaches) the node: the makespan is at least their sum at the NIC's
 * rate plus the smallest latency among those links. */
void compi_map_seq_time(const compi_map_problem *p, const compi_map_seq *s, const int *node, double *makespan,
                        double *sum)
{
    const compi_map_net *net = p->net;
    int k = net->nnodes, x = node[s->root];
    double busy_small[64], *busy = k <= 64 ? busy_small : calloc((size_t)k, sizeof *busy);
    double t = 0, end = 0, total = 0, nic = 0, nic_upb = -1, nic_lat = -1;
    if (!busy) { *makespan = *sum = 0; return; }
    for (int y = 0; y < k; y++) {
        busy[y] = 0;
        double u = s->recv ? net->us_per_byte[(size_t)y * k + x] : net->us_per_byte[(size_t)x * k + y];
        if (y != x && (nic_upb < 0 || u < nic_upb)) nic_upb = u;
    }
    for (int i = 0; i < s->len; i++) {
        int y = node[s->peer[i]];
        size_t l = s->recv ? (size_t)y * k + x : (size_t)x * k + y;
        double b = s->bytes[i], cost = net->lat_us[l] + b * net->us_per_byte[l];
        total += cost;
        int rndv = s->blocking && b > COMPI_MAP_EAGER_BYTES;
        /* posted at once, eager (sent without waiting for anyone) or the root's turn: when it may start */
        double start = busy[y];
        if (s->blocking && (rndv || !s->recv) && t > start) start = t;
        double done = start + cost;
        if (y != x) {
            nic += b * nic_upb;
            if (nic_lat < 0 || net->lat_us[l] < nic_lat) nic_lat = net->lat_us[l];
        }
        busy[y] = done;
        if (rndv && !s->recv) t = start + net->lat_us[l];   /* handshake through: the data drains, the root goes on */
        else if (s->blocking && s->recv) t = t > done ? t : done;   /* the next receive is posted after this one */
        if (done > end) end = done;
    }
    if (t > end) end = t;
    if (nic_lat >= 0 && nic + nic_lat > end) end = nic + nic_lat;
    if (busy != busy_small) free(busy);
    *makespan = end;
    *sum = total;
}

/* calls x (makespan - sum) over the sequences: what they cost beyond (or
 * below) the sum the matrices charge for their messages */
static double pl_seq_adjust(const compi_map_problem *p, const int *node)
{
    double adj = 0;
    for (int q = 0; q < p->g->nseq; q++) {
        double mk, sum;
        compi_map_seq_time(p, &p->g->seq[q], node, &mk, &sum);
        adj += p->g->seq[q].calls * (mk - sum);
    }
    return adj;
}

static double pl_sum_cost(const compi_map_problem *p, const int *node)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    double c = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t e = (size_t)i * n + j;
            if (g->msgs[e] == 0 && g->bytes[e] == 0) continue;
            size_t l = (size_t)node[i] * k + node[j];
            c += g->msgs[e] * net->lat_us[l] + g->bytes[e] * net->us_per_byte[l];
        }
    return c;
}

/* Step [a, b) of node-aware call x, one Gatherv (recv) or Scatterv of the
 * MPI rooted at comm rank root: its makespan as the root's sequence
 * (compi_map_seq_time; blocking under Open MPI's coll/basic, posted under
 * MPICH). -1 if the step is not such a sequence. */
static int pl_step_seq(const compi_map_problem *p, const compi_map_nodeaware *x, const compi_map_msgs *out, size_t a,
                       size_t b, int recv, int root, const int *node, double *mk)
{
    compi_map_seq q = {.root = x->world[root], .recv = recv, .blocking = !p->g->algs.mpich, .calls = 1, .len = 0};
    int stack_p[64];
    double stack_b[64];
    size_t len = b - a;
    q.peer = len <= 64 ? stack_p : malloc(sizeof *q.peer * len);
    q.bytes = len <= 64 ? stack_b : malloc(sizeof *q.bytes * len);
    int rc = q.peer && q.bytes ? 0 : -1;
    for (size_t m = a; m < b && !rc; m++) {
        int r = recv ? out->v[m].dst : out->v[m].src, o = recv ? out->v[m].src : out->v[m].dst;
        if (r != root) { rc = -1; break; }
        q.peer[q.len] = x->world[o];
        q.bytes[q.len++] = (double)out->v[m].bytes;
    }
    double sum;
    if (!rc) compi_map_seq_time(p, &q, node, mk, &sum);
    if (q.peer != stack_p) free(q.peer);
    if (q.bytes != stack_b) free(q.bytes);
    return rc;
}

/* compi's own collectives under the placement (place.h: each step costs
 * its busiest directed node pair; a graph that could not be decomposed was
 * refused when it was built); load (not NULL) gets every message's cost on
 * its inter-node link, as the matrices' edges give theirs. */
static double pl_nodeaware_cost(const compi_map_problem *p, const int *node, double *load)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    if (!g->nna) return 0;
    size_t kk = (size_t)net->nnodes * (size_t)net->nnodes;
    double *link = calloc(kk, sizeof *link), total = 0;
    compi_map_msgs out = {0};
    compi_map_phases ph;
    for (int q = 0; q < g->nna && link; q++) {
        const compi_map_nodeaware *x = &g->na[q];
        if (pl_nodeaware_call(g, q, node, &out, &ph) != 0) continue;
        double call = 0;
        size_t a = 0;   /* step f is messages [a, b); the ends never decrease */
        for (int f = 0; f <= ph.n; f++) {
            size_t b = f < ph.n ? ph.end[f] : out.n;
            double worst = 0, mk;
            memset(link, 0, sizeof *link * kk);
            for (size_t m = a; m < b; m++) {
                int sn = node[x->world[out.v[m].src]], dn = node[x->world[out.v[m].dst]];
                size_t l = (size_t)sn * net->nnodes + dn;
                double c = net->lat_us[l] + (double)out.v[m].bytes * net->us_per_byte[l];
                link[l] += c;
                if (link[l] > worst) worst = link[l];
                if (load && sn != dn) load[l] += x->calls * c;
            }
            /* a step that is the MPI's Gatherv or Scatterv: the root's sequence (place.h) */
            if (f < ph.n && b > a && (ph.coll[f] == COMPI_MAP_GATHERV || ph.coll[f] == COMPI_MAP_SCATTERV) &&
                pl_step_seq(p, x, &out, a, b, ph.coll[f] == COMPI_MAP_GATHERV, ph.root[f], node, &mk) == 0)
                worst = mk;
            call += worst;
            a = b;
        }
        total += x->calls * call;
    }
    free(link);
    compi_map_msgs_free(&out);
    return total;
}

/* what the matrices do not price alone: sequences, node-aware collectives */
static double pl_adjust(const compi_map_problem *p, const int *node)
{
    return pl_seq_adjust(p, node) + pl_nodeaware_cost(p, node, NULL);
}

double compi_map_cost(const compi_map_problem *p, const int *node)
{
    return pl_sum_cost(p, node) + pl_adjust(p, node);
}

static void pl_mat_msg(void *ctx, int src, int dst, double msgs, double bytes)
{
    compi_map_graph *g = ctx;
    size_t k = (size_t)src * (size_t)g->n + (size_t)dst;
    g->msgs[k] += msgs;
    g->bytes[k] += bytes;
}

int compi_map_graph_materialize(compi_map_graph *g, const int *node_of_rank)
{
    compi_map_msgs out = {0};
    int rc = pl_nodeaware_each(g, node_of_rank, &out, pl_mat_msg, g);
    compi_map_msgs_free(&out);
    if (rc) return rc;
    for (int q = 0; q < g->nna; q++) { free((void *)g->na[q].c.call.counts); free(g->na[q].world); }
    g->nna = 0;
    return 0;
}

/* bytes between nodes under a placement */
typedef struct {
    const int *node;
    double bytes;
} pl_inter;

static void pl_inter_msg(void *ctx, int src, int dst, double msgs, double bytes)
{
    pl_inter *a = ctx;
    (void)msgs;
    if (a->node[src] != a->node[dst]) a->bytes += bytes;
}

double compi_map_inter_bytes(const compi_map_problem *p, const int *node)
{
    const compi_map_graph *g = p->g;
    int n = g->n;
    pl_inter a = {node, 0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (node[i] != node[j]) a.bytes += g->bytes[(size_t)i * n + j];
    compi_map_msgs out = {0};
    pl_nodeaware_each(g, node, &out, pl_inter_msg, &a);
    compi_map_msgs_free(&out);
    return a.bytes;
}

double compi_map_bottleneck(const compi_map_problem *p, const int *node)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    double *load = calloc((size_t)k * k, sizeof *load), worst = 0;
    if (!load) return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t e = (size_t)i * n + j;
            if (node[i] == node[j] || (g->msgs[e] == 0 && g->bytes[e] == 0)) continue;
            size_t l = (size_t)node[i] * k + node[j];
            load[l] += g->msgs[e] * net->lat_us[l] + g->bytes[e] * net->us_per_byte[l];
        }
    pl_nodeaware_cost(p, node, load);
    for (size_t l = 0; l < (size_t)k * k; l++)
        if (load[l] > worst) worst = load[l];
    free(load);
    return worst;
}

/* The cost of rank i's traffic (both directions) were it on node x, the
 * others where `node` puts them. Indices >= n are empty slots. */
static double pl_contrib(const compi_map_problem *p, const int *node, int i, int x)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    if (i >= n) return 0;
    double c = 0;
    for (int j = 0; j < n; j++) {
        if (j == i) continue;
        size_t o = (size_t)i * n + j, in = (size_t)j * n + i;
        size_t lo = (size_t)x * k + node[j], li = (size_t)node[j] * k + x;
        c += g->msgs[o] * net->lat_us[lo] + g->bytes[o] * net->us_per_byte[lo];
        c += g->msgs[in] * net->lat_us[li] + g->bytes[in] * net->us_per_byte[li];
    }
    size_t s = (size_t)i * n + i, l = (size_t)x * k + x;   /* messages to itself stay on its node */
    return c + g->msgs[s] * net->lat_us[l] + g->bytes[s] * net->us_per_byte[l];
}

/* a's and b's mutual traffic with a on x and b on y */
static double pl_pair(const compi_map_problem *p, int a, int b, int x, int y)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    if (a >= n || b >= n) return 0;
    size_t ab = (size_t)a * n + b, ba = (size_t)b * n + a, lxy = (size_t)x * k + y, lyx = (size_t)y * k + x;
    return g->msgs[ab] * net->lat_us[lxy] + g->bytes[ab] * net->us_per_byte[lxy] + g->msgs[ba] * net->lat_us[lyx] +
           g->bytes[ba] * net->us_per_byte[lyx];
}

/* Steepest descent over exchanges of two slots' occupants (ranks or empty
 * slots) on different nodes; node has `total` entries (ranks, then empty
 * slots). Ends at a placement no single exchange improves. */
static void pl_descend(const compi_map_problem *p, int *node, int total)
{
    int seqs = p->g->nseq > 0 || p->g->nna > 0;
    for (int iter = 0; iter < 100000; iter++) {
        double best = 0;
        int ba = -1, bb = -1;
        double adj0 = seqs ? pl_adjust(p, node) : 0;
        for (int a = 0; a < p->g->n; a++) {
            int na = node[a];
            double ca = pl_contrib(p, node, a, na);
            for (int b = a + 1; b < total; b++) {
                int nb = node[b];
                if (nb == na) continue;
                double d = pl_contrib(p, node, a, nb) + pl_contrib(p, node, b, na) - ca - pl_contrib(p, node, b, nb) -
                           pl_pair(p, a, b, nb, nb) - pl_pair(p, a, b, na, na) + pl_pair(p, a, b, nb, na) +
                           pl_pair(p, a, b, na, nb);
                if (seqs) {   /* sequences' makespans and node-aware collectives do not split by rank: recomputed */
                    node[a] = nb;
                    node[b] = na;
                    d += pl_adjust(p, node) - adj0;
                    node[a] = na;
                    node[b] = nb;
                }
                if (d < best - 1e-9 * (fabs(ca) + 1e-12)) { best = d; ba = a; bb = b; }
            }
        }
        if (ba < 0) return;
        int t = node[ba];
        node[ba] = node[bb];
        node[bb] = t;
    }
}

/* ------------------------------------------------------------- mappers */

static const char *const pl_mapper_names[COMPI_MAPPER_COUNT] = {"block", "cyclic", "random", "swap", "scotch"};
const char *compi_mapper_name(compi_mapper m) { return m < COMPI_MAPPER_COUNT ? pl_mapper_names[m] : "?"; }

static uint64_t pl_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* every slot's node, in host order: total entries */
static int *pl_slots(const compi_map_net *net, int *total)
{
    *total = compi_map_net_slots(net);
    int *s = malloc(sizeof *s * (size_t)*total), t = 0;
    if (!s) return NULL;
    for (int i = 0; i < net->nnodes; i++)
        for (int k = 0; k < net->slots[i]; k++) s[t++] = i;
    return s;
}

static void pl_cyclic(const compi_map_net *net, int *node, int total)
{
    int *used = calloc((size_t)net->nnodes, sizeof *used), x = 0;
    for (int r = 0; r < total && used; r++) {
        while (used[x] >= net->slots[x]) x = (x + 1) % net->nnodes;
        node[r] = x;
        used[x]++;
        x = (x + 1) % net->nnodes;
    }
    free(used);
}

#ifdef COMPI_WITH_SCOTCH
/* Scotch: ranks onto nodes, weights = traffic cost over an average
 * inter-node link; then ranks beyond a node's slots move to the node with
 * free slots where they cost least. */
static int pl_scotch(const compi_map_problem *p, int *node, char *err, size_t errlen)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    double lat = 0, upb = 0;
    int pairs = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            if (i != j) { lat += net->lat_us[i * k + j]; upb += net->us_per_byte[i * k + j]; pairs++; }
    if (pairs) { lat /= pairs; upb /= pairs; } else { lat = 1; upb = 1e-3; }
    double *w = calloc((size_t)n * n, sizeof *w), wmax = 0;
    SCOTCH_Num *verttab = malloc(sizeof *verttab * (size_t)(n + 1));
    SCOTCH_Num *edgetab = malloc(sizeof *edgetab * (size_t)n * n), *edlotab = malloc(sizeof *edlotab * (size_t)n * n);
    SCOTCH_Num *parttab = malloc(sizeof *parttab * (size_t)n), *velo = malloc(sizeof *velo * (size_t)k);
    int rc = 0;
    if (!w || !verttab || !edgetab || !edlotab || !parttab || !velo) { rc = COMPI_MAP_ENOMEM; goto out; }
    compi_map_graph na = {0};   /* the node-aware collectives as they are under block placement */
    int *blk = NULL, total = 0;
    if (g->nna && compi_map_graph_init(&na, n) == 0 && (blk = pl_slots(net, &total))) {
        compi_map_msgs out = {0};
        pl_nodeaware_each(g, blk, &out, pl_mat_msg, &na);
        compi_map_msgs_free(&out);
    }
    free(blk);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j) {
                size_t a = (size_t)i * n + j, b = (size_t)j * n + i;
                w[a] = (g->msgs[a] + g->msgs[b]) * lat + (g->bytes[a] + g->bytes[b]) * upb;
                if (na.msgs) w[a] += (na.msgs[a] + na.msgs[b]) * lat + (na.bytes[a] + na.bytes[b]) * upb;
                if (w[a] > wmax) wmax = w[a];
            }
    compi_map_graph_free(&na);
    SCOTCH_Num e = 0;
    for (int i = 0; i < n; i++) {
        verttab[i] = e;
        for (int j = 0; j < n; j++) {
            double x = w[(size_t)i * n + j];
            if (i == j || x <= 0) continue;
            edgetab[e] = j;
            long q = lround(x / wmax * 1e6);
            edlotab[e++] = q < 1 ? 1 : (SCOTCH_Num)q;
        }
    }
    verttab[n] = e;
    SCOTCH_Graph sg;
    SCOTCH_Arch arch;
    SCOTCH_Strat strat;
    SCOTCH_graphInit(&sg);
    SCOTCH_archInit(&arch);
    SCOTCH_stratInit(&strat);
    int same = 1;
    for (int i = 1; i < k; i++) same &= net->slots[i] == net->slots[0];
    int leaf = same && net->slots[0] > 1;
    if (SCOTCH_graphBuild(&sg, 0, n, verttab, NULL, NULL, NULL, e, edgetab, edlotab) != 0) rc = COMPI_MAP_EUNSUPP;
    if (!rc) {
        if (leaf) {
            /* nodes x cores: leaves are slots, the link cost of each level */
            SCOTCH_Num sizetab[2] = {k, net->slots[0]}, linktab[2] = {10, 1};
            rc = SCOTCH_archTleaf(&arch, 2, sizetab, linktab) ? COMPI_MAP_EUNSUPP : 0;
        } else {
            for (int i = 0; i < k; i++) velo[i] = net->slots[i];
            rc = SCOTCH_archCmpltw(&arch, k, velo) ? COMPI_MAP_EUNSUPP : 0;
        }
    }
    if (!rc && SCOTCH_graphMap(&sg, &arch, &strat, parttab) != 0) rc = COMPI_MAP_EUNSUPP;
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_graphExit(&sg);
    if (rc) { compi_errf(err, errlen, "Scotch could not map the graph"); goto out; }
    int *used = calloc((size_t)k, sizeof *used);
    if (!used) { rc = COMPI_MAP_ENOMEM; goto out; }
    for (int i = 0; i < n; i++) {
        node[i] = leaf ? parttab[i] / net->slots[0] : parttab[i];
        if (node[i] < 0 || node[i] >= k) node[i] = 0;
    }
    /* repair: keep the first ranks of each node up to its slots, move the others */
    int *over = malloc(sizeof *over * (size_t)n), nover = 0;
    if (!over) { free(used); rc = COMPI_MAP_ENOMEM; goto out; }
    for (int i = 0; i < n; i++) {
        if (used[node[i]] < net->slots[node[i]]) used[node[i]]++;
        else over[nover++] = i;
    }
    for (int q = 0; q < nover; q++) {
        int i = over[q], bx = -1;
        double bc = 0;
        node[i] = -1;
        for (int x = 0; x < k; x++) {
            if (used[x] >= net->slots[x]) continue;
            int keep = node[i];
            node[i] = x;
            double c = 0;
            for (int j = 0; j < n; j++)
                if (j != i && node[j] >= 0) c += pl_pair(p, i, j, x, node[j]);
            node[i] = keep;
            if (bx < 0 || c < bc) { bx = x; bc = c; }
        }
        node[i] = bx;
        used[bx]++;
    }
    free(over);
    free(used);
out:
    free(w); free(verttab); free(edgetab); free(edlotab); free(parttab); free(velo);
    return rc;
}
#else
/* Built without Scotch (CMake option COMPI_WITH_SCOTCH=OFF): the mapper
 * fails with a message naming the option; the other mappers still run. */
static int pl_scotch(const compi_map_problem *p, int *node, char *err, size_t errlen)
{
    (void)p;
    (void)node;
    compi_errf(err, errlen, "built without Scotch (configure with -DCOMPI_WITH_SCOTCH=ON)");
    return COMPI_MAP_EUNSUPP;
}
#endif

int compi_map_have_scotch(void)
{
#ifdef COMPI_WITH_SCOTCH
    return 1;
#else
    return 0;
#endif
}

int compi_map_swap_descend(const compi_map_problem *p, int *node_of_rank)
{
    int total, n = p->g->n;
    int *slots = pl_slots(p->net, &total);
    if (!slots) return COMPI_MAP_ENOMEM;
    if (total < n) { free(slots); return COMPI_MAP_EARG; }
    int *node = malloc(sizeof *node * (size_t)total), *used = calloc((size_t)p->net->nnodes, sizeof *used);
    if (!node || !used) { free(slots); free(node); free(used); return COMPI_MAP_ENOMEM; }
    for (int i = 0; i < n; i++) { node[i] = node_of_rank[i]; used[node[i]]++; }
    int t = n;   /* empty slots after the ranks */
    for (int x = 0; x < p->net->nnodes; x++)
        for (int s = used[x]; s < p->net->slots[x]; s++) node[t++] = x;
    pl_descend(p, node, total);
    memcpy(node_of_rank, node, sizeof *node * (size_t)n);
    free(slots); free(node); free(used);
    return 0;
}

int compi_map_run(compi_mapper m, const compi_map_problem *p, uint64_t seed, int *node_of_rank, char *err,
                  size_t errlen)
{
    int n = p->g->n, total;
    if (m >= COMPI_MAPPER_COUNT) { compi_errf(err, errlen, "no such mapper"); return COMPI_MAP_EARG; }
    int *slots = pl_slots(p->net, &total);
    if (!slots) return COMPI_MAP_ENOMEM;
    if (total < n) {
        compi_errf(err, errlen, "the host list has %d slot%s for %d ranks", total, total == 1 ? "" : "s", n);
        free(slots);
        return COMPI_MAP_EARG;
    }
    int *node = malloc(sizeof *node * (size_t)total), *best = malloc(sizeof *best * (size_t)total);
    int rc = 0;
    if (!node || !best) { rc = COMPI_MAP_ENOMEM; goto out; }
    uint64_t s = seed;
    switch (m) {
    case COMPI_MAPPER_BLOCK:
        memcpy(node, slots, sizeof *node * (size_t)total);
        break;
    case COMPI_MAPPER_CYCLIC:
        pl_cyclic(p->net, node, total);
        break;
    case COMPI_MAPPER_RANDOM:
        memcpy(node, slots, sizeof *node * (size_t)total);
        for (int i = total - 1; i > 0; i--) {
            int j = (int)(pl_rand(&s) % (uint64_t)(i + 1)), t = node[i];
            node[i] = node[j];
            node[j] = t;
        }
        break;
    case COMPI_MAPPER_SWAP: {
        /* from block, cyclic and four random starts; the cheapest local optimum */
        double bestc = 0;
        for (int start = 0; start < 6; start++) {
            if (start == 0) memcpy(node, slots, sizeof *node * (size_t)total);
            else if (start == 1) pl_cyclic(p->net, node, total);
            else {
                memcpy(node, slots, sizeof *node * (size_t)total);
                for (int i = total - 1; i > 0; i--) {
                    int j = (int)(pl_rand(&s) % (uint64_t)(i + 1)), t = node[i];
                    node[i] = node[j];
                    node[j] = t;
                }
            }
            pl_descend(p, node, total);
            double c = compi_map_cost(p, node);
            if (start == 0 || c < bestc) { bestc = c; memcpy(best, node, sizeof *node * (size_t)total); }
        }
        memcpy(node, best, sizeof *node * (size_t)total);
        break;
    }
    case COMPI_MAPPER_SCOTCH:
        rc = pl_scotch(p, node, err, errlen);
        break;
    default:
        break;
    }
    if (!rc) memcpy(node_of_rank, node, sizeof *node * (size_t)n);
out:
    free(slots);
    free(node);
    free(best);
    return rc;
}
