/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_guide: turns message traces (COMPI_MODE=trace) into per-rank rules
 * for COMPI_MODE=guided. For every key of every rank's trace it compresses
 * the recorded samples with the candidate codecs of the key's datatype
 * class, and predicts the speedup the adaptive engine would:
 *
 *     speedup = T_net(S) / (T_net(S/r) + T_c + T_d),  T_d = T_c * d_over_c
 *
 * with T_net from the network model's link between this rank's node and the
 * peer's, r and T_c measured here (T_c scaled from the sample to the full
 * size) and d_over_c from the codec model. The rule is the best codec if its
 * speedup reaches --min-speedup, else raw. Intra-node messages are always
 * raw. See docs/guided.md. MPI-free: links compi_engine and compi_codecs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "compi.h"
#include "engine/estimate.h"
#include "engine/model.h"
#include "engine/trace.h"

typedef struct {
    const char *trace_dir, *out_dir, *heur_dir;
    double min_speedup;
    int all_codecs;
    double time_ms; /* timing budget per (sample, codec) */
    int level;      /* codec effort the guided run will code with (COMPI_LEVEL) */
    int verbose, quiet;
} guide_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: compi_guide <trace dir> [-o RULES_DIR] [--heuristics DIR] [--min-speedup X]\n"
               "                   [--all-codecs] [--time-ms MS] [--level N] [-v|--verbose] [-q|--quiet]\n"
               "\n"
               "Reads <trace dir>/trace.<rank>.bin (written with COMPI_MODE=trace COMPI_TRACE=<dir>)\n"
               "and writes RULES_DIR/rules.<rank>.txt for COMPI_MODE=guided COMPI_RULES=RULES_DIR.\n"
               "  -o DIR            where to write the rules (default: the trace directory)\n"
               "  --heuristics DIR  network.txt / codecs.txt from compi calibrate (default:\n"
               "                    $COMPI_HEURISTICS, else the built-in models; a missing file\n"
               "                    means that model's built-in default)\n"
               "  --min-speedup X   compress a key only if its predicted speedup is >= X (default 1.05)\n"
               "  --all-codecs      try every codec, not only the codec model's candidates\n"
               "  --time-ms MS      timing budget per sample and codec (default 1)\n"
               "  --level N         codec effort the guided run will use, -100..22 (default:\n"
               "                    $COMPI_LEVEL, else 0 = each codec's default): the samples are\n"
               "                    coded at that level, as the run will code the messages\n"
               "  -v, --verbose     one line per key\n"
               "  -q, --quiet       only errors and warnings\n");
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Compresses one sample: compressed length and microseconds per call (the
 * best of three timed rounds). Returns 0, or -1 if the codec failed. */
static int measure(const compi_codec *c, const compi_codec_params *prm, const compi_trace_sample *s, double budget_us,
                   uint8_t **dst, size_t *dst_cap, long long *clen, double *us)
{
    size_t need = c->bound(s->len);
    if (need > *dst_cap) {
        uint8_t *g = realloc(*dst, need);
        if (!g) return -1;
        *dst = g;
        *dst_cap = need;
    }
    *clen = c->compress(s->data, s->len, *dst, *dst_cap, prm); /* also the warm-up */
    if (*clen < 0) return -1;
    double best = -1;
    for (int round = 0; round < 3; round++) {
        int reps = 0;
        double t0 = now_us(), t;
        do {
            if (c->compress(s->data, s->len, *dst, *dst_cap, prm) < 0) return -1;
            reps++;
            t = now_us() - t0;
        } while (t < budget_us / 3 && reps < 1000);
        double per = t / reps;
        if (best < 0 || per < best) best = per;
    }
    *us = best;
    return 0;
}

typedef struct {
    compi_rule rule;
    int sampled; /* 0: no sample, so no rule */
    const compi_codec *best;
    double best_speedup, best_ratio;
} key_eval;

typedef struct {
    size_t keys, compressed, raw, intra, unsampled;
    double bytes, saved;
} rank_sum;

static void evaluate(const guide_opts *o, const compi_trace *t, const compi_trace_entry *e, const compi_net_model *net,
                     const compi_codec_model *cm, key_eval *ev, uint8_t **dst, size_t *dst_cap)
{
    memset(ev, 0, sizeof *ev);
    ev->rule.key = e->key;
    ev->rule.msg = &e->msg;
    ev->rule.count = e->count;
    ev->sampled = e->nsamples > 0;
    if (e->msg.link_cls == COMPI_LINK_INTRA) {
        ev->sampled = 1; /* decided without samples */
        ev->rule.why = "intra-node";
        return;
    }
    if (!ev->sampled) return;
    const compi_net_link *link = compi_net_find(net, COMPI_LINK_INTER, t->my_node, e->msg.peer_node);
    if (!link) {
        ev->rule.why = "no-network-link";
        return;
    }

    const compi_codec *cands[64];
    int nc = 0;
    if (o->all_codecs) {
        for (size_t i = 0; i < compi_codec_count() && nc < 64; i++) cands[nc++] = compi_codec_at(i);
    } else {
        for (int i = 0; i < cm->ncandidates[e->msg.dtclass]; i++) cands[nc++] = cm->candidates[e->msg.dtclass][i];
    }
    if (nc == 0) {
        ev->rule.why = "no-candidates";
        return;
    }

    double S = (double)e->msg.size;
    /* the very formula the runtime uses (engine/estimate.h), with its
     * default chunking (COMPI_CHUNK=auto); an alltoall's block priced as
     * part of the burst it travelled in (the trace's share and own, >= 1) */
    compi_estimate_ctx x = {.link = link,
                            .codecs = cm,
                            .dtclass = e->msg.dtclass,
                            .elem_size = e->msg.elem_size,
                            .level = o->level,
                            .codec_threads = 1.0,
                            .share = e->msg.share,
                            .own = e->msg.own};
    /* even free, infinite compression leaves the latency: skip the timing */
    if (compi_estimate_net_us(&x, S) < o->min_speedup * compi_estimate_net_us(&x, 0)) {
        ev->rule.why = "too-small";
        return;
    }
    compi_codec_params prm = {(compi_dtclass)e->msg.dtclass, e->msg.elem_size, o->level};
    for (int k = 0; k < nc; k++) {
        double in = 0, out = 0, us_per_byte = 0;
        int ok = 1;
        for (uint32_t s = 0; s < e->nsamples && ok; s++) {
            long long clen;
            double us;
            if (measure(cands[k], &prm, &e->samples[s], o->time_ms * 1e3, dst, dst_cap, &clen, &us) != 0) {
                ok = 0;
                break;
            }
            in += e->samples[s].len;
            out += (double)clen;
            us_per_byte += us / e->samples[s].len;
        }
        if (!ok || out <= 0) continue;
        double r = in / out;
        double tc = us_per_byte / e->nsamples * S;
        double td = tc * compi_codec_model_d_over_c(cm, cands[k], e->msg.dtclass, r);
        double sp = compi_estimate_speedup(&x, cands[k], e->msg.size, r, tc);
        if (o->verbose > 1)
            printf("    %016llx %-10s ratio %8.2f  T_c %10.1f us  T_d %10.1f us  speedup %.3f\n",
                   (unsigned long long)e->key, cands[k]->name, r, tc, td, sp);
        if (r > ev->rule.max_ratio) ev->rule.max_ratio = r;
        if (!ev->best || sp > ev->best_speedup) {
            ev->best = cands[k];
            ev->best_speedup = sp;
            ev->best_ratio = r;
        }
    }
    if (!ev->best) {
        ev->rule.why = "codecs-failed";
        return;
    }
    ev->rule.ratio = ev->best_ratio;
    ev->rule.predicted = ev->best_speedup;
    if (ev->best_speedup >= o->min_speedup) ev->rule.codec = ev->best;
    else ev->rule.why = ev->best_ratio < 1.05 ? "incompressible" : "below-min-speedup";
}

static int guide_rank(const guide_opts *o, const char *path, const compi_net_model *net, const compi_codec_model *cm,
                      const char *expect_prog, int expect_ranks, rank_sum *sum)
{
    char err[1024];
    compi_trace *t = compi_trace_load(path, err, sizeof err);
    if (!t) {
        fprintf(stderr, "compi_guide: error: %s\n", err);
        return -1;
    }
    if (strcmp(t->program, expect_prog) != 0 || t->world_size != expect_ranks) {
        fprintf(stderr,
                "compi_guide: error: %s: from program '%s' with %d ranks, the other traces are from '%s' "
                "with %d ranks (traces of different runs in one directory?)\n",
                path, t->program, t->world_size, expect_prog, expect_ranks);
        compi_trace_free(t);
        return -1;
    }
    memset(sum, 0, sizeof *sum);
    compi_rule *rules = calloc(t->nentries ? t->nentries : 1, sizeof *rules);
    uint8_t *dst = NULL;
    size_t dst_cap = 0, nrules = 0;
    if (!rules) {
        fprintf(stderr, "compi_guide: out of memory\n");
        compi_trace_free(t);
        return -1;
    }
    if (o->verbose)
        printf("rank %d: %-16s %10s %6s %6s %-6s %10s %-10s %8s %8s\n", t->rank, "key", "size", "peer", "tag", "class",
               "count", "rule", "ratio", "speedup");
    for (size_t i = 0; i < t->nentries; i++) {
        const compi_trace_entry *e = &t->entries[i];
        key_eval ev;
        evaluate(o, t, e, net, cm, &ev, &dst, &dst_cap);
        sum->keys++;
        double bytes = (double)e->count * (double)e->msg.size;
        sum->bytes += bytes;
        if (!ev.sampled) {
            sum->unsampled++;
        } else {
            rules[nrules++] = ev.rule;
            if (ev.rule.codec) {
                sum->compressed++;
                sum->saved += bytes - bytes / ev.rule.ratio;
            } else {
                sum->raw++;
                if (e->msg.link_cls == COMPI_LINK_INTRA) sum->intra++;
            }
        }
        if (o->verbose) {
            char ratio[32] = "-", speedup[32] = "-";
            if (ev.rule.ratio > 0) snprintf(ratio, sizeof ratio, "%.2f", ev.rule.ratio);
            if (ev.rule.predicted > 0) snprintf(speedup, sizeof speedup, "%.3f", ev.rule.predicted);
            printf("rank %d: %016llx %10llu %6d %6d %-6s %10llu %-10s %8s %8s%s%s\n", t->rank,
                   (unsigned long long)e->key, (unsigned long long)e->msg.size, e->msg.peer, e->msg.tag,
                   compi_dtclass_name(e->msg.dtclass), (unsigned long long)e->count,
                   !ev.sampled     ? "(no rule)"
                   : ev.rule.codec ? ev.rule.codec->name
                                   : "raw",
                   ratio, speedup,
                   ev.rule.why   ? "  "
                   : !ev.sampled ? "  no sample"
                                 : "",
                   ev.rule.why ? ev.rule.why : "");
        }
    }
    free(dst);

    char comment[8192];
    snprintf(comment, sizeof comment,
             "made by compi_guide from %s\n"
             "node %s; %llu messages, %llu keys; cycle %llu messages\n"
             "network model: %s\ncodec model: %s\nmin speedup %.3f%s",
             path, t->my_node, (unsigned long long)t->stats.messages, (unsigned long long)t->stats.keys,
             (unsigned long long)t->stats.cycle_len, net->source, cm->source, o->min_speedup,
             o->all_codecs ? ", all codecs tried" : "");
    int rc = compi_rules_save(o->out_dir, t->rank, t->world_size, t->program, rules, nrules, comment, err, sizeof err);
    if (rc != COMPI_OK) fprintf(stderr, "compi_guide: error: %s\n", err);
    char rpath[4096];
    compi_rules_path(rpath, sizeof rpath, o->out_dir, t->rank);
    if (rc == COMPI_OK && !o->quiet) {
        printf("rank %d (%s): %zu keys: %zu compress, %zu raw (%zu intra-node)", t->rank, t->my_node, sum->keys,
               sum->compressed, sum->raw, sum->intra);
        if (sum->unsampled) printf(", %zu without samples (no rule)", sum->unsampled);
        printf("; %llu messages, %.1f MB; predicted saving %.1f MB (%.0f%%)", (unsigned long long)t->stats.messages,
               sum->bytes / 1e6, sum->saved / 1e6, sum->bytes > 0 ? 100 * sum->saved / sum->bytes : 0.0);
        if (t->stats.cycle_len) printf("; cycle of %llu messages", (unsigned long long)t->stats.cycle_len);
        else printf("; no cycle found");
        printf(" -> %s\n", rpath);
    }
    fflush(stdout);
    if (t->stats.cap_reached)
        fprintf(stderr,
                "compi_guide: warning: %s reached its size cap (%llu bytes): %zu keys have no samples and no "
                "rule, %llu messages belong to keys not indexed; raise COMPI_TRACE_MAX\n",
                path, (unsigned long long)t->cap_bytes, sum->unsampled,
                (unsigned long long)t->stats.untracked_messages);
    free(rules);
    compi_trace_free(t);
    return rc == COMPI_OK ? 0 : -1;
}

static int parse_rank_file(const char *name, int *rank)
{
    int r, n = 0;
    if (sscanf(name, "trace.%d.bin%n", &r, &n) == 1 && n > 0 && name[n] == 0 && r >= 0) {
        char canon[64];
        snprintf(canon, sizeof canon, "trace.%d.bin", r);
        if (strcmp(canon, name) == 0) {
            *rank = r;
            return 1;
        }
    }
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static int load_models(const guide_opts *o, compi_net_model *net, compi_codec_model *cm)
{
    char err[4400];
    compi_net_default(net);
    compi_codec_model_default(cm);
    if (!o->heur_dir || !*o->heur_dir) return 0;
    /* as at MPI_Init: a mistyped directory, or a model that is not a
     * regular file, is an error, not the built-in models */
    compi_net_model m;
    compi_codec_model c;
    int have_net, have_codecs;
    if (compi_models_load_dir(o->heur_dir, &m, &have_net, &c, &have_codecs, err, sizeof err) != COMPI_OK) {
        fprintf(stderr, "compi_guide: error: --heuristics: %s\n", err);
        return -1;
    }
    if (have_net) {
        compi_net_free(net);
        *net = m;
    } else if (!o->quiet) {
        printf("compi_guide: %s/network.txt missing: built-in network model\n", o->heur_dir);
    }
    if (have_codecs) *cm = c;
    else if (!o->quiet) printf("compi_guide: %s/codecs.txt missing: built-in codec model\n", o->heur_dir);
    return 0;
}

static int parse_level(const char *opt, const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < -100 || v > 22) {
        fprintf(stderr, "compi_guide: %s needs an integer from -100 to 22 (0 = codec default), got '%s'\n", opt,
                s ? s : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || errno || end == s || *end || !(v >= lo)) {
        fprintf(stderr, "compi_guide: %s needs a number >= %g, got '%s'\n", opt, lo, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    guide_opts o = {0};
    o.min_speedup = 1.05;
    o.time_ms = 1;
    o.heur_dir = getenv("COMPI_HEURISTICS");
    /* the level the guided run reads from its environment */
    const char *lv = getenv("COMPI_LEVEL");
    if (lv && *lv && parse_level("COMPI_LEVEL", lv, &o.level)) return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!v) goto missing;
            o.out_dir = v;
            i++;
        } else if (!strcmp(a, "--heuristics")) {
            if (!v) goto missing;
            o.heur_dir = v;
            i++;
        } else if (!strcmp(a, "--min-speedup")) {
            if (parse_double(a, v, 0, &o.min_speedup)) return 2;
            i++;
        } else if (!strcmp(a, "--level")) {
            if (parse_level(a, v, &o.level)) return 2;
            i++;
        } else if (!strcmp(a, "--time-ms")) {
            if (parse_double(a, v, 0.001, &o.time_ms)) return 2;
            i++;
        } else if (!strcmp(a, "--all-codecs")) o.all_codecs = 1;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o.verbose++;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = 1;
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "compi_guide: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o.trace_dir) o.trace_dir = a;
        else {
            fprintf(stderr, "compi_guide: more than one trace directory ('%s', '%s')\n", o.trace_dir, a);
            return 2;
        }
        continue;
    missing:
        fprintf(stderr, "compi_guide: %s needs a value\n", a);
        return 2;
    }
    if (!o.trace_dir) {
        usage(stderr);
        return 2;
    }
    if (!o.out_dir) o.out_dir = o.trace_dir;

    DIR *d = opendir(o.trace_dir);
    if (!d) {
        fprintf(stderr, "compi_guide: error: %s: %s\n", o.trace_dir, strerror(errno));
        return 1;
    }
    int *ranks = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        int r;
        if (!parse_rank_file(de->d_name, &r)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int *g = realloc(ranks, cap * sizeof *g);
            if (!g) {
                closedir(d);
                fprintf(stderr, "compi_guide: out of memory\n");
                return 1;
            }
            ranks = g;
        }
        ranks[n++] = r;
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr,
                "compi_guide: error: no trace.<rank>.bin files in %s (trace a run with COMPI_MODE=trace "
                "COMPI_TRACE=%s first)\n",
                o.trace_dir, o.trace_dir);
        free(ranks);
        return 1;
    }
    qsort(ranks, n, sizeof *ranks, cmp_int);

    compi_net_model net;
    compi_codec_model cm;
    if (load_models(&o, &net, &cm) != 0) {
        free(ranks);
        return 1;
    }
    if (!o.quiet) printf("compi_guide: network model: %s\ncompi_guide: codec model: %s\n", net.source, cm.source);

    /* the first readable trace names the run; the others must match it */
    char path[4096], err[1024], prog[COMPI_TRACE_PROGRAM_MAX] = "";
    int world = 0, failed = 0;
    for (size_t i = 0; i < n && !prog[0]; i++) {
        compi_trace_path(path, sizeof path, o.trace_dir, ranks[i]);
        compi_trace *t = compi_trace_load(path, err, sizeof err);
        if (!t) continue;
        snprintf(prog, sizeof prog, "%s", t->program);
        world = t->world_size;
        compi_trace_free(t);
    }
    rank_sum total = {0}, s;
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        compi_trace_path(path, sizeof path, o.trace_dir, ranks[i]);
        if (guide_rank(&o, path, &net, &cm, prog, world, &s) != 0) {
            failed++;
            continue;
        }
        done++;
        total.keys += s.keys;
        total.compressed += s.compressed;
        total.raw += s.raw;
        total.intra += s.intra;
        total.unsampled += s.unsampled;
        total.bytes += s.bytes;
        total.saved += s.saved;
    }
    fflush(stdout);
    if (world && n != (size_t)world && !failed)
        fprintf(stderr,
                "compi_guide: warning: %zu trace files for %d ranks: the others will run without rules "
                "(adaptive)\n",
                n, world);
    if (!o.quiet)
        printf("compi_guide: %s, %zu of %zu ranks: %zu keys, %zu compress, %zu raw; predicted saving %.1f of %.1f MB "
               "(%.0f%%)%s\n",
               prog[0] ? prog : "?", done, n, total.keys, total.compressed, total.raw, total.saved / 1e6,
               total.bytes / 1e6, total.bytes > 0 ? 100 * total.saved / total.bytes : 0.0,
               failed ? "; SOME TRACES FAILED" : "");
    compi_net_free(&net);
    free(ranks);
    return failed ? 1 : 0;
}
