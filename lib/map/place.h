/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: from traces to a placement (OPP). MPI-free.
 *
 *   communication graph  n x n world ranks: messages and bytes sent from
 *                        row to column, point-to-point as traced and every
 *                        collective decomposed by the DKB (map.h) for the
 *                        algorithms the traced run used (the trace's ALGS);
 *                        collectives compi ran with its own node-aware
 *                        algorithm are decomposed per placement instead
 *                        (compi_map_nodeaware below)
 *   network              nodes with slots; per ordered node pair (the
 *                        diagonal: inside a node) a latency and a cost per
 *                        byte, from `compi calibrate network` (engine/model.h)
 *   cost of a placement  sum over rank pairs of msgs x latency + bytes x
 *                        cost per byte of the link the pair lands on (us),
 *                        except for rooted linear collectives (Gatherv,
 *                        Scatterv): their messages cost the makespan of
 *                        the root's ordered sequence on per-node-pair
 *                        FIFO links (compi_map_seq below) instead of
 *                        their sum
 *   bottleneck           the most loaded directed inter-node link (the
 *                        sum's share of it): breaks near-ties (compi map)
 *   mappers              block, cyclic, random, swap (MPIPP-style pair
 *                        exchanges to a local optimum from several starts),
 *                        scotch (SCOTCH_graphMap onto SCOTCH_archTleaf, or
 *                        SCOTCH_archCmpltw when nodes differ in slots, then
 *                        repaired to the slot counts)
 *
 * A placement is node_of_rank[n]: ranks never exceed a node's slots. */
#ifndef COMPI_MAP_PLACE_H
#define COMPI_MAP_PLACE_H

#include <stddef.h>
#include <stdint.h>
#include "engine/commprof.h"
#include "engine/model.h"
#include "map/map.h"

/* ---- the algorithms a traced run used (the trace's ALGS text) ---- */
typedef struct {
    int mpich;                 /* 0: Open MPI 4.1, 1: MPICH 4.0 */
    int dynamic;               /* Open MPI: coll_tuned_use_dynamic_rules */
    int alg[COMPI_MAP_NCOLLS]; /* Open MPI id / MPICH table id; 0 = not pinned */
    uint32_t segsize[COMPI_MAP_NCOLLS];
    int tree_fanout[COMPI_MAP_NCOLLS], chain_fanout[COMPI_MAP_NCOLLS]; /* 0 = default */
} compi_map_algs;
/* NULL or empty text: Open MPI, fixed rules. A value lib/map does not know
 * (an algorithm name or number) fails with err naming it. */
int compi_map_algs_parse(const char *text, compi_map_algs *a, char *err, size_t errlen);

/* ---- communication graph ---- */
/* A rooted linear collective as the root runs it: one message per peer, in
 * the order the root handles them (communicator rank order). Its messages
 * are also in the graph's matrices (they are the traffic); the cost prices
 * them by the sequence's makespan instead of their sum (place_cost.c):
 *   blocking  Open MPI 4.1 coll/basic: MPI_Send / MPI_Recv one peer after
 *             the other. A send above COMPI_MAP_EAGER_BYTES (rendezvous)
 *             returns once its handshake got through the link, queued
 *             behind the data already on it (TCP: the data then drains from
 *             the socket buffer while the root goes on); a receive waits for
 *             the whole message before the next is posted.
 *   posted    MPICH 4.0: every Isend/Irecv posted at once, then Waitall:
 *             each link drains its messages back to back, links in parallel.
 * Links are directed node pairs working in parallel (what `compi calibrate
 * network` measures pair by pair and the emulated cluster's per-destination
 * classes do); a message on link l costs lat(l) + bytes x cost per byte(l). */
#define COMPI_MAP_EAGER_BYTES 65536.0
typedef struct {
    int root;     /* world rank */
    int recv;     /* 0: the root sends (Scatterv), 1: it receives (Gatherv) */
    int blocking; /* 1: blocking, one after another; 0: all posted at once */
    int len;
    int *peer; /* world ranks, in the root's order */
    double *bytes;
    double calls;
} compi_map_seq;

/* A collective compi ran with its own node-aware algorithm (the trace's
 * path, commprof.h): its messages depend on which ranks share a node, so it
 * is not in the matrices; the cost decomposes it under each placement
 * (map.h's compi_map_compi_messages, the MPI's DKB for its sub-steps). */
typedef struct {
    compi_map_compi_call c; /* c.node unset; c.call.counts owned */
    int *world;             /* communicator rank -> world rank */
    double calls;
} compi_map_nodeaware;

typedef struct {
    int n;
    double *msgs, *bytes;                   /* n x n, row = sender (world ranks) */
    uint64_t approximated[COMPI_PROF_NFAM]; /* calls decomposed by a stand-in (see place_graph.c) */
    uint64_t node_aware[COMPI_PROF_NFAM];   /* calls that ran compi's algorithm (priced per placement) */
    int nseq, capseq;
    compi_map_seq *seq; /* rooted linear collectives (above) */
    int nna, capna;
    compi_map_nodeaware *na; /* compi's node-aware collectives (above) */
    compi_map_algs algs;     /* the traced run's algorithms (set by compi_map_graph_add) */
    double *frame_ratio;     /* n x n or NULL: compression ratio of compi's frames from row to column */
} compi_map_graph;
/* The compression ratios of compi's frames between world ranks (n x n, row =
 * sender; <= 1 or 0: unknown): a pair without one takes its sender's mean
 * over the pairs that have one, else raw. Copied. 0 or COMPI_MAP_ENOMEM. */
int compi_map_graph_set_frame_ratio(compi_map_graph *g, const double *ratio);
/* Adds a sequence (copies peer and bytes; an identical one adds its calls).
 * 0 or COMPI_MAP_ENOMEM / COMPI_MAP_EARG (a peer out of range or the root). */
int compi_map_graph_add_seq(compi_map_graph *g, const compi_map_seq *s);
int compi_map_graph_init(compi_map_graph *g, int n);
void compi_map_graph_free(compi_map_graph *g);
/* Adds one rank's profile: its point-to-point sends and the collective
 * calls this rank stands for (commprof.h). 0, or a COMPI_MAP_E* code with
 * err naming the call. */
int compi_map_graph_add(compi_map_graph *g, const compi_commprof *p, const compi_map_algs *a, char *err, size_t errlen);

/* Adds the node-aware collectives' messages as they are under node_of_rank
 * (e.g. the traced run's placement) to the matrices, and forgets them: the
 * graph of that one placement (compi map --graph-out). 0 or a COMPI_MAP_E*. */
int compi_map_graph_materialize(compi_map_graph *g, const int *node_of_rank);

/* ---- network ---- */
typedef struct {
    int nnodes;
    char (*names)[COMPI_NET_NAME_MAX];
    int *slots;
    unsigned char *slots_hwloc; /* 1: the host's slots are its cores (the model's node line) */
    double *lat_us;             /* nnodes x nnodes, diagonal = inside a node */
    double *us_per_byte;
} compi_map_net;
/* "H1:S1,H2:S2,..." (slots >= 1; a host without ":S" has as many slots as
 * cores when model describes it (its "node" line, hwloc), else 1); links
 * from model (NULL: the built-in model): the exact pair, else the class
 * default; cost per byte = the link's beta at its largest measured size. */
int compi_map_net_build(compi_map_net *net, const char *hosts, const compi_net_model *model, char *err, size_t errlen);
void compi_map_net_free(compi_map_net *net);
int compi_map_net_slots(const compi_map_net *net);

/* ---- cost and mappers ---- */
typedef struct {
    const compi_map_graph *g;
    const compi_map_net *net;
} compi_map_problem;
/* Predicted communication time of the placement, microseconds: the sum
 * over the graph's edges, with each sequence's messages priced by the
 * sequence's makespan (calls x makespan) instead of their sum, plus compi's
 * own collectives under this placement: each call step by step, a step
 * costing its busiest link (the sum of its messages' costs on that directed
 * node pair: links work in parallel, as in a sequence), or, a step that is
 * the MPI's Gatherv or Scatterv (compi's rooted frames), its root's
 * sequence's makespan. */
double compi_map_cost(const compi_map_problem *p, const int *node_of_rank);
/* One call of sequence s under the placement: its makespan and the sum of
 * its messages' costs (what the plain sum would charge), microseconds. */
void compi_map_seq_time(const compi_map_problem *p, const compi_map_seq *s, const int *node_of_rank, double *makespan,
                        double *sum);
/* Bytes the placement puts on inter-node links (node-aware collectives included). */
double compi_map_inter_bytes(const compi_map_problem *p, const int *node_of_rank);
/* The load of the most loaded directed inter-node link: max over node pairs
 * x != y of the edges' msgs x latency + bytes x cost per byte landing on
 * x -> y (microseconds; 0 when everything stays inside nodes). */
double compi_map_bottleneck(const compi_map_problem *p, const int *node_of_rank);

typedef enum {
    COMPI_MAPPER_BLOCK = 0,
    COMPI_MAPPER_CYCLIC,
    COMPI_MAPPER_RANDOM,
    COMPI_MAPPER_SWAP,
    COMPI_MAPPER_SCOTCH,
    COMPI_MAPPER_COUNT
} compi_mapper;
const char *compi_mapper_name(compi_mapper m);
/* Fills node_of_rank (g->n entries). seed: random and swap's random starts.
 * 0, or COMPI_MAP_EARG (fewer slots than ranks) / COMPI_MAP_ENOMEM /
 * COMPI_MAP_EUNSUPP (Scotch failed, or the build has no Scotch) with err set. */
int compi_map_run(compi_mapper m, const compi_map_problem *p, uint64_t seed, int *node_of_rank, char *err,
                  size_t errlen);
/* 1 when the scotch mapper is built in (CMake option COMPI_WITH_SCOTCH). */
int compi_map_have_scotch(void);
/* swap's descent alone, from the placement in node_of_rank (tests). */
int compi_map_swap_descend(const compi_map_problem *p, int *node_of_rank);

#endif
