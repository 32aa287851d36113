/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_psrg: parallel image segmentation by region growing (PSRG-like).
 *
 * For each of --iters images, rank 0 synthesises a grey-scale picture (ints
 * 0..255): a mosaic of regions (jittered-grid Voronoi cells) each with its own
 * grey level and gentle gradient, a few bright and dark discs, vignetting,
 * sensor noise of a few grey levels and sparse impulse ("salt and pepper")
 * pixels. It scatters horizontal strips to the ranks (MPI_Scatterv; strips
 * differ in height when ranks do not divide the rows), every rank grows
 * regions over its strip, the label strips come back (MPI_Gatherv, ints) and
 * rank 0 merges regions across the strip boundaries with union-find.
 *
 * Region growing: scanning in raster order, each unlabelled pixel seeds a
 * region that grows (breadth first, 4-neighbours) into pixels whose grey level
 * differs from the neighbour it is reached from by at most --threshold. The
 * label is the seed's global pixel index, i.e. the region's first pixel, so
 * labels are globally unique without coordination and merging keeps the
 * smaller label. With this (local) homogeneity criterion, merging the strips
 * gives exactly the segmentation of the whole image, which the check uses.
 *
 * Verification on rank 0, outside the timed phase: every gathered strip equals
 * rank 0's own segmentation of that strip, and the merged labels equal a
 * serial segmentation of the whole image.
 *
 * Timed phase: scatter, segmentation, gather and merge of each image (not the
 * image synthesis). bytes_sent: image strips rank 0 scatters to the others
 * plus label strips the others send back. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

typedef struct {
    app_common_opts c;
    int w, h;
    int threshold;
    uint64_t seed;
} options;

static int g_rank, g_nranks;

static const char *const usage =
    "usage: compi_psrg [--scale F] [--iters N] [--threshold T] [--seed S] [--quiet]\n"
    "  default: 3 images of 2048 x 2048 pixels (F scales the pixel count), T = 6 grey levels\n";

static int psrg_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!v) return 0;
    if (!strcmp(a, "--threshold")) return (o->threshold = atoi(v)) < 0 || o->threshold > 255 ? -1 : 2;
    if (!strcmp(a, "--seed")) return o->seed = strtoull(v, NULL, 0), 2;
    return 0;
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.c = {.scale = 1.0, .iters = 3}, .w = 2048, .h = 2048, .threshold = 6, .seed = 42};
    app_parse_args(argc, argv, &o->c, "compi_psrg", usage, psrg_option, o);
    double f = sqrt(o->c.scale);
    o->w = (int)(o->w * f + 0.5);
    o->h = (int)(o->h * f + 0.5);
    if (o->h < g_nranks || o->w < 2 || (double)o->w * o->h > 1e9) {
        char why[128];
        snprintf(why, sizeof why, "compi_psrg: %d x %d pixels does not suit %d ranks\n", o->w, o->h, g_nranks);
        app_usage_exit(usage, 2, why);
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "compi_psrg: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* ------------------------------------------------------------- image --- */

/* Region mosaic: one jittered seed per CELL x CELL block, each pixel belongs to
 * the nearest seed among the 3x3 blocks around it (Worley/Voronoi). */
#define CELL 160

static void synth_image(int *img, int w, int h, uint64_t seed)
{
    const int gx = (w + CELL - 1) / CELL, gy = (h + CELL - 1) / CELL;
    const size_t ns = (size_t)gx * gy;
    double *sx = xmalloc(sizeof(double) * ns), *sy = xmalloc(sizeof(double) * ns);
    double *lvl = xmalloc(sizeof(double) * ns), *dgx = xmalloc(sizeof(double) * ns),
           *dgy = xmalloc(sizeof(double) * ns);
    app_rng r = app_rng_seed(seed);
    for (size_t c = 0; c < ns; c++) {
        sx[c] = ((double)(c % gx) + 0.15 + 0.7 * app_rng_unif(&r)) * CELL;
        sy[c] = ((double)(c / gx) + 0.15 + 0.7 * app_rng_unif(&r)) * CELL;
        lvl[c] = 30 + 8 * (int)(24 * app_rng_unif(&r)); /* grey levels 8 apart: most neighbours differ */
        dgx[c] = (app_rng_unif(&r) - 0.5) * 0.05;       /* gentle shading, well under the threshold */
        dgy[c] = (app_rng_unif(&r) - 0.5) * 0.05;
    }
    /* Discs: objects on the background, bright or dark. */
    enum { NDISC = 24 };
    double dx[NDISC], dy[NDISC], dr[NDISC], dl[NDISC];
    for (int d = 0; d < NDISC; d++) {
        dx[d] = w * app_rng_unif(&r), dy[d] = h * app_rng_unif(&r);
        dr[d] = (0.01 + 0.04 * app_rng_unif(&r)) * (w < h ? w : h);
        dl[d] = app_rng_unif(&r) < 0.5 ? 235 + 15 * app_rng_unif(&r) : 5 + 10 * app_rng_unif(&r);
    }
    const double cxm = 0.5 * w, cym = 0.5 * h, rr = 0.5 * (double)w * w + 0.5 * (double)h * h;
    for (int y = 0; y < h; y++) {
        int by = y / CELL;
        for (int x = 0; x < w; x++) {
            int bx = x / CELL;
            double best = 1e300, v = 0;
            for (int yy = by - 1; yy <= by + 1; yy++)
                for (int xx = bx - 1; xx <= bx + 1; xx++) {
                    if (xx < 0 || yy < 0 || xx >= gx || yy >= gy) continue;
                    size_t c = (size_t)xx + (size_t)gx * yy;
                    double ddx = x - sx[c], ddy = y - sy[c], d2 = ddx * ddx + ddy * ddy;
                    if (d2 < best) best = d2, v = lvl[c] + dgx[c] * ddx + dgy[c] * ddy;
                }
            for (int d = 0; d < NDISC; d++) {
                double ex = x - dx[d], ey = y - dy[d];
                if (ex * ex + ey * ey < dr[d] * dr[d]) v = dl[d];
            }
            double vx = x - cxm, vy = y - cym;
            v *= 1.0 - 0.12 * (vx * vx + vy * vy) / rr; /* vignetting */
            uint64_t u = app_rng_u64(&r);
            v += (double)(u & 3) - 1.5;                              /* sensor noise, 4 levels */
            if ((u >> 8) % 2000 == 0) v = (double)((u >> 20) & 255); /* impulse noise */
            int iv = (int)lround(v);
            img[(size_t)y * w + x] = iv < 0 ? 0 : iv > 255 ? 255 : iv;
        }
    }
    free(sx), free(sy), free(lvl), free(dgx), free(dgy);
}

/* ----------------------------------------------------------- segment --- */

/* Region growing over rows [0, rows) of a w-wide strip starting at global
 * pixel `first`. queue: scratch for rows*w ints. Returns the region count. */
static long grow_regions(const int *img, int w, int rows, long first, int thr, int *label, int *queue)
{
    const long n = (long)w * rows;
    long regions = 0;
    for (long p = 0; p < n; p++) label[p] = -1;
    for (long seed = 0; seed < n; seed++) {
        if (label[seed] >= 0) continue;
        int lab = (int)(first + seed);
        long head = 0, tail = 0;
        label[seed] = lab, queue[tail++] = (int)seed, regions++;
        while (head < tail) {
            long p = queue[head++];
            int x = (int)(p % w), v = img[p];
            long nb[4] = {x > 0 ? p - 1 : -1, x + 1 < w ? p + 1 : -1, p - w, p + w};
            for (int t = 0; t < 4; t++) {
                long q = nb[t];
                if (q < 0 || q >= n || label[q] >= 0 || abs(img[q] - v) > thr) continue;
                label[q] = lab, queue[tail++] = (int)q;
            }
        }
    }
    return regions;
}

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* Joins regions that touch across strip boundaries (same criterion as
 * growing) and writes the merged labels to `out`; the smaller label, the
 * region's first pixel, wins. parent: scratch of w*h ints. Returns the merged
 * region count. */
static long merge_strips(const int *img, const int *label, int *out, int w, int h, const int *row0, int nstrips,
                         int thr, int *parent)
{
    const long n = (long)w * h;
    for (long p = 0; p < n; p++) parent[p] = (int)p;
    for (int s = 1; s < nstrips; s++) {
        long b = (long)row0[s] * w; /* first pixel of strip s; the row above is the previous strip's last */
        for (int x = 0; x < w; x++) {
            long a = b - w + x, c = b + x;
            if (abs(img[a] - img[c]) > thr) continue;
            int ra = uf_find(parent, label[a]), rc = uf_find(parent, label[c]);
            if (ra < rc) parent[rc] = ra;
            else if (rc < ra) parent[ra] = rc;
        }
    }
    long regions = 0;
    for (long p = 0; p < n; p++) {
        out[p] = uf_find(parent, label[p]);
        regions += out[p] == p;
    }
    return regions;
}

/* ------------------------------------------------------------------ main --- */

int main(int argc, char **argv)
{
    app_start(&argc, &argv, &g_rank, &g_nranks);
    options o;
    parse_args(argc, argv, &o);
    const int w = o.w, h = o.h;
    const long npix = (long)w * h;

    /* Strips: as even as possible, the first h % nranks one row taller. */
    int *row0 = xmalloc(sizeof(int) * ((size_t)g_nranks + 1)), *counts = xmalloc(sizeof(int) * (size_t)g_nranks);
    int *displs = xmalloc(sizeof(int) * (size_t)g_nranks);
    for (int q = 0, r0 = 0; q <= g_nranks; q++) {
        row0[q] = r0;
        if (q < g_nranks) {
            int rows = h / g_nranks + (q < h % g_nranks);
            counts[q] = rows * w, displs[q] = r0 * w, r0 += rows;
        }
    }
    const int my_rows = row0[g_rank + 1] - row0[g_rank];
    const long my_n = (long)my_rows * w;
    int *strip = xmalloc(sizeof(int) * (size_t)my_n), *slabel = xmalloc(sizeof(int) * (size_t)my_n);
    int *queue = xmalloc(sizeof(int) * (size_t)(g_rank == 0 ? npix : my_n));
    int *img = NULL, *label = NULL, *merged = NULL, *parent = NULL, *ref = NULL;
    if (g_rank == 0) {
        img = xmalloc(sizeof(int) * (size_t)npix);
        label = xmalloc(sizeof(int) * (size_t)npix);
        merged = xmalloc(sizeof(int) * (size_t)npix);
        parent = xmalloc(sizeof(int) * (size_t)npix);
        ref = xmalloc(sizeof(int) * (size_t)npix);
        if (!o.c.quiet)
            printf("compi_psrg: %d ranks, %d images of %d x %d pixels, strips of %d..%d rows, threshold %d\n", g_nranks,
                   o.c.iters, w, h, h / g_nranks, h / g_nranks + (h % g_nranks != 0), o.threshold);
    }

    double elapsed = 0;
    uint64_t sent = 0, hash = 0;
    long bad_strips = 0, bad_merge = 0;
    for (int it = 0; it < o.c.iters; it++) {
        if (g_rank == 0) synth_image(img, w, h, o.seed * 1000003ULL + (uint64_t)it);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Scatterv(img, counts, displs, MPI_INT, strip, (int)my_n, MPI_INT, 0, MPI_COMM_WORLD);
        long local_regions = grow_regions(strip, w, my_rows, (long)row0[g_rank] * w, o.threshold, slabel, queue);
        MPI_Gatherv(slabel, (int)my_n, MPI_INT, label, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
        long strip_regions = 0, regions = 0;
        MPI_Reduce(&local_regions, &strip_regions, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (g_rank == 0) regions = merge_strips(img, label, merged, w, h, row0, g_nranks, o.threshold, parent);
        elapsed += MPI_Wtime() - t0;
        sent += g_rank == 0 ? (uint64_t)(npix - my_n) * sizeof(int) : (uint64_t)my_n * sizeof(int);
        if (g_rank != 0) continue;

        /* Checks: every gathered strip as rank 0 grows it, then the merged
         * labels against the whole image grown serially. */
        for (int q = 0; q < g_nranks; q++)
            grow_regions(img + displs[q], w, row0[q + 1] - row0[q], displs[q], o.threshold, ref + displs[q], queue);
        for (long p = 0; p < npix; p++) bad_strips += label[p] != ref[p];
        long whole = grow_regions(img, w, h, 0, o.threshold, ref, queue);
        for (long p = 0; p < npix; p++) bad_merge += merged[p] != ref[p];
        for (long p = 0; p < npix; p++)
            hash += app_hash_term((uint64_t)it * (uint64_t)npix + (uint64_t)p, (uint64_t)merged[p]);
        if (!o.c.quiet)
            printf("image %d: %ld regions in strips, %ld after merging (whole image: %ld)\n", it, strip_regions,
                   regions, whole);
    }

    int ok = 1;
    char why[160] = "";
    if (g_rank == 0) {
        if (bad_merge)
            snprintf(why, sizeof why, "%ld merged labels differ from the whole-image segmentation", bad_merge), ok = 0;
        else if (bad_strips)
            snprintf(why, sizeof why, "%ld strip labels differ from rank 0's segmentation", bad_strips), ok = 0;
        app_result(hash, "images=%d", o.c.iters);
    }
    free(row0), free(counts), free(displs), free(strip), free(slabel), free(queue);
    free(img), free(label), free(merged), free(parent), free(ref);
    return app_end("psrg", elapsed, sent, ok, why);
}
