/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the predicted cost of a placement, its inter-node bytes and
 * its most loaded link (place.h). */
#include <stdlib.h>
#include <string.h>
#include "map/place_internal.h"

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
    if (!busy) {
        *makespan = *sum = 0;
        return;
    }
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
        if (rndv && !s->recv) t = start + net->lat_us[l]; /* handshake through: the data drains, the root goes on */
        else if (s->blocking && s->recv) t = t > done ? t : done; /* the next receive is posted after this one */
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
        if (r != root) {
            rc = -1;
            break;
        }
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
        if (compi_place_nodeaware_call(g, q, node, &out, &ph) != 0) continue;
        double call = 0;
        size_t a = 0; /* step f is messages [a, b); the ends never decrease */
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
double compi_place_adjust(const compi_map_problem *p, const int *node)
{
    return pl_seq_adjust(p, node) + pl_nodeaware_cost(p, node, NULL);
}

double compi_map_cost(const compi_map_problem *p, const int *node)
{
    return pl_sum_cost(p, node) + compi_place_adjust(p, node);
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
    compi_place_nodeaware_each(g, node, &out, pl_inter_msg, &a);
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
