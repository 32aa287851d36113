/* SPDX-License-Identifier: BSD-3-Clause */
/* What the engine's unit tests share: a failure counter with CHECK, and a
 * network link of one latency and one time per byte. */
#ifndef COMPI_ENGINE_TEST_H
#define COMPI_ENGINE_TEST_H
#include <stdio.h>
#include <string.h>
#include "engine/model.h"

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static inline compi_net_link flat_link(double alpha_us, double ns_per_byte)
{
    compi_net_link l;
    memset(&l, 0, sizeof l);
    l.cls = COMPI_LINK_INTER;
    strcpy(l.node_a, "*");
    strcpy(l.node_b, "*");
    l.alpha_us = alpha_us;
    l.npoints = 1;
    l.bytes[0] = 1;
    l.beta_ns[0] = ns_per_byte;
    return l;
}

#endif
