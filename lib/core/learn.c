/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive engine learns each link from the traffic compi carries
 * (engine/linkest.h estimates it), probes links known only from the prior,
 * and agrees the collective floors from what it learned. */
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
#include "core/decide_state.h"

/* ------------------------------------------------------------------ learning the links */

/* What learning says is for a user of the adaptive engine, once: rank 0's
 * view at COMPI_VERBOSE=1, every rank's at 2. */
static int compi_learn_level(void)
{
    return compi_g.world_rank == 0 && (compi_cfg.mode == COMPI_MODE_ADAPTIVE || compi_cfg.mode == COMPI_MODE_GUIDED)
               ? 1
               : 2;
}

/* Whether a decision could move from model `was` to l's: the predicted
 * wire time of some message size a window judges (min_bytes .. 64 MiB)
 * moved by more than the factor that makes a learned model change
 * (COMPI_LINKEST_CHANGE). A probe that finds 118 MB/s where the prior said
 * 125 changes no decision and costs no evaluation. */
static int compi_link_decisions_move(const compi_net_link *was, const compi_net_link *now)
{
    for (double s = compi_cfg.min_bytes > 0 ? (double)compi_cfg.min_bytes : 1; s <= 64.0 * 1024 * 1024; s *= 2) {
        double a = compi_net_time_us(was, s), b = compi_net_time_us(now, s);
        if (a <= 0 || b <= 0 || b > a * COMPI_LINKEST_CHANGE || a > b * COMPI_LINKEST_CHANGE) return 1;
    }
    return 0;
}

/* The model of l changed from `was`: where that could move a decision, its
 * windows study afresh (their zones were drawn with the old model), and
 * COMPI_VERBOSE=1 says so. l->lock held. */
static void compi_link_model_changed(compi_link_state *l, const compi_net_link *was)
{
    int reopen = compi_link_decisions_move(was, &l->est.model);
    for (int g = 0; reopen && g < COMPI_WIN_GROUPS; g++)
        for (int c = 0; l->win[g] && c < COMPI_CLASS_COUNT; c++) {
            compi_window *w = &l->win[g][c];
            if (w->no_len == compi_cfg.window.floor && w->yes_len == SIZE_MAX) continue;
            w->no_len = compi_cfg.window.floor;
            w->yes_len = SIZE_MAX;
            w->codec = NULL;
            l->reopened++;
        }
    double beta = compi_linkest_beta_ns(&l->est);
    double was_beta = was->npoints ? was->beta_ns[was->npoints - 1] : 0;
    char from[48] = "";
    if (l->est.source != COMPI_LINKSRC_PROBE)
        snprintf(from, sizeof from, " from %llu sample(s)", (unsigned long long)l->est.samples);
    compi_log(compi_learn_level(), "link %s %s%s: latency %.1f us, %.1f MB/s (was %.1f us, %.1f MB/s); %s", l->name,
              l->est.source == COMPI_LINKSRC_PROBE ? "probed" : "learned", from, l->est.model.alpha_us,
              beta > 0 ? 1e3 / beta : 0, was->alpha_us, was_beta > 0 ? 1e3 / was_beta : 0,
              reopen ? "its compression decisions are studied again" : "no decision moves");
}

/* The injected link's time (COMPI_DEBUG_LINK_TIMES) for a chunk of
 * wire_bytes after head bytes of its message, without latency. */
static double compi_injected_wire_us(double wire_bytes, double head)
{
    return compi_linkest_injected_us(compi_cfg.debug_link.alpha_us, compi_cfg.debug_link.beta_ns, 0, 0, wire_bytes, 0,
                                     compi_cfg.debug_link.burst_bytes, head);
}

double compi_engine_injected_chunk_us(double wire_bytes, double head, double gap_us)
{
    double wire = compi_injected_wire_us(wire_bytes, head);
    return gap_us > wire ? gap_us : wire;
}

double compi_engine_injected_gap_us(double len)
{
    return compi_cfg.debug_link.code_ns * len * 1e-3;
}

/* One rate sample for the link to world rank peer's node: `bytes` back to
 * back in `us`, in `chunks` messages (injected timings: already the injected link's, every K-th
 * sample made the outlier here). */
static void compi_engine_observe_rate(int world_peer, double bytes, double us, double chunks)
{
    if (!compi_E.ready || !compi_cfg.refresh || world_peer < 0 || world_peer >= compi_g.world_size) return;
    int node = compi_g.node_of_world[world_peer];
    if (node == compi_g.my_node) return;
    compi_link_state *l = compi_E.priors[node] ? compi_link_at(node) : NULL;
    if (!l || !l->model) return;
    if (compi_cfg.debug_link.set) {
        uint64_t seq = __atomic_fetch_add(&compi_E.link_seq, 1, __ATOMIC_RELAXED);
        int every = compi_cfg.debug_link.outlier_every;
        if (every > 0 && seq % (uint64_t)every == (uint64_t)every - 1) us *= 50;
    }
    pthread_mutex_lock(&l->lock);
    compi_net_link was = l->est.model;
    uint64_t rejected = l->est.fits_rejected;
    if (compi_linkest_add_chunks(&l->est, bytes, us, chunks)) compi_link_model_changed(l, &was);
    else if (l->est.fits_rejected != rejected && rejected == 0)
        compi_log(compi_learn_level(), "link %s: a fit of its samples was rejected (%s); keeping its %s model", l->name,
                  l->est.last_rejection, compi_linksrc_name(l->est.source));
    pthread_mutex_unlock(&l->lock);
}

void compi_engine_sender_bound(int world_peer)
{
    if (!compi_E.ready || !compi_cfg.refresh) return;
    int node = world_peer >= 0 && world_peer < compi_g.world_size ? compi_g.node_of_world[world_peer] : -1;
    compi_link_state *l = node >= 0 && node != compi_g.my_node ? compi_link_at(node) : NULL;
    if (l) __atomic_fetch_add(&l->sender_bound, 1, __ATOMIC_RELAXED);
}

/* A sender busier compressing than the link was moving bytes times its
 * codec, not the link: kept only when the flow took over twice the
 * compression time it implies. Also where the sender's pace hint kept the
 * chunks: a sender without a progress thread may leave a chunk's bytes
 * unmoved while it codes the next, and their arrival then times both. */
#define COMPI_PIPE_LINK_BOUND 2.0
void compi_engine_observe_pipe(int world_peer, double bytes, double us, double chunks, int codec_id, int dtclass,
                               double ratio, double decode_us)
{
    if (!compi_E.ready || !compi_cfg.refresh) return;
    const compi_codec *c = codec_id ? compi_codec_by_id((uint8_t)codec_id) : NULL;
    if (c && !compi_cfg.debug_link.set) {
        double d_over_c = compi_codec_model_d_over_c(&compi_E.codecs, c, dtclass, ratio);
        double compress_us = d_over_c > 0 ? decode_us / d_over_c : 0;
        if (us < COMPI_PIPE_LINK_BOUND * compress_us) {
            compi_engine_sender_bound(world_peer);
            return;
        }
    }
    compi_engine_observe_rate(world_peer, bytes, us, chunks);
}

/* Agreement points on a communicator: its 2nd, 4th, ... 64th collective,
 * then every 64th; every rank counts the same calls. */
static int compi_floor_sync_due(uint64_t calls)
{
    return calls >= 2 && (calls % 64 == 0 || (calls <= 64 && (calls & (calls - 1)) == 0));
}

/* This rank's floor proposals (its slowest learned or probed link's
 * floors; ~0 = no opinion) into v[0..COMPI_COLL_EXTRA_MAX), and in
 * v[COMPI_COLL_EXTRA_MAX] 0 if a link to a node of the group (nranks ranks
 * on nodes node_of_rank[]) still has only the prior (1 otherwise), for a
 * MIN allreduce. COMPI_SYNC_WORDS in all. */
#define COMPI_SYNC_WORDS (COMPI_COLL_EXTRA_MAX + 1)
static void compi_floor_proposal(const int *node_of_rank, int nranks, unsigned long long *v)
{
    for (int k = 0; k < COMPI_COLL_EXTRA_MAX; k++) v[k] = ~0ULL;
    v[COMPI_COLL_EXTRA_MAX] = 1;
    compi_link_state tmp;
    for (int i = 0; i < compi_g.node_count; i++) {
        compi_link_state *l = compi_link_view(i, &tmp);
        if (i == compi_g.my_node || !l->model) continue;
        pthread_mutex_lock(&l->lock);
        compi_net_link m = l->est.model;
        compi_linksrc src = l->est.source;
        pthread_mutex_unlock(&l->lock);
        if (src == COMPI_LINKSRC_PRIOR)
            for (int r = 0; r < nranks; r++)
                if (node_of_rank[r] == i) {
                    v[COMPI_COLL_EXTRA_MAX] = 0;
                    break;
                }
        if (src != COMPI_LINKSRC_LEARNED && src != COMPI_LINKSRC_PROBE) continue;
        for (int k = 0; k < COMPI_COLL_EXTRA_MAX; k++) {
            unsigned long long f = compi_net_coll_floor(&m, compi_cfg.min_bytes, k + 1);
            if (f < v[k]) v[k] = f;
        }
    }
}

/* The bounded probe: netcal's round trips between the node leaders of
 * comm (its own duplicate of comm), sizes 16 KiB .. 256 KiB doubling,
 * within COMPI_PROBE_BUDGET_S (the three smallest sizes whatever the
 * budget: at 100 Mbit/s 16 .. 64 KiB, about 30 ms, at 1 Gbit/s all of
 * them). Not from 8 KiB: on a shaped 100 Mbit/s link 8 KiB messages passed
 * at memory speed in half of the probes despite the warm-up (20-180 us
 * instead of 650 us), and the fit, with one size of three wrong, was
 * rejected; from 16 KiB the fastest of 2 matched the link. It runs at
 * MPI_Init or inside an application's collective, so it is kept cheap:
 * the latency is an empty message's one-way time (the fit's intercept is
 * noise where the sizes take milliseconds), each message
 * is answered with an empty one (the link carries the probe's bytes once),
 * and the intra-node pairs, which the probe's result does not use, are
 * not measured. Per size one warm-up message of at least 32 KiB drains the
 * burst a shaper's token bucket or a switch's buffer passes at once after
 * an idle moment, then the fastest of 2 (a loaded node delays, never
 * speeds, a message) times the link's steady state. Links that still have
 * only the prior take the probed model unless its fit (engine/model.h) was
 * degenerate. Collective over comm. */
#define COMPI_PROBE_MAX_BYTES (256 * 1024)
#define COMPI_PROBE_BUDGET_S 0.04
#define COMPI_PROBE_TRIES 3
static int compi_engine_probe(MPI_Comm comm, const int *node_of_rank, const char *where)
{
    compi_netcal_opts o;
    compi_netcal_opts_init(&o);
    o.max_bytes = COMPI_PROBE_MAX_BYTES;
    o.min_bytes = COMPI_PROBE_MAX_BYTES / 16; /* 16 .. 256 KiB: sizes where the bytes show */
    o.size_shift = 1;
    o.min_sizes = 3; /* the fewest a robust fit takes */
    o.fastest = 1;   /* see above */
    o.reps = 2;
    o.budget_s = COMPI_PROBE_BUDGET_S;
    o.serial = compi_cfg.ranks_per_node > 0;
    o.oneway = 1;
    o.inter_only = 1;
    compi_engine_inject_timings(&o);
    compi_net_model m;
    double spent = 0;
    int rc = compi_netcal_measure(comm, compi_g.node_count, node_of_rank,
                                  (const char(*)[COMPI_NET_NAME_MAX])compi_E.node_names, &o, &m, &spent);
    if (rc != COMPI_OK) {
        compi_log(compi_learn_level(), "link probe %s failed (%d); keeping the models", where, rc);
        return rc > 0 ? rc : MPI_SUCCESS;
    }
    if (m.nrejected)
        compi_log(compi_learn_level(),
                  "link probe %s: %d link(s) rejected, their fit was degenerate (%s); keeping their models", where,
                  m.nrejected, m.rejected);
    const char *me = compi_E.node_names[compi_g.my_node];
    for (int i = 0; i < compi_g.node_count; i++) {
        if (i == compi_g.my_node || !compi_E.priors[i]) continue;
        const compi_net_link *p = compi_net_find(&m, COMPI_LINK_INTER, me, compi_E.node_names[i]);
        /* only a link measured for this pair: the "* *" median may be other pairs' */
        if (!p || strcmp(p->node_a, "*") == 0) continue;
        compi_link_state *l = compi_link_at(i);
        if (!l) continue;
        pthread_mutex_lock(&l->lock);
        compi_net_link was = l->est.model;
        if (compi_linkest_set_probe(&l->est, p)) compi_link_model_changed(l, &was);
        pthread_mutex_unlock(&l->lock);
    }
    compi_log(compi_learn_level(), "link probe %s took %.3f s", where, spent);
    compi_net_free(&m);
    return MPI_SUCCESS;
}

/* Only where the engine decides (adaptive, guided): a trace records the
 * collectives on the static floors, so that compi map's decomposition of
 * compi's own calls does not depend on a measurement. */
int compi_coll_floor_sync(MPI_Comm comm, compi_comm_info *ci)
{
    if (!compi_E.ready || !compi_cfg.refresh || compi_g.node_count < 2 || ci->is_inter ||
        (ci->mode != COMPI_MODE_ADAPTIVE && ci->mode != COMPI_MODE_GUIDED))
        return MPI_SUCCESS;
    if (!compi_floor_sync_due(++ci->coll_calls)) return MPI_SUCCESS;
    /* each rank proposes the floors of its slowest learned link (none
     * learned: no opinion); the smallest proposal wins, so the collectives
     * whose blocks cross the slowest learned link take compi's path, and
     * its gates still send them back to the MPI if they do not pay */
    unsigned long long mine[COMPI_SYNC_WORDS], agreed[COMPI_SYNC_WORDS];
    compi_floor_proposal(ci->peer_node, ci->peer_count, mine);
    int rc = PMPI_Allreduce(mine, agreed, COMPI_SYNC_WORDS, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return rc;
    if (agreed[COMPI_COLL_EXTRA_MAX] == 0 && compi_cfg.probe && ci->probed < COMPI_PROBE_TRIES) {
        /* some rank has a link here it knows only from the prior: measure,
         * then agree again (adapt_probe is the same on every rank: MPI_Init
         * checks it). A probe whose fit was rejected (a loaded node delayed
         * most of its round trips) leaves the link on the prior, so the
         * next agreement point measures it again, up to COMPI_PROBE_TRIES
         * times per communicator. */
        ci->probed++;
        char where[48];
        snprintf(where, sizeof where, "on communicator %u", ci->id);
        if ((rc = compi_engine_probe(comm, ci->peer_node, where)) != MPI_SUCCESS) return rc;
        compi_floor_proposal(ci->peer_node, ci->peer_count, mine);
        rc = PMPI_Allreduce(mine, agreed, COMPI_SYNC_WORDS, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (agreed[0] == ~0ULL) return MPI_SUCCESS;
    size_t was = ci->coll_floor[1] ? ci->coll_floor[1] : compi_E.coll_floor[1];
    for (int k = 0; k < COMPI_COLL_EXTRA_MAX; k++) ci->coll_floor[k + 1] = (size_t)agreed[k];
    if (was != ci->coll_floor[1]) {
        int r = 0;
        PMPI_Comm_rank(comm, &r);
        if (r == 0)
            compi_log(compi_learn_level(),
                      "collective floor of communicator %u: %zu B -> %zu B (from the learned links)", ci->id, was,
                      ci->coll_floor[1]);
    }
    return MPI_SUCCESS;
}

/* At MPI_Init, where the engine decides and learns (adaptive, guided, with
 * adapt_probe) and the links have only the built-in prior: the links are
 * probed at once on compi's side communicator, before the application's
 * first message, so no message is judged by the prior (a 100 Mbit/s link
 * taken for a 1 Gbit/s one picks a fast, weak codec until the first
 * agreement point) and the probe's cost is paid at start-up, not inside
 * the application's collective. The start-up collective floors then follow
 * the probed links (the smallest proposal of all ranks), so a
 * communicator's first collectives already use them. Up to
 * COMPI_PROBE_INIT_MAX_NODES nodes: the probe's tournament takes a round
 * per node; beyond, the communicators' agreement points probe the links
 * their collectives cross. Not on fake nodes (COMPI_DEBUG_RANKS_PER_NODE,
 * tests on one host) unless their link timings are injected: their links
 * are shared memory, whose fit is mostly rejected, and every test would
 * pay for it at start-up. Collective over compi's side communicator. */
#define COMPI_PROBE_INIT_MAX_NODES 8
int compi_engine_probe_init(void)
{
    if (!compi_E.ready || !compi_cfg.refresh || !compi_cfg.probe || compi_g.node_count < 2 ||
        compi_g.node_count > COMPI_PROBE_INIT_MAX_NODES || compi_E.net_from != COMPI_LINKSRC_PRIOR ||
        (compi_cfg.ranks_per_node > 0 && !compi_cfg.debug_link.set) ||
        (compi_cfg.mode != COMPI_MODE_ADAPTIVE && compi_cfg.mode != COMPI_MODE_GUIDED))
        return MPI_SUCCESS;
    int rc = compi_engine_probe(compi_g.aside_comm, compi_g.node_of_world, "at MPI_Init");
    if (rc != MPI_SUCCESS) return rc;
    unsigned long long mine[COMPI_SYNC_WORDS], agreed[COMPI_SYNC_WORDS];
    compi_floor_proposal(compi_g.node_of_world, compi_g.world_size, mine);
    /* a MIN reduction as the rest of the start-up agreement makes it: the
     * maximum of the complements up and down compi's tree (boot.c) */
    for (int k = 0; k < COMPI_SYNC_WORDS; k++) agreed[k] = ~mine[k];
    rc = compi_boot_max(agreed, COMPI_SYNC_WORDS);
    for (int k = 0; k < COMPI_SYNC_WORDS; k++) agreed[k] = ~agreed[k];
    if (rc != MPI_SUCCESS || agreed[0] == ~0ULL) return rc;
    size_t was = compi_E.coll_floor[1];
    for (int k = 0; k < COMPI_COLL_EXTRA_MAX; k++) compi_E.coll_floor[k + 1] = (size_t)agreed[k];
    if (was != compi_E.coll_floor[1])
        compi_log(compi_learn_level(), "collective floor at start-up: %zu B -> %zu B (from the probed links)", was,
                  compi_E.coll_floor[1]);
    return MPI_SUCCESS;
}
