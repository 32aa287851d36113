/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: traces -> communication graph -> placement (lib/map/place.h).
 *
 *   compi_map TRACE_DIR --hosts H1:S1,H2:S2,... -o OUT [--network FILE]
 *             [--seed N] [--min-gain F] [--graph-out FILE] [-v]
 *   compi_map TRACE_DIR --graph-out FILE          (the graph only)
 * --graph-out: the graph as "src dst messages bytes" lines, with the
 * collectives that ran compi's node-aware algorithm decomposed as the
 * traced run placed its ranks (each trace's node name).
 *
 * Reads TRACE_DIR/trace.<rank>.bin of every rank (COMPI_MODE=trace or
 * profile), builds the communication graph (point-to-point as traced,
 * collectives decomposed by the DKB for the algorithms the trace records),
 * the network from --hosts and `compi calibrate network`'s file (default:
 * the built-in model), runs every mapper, prints each one's predicted cost
 * and keeps the cheapest, unless it beats a simpler one (block, then
 * cyclic...) by no more than --min-gain (2 %: below what the model can
 * tell, see docs/map.md); when block or cyclic is within --min-gain of the
 * kept one and its most loaded inter-node link (bottleneck) carries more
 * than --min-gain less, it is kept instead (the tie rule). OUT/ gets:
 *   placement.txt  what was decided (format in docs/map.md)
 *   rankfile       Open MPI: rank i=host slot=k
 *   machinefile    one host per line in rank order (MPICH -f; Open MPI
 *                  --mca rmaps seq --hostfile)
 *   env            variables the placed run must set (MPICH: the algorithm
 *                  pins the traced run had), one NAME=VALUE per line
 * Exit 0; 1 on bad or inconsistent traces (the message names the file and
 * the problem); 2 on bad arguments. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/safefile.h"
#include "engine/commprof.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "map/place.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: compi map TRACE_DIR --hosts H1:SLOTS,H2:SLOTS,... -o OUT [--network network.txt]\n"
               "                 [--seed N] [--min-gain F] [--graph-out FILE] [--rules DIR] [-v]\n"
               "  --rules DIR   compi guide's rules of the same traces (a COMPI_MODE=trace run): compi's\n"
               "                own collectives' frames are priced compressed as the rules say, per pair\n"
               "  --min-gain F  a mapper replaces the one kept before it (block, cyclic, random, swap,\n"
               "                scotch in that order) only when its predicted cost is lower by more\n"
               "                than the fraction F (default 0.02): the model prices traffic only, and\n"
               "                smaller differences were not measurable (docs/map.md); block or\n"
               "                cyclic within F of the kept one whose most loaded link carries more\n"
               "                than F less is kept instead\n"
               "       compi map TRACE_DIR --graph-out FILE\n");
}

static int fail(const char *msg)
{
    fprintf(stderr, "compi map: %s\n", msg);
    return 1;
}

/* The graph as "src dst messages bytes" lines; compi's node-aware
 * collectives are placed as the traced run placed its ranks (node_of). */
static int write_graph(const char *file, compi_map_graph *g, const int *node_of)
{
    int n = g->n;
    if (g->nna && compi_map_graph_materialize(g, node_of) != 0) {
        fprintf(stderr, "compi map: %s: the node-aware collectives could not be decomposed\n", file);
        return 1;
    }
    compi_wfile w;
    char err[4400];
    if (compi_file_create(&w, file, 0666, COMPI_FILE_REPLACE, err, sizeof err) != COMPI_OK) {
        fprintf(stderr, "compi map: %s\n", err);
        return 1;
    }
    FILE *f = w.f;
    fprintf(f, "# src dst messages bytes (world ranks)\n");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            size_t e = (size_t)i * n + j;
            if (g->msgs[e] || g->bytes[e]) fprintf(f, "%d %d %.0f %.0f\n", i, j, g->msgs[e], g->bytes[e]);
        }
    if (compi_file_commit(&w, err, sizeof err) != COMPI_OK) {
        fprintf(stderr, "compi map: %s\n", err);
        return 1;
    }
    return 0;
}

/* compi guide's rules of rank r (RULES_DIR/rules.<r>.txt, if there): the
 * compression of compi's collective frames from r to each world rank, as
 * raw bytes / compressed bytes over its inter-node rules of the collective
 * families (COMPI_TRACE_FAM_COLL_FIRST .. _LAST, engine/trace.h), each
 * at its best candidate's ratio (max_ratio; else ratio; an incompressible
 * one counts as 1), into raw[dst] and packed[dst]. The rule's comm and
 * peer are mapped to a world rank through r's profile. Returns the rules
 * used, -1 if the file is unreadable. */
static int read_rules(const char *dir, int r, const compi_commprof *p, double *raw, double *packed)
{
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/rules.%d.txt", dir, r);
    char err[4400];
    FILE *f = compi_file_open_read(path, NULL, err, sizeof err);
    if (!f) return -1;
    int used = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "rule ", 5) != 0) continue;
        char codec[64];
        unsigned long long size = 0, count = 0;
        int peer = -1;
        unsigned comm = 0, fam = 0;
        double ratio = 0;
        const char *q;
        if (sscanf(line, "rule %*s %63s", codec) != 1 || !strstr(line, " link=inter")) continue;
        if (!(q = strstr(line, " size=")) || sscanf(q, " size=%llu", &size) != 1) continue;
        if (!(q = strstr(line, " peer=")) || sscanf(q, " peer=%d", &peer) != 1) continue;
        if (!(q = strstr(line, " comm=")) || sscanf(q, " comm=%u", &comm) != 1) continue;
        if (!(q = strstr(line, " family=")) || sscanf(q, " family=%u", &fam) != 1 || fam < COMPI_TRACE_FAM_COLL_FIRST ||
            fam > COMPI_TRACE_FAM_COLL_LAST)
            continue;
        if (!(q = strstr(line, " count=")) || sscanf(q, " count=%llu", &count) != 1) continue;
        /* the best candidate's ratio when the guide gives it: the codec chosen
         * for the traced link (fast codecs on fast links) need not be the one
         * a slower link gets in another placement, and the slow links are the
         * ones that cost */
        double best = 0;
        if ((q = strstr(line, " ratio="))) sscanf(q, " ratio=%lf", &ratio);
        if ((q = strstr(line, " max_ratio=")) && sscanf(q, " max_ratio=%lf", &best) == 1 && best > ratio) ratio = best;
        if (!(ratio > 1)) ratio = 1;
        if (comm >= p->nbyid || !p->byid[comm] || peer < 0 || peer >= p->byid[comm]->size) continue;
        int dst = p->byid[comm]->world[peer];
        double b = (double)size * (double)count;
        raw[dst] += b;
        packed[dst] += b / ratio;
        used++;
    }
    fclose(f);
    return used;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* the command line */
typedef struct {
    const char *dir, *hosts, *out, *netfile, *graph_out, *rules;
    unsigned long long seed;
    double min_gain;
    int verbose;
} map_opts;

/* -1 to go on, else the exit code */
static int parse_args(int argc, char **argv, map_opts *o)
{
    *o = (map_opts){.seed = 1, .min_gain = 0.02};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-v")) {
            o->verbose++;
            continue;
        }
        if (i + 1 >= argc && a[0] == '-') {
            fprintf(stderr, "compi map: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--hosts")) o->hosts = argv[++i];
        else if (!strcmp(a, "-o")) o->out = argv[++i];
        else if (!strcmp(a, "--network")) o->netfile = argv[++i];
        else if (!strcmp(a, "--graph-out")) o->graph_out = argv[++i];
        else if (!strcmp(a, "--rules")) o->rules = argv[++i];
        else if (!strcmp(a, "--min-gain")) {
            char *end;
            o->min_gain = strtod(argv[++i], &end);
            if (*end || !(o->min_gain >= 0 && o->min_gain < 1)) {
                fprintf(stderr, "compi map: --min-gain: not a fraction in [0, 1): '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            char *end;
            o->seed = strtoull(argv[++i], &end, 10);
            if (*end) {
                fprintf(stderr, "compi map: --seed: not a number: '%s'\n", argv[i]);
                return 2;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "compi map: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o->dir) o->dir = a;
        else {
            fprintf(stderr, "compi map: more than one trace directory ('%s', '%s')\n", o->dir, a);
            return 2;
        }
    }
    if (!o->dir || (!o->hosts && !o->graph_out) || (o->hosts && !o->out)) {
        usage(stderr);
        return 2;
    }
    return -1;
}

/* what the traces of one run give */
typedef struct {
    int n;
    char program[COMPI_TRACE_PROGRAM_MAX];
    compi_map_algs algs;
    char *algtext; /* rank 0's ALGS text (NULL: none) */
    compi_map_graph g;
    int *traced; /* the traced run's placement: rank -> index of its node's name */
    char (*tnames)[COMPI_TRACE_NODE_MAX];
    int ntnodes;
    double *fraw, *fpacked; /* --rules: raw and compressed bytes of compi's frames, n x n */
    int nrules;
} map_run;

/* Rank 0's trace: the run's size, program and algorithms; and no trace
 * beyond its ranks. 0, else 1 with the message printed. */
static int open_run(const char *dir, map_run *run)
{
    char path[4200], err[1024], msg[8192];
    compi_trace_path(path, sizeof path, dir, 0);
    if (!file_exists(path)) {
        snprintf(msg, sizeof msg, "%s: no trace of rank 0 (run with COMPI_MODE=profile or trace and COMPI_TRACE=%s)",
                 path, dir);
        return fail(msg);
    }
    compi_trace *t0 = compi_trace_load(path, err, sizeof err);
    if (!t0) return fail(err);
    run->n = t0->world_size;
    snprintf(run->program, sizeof run->program, "%s", t0->program);
    if (compi_map_algs_parse(t0->algorithms, &run->algs, err, sizeof err) != 0) {
        snprintf(msg, sizeof msg, "%s: %s", path, err);
        compi_trace_free(t0);
        return fail(msg);
    }
    run->algtext = t0->algorithms ? strdup(t0->algorithms) : NULL;
    compi_trace_free(t0);
    compi_trace_path(path, sizeof path, dir, run->n);
    if (file_exists(path)) {
        snprintf(msg, sizeof msg,
                 "%s exists, but trace.0.bin is from a run of %d ranks: traces of different runs "
                 "in one directory?",
                 path, run->n);
        return fail(msg);
    }
    return 0;
}

/* Rank r's trace: checked against rank 0's, its node, its profile added to
 * the graph, its rules read (--rules). 0, else 1 with the message printed. */
static int add_rank(const map_opts *o, map_run *run, int r)
{
    char path[4200], err[1024], msg[8192];
    int n = run->n;
    compi_trace_path(path, sizeof path, o->dir, r);
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    if (!t) {
        if (!file_exists(path))
            snprintf(msg, sizeof msg,
                     "%s: missing: the run had %d ranks (trace.0.bin says so), so every rank "
                     "0..%d needs its trace",
                     path, n, n - 1);
        else snprintf(msg, sizeof msg, "%s", err);
        return fail(msg);
    }
    if (t->world_size != n || t->rank != r || strcmp(t->program, run->program) != 0) {
        snprintf(msg, sizeof msg,
                 "%s: rank %d of %d ranks of '%s', but trace.0.bin is of %d ranks of '%s': "
                 "traces of different runs in one directory?",
                 path, t->rank, t->world_size, t->program, n, run->program);
        return fail(msg);
    }
    if (!t->profile) {
        snprintf(msg, sizeof msg,
                 "%s: holds no communication profile (written by a compi older than "
                 "trace format 2?)",
                 path);
        return fail(msg);
    }
    if ((run->algtext || t->algorithms) &&
        (!run->algtext || !t->algorithms || strcmp(run->algtext, t->algorithms) != 0))
        fprintf(stderr, "compi map: warning: %s: the collective algorithms differ from rank 0's; using rank 0's\n",
                path);
    int x = 0;
    while (x < run->ntnodes && strcmp(run->tnames[x], t->my_node) != 0) x++;
    if (x == run->ntnodes) snprintf(run->tnames[run->ntnodes++], COMPI_TRACE_NODE_MAX, "%s", t->my_node);
    run->traced[r] = x;
    compi_commprof *p = compi_commprof_load(t->profile, t->profile_len, err, sizeof err);
    if (!p) {
        snprintf(msg, sizeof msg, "%s: corrupt: %s", path, err);
        return fail(msg);
    }
    if (p->world_rank != r || p->world_size != n) {
        snprintf(msg, sizeof msg, "%s: corrupt: the profile is of rank %d of %d", path, p->world_rank, p->world_size);
        return fail(msg);
    }
    if (o->rules) {
        int k = read_rules(o->rules, r, p, run->fraw + (size_t)r * n, run->fpacked + (size_t)r * n);
        if (k < 0) {
            snprintf(msg, sizeof msg, "--rules %s: no rules.%d.txt (compi guide TRACE_DIR -o %s writes one per rank)",
                     o->rules, r, o->rules);
            return fail(msg);
        }
        run->nrules += k;
    }
    if (compi_map_graph_add(&run->g, p, &run->algs, err, sizeof err) != 0) {
        snprintf(msg, sizeof msg, "%s: %s", path, err);
        return fail(msg);
    }
    compi_commprof_free(p);
    compi_trace_free(t);
    return 0;
}

/* Every rank's trace into the communication graph. 0, else 1 with the
 * message printed. */
static int load_run(const map_opts *o, map_run *run)
{
    int rc = open_run(o->dir, run);
    if (rc) return rc;
    int n = run->n;
    if (compi_map_graph_init(&run->g, n) != 0) return fail("out of memory for the communication graph");
    /* compi guide's rules: compi's frames compressed per pair (--rules) */
    if (o->rules && (!(run->fraw = calloc((size_t)n * n, sizeof *run->fraw)) ||
                     !(run->fpacked = calloc((size_t)n * n, sizeof *run->fpacked))))
        return fail("out of memory");
    run->traced = malloc(sizeof(int) * (size_t)n);
    run->tnames = malloc(sizeof *run->tnames * (size_t)n);
    if (!run->traced || !run->tnames) return fail("out of memory");
    for (int r = 0; r < n; r++)
        if ((rc = add_rank(o, run, r)) != 0) return rc;
    return 0;
}

/* What the graph holds, the stand-ins, the rules' ratios (set in the graph
 * here), compi's node-aware calls. 0, else 1 with the message printed. */
static int report_graph(const map_opts *o, map_run *run)
{
    compi_map_graph *g = &run->g;
    int n = run->n;
    double tm = 0, tb = 0;
    for (size_t e = 0; e < (size_t)n * n; e++) {
        tm += g->msgs[e];
        tb += g->bytes[e];
    }
    printf("compi map: %d ranks of '%s', %s: %.0f messages, %.0f bytes in the graph\n", n, run->program,
           run->algs.mpich     ? "MPICH (pinned algorithms)"
           : run->algs.dynamic ? "Open MPI (pinned coll/tuned algorithms)"
                               : "Open MPI (coll/tuned fixed rules)",
           tm, tb);
    for (int f = 0; f < COMPI_PROF_NFAM; f++)
        if (g->approximated[f])
            printf("compi map: note: %llu %s call(s) decomposed by a stand-in, not by the DKB (see docs/map.md)\n",
                   (unsigned long long)g->approximated[f], compi_prof_family_name(f));
    if (o->rules) {
        double *fraw = run->fraw, *fpacked = run->fpacked;
        for (size_t e = 0; e < (size_t)n * n; e++) fraw[e] = fpacked[e] > 0 ? fraw[e] / fpacked[e] : 0;
        if (compi_map_graph_set_frame_ratio(g, fraw) != 0) return fail("out of memory");
        printf("compi map: compi's frames compressed as %d inter-node collective rule(s) of %s say\n", run->nrules,
               o->rules);
        free(run->fraw);
        free(run->fpacked);
        run->fraw = run->fpacked = NULL;
    }
    uint64_t na_calls = 0;
    for (int f = 0; f < COMPI_PROF_NFAM; f++) na_calls += g->node_aware[f];
    if (na_calls) {
        printf("compi map: %llu collective call(s) ran compi's node-aware algorithm (", (unsigned long long)na_calls);
        for (int f = 0, first = 1; f < COMPI_PROF_NFAM; f++)
            if (g->node_aware[f]) {
                printf("%s%s %llu", first ? "" : ", ", compi_prof_family_name(f), (unsigned long long)g->node_aware[f]);
                first = 0;
            }
        printf("): not in the count above, decomposed under each placement (%d traced node(s))\n", run->ntnodes);
    }
    return 0;
}

/* The network of --hosts and --network, printed. 0, else the exit code with
 * the message printed. */
static int build_net(const map_opts *o, int n, compi_net_model *model, compi_net_model **mp, compi_map_net *net)
{
    char err[1024], msg[8192];
    *mp = NULL;
    if (o->netfile) {
        if (compi_net_load(o->netfile, model, err, sizeof err) != COMPI_OK) return fail(err);
        *mp = model;
    }
    if (compi_map_net_build(net, o->hosts, *mp, err, sizeof err) != 0) {
        fprintf(stderr, "compi map: %s\n", err);
        return 2;
    }
    if (compi_map_net_slots(net) < n) {
        snprintf(msg, sizeof msg, "--hosts: %d slot%s for the trace's %d ranks: list more hosts or slots",
                 compi_map_net_slots(net), compi_map_net_slots(net) == 1 ? "" : "s", n);
        fprintf(stderr, "compi map: %s\n", msg);
        return 2;
    }
    printf("compi map: hosts");
    for (int x = 0; x < net->nnodes; x++)
        printf(" %s:%d%s", net->names[x], net->slots[x], net->slots_hwloc[x] ? " (cores, hwloc)" : "");
    printf("\n");
    return 0;
}

/* every mapper's placement, predicted cost (-1: it failed) and bottleneck */
typedef struct {
    int *place[COMPI_MAPPER_COUNT];
    double cost[COMPI_MAPPER_COUNT], neck[COMPI_MAPPER_COUNT];
} map_choice;

/* Runs every mapper and prints its predictions; the kept one in *kept:
 * cheaper than the one kept before it (block, cyclic, ...) by more than
 * min_gain, or that one stays. 0, else 1 with the message printed. */
static int run_mappers(const map_opts *o, const map_run *run, const compi_map_problem *prob, map_choice *ch, int *kept)
{
    char err[1024];
    const compi_map_graph *g = &run->g;
    double *cost = ch->cost, *neck = ch->neck;
    int bestm = -1;
    if (g->nseq) {
        double calls = 0;
        for (int q = 0; q < g->nseq; q++) calls += g->seq[q].calls;
        printf("compi map: %d rooted linear collective sequence(s), %.0f call(s), priced by their makespan (%s)\n",
               g->nseq, calls,
               run->algs.mpich ? "MPICH: posted at once" : "Open MPI coll/basic: blocking, in rank order");
    }
    printf("%-8s %14s %10s %16s %14s\n", "mapper", "predicted_ms", "vs_block", "inter-node_bytes", "bottleneck_ms");
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++) {
        ch->place[m] = malloc(sizeof(int) * (size_t)run->n);
        if (!ch->place[m]) return fail("out of memory");
        if (compi_map_run((compi_mapper)m, prob, o->seed, ch->place[m], err, sizeof err) != 0) {
            printf("%-8s failed: %s\n", compi_mapper_name((compi_mapper)m), err);
            cost[m] = -1;
            continue;
        }
        cost[m] = compi_map_cost(prob, ch->place[m]);
        neck[m] = compi_map_bottleneck(prob, ch->place[m]);
        double inter = compi_map_inter_bytes(prob, ch->place[m]);
        printf("%-8s %14.3f %10.3f %16.0f %14.3f\n", compi_mapper_name((compi_mapper)m), cost[m] * 1e-3,
               cost[0] > 0 ? cost[m] / cost[0] : 1.0, inter, neck[m] * 1e-3);
        /* cheaper by more than min_gain (and beyond rounding), or the simpler mapper stays */
        if (bestm < 0 || cost[m] < cost[bestm] * (1 - o->min_gain) * (1 - 1e-9)) bestm = m;
    }
    if (bestm < 0) return fail("every mapper failed");
    *kept = bestm;
    return 0;
}

/* Near-ties: block and cyclic when their predicted cost is within
 * min_gain of the kept mapper's. The model cannot order them; the regular
 * placement whose most loaded link carries less by more than min_gain is
 * kept (the smallest such bottleneck; block on equal ones), else the kept
 * stays. Only block and cyclic: the other mappers' placements were
 * searched on the cost itself, their bottleneck below min_gain is not
 * evidence (docs/map.md). Returns the mapper kept, printed. */
static int break_tie(double min_gain, const map_choice *ch, int bestm)
{
    const double *cost = ch->cost, *neck = ch->neck;
    int tie = bestm, cheapest = -1;
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++) {
        if (m == bestm || cost[m] < 0 || fabs(cost[m] - cost[bestm]) > min_gain * cost[bestm]) continue;
        if (cheapest < 0 || cost[m] < cost[cheapest]) cheapest = m;
        if (m != COMPI_MAPPER_BLOCK && m != COMPI_MAPPER_CYCLIC) continue;
        if (neck[m] < neck[bestm] * (1 - min_gain) * (1 - 1e-9) && neck[m] < neck[tie] * (1 - 1e-9)) tie = m;
    }
    if (tie != bestm) {
        printf("compi map: %s and %s are within --min-gain %.3g (%.2f %%); %s's most loaded link carries %.2f %% "
               "less: %s kept\n",
               compi_mapper_name((compi_mapper)bestm), compi_mapper_name((compi_mapper)tie), min_gain,
               100 * fabs(1 - cost[tie] / cost[bestm]), compi_mapper_name((compi_mapper)tie),
               100 * (1 - neck[tie] / neck[bestm]), compi_mapper_name((compi_mapper)tie));
        bestm = tie;
    } else if (cheapest >= 0 && cost[cheapest] < cost[bestm] * (1 - 1e-9)) {
        printf("compi map: %s predicts %.2f %% less than %s, within --min-gain %.3g, and no more than that less on its "
               "most loaded link: %s stays\n",
               compi_mapper_name((compi_mapper)cheapest), 100 * (1 - cost[cheapest] / cost[bestm]),
               compi_mapper_name((compi_mapper)bestm), min_gain, compi_mapper_name((compi_mapper)bestm));
    }
    printf("compi map: kept %s (predicted %.3f ms, %.3fx of block)\n", compi_mapper_name((compi_mapper)bestm),
           cost[bestm] * 1e-3, cost[0] > 0 ? cost[bestm] / cost[0] : 1.0);
    return bestm;
}

/* OUT/{placement.txt,rankfile,machinefile,env} for mapper bestm's
 * placement, each replaced whole, never written through a link
 * (common/safefile.h). 0, else 1 with the message printed. */
static int write_placement(const map_opts *o, map_run *run, const compi_map_net *net, const map_choice *ch, int bestm)
{
    char path[4200], err[1024];
    const char *out = o->out;
    int n = run->n;
    if (compi_dir_create(out, 0777, err, sizeof err) != COMPI_OK) return fail(err);
    const int *pl = ch->place[bestm];
    int *used = calloc((size_t)net->nnodes, sizeof *used);
    if (!used) return fail("out of memory");
    static const char *const outs[4] = {"rankfile", "machinefile", "placement.txt", "env"};
    compi_wfile wf[4];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", out, outs[k]);
        if (compi_file_create(&wf[k], path, 0666, COMPI_FILE_REPLACE, err, sizeof err) != COMPI_OK) {
            for (int j = 0; j < k; j++) compi_file_abort(&wf[j]);
            free(used);
            return fail(err);
        }
    }
    FILE *rf = wf[0].f, *mf = wf[1].f, *pf = wf[2].f, *ef = wf[3].f;
    fprintf(pf, "compi-placement 1\nprogram %s\nranks %d\nhosts %s\nmapper %s\n", run->program, n, o->hosts,
            compi_mapper_name((compi_mapper)bestm));
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++)
        if (ch->cost[m] >= 0) fprintf(pf, "predicted_us %s %.3f\n", compi_mapper_name((compi_mapper)m), ch->cost[m]);
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++)
        if (ch->cost[m] >= 0) fprintf(pf, "bottleneck_us %s %.3f\n", compi_mapper_name((compi_mapper)m), ch->neck[m]);
    for (int i = 0; i < n; i++) {
        int x = pl[i];
        fprintf(rf, "rank %d=%s slot=%d\n", i, net->names[x], used[x]++);
        fprintf(mf, "%s\n", net->names[x]);
        fprintf(pf, "rank %d %s\n", i, net->names[x]);
    }
    if (run->algs.mpich && run->algtext) {
        /* the placed run must use the algorithms the graph was built for */
        for (char *line = strtok(run->algtext, "\n"); line; line = strtok(NULL, "\n"))
            if (!strncmp(line, "MPIR_CVAR_", 10)) fprintf(ef, "%s\n", line);
    }
    fprintf(pf, "end\n");
    free(used);
    for (int k = 0; k < 4; k++)
        if (compi_file_commit(&wf[k], err, sizeof err) != COMPI_OK) {
            for (int j = k + 1; j < 4; j++) compi_file_abort(&wf[j]);
            return fail(err);
        }
    printf("compi map: wrote %s/{placement.txt,rankfile,machinefile,env}\n", out);
    return 0;
}

static void free_run(map_run *run)
{
    compi_map_graph_free(&run->g);
    free(run->algtext);
    free(run->traced);
    free(run->tnames);
    free(run->fraw);
    free(run->fpacked);
}

int main(int argc, char **argv)
{
    map_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    /* ---- traces ---- */
    map_run run = {0};
    if ((rc = load_run(&o, &run)) != 0 || (rc = report_graph(&o, &run)) != 0) return rc;
    if (!o.hosts) {
        rc = o.graph_out ? write_graph(o.graph_out, &run.g, run.traced) : 0;
        free_run(&run);
        return rc;
    }

    /* ---- network, mappers ---- */
    compi_net_model model, *mp;
    compi_map_net net;
    if ((rc = build_net(&o, run.n, &model, &mp, &net)) != 0) return rc;
    compi_map_problem prob = {&run.g, &net};
    map_choice ch = {0};
    int bestm;
    if ((rc = run_mappers(&o, &run, &prob, &ch, &bestm)) != 0) return rc;
    bestm = break_tie(o.min_gain, &ch, bestm);

    /* ---- output ---- */
    if ((rc = write_placement(&o, &run, &net, &ch, bestm)) != 0) return rc;
    if (o.graph_out && write_graph(o.graph_out, &run.g, run.traced) != 0) return 1;
    for (int m = 0; m < COMPI_MAPPER_COUNT; m++) free(ch.place[m]);
    compi_map_net_free(&net);
    if (mp) compi_net_free(mp);
    free_run(&run);
    return 0;
}
