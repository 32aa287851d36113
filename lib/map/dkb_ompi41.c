/* SPDX-License-Identifier: BSD-3-Clause */
/* DKB for Open MPI 4.1 coll/tuned: which point-to-point messages each
 * algorithm sends, and which algorithm the fixed decision rules pick (the
 * entry points of map.h; dkb_internal.h lists the files behind them).
 *
 * Transcribed from Open MPI v4.1.4 (ompi/mca/coll/base/coll_base_*.c,
 * coll_base_topo.c, coll/tuned/coll_tuned_decision_fixed.c and
 * coll_tuned_<coll>_decision.c): each decomposition function replays every
 * rank's send side of the algorithm (the sizes a rank sends depend only on
 * the call, except where noted), so the result is the exact multiset of
 * PML messages. Validated against the pml monitoring component
 * (tests/map/dkb_validate.sh).
 *
 * Facts of Open MPI's code the decompositions depend on:
 * - a send to oneself (pairwise step size, sendrecv with dest == me) is a
 *   local copy, no message;
 * - segmented algorithms send one message per segment; the segment holds
 *   COLL_BASE_COMPUTED_SEGCOUNT(segsize) elements (rounded to nearest);
 * - the fixed path passes segsize 0 and fan-out 0 (a chain of fan-out 0 is a
 *   chain of fan-out 1); a pinned run passes the MCA values (fan-out 4);
 * - composite algorithms call the communicator's own reduce/bcast/gather,
 *   i.e. the fixed decision (a pinned algorithm of one collective does not
 *   pin another);
 * - coll/tuned has no Gatherv and Scatterv: the communicator runs
 *   coll/basic's linear ones (empty blocks skipped), also inside
 *   Reduce_scatter "non-overlapping" and Allgatherv "default". */
#include <string.h>
#include "common/intrange.h"
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* the algorithm ids: every family's rows */

static const compi_ompi41_algs *const families[] = {
    &compi_ompi41_bcast_algs,  &compi_ompi41_reduce_algs,  &compi_ompi41_alltoall_algs,
    &compi_ompi41_gather_algs, &compi_ompi41_barrier_algs,
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

static const compi_ompi41_alg_row *find_alg(compi_map_coll coll, int alg)
{
    for (int f = 0; f < NFAMILIES; f++)
        for (int i = 0; i < families[f]->n; i++) {
            const compi_ompi41_alg_row *r = &families[f]->rows[i];
            if (r->coll == coll && r->alg == alg) return r;
        }
    return NULL;
}

int compi_map_ompi41_nalgs(compi_map_coll coll)
{
    int n = 0;
    for (int f = 0; f < NFAMILIES; f++)
        for (int i = 0; i < families[f]->n; i++) {
            const compi_ompi41_alg_row *r = &families[f]->rows[i];
            if (r->coll == coll && r->alg > n) n = r->alg;
        }
    return n;
}

const char *compi_map_ompi41_alg_name(compi_map_coll coll, int alg)
{
    const compi_ompi41_alg_row *r = find_alg(coll, alg);
    return r ? r->name : NULL;
}

/* ------------------------------------------------------------------ */
/* decision, decomposition */

static int check_call(const compi_map_call *c)
{
    if ((unsigned)c->coll >= COMPI_MAP_NCOLLS || c->size < 1 || c->type_size < 1) return COMPI_MAP_EARG;
    switch (c->coll) {
    case COMPI_MAP_BCAST:
    case COMPI_MAP_REDUCE:
    case COMPI_MAP_GATHER:
    case COMPI_MAP_SCATTER:
    case COMPI_MAP_GATHERV:
    case COMPI_MAP_SCATTERV:
        if (c->root < 0 || c->root >= c->size) return COMPI_MAP_EARG;
        break;
    default: break;
    }
    switch (c->coll) {
    case COMPI_MAP_BARRIER: return 0;
    case COMPI_MAP_REDUCE_SCATTER:
    case COMPI_MAP_ALLGATHERV:
    case COMPI_MAP_GATHERV:
    case COMPI_MAP_SCATTERV:
    case COMPI_MAP_ALLTOALLV: {
        size_t n = c->coll == COMPI_MAP_ALLTOALLV ? (size_t)c->size * c->size : (size_t)c->size;
        if (!c->counts) return COMPI_MAP_EARG;
        for (size_t i = 0; i < n; i++)
            if (!compi_fits_int((uint64_t)c->counts[i])) return COMPI_MAP_EARG;
        return 0;
    }
    case COMPI_MAP_REDUCE_SCATTER_BLOCK: return compi_fits_int((uint64_t)c->count) ? 0 : COMPI_MAP_EARG;
    default:
        /* count 0 returns before the collective runs in most MPI_ bindings;
         * the DKB does not model the ones that would still talk */
        return c->count >= 1 && compi_fits_int((uint64_t)c->count) ? 0 : COMPI_MAP_EARG;
    }
}

/* The message size the fixed rules compare: count x type size (per peer for
 * alltoall, per block for allgather, gather, scatter; the whole vector for
 * reduce_scatter; the mean block for allgatherv). */
static uint64_t decision_bytes(const compi_map_call *c)
{
    if (c->coll == COMPI_MAP_REDUCE_SCATTER || c->coll == COMPI_MAP_ALLGATHERV) {
        uint64_t t = 0;
        for (int i = 0; c->counts && i < c->size; i++) t += (uint64_t)c->counts[i] * c->type_size;
        return c->coll == COMPI_MAP_ALLGATHERV ? t / c->size : t;
    }
    return (uint64_t)c->count * c->type_size;
}

int compi_map_ompi41_decide(const compi_map_call *c, compi_map_alg *a)
{
    int rc = check_call(c);
    if (rc) return rc;
    memset(a, 0, sizeof *a);
    if (c->coll == COMPI_MAP_GATHERV || c->coll == COMPI_MAP_SCATTERV) a->alg = 1;
    else a->alg = compi_map_dec_pick(&compi_ompi41_fixed, c->coll, c->size, decision_bytes(c), c->commutative);
    a->radix = 4; /* coll_tuned_bcast_algorithm_knomial_radix is used on both paths */
    return a->alg > 0 ? 0 : COMPI_MAP_EALG;
}

int compi_map_ompi41_pinned(compi_map_coll coll, int alg, compi_map_alg *a)
{
    if (!find_alg(coll, alg)) return COMPI_MAP_EALG;
    memset(a, 0, sizeof *a);
    a->alg = alg;
    a->fanout = 4; /* coll_tuned_init_{tree,chain}_fanout */
    a->radix = 4;
    return 0;
}

int compi_map_ompi41_messages(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *out)
{
    int rc = check_call(c);
    if (rc) return rc;
    const compi_ompi41_alg_row *r = find_alg(c->coll, a->alg);
    if (!r) return COMPI_MAP_EALG;
    if (!r->fn) return COMPI_MAP_ENOTYET;
    if (c->size == 1) return 0; /* every algorithm returns before talking */
    if (c->coll == COMPI_MAP_REDUCE_SCATTER) {
        int64_t total = 0;
        for (int i = 0; i < c->size; i++) total += c->counts[i];
        if (total == 0) return 0;
    }
    return r->fn(c, a, out);
}

/* the run's pins while compi_map_ompi41_messages_pins runs (NULL: none) */
static __thread const compi_map_alg *run_pins;

int compi_ompi41_decide_and_run(const compi_map_call *c, compi_map_msgs *o)
{
    compi_map_alg a;
    int rc;
    if (run_pins && run_pins[c->coll].alg > 0) a = run_pins[c->coll], rc = 0;
    else rc = compi_map_ompi41_decide(c, &a);
    return rc ? rc : compi_map_ompi41_messages(c, &a, o);
}

int compi_map_ompi41_messages_pins(const compi_map_call *c, const compi_map_alg *a,
                                   const compi_map_alg pins[COMPI_MAP_NCOLLS], compi_map_msgs *out)
{
    const compi_map_alg *saved = run_pins;
    run_pins = pins;
    int rc = compi_map_ompi41_messages(c, a, out);
    run_pins = saved;
    return rc;
}
