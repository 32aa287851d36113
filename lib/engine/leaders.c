/* SPDX-License-Identifier: BSD-3-Clause */
/* The leaders' way of ending a node-aware reduction (leaders.h). */
#include "engine/leaders.h"

#include <string.h>

static const char *const compi_leaders_names[] = {"auto", "split", "whole"};

int compi_parse_leaders_policy(const char *s, int *out)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, compi_leaders_names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

void compi_leaders_params_default(compi_leaders_params *p)
{
    p->hold_min = 8;
    p->hold_max = 256; /* a split call every <= 257 calls measures again */
    p->margin = 0.05;
    /* decoding (zstd ~1 GB/s, lz4 ~3 GB/s) dominates combining (MPI_Reduce_local
     * of doubles ran at 0.02-0.1 ns/B here): 0.5 ns/B for either, so a leader's
     * extra work is not underestimated on a fast network */
    p->local_ns_per_byte = 0.5;
    p->whole_mem_max = 256.0 * 1024 * 1024;
}

static double compi_leaders_net_us(const compi_net_link *link, double bytes)
{
    if (bytes <= 0) return 0;
    if (link) return compi_net_time_us(link, bytes);
    return 50.0 + bytes * 8.0 / 100.0; /* 100 Mbit/s: 0.08 us per byte */
}

void compi_leaders_times(const compi_leaders_sizes *s, const compi_leaders_params *pr, const compi_net_link *link,
                         double *split_us, double *whole_us)
{
    const double p = s->p > 1 ? s->p : 2, q = (p - 1) / p;
    const double whole = s->split / (p - 1) * p; /* one leader's whole partial, framed */
    const double us = pr->local_ns_per_byte * 1e-3;
    /* split: the reduce-scatter frames, then the reduced chunk to p-1 leaders
     * (or the p-1 chunks into the root); combine 1/p of p-1 partials, decode
     * them and the p-1 reduced chunks */
    *split_us = compi_leaders_net_us(link, s->split) + compi_leaders_net_us(link, s->chunk * (p - 1)) +
                us * s->raw * (q + 2 * q);
    /* whole: p-1 whole partials out of each leader (into the root); combine
     * and decode p-1 whole partials */
    *whole_us = compi_leaders_net_us(link, whole * (p - 1)) + us * s->raw * 2 * (p - 1);
}

void compi_leaders_plan_init(compi_leaders_plan *s)
{
    memset(s, 0, sizeof *s);
    s->way = COMPI_LEADERS_SPLIT;
}

compi_leaders_way compi_leaders_begin(compi_leaders_plan *s, int policy, int *measure)
{
    *measure = 0;
    compi_leaders_way w;
    if (policy == COMPI_LEADERS_FORCE_SPLIT) {
        w = COMPI_LEADERS_SPLIT;
    } else if (policy == COMPI_LEADERS_FORCE_WHOLE) {
        w = COMPI_LEADERS_WHOLE;
    } else if (!s->decided || s->done >= s->hold) {
        w = COMPI_LEADERS_SPLIT;
        *measure = 1;
    } else {
        w = (compi_leaders_way)s->way;
        s->done++;
    }
    s->calls[w]++;
    return w;
}

void compi_leaders_decide(compi_leaders_plan *s, const compi_leaders_params *pr, const compi_leaders_sizes *z,
                          const compi_net_link *link)
{
    double split_us, whole_us;
    compi_leaders_times(z, pr, link, &split_us, &whole_us);
    const int p = z->p > 1 ? z->p : 2;
    compi_leaders_way w = whole_us < split_us * (1.0 - pr->margin) && z->raw * (p - 1) <= pr->whole_mem_max
                              ? COMPI_LEADERS_WHOLE
                              : COMPI_LEADERS_SPLIT;
    if (s->decided && w == s->way) {
        unsigned h = s->hold * 2;
        s->hold = h > pr->hold_max ? pr->hold_max : h;
    } else {
        if (s->decided) s->switches++;
        s->hold = pr->hold_min;
    }
    s->way = (uint8_t)w;
    s->decided = 1;
    s->done = 0;
    s->decisions++;
}

int compi_leaders_group(int n, const int *node_id, int *node_of, int *leader_of, int *first, int *members)
{
    int nnodes = 0;
    for (int r = 0; r < n; r++) {
        int k = 0;
        while (k < nnodes && node_id[leader_of[k]] != node_id[r]) k++;
        if (k == nnodes) leader_of[nnodes++] = r;
        node_of[r] = k;
    }
    for (int k = 0; k <= n; k++) first[k] = 0;
    for (int r = 0; r < n; r++) first[node_of[r] + 1]++;
    for (int k = 0; k < nnodes; k++) first[k + 1] += first[k];
    /* counting sort, stable: members in increasing rank order */
    for (int r = 0; r < n; r++) members[first[node_of[r]]++] = r;
    for (int k = nnodes; k > 0; k--) first[k] = first[k - 1];
    first[0] = 0;
    return nnodes;
}
