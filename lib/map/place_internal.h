/* SPDX-License-Identifier: BSD-3-Clause */
/* What the placement files share (lib/map only; the public header is
 * place.h):
 *
 *   place_pins.c     the algorithms a traced run used (ALGS text) and one
 *                    call's messages under them
 *   place_graph.c    the communication graph from the traced profiles
 *   place_net.c      the network from --hosts and the calibrated model
 *   place_cost.c     a placement's predicted cost, inter-node bytes,
 *                    bottleneck
 *   place_mappers.c  the mappers; the only file that uses Scotch */
#ifndef COMPI_MAP_PLACE_INTERNAL_H
#define COMPI_MAP_PLACE_INTERNAL_H

#include "map/place.h"

/* s as a whole decimal number: 0, else -1 */
int compi_place_num(const char *s, long *out);

/* The messages of one call under the traced algorithms a (the run's pins,
 * else the MPI's decision; MPICH's unpinned ones by Open MPI's stand-in,
 * *approx set then). 0 or a COMPI_MAP_E* code. */
int compi_place_decompose(const compi_map_call *c, const compi_map_algs *a, compi_map_msgs *out, int *approx);

/* Node-aware call q of g under the placement node (world rank -> node):
 * its messages in out (comm ranks), its steps in ph (may be NULL). */
int compi_place_nodeaware_call(const compi_map_graph *g, int q, const int *node, compi_map_msgs *out,
                               compi_map_phases *ph);
/* Every message of every node-aware call under the placement node, world
 * ranks, calls x bytes, to fn; scratch messages in out. */
typedef void (*compi_place_msg_fn)(void *ctx, int src, int dst, double msgs, double bytes);
int compi_place_nodeaware_each(const compi_map_graph *g, const int *node, compi_map_msgs *out, compi_place_msg_fn fn,
                               void *ctx);
/* a compi_place_msg_fn: adds the message to the matrices of the graph ctx */
void compi_place_mat_msg(void *ctx, int src, int dst, double msgs, double bytes);

/* What the matrices do not price alone under the placement node: the
 * sequences' makespans and the node-aware collectives (microseconds). */
double compi_place_adjust(const compi_map_problem *p, const int *node);

#endif
