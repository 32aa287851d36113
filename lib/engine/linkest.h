/* SPDX-License-Identifier: BSD-3-Clause */
/* A network link learned from the traffic compi already carries.
 *
 * Per link (this node and one peer node), two kinds of samples:
 *   rate samples  bytes that arrived back to back in the given time, with
 *                 no latency in it: the later half of a pipelined message's
 *                 chunks, timed from the arrival of the chunk before them
 *                 by a receiver that was already waiting for them. The
 *                 first half is left out: a token bucket (a shaper) or a
 *                 buffer (a switch's, a NIC's) that filled while the link
 *                 was idle passes the first bytes of a message at once.
 *   time samples  bytes and the one-way time of a whole transfer (latency
 *                 included).
 * The estimate is robust, not an average: the bandwidth is the median of
 * the rate samples (a descheduled receiver, a burst of contention, a late
 * sender each spoil a sample, and a median ignores a minority of spoiled
 * samples), or the steady-state slope of the time samples when there are
 * no rate samples (engine/model.h: compi_net_fit_steady, a Theil-Sen fit
 * that a token bucket's or a buffer's burst does not flatten); the latency
 * is that fit's intercept (the prior's latency until the time samples span
 * sizes 4x apart). A fit that is degenerate (engine/model.h:
 * compi_net_fit_degenerate) is not used: the model stays as it was and the
 * rejection is counted.
 *
 * The built-in model is the prior; a model from a heuristics file
 * (source COMPI_LINKSRC_FILE) is never replaced, the samples are only
 * counted and fitted for the report. MPI-free; the caller locks. */
#ifndef COMPI_ENGINE_LINKEST_H
#define COMPI_ENGINE_LINKEST_H

#include <stdint.h>
#include "engine/model.h"

#define COMPI_LINKEST_RING 32
/* samples of either kind before the first estimate replaces the prior */
#define COMPI_LINKEST_MIN_SAMPLES 3
/* the model changes when latency or bandwidth moved by more than this factor */
#define COMPI_LINKEST_CHANGE 1.25

typedef enum {
    COMPI_LINKSRC_PRIOR = 0, /* the built-in model */
    COMPI_LINKSRC_LEARNED,   /* from the application's traffic */
    COMPI_LINKSRC_PROBE,     /* from a measurement (COMPI_CALIBRATE=init) */
    COMPI_LINKSRC_FILE,      /* from a heuristics file: never replaced */
} compi_linksrc;
const char *compi_linksrc_name(compi_linksrc s); /* "prior", "learned", "probe", "file" */

typedef struct {
    compi_net_link model; /* what decisions use */
    compi_linksrc source;
    double rate_ns[COMPI_LINKEST_RING]; /* ns per byte of each rate sample */
    double t_bytes[COMPI_LINKEST_RING], t_us[COMPI_LINKEST_RING];
    unsigned nrate, rate_next, ntime, time_next;
    uint64_t samples, rejected_samples; /* taken; refused (impossible: <= 0, or chunks too small) */
    uint64_t fits_rejected;             /* degenerate fits not used */
    uint64_t changes;                   /* times the model changed */
    double fastest_beta_ns;             /* the least ns per byte the model has had (0: none yet) */
    char last_rejection[160];
} compi_linkest;

/* Starts from model (copied) of the given source. */
void compi_linkest_init(compi_linkest *e, const compi_net_link *model, compi_linksrc source);
/* A rate sample: `bytes` arrived back to back in `us`. 1 if the model changed. */
int compi_linkest_add_rate(compi_linkest *e, double bytes, double us);
/* A rate sample from a pipelined message: `bytes` on the wire in `us`
 * over `chunks` chunks, each its own message. Each chunk pays a per-message
 * cost beside its bytes (the MPI's, the sender's and the receiver's turns
 * through compi; some 20 us on a loaded host), which a chunk of few bytes
 * does not hide: 8 MiB of zeros coded 250 times arrive in 256 KiB chunks
 * of about 1 KiB each, one every ~27 us over a 1 Gbit/s link that moves
 * 1 KiB in 8 us, and taken as rates they made the link 27-38 MB/s instead
 * of 119, so that compression looked like a gain where the link carried
 * the data faster raw. A sample is taken only where that cost is at most a
 * quarter of a chunk's time: where a chunk's bytes take, at the model's
 * rate, COMPI_LINKEST_CHUNK_COSTS times COMPI_LINKEST_MSG_COST_US or more;
 * else it is counted as rejected. (Not by the time the chunks took: that
 * would keep the samples a descheduled receiver made slow and refuse the
 * sound ones.) The rate is the fastest the link's model has had (the
 * prior's, a probe's, a learned one's: fastest_beta_ns), not the current
 * one: a model made slow (a probe on a loaded host: 60 MB/s on a 1 Gbit/s
 * link) let smaller chunks pass, whose per-chunk cost made the model slower
 * still, which let still smaller ones pass (measured: a link learned at
 * 32 MB/s from 6.7 KiB chunks of blosc-lz4 on a link that moved 113 MB/s).
 * 1 if the model changed. */
#define COMPI_LINKEST_CHUNK_COSTS 4.0
#define COMPI_LINKEST_MSG_COST_US 20.0
int compi_linkest_add_chunks(compi_linkest *e, double bytes, double us, double chunks);
/* A time sample: `bytes` took `us` one way, latency included. 1 if the model changed. */
int compi_linkest_add_time(compi_linkest *e, double bytes, double us);
/* A probe's model for the link (source probe) where it has only the
 * prior; 1 if the model changed. */
int compi_linkest_set_probe(compi_linkest *e, const compi_net_link *probed);
/* Current latency and time per byte of the model (its largest size's). */
double compi_linkest_alpha_us(const compi_linkest *e);
double compi_linkest_beta_ns(const compi_linkest *e);

/* Tests' injected link (COMPI_DEBUG_LINK_TIMES): the time `bytes` take on a
 * link of alpha_us and beta_ns per byte (rate: without the latency) behind
 * a token bucket that passes a message's first burst bytes at once, when
 * `head` bytes of the same message went before them (untimed), the seq-th
 * sample 50x slower when every > 0 and seq % every == every - 1. */
double compi_linkest_injected_us(double alpha_us, double beta_ns, int every, uint64_t seq, double bytes,
                                 int with_latency, double burst, double head);

#endif
