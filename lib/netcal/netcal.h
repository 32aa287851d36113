/* SPDX-License-Identifier: BSD-3-Clause */
/* Network calibration: measures the network model (engine/model.h) of the
 * nodes a communicator spans, with ping-pong round trips between node
 * leaders. Uses only PMPI_* calls, so the same code runs inside libcompi (at
 * MPI_Init, COMPI_CALIBRATE=init) and in the plain MPI program behind
 * `compi calibrate network` (tools/calibrate/calibrate_network.c).
 *
 * What is measured (all collective over comm):
 *   inter  every pair of nodes, leader to leader (leader = lowest rank of a
 *          node). The pairs run in parallel in a round-robin tournament: N-1
 *          rounds of N/2 disjoint pairs (N rounded up to even), so N nodes
 *          take O(N) rounds, not O(N^2) sequential pair measurements.
 *   intra  per node with at least two ranks: its leader and the next rank of
 *          that node, all nodes at once, before the inter rounds (quick over
 *          shared memory, so a budget goes mostly to the inter pairs).
 *   With opts->serial every pair is a phase of its own instead (one host).
 *   Sizes min_bytes, min_bytes << size_shift, ... up to max_bytes (by default
 *   2 B, 4 B, ...: powers of two). Per size the median
 *   of `reps` round trips (fewer above 1 MiB, at least 3, or reps if fewer),
 *   one-way time = round trip / 2. A pair stops growing sizes once one
 *   round trip takes more than max_rtt_s (that size is still recorded).
 *   Defaults "* *": per size the median over the measured pairs of a class.
 *   Each link's latency and bandwidth come from a robust fit of its times
 *   (compi_net_link_fit: Theil-Sen); a degenerate fit (flat or negative
 *   slope, latency outliers) is left out of the model (out->nrejected and
 *   out->rejected say which and why), so a class default takes its place,
 *   or the caller's built-in one.
 *
 * Time budget: budget_s bounds the whole measurement. It is shared out over
 * the remaining phases (the intra phase, then the rounds) as they start; a phase
 * stops growing sizes when the next size (predicted at twice the last
 * size's time) would overrun its share, once it has min_sizes of them. Decisions use rank 0's clock and are
 * agreed by an allreduce after every size, so all ranks stop together.
 * Pairs that a spent budget leaves unmeasured fall back to the class default.
 *
 * Recommended options at MPI_Init (compi_netcal_opts_init): max 1 MiB, 5
 * reps, round trips up to 50 ms, budget 0.5 s -- well under a second on any
 * network, still enough points for alpha and the mid-size bandwidth. */
#ifndef COMPI_NETCAL_H
#define COMPI_NETCAL_H

#include <stddef.h>
#include <mpi.h>
#include "engine/model.h"

typedef struct {
    size_t max_bytes; /* largest message (sizes are 2, 4, ... <= max_bytes) */
    int reps;         /* round trips per size, median kept (>= 1) */
    double max_rtt_s; /* a pair stops growing once a round trip exceeds this; <= 0: no limit */
    double budget_s;  /* bound on the total time (rank 0's clock); <= 0: none */
    int verbose;      /* 1: rank 0 reports each phase on stderr; 2: each size too */
    size_t min_bytes; /* smallest message (>= 2) */
    int size_shift;   /* sizes grow by 2^size_shift (>= 1) */
    int min_sizes;    /* sizes every phase measures, budget or not (>= 1) */
    int fastest;      /* per size the fastest round trip, not the median */
    int serial;       /* one pair at a time (inter pairs, then intra), not a round's
                        * pairs at once: for fake nodes sharing one host, whose
                        * concurrent pairs would compete for its cores */
    int oneway;       /* the partner answers each message with an empty one: a
                         size's one-way time is its round trip less half an
                         empty round trip (timed first), and the link carries
                         the bytes once, not twice; each size's warm-up
                         message (at least 32 KiB) drains a shaper's burst;
                         each link's latency is the empty messages' one-way
                         time, not the fit's intercept */
    int inter_only;   /* measure the inter-node pairs only (no intra phase) */
    /* tests (COMPI_DEBUG_LINK_TIMES): the one-way times of a link of
     * inject_alpha_us and inject_beta_ns per byte replace the measured ones,
     * every inject_outlier_every-th size 50x slower (0: none), behind a
     * token bucket passing inject_burst bytes at once */
    int inject;
    double inject_alpha_us, inject_beta_ns;
    int inject_outlier_every;
    double inject_burst; /* bytes a token bucket passes at once (0: none) */
} compi_netcal_opts;

/* `compi calibrate network` defaults: 128 MiB, 20 reps, 30 s round trips, no budget. */
void compi_netcal_opts_tool(compi_netcal_opts *o);
/* MPI_Init defaults: 1 MiB, 5 reps, 50 ms round trips, 0.5 s budget. */
void compi_netcal_opts_init(compi_netcal_opts *o);

/* The node map of comm: ranks sharing memory (MPI_COMM_TYPE_SHARED) form a
 * node, numbered by their lowest rank; names from MPI_Get_processor_name of
 * each node's leader (blanks and '#' replaced by '_', cut to fit). With
 * ranks_per_node > 0, fake nodes instead: rank r is on node r / K, named
 * "node<i>" (tests on one host). Collective. *node_of_rank (comm size
 * entries) and *node_names (*nnodes entries) are malloc'd: free both. */
int compi_netcal_node_map(MPI_Comm comm, int ranks_per_node, int *nnodes, int **node_of_rank,
                          char (**node_names)[COMPI_NET_NAME_MAX]);

/* A processor name as a node name (the cleaning compi_netcal_node_names
 * applies): dst holds COMPI_NET_NAME_MAX bytes. */
void compi_netcal_clean_name(char *dst, const char *src, int node);

/* The names of the nodes of a node map (node_of_rank: size of comm entries,
 * nodes numbered 0..nnodes-1 in the order of their lowest rank, the same on
 * every rank): with ask_mpi, MPI_Get_processor_name of each node's lowest
 * rank, cleaned as above, gathered from those ranks only; else "node<i>".
 * Collective when ask_mpi. *node_names (nnodes entries) is malloc'd.
 * Returns COMPI_OK, COMPI_ERR_NOMEM (on every rank) or an MPI error code. */
int compi_netcal_node_names(MPI_Comm comm, int nnodes, const int *node_of_rank, int ask_mpi,
                            char (**node_names)[COMPI_NET_NAME_MAX]);

/* Measures the network model (see above). Collective over comm; every rank
 * passes the same nnodes / node_of_rank (size of comm entries, values
 * 0..nnodes-1) / node_names (nnodes entries) / opts. Every rank gets the
 * whole model in *out (free with compi_net_free) and, if seconds_spent is
 * not NULL, rank 0's wall time for the measurement. A single node with a
 * single rank gives a model with no links. Returns COMPI_OK, a negative
 * compi_status (COMPI_ERR_NOMEM, COMPI_ERR_CONFIG for bad arguments; the
 * same on every rank) or an MPI error code. */
int compi_netcal_measure(MPI_Comm comm, int nnodes, const int *node_of_rank,
                         const char (*node_names)[COMPI_NET_NAME_MAX], const compi_netcal_opts *opts,
                         compi_net_model *out, double *seconds_spent);

#endif
