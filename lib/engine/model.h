/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive engine's two measured models and their heuristics files.
 *
 * Network model: per link (a node pair, or a class default "*"), the Hockney
 * model with a per-size table, as [Filgueira 2010]'s Table 4.1:
 *     t(S) = alpha + S * beta(S)
 * alpha is the one-way latency, beta(S) the time per byte measured at size S
 * (interpolated between measured sizes on a log scale, the last one kept
 * beyond the table).
 *
 * Codec model: the candidate codecs per datatype class, and the relation
 * T_decompress / T_compress per codec by ratio bucket ([Filgueira 2010] Table 4.3),
 * which lets a sender predict the receiver's decompression time from its own
 * compression time.
 *
 * Both live in text files written by `compi calibrate` (format in
 * docs/heuristics.md). MPI-free: the tools and the unit tests use this too. */
#ifndef COMPI_ENGINE_MODEL_H
#define COMPI_ENGINE_MODEL_H

#include <stddef.h>
#include "compi.h"

/* ------------------------------------------------------------- network */
#define COMPI_NET_MAX_POINTS 40
#define COMPI_NET_NAME_MAX 64

typedef enum { COMPI_LINK_INTRA = 0, COMPI_LINK_INTER = 1 } compi_link_class;

typedef struct {
    compi_link_class cls;
    char node_a[COMPI_NET_NAME_MAX]; /* host names, or "*" for the class default */
    char node_b[COMPI_NET_NAME_MAX];
    double alpha_us; /* one-way latency */
    int npoints;
    double bytes[COMPI_NET_MAX_POINTS];   /* increasing message sizes */
    double beta_ns[COMPI_NET_MAX_POINTS]; /* ns per byte at that size, >= 0 */
} compi_net_link;

/* What a node is made of (hwloc, recorded by `compi calibrate network`):
 * file lines "node NAME packages P cores C pus U". */
typedef struct {
    char name[COMPI_NET_NAME_MAX];
    int packages, cores, pus; /* >= 1 each */
} compi_net_node;

typedef struct {
    int nlinks;
    compi_net_link *links;
    char source[256]; /* provenance line of the file */
    int nnodes;
    compi_net_node *nodes; /* may be empty (files without node lines) */
    int nrejected;         /* measured links left out: their fit was degenerate */
    char rejected[200];    /* the first of them and why */
} compi_net_model;
/* The node named name, or NULL. */
const compi_net_node *compi_net_node_find(const compi_net_model *m, const char *name);
/* Adds or replaces node n's description; COMPI_ERR_NOMEM on failure. */
int compi_net_node_set(compi_net_model *m, const compi_net_node *n);

/* One-way time in microseconds to move `bytes` over link l. */
double compi_net_time_us(const compi_net_link *l, double bytes);
/* Collectives whose compressed path costs `extra` small collectives of
 * metadata (frame lengths) more than the MPI's own: the smallest size, a
 * power-of-two multiple of floor (>= 1), at which those cost at most 5% of
 * moving the size over l (extra x alpha <= 5% of T(size)). Every rank has
 * the same static model, so every rank finds the same floor. */
size_t compi_net_coll_floor(const compi_net_link *l, size_t floor, int extra);
/* The link between hosts a and b of class cls: the exact pair (either order)
 * or else the class default ("*" "*"); NULL if neither exists. */
const compi_net_link *compi_net_find(const compi_net_model *m, compi_link_class cls, const char *a, const char *b);
/* Appends a copy of l (returns COMPI_ERR_NOMEM on failure). */
int compi_net_add(compi_net_model *m, const compi_net_link *l);
/* Robust line fit (Theil-Sen): slope = median of the pairwise slopes over
 * pairs with distinct x, intercept = median of y - slope * x (scipy's
 * theilslopes with method='joint'). Up to 29% of the points may be wild
 * without moving it. COMPI_ERR_CONFIG with fewer than two distinct x. */
int compi_net_theil_sen(int n, const double *x, const double *y, double *slope, double *intercept);
/* The steady-state fit of one-way times t_us[i] for bytes[i] (any order).
 * A traffic shaper's token bucket, or a switch's or NIC's buffer, passes
 * the first `burst` bytes of a message at once after an idle spell:
 * t(S) = alpha + beta * max(0, S - burst). A line through all sizes is then
 * too flat and cuts the axis under alpha, while beta is what messages that
 * follow one another (which find the bucket empty) cost. So each size
 * that leaves at least 3 samples beyond it is tried as the burst, with the
 * Theil-Sen fit of the times on the bytes beyond it (pairs across the knee
 * give beta too, so every sample counts), and the burst whose fit leaves
 * 70% of the samples within the smallest relative residual is taken where
 * that residual is under half the plain line's (none: *burst 0, the plain
 * Theil-Sen line).
 * alpha_us >= 0, beta_ns per byte. COMPI_ERR_CONFIG with fewer than two
 * distinct sizes. */
int compi_net_fit_steady(int n, const double *bytes, const double *t_us, double *alpha_us, double *beta_ns,
                         double *burst);
/* Slower than this per byte (1 TB/s) is no measurement of a link. */
#define COMPI_NET_FLAT_NS 0.001
/* A one-way latency beyond a second is a descheduled process, not a link. */
#define COMPI_NET_MAX_ALPHA_US 1e6
/* Why a fitted alpha/beta (ns per byte) is no model of the samples (flat
 * or negative slope, absurd latency, most samples > 2x off the line):
 * writes why and returns it; NULL when the fit is sound. */
const char *compi_net_fit_degenerate(int n, const double *bytes, const double *t_us, double alpha_us, double beta_ns,
                                     char *why, size_t whylen);
/* Fills l's table from measured one-way times t_us[i] for bytes[i]
 * (increasing): alpha and the steady-state slope (compi_net_fit_steady),
 * then per size what is left after alpha (never under the slope; the
 * slope where that is noise or an outlier). A fit degenerate (judged on
 * the bytes beyond its burst) leaves l as it was: COMPI_ERR_CONFIG and why. */
int compi_net_link_fit(compi_net_link *l, int n, const double *bytes, const double *t_us, char *why, size_t whylen);
/* The same with the latency measured apart (latency_us >= 0: the one-way
 * time of an empty message), which replaces the fit's intercept; < 0: the
 * intercept, as compi_net_link_fit. */
int compi_net_link_fit_latency(compi_net_link *l, int n, const double *bytes, const double *t_us, double latency_us,
                               char *why, size_t whylen);
/* The built-in model used when no file is given: 1 Gbit/s Ethernet-like
 * inter-node default (50 us, 8 ns/B) and a shared-memory intra default. */
void compi_net_default(compi_net_model *m);
void compi_net_free(compi_net_model *m);

/* ------------------------------------------------------------- codecs */
#define COMPI_MODEL_MAX_CANDIDATES 8
#define COMPI_MODEL_MAX_RELATIONS 256
#define COMPI_MODEL_MAX_SPEEDS 256

/* A codec's compression speed on a class ("speed" lines), MB/s of
 * uncompressed input (10^6 bytes a second): what an evaluation expects a
 * candidate it has not measured yet to cost (engine/estimate.h). A line
 * holds for data of any ratio (ratio_lo = ratio_hi = 0: the class's
 * aggregate) or for data the codec compresses ratio_lo to ratio_hi times
 * (a bucket [lo, hi)): data a codec compresses ten times or more it codes
 * many times faster than its aggregate (lz4 on 8 KiB stencil halo faces:
 * about 20 GB/s against 1.3 GB/s over every double set). */
typedef struct {
    const compi_codec *codec;
    int dtclass; /* a compi_dtclass, or -1 for any class */
    double compress_mbs;
    double ratio_lo, ratio_hi; /* both 0: any ratio */
} compi_codec_speed;

typedef struct {
    const compi_codec *codec;
    int dtclass;               /* a compi_dtclass, or -1 for any class */
    double ratio_lo, ratio_hi; /* bucket [lo, hi) of the compression ratio */
    double d_over_c;           /* T_decompress / T_compress */
} compi_codec_relation;

typedef struct {
    const compi_codec *candidates[COMPI_CLASS_COUNT][COMPI_MODEL_MAX_CANDIDATES];
    int ncandidates[COMPI_CLASS_COUNT];
    int nrelations;
    compi_codec_relation relations[COMPI_MODEL_MAX_RELATIONS];
    int nspeeds;
    compi_codec_speed speeds[COMPI_MODEL_MAX_SPEEDS];
    char source[256];
} compi_codec_model;

/* T_decompress / T_compress predicted for codec c on class cls at ratio r:
 * the exact class's bucket, else the any-class bucket, else 1. */
double compi_codec_model_d_over_c(const compi_codec_model *m, const compi_codec *c, int cls, double r);
/* The compression cost the model predicts for codec c on class cls, in
 * microseconds per input byte, for data of unknown ratio: the class's
 * any-ratio speed line, else the codec's any-class one, else the slowest of
 * its ratio buckets; 0 when the model has none (files without speed lines). */
double compi_codec_model_cost_us_per_byte(const compi_codec_model *m, const compi_codec *c, int cls);
/* The same for data the codec compresses `ratio` times: with ratio bucket
 * lines (the class's, else the codec's any-class ones), interpolated
 * between the buckets' centres on a log scale of ratio and of cost, the
 * nearest bucket's beyond them; without, or with ratio <= 0, the cost
 * above. */
double compi_codec_model_cost_at(const compi_codec_model *m, const compi_codec *c, int cls, double ratio);
/* The least cost any ratio gives (the fastest bucket, or the cost above
 * when faster): what a codec could cost at best, before the data's ratio
 * is known. */
double compi_codec_model_cost_min(const compi_codec_model *m, const compi_codec *c, int cls);
/* Built-in model (measured on the development machine, see docs/heuristics.md). */
void compi_codec_model_default(compi_codec_model *m);
/* How many times faster than one thread a message's chunks are coded when
 * `helpers` helper threads share the work (lib/pool): the speedup the
 * pool measured on this node, at least 1 and at most helpers + 1; before
 * any measurement (measured 0) the prior helpers + 1, a core each. */
double compi_codec_model_threads_speedup(int helpers, double measured);

/* ------------------------------------------------------------- files */
/* Parsers are strict: any unknown keyword, missing field, non-number,
 * out-of-range or non-increasing value fails with err = "<path>:<line>: why". */
int compi_net_load(const char *path, compi_net_model *m, char *err, size_t errlen);
int compi_net_save(const char *path, const compi_net_model *m, const char *comment, char *err, size_t errlen);
int compi_codec_model_load(const char *path, compi_codec_model *m, char *err, size_t errlen);
/* comment: free text written as '#' lines at the top (measurements, how). */
int compi_codec_model_save(const char *path, const compi_codec_model *m, const char *comment, char *err, size_t errlen);

/* A heuristics directory (COMPI_HEURISTICS): dir/network.txt into *net
 * (*have_net = 1) and dir/codecs.txt into *codecs (*have_codecs = 1), each
 * if it is there. The directory must exist and each present file must be
 * a regular file that parses: a mistyped path never falls back to the
 * built-in models unnoticed (callers say so when neither file is there). */
int compi_models_load_dir(const char *dir, compi_net_model *net, int *have_net, compi_codec_model *codecs,
                          int *have_codecs, char *err, size_t errlen);

const char *compi_dtclass_name(int cls); /* "byte", "int", "float", "double"; "*" for -1 */
int compi_dtclass_parse(const char *s);  /* inverse; -2 if unknown */

#endif
