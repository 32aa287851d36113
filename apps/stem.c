/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_stem: regional air-quality transport in the style of STEM (Eulerian
 * chemical transport model) on a regular 3D grid.
 *
 * Eight species (NO, NO2, O3, SO2, sulfate, CO, HCHO, PAN) as doubles on an
 * nx x ny horizontal grid with nz levels. Each step: first-order upwind
 * advection in flux form plus diffusion in all three directions, under a
 * smooth, sheared, slowly veering wind with a vortex; then per cell a small
 * pairwise-transfer chemistry (NO + O3 -> NO2, NO2 photolysis with a diurnal
 * cycle, SO2 -> sulfate, HCHO -> CO, NO2 <-> PAN), emissions (four stacks and a
 * city), dry deposition at the ground. Concentrations start from vertical
 * background profiles with smooth horizontal structure and tiny seeded noise,
 * so halos carry smooth fields with full-mantissa low bits.
 *
 * Decomposition: 2D (default; MPI_Dims_create) or 1D strips along y, one
 * ghost layer. Halo exchange: one message per face carrying that face for all
 * species and levels (MPI_Sendrecv by default, or Irecv/Isend/Waitall). Every
 * --output-every steps the surface layer of all species is gathered on rank 0
 * (MPI_Gatherv), as a model writes its hourly output.
 *
 * Verification: (1) mass bookkeeping per species: final mass = initial +
 * emitted + boundary inflow - outflow - deposited + chemical change, to 1e-9;
 * no negative concentration. (2) If the problem is small enough (or with
 * --serial on), rank 0 reruns the whole grid serially with the same code and
 * compares a bitwise hash of every cell. The hash is decomposition-independent.
 *
 * Timed phase: the time steps, including output gathers. bytes_sent: halo
 * faces plus gathered surface layers (reductions not counted). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

enum { NO, NO2, O3, SO2, SULF, CO, HCHO, PAN, NSPEC };
static const char *const spec_name[NSPEC] = {"NO", "NO2", "O3", "SO2", "SULF", "CO", "HCHO", "PAN"};

#define DAY_STEPS 96.0 /* steps per simulated day (15 min) */
#define KH 0.02        /* horizontal diffusion, cells^2/step */

typedef struct {
    app_common_opts c;
    int gn[3]; /* global cells */
    int decomp2d, use_isend, out_every;
    int serial; /* -1 auto, 0 off, 1 on */
} options;

static int g_rank, g_nranks;

static const char *const usage = "usage: compi_stem [--scale F] [--iters N] [--decomp 1d|2d] [--halo sendrecv|isend]\n"
                                 "                  [--output-every K] [--serial auto|on|off] [--quiet]\n"
                                 "  default: 192 x 160 cells x 16 levels x 8 species (F scales the horizontal area),\n"
                                 "  50 steps, surface output every 20 steps; serial recheck when small (auto)\n";

static int stem_option(const char *a, const char *v, void *opts)
{
    options *o = opts;
    if (!v) return 0;
    if (!strcmp(a, "--decomp")) return !(o->decomp2d = !strcmp(v, "2d")) && strcmp(v, "1d") ? -1 : 2;
    if (!strcmp(a, "--halo")) return !(o->use_isend = !strcmp(v, "isend")) && strcmp(v, "sendrecv") ? -1 : 2;
    if (!strcmp(a, "--output-every")) return (o->out_every = atoi(v)) < 1 ? -1 : 2;
    if (!strcmp(a, "--serial")) {
        o->serial = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : !strcmp(v, "auto") ? -1 : -2;
        return o->serial == -2 ? -1 : 2;
    }
    return 0;
}

static void parse_args(int argc, char **argv, options *o)
{
    *o =
        (options){.c = {.scale = 1.0, .iters = 50}, .gn = {192, 160, 16}, .decomp2d = 1, .out_every = 20, .serial = -1};
    app_parse_args(argc, argv, &o->c, "compi_stem", usage, stem_option, o);
    double f = sqrt(o->c.scale);
    o->gn[0] = (int)(o->gn[0] * f + 0.5);
    o->gn[1] = (int)(o->gn[1] * f + 0.5);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "compi_stem: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* Local block with one ghost layer in x and y (levels are not split).
 * Layout [species][k][j][i], i fastest; owned i, j run 1..n. */
typedef struct {
    int n[3], s[2];    /* owned cells; row strides s = n + 2 (x, y) */
    int gn[3], off[2]; /* global size, offset of owned cell (1,1) */
    int nb[4];         /* neighbours W, E, S, N (MPI_PROC_NULL at the domain edge) */
    double *c, *cn;
    double *uP, *uQ;            /* x-face wind = ct*uP + uQ, faces 0..nx (face f: between cells f and f+1) */
    double *vP, *vQ;            /* y-face wind likewise, faces 0..ny */
    double *w;                  /* vertical wind at faces 0..nz (0 at ground and lid) */
    double *kz;                 /* vertical diffusion at faces 0..nz */
    double *u, *v;              /* this step's x- and y-face winds */
    double *fx, *fy[2], *fz[2]; /* flux scratch: a row of x faces, two rows of y faces, two planes of z faces */
    double *sendbuf[4], *recvbuf[4];
    size_t face[4]; /* doubles per face message */
    MPI_Comm comm;
    /* bookkeeping, per species (sums over this block) */
    double emitted[NSPEC], deposited[NSPEC], chem[NSPEC], boundary[NSPEC];
} block;

static inline size_t CI(const block *b, int s, int k, int j, int i)
{
    return (size_t)i + (size_t)b->s[0] * ((size_t)j + (size_t)b->s[1] * ((size_t)k + (size_t)b->n[2] * (size_t)s));
}

/* Background profile (ppb) by species and height fraction z in [0, 1]. */
static double background(int s, double z)
{
    static const double ground[NSPEC] = {2.0, 8.0, 30.0, 3.0, 1.5, 120.0, 1.0, 0.3};
    static const double aloft[NSPEC] = {0.05, 0.5, 55.0, 0.2, 0.8, 80.0, 0.2, 0.6};
    double e = exp(-z / 0.25);
    return aloft[s] + (ground[s] - aloft[s]) * e;
}

/* Smooth horizontal structure with a little seeded noise in the low digits:
 * depends only on global position, so every decomposition starts alike. */
static double initial(int s, double gx, double gy, double z, uint64_t gidx)
{
    double m = 1.0 + 0.15 * sin(6.2831853 * gx * (1 + 0.1 * s) + 0.7 * s) * cos(6.2831853 * gy * 1.3 + 0.3 * s) +
               0.08 * sin(6.2831853 * (gx + gy) * 2.7 + s);
    app_rng r = app_rng_seed(gidx);
    return background(s, z) * m * (1.0 + 1e-4 * (app_rng_unif(&r) - 0.5));
}

/* Wind at global position (cells); p and q give ct*p + q at time t. The
 * along-wind part veers with ct, the vortex does not. */
static void wind_xy(double gx, double gy, double zf, int gnx, int gny, int comp, double *p, double *q)
{
    double a = 0.10 + 0.06 * zf; /* shear: stronger aloft */
    double cx = 0.55 * gnx, cy = 0.45 * gny, R = 0.18 * (gnx < gny ? gnx : gny);
    double dx = gx - cx, dy = gy - cy, g = 0.035 * exp(-(dx * dx + dy * dy) / (R * R)) * (1 - 0.5 * zf);
    if (comp == 0) { /* u */
        *p = a * (1 + 0.25 * sin(6.2831853 * gy / gny));
        *q = -g * dy / R;
    } else { /* v: a weaker cross-wind, so the plume direction changes through the day */
        *p = 0.4 * a * (1 + 0.25 * cos(6.2831853 * gx / gnx));
        *q = g * dx / R + 0.03;
    }
}

static void make_block(block *b, const int gn[3], const int dims[2], const int coords[2], MPI_Comm comm)
{
    memset(b, 0, sizeof *b);
    for (int d = 0; d < 3; d++) b->gn[d] = gn[d];
    for (int d = 0; d < 2; d++) {
        int base = gn[d] / dims[d], rem = gn[d] % dims[d];
        b->n[d] = base + (coords[d] < rem);
        b->off[d] = coords[d] * base + (coords[d] < rem ? coords[d] : rem);
        b->s[d] = b->n[d] + 2;
    }
    b->n[2] = gn[2];
    b->comm = comm;
    const int nx = b->n[0], ny = b->n[1], nz = b->n[2];
    size_t cells = (size_t)NSPEC * nz * b->s[0] * b->s[1];
    b->c = xmalloc(sizeof(double) * cells);
    b->cn = xmalloc(sizeof(double) * cells);
    b->uP = xmalloc(sizeof(double) * (size_t)(nx + 1) * ny * nz);
    b->uQ = xmalloc(sizeof(double) * (size_t)(nx + 1) * ny * nz);
    b->vP = xmalloc(sizeof(double) * (size_t)nx * (ny + 1) * nz);
    b->vQ = xmalloc(sizeof(double) * (size_t)nx * (ny + 1) * nz);
    b->w = xmalloc(sizeof(double) * (size_t)nx * ny * (nz + 1));
    b->kz = xmalloc(sizeof(double) * (size_t)(nz + 1));
    b->u = xmalloc(sizeof(double) * (size_t)(nx + 1) * ny * nz);
    b->v = xmalloc(sizeof(double) * (size_t)nx * (ny + 1) * nz);
    b->fx = xmalloc(sizeof(double) * (size_t)(nx + 1));
    for (int t = 0; t < 2; t++) {
        b->fy[t] = xmalloc(sizeof(double) * (size_t)nx);
        b->fz[t] = xmalloc(sizeof(double) * (size_t)nx * ny);
    }
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) {
            double zf = (k + 0.5) / nz, gy = b->off[1] + j + 0.5;
            for (int f = 0; f <= nx; f++) {
                size_t id = (size_t)f + (size_t)(nx + 1) * ((size_t)j + (size_t)ny * k);
                wind_xy(b->off[0] + f, gy, zf, gn[0], gn[1], 0, &b->uP[id], &b->uQ[id]);
            }
        }
    for (int k = 0; k < nz; k++)
        for (int f = 0; f <= ny; f++)
            for (int i = 0; i < nx; i++) {
                size_t id = (size_t)i + (size_t)nx * ((size_t)f + (size_t)(ny + 1) * k);
                wind_xy(b->off[0] + i + 0.5, b->off[1] + f, (k + 0.5) / nz, gn[0], gn[1], 1, &b->vP[id], &b->vQ[id]);
            }
    /* Weak convergence-driven vertical motion, zero at the ground and the lid. */
    for (int f = 0; f <= nz; f++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double gx = b->off[0] + i + 0.5, gy = b->off[1] + j + 0.5;
                b->w[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * f)] =
                    0.02 * sin(3.14159265 * f / nz) * sin(6.2831853 * gx / gn[0] * 2) * cos(6.2831853 * gy / gn[1]);
            }
    for (int f = 0; f <= nz; f++) b->kz[f] = (f == 0 || f == nz) ? 0 : 0.12 * exp(-(double)f / (0.4 * nz));
    /* Ghosts at the domain edge hold the background (inflowing clean air) for
     * good; interior ghosts are overwritten by every exchange. */
    for (int s = 0; s < NSPEC; s++)
        for (int k = 0; k < nz; k++)
            for (int j = 0; j < b->s[1]; j++)
                for (int i = 0; i < b->s[0]; i++) {
                    double gx = (b->off[0] + i - 0.5) / gn[0], gy = (b->off[1] + j - 0.5) / gn[1];
                    int owned = i >= 1 && i <= nx && j >= 1 && j <= ny;
                    uint64_t gidx = (uint64_t)(b->off[0] + i - 1) +
                                    (uint64_t)gn[0] * ((uint64_t)(b->off[1] + j - 1) +
                                                       (uint64_t)gn[1] * ((uint64_t)k + (uint64_t)nz * s));
                    b->c[CI(b, s, k, j, i)] = b->cn[CI(b, s, k, j, i)] =
                        owned ? initial(s, gx, gy, (k + 0.5) / nz, gidx) : background(s, (k + 0.5) / nz);
                }
    b->face[0] = b->face[1] = (size_t)NSPEC * nz * ny;
    b->face[2] = b->face[3] = (size_t)NSPEC * nz * nx;
    for (int f = 0; f < 4; f++) {
        b->sendbuf[f] = xmalloc(sizeof(double) * b->face[f]);
        b->recvbuf[f] = xmalloc(sizeof(double) * b->face[f]);
    }
}

static void free_block(block *b)
{
    free(b->c), free(b->cn), free(b->uP), free(b->uQ), free(b->vP), free(b->vQ), free(b->w), free(b->kz), free(b->fx);
    free(b->u), free(b->v), free(b->fy[0]), free(b->fy[1]), free(b->fz[0]), free(b->fz[1]);
    for (int f = 0; f < 4; f++) free(b->sendbuf[f]), free(b->recvbuf[f]);
}

/* Copy face `side` (0 W, 1 E, 2 S, 3 N) between the field and a buffer:
 * layer `at` (an i for W/E, a j for S/N), all species and levels. */
static void face_copy(block *b, int side, int at, double *buf, int to_buf)
{
    size_t m = 0;
    for (int s = 0; s < NSPEC; s++)
        for (int k = 0; k < b->n[2]; k++) {
            if (side < 2)
                for (int j = 1; j <= b->n[1]; j++, m++) {
                    double *c = &b->c[CI(b, s, k, j, at)];
                    if (to_buf) buf[m] = *c;
                    else *c = buf[m];
                }
            else {
                double *row = &b->c[CI(b, s, k, at, 1)];
                if (to_buf) memcpy(buf + m, row, sizeof(double) * (size_t)b->n[0]);
                else memcpy(row, buf + m, sizeof(double) * (size_t)b->n[0]);
                m += (size_t)b->n[0];
            }
        }
}

/* Owned layer sent towards each side, ghost layer filled from it. */
static inline int send_layer(const block *b, int side)
{
    return side == 0 || side == 2 ? 1 : b->n[side < 2 ? 0 : 1];
}
static inline int ghost_layer(const block *b, int side)
{
    return side == 0 || side == 2 ? 0 : b->n[side < 2 ? 0 : 1] + 1;
}

/* Returns bytes sent. Tags name the sender's side. */
static uint64_t exchange(block *b, int use_isend)
{
    uint64_t bytes = 0;
    for (int side = 0; side < 4; side++)
        if (b->nb[side] != MPI_PROC_NULL) {
            face_copy(b, side, send_layer(b, side), b->sendbuf[side], 1);
            bytes += b->face[side] * sizeof(double);
        }
    if (use_isend) {
        MPI_Request req[8];
        MPI_Status st[8]; /* not MPI_STATUSES_IGNORE: silences a GCC false positive with MPICH's header */
        int nr = 0;
        for (int side = 0; side < 4; side++)
            if (b->nb[side] != MPI_PROC_NULL)
                MPI_Irecv(b->recvbuf[side], (int)b->face[side], MPI_DOUBLE, b->nb[side], 40 + (side ^ 1), b->comm,
                          &req[nr++]);
        for (int side = 0; side < 4; side++)
            if (b->nb[side] != MPI_PROC_NULL)
                MPI_Isend(b->sendbuf[side], (int)b->face[side], MPI_DOUBLE, b->nb[side], 40 + side, b->comm,
                          &req[nr++]);
        MPI_Waitall(nr, req, st);
    } else {
        for (int side = 0; side < 4; side++) /* send to side, receive from the opposite side */
            MPI_Sendrecv(b->sendbuf[side], (int)b->face[side], MPI_DOUBLE, b->nb[side], 40 + side, b->recvbuf[side ^ 1],
                         (int)b->face[side ^ 1], MPI_DOUBLE, b->nb[side ^ 1], 40 + side, b->comm, MPI_STATUS_IGNORE);
    }
    for (int side = 0; side < 4; side++)
        if (b->nb[side] != MPI_PROC_NULL) face_copy(b, side, ghost_layer(b, side), b->recvbuf[side], 0);
    return bytes;
}

static inline double upflux(double cl, double cr, double u, double k)
{
    return (u > 0 ? u * cl : u * cr) - k * (cr - cl);
}

/* Transport of every species, c -> cn, each face flux computed once (rolling
 * rows for y, planes for z). Fluxes through the domain edge are booked as
 * inflow (positive) or outflow. */
static void transport(block *b, double ct)
{
    const int nx = b->n[0], ny = b->n[1], nz = b->n[2];
    const size_t sy = (size_t)b->s[0], plane = (size_t)nx * ny;
    const int west = b->nb[0] == MPI_PROC_NULL, east = b->nb[1] == MPI_PROC_NULL;
    const int south = b->nb[2] == MPI_PROC_NULL, north = b->nb[3] == MPI_PROC_NULL;
    /* This step's horizontal winds (the veering part scales with ct). */
    for (size_t f = 0; f < (size_t)(nx + 1) * ny * nz; f++) b->u[f] = ct * b->uP[f] + b->uQ[f];
    for (size_t f = 0; f < (size_t)nx * (ny + 1) * nz; f++) b->v[f] = ct * b->vP[f] + b->vQ[f];
    for (int s = 0; s < NSPEC; s++) {
        double bnd = 0, *fzb = b->fz[0], *fzt = b->fz[1];
        memset(fzb, 0, sizeof(double) * plane); /* closed ground */
        for (int k = 0; k < nz; k++) {
            const double *w = &b->w[plane * (size_t)(k + 1)];
            if (k == nz - 1) memset(fzt, 0, sizeof(double) * plane); /* closed lid */
            else
                for (int j = 1; j <= ny; j++) {
                    const double *c = &b->c[CI(b, s, k, j, 1)], *cu = &b->c[CI(b, s, k + 1, j, 1)];
                    double *ft = fzt + (size_t)nx * (j - 1);
                    const double *wr = w + (size_t)nx * (j - 1);
                    for (int i = 0; i < nx; i++) ft[i] = upflux(c[i], cu[i], wr[i], b->kz[k + 1]);
                }
            double *fys = b->fy[0], *fyn = b->fy[1];
            const double *v = &b->v[(size_t)nx * (size_t)(ny + 1) * k];
            {
                const double *c0 = &b->c[CI(b, s, k, 0, 1)];
                for (int i = 0; i < nx; i++) fys[i] = upflux(c0[i], c0[i + sy], v[i], KH);
                if (south)
                    for (int i = 0; i < nx; i++) bnd += fys[i];
            }
            for (int j = 1; j <= ny; j++) {
                const double *c = &b->c[CI(b, s, k, j, 0)];
                double *cn = &b->cn[CI(b, s, k, j, 0)];
                const double *u = &b->u[(size_t)(nx + 1) * ((size_t)(j - 1) + (size_t)ny * k)];
                const double *vn = v + (size_t)nx * j;
                for (int f = 0; f <= nx; f++) b->fx[f] = upflux(c[f], c[f + 1], u[f], KH);
                for (int i = 0; i < nx; i++) fyn[i] = upflux(c[i + 1], c[i + 1 + sy], vn[i], KH);
                if (west) bnd += b->fx[0];
                if (east) bnd -= b->fx[nx];
                if (north && j == ny)
                    for (int i = 0; i < nx; i++) bnd -= fyn[i];
                const double *ft = fzt + (size_t)nx * (j - 1), *fb = fzb + (size_t)nx * (j - 1);
                for (int i = 1; i <= nx; i++)
                    cn[i] = c[i] - (b->fx[i] - b->fx[i - 1]) - (fyn[i - 1] - fys[i - 1]) - (ft[i - 1] - fb[i - 1]);
                double *t = fys;
                fys = fyn, fyn = t;
            }
            double *t = fzb;
            fzb = fzt, fzt = t;
        }
        b->boundary[s] += bnd;
    }
}

/* Point sources: stacks at fixed fractions of the domain, emitting aloft. */
static const struct {
    double fx, fy;
    int k;
    double rate[NSPEC];
} stacks[] = {
    {0.20, 0.30, 2, {40, 5, 0, 90, 2, 60, 0, 0}},
    {0.35, 0.70, 3, {25, 3, 0, 50, 1, 40, 0, 0}},
    {0.60, 0.20, 2, {60, 6, 0, 30, 0, 80, 1, 0}},
    {0.75, 0.55, 1, {15, 2, 0, 120, 3, 20, 0, 0}},
};

/* Chemistry, emissions and deposition on cn, per cell; booked per species. */
static void sources(block *b, int step)
{
    const int nx = b->n[0], ny = b->n[1], nz = b->n[2];
    const size_t ss = (size_t)b->s[0] * b->s[1] * nz; /* species stride */
    double tod = fmod(step / DAY_STEPS, 1.0);
    double sun = fmax(0, sin(6.2831853 * (tod - 0.25))); /* day from 06 to 18 h */
    double traffic = 0.6 + 0.4 * sin(6.2831853 * (tod - 0.3));
    const double k_no_o3 = 3e-4, j_no2 = 0.03 * sun, k_so2 = 0.004 * (0.3 + sun), j_hcho = 0.01 * sun;
    const double k_pan_f = 0.002 * sun, k_pan_d = 0.004;
    static const double vd[NSPEC] = {0, 0.003, 0.005, 0.008, 0.002, 0, 0.004, 0.001}; /* deposition per step */
    double chem[NSPEC] = {0}, dep[NSPEC] = {0}, emi[NSPEC] = {0};
    double cx = 0.40 * b->gn[0], cy = 0.55 * b->gn[1], R = 0.1 * b->gn[0];
    for (int k = 0; k < nz; k++)
        for (int j = 1; j <= ny; j++)
            for (int i = 1; i <= nx; i++) {
                double *c = &b->cn[CI(b, 0, k, j, i)];
                /* pairwise transfers: what one species loses another gains (or the air takes) */
                double r1 = k_no_o3 * c[NO * ss] * c[O3 * ss];
                double r2 = j_no2 * c[NO2 * ss];
                double r3 = k_so2 * c[SO2 * ss];
                double r4 = j_hcho * c[HCHO * ss];
                double r5 = k_pan_f * c[NO2 * ss], r6 = k_pan_d * c[PAN * ss];
                double d[NSPEC] = {-r1 + r2, r1 - r2 - r5 + r6, -r1 + r2, -r3, r3, r4, -r4, r5 - r6};
                for (int s = 0; s < NSPEC; s++) c[s * ss] += d[s], chem[s] += d[s];
                if (k == 0) {
                    double gx = b->off[0] + i - 0.5, gy = b->off[1] + j - 0.5;
                    double r2c = ((gx - cx) * (gx - cx) + (gy - cy) * (gy - cy)) / (R * R);
                    if (r2c < 1) { /* city: traffic NO, CO, HCHO, tapering to the edge */
                        double e = traffic * (1 - r2c);
                        double add[NSPEC] = {0.6 * e, 0.06 * e, 0, 0.02 * e, 0, 2.5 * e, 0.05 * e, 0};
                        for (int s = 0; s < NSPEC; s++) c[s * ss] += add[s], emi[s] += add[s];
                    }
                    for (int s = 0; s < NSPEC; s++) {
                        double l = vd[s] * c[s * ss];
                        c[s * ss] -= l, dep[s] += l;
                    }
                }
            }
    for (size_t t = 0; t < sizeof stacks / sizeof stacks[0]; t++) {
        int gi = (int)(stacks[t].fx * b->gn[0]), gj = (int)(stacks[t].fy * b->gn[1]), k = stacks[t].k;
        int i = gi - b->off[0] + 1, j = gj - b->off[1] + 1;
        if (i < 1 || i > nx || j < 1 || j > ny || k >= nz) continue;
        for (int s = 0; s < NSPEC; s++) b->cn[CI(b, s, k, j, i)] += stacks[t].rate[s], emi[s] += stacks[t].rate[s];
    }
    for (int s = 0; s < NSPEC; s++) b->chem[s] += chem[s], b->deposited[s] += dep[s], b->emitted[s] += emi[s];
}

/* The new field becomes current. The ghost frame needs no copying: edge
 * ghosts hold the background in both arrays from the start and are never
 * written, interior ghosts are refilled by every exchange. */
static void commit(block *b)
{
    double *t = b->c;
    b->c = b->cn;
    b->cn = t;
}

static void mass(const block *b, double *m, long *negative)
{
    for (int s = 0; s < NSPEC; s++) {
        m[s] = 0;
        for (int k = 0; k < b->n[2]; k++)
            for (int j = 1; j <= b->n[1]; j++)
                for (int i = 1; i <= b->n[0]; i++) {
                    double v = b->c[CI(b, s, k, j, i)];
                    m[s] += v;
                    *negative += v < 0;
                }
    }
}

/* Decomposition-independent bitwise digest of the owned cells. */
static uint64_t field_hash(const block *b)
{
    uint64_t h = 0;
    for (int s = 0; s < NSPEC; s++)
        for (int k = 0; k < b->n[2]; k++)
            for (int j = 1; j <= b->n[1]; j++)
                for (int i = 1; i <= b->n[0]; i++) {
                    uint64_t g = (uint64_t)(b->off[0] + i - 1) +
                                 (uint64_t)b->gn[0] * ((uint64_t)(b->off[1] + j - 1) +
                                                       (uint64_t)b->gn[1] * ((uint64_t)k + (uint64_t)b->n[2] * s));
                    h += app_hash_term(g, app_dbits(b->c[CI(b, s, k, j, i)]));
                }
    return h;
}

static inline double veer(int step)
{
    return cos(0.6 + 0.5 * sin(6.2831853 * step / DAY_STEPS));
}

/* Gather the surface layer of every species on rank 0; returns bytes sent.
 * Rank 0 reports the peak surface ozone. */
static uint64_t output(block *b, int step, const int *counts, const int *displs, double *all, double *mine, int quiet)
{
    size_t m = 0;
    for (int s = 0; s < NSPEC; s++)
        for (int j = 1; j <= b->n[1]; j++, m += (size_t)b->n[0])
            memcpy(mine + m, &b->c[CI(b, s, 0, j, 1)], sizeof(double) * (size_t)b->n[0]);
    MPI_Gatherv(mine, (int)m, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, b->comm);
    if (g_rank == 0 && !quiet) {
        /* Each rank's block is [species][j][i]; O3 is species block O3 of each. */
        double peak = 0;
        for (int q = 0; q < g_nranks; q++) {
            int per = counts[q] / NSPEC;
            for (int x = 0; x < per; x++) peak = fmax(peak, all[displs[q] + O3 * per + x]);
        }
        printf("step %5d  peak surface O3 %.3f ppb\n", step, peak);
    }
    return g_rank ? m * sizeof(double) : 0;
}

int main(int argc, char **argv)
{
    app_start(&argc, &argv, &g_rank, &g_nranks);
    options o;
    parse_args(argc, argv, &o);

    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    if (o.decomp2d) MPI_Dims_create(g_nranks, 2, dims);
    else dims[0] = 1, dims[1] = g_nranks;
    if (o.gn[0] < 2 * dims[0] || o.gn[1] < 2 * dims[1] || o.gn[2] < 2) {
        char why[128];
        snprintf(why, sizeof why, "compi_stem: grid %dx%d too small for %dx%d ranks\n", o.gn[0], o.gn[1], dims[0],
                 dims[1]);
        app_usage_exit(usage, 2, why);
    }
    MPI_Comm comm;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm); /* reorder=0: cart rank = world rank */
    MPI_Cart_coords(comm, g_rank, 2, coords);
    block b;
    make_block(&b, o.gn, dims, coords, comm);
    MPI_Cart_shift(comm, 0, 1, &b.nb[0], &b.nb[1]);
    MPI_Cart_shift(comm, 1, 1, &b.nb[2], &b.nb[3]);

    int my_out = NSPEC * b.n[0] * b.n[1], *counts = NULL, *displs = NULL;
    double *all = NULL, *mine = xmalloc(sizeof(double) * (size_t)my_out);
    if (g_rank == 0) {
        counts = xmalloc(sizeof(int) * (size_t)g_nranks);
        displs = xmalloc(sizeof(int) * (size_t)g_nranks);
        all = xmalloc(sizeof(double) * NSPEC * (size_t)o.gn[0] * o.gn[1]);
    }
    MPI_Gather(&my_out, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (g_rank == 0)
        for (int q = 0, off = 0; q < g_nranks; q++) displs[q] = off, off += counts[q];

    double m0[NSPEC], m1[NSPEC];
    long neg = 0;
    mass(&b, m0, &neg);
    if (g_rank == 0 && !o.c.quiet)
        printf("compi_stem: %d ranks (%dx%d), grid %dx%dx%d, %d species, %d steps, halo %s, faces %zu/%zu doubles\n",
               g_nranks, dims[0], dims[1], o.gn[0], o.gn[1], o.gn[2], NSPEC, o.c.iters,
               o.use_isend ? "isend" : "sendrecv", b.face[0], b.face[2]);

    uint64_t sent = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int step = 1; step <= o.c.iters; step++) {
        sent += exchange(&b, o.use_isend);
        transport(&b, veer(step));
        sources(&b, step);
        commit(&b);
        if (step % o.out_every == 0 || step == o.c.iters)
            sent += output(&b, step, counts, displs, all, mine, o.c.quiet);
    }
    double elapsed = MPI_Wtime() - t0;

    /* Mass bookkeeping, summed over ranks per species. */
    mass(&b, m1, &neg);
    double loc[6 * NSPEC], glob[6 * NSPEC];
    for (int s = 0; s < NSPEC; s++) {
        loc[s] = m0[s], loc[NSPEC + s] = m1[s], loc[2 * NSPEC + s] = b.emitted[s];
        loc[3 * NSPEC + s] = b.boundary[s], loc[4 * NSPEC + s] = b.deposited[s], loc[5 * NSPEC + s] = b.chem[s];
    }
    MPI_Reduce(loc, glob, 6 * NSPEC, MPI_DOUBLE, MPI_SUM, 0, comm);
    long gneg = 0;
    MPI_Reduce(&neg, &gneg, 1, MPI_LONG, MPI_SUM, 0, comm);
    uint64_t h = field_hash(&b), hsum = 0;
    MPI_Reduce(&h, &hsum, 1, MPI_UINT64_T, MPI_SUM, 0, comm);

    int ok = 1;
    char why[200] = "";
    if (g_rank == 0) {
        double worst = 0;
        int ws = 0;
        for (int s = 0; s < NSPEC; s++) {
            double in = glob[s], out = glob[NSPEC + s], e = glob[2 * NSPEC + s], bd = glob[3 * NSPEC + s];
            double dep = glob[4 * NSPEC + s], ch = glob[5 * NSPEC + s];
            double scale = in + e + fabs(bd) + dep + fabs(ch);
            double err = fabs(out - (in + e + bd - dep + ch)) / scale;
            if (err > worst) worst = err, ws = s;
            if (!o.c.quiet)
                printf("%-4s mass %.6e -> %.6e  emitted %.3e  boundary %+.3e  deposited %.3e  chemistry %+.3e  "
                       "rel.err %.1e\n",
                       spec_name[s], in, out, e, bd, dep, ch, err);
        }
        if (worst > 1e-9) snprintf(why, sizeof why, "mass balance of %s off by %.3e", spec_name[ws], worst), ok = 0;
        if (gneg) snprintf(why, sizeof why, "%ld negative concentrations", gneg), ok = 0;
        /* Serial rerun: cheap enough up to ~5e7 cell-steps (a second or two). */
        double work = (double)o.gn[0] * o.gn[1] * o.gn[2] * o.c.iters;
        if (o.serial == 1 || (o.serial == -1 && work <= 5e7)) {
            int d1[2] = {1, 1}, c1[2] = {0, 0};
            block sb;
            make_block(&sb, o.gn, d1, c1, MPI_COMM_SELF);
            sb.nb[0] = sb.nb[1] = sb.nb[2] = sb.nb[3] = MPI_PROC_NULL;
            double ts = MPI_Wtime();
            for (int step = 1; step <= o.c.iters; step++) {
                transport(&sb, veer(step));
                sources(&sb, step);
                commit(&sb);
            }
            uint64_t hs = field_hash(&sb);
            if (!o.c.quiet) printf("serial check: %.2f s, hash %016llx\n", MPI_Wtime() - ts, (unsigned long long)hs);
            if (hs != hsum) snprintf(why, sizeof why, "field differs from the serial run"), ok = 0;
            free_block(&sb);
        } else if (!o.c.quiet) printf("serial check: skipped (problem too large; --serial on forces it)\n");
        app_result(hsum, "O3=%.17g", glob[NSPEC + O3]);
    }
    free(mine), free(all), free(counts), free(displs);
    free_block(&b);
    MPI_Comm_free(&comm);
    return app_end("stem", elapsed, sent, ok, why);
}
