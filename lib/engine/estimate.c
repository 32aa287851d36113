/* SPDX-License-Identifier: BSD-3-Clause */
/* Speedup prediction from the models and a compressed sample; see estimate.h. */
#include <math.h>
#include <string.h>
#include <time.h>
#include "engine/estimate.h"

#define COMPI_ESTIMATE_SLICES 4

static double compi_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

double compi_estimate_net_us(const compi_estimate_ctx *x, double bytes)
{
    if (x->share <= 1) return compi_net_time_us(x->link, bytes);
    /* its bytes move as part of share x bytes at once, at that size's
     * rate (a stream's, where a lone small message's is slower); the
     * sender's own messages among them divide that time */
    double own = x->own > 1 ? x->own : 1;
    return compi_net_time_us(x->link, bytes * x->share) / own;
}

/* The latency part of compi_estimate_net_us: paid once by the messages sent together. */
static double compi_estimate_alpha_us(const compi_estimate_ctx *x)
{
    double alpha = x->link->alpha_us > 0 ? x->link->alpha_us : 0;
    return x->share > 1 && x->own > 1 ? alpha / x->own : alpha;
}

size_t compi_estimate_chunk(const compi_estimate_ctx *x, size_t size)
{
    if (x->chunk_cfg == COMPI_ESTIMATE_NO_CHUNKS || !x->link) return 0;
    if (x->chunk_cfg) return size >= 2 * x->chunk_cfg ? x->chunk_cfg : 0;
    if (size < COMPI_CHUNK_MIN_COUNT * (size_t)COMPI_CHUNK_AUTO_MIN) return 0;
    const double mib = 1024.0 * 1024.0;
    /* a chunk's latency against its own wire time: the link as one message finds it */
    double alpha = x->link->alpha_us > 0 ? x->link->alpha_us : 0;
    double t = compi_net_time_us(x->link, mib) - alpha;
    double per_us = t > 0 ? mib / t : mib; /* bandwidth, bytes per microsecond */
    double want = 16.0 * alpha * per_us;
    size_t chunk = COMPI_CHUNK_AUTO_MIN;
    while ((double)chunk < want && chunk < COMPI_CHUNK_AUTO_MAX) chunk <<= 1;
    while (chunk > COMPI_CHUNK_AUTO_MIN && size / chunk < COMPI_CHUNK_MIN_COUNT) chunk >>= 1;
    return chunk;
}

double compi_estimate_speedup(const compi_estimate_ctx *x, const compi_codec *c, size_t size, double ratio,
                              double compress_us)
{
    if (ratio <= 0) return 0;
    double raw = compi_estimate_net_us(x, (double)size + COMPI_ESTIMATE_HEADER);
    double d_us = compress_us * compi_codec_model_d_over_c(x->codecs, c, x->dtclass, ratio);
    size_t chunk = compi_estimate_chunk(x, size);
    if (!chunk) {
        double comp = compi_estimate_net_us(x, (double)size / ratio + COMPI_ESTIMATE_HEADER) + compress_us + d_us;
        return raw / comp;
    }
    double n = (double)((size + chunk - 1) / chunk);
    /* chunks coded side by side by the codec pool: p chunks' codec time
     * per chunk's wire time, never more chunks at once than there are */
    double p = x->codec_threads > 1 ? x->codec_threads : 1;
    if (p > n) p = n;
    double c1 = compress_us / n / p, d1 = d_us / n / p;
    double w1 = compi_estimate_net_us(x, (double)size / ratio + n * COMPI_ESTIMATE_HEADER) / n;
    double slowest = c1 > w1 ? c1 : w1;
    if (d1 > slowest) slowest = d1;
    /* the header-only message travels first, during the first compression */
    double comp = c1 + w1 + d1 + (n - 1) * slowest;
    return raw / comp;
}

/* The scratch: the gathered slices, then the compressed sample. */
size_t compi_estimate_scratch_size(size_t sample_max)
{
    if (sample_max < COMPI_ESTIMATE_UNIT_SAMPLE_MAX) sample_max = COMPI_ESTIMATE_UNIT_SAMPLE_MAX;
    size_t slice = sample_max / COMPI_ESTIMATE_SLICES + 64;
    size_t in = sample_max > slice ? sample_max : slice;
    return in + 64 + compi_codec_bound_max(in) + 64;
}

size_t compi_estimate_sample_size(const compi_estimate_ctx *x, size_t size, size_t sample_max)
{
    size_t unit = compi_estimate_chunk(x, size);
    if (unit > COMPI_ESTIMATE_UNIT_SAMPLE_MAX) unit = COMPI_ESTIMATE_UNIT_SAMPLE_MAX;
    return unit > sample_max ? unit : sample_max;
}

/* The evaluation's clock: the context's (tests inject one) or CLOCK_MONOTONIC. */
static double (*compi_estimate_clock(const compi_estimate_ctx *x))(void)
{
    return x->clock_us ? x->clock_us : compi_mono_us;
}

double compi_estimate_eval_budget_us(const compi_estimate_ctx *x, size_t size)
{
    double wire = compi_estimate_net_us(x, (double)size) - compi_estimate_alpha_us(x);
    return wire > 0 ? wire : 0;
}

/* The input an evaluation codes for candidate c: the message, or evenly
 * spaced slices of it gathered into scratch (*in_buf, *in bytes), and
 * where the output goes (*out_buf). */
static void compi_estimate_input(const compi_estimate_ctx *x, const void *src, size_t size, size_t sample_max,
                                 void *scratch, const void **in_buf, size_t *in, char **out_buf)
{
    size_t elem = x->elem_size ? x->elem_size : 1;
    size_t align = elem < 8 ? 8 : elem;
    *in_buf = src;
    *in = size;
    *out_buf = scratch;
    sample_max = compi_estimate_sample_size(x, size, sample_max);
    if (size <= sample_max) return;
    /* evenly spaced slices: the start, the end and the middle of a
     * message often differ (halo faces, boundary conditions). They are
     * compressed as one input, as the message is: slices compressed
     * one by one would pay the codec's fixed cost per call once per
     * slice (context set-up: zstd's is tens of microseconds) and hide
     * the matches a codec with a long window finds across the message,
     * both against the stronger codecs. */
    size_t slice = sample_max / COMPI_ESTIMATE_SLICES / align * align;
    if (slice == 0) slice = sample_max / COMPI_ESTIMATE_SLICES; /* elements wider than a slice */
    size_t stride = (size - slice) / (COMPI_ESTIMATE_SLICES - 1) / align * align;
    char *gather = scratch;
    for (int i = 0; i < COMPI_ESTIMATE_SLICES; i++)
        memcpy(gather + (size_t)i * slice, (const char *)src + (size_t)i * stride, slice);
    *in_buf = gather;
    *in = slice * COMPI_ESTIMATE_SLICES;
    *out_buf = gather + (*in + 63) / 64 * 64;
}

int compi_estimate_codec(const compi_estimate_ctx *x, const compi_codec *c, const void *src, size_t size,
                         size_t sample_max, void *scratch, double *ratio, double *compress_us)
{
    compi_codec_params params = {(compi_dtclass)x->dtclass, x->elem_size ? x->elem_size : 1, x->level};
    const void *in_buf;
    size_t in;
    char *out_buf;
    compi_estimate_input(x, src, size, sample_max, scratch, &in_buf, &in, &out_buf);
    double (*clock_us)(void) = compi_estimate_clock(x);
    double t0 = clock_us();
    long long n = c->compress(in_buf, in, out_buf, c->bound(in), &params);
    double t = clock_us() - t0;
    if (n < 0) return (int)n;
    *ratio = n ? (double)in / (double)n : 1.0;
    *compress_us = t * (double)size / (double)in;
    return COMPI_OK;
}

/* Codes candidate c's sample once, untimed: a codec's first call in a
 * process pays its one-time set-up (contexts, tables, blosc's threads),
 * which later calls do not. Measured on this data set generator's 64 KiB
 * of double_pattern, first call against the next four: blosc-lz4 85 us
 * against 11-37, zstd 283 against 128-133, blosc-zstd 12.5 ms against
 * 113-394 (dfcm 26 against 20-25: no set-up). Timed cold, blosc-lz4's
 * first measurement alone (its judged factor) made it 4 times slower than
 * the model, dfcm won the evaluation, and the window kept dfcm for every
 * later size of these data (its ratio never drifts): 8-9x plain where
 * blosc-lz4 reaches 12-22x. */
static void compi_estimate_warm(const compi_estimate_ctx *x, const compi_codec *c, const void *src, size_t size,
                                size_t sample_max, void *scratch)
{
    compi_codec_params params = {(compi_dtclass)x->dtclass, x->elem_size ? x->elem_size : 1, x->level};
    const void *in_buf;
    size_t in;
    char *out_buf;
    compi_estimate_input(x, src, size, sample_max, scratch, &in_buf, &in, &out_buf);
    (void)c->compress(in_buf, in, out_buf, c->bound(in), &params);
}

/* What candidate i of the class cost per input byte before (0: unknown). */
static double compi_estimate_known_cost(const compi_estimate_ctx *x, int i)
{
    const compi_estimate_costs *k = x->costs;
    if (!k || k->codec[x->dtclass][i] != x->codecs->candidates[x->dtclass][i]) return 0;
    return k->us_per_byte[x->dtclass][i];
}

/* The ratio candidate i showed before (0: unknown). */
static double compi_estimate_known_ratio(const compi_estimate_ctx *x, int i)
{
    const compi_estimate_costs *k = x->costs;
    if (!k || k->codec[x->dtclass][i] != x->codecs->candidates[x->dtclass][i]) return 0;
    return k->ratio[x->dtclass][i];
}

/* The compression ratio of this rank's data of the class: the geometric
 * mean of what the candidates measured so far showed (0: none yet). */
static double compi_estimate_data_ratio(const compi_estimate_ctx *x)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < x->codecs->ncandidates[x->dtclass] && i < COMPI_MODEL_MAX_CANDIDATES; i++) {
        double r = compi_estimate_known_ratio(x, i);
        if (r > 0) sum += log(r), n++;
    }
    return n ? exp(sum / n) : 0;
}

/* What the codec model predicts candidate i costs on data it compresses
 * ratio times (<= 0: unknown ratio, the class's aggregate). */
static double compi_estimate_model_cost(const compi_estimate_ctx *x, int i, double ratio)
{
    const compi_codec *c = x->codecs->candidates[x->dtclass][i];
    compi_estimate_costs *k = x->costs;
    if (!k) return compi_codec_model_cost_at(x->codecs, c, x->dtclass, ratio);
    int cls = x->dtclass;
    if (k->memo_model[cls][i] == x->codecs && k->memo_codec[cls][i] == c && k->memo_ratio[cls][i] == ratio)
        return k->memo_cost[cls][i];
    double cost = compi_codec_model_cost_at(x->codecs, c, cls, ratio);
    k->memo_model[cls][i] = x->codecs;
    k->memo_codec[cls][i] = c;
    k->memo_ratio[cls][i] = ratio;
    k->memo_cost[cls][i] = cost;
    return cost;
}

/* How fast this rank's data of the class codes against the codec model:
 * the geometric mean, over the candidates measured so far, of what each
 * cost over what the model predicts at the ratio it showed (1: none
 * measured). What one codec showed of the data (its ratio, through the
 * model's speeds by ratio, and its speed against them) holds for the
 * others too. */
static double compi_estimate_data_factor(const compi_estimate_ctx *x)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < x->codecs->ncandidates[x->dtclass] && i < COMPI_MODEL_MAX_CANDIDATES; i++) {
        double known = compi_estimate_known_cost(x, i);
        double model = compi_estimate_model_cost(x, i, compi_estimate_known_ratio(x, i));
        if (known > 0 && model > 0) sum += log(known / model), n++;
    }
    return n ? exp(sum / n) : 1;
}

/* What candidate i is expected to cost per input byte: what it cost
 * before, else what the codec model predicts at the data's ratio, scaled
 * by how the data's measured candidates compared with their predictions
 * (0: neither says). */
static double compi_estimate_cost(const compi_estimate_ctx *x, int i)
{
    double known = compi_estimate_known_cost(x, i);
    if (known > 0) return known;
    return compi_estimate_model_cost(x, i, compi_estimate_data_ratio(x)) * compi_estimate_data_factor(x);
}

/* The least candidate i could cost on a message of size bytes, whatever
 * the data's ratio. A message sent whole: its known or expected cost once
 * the data's ratio is known, else the model's fastest bucket (its trial
 * sample is cut to the budget). A pipelined message: never less than the
 * class's aggregate, whatever smaller messages of the same data showed (the
 * simulated 25 Gbit/s ping-pong: 4 MiB of double_pattern, pipelined with
 * blosc-lz4 at ratio 57 after 256 KiB messages had measured it at its
 * ratio-bucket speed, took 6.1 ms where raw took 1.45; lz4 12.6 ms). */
static double compi_estimate_least_cost(const compi_estimate_ctx *x, int i, size_t size)
{
    double cost = compi_estimate_cost(x, i);
    if (compi_estimate_chunk(x, size)) {
        double aggregate = compi_estimate_model_cost(x, i, 0);
        return cost > aggregate ? cost : aggregate;
    }
    if (compi_estimate_known_cost(x, i) > 0 || compi_estimate_data_ratio(x) > 0) return cost;
    return compi_codec_model_cost_min(x->codecs, x->codecs->candidates[x->dtclass][i], x->dtclass);
}

double compi_estimate_judged_factor(const compi_estimate_costs *k, int cls, int i)
{
    unsigned n = k->nfactor[cls][i];
    const double *f = k->factor[cls][i];
    if (n == 0) return 0;
    if (n == 1) return f[0];
    if (n < COMPI_ESTIMATE_COST_SAMPLES) return f[0] < f[1] ? f[0] : f[1];
    double a = f[0], b = f[1], c = f[2]; /* the median of three */
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    if (b > c) b = c;
    return a > b ? a : b;
}

/* What candidate i is judged to cost per input byte on data it compresses
 * ratio times: the model's prediction times the judged factor; 0 when either
 * is unknown. */
static double compi_estimate_judged_cost(const compi_estimate_ctx *x, int i, double ratio)
{
    if (!x->costs || x->costs->codec[x->dtclass][i] != x->codecs->candidates[x->dtclass][i]) return 0;
    double f = compi_estimate_judged_factor(x->costs, x->dtclass, i);
    return f > 0 ? compi_estimate_model_cost(x, i, ratio) * f : 0;
}

static void compi_estimate_learn_cost(const compi_estimate_ctx *x, int i, double us_per_byte, double ratio)
{
    compi_estimate_costs *k = x->costs;
    if (!k || !(us_per_byte > 0)) return;
    int cls = x->dtclass;
    if (k->codec[cls][i] != x->codecs->candidates[cls][i]) k->nfactor[cls][i] = 0; /* another codec's */
    double old = compi_estimate_known_cost(x, i), old_r = compi_estimate_known_ratio(x, i);
    if (ratio > 0) k->ratio[cls][i] = old_r > 0 ? sqrt(old_r * ratio) : ratio;
    k->codec[cls][i] = x->codecs->candidates[cls][i];
    double model = compi_estimate_model_cost(x, i, ratio > 0 ? ratio : k->ratio[cls][i]);
    if (model > 0) {
        unsigned n = k->nfactor[cls][i];
        k->factor[cls][i][n % COMPI_ESTIMATE_COST_SAMPLES] = us_per_byte / model;
        /* kept below twice the ring, at the same place in it */
        n++;
        k->nfactor[cls][i] =
            n < 2 * COMPI_ESTIMATE_COST_SAMPLES ? n : COMPI_ESTIMATE_COST_SAMPLES + n % COMPI_ESTIMATE_COST_SAMPLES;
        k->us_per_byte[cls][i] = compi_estimate_judged_cost(x, i, k->ratio[cls][i]);
        return;
    }
    /* no model speed to judge by: halfway toward the new one, so that one
     * descheduled measurement does not rank it last for good */
    k->us_per_byte[cls][i] = old > 0 ? (old + us_per_byte) / 2 : us_per_byte;
}

void compi_estimate_note(const compi_estimate_ctx *x, const compi_codec *c, size_t size, double ratio,
                         double compress_us)
{
    if (!x->costs || x->dtclass < 0 || x->dtclass >= COMPI_CLASS_COUNT || size == 0) return;
    for (int i = 0; i < x->codecs->ncandidates[x->dtclass] && i < COMPI_MODEL_MAX_CANDIDATES; i++)
        if (x->codecs->candidates[x->dtclass][i] == c) {
            compi_estimate_learn_cost(x, i, compress_us / (double)size, ratio);
            return;
        }
}

/* The most a codec that compresses the whole message in compress_us could
 * reach, whatever its ratio: the wire time of the headers alone, no
 * decompression, and a pipeline bound by its compression. */
static double compi_estimate_bound(const compi_estimate_ctx *x, size_t size, double compress_us)
{
    double raw = compi_estimate_net_us(x, (double)size + COMPI_ESTIMATE_HEADER);
    size_t chunk = compi_estimate_chunk(x, size);
    if (!chunk) return raw / (compi_estimate_net_us(x, COMPI_ESTIMATE_HEADER) + compress_us);
    double n = (double)((size + chunk - 1) / chunk);
    double p = x->codec_threads > 1 ? x->codec_threads : 1;
    if (p > n) p = n;
    return compress_us > 0 ? raw * p / compress_us : 1e300;
}

/* A candidate its known speed rules out is not coded; its cost is
 * forgotten a little each time, so that one slow measurement (a
 * descheduled compression) is retried after a few evaluations. */
static void compi_estimate_forget_cost(const compi_estimate_ctx *x, int i)
{
    /* from two measurements on, the judged factor (their least, then their
     * median) is no single fluke: it stands */
    if (x->costs->nfactor[x->dtclass][i] < 2) x->costs->us_per_byte[x->dtclass][i] *= 0.85;
}

/* Orders order[from..n) by what each candidate is expected to cost at
 * least on a message of size bytes (compi_estimate_least_cost), cheapest
 * first: those with no expected cost (neither measured nor in the codec
 * model) first, in model order. Before the data's ratio is known that is
 * the most promising candidate's cost, not the class's aggregate: where
 * the budget holds one trial, it goes to the candidate that could pay
 * most (lz4 codes data it compresses ten times or more at 19 GB/s, its
 * aggregate is 1.3). Each candidate coded tells the data's ratio and
 * speed, and through them (compi_estimate_cost) what the others not yet
 * coded are expected to cost, so the candidates left are ordered afresh
 * after each. On stencil3d's 8 KiB halo faces at 25 Gbit/s, by the
 * aggregates blosc-lz4 (2057 MB/s) was coded first and showed ratio 21-39;
 * dfcm (1373) came next, did not fit in what was left of the budget and
 * ended the evaluation, and lz4 (1313), the one that pays there, was never
 * coded: the halos went raw. */
static void compi_estimate_reorder(const compi_estimate_ctx *x, size_t size, int order[COMPI_MODEL_MAX_CANDIDATES],
                                   int from, int n)
{
    double cost[COMPI_MODEL_MAX_CANDIDATES];
    for (int k = from; k < n; k++) cost[k] = compi_estimate_least_cost(x, order[k], size);
    for (int k = from + 1; k < n; k++) {
        int i = order[k], j = k;
        double ci = cost[k];
        for (; j > from && cost[j - 1] > ci; j--) order[j] = order[j - 1], cost[j] = cost[j - 1];
        order[j] = i;
        cost[j] = ci;
    }
}

static int compi_estimate_order(const compi_estimate_ctx *x, size_t size, int order[COMPI_MODEL_MAX_CANDIDATES])
{
    int n = x->codecs->ncandidates[x->dtclass];
    if (n > COMPI_MODEL_MAX_CANDIDATES) n = COMPI_MODEL_MAX_CANDIDATES;
    for (int i = 0; i < n; i++) order[i] = i;
    compi_estimate_reorder(x, size, order, 0, n);
    return n;
}

int compi_estimate_best(const compi_estimate_ctx *x, const void *src, size_t size, size_t sample_max,
                        double min_speedup, void *scratch, compi_estimate *best)
{
    best->codec = NULL;
    best->ratio = 1;
    best->compress_us = 0;
    best->speedup = 1;
    double best_speedup = min_speedup;
    int tried = 0;
    if (x->dtclass < 0 || x->dtclass >= COMPI_CLASS_COUNT) return 0;
    double (*clock_us)(void) = compi_estimate_clock(x);
    double budget = compi_estimate_eval_budget_us(x, size), t0 = clock_us();
    size_t sample = compi_estimate_sample_size(x, size, sample_max);
    double in = (double)(size < sample ? size : sample); /* bytes each candidate codes */
    compi_estimate kept = {NULL, 1, 0, 1};
    int order[COMPI_MODEL_MAX_CANDIDATES];
    int n = compi_estimate_order(x, size, order);
    for (int k = 0; k < n; k++) {
        if (k > 0 && tried > 0 && x->costs) compi_estimate_reorder(x, size, order, k, n);
        int i = order[k];
        const compi_codec *c = x->codecs->candidates[x->dtclass][i];
        double r, tc, known = compi_estimate_known_cost(x, i), cost = compi_estimate_cost(x, i);
        double least = compi_estimate_least_cost(x, i, size);
        if (least > 0 && compi_estimate_bound(x, size, least * (double)size) < best_speedup) {
            if (known > 0) compi_estimate_forget_cost(x, i); /* too slow to win, whatever its ratio */
            continue;
        }
        if (tried > 0 && known > 0 && clock_us() - t0 + known * in > budget) break; /* the rest cost more */
        /* one not measured yet is tried only where the model's prediction
         * of its cost fits in what is left of the budget, the first too:
         * on a fast link a small message cannot pay for its evaluation.
         * The first one tried codes a smaller sample when that fits (its
         * ratio and speed measured, and through compi_estimate_data_factor
         * what the data says of the others' speeds), not at all when not
         * even COMPI_ESTIMATE_MIN_TRIAL bytes do; later ones end it. */
        size_t trial_max = sample_max;
        double left = known == 0 && cost > 0 ? budget - (clock_us() - t0) : 0;
        if (known == 0 && cost > 0 && cost * in > left) {
            double fit = left / cost;
            if (tried > 0 || fit < COMPI_ESTIMATE_MIN_TRIAL || compi_estimate_chunk(x, size)) break;
            trial_max = (size_t)fit / COMPI_ESTIMATE_MIN_TRIAL * COMPI_ESTIMATE_MIN_TRIAL;
        }
        if (tried > 0 && !x->costs && clock_us() - t0 >= budget)
            break; /* the rest would cost more than it could save */
        /* the first measurement of a candidate in this thread: its
         * codec's one-time set-up is paid before the clock starts */
        if (x->costs && x->costs->warm[x->dtclass][i] != c) {
            double w0 = clock_us();
            compi_estimate_warm(x, c, src, size, trial_max, scratch);
            x->costs->warm[x->dtclass][i] = c;
            t0 += clock_us() - w0; /* no part of the evaluation's budget */
        }
        if (compi_estimate_codec(x, c, src, size, trial_max, scratch, &r, &tc) != COMPI_OK) continue;
        tried++;
        compi_estimate_learn_cost(x, i, size ? tc / (double)size : 0, r);
        /* judged by its ratio and its robust speed, not this one timing */
        double judged = compi_estimate_judged_cost(x, i, r);
        if (judged > 0) tc = judged * (double)size;
        double s = compi_estimate_speedup(x, c, size, r, tc);
        if (c == x->incumbent && s >= min_speedup) kept = (compi_estimate){c, r, tc, s};
        if (s >= best_speedup) {
            best_speedup = s;
            *best = (compi_estimate){c, r, tc, s};
        }
    }
    /* a sample's ratio and time are noisy (a descheduled compression, a
     * sample that flatters one codec more than the whole message does):
     * the codec in use yields only to a clear gain, else two codecs within
     * noise of each other would take turns at every re-check */
    if (kept.codec && best->codec != kept.codec && best->speedup < kept.speedup * COMPI_ESTIMATE_SWITCH_MARGIN)
        *best = kept;
    return tried;
}
