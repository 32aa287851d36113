/* SPDX-License-Identifier: BSD-3-Clause */
/* The compression window of the Runtime Adaptive Strategy ([Filgueira 2010],
 * section 4.4 and Fig 4.14; README.md References), one per datatype class and link.
 *
 * Two thresholds split message sizes into three zones:
 *     size <  no_len            raw, no evaluation
 *     no_len <= size < yes_len  evaluated: sample, predict, decide; the
 *                               decision moves a threshold to this size
 *     size >= yes_len           compressed with the window's codec
 * The window starts open ([floor, infinity)) and closes as evaluations
 * agree. Outcomes feed back: a compressed message that did not pay is a
 * mistake; many mistakes restart the study; many restarts in a short time
 * switch compression off for a back-off period. After reeval_after raw
 * messages in a row the lower threshold is reopened, in case it was set too
 * high (or after reeval_bytes of them: big messages cost an evaluation
 * per 16 MiB by default, well under 1% of sending them). The compressed
 * zone is re-examined the same way, its bytes counted as they go on the
 * wire (compressed: zeros at ratio 250 would otherwise pay an evaluation
 * of about a millisecond every two 8 MiB messages of 1.5 ms each), and
 * sooner when the data changes: when
 * the ratio its codec achieves drifts by more than ratio_drift out of the
 * range of ratios it achieved on the first COMPI_RATIO_REFS messages after
 * the decision (the data grew smoother or noisier, so another codec may
 * now be faster), the next message is evaluated, once the zone sent
 * COMPI_RATIO_RECHECK_MIN messages since its last evaluation. The same
 * holds when the codec keeps falling short of its prediction while still
 * paying: COMPI_SHORTFALL_RUN outcomes in a row since the decision below
 * it by more than the switching margin (COMPI_ESTIMATE_SWITCH_MARGIN)
 * re-evaluate the zone, COMPI_RATIO_RECHECK_MIN messages after the
 * decision, twice as many after each such re-check in a row.
 *
 * Pure logic: no MPI, no clock, no locking (time is passed in, the caller
 * serialises), so unit tests replay decision sequences deterministically. */
#ifndef COMPI_ENGINE_WINDOW_H
#define COMPI_ENGINE_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include "compi.h"

typedef struct {
    size_t floor;              /* smaller messages always go raw (COMPI_MIN_BYTES) */
    unsigned reeval_after;     /* raw messages in a row before reopening (COMPI_ADAPT_REEVAL) */
    unsigned recheck_after;    /* compressed messages in a row before one is re-evaluated */
    size_t reeval_bytes;       /* ... or this many bytes of them, whichever comes first, so that
                                  big messages are re-examined within seconds, not after 1000
                                  of them (COMPI_ADAPT_REEVAL_BYTES) */
    double ratio_drift;        /* relative change of the achieved ratio that re-evaluates the
                                  compressed zone (0.25: 25% either way); <= 0: never */
    unsigned history;          /* compressed outcomes remembered, <= COMPI_OUTCOMES_MAX */
    unsigned restart_mistakes; /* mistakes within history that restart the study (COMPI_ADAPT_MISTAKES) */
    unsigned backoff_restarts; /* restarts within restart_period_s that trigger a back-off */
    double restart_period_s;
    double backoff_s; /* first back-off; doubles on each consecutive one (COMPI_ADAPT_BACKOFF) */
    unsigned backoff_max_doublings;
    unsigned sig_delta; /* signature change that reopens the raw zone (of COMPI_SIG_MAX); 0: never */
} compi_window_params;

/* The defaults documented in README (Configuration). */
void compi_window_params_default(compi_window_params *p);

typedef enum { COMPI_WIN_RAW = 0, COMPI_WIN_EVALUATE = 1, COMPI_WIN_COMPRESS = 2 } compi_win_action;

#define COMPI_TIMELINE_BINS 128
#define COMPI_BIAS_RING 8
#define COMPI_BIAS_MIN 0.5
#define COMPI_WINDOW_MAX_RESTARTS 16
/* Outcomes after a decision whose ratios make the range a drift is judged
 * against (compi_window_ratio): enough for the blocks of a collective to
 * the ranks of another node of a few ranks each. */
#define COMPI_RATIO_REFS 4
/* A drift re-evaluates the zone only once it sent this many messages since
 * its last evaluation (the drifted one included). An evaluation codes up to
 * a message's wire time in samples; in a short run whose data keep
 * drifting (a diffusing stencil's halos: lz4's ratio 160 down to 9 over 10
 * iterations) re-checks every few messages were a large share of a short
 * run. Simulated (stencil3d, 64 ranks, 10 iterations, 8 KiB halos,
 * docs/results.md "Simulated at scale"): a re-check at every drift took
 * 0.003099 s against 0.003034 with this bound at 1 Gbit/s, 0.000560 against
 * 0.000530 at 10 Gbit/s, 0.000553 against 0.000521 at 25 Gbit/s. Over a
 * long run it delays a re-check by at most this many messages. */
#define COMPI_RATIO_RECHECK_MIN 16
/* A codec whose speedup falls short of its prediction while still paying
 * (above 1: no mistake, no restart) was chosen on a sample that flattered
 * it: zstd coded 64 KiB of zeros in 3.5 us where lz4 took 2.8, and a
 * window that chose zstd predicting 2.53x observed 2.19x message after
 * message and never looked again, while another window of the same data
 * on lz4 observed 2.53x. The compressed messages' outcomes have charged
 * the codec's cost since (engine/estimate.h, compi_estimate_note: its
 * judged speed is then the one its messages showed), so a re-evaluation
 * compares it with the others on what it did, not on the sample. This many
 * outcomes in a row short of the prediction by more than the switching
 * margin make the shortfall (a descheduled message or two is no shortfall;
 * the cost ring's median is the messages' after COMPI_ESTIMATE_COST_SAMPLES
 * of them). Each shortfall re-check in a row doubles the messages the zone
 * sends before the next one (from COMPI_RATIO_RECHECK_MIN, at most
 * COMPI_SHORTFALL_MAX_DOUBLINGS times): a shortfall that an evaluation
 * cannot correct (a sample that always flatters the data) costs a few
 * evaluations, and two codecs cannot take turns for long. */
#define COMPI_SHORTFALL_RUN 4
#define COMPI_SHORTFALL_MAX_DOUBLINGS 6
/* How much larger than any message its codec was judged at a message in
 * the compressed zone may be before it is evaluated (judged_len). */
#define COMPI_WINDOW_REACH 8

typedef struct {
    size_t no_len, yes_len;   /* yes_len == SIZE_MAX: no compressed zone yet */
    const compi_codec *codec; /* the yes zone's codec */
    unsigned raw_run, compressed_run;
    size_t raw_bytes_run, compressed_bytes_run;
    uint32_t outcomes; /* bit i = mistake of the i-th latest compressed message */
    unsigned outcomes_len;
    double restart_at[COMPI_WINDOW_MAX_RESTARTS];
    unsigned nrestarts;   /* restarts remembered in restart_at (recent ones) */
    double backoff_until; /* compression off until then; < 0 when not backing off */
    unsigned backoff_level;
    double last_backoff_end;
    /* How far achieved speedups fall short of predicted ones: the median of
     * the last COMPI_BIAS_RING achieved/predicted ratios, clamped to
     * [COMPI_BIAS_MIN, 1]. Evaluations divide their threshold by it, so a
     * window whose predictions keep failing (codec slower on the whole
     * message than on the sample, cores shared with other ranks, ...) asks
     * for more before it compresses again. Survives restarts; decays
     * toward 1 at each re-evaluation so a passing cause is forgotten. */
    double bias;
    double bias_ring[8];
    unsigned bias_n, bias_next;
    double last_predicted; /* prediction behind the yes zone's codec */
    /* The range of ratios the yes zone's codec achieved on the first
     * COMPI_RATIO_REFS messages after the decision (ratio_refs of them so
     * far), and whether a later one drifted out of it. A range, not the
     * first ratio alone: a window's messages often take turns between
     * data that compress differently (a collective's blocks for each rank
     * of another node, the halos of different faces), and one reference
     * would take every other message for a change of the data. */
    double ratio_lo, ratio_hi;
    unsigned ratio_refs;
    int ratio_drifted;
    /* The largest message an evaluation judged the yes zone's codec at.
     * A message COMPI_WINDOW_REACH times larger is evaluated: a codec's
     * speed weighs more against its ratio as messages grow, and a
     * pipelined message is judged otherwise than one sent whole. Measured:
     * 64 KiB of double_pattern judged dfcm (ratio 16) against blosc-lz4
     * (ratio 38) as good as even, and the window sent every 1 MiB and
     * 8 MiB message of the same data with dfcm, 4.7x and 9x plain at
     * 1 Gbit/s where an evaluation at those sizes picks blosc-lz4. */
    size_t judged_len;
    /* The shortfall watch (COMPI_SHORTFALL_RUN): outcomes in a row since
     * the decision below last_predicted by more than the switching
     * margin, whether they made a shortfall (the zone re-evaluates), and
     * shortfall re-checks in a row (each doubles the wait before the next;
     * a fresh study clears it). */
    unsigned short_run, short_level;
    int short_due;
    /* counters for the report */
    uint64_t messages, raw, evaluated, compressed;
    uint64_t mistakes, restarts, reevaluations, backoffs, ratio_rechecks, shortfall_rechecks;
    double predicted_sum, observed_sum;
    uint64_t predicted_n, observed_n;
    /* decisions over time: per bin of `bin` messages, counts per action */
    uint32_t bin, nbins;
    uint32_t timeline[COMPI_TIMELINE_BINS][3];
    uint64_t timeline_messages;
    /* The raw zone's watch: the signature of its data (sig_set: known),
     * whether the evaluation under way was asked by the watch, how many
     * watch-asked evaluations in a row found raw still best (the watch
     * then looks at one message in 2^sig_misses), and the messages since
     * the watch last looked. */
    unsigned sig, sig_set, sig_reopened, sig_misses, sig_skip;
    uint64_t sig_reopens;
} compi_window;

void compi_window_init(compi_window *w, const compi_window_params *p);
/* The mistake history kept by the windows and by guided rules
 * (compi_rules_outcome): bit i = the i-th latest compressed message did not
 * pay, i.e. its achieved speedup was below 1; only the latest `history`
 * (<= COMPI_OUTCOMES_MAX, the bits of a uint32_t) bits are kept. */
#define COMPI_OUTCOMES_MAX 32u
static inline int compi_outcome_is_mistake(double achieved)
{
    return achieved < 1.0;
}
static inline uint32_t compi_outcomes_push(uint32_t outcomes, int mistake, unsigned history)
{
    if (history > COMPI_OUTCOMES_MAX) history = COMPI_OUTCOMES_MAX;
    uint32_t mask = history == COMPI_OUTCOMES_MAX ? 0xffffffffu : ((1u << history) - 1);
    return ((outcomes << 1) | (mistake ? 1u : 0u)) & mask;
}
static inline unsigned compi_outcomes_mistakes(uint32_t outcomes)
{
    return (unsigned)__builtin_popcount(outcomes);
}

/* What to do with a message of `size` bytes at time now_s. */
compi_win_action compi_window_classify(compi_window *w, const compi_window_params *p, size_t size, double now_s);
/* The same for a message a collective gate's trial asks to be looked at
 * (lib/engine/trials.h): a size in the raw zone reopens it first, as
 * reeval_after raw messages in a row would (unless backing off), so the
 * message is evaluated on its data. */
compi_win_action compi_window_classify_probe(compi_window *w, const compi_window_params *p, size_t size, double now_s);
/* After an evaluation: best is the codec to use, or NULL when raw is
 * predicted faster; predicted is best's predicted speedup (or raw's, 1). */
void compi_window_evaluated(compi_window *w, const compi_window_params *p, size_t size, const compi_codec *best,
                            double predicted);
/* After a message went through a codec: its speedup as achieved (from the
 * real ratio and compression time); < 1 is a mistake. Short of the
 * prediction by more than the switching margin COMPI_SHORTFALL_RUN times
 * in a row: the zone is re-evaluated (see COMPI_SHORTFALL_RUN). */
void compi_window_outcome(compi_window *w, const compi_window_params *p, double achieved, double now_s);
/* After a compressed-zone message went out: its bytes on the wire (the
 * codec's output, or the raw size when compression failed), which count
 * toward the zone's reeval_bytes. */
void compi_window_wire(compi_window *w, size_t wire_bytes);
/* After a message went through codec: the compression ratio it achieved
 * (bytes in / bytes out). Only the yes zone's codec counts; a drift beyond
 * ratio_drift makes the next compressed-zone message an evaluation. */
void compi_window_ratio(compi_window *w, const compi_window_params *p, const compi_codec *codec, double ratio);
/* The raw zone's watch (see above). The signature of data: how many of
 * the bytes of COMPI_SIG_LINES sampled 64-byte lines equal the byte before
 * them or the one 8 before (about 2 on random data, near COMPI_SIG_MAX on
 * zeros, in between on smooth or small numbers). */
#define COMPI_SIG_LINES 4
#define COMPI_SIG_MAX (COMPI_SIG_LINES * 64 * 2)
#define COMPI_SIG_MAX_MISSES 10
unsigned compi_window_signature(const void *data, size_t size);
/* After classify sent a message of size raw: whether the watch looks at
 * it (it came from the raw zone, where a change of its data would move the
 * decision, and it is the one in 2^sig_misses). */
int compi_window_watch_due(compi_window *w, const compi_window_params *p, size_t size, double now_s);
/* A looked-at message's signature: whether it moved away from the zone's
 * by sig_delta or more; then the zone reopens and the message counts as an
 * evaluation, which the caller makes. */
int compi_window_data_changed(compi_window *w, const compi_window_params *p, unsigned sig);
/* After an evaluation chose raw (compi_window_evaluated with best NULL):
 * the signature of the data it looked at, which the watch compares the
 * next messages with. Without it, the next looked-at message's is taken. */
void compi_window_note_data(compi_window *w, unsigned sig);
/* The speedup an evaluation's best codec must predict for this window to
 * compress: min_speedup / bias. */
double compi_window_threshold(const compi_window *w, double min_speedup);
int compi_window_backing_off(const compi_window *w, double now_s);

#endif
