/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec pool without MPI (lib/pool/pool.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pool/pool.h"

static int failures;
#define CHECK(c, ...)                                        \
    do {                                                     \
        if (!(c)) {                                          \
            failures++;                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                    \
            fputc('\n', stderr);                             \
        }                                                    \
    } while (0)

#define ITEMS 200
typedef struct {
    int runs[ITEMS];              /* how often each item ran */
    pthread_t who[ITEMS];         /* the thread that ran it */
    unsigned out[ITEMS];
} work;

static void item(void *arg, size_t i)
{
    work *w = arg;
    unsigned x = (unsigned)i * 2654435761u;
    for (int r = 0; r < 2000; r++) x = x * 1103515245u + 12345u;   /* some work, a fixed result */
    w->out[i] = x;
    w->who[i] = pthread_self();
    __atomic_add_fetch(&w->runs[i], 1, __ATOMIC_RELAXED);
}

static unsigned expect(size_t i)
{
    unsigned x = (unsigned)i * 2654435761u;
    for (int r = 0; r < 2000; r++) x = x * 1103515245u + 12345u;
    return x;
}

/* The pool's helpers among this process's threads (named compi-pool; a
 * sanitizer's own threads are not counted), and whether all of them sleep. */
static int task_count(int *all_others_sleep)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0, sleeping = 1;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *c = fopen(path, "r");
        if (!c) continue;
        int helper = fgets(buf, sizeof buf, c) && strncmp(buf, "compi-pool", 10) == 0;
        fclose(c);
        if (!helper) continue;
        n++;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = 0;
        char *p = strrchr(buf, ')');   /* the state follows the command name */
        if (p && p[1] == ' ' && p[2] != 'S') sleeping = 0;
    }
    if (d) closedir(d);
    if (all_others_sleep) *all_others_sleep = sleeping;
    return n;
}

/* Items that count how many run at once (a job's helper limit). */
static int running_now, running_max;
static void item_concurrent(void *arg, size_t i)
{
    int now = __atomic_add_fetch(&running_now, 1, __ATOMIC_SEQ_CST);
    int seen = __atomic_load_n(&running_max, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(&running_max, &seen, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL); /* long enough for a second helper to take the next item */
    item(arg, i);
    __atomic_sub_fetch(&running_now, 1, __ATOMIC_SEQ_CST);
}
/* Items of a job of two that run side by side: each waits for the other to
 * start, then both run ten times as long as that took (at least 200 ms),
 * then each waits for the other to be done, so a thread descheduled at
 * either end (a loaded machine) cannot make them look one at a time. */
static int pair_started, pair_slept;
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static void item_pair(void *arg, size_t i)
{
    uint64_t t0 = mono_ns();
    __atomic_add_fetch(&pair_started, 1, __ATOMIC_SEQ_CST);
    struct timespec ts = {0, 100000};
    while (__atomic_load_n(&pair_started, __ATOMIC_SEQ_CST) < 2) nanosleep(&ts, NULL);
    uint64_t wait = 10 * (mono_ns() - t0);
    if (wait < 200000000u) wait = 200000000u;
    ts.tv_sec = (time_t)(wait / 1000000000u);
    ts.tv_nsec = (long)(wait % 1000000000u);
    nanosleep(&ts, NULL);
    __atomic_add_fetch(&pair_slept, 1, __ATOMIC_SEQ_CST);
    ts.tv_sec = 0;
    ts.tv_nsec = 100000;
    while (__atomic_load_n(&pair_slept, __ATOMIC_SEQ_CST) < 2) nanosleep(&ts, NULL);
    item(arg, i);
}
static int limit_none(void) { return 0; }
static int limit_one(void) { return 1; }

/* A call limit: 0 gives no job, 1 keeps all but one helper asleep. */
static void test_limit(work *w)
{
    compi_pool_set_limit(limit_none);
    CHECK(compi_pool_job_new(4, item, w) == NULL, "a call with no helper to use gets no job");
    compi_pool_set_limit(limit_one);
    memset(w, 0, sizeof *w);
    compi_pool_job *j = compi_pool_job_new(ITEMS / 4, item_concurrent, w);
    CHECK(j != NULL, "a call with one helper gets a job");
    compi_pool_release(j, ITEMS / 4);
    for (size_t i = 0; i < ITEMS / 4; i++)
        while (!compi_pool_done(j, i)) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    compi_pool_job_end(j);
    for (size_t i = 0; i < ITEMS / 4; i++) CHECK(w->runs[i] == 1, "limited job: item %zu ran %d times", i, w->runs[i]);
    CHECK(running_max == 1, "a job limited to one helper ran %d items at once", running_max);
    compi_pool_set_limit(NULL);
}

static void test_auto(void)
{
    CHECK(compi_pool_call_threads(7, 8, 0, 8) == 7, "masteronly: every helper");
    CHECK(compi_pool_call_threads(7, 8, 1, 8) == 0, "funneled, a team on every core: none");
    CHECK(compi_pool_call_threads(7, 8, 1, 4) == 4, "funneled, a team of 4 on 8 cores: 4");
    CHECK(compi_pool_call_threads(3, 8, 1, 2) == 3, "never more than the helpers started");
    CHECK(compi_pool_call_threads(1, 1, 1, 1) == 0, "one core, inside a region: none");
    /* this machine's case: 2 cores, 2 ranks, a single-threaded application */
    CHECK(compi_pool_auto_threads(2, 2, 2, 1) == 0, "2 cores, 2 ranks: no helper");
    CHECK(compi_pool_auto_threads(2, 2, 1, 1) == 1, "2 cores, 1 rank: one helper");
    CHECK(compi_pool_auto_threads(16, 16, 2, 1) == 7, "16 cores, 2 unbound ranks: 7 helpers each");
    CHECK(compi_pool_auto_threads(16, 16, 2, 8) == 0, "16 cores, 2 ranks of 8 threads: none");
    CHECK(compi_pool_auto_threads(16, 16, 1, 4) == 12, "16 cores, 1 rank of 4 threads: 12");
    CHECK(compi_pool_auto_threads(4, 16, 4, 1) == 3, "a rank bound to 4 of 16 cores: 3");
    CHECK(compi_pool_auto_threads(1, 16, 16, 1) == 0, "a rank per core: none");
    CHECK(compi_pool_auto_threads(256, 256, 1, 1) == COMPI_POOL_MAX, "capped");
    CHECK(compi_pool_app_threads("4", 0, 8) == 4, "OMP_NUM_THREADS=4");
    CHECK(compi_pool_app_threads("3,2", 1, 8) == 3, "nested OMP_NUM_THREADS: the first level");
    CHECK(compi_pool_app_threads(NULL, 0, 8) == 1, "MPI_THREAD_SINGLE, no OpenMP setting: 1");
    CHECK(compi_pool_app_threads(NULL, 1, 8) == 8, "threaded, no OMP_NUM_THREADS: the whole share");
    CHECK(compi_pool_app_threads("x", 1, 6) == 6, "a bad OMP_NUM_THREADS is ignored");
    CHECK(compi_pool_app_threads("0", 0, 6) == 1, "OMP_NUM_THREADS=0 is ignored");
}

/* The waiting thread's pause: polls first, then sleeps a 32nd of its wait
 * so far, within bounds. */
static void test_pause(void)
{
    CHECK(compi_pool_pause_ns(0) == 0, "no pause at once");
    CHECK(compi_pool_pause_ns(COMPI_POOL_POLL_NS - 1) == 0, "polls at first");
    CHECK(compi_pool_pause_ns(COMPI_POOL_POLL_NS) == COMPI_POOL_PAUSE_MIN_NS, "then the shortest pause");
    CHECK(compi_pool_pause_ns(3200000) == 100000, "a 32nd of the wait: %llu",
          (unsigned long long)compi_pool_pause_ns(3200000));
    CHECK(compi_pool_pause_ns(10000000000ull) == COMPI_POOL_PAUSE_MAX_NS, "at most the longest pause");
    uint64_t prev = 0;
    for (uint64_t t = 0; t < 100000000; t += 37000) {
        uint64_t p = compi_pool_pause_ns(t);
        CHECK(p >= prev && (t < COMPI_POOL_POLL_NS || 32 * p <= t + 32 * COMPI_POOL_PAUSE_MIN_NS),
              "pause %llu after %llu ns", (unsigned long long)p, (unsigned long long)t);
        prev = p;
    }
}

int main(void)
{
    test_auto();
    int base = task_count(NULL);

    /* no helpers: the caller runs everything */
    compi_pool_set_threads(0);
    CHECK(compi_pool_job_new(4, item, NULL) == NULL, "no helpers, no job");

    compi_pool_set_threads(2);
    CHECK(compi_pool_threads() == 2, "two helpers configured");
    CHECK(task_count(NULL) == base, "helpers are created lazily, not when configured");

    /* the helpers alone run the items when the caller never helps */
    work *w = calloc(1, sizeof *w);
    compi_pool_job *j = compi_pool_job_new(ITEMS, item, w);
    CHECK(j != NULL, "a job with helpers");
    CHECK(task_count(NULL) == base + 2, "two helper threads at the first job");
    compi_pool_release(j, ITEMS);
    for (size_t i = 0; i < ITEMS; i++)
        while (!compi_pool_done(j, i)) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    compi_pool_job_end(j);
    for (size_t i = 0; i < ITEMS; i++) {
        CHECK(w->runs[i] == 1, "item %zu ran %d times", i, w->runs[i]);
        CHECK(w->out[i] == expect(i), "item %zu's result", i);
        CHECK(!pthread_equal(w->who[i], pthread_self()), "item %zu ran on the caller, who never helped", i);
    }

    /* in-order waits with the caller helping: every item once, same results */
    memset(w, 0, sizeof *w);
    j = compi_pool_job_new(ITEMS, item, w);
    for (size_t i = 0; i < ITEMS; i++) {
        compi_pool_release(j, i + 6);
        compi_pool_wait(j, i);
        CHECK(w->out[i] == expect(i), "item %zu ready when waited for", i);
    }
    compi_pool_job_end(j);
    for (size_t i = 0; i < ITEMS; i++) CHECK(w->runs[i] == 1, "item %zu ran %d times (waits)", i, w->runs[i]);

    /* a job ended early: what was taken finishes, nothing runs after */
    memset(w, 0, sizeof *w);
    j = compi_pool_job_new(ITEMS, item, w);
    compi_pool_release(j, ITEMS / 2);
    compi_pool_job_end(j);
    int ran = 0;
    for (size_t i = 0; i < ITEMS; i++) {
        CHECK(w->runs[i] <= 1, "item %zu ran twice", i);
        CHECK(i < ITEMS / 2 || w->runs[i] == 0, "unreleased item %zu ran", i);
        ran += w->runs[i];
    }
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    for (size_t i = 0; i < ITEMS; i++) ran -= w->runs[i];
    CHECK(ran == 0, "items ran after their job ended");

    test_limit(w);

    /* two callers' jobs side by side (MPI_THREAD_MULTIPLE) */
    work *w2 = calloc(1, sizeof *w2);
    memset(w, 0, sizeof *w);
    compi_pool_job *a = compi_pool_job_new(ITEMS, item, w), *b = compi_pool_job_new(ITEMS, item, w2);
    compi_pool_release(a, ITEMS);
    compi_pool_release(b, ITEMS);
    compi_pool_wait(b, ITEMS - 1);
    compi_pool_wait(a, ITEMS - 1);
    compi_pool_job_end(b);
    compi_pool_job_end(a);
    for (size_t i = 0; i < ITEMS; i++) CHECK(w->runs[i] == 1 && w2->runs[i] == 1, "two jobs: item %zu", i);

    /* two items that run side by side (each waits for the other to start)
     * leave a measured speedup */
    memset(w, 0, sizeof *w);
    j = compi_pool_job_new(2, item_pair, w);
    compi_pool_release(j, 2);
    compi_pool_wait(j, 1);
    compi_pool_wait(j, 0);
    compi_pool_job_end(j);
    CHECK(w->runs[0] == 1 && w->runs[1] == 1, "paired items ran once each");
    CHECK(compi_pool_measured_speedup() > 0, "a job that ran items side by side leaves a measured speedup");

    /* items released one at a time (chunks decoded as a slow wire brings
     * them) never run side by side: the job says nothing about the cores
     * and leaves the measured speedup as it was */
    double before = compi_pool_measured_speedup();
    memset(w, 0, sizeof *w);
    j = compi_pool_job_new(ITEMS, item, w);
    for (size_t i = 0; i < ITEMS; i++) compi_pool_wait(j, i);
    compi_pool_job_end(j);
    for (size_t i = 0; i < ITEMS; i++) CHECK(w->runs[i] == 1, "item %zu ran %d times (one at a time)", i, w->runs[i]);
    CHECK(compi_pool_measured_speedup() == before, "a job run one item at a time changed the speedup: %f to %f",
          before, compi_pool_measured_speedup());

    test_pause();

    /* idle helpers block instead of spinning: a blocked thread shows state
     * S; a woken one may wait for a core a while on a loaded machine (R),
     * a spinning one never leaves R */
    int asleep = 0, count = 0;
    for (int tries = 0; tries < 200 && !asleep; tries++) {
        nanosleep(&pause, NULL);
        count = task_count(&asleep);
    }
    CHECK(count == base + 2 && asleep, "idle helpers sleep (state S)");

    compi_pool_shutdown();
    CHECK(task_count(NULL) == base, "no helper after shutdown");
    CHECK(compi_pool_threads() == 0, "no helpers after shutdown");
    CHECK(compi_pool_job_new(4, item, w) == NULL, "no job after shutdown");
    free(w);
    free(w2);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("pool_unit: ok\n");
    return 0;
}
