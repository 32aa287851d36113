/* SPDX-License-Identifier: BSD-3-Clause */
/* The DKB of compi's own collectives: the node-aware ones (lib/coll/coll.h)
 * and the rooted ones with framed payloads (lib/wrappers/collectives.c):
 * the messages a call sends when compi runs it, on any MPI. See map.h.
 *
 * Every step below is the step lib/coll runs, in the same order, with the
 * same node structure (engine/leaders.h's compi_leaders_group, the very
 * function lib/coll/layout.c builds its communicators from). Steps that
 * are collectives of the MPI on compi's sub-communicators (a node's ranks;
 * one leader per node; the whole communicator) are decomposed by the MPI's
 * own DKB (the caller's sub function) and their ranks mapped back to the
 * communicator's. An exchange (lib/coll/pipex.c) is the blocks' metadata
 * (frame/coll_meta.h: COMPI_COLL_META_WORDS 64-bit words per block, an
 * allgather when every rank sends one block to all, else an alltoall),
 * then every block point to point, only between the pairs that have one,
 * a rank's block to itself included. A block goes raw (what a traced run
 * sends; inside a node always) as one message of its packed bytes, or
 * compressed (c->ratio: what compi guide found in the trace's samples) as
 * a frame, the 32-byte header and the packed bytes divided by the pair's
 * ratio, in messages of at most DC_PIECE bytes (compi_coll_piece()). Steps
 * are marked (phases), so a cost can price each step by its busiest link.
 * Not pipelined: collective blocks go whole unless COMPI_CHUNK is set. */
#include <stdlib.h>
#include <string.h>
#include "engine/leaders.h"
#include "frame/coll_meta.h"
#include "frame/frame.h"
#include "map/map.h"

typedef struct {
    const compi_map_compi_call *c;
    compi_map_sub_fn sub;
    void *ctx;
    compi_map_msgs *out, tmp;
    compi_map_phases *ph;
    int step_subs, step_coll, step_root; /* the MPI collectives of the step so far: how many, the last */
    int n, p;
    int *node_of, *leader_of, *first, *members;
    int *ranks;   /* 0 .. n-1: the communicator's own ranks, as names */
    int only_src; /* alltoallv: only this rank's sends (-1: all) */
} dc_state;

/* The largest message of a compressed block (lib/coll/pipex.c,
 * compi_coll_piece() without COMPI_DEBUG_COLL_PIECE). */
#define DC_PIECE ((uint64_t)1 << 30)

/* A block of b packed bytes from comm rank src to dst as an exchange sends
 * it (lib/coll/pipex.c): a frame, the header and the bytes divided by the
 * pair's compression ratio (c->ratio), in pieces of at most DC_PIECE bytes,
 * when the pair is on two nodes (compi compresses nothing inside a node)
 * and the frame is smaller than the data; else raw, one message of b
 * bytes with the application's own datatype. Only src's sends when
 * s->only_src is set. */
static int dc_block(dc_state *s, int src, int dst, uint64_t b)
{
    if (b == 0 || (s->only_src >= 0 && src != s->only_src)) return 0;
    double r = s->c->ratio && s->node_of[src] != s->node_of[dst] ? s->c->ratio(s->c->ratio_ctx, src, dst) : 1.0;
    uint64_t f = r > 1.0 ? (uint64_t)COMPI_FRAME_HEADER_SIZE + (uint64_t)((double)b / r + 0.999999) : b;
    if (f >= b) return compi_map_msgs_add(s->out, src, dst, b);
    int rc = 0;
    for (uint64_t off = 0; off < f && rc == 0; off += DC_PIECE)
        rc = compi_map_msgs_add(s->out, src, dst, f - off < DC_PIECE ? f - off : DC_PIECE);
    return rc;
}

/* The messages listed so far end a step: those of one step travel at once
 * (every node's local step, one exchange), steps one after another. */
static void dc_phase(dc_state *s)
{
    compi_map_phases *ph = s->ph;
    int one = s->step_subs == 1 ? s->step_coll : -1, root = s->step_root;
    s->step_subs = 0;
    if (!ph || (ph->n > 0 && ph->end[ph->n - 1] == s->out->n)) return;
    if (ph->n < COMPI_MAP_MAX_PHASES) {
        ph->coll[ph->n] = one, ph->root[ph->n] = root;
        ph->end[ph->n++] = s->out->n;
    } else {
        ph->end[ph->n - 1] = s->out->n; /* more steps than slots: the last one grows */
        ph->coll[ph->n - 1] = -1;
    }
}

/* The sub-communicator's call, its ranks mapped back through names. */
static int dc_sub(dc_state *s, const compi_map_call *sc, const int *names)
{
    if (sc->size < 2) return 0;
    s->step_subs++;
    s->step_coll = (int)sc->coll;
    s->step_root = names[sc->root >= 0 && sc->root < sc->size ? sc->root : 0];
    s->tmp.n = 0;
    int rc = s->sub(s->ctx, sc, &s->tmp);
    for (size_t k = 0; k < s->tmp.n && rc == 0; k++) {
        const compi_map_msg *m = &s->tmp.v[k];
        if (m->src < 0 || m->src >= sc->size || m->dst < 0 || m->dst >= sc->size) return COMPI_MAP_EARG;
        int src = names[m->src], dst = names[m->dst];
        if (s->only_src >= 0 && src != s->only_src) continue;
        rc = compi_map_msgs_add(s->out, src, dst, m->bytes);
    }
    return rc;
}

/* counts of node k's members, in their local rank order, into out */
static void dc_member_counts(const dc_state *s, int k, const int64_t *counts, int64_t *out)
{
    for (int j = s->first[k]; j < s->first[k + 1]; j++) out[j - s->first[k]] = counts[s->members[j]];
}

/* Node k's local communicator: its members in rank order. */
static int dc_local(dc_state *s, int k, compi_map_call *sc)
{
    sc->size = s->first[k + 1] - s->first[k];
    return dc_sub(s, sc, s->members + s->first[k]);
}

/* lib/coll/pipex.c's exchange among the leaders (names = leader_of) or
 * among all ranks (names = ranks): the metadata (an allgather when every
 * rank sends one block to all, else an alltoall), then len[i * m + j]
 * packed bytes from sub rank i to j point to point (dc_block), on compi's
 * duplicate of the communicator: i == j too (a rank's block to itself is
 * a message like any other). */
static int dc_exchange(dc_state *s, int m, const int *names, int same, const int64_t *len)
{
    compi_map_call mc = {.coll = same ? COMPI_MAP_ALLGATHER : COMPI_MAP_ALLTOALL,
                         .size = m,
                         .count = COMPI_COLL_META_WORDS,
                         .type_size = 8,
                         .commutative = 1};
    int rc = dc_sub(s, &mc, names);
    dc_phase(s);
    for (int i = 0; i < m && !rc; i++)
        for (int j = 0; j < m && !rc; j++) rc = dc_block(s, names[i], names[j], (uint64_t)len[(size_t)i * m + j]);
    dc_phase(s);
    return rc;
}

/* elements of chunk c of n over p leaders (engine/leaders.h, as lib/coll cuts) */
static int64_t dc_chunk(int64_t n, int p, int c)
{
    int64_t start, len;
    compi_leaders_chunk(n, p, c, &start, &len);
    return len;
}

static int64_t *dc_matrix(int m)
{
    return calloc((size_t)m * (size_t)m, sizeof(int64_t));
}

static int dc_allgatherv(dc_state *s, const int64_t *counts)
{
    const compi_map_call *a = &s->c->call;
    int rc = 0, p = s->p;
    uint64_t ts = a->type_size;
    int64_t *len = dc_matrix(p);
    if (!len) return COMPI_MAP_ENOMEM;
    /* 1. every member's block to its node's leader, point to point on the
     * node's communicator (none of no bytes); the leader's own from its send
     * buffer into its receive buffer, a message to itself on compi's
     * MPI_COMM_SELF (zero bytes included: not in place, as a trace records)
     * unless the MPI copies it locally (c->self_comm_local) */
    for (int k = 0; k < p && !rc; k++)
        for (int j = s->first[k]; j < s->first[k + 1] && !rc; j++) {
            int r = s->members[j];
            uint64_t b = (uint64_t)counts[r] * ts;
            if (j == s->first[k]) rc = s->c->self_comm_local ? 0 : compi_map_msgs_add(s->out, r, r, b);
            else if (b > 0) rc = compi_map_msgs_add(s->out, r, s->leader_of[k], b);
        }
    dc_phase(s);
    /* 2. leaders: the node's blocks, one block, to every other leader */
    if (!rc && p > 1) {
        for (int k = 0; k < p; k++) {
            uint64_t b = 0;
            for (int j = s->first[k]; j < s->first[k + 1]; j++) b += (uint64_t)counts[s->members[j]] * ts;
            for (int kk = 0; kk < p; kk++)
                if (kk != k) len[(size_t)k * p + kk] = (int64_t)b;
        }
        rc = dc_exchange(s, p, s->leader_of, 1, len);
    }
    /* 3. the whole result from each leader to its node: one element of an
     * indexed type of every block */
    uint64_t total = 0;
    for (int r = 0; r < s->n; r++) total += (uint64_t)counts[r] * ts;
    for (int k = 0; k < p && !rc && total > 0; k++) {
        compi_map_call b = {.coll = COMPI_MAP_BCAST, .root = 0, .count = 1, .type_size = total, .commutative = 1};
        rc = dc_local(s, k, &b);
    }
    dc_phase(s);
    free(len);
    return rc;
}

static int dc_alltoallv(dc_state *s, const int64_t *counts)
{
    const compi_map_call *a = &s->c->call;
    int n = s->n;
    uint64_t ts = a->type_size;
    int64_t *len = dc_matrix(n);
    if (!len) return COMPI_MAP_ENOMEM;
    /* every block of some bytes: raw inside a node (its own block too: a
     * message to itself), a frame or raw to another node (dc_block) */
    for (int i = 0; i < n; i++) {
        if (s->only_src >= 0 && i != s->only_src) continue;
        for (int j = 0; j < n; j++) len[(size_t)i * n + j] = counts[(size_t)i * n + j] * (int64_t)ts;
    }
    int rc = dc_exchange(s, n, s->ranks, 0, len);
    free(len);
    return rc;
}

/* Allreduce (root < 0) and Reduce. */
static int dc_reduce(dc_state *s)
{
    const compi_map_call *a = &s->c->call;
    int rc = 0, p = s->p, all = a->coll == COMPI_MAP_ALLREDUCE;
    uint64_t ts = a->type_size;
    int64_t n = a->count;
    int root_node = all ? -1 : s->node_of[a->root];
    /* 1. reduce to each node's leader */
    for (int k = 0; k < p && !rc; k++) {
        compi_map_call r = {
            .coll = COMPI_MAP_REDUCE, .root = 0, .count = n, .type_size = ts, .commutative = a->commutative};
        rc = dc_local(s, k, &r);
    }
    dc_phase(s);
    /* 2-3. between leaders */
    int64_t *len = p > 1 ? dc_matrix(p) : NULL;
    if (p > 1 && !len) return COMPI_MAP_ENOMEM;
    if (!rc && p > 1 && s->c->way == COMPI_MAP_WAY_WHOLE) {
        /* each leader's whole partial, one block, to every other leader or to the root's */
        for (int k = 0; k < p && n > 0; k++)
            for (int c = 0; c < p; c++)
                if (c != k && (all || c == root_node)) len[(size_t)k * p + c] = n * (int64_t)ts;
        rc = dc_exchange(s, p, s->leader_of, all, len);
    } else if (!rc && p > 1) {
        /* split: reduce-scatter of chunk c to leader c ... */
        for (int k = 0; k < p; k++)
            for (int c = 0; c < p; c++) {
                int64_t cl = dc_chunk(n, p, c);
                if (c != k && cl > 0) len[(size_t)k * p + c] = cl * (int64_t)ts;
            }
        rc = dc_exchange(s, p, s->leader_of, 0, len);
        if (!rc && all) {
            /* ... then each reduced chunk to every leader */
            memset(len, 0, sizeof *len * (size_t)p * (size_t)p);
            for (int k = 0; k < p; k++) {
                int64_t cl = dc_chunk(n, p, k);
                for (int c = 0; c < p && cl > 0; c++)
                    if (c != k) len[(size_t)k * p + c] = cl * (int64_t)ts;
            }
            rc = dc_exchange(s, p, s->leader_of, 1, len);
        } else if (!rc) {
            /* ... or to the root's leader: one exchange whose only receiver it is */
            memset(len, 0, sizeof *len * (size_t)p * (size_t)p);
            for (int k = 0; k < p; k++)
                if (k != root_node) len[(size_t)k * p + root_node] = dc_chunk(n, p, k) * (int64_t)ts;
            rc = dc_exchange(s, p, s->leader_of, 0, len);
        }
        if (!rc && s->c->way == COMPI_MAP_WAY_SPLIT_AGREE) {
            /* a measuring call agrees two sizes among the leaders */
            compi_map_call ar = {.coll = COMPI_MAP_ALLREDUCE, .size = p, .count = 2, .type_size = 8, .commutative = 1};
            rc = dc_sub(s, &ar, s->leader_of);
            dc_phase(s);
        }
    }
    free(len);
    /* 4. the result inside each node (Allreduce), or to a root that is not its node's leader */
    for (int k = 0; k < p && !rc && all; k++) {
        compi_map_call b = {.coll = COMPI_MAP_BCAST, .root = 0, .count = n, .type_size = ts, .commutative = 1};
        rc = dc_local(s, k, &b);
    }
    dc_phase(s);
    if (!rc && !all && s->leader_of[root_node] != a->root && n > 0)
        rc = compi_map_msgs_add(s->out, s->leader_of[root_node], a->root, (uint64_t)n * ts);
    dc_phase(s);
    return rc;
}

static int dc_reduce_scatter(dc_state *s, const int64_t *counts)
{
    const compi_map_call *a = &s->c->call;
    int rc = 0, p = s->p;
    uint64_t ts = a->type_size;
    int64_t total = 0;
    for (int r = 0; r < s->n; r++) total += counts[r];
    /* 1. the whole vector reduced to each node's leader */
    for (int k = 0; k < p && !rc; k++) {
        compi_map_call r = {
            .coll = COMPI_MAP_REDUCE, .root = 0, .count = total, .type_size = ts, .commutative = a->commutative};
        rc = dc_local(s, k, &r);
    }
    dc_phase(s);
    /* 2. node c's members' blocks, one frame from every other leader */
    if (!rc && p > 1) {
        int64_t *len = dc_matrix(p);
        if (!len) return COMPI_MAP_ENOMEM;
        for (int c = 0; c < p; c++) {
            int64_t part = 0;
            for (int j = s->first[c]; j < s->first[c + 1]; j++) part += counts[s->members[j]];
            for (int k = 0; k < p && part > 0; k++)
                if (k != c) len[(size_t)k * p + c] = part * (int64_t)ts;
        }
        rc = dc_exchange(s, p, s->leader_of, 0, len);
        free(len);
    }
    /* 3. each member's block from its leader */
    int64_t *sc = malloc(sizeof *sc * (size_t)s->n);
    if (!sc) return COMPI_MAP_ENOMEM;
    for (int k = 0; k < p && !rc; k++) {
        dc_member_counts(s, k, counts, sc);
        compi_map_call v = {.coll = COMPI_MAP_SCATTERV, .root = 0, .counts = sc, .type_size = ts, .commutative = 1};
        rc = dc_local(s, k, &v);
    }
    dc_phase(s);
    free(sc);
    return rc;
}

/* Bcast, Gather(v), Scatter(v) (lib/wrappers/collectives.c), on the
 * communicator itself. Bcast: the root's frame header to all, then (raw:
 * what a traced run sends) the data by the MPI's own broadcast; a
 * compressed payload would instead go root -> its leader -> leaders ->
 * nodes in pieces, and beyond 64 MiB (or with COMPI_CHUNK) in chunks, each
 * after an 8-byte length: not modelled. Gather(v) / Scatter(v): one
 * exchange on the whole communicator (dc_exchange), every rank's block to
 * the root / the root's block for every rank, the root's own included. */
static int dc_rooted(dc_state *s, const int64_t *counts)
{
    const compi_map_call *a = &s->c->call;
    int n = s->n, rc;
    const int *names = s->ranks;
    if (a->coll == COMPI_MAP_BCAST) {
        compi_map_call h = {.coll = COMPI_MAP_BCAST,
                            .size = n,
                            .root = a->root,
                            .count = COMPI_FRAME_HEADER_SIZE,
                            .type_size = 1,
                            .commutative = 1};
        compi_map_call d = *a;
        rc = dc_sub(s, &h, names);
        dc_phase(s);
        if (!rc) rc = dc_sub(s, &d, names);
        dc_phase(s);
        return rc;
    }
    int gather = a->coll == COMPI_MAP_GATHER || a->coll == COMPI_MAP_GATHERV;
    int64_t *len = dc_matrix(n);
    if (!len) return COMPI_MAP_ENOMEM;
    for (int r = 0; r < n; r++) {
        int64_t b = counts[r] * (int64_t)a->type_size;
        if (gather) len[(size_t)r * n + a->root] = b;
        else len[(size_t)a->root * n + r] = b;
    }
    rc = dc_exchange(s, n, names, 0, len);
    free(len);
    return rc;
}

int compi_map_compi_messages(const compi_map_compi_call *c, compi_map_sub_fn sub, void *ctx, compi_map_msgs *out,
                             compi_map_phases *phases)
{
    if (phases) phases->n = 0;
    const compi_map_call *a = &c->call;
    int n = a->size;
    if (n < 1 || !c->node || !sub || a->type_size < 1 || a->count < 0 || c->way < COMPI_MAP_WAY_SPLIT ||
        c->way > COMPI_MAP_WAY_WHOLE || c->me < -1 || c->me >= n)
        return COMPI_MAP_EARG;
    int rooted = a->coll == COMPI_MAP_REDUCE || a->coll == COMPI_MAP_BCAST || a->coll == COMPI_MAP_GATHER ||
                 a->coll == COMPI_MAP_GATHERV || a->coll == COMPI_MAP_SCATTER || a->coll == COMPI_MAP_SCATTERV;
    if (rooted && (a->root < 0 || a->root >= n)) return COMPI_MAP_EARG;
    dc_state s = {.c = c, .sub = sub, .ctx = ctx, .out = out, .ph = phases, .n = n, .only_src = -1};
    s.node_of = malloc(sizeof(int) * (size_t)n);
    s.leader_of = malloc(sizeof(int) * (size_t)n);
    s.first = malloc(sizeof(int) * ((size_t)n + 1));
    s.members = malloc(sizeof(int) * (size_t)n);
    s.ranks = malloc(sizeof(int) * (size_t)n);
    int64_t *counts = NULL;
    int rc = s.node_of && s.leader_of && s.first && s.members && s.ranks ? 0 : COMPI_MAP_ENOMEM;
    for (int r = 0; r < n && !rc; r++) s.ranks[r] = r;
    if (!rc) s.p = compi_leaders_group(n, c->node, s.node_of, s.leader_of, s.first, s.members);
    if (!rc) {
        switch (a->coll) {
        case COMPI_MAP_ALLGATHER:
        case COMPI_MAP_ALLGATHERV:
            if (a->coll == COMPI_MAP_ALLGATHERV) {
                if (!a->counts) {
                    rc = COMPI_MAP_EARG;
                    break;
                }
                rc = dc_allgatherv(&s, a->counts);
                break;
            }
            if (!(counts = malloc(sizeof *counts * (size_t)n))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            for (int r = 0; r < n; r++) counts[r] = a->count;
            rc = dc_allgatherv(&s, counts);
            break;
        case COMPI_MAP_ALLTOALL:
        case COMPI_MAP_ALLTOALLV:
            if (a->coll == COMPI_MAP_ALLTOALLV) {
                if (!a->counts) {
                    rc = COMPI_MAP_EARG;
                    break;
                }
                s.only_src = c->me;
                rc = dc_alltoallv(&s, a->counts);
                break;
            }
            if (!(counts = malloc(sizeof *counts * (size_t)n * (size_t)n))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            for (size_t k = 0; k < (size_t)n * (size_t)n; k++) counts[k] = a->count;
            rc = dc_alltoallv(&s, counts);
            break;
        case COMPI_MAP_ALLREDUCE:
        case COMPI_MAP_REDUCE: rc = dc_reduce(&s); break;
        case COMPI_MAP_REDUCE_SCATTER: rc = a->counts ? dc_reduce_scatter(&s, a->counts) : COMPI_MAP_EARG; break;
        case COMPI_MAP_REDUCE_SCATTER_BLOCK:
            if (!(counts = malloc(sizeof *counts * (size_t)n))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            for (int r = 0; r < n; r++) counts[r] = a->count;
            rc = dc_reduce_scatter(&s, counts);
            break;
        case COMPI_MAP_BCAST: rc = dc_rooted(&s, NULL); break;
        case COMPI_MAP_GATHER:
        case COMPI_MAP_SCATTER:
            if (!(counts = malloc(sizeof *counts * (size_t)n))) {
                rc = COMPI_MAP_ENOMEM;
                break;
            }
            for (int r = 0; r < n; r++) counts[r] = a->count;
            rc = dc_rooted(&s, counts);
            break;
        case COMPI_MAP_GATHERV:
        case COMPI_MAP_SCATTERV: rc = a->counts ? dc_rooted(&s, a->counts) : COMPI_MAP_EARG; break;
        default: rc = COMPI_MAP_EALG; /* compi runs no algorithm of its own for it */
        }
    }
    free(counts);
    free(s.node_of);
    free(s.leader_of);
    free(s.first);
    free(s.members);
    free(s.ranks);
    compi_map_msgs_free(&s.tmp);
    return rc;
}
