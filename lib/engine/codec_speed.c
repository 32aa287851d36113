/* SPDX-License-Identifier: BSD-3-Clause */
/* The codec model's compression speeds ("speed" lines, by class and by
 * ratio bucket): what an evaluation expects a candidate it has not measured
 * yet to cost. See model.h. */
#include <math.h>
#include "engine/model.h"

/* The speed lines of codec c for class k (-1: the any-class ones): the
 * any-ratio one in *any (NULL if none) and up to max ratio buckets in b,
 * by increasing ratio; returns how many buckets. */
#define COMPI_MODEL_MAX_BUCKETS 16
static int compi_codec_speed_lines(const compi_codec_model *m, const compi_codec *c, int k,
                                   const compi_codec_speed **any, const compi_codec_speed *b[COMPI_MODEL_MAX_BUCKETS])
{
    int n = 0;
    *any = NULL;
    for (int i = 0; i < m->nspeeds; i++) {
        const compi_codec_speed *x = &m->speeds[i];
        if (x->codec != c || x->dtclass != k) continue;
        if (x->ratio_hi <= 0) {
            if (!*any) *any = x;
            continue;
        }
        if (n == COMPI_MODEL_MAX_BUCKETS) continue;
        int j = n++;
        for (; j > 0 && b[j - 1]->ratio_lo > x->ratio_lo; j--) b[j] = b[j - 1];
        b[j] = x;
    }
    return n;
}

/* A bucket's centre on a log scale: the geometric mean of its bounds, the
 * lower taken as at least 1 and the upper (open-ended: 1e9) as at most
 * four times the lower ([10, 1e9): 20). */
static double compi_speed_centre(const compi_codec_speed *x)
{
    double lo = x->ratio_lo < 1 ? 1 : x->ratio_lo, hi = x->ratio_hi;
    if (hi > 4 * lo) hi = 4 * lo;
    return sqrt(lo * hi);
}

/* The class's lines, else the any-class ones: *nb buckets, *any. */
static int compi_codec_speed_pick(const compi_codec_model *m, const compi_codec *c, int cls,
                                  const compi_codec_speed **any, const compi_codec_speed *b[COMPI_MODEL_MAX_BUCKETS])
{
    const compi_codec_speed *any_cls;
    int n = compi_codec_speed_lines(m, c, cls, &any_cls, b);
    if (any_cls || n) {
        *any = any_cls;
        return n;
    }
    return compi_codec_speed_lines(m, c, -1, any, b);
}

double compi_codec_model_cost_us_per_byte(const compi_codec_model *m, const compi_codec *c, int cls)
{
    const compi_codec_speed *any, *b[COMPI_MODEL_MAX_BUCKETS];
    int n = compi_codec_speed_pick(m, c, cls, &any, b);
    if (any) return 1.0 / any->compress_mbs; /* 1 MB/s: 1 byte a microsecond */
    double slowest = 0;
    for (int i = 0; i < n; i++)
        if (1.0 / b[i]->compress_mbs > slowest) slowest = 1.0 / b[i]->compress_mbs;
    return slowest;
}

double compi_codec_model_cost_at(const compi_codec_model *m, const compi_codec *c, int cls, double ratio)
{
    const compi_codec_speed *any, *b[COMPI_MODEL_MAX_BUCKETS];
    int n = compi_codec_speed_pick(m, c, cls, &any, b);
    if (n == 0 || !(ratio > 0)) return compi_codec_model_cost_us_per_byte(m, c, cls);
    double lr = log(ratio);
    if (lr <= log(compi_speed_centre(b[0]))) return 1.0 / b[0]->compress_mbs;
    for (int i = 1; i < n; i++) {
        double l0 = log(compi_speed_centre(b[i - 1])), l1 = log(compi_speed_centre(b[i]));
        if (lr > l1) continue;
        double f = l1 > l0 ? (lr - l0) / (l1 - l0) : 1;
        double c0 = log(1.0 / b[i - 1]->compress_mbs), c1 = log(1.0 / b[i]->compress_mbs);
        return exp(c0 + f * (c1 - c0));
    }
    return 1.0 / b[n - 1]->compress_mbs;
}

double compi_codec_model_cost_min(const compi_codec_model *m, const compi_codec *c, int cls)
{
    const compi_codec_speed *any, *b[COMPI_MODEL_MAX_BUCKETS];
    int n = compi_codec_speed_pick(m, c, cls, &any, b);
    double least = compi_codec_model_cost_us_per_byte(m, c, cls);
    for (int i = 0; i < n; i++)
        if (1.0 / b[i]->compress_mbs < least) least = 1.0 / b[i]->compress_mbs;
    return least;
}
