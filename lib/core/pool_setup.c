/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec pool's thread count at MPI_Init (COMPI_THREADS, pool.h) and
 * its helpers' end at MPI_Finalize. The only part of the pool that calls
 * MPI, from the thread that initialises or finalises it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "core/state.h"
#include "core/decide.h"
#include "pool/pool.h"
#include "core/pool_setup.h"
#include "core/report.h"
#include "core/stats.h"

/* Ranks of this job on this machine: the ranks that share its cores. The
 * node map counted them, unless it pretends (COMPI_DEBUG_RANKS_PER_NODE):
 * then MPI is asked here. */
static int compi_pool_ranks_here(void)
{
    if (compi_g.host_ranks > 0) return compi_g.host_ranks;
    MPI_Comm shm;
    int n = 1;
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) != MPI_SUCCESS) return 1;
    PMPI_Comm_size(shm, &n);
    PMPI_Comm_free(&shm);
    return n;
}

static int compi_pool_threads_used; /* the count set at MPI_Init (the pool reads 0 once shut down) */
static const compi_report_counters compi_pool_section;

/* OpenMP, when the application has a runtime: weak, so compi itself needs
 * none (NULL without one). */
extern int omp_in_parallel(void) __attribute__((weak));
extern int omp_get_num_threads(void) __attribute__((weak));
static int compi_pool_share;    /* cores this rank may use ("auto" with OpenMP) */
static int compi_pool_omp_idle; /* compi_pool_omp_sleeps() at start-up ("auto"): every message asks */

/* Helpers for a call ("auto" with OpenMP): all of them from outside a
 * parallel region, the cores the team leaves free from inside one. */
static int compi_pool_call_limit(void)
{
    int in = omp_in_parallel && omp_in_parallel();
    return compi_pool_call_threads(compi_pool_threads(), compi_pool_share, in,
                                   in && omp_get_num_threads ? omp_get_num_threads() : 1);
}

/* An OpenMP runtime whose idle threads sleep: outside parallel regions
 * only the calling thread is busy. OMP_WAIT_POLICY=active keeps them
 * spinning on their cores, so they count as busy in every call. */
static int compi_pool_omp_sleeps(void)
{
    const char *w = getenv("OMP_WAIT_POLICY");
    return omp_in_parallel && !(w && strcasecmp(w, "active") == 0);
}

/* "auto": the rank's share of the machine's cores (its affinity mask if
 * that is smaller) less the application threads busy while it calls MPI. */
static int compi_pool_auto(int ranks, int *share_out)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    int share = (int)(online > 0 ? online : cpus) / ranks;
    if (share > cpus) share = cpus;
    int omp = compi_pool_omp_sleeps();
    int app = omp ? 1 : compi_pool_app_threads(getenv("OMP_NUM_THREADS"), level != MPI_THREAD_SINGLE, share);
    int n = compi_pool_auto_threads(cpus, (int)online, ranks, app);
    *share_out = share;
    /* news at level 1 only when helpers will run */
    compi_log(n > 0 && compi_g.node_count > 1 ? 1 : 2,
              "codec pool: %d helper thread%s (auto: %d cores in the affinity mask, %ld online, %d rank%s here, "
              "%d application thread%s busy%s)",
              n, n == 1 ? "" : "s", cpus, online, ranks, ranks == 1 ? "" : "s", app, app == 1 ? "" : "s",
              omp ? " outside parallel regions; inside one, the team's cores are left to it" : "");
    if (cpus == 1 && online > ranks && compi_g.node_count > 1)
        /* Open MPI binds each rank to one core when np <= 2: the helpers
         * would share the rank's core, so there are none */
        compi_log(1,
                  "codec pool: off: each rank is bound to one core while %ld cores are online; let the ranks use "
                  "the node's free cores (Open MPI: --bind-to none, or --map-by slot:PE=N) or set COMPI_THREADS",
                  online - ranks);
    return n;
}

#ifdef COMPI_COMPAT_NO_POOL
#define COMPI_POOL_POSSIBLE 0
#else
#define COMPI_POOL_POSSIBLE 1
#endif

void compi_pool_setup_init(void)
{
    /* collective when the node map did not count them: every rank alike,
     * whatever its setting (COMPI_DEBUG_RANKS_PER_NODE is the same on all) */
    int ranks = compi_pool_ranks_here();
    int n = compi_cfg.threads;
    if (!COMPI_POOL_POSSIBLE) {
        if (n != 0) compi_log(2, "codec pool: off under SimGrid SMPI (a simulated rank runs no threads of its own)");
        n = 0;
    } else if (n == COMPI_THREADS_AUTO) {
        n = compi_pool_auto(ranks, &compi_pool_share);
        compi_pool_omp_idle = compi_pool_omp_sleeps();
        if (n > 0 && compi_pool_omp_idle) compi_pool_set_limit(compi_pool_call_limit);
    } else {
        compi_log(n > 0 && compi_g.node_count > 1 ? 1 : 2, "codec pool: %d helper thread%s (COMPI_THREADS)", n,
                  n == 1 ? "" : "s");
    }
    compi_pool_set_threads(n);
    compi_pool_threads_used = compi_pool_threads();
    compi_report_add_counters(&compi_pool_section);
}

double compi_pool_speedup_now(void)
{
    int n = compi_pool_threads();
    if (n > 0 && compi_pool_share > 0 && compi_pool_omp_idle) n = compi_pool_call_limit();
    /* before the pool's first job that codes side by side: a core per
     * helper (a start-up measurement of its own read whatever the other
     * ranks on these cores did at that moment, and cost the first message) */
    return compi_codec_model_threads_speedup(n, compi_pool_measured_speedup());
}

/* The report's "pool" section (core/report.h): this rank's helper threads,
 * the jobs that used them, their items and the share helpers ran, the
 * collective blocks coded side by side, and the measured speedup (in
 * thousandths, with a flag saying it was measured, so the totals give the
 * mean over the ranks that measured one). */
enum {
    COMPI_POOL_W_THREADS,
    COMPI_POOL_W_JOBS,
    COMPI_POOL_W_ITEMS,
    COMPI_POOL_W_HELPED,
    COMPI_POOL_W_ENC,
    COMPI_POOL_W_DEC,
    COMPI_POOL_W_SPEEDUP,
    COMPI_POOL_W_MEASURED,
    COMPI_POOL_WORDS
};

static void compi_pool_report_fill(uint64_t *v)
{
    double s = compi_pool_measured_speedup();
    v[COMPI_POOL_W_THREADS] = (uint64_t)compi_pool_threads_used;
    compi_pool_counts(&v[COMPI_POOL_W_JOBS], &v[COMPI_POOL_W_ITEMS], &v[COMPI_POOL_W_HELPED]);
    v[COMPI_POOL_W_ENC] = __atomic_load_n(&compi_st.pool_blocks_encoded, __ATOMIC_RELAXED);
    v[COMPI_POOL_W_DEC] = __atomic_load_n(&compi_st.pool_blocks_decoded, __ATOMIC_RELAXED);
    v[COMPI_POOL_W_SPEEDUP] = s > 0 ? (uint64_t)(s * 1000.0 + 0.5) : 0;
    v[COMPI_POOL_W_MEASURED] = s > 0;
}

static void compi_pool_report_json(FILE *f, const uint64_t *v)
{
    fprintf(f,
            "{\"threads\": %llu, \"jobs\": %llu, \"items\": %llu, \"helper_items\": %llu, "
            "\"collective_blocks_encoded\": %llu, \"collective_blocks_decoded\": %llu, \"speedup\": ",
            (unsigned long long)v[COMPI_POOL_W_THREADS], (unsigned long long)v[COMPI_POOL_W_JOBS],
            (unsigned long long)v[COMPI_POOL_W_ITEMS], (unsigned long long)v[COMPI_POOL_W_HELPED],
            (unsigned long long)v[COMPI_POOL_W_ENC], (unsigned long long)v[COMPI_POOL_W_DEC]);
    if (v[COMPI_POOL_W_MEASURED])
        fprintf(f, "%.3f}", (double)v[COMPI_POOL_W_SPEEDUP] / 1000.0 / (double)v[COMPI_POOL_W_MEASURED]);
    else fprintf(f, "null}");
}

static void compi_pool_report_summary(const uint64_t *v)
{
    if (!v[COMPI_POOL_W_THREADS]) return;
    if (!v[COMPI_POOL_W_JOBS])
        fprintf(stderr, "compi: codec pool: %llu helper thread(s) in all, no job used them\n",
                (unsigned long long)v[COMPI_POOL_W_THREADS]);
    else
        fprintf(stderr, "compi: codec pool: %llu helper thread(s) in all, %llu job(s), %llu of %llu items on helpers\n",
                (unsigned long long)v[COMPI_POOL_W_THREADS], (unsigned long long)v[COMPI_POOL_W_JOBS],
                (unsigned long long)v[COMPI_POOL_W_HELPED], (unsigned long long)v[COMPI_POOL_W_ITEMS]);
}

static const compi_report_counters compi_pool_section = {
    "pool", COMPI_POOL_WORDS, compi_pool_report_fill, compi_pool_report_json, compi_pool_report_summary,
};

void compi_pool_setup_finalize(void)
{
    compi_pool_shutdown();
}
