/* SPDX-License-Identifier: BSD-3-Clause */
/* How compi learns the network, without timing anything: the robust fit
 * against scipy's Theil-Sen on samples with outliers, degenerate fits
 * rejected (the model kept), the link estimator on injected timings of a
 * known link with outliers, the steady-state fit behind a token bucket, and
 * the collective floor the learned link gives. */
#include <math.h>
#include <stdlib.h>
#include "engine/linkest.h"
#include "engine_test.h"

#define NS 20

/* sizes 2 B .. 1 MiB on a 100 us, 80 ns/B link, +-2 % wobble, three wild
 * samples (40x and 10x slower, 5x faster) */
static void samples(double *x, double *y)
{
    for (int k = 1; k <= NS; k++) {
        x[k - 1] = ldexp(1.0, k);
        double t = (100 + x[k - 1] * 0.08) * (1 + 0.02 * sin((double)k));
        if (k == 3) t *= 40;
        if (k == 12) t *= 10;
        if (k == 19) t *= 0.2;
        y[k - 1] = t;
    }
}

static void test_theil_sen_reference(void)
{
    double x[NS], y[NS], slope, icpt;
    samples(x, y);
    CHECK(compi_net_theil_sen(NS, x, y, &slope, &icpt) == COMPI_OK, "fit");
    /* scipy 1.10: scipy.stats.theilslopes(y, x, method='joint') on the same
     * samples gives slope 0.07880175990043617, intercept 101.73168726076828 */
    CHECK(fabs(slope - 0.07880175990043617) < 1e-9 * 0.0788, "slope %.17g", slope);
    CHECK(fabs(icpt - 101.73168726076828) < 1e-7, "intercept %.17g", icpt);
    double one[2] = {5, 5}, t2[2] = {1, 2};
    CHECK(compi_net_theil_sen(2, one, t2, &slope, &icpt) == COMPI_ERR_CONFIG, "no two distinct sizes: refused");
}

static void test_link_fit(void)
{
    double x[NS], y[NS];
    char why[160];
    samples(x, y);
    compi_net_link l = flat_link(50, 8);
    CHECK(compi_net_link_fit(&l, NS, x, y, why, sizeof why) == COMPI_OK, "fit: %s", why);
    CHECK(fabs(l.alpha_us - 100) < 5, "latency despite a 40x outlier at 8 B: %g us", l.alpha_us);
    CHECK(fabs(compi_net_time_us(&l, 1 << 20) - (100 + 1048576 * 0.08)) < 0.05 * 1048576 * 0.08,
          "1 MiB time despite the outliers: %g us", compi_net_time_us(&l, 1 << 20));
    CHECK(fabs(compi_net_time_us(&l, 4096) - (100 + 4096 * 0.08)) < 0.1 * (100 + 4096 * 0.08),
          "4 KiB time: %g us", compi_net_time_us(&l, 4096));
    for (int i = 0; i < l.npoints; i++) CHECK(l.beta_ns[i] > 0, "beta[%d] %g > 0", i, l.beta_ns[i]);

    /* flat: every size took 200 us (a rank descheduled throughout) */
    compi_net_link keep = flat_link(50, 8), was = keep;
    for (int i = 0; i < NS; i++) y[i] = 200;
    why[0] = 0;
    CHECK(compi_net_link_fit(&keep, NS, x, y, why, sizeof why) == COMPI_ERR_CONFIG && strstr(why, "flat"),
          "flat times rejected: '%s'", why);
    CHECK(memcmp(&keep, &was, sizeof keep) == 0, "a rejected fit leaves the link as it was");
    /* negative: the large sizes took less (the small ones descheduled) */
    for (int i = 0; i < NS; i++) y[i] = 5000 - 100 * i;
    CHECK(compi_net_link_fit(&keep, NS, x, y, why, sizeof why) == COMPI_ERR_CONFIG, "negative slope rejected");
    /* most samples wild: no line describes them */
    samples(x, y);
    for (int i = 0; i < NS; i += 2) y[i] *= 30 + i;
    for (int i = 1; i < NS; i += 4) y[i] /= 20;
    CHECK(compi_net_link_fit(&keep, NS, x, y, why, sizeof why) == COMPI_ERR_CONFIG && strstr(why, "within 2x"),
          "latency outliers rejected: '%s'", why);
    CHECK(compi_net_link_fit(&keep, 2, x, y, why, sizeof why) == COMPI_ERR_CONFIG, "two sizes are too few");
    CHECK(memcmp(&keep, &was, sizeof keep) == 0, "still as it was");
}

/* Behind a token bucket (a shaper, or a switch's buffer) that passes the
 * first 16 KiB of each message at once: a 100 us, 80 ns/B link whose
 * sizes up to 16 KiB take the latency alone. The steady state is what
 * counts: the fit finds 80 ns/B and 100 us, where a line through all sizes
 * is flatter (plain Theil-Sen: under 60 ns/B here) and cuts the axis below
 * the latency. */
static void test_link_fit_bucket(void)
{
    double x[NS], y[NS], slope, icpt, a, b, burst;
    char why[160];
    for (int k = 1; k <= NS; k++) {
        x[k - 1] = ldexp(1.0, k);
        y[k - 1] = compi_linkest_injected_us(100, 80, 0, 0, x[k - 1], 1, 16384, 0) * (1 + 0.02 * sin((double)k));
    }
    y[16] *= 30; /* one descheduled size beyond the knee */
    CHECK(compi_net_theil_sen(NS, x, y, &slope, &icpt) == COMPI_OK && slope * 1e3 < 60,
          "the plain line is too flat: %g ns/B", slope * 1e3);
    CHECK(compi_net_fit_steady(NS, x, y, &a, &b, &burst) == COMPI_OK, "steady fit");
    CHECK(fabs(b - 80) < 4 && fabs(a - 100) < 10 && burst == 16384, "steady state %g us %g ns/B, burst %g", a, b, burst);
    compi_net_link l = flat_link(50, 8);
    CHECK(compi_net_link_fit(&l, NS, x, y, why, sizeof why) == COMPI_OK, "fit: %s", why);
    CHECK(fabs(l.alpha_us - 100) < 10, "latency %g us", l.alpha_us);
    for (int i = 0; i < l.npoints; i++)
        CHECK(l.beta_ns[i] >= 0.95 * 80, "no size faster than the steady state: %g ns/B at %g B", l.beta_ns[i],
              l.bytes[i]);
    CHECK(fabs(compi_net_time_us(&l, 1 << 20) - (100 + 1048576 * 0.08)) < 0.05 * 1048576 * 0.08, "1 MiB: %g us",
          compi_net_time_us(&l, 1 << 20));
    /* the probe's sizes (8 .. 256 KiB), the 64 KiB one descheduled */
    double px[6], py[6];
    for (int k = 0; k < 6; k++) {
        px[k] = 8192.0 * (double)(1 << k);
        py[k] = compi_linkest_injected_us(300, 80, 4, (uint64_t)k, px[k], 1, 16384, 0);
    }
    CHECK(compi_net_link_fit(&l, 6, px, py, why, sizeof why) == COMPI_OK, "probe sizes: %s", why);
    CHECK(fabs(compi_linkest_beta_ns(&(compi_linkest){.model = l}) - 80) < 4 && fabs(l.alpha_us - 300) < 30,
          "probe sizes: %g us %g ns/B", l.alpha_us, l.beta_ns[l.npoints - 1]);
    /* no bucket: the plain line, no burst */
    samples(x, y);
    CHECK(compi_net_fit_steady(NS, x, y, &a, &b, &burst) == COMPI_OK && burst == 0 && fabs(b - 78.8) < 1,
          "no bucket: burst %g, %g ns/B", burst, b);
    /* the link estimator's time samples, sizes 4 .. 512 KiB behind the bucket */
    compi_net_link prior = flat_link(50, 8);
    compi_linkest e;
    compi_linkest_init(&e, &prior, COMPI_LINKSRC_PRIOR);
    for (uint64_t s = 0; s < 8; s++) {
        double sz = 4096.0 * (double)(1u << s);
        compi_linkest_add_time(&e, sz, compi_linkest_injected_us(300, 80, 5, s, sz, 1, 16384, 0));
    }
    CHECK(fabs(compi_linkest_beta_ns(&e) - 80) < 4 && fabs(e.model.alpha_us - 300) < 30,
          "time samples behind a bucket: %g us %g ns/B", e.model.alpha_us, compi_linkest_beta_ns(&e));
    /* rate samples: the bytes after a head the bucket passed come at the rate */
    CHECK(compi_linkest_injected_us(0, 80, 0, 0, 65536, 0, 16384, 32768) == 65536 * 0.08, "past the bucket");
    CHECK(compi_linkest_injected_us(0, 80, 0, 0, 65536, 0, 16384, 0) == 49152 * 0.08, "partly in it");
}

/* The probe's three smallest sizes at 100 Mbit/s (16 .. 64 KiB, 80 ns/B,
 * 10 us) with the first 4 KiB of each passed at once by a bucket and a few
 * microseconds of jitter: the line through them cuts the axis far below 0
 * (clamped to 0 us), while the latency measured apart (an empty message's
 * one-way time) is taken as it is, and the slope stays the line's. */
static void test_link_fit_latency(void)
{
    double x[3], y[3];
    char why[160];
    for (int k = 0; k < 3; k++) {
        x[k] = 16384.0 * (double)(1 << k);
        y[k] = compi_linkest_injected_us(10, 80, 0, 0, x[k], 1, 4096, 0) + (k == 1 ? 6 : -3);
    }
    compi_net_link l = flat_link(50, 8);
    CHECK(compi_net_link_fit(&l, 3, x, y, why, sizeof why) == COMPI_OK && l.alpha_us == 0,
          "intercept only: latency %g us (clamped to 0)", l.alpha_us);
    l = flat_link(50, 8);
    CHECK(compi_net_link_fit_latency(&l, 3, x, y, 10, why, sizeof why) == COMPI_OK, "fit: %s", why);
    CHECK(l.alpha_us == 10, "measured latency kept: %g us", l.alpha_us);
    CHECK(fabs(compi_linkest_beta_ns(&(compi_linkest){.model = l}) - 80) < 4, "slope %g ns/B",
          l.beta_ns[l.npoints - 1]);
    l = flat_link(50, 8);
    CHECK(compi_net_link_fit_latency(&l, 3, x, y, -1, why, sizeof why) == COMPI_OK && l.alpha_us == 0,
          "no measured latency: the intercept, %g us", l.alpha_us);
}

static void test_linkest_learns(void)
{
    compi_net_link prior = flat_link(50, 8);
    compi_linkest e;
    compi_linkest_init(&e, &prior, COMPI_LINKSRC_PRIOR);
    /* pipelined messages of 1 MiB on a 100 Mbit/s link (80 ns/B), every 4th
     * sample 50x slower (the receiver descheduled) */
    int changed_at = -1;
    for (uint64_t s = 0; s < 12; s++) {
        double us = compi_linkest_injected_us(300, 80, 4, s, 1 << 20, 0, 0, 0);
        if (compi_linkest_add_rate(&e, 1 << 20, us) && changed_at < 0) changed_at = (int)s;
    }
    CHECK(changed_at == 2, "learned at the third sample, not %d", changed_at);
    CHECK(e.source == COMPI_LINKSRC_LEARNED && e.changes == 1, "source %s, %llu changes",
          compi_linksrc_name(e.source), (unsigned long long)e.changes);
    CHECK(fabs(compi_linkest_beta_ns(&e) - 80) < 4, "bandwidth despite outliers: %g ns/B", compi_linkest_beta_ns(&e));
    CHECK(e.model.alpha_us == 50, "no time samples yet: the prior's latency %g", e.model.alpha_us);
    /* time samples of several sizes (probe-like) bring the latency */
    for (uint64_t s = 0; s < 8; s++) {
        double b = 4096.0 * (double)(1u << s);
        compi_linkest_add_time(&e, b, compi_linkest_injected_us(300, 80, 5, s, b, 1, 0, 0));
    }
    CHECK(fabs(e.model.alpha_us - 300) < 30, "latency learned: %g us", e.model.alpha_us);
    CHECK(fabs(compi_linkest_beta_ns(&e) - 80) < 4, "bandwidth kept: %g", compi_linkest_beta_ns(&e));
    CHECK(e.changes == 2, "one more change (the latency): %llu", (unsigned long long)e.changes);

    /* the collective floor follows: smaller on the slow link than the prior's */
    size_t before = compi_net_coll_floor(&prior, 2048, 1), after = compi_net_coll_floor(&e.model, 2048, 1);
    CHECK(before == 131072, "prior floor %zu", before);
    /* 300 us + S * 80 ns >= 20 x 300 us: S >= 71250 B -> 128 KiB? no: 2048 * 2^k >= 71250 -> 131072 */
    size_t want = 2048;
    while (300 + (double)want * 0.08 < 20 * 300.0) want *= 2;
    CHECK(after == want, "learned floor %zu, expected %zu", after, want);
    compi_linkest fast;
    compi_linkest_init(&fast, &prior, COMPI_LINKSRC_PRIOR);
    for (uint64_t s = 0; s < 3; s++) compi_linkest_add_rate(&fast, 1 << 20, compi_linkest_injected_us(50, 80, 0, s, 1 << 20, 0, 0, 0));
    CHECK(compi_net_coll_floor(&fast.model, 2048, 1) == 16384, "50 us, 80 ns/B: floor %zu",
          compi_net_coll_floor(&fast.model, 2048, 1));
}

static void test_linkest_rejects(void)
{
    compi_net_link prior = flat_link(50, 8);
    compi_linkest e;
    compi_linkest_init(&e, &prior, COMPI_LINKSRC_PRIOR);
    /* a sender that returns at once: the link looks free */
    for (uint64_t s = 0; s < 6; s++) compi_linkest_add_rate(&e, 1 << 20, compi_linkest_injected_us(0, 0, 0, s, 1 << 20, 0, 0, 0));
    CHECK(e.rejected_samples == 6 && e.changes == 0, "zero times refused: %llu", (unsigned long long)e.rejected_samples);
    for (uint64_t s = 0; s < 6; s++) compi_linkest_add_rate(&e, 1 << 20, 1e-4);
    CHECK(e.fits_rejected > 0 && strstr(e.last_rejection, "flat"), "flat fit rejected: '%s'", e.last_rejection);
    CHECK(e.source == COMPI_LINKSRC_PRIOR && compi_linkest_beta_ns(&e) == 8 && e.model.alpha_us == 50,
          "the prior kept");
    /* a heuristics file's link is never replaced, only fitted for the report */
    compi_linkest f;
    compi_linkest_init(&f, &prior, COMPI_LINKSRC_FILE);
    for (uint64_t s = 0; s < 6; s++) compi_linkest_add_rate(&f, 1 << 20, compi_linkest_injected_us(0, 80, 0, s, 1 << 20, 0, 0, 0));
    CHECK(f.source == COMPI_LINKSRC_FILE && compi_linkest_beta_ns(&f) == 8 && f.changes == 0 && f.samples == 6,
          "file wins");
}

static void test_linkest_probe(void)
{
    compi_net_link prior = flat_link(50, 8), probed = flat_link(300, 80);
    strcpy(probed.node_a, "x");
    compi_linkest e, f, l;
    compi_linkest_init(&e, &prior, COMPI_LINKSRC_PRIOR);
    CHECK(compi_linkest_set_probe(&e, &probed) == 1 && e.source == COMPI_LINKSRC_PROBE && e.model.alpha_us == 300 &&
              compi_linkest_beta_ns(&e) == 80 && strcmp(e.model.node_a, "*") == 0,
          "a prior link takes the probe's model (keeping its own name)");
    compi_linkest_init(&f, &prior, COMPI_LINKSRC_FILE);
    CHECK(compi_linkest_set_probe(&f, &probed) == 0 && f.source == COMPI_LINKSRC_FILE && f.model.alpha_us == 50,
          "a file's link is kept");
    compi_linkest_init(&l, &prior, COMPI_LINKSRC_PRIOR);
    for (uint64_t s = 0; s < 3; s++) compi_linkest_add_rate(&l, 1 << 20, compi_linkest_injected_us(0, 20, 0, s, 1 << 20, 0, 0, 0));
    CHECK(compi_linkest_set_probe(&l, &probed) == 0 && compi_linkest_beta_ns(&l) == 20, "a learned link is kept");
}

/* Rate samples from chunks of few bytes time the chunks' per-message cost,
 * not the link: a probed 1 Gbit/s link (8 us, 8.4 ns/B); 8 MiB of zeros
 * coded 250 times, its later 16 chunks of ~1 KiB each arriving 27 us
 * apart, would say 38 MB/s. Refused, counted; chunks of 128 KiB (int_r50
 * at ratio 2) at the link's own pace are taken. Chunks of 1 KiB that took
 * 112 us each (a 12.5 MB/s link a 125 MB/s prior did not know) are refused
 * too: taking a sample for its time would keep a descheduled receiver's
 * and refuse the sound ones. */
static void test_linkest_small_chunks(void)
{
    compi_net_link probed = flat_link(8, 8.4);
    compi_linkest e;
    compi_linkest_init(&e, &probed, COMPI_LINKSRC_PROBE);
    for (int s = 0; s < 6; s++) compi_linkest_add_chunks(&e, 16 * 1048.0, 16 * 27.0, 16);
    CHECK(e.rejected_samples == 6 && e.changes == 0 && compi_linkest_beta_ns(&e) == 8.4,
          "small chunks refused: %llu refused, %g ns/B", (unsigned long long)e.rejected_samples,
          compi_linkest_beta_ns(&e));
    for (int s = 0; s < 3; s++) compi_linkest_add_chunks(&e, 16 * 131072.0, 16 * 131072.0 * 16e-3, 16);
    CHECK(e.changes == 1 && fabs(compi_linkest_beta_ns(&e) - 16) < 1e-9, "large chunks taken: %g ns/B",
          compi_linkest_beta_ns(&e));
    compi_net_link prior = flat_link(50, 8);
    compi_linkest p;
    compi_linkest_init(&p, &prior, COMPI_LINKSRC_PRIOR);
    for (int s = 0; s < 3; s++) compi_linkest_add_chunks(&p, 16 * 1400.0, 16 * 112.0, 16);
    CHECK(p.rejected_samples == 3 && p.changes == 0, "slow small chunks refused too: %llu",
          (unsigned long long)p.rejected_samples);
}

/* A probe on a loaded host took a 1 Gbit/s link (prior 8 ns/B) for a
 * 60 MB/s one (16.7 ns/B). Chunks of 6.7 KiB (blosc-lz4's 256 KiB chunks of
 * double_pattern at ratio 39), each arriving 210 us after the one before
 * (54 us on the wire and the chunk's per-message cost), say 32 MB/s: at
 * the probe's rate they would take 112 us each and pass the chunk-size
 * test, and the model they made slower would let them on. Judged at the
 * fastest rate the link had (the prior's: 54 us) they are refused; chunks
 * of 128 KiB at the link's pace are still taken, and a probe of a truly
 * slower link keeps what it measured. */
static void test_linkest_small_chunks_slow_probe(void)
{
    compi_net_link prior = flat_link(50, 8), probed = flat_link(5, 16.7);
    compi_linkest e;
    compi_linkest_init(&e, &prior, COMPI_LINKSRC_PRIOR);
    CHECK(compi_linkest_set_probe(&e, &probed) == 1, "probe taken");
    for (int s = 0; s < 12; s++) compi_linkest_add_chunks(&e, 2 * 6700.0, 2 * 210.0, 2);
    CHECK(e.rejected_samples == 12 && e.nrate == 0 && compi_linkest_beta_ns(&e) == 16.7,
          "small chunks refused after a slow probe: %llu refused, %g ns/B",
          (unsigned long long)e.rejected_samples, compi_linkest_beta_ns(&e));
    for (int s = 0; s < 3; s++) compi_linkest_add_chunks(&e, 2 * 131072.0, 2 * 131072.0 * 8.5e-3, 2);
    CHECK(e.source == COMPI_LINKSRC_LEARNED && fabs(compi_linkest_beta_ns(&e) - 8.5) < 1e-9,
          "large chunks taken: %g ns/B", compi_linkest_beta_ns(&e));
}

int main(void)
{
    test_theil_sen_reference();
    test_link_fit();
    test_link_fit_bucket();
    test_link_fit_latency();
    test_linkest_learns();
    test_linkest_rejects();
    test_linkest_probe();
    test_linkest_small_chunks();
    test_linkest_small_chunks_slow_probe();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("netlearn: all passed\n");
    return 0;
}
