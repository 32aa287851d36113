/* SPDX-License-Identifier: BSD-3-Clause */
/* Speedup prediction: one formula shared by the runtime adaptive strategy
 * and the offline guide tool.
 *
 *   speedup = T_net(S) / (T_net(S/r) + T_c + T_d),  T_d = T_c * d_over_c
 *
 * for a message sent whole; a pipelined one (compi_estimate_chunk: n chunks,
 * lib/core/pipeline.c) overlaps the three stages, chunk by chunk:
 *
 *   T = c + w + d + (n - 1) * max(c, w, d),  c = T_c/(n p), d = T_d/(n p),
 *   w = T_net(S/r + n*32)/n
 *
 * so its bound is min(r, p T_net(S)/T_c, p T_net(S)/T_d) as n grows; p is
 * the speedup the codec pool reached coding chunks side by side (1 with no
 * helper threads, at most the chunk count).
 *
 * r and T_c are measured by compressing a sample of the message (strided
 * slices, so a 1 MiB message costs a 64 KiB compression per candidate). */
#ifndef COMPI_ENGINE_ESTIMATE_H
#define COMPI_ENGINE_ESTIMATE_H

#include <stddef.h>
#include "compi.h"
#include "engine/model.h"

/* The wire carries a 32-byte frame header with every message. */
#define COMPI_ESTIMATE_HEADER 32

typedef struct {
    const compi_net_link *link; /* network model of the destination link */
    const compi_codec_model *codecs;
    int dtclass;
    size_t elem_size;
    int level;
    size_t chunk_cfg;                   /* COMPI_CHUNK: 0 = from the link, COMPI_ESTIMATE_NO_CHUNKS = off */
    double codec_threads;               /* speedup of chunk coding over one thread (the codec pool,
                                              compi_codec_model_threads_speedup); <= 1: one thread */
    double (*clock_us)(void);           /* the evaluation's clock (tests inject one); NULL: CLOCK_MONOTONIC */
    const compi_codec *incumbent;       /* the codec in use (a re-check), or NULL */
    struct compi_estimate_costs *costs; /* what the candidates cost before (the caller's, per
                                           thread), or NULL: model order */
    /* Messages that cross the link at once with this one, each about its
     * size (<= 1: it travels alone), `own` of them (>= 1) its sender's,
     * which codes them one after another: the message's wire time is that
     * of share times its bytes sent as one, over own; its coding time is
     * its own. An alltoall's blocks from every rank of a node to every
     * rank elsewhere leave through the node's link at once
     * (lib/core/decide.c). */
    double share, own;
} compi_estimate_ctx;
/* The sample-coding cost each candidate showed in earlier evaluations
 * (microseconds per input byte; 0: not measured yet), so that an evaluation
 * tries them cheapest first and its budget drops the most expensive. In
 * model order, a slow candidate early in the list (blosc-zstd at ~90 MB/s
 * costs 0.4-2 ms on a 64 KiB sample) used up the budget of an 80 KiB
 * message at 1 Gbit/s (~0.75 ms) and the one that would have won (dfcm,
 * ~40 us) was never tried: the window decided raw. */
/*
 * A codec's speed is judged robustly: each measurement (an evaluation's
 * sample, or a compressed message's outcome) is kept as its time over what
 * the codec model predicts at the ratio it showed, the latest
 * COMPI_ESTIMATE_COST_SAMPLES of them per candidate, and the factor the
 * candidate is judged by is their median once there are that many (the
 * least of them before: a compression on a loaded host is only ever slowed
 * down, never sped up). A candidate is then judged by what is deterministic,
 * the ratio its sample showed (bytes on the wire), and the codec model's
 * speed at that ratio times that factor: one descheduled measurement cannot
 * overturn the codec in use, a slowness seen in most of the latest ones
 * does. Measured: the demo stencil over a 100 Mbit/s link on a loaded
 * 2-core host, a re-check timed zstd's sample at 2.4 times the other
 * rank's and the same rank's before, and lz4 replaced it until the next
 * re-check (ratio 12 against 16 on the wire). */
#define COMPI_ESTIMATE_COST_SAMPLES 3
typedef struct compi_estimate_costs {
    const compi_codec *codec[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    double us_per_byte[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES]; /* the judged cost at ratio[] */
    double ratio[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];       /* the ratio it showed then (0: unknown) */
    /* measured time over the model's prediction, the latest ones (a ring) */
    double factor[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES][COMPI_ESTIMATE_COST_SAMPLES];
    unsigned nfactor[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES]; /* measurements so far */
    /* The codec model's cost of each candidate at the last ratio asked
     * (memo_model: the model it is of; NULL: none yet). The outcome of
     * every compressed message asks it twice, and the speed lines' search
     * and interpolation cost about 100 ns each (measured in a loop: the
     * engine's part of a compressed message's outcome 180-280 ns, 40 with
     * the memo). A window's messages of the same data show the same ratio
     * message after message, and then cost no search. */
    /* the candidates whose codec has coded once in this thread, untimed
     * (its one-time set-up paid: compi_estimate_best) */
    const compi_codec *warm[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    const compi_codec_model *memo_model[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    const compi_codec *memo_codec[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    double memo_ratio[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    double memo_cost[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
} compi_estimate_costs;
/* The factor candidate i of class cls is judged by (see above; 0: none
 * measured, or no model speed for it). */
double compi_estimate_judged_factor(const compi_estimate_costs *k, int cls, int i);
/* A compressed message's measured outcome (compress_us to code size bytes
 * ratio times) fed into x->costs as codec c's cost at that ratio, as an
 * evaluation's sample is; nothing when c is not a candidate of the class. */
void compi_estimate_note(const compi_estimate_ctx *x, const compi_codec *c, size_t size, double ratio,
                         double compress_us);
/* A re-check replaces the codec in use only by one predicted this much faster. */
#define COMPI_ESTIMATE_SWITCH_MARGIN 1.03
#define COMPI_ESTIMATE_NO_CHUNKS ((size_t)-1)
/* Automatic chunks: from 256 KiB (measured, Open MPI over the emulated
 * 1 Gbit/s link, 8 MiB adaptive: 64 KiB chunks reached 0.7-1.07x, 256 KiB
 * and 1 MiB 1.2-1.5x: each chunk above the eager limit pays a rendezvous),
 * at most 4 MiB, at least COMPI_CHUNK_MIN_COUNT per message. */
#define COMPI_CHUNK_AUTO_MIN (256 * 1024)
#define COMPI_CHUNK_AUTO_MAX (4 * 1024 * 1024)
#define COMPI_CHUNK_MIN_COUNT 4

typedef struct {
    const compi_codec *codec; /* NULL: raw is best */
    double ratio;             /* predicted compression ratio */
    double compress_us;       /* predicted T_c for the whole message */
    double speedup;           /* predicted; 1 for raw */
} compi_estimate;

/* The one-way time of bytes over x's link, shared as x->share says. */
double compi_estimate_net_us(const compi_estimate_ctx *x, double bytes);
/* The chunk size a message of size bytes is pipelined in over x's link, or
 * 0 when it goes whole. With chunk_cfg 0 (auto): the smallest power of two
 * from 256 KiB that is at least 16 x latency x bandwidth (a chunk's latency
 * then costs <= 1/16 of its wire time), at most 4 MiB, and small enough for
 * 4 chunks; messages below 4 x 256 KiB go whole. A fixed chunk_cfg pipelines
 * messages of at least two chunks. */
size_t compi_estimate_chunk(const compi_estimate_ctx *x, size_t size);
/* The formula above for a message of size bytes. */
double compi_estimate_speedup(const compi_estimate_ctx *x, const compi_codec *c, size_t size, double ratio,
                              double compress_us);
/* Compresses a sample of src (compi_estimate_sample_size, in up to 4 strided
 * slices aligned to elem_size) with the candidate codecs of the class, in
 * the model's order, and fills best (codec NULL when none reaches
 * min_speedup). The evaluation costs at most about what the message could
 * save (compi_estimate_eval_budget_us): once the candidates tried took
 * that long, the others are skipped (the first is always tried), so a small
 * message on a fast link is not coded five times to save a few
 * microseconds of wire. Candidates are tried cheapest first by the least
 * they are expected to cost: measured in earlier evaluations (x->costs),
 * else the codec model's prediction (its speed lines) at the ratio the data
 * showed the candidates measured so far, scaled by how those compared with
 * the model, and while none is, for a message sent whole, its speed at the
 * ratio it codes fastest (the most promising first: where the budget holds
 * one trial it goes to the candidate that could pay most); the candidates
 * left are ranked afresh after each one coded. One that has neither is
 * tried first, once, whatever the budget. One with a prediction only is
 * tried only while that fits in what is left of the budget, the first
 * too (an 8 KiB halo at 25 Gbit/s has ~3 us to spend: no codec's 8 KiB
 * fits, and it goes raw at no cost); a measured one only while its known
 * cost fits, after the first tried. A candidate whose expected speed
 * alone keeps it from beating the best so far (or min_speedup), whatever its ratio, is not
 * coded at all (before the data's ratio is known, for a message sent
 * whole its speed at the ratio the model says it codes fastest: halo faces
 * lz4 compresses 10 times or more it codes some 15 times faster than its
 * aggregate) (blosc-zstd on a 20 KiB message at 1 Gbit/s: its sample
 * took longer than the message's wire time). Costs are updated. The
 * incumbent (when tried and still reaching min_speedup) stays best unless
 * another codec predicts COMPI_ESTIMATE_SWITCH_MARGIN times its speedup.
 * scratch must hold compi_estimate_scratch_size(sample_max) bytes. Returns
 * the number of candidates tried. */
int compi_estimate_best(const compi_estimate_ctx *x, const void *src, size_t size, size_t sample_max,
                        double min_speedup, void *scratch, compi_estimate *best);
size_t compi_estimate_scratch_size(size_t sample_max);
/* The bytes a message's sample holds: sample_max, or for a pipelined
 * message one chunk's worth when that is more, up to
 * COMPI_ESTIMATE_UNIT_SAMPLE_MAX. A codec's speed and ratio depend on
 * the size of the input it codes (zstd at level 11 on text: 13 MB/s and
 * ratio 3.56 on 64 KiB, 9.8 MB/s and 3.80 on 256 KiB, a longer history
 * to search; lz4 1.87 against 2.14), so the sample is coded as one input
 * the size of the chunks the message will be coded in. */
size_t compi_estimate_sample_size(const compi_estimate_ctx *x, size_t size, size_t sample_max);
#define COMPI_ESTIMATE_UNIT_SAMPLE_MAX COMPI_CHUNK_AUTO_MIN

/* The smallest sample an evaluation codes with a candidate not measured
 * yet when the whole sample would not fit in the evaluation's budget
 * (compi_estimate_best): below it a codec's fixed cost per call would
 * swamp the speed it measures. */
#define COMPI_ESTIMATE_MIN_TRIAL 1024
/* What an evaluation of a message of size bytes may spend: the most any
 * codec could save on it, its raw wire time less the latency (paid
 * compressed or not). */
double compi_estimate_eval_budget_us(const compi_estimate_ctx *x, size_t size);
/* Measures one codec on the sample (compi_estimate_sample_size): ratio and
 * predicted whole-message T_c. */
int compi_estimate_codec(const compi_estimate_ctx *x, const compi_codec *c, const void *src, size_t size,
                         size_t sample_max, void *scratch, double *ratio, double *compress_us);

#endif
