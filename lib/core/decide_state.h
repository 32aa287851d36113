/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive engine's state, shared by the files of the decision:
 * decide.c (init and deciding), learn.c (learning the links from traffic
 * and agreeing the collective floors) and decide_report.c (the engine's
 * report section). Private to lib/core. */
#ifndef COMPI_CORE_DECIDE_STATE_H
#define COMPI_CORE_DECIDE_STATE_H
#include <pthread.h>
#include <stdint.h>
#include "core/decide.h"
#include "engine/linkest.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "engine/window.h"
#include "netcal/netcal.h"

/* Window groups: every point-to-point family is one group, each collective
 * family its own. */
#define COMPI_WIN_GROUPS (1 + COMPI_FAM_COUNT - COMPI_FAM_BCAST)

typedef struct compi_link_state {
    pthread_mutex_t lock;
    const compi_net_link *model; /* &est.model: the prior until learned */
    compi_linkest est;           /* learned from traffic (engine/linkest.h) */
    uint64_t reopened;           /* windows re-studied because the model changed */
    uint64_t sender_bound;       /* pipelined samples left out: the sender's codec was the bottleneck */
    char name[2 * COMPI_NET_NAME_MAX + 16];
    compi_window *win[COMPI_WIN_GROUPS]; /* [group][class], NULL until the group's first message */
} compi_link_state;

/* The name of each window group, for the report. */
extern const char *const compi_win_group_names[COMPI_WIN_GROUPS];

typedef struct {
    int ready;
    compi_net_model net;
    compi_codec_model codecs;
    char (*node_names)[COMPI_NET_NAME_MAX];
    /* node_count + 1, the last one "any remote node" (broadcast roots); each
     * NULL until its first use (compi_link_at): a rank of a large job talks
     * to few of the nodes, and a link's state is ~2 KB */
    compi_link_state **links;
    const compi_net_link **priors; /* node_count + 1: each link's model before any learning (NULL: none) */
    int nlinks;
    size_t coll_floor[COMPI_COLL_EXTRA_MAX + 1]; /* per count of extra metadata collectives: below, MPI's own path */
    compi_linksrc net_from;                      /* where the model's links came from: prior, probe or file */
    uint64_t link_seq;                           /* injected timings (COMPI_DEBUG_LINK_TIMES): samples so far */
    uint64_t t0_ns;
    double calibrate_s;
    pthread_key_t scratch_key;
    /* guided strategy */
    compi_trace_writer *trace;
    compi_rules *rules;
    uint64_t rule_hits, rule_misses;
    uint64_t trace_seq;
} compi_engine_state;
extern compi_engine_state compi_E;

/* The state of the link to node (node_count: any remote node), created at
 * its first use; NULL without memory. */
compi_link_state *compi_link_at(int node);
/* The link's state to read: the live one if it was ever used, else *tmp
 * filled as compi_link_at would create it. */
compi_link_state *compi_link_view(int node, compi_link_state *tmp);

/* COMPI_DEBUG_LINK_TIMES into a network measurement's options (decide.c). */
void compi_engine_inject_timings(compi_netcal_opts *o);

/* At MPI_Init: probes the links known only from the prior and sets the
 * start-up collective floors from them (learn.c). Collective over compi's
 * side communicator; an MPI error code. */
int compi_engine_probe_init(void);

/* Seconds since the engine started. */
double compi_engine_now_s(void);

#endif
