/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_bips3d: irregular-mesh device simulation kernel in the style of BIPS3D
 * (3D semiconductor device simulation on unstructured meshes).
 *
 * Mesh: a seeded random point cloud in a MOSFET-shaped box, graded (denser
 * under the gate and near the surface, as device meshes are), connected to its
 * k nearest neighbours (made symmetric), so node degrees and neighbour
 * distances vary: an irregular graph, numbered along a coarse spatial sort the
 * way mesh generators number nodes. Every rank builds the same mesh, as if it
 * had read one mesh file; rank 0 partitions the node graph with METIS
 * (METIS_PartGraphKway) or Scotch (SCOTCH_graphPart) and broadcasts the
 * partition.
 *
 * Load values: one struct per node (potential, electron and hole densities,
 * recombination rate as doubles; doping class and region as ints). Carrier
 * densities span many decades and are flushed to 0 below 1e-6 of the peak
 * doping, so each is zero over much of the device (electrons in the p
 * substrate, holes in the n+ wells, recombination outside depletion zones). Each iteration is one
 * Jacobi sweep of the nonlinear Poisson equation (Newton-linearised charge,
 * Boltzmann carriers, fixed quasi-Fermi levels from the applied bias), after a
 * halo exchange of the boundary node structs (an MPI struct datatype,
 * MPI_Irecv/MPI_Isend/MPI_Waitall). At the end all structs are gathered on rank
 * 0 (MPI_Gatherv), which recomputes the same sweeps serially on the whole mesh:
 * each node sums its neighbours in the same (global) order in both runs, so the
 * results must agree bit for bit, whatever the partition or rank count.
 *
 * Timed phase: the sweeps and the final gather. bytes_sent: halo structs plus
 * gathered structs (the setup broadcast and the residual reductions are not
 * counted). */
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "bips3d_mesh.h"

/* The per-node load values that travel in halos and in the final gather. */
typedef struct {
    double psi, n, p, rec;
    int dop_class, region;
} node_t;

typedef struct {
    app_common_opts c;
    long nodes;
    int k;
    int scotch;
    uint64_t seed;
} options;

static int g_rank, g_nranks;

static const char *const usage =
    "usage: compi_bips3d [--scale F] [--iters N] [--k K] [--partitioner metis|scotch] [--seed S] [--quiet]\n"
    "  default: 160000 mesh nodes (times F), K = 8 nearest neighbours, 200 Jacobi sweeps\n";

static int bips3d_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!v) return 0;
    if (!strcmp(a, "--k")) return (o->k = atoi(v)) < 3 || o->k > 32 ? -1 : 2;
    if (!strcmp(a, "--seed")) return o->seed = strtoull(v, NULL, 0), 2;
    if (strcmp(a, "--partitioner")) return 0;
    if (!strcmp(v, "metis")) o->scotch = 0;
    else if (!strcmp(v, "scotch")) o->scotch = 1;
    else return -1;
#ifndef COMPI_HAVE_SCOTCH
    if (o->scotch) {
        if (g_rank == 0) fprintf(stderr, "compi_bips3d: built without Scotch\n");
        return -1;
    }
#endif
    return 2;
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.c = {.scale = 1.0, .iters = 200}, .nodes = 160000, .k = 8, .seed = 2024};
    app_parse_args(argc, argv, &o->c, "compi_bips3d", usage, bips3d_option, o);
    o->nodes = (long)((double)o->nodes * o->c.scale + 0.5);
    if (o->nodes < 8L * o->k || o->nodes > 50000000L) {
        char why[96];
        snprintf(why, sizeof why, "compi_bips3d: %ld nodes is out of range\n", o->nodes);
        app_usage_exit(usage, 2, why);
    }
}

/* The mesh and its partition: apps/bips3d_mesh.c. */

/* ------------------------------------------------------------- physics --- */

static inline double flush(double v)
{
    return v < FLUSH ? 0.0 : v;
}

/* Carriers and SRH recombination at potential psi (Boltzmann statistics;
 * electron quasi-Fermi level phi, hole level 0, so np < ni^2 under bias and
 * depletion zones generate). */
static void carriers(node_t *s, double phi)
{
    if (s->region == REG_OXIDE || s->region == REG_GATE) {
        s->n = s->p = s->rec = 0;
        return;
    }
    double n = DELTA * exp(s->psi - phi), p = DELTA * exp(-s->psi);
    s->n = flush(n);
    s->p = flush(p);
    s->rec = flush(fabs(n * p - DELTA * DELTA) / (n + p + 2 * DELTA)) * (n * p >= DELTA * DELTA ? 1 : -1);
}

/* Initial guess: charge neutrality in silicon, gate potential on the gate. */
static node_t init_node(const bips3d_mesh *m, int i)
{
    node_t s = {.dop_class = m->dop_class[i], .region = m->region[i]};
    if (s.region == REG_GATE) s.psi = V_GATE;
    else if (s.region == REG_OXIDE) s.psi = 0.5 * V_GATE;
    else s.psi = asinh(m->dop[i] / (2 * DELTA)) + (m->dop[i] > 0 ? m->phi[i] : 0);
    carriers(&s, m->phi[i]);
    return s;
}

/* ----------------------------------------------------------- subdomain --- */

/* One rank's part of the mesh in local numbering: owned nodes first (by
 * global id), then ghosts grouped by owner rank (by global id within). The
 * serial check is the same structure with one part and no ghosts. */
typedef struct {
    int nown, nghost;
    int *gid;        /* local -> global, nown + nghost */
    int *xadj, *adj; /* owned rows, local neighbour ids, global order kept */
    const double *w; /* per local edge */
    double *wl, *h, *dop, *phi;
    node_t *s, *snew;
    int nnb; /* neighbour ranks */
    int *nb_rank, *ghost_off, *ghost_cnt, *send_off, *send_idx;
    node_t *sendbuf;
    MPI_Request *reqs;
    MPI_Status *stats; /* not MPI_STATUSES_IGNORE: silences a GCC false positive with MPICH's header */
} subdomain;

static subdomain make_subdomain(const bips3d_mesh *m, const int *part, int me, int nparts)
{
    subdomain d;
    memset(&d, 0, sizeof d);
    const int n = m->n;
    int *g2l = bips3d_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) g2l[i] = -1;
    for (int i = 0; i < n; i++)
        if (part[i] == me) g2l[i] = d.nown++;
    /* Ghosts: foreign neighbours of owned nodes, counted per owner. */
    int *cnt = calloc((size_t)nparts, sizeof(int)), *mark = bips3d_xmalloc(sizeof(int) * (size_t)n);
    int *sendcnt = calloc((size_t)nparts, sizeof(int)), *last = bips3d_xmalloc(sizeof(int) * (size_t)nparts);
    if (!cnt || !sendcnt) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n; i++) mark[i] = 0;
    for (int q = 0; q < nparts; q++) last[q] = -1;
    for (int i = 0; i < n; i++) {
        if (part[i] != me) continue;
        for (int e = m->xadj[i]; e < m->xadj[i + 1]; e++) {
            int j = m->adj[e], q = part[j];
            if (q == me) continue;
            if (!mark[j]) mark[j] = 1, cnt[q]++, d.nghost++;
            if (last[q] != i) last[q] = i, sendcnt[q]++;
        }
    }
    d.nb_rank = bips3d_xmalloc(sizeof(int) * (size_t)nparts);
    d.ghost_off = bips3d_xmalloc(sizeof(int) * (size_t)nparts);
    d.ghost_cnt = bips3d_xmalloc(sizeof(int) * (size_t)nparts);
    d.send_off = bips3d_xmalloc(sizeof(int) * ((size_t)nparts + 1));
    int off = d.nown, soff = 0;
    int *qslot = bips3d_xmalloc(sizeof(int) * (size_t)nparts);
    for (int q = 0; q < nparts; q++) {
        qslot[q] = -1;
        if (!cnt[q]) continue;
        qslot[q] = d.nnb;
        d.nb_rank[d.nnb] = q, d.ghost_off[d.nnb] = off, d.ghost_cnt[d.nnb] = cnt[q], d.send_off[d.nnb] = soff;
        off += cnt[q], soff += sendcnt[q], d.nnb++;
    }
    d.send_off[d.nnb] = soff;
    /* Ghost numbering: global id order within each owner (i ascending visits them in order). */
    int *gfill = bips3d_xmalloc(sizeof(int) * (size_t)(d.nnb ? d.nnb : 1));
    for (int t = 0; t < d.nnb; t++) gfill[t] = d.ghost_off[t];
    for (int j = 0; j < n; j++)
        if (mark[j]) g2l[j] = gfill[qslot[part[j]]]++;
    d.gid = bips3d_xmalloc(sizeof(int) * (size_t)(d.nown + d.nghost));
    for (int i = 0; i < n; i++)
        if (g2l[i] >= 0) d.gid[g2l[i]] = i;
    /* Send lists: owned nodes with a neighbour in q, ascending global id, which
     * is exactly the order q numbers them as its ghosts. */
    d.send_idx = bips3d_xmalloc(sizeof(int) * (size_t)(soff ? soff : 1));
    int *sfill = bips3d_xmalloc(sizeof(int) * (size_t)(d.nnb ? d.nnb : 1));
    for (int t = 0; t < d.nnb; t++) sfill[t] = d.send_off[t];
    for (int q = 0; q < nparts; q++) last[q] = -1;
    /* Owned rows in local numbering. */
    d.xadj = bips3d_xmalloc(sizeof(int) * ((size_t)d.nown + 1));
    int ne = 0;
    for (int i = 0; i < n; i++)
        if (part[i] == me) ne += m->xadj[i + 1] - m->xadj[i];
    d.adj = bips3d_xmalloc(sizeof(int) * (size_t)(ne ? ne : 1));
    d.wl = bips3d_xmalloc(sizeof(double) * (size_t)(ne ? ne : 1));
    d.h = bips3d_xmalloc(sizeof(double) * (size_t)(d.nown ? d.nown : 1));
    d.dop = bips3d_xmalloc(sizeof(double) * (size_t)(d.nown ? d.nown : 1));
    d.phi = bips3d_xmalloc(sizeof(double) * (size_t)(d.nown ? d.nown : 1));
    ne = 0;
    for (int l = 0; l < d.nown; l++) {
        int i = d.gid[l];
        d.xadj[l] = ne;
        d.h[l] = m->h[i], d.dop[l] = m->dop[i], d.phi[l] = m->phi[i];
        for (int e = m->xadj[i]; e < m->xadj[i + 1]; e++) {
            int j = m->adj[e], q = part[j];
            d.adj[ne] = g2l[j], d.wl[ne++] = m->w[e];
            if (q != me && last[q] != i) last[q] = i, d.send_idx[sfill[qslot[q]]++] = l;
        }
    }
    d.xadj[d.nown] = ne;
    d.w = d.wl;
    size_t nl = (size_t)(d.nown + d.nghost);
    d.s = bips3d_xmalloc(sizeof(node_t) * (nl ? nl : 1));
    d.snew = bips3d_xmalloc(sizeof(node_t) * (nl ? nl : 1));
    for (size_t l = 0; l < nl; l++) d.s[l] = d.snew[l] = init_node(m, d.gid[l]);
    d.sendbuf = bips3d_xmalloc(sizeof(node_t) * (size_t)(soff ? soff : 1));
    d.reqs = bips3d_xmalloc(sizeof(MPI_Request) * 2 * (size_t)(d.nnb ? d.nnb : 1));
    d.stats = bips3d_xmalloc(sizeof(MPI_Status) * 2 * (size_t)(d.nnb ? d.nnb : 1));
    free(g2l), free(cnt), free(mark), free(sendcnt), free(last), free(qslot), free(gfill), free(sfill);
    return d;
}

static void free_subdomain(subdomain *d)
{
    free(d->gid), free(d->xadj), free(d->adj), free(d->wl), free(d->h), free(d->dop), free(d->phi);
    free(d->s), free(d->snew), free(d->nb_rank), free(d->ghost_off), free(d->ghost_cnt), free(d->send_off);
    free(d->send_idx), free(d->sendbuf), free(d->reqs), free(d->stats);
}

/* Ghost values in from their owners, boundary values out, one message per
 * neighbour rank each way. Returns bytes sent. */
static uint64_t halo_exchange(subdomain *d, MPI_Datatype node_type)
{
    int nr = 0;
    for (int t = 0; t < d->nnb; t++)
        MPI_Irecv(d->s + d->ghost_off[t], d->ghost_cnt[t], node_type, d->nb_rank[t], 31, MPI_COMM_WORLD,
                  &d->reqs[nr++]);
    uint64_t bytes = 0;
    for (int t = 0; t < d->nnb; t++) {
        int b = d->send_off[t], e = d->send_off[t + 1];
        for (int x = b; x < e; x++) d->sendbuf[x] = d->s[d->send_idx[x]];
        MPI_Isend(d->sendbuf + b, e - b, node_type, d->nb_rank[t], 31, MPI_COMM_WORLD, &d->reqs[nr++]);
        bytes += (uint64_t)(e - b) * sizeof(node_t);
    }
    MPI_Waitall(nr, d->reqs, d->stats);
    return bytes;
}

/* One Jacobi sweep over the owned nodes; returns the largest potential
 * change. Dirichlet nodes (gate, contacts) keep their potential. */
static double sweep(subdomain *d)
{
    double dmax = 0;
    for (int l = 0; l < d->nown; l++) {
        const node_t *o = &d->s[l];
        node_t v = *o;
        if (o->region != REG_GATE && o->region != REG_CONTACT) {
            double sw = 0, swpsi = 0;
            for (int e = d->xadj[l]; e < d->xadj[l + 1]; e++) {
                sw += d->w[e];
                swpsi += d->w[e] * d->s[d->adj[e]].psi;
            }
            /* Newton-linearised charge: rho(psi) ~ rho(psi0) - (n + p)(psi - psi0) */
            double rho = o->p - o->n + d->dop[l], drho = o->n + o->p;
            v.psi = (swpsi + d->h[l] * (rho + drho * o->psi)) / (sw + d->h[l] * drho);
            double ch = fabs(v.psi - o->psi);
            if (ch > dmax) dmax = ch;
        }
        carriers(&v, d->phi[l]);
        d->snew[l] = v;
    }
    /* Ghost slots of the swapped-in array are stale; the next exchange refills them. */
    node_t *t = d->s;
    d->s = d->snew;
    d->snew = t;
    return dmax;
}

/* ---------------------------------------------------------------- main --- */

static MPI_Datatype make_node_type(void)
{
    MPI_Datatype t, resized;
    int len[2] = {4, 2};
    MPI_Aint disp[2] = {offsetof(node_t, psi), offsetof(node_t, dop_class)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, len, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(node_t), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&t);
    return resized;
}

static int node_equal(const node_t *a, const node_t *b)
{
    return app_dbits(a->psi) == app_dbits(b->psi) && app_dbits(a->n) == app_dbits(b->n) &&
           app_dbits(a->p) == app_dbits(b->p) && app_dbits(a->rec) == app_dbits(b->rec) &&
           a->dop_class == b->dop_class && a->region == b->region;
}

static uint64_t node_hash(const node_t *s, int n)
{
    uint64_t h = 0;
    for (int i = 0; i < n; i++) {
        uint64_t b = app_dbits(s[i].psi) ^ app_mix64(app_dbits(s[i].n)) ^ app_mix64(app_dbits(s[i].p) + 1) ^
                     app_mix64(app_dbits(s[i].rec) + 2) ^ ((uint64_t)s[i].dop_class << 40) ^ (uint64_t)s[i].region;
        h += app_hash_term((uint64_t)i, b);
    }
    return h;
}

int main(int argc, char **argv)
{
    app_start(&argc, &argv, &g_rank, &g_nranks);
    options o;
    parse_args(argc, argv, &o);

    double tb = MPI_Wtime();
    bips3d_mesh m = bips3d_mesh_build(o.nodes, o.k, o.seed);
    int *part = bips3d_xmalloc(sizeof(int) * (size_t)m.n);
    long cut = 0;
    if (g_rank == 0) bips3d_mesh_partition(&m, g_nranks, o.scotch, part, &cut);
    MPI_Bcast(part, m.n, MPI_INT, 0, MPI_COMM_WORLD);
    subdomain d = make_subdomain(&m, part, g_rank, g_nranks);
    MPI_Datatype node_type = make_node_type();
    double setup = MPI_Wtime() - tb;

    if (g_rank == 0 && !o.c.quiet) {
        long nsi = 0, nzn = 0;
        for (int i = 0; i < m.n; i++) nsi += m.region[i] == REG_SI;
        for (int l = 0; l < d.nown; l++) nzn += d.s[l].n == 0;
        printf("compi_bips3d: %d ranks, %d nodes (%ld silicon), %d edges, k=%d, %s edge cut %ld, %d sweeps, "
               "setup %.2f s\n",
               g_nranks, m.n, nsi, m.xadj[m.n] / 2, o.k, o.scotch ? "Scotch" : "METIS", cut, o.c.iters, setup);
        printf("rank 0: %d owned, %d ghosts from %d ranks, sends %d structs of %zu bytes per sweep, n=0 at %ld nodes\n",
               d.nown, d.nghost, d.nnb, d.send_off[d.nnb], sizeof(node_t), nzn);
        fflush(stdout);
    }

    uint64_t sent = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 1; it <= o.c.iters; it++) {
        sent += halo_exchange(&d, node_type);
        double dl = sweep(&d);
        if (it % 10 == 0 || it == o.c.iters) {
            double dg;
            MPI_Allreduce(&dl, &dg, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (g_rank == 0 && !o.c.quiet) printf("sweep %4d  max |dpsi| %.6e\n", it, dg);
        }
    }
    /* Results to rank 0, each rank's owned nodes in global id order. */
    int *counts = NULL, *displs = NULL;
    node_t *gathered = NULL;
    if (g_rank == 0) {
        counts = calloc((size_t)g_nranks, sizeof(int));
        displs = bips3d_xmalloc(sizeof(int) * (size_t)g_nranks);
        gathered = bips3d_xmalloc(sizeof(node_t) * (size_t)m.n);
        for (int i = 0; i < m.n; i++) counts[part[i]]++;
        for (int q = 0, off = 0; q < g_nranks; q++) displs[q] = off, off += counts[q];
    }
    MPI_Gatherv(d.s, d.nown, node_type, gathered, counts, displs, node_type, 0, MPI_COMM_WORLD);
    if (g_rank) sent += (uint64_t)d.nown * sizeof(node_t);
    double elapsed = MPI_Wtime() - t0;

    int ok = 1;
    char why[160] = "";
    if (g_rank == 0) {
        /* Serial reference on the whole mesh, same code and summation order. */
        node_t *par = bips3d_xmalloc(sizeof(node_t) * (size_t)m.n);
        int *fill = bips3d_xmalloc(sizeof(int) * (size_t)g_nranks);
        memcpy(fill, displs, sizeof(int) * (size_t)g_nranks);
        for (int i = 0; i < m.n; i++) par[i] = gathered[fill[part[i]]++];
        memset(part, 0, sizeof(int) * (size_t)m.n);
        subdomain ser = make_subdomain(&m, part, 0, 1);
        double ts = MPI_Wtime();
        for (int it = 1; it <= o.c.iters; it++) sweep(&ser);
        ts = MPI_Wtime() - ts;
        long diff = 0, first = -1;
        for (int i = 0; i < m.n; i++)
            if (!node_equal(&par[i], &ser.s[i])) diff++, first = first < 0 ? i : first;
        long zn = 0, zp = 0;
        for (int i = 0; i < m.n; i++) zn += par[i].n == 0, zp += par[i].p == 0;
        if (diff)
            snprintf(why, sizeof why, "%ld of %d nodes differ from the serial sweeps (first: node %ld)", diff, m.n,
                     first),
                ok = 0;
        if (!o.c.quiet)
            printf("serial check: %.2f s, %ld nodes differ; n=0 at %.0f%%, p=0 at %.0f%% of nodes\n", ts, diff,
                   100.0 * zn / m.n, 100.0 * zp / m.n);
        app_result(node_hash(par, m.n), "nodes=%d", m.n);
        free_subdomain(&ser);
        free(par), free(fill);
    }
    free(counts), free(displs), free(gathered), free(part);
    free_subdomain(&d);
    bips3d_mesh_free(&m);
    MPI_Type_free(&node_type);
    return app_end("bips3d", elapsed, sent, ok, why);
}
