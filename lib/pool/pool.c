/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec pool (pool.h). One mutex guards the pool and every job: items
 * are chunks of at least 4 KiB whose codec work takes tens of
 * microseconds or more, so a lock per item costs nothing measurable, and
 * one lock keeps the waits simple (two condition variables: work for the
 * helpers, done for the callers). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pool/pool.h"

struct compi_pool_job {
    size_t n, released, next, ndone;
    compi_pool_fn fn;
    void *arg;
    unsigned char *done;           /* per item */
    uint64_t cpu_ns;               /* the items' thread CPU time, summed */
    uint64_t busy_ns, busy_from;   /* wall time during which an item ran */
    uint64_t multi_ns, multi_from; /* wall time during which two or more did */
    int running;
    int limit, helping; /* helpers that may work on it at once; those that do */
    compi_pool_job *next_job;
};

static pthread_mutex_t compi_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t compi_pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t compi_pool_fin = PTHREAD_COND_INITIALIZER;
static compi_pool_job *compi_pool_jobs; /* jobs with work, oldest first */
static pthread_t compi_pool_tid[COMPI_POOL_MAX];
static int compi_pool_want, compi_pool_started, compi_pool_stop, compi_pool_closed;
static double compi_pool_speedup; /* moving average; 0 = none measured */
/* helpers a job made now may use; NULL: all */
static int (*compi_pool_limit_fn)(void);
/* jobs that had helpers, their items, and the items helpers ran */
static uint64_t compi_pool_njobs, compi_pool_nitems, compi_pool_nhelped;

static uint64_t compi_pool_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void compi_pool_set_threads(int n)
{
    pthread_mutex_lock(&compi_pool_mu);
    if (!compi_pool_started && !compi_pool_closed)
        compi_pool_want = n < 0 ? 0 : n > COMPI_POOL_MAX ? COMPI_POOL_MAX : n;
    pthread_mutex_unlock(&compi_pool_mu);
}

int compi_pool_threads(void)
{
    pthread_mutex_lock(&compi_pool_mu);
    int n = compi_pool_closed ? 0 : compi_pool_want;
    pthread_mutex_unlock(&compi_pool_mu);
    return n;
}

int compi_pool_auto_threads(int cpus, int online, int ranks, int app_threads)
{
    if (cpus < 1 || ranks < 1) return 0;
    if (online < cpus) online = cpus;
    /* ranks sharing one mask share its cores; a rank bound to its own
     * cores has its mask */
    int share = online / ranks < cpus ? online / ranks : cpus;
    if (share < 1) share = 1;
    int free_cores = share - (app_threads < 1 ? 1 : app_threads);
    if (free_cores < 0) free_cores = 0;
    return free_cores > COMPI_POOL_MAX ? COMPI_POOL_MAX : free_cores;
}

void compi_pool_set_limit(int (*fn)(void))
{
    pthread_mutex_lock(&compi_pool_mu);
    compi_pool_limit_fn = fn;
    pthread_mutex_unlock(&compi_pool_mu);
}

int compi_pool_call_threads(int started, int share, int in_parallel, int team)
{
    if (!in_parallel) return started;
    int free_cores = share - (team < 1 ? 1 : team);
    return free_cores < 0 ? 0 : free_cores < started ? free_cores : started;
}

int compi_pool_app_threads(const char *omp_num_threads, int threaded, int share)
{
    if (omp_num_threads && *omp_num_threads) {
        char *end;
        long t = strtol(omp_num_threads, &end, 10);
        if (end != omp_num_threads && t >= 1 && (*end == 0 || *end == ',')) return t > 1 << 20 ? 1 << 20 : (int)t;
    }
    return threaded ? (share < 1 ? 1 : share) : 1;
}

/* Runs item i of j; called and returns with the mutex held. */
static void compi_pool_run_item(compi_pool_job *j, size_t i)
{
    if (j->running == 0) j->busy_from = compi_pool_clock(CLOCK_MONOTONIC);
    if (j->running == 1) j->multi_from = compi_pool_clock(CLOCK_MONOTONIC);
    j->running++;
    pthread_mutex_unlock(&compi_pool_mu);
    uint64_t c0 = compi_pool_clock(CLOCK_THREAD_CPUTIME_ID);
    j->fn(j->arg, i);
    uint64_t c = compi_pool_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
    pthread_mutex_lock(&compi_pool_mu);
    j->cpu_ns += c;
    if (--j->running == 0) j->busy_ns += compi_pool_clock(CLOCK_MONOTONIC) - j->busy_from;
    if (j->running == 1) j->multi_ns += compi_pool_clock(CLOCK_MONOTONIC) - j->multi_from;
    j->done[i] = 1;
    j->ndone++;
    pthread_cond_broadcast(&compi_pool_fin);
}

static compi_pool_job *compi_pool_next_work(void)
{
    for (compi_pool_job *j = compi_pool_jobs; j; j = j->next_job)
        if (j->next < j->released && j->helping < j->limit) return j;
    return NULL;
}

static void *compi_pool_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&compi_pool_mu);
    for (;;) {
        compi_pool_job *j = compi_pool_next_work();
        if (j) {
            compi_pool_nhelped++;
            j->helping++;
            compi_pool_run_item(j, j->next++);
            j->helping--; /* j lives on: its end waits for this item, under the mutex */
            continue;
        }
        if (compi_pool_stop) break;
        pthread_cond_wait(&compi_pool_work, &compi_pool_mu);
    }
    pthread_mutex_unlock(&compi_pool_mu);
    return NULL;
}

/* With the mutex held: starts the helpers once. Signals go to the
 * application's threads, never to a helper. */
static void compi_pool_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int made = 0;
    for (; made < compi_pool_want; made++)
        if (pthread_create(&compi_pool_tid[made], NULL, compi_pool_main, NULL) != 0) break;
        else pthread_setname_np(compi_pool_tid[made], "compi-pool"); /* top -H, ps -L, debuggers */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    compi_pool_want = made;
    compi_pool_started = 1;
}

compi_pool_job *compi_pool_job_new(size_t n, compi_pool_fn fn, void *arg)
{
    pthread_mutex_lock(&compi_pool_mu);
    int (*limit_fn)(void) = compi_pool_limit_fn;
    pthread_mutex_unlock(&compi_pool_mu);
    int limit = limit_fn ? limit_fn() : COMPI_POOL_MAX; /* outside the mutex: it may ask the pool */
    pthread_mutex_lock(&compi_pool_mu);
    if (!compi_pool_started && !compi_pool_closed && compi_pool_want > 0 && limit > 0) compi_pool_start();
    int usable = compi_pool_started && !compi_pool_closed && compi_pool_want > 0 && limit > 0;
    pthread_mutex_unlock(&compi_pool_mu);
    if (!usable || n == 0) return NULL;
    compi_pool_job *j = calloc(1, sizeof *j);
    if (!j || !(j->done = calloc(n, 1))) {
        free(j);
        return NULL;
    }
    j->n = n;
    j->limit = limit;
    j->fn = fn;
    j->arg = arg;
    pthread_mutex_lock(&compi_pool_mu);
    compi_pool_job **tail = &compi_pool_jobs;
    while (*tail) tail = &(*tail)->next_job;
    *tail = j;
    pthread_mutex_unlock(&compi_pool_mu);
    return j;
}

void compi_pool_release(compi_pool_job *j, size_t upto)
{
    pthread_mutex_lock(&compi_pool_mu);
    if (upto > j->n) upto = j->n;
    if (upto > j->released) {
        j->released = upto;
        pthread_cond_broadcast(&compi_pool_work);
    }
    pthread_mutex_unlock(&compi_pool_mu);
}

int compi_pool_help(compi_pool_job *j)
{
    pthread_mutex_lock(&compi_pool_mu);
    int ran = j->next < j->released;
    if (ran) compi_pool_run_item(j, j->next++);
    pthread_mutex_unlock(&compi_pool_mu);
    return ran;
}

int compi_pool_done(compi_pool_job *j, size_t i)
{
    pthread_mutex_lock(&compi_pool_mu);
    int d = i < j->n && j->done[i];
    pthread_mutex_unlock(&compi_pool_mu);
    return d;
}

void compi_pool_wait(compi_pool_job *j, size_t i)
{
    if (i >= j->n) return;
    pthread_mutex_lock(&compi_pool_mu);
    if (j->released <= i) {
        j->released = i + 1;
        pthread_cond_broadcast(&compi_pool_work);
    }
    while (!j->done[i]) {
        /* item i itself, if nobody took it yet, or a later one */
        if (j->next < j->released) compi_pool_run_item(j, j->next++);
        else pthread_cond_wait(&compi_pool_fin, &compi_pool_mu);
    }
    pthread_mutex_unlock(&compi_pool_mu);
}

void compi_pool_job_end(compi_pool_job *j)
{
    if (!j) return;
    pthread_mutex_lock(&compi_pool_mu);
    j->released = j->next; /* nothing more is handed out */
    while (j->ndone < j->next) pthread_cond_wait(&compi_pool_fin, &compi_pool_mu);
    for (compi_pool_job **p = &compi_pool_jobs; *p; p = &(*p)->next_job)
        if (*p == j) {
            *p = j->next_job;
            break;
        }
    compi_pool_njobs++;
    compi_pool_nitems += j->ndone;
    /* a job of one item says nothing about running items side by side, nor
     * does one whose items mostly ran one at a time (chunks decoded as a
     * slower wire brings them): its CPU over wall time is about 1 whatever
     * the cores, and would pull the speedup the estimate assumes down to
     * no gain on a node whose cores are free */
    if (j->ndone > 1 && j->busy_ns > 0 && 2 * j->multi_ns >= j->busy_ns) {
        double s = (double)j->cpu_ns / (double)j->busy_ns;
        compi_pool_speedup = compi_pool_speedup > 0 ? 0.75 * compi_pool_speedup + 0.25 * s : s;
    }
    pthread_mutex_unlock(&compi_pool_mu);
    free(j->done);
    free(j);
}

uint64_t compi_pool_pause_ns(uint64_t waited_ns)
{
    if (waited_ns < COMPI_POOL_POLL_NS) return 0;
    uint64_t p = waited_ns / 32;
    return p < COMPI_POOL_PAUSE_MIN_NS   ? COMPI_POOL_PAUSE_MIN_NS
           : p > COMPI_POOL_PAUSE_MAX_NS ? COMPI_POOL_PAUSE_MAX_NS
                                         : p;
}

void compi_pool_idle(uint64_t waited_ns)
{
    uint64_t p = compi_pool_threads() > 0 ? compi_pool_pause_ns(waited_ns) : 0;
    if (!p) {
        sched_yield();
        return;
    }
    struct timespec ts = {(time_t)(p / 1000000000u), (long)(p % 1000000000u)};
    nanosleep(&ts, NULL);
}

double compi_pool_measured_speedup(void)
{
    pthread_mutex_lock(&compi_pool_mu);
    double s = compi_pool_speedup;
    pthread_mutex_unlock(&compi_pool_mu);
    return s;
}

void compi_pool_counts(uint64_t *jobs, uint64_t *items, uint64_t *helped)
{
    pthread_mutex_lock(&compi_pool_mu);
    *jobs = compi_pool_njobs;
    *items = compi_pool_nitems;
    *helped = compi_pool_nhelped;
    pthread_mutex_unlock(&compi_pool_mu);
}

void compi_pool_shutdown(void)
{
    pthread_mutex_lock(&compi_pool_mu);
    int started = compi_pool_started, n = compi_pool_want;
    compi_pool_stop = 1;
    compi_pool_closed = 1;
    pthread_cond_broadcast(&compi_pool_work);
    pthread_mutex_unlock(&compi_pool_mu);
    if (started)
        for (int t = 0; t < n; t++) pthread_join(compi_pool_tid[t], NULL);
}
