/* SPDX-License-Identifier: BSD-3-Clause */
/* Compression window state machine; see window.h. */
#include <string.h>
#include "engine/estimate.h"
#include "engine/stats.h"
#include "engine/window.h"

void compi_window_params_default(compi_window_params *p)
{
    p->floor = 2048;
    p->reeval_after = 1000;
    p->recheck_after = 1000;
    p->reeval_bytes = (size_t)16 << 20;
    /* 25%: a diffusing stencil's halos drift by 10% every few iterations
     * (ratio 28 down to 6 over 200), and each re-check codes a 128 KiB
     * sample five times (about 1 ms); the switching margin
     * (engine/estimate.h) keeps the codec through most of them anyway */
    p->ratio_drift = 0.25;
    p->history = 16;
    p->restart_mistakes = 4;
    p->backoff_restarts = 3;
    p->restart_period_s = 30.0;
    p->backoff_s = 10.0;
    p->backoff_max_doublings = 5;
    /* random data's signature stays within a few counts of 0, zeros' near
     * COMPI_SIG_MAX, smooth doubles' around 100: 32 is a change of data,
     * never noise of the same data */
    p->sig_delta = 32;
}

static void compi_window_open(compi_window *w, const compi_window_params *p)
{
    w->no_len = p->floor;
    w->yes_len = SIZE_MAX;
    w->codec = NULL;
    w->raw_run = w->compressed_run = 0;
    w->raw_bytes_run = w->compressed_bytes_run = 0;
    w->outcomes = 0;
    w->outcomes_len = 0;
    w->ratio_refs = 0;
    w->ratio_drifted = 0;
    w->judged_len = 0;
    w->short_run = 0;
    w->short_level = 0;
    w->short_due = 0;
}

void compi_window_init(compi_window *w, const compi_window_params *p)
{
    memset(w, 0, sizeof *w);
    compi_window_open(w, p);
    w->backoff_until = -1;
    w->last_backoff_end = -1;
    w->bin = 1;
    w->bias = 1.0;
}

double compi_window_threshold(const compi_window *w, double min_speedup)
{
    return min_speedup / w->bias;
}

static void compi_window_learn_bias(compi_window *w, double ratio)
{
    if (ratio > 1.0) ratio = 1.0;
    if (ratio < COMPI_BIAS_MIN) ratio = COMPI_BIAS_MIN;
    w->bias_ring[w->bias_next] = ratio;
    w->bias_next = (w->bias_next + 1) % COMPI_BIAS_RING;
    if (w->bias_n < COMPI_BIAS_RING) w->bias_n++;
    double v[COMPI_BIAS_RING];
    memcpy(v, w->bias_ring, sizeof v[0] * w->bias_n);
    w->bias = compi_median(v, (int)w->bias_n);
}

/* Re-evaluation: halve the bias's distance to 1 (in log terms), and the
 * ring's with it, so old evidence weighs less. */
static void compi_window_decay_bias(compi_window *w)
{
    w->bias = __builtin_sqrt(w->bias);
    for (unsigned i = 0; i < w->bias_n; i++) w->bias_ring[i] = __builtin_sqrt(w->bias_ring[i]);
}

/* Decisions over time, in at most COMPI_TIMELINE_BINS bins: when full, pairs
 * of bins merge and each bin then covers twice as many messages. */
static void compi_window_mark(compi_window *w, compi_win_action a)
{
    uint64_t idx = w->timeline_messages / w->bin;
    if (idx >= COMPI_TIMELINE_BINS) {
        for (unsigned i = 0; i < COMPI_TIMELINE_BINS / 2; i++)
            for (int k = 0; k < 3; k++) w->timeline[i][k] = w->timeline[2 * i][k] + w->timeline[2 * i + 1][k];
        memset(w->timeline[COMPI_TIMELINE_BINS / 2], 0, sizeof w->timeline[0] * (COMPI_TIMELINE_BINS / 2));
        w->bin *= 2;
        idx = w->timeline_messages / w->bin;
    }
    w->timeline[idx][a]++;
    if (idx + 1 > w->nbins) w->nbins = (uint32_t)(idx + 1);
    w->timeline_messages++;
    w->messages++;
    if (a == COMPI_WIN_RAW) w->raw++;
    else if (a == COMPI_WIN_EVALUATE) w->evaluated++;
    else w->compressed++;
}

int compi_window_backing_off(const compi_window *w, double now_s)
{
    return w->backoff_until >= 0 && now_s < w->backoff_until;
}

compi_win_action compi_window_classify(compi_window *w, const compi_window_params *p, size_t size, double now_s)
{
    compi_win_action a;
    if (w->backoff_until >= 0 && now_s >= w->backoff_until) {
        /* back-off over: study afresh */
        w->last_backoff_end = w->backoff_until;
        w->backoff_until = -1;
        compi_window_open(w, p);
    }
    if (size < p->floor || compi_window_backing_off(w, now_s)) {
        a = COMPI_WIN_RAW;
    } else if (size >= w->yes_len) {
        if (w->ratio_drifted && w->compressed_run + 1 >= COMPI_RATIO_RECHECK_MIN) {
            /* the data did change, and the zone sent enough since its last
             * evaluation to pay for one: evaluate one, which may pick
             * another codec */
            w->ratio_rechecks++;
            w->compressed_run = 0;
            w->compressed_bytes_run = 0;
            a = COMPI_WIN_EVALUATE;
        } else if (w->short_due && w->compressed_run + 1 >= ((unsigned)COMPI_RATIO_RECHECK_MIN << w->short_level)) {
            /* its codec keeps falling short of its prediction: judged
             * again on what its messages showed */
            w->shortfall_rechecks++;
            if (w->short_level < COMPI_SHORTFALL_MAX_DOUBLINGS) w->short_level++;
            w->compressed_run = 0;
            w->compressed_bytes_run = 0;
            a = COMPI_WIN_EVALUATE;
        } else if (size / COMPI_WINDOW_REACH >= w->judged_len) {
            /* far larger than any message the codec was judged at */
            a = COMPI_WIN_EVALUATE;
        } else if (++w->compressed_run >= p->recheck_after || w->compressed_bytes_run >= p->reeval_bytes) {
            /* the data may have changed: evaluate one, which may pick another codec */
            w->compressed_run = 0;
            w->compressed_bytes_run = 0;
            a = COMPI_WIN_EVALUATE;
        } else {
            a = COMPI_WIN_COMPRESS;
        }
    } else if (size < w->no_len) {
        w->raw_bytes_run += size;
        if (++w->raw_run >= p->reeval_after || w->raw_bytes_run >= p->reeval_bytes) {
            w->raw_run = 0;
            w->raw_bytes_run = 0;
            w->no_len = p->floor;
            w->reevaluations++;
            compi_window_decay_bias(w);
            a = COMPI_WIN_EVALUATE;
        } else {
            a = COMPI_WIN_RAW;
        }
    } else {
        a = COMPI_WIN_EVALUATE;
    }
    compi_window_mark(w, a);
    return a;
}

compi_win_action compi_window_classify_probe(compi_window *w, const compi_window_params *p, size_t size, double now_s)
{
    int backing_off = w->backoff_until >= 0 && now_s < w->backoff_until;
    if (size >= p->floor && !backing_off && size < w->no_len && size < w->yes_len) {
        w->raw_run = 0;
        w->raw_bytes_run = 0;
        w->no_len = p->floor;
        w->reevaluations++;
        compi_window_decay_bias(w);
    }
    return compi_window_classify(w, p, size, now_s);
}

/* The bytes of l[0..len) equal to the one before them or the one 8 before. */
static unsigned compi_window_line_repeats(const unsigned char *l, size_t len)
{
    unsigned n = 0;
    for (size_t j = 1; j < len; j++) n += (l[j] == l[j - 1]) + (j >= 8 && l[j] == l[j - 8]);
    return n;
}

unsigned compi_window_signature(const void *data, size_t size)
{
    const unsigned char *b = data;
    if (size < 64) return compi_window_line_repeats(b, size) * (64 / (unsigned)(size ? size : 1));
    unsigned n = 0;
    size_t span = size - 64;
    for (unsigned i = 0; i < COMPI_SIG_LINES; i++)
        n += compi_window_line_repeats(b + ((span / (COMPI_SIG_LINES - 1) * i) & ~(size_t)7), 64);
    return n;
}

int compi_window_watch_due(compi_window *w, const compi_window_params *p, size_t size, double now_s)
{
    if (!p->sig_delta || size < p->floor || size >= w->no_len || size >= w->yes_len ||
        compi_window_backing_off(w, now_s))
        return 0;
    unsigned misses = w->sig_misses < COMPI_SIG_MAX_MISSES ? w->sig_misses : COMPI_SIG_MAX_MISSES;
    if (++w->sig_skip < (1u << misses)) return 0;
    w->sig_skip = 0;
    return 1;
}

int compi_window_data_changed(compi_window *w, const compi_window_params *p, unsigned sig)
{
    if (!w->sig_set) {
        w->sig = sig;
        w->sig_set = 1;
        return 0;
    }
    unsigned diff = sig > w->sig ? sig - w->sig : w->sig - sig;
    if (diff < p->sig_delta) return 0;
    /* reopen the raw zone for this message: what classify counted raw is
     * an evaluation after all */
    w->sig = sig;
    w->sig_reopened = 1;
    w->sig_reopens++;
    w->no_len = p->floor;
    w->raw_run = 0;
    w->raw_bytes_run = 0;
    uint64_t idx = (w->timeline_messages - 1) / w->bin;
    w->timeline[idx][COMPI_WIN_RAW]--;
    w->timeline[idx][COMPI_WIN_EVALUATE]++;
    w->raw--;
    w->evaluated++;
    return 1;
}

void compi_window_note_data(compi_window *w, unsigned sig)
{
    w->sig = sig;
    w->sig_set = 1;
}

void compi_window_evaluated(compi_window *w, const compi_window_params *p, size_t size, const compi_codec *best,
                            double predicted)
{
    if (w->sig_reopened) {
        /* the watch asked: raw again means it reopened for nothing */
        w->sig_reopened = 0;
        if (best) w->sig_misses = 0;
        else if (w->sig_misses < COMPI_SIG_MAX_MISSES) w->sig_misses++;
    } else if (!best) {
        /* raw decided afresh: the zone's data are the next raw message's */
        w->sig_set = 0;
    }
    if (!best) {
        /* raw wins at this size: smaller ones (more latency-bound) too */
        if (size + 1 > w->no_len) w->no_len = size + 1;
        if (w->yes_len != SIZE_MAX && w->no_len > w->yes_len) {
            /* the compressed zone stopped paying: reopen it */
            w->yes_len = SIZE_MAX;
            w->codec = NULL;
        }
        return;
    }
    w->raw_run = 0;
    w->raw_bytes_run = 0;
    if (size < w->yes_len) w->yes_len = size;
    if (w->no_len > w->yes_len) w->no_len = w->yes_len;
    if (best != w->codec || size > w->judged_len) w->judged_len = size;
    w->codec = best;
    /* the next outcomes of this codec make the new range; a drift is
     * re-checked COMPI_RATIO_RECHECK_MIN messages after this decision at
     * the soonest */
    w->ratio_refs = 0;
    w->ratio_drifted = 0;
    w->compressed_run = 0;
    /* the new prediction's outcomes make the next shortfall; a re-check
     * that was not the shortfall's ends its run of doublings */
    w->short_run = 0;
    if (!w->short_due) w->short_level = 0;
    w->short_due = 0;
    w->last_predicted = predicted;
    w->predicted_sum += predicted;
    w->predicted_n++;
}

static void compi_window_restart(compi_window *w, const compi_window_params *p, double now_s)
{
    w->restarts++;
    compi_window_open(w, p);
    /* keep only the restarts within the period, then this one */
    unsigned k = 0;
    for (unsigned i = 0; i < w->nrestarts; i++)
        if (now_s - w->restart_at[i] < p->restart_period_s) w->restart_at[k++] = w->restart_at[i];
    if (k == COMPI_WINDOW_MAX_RESTARTS) {
        memmove(w->restart_at, w->restart_at + 1, sizeof w->restart_at[0] * (k - 1));
        k--;
    }
    w->restart_at[k++] = now_s;
    w->nrestarts = k;
    if (k < p->backoff_restarts) return;
    /* the data keeps defeating the study: stop compressing for a while,
     * longer each time it happens again soon after the previous back-off */
    if (w->last_backoff_end >= 0 && now_s - w->last_backoff_end < p->restart_period_s) {
        if (w->backoff_level < p->backoff_max_doublings) w->backoff_level++;
    } else {
        w->backoff_level = 0;
    }
    w->backoffs++;
    w->backoff_until = now_s + p->backoff_s * (double)(1u << w->backoff_level);
    w->nrestarts = 0;
}

void compi_window_outcome(compi_window *w, const compi_window_params *p, double achieved, double now_s)
{
    int mistake = compi_outcome_is_mistake(achieved);
    w->outcomes = compi_outcomes_push(w->outcomes, mistake, p->history);
    if (w->outcomes_len < p->history && w->outcomes_len < COMPI_OUTCOMES_MAX) w->outcomes_len++;
    w->observed_sum += achieved;
    w->observed_n++;
    if (w->last_predicted > 0) compi_window_learn_bias(w, achieved / w->last_predicted);
    if (w->codec && w->last_predicted > 0 && achieved * COMPI_ESTIMATE_SWITCH_MARGIN < w->last_predicted) {
        if (++w->short_run >= COMPI_SHORTFALL_RUN) w->short_due = 1;
    } else {
        w->short_run = 0;
    }
    if (!mistake) return;
    w->mistakes++;
    if (compi_outcomes_mistakes(w->outcomes) >= p->restart_mistakes) compi_window_restart(w, p, now_s);
}

void compi_window_wire(compi_window *w, size_t wire_bytes)
{
    w->compressed_bytes_run += wire_bytes;
}

void compi_window_ratio(compi_window *w, const compi_window_params *p, const compi_codec *codec, double ratio)
{
    if (p->ratio_drift <= 0 || !codec || codec != w->codec || !(ratio > 0)) return;
    if (w->ratio_refs < COMPI_RATIO_REFS) {
        if (w->ratio_refs == 0 || ratio < w->ratio_lo) w->ratio_lo = ratio;
        if (w->ratio_refs == 0 || ratio > w->ratio_hi) w->ratio_hi = ratio;
        w->ratio_refs++;
        return;
    }
    if (ratio > w->ratio_hi * (1 + p->ratio_drift) || ratio < w->ratio_lo / (1 + p->ratio_drift)) w->ratio_drifted = 1;
}
