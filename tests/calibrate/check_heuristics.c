/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks a heuristics file written by compi calibrate (tests/calibrate):
 *   check_heuristics codecs FILE
 *       loads; every class has candidates; every candidate has relations
 *   check_heuristics network FILE [--nodes N] [--no-intra] [--below BYTES]
 *       loads; an inter link for every pair of node0 .. node<N-1> (default
 *       N = 2), intra links for each (unless --no-intra), "* *" defaults for
 *       each class present; per link alpha > 0, >= 2 sizes, and the one-way
 *       time at the largest size S at least S / (1 TB/s), a bandwidth no
 *       copy reaches (catches a table in the wrong unit). The times are
 *       measurements: load only makes them longer, so only such lower
 *       bounds are checked. Whether the time grows from the small sizes to
 *       the largest is printed, not checked (a loaded machine can slow every
 *       small size down past a large one). With --below (a budget-bounded
 *       run): the largest size < BYTES instead of the size checks (a budget
 *       on a loaded machine may stop after a size or two; load only stops
 *       it earlier); every node's "node" line (hwloc) equal to this host's
 *       CPU topology as Linux's sysfs gives it
 * Prints "FAIL ..." and exits 1 on the first problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/model.h"

static int failed;

/* This host's packages, cores and processing units from
 * /sys/devices/system/cpu/cpu<N>/topology; -1 if unreadable. */
static int sysfs_topology(int out[3])
{
    int pkg[4096], core[4096], n = 0;
    for (int c = 0; c < 4096; c++) {
        char path[128];
        int p = -1, k = -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fscanf(f, "%d", &p) != 1) p = -1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        if (!(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%d", &k) != 1) k = -1;
        fclose(f);
        if (p < 0 || k < 0) continue;
        pkg[n] = p, core[n] = k, n++;
    }
    if (n == 0) return -1;
    int np = 0, nc = 0;
    for (int i = 0; i < n; i++) {
        int newp = 1, newc = 1;
        for (int j = 0; j < i; j++) {
            if (pkg[j] == pkg[i]) newp = 0;
            if (pkg[j] == pkg[i] && core[j] == core[i]) newc = 0;
        }
        np += newp, nc += newc;
    }
    out[0] = np, out[1] = nc, out[2] = n;
    return 0;
}

static void fail(const char *what, const char *detail)
{
    printf("FAIL %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    failed = 1;
}

static int check_codecs(const char *path)
{
    compi_codec_model m;
    char err[512];
    if (compi_codec_model_load(path, &m, err, sizeof err) != COMPI_OK) {
        fail("compi_codec_model_load", err);
        return 1;
    }
    printf("%s: source '%s', %d relations\n", path, m.source, m.nrelations);
    if (m.nrelations == 0) fail("no relation lines", NULL);
    for (int cls = 0; cls < COMPI_CLASS_COUNT; cls++) {
        printf("  %-6s", compi_dtclass_name(cls));
        if (m.ncandidates[cls] == 0) fail("no candidates for class", compi_dtclass_name(cls));
        for (int i = 0; i < m.ncandidates[cls]; i++) {
            const compi_codec *c = m.candidates[cls][i];
            int rel = 0;
            for (int r = 0; r < m.nrelations; r++)
                rel += m.relations[r].codec == c && (m.relations[r].dtclass == cls || m.relations[r].dtclass == -1);
            printf(" %s(%d relations)", c->name, rel);
            if (rel == 0) fail("candidate without relations", c->name);
            double d = compi_codec_model_d_over_c(&m, c, cls, 2.5);
            if (!(d > 0)) fail("d_over_c not positive", c->name);
        }
        printf("\n");
    }
    return failed;
}

static const compi_net_link *exact(const compi_net_model *m, compi_link_class cls, const char *a, const char *b)
{
    const compi_net_link *l = compi_net_find(m, cls, a, b);
    if (!l || strcmp(l->node_a, "*") == 0) return NULL;
    return l;
}

static int check_network(const char *path, int nodes, int intra, double below)
{
    compi_net_model m;
    char err[512];
    if (compi_net_load(path, &m, err, sizeof err) != COMPI_OK) {
        fail("compi_net_load", err);
        return 1;
    }
    printf("%s: source '%s', %d links\n", path, m.source, m.nlinks);
    char a[32], b[32], what[96];
    for (int i = 0; i < nodes; i++) {
        snprintf(a, sizeof a, "node%d", i);
        for (int j = i + 1; j < nodes; j++) {
            snprintf(b, sizeof b, "node%d", j);
            snprintf(what, sizeof what, "no inter link %s-%s", a, b);
            if (!exact(&m, COMPI_LINK_INTER, a, b)) fail(what, NULL);
        }
        snprintf(what, sizeof what, "no intra link for %s", a);
        if (intra && !exact(&m, COMPI_LINK_INTRA, a, a)) fail(what, NULL);
    }
    if (m.nlinks != nodes * (nodes - 1) / 2 + (intra ? nodes : 0) + 1 + intra) fail("unexpected number of links", NULL);
    int dflt[2] = {0, 0};
    for (int i = 0; i < m.nlinks; i++) {
        const compi_net_link *l = &m.links[i];
        char name[160];
        snprintf(name, sizeof name, "%s %s-%s", l->cls == COMPI_LINK_INTER ? "inter" : "intra", l->node_a, l->node_b);
        if (!strcmp(l->node_a, "*") && !strcmp(l->node_b, "*")) dflt[l->cls]++;
        double t0 = compi_net_time_us(l, l->bytes[0]), t1 = compi_net_time_us(l, l->bytes[l->npoints - 1]);
        double tmin_small = t0;
        for (int k = 1; k <= (l->npoints - 1) / 2; k++) {
            double t = compi_net_time_us(l, l->bytes[k]);
            if (t < tmin_small) tmin_small = t;
        }
        printf("  %-24s alpha %8.2f us, %2d sizes, %.0f B: %.2f us, %.0f B: %.2f us\n", name, l->alpha_us,
               l->npoints, l->bytes[0], t0, l->bytes[l->npoints - 1], t1);
        if (!(l->alpha_us > 0)) fail("alpha not positive", name);
        if (below > 0) {
            if (l->bytes[l->npoints - 1] >= below) fail("sizes did not stop below the limit", name);
        } else if (l->npoints < 2) {
            fail("fewer than 2 sizes", name);
        } else {
            if (!(t1 >= l->bytes[l->npoints - 1] * 1e-6)) fail("the largest size moved faster than 1 TB/s", name);
            if (!(t1 > tmin_small))
                printf("  note: %s: time at the largest size not above the smaller half's least (a timing: not checked)\n",
                       name);
        }
    }
    /* every node described (hwloc) as Linux's sysfs describes this host (the
     * fake nodes all live on it): packages = distinct physical_package_id,
     * cores = distinct (package, core_id), pus = online cpus with a topology */
    int sys[3];
    if (sysfs_topology(sys) == 0) {
        for (int k = 0; k < nodes; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "node%d", k);
            const compi_net_node *nd = compi_net_node_find(&m, nm);
            char det[200];
            snprintf(det, sizeof det, "%s: file %d/%d/%d, sysfs %d/%d/%d (packages/cores/pus)", nm, nd ? nd->packages : -1,
                     nd ? nd->cores : -1, nd ? nd->pus : -1, sys[0], sys[1], sys[2]);
            printf("  node %s\n", det);
            if (!nd || nd->packages != sys[0] || nd->cores != sys[1] || nd->pus != sys[2]) fail("node line", det);
        }
    } else {
        printf("  note: no sysfs CPU topology here: node lines not checked\n");
    }
    if (dflt[COMPI_LINK_INTER] != 1) fail("no (or several) inter * * default", NULL);
    if (dflt[COMPI_LINK_INTRA] != intra) fail("intra * * default missing or unexpected", NULL);
    compi_net_free(&m);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "codecs")) return check_codecs(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "network")) {
        int nodes = 2, intra = 1;
        double below = 0;
        for (int i = 3; i < argc; i++) {
            if (!strcmp(argv[i], "--below") && i + 1 < argc) below = atof(argv[++i]);
            else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = atoi(argv[++i]);
            else if (!strcmp(argv[i], "--no-intra")) intra = 0;
            else return fprintf(stderr, "check_heuristics: bad option '%s'\n", argv[i]), 2;
        }
        return check_network(argv[2], nodes, intra, below);
    }
    fprintf(stderr, "usage: check_heuristics codecs FILE | network FILE [--nodes N] [--no-intra] [--below BYTES]\n");
    return 2;
}
