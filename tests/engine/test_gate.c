/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the collective gate (lib/engine/trials.h) and of the window's
 * probe (compi_window_classify_probe), MPI-free and deterministic: a few
 * simulated ranks each keep their own gate, call times and compressed-frame
 * counts are injected per rank and call, and votes are combined with MAX as
 * MPI_Allreduce would. The expected path sequences are worked out by hand
 * from the rules in trials.h (trial 2 + 2 calls, holds 4, 8, ... 64, margin
 * 10 %), not from the code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compi.h"
#include "engine/trials.h"
#include "engine/window.h"

#include "engine_test.h"

#define RANKS 3
#define CALLS 200

/* What each rank measures in call k on a path: ns and frames compressed. */
typedef struct {
    uint64_t (*ns)(int rank, int call, int path, void *ctx);
    uint64_t (*saved)(int rank, int call, void *ctx);   /* bytes of 1000 in frames */
    void *ctx;
} scenario;

/* Runs `calls` calls on RANKS gates; path[k] is the (common) path of call k
 * ('C' compi, 'M' MPI), probe[k] whether it was a probe. Fails the test if
 * the ranks ever disagree. */
static void run(const scenario *s, int calls, char *path, char *probe)
{
    compi_trials_params p;
    compi_trials_params_default(&p);
    compi_trials g[RANKS];
    for (int r = 0; r < RANKS; r++) compi_trials_init(&g[r]);
    for (int k = 0; k < calls; k++) {
        int pth[RANKS], prb[RANKS], due[RANKS];
        for (int r = 0; r < RANKS; r++) pth[r] = (int)compi_trials_begin(&g[r], &p, &prb[r]);
        for (int r = 0; r < RANKS; r++) {
            CHECK(pth[r] == pth[0] && prb[r] == prb[0], "call %d: rank %d path %d probe %d, rank 0 path %d probe %d",
                  k, r, pth[r], prb[r], pth[0], prb[0]);
            uint64_t saved = pth[r] == COMPI_TRIALS_PATH_COMPI ? s->saved(r, k, s->ctx) : 0;
            due[r] = compi_trials_end(&g[r], &p, s->ns(r, k, pth[r], s->ctx), pth[r] == COMPI_TRIALS_PATH_COMPI ? 1000 : 0,
                                    saved);
            CHECK(due[r] == due[0], "call %d: rank %d vote due %d, rank 0 %d", k, r, due[r], due[0]);
        }
        if (due[0]) {
            uint64_t agreed[COMPI_TRIALS_VOTE] = {0, 0, 0}, v[COMPI_TRIALS_VOTE];
            for (int r = 0; r < RANKS; r++) {
                compi_trials_vote(&g[r], v);
                for (int i = 0; i < COMPI_TRIALS_VOTE; i++)
                    if (v[i] > agreed[i]) agreed[i] = v[i];
            }
            for (int r = 0; r < RANKS; r++) compi_trials_decide(&g[r], &p, agreed);
        }
        path[k] = pth[0] == COMPI_TRIALS_PATH_COMPI ? 'C' : 'M';
        probe[k] = prb[0] ? 'p' : '.';
    }
    path[calls] = probe[calls] = 0;
}

/* ---- scenarios */

typedef struct {
    uint64_t compi_ns, mpi_ns;   /* per call, before the rank's noise */
    int compressible_from;       /* calls from this one on compress (-1: never) */
    int compressing_rank;        /* only this rank compresses (-1: all) */
    int slow_rank;               /* this rank's compi calls take 3x (-1: none) */
    int noise;                   /* each rank and call measures up to this many % more */
    uint64_t saved;              /* bytes of every 1000 compression saves (0: 500) */
} simple;

static uint64_t simple_ns(int rank, int call, int path, void *ctx)
{
    const simple *s = ctx;
    /* every rank measures something else (skew, noise) */
    uint64_t noise = s->noise ? (uint64_t)((rank * 7 + call * 13) % (s->noise + 1)) : 0;
    uint64_t base = path == COMPI_TRIALS_PATH_COMPI ? s->compi_ns : s->mpi_ns;
    if (path == COMPI_TRIALS_PATH_COMPI && rank == s->slow_rank) base *= 3;
    return base + base * noise / 100;
}

static uint64_t simple_saved(int rank, int call, void *ctx)
{
    const simple *s = ctx;
    if (s->compressible_from < 0 || call < s->compressible_from) return 0;
    return s->compressing_rank < 0 || rank == s->compressing_rank ? (s->saved ? s->saved : 500) : 0;
}

static void run_simple(simple *s, int calls, char *path, char *probe)
{
    scenario sc = {simple_ns, simple_saved, s};
    run(&sc, calls, path, probe);
}

static int count(const char *s, char c)
{
    int n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

/* The schedule of trials.h written out: compressing data keeps compi's path
 * with holds 4, 8, 16, 32, 64, 64 between 2-call trials (probe on the
 * first). */
static void test_compressible(void)
{
    char path[CALLS + 1], probe[CALLS + 1];
    simple s = {1000000, 1000000, 0, -1, -1, 10, 0};
    run_simple(&s, 40, path, probe);
    CHECK(strcmp(path, "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC") == 0, "compressible: %s", path);
    /* trials at calls 0-1, 6-7 (after hold 4), 16-17 (after hold 8), 34-35 (after 16) */
    CHECK(strcmp(probe, "p.....p.........p.................p.....") == 0, "probes: %s", probe);
    /* one rank compressing is enough (MAX): the same schedule */
    simple one = {1000000, 500000, 0, 2, -1, 10, 0};
    run_simple(&one, 40, path, probe);
    CHECK(count(path, 'M') == 0, "one rank compressing: %s", path);
    /* compression saving 3 % (random bytes reduced by MAX) does not decide
     * alone: compi's path 20 % slower than the MPI's own loses */
    simple little = {1200000, 1000000, 0, -1, -1, 10, 30};
    run_simple(&little, 8, path, probe);
    CHECK(strcmp(path, "CCMMMMMM") == 0, "3 %% saved, compi slower: %s", path);
    /* ... 10 % does */
    simple enough = {1200000, 1000000, 0, -1, -1, 10, 100};
    run_simple(&enough, 8, path, probe);
    CHECK(strcmp(path, "CCCCCCCC") == 0, "10 %% saved: %s", path);
}

static void test_incompressible_slower(void)
{
    char path[CALLS + 1], probe[CALLS + 1];
    /* compi's raw path 20 % slower than the MPI's own */
    simple s = {1200000, 1000000, -1, -1, -1, 10, 0};
    run_simple(&s, 60, path, probe);
    /* trial C C, trial M M, hold M x4; trial CC MM, hold x8; CC MM, x16; CC MM x32 (cut at 60) */
    const char *want = "CCMMMMMM" "CCMMMMMMMMMM" "CCMMMMMMMMMMMMMMMMMM" "CCMMMMMMMMMMMMMMMMMM";
    CHECK(strcmp(path, want) == 0, "incompressible, compi slower:\n got %s\nwant %s", path, want);
    /* in the long run at most (2 compi trials) per (64 held + 4 trial) calls */
    run_simple(&s, CALLS, path, probe);
    int c = count(path + 100, 'C');
    CHECK(c <= 4, "compi calls in calls 100-199: %d (%s)", c, path + 100);
}

static void test_incompressible_faster(void)
{
    char path[CALLS + 1], probe[CALLS + 1];
    /* compi's raw node-aware path 20 % faster: kept (after one MPI trial) */
    simple s = {800000, 1000000, -1, -1, -1, 10, 0};
    run_simple(&s, 30, path, probe);
    const char *want = "CCMM" "CCCC" "CCMM" "CCCCCCCC" "CCMM" "CCCCCC";
    CHECK(strcmp(path, want) == 0, "incompressible, compi faster:\n got %s\nwant %s", path, want);
    /* 8 % faster is within the margin: the MPI's own */
    simple close = {920000, 1000000, -1, -1, -1, 0, 0};
    run_simple(&close, 30, path, probe);
    CHECK(strcmp(path, "CCMMMMMMCCMMMMMMMMMMCCMMMMMMMM") == 0, "compi 8 %% faster: %s", path);
    /* 12 % faster is beyond it */
    simple beyond = {880000, 1000000, -1, -1, -1, 0, 0};
    run_simple(&beyond, 8, path, probe);
    CHECK(strcmp(path, "CCMMCCCC") == 0, "compi 12 %% faster: %s", path);
    /* one rank slow on compi's path: the agreed (MAX) time is its, so the MPI's own */
    simple slow = {800000, 1000000, -1, -1, 1, 10, 0};
    run_simple(&slow, 8, path, probe);
    CHECK(strcmp(path, "CCMMMMMM") == 0, "one rank slow on compi's path: %s", path);
}

static void test_becomes_compressible(void)
{
    char path[CALLS + 1], probe[CALLS + 1];
    /* incompressible until call 10 (during the first MPI hold), then compressible */
    simple s = {1200000, 1000000, 10, -1, -1, 10, 0};
    run_simple(&s, 40, path, probe);
    /* CC MM MMMM: the hold ends at 8; trial CC at 8-9 sees nothing yet (calls
     * 8, 9 < 10), MM at 10-11, hold x8 to 19; trial at 20-21 compresses:
     * compi's path from 20 on (hold 4 first: the path changed) */
    const char *want = "CCMMMMMMCCMMMMMMMMMM" "CCCCCCCCCCCCCCCCCCCC";
    CHECK(strcmp(path, want) == 0, "becomes compressible:\n got %s\nwant %s", path, want);
    CHECK(probe[20] == 'p' && probe[8] == 'p' && probe[0] == 'p' && probe[21] == '.', "probes: %s", probe);
}

/* ---- window probe */

static void test_window_probe(void)
{
    compi_window_params p;
    compi_window_params_default(&p);
    compi_window w;
    compi_window_init(&w, &p);
    const size_t m = 1 << 20;
    CHECK(compi_window_classify(&w, &p, m, 0) == COMPI_WIN_EVALUATE, "an open window evaluates");
    compi_window_evaluated(&w, &p, m, NULL, 0.9);   /* raw won at 1 MiB */
    CHECK(compi_window_classify(&w, &p, m, 0) == COMPI_WIN_RAW, "then 1 MiB goes raw");
    CHECK(compi_window_classify_probe(&w, &p, m, 0) == COMPI_WIN_EVALUATE, "a probe evaluates it anyway");
    compi_window_evaluated(&w, &p, m, NULL, 0.9);
    CHECK(compi_window_classify(&w, &p, m, 0) == COMPI_WIN_RAW, "raw again after the probe found raw");
    CHECK(compi_window_classify_probe(&w, &p, 100, 0) == COMPI_WIN_RAW, "below the floor a probe stays raw");
    /* a window that compresses keeps compressing under a probe */
    compi_window c;
    compi_window_init(&c, &p);
    compi_window_classify(&c, &p, m, 0);
    compi_window_evaluated(&c, &p, m, (const compi_codec *)&c, 2.0);   /* any non-NULL codec */
    CHECK(compi_window_classify_probe(&c, &p, m, 0) == COMPI_WIN_COMPRESS, "the yes zone under a probe");
    /* backing off: a probe does not end it */
    compi_window b;
    compi_window_init(&b, &p);
    b.backoff_until = 100;
    CHECK(compi_window_classify_probe(&b, &p, m, 50) == COMPI_WIN_RAW, "a probe during a back-off stays raw");
}

int main(void)
{
    test_compressible();
    test_incompressible_slower();
    test_incompressible_faster();
    test_becomes_compressible();
    test_window_probe();
    if (failures) {
        fprintf(stderr, "test_gate: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_gate: all passed\n");
    return 0;
}
