/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive estimate's sample is coded as the message will be: a
 * pipelined message's sample is one input the size of its chunks. Two
 * codecs whose speed and ratio depend on the size of the input they code,
 * as zstd's at a high level and lz4's do (measured on 8 MiB of text: zstd
 * 11 at 13.4 MB/s and ratio 3.56 on 64 KiB, 9.8 MB/s and 3.80 on 256 KiB;
 * lz4 500 MB/s at ratio 1.87 on 64 KiB and 2.14 on 256 KiB), report their
 * time through an injected clock: nothing here is timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compi.h"
#include "engine/estimate.h"
#include "engine/model.h"

#include "engine_test.h"

#define KiB ((size_t)1024)
#define MiB ((size_t)1024 * 1024)

static double fake_now_us;
static size_t last_input; /* the input size the last compression was given */

static double fake_clock_us(void)
{
    return fake_now_us;
}

/* Both codecs: up to 64 KiB of input one behaviour, from 256 KiB the
 * other, log-linear between. */
static double by_input(size_t n, double at64k, double at256k)
{
    if (n <= 64 * KiB) return at64k;
    if (n >= 256 * KiB) return at256k;
    double f = log2((double)n / (double)(64 * KiB)) / 2.0;
    return at64k + f * (at256k - at64k);
}

static long long fake_code(size_t n, void *dst, size_t cap, double mb_s, double ratio)
{
    last_input = n;
    fake_now_us += (double)n / mb_s;
    size_t out = (size_t)((double)n / ratio);
    if (out > cap) return COMPI_ERR_DST_TOO_SMALL;
    memset(dst, 0, out);
    return (long long)out;
}

static long long deep_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, by_input(n, 13.4, 9.8), by_input(n, 3.56, 3.80));
}

static long long fast_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, 500.0, by_input(n, 1.87, 2.14));
}

static size_t fake_bound(size_t n)
{
    return n + 64;
}

static const compi_codec deep = {"deep", 250, "zstd-11-like", fake_bound, deep_compress, NULL, 0};
static const compi_codec fast = {"fast", 251, "lz4-like", fake_bound, fast_compress, NULL, 0};

/* 8 MiB over a ~50 Mbit/s link goes in 256 KiB chunks. Sampled at 64 KiB,
 * the deep codec looked 2.1x and the fast one 1.87x, and one thread chose
 * the deep codec, which then reached 1.55x on the real chunks; sampled as
 * a chunk, the fast codec wins with one thread and the deep one only with
 * a second thread coding chunks beside it. */
static void test_sample_is_a_chunk(void)
{
    compi_codec_model cm;
    memset(&cm, 0, sizeof cm);
    cm.relations[cm.nrelations++] = (compi_codec_relation){&fast, -1, 0, 1e9, 0.2};
    cm.relations[cm.nrelations++] = (compi_codec_relation){&deep, -1, 0, 1e9, 0.05};
    cm.candidates[COMPI_CLASS_BYTE][cm.ncandidates[COMPI_CLASS_BYTE]++] = &fast;
    cm.candidates[COMPI_CLASS_BYTE][cm.ncandidates[COMPI_CLASS_BYTE]++] = &deep;
    compi_net_link link = flat_link(100, 160);
    compi_estimate_ctx x = {&link, &cm, COMPI_CLASS_BYTE, 1, 11, 0, 1, fake_clock_us, NULL, NULL, 1, 1};
    size_t size = 8 * MiB, sample = 64 * KiB;
    CHECK(compi_estimate_chunk(&x, size) == 256 * KiB, "8 MiB goes in 256 KiB chunks (%zu)",
          compi_estimate_chunk(&x, size));
    CHECK(compi_estimate_sample_size(&x, size, sample) == 256 * KiB, "a pipelined message: a chunk's sample");
    CHECK(compi_estimate_sample_size(&x, 512 * KiB, sample) == sample, "a message sent whole: the configured sample");
    CHECK(compi_estimate_sample_size(&x, size, MiB) == MiB, "a larger configured sample stays");
    x.chunk_cfg = 128 * KiB;
    CHECK(compi_estimate_sample_size(&x, size, sample) == 128 * KiB, "COMPI_CHUNK=128K: a 128 KiB sample");
    x.chunk_cfg = 4 * MiB;
    CHECK(compi_estimate_sample_size(&x, size, sample) == COMPI_ESTIMATE_UNIT_SAMPLE_MAX, "at most %zu bytes",
          (size_t)COMPI_ESTIMATE_UNIT_SAMPLE_MAX);
    x.chunk_cfg = 0;

    unsigned char *data = calloc(size, 1);
    void *scratch = malloc(compi_estimate_scratch_size(sample));
    compi_estimate best;
    compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    CHECK(last_input == 256 * KiB, "the codec coded a sample of %zu bytes", last_input);
    CHECK(best.codec == &fast, "one thread: the fast codec (%s, predicted %.2f)", best.codec ? best.codec->name : "raw",
          best.speedup);
    CHECK(fabs(best.ratio - 2.14) < 0.01, "the fast codec's ratio on a chunk (%.3f)", best.ratio);
    x.codec_threads = compi_codec_model_threads_speedup(1, 1.9);
    compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    CHECK(best.codec == &deep, "two threads: the deep codec (%s, predicted %.2f)",
          best.codec ? best.codec->name : "raw", best.speedup);
    /* a message sent whole keeps the configured sample */
    x.codec_threads = 1;
    compi_estimate_best(&x, data, 512 * KiB, sample, 1.05, scratch, &best);
    CHECK(last_input == sample, "512 KiB sent whole: a %zu-byte sample (%zu)", sample, last_input);
    free(data);
    free(scratch);
}

static int slow_calls;

static long long slow_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    slow_calls++;
    return fake_code(n, dst, cap, 90.0, 1.33); /* blosc-zstd-like on noisy doubles */
}

static long long mid_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, 600.0, 1.05); /* zstd-like */
}

static long long pred_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, 1500.0, 1.85); /* dfcm-like */
}

static const compi_codec slow = {"slow", 252, "blosc-zstd-like", fake_bound, slow_compress, NULL, 0};
static const compi_codec mid = {"mid", 253, "zstd-like", fake_bound, mid_compress, NULL, 0};
static const compi_codec pred = {"pred", 254, "dfcm-like", fake_bound, pred_compress, NULL, 0};

/* The doubles class with three candidates in the model order given, a
 * 110 MB/s link, the fake clock and a fresh table of measured costs. */
typedef struct {
    compi_codec_model cm;
    compi_net_link link;
    compi_estimate_costs costs;
    compi_estimate_ctx x;
} three_codecs;

static void three_codecs_init(three_codecs *t, const compi_codec *a, const compi_codec *b, const compi_codec *c)
{
    memset(t, 0, sizeof *t);
    const compi_codec *order[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        t->cm.relations[t->cm.nrelations++] = (compi_codec_relation){order[i], -1, 0, 1e9, 0.5};
        t->cm.candidates[COMPI_CLASS_DOUBLE][t->cm.ncandidates[COMPI_CLASS_DOUBLE]++] = order[i];
    }
    t->link = flat_link(15, 9);
    t->x = (compi_estimate_ctx){&t->link,      &t->cm, COMPI_CLASS_DOUBLE, 8, 0, COMPI_ESTIMATE_NO_CHUNKS, 1,
                                fake_clock_us, NULL,   &t->costs, 1, 1};
}

/* An 80 KiB message at ~110 MB/s may spend ~0.74 ms on its evaluation. In
 * model order the slow codec (0.73 ms on the 64 KiB sample) spends it all
 * before the predictor that wins is tried; with the costs of earlier
 * evaluations, every candidate is measured once, then the cheap ones go
 * first and the budget drops the slow one. */
static void test_budget_drops_the_expensive(void)
{
    three_codecs t;
    three_codecs_init(&t, &mid, &slow, &pred);
    compi_estimate_ctx x = t.x;
    size_t size = 80 * KiB, sample = 64 * KiB;
    double *data = calloc(size / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(sample));
    compi_estimate best;
    double t0 = fake_now_us;
    int tried = compi_estimate_best(&x, data, size, sample, 1.0, scratch, &best);
    CHECK(tried == 3, "the first evaluation measures every candidate (%d tried)", tried);
    CHECK(best.codec == &pred, "the predictor wins (%s)", best.codec ? best.codec->name : "raw");
    double budget = compi_estimate_eval_budget_us(&x, size);
    for (int rep = 0; rep < 3; rep++) {
        t0 = fake_now_us;
        tried = compi_estimate_best(&x, data, size, sample, 1.0, scratch, &best);
        CHECK(tried == 2, "later ones skip the slow codec (%d tried)", tried);
        CHECK(best.codec == &pred, "the predictor still wins (%s)", best.codec ? best.codec->name : "raw");
        CHECK(fake_now_us - t0 <= budget, "within the budget (%.0f of %.0f us)", fake_now_us - t0, budget);
    }
    free(data);
    free(scratch);
}

/* 2 MiB sent whole at ~110 MB/s: the budget (19 ms) allows every sample,
 * but the slow codec would take 23 ms to compress the message: it cannot
 * win whatever its ratio, and once measured it is not coded again but
 * now and then, in case that measurement was a descheduled one. */
static void test_too_slow_to_win(void)
{
    three_codecs t;
    three_codecs_init(&t, &slow, &mid, &pred);
    compi_estimate_ctx x = t.x;
    size_t size = 2 * MiB, sample = 64 * KiB;
    double *data = calloc(size / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(sample));
    compi_estimate best;
    slow_calls = 0;
    int tried = compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    /* slow coded twice: once untimed (its set-up), once measured */
    CHECK(tried == 3 && slow_calls == 2, "the first evaluation measures every candidate (%d tried)", tried);
    CHECK(best.codec == &pred, "the predictor wins (%s)", best.codec ? best.codec->name : "raw");
    slow_calls = 0;
    for (int rep = 0; rep < 8; rep++) {
        compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
        CHECK(best.codec == &pred, "the predictor still wins (%s)", best.codec ? best.codec->name : "raw");
    }
    CHECK(slow_calls >= 1 && slow_calls <= 2,
          "the slow codec coded %d times in 8 evaluations (1-2: retried now and then)", slow_calls);
    /* without costs (model order, the budget alone) it is coded every time */
    x.costs = NULL;
    slow_calls = 0;
    compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    CHECK(slow_calls == 1, "without costs: coded (%d)", slow_calls);
    free(data);
    free(scratch);
}

static int setup_calls;

static long long setup_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    if (setup_calls++ == 0) fake_now_us += 5000; /* the codec's one-time set-up */
    return fake_code(n, dst, cap, 3000.0, 3.0);
}

static const compi_codec setup = {"setup", 251, "blosc-lz4-like", fake_bound, setup_compress, NULL, 0};

/* A codec's first call in a process pays its one-time set-up (blosc-lz4's
 * first 64 KiB of double_pattern took 85 us, the next ones 11-37): the
 * first evaluation codes each candidate once untimed before measuring it,
 * and the set-up is no part of its budget. Here the set-up costs 5 ms;
 * timed cold, the codec that codes 3000 MB/s at ratio 3 lost to the
 * predictor (1500 MB/s, ratio 1.85) on 2 MiB sent whole, and was judged by
 * that one timing. */
static void test_setup_untimed(void)
{
    three_codecs t;
    three_codecs_init(&t, &setup, &mid, &pred);
    double *data = calloc(2 * MiB / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(64 * KiB));
    setup_calls = 0;
    /* the first evaluation codes it twice (untimed, then measured), later ones once */
    for (int rep = 0; rep < 2; rep++) {
        compi_estimate best;
        int tried = compi_estimate_best(&t.x, data, 2 * MiB, 64 * KiB, 1.0, scratch, &best);
        CHECK((rep > 0 || tried == 3) && setup_calls == 2 + rep,
              "evaluation %d: %d tried, the set-up codec coded %d times in all", rep, tried, setup_calls);
        CHECK(best.codec == &setup, "the fast codec wins, its set-up untimed (%s)",
              best.codec ? best.codec->name : "raw");
    }
    free(data);
    free(scratch);
}

/* The codec model's speeds for the three fakes: what each costs before
 * any evaluation measured it. */
static void three_codecs_speeds(three_codecs *t)
{
    const compi_codec *c[] = {&slow, &mid, &pred};
    const double mbs[] = {90.0, 600.0, 1500.0};
    for (int i = 0; i < 3; i++)
        t->cm.speeds[t->cm.nspeeds++] = (compi_codec_speed){c[i], COMPI_CLASS_DOUBLE, mbs[i], 0, 0};
}

/* The first evaluation, before any candidate was measured, keeps to its
 * budget by the codec model's speeds: an 80 KiB message at ~110 MB/s
 * (0.74 ms to spend) tries the predictor and the zstd-like codec, cheapest
 * first, and never the slow one (0.73 ms on the 64 KiB sample, more than
 * is left); an 8 KiB halo on a 2.4 GB/s link (3.3 us to spend) tries none
 * and goes raw at no cost. Without the model's speeds every candidate not
 * measured yet was coded once, whatever the budget. */
static void test_first_evaluation_budget(void)
{
    three_codecs t;
    three_codecs_init(&t, &slow, &mid, &pred);
    three_codecs_speeds(&t);
    CHECK(fabs(compi_codec_model_cost_us_per_byte(&t.cm, &slow, COMPI_CLASS_DOUBLE) - 1 / 90.0) < 1e-12,
          "the model's cost of the slow codec: 1/90 us a byte");
    CHECK(compi_codec_model_cost_us_per_byte(&t.cm, &slow, COMPI_CLASS_INT) == 0, "no speed for the int class");
    compi_estimate_ctx x = t.x;
    size_t size = 80 * KiB, sample = 64 * KiB;
    double *data = calloc(size / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(sample));
    compi_estimate best;
    double budget = compi_estimate_eval_budget_us(&x, size), t0 = fake_now_us;
    slow_calls = 0;
    int tried = compi_estimate_best(&x, data, size, sample, 1.0, scratch, &best);
    CHECK(tried == 2 && slow_calls == 0, "80 KiB: the two that fit are tried (%d tried, slow coded %d times)", tried,
          slow_calls);
    CHECK(best.codec == &pred, "the predictor wins (%s)", best.codec ? best.codec->name : "raw");
    CHECK(fake_now_us - t0 <= budget, "within the budget (%.0f of %.0f us)", fake_now_us - t0, budget);

    three_codecs_init(&t, &slow, &mid, &pred);
    three_codecs_speeds(&t);
    x = t.x;
    compi_net_link fast_link = flat_link(4, 1e3 / 2449);
    x.link = &fast_link;
    size = 8 * KiB;
    t0 = fake_now_us;
    tried = compi_estimate_best(&x, data, size, sample, 1.0, scratch, &best);
    CHECK(tried == 0 && fake_now_us == t0, "8 KiB at 2.4 GB/s: nothing tried (%d, %.1f us)", tried, fake_now_us - t0);
    CHECK(best.codec == NULL, "raw (%s)", best.codec ? best.codec->name : "raw");
    free(data);
    free(scratch);
}

static long long halo_lz4_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, 20000.0, 12.0); /* lz4 on stencil halo faces */
}

static long long halo_zstd_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)
{
    (void)src, (void)p;
    return fake_code(n, dst, cap, 6700.0, 30.0);
}

static const compi_codec halo_lz4 = {"halo-lz4", 254, "lz4-like", fake_bound, halo_lz4_compress, NULL, 0};
static const compi_codec halo_zstd = {"halo-zstd", 255, "zstd-like", fake_bound, halo_zstd_compress, NULL, 0};

/* An 8 KiB halo a codec compresses 12 times on a 2.4 GB/s link (3.3 us
 * to spend): by the codecs' aggregate speeds (lz4 1313 MB/s: 6.2 us) no
 * codec could pay and none is tried; with the model's speeds by ratio
 * (lz4 at 20 GB/s on data it compresses 10 times or more) the first
 * evaluation codes a trial sample, learns the data's ratio, predicts the
 * other candidate at it (too slow there to beat lz4: not coded), and
 * compresses. */
static void test_ratio_buckets_first_evaluation(void)
{
    three_codecs t;
    three_codecs_init(&t, &halo_lz4, &halo_zstd, &halo_zstd);
    t.cm.ncandidates[COMPI_CLASS_DOUBLE] = 2;
    compi_net_link link = flat_link(4, 1e3 / 2449);
    t.x.link = &link;
    const compi_codec *c[] = {&halo_lz4, &halo_lz4, &halo_lz4, &halo_zstd, &halo_zstd, &halo_zstd};
    const double mbs[] = {1313, 1000, 19942, 584, 500, 6738}, lo[] = {0, 0, 10, 0, 0, 10},
                 hi[] = {0, 4, 1e9, 0, 4, 1e9};
    for (int i = 0; i < 6; i++)
        t.cm.speeds[t.cm.nspeeds++] = (compi_codec_speed){c[i], COMPI_CLASS_DOUBLE, mbs[i], lo[i], hi[i]};
    size_t size = 8 * KiB, sample = 64 * KiB;
    double *data = calloc(size / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(COMPI_ESTIMATE_UNIT_SAMPLE_MAX));
    compi_estimate best;
    compi_estimate_ctx x = t.x;
    x.chunk_cfg = 0; /* automatic chunks */
    double budget = compi_estimate_eval_budget_us(&x, size), t0 = fake_now_us;
    int tried = compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    CHECK(tried == 1 && best.codec == &halo_lz4, "8 KiB halo at 2.4 GB/s: one tried (%d), compressed with %s", tried,
          best.codec ? best.codec->name : "raw");
    CHECK(fake_now_us - t0 <= budget, "within the budget (%.2f of %.2f us)", fake_now_us - t0, budget);
    CHECK(fabs(t.costs.ratio[COMPI_CLASS_DOUBLE][0] - 12.0) < 0.1, "the ratio seen is kept with the cost (%g)",
          t.costs.ratio[COMPI_CLASS_DOUBLE][0]);
    /* a compressed message's outcome feeds the cost at its ratio */
    compi_estimate_note(&x, &halo_zstd, size, 30.0, (double)size / 6000.0);
    compi_estimate_note(&x, &halo_zstd, size, 20.0, (double)size / 3000.0);
    CHECK(fabs(t.costs.ratio[COMPI_CLASS_DOUBLE][1] - sqrt(30.0 * 20.0)) < 1e-9 &&
              fabs(t.costs.us_per_byte[COMPI_CLASS_DOUBLE][1] - 1 / 6000.0) < 1e-12,
          "outcomes move the known ratio halfway, the cost to the lesser of the two timings (a timing is only "
          "ever slowed down) at it (%g)",
          t.costs.us_per_byte[COMPI_CLASS_DOUBLE][1]);
    /* a pipelined 8 MiB message of the same data on the same link: never
     * judged cheaper than the class's aggregate (lz4 1313 MB/s: 6.4 ms of
     * coding against 3.4 ms of wire), whatever the halos measured */
    size_t big = 8 * MiB;
    double *bigdata = calloc(big / 8, 8);
    CHECK(compi_estimate_chunk(&x, big) > 0, "8 MiB is pipelined");
    tried = compi_estimate_best(&x, bigdata, big, sample, 1.05, scratch, &best);
    CHECK(tried == 0 && best.codec == NULL, "pipelined: nothing tried (%d, %s)", tried,
          best.codec ? best.codec->name : "raw");
    free(bigdata);
    /* the same model with its aggregate lines only: nothing tried */
    three_codecs_init(&t, &halo_lz4, &halo_zstd, &halo_zstd);
    t.cm.ncandidates[COMPI_CLASS_DOUBLE] = 2;
    t.x.link = &link;
    for (int i = 0; i < 6; i++)
        if (hi[i] == 0) t.cm.speeds[t.cm.nspeeds++] = (compi_codec_speed){c[i], COMPI_CLASS_DOUBLE, mbs[i], 0, 0};
    x = t.x;
    tried = compi_estimate_best(&x, data, size, sample, 1.05, scratch, &best);
    CHECK(tried == 0 && best.codec == NULL, "aggregates only: nothing tried (%d)", tried);
    free(data);
    free(scratch);
}

/* A fake codec that codes mb_s MB/s at ratio r, whatever the data. */
#define FAKE_CODEC(var, id, like, mb_s, r)                                                                             \
    static long long var##_compress(const void *src, size_t n, void *dst, size_t cap, const compi_codec_params *p)     \
    {                                                                                                                  \
        (void)src, (void)p;                                                                                            \
        return fake_code(n, dst, cap, mb_s, r);                                                                        \
    }                                                                                                                  \
    static const compi_codec var = {#var, id, like, fake_bound, var##_compress, NULL, 0};

FAKE_CODEC(face_blosc, 247, "blosc-lz4-like", 3700.0, 30.0) /* blosc-lz4 on halo faces */
FAKE_CODEC(face_dfcm, 248, "dfcm-like", 3200.0, 6.0)
FAKE_CODEC(face_lz4, 249, "lz4-like", 19000.0, 30.0)

/* One fresh evaluation (need 1.05) of size bytes sent whole over a 2.4
 * GB/s link with 4 us latency, the candidates being the distinct codecs
 * of c[] in their first appearance's order, with the codec model's speed
 * lines c[k] mbs[k] MB/s on doubles of ratio [lo[k], hi[k]) (0, 0: any). */
static int evaluate_with_speeds(const compi_codec *const *c, const double *mbs, const double *lo, const double *hi,
                                int nrows, size_t size, compi_estimate *best)
{
    const compi_codec *cand[3] = {NULL, NULL, NULL};
    int n = 0;
    for (int k = 0; k < nrows && n < 3; k++)
        if (n == 0 || cand[n - 1] != c[k]) cand[n++] = c[k];
    three_codecs t;
    three_codecs_init(&t, cand[0], cand[1], cand[2]);
    for (int k = 0; k < nrows; k++)
        t.cm.speeds[t.cm.nspeeds++] = (compi_codec_speed){c[k], COMPI_CLASS_DOUBLE, mbs[k], lo[k], hi[k]};
    compi_net_link link = flat_link(4, 1e3 / 2449);
    t.x.link = &link;
    size_t sample = 64 * KiB;
    double *data = calloc(size / 8, 8);
    void *scratch = malloc(compi_estimate_scratch_size(sample));
    int tried = compi_estimate_best(&t.x, data, size, sample, 1.05, scratch, best);
    free(data);
    free(scratch);
    return tried;
}

/* An 8 KiB halo on a 2.4 GB/s link (3.3 us to spend), three candidates
 * with the built-in model's speeds for doubles. By their aggregates the
 * blosc-lz4-like codec is the cheapest (2057 MB/s), then the dfcm-like
 * (1373), then the lz4-like (1313): blosc was coded first (a 6 KiB
 * sample, 1.7 us) and showed ratio 30, where it cannot pay (0.99x); dfcm
 * came next, its 2.5 us at that ratio did not fit in what was left, and
 * the evaluation ended: the halo went raw. By what each could cost at
 * least (its fastest ratio bucket: lz4 19 GB/s) lz4 is tried first, on a
 * sample cut to the budget, shows ratio 30 and wins (about 1.5x); at that
 * ratio the others, ranked afresh, cannot beat it whatever they showed
 * and are not coded. */
static void test_most_promising_first(void)
{
    const compi_codec *c[] = {&face_blosc, &face_blosc, &face_dfcm, &face_dfcm, &face_lz4, &face_lz4};
    const double mbs[] = {2057, 3826, 1373, 3241, 1313, 19026}, lo[] = {0, 10, 0, 10, 0, 10},
                 hi[] = {0, 1e9, 0, 1e9, 0, 1e9};
    compi_estimate best;
    int tried = evaluate_with_speeds(c, mbs, lo, hi, 6, 8 * KiB, &best);
    CHECK(tried == 1 && best.codec == &face_lz4, "8 KiB halo: lz4 alone tried (%d), compressed with %s", tried,
          best.codec ? best.codec->name : "raw");
    CHECK(best.speedup > 1.05, "predicted to pay (%.2f)", best.speedup);
}

FAKE_CODEC(mid_a, 247, "lz4-like", 4000.0, 3.0)
FAKE_CODEC(mid_b, 248, "flat", 7000.0, 4.0)
FAKE_CODEC(mid_c, 249, "fast-when-10x", 4400.0, 3.0)

/* 64 KiB sent whole on a 2.4 GB/s link (27 us to spend), data every codec
 * compresses only 3-4 times. Before the ratio is known the order is a (20
 * GB/s on data of ratio 10 or more), c (8 GB/s there), b (7 GB/s at any
 * ratio). a costs 16 us and shows ratio 3, where it cannot pay and c is
 * expected to cost 15 us, more than is left: in that first order the
 * evaluation ended there and the message went raw. Ranked afresh after a,
 * b (9 us) comes before c, fits, and pays (about 1.2x). */
static void test_reorder_after_a_trial(void)
{
    const compi_codec *c[] = {&mid_a, &mid_a, &mid_a, &mid_b, &mid_c, &mid_c, &mid_c};
    const double mbs[] = {4000, 4000, 20000, 7000, 4400, 4400, 8000}, lo[] = {0, 2, 10, 0, 0, 2, 10},
                 hi[] = {0, 4, 1e9, 0, 0, 4, 1e9};
    compi_estimate best;
    int tried = evaluate_with_speeds(c, mbs, lo, hi, 7, 64 * KiB, &best);
    CHECK(tried == 2 && best.codec == &mid_b, "64 KiB of ratio 3-4: a then b tried (%d), compressed with %s", tried,
          best.codec ? best.codec->name : "raw");
    CHECK(best.speedup > 1.05, "predicted to pay (%.2f)", best.speedup);
}

int main(void)
{
    test_most_promising_first();
    test_reorder_after_a_trial();
    test_ratio_buckets_first_evaluation();
    test_sample_is_a_chunk();
    test_budget_drops_the_expensive();
    test_too_slow_to_win();
    test_setup_untimed();
    test_first_evaluation_budget();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("estimate sample tests passed\n");
    return 0;
}
