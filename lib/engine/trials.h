/* SPDX-License-Identifier: BSD-3-Clause */
/* The measured trials of a collective gate: for one collective on one
 * communicator and one size class, which algorithm runs, compi's node-aware compressed path or the
 * MPI's own, decided from measurements every rank agrees on.
 *
 * compi's path pays for itself through compression; on data that does not
 * compress it can only win by its node-aware data movement, which may be
 * slower than the MPI's own algorithm (measured: Open MPI's ring Allreduce
 * keeps every inter-node TCP connection one-directional, compi's leaders
 * exchange both directions over one connection, which the emulated link runs
 * at half its rate about half of the time). So a gate runs trials and holds:
 *
 *   TRY_COMPI  `trial_compi` calls on compi's path; the first one asks every
 *              frame to be evaluated (a window closed since the last trial
 *              may say raw without looking at the data)
 *   vote       every rank gives (the share of its frames' bytes compression
 *              saved, in permille; its fastest trial call in ns); the MAX
 *              over ranks is the agreed vote
 *     some rank saved >= `saving` -> HOLD on compi's path
 *     else (raw, or a few % saved) -> TRY_MPI: the times decide
 *   TRY_MPI    `trial_mpi` calls on the MPI's own algorithm, then a vote of
 *              the fastest of them; compi's path is kept only if its agreed
 *              time beats the MPI's by `margin` (10 %; ties go to the MPI: it is
 *              what the application would get without compi)
 *   HOLD       `hold` calls on the chosen path, then TRY_COMPI again; the
 *              hold doubles (up to hold_max) each time a trial confirms the
 *              previous choice and starts over when it changes
 *
 * Every rank runs the same calls on a communicator in the same order (MPI's
 * rule for collectives), and the state changes only at call counts and at
 * agreed votes, so every rank takes the same path in every call without
 * talking except at votes. Pure logic, no MPI and no clock: times are passed
 * in, so tests replay sequences deterministically (tests/engine). */
#ifndef COMPI_ENGINE_TRIALS_H
#define COMPI_ENGINE_TRIALS_H

#include <stdint.h>

typedef struct {
    unsigned trial_compi, trial_mpi; /* calls per trial (>= 1) */
    unsigned hold_min, hold_max;     /* calls held after a decision */
    double margin;                   /* compi's raw path must be faster by this fraction */
    unsigned saving;                 /* permille of the frames' bytes compression must save to decide alone */
} compi_trials_params;

void compi_trials_params_default(compi_trials_params *p);

typedef enum { COMPI_TRIALS_PATH_COMPI = 0, COMPI_TRIALS_PATH_MPI = 1 } compi_trials_path;
typedef enum { COMPI_TRIALS_TRY_COMPI = 0, COMPI_TRIALS_TRY_MPI, COMPI_TRIALS_HOLD } compi_trials_phase;
/* why the last decision was taken (report, tests) */
typedef enum {
    COMPI_TRIALS_WHY_NONE = 0,
    COMPI_TRIALS_WHY_COMPRESSED,
    COMPI_TRIALS_WHY_FASTER,
    COMPI_TRIALS_WHY_SLOWER
} compi_trials_why;

#define COMPI_TRIALS_VOTE 3 /* uint64_t words of a vote, combined with MAX */

typedef struct {
    uint8_t phase, path, why, started;
    uint32_t done;                       /* calls done in this phase */
    uint32_t hold;                       /* length of the current / next hold */
    uint64_t frame_bytes, saved_bytes;   /* this rank, this trial: bytes put in frames, saved by compression */
    uint64_t best_compi_ns, best_mpi_ns; /* this rank's fastest trial call per path (0: none) */
    uint64_t agreed_compi_ns;            /* from the last TRY_COMPI vote */
    /* counters */
    uint64_t calls, mpi_calls, votes, switches;
} compi_trials;

void compi_trials_init(compi_trials *g);

/* The path of the next call; *probe = 1 on the first call of a compi trial
 * (its frames are to be evaluated, whatever the windows say). */
compi_trials_path compi_trials_begin(compi_trials *g, const compi_trials_params *p, int *probe);
/* After that call: it took ns on this rank, which put frame_bytes of data
 * in frames and saved saved_bytes of them by compression. Returns 1 when a vote is due now: the caller fills
 * compi_trials_vote, combines it over all ranks with MAX (MPI_UNSIGNED_LONG_LONG)
 * and hands the result to compi_trials_decide. */
int compi_trials_end(compi_trials *g, const compi_trials_params *p, uint64_t ns, uint64_t frame_bytes,
                     uint64_t saved_bytes);
void compi_trials_vote(const compi_trials *g, uint64_t v[COMPI_TRIALS_VOTE]);
void compi_trials_decide(compi_trials *g, const compi_trials_params *p, const uint64_t agreed[COMPI_TRIALS_VOTE]);

const char *compi_trials_phase_name(int phase);

#endif
