/* SPDX-License-Identifier: BSD-3-Clause */
/* Links learned from traffic; see linkest.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "engine/linkest.h"
#include "engine/stats.h"

const char *compi_linksrc_name(compi_linksrc s)
{
    static const char *const names[] = {"prior", "learned", "probe", "file"};
    return s >= COMPI_LINKSRC_PRIOR && s <= COMPI_LINKSRC_FILE ? names[s] : "?";
}

static void compi_linkest_note_fastest(compi_linkest *e);

void compi_linkest_init(compi_linkest *e, const compi_net_link *model, compi_linksrc source)
{
    memset(e, 0, sizeof *e);
    e->model = *model;
    e->source = source;
    compi_linkest_note_fastest(e);
}

double compi_linkest_alpha_us(const compi_linkest *e)
{
    return e->model.alpha_us;
}

double compi_linkest_beta_ns(const compi_linkest *e)
{
    return e->model.npoints ? e->model.beta_ns[e->model.npoints - 1] : 0;
}

/* Keeps the least time per byte the model has had (compi_linkest_add_chunks). */
static void compi_linkest_note_fastest(compi_linkest *e)
{
    double b = compi_linkest_beta_ns(e);
    if (b > 0 && (e->fastest_beta_ns <= 0 || b < e->fastest_beta_ns)) e->fastest_beta_ns = b;
}

static int compi_moved(double now, double was)
{
    if (was <= 0 || now <= 0) return now != was;
    double r = now / was;
    return r > COMPI_LINKEST_CHANGE || r < 1.0 / COMPI_LINKEST_CHANGE;
}

/* Whether the fit of the rings is sound: the time samples against the
 * model (their bytes beyond its burst), the rate samples against beta.
 * 1 and why (e->last_rejection) when it is not. */
static int compi_linkest_degenerate(compi_linkest *e, double alpha, double beta, double t_beta, double burst)
{
    double xb[COMPI_LINKEST_RING], xt[COMPI_LINKEST_RING];
    char why[160];
    int n = 0, bad = 0;
    for (unsigned i = 0; i < e->ntime; i++, n++) {
        xb[n] = e->t_bytes[i] > burst ? e->t_bytes[i] - burst : 0;
        xt[n] = e->t_us[i];
    }
    if (n) bad = compi_net_fit_degenerate(n, xb, xt, alpha, t_beta > 0 ? t_beta : beta, why, sizeof why) != NULL;
    if (!bad) {
        /* rates as zero-latency times of 1 MB */
        for (n = 0; n < (int)e->nrate; n++) xb[n] = 1e6, xt[n] = 1e6 * e->rate_ns[n] * 1e-3;
        bad = compi_net_fit_degenerate(n, xb, xt, 0, beta, why, sizeof why) != NULL;
    }
    if (bad) memcpy(e->last_rejection, why, sizeof why);
    return bad;
}

/* Refits from the rings; the model changes only on a sound fit that moved.
 * The time samples' fit is the steady-state one (engine/model.h): a
 * bucket or buffer that passed the smaller sizes at once moves neither
 * the slope nor the latency. */
static int compi_linkest_refit(compi_linkest *e)
{
    if (e->nrate + e->ntime < COMPI_LINKEST_MIN_SAMPLES) return 0;
    double alpha = compi_linkest_alpha_us(e), beta = -1, t_beta = -1, burst = 0;
    double lo = 0, hi = 0;
    for (unsigned i = 0; i < e->ntime; i++) {
        if (!i || e->t_bytes[i] < lo) lo = e->t_bytes[i];
        if (!i || e->t_bytes[i] > hi) hi = e->t_bytes[i];
    }
    int spread = e->ntime >= COMPI_LINKEST_MIN_SAMPLES && hi >= 4 * lo;
    if (e->nrate >= COMPI_LINKEST_MIN_SAMPLES) {
        double v[COMPI_LINKEST_RING];
        memcpy(v, e->rate_ns, sizeof v[0] * e->nrate);
        beta = compi_median(v, (int)e->nrate);
    }
    double a, b;
    if (spread && compi_net_fit_steady((int)e->ntime, e->t_bytes, e->t_us, &a, &b, &burst) == COMPI_OK) {
        alpha = a;
        t_beta = b;
        if (beta < 0) beta = b;
    } else if (beta < 0 && e->ntime >= COMPI_LINKEST_MIN_SAMPLES) {
        /* one size only: the prior's latency, the rest is the bytes' */
        double v[COMPI_LINKEST_RING];
        for (unsigned i = 0; i < e->ntime; i++) v[i] = (e->t_us[i] - alpha) * 1e3 / e->t_bytes[i];
        beta = compi_median(v, (int)e->ntime);
    }
    if (beta < 0) return 0;
    if (compi_linkest_degenerate(e, alpha, beta, t_beta, burst)) {
        e->fits_rejected++;
        return 0;
    }
    if (e->source == COMPI_LINKSRC_FILE) return 0;
    if (!compi_moved(alpha, compi_linkest_alpha_us(e)) && !compi_moved(beta, compi_linkest_beta_ns(e))) return 0;
    e->model.alpha_us = alpha;
    e->model.npoints = 1;
    e->model.bytes[0] = 1;
    e->model.beta_ns[0] = beta;
    e->source = COMPI_LINKSRC_LEARNED;
    e->changes++;
    compi_linkest_note_fastest(e);
    return 1;
}

static int compi_sample_ok(compi_linkest *e, double bytes, double us)
{
    e->samples++;
    if (bytes > 0 && us > 0 && isfinite(us)) return 1;
    e->rejected_samples++;
    return 0;
}

int compi_linkest_add_rate(compi_linkest *e, double bytes, double us)
{
    if (!compi_sample_ok(e, bytes, us)) return 0;
    e->rate_ns[e->rate_next] = us * 1e3 / bytes;
    e->rate_next = (e->rate_next + 1) % COMPI_LINKEST_RING;
    if (e->nrate < COMPI_LINKEST_RING) e->nrate++;
    return compi_linkest_refit(e);
}

int compi_linkest_add_chunks(compi_linkest *e, double bytes, double us, double chunks)
{
    double enough = COMPI_LINKEST_CHUNK_COSTS * COMPI_LINKEST_MSG_COST_US, beta = e->fastest_beta_ns;
    if (chunks >= 1 && beta > 0 && bytes / chunks * beta * 1e-3 < enough) {
        e->samples++;
        e->rejected_samples++;
        return 0;
    }
    return compi_linkest_add_rate(e, bytes, us);
}

int compi_linkest_add_time(compi_linkest *e, double bytes, double us)
{
    if (!compi_sample_ok(e, bytes, us)) return 0;
    e->t_bytes[e->time_next] = bytes;
    e->t_us[e->time_next] = us;
    e->time_next = (e->time_next + 1) % COMPI_LINKEST_RING;
    if (e->ntime < COMPI_LINKEST_RING) e->ntime++;
    return compi_linkest_refit(e);
}

int compi_linkest_set_probe(compi_linkest *e, const compi_net_link *probed)
{
    if (e->source != COMPI_LINKSRC_PRIOR) return 0;
    compi_link_class cls = e->model.cls;
    char a[COMPI_NET_NAME_MAX], b[COMPI_NET_NAME_MAX];
    memcpy(a, e->model.node_a, sizeof a);
    memcpy(b, e->model.node_b, sizeof b);
    e->model = *probed;
    e->model.cls = cls;
    memcpy(e->model.node_a, a, sizeof a);
    memcpy(e->model.node_b, b, sizeof b);
    e->source = COMPI_LINKSRC_PROBE;
    e->changes++;
    compi_linkest_note_fastest(e);
    return 1;
}

static double compi_beyond(double bytes, double burst)
{
    return bytes > burst ? bytes - burst : 0;
}

double compi_linkest_injected_us(double alpha_us, double beta_ns, int every, uint64_t seq, double bytes,
                                 int with_latency, double burst, double head)
{
    double paced = compi_beyond(head + bytes, burst) - compi_beyond(head, burst);
    double t = (with_latency ? alpha_us : 0) + paced * beta_ns * 1e-3;
    if (every > 0 && seq % (uint64_t)every == (uint64_t)every - 1) t *= 50;
    return t;
}
