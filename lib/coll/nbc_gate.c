/* SPDX-License-Identifier: BSD-3-Clause */
/* The gates of the nonblocking and neighbourhood collectives (nbc.h): per
 * communicator, family and size class, whether a call whose schedule compi
 * could run runs it or goes to the MPI's own call unchanged.
 *
 * The policy is the blocking gates' (lib/engine/trials.h, with its
 * settings): `trial_compi` calls on compi's path, an agreed vote (MAX over
 * the ranks) of the share of the trial's inter-node frame bytes compression
 * saved; a saving of >= `saving` holds compi's path, anything less the
 * MPI's own, for `hold` calls (doubling while trials confirm it, up to
 * `hold_max`), then a trial again. A nonblocking call's duration is the
 * application's overlap more than the path's, so no time is measured: the
 * trial's time comparison finds compi's raw path unmeasured and the tie
 * goes to the MPI's own call. Random data thus gets the MPI's own call but
 * for two calls in every trial.
 *
 * Agreement without a blocking collective: the call that ends a trial
 * posts the vote as a PMPI_Iallreduce on compi's dup of the communicator
 * (sched.c), where no other collective runs: every rank posts the votes of
 * a communicator in the order of its calls there, which is the same order
 * on every rank (MPI's rule for collectives), so the votes match. The
 * result applies COMPI_NBC_VOTE_LAG calls later, a call index every rank
 * knows without talking: the lag's calls keep the path held before the
 * trial (the MPI's own before the first decision) and never touch the
 * vote; the call after them completes it (advancing the schedules
 * meanwhile), so every rank switches at the same call. A rank reaches
 * that call COMPI_NBC_VOTE_LAG + 1 calls after posting its vote, so no
 * call waits unless a rank starts that many calls of one family and size
 * class on a communicator before some other rank has started the trial's
 * last one (docs/limits.md).
 *
 * Until compi's dup exists (its PMPI_Comm_idup in flight, sched.c) a vote
 * is queued on its communicator's gates and posted, in the order queued,
 * once the dup is there, after the held schedules posted their first
 * rounds, so their frames count. Its value is taken then: nothing else
 * touches the trial's counts before the vote is decided. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "core/state.h"
#include "engine/trials.h"

/* calls of a gate between posting a vote and applying it: its nonblocking
 * calls return without waiting for the other ranks unless one rank runs
 * more calls than this ahead of another. Every change of path comes this
 * many calls late, so it is kept short: a benchmark of a dozen calls still
 * sees the decision in most of them. */
#define COMPI_NBC_VOTE_LAG 4u

struct compi_nbc_gate {
    compi_trials t;
    compi_nbc_gates *gs; /* its communicator's: the votes go on their dup */
    MPI_Request vote;    /* the vote in flight; MPI_REQUEST_NULL: none */
    int queued;          /* a vote waits for the dup (next_queued) */
    compi_nbc_gate *next_queued;
    unsigned lag; /* calls until the posted vote applies, + 1; 0: none pending */
    int lag_path; /* the path of those calls (compi_trials_path) */
    unsigned long long mine[COMPI_TRIALS_VOTE], agreed[COMPI_TRIALS_VOTE];
    compi_nbc_gate *next_live; /* the gates with a vote in flight */
};

struct compi_nbc_gates {
    compi_nbc_gate *k[COMPI_NBC_KINDS]; /* per family, COMPI_GATE_CLASSES of them, lazily */
    /* under compi_nbc_voting_lock: */
    int ready, rc;                      /* the set-up completed (rc: how) */
    MPI_Comm x;                         /* then compi's dup */
    compi_nbc_gate *queue, **queue_end; /* votes waiting for it, in order */
};

/* the trial call running on this thread */
static __thread compi_nbc_gate *compi_nbc_trial_gate;
static __thread int compi_nbc_trial_probe;

static compi_trials_params compi_nbc_trials_cfg;
static pthread_once_t compi_nbc_gate_once = PTHREAD_ONCE_INIT;
static compi_nbc_gate *compi_nbc_voting;
static pthread_mutex_t compi_nbc_voting_lock = PTHREAD_MUTEX_INITIALIZER;

static void compi_nbc_gate_setup(void)
{
    compi_trials_params_default(&compi_nbc_trials_cfg);
}

static void compi_nbc_voting_unlink(compi_nbc_gate *g)
{
    pthread_mutex_lock(&compi_nbc_voting_lock);
    for (compi_nbc_gate **p = &compi_nbc_voting; *p; p = &(*p)->next_live)
        if (*p == g) {
            *p = g->next_live;
            break;
        }
    g->next_live = NULL;
    pthread_mutex_unlock(&compi_nbc_voting_lock);
}

/* Whether g has a vote queued or in flight. */
static int compi_nbc_gate_pending(compi_nbc_gate *g)
{
    pthread_mutex_lock(&compi_nbc_voting_lock);
    int pending = g->queued || g->vote != MPI_REQUEST_NULL;
    pthread_mutex_unlock(&compi_nbc_voting_lock);
    return pending;
}

/* Completes g's vote, advancing the schedules meanwhile (a peer may need
 * this rank's messages to reach the call that posts its vote; a queued
 * vote is posted by the progress that notices the dup's set-up). */
static void compi_nbc_gate_settle(compi_nbc_gate *g)
{
    for (unsigned idle = 0;;) {
        pthread_mutex_lock(&compi_nbc_voting_lock);
        int queued = g->queued;
        pthread_mutex_unlock(&compi_nbc_voting_lock);
        int done = 0, rc = MPI_SUCCESS;
        if (!queued) rc = PMPI_Test(&g->vote, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) /* the ranks could no longer agree on a path */
            compi_die("a nonblocking collective gate's vote failed (MPI error %d)", rc);
        if (done) break;
        if (compi_nbc_progress()) idle = 0;
        else if ((++idle & 63) == 0) sched_yield();
    }
    g->vote = MPI_REQUEST_NULL;
    compi_nbc_voting_unlink(g);
}

static void compi_nbc_gate_decide(compi_nbc_gate *g, compi_nbc_kind kind)
{
    uint64_t agreed[COMPI_TRIALS_VOTE];
    for (int i = 0; i < COMPI_TRIALS_VOTE; i++) agreed[i] = g->agreed[i];
    int before = g->t.started ? g->t.path : -1;
    compi_trials_decide(&g->t, &compi_nbc_trials_cfg, agreed);
    if (g->t.phase == COMPI_TRIALS_TRY_MPI) {
        /* compression saved too little; no times to compare: the MPI's own */
        const uint64_t none[COMPI_TRIALS_VOTE] = {0};
        compi_trials_decide(&g->t, &compi_nbc_trials_cfg, none);
    }
    if (g->t.path != before)
        compi_log(2, "nonblocking collective %s: %s for %u calls (compression saved %.1f %% of the frames)",
                  compi_nbc_names[kind], g->t.path == COMPI_TRIALS_PATH_COMPI ? "compi's schedule" : "the MPI's own",
                  g->t.hold, (double)g->agreed[0] * 0.1);
}

static compi_nbc_gate *compi_nbc_gate_get(MPI_Comm comm, compi_nbc_kind kind, size_t size)
{
    int rc;
    compi_nbc_gates *gs = compi_nbc_gates_of(comm, &rc);
    if (!gs) return NULL; /* compi's path, which raises the error */
    if (!gs->k[kind]) {
        /* every rank must take the same path: no memory is fatal */
        compi_nbc_gate *a = calloc(COMPI_GATE_CLASSES, sizeof *a);
        if (!a) compi_die("out of memory for the nonblocking collective gates");
        for (int c = 0; c < COMPI_GATE_CLASSES; c++) {
            compi_trials_init(&a[c].t);
            a[c].gs = gs;
            a[c].vote = MPI_REQUEST_NULL;
        }
        gs->k[kind] = a;
    }
    return &gs->k[kind][compi_gate_size_class(size)];
}

int compi_nbc_gate_begin(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, size_t size,
                         compi_nbc_ticket *t)
{
    t->g = NULL;
    t->kind = kind;
    t->lag = 0;
    t->path = COMPI_TRIALS_PATH_COMPI;
    if (!ci || (ci->mode != COMPI_MODE_ADAPTIVE && ci->mode != COMPI_MODE_GUIDED)) return t->path;
    pthread_once(&compi_nbc_gate_once, compi_nbc_gate_setup);
    compi_nbc_gate *g = compi_nbc_gate_get(comm, kind, size);
    if (!g) return t->path;
    if (g->lag > 1) {
        /* the vote is not due yet: the held path, outside the trials */
        g->lag--;
        t->g = g;
        t->lag = 1;
        t->path = g->lag_path;
        g->t.calls++;
        if (t->path == COMPI_TRIALS_PATH_MPI) g->t.mpi_calls++;
        compi_coll_scope_begin(0);
        return t->path;
    }
    if (g->lag == 1) {
        g->lag = 0;
        if (compi_nbc_gate_pending(g)) compi_nbc_gate_settle(g);
        compi_nbc_gate_decide(g, kind);
    }
    int probe;
    t->path = (int)compi_trials_begin(&g->t, &compi_nbc_trials_cfg, &probe);
    compi_coll_scope_begin(probe);
    t->g = g;
    if (g->t.phase == COMPI_TRIALS_TRY_COMPI) {
        compi_nbc_trial_gate = g;
        compi_nbc_trial_probe = probe;
    }
    return t->path;
}

compi_nbc_gate *compi_nbc_gate_trial(int *probe)
{
    *probe = compi_nbc_trial_probe;
    return compi_nbc_trial_gate;
}

void compi_nbc_gate_count(compi_nbc_gate *g, uint64_t frame_bytes, uint64_t saved_bytes)
{
    /* a round posted after the vote lands in the hold's counts, which the
     * next trial starts afresh from (trials.h) */
    g->t.frame_bytes += frame_bytes;
    g->t.saved_bytes += saved_bytes;
}

/* Posts g's vote on its communicator's dup (compi_nbc_voting_lock held):
 * the trial's counts as they stand now. */
static void compi_nbc_gate_post(compi_nbc_gate *g)
{
    if (g->gs->rc != MPI_SUCCESS) /* no dup: the ranks cannot agree on a path */
        compi_die("a nonblocking collective gate has no communicator to vote on (MPI error %d)", g->gs->rc);
    uint64_t mine[COMPI_TRIALS_VOTE];
    compi_trials_vote(&g->t, mine);
    for (int i = 0; i < COMPI_TRIALS_VOTE; i++) g->mine[i] = mine[i];
    int rc =
        PMPI_Iallreduce(g->mine, g->agreed, COMPI_TRIALS_VOTE, MPI_UNSIGNED_LONG_LONG, MPI_MAX, g->gs->x, &g->vote);
    if (rc != MPI_SUCCESS) compi_die("a nonblocking collective gate could not post its vote (MPI error %d)", rc);
}

void compi_nbc_gate_end(compi_nbc_ticket *t)
{
    compi_nbc_gate *g = t->g;
    if (!g) return;
    t->g = NULL;
    compi_nbc_trial_gate = NULL;
    compi_nbc_trial_probe = 0;
    uint64_t frame_bytes, saved_bytes;
    compi_coll_scope_end(&frame_bytes, &saved_bytes);
    if (t->path == COMPI_TRIALS_PATH_MPI) COMPI_NBC_ADD(t->kind, COMPI_NBC_GATED, 1);
    if (t->lag) return; /* a call between a vote and its use */
    /* 1 ns: not measured (see above) */
    if (!compi_trials_end(&g->t, &compi_nbc_trials_cfg, 1, frame_bytes, saved_bytes)) return;
    /* the lag runs the path held before the trial; before the first
     * decision the MPI's own: what the application gets without compi,
     * while nobody knows yet whether compression pays */
    g->lag = COMPI_NBC_VOTE_LAG + 1;
    g->lag_path = g->t.started ? g->t.path : COMPI_TRIALS_PATH_MPI;
    compi_nbc_gates *gs = g->gs;
    pthread_mutex_lock(&compi_nbc_voting_lock);
    /* before the dup is there: queued, in its communicator's order */
    if (gs->ready) compi_nbc_gate_post(g);
    else {
        g->queued = 1;
        g->next_queued = NULL;
        *gs->queue_end = g;
        gs->queue_end = &g->next_queued;
    }
    g->next_live = compi_nbc_voting;
    compi_nbc_voting = g;
    pthread_mutex_unlock(&compi_nbc_voting_lock);
}

compi_nbc_gates *compi_nbc_gates_new(void)
{
    compi_nbc_gates *gs = calloc(1, sizeof(compi_nbc_gates));
    if (gs) {
        gs->x = MPI_COMM_NULL;
        gs->queue_end = &gs->queue;
    }
    return gs;
}

void compi_nbc_gates_ready(compi_nbc_gates *gs, MPI_Comm x, int rc)
{
    pthread_mutex_lock(&compi_nbc_voting_lock);
    gs->x = x;
    gs->rc = rc;
    gs->ready = 1;
    while (gs->queue) {
        compi_nbc_gate *g = gs->queue;
        gs->queue = g->next_queued;
        g->queued = 0;
        compi_nbc_gate_post(g);
    }
    gs->queue_end = &gs->queue;
    pthread_mutex_unlock(&compi_nbc_voting_lock);
}

int compi_nbc_gates_idle(compi_nbc_gates *gs)
{
    int idle = 1;
    for (int k = 0; k < COMPI_NBC_KINDS; k++)
        for (int c = 0; gs->k[k] && c < COMPI_GATE_CLASSES; c++) {
            compi_nbc_gate *g = &gs->k[k][c];
            int done = 0;
            if (!compi_nbc_gate_pending(g)) continue;
            if (!g->queued) {
                int rc = PMPI_Test(&g->vote, &done, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS) compi_die("a nonblocking collective gate's vote failed (MPI error %d)", rc);
            }
            if (done) compi_nbc_voting_unlink(g);
            else idle = 0;
        }
    return idle;
}

/* Every rank posted the same votes on x, so completing them here waits
 * for nothing that does not come (a freed communicator's gates come here
 * idle, compi_nbc_gates_idle). */
void compi_nbc_gates_free(compi_nbc_gates *gs)
{
    if (!gs) return;
    for (int k = 0; k < COMPI_NBC_KINDS; k++) {
        for (int c = 0; gs->k[k] && c < COMPI_GATE_CLASSES; c++)
            if (compi_nbc_gate_pending(&gs->k[k][c])) compi_nbc_gate_settle(&gs->k[k][c]);
        free(gs->k[k]);
    }
    free(gs);
}

void compi_nbc_finalize(void)
{
    compi_nbc_setups_complete(); /* posts the queued votes */
    for (;;) {
        pthread_mutex_lock(&compi_nbc_voting_lock);
        compi_nbc_gate *g = compi_nbc_voting;
        pthread_mutex_unlock(&compi_nbc_voting_lock);
        if (!g) return;
        compi_nbc_gate_settle(g); /* unlinks it */
    }
}
