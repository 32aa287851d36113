/* SPDX-License-Identifier: BSD-3-Clause */
/* Driver for tests/io/check_mesh_rcm_scipy.py (apps/mesh_order.h against
 * scipy.sparse.csgraph.reverse_cuthill_mckee). MPI-free at run time.
 *   mesh_order_driver rcm    stdin: "n nnz", n+1 xadj, nnz adj, then "roots"
 *                            and n ids, or "noroots"; prints the order
 *   mesh_order_driver mesh NODES   the bips3d mesh's CSR (n nnz, xadj, adj) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bips3d_mesh.h"
#include "mesh_order.h"

static int *read_ints(int n)
{
    int *v = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; v && i < n; i++)
        if (scanf("%d", &v[i]) != 1) {
            free(v);
            return NULL;
        }
    return v;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "mesh")) {
        bips3d_mesh m = bips3d_mesh_build(atol(argv[2]), 8, 2024);
        printf("%d %d\n", m.n, m.xadj[m.n]);
        for (int i = 0; i <= m.n; i++) printf("%d\n", m.xadj[i]);
        for (int e = 0; e < m.xadj[m.n]; e++) printf("%d\n", m.adj[e]);
        bips3d_mesh_free(&m);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "rcm")) {
        fprintf(stderr, "usage: mesh_order_driver rcm < graph | mesh NODES\n");
        return 2;
    }
    int n, nnz;
    char word[16];
    if (scanf("%d %d", &n, &nnz) != 2 || n < 0 || nnz < 0) return 2;
    int *xadj = read_ints(n + 1), *adj = read_ints(nnz), *roots = NULL;
    if (!xadj || !adj || scanf("%15s", word) != 1) return 2;
    if (!strcmp(word, "roots") && !(roots = read_ints(n))) return 2;
    int *order = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!order) return 2;
    if (compi_mesh_rcm(n, xadj, adj, roots, order) != 0) {
        printf("error\n");
        return 1;
    }
    for (int i = 0; i < n; i++) printf("%d\n", order[i]);
    printf("bandwidth %ld\n", compi_mesh_bandwidth(n, xadj, adj, order));
    free(xadj), free(adj), free(roots), free(order);
    return 0;
}
