/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-message compression decision for every mode, and the state of the
 * runtime adaptive strategy: the network and codec models, and compression
 * windows per destination node, per family group (point-to-point shares one
 * group; each collective family has its own, so an alltoall's blocks and a
 * halo exchange's messages to the same node are judged apart) and per
 * datatype class. A group's windows are made on its first message.
 *
 *   off       nothing is framed (never called)
 *   fixed     one codec for every inter-node message >= min_bytes
 *   adaptive  lib/engine/window.h decides; evaluations compress a sample
 *             with the class's candidate codecs (lib/engine/estimate.h)
 *   trace     raw, every inter-node message recorded (lib/engine/trace.h)
 *   guided    the rule `compi guide` wrote for the message's key, else
 *             adaptive
 * Intra-node messages are never compressed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/safefile.h"
#include "core/boot.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/state.h"
#include "core/stats.h"
#include "engine/estimate.h"
#include "engine/linkest.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "netcal/netcal.h"
#include "core/pool_setup.h"

#include "core/decide_state.h"

static int compi_win_group(compi_family fam)
{
    return fam < COMPI_FAM_BCAST ? 0 : 1 + (int)(fam - COMPI_FAM_BCAST);
}
const char *const compi_win_group_names[COMPI_WIN_GROUPS] = {
    "p2p", "bcast", "scatter", "gather", "allgather", "alltoall", "allreduce", "reduce", "io",
};
_Static_assert(COMPI_FAM_IO + 1 == COMPI_FAM_COUNT && COMPI_WIN_GROUPS == 9,
               "a new family needs its window group name");

/* The window of group g and class c on l (l->lock held); NULL when out of memory. */
static compi_window *compi_link_window(compi_link_state *l, int g, int c)
{
    if (!l->win[g]) {
        l->win[g] = malloc(sizeof(compi_window) * COMPI_CLASS_COUNT);
        if (!l->win[g]) return NULL;
        for (int k = 0; k < COMPI_CLASS_COUNT; k++) compi_window_init(&l->win[g][k], &compi_cfg.window);
    }
    return &l->win[g][c];
}

compi_engine_state compi_E;

extern char *program_invocation_short_name;

static __thread void *compi_scratch;
/* What each candidate codec cost in this thread's evaluations, so the next
 * ones try the cheap ones first (engine/estimate.h). */
static __thread compi_estimate_costs compi_eval_costs;
/* The collective running on this thread (compi_coll_scope_begin/end): its
 * gate's trial asks for evaluation, and the frames it compressed are
 * counted for the gate's vote. A thread runs one collective at a time. */
static __thread compi_coll_scope_state compi_coll_scope;

void compi_coll_scope_save(compi_coll_scope_state *s)
{
    *s = compi_coll_scope;
}

void compi_coll_scope_restore(const compi_coll_scope_state *s)
{
    compi_coll_scope = *s;
}

void compi_coll_scope_begin(int probe)
{
    compi_coll_scope.active = 1;
    compi_coll_scope.probe = probe;
    compi_coll_scope.frame_bytes = compi_coll_scope.saved_bytes = 0;
}

void compi_coll_scope_end(uint64_t *frame_bytes, uint64_t *saved_bytes)
{
    compi_coll_scope.active = 0;
    compi_coll_scope.probe = 0;
    *frame_bytes = compi_coll_scope.frame_bytes;
    *saved_bytes = compi_coll_scope.saved_bytes;
}

double compi_engine_now_s(void)
{
    return (double)(compi_now_ns() - compi_E.t0_ns) * 1e-9;
}

static void *compi_engine_scratch(void)
{
    if (!compi_scratch) {
        compi_scratch = malloc(compi_estimate_scratch_size(compi_cfg.sample_bytes));
        if (!compi_scratch) compi_die("out of memory for the adaptive engine's sample buffer");
        pthread_setspecific(compi_E.scratch_key, compi_scratch);
    }
    return compi_scratch;
}

/* ------------------------------------------------------------------ init */

/* Makes m the engine's network model; link classes m lacks keep the
 * current (built-in) default. Takes ownership of m. */
static void compi_engine_use_network(compi_net_model *m)
{
    compi_net_model old = compi_E.net;
    compi_E.net = *m;
    for (int i = 0; i < old.nlinks; i++)
        if (!compi_net_find(&compi_E.net, old.links[i].cls, NULL, NULL)) compi_net_add(&compi_E.net, &old.links[i]);
    compi_net_free(&old);
}

/* Names where the heuristics directory was set: the variable, or the
 * configuration file and line. */
static void compi_heuristics_error(const char *why, char *err, size_t errlen)
{
    char from[COMPI_CONFIG_PATH_MAX + 64];
    if (compi_cfg.src[COMPI_SET_HEURISTICS].origin == COMPI_FROM_ENV) {
        snprintf(err, errlen, "COMPI_HEURISTICS: %s", why);
        return;
    }
    compi_config_origin_text(&compi_cfg, COMPI_SET_HEURISTICS, from, sizeof from);
    snprintf(err, errlen, "heuristics (set in %s): %s", from, why);
}

static int compi_engine_load_models(char *err, size_t errlen)
{
    char why[512];
    compi_net_default(&compi_E.net);
    compi_codec_model_default(&compi_E.codecs);
    if (!compi_cfg.heuristics_dir[0]) return COMPI_OK;
    compi_net_model m;
    compi_codec_model c;
    int have_net, have_codecs;
    if (compi_models_load_dir(compi_cfg.heuristics_dir, &m, &have_net, &c, &have_codecs, why, sizeof why) != COMPI_OK) {
        compi_heuristics_error(why, err, errlen);
        return COMPI_ERR_CONFIG;
    }
    if (have_net) compi_engine_use_network(&m);
    if (have_net) compi_E.net_from = COMPI_LINKSRC_FILE;
    if (have_codecs) compi_E.codecs = c;
    if (!have_net && !have_codecs && compi_g.world_rank == 0)
        fprintf(stderr,
                "compi: warning: heuristics directory %s holds neither network.txt nor codecs.txt: "
                "built-in models (write them with 'compi calibrate')\n",
                compi_cfg.heuristics_dir);
    return COMPI_OK;
}

/* COMPI_DEBUG_LINK_TIMES: the measurement's timings injected, at every
 * size whatever the real clock says (the tests see one fit). */
void compi_engine_inject_timings(compi_netcal_opts *o)
{
    if (!compi_cfg.debug_link.set) return;
    o->inject = 1;
    o->inject_alpha_us = compi_cfg.debug_link.alpha_us;
    o->inject_beta_ns = compi_cfg.debug_link.beta_ns;
    o->inject_outlier_every = compi_cfg.debug_link.outlier_every;
    o->inject_burst = compi_cfg.debug_link.burst_bytes;
    o->budget_s = 0;
    o->max_rtt_s = 0;
}

/* COMPI_CALIBRATE=init: measure this job's network now (bounded to ~0.5 s)
 * instead of reading network.txt. */
static void compi_engine_calibrate(void)
{
    compi_netcal_opts o;
    compi_netcal_opts_init(&o);
    o.serial = compi_cfg.ranks_per_node > 0;
    compi_engine_inject_timings(&o);
    compi_net_model m;
    int rc = compi_netcal_measure(MPI_COMM_WORLD, compi_g.node_count, compi_g.node_of_world,
                                  (const char(*)[COMPI_NET_NAME_MAX])compi_E.node_names, &o, &m, &compi_E.calibrate_s);
    if (rc != COMPI_OK) {
        if (compi_g.world_rank == 0)
            fprintf(stderr, "compi: warning: COMPI_CALIBRATE=init failed (%d); using %s\n", rc, compi_E.net.source);
        return;
    }
    /* a degenerate fit was left out of m: those links keep the built-in model */
    if (m.nrejected && compi_g.world_rank == 0)
        fprintf(stderr,
                "compi: warning: COMPI_CALIBRATE=init: %d measured link(s) rejected, their fit was degenerate "
                "(%s); keeping the built-in model for them\n",
                m.nrejected, m.rejected);
    int inter = compi_net_find(&m, COMPI_LINK_INTER, NULL, NULL) != NULL;
    snprintf(m.source, sizeof m.source, "measured at MPI_Init in %.3f s%s", compi_E.calibrate_s,
             inter ? "" : " (inter-node links: built-in, their fit was rejected)");
    compi_engine_use_network(&m);
    if (inter) compi_E.net_from = COMPI_LINKSRC_PROBE;
    compi_log(1, "network calibrated at MPI_Init in %.3f s", compi_E.calibrate_s);
}

static void compi_link_init(compi_link_state *l, const compi_net_link *model, const char *a, const char *b)
{
    pthread_mutex_init(&l->lock, NULL);
    l->model = NULL;
    if (model) {
        /* the built-in model is only the prior; a file's link is kept */
        compi_linkest_init(&l->est, model, compi_E.net_from);
        l->model = &l->est.model;
    }
    snprintf(l->name, sizeof l->name, "inter %s-%s", a, b);
}

static void compi_link_fill(compi_link_state *l, int node)
{
    memset(l, 0, sizeof *l);
    compi_link_init(l, compi_E.priors[node], compi_E.node_names[compi_g.my_node],
                    node < compi_g.node_count ? compi_E.node_names[node] : "*");
}

compi_link_state *compi_link_at(int node)
{
    compi_link_state *l = __atomic_load_n(&compi_E.links[node], __ATOMIC_ACQUIRE);
    if (l) return l;
    compi_link_state *mine = malloc(sizeof *mine);
    if (!mine) return NULL;
    compi_link_fill(mine, node);
    /* another thread may have created it meanwhile: its state wins */
    if (__atomic_compare_exchange_n(&compi_E.links[node], &l, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return mine;
    pthread_mutex_destroy(&mine->lock);
    free(mine);
    return l;
}

compi_link_state *compi_link_view(int node, compi_link_state *tmp)
{
    compi_link_state *l = __atomic_load_n(&compi_E.links[node], __ATOMIC_ACQUIRE);
    if (l) return l;
    compi_link_fill(tmp, node);
    return tmp;
}

/* Traces are written for `compi guide`; rules it wrote are read. A trace
 * that cannot be created is a configuration error (COMPI_ERR_CONFIG, err
 * set). Missing or stale rules are not fatal: the run goes on adaptively,
 * with a warning. */
static int compi_engine_open_guidance(char *eout, size_t eoutlen)
{
    char err[4400];
    const char *prog = program_invocation_short_name;
    if (compi_cfg.mode == COMPI_MODE_TRACE || compi_cfg.mode == COMPI_MODE_PROFILE) {
        compi_E.trace = compi_trace_open(compi_cfg.trace_dir, compi_g.world_rank, compi_g.world_size, prog,
                                         compi_E.node_names[compi_g.my_node], compi_cfg.trace_max, err, sizeof err);
        if (!compi_E.trace) {
            snprintf(eout, eoutlen, "COMPI_TRACE: %s", err);
            return COMPI_ERR_CONFIG;
        }
        compi_prof_trace_opened(compi_E.trace);
    }
    if (compi_cfg.mode == COMPI_MODE_GUIDED) {
        compi_E.rules =
            compi_rules_load(compi_cfg.rules_dir, compi_g.world_rank, compi_g.world_size, prog, err, sizeof err);
        if (!compi_E.rules)
            fprintf(stderr,
                    "compi: rank %d: warning: COMPI_MODE=guided without usable rules (%s); deciding adaptively\n",
                    compi_g.world_rank, err);
    }
    return COMPI_OK;
}

/* Rank 0 writes the report at MPI_Finalize: a path it would refuse is
 * refused now, before the run. */
static int compi_report_path_check(char *err, size_t errlen)
{
    char why[4400];
    if (compi_g.world_rank != 0 || !compi_cfg.report_path[0]) return COMPI_OK;
    if (compi_file_check_writable(compi_cfg.report_path, why, sizeof why) == COMPI_OK) return COMPI_OK;
    snprintf(err, errlen, "COMPI_REPORT: %s", why);
    return COMPI_ERR_CONFIG;
}

/* The collective floors of the default inter-node link's model. */
static void compi_engine_floors(const compi_net_link *dflt)
{
    for (int k = 1; k <= COMPI_COLL_EXTRA_MAX; k++)
        compi_E.coll_floor[k] = compi_net_coll_floor(dflt, compi_cfg.min_bytes, k);
}

int compi_engine_preinit(unsigned long long *words, char *err, size_t errlen)
{
    compi_E.t0_ns = compi_now_ns();
    pthread_key_create(&compi_E.scratch_key, free);
    /* heuristics files may be node-local: all ranks stop if any cannot load its own */
    int rc = compi_engine_load_models(err, errlen);
    if (rc == COMPI_OK) rc = compi_report_path_check(err, errlen);
    words[COMPI_BOOT_ENGINE_FAILED] = rc != COMPI_OK;
    /* A collective announces its frame before the root decides; that costs
     * one small extra collective, kept under 5% of the block's transfer. The
     * static model is the same on every rank, so all ranks agree, unless
     * they read different models (heuristics directories that differ
     * between nodes): then they would disagree on which collectives take
     * compi's path, and hang. The exchange's words say which. */
    if (rc == COMPI_OK && !compi_cfg.calibrate_init) {
        compi_engine_floors(compi_net_find(&compi_E.net, COMPI_LINK_INTER, NULL, NULL));
        words[COMPI_BOOT_NOT_FLOOR] = ~(unsigned long long)compi_E.coll_floor[1];
        words[COMPI_BOOT_FLOOR] = compi_E.coll_floor[1];
    }
    return rc;
}

/* The floors measured at MPI_Init (COMPI_CALIBRATE=init), up and down the tree. */
static void compi_engine_floors_agree(unsigned long long *hi)
{
    compi_engine_floors(compi_net_find(&compi_E.net, COMPI_LINK_INTER, NULL, NULL));
    hi[0] = ~(unsigned long long)compi_E.coll_floor[1];
    hi[1] = compi_E.coll_floor[1];
    if (compi_boot_max(hi, 2) != MPI_SUCCESS) hi[0] = hi[1] + 1; /* failed: differ */
}

int compi_engine_init(const unsigned long long *words, int failed, char (*names)[COMPI_NET_NAME_MAX], char *err,
                      size_t errlen)
{
    compi_E.node_names = names;
    if (words[COMPI_BOOT_ENGINE_FAILED] && compi_config_agree(failed, err, errlen)) return COMPI_ERR_CONFIG;
    unsigned long long hi[2] = {words[COMPI_BOOT_NOT_FLOOR], words[COMPI_BOOT_FLOOR]};
    if (compi_cfg.calibrate_init) {
        compi_engine_calibrate();
        compi_engine_floors_agree(hi);
    }
    compi_E.nlinks = compi_g.node_count + 1;
    compi_E.links = calloc((size_t)compi_E.nlinks, sizeof *compi_E.links);
    compi_E.priors = calloc((size_t)compi_E.nlinks, sizeof *compi_E.priors);
    if (!compi_E.links || !compi_E.priors) return MPI_ERR_NO_MEM;
    const char *me = compi_E.node_names[compi_g.my_node];
    for (int node = 0; node < compi_g.node_count; node++)
        compi_E.priors[node] = compi_net_find(&compi_E.net, COMPI_LINK_INTER, me, compi_E.node_names[node]);
    compi_E.priors[compi_g.node_count] = compi_net_find(&compi_E.net, COMPI_LINK_INTER, NULL, NULL);
    if (!compi_link_at(compi_g.node_count)) return MPI_ERR_NO_MEM;
    unsigned long long lo[2] = {~hi[0], ~hi[1]}; /* the least floor, and the greatest one's complement */
    if (lo[0] != ~lo[1]) {
        char from[COMPI_CONFIG_PATH_MAX + 64];
        compi_config_origin_text(&compi_cfg, COMPI_SET_HEURISTICS, from, sizeof from);
        snprintf(err, errlen,
                 "the network models of the ranks differ (collective floor from %llu to %llu B); this "
                 "rank's is '%s' (heuristics from %.300s): heuristics files that differ between nodes?",
                 lo[0], ~lo[1], compi_E.net.source, from);
        compi_config_agree(1, err, errlen);
        return COMPI_ERR_CONFIG;
    }
    /* every rank writes its own trace; all stop if any cannot (only the
     * modes that trace can fail, and the mode is the same on every rank) */
    int guidance_failed = compi_engine_open_guidance(err, errlen) != COMPI_OK;
    if ((compi_cfg.mode == COMPI_MODE_TRACE || compi_cfg.mode == COMPI_MODE_PROFILE) &&
        compi_config_agree(guidance_failed, err, errlen))
        return COMPI_ERR_CONFIG;
    compi_E.ready = 1;
    /* the models are the same on every rank; a user of fixed or off mode, or
     * of a single node where nothing is compressed, needs them only in detail */
    int engine_decides =
        (compi_cfg.mode == COMPI_MODE_ADAPTIVE || compi_cfg.mode == COMPI_MODE_GUIDED) && compi_g.node_count > 1;
    compi_log(engine_decides ? 1 : 2, "adaptive engine: network model '%s', codec model '%s', collective floor %zu B",
              compi_E.net.source, compi_E.codecs.source, compi_E.coll_floor[1]);
    /* the prior's links measured before the application's first message */
    return compi_engine_probe_init();
}

void compi_engine_finalize(void)
{
    char err[512];
    if (compi_E.trace) compi_prof_trace_closing(compi_E.trace);
    if (compi_E.trace && compi_trace_close(compi_E.trace, err, sizeof err) != COMPI_OK)
        fprintf(stderr, "compi: rank %d: the trace is incomplete: %s\n", compi_g.world_rank, err);
    compi_E.trace = NULL;
    if (compi_E.rules) compi_rules_free(compi_E.rules);
    compi_E.rules = NULL;
}

/* ------------------------------------------------------------------ deciding */

int compi_coll_worth(const compi_comm_info *ci, size_t size, int extra)
{
    if (size == 0 || size < ci->min_bytes) return 0;
    if (ci->mode == COMPI_MODE_FIXED) return 1;
    if (extra < 1) extra = 1;
    if (extra > COMPI_COLL_EXTRA_MAX) extra = COMPI_COLL_EXTRA_MAX;
    /* trace agrees with guided, so traced collectives are the guided ones */
    return (ci->mode == COMPI_MODE_ADAPTIVE || ci->mode == COMPI_MODE_GUIDED || ci->mode == COMPI_MODE_TRACE) &&
           compi_E.ready && size >= (ci->coll_floor[extra] ? ci->coll_floor[extra] : compi_E.coll_floor[extra]);
}

const compi_net_link *compi_engine_default_link(void)
{
    return compi_E.ready ? compi_E.links[compi_g.node_count]->model : NULL;
}

double compi_engine_inter_ns_per_byte(double bytes)
{
    if (!compi_E.ready || bytes <= 0) return 0;
    const compi_net_link *dl = compi_E.links[compi_g.node_count]->model;
    double worst = dl ? compi_net_time_us(dl, bytes) * 1e3 / bytes : 0;
    compi_link_state tmp;
    for (int i = 0; i < compi_E.nlinks; i++) {
        compi_link_state *l = compi_link_view(i, &tmp);
        if (!l->model || i == compi_g.my_node) continue;
        pthread_mutex_lock(&l->lock);
        double t = compi_net_time_us(l->model, bytes) * 1e3 / bytes;
        pthread_mutex_unlock(&l->lock);
        if (t > worst) worst = t;
    }
    return worst;
}

int compi_coll_may_compress(const compi_comm_info *ci, size_t size)
{
    return compi_coll_worth(ci, size, 1);
}

/* The message as traces and rules name it. */
static void compi_decision_message(const compi_decision *d, size_t size, size_t elem, compi_trace_msg *m)
{
    memset(m, 0, sizeof *m);
    m->comm_id = d->comm_id;
    m->peer = d->peer;
    m->tag = d->tag;
    m->dtclass = (uint8_t)d->dtclass;
    m->family = (uint8_t)d->fam;
    m->link_cls = COMPI_LINK_INTER;
    m->size = size;
    m->elem_size = elem;
    m->share = (uint32_t)d->share;
    m->own = (uint32_t)d->own;
    int node = d->peer_node >= 0 ? d->peer_node : compi_g.node_count;
    snprintf(m->peer_node, sizeof m->peer_node, "%s", node < compi_g.node_count ? compi_E.node_names[node] : "*");
}

/* The state of the link to d's destination node (the last slot: any remote
 * node, for broadcast roots); NULL before the engine is up or without a model. */
static compi_link_state *compi_decision_link(const compi_decision *d)
{
    if (!compi_E.ready) return NULL;
    compi_link_state *l = compi_link_at(d->peer_node >= 0 ? d->peer_node : compi_g.node_count);
    return l && l->model ? l : NULL;
}

static void compi_decide_adaptive(compi_decision *d, size_t size)
{
    compi_link_state *l = compi_decision_link(d);
    if (!l || d->dtclass < 0 || d->dtclass >= COMPI_CLASS_COUNT) return;
    pthread_mutex_lock(&l->lock);
    compi_window *w = compi_link_window(l, compi_win_group(d->fam), d->dtclass);
    compi_win_action a = COMPI_WIN_RAW;
    if (w) {
        d->link = l;
        a = compi_coll_scope.probe && d->fam >= COMPI_FAM_BCAST
                ? compi_window_classify_probe(w, &compi_cfg.window, size, compi_engine_now_s())
                : compi_window_classify(w, &compi_cfg.window, size, compi_engine_now_s());
        if (a == COMPI_WIN_COMPRESS) d->codec = w->codec;
        else if (a == COMPI_WIN_RAW)
            d->watch = compi_window_watch_due(w, &compi_cfg.window, size, compi_engine_now_s());
    }
    pthread_mutex_unlock(&l->lock);
    d->evaluate = a == COMPI_WIN_EVALUATE;
}

void compi_decide(compi_decision *d, const compi_comm_info *ci, int peer, int tag, const compi_typeinfo *ti,
                  compi_family fam)
{
    compi_decide_in_burst(d, ci, peer, tag, ti, fam, 0);
}

void compi_decide_in_burst(compi_decision *d, const compi_comm_info *ci, int peer, int tag, const compi_typeinfo *ti,
                           compi_family fam, int away)
{
    memset(d, 0, sizeof *d);
    d->mode = ci->mode;
    d->dtclass = ti->dtclass;
    d->comm_id = ci->id;
    d->peer = peer;
    d->tag = tag;
    d->fam = fam;
    d->peer_node = peer >= 0 && peer < ci->peer_count ? ci->peer_node[peer] : -1;
    d->predicted = 1;
    /* an alltoall's blocks from every rank of this node to the ranks
     * elsewhere travel at once: this rank's `away` (every rank elsewhere
     * when not said), as many from each of the node's ranks (not the
     * neighbourhood collectives: node_peers 0 on a topology) */
    d->share = d->own = 1;
    if (fam == COMPI_FAM_ALLTOALL && ci->node_peers > 0 && ci->peer_count > ci->node_peers) {
        int elsewhere = ci->peer_count - ci->node_peers;
        d->own = away > 0 && away < elsewhere ? away : elsewhere;
        d->share = d->own * ci->node_peers;
    }
    size_t size = (size_t)ti->size;
    int remote = peer < 0 ? 1 : compi_peer_is_remote(ci, peer);
    if (!remote || ci->mode == COMPI_MODE_OFF || ci->mode == COMPI_MODE_PROFILE) return;
    if (compi_coll_scope.active && fam >= COMPI_FAM_BCAST) compi_coll_scope.frame_bytes += size;
    COMPI_STAT_ADD(inter_decided, 1);
    if (size == 0 || size < ci->min_bytes) {
        COMPI_STAT_ADD(raw_small, 1);
        return;
    }
    switch (ci->mode) {
    case COMPI_MODE_FIXED: d->codec = ci->codec; return;
    case COMPI_MODE_TRACE:
        /* raw, recorded once the data is contiguous */
        d->trace = compi_E.trace != NULL;
        return;
    case COMPI_MODE_GUIDED:
        if (compi_E.rules) {
            compi_trace_msg m;
            compi_decision_message(d, size, 1, &m);
            const compi_codec *codec;
            if (compi_rules_lookup(compi_E.rules, compi_trace_key(&m), &codec, &d->rule_index)) {
                __atomic_fetch_add(&compi_E.rule_hits, 1, __ATOMIC_RELAXED);
                d->codec = codec;
                d->by_rule = 1;
                d->link = compi_decision_link(d); /* to judge the rule's outcomes */
                return;
            }
            __atomic_fetch_add(&compi_E.rule_misses, 1, __ATOMIC_RELAXED);
        }
        compi_decide_adaptive(d, size);
        return;
    default: compi_decide_adaptive(d, size); return;
    }
}

_Static_assert(COMPI_CHUNK_OFF == COMPI_ESTIMATE_NO_CHUNKS, "one value says: never pipeline");

/* An estimate's context over the link model m: l->model itself while the
 * caller holds l->lock, or a copy of it taken under the lock; threads:
 * compi_pool_speedup_now(), read before the lock is taken. */
static compi_estimate_ctx compi_estimate_ctx_of(const compi_net_link *m, const compi_decision *d, size_t elem,
                                                double threads)
{
    compi_estimate_ctx x = {.link = m,
                            .codecs = &compi_E.codecs,
                            .dtclass = d->dtclass,
                            .elem_size = elem,
                            .level = compi_cfg.level,
                            .chunk_cfg = compi_cfg.chunk,
                            .codec_threads = threads,
                            .share = d->share,
                            .own = d->own};
    return x;
}

size_t compi_decision_chunk(const compi_decision *d, size_t size)
{
    if (!d->codec || compi_cfg.chunk == COMPI_CHUNK_OFF) return 0;
    compi_link_state *l = d->link ? d->link : compi_decision_link(d);
    if (!l) return compi_cfg.chunk && size >= 2 * compi_cfg.chunk ? compi_cfg.chunk : 0;
    /* arithmetic only: under the lock, with no copy of the model */
    double threads = compi_pool_speedup_now();
    pthread_mutex_lock(&l->lock);
    compi_estimate_ctx x = compi_estimate_ctx_of(l->model, d, 1, threads);
    size_t chunk = compi_estimate_chunk(&x, size);
    pthread_mutex_unlock(&l->lock);
    return chunk;
}

void compi_decision_watch(compi_decision *d, const void *src, size_t size)
{
    if (!d->watch || !d->link || d->codec || d->evaluate) return;
    d->watch = 0;
    unsigned sig = compi_window_signature(src, size);
    compi_link_state *l = d->link;
    pthread_mutex_lock(&l->lock);
    compi_window *w = compi_link_window(l, compi_win_group(d->fam), d->dtclass); /* made when deciding */
    d->evaluate = compi_window_data_changed(w, &compi_cfg.window, sig);
    pthread_mutex_unlock(&l->lock);
}

void compi_decision_evaluate(compi_decision *d, const void *src, size_t size, const compi_typeinfo *ti)
{
    if (d->trace) {
        compi_trace_msg m;
        compi_decision_message(d, size, ti->elem_size, &m);
        m.seq = __atomic_fetch_add(&compi_E.trace_seq, 1, __ATOMIC_RELAXED);
        compi_trace_record(compi_E.trace, &m, src);
        return;
    }
    if (!d->evaluate || !d->link) return;
    compi_link_state *l = d->link;
    compi_net_link m;
    compi_estimate best;
    double threads = compi_pool_speedup_now();
    pthread_mutex_lock(&l->lock);
    m = *l->model; /* the evaluation codes samples after the lock is given back */
    compi_estimate_ctx x = compi_estimate_ctx_of(&m, d, ti->elem_size, threads);
    compi_window *w = compi_link_window(l, compi_win_group(d->fam), d->dtclass); /* made when deciding */
    double need = compi_window_threshold(w, compi_cfg.min_speedup);
    x.incumbent = w->codec;
    x.costs = &compi_eval_costs;
    pthread_mutex_unlock(&l->lock);
    uint64_t t0 = compi_now_ns();
    compi_estimate_best(&x, src, size, compi_cfg.sample_bytes, need, compi_engine_scratch(), &best);
    COMPI_STAT_ADD(evaluate_ns, compi_now_ns() - t0);
    COMPI_STAT_ADD(evaluations, 1);
    /* raw: the raw zone's watch compares the next messages with these data */
    unsigned sig = best.codec ? 0 : compi_window_signature(src, size);
    pthread_mutex_lock(&l->lock);
    compi_window_evaluated(w, &compi_cfg.window, size, best.codec, best.speedup);
    if (!best.codec) compi_window_note_data(w, sig);
    pthread_mutex_unlock(&l->lock);
    d->codec = best.codec;
    d->predicted = best.speedup;
}

void compi_decision_outcome(compi_decision *d, size_t size, long long out_len, uint64_t compress_ns)
{
    if (!d || !d->link || !d->codec) return;
    if (d->outcome_later) {
        d->outcome_kept = 1;
        d->out_size = size;
        d->out_len = out_len;
        d->out_ns = compress_ns;
        return;
    }
    if (out_len > 0 && (size_t)out_len < size && compi_coll_scope.active && d->fam >= COMPI_FAM_BCAST)
        compi_coll_scope.saved_bytes += size - (size_t)out_len;
    compi_link_state *l = d->link;
    /* once per compressed message: the estimate reads the model under the
     * lock the window's update takes anyway, with no copy of it */
    double threads = compi_pool_speedup_now();
    pthread_mutex_lock(&l->lock);
    compi_estimate_ctx x = compi_estimate_ctx_of(l->model, d, 1, threads);
    double tc_us = (double)compress_ns * 1e-3, achieved;
    if (out_len <= 0) {
        /* sent raw after paying for (part of) a compression */
        double raw = compi_estimate_net_us(&x, (double)size);
        achieved = raw / (raw + tc_us + 1e-3);
    } else {
        achieved = compi_estimate_speedup(&x, d->codec, size, (double)size / (double)out_len, tc_us);
        /* what coding it cost at its ratio: the next evaluation's expected cost */
        x.costs = &compi_eval_costs;
        if (compress_ns) compi_estimate_note(&x, d->codec, size, (double)size / (double)out_len, tc_us);
    }
    if (d->by_rule) {
        pthread_mutex_unlock(&l->lock);
        /* A rule that keeps failing was made from other data than this run's:
         * drop it, the same mistake count that restarts an adaptive study. */
        if (compi_rules_outcome(compi_E.rules, d->rule_index, compi_outcome_is_mistake(achieved),
                                compi_cfg.window.restart_mistakes, compi_cfg.window.history))
            compi_log(2,
                      "guided rule for message %u/%d/%d (%zu bytes, %s) dropped: %u of its last %u compressions "
                      "did not pay; deciding it adaptively",
                      d->comm_id, d->peer, d->tag, size, d->codec->name, compi_cfg.window.restart_mistakes,
                      compi_cfg.window.history);
        return;
    }
    compi_window *w = compi_link_window(l, compi_win_group(d->fam), d->dtclass);
    if (w && d->codec == w->codec) compi_window_wire(w, out_len > 0 ? (size_t)out_len : size);
    if (w && out_len > 0) compi_window_ratio(w, &compi_cfg.window, d->codec, (double)size / (double)out_len);
    if (w) compi_window_outcome(w, &compi_cfg.window, achieved, compi_engine_now_s());
    pthread_mutex_unlock(&l->lock);
}

void compi_decision_outcome_due(compi_decision *d)
{
    d->outcome_later = 0; /* later outcomes (a pipelined message's) are recorded when they come */
    if (!d->outcome_kept) return;
    d->outcome_kept = 0;
    COMPI_STAT_ADD(outcomes_after_send, 1);
    compi_decision_outcome(d, d->out_size, d->out_len, d->out_ns);
}
