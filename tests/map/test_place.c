/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/map/place_*.c and lib/engine/commprof.c without MPI, against brute
 * force (ctest map_place, label engine):
 *   cost       compi_map_cost vs a sum written out message by message over
 *              the graph's edge list, on random placements of random graphs
 *              with asymmetric links (a transposed link index fails it);
 *   mappers    on 300 random instances (2-7 ranks, 2-3 nodes, slots >= ranks,
 *              random asymmetric links) every assignment of ranks to nodes
 *              is enumerated: every mapper's placement respects the slots and
 *              costs at least the optimum; swap's placement is a local
 *              optimum (no exchange of two ranks, nor a move to a free slot,
 *              makes it cheaper: checked by recomputing the whole cost); on
 *              planted instances (groups of heavy talkers as large as the
 *              nodes, the rest light, uniform inter-node links: the optimum
 *              is the groups, whatever node each gets) swap and scotch find
 *              the optimum;
 *   profile    random records survive save/load; every truncation and
 *              most single-byte changes of the serialised form are refused;
 *   sequences  (rooted linear collectives, place.h) compi_map_seq_time vs an
 *              oracle written as message-by-message recurrences over the
 *              whole list (a message waits for every earlier message on its
 *              link, O(len^2), no per-link state; the root node's NIC
 *              carries every remote byte), and vs closed forms
 *              (posted, one other node: the most loaded link; blocking
 *              receives of rendezvous messages: the sum; blocking sends,
 *              one other node, distinct links: the latest of "handshakes
 *              before it + its cost");
 *              the full cost vs the edge-list sum with each sequence's share
 *              replaced by the oracle's makespan; compi_map_bottleneck vs an
 *              edge-list maximum; the mappers with sequences vs the brute
 *              force optimum of that cost (swap a local optimum); a psrg-like
 *              Scatterv on two racks: cyclic's makespan below block's under
 *              blocking sends, equal under posted ones; on uniform links
 *              (the root's NIC binds) equal up to handshakes; a Gatherv record in a
 *              profile becomes the root's sequence in communicator order;
 *   nodeaware  compi's own Alltoall kept out of the matrices and priced per
 *              placement, step by step by the busiest directed node pair,
 *              vs an oracle that prices dkb_compi.c's messages link by link;
 *              with frame ratios the frames shrink by the pair's ratio.
 * Prints a summary (how often each mapper found the optimum). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/commprof.h"
#include "map/place.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; if (failures < 20) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } } while (0)

static uint64_t rs = 12345;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static double unif(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

typedef struct { int src, dst; double msgs, bytes; } edge;

/* the cost, written independently of place_cost.c: over an edge list */
static double brute_cost(const edge *e, int ne, const compi_map_net *net, const int *node)
{
    double c = 0;
    for (int i = 0; i < ne; i++) {
        int a = node[e[i].src], b = node[e[i].dst];
        c += e[i].msgs * net->lat_us[a * net->nnodes + b] + e[i].bytes * net->us_per_byte[a * net->nnodes + b];
    }
    return c;
}

static int valid(const int *node, int n, const compi_map_net *net)
{
    int used[8] = {0};
    for (int i = 0; i < n; i++) {
        if (node[i] < 0 || node[i] >= net->nnodes) return 0;
        if (++used[node[i]] > net->slots[node[i]]) return 0;
    }
    return 1;
}

/* the optimum over every assignment respecting the slots */
static double optimum(const edge *e, int ne, const compi_map_net *net, int n)
{
    int node[8] = {0};
    double best = INFINITY;
    long total = 1;
    for (int i = 0; i < n; i++) total *= net->nnodes;
    for (long code = 0; code < total; code++) {
        long c = code;
        for (int i = 0; i < n; i++) { node[i] = (int)(c % net->nnodes); c /= net->nnodes; }
        if (!valid(node, n, net)) continue;
        double x = brute_cost(e, ne, net, node);
        if (x < best) best = x;
    }
    return best;
}

static void make_net(compi_map_net *net, int k, const int *slots, int uniform_links)
{
    memset(net, 0, sizeof *net);
    net->nnodes = k;
    net->names = calloc((size_t)k, sizeof *net->names);
    net->slots = malloc(sizeof(int) * (size_t)k);
    net->lat_us = malloc(sizeof(double) * (size_t)k * k);
    net->us_per_byte = malloc(sizeof(double) * (size_t)k * k);
    for (int i = 0; i < k; i++) {
        net->slots[i] = slots[i];
        snprintf(net->names[i], COMPI_NET_NAME_MAX, "n%d", i);
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            if (i == j) { net->lat_us[i * k + j] = 0.5; net->us_per_byte[i * k + j] = 1e-4; continue; }
            if (uniform_links) { net->lat_us[i * k + j] = 50; net->us_per_byte[i * k + j] = 0.008; continue; }
            net->lat_us[i * k + j] = 20 + 80 * unif();
            net->us_per_byte[i * k + j] = 0.008 * (1 + 9 * unif());
        }
}

static void graph_from_edges(compi_map_graph *g, int n, const edge *e, int ne)
{
    compi_map_graph_init(g, n);
    for (int i = 0; i < ne; i++) {
        g->msgs[(size_t)e[i].src * n + e[i].dst] += e[i].msgs;
        g->bytes[(size_t)e[i].src * n + e[i].dst] += e[i].bytes;
    }
}

static double total_cost(const compi_map_problem *p, const int *node) { return compi_map_cost(p, node); }

/* swap's result admits no improving exchange or move (whole cost recomputed) */
static int local_optimum(const compi_map_problem *p, const int *node_in, int n)
{
    int node[8];
    memcpy(node, node_in, sizeof(int) * (size_t)n);
    double c = total_cost(p, node);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (node[a] == node[b]) continue;
            int t = node[a]; node[a] = node[b]; node[b] = t;
            double d = total_cost(p, node);
            t = node[a]; node[a] = node[b]; node[b] = t;
            if (d < c * (1 - 1e-9)) return 0;
        }
    int used[8] = {0};
    for (int i = 0; i < n; i++) used[node[i]]++;
    for (int a = 0; a < n; a++)
        for (int x = 0; x < p->net->nnodes; x++) {
            if (x == node[a] || used[x] >= p->net->slots[x]) continue;
            int keep = node[a];
            node[a] = x;
            double d = total_cost(p, node);
            node[a] = keep;
            if (d < c * (1 - 1e-9)) return 0;
        }
    return 1;
}

static void test_mappers(void)
{
    int hits[COMPI_MAPPER_COUNT] = {0}, cases = 0;
    for (int t = 0; t < 300; t++) {
        int k = 2 + (int)(rnd() % 2), n = 2 + (int)(rnd() % 6), slots[3] = {0, 0, 0}, s = 0;
        while (s < n) { int x = (int)(rnd() % k); slots[x]++; s++; }
        if (rnd() % 3 == 0) slots[rnd() % k]++;   /* sometimes a free slot */
        compi_map_net net;
        make_net(&net, k, slots, 0);
        edge e[64];
        int ne = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (rnd() % 3 == 0)
                    e[ne++] = (edge){i, j, (double)(1 + rnd() % 50), (double)(rnd() % 200000)};
        compi_map_graph g;
        graph_from_edges(&g, n, e, ne);
        compi_map_problem p = {&g, &net};
        /* the cost function */
        for (int r = 0; r < 5; r++) {
            int node[8];
            for (int i = 0; i < n; i++) node[i] = (int)(rnd() % k);
            double a = compi_map_cost(&p, node), b = brute_cost(e, ne, &net, node);
            CHECK(fabs(a - b) <= 1e-9 * (fabs(b) + 1), "cost %.6f, brute force %.6f", a, b);
        }
        double opt = optimum(e, ne, &net, n);
        cases++;
        for (int m = 0; m < COMPI_MAPPER_COUNT; m++) {
            int node[8];
            char err[256];
            int rc = compi_map_run((compi_mapper)m, &p, 7, node, err, sizeof err);
            if (m == COMPI_MAPPER_SCOTCH && !compi_map_have_scotch()) {  /* -DCOMPI_WITH_SCOTCH=OFF */
                CHECK(rc == COMPI_MAP_EUNSUPP && strstr(err, "COMPI_WITH_SCOTCH"), "scotch without Scotch: %s", err);
                continue;
            }
            CHECK(rc == 0, "%s failed: %s", compi_mapper_name((compi_mapper)m), err);
            if (rc) continue;
            CHECK(valid(node, n, &net), "%s: placement exceeds the slots", compi_mapper_name((compi_mapper)m));
            double c = brute_cost(e, ne, &net, node);
            CHECK(c >= opt * (1 - 1e-9), "%s: %.6f below the optimum %.6f", compi_mapper_name((compi_mapper)m), c, opt);
            if (c <= opt * (1 + 1e-9)) hits[m]++;
            if (m == COMPI_MAPPER_SWAP) CHECK(local_optimum(&p, node, n), "swap: not a local optimum (case %d)", t);
        }
        compi_map_graph_free(&g);
        compi_map_net_free(&net);
    }
    /* planted: groups of heavy talkers exactly as large as the nodes */
    int planted_ok[COMPI_MAPPER_COUNT] = {0}, nplanted = 0;
    for (int t = 0; t < 40; t++) {
        int k = 2 + (int)(rnd() % 2), per = 2 + (int)(rnd() % 2), n = k * per, slots[3] = {per, per, per};
        if (n > 7) { per = 2; n = k * per; slots[0] = slots[1] = slots[2] = per; }
        compi_map_net net;
        make_net(&net, k, slots, 1);
        int group[8], perm[8];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = (int)(rnd() % (unsigned)(i + 1)), x = perm[i]; perm[i] = perm[j]; perm[j] = x; }
        for (int i = 0; i < n; i++) group[perm[i]] = i / per;   /* ranks scattered over the groups */
        edge e[64];
        int ne = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (i == j) continue;
                if (group[i] == group[j]) e[ne++] = (edge){i, j, 100, 1e7};
                else if (rnd() % 4 == 0) e[ne++] = (edge){i, j, 1, 100};
            }
        compi_map_graph g;
        graph_from_edges(&g, n, e, ne);
        compi_map_problem p = {&g, &net};
        double opt = optimum(e, ne, &net, n);
        nplanted++;
        for (int m = 0; m < COMPI_MAPPER_COUNT; m++) {
            int node[8];
            char err[256];
            if (compi_map_run((compi_mapper)m, &p, 7, node, err, sizeof err) != 0) continue;
            if (brute_cost(e, ne, &net, node) <= opt * (1 + 1e-9)) planted_ok[m]++;
        }
        compi_map_graph_free(&g);
        compi_map_net_free(&net);
    }
    CHECK(planted_ok[COMPI_MAPPER_SWAP] == nplanted, "swap found %d of %d planted optima", planted_ok[COMPI_MAPPER_SWAP], nplanted);
    if (compi_map_have_scotch())
        CHECK(planted_ok[COMPI_MAPPER_SCOTCH] == nplanted, "scotch found %d of %d planted optima", planted_ok[COMPI_MAPPER_SCOTCH], nplanted);
    printf("optimum found (random instances, of %d):", cases);
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++) printf(" %s %d", compi_mapper_name((compi_mapper)m), hits[m]);
    printf("\noptimum found (planted, of %d):", nplanted);
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++) printf(" %s %d", compi_mapper_name((compi_mapper)m), planted_ok[m]);
    printf("\n");
}

static void test_profile(void)
{
    for (int t = 0; t < 30; t++) {
        int ws = 2 + (int)(rnd() % 6), me = (int)(rnd() % (unsigned)ws);
        compi_commprof *p = compi_commprof_new(me, ws);
        int world[8];
        for (int i = 0; i < ws; i++) world[i] = i;
        compi_commprof_comm(p, 0, ws, me, world);
        int rev[8];
        for (int i = 0; i < ws; i++) rev[i] = ws - 1 - i;
        compi_commprof_comm(p, 3, ws, ws - 1 - me, rev);
        uint64_t sent = 0;
        for (int i = 0; i < 50; i++) {
            uint64_t b = rnd() % 100000;
            compi_commprof_send(p, rnd() % 2 ? 0 : 3, (int)(rnd() % (unsigned)ws), b, (int)(rnd() % COMPI_PROF_NP2P));
            sent += b;
        }
        int64_t counts[8];
        for (int i = 0; i < 20; i++) {
            for (int k = 0; k < ws; k++) counts[k] = (int64_t)(rnd() % 4);
            compi_prof_call c = {COMPI_PROF_ALLTOALLV, -1, 0, 8, 1, ws, counts, COMPI_PROF_PATH_MPI};
            compi_commprof_coll(p, 3, &c, 0);
            compi_prof_call b = {COMPI_PROF_BCAST, (int)(rnd() % (unsigned)ws), (int64_t)(rnd() % 3), 4, 1, 0, NULL, COMPI_PROF_PATH_MPI};
            compi_commprof_coll(p, 0, &b, 12);
        }
        uint8_t *buf;
        size_t len;
        CHECK(compi_commprof_save(p, &buf, &len) == 0, "save");
        char err[256];
        compi_commprof *q = compi_commprof_load(buf, len, err, sizeof err);
        CHECK(q != NULL, "load: %s", err);
        if (q) {
            uint8_t *buf2;
            size_t len2;
            compi_commprof_save(q, &buf2, &len2);
            CHECK(len2 == len && memcmp(buf, buf2, len) == 0, "save(load(x)) != x");
            uint64_t got = 0;
            for (size_t i = 0; i < q->nbyid; i++)
                for (int k = 0; q->byid[i] && q->byid[i]->peer_bytes && k < q->byid[i]->size; k++)
                    got += q->byid[i]->peer_bytes[k];
            CHECK(got == sent, "bytes %llu after load, %llu sent", (unsigned long long)got, (unsigned long long)sent);
            CHECK(q->ncolls == p->ncolls, "collective records %zu vs %zu", q->ncolls, p->ncolls);
            free(buf2);
            compi_commprof_free(q);
        }
        for (size_t cut = 0; cut < len; cut++) {
            compi_commprof *x = compi_commprof_load(buf, cut, err, sizeof err);
            CHECK(!x, "a profile cut to %zu of %zu bytes was accepted", cut, len);
            compi_commprof_free(x);
        }
        free(buf);
        compi_commprof_free(p);
    }
    /* malformed member lists and references */
    compi_commprof *p = compi_commprof_new(1, 3);
    int w[3] = {0, 1, 2};
    compi_commprof_comm(p, 0, 3, 1, w);
    compi_prof_call c = {COMPI_PROF_GATHER, 2, 5, 4, 1, 0, NULL, COMPI_PROF_PATH_MPI};
    compi_commprof_coll(p, 0, &c, 20);
    uint8_t *buf;
    size_t len;
    compi_commprof_save(p, &buf, &len);
    char err[256];
    struct { size_t off; uint8_t v; const char *what; } bad[] = {
        {20 + 12, 1, "member 0 mapped to world 1 twice"},
        {20 + 16, 7, "member mapped beyond the world"},
        {20 + 8, 0, "this rank not where the map says"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *cp = malloc(len);
        memcpy(cp, buf, len);
        cp[bad[i].off] = bad[i].v;
        compi_commprof *x = compi_commprof_load(cp, len, err, sizeof err);
        CHECK(!x, "%s: accepted", bad[i].what);
        compi_commprof_free(x);
        free(cp);
    }
    free(buf);
    compi_commprof_free(p);
}


/* ------------------------------------------------------------ sequences */

typedef struct { int root, recv, blocking, len; int peer[8]; double bytes[8]; double calls; } oseq;

/* The makespan of one call, written as recurrences over the message list:
 * message i's link is free when every earlier message on it is done. */
static double oracle_makespan(const oseq *s, const compi_map_net *net, const int *node, double *sum)
{
    int k = net->nnodes, x = node[s->root];
    double done[8], t = 0, end = 0, nicu = INFINITY, nicbytes = 0, niclat = INFINITY;
    for (int y = 0; y < k; y++)   /* the root node's NIC: its fastest link (that direction) */
        if (y != x) nicu = fmin(nicu, s->recv ? net->us_per_byte[y * k + x] : net->us_per_byte[x * k + y]);
    *sum = 0;
    for (int i = 0; i < s->len; i++) {
        int y = node[s->peer[i]];
        int l = s->recv ? y * k + x : x * k + y;
        double cost = net->lat_us[l] + s->bytes[i] * net->us_per_byte[l];
        *sum += cost;
        if (y != x) { nicbytes += s->bytes[i]; niclat = fmin(niclat, net->lat_us[l]); }
        double linkfree = 0;
        for (int j = 0; j < i; j++)
            if (node[s->peer[j]] == y && done[j] > linkfree) linkfree = done[j];
        int rndv = s->blocking && s->bytes[i] > COMPI_MAP_EAGER_BYTES;
        double start = linkfree;
        if (s->blocking && (rndv || !s->recv) && t > start) start = t;   /* posted after the root got there */
        done[i] = start + cost;
        if (rndv && !s->recv) t = start + net->lat_us[l];   /* handshake through, data drains */
        else if (s->blocking && s->recv) t = t > done[i] ? t : done[i];
        if (done[i] > end) end = done[i];
    }
    end = fmax(end, t);
    return nicbytes > 0 ? fmax(end, nicbytes * nicu + niclat) : end;   /* the NIC carries every remote byte */
}

static void to_seq(const oseq *o, compi_map_seq *s)
{
    s->root = o->root;
    s->recv = o->recv;
    s->blocking = o->blocking;
    s->len = o->len;
    s->peer = (int *)o->peer;
    s->bytes = (double *)o->bytes;
    s->calls = o->calls;
}

static void random_seq(oseq *o, int n)
{
    o->root = (int)(rnd() % (unsigned)n);
    o->recv = (int)(rnd() % 2);
    o->blocking = (int)(rnd() % 2);
    o->calls = 1 + (double)(rnd() % 3);
    o->len = 0;
    for (int i = 0; i < n; i++) {
        if (i == o->root || rnd() % 5 == 0) continue;
        o->peer[o->len] = i;
        o->bytes[o->len++] = rnd() % 3 == 0 ? (double)(rnd() % 60000) : 70000 + (double)(rnd() % 2000000);
    }
    for (int i = o->len - 1; i > 0; i--) {   /* any order: the root's order is the list's */
        int j = (int)(rnd() % (unsigned)(i + 1));
        int tp = o->peer[i]; o->peer[i] = o->peer[j]; o->peer[j] = tp;
        double tb = o->bytes[i]; o->bytes[i] = o->bytes[j]; o->bytes[j] = tb;
    }
}

/* brute-force optimum of the full cost: edges plus the sequences' makespans */
static double brute_full(const edge *e, int ne, const oseq *q, int nq, const compi_map_net *net, const int *node)
{
    double c = brute_cost(e, ne, net, node);
    for (int i = 0; i < nq; i++) {
        double sum, mk = oracle_makespan(&q[i], net, node, &sum);
        c += q[i].calls * mk;
    }
    return c;
}

static void test_sequences(void)
{
    char err[256];
    /* 1. compi_map_seq_time vs the oracle, random sequences and placements */
    for (int t = 0; t < 400; t++) {
        int k = 2 + (int)(rnd() % 3), n = 2 + (int)(rnd() % 7), slots[4];
        for (int i = 0; i < k; i++) slots[i] = n;
        compi_map_net net;
        make_net(&net, k, slots, (int)(rnd() % 2));
        compi_map_graph g;
        compi_map_graph_init(&g, n);
        compi_map_problem p = {&g, &net};
        oseq o;
        random_seq(&o, n);
        compi_map_seq s;
        to_seq(&o, &s);
        int node[8];
        for (int i = 0; i < n; i++) node[i] = (int)(rnd() % (unsigned)k);
        double mk, sum, osum, omk = oracle_makespan(&o, &net, node, &osum);
        compi_map_seq_time(&p, &s, node, &mk, &sum);
        CHECK(fabs(mk - omk) <= 1e-9 * (omk + 1), "case %d: makespan %.6f, oracle %.6f (recv %d blocking %d)", t, mk, omk,
              o.recv, o.blocking);
        CHECK(fabs(sum - osum) <= 1e-9 * (osum + 1), "case %d: sum %.6f, oracle %.6f", t, sum, osum);
        /* closed forms */
        if (!o.blocking && k == 2) {
            double load[16] = {0}, worst = 0;
            for (int i = 0; i < o.len; i++) {
                int y = node[o.peer[i]], x = node[o.root], l = o.recv ? y * k + x : x * k + y;
                load[l] += net.lat_us[l] + o.bytes[i] * net.us_per_byte[l];
                if (load[l] > worst) worst = load[l];
            }
            CHECK(fabs(mk - worst) <= 1e-9 * (worst + 1), "posted: makespan %.6f, most loaded link %.6f", mk, worst);
        }
        int all_rndv = 1;
        for (int i = 0; i < o.len; i++) all_rndv &= o.bytes[i] > COMPI_MAP_EAGER_BYTES;
        if (o.blocking && o.recv && all_rndv)
            CHECK(fabs(mk - sum) <= 1e-9 * (sum + 1), "blocking receives: makespan %.6f, sum %.6f", mk, sum);
        if (o.blocking && !o.recv && all_rndv && k == 2) {
            int distinct = 1;
            for (int i = 0; i < o.len; i++)
                for (int j = 0; j < i; j++) distinct &= node[o.peer[i]] != node[o.peer[j]];
            if (distinct) {
                double hs = 0, want = 0;
                for (int i = 0; i < o.len; i++) {
                    int l = node[o.root] * k + node[o.peer[i]];
                    double fin = hs + net.lat_us[l] + o.bytes[i] * net.us_per_byte[l];
                    if (fin > want) want = fin;
                    hs += net.lat_us[l];
                }
                CHECK(fabs(mk - want) <= 1e-9 * (want + 1), "blocking sends, distinct links: %.6f, want %.6f", mk, want);
            }
        }
        compi_map_graph_free(&g);
        compi_map_net_free(&net);
    }

    /* 2. full cost, bottleneck and mappers vs brute force, with sequences */
    int found = 0, cases = 0;
    for (int t = 0; t < 150; t++) {
        int k = 2 + (int)(rnd() % 2), n = 2 + (int)(rnd() % 5), slots[3], tot = 0;
        for (int i = 0; i < k; i++) { slots[i] = 1 + (int)(rnd() % 3); tot += slots[i]; }
        if (tot < n) slots[0] += n - tot;
        compi_map_net net;
        make_net(&net, k, slots, 0);
        edge e[40];
        int ne = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && rnd() % 3 == 0) e[ne++] = (edge){i, j, (double)(1 + rnd() % 10), (double)(rnd() % 400000)};
        oseq q[2];
        int nq = 1 + (int)(rnd() % 2);
        compi_map_graph g;
        graph_from_edges(&g, n, e, ne);
        edge all[60];
        memcpy(all, e, sizeof e[0] * (size_t)ne);
        int na = ne;
        for (int i = 0; i < nq; i++) {
            random_seq(&q[i], n);
            compi_map_seq s;
            to_seq(&q[i], &s);
            CHECK(compi_map_graph_add_seq(&g, &s) == 0, "add_seq");
            /* its messages are traffic too: in the matrices and the edge list */
            for (int m = 0; m < q[i].len; m++) {
                int a = q[i].recv ? q[i].peer[m] : q[i].root, b = q[i].recv ? q[i].root : q[i].peer[m];
                g.msgs[(size_t)a * n + b] += q[i].calls;
                g.bytes[(size_t)a * n + b] += q[i].calls * q[i].bytes[m];
                all[na++] = (edge){a, b, q[i].calls, q[i].calls * q[i].bytes[m]};
            }
        }
        compi_map_problem p = {&g, &net};
        int node[8];
        double opt = INFINITY;
        long total = 1;
        for (int i = 0; i < n; i++) total *= k;
        for (long code = 0; code < total; code++) {
            long c = code;
            for (int i = 0; i < n; i++) { node[i] = (int)(c % k); c /= k; }
            if (!valid(node, n, &net)) continue;
            double b = brute_full(e, ne, q, nq, &net, node), a = compi_map_cost(&p, node);
            CHECK(fabs(a - b) <= 1e-9 * (fabs(b) + 1), "case %d: cost %.6f, brute force %.6f", t, a, b);
            double worst = 0, load[9] = {0};
            for (int i = 0; i < na; i++) {
                int x = node[all[i].src], y = node[all[i].dst];
                if (x == y) continue;
                load[x * k + y] += all[i].msgs * net.lat_us[x * k + y] + all[i].bytes * net.us_per_byte[x * k + y];
                if (load[x * k + y] > worst) worst = load[x * k + y];
            }
            double bn = compi_map_bottleneck(&p, node);
            CHECK(fabs(bn - worst) <= 1e-9 * (worst + 1), "case %d: bottleneck %.6f, brute force %.6f", t, bn, worst);
            if (b < opt) opt = b;
        }
        for (int m = 0; m < COMPI_MAPPER_COUNT; m++) {
            if (m == COMPI_MAPPER_SCOTCH && !compi_map_have_scotch()) continue;   /* checked above */
            int rc = compi_map_run((compi_mapper)m, &p, 7, node, err, sizeof err);
            CHECK(rc == 0, "%s failed: %s", compi_mapper_name((compi_mapper)m), err);
            if (rc) continue;
            CHECK(valid(node, n, &net), "%s: placement exceeds the slots", compi_mapper_name((compi_mapper)m));
            double c = compi_map_cost(&p, node);
            CHECK(c >= opt * (1 - 1e-9), "%s: %.6f below the optimum %.6f", compi_mapper_name((compi_mapper)m), c, opt);
            if (m == COMPI_MAPPER_SWAP) {
                CHECK(local_optimum(&p, node, n), "swap with sequences: not a local optimum (case %d)", t);
                cases++;
                found += c <= opt * (1 + 1e-9);
            }
        }
        compi_map_graph_free(&g);
        compi_map_net_free(&net);
    }
    printf("sequences: swap found the optimum in %d of %d cases\n", found, cases);

    /* 3. psrg-like: rank 0 scatters 1 MB to 7 ranks, 4 nodes x 2 slots, two
     * racks (1 Gbit/s inside, 100 Mbit/s across). Blocking sends in rank
     * order: block puts 4,5 and 6,7 behind each other on the two slow links,
     * cyclic alternates them; posted sends: both as slow as the most loaded
     * link, which is the same (two strips per slow link). */
    {
        int slots[4] = {2, 2, 2, 2};
        compi_map_net net;
        make_net(&net, 4, slots, 1);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                net.lat_us[i * 4 + j] = i == j ? 1 : 60;
                net.us_per_byte[i * 4 + j] = i == j ? 1e-4 : i / 2 == j / 2 ? 0.008 : 0.08;
            }
        compi_map_graph g;
        compi_map_graph_init(&g, 8);
        compi_map_problem p = {&g, &net};
        oseq o = {.root = 0, .recv = 0, .blocking = 1, .len = 7, .calls = 1};
        for (int i = 0; i < 7; i++) { o.peer[i] = i + 1; o.bytes[i] = 1e6; }
        compi_map_seq s;
        to_seq(&o, &s);
        int block[8] = {0, 0, 1, 1, 2, 2, 3, 3}, cyclic[8] = {0, 1, 2, 3, 0, 1, 2, 3};
        double mb, mc, sb, sc;
        compi_map_seq_time(&p, &s, block, &mb, &sb);
        compi_map_seq_time(&p, &s, cyclic, &mc, &sc);
        CHECK(fabs(sb - sc) < 1e-6, "psrg-like: sums differ (%.3f, %.3f)", sb, sc);
        double ob, oc, x;
        ob = oracle_makespan(&o, &net, block, &x);
        oc = oracle_makespan(&o, &net, cyclic, &x);
        CHECK(fabs(mb - ob) < 1e-6 && fabs(mc - oc) < 1e-6, "psrg-like: %.3f %.3f vs oracle %.3f %.3f", mb, mc, ob, oc);
        /* block (by hand): handshakes r1 (1) and r2 (60); r3 waits for r2's data on 0->1 (1 + 8060), r4 starts
         * on 0->2 after r3's handshake (8061 + 60), r5 waits for r4's data, r6 starts on 0->3 after r5's
         * handshake, r7 waits for r6's data: 8121 + 3 x 80060 (r4, r6, r7 back to back) + 60 (r5's handshake) */
        CHECK(fabs(mb - (8181 + 3 * 80060.0)) < 1e-6, "psrg-like block: %.3f, by hand %.3f", mb, 8181 + 3 * 80060.0);
        /* cyclic: r2 (0->2) and r3 (0->3) start at 60 and 120; r6 and r7 wait for them: 120 + 2 x 80060 */
        CHECK(fabs(mc - (120 + 2 * 80060.0)) < 1e-6, "psrg-like cyclic: %.3f, by hand %.3f", mc, 120 + 2 * 80060.0);
        o.blocking = 0;
        to_seq(&o, &s);
        compi_map_seq_time(&p, &s, block, &mb, &sb);
        compi_map_seq_time(&p, &s, cyclic, &mc, &sc);
        CHECK(fabs(mb - mc) < 1e-6 && fabs(mb - 2 * 80060.0) < 1e-6, "psrg-like posted: block %.3f cyclic %.3f", mb, mc);
        /* uniform 100 Mbit/s links (every pair at 0.08 us/byte, a node's NIC as fast as one link): the
         * root's NIC carries the six remote strips one after the other whatever the order, so block and
         * cyclic are equal: 6 x 80000 + 60 (by hand; the links alone: block 320361, cyclic 160240) */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                if (i != j) net.us_per_byte[i * 4 + j] = 0.08;
        o.blocking = 1;
        to_seq(&o, &s);
        compi_map_seq_time(&p, &s, block, &mb, &sb);
        compi_map_seq_time(&p, &s, cyclic, &mc, &sc);
        CHECK(fabs(mb - 480060) < 1e-6 && fabs(mc - 480060) < 1e-6, "psrg-like uniform: block %.3f cyclic %.3f", mb, mc);
        compi_map_graph_free(&g);
        compi_map_net_free(&net);
    }

    /* 4. a Gatherv record at the root of a reversed communicator becomes its
     * sequence (world ranks, communicator order); identical ones add calls;
     * a bad peer is refused */
    {
        int ws = 5, me = 1, rev[5];
        for (int i = 0; i < ws; i++) rev[i] = ws - 1 - i;
        compi_commprof *pr = compi_commprof_new(me, ws);
        compi_commprof_comm(pr, 2, ws, ws - 1 - me, rev);   /* world 1 is comm rank 3 */
        int64_t counts[5] = {10, 0, 30, 40, 50000};
        compi_prof_call c = {COMPI_PROF_GATHERV, 3, 40, 4, 1, 5, counts, COMPI_PROF_PATH_MPI};
        compi_commprof_coll(pr, 2, &c, 0);
        compi_commprof_coll(pr, 2, &c, 0);
        for (int mpich = 0; mpich < 2; mpich++) {
            compi_map_algs algs;
            compi_map_algs_parse(mpich ? "mpi=mpich\n" : NULL, &algs, err, sizeof err);
            compi_map_graph g;
            compi_map_graph_init(&g, ws);
            CHECK(compi_map_graph_add(&g, pr, &algs, err, sizeof err) == 0, "graph_add: %s", err);
            CHECK(g.nseq == 1, "%d sequences from one Gatherv record", g.nseq);
            if (g.nseq == 1) {
                const compi_map_seq *s = &g.seq[0];
                /* comm ranks 0, 2, 4 (1 sends nothing, 3 is the root) = world 4, 2, 0 */
                CHECK(s->root == 1 && s->recv == 1 && s->blocking == !mpich && s->len == 3 && s->calls == 2,
                      "sequence root %d recv %d blocking %d len %d calls %.0f", s->root, s->recv, s->blocking, s->len,
                      s->calls);
                if (s->len == 3)
                    CHECK(s->peer[0] == 4 && s->peer[1] == 2 && s->peer[2] == 0 && s->bytes[0] == 40 &&
                          s->bytes[1] == 120 && s->bytes[2] == 200000, "sequence peers %d %d %d bytes %.0f %.0f %.0f",
                          s->peer[0], s->peer[1], s->peer[2], s->bytes[0], s->bytes[1], s->bytes[2]);
                compi_map_seq again = *s;
                CHECK(compi_map_graph_add_seq(&g, &again) == 0 && g.nseq == 1 && g.seq[0].calls == 4,
                      "an identical sequence: %d sequences, %.0f calls", g.nseq, g.seq[0].calls);
                int badpeer[1] = {1};
                double b1[1] = {5};
                compi_map_seq bad = {.root = 1, .len = 1, .peer = badpeer, .bytes = b1, .calls = 1};
                CHECK(compi_map_graph_add_seq(&g, &bad) == COMPI_MAP_EARG, "a sequence to its own root accepted");
            }
            compi_map_graph_free(&g);
        }
        compi_commprof_free(pr);
    }
}

/* compi's own collectives in the graph (place.h): an Alltoall that ran
 * compi's node-aware algorithm is kept out of the matrices and priced under
 * each placement step by step, a step costing its busiest directed node pair;
 * the oracle takes dkb_compi.c's messages and steps (checked against the
 * MPIs' own counts by tests/map/compi_dkb_validate.sh) and prices them link
 * by link. With frame ratios, the blocks between nodes go as frames: the
 * 32-byte header and the bytes divided by the pair's ratio. */
/* the sub-steps by Open MPI's fixed rules, as compi map decomposes them */
static int sub(void *ctx, const compi_map_call *sc, compi_map_msgs *o)
{
    (void)ctx;
    compi_map_alg alg;
    int rc = compi_map_ompi41_decide(sc, &alg);
    return rc ? rc : compi_map_ompi41_messages(sc, &alg, o);
}

static double nodeaware_oracle(const compi_map_net *net, const int *node, int n, int64_t count,
                               const double *ratio)
{
    compi_map_algs a;
    compi_map_algs_parse(NULL, &a, NULL, 0);
    compi_map_call call = {.coll = COMPI_MAP_ALLTOALL, .size = n, .count = count, .type_size = 8, .commutative = 1};
    compi_map_compi_call c = {.call = call, .node = node, .way = COMPI_MAP_WAY_SPLIT, .me = -1};
    compi_map_msgs out = {0};
    compi_map_phases ph;
    CHECK(compi_map_compi_messages(&c, sub, &a, &out, &ph) == 0, "compi alltoall decomposed");
    int k = net->nnodes;
    double total = 0;
    size_t from = 0;
    for (int f = 0; f <= ph.n; f++) {
        size_t to = f < ph.n ? ph.end[f] : out.n;
        double worst = 0;
        for (int x = 0; x < k; x++)
            for (int y = 0; y < k; y++) {
                double t = 0;
                for (size_t m = from; m < to; m++) {
                    if (node[out.v[m].src] != x || node[out.v[m].dst] != y) continue;
                    uint64_t b = out.v[m].bytes;
                    if (ratio && x != y && f == ph.n - 1) { /* the blocks' step: a frame, header + bytes / ratio, if smaller */
                        uint64_t z = 32 + (uint64_t)ceil((double)b / ratio[out.v[m].src * n + out.v[m].dst]);
                        if (z < b) b = z;
                    }
                    t += net->lat_us[x * k + y] + (double)b * net->us_per_byte[x * k + y];
                }
                if (t > worst) worst = t;
            }
        total += worst;
        from = to > from ? to : from;
    }
    compi_map_msgs_free(&out);
    return total;
}

static void test_nodeaware(void)
{
    const int n = 4;
    const int64_t count = 1000;
    compi_commprof *p = compi_commprof_new(0, n);
    int w[4] = {0, 1, 2, 3};
    compi_commprof_comm(p, 0, n, 0, w);
    compi_prof_call c = {COMPI_PROF_ALLTOALL, -1, count, 8, 1, 0, NULL, COMPI_PROF_PATH_COMPI};
    compi_commprof_coll(p, 0, &c, 8000);
    compi_commprof_coll(p, 0, &c, 8000);
    compi_map_algs a;
    compi_map_algs_parse(NULL, &a, NULL, 0);
    compi_map_graph g;
    compi_map_graph_init(&g, n);
    char err[256];
    CHECK(compi_map_graph_add(&g, p, &a, err, sizeof err) == 0, "graph_add: %s", err);
    CHECK(g.nna == 1 && g.na[0].calls == 2 && g.node_aware[COMPI_PROF_ALLTOALL] == 2, "one node-aware record, 2 calls");
    double in_matrices = 0;
    for (int e = 0; e < n * n; e++) in_matrices += g.msgs[e] + g.bytes[e];
    CHECK(in_matrices == 0, "compi's alltoall is not in the matrices (%g)", in_matrices);
    compi_map_net net;
    /* slots: a host without ":S" gets its cores when the model describes it (hwloc), else 1 */
    compi_net_model hw;
    compi_net_default(&hw);
    compi_net_node hn = {"a", 1, 2, 4}, hm = {"z", 2, 8, 16};
    compi_net_node_set(&hw, &hn);
    compi_net_node_set(&hw, &hm);
    CHECK(compi_map_net_build(&net, "a,b,z:3", &hw, err, sizeof err) == 0 && net.slots[0] == 2 &&
              net.slots[1] == 1 && net.slots[2] == 3 && net.slots_hwloc[0] && !net.slots_hwloc[1] &&
              !net.slots_hwloc[2], "slots from hwloc cores (a 2), default (b 1), explicit (z 3)");
    compi_map_net_free(&net);
    compi_net_free(&hw);
    CHECK(compi_map_net_build(&net, "a:2,b:2", NULL, err, sizeof err) == 0, "net: %s", err);
    /* asymmetric links: a -> b slower than b -> a, inside a node cheap */
    const double lat[4] = {1, 10, 12, 1}, upb[4] = {0.001, 0.01, 0.02, 0.001};
    memcpy(net.lat_us, lat, sizeof lat);
    memcpy(net.us_per_byte, upb, sizeof upb);
    compi_map_problem prob = {&g, &net};
    const int pls[3][4] = {{0, 0, 1, 1}, {0, 1, 0, 1}, {1, 0, 0, 1}};
    for (int q = 0; q < 3; q++) {
        double want = 2 * nodeaware_oracle(&net, pls[q], n, count, NULL), got = compi_map_cost(&prob, pls[q]);
        CHECK(fabs(got - want) <= 1e-9 * want, "placement %d: cost %.6f, oracle %.6f", q, got, want);
    }
    /* frame ratios: pair (i, j) compresses 2 + i + j times */
    double ratio[16];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) ratio[i * n + j] = i == j ? 0 : 2 + i + j;
    CHECK(compi_map_graph_set_frame_ratio(&g, ratio) == 0, "set ratios");
    for (int q = 0; q < 3; q++) {
        double want = 2 * nodeaware_oracle(&net, pls[q], n, count, ratio), got = compi_map_cost(&prob, pls[q]);
        CHECK(fabs(got - want) <= 1e-9 * want, "placement %d with ratios: cost %.6f, oracle %.6f", q, got, want);
    }
    /* the graph of block placement: block 0 -> 2 is 8000 bytes raw, a frame
     * of 32 + 8000 / 4 bytes compressed, twice */
    compi_map_graph raw;
    compi_map_graph_init(&raw, n);
    compi_map_graph_add(&raw, p, &a, err, sizeof err);
    compi_map_graph_materialize(&raw, pls[0]);
    compi_map_graph_materialize(&g, pls[0]);
    CHECK(raw.bytes[0 * n + 2] - g.bytes[0 * n + 2] == 2 * (8000.0 - (32.0 + 2000.0)),
          "frame 0 -> 2: %g bytes raw, %g compressed", raw.bytes[2], g.bytes[2]);
    CHECK(raw.bytes[0 * n + 1] == g.bytes[0 * n + 1], "same node: raw either way");
    compi_map_graph_free(&raw);
    compi_map_graph_free(&g);

    /* compi's Gatherv (the blocks' metadata by the MPI's Alltoall, then
     * every block to the root point to point): each step costs its busiest
     * link; a step that is the MPI's Gatherv would cost its root's sequence
     * (compi_map_seq_time) */
    compi_commprof *pv = compi_commprof_new(1, n);
    compi_commprof_comm(pv, 0, n, 1, w);
    int64_t vc[4] = {30000, 5000, 0, 120000};
    compi_prof_call gv = {COMPI_PROF_GATHERV, 1, 0, 8, 1, 4, vc, COMPI_PROF_PATH_COMPI};
    compi_commprof_coll(pv, 0, &gv, 8 * 155000);
    compi_map_graph_init(&g, n);
    CHECK(compi_map_graph_add(&g, pv, &a, err, sizeof err) == 0 && g.nna == 1, "gatherv record: %s", err);
    for (int q = 0; q < 3; q++) {
        compi_map_call call = {.coll = COMPI_MAP_GATHERV, .size = n, .root = 1, .counts = vc, .type_size = 8,
                               .commutative = 1};
        compi_map_compi_call cc = {.call = call, .node = pls[q], .way = COMPI_MAP_WAY_SPLIT, .me = -1};
        compi_map_msgs out = {0};
        compi_map_phases ph;
        CHECK(compi_map_compi_messages(&cc, sub, &a, &out, &ph) == 0 && ph.n == 2, "gatherv: 2 steps");
        double want = 0;
        size_t from = 0;
        for (int f = 0; f < ph.n; f++) {
            if (ph.coll[f] == COMPI_MAP_GATHERV) {
                compi_map_seq sq = {.root = 1, .recv = 1, .blocking = 1, .calls = 1, .len = 0};
                int peer[4];
                double by[4];
                sq.peer = peer, sq.bytes = by;
                for (size_t m = from; m < ph.end[f]; m++) peer[sq.len] = out.v[m].src, by[sq.len++] = (double)out.v[m].bytes;
                double mk, sum;
                compi_map_seq_time(&prob, &sq, pls[q], &mk, &sum);
                want += mk;
            } else {
                double link[4] = {0, 0, 0, 0}, worst = 0;
                for (size_t m = from; m < ph.end[f]; m++) {
                    int l = pls[q][out.v[m].src] * 2 + pls[q][out.v[m].dst];
                    link[l] += net.lat_us[l] + (double)out.v[m].bytes * net.us_per_byte[l];
                    if (link[l] > worst) worst = link[l];
                }
                want += worst;
            }
            from = ph.end[f];
        }
        compi_map_msgs_free(&out);
        double got = compi_map_cost(&prob, pls[q]);
        CHECK(fabs(got - want) <= 1e-9 * want, "gatherv placement %d: cost %.6f, oracle %.6f", q, got, want);
    }
    compi_map_graph_free(&g);
    compi_commprof_free(pv);
    compi_map_net_free(&net);
    compi_commprof_free(p);
}

/* A pair's ratio for test_blocks: r[0] between nodes (the DKB asks only there) */
static double blocks_ratio(void *ctx, int src, int dst)
{
    (void)src, (void)dst;
    return *(const double *)ctx;
}

/* The messages of src -> dst in the last step of a compi call, by size. */
static int blocks_of(const compi_map_msgs *out, const compi_map_phases *ph, int src, int dst, uint64_t *b, int max)
{
    int k = 0;
    for (size_t m = ph->n > 1 ? ph->end[ph->n - 2] : 0; m < out->n; m++)
        if (out->v[m].src == src && out->v[m].dst == dst && k < max) b[k++] = out->v[m].bytes;
    return k;
}

/* compi's exchange block by block (lib/coll/pipex.c): 3 GiB per block of
 * an Alltoall on 2 nodes; a rank's own block one raw message to itself; a
 * block to the other node raw, or (a ratio) a frame of header + bytes /
 * ratio in pieces of at most 1 GiB, raw again when the frame would not be
 * smaller. Allgather's leader sends its own block to itself on
 * MPI_COMM_SELF: a message unless the MPI copies it locally. */
static void test_blocks(void)
{
    compi_map_algs a;
    compi_map_algs_parse(NULL, &a, NULL, 0);
    const int two[2] = {0, 1}, one[2] = {0, 0};
    const uint64_t G = (uint64_t)1 << 30, b = 3 * G;
    compi_map_call call = {.coll = COMPI_MAP_ALLTOALL, .size = 2, .count = (int64_t)(b / 8), .type_size = 8,
                           .commutative = 1};
    const double ratios[3] = {1.0, 1.5, 1.0 + 1e-12};
    for (int q = 0; q < 3; q++) {
        compi_map_compi_call c = {.call = call, .node = two, .way = COMPI_MAP_WAY_SPLIT, .me = -1,
                                  .ratio = blocks_ratio, .ratio_ctx = (void *)&ratios[q]};
        compi_map_msgs out = {0};
        compi_map_phases ph;
        CHECK(compi_map_compi_messages(&c, sub, &a, &out, &ph) == 0 && ph.n == 2, "alltoall: metadata, blocks");
        uint64_t m[4] = {0};
        int k = blocks_of(&out, &ph, 0, 0, m, 4);
        CHECK(k == 1 && m[0] == b, "ratio %g: own block one raw message (%d, %llu)", ratios[q], k,
              (unsigned long long)m[0]);
        k = blocks_of(&out, &ph, 0, 1, m, 4);
        if (q == 1)
            CHECK(k == 3 && m[0] == G && m[1] == G && m[2] == 32, "ratio 1.5: a frame of 2 GiB + 32 in 3 pieces (%d)",
                  k);
        else
            CHECK(k == 1 && m[0] == b, "ratio %g: one raw message (%d, %llu)", ratios[q], k, (unsigned long long)m[0]);
        /* the metadata: 3 64-bit words per block, by the MPI's Alltoall (each
         * rank's to the other; its own stays local) */
        uint64_t meta = 0;
        for (size_t x = 0; x < ph.end[0]; x++) meta += out.v[x].bytes;
        CHECK(meta == 2 * 24, "metadata: %llu bytes", (unsigned long long)meta);
        compi_map_msgs_free(&out);
    }
    compi_map_call ag = {.coll = COMPI_MAP_ALLGATHER, .size = 2, .count = 1000, .type_size = 8, .commutative = 1};
    for (int local = 0; local < 2; local++) {
        compi_map_compi_call c = {.call = ag, .node = one, .way = COMPI_MAP_WAY_SPLIT, .me = -1,
                                  .self_comm_local = local};
        compi_map_msgs out = {0};
        compi_map_phases ph;
        CHECK(compi_map_compi_messages(&c, sub, &a, &out, &ph) == 0, "allgather decomposed");
        int self = 0, up = 0;
        for (size_t x = 0; x < ph.end[0]; x++) {
            self += out.v[x].src == 0 && out.v[x].dst == 0 && out.v[x].bytes == 8000;
            up += out.v[x].src == 1 && out.v[x].dst == 0 && out.v[x].bytes == 8000;
        }
        CHECK(up == 1 && self == !local, "allgather, self_comm_local %d: %d to itself, %d from the member", local,
              self, up);
        compi_map_msgs_free(&out);
    }
}

int main(void)
{
    test_blocks();
    test_nodeaware();
    test_mappers();
    test_profile();
    test_sequences();
    if (failures) { fprintf(stderr, "test_place: %d failures\n", failures); return 1; }
    printf("test_place: all passed\n");
    return 0;
}
