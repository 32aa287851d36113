/* lib/map/place.c and lib/engine/commprof.c without MPI, against brute
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
 *              most single-byte changes of the serialised form are refused.
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

/* the cost, written independently of place.c: over an edge list */
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
            compi_prof_call c = {COMPI_PROF_ALLTOALLV, -1, 0, 8, 1, ws, counts};
            compi_commprof_coll(p, 3, &c, 0);
            compi_prof_call b = {COMPI_PROF_BCAST, (int)(rnd() % (unsigned)ws), (int64_t)(rnd() % 3), 4, 1, 0, NULL};
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
    compi_prof_call c = {COMPI_PROF_GATHER, 2, 5, 4, 1, 0, NULL};
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

int main(void)
{
    test_mappers();
    test_profile();
    if (failures) { fprintf(stderr, "test_place: %d failures\n", failures); return 1; }
    printf("test_place: all passed\n");
    return 0;
}
