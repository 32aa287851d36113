/* SPDX-License-Identifier: BSD-3-Clause */
/* The choices a communicator's collectives agree on, stored in its node
 * layout: the gates (coll.h, lib/engine/trials.h: compi's path or the MPI's own; the
 * call's clock and the votes) and the leaders' way of a reduction
 * (engine/leaders.h: split or whole; the agreed sizes). */
#include <stdio.h>
#include <stdlib.h>
#include "coll/coll.h"
#include "core/comm.h"
#include "core/decide.h"
#include "core/state.h"
#include "core/stats.h"

static compi_trials_params compi_trials_cfg;
/* COMPI_DEBUG_COLL_TIMES=C,M (microseconds): every call on compi's path is
 * taken to last C, on the MPI's own M, instead of the measured times, so
 * tests see the gate's decisions without timing anything */
static uint64_t compi_trials_fake_ns[2];
static pthread_once_t compi_trials_once = PTHREAD_ONCE_INIT;

static void compi_trials_setup(void)
{
    compi_trials_params_default(&compi_trials_cfg);
    const char *v = getenv("COMPI_DEBUG_COLL_TIMES");
    double c, m;
    char extra;
    if (v && *v) {
        if (sscanf(v, "%lf,%lf%c", &c, &m, &extra) != 2 || !(c > 0) || !(m > 0))
            compi_die("COMPI_DEBUG_COLL_TIMES='%s' is not valid; expected C,M: microseconds of a call on compi's "
                      "path and on the MPI's own, both > 0",
                      v);
        compi_trials_fake_ns[COMPI_TRIALS_PATH_COMPI] = (uint64_t)(c * 1e3);
        compi_trials_fake_ns[COMPI_TRIALS_PATH_MPI] = (uint64_t)(m * 1e3);
    }
}

int compi_gate_size_class(size_t size)
{
    int c = 0;
    while (size > 1 && c < COMPI_GATE_CLASSES - 1) {
        size >>= 1;
        c++;
    }
    return c;
}

int compi_coll_gate_begin(const compi_comm_info *ci, const compi_coll_layout *l, int kind, size_t size,
                          compi_coll_ticket *t)
{
    t->g = NULL;
    t->kind = kind;
    t->path = COMPI_TRIALS_PATH_COMPI;
    t->t0 = 0;
    if (!l || kind < 0 || kind >= COMPI_GATE_KINDS ||
        (ci->mode != COMPI_MODE_ADAPTIVE && ci->mode != COMPI_MODE_GUIDED))
        return t->path;
    pthread_once(&compi_trials_once, compi_trials_setup);
    compi_coll_layout *lw = (compi_coll_layout *)l;
    if (!lw->gates[kind]) {
        /* no gate without memory: compi's path, as before gates (all ranks
         * must agree, so a failure here is fatal rather than a silent split) */
        lw->gates[kind] = malloc(sizeof(compi_trials) * COMPI_GATE_CLASSES);
        if (!lw->gates[kind]) compi_die("out of memory for the collective gates");
        for (int c = 0; c < COMPI_GATE_CLASSES; c++) compi_trials_init(&lw->gates[kind][c]);
    }
    t->g = &lw->gates[kind][compi_gate_size_class(size)];
    int probe;
    t->path = (int)compi_trials_begin(t->g, &compi_trials_cfg, &probe);
    compi_coll_scope_begin(probe);
    t->t0 = compi_now_ns();
    return t->path;
}

int compi_coll_gate_end(compi_coll_ticket *t, MPI_Comm comm)
{
    if (!t->g) return MPI_SUCCESS;
    uint64_t ns = compi_now_ns() - t->t0;
    uint64_t frame_bytes, saved_bytes;
    compi_coll_scope_end(&frame_bytes, &saved_bytes);
    if (compi_trials_fake_ns[t->path]) ns = compi_trials_fake_ns[t->path];
    compi_trials *g = t->g;
    t->g = NULL;
    if (t->path == COMPI_TRIALS_PATH_MPI && t->kind < COMPI_COLL_KINDS) COMPI_COLL_ADD(t->kind, COMPI_COLL_GATED, 1);
    if (!compi_trials_end(g, &compi_trials_cfg, ns, frame_bytes, saved_bytes)) return MPI_SUCCESS;
    uint64_t mine[COMPI_TRIALS_VOTE];
    unsigned long long v[COMPI_TRIALS_VOTE], agreed[COMPI_TRIALS_VOTE];
    compi_trials_vote(g, mine);
    for (int i = 0; i < COMPI_TRIALS_VOTE; i++) v[i] = mine[i];
    int rc = PMPI_Allreduce(v, agreed, COMPI_TRIALS_VOTE, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < COMPI_TRIALS_VOTE; i++) mine[i] = agreed[i];
    int before = g->started ? g->path : -1;
    compi_trials_decide(g, &compi_trials_cfg, mine);
    if (g->phase == COMPI_TRIALS_HOLD && g->path != before)
        compi_log(2, "collective %s: %s path for %u calls (%s; compi %.3f ms, MPI %.3f ms)",
                  t->kind < COMPI_COLL_KINDS ? compi_coll_names[t->kind] : "rooted",
                  g->path == COMPI_TRIALS_PATH_COMPI ? "compi's" : "the MPI's own", g->hold,
                  g->why == COMPI_TRIALS_WHY_COMPRESSED ? "compression saves >= 10 % of the frames"
                  : g->why == COMPI_TRIALS_WHY_FASTER   ? "compi's path faster on raw data"
                                                        : "compression saves < 10 %, the MPI's own not slower",
                  (double)g->agreed_compi_ns * 1e-6, (double)mine[2] * 1e-6);
    return MPI_SUCCESS;
}

void compi_coll_choices_free(compi_coll_layout *l)
{
    for (int k = 0; k < COMPI_GATE_KINDS; k++) {
        free(l->gates[k]);
        l->gates[k] = NULL;
    }
    for (int k = 0; k < 2; k++) {
        free(l->plans[k]);
        l->plans[k] = NULL;
    }
}

static compi_leaders_params compi_leaders_cfg;
static pthread_once_t compi_leaders_once = PTHREAD_ONCE_INIT;
static void compi_leaders_setup(void)
{
    compi_leaders_params_default(&compi_leaders_cfg);
}

compi_leaders_way compi_coll_leaders_begin(const compi_coll_layout *l, int rooted, size_t raw, int whole_ok,
                                           compi_coll_leaders *t)
{
    t->s = NULL;
    t->rooted = rooted;
    t->measure = 0;
    /* every rank has the same type and size, so every leader takes the same branch */
    if (!whole_ok) return COMPI_LEADERS_SPLIT;
    pthread_once(&compi_leaders_once, compi_leaders_setup);
    compi_coll_layout *lw = (compi_coll_layout *)l;
    if (!lw->plans[rooted]) {
        /* as for the gates: all leaders must agree, so no memory is fatal */
        lw->plans[rooted] = malloc(sizeof(compi_leaders_plan) * COMPI_GATE_CLASSES);
        if (!lw->plans[rooted]) compi_die("out of memory for the reductions' plans");
        for (int c = 0; c < COMPI_GATE_CLASSES; c++) compi_leaders_plan_init(&lw->plans[rooted][c]);
    }
    t->s = &lw->plans[rooted][compi_gate_size_class(raw)];
    compi_leaders_way w = compi_leaders_begin(t->s, compi_cfg.coll_leaders, &t->measure);
    COMPI_COLL_ADD(rooted ? COMPI_COLL_REDUCE : COMPI_COLL_ALLREDUCE,
                   w == COMPI_LEADERS_WHOLE ? COMPI_COLL_WHOLE : COMPI_COLL_SPLIT, 1);
    return w;
}

int compi_coll_leaders_end(compi_coll_leaders *t, const compi_coll_layout *l, size_t raw, uint64_t split,
                           uint64_t chunk)
{
    if (!t->s || !t->measure) return MPI_SUCCESS;
    unsigned long long mine[2] = {split, chunk}, agreed[2];
    int rc = PMPI_Allreduce(mine, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, l->leaders);
    if (rc != MPI_SUCCESS) return rc;
    compi_leaders_sizes z = {l->nnodes, (double)raw, (double)agreed[0], (double)agreed[1]};
    /* the default inter-node link: the same static model on every rank */
    const compi_net_link *link = compi_engine_default_link();
    int before = t->s->decided ? t->s->way : -1;
    compi_leaders_decide(t->s, &compi_leaders_cfg, &z, link);
    if (t->s->way != before) {
        double split_us, whole_us;
        compi_leaders_times(&z, &compi_leaders_cfg, link, &split_us, &whole_us);
        compi_log(2, "%s of %zu B over %d nodes: leaders exchange %s (split %.3f ms, whole %.3f ms predicted)",
                  t->rooted ? "reduce" : "allreduce", raw, l->nnodes,
                  t->s->way == COMPI_LEADERS_WHOLE ? "whole partials" : "split chunks", split_us * 1e-3,
                  whole_us * 1e-3);
    }
    return MPI_SUCCESS;
}
