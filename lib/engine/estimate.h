/* Speedup prediction: one formula shared by the runtime adaptive strategy
 * and the offline guide tool.
 *
 *   speedup = T_net(S) / (T_net(S/r) + T_c + T_d),  T_d = T_c * d_over_c
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
    const compi_net_link *link;      /* network model of the destination link */
    double net_scale;                /* online correction of the link's times (1 = as modelled) */
    const compi_codec_model *codecs;
    int dtclass;
    size_t elem_size;
    int level;
} compi_estimate_ctx;

typedef struct {
    const compi_codec *codec;        /* NULL: raw is best */
    double ratio;                    /* predicted compression ratio */
    double compress_us;              /* predicted T_c for the whole message */
    double speedup;                  /* predicted; 1 for raw */
} compi_estimate;

double compi_estimate_net_us(const compi_estimate_ctx *x, double bytes);
/* The formula above for a message of size bytes. */
double compi_estimate_speedup(const compi_estimate_ctx *x, const compi_codec *c, size_t size, double ratio,
                              double compress_us);
/* Compresses a sample of src (at most sample_max bytes, in up to 4 strided
 * slices aligned to elem_size) with every candidate codec of the class and
 * fills best (codec NULL when none reaches min_speedup). scratch must hold
 * compi_estimate_scratch_size(sample_max) bytes. Returns the number of
 * candidates tried. */
int compi_estimate_best(const compi_estimate_ctx *x, const void *src, size_t size, size_t sample_max,
                        double min_speedup, void *scratch, compi_estimate *best);
size_t compi_estimate_scratch_size(size_t sample_max);
/* Measures one codec on the sample: ratio and predicted whole-message T_c. */
int compi_estimate_codec(const compi_estimate_ctx *x, const compi_codec *c, const void *src, size_t size,
                         size_t sample_max, void *scratch, double *ratio, double *compress_us);

#endif
