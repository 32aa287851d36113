/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the mappers (block, cyclic, random, swap, scotch; place.h).
 * The only file of lib/map that uses Scotch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef COMPI_WITH_SCOTCH
#include <scotch.h>
#endif
#include "common/errf.h"
#include "map/place_internal.h"

/* ------------------------------------------------ swap's local search */

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
    size_t s = (size_t)i * n + i, l = (size_t)x * k + x; /* messages to itself stay on its node */
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
        double adj0 = seqs ? compi_place_adjust(p, node) : 0;
        for (int a = 0; a < p->g->n; a++) {
            int na = node[a];
            double ca = pl_contrib(p, node, a, na);
            for (int b = a + 1; b < total; b++) {
                int nb = node[b];
                if (nb == na) continue;
                double d = pl_contrib(p, node, a, nb) + pl_contrib(p, node, b, na) - ca - pl_contrib(p, node, b, nb) -
                           pl_pair(p, a, b, nb, nb) - pl_pair(p, a, b, na, na) + pl_pair(p, a, b, nb, na) +
                           pl_pair(p, a, b, na, nb);
                if (seqs) { /* sequences' makespans and node-aware collectives do not split by rank: recomputed */
                    node[a] = nb;
                    node[b] = na;
                    d += compi_place_adjust(p, node) - adj0;
                    node[a] = na;
                    node[b] = nb;
                }
                if (d < best - 1e-9 * (fabs(ca) + 1e-12)) {
                    best = d;
                    ba = a;
                    bb = b;
                }
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
const char *compi_mapper_name(compi_mapper m)
{
    return m < COMPI_MAPPER_COUNT ? pl_mapper_names[m] : "?";
}

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

/* the slots in a random order: Fisher-Yates with pl_rand's stream s */
static void pl_random(const int *slots, int *node, int total, uint64_t *s)
{
    memcpy(node, slots, sizeof *node * (size_t)total);
    for (int i = total - 1; i > 0; i--) {
        int j = (int)(pl_rand(s) % (uint64_t)(i + 1)), t = node[i];
        node[i] = node[j];
        node[j] = t;
    }
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
/* Scotch's edge weights: w[i x n + j] = the traffic between ranks i and j
 * (both directions) priced on an average inter-node link, compi's
 * node-aware collectives as they are under block placement included.
 * Returns the largest weight. */
static double pl_scotch_weights(const compi_map_problem *p, double *w)
{
    const compi_map_graph *g = p->g;
    const compi_map_net *net = p->net;
    int n = g->n, k = net->nnodes;
    double lat = 0, upb = 0, wmax = 0;
    int pairs = 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            if (i != j) {
                lat += net->lat_us[i * k + j];
                upb += net->us_per_byte[i * k + j];
                pairs++;
            }
    if (pairs) {
        lat /= pairs;
        upb /= pairs;
    } else {
        lat = 1;
        upb = 1e-3;
    }
    compi_map_graph na = {0}; /* the node-aware collectives as they are under block placement */
    int *blk = NULL, total = 0;
    if (g->nna && compi_map_graph_init(&na, n) == 0 && (blk = pl_slots(net, &total))) {
        compi_map_msgs out = {0};
        compi_place_nodeaware_each(g, blk, &out, compi_place_mat_msg, &na);
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
    return wmax;
}

/* Scotch maps the graph of the n ranks, edges weighted by w (largest wmax),
 * onto the nodes: parttab[i] is rank i's part, a slot when *leaf (every
 * node has as many slots, more than one: nodes x cores leaves), else a
 * node. 0, COMPI_MAP_ENOMEM, or COMPI_MAP_EUNSUPP when Scotch fails. */
static int pl_scotch_map(const compi_map_net *net, int n, const double *w, double wmax, SCOTCH_Num *parttab, int *leaf)
{
    int k = net->nnodes, rc = 0;
    SCOTCH_Num *verttab = malloc(sizeof *verttab * (size_t)(n + 1));
    SCOTCH_Num *edgetab = malloc(sizeof *edgetab * (size_t)n * n), *edlotab = malloc(sizeof *edlotab * (size_t)n * n);
    SCOTCH_Num *velo = malloc(sizeof *velo * (size_t)k);
    if (!verttab || !edgetab || !edlotab || !velo) {
        rc = COMPI_MAP_ENOMEM;
        goto out;
    }
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
    *leaf = same && net->slots[0] > 1;
    if (SCOTCH_graphBuild(&sg, 0, n, verttab, NULL, NULL, NULL, e, edgetab, edlotab) != 0) rc = COMPI_MAP_EUNSUPP;
    if (!rc) {
        if (*leaf) {
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
out:
    free(verttab);
    free(edgetab);
    free(edlotab);
    free(velo);
    return rc;
}

/* Each rank on its Scotch part's node; then the ranks beyond a node's
 * slots (the first ranks of each node up to its slots stay) move to the
 * node with free slots where they cost least. 0 or COMPI_MAP_ENOMEM. */
static int pl_scotch_repair(const compi_map_problem *p, const SCOTCH_Num *parttab, int leaf, int *node)
{
    const compi_map_net *net = p->net;
    int n = p->g->n, k = net->nnodes;
    int *used = calloc((size_t)k, sizeof *used);
    if (!used) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < n; i++) {
        node[i] = leaf ? parttab[i] / net->slots[0] : parttab[i];
        if (node[i] < 0 || node[i] >= k) node[i] = 0;
    }
    int *over = malloc(sizeof *over * (size_t)n), nover = 0;
    if (!over) {
        free(used);
        return COMPI_MAP_ENOMEM;
    }
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
            if (bx < 0 || c < bc) {
                bx = x;
                bc = c;
            }
        }
        node[i] = bx;
        used[bx]++;
    }
    free(over);
    free(used);
    return 0;
}

/* Scotch: ranks onto nodes, weights = traffic cost over an average
 * inter-node link; then repaired to the nodes' slots. */
static int pl_scotch(const compi_map_problem *p, int *node, char *err, size_t errlen)
{
    int n = p->g->n, leaf = 0;
    double *w = calloc((size_t)n * n, sizeof *w);
    SCOTCH_Num *parttab = malloc(sizeof *parttab * (size_t)n);
    int rc = w && parttab ? 0 : COMPI_MAP_ENOMEM;
    if (!rc) {
        double wmax = pl_scotch_weights(p, w);
        rc = pl_scotch_map(p->net, n, w, wmax, parttab, &leaf);
        if (rc == COMPI_MAP_EUNSUPP) compi_errf(err, errlen, "Scotch could not map the graph");
    }
    if (!rc) rc = pl_scotch_repair(p, parttab, leaf, node);
    free(w);
    free(parttab);
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
    if (total < n) {
        free(slots);
        return COMPI_MAP_EARG;
    }
    int *node = malloc(sizeof *node * (size_t)total), *used = calloc((size_t)p->net->nnodes, sizeof *used);
    if (!node || !used) {
        free(slots);
        free(node);
        free(used);
        return COMPI_MAP_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        node[i] = node_of_rank[i];
        used[node[i]]++;
    }
    int t = n; /* empty slots after the ranks */
    for (int x = 0; x < p->net->nnodes; x++)
        for (int s = used[x]; s < p->net->slots[x]; s++) node[t++] = x;
    pl_descend(p, node, total);
    memcpy(node_of_rank, node, sizeof *node * (size_t)n);
    free(slots);
    free(node);
    free(used);
    return 0;
}

int compi_map_run(compi_mapper m, const compi_map_problem *p, uint64_t seed, int *node_of_rank, char *err,
                  size_t errlen)
{
    int n = p->g->n, total;
    if (m >= COMPI_MAPPER_COUNT) {
        compi_errf(err, errlen, "no such mapper");
        return COMPI_MAP_EARG;
    }
    int *slots = pl_slots(p->net, &total);
    if (!slots) return COMPI_MAP_ENOMEM;
    if (total < n) {
        compi_errf(err, errlen, "the host list has %d slot%s for %d ranks", total, total == 1 ? "" : "s", n);
        free(slots);
        return COMPI_MAP_EARG;
    }
    int *node = malloc(sizeof *node * (size_t)total), *best = malloc(sizeof *best * (size_t)total);
    int rc = 0;
    if (!node || !best) {
        rc = COMPI_MAP_ENOMEM;
        goto out;
    }
    uint64_t s = seed;
    switch (m) {
    case COMPI_MAPPER_BLOCK: memcpy(node, slots, sizeof *node * (size_t)total); break;
    case COMPI_MAPPER_CYCLIC: pl_cyclic(p->net, node, total); break;
    case COMPI_MAPPER_RANDOM: pl_random(slots, node, total, &s); break;
    case COMPI_MAPPER_SWAP: {
        /* from block, cyclic and four random starts; the cheapest local optimum */
        double bestc = 0;
        for (int start = 0; start < 6; start++) {
            if (start == 0) memcpy(node, slots, sizeof *node * (size_t)total);
            else if (start == 1) pl_cyclic(p->net, node, total);
            else pl_random(slots, node, total, &s);
            pl_descend(p, node, total);
            double c = compi_map_cost(p, node);
            if (start == 0 || c < bestc) {
                bestc = c;
                memcpy(best, node, sizeof *node * (size_t)total);
            }
        }
        memcpy(node, best, sizeof *node * (size_t)total);
        break;
    }
    case COMPI_MAPPER_SCOTCH: rc = pl_scotch(p, node, err, errlen); break;
    default: break;
    }
    if (!rc) memcpy(node_of_rank, node, sizeof *node * (size_t)n);
out:
    free(slots);
    free(node);
    free(best);
    return rc;
}
