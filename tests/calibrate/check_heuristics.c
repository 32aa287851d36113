/* Checks a heuristics file written by compi calibrate (tests/calibrate):
 *   check_heuristics codecs FILE
 *       loads; every class has candidates; every candidate has relations
 *   check_heuristics network FILE [--below BYTES]
 *       loads; inter node0-node1, intra node0 and node1, "* *" defaults for
 *       both classes; per link alpha > 0, >= 2 sizes, one-way time at the
 *       largest size above the least time of the smaller half of the sizes
 *       (robust to a noisy small size on a loaded machine). With --below (a budget-bounded
 *       run): the largest size < BYTES instead of the size checks (a budget
 *       on a loaded machine may stop after a size or two, in the noise)
 * Prints "FAIL ..." and exits 1 on the first problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/model.h"

static int failed;

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

static int check_network(const char *path, double below)
{
    compi_net_model m;
    char err[512];
    if (compi_net_load(path, &m, err, sizeof err) != COMPI_OK) {
        fail("compi_net_load", err);
        return 1;
    }
    printf("%s: source '%s', %d links\n", path, m.source, m.nlinks);
    if (!exact(&m, COMPI_LINK_INTER, "node0", "node1")) fail("no inter link node0-node1", NULL);
    if (!exact(&m, COMPI_LINK_INTRA, "node0", "node0")) fail("no intra link for node0", NULL);
    if (!exact(&m, COMPI_LINK_INTRA, "node1", "node1")) fail("no intra link for node1", NULL);
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
        } else if (!(t1 > tmin_small)) {
            fail("time does not grow with size", name);
        }
    }
    if (dflt[COMPI_LINK_INTER] != 1) fail("no (or several) inter * * default", NULL);
    if (dflt[COMPI_LINK_INTRA] != 1) fail("no (or several) intra * * default", NULL);
    compi_net_free(&m);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "codecs")) return check_codecs(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "network")) {
        double below = argc >= 5 && !strcmp(argv[3], "--below") ? atof(argv[4]) : 0;
        return check_network(argv[2], below);
    }
    fprintf(stderr, "usage: check_heuristics codecs FILE | network FILE [--below BYTES]\n");
    return 2;
}
