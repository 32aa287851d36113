/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive engine's report section: per link and window, what was
 * learned and decided (JSON, and the COMPI_VERBOSE summary). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/safefile.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/state.h"
#include "core/stats.h"
#include "engine/estimate.h"
#include "engine/linkest.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "netcal/netcal.h"
#include "core/decide_state.h"

/* ------------------------------------------------------------------ report */

typedef struct {
    char *buf;
    size_t len, cap;
} compi_sbuf;

static void compi_sbuf_printf(compi_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void compi_sbuf_printf(compi_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->buf ? b->buf + b->len : NULL, b->buf ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->buf && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
        char *grown = realloc(b->buf, cap);
        if (!grown) compi_die("out of memory writing the report");
        b->buf = grown;
        b->cap = cap;
    }
}

static void compi_json_string(compi_sbuf *b, const char *s)
{
    compi_sbuf_printf(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') compi_sbuf_printf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) compi_sbuf_printf(b, "\\u%04x", *s);
        else compi_sbuf_printf(b, "%c", *s);
    }
    compi_sbuf_printf(b, "\"");
}

static void compi_json_window(compi_sbuf *b, const compi_link_state *l, int group, int cls, const compi_window *w,
                              double now)
{
    compi_sbuf_printf(b, "{\"family\": \"%s\", \"class\": \"%s\", \"link\": ", compi_win_group_names[group],
                      compi_dtclass_name(cls));
    compi_json_string(b, l->name);
    compi_sbuf_printf(b, ", \"no_bytes\": %zu, ", w->no_len);
    if (w->yes_len == SIZE_MAX) compi_sbuf_printf(b, "\"yes_bytes\": null, ");
    else compi_sbuf_printf(b, "\"yes_bytes\": %zu, ", w->yes_len);
    if (w->codec) compi_sbuf_printf(b, "\"codec\": \"%s\", ", w->codec->name);
    else compi_sbuf_printf(b, "\"codec\": null, ");
    compi_sbuf_printf(b,
                      "\"messages\": %llu, \"raw\": %llu, \"evaluated\": %llu, \"compressed\": %llu, "
                      "\"mistakes\": %llu, \"restarts\": %llu, \"reevaluations\": %llu, \"backoffs\": %llu, "
                      "\"ratio_rechecks\": %llu, \"shortfall_rechecks\": %llu, \"data_rechecks\": %llu, "
                      "\"backoff_active\": %s, ",
                      (unsigned long long)w->messages, (unsigned long long)w->raw, (unsigned long long)w->evaluated,
                      (unsigned long long)w->compressed, (unsigned long long)w->mistakes,
                      (unsigned long long)w->restarts, (unsigned long long)w->reevaluations,
                      (unsigned long long)w->backoffs, (unsigned long long)w->ratio_rechecks,
                      (unsigned long long)w->shortfall_rechecks, (unsigned long long)w->sig_reopens,
                      compi_window_backing_off(w, now) ? "true" : "false");
    compi_sbuf_printf(b, "\"estimate_bias\": %.3f, ", w->bias);
    if (w->predicted_n)
        compi_sbuf_printf(b, "\"predicted_speedup\": %.3f, ", w->predicted_sum / (double)w->predicted_n);
    else compi_sbuf_printf(b, "\"predicted_speedup\": null, ");
    if (w->observed_n) compi_sbuf_printf(b, "\"observed_speedup\": %.3f, ", w->observed_sum / (double)w->observed_n);
    else compi_sbuf_printf(b, "\"observed_speedup\": null, ");
    compi_sbuf_printf(b, "\"timeline\": {\"bin\": %u", w->bin);
    static const char *const names[3] = {"raw", "evaluated", "compressed"};
    for (int k = 0; k < 3; k++) {
        compi_sbuf_printf(b, ", \"%s\": [", names[k]);
        for (uint32_t i = 0; i < w->nbins; i++) compi_sbuf_printf(b, "%s%u", i ? ", " : "", w->timeline[i][k]);
        compi_sbuf_printf(b, "]");
    }
    compi_sbuf_printf(b, "}}");
}

/* ", \"links\": [...]": what this rank knows of each link to another node. */
static void compi_json_links(compi_sbuf *b)
{
    compi_sbuf_printf(b, ", \"links\": [");
    int first = 1;
    compi_link_state tmp;
    for (int i = 0; i < compi_g.node_count; i++) {
        compi_link_state *l = compi_link_view(i, &tmp);
        if (i == compi_g.my_node || !l->model) continue;
        pthread_mutex_lock(&l->lock);
        const compi_linkest *e = &l->est;
        double beta = compi_linkest_beta_ns(e);
        compi_sbuf_printf(b, "%s{\"link\": ", first ? "" : ", ");
        compi_json_string(b, l->name);
        compi_sbuf_printf(b,
                          ", \"source\": \"%s\", \"latency_us\": %.3f, \"bandwidth_MBps\": %.3f, "
                          "\"samples\": %llu, \"rate_samples\": %u, \"time_samples\": %u, \"rejected_samples\": %llu, "
                          "\"sender_bound_samples\": %llu, \"fits_rejected\": %llu, \"model_changes\": %llu, "
                          "\"windows_reopened\": %llu, \"last_rejection\": ",
                          compi_linksrc_name(e->source), e->model.alpha_us, beta > 0 ? 1e3 / beta : 0.0,
                          (unsigned long long)e->samples, e->nrate, e->ntime, (unsigned long long)e->rejected_samples,
                          (unsigned long long)l->sender_bound, (unsigned long long)e->fits_rejected,
                          (unsigned long long)e->changes, (unsigned long long)l->reopened);
        if (e->fits_rejected) compi_json_string(b, e->last_rejection);
        else compi_sbuf_printf(b, "null");
        compi_sbuf_printf(b, "}");
        first = 0;
        pthread_mutex_unlock(&l->lock);
    }
    compi_sbuf_printf(b, "]");
}

void compi_engine_links_summary(void)
{
    /* the links matter where the engine decides */
    if (!compi_E.ready || (compi_cfg.mode != COMPI_MODE_ADAPTIVE && compi_cfg.mode != COMPI_MODE_GUIDED)) return;
    char line[1024];
    int n = snprintf(line, sizeof line, "compi: rank 0's links:"), shown = 0, prior = 0;
    compi_link_state tmp;
    for (int i = 0; i < compi_g.node_count && n < (int)sizeof line; i++) {
        compi_link_state *l = compi_link_view(i, &tmp);
        if (i == compi_g.my_node || !l->model) continue;
        pthread_mutex_lock(&l->lock);
        compi_linksrc src = l->est.source;
        double alpha = l->est.model.alpha_us, beta = compi_linkest_beta_ns(&l->est);
        uint64_t samples = l->est.samples;
        pthread_mutex_unlock(&l->lock);
        if (src == COMPI_LINKSRC_PRIOR) {
            prior++;
            continue;
        }
        if (shown++ == 4) {
            n += snprintf(line + n, sizeof line - (size_t)n, " ...");
            continue;
        }
        if (shown > 4) continue;
        n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %s %.1f us %.1f MB/s", shown > 1 ? ";" : "",
                      strchr(l->name, ' ') ? strchr(l->name, ' ') + 1 : l->name, compi_linksrc_name(src), alpha,
                      beta > 0 ? 1e3 / beta : 0.0);
        if (samples && n < (int)sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, " (%llu samples)", (unsigned long long)samples);
    }
    if (prior && n < (int)sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s %d with the built-in prior only", shown ? ";" : "", prior);
    if (shown || prior) fprintf(stderr, "%s\n", line);
}

char *compi_engine_report_json(void)
{
    compi_sbuf b = {0};
    if (!compi_E.ready) {
        compi_sbuf_printf(&b, "null");
        return b.buf;
    }
    double now = compi_engine_now_s();
    compi_sbuf_printf(&b, "{\"network\": {\"source\": ");
    compi_json_string(&b, compi_E.net.source);
    compi_sbuf_printf(&b, ", \"calibrate_seconds\": %.3f}, \"codec_model\": ", compi_E.calibrate_s);
    compi_json_string(&b, compi_E.codecs.source);
    compi_json_links(&b);
    compi_sbuf_printf(&b, ", \"windows\": [");
    int first = 1;
    for (int i = 0; i < compi_E.nlinks; i++) {
        compi_link_state *l = compi_E.links[i]; /* one never used has no windows */
        if (!l) continue;
        pthread_mutex_lock(&l->lock);
        for (int g = 0; g < COMPI_WIN_GROUPS; g++)
            for (int c = 0; l->win[g] && c < COMPI_CLASS_COUNT; c++) {
                if (!l->win[g][c].messages) continue;
                if (!first) compi_sbuf_printf(&b, ", ");
                compi_json_window(&b, l, g, c, &l->win[g][c], now);
                first = 0;
            }
        pthread_mutex_unlock(&l->lock);
    }
    compi_sbuf_printf(&b, "]");
    if (compi_cfg.mode == COMPI_MODE_GUIDED)
        compi_sbuf_printf(&b,
                          ", \"guided\": {\"rules\": %zu, \"hits\": %llu, \"misses\": %llu, \"dropped\": %zu, "
                          "\"fallback\": %s}",
                          compi_rules_count(compi_E.rules), (unsigned long long)compi_E.rule_hits,
                          (unsigned long long)compi_E.rule_misses, compi_rules_dropped(compi_E.rules),
                          compi_E.rules ? "false" : "true");
    compi_sbuf_printf(&b, "}");
    return b.buf;
}
