/* SPDX-License-Identifier: BSD-3-Clause */
/* A model of the MPI's own MPI-IO (ROMIO's placement, the bytes it moves
 * across nodes, the codec work compi's plan adds), from which compi's
 * collective I/O gate decides whether compi's plan can beat it (see io.h).
 * MPI-free. */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

const char *compi_io_mpiio_name(int kind)
{
    static const char *const names[COMPI_IO_MPIIO_COUNT] = {"unknown", "romio", "ompio"};
    return kind >= 0 && kind < COMPI_IO_MPIIO_COUNT ? names[kind] : "?";
}

int compi_io_romio_interleaved(int nprocs, const int64_t *start, const int64_t *end)
{
    /* ROMIO (ad_write_coll.c / ad_read_coll.c): with inclusive end offsets,
     * for i >= 1: st[i] < end[i-1] && st[i] <= end[i]. An empty access has
     * end = start - 1 here (start == end in compi's exclusive convention). */
    for (int i = 1; i < nprocs; i++) {
        int64_t prev_end = end[i - 1] - 1, my_end = end[i] - 1;
        if (start[i] < prev_end && start[i] <= my_end) return 1;
    }
    return 0;
}

int64_t compi_io_row_internode(const compi_io_domains *d, const compi_io_segs *mine, int me, const int *agg,
                               const int *node_of)
{
    if (!d || !mine || !agg || d->n <= 0) return 0;
    int64_t out = 0;
    int k = 0;
    for (size_t s = 0; s < mine->n; s++) {
        int64_t a = mine->v[s].off, b = a + mine->v[s].len;
        while (a < b) {
            while (k > 0 && a < d->begin[k]) k--; /* segments increase: rarely moves back */
            while (k < d->n - 1 && a >= d->stop[k]) k++;
            int64_t e = b < d->stop[k] ? b : d->stop[k];
            if (e <= a) { /* a outside every domain (cannot happen for a range's own segments) */
                break;
            }
            int remote = node_of ? node_of[agg[k]] != node_of[me] : agg[k] != me;
            if (remote) out += e - a;
            a = e;
        }
    }
    return out;
}

int compi_io_gate(int mpiio, int64_t la_internode, int64_t mpi_internode, int compress)
{
    compi_io_gate_in in = {
        .mpiio = mpiio, .compress = compress, .nodes = 1, .la_internode = la_internode, .mpi_internode = mpi_internode};
    return compi_io_gate_model(&in);
}

int compi_io_gate_model(const compi_io_gate_in *in)
{
    /* Only ROMIO is known well enough to be modelled (and compi is 38-100x
     * faster than OMPIO on the regular file): any other MPI-IO keeps compi. */
    if (in->mpiio != COMPI_IO_MPIIO_ROMIO) return COMPI_IO_GATE_COMPI;
    /* la's placement moves at least COMPI_IO_GATE_MARGIN % fewer bytes
     * across nodes: compi can gain. Less did not pay for compi's own
     * exchange: 7-9 % fewer (the bips3d mesh on 2 nodes) ran at 0.90-1.05x
     * of ROMIO at 100 Mbit/s and 0.63-1.02x at 1 Gbit/s without compression
     * (README, Collective I/O at 1 Gbit/s) */
    if (in->la_internode * 100 < in->mpi_internode * (100 - COMPI_IO_GATE_MARGIN)) return COMPI_IO_GATE_COMPI;
    /* as many or more: only compression could make up for it, and only where
     * the MPI's own placement moves something across nodes at all */
    if (!in->compress || in->mpi_internode <= 0) return COMPI_IO_GATE_PASS;
    /* nothing measured yet (or no link model): this call measures it */
    if (!(in->ratio > 0) || !(in->beta_ns > 0)) return COMPI_IO_GATE_COMPI;
    /* compression's account: the wire time it saves against the codec time
     * on the busiest process (reads: 0.80x of ROMIO at 1 Gbit/s, 4 ranks per
     * node, where every aggregator compressed its node's replies alone) */
    double nodes = in->nodes > 0 ? in->nodes : 1;
    double ratio = in->ratio < 1 ? 1 : in->ratio;
    double t_mpi = (double)in->mpi_internode * in->beta_ns / nodes;
    double t_compi = (double)in->la_internode / ratio * in->beta_ns / nodes + (double)in->comp_max * in->c_ns +
                     (double)in->decomp_max * in->d_ns;
    return t_compi * 100 < t_mpi * (100 - COMPI_IO_GATE_MARGIN) ? COMPI_IO_GATE_COMPI : COMPI_IO_GATE_PASS;
}

void compi_io_codec_load(int nprocs, int ndomains, const double *bytes, const int *agg, const int *node_of,
                         int is_write, int64_t *comp_max, int64_t *decomp_max)
{
    *comp_max = *decomp_max = 0;
    if (nprocs <= 0 || ndomains <= 0 || !bytes || !agg) return;
    double *as_agg = calloc((size_t)nprocs, sizeof(double));
    if (!as_agg) return;
    for (int p = 0; p < nprocs; p++) {
        double mine = 0; /* p's inter-node pieces */
        for (int k = 0; k < ndomains; k++) {
            int a = agg[k];
            if (a < 0 || a >= nprocs) continue;
            int remote = node_of ? node_of[a] != node_of[p] : a != p;
            if (!remote) continue;
            double b = bytes[(size_t)p * ndomains + k];
            mine += b;
            as_agg[a] += b;
        }
        int64_t m = (int64_t)mine;
        if (is_write ? m > *comp_max : m > *decomp_max) *(is_write ? comp_max : decomp_max) = m;
    }
    for (int a = 0; a < nprocs; a++) {
        int64_t m = (int64_t)as_agg[a];
        if (is_write ? m > *decomp_max : m > *comp_max) *(is_write ? decomp_max : comp_max) = m;
    }
    free(as_agg);
}

int64_t compi_io_romio_row_internode(const compi_io_romio_model *m, int nprocs, const int *node_of, int64_t gs,
                                     int64_t ge, const int64_t *starts, const int64_t *ends, const compi_io_segs *mine,
                                     int me)
{
    if (!m || nprocs <= 0 || !mine || ge <= gs) return 0;
    if (m->cb < 0 || (m->cb > 0 && !compi_io_romio_interleaved(nprocs, starts, ends))) return 0;
    int *ragg = malloc(sizeof(int) * (size_t)nprocs);
    if (!ragg) return -1;
    int nr;
    if (m->nragg > 0) {
        nr = m->nragg < nprocs ? m->nragg : nprocs;
        memcpy(ragg, m->ragg, sizeof(int) * (size_t)nr);
    } else {
        nr = compi_io_place_default(nprocs, node_of, m->cb_nodes, ragg);
    }
    compi_io_domains rd;
    int64_t out = 0;
    if (nr > 0 && compi_io_domains_make(gs, ge, nr, m->stripe, &rd) == COMPI_OK) {
        out = compi_io_row_internode(&rd, mine, me, ragg, node_of);
        compi_io_domains_free(&rd);
    }
    free(ragg);
    return out;
}

void compi_io_codec_rates(const double *rec, double *c_ns, double *d_ns, double *ratio)
{
    *c_ns = *d_ns = *ratio = 0;
    if (rec[2] > 0 && rec[3] > 0) {
        *c_ns = rec[0] / rec[2];
        *d_ns = rec[1] / rec[2];
        *ratio = rec[2] / rec[3];
    } else if (rec[4] > 0) {
        *ratio = 1; /* frames were decided on and none compressed */
    }
}
