/* SPDX-License-Identifier: BSD-3-Clause */
/* Node numberings for a mesh file (see mesh_order.h). MPI-free. */
#include "mesh_order.h"

#include <stdlib.h>

/* scipy's _node_degrees: the row length, plus one when the row holds its own node */
static int degree_of(const int *xadj, const int *adj, int i)
{
    int d = xadj[i + 1] - xadj[i];
    for (int e = xadj[i]; e < xadj[i + 1]; e++)
        if (adj[e] == i) return d + 1;
    return d;
}

static const int *g_key; /* qsort context: degrees (rcm) */
static int cmp_by_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_key[x] != g_key[y]) return g_key[x] < g_key[y] ? -1 : 1;
    return (x > y) - (x < y);
}

int compi_mesh_rcm(int n, const int *xadj, const int *adj, const int *roots, int *order)
{
    if (n < 0 || (n > 0 && (!xadj || !order || xadj[0] != 0))) return -1;
    if (n == 0) return 0;
    for (int i = 0; i < n; i++)
        if (xadj[i + 1] < xadj[i]) return -1;
    for (int e = 0; e < xadj[n]; e++)
        if (!adj || adj[e] < 0 || adj[e] >= n) return -1;
    int *deg = malloc(sizeof(int) * (size_t)n), *seen = calloc((size_t)n, sizeof(int));
    int *root = malloc(sizeof(int) * (size_t)n);
    if (!deg || !seen || !root) {
        free(deg), free(seen), free(root);
        return -1;
    }
    for (int i = 0; i < n; i++) deg[i] = degree_of(xadj, adj, i);
    int rc = 0;
    if (roots) {
        for (int i = 0; i < n && rc == 0; i++) {
            if (roots[i] < 0 || roots[i] >= n || seen[roots[i]]) rc = -1;
            else seen[roots[i]] = 1, root[i] = roots[i];
        }
        for (int i = 0; i < n; i++) seen[i] = 0;
    } else {
        for (int i = 0; i < n; i++) root[i] = i;
        g_key = deg;
        qsort(root, (size_t)n, sizeof(int), cmp_by_key);
    }
    int N = 0;
    for (int z = 0; z < n && rc == 0 && N < n; z++) {
        if (seen[root[z]]) continue;
        seen[root[z]] = 1;
        order[N++] = root[z];
        int lstart = N - 1, lend = N;
        while (lstart < lend) {
            for (int q = lstart; q < lend; q++) {
                int i = order[q], first = N;
                for (int e = xadj[i]; e < xadj[i + 1]; e++)
                    if (!seen[adj[e]]) seen[adj[e]] = 1, order[N++] = adj[e];
                /* stable insertion sort of the new nodes by ascending degree */
                for (int k = first + 1; k < N; k++) {
                    int v = order[k], l = k;
                    while (l > first && deg[v] < deg[order[l - 1]]) order[l] = order[l - 1], l--;
                    order[l] = v;
                }
            }
            lstart = lend, lend = N;
        }
    }
    for (int a = 0, b = n - 1; a < b && rc == 0; a++, b--) {
        int t = order[a];
        order[a] = order[b], order[b] = t;
    }
    free(deg), free(seen), free(root);
    return rc;
}

static const double *g_xyz;
static int g_axis;
static int cmp_by_coord(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double u = g_xyz[3 * (size_t)x + g_axis], v = g_xyz[3 * (size_t)y + g_axis];
    if (u != v) return u < v ? -1 : 1;
    return (x > y) - (x < y);
}

int compi_mesh_sweep(int n, const double *xyz, int axis, int *order)
{
    if (n < 0 || axis < 0 || axis > 2 || (n > 0 && (!xyz || !order))) return -1;
    for (int i = 0; i < n; i++) order[i] = i;
    g_xyz = xyz, g_axis = axis;
    qsort(order, (size_t)n, sizeof(int), cmp_by_coord);
    return 0;
}

long compi_mesh_bandwidth(int n, const int *xadj, const int *adj, const int *order)
{
    if (n < 0 || (n > 0 && !xadj)) return -1;
    int *pos = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!pos) return -1;
    for (int i = 0; i < n; i++) pos[i] = -1;
    for (int k = 0; k < n; k++) {
        int v = order ? order[k] : k;
        if (v < 0 || v >= n || pos[v] >= 0) {
            free(pos);
            return -1;
        }
        pos[v] = k;
    }
    long bw = 0;
    for (int i = 0; i < n; i++)
        for (int e = xadj[i]; e < xadj[i + 1]; e++) {
            if (adj[e] < 0 || adj[e] >= n) {
                free(pos);
                return -1;
            }
            long d = labs((long)pos[i] - pos[adj[e]]);
            if (d > bw) bw = d;
        }
    free(pos);
    return bw;
}
