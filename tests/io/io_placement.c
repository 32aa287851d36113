/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_io_placement: redistribution bytes of two-phase collective writes
 * under the `default` and `la` aggregator placements, for the bips3d
 * mini-app's mesh (the same mesh builder and METIS partition,
 * apps/bips3d_mesh.h: every mesh node's `load` doubles are written at
 * node_id * load * 8, each rank its METIS part, i.e. an indexed file view)
 * and for a regular block distribution of the same nodes. MPI-free at run
 * time (no MPI call is made). One line per (np, ranks per node, layout):
 * bytes moved between processes and between nodes, default vs la (bytes
 * weighting, blocks weighting, and at most one aggregator per node).
 * Exits 1 if la ever moves more bytes than default.
 * usage: compi_io_placement [--scale F] [--load N] [--np LIST] [--rpn LIST] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bips3d_mesh.h"

#include "io/io.h"

static int violations;

static void run(const char *layout, const int *owner, int nnodes_mesh, int load, int np, int rpn)
{
    int64_t rec = (int64_t)load * 8;
    compi_io_segs *segs = bips3d_xmalloc(sizeof *segs * np);
    for (int p = 0; p < np; p++) compi_io_segs_init(&segs[p]);
    for (int i = 0; i < nnodes_mesh; i++) compi_io_segs_add(&segs[owner[i]], (int64_t)i * rec, rec);
    int *node_of = bips3d_xmalloc(sizeof(int) * np), *def = bips3d_xmalloc(sizeof(int) * np), *la = bips3d_xmalloc(sizeof(int) * np);
    for (int p = 0; p < np; p++) node_of[p] = p / rpn;
    int nd = compi_io_place_default(np, node_of, 0, def);
    int64_t start, end;
    compi_io_access_range(np, segs, &start, &end);
    compi_io_domains d;
    compi_io_domains_make(start, end, nd, 0, &d);
    double *bytes = bips3d_xmalloc(sizeof(double) * np * nd), *blocks = bips3d_xmalloc(sizeof(double) * np * nd);
    compi_io_domain_matrix(&d, np, segs, bytes, blocks);
    compi_io_volume vd, vb, vk, v1;
    compi_io_volume_of(np, nd, bytes, def, node_of, &vd);
    compi_io_place_la(np, nd, bytes, NULL, NULL, 0, la);
    compi_io_volume_of(np, nd, bytes, la, node_of, &vb);
    compi_io_place_la(np, nd, blocks, NULL, NULL, 0, la);
    compi_io_volume_of(np, nd, bytes, la, node_of, &vk);
    compi_io_place_la(np, nd, bytes, NULL, node_of, 1, la);
    compi_io_place_la_net(np, nd, bytes, node_of, def, la);   /* as compi's la does (bytes weight) */
    compi_io_volume_of(np, nd, bytes, la, node_of, &v1);
    /* issue 12's property: la never moves more than default (both la
     * variants can take default's placement, so it is a hard bound) */
    if (vb.moved > vd.moved || v1.moved > vd.moved) {
        printf("VIOLATION: la moves more than default (%lld / %lld > %lld)\n", (long long)vb.moved,
               (long long)v1.moved, (long long)vd.moved);
        violations++;
    }
    /* every rank an aggregator (cb_config_list "*:*"): np domains, default
     * gives domain k to rank k, la to whoever holds most of it */
    compi_io_domains da;
    compi_io_domains_make(start, end, np, 0, &da);
    double *ball = bips3d_xmalloc(sizeof(double) * np * np);
    int *id = bips3d_xmalloc(sizeof(int) * np), *laa = bips3d_xmalloc(sizeof(int) * np);
    for (int p = 0; p < np; p++) id[p] = p;
    compi_io_domain_matrix(&da, np, segs, ball, NULL);
    compi_io_volume ad, al;
    compi_io_volume_of(np, np, ball, id, node_of, &ad);
    compi_io_place_la(np, np, ball, NULL, NULL, 0, laa);
    compi_io_volume_of(np, np, ball, laa, node_of, &al);
    if (al.moved > ad.moved) { printf("VIOLATION: la (all ranks) moves more than default\n"); violations++; }
    double mb = 1.0 / (1 << 20);
    printf("%-7s %3d %3d %4d %9.2f | %8.2f %8.2f | %8.2f %8.2f %5.1f%% | %8.2f %8.2f | %8.2f %8.2f || %8.2f %8.2f %5.1f%%\n",
           layout, np, rpn, nd, vd.total * mb, vd.moved * mb, vd.internode * mb, vb.moved * mb, vb.internode * mb,
           vd.moved ? 100.0 * (double)(vd.moved - vb.moved) / (double)vd.moved : 0.0, vk.moved * mb,
           vk.internode * mb, v1.moved * mb, v1.internode * mb, ad.moved * mb, al.moved * mb,
           ad.moved ? 100.0 * (double)(ad.moved - al.moved) / (double)ad.moved : 0.0);
    compi_io_domains_free(&da);
    free(ball); free(id); free(laa);
    compi_io_domains_free(&d);
    for (int p = 0; p < np; p++) compi_io_segs_free(&segs[p]);
    free(segs); free(node_of); free(def); free(la); free(bytes); free(blocks);
}

static int parse_list(const char *s, int *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        v[n++] = atoi(s);
        while (*s && *s != ',') s++;
        if (*s == ',') s++;
    }
    return n;
}

int main(int argc, char **argv)
{
    double scale = 0.25;
    int load = 100, nps[16] = {4, 8, 16}, nnp = 3, rpns[8] = {2, 4}, nrpn = 2;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--scale")) scale = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "--load")) load = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--np")) nnp = parse_list(argv[a + 1], nps, 16);
        else if (!strcmp(argv[a], "--rpn")) nrpn = parse_list(argv[a + 1], rpns, 8);
        else { fprintf(stderr, "compi_io_placement: unknown option %s\n", argv[a]); return 2; }
    }
    if ((argc - 1) % 2) { fprintf(stderr, "usage: compi_io_placement [--scale F] [--load N] [--np LIST] [--rpn LIST]\n"); return 2; }
    long nodes = (long)(160000 * scale + 0.5);
    if (nodes < 64 || load < 1) { fprintf(stderr, "compi_io_placement: --scale %g or --load %d out of range\n", scale, load); return 2; }
    bips3d_mesh m = bips3d_mesh_build(nodes, 8, 2024);
    printf("bips3d mesh: %d nodes, load %d doubles per node; MiB moved in the redistribution phase\n", m.n, load);
    printf("%-7s %3s %3s %4s %9s | %-17s | %-24s | %-17s | %-17s || %-24s\n", "layout", "np", "rpn", "doms", "total",
           "default moved/inter", "la(bytes) moved/inter gain", "la(blocks) mv/int", "la 1/node mv/int",
           "np domains: default/la gain");
    int *part = bips3d_xmalloc(sizeof(int) * (size_t)m.n);
    for (int i = 0; i < nnp; i++) {
        long cut;
        bips3d_mesh_partition(&m, nps[i], 0, part, &cut);
        for (int j = 0; j < nrpn; j++)
            if (nps[i] % rpns[j] == 0 && nps[i] / rpns[j] >= 1) run("metis", part, m.n, load, nps[i], rpns[j]);
        for (int v = 0; v < m.n; v++) part[v] = (int)((int64_t)v * nps[i] / m.n);   /* regular block distribution */
        for (int j = 0; j < nrpn; j++)
            if (nps[i] % rpns[j] == 0) run("block", part, m.n, load, nps[i], rpns[j]);
    }
    free(part);
    bips3d_mesh_free(&m);
    return violations ? 1 : 0;
}
