/* SPDX-License-Identifier: BSD-3-Clause */
/* The collective gate (gate.h): trials, agreed votes, holds. */
#include "engine/gate.h"

#include <string.h>

void compi_gate_params_default(compi_gate_params *p)
{
    p->trial_compi = 2;   /* the first call also evaluates and may build the node layout */
    p->trial_mpi = 2;
    p->hold_min = 4;
    p->hold_max = 64;     /* a trial every <= 68 calls: at worst ~3 % of calls on the slower path */
    p->margin = 0.10;   /* a measured win must stand out of the noise of a few calls */
    p->saving = 100;    /* 10 %: a reduction of random bytes by MAX saves ~3 % to an entropy coder,
                           not enough to carry compi's path unmeasured */
}

void compi_gate_init(compi_gate *g)
{
    memset(g, 0, sizeof *g);
    g->phase = COMPI_GATE_TRY_COMPI;
    g->path = COMPI_GATE_PATH_COMPI;
}

static unsigned compi_gate_trial_len(const compi_gate *g, const compi_gate_params *p)
{
    unsigned n = g->phase == COMPI_GATE_TRY_MPI ? p->trial_mpi : p->trial_compi;
    return n ? n : 1;
}

compi_gate_path compi_gate_begin(compi_gate *g, const compi_gate_params *p, int *probe)
{
    (void)p;
    *probe = g->phase == COMPI_GATE_TRY_COMPI && g->done == 0;
    compi_gate_path path = g->phase == COMPI_GATE_TRY_COMPI ? COMPI_GATE_PATH_COMPI
                           : g->phase == COMPI_GATE_TRY_MPI ? COMPI_GATE_PATH_MPI
                                                            : (compi_gate_path)g->path;
    g->calls++;
    if (path == COMPI_GATE_PATH_MPI) g->mpi_calls++;
    return path;
}

int compi_gate_end(compi_gate *g, const compi_gate_params *p, uint64_t ns, uint64_t frame_bytes,
                   uint64_t saved_bytes)
{
    if (ns == 0) ns = 1;   /* 0 means "no measurement" */
    g->done++;
    switch (g->phase) {
    case COMPI_GATE_TRY_COMPI:
        g->frame_bytes += frame_bytes;
        g->saved_bytes += saved_bytes;
        if (!g->best_compi_ns || ns < g->best_compi_ns) g->best_compi_ns = ns;
        return g->done >= compi_gate_trial_len(g, p);
    case COMPI_GATE_TRY_MPI:
        if (!g->best_mpi_ns || ns < g->best_mpi_ns) g->best_mpi_ns = ns;
        return g->done >= compi_gate_trial_len(g, p);
    default:
        if (g->done >= g->hold) {
            /* the hold is over: the next call starts a compi trial */
            g->phase = COMPI_GATE_TRY_COMPI;
            g->done = 0;
            g->frame_bytes = g->saved_bytes = 0;
            g->best_compi_ns = g->best_mpi_ns = 0;
        }
        return 0;
    }
}

void compi_gate_vote(const compi_gate *g, uint64_t v[COMPI_GATE_VOTE])
{
    v[0] = g->phase == COMPI_GATE_TRY_COMPI && g->frame_bytes
               ? (uint64_t)((double)g->saved_bytes * 1000.0 / (double)g->frame_bytes)
               : 0;
    v[1] = g->phase == COMPI_GATE_TRY_COMPI ? g->best_compi_ns : 0;
    v[2] = g->phase == COMPI_GATE_TRY_MPI ? g->best_mpi_ns : 0;
}

static void compi_gate_hold(compi_gate *g, const compi_gate_params *p, compi_gate_path path, compi_gate_why why)
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
    g->phase = COMPI_GATE_HOLD;
    g->done = 0;
}

void compi_gate_decide(compi_gate *g, const compi_gate_params *p, const uint64_t agreed[COMPI_GATE_VOTE])
{
    g->votes++;
    if (g->phase == COMPI_GATE_TRY_COMPI) {
        if (agreed[0] >= (p->saving ? p->saving : 1)) {
            /* some rank compressed well: compression is what compi's path is for */
            compi_gate_hold(g, p, COMPI_GATE_PATH_COMPI, COMPI_GATE_WHY_COMPRESSED);
            return;
        }
        g->agreed_compi_ns = agreed[1];
        g->phase = COMPI_GATE_TRY_MPI;
        g->done = 0;
        g->best_mpi_ns = 0;
        return;
    }
    if (g->phase != COMPI_GATE_TRY_MPI) return;   /* no vote was due */
    double compi = (double)g->agreed_compi_ns, mpi = (double)agreed[2];
    if (compi > 0 && mpi > 0 && compi * (1.0 + p->margin) < mpi)
        compi_gate_hold(g, p, COMPI_GATE_PATH_COMPI, COMPI_GATE_WHY_FASTER);
    else
        compi_gate_hold(g, p, COMPI_GATE_PATH_MPI, COMPI_GATE_WHY_SLOWER);
}

const char *compi_gate_phase_name(int phase)
{
    switch (phase) {
    case COMPI_GATE_TRY_COMPI: return "try_compi";
    case COMPI_GATE_TRY_MPI: return "try_mpi";
    case COMPI_GATE_HOLD: return "hold";
    default: return "?";
    }
}
