/* SPDX-License-Identifier: BSD-3-Clause */
/* The bips3d mesh and its partition (see bips3d_mesh.h). Moved here from
 * apps/bips3d.c unchanged, so the mini-app, compi_iobench and
 * compi_io_placement build the same mesh. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>
#ifdef COMPI_HAVE_SCOTCH
#include <scotch.h>
#endif

#include "app_common.h"
#include "bips3d_mesh.h"
#include "mesh_order.h"

void *bips3d_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bips3d mesh: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* Mesh density: fine near the surface and under the gate edges, coarse deep
 * in the substrate; values in (0, 1]. */
static double density(double x, double y, double z)
{
    (void)y;
    double surf = exp(-(LZ - z) / 0.06);
    double ex = fmin(fabs(x - 0.3), fabs(x - 0.7));
    return (0.12 + 0.5 * surf + 0.38 * surf * exp(-ex * ex / 0.004));
}

/* Doping profile: p substrate, two n+ wells (source, drain) under the surface,
 * a p channel implant between them. Positive = donors. */
static double doping(double x, double z, int *cls)
{
    double depth = LZ - z;
    double gs = fmax(0, x - 0.25), gd = fmax(0, 0.75 - x);
    double src = exp(-(gs * gs) / 0.0009 - depth * depth / 0.006);
    double drn = exp(-(gd * gd) / 0.0009 - depth * depth / 0.006);
    double chan = 0.02 * exp(-depth * depth / 0.002);
    double sub = 1e-3;
    if (src > chan && src > sub && src >= drn) *cls = DOP_SOURCE;
    else if (drn > chan && drn > sub) *cls = DOP_DRAIN;
    else if (chan > sub) *cls = DOP_CHANNEL;
    else *cls = DOP_SUBSTRATE;
    return src + drn - chan - sub;
}

/* Seeded rejection sampling of the graded point cloud, then a counting sort by
 * grid cell (x fastest): the node numbering has spatial locality. */
static void make_points(bips3d_mesh *m, uint64_t seed, int g[3], double cell[3], int **cstart_out)
{
    const int n = m->n;
    app_rng r = app_rng_seed(seed);
    double *raw = bips3d_xmalloc(sizeof(double) * 3 * (size_t)n);
    for (int i = 0; i < n;) {
        double x = LX * app_rng_unif(&r), y = LY * app_rng_unif(&r), z = LZ * app_rng_unif(&r);
        if (app_rng_unif(&r) < density(x, y, z)) raw[3 * i] = x, raw[3 * i + 1] = y, raw[3 * i + 2] = z, i++;
    }
    /* About 3 points per cell on average. */
    double side = cbrt(LX * LY * LZ * 3.0 / n);
    const double L[3] = {LX, LY, LZ};
    for (int d = 0; d < 3; d++) {
        g[d] = (int)(L[d] / side);
        if (g[d] < 1) g[d] = 1;
        cell[d] = L[d] / g[d];
    }
    size_t ncell = (size_t)g[0] * g[1] * g[2];
    int *cid = bips3d_xmalloc(sizeof(int) * (size_t)n), *cstart = calloc(ncell + 1, sizeof(int));
    if (!cstart) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n; i++) {
        int c[3];
        for (int d = 0; d < 3; d++) {
            c[d] = (int)(raw[3 * i + d] / cell[d]);
            if (c[d] >= g[d]) c[d] = g[d] - 1;
        }
        cid[i] = c[0] + g[0] * (c[1] + g[1] * c[2]);
        cstart[cid[i] + 1]++;
    }
    for (size_t c = 0; c < ncell; c++) cstart[c + 1] += cstart[c];
    int *fill = bips3d_xmalloc(sizeof(int) * ncell);
    memcpy(fill, cstart, sizeof(int) * ncell);
    m->xyz = bips3d_xmalloc(sizeof(double) * 3 * (size_t)n);
    for (int i = 0; i < n; i++) memcpy(&m->xyz[3 * (size_t)fill[cid[i]]++], &raw[3 * i], 3 * sizeof(double));
    free(fill), free(cid), free(raw);
    *cstart_out = cstart;
}

static inline double dist2(const double *a, const double *b)
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/* k nearest neighbours of every point by searching grid shells outwards until
 * no unsearched cell can hold a closer point. nbr gets k ids per point. */
static void knn(const bips3d_mesh *m, int k, const int g[3], const double cell[3], const int *cstart, int *nbr)
{
    double hmin = fmin(cell[0], fmin(cell[1], cell[2]));
    int gmax = g[0] > g[1] ? g[0] : g[1];
    if (g[2] > gmax) gmax = g[2];
    double *bd = bips3d_xmalloc(sizeof(double) * (size_t)k);
    int *bi = bips3d_xmalloc(sizeof(int) * (size_t)k);
    for (int i = 0; i < m->n; i++) {
        const double *pi = &m->xyz[3 * (size_t)i];
        int c[3], have = 0;
        for (int d = 0; d < 3; d++) {
            c[d] = (int)(pi[d] / cell[d]);
            if (c[d] >= g[d]) c[d] = g[d] - 1;
        }
        for (int r = 0; r <= gmax; r++) {
            for (int cz = c[2] - r; cz <= c[2] + r; cz++)
                for (int cy = c[1] - r; cy <= c[1] + r; cy++)
                    for (int cx = c[0] - r; cx <= c[0] + r; cx++) {
                        if (cx < 0 || cy < 0 || cz < 0 || cx >= g[0] || cy >= g[1] || cz >= g[2]) continue;
                        int cheb = abs(cx - c[0]);
                        if (abs(cy - c[1]) > cheb) cheb = abs(cy - c[1]);
                        if (abs(cz - c[2]) > cheb) cheb = abs(cz - c[2]);
                        if (cheb != r) continue; /* inner shells are done */
                        int cc = cx + g[0] * (cy + g[1] * cz);
                        for (int j = cstart[cc]; j < cstart[cc + 1]; j++) {
                            if (j == i) continue;
                            double d2 = dist2(pi, &m->xyz[3 * (size_t)j]);
                            if (have == k && d2 >= bd[k - 1]) continue;
                            int q = have < k ? have++ : k - 1; /* insertion into the sorted best list */
                            while (q > 0 && bd[q - 1] > d2) bd[q] = bd[q - 1], bi[q] = bi[q - 1], q--;
                            bd[q] = d2, bi[q] = j;
                        }
                    }
            if (have == k && bd[k - 1] <= (r * hmin) * (r * hmin)) break;
        }
        memcpy(&nbr[(size_t)i * k], bi, sizeof(int) * (size_t)k);
    }
    free(bd), free(bi);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Symmetric CSR from the kNN lists: i~j if either lists the other. */
static void make_graph(bips3d_mesh *m, int k, const int *nbr)
{
    const int n = m->n;
    int *deg = calloc((size_t)n + 1, sizeof(int));
    if (!deg) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < k; t++) deg[i + 1]++, deg[nbr[(size_t)i * k + t] + 1]++;
    for (int i = 0; i < n; i++) deg[i + 1] += deg[i];
    int *tmp = bips3d_xmalloc(sizeof(int) * (size_t)deg[n]), *fill = bips3d_xmalloc(sizeof(int) * (size_t)n);
    memcpy(fill, deg, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < k; t++) {
            int j = nbr[(size_t)i * k + t];
            tmp[fill[i]++] = j, tmp[fill[j]++] = i;
        }
    m->xadj = bips3d_xmalloc(sizeof(int) * ((size_t)n + 1));
    m->adj = tmp; /* compacted in place: row i starts no later than before */
    int out = 0;
    for (int i = 0; i < n; i++) {
        int b = deg[i], e = deg[i + 1];
        qsort(tmp + b, (size_t)(e - b), sizeof(int), cmp_int);
        m->xadj[i] = out;
        for (int t = b; t < e; t++)
            if (t == b || tmp[t] != tmp[t - 1]) tmp[out++] = tmp[t];
    }
    m->xadj[n] = out;
    free(fill), free(deg);
}

/* Geometry and device data per node and edge. */
static void make_fields(bips3d_mesh *m)
{
    const int n = m->n;
    m->w = bips3d_xmalloc(sizeof(double) * (size_t)m->xadj[n]);
    m->h = bips3d_xmalloc(sizeof(double) * (size_t)n);
    m->dop = bips3d_xmalloc(sizeof(double) * (size_t)n);
    m->phi = bips3d_xmalloc(sizeof(double) * (size_t)n);
    m->dop_class = bips3d_xmalloc(sizeof(int) * (size_t)n);
    m->region = bips3d_xmalloc(sizeof(int) * (size_t)n);
    double tox = 0.035; /* gate oxide thickness, over 0.3 < x < 0.7 */
    for (int i = 0; i < n; i++) {
        const double *p = &m->xyz[3 * (size_t)i];
        int in_gate = p[0] > 0.3 && p[0] < 0.7;
        if (in_gate && p[2] > LZ - 0.004) m->region[i] = REG_GATE;
        else if (in_gate && p[2] > LZ - tox) m->region[i] = REG_OXIDE;
        else if (!in_gate && p[2] > LZ - 0.006 && (p[0] < 0.15 || p[0] > 0.85)) m->region[i] = REG_CONTACT;
        else m->region[i] = REG_SI;
        int cls;
        double c = doping(p[0], p[2], &cls);
        int si = m->region[i] == REG_SI || m->region[i] == REG_CONTACT;
        m->dop[i] = si ? c : 0;
        m->dop_class[i] = si ? cls : DOP_NONE;
        double s = (p[0] - 0.2) / 0.6; /* drain bias ramps up across the channel */
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        m->phi[i] = V_DRAIN * s * s * (3 - 2 * s);
    }
    for (int i = 0; i < n; i++) {
        double dsum = 0;
        for (int e = m->xadj[i]; e < m->xadj[i + 1]; e++) {
            int j = m->adj[e];
            double d = sqrt(dist2(&m->xyz[3 * (size_t)i], &m->xyz[3 * (size_t)j]));
            double ei = m->region[i] == REG_OXIDE ? EPS_OX : 1.0, ej = m->region[j] == REG_OXIDE ? EPS_OX : 1.0;
            /* face area ~ d^2 over length d, harmonic-mean permittivity */
            m->w[e] = 2 * ei * ej / (ei + ej) * d;
            dsum += d;
        }
        double s = dsum / (m->xadj[i + 1] - m->xadj[i]);
        m->h[i] = s * s * s / (LAMBDA * LAMBDA);
    }
}

bips3d_mesh bips3d_mesh_build(long nodes, int k, uint64_t seed)
{
    bips3d_mesh m;
    memset(&m, 0, sizeof m);
    m.n = (int)nodes;
    int g[3], *cstart;
    double cell[3];
    make_points(&m, seed, g, cell, &cstart);
    int *nbr = bips3d_xmalloc(sizeof(int) * (size_t)m.n * (size_t)k);
    knn(&m, k, g, cell, cstart, nbr);
    make_graph(&m, k, nbr);
    free(nbr), free(cstart);
    make_fields(&m);
    return m;
}

void bips3d_mesh_free(bips3d_mesh *m)
{
    free(m->xyz), free(m->xadj), free(m->adj), free(m->w), free(m->h);
    free(m->dop), free(m->phi), free(m->dop_class), free(m->region);
}

void bips3d_mesh_partition(const bips3d_mesh *m, int nparts, int use_scotch, int *part, long *cut)
{
    *cut = 0;
    if (nparts == 1) {
        memset(part, 0, sizeof(int) * (size_t)m->n);
        return;
    }
    if (!use_scotch) {
        idx_t nv = m->n, ncon = 1, np = nparts, objval = 0, opts[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opts);
        opts[METIS_OPTION_SEED] = 7; /* reproducible partitions */
        int rc = METIS_PartGraphKway(&nv, &ncon, (idx_t *)m->xadj, (idx_t *)m->adj, NULL, NULL, NULL, &np, NULL, NULL,
                                     opts, &objval, (idx_t *)part);
        if (rc != METIS_OK) {
            fprintf(stderr, "compi_bips3d: METIS_PartGraphKway failed (%d)\n", rc);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        *cut = objval;
        return;
    }
#ifdef COMPI_HAVE_SCOTCH
    SCOTCH_Graph g;
    SCOTCH_Strat st;
    if (SCOTCH_graphInit(&g) || SCOTCH_stratInit(&st) ||
        SCOTCH_graphBuild(&g, 0, m->n, m->xadj, NULL, NULL, NULL, m->xadj[m->n], m->adj, NULL) ||
        SCOTCH_graphPart(&g, nparts, &st, part)) {
        fprintf(stderr, "compi_bips3d: Scotch partitioning failed\n");
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    SCOTCH_stratExit(&st);
    SCOTCH_graphExit(&g);
    for (int i = 0; i < m->n; i++)
        for (int e = m->xadj[i]; e < m->xadj[i + 1]; e++) *cut += part[m->adj[e]] != part[i];
    *cut /= 2;
#endif
}

int bips3d_mesh_numbering(const bips3d_mesh *m, const char *name, int *order)
{
    if (!strcmp(name, "cells")) {
        for (int i = 0; i < m->n; i++) order[i] = i;
        return 0;
    }
    if (!strcmp(name, "rcm")) {
        if (compi_mesh_rcm(m->n, m->xadj, m->adj, NULL, order) != 0) {
            fprintf(stderr, "bips3d mesh: reverse Cuthill-McKee failed (out of memory)\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        return 0;
    }
    if (!strcmp(name, "xsweep")) return compi_mesh_sweep(m->n, m->xyz, 0, order);
    return -1;
}
