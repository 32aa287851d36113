/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_poolbench: the codec pool's throughput, MPI-free. One message of
 * --size bytes of a data set is compressed, then decompressed, in --chunk
 * chunks by the pool (lib/pool/pool.h) with each helper count of
 * --helpers (0 = the calling thread alone), exactly as a pipelined send
 * and receive code their chunks. Every helper count runs in a fresh child
 * process (a pool is configured once), the counts interleaved round by
 * round so the machine's load hits them alike; each round checks the
 * decompressed bytes. Prints per count the median codec throughput (MB/s
 * of the original data, compress and decompress each) with a 95%
 * interval of the median, the ratio to 0 helpers of the same run, and
 * the throughput per CPU-second the process used (a core's throughput on
 * a loaded machine, where wall-clock rates mostly measure the load). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_common.h"
#include "common/datasets.h"
#include "compi.h"
#include "pool/pool.h"

#define MAX_COUNTS 16
#define MAX_ROUNDS 200

typedef struct {
    const compi_codec *codec;
    compi_codec_params params;
    const unsigned char *src;
    unsigned char **comp, *back;
    long long *clen;
    size_t size, chunk;
    int fail;
} msg;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of the whole process (every thread): bytes per CPU-second
 * is a core's codec throughput however loaded the machine is. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t len_of(const msg *m, size_t k)
{
    return m->size - k * m->chunk < m->chunk ? m->size - k * m->chunk : m->chunk;
}

static void enc(void *arg, size_t k)
{
    msg *m = arg;
    m->clen[k] =
        m->codec->compress(m->src + k * m->chunk, len_of(m, k), m->comp[k], m->codec->bound(m->chunk), &m->params);
}

static void dec(void *arg, size_t k)
{
    msg *m = arg;
    if (m->clen[k] < 0 || m->codec->decompress(m->comp[k], (size_t)m->clen[k], m->back + k * m->chunk, len_of(m, k),
                                               &m->params) != (long long)len_of(m, k))
        __atomic_store_n(&m->fail, 1, __ATOMIC_RELAXED);
}

/* One pass of fn over the n chunks the way the pipeline runs them: the
 * caller waits for chunk k in order while a window of later ones is out. */
static void pass(msg *m, size_t n, compi_pool_fn fn, int helpers)
{
    compi_pool_job *j = compi_pool_job_new(n, fn, m);
    size_t ahead = 2 * ((size_t)helpers + 1);
    for (size_t k = 0; k < n; k++) {
        if (!j) {
            fn(m, k);
            continue;
        }
        compi_pool_release(j, k + ahead);
        compi_pool_wait(j, k);
    }
    compi_pool_job_end(j);
}

/* In a child: reps passes each way; writes the compress and decompress
 * seconds (medians of reps) to fd. */
static int child(msg *m, int helpers, int reps, int fd)
{
    compi_pool_set_threads(helpers);
    size_t n = (m->size + m->chunk - 1) / m->chunk;
    double tc[64], td[64], cc[64], cd[64];
    for (int r = 0; r < reps; r++) {
        memset(m->back, 0, m->size);
        double t0 = now_s(), p0 = cpu_s();
        pass(m, n, enc, helpers);
        double t1 = now_s(), p1 = cpu_s();
        pass(m, n, dec, helpers);
        tc[r] = t1 - t0;
        td[r] = now_s() - t1;
        cc[r] = p1 - p0;
        cd[r] = cpu_s() - p1;
        if (m->fail || memcmp(m->back, m->src, m->size) != 0) {
            fprintf(stderr, "poolbench: decompressed bytes differ (%d helpers)\n", helpers);
            return 1;
        }
    }
    double out[5] = {bench_median(tc, reps), bench_median(td, reps), 0, bench_median(cc, reps), bench_median(cd, reps)};
    for (size_t k = 0; k < n; k++) out[2] += (double)m->clen[k];
    compi_pool_shutdown();
    return write(fd, out, sizeof out) == (ssize_t)sizeof out ? 0 : 1;
}

int main(int argc, char **argv)
{
    size_t size = 8u << 20, chunk = 256u << 10;
    const char *codec = "lz4", *data = "text", *hl = "0,1";
    int level = 0, rounds = 11, reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) bench_parse_size(argv[++i], &size);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) bench_parse_size(argv[++i], &chunk);
        else if (!strcmp(argv[i], "--codec") && i + 1 < argc) codec = argv[++i];
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--helpers") && i + 1 < argc) hl = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: compi_poolbench [--size 8M] [--chunk 256K] [--codec lz4] [--level N] [--data text]\n"
                    "                       [--helpers 0,1] [--rounds 11]\n");
            return 2;
        }
    }
    int counts[MAX_COUNTS], nc = 0;
    for (char *s = strdup(hl), *t = strtok(s, ","); t && nc < MAX_COUNTS; t = strtok(NULL, ",")) counts[nc++] = atoi(t);
    if (rounds < 1) rounds = 1;
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    int ds = compi_dataset_find(data);
    msg m = {compi_codec_by_name(codec), {0, 1, level}, NULL, NULL, NULL, NULL, size, chunk, 0};
    if (ds < 0 || !m.codec || chunk == 0 || size == 0) {
        fprintf(stderr, "poolbench: unknown data set '%s' or codec '%s', or a zero size\n", data, codec);
        return 2;
    }
    m.params.dtclass = compi_dataset_class((size_t)ds);
    size_t n = (size + chunk - 1) / chunk;
    unsigned char *src = malloc(size);
    m.back = malloc(size);
    m.comp = calloc(n, sizeof *m.comp);
    m.clen = calloc(n, sizeof *m.clen);
    for (size_t k = 0; k < n; k++) m.comp[k] = malloc(m.codec->bound(chunk));
    compi_dataset_fill((size_t)ds, src, size, 1);
    m.src = src;
    static double tc[MAX_COUNTS][MAX_ROUNDS], td[MAX_COUNTS][MAX_ROUNDS], pc[MAX_COUNTS][MAX_ROUNDS],
        pd[MAX_COUNTS][MAX_ROUNDS];
    double ratio = 0;
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < nc; c++) {
            int fds[2];
            if (pipe(fds) != 0) return 1;
            pid_t pid = fork();
            if (pid == 0) {
                close(fds[0]);
                _exit(child(&m, counts[c], reps, fds[1]));
            }
            close(fds[1]);
            double out[5] = {0, 0, 0, 0, 0};
            ssize_t got = read(fds[0], out, sizeof out);
            close(fds[0]);
            int st = 0;
            waitpid(pid, &st, 0);
            if (got != (ssize_t)sizeof out || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 1;
            ratio = (double)size / out[2];
            tc[c][r] = (double)size / out[0] / 1e6;
            pc[c][r] = (double)size / out[3] / 1e6;
            pd[c][r] = (double)size / out[4] / 1e6;
            td[c][r] = (double)size / out[1] / 1e6;
        }
    double lc0 = 0, ld0 = 0;
    printf("poolbench: %s level %d, %zu bytes of %s in %zu-byte chunks (ratio %.2f), %d rounds x %d passes "
           "(medians, 95%% interval)\n",
           codec, level, size, data, chunk, ratio, rounds, reps);
    printf("%-8s %-8s %24s %24s %10s %10s %14s %14s\n", "helpers", "threads", "compress MB/s", "decompress MB/s",
           "c vs 0", "d vs 0", "c MB/cpu-s", "d MB/cpu-s");
    for (int c = 0; c < nc; c++) {
        double lo, hi, cov, lo2, hi2;
        double mc[MAX_ROUNDS], md[MAX_ROUNDS];
        memcpy(mc, tc[c], sizeof mc);
        memcpy(md, td[c], sizeof md);
        double medc = bench_median(tc[c], rounds), medd = bench_median(td[c], rounds);
        bench_median_ci(mc, rounds, 0.05, &lo, &hi, &cov);
        bench_median_ci(md, rounds, 0.05, &lo2, &hi2, &cov);
        if (c == 0) {
            lc0 = medc;
            ld0 = medd;
        }
        char a[64], b[64];
        snprintf(a, sizeof a, "%.0f [%.0f, %.0f]", medc, lo, hi);
        snprintf(b, sizeof b, "%.0f [%.0f, %.0f]", medd, lo2, hi2);
        printf("%-8d %-8d %24s %24s %9.2fx %9.2fx %14.0f %14.0f\n", counts[c], counts[c] + 1, a, b, medc / lc0,
               medd / ld0, bench_median(pc[c], rounds), bench_median(pd[c], rounds));
    }
    return 0;
}
