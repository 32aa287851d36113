/* SPDX-License-Identifier: BSD-3-Clause */
/* The measured trials by which a collective gate decides (trials.h):
 * trials, agreed votes, holds. */
#include "engine/trials.h"

#include <string.h>

void compi_trials_params_default(compi_trials_params *p)
{
    p->trial_compi = 2; /* the first call also evaluates and may build the node layout */
    p->trial_mpi = 2;
    p->hold_min = 4;
    p->hold_max = 64; /* a trial every <= 68 calls: at worst ~3 % of calls on the slower path */
    p->margin = 0.10; /* a measured win must stand out of the noise of a few calls */
    p->saving = 100;  /* 10 %: a reduction of random bytes by MAX saves ~3 % to an entropy coder,
                           not enough to carry compi's path unmeasured */
}

void compi_trials_init(compi_trials *g)
{
    memset(g, 0, sizeof *g);
    g->phase = COMPI_TRIALS_TRY_COMPI;
    g->path = COMPI_TRIALS_PATH_COMPI;
}

static unsigned compi_trials_trial_len(const compi_trials *g, const compi_trials_params *p)
{
    unsigned n = g->phase == COMPI_TRIALS_TRY_MPI ? p->trial_mpi : p->trial_compi;
    return n ? n : 1;
}

compi_trials_path compi_trials_begin(compi_trials *g, const compi_trials_params *p, int *probe)
{
    (void)p;
    *probe = g->phase == COMPI_TRIALS_TRY_COMPI && g->done == 0;
    compi_trials_path path = g->phase == COMPI_TRIALS_TRY_COMPI ? COMPI_TRIALS_PATH_COMPI
                             : g->phase == COMPI_TRIALS_TRY_MPI ? COMPI_TRIALS_PATH_MPI
                                                                : (compi_trials_path)g->path;
    g->calls++;
    if (path == COMPI_TRIALS_PATH_MPI) g->mpi_calls++;
    return path;
}

int compi_trials_end(compi_trials *g, const compi_trials_params *p, uint64_t ns, uint64_t frame_bytes,
                     uint64_t saved_bytes)
{
    if (ns == 0) ns = 1; /* 0 means "no measurement" */
    g->done++;
    switch (g->phase) {
    case COMPI_TRIALS_TRY_COMPI:
        g->frame_bytes += frame_bytes;
        g->saved_bytes += saved_bytes;
        if (!g->best_compi_ns || ns < g->best_compi_ns) g->best_compi_ns = ns;
        return g->done >= compi_trials_trial_len(g, p);
    case COMPI_TRIALS_TRY_MPI:
        if (!g->best_mpi_ns || ns < g->best_mpi_ns) g->best_mpi_ns = ns;
        return g->done >= compi_trials_trial_len(g, p);
    default:
        if (g->done >= g->hold) {
            /* the hold is over: the next call starts a compi trial */
            g->phase = COMPI_TRIALS_TRY_COMPI;
            g->done = 0;
            g->frame_bytes = g->saved_bytes = 0;
            g->best_compi_ns = g->best_mpi_ns = 0;
        }
        return 0;
    }
}

void compi_trials_vote(const compi_trials *g, uint64_t v[COMPI_TRIALS_VOTE])
{
    v[0] = g->phase == COMPI_TRIALS_TRY_COMPI && g->frame_bytes
               ? (uint64_t)((double)g->saved_bytes * 1000.0 / (double)g->frame_bytes)
               : 0;
    v[1] = g->phase == COMPI_TRIALS_TRY_COMPI ? g->best_compi_ns : 0;
    v[2] = g->phase == COMPI_TRIALS_TRY_MPI ? g->best_mpi_ns : 0;
}

static void compi_trials_hold(compi_trials *g, const compi_trials_params *p, compi_trials_path path,
                              compi_trials_why why)
{
    unsigned lo = p->hold_min ? p->hold_min : 1, hi = p->hold_max > lo ? p->hold_max : lo;
    if (g->started && g->path == (uint8_t)path) {
        g->hold = g->hold * 2 > hi ? hi : g->hold * 2;
    } else {
        if (g->started) g->switches++;
        g->hold = lo;
    }
    g->started = 1;
    g->path = (uint8_t)path;
    g->why = (uint8_t)why;
    g->phase = COMPI_TRIALS_HOLD;
    g->done = 0;
}

void compi_trials_decide(compi_trials *g, const compi_trials_params *p, const uint64_t agreed[COMPI_TRIALS_VOTE])
{
    g->votes++;
    if (g->phase == COMPI_TRIALS_TRY_COMPI) {
        if (agreed[0] >= (p->saving ? p->saving : 1)) {
            /* some rank compressed well: compression is what compi's path is for */
            compi_trials_hold(g, p, COMPI_TRIALS_PATH_COMPI, COMPI_TRIALS_WHY_COMPRESSED);
            return;
        }
        g->agreed_compi_ns = agreed[1];
        g->phase = COMPI_TRIALS_TRY_MPI;
        g->done = 0;
        g->best_mpi_ns = 0;
        return;
    }
    if (g->phase != COMPI_TRIALS_TRY_MPI) return; /* no vote was due */
    double compi = (double)g->agreed_compi_ns, mpi = (double)agreed[2];
    if (compi > 0 && mpi > 0 && compi * (1.0 + p->margin) < mpi)
        compi_trials_hold(g, p, COMPI_TRIALS_PATH_COMPI, COMPI_TRIALS_WHY_FASTER);
    else compi_trials_hold(g, p, COMPI_TRIALS_PATH_MPI, COMPI_TRIALS_WHY_SLOWER);
}

const char *compi_trials_phase_name(int phase)
{
    switch (phase) {
    case COMPI_TRIALS_TRY_COMPI: return "try_compi";
    case COMPI_TRIALS_TRY_MPI: return "try_mpi";
    case COMPI_TRIALS_HOLD: return "hold";
    default: return "?";
    }
}
