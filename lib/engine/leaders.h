/* SPDX-License-Identifier: BSD-3-Clause */
/* How the node leaders end compi's node-aware reductions (lib/coll/reduce.c).
 *
 * Once every node's leader holds its node's partial result (a node-local
 * MPI reduce), two ways finish the reduction between the p leaders:
 *
 *   split  reduce-scatter, then allgather: each leader gets chunk k of every
 *          other leader's partial as a frame and combines them; the reduced
 *          chunks then go, framed, to every leader (Allreduce) or to the
 *          root's leader (Reduce). Two rounds. A leader sends (p-1)/p of its
 *          partial, then its reduced chunk (p-1 times, or once).
 *   whole  each leader's whole partial goes as one frame to every other
 *          leader (Allreduce) or to the root's leader (Reduce), which
 *          combines every chunk in the order split combines it, so both ways
 *          give the same bits. One round; (p-1) whole partials per leader.
 *
 * Whole pays when partials compress better than reduced results do: data
 * that repeats values within one rank stops repeating once summed over
 * ranks (measured: 1 MiB of double_r75 compresses 3.44x with zstd, the sum
 * of two ranks' 1.74x, of four 1.16x), and it saves a round's latency. It
 * costs more local work (the leader combines and decodes p-1 whole partials
 * instead of 1/p of each) and, when nothing compresses, (p-1)/p more bytes.
 *
 * The choice: per communicator, reduction and size class, from frame sizes
 * every leader agrees on (after a split call each leader gives the bytes of
 * its reduce-scatter frames and of its reduced chunk's frame; the MAX over
 * leaders is agreed with one small allreduce among them) and the static
 * network model every rank shares (the default inter-node link). A decision
 * is held for `hold` calls, then a split call measures again; the hold
 * doubles (to hold_max) while the decision stands. Both ways give the same
 * bits, so the choice changes speed only, never a result.
 *
 * Pure logic, no MPI, no clock: tests replay it (tests/engine/test_leaders.c). */
#ifndef COMPI_ENGINE_LEADERS_H
#define COMPI_ENGINE_LEADERS_H

#include <stdint.h>
#include "engine/model.h"

/* The node structure compi's node-aware collectives run on (lib/coll/layout.c
 * builds its communicators from it) and compi map decomposes them with
 * (lib/map/dkb_compi.c): nodes numbered in the order of their lowest rank,
 * node k's leader its lowest rank, its members members[first[k] ..
 * first[k+1]) in increasing rank order. node_id[r]: any value, equal = same
 * node. Arrays of n entries (first: n + 1), the caller's. Returns the
 * number of nodes. */
int compi_leaders_group(int n, const int *node_id, int *node_of, int *leader_of, int *first, int *members);

/* The split way's chunk c of n elements over p leaders: [*start, *start +
 * *len) (lib/coll/reduce.c cuts by it, lib/map/dkb_compi.c decomposes by it). */
static inline void compi_leaders_chunk(int64_t n, int p, int c, int64_t *start, int64_t *len)
{
    *start = n * c / p;
    *len = n * (c + 1) / p - *start;
}

typedef enum { COMPI_LEADERS_SPLIT = 0, COMPI_LEADERS_WHOLE = 1 } compi_leaders_way;
/* COMPI_COLL_LEADERS: auto (decided as above), split, whole (forced) */
typedef enum { COMPI_LEADERS_AUTO = 0, COMPI_LEADERS_FORCE_SPLIT, COMPI_LEADERS_FORCE_WHOLE } compi_leaders_policy;
#define COMPI_LEADERS_POLICY_NAMES "auto, split, whole"
int compi_parse_leaders_policy(const char *s, int *out);

typedef struct {
    unsigned hold_min, hold_max; /* calls held after a decision */
    double margin;               /* whole must be predicted faster by this fraction */
    double local_ns_per_byte;    /* a leader's local work per byte: combining (Reduce_local) or decoding */
    double whole_mem_max;        /* whole only if the (p-1) partials a leader receives fit in this many bytes */
} compi_leaders_params;
void compi_leaders_params_default(compi_leaders_params *p);

/* What a decision is taken from: sizes in bytes, the same on every leader. */
typedef struct {
    int p;        /* leaders (nodes) */
    double raw;   /* one partial, packed (count x type size) */
    double split; /* agreed: the most bytes one leader's reduce-scatter frames took (its p-1 chunks) */
    double chunk; /* agreed: the largest reduced chunk's frame */
} compi_leaders_sizes;

/* Predicted time of each way in microseconds, on link (NULL: bytes at
 * 100 Mbit/s, 50 us latency). Allreduce and Reduce give the same figures: a
 * leader sends what a root receives. The whole partial's frame is taken as
 * split's frames scaled to the whole partial (split x p / (p-1)). */
void compi_leaders_times(const compi_leaders_sizes *s, const compi_leaders_params *pr, const compi_net_link *link,
                         double *split_us, double *whole_us);

typedef struct {
    uint8_t way;     /* the held decision (compi_leaders_way) */
    uint8_t decided; /* a decision exists */
    uint32_t done;   /* calls since it */
    uint32_t hold;   /* its length */
    uint64_t calls[2], decisions, switches;
} compi_leaders_plan;

void compi_leaders_plan_init(compi_leaders_plan *s);
/* The way of the next call. *measure = 1: it runs split and its sizes are to
 * be agreed and handed to compi_leaders_decide after it. Forced policies
 * never measure. */
compi_leaders_way compi_leaders_begin(compi_leaders_plan *s, int policy, int *measure);
/* After a measuring call, with the agreed sizes. */
void compi_leaders_decide(compi_leaders_plan *s, const compi_leaders_params *pr, const compi_leaders_sizes *z,
                          const compi_net_link *link);

#endif
