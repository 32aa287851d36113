/* SPDX-License-Identifier: BSD-3-Clause */
/* Compares the DKB's prediction for collective calls with what Open MPI's
 * pml monitoring recorded (MPI-free; dkb_validate.sh runs dkb_probe under
 * mpirun first).
 *
 *   dkb_check --prof PREFIX --size N [--mpi openmpi|mpich] [--pin COLL=ALG[/SEGSIZE]]... CALL...
 *   dkb_check --prof PREFIX --size N --graph FILE [--base PREFIX2]
 * The second form compares instead the graph `compi map --graph-out` wrote
 * (lines "src dst messages bytes") from the traces of a whole program,
 * after subtracting from the monitoring's counts those of PREFIX2 (a run
 * that only creates the program's communicators: their creation's traffic
 * is not in a trace); --graph-base FILE2 subtracts another graph (the same
 * program with fewer calls: what differs is the calls' own traffic, while
 * compi's one-off set-up, e.g. its node-aware layout, cancels out).
 * CALL as dkb_probe's (COLL:COUNT:TYPE_SIZE:ROOT), the same list in the
 * same order; --pin mirrors --mca coll_tuned_<COLL>_algorithm ALG
 * (coll_tuned_<COLL>_algorithm_segmentsize SEGSIZE); unpinned collectives
 * take the DKB's fixed decision. --mpi mpich: ALG is the value of
 * MPIR_CVAR_<COLL>_INTRA_ALGORITHM, every call's collective must be pinned
 * (the DKB has no MPICH default selection yet), and PREFIX.<rank>.prof
 * come from ucx_count_shim. The predictions of all calls are summed.
 * Reads PREFIX.<rank>.prof for every rank: the "I" (internal: sent inside
 * collectives) and "E" (external) lines, summed per (src, dst): the probe
 * makes no point-to-point call of its own, and Open MPI's persistent
 * requests (alltoall linear) are reported as external. Exit 0 when messages and bytes
 * agree for every rank pair, 1 when they differ (each difference printed),
 * 2 on bad input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map/map.h"
#include "probe_counts.h"

typedef struct {
    uint64_t msgs, bytes;
} cell;

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "dkb_check: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(2);
}

static long num(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || end == v) {
        fprintf(stderr, "dkb_check: %s: not a number: '%s'\n", opt, v);
        exit(2);
    }
    return x;
}

typedef struct {
    int alg;
    long segsize;
} pin_t;

int main(int argc, char **argv)
{
    const char *prof = NULL;
    long size = -1;
    int mpich = 0;
    const char *graph = NULL, *base = NULL, *graph_base = NULL;
    pin_t pins[COMPI_MAP_NCOLLS] = {{0, 0}};
    const char *calls[4096];
    int ncalls = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--prof") || !strcmp(o, "--size") || !strcmp(o, "--pin") || !strcmp(o, "--mpi") ||
            !strcmp(o, "--graph") || !strcmp(o, "--base") || !strcmp(o, "--graph-base")) {
            if (i + 1 >= argc) die("option %s needs a value", o);
            const char *v = argv[++i];
            if (!strcmp(o, "--prof")) prof = v;
            else if (!strcmp(o, "--graph")) graph = v;
            else if (!strcmp(o, "--graph-base")) graph_base = v;
            else if (!strcmp(o, "--base")) base = v;
            else if (!strcmp(o, "--size")) size = num(o, v);
            else if (!strcmp(o, "--mpi")) {
                if (strcmp(v, "openmpi") && strcmp(v, "mpich")) die("--mpi: '%s' is neither openmpi nor mpich", v);
                mpich = !strcmp(v, "mpich");
            } else {
                char name[64], aname[128];
                long alg = 0, seg = 0;
                int k = sscanf(v, "%63[a-z_]=%127[a-z_0-9]/%ld", name, aname, &seg);
                int c = k >= 2 ? compi_map_coll_parse(name) : -1;
                if (c < 0) die("bad --pin (COLL=ALG[/SEGSIZE]): '%s'", v);
                if (mpich) alg = compi_map_mpich40_alg_parse(c, aname);
                else {
                    char *end;
                    alg = strtol(aname, &end, 10);
                    if (*end) alg = -1;
                }
                if (alg < 1) die("--pin: unknown algorithm in '%s' (--mpi before --pin for MPICH names)", v);
                pins[c].alg = (int)alg;
                pins[c].segsize = seg;
            }
        } else if (o[0] == '-') {
            die("unknown option %s", o);
        } else if (ncalls < 4096) {
            calls[ncalls++] = o;
        } else {
            die("%s", "too many calls");
        }
    }
    if (!prof || size < 1 || (ncalls == 0 && !graph)) die("%s", "usage: dkb_check --prof PREFIX --size N [--pin COLL=ALG[/SEG]]... CALL...");

    int64_t *counts = calloc((size_t)size * size, sizeof *counts);
    cell *seen = calloc((size_t)size * size, sizeof *seen), *want = calloc((size_t)size * size, sizeof *want);
    if (!counts || !seen || !want) die("%s", "out of memory");
    uint64_t tm = 0, tb = 0;
    static char algs[1 << 18];
    for (int k = 0; k < ncalls; k++) {
        char name[64];
        long count, ts, root;
        if (sscanf(calls[k], "%63[a-z_]:%ld:%ld:%ld", name, &count, &ts, &root) != 4)
            die("bad call (COLL:COUNT:TYPE_SIZE:ROOT): '%s'", calls[k]);
        int c = compi_map_coll_parse(name);
        if (c < 0) die("unknown collective in '%s'", calls[k]);
        if (c == COMPI_MAP_ALLTOALLV)
            for (long i = 0; i < size * size; i++) counts[i] = probe_a2av_count((int)(i / size), (int)(i % size), count);
        else
            for (long i = 0; i < size; i++) counts[i] = probe_rs_count((int)i, count);
        compi_map_call call = {.coll = c, .size = (int)size, .root = (int)root, .count = count, .counts = counts,
                               .type_size = (size_t)ts, .commutative = 1};
        compi_map_alg a;
        int rc;
        if (mpich) {
            if (!pins[c].alg) die("%s: the DKB has no MPICH default selection: pin the collective", calls[k]);
            a.alg = pins[c].alg;
        } else {
            rc = pins[c].alg ? compi_map_ompi41_pinned(c, pins[c].alg, &a) : compi_map_ompi41_decide(&call, &a);
            if (rc) die("DKB: %s", compi_map_strerror(rc));
            if (pins[c].alg) a.segsize = (uint32_t)pins[c].segsize;
        }
        compi_map_msgs m = {0};
        rc = mpich ? compi_map_mpich40_messages(&call, a.alg, &m) : compi_map_ompi41_messages(&call, &a, &m);
        if (rc) {
            fprintf(stderr, "dkb_check: %s: DKB: %s\n", calls[k], compi_map_strerror(rc));
            exit(2);
        }
        for (size_t i = 0; i < m.n; i++) {
            cell *w = &want[(size_t)m.v[i].src * size + m.v[i].dst];
            w->msgs++;
            w->bytes += m.v[i].bytes;
            tm++;
            tb += m.v[i].bytes;
        }
        compi_map_msgs_free(&m);
        size_t l = strlen(algs);
        snprintf(algs + l, sizeof algs - l, "%s%s=%d%s", k ? " " : "", calls[k], a.alg, pins[c].alg ? "p" : "f");
    }

    for (int gp = 0; graph && gp < (graph_base ? 2 : 1); gp++) {
        const char *gf = gp ? graph_base : graph;
        uint64_t gs = gp ? (uint64_t)-1 : 1;
        FILE *f = fopen(gf, "r");
        if (!f) die("cannot open %s", gf);
        char line[512];
        while (fgets(line, sizeof line, f)) {
            long src, dst;
            unsigned long long msgs, bytes;
            if (line[0] == '#') continue;
            if (sscanf(line, "%ld %ld %llu %llu", &src, &dst, &msgs, &bytes) != 4 || src < 0 || src >= size ||
                dst < 0 || dst >= size)
                die("bad graph line: %s", line);
            want[(size_t)src * size + dst].msgs += gs * msgs;
            want[(size_t)src * size + dst].bytes += gs * bytes;
            tm += gs * msgs;
            tb += gs * bytes;
        }
        fclose(f);
        snprintf(algs, sizeof algs, "graph %s%s%s", graph, graph_base ? " - " : "", graph_base ? graph_base : "");
    }

    for (int pass = 0; pass < (base ? 2 : 1); pass++) {
    const char *pre = pass ? base : prof;
    long sign = pass ? -1 : 1;
    for (long r = 0; r < size; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%ld.prof", pre, r);
        FILE *f = fopen(path, "r");
        if (!f) die("cannot open %s", path);
        char line[8192];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            if (line[0] != 'I' && line[0] != 'E') continue;
            if (line[1] != '\t') continue;
            long src, dst;
            unsigned long long bytes, msgs;
            if (sscanf(line + 2, "%ld\t%ld\t%llu bytes\t%llu msgs", &src, &dst, &bytes, &msgs) != 4 || src != r ||
                dst < 0 || dst >= size) {
                fprintf(stderr, "dkb_check: %s:%d: unexpected line: %s", path, lineno, line);
                exit(2);
            }
            seen[(size_t)src * size + dst].msgs += (uint64_t)sign * msgs;
            seen[(size_t)src * size + dst].bytes += (uint64_t)sign * bytes;
        }
        fclose(f);
    }

    }

    int bad = 0;
    for (long s = 0; s < size; s++)
        for (long d = 0; d < size; d++) {
            cell *x = &seen[s * size + d], *w = &want[s * size + d];
            if (x->msgs != w->msgs || x->bytes != w->bytes) {
                if (bad < 20)
                    printf("  %ld->%ld: monitoring %" PRIu64 " msgs %" PRIu64 " bytes, DKB %" PRIu64 " msgs %" PRIu64
                           " bytes\n", s, d, x->msgs, x->bytes, w->msgs, w->bytes);
                bad++;
            }
        }
    printf("%s size=%ld [%s]: %" PRIu64 " msgs %" PRIu64 " bytes predicted, %d pairs differ\n",
           bad ? "MISMATCH" : "match", size, algs, tm, tb, bad);
    free(counts);
    free(seen);
    free(want);
    return bad ? 1 : 0;
}
