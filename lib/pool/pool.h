/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec pool: helper threads that compress and decompress the chunks
 * of a message on cores the rank's process does not keep busy.
 *
 * What it offers:
 *   - jobs of n numbered items (a message's chunks): fn(arg, i) runs once
 *     for every item the caller released, on a helper or on the calling
 *     thread itself (compi_pool_help), items taken in increasing order;
 *   - a caller that waits for item i in order (the order of the wire) while
 *     later items are worked on;
 *   - the thread count: COMPI_THREADS=auto|N|0 and the "auto" rule
 *     (compi_pool_auto_threads), never more helpers than the cores the
 *     rank has to itself minus the application's own threads;
 *   - the measured speedup of codec work spread over the pool, which the
 *     pipelined estimate uses (lib/engine/estimate.h).
 * Helpers never call MPI and never spin: an idle helper blocks on a
 * condition variable. They are created at the first job that can use them
 * and joined by compi_pool_shutdown (MPI_Finalize). With 0 helpers every
 * item runs on the caller, in order: the same bytes either way, since each
 * item's output depends on its input alone.
 * MPI-free (the unit test runs it without MPI); any thread may run jobs
 * (MPI_THREAD_MULTIPLE callers each have their own). */
#ifndef COMPI_POOL_H
#define COMPI_POOL_H

#include <stddef.h>
#include <stdint.h>

#define COMPI_POOL_MAX 64 /* helpers at most */

typedef void (*compi_pool_fn)(void *arg, size_t item);
typedef struct compi_pool_job compi_pool_job;

/* Helpers the pool may use (0..COMPI_POOL_MAX); before the first job or
 * after compi_pool_shutdown. */
void compi_pool_set_threads(int n);
int compi_pool_threads(void);

/* "auto": helpers for a process allowed cpus cores (its affinity mask),
 * on a node with online cores and ranks ranks sharing it, whose
 * application runs app_threads threads of its own: the rank's share of
 * the node's cores (its mask if that is smaller) less the application's
 * threads, the calling thread being one of them. */
int compi_pool_auto_threads(int cpus, int online, int ranks, int app_threads);
/* The application's threads per rank from OMP_NUM_THREADS (its first
 * level) if set; else 1 under MPI_THREAD_SINGLE (threaded == 0), else
 * share (an OpenMP runtime's default is a thread per core it may use). */
int compi_pool_app_threads(const char *omp_num_threads, int threaded, int share);

/* The helpers a call may use, asked at every compi_pool_job_new (fn NULL:
 * all). A job gets none (NULL) when fn says 0, and at most fn's count of
 * helpers work on it at once; the others stay asleep. */
void compi_pool_set_limit(int (*fn)(void));
/* That count for "auto": all started helpers outside a parallel region
 * (masteronly: the application's other threads wait for the calling
 * one); inside one (funneled: the team computes while one thread calls
 * MPI), the rank's share of cores less the team's threads. */
int compi_pool_call_threads(int started, int share, int in_parallel, int team);

/* A job of n items; NULL when the pool has no helpers for this call (or
 * no memory): the caller then runs the items itself. Nothing runs before
 * compi_pool_release. */
compi_pool_job *compi_pool_job_new(size_t n, compi_pool_fn fn, void *arg);
/* Items [0, upto) may run (upto only grows; capped at n). */
void compi_pool_release(compi_pool_job *j, size_t upto);
/* The caller runs the next released item nobody took; 0 if there was none. */
int compi_pool_help(compi_pool_job *j);
/* Whether item i has run (its effects are visible to the caller then). */
int compi_pool_done(compi_pool_job *j, size_t i);
/* Waits until item i has run (released first), helping with later items
 * meanwhile. */
void compi_pool_wait(compi_pool_job *j, size_t i);
/* Stops handing out items, waits for those taken, records the job's
 * codec time vs its elapsed time (the measured speedup) and frees it. */
void compi_pool_job_end(compi_pool_job *j);

/* The speedup codec work spread over the pool reached: total item time
 * over elapsed time of the jobs that used helpers and ran items side by
 * side at least half the time they ran any (a moving average); 0 before
 * any such job. */
double compi_pool_measured_speedup(void);
/* Jobs that had helpers (ended), the items they ran, and how many of
 * those items a helper ran (the rest ran on the jobs' callers). */
void compi_pool_counts(uint64_t *jobs, uint64_t *items, uint64_t *helped);
/* How long a thread that has waited waited_ns for a message (a chunk
 * still being coded or on the wire) sleeps before it looks again: 0 (keep
 * polling, yielding) for the first COMPI_POOL_POLL_NS, then a 32nd of the
 * time waited so far, at least COMPI_POOL_PAUSE_MIN_NS and at most
 * COMPI_POOL_PAUSE_MAX_NS. A rank whose waiting thread polls keeps a core
 * runnable all the while (sched_yield gives it up only to a thread queued
 * on that same core at that instant, and the scheduler balances a poller
 * like any busy thread), so helpers coding on the same cores (its own, or
 * a peer rank's where ranks share a host) got a core less; a sleeping
 * waiter frees it, and sees a message at most ~3 % of its wait late. */
#define COMPI_POOL_POLL_NS 500000u
#define COMPI_POOL_PAUSE_MIN_NS 20000u
#define COMPI_POOL_PAUSE_MAX_NS 1000000u
uint64_t compi_pool_pause_ns(uint64_t waited_ns);
/* One idle step of such a wait: sleeps compi_pool_pause_ns(waited_ns) when
 * the pool has helpers and that is not 0, else yields the core. */
void compi_pool_idle(uint64_t waited_ns);

/* Joins the helpers; later jobs get none (compi_pool_job_new: NULL). */
void compi_pool_shutdown(void);

#endif
