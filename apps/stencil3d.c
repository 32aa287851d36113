/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_stencil3d: explicit 3D heat diffusion (7-point Jacobi) with halo exchange.
 *
 * The physics is chosen to look like a real simulation's halos: a cold box at
 * exactly 20.0 with a hot sphere held at 100.0 in the middle of the global
 * domain. Far from the sphere cells stay bit-identical 20.0 (tiny increments
 * are absorbed by rounding), inside it they are a 100.0 plateau, and in
 * between the diffusion front carries full-mantissa doubles. Byte codecs find
 * long runs; the front is the realistic, hard-to-compress part.
 *
 * The result is a bitwise hash of the final field: it must not change when
 * compi is preloaded (compression is lossless). The hash is a sum over cells of
 * mix(global index, value bits), so it is also independent of the rank count
 * and decomposition, which makes a handy self-check. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_AMBIENT 20.0
#define T_SOURCE 100.0

typedef struct {
    int n[3]; /* local cells per dimension (x, y, z) */
    int iters;
    int decomp3d;    /* 0: slabs along z, 1: MPI_Dims_create over 3 dims */
    int use_isend;   /* 0: MPI_Sendrecv per direction, 1: Irecv/Isend/Waitall, 2: MPI_Neighbor_alltoallv */
    int face_types;  /* 0: faces packed into contiguous doubles, 1: one derived-type element each */
    int check_every; /* residual Allreduce period */
    double radius;   /* source radius as a fraction of the smallest global extent */
    double kappa;    /* diffusion number; explicit scheme is stable for <= 1/6 */
    int quiet;
    int omp; /* --omp: 0 pure MPI, OMP_MASTERONLY, OMP_FUNNELED */
} options;
enum { OMP_NONE = 0, OMP_MASTERONLY, OMP_FUNNELED };

static int g_rank;
static const char *g_dump_dir; /* --dump-faces DIR */
static int g_exchanges;        /* exchanges done: the iteration a dumped face is sent in */

static void usage_exit(int code)
{
    if (g_rank == 0)
        fprintf(stderr,
                "usage: compi_stencil3d [--n N] [--nx X --ny Y --nz Z] [--iters I] [--decomp 1d|3d]\n"
                "                       [--halo sendrecv|isend] [--faces packed|types] [--check-every K] [--radius F]\n"
                "                       [--kappa K] [--omp masteronly|funneled] [--neighbor]\n"
                "                       [--quiet]\n"
                "  N^3 cells per rank (default 64; --nx/--ny/--nz override one dimension, e.g. thin\n"
                "  slabs), I iterations (default 100). 1d = slabs along z, in rank order.\n"
                "  --faces types sends and receives each face in place as count 1 of a derived\n"
                "  type (z faces: a vector of rows, x and y faces: subarrays) instead of packing\n"
                "  it into contiguous doubles (the default).\n"
                "  --omp: hybrid MPI+OpenMP (OMP_NUM_THREADS threads per rank): masteronly\n"
                "  exchanges halos on the master outside parallel regions; funneled has the\n"
                "  master exchange them while the other threads update the interior. The\n"
                "  checksum is that of the pure-MPI run.\n"
                "  --neighbor (or --halo neighbor): the halo as one MPI_Neighbor_alltoallv on the\n"
                "  cartesian communicator (packed faces).\n"
                "  --dump-faces DIR: write each packed face a rank sends with --halo sendrecv\n"
                "  to DIR/itII_rRRR_fF.bin (iteration, rank, face 2*dim+side), 8-byte doubles.\n");
    MPI_Finalize();
    exit(code);
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.n = {64, 64, 64},
                   .iters = 100,
                   .decomp3d = 0,
                   .use_isend = 0,
                   .check_every = 10,
                   .radius = 0.25,
                   .kappa = 0.1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage_exit(0);
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--neighbor")) {
            o->use_isend = 2;
            continue;
        }
        if (!v) usage_exit(2);
        int bad = 0;
        if (!strcmp(a, "--n")) bad = (o->n[0] = o->n[1] = o->n[2] = atoi(v)) < 2;
        else if (!strcmp(a, "--nx")) bad = (o->n[0] = atoi(v)) < 2;
        else if (!strcmp(a, "--ny")) bad = (o->n[1] = atoi(v)) < 2;
        else if (!strcmp(a, "--nz")) bad = (o->n[2] = atoi(v)) < 2;
        else if (!strcmp(a, "--iters")) bad = (o->iters = atoi(v)) < 0;
        else if (!strcmp(a, "--check-every")) bad = (o->check_every = atoi(v)) < 1;
        else if (!strcmp(a, "--radius")) bad = (o->radius = atof(v)) <= 0;
        else if (!strcmp(a, "--dump-faces")) g_dump_dir = v;
        else if (!strcmp(a, "--kappa")) bad = (o->kappa = atof(v)) <= 0 || o->kappa > 1.0 / 6;
        else if (!strcmp(a, "--decomp")) {
            if (!strcmp(v, "1d")) o->decomp3d = 0;
            else if (!strcmp(v, "3d")) o->decomp3d = 1;
            else bad = 1;
        } else if (!strcmp(a, "--faces")) {
            if (!strcmp(v, "packed")) o->face_types = 0;
            else if (!strcmp(v, "types")) o->face_types = 1;
            else bad = 1;
        } else if (!strcmp(a, "--omp")) {
            if (!strcmp(v, "masteronly")) o->omp = OMP_MASTERONLY;
            else if (!strcmp(v, "funneled")) o->omp = OMP_FUNNELED;
            else bad = 1;
        } else if (!strcmp(a, "--halo")) {
            if (!strcmp(v, "sendrecv")) o->use_isend = 0;
            else if (!strcmp(v, "isend")) o->use_isend = 1;
            else if (!strcmp(v, "neighbor")) o->use_isend = 2;
            else bad = 1;
        } else bad = 1;
        if (bad) {
            if (g_rank == 0) fprintf(stderr, "compi_stencil3d: bad argument '%s %s'\n", a, v);
            usage_exit(2);
        }
        i++;
    }
    if (o->use_isend == 2 && o->face_types) {
        if (g_rank == 0) fprintf(stderr, "compi_stencil3d: --neighbor sends packed faces (not --faces types)\n");
        usage_exit(2);
    }
}

/* Local field with one ghost layer: (n+2)^3, x fastest. */
typedef struct {
    int n[3], s[3]; /* owned cells and row strides: s = n + 2 */
    double *u, *unew;
    unsigned char *source; /* 1 where the cell is held at T_SOURCE (owned cells) */
    int coords[3], dims[3];
    int nb[3][2]; /* neighbour ranks, [dim][low/high], MPI_PROC_NULL at the boundary */
    double *sendbuf[6], *recvbuf[6];
    /* --faces types: face 2*dim+side of the field as count 1 of ftype at
     * offset foff (doubles), to send (the owned layer) and receive (the ghost) */
    MPI_Datatype send_type[6], recv_type[6];
    size_t send_off[6], recv_off[6];
    MPI_Comm comm;
} grid;

static inline size_t IDX(const grid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->s[0] * ((size_t)j + (size_t)g->s[1] * (size_t)k);
}

/* Cells in a face normal to dim. */
static inline int face_count(const grid *g, int dim)
{
    return g->n[(dim + 1) % 3] * g->n[(dim + 2) % 3];
}

/* Copy between the field layer `layer` normal to `dim` and a contiguous buffer.
 * Packing keeps every message a contiguous MPI_DOUBLE array, as most codes do
 * and as a compressing layer sees best. */
static void face_copy(const grid *g, double *field, int dim, int layer, double *buf, int to_buf)
{
    size_t m = 0;
    int na = g->n[dim == 0 ? 1 : 0], nb = g->n[dim == 2 ? 1 : 2];
    for (int b = 1; b <= nb; b++)
        for (int a = 1; a <= na; a++, m++) {
            size_t id = dim == 0 ? IDX(g, layer, a, b) : dim == 1 ? IDX(g, a, layer, b) : IDX(g, a, b, layer);
            if (to_buf) buf[m] = field[id];
            else field[id] = buf[m];
        }
}

/* The layer `layer` normal to dim as one derived-type element from the
 * field's start plus *off doubles: z layers are a vector of rows (n[1] rows of
 * n[0] doubles, s[0] apart), x and y layers subarrays of the whole field. */
static MPI_Datatype face_type(const grid *g, int dim, int layer, size_t *off)
{
    MPI_Datatype t;
    *off = 0;
    if (dim == 2) {
        MPI_Type_vector(g->n[1], g->n[0], g->s[0], MPI_DOUBLE, &t);
        *off = IDX(g, 1, 1, layer);
    } else {
        int sizes[3] = {g->s[2], g->s[1], g->s[0]}, subs[3] = {g->n[2], g->n[1], g->n[0]}, starts[3] = {1, 1, 1};
        subs[2 - dim] = 1;
        starts[2 - dim] = layer;
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    }
    MPI_Type_commit(&t);
    return t;
}

/* Halo exchange with each face sent from and received into the field itself. */
static void exchange_types(grid *g, int use_isend)
{
    MPI_Request req[12];
    MPI_Status st[12];
    int nr = 0;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            int f = 2 * d + s, to = g->nb[d][s], from = g->nb[d][1 - s], rf = 2 * d + 1 - s;
            if (use_isend) {
                if (g->nb[d][s] != MPI_PROC_NULL)
                    MPI_Irecv(g->u + g->recv_off[f], 1, g->recv_type[f], g->nb[d][s], 100 + 2 * d + s, g->comm,
                              &req[nr++]);
                continue;
            }
            MPI_Sendrecv(g->u + g->send_off[f], 1, g->send_type[f], to, 100 + 2 * d + (1 - s), g->u + g->recv_off[rf],
                         1, g->recv_type[rf], from, 100 + 2 * d + (1 - s), g->comm, MPI_STATUS_IGNORE);
        }
    if (!use_isend) return;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (g->nb[d][s] != MPI_PROC_NULL)
                MPI_Isend(g->u + g->send_off[2 * d + s], 1, g->send_type[2 * d + s], g->nb[d][s], 100 + 2 * d + (1 - s),
                          g->comm, &req[nr++]);
    MPI_Waitall(nr, req, st);
}

/* Halo exchange of g->u. Tags name the receiver's ghost side so the blocking
 * and nonblocking variants match messages the same way. */
/* --neighbor: the six faces in one MPI_Neighbor_alltoallv on the cartesian
 * communicator, whose neighbour order (per dimension the -1 then the +1
 * neighbour) is nb[d][0], nb[d][1]: to the -1 neighbour goes my low owned
 * layer, from it comes my low ghost layer. Neighbours at the boundary are
 * MPI_PROC_NULL: nothing goes or comes there. */
static void exchange_neighbor(grid *g)
{
    static double *sb, *rb;
    int counts[6], displs[6], total = 0;
    for (int f = 0; f < 6; f++) {
        counts[f] = face_count(g, f / 2);
        displs[f] = total;
        total += counts[f];
    }
    if (!sb) {
        sb = malloc((size_t)total * sizeof(double));
        rb = malloc((size_t)total * sizeof(double));
        if (!sb || !rb) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (g->nb[d][s] != MPI_PROC_NULL) face_copy(g, g->u, d, s ? g->n[d] : 1, sb + displs[2 * d + s], 1);
    MPI_Neighbor_alltoallv(sb, counts, displs, MPI_DOUBLE, rb, counts, displs, MPI_DOUBLE, g->comm);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (g->nb[d][s] != MPI_PROC_NULL) face_copy(g, g->u, d, s ? g->n[d] + 1 : 0, rb + displs[2 * d + s], 0);
}

/* --dump-faces: the face the rank is about to send, as sample data for the
 * codec calibration (compi calibrate codecs --files). */
static void dump_face(const double *buf, int count, int face)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/it%02d_r%03d_f%d.bin", g_dump_dir, g_exchanges + 1, g_rank, face);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, sizeof(double), (size_t)count, f) != (size_t)count || fclose(f) != 0) {
        fprintf(stderr, "compi_stencil3d: cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void exchange(grid *g, int use_isend)
{
    if (use_isend == 2) {
        exchange_neighbor(g);
        return;
    }
    if (use_isend) {
        MPI_Request req[12];
        MPI_Status st[12]; /* not MPI_STATUSES_IGNORE: silences a GCC false positive with MPICH's header */
        int nr = 0;
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++)
                if (g->nb[d][s] != MPI_PROC_NULL)
                    MPI_Irecv(g->recvbuf[2 * d + s], face_count(g, d), MPI_DOUBLE, g->nb[d][s], 100 + 2 * d + s,
                              g->comm, &req[nr++]);
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++)
                if (g->nb[d][s] != MPI_PROC_NULL) {
                    face_copy(g, g->u, d, s ? g->n[d] : 1, g->sendbuf[2 * d + s], 1);
                    MPI_Isend(g->sendbuf[2 * d + s], face_count(g, d), MPI_DOUBLE, g->nb[d][s], 100 + 2 * d + (1 - s),
                              g->comm, &req[nr++]);
                }
        MPI_Waitall(nr, req, st);
    } else {
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++) {
                /* Send my side-s face to that neighbour; receive the opposite
                 * neighbour's face into my opposite ghost layer. */
                int to = g->nb[d][s], from = g->nb[d][1 - s], count = face_count(g, d);
                if (to != MPI_PROC_NULL) face_copy(g, g->u, d, s ? g->n[d] : 1, g->sendbuf[2 * d + s], 1);
                if (to != MPI_PROC_NULL && g_dump_dir) dump_face(g->sendbuf[2 * d + s], count, 2 * d + s);
                MPI_Sendrecv(g->sendbuf[2 * d + s], count, MPI_DOUBLE, to, 100 + 2 * d + (1 - s),
                             g->recvbuf[2 * d + 1 - s], count, MPI_DOUBLE, from, 100 + 2 * d + (1 - s), g->comm,
                             MPI_STATUS_IGNORE);
            }
    }
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (g->nb[d][s] != MPI_PROC_NULL) face_copy(g, g->u, d, s ? g->n[d] + 1 : 0, g->recvbuf[2 * d + s], 0);
    g_exchanges++;
}

/* One Jacobi step into unew; returns the local sum of squared changes. The
 * arithmetic order is fixed, so results are bitwise reproducible. */
static double step(grid *g, double kappa)
{
    const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
    const size_t sx = 1, sy = (size_t)g->s[0], sz = (size_t)g->s[0] * (size_t)g->s[1];
    double res = 0;
    for (int k = 1; k <= nz; k++)
        for (int j = 1; j <= ny; j++) {
            size_t c = IDX(g, 1, j, k);
            const unsigned char *src = &g->source[(size_t)nx * ((size_t)(j - 1) + (size_t)ny * (size_t)(k - 1))];
            for (int i = 0; i < nx; i++, c++) {
                const double *u = g->u;
                double v = src[i] ? T_SOURCE
                                  : u[c] + kappa * (u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - sz] +
                                                    u[c + sz] - 6.0 * u[c]);
                double dv = v - u[c];
                res += dv * dv;
                g->unew[c] = v;
            }
        }
    double *t = g->u;
    g->u = g->unew;
    g->unew = t;
    return res;
}

/* --omp: the cells of plane k with i in [ilo, ihi], j in [jlo, jhi] (and,
 * with ring set, only those on the plane's rim), the same per-cell
 * arithmetic as step(), their squared changes summed in a fixed order: the
 * field is bitwise that of step() whatever the thread count. */
static double step_cells(grid *g, double kappa, int k, int lo, int jhi, int ihi, int ring)
{
    const size_t sx = 1, sy = (size_t)g->s[0], sz = (size_t)g->s[0] * (size_t)g->s[1];
    const int nx = g->n[0], ny = g->n[1];
    double res = 0;
    for (int j = lo; j <= jhi; j++) {
        const unsigned char *src = &g->source[(size_t)nx * ((size_t)(j - 1) + (size_t)ny * (size_t)(k - 1))];
        int rim_row = j == 1 || j == ny;
        for (int i = lo; i <= ihi; i++) {
            if (ring && !rim_row && i != 1 && i != nx) continue;
            size_t c = IDX(g, i, j, k);
            const double *u = g->u;
            double v = src[i - 1] ? T_SOURCE
                                  : u[c] + kappa * (u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - sz] +
                                                    u[c + sz] - 6.0 * u[c]);
            double dv = v - u[c];
            res += dv * dv;
            g->unew[c] = v;
        }
    }
    return res;
}

/* One exchange + Jacobi step in the hybrid styles; returns the local sum of
 * squared changes (per-plane partial sums added in plane order). */
static double step_omp(grid *g, const options *o, double *comm_time)
{
    const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
    double *inner = calloc((size_t)nz + 1, sizeof(double)), *outer = calloc((size_t)nz + 1, sizeof(double));
    if (!inner || !outer) MPI_Abort(MPI_COMM_WORLD, 3);
    if (o->omp == OMP_MASTERONLY) {
        /* MPI outside parallel regions, by the master alone */
        double tc = MPI_Wtime();
        if (o->face_types) exchange_types(g, o->use_isend);
        else exchange(g, o->use_isend);
        *comm_time += MPI_Wtime() - tc;
#pragma omp parallel for schedule(static)
        for (int k = 1; k <= nz; k++) inner[k] = step_cells(g, o->kappa, k, 1, ny, nx, 0);
    } else {
        /* the master exchanges halos while the others update the cells
         * that need no ghost; then everyone does the rim */
#pragma omp parallel
        {
#pragma omp master
            {
                double tc = MPI_Wtime();
                if (o->face_types) exchange_types(g, o->use_isend);
                else exchange(g, o->use_isend);
                *comm_time += MPI_Wtime() - tc;
            }
#pragma omp for schedule(dynamic, 1) nowait
            for (int k = 2; k <= nz - 1; k++) inner[k] = step_cells(g, o->kappa, k, 2, ny - 1, nx - 1, 0);
#pragma omp barrier
#pragma omp for schedule(static)
            for (int k = 1; k <= nz; k++)
                outer[k] = k == 1 || k == nz ? step_cells(g, o->kappa, k, 1, ny, nx, 0)
                                             : step_cells(g, o->kappa, k, 1, ny, nx, 1);
        }
    }
    double res = 0;
    for (int k = 1; k <= nz; k++) res += inner[k] + outer[k];
    free(inner);
    free(outer);
    double *t = g->u;
    g->u = g->unew;
    g->unew = t;
    return res;
}

static inline uint64_t mix64(uint64_t x)
{ /* splitmix64 finaliser */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static inline uint64_t dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

int main(int argc, char **argv)
{
    /* the hybrid styles call MPI from the master thread only */
    int hybrid = 0;
    for (int i = 1; i < argc; i++) hybrid |= !strcmp(argv[i], "--omp");
    int provided = MPI_THREAD_SINGLE;
    if (hybrid) MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    else MPI_Init(&argc, &argv);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    parse_args(argc, argv, &o);
    if (o.omp && provided < MPI_THREAD_FUNNELED) {
        if (g_rank == 0)
            fprintf(stderr, "compi_stencil3d: --omp needs MPI_THREAD_FUNNELED; the MPI provides %d\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    grid g;
    memset(&g, 0, sizeof g);
    for (int d = 0; d < 3; d++) g.n[d] = o.n[d], g.s[d] = o.n[d] + 2;
    if (o.decomp3d) {
        MPI_Dims_create(nranks, 3, g.dims);
    } else {
        g.dims[0] = g.dims[1] = 1;
        g.dims[2] = nranks;
    }
    int periods[3] = {0, 0, 0};
    /* reorder=0: cart rank = world rank, so with 1D slabs the slab order follows
     * the rank order and only the slab boundaries between nodes cross the network. */
    MPI_Cart_create(MPI_COMM_WORLD, 3, g.dims, periods, 0, &g.comm);
    MPI_Cart_coords(g.comm, g_rank, 3, g.coords);
    for (int d = 0; d < 3; d++) MPI_Cart_shift(g.comm, d, 1, &g.nb[d][0], &g.nb[d][1]);

    const size_t cells = (size_t)g.s[0] * g.s[1] * g.s[2], owned = (size_t)g.n[0] * g.n[1] * g.n[2];
    size_t face = 0; /* largest face, for the buffers */
    for (int d = 0; d < 3; d++)
        if ((size_t)face_count(&g, d) > face) face = (size_t)face_count(&g, d);
    g.u = malloc(cells * sizeof(double));
    g.unew = malloc(cells * sizeof(double));
    g.source = malloc(owned);
    for (int f = 0; f < 6; f++) {
        g.sendbuf[f] = calloc(face, sizeof(double));
        g.recvbuf[f] = calloc(face, sizeof(double));
        if (!g.sendbuf[f] || !g.recvbuf[f]) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (!g.u || !g.unew || !g.source) {
        fprintf(stderr, "compi_stencil3d: out of memory (%dx%dx%d)\n", o.n[0], o.n[1], o.n[2]);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }

    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            g.send_type[2 * d + s] = face_type(&g, d, s ? g.n[d] : 1, &g.send_off[2 * d + s]);
            g.recv_type[2 * d + s] = face_type(&g, d, s ? g.n[d] + 1 : 0, &g.recv_off[2 * d + s]);
        }

    /* Ghosts at the global boundary keep T_AMBIENT forever (Dirichlet walls). */
    for (size_t c = 0; c < cells; c++) g.u[c] = g.unew[c] = T_AMBIENT;
    long gext[3];
    for (int d = 0; d < 3; d++) gext[d] = (long)g.dims[d] * g.n[d];
    long minext = gext[0] < gext[1] ? gext[0] : gext[1];
    if (gext[2] < minext) minext = gext[2];
    double r = o.radius * (double)minext, r2 = r * r;
    size_t nsrc = 0;
    for (int k = 1; k <= g.n[2]; k++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int i = 1; i <= g.n[0]; i++) {
                /* Cell centres in global coordinates; sphere at the domain centre. */
                double x = (double)g.coords[0] * g.n[0] + i - 0.5 - gext[0] / 2.0;
                double y = (double)g.coords[1] * g.n[1] + j - 0.5 - gext[1] / 2.0;
                double z = (double)g.coords[2] * g.n[2] + k - 0.5 - gext[2] / 2.0;
                int in = x * x + y * y + z * z <= r2;
                g.source[(size_t)(i - 1) + (size_t)g.n[0] * ((size_t)(j - 1) + (size_t)g.n[1] * (size_t)(k - 1))] =
                    (unsigned char)in;
                if (in) g.u[IDX(&g, i, j, k)] = g.unew[IDX(&g, i, j, k)] = T_SOURCE, nsrc++;
            }

    /* Rank placement, so a reader can see which slab boundaries cross nodes
     * (compi compresses only those). */
    char pname[MPI_MAX_PROCESSOR_NAME] = {0};
    int plen;
    MPI_Get_processor_name(pname, &plen);
    char *pnames = g_rank == 0 ? malloc((size_t)MPI_MAX_PROCESSOR_NAME * (size_t)nranks) : NULL;
    MPI_Gather(pname, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, pnames, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    unsigned long long nsrc_all = 0, nsrc_local = nsrc;
    MPI_Reduce(&nsrc_local, &nsrc_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("compi_stencil3d: %d ranks, decomposition %dx%dx%d, local %dx%dx%d, global %ldx%ldx%ld, %d iterations, "
               "halo %s (%s), kappa %g, source radius %.1f cells (%llu cells at %.0f)\n",
               nranks, g.dims[0], g.dims[1], g.dims[2], g.n[0], g.n[1], g.n[2], gext[0], gext[1], gext[2], o.iters,
               o.use_isend == 2 ? "neighbor"
               : o.use_isend    ? "isend"
                                : "sendrecv",
               o.face_types ? "faces as derived types" : "faces packed", o.kappa, r, nsrc_all, T_SOURCE);
        printf("halo messages (doubles): x faces %d, y faces %d, z faces %d (%d bytes)\nplacement:", face_count(&g, 0),
               face_count(&g, 1), face_count(&g, 2), face_count(&g, 2) * (int)sizeof(double));
        for (int q = 0; q < nranks; q++) {
            const char *nm = pnames + (size_t)q * MPI_MAX_PROCESSOR_NAME;
            if (q == 0 || strcmp(nm, pnames + (size_t)(q - 1) * MPI_MAX_PROCESSOR_NAME))
                printf("%s %s:", q ? ";" : "", nm);
            printf(" %d", q);
        }
        printf("\n");
        free(pnames);
        fflush(stdout);
    }

    double residual = 0, comm_time = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 1; it <= o.iters; it++) {
        double tc = MPI_Wtime(), local;
        if (o.omp) {
            local = step_omp(&g, &o, &comm_time);
        } else {
            if (o.face_types) exchange_types(&g, o.use_isend);
            else exchange(&g, o.use_isend);
            comm_time += MPI_Wtime() - tc;
            local = step(&g, o.kappa);
        }
        if (it % o.check_every == 0 || it == o.iters) {
            tc = MPI_Wtime();
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            comm_time += MPI_Wtime() - tc;
            if (g_rank == 0 && !o.quiet) printf("iter %6d  residual %.17g\n", it, residual);
        }
    }
    double elapsed = MPI_Wtime() - t0;

    /* Order-independent bitwise field hash: wrap-around sum of mixed (global
     * index, value bits) pairs; exact, so any change in any bit shows. */
    uint64_t hash = 0;
    for (int k = 1; k <= g.n[2]; k++)
        for (int j = 1; j <= g.n[1]; j++)
            for (int i = 1; i <= g.n[0]; i++) {
                uint64_t gi = (uint64_t)(g.coords[0] * g.n[0] + i - 1) +
                              (uint64_t)gext[0] * ((uint64_t)(g.coords[1] * g.n[1] + j - 1) +
                                                   (uint64_t)gext[1] * (uint64_t)(g.coords[2] * g.n[2] + k - 1));
                hash += mix64(dbits(g.u[IDX(&g, i, j, k)]) ^ mix64(gi + 0x9e3779b97f4a7c15ULL));
            }

    /* Gather the per-rank hashes and each rank's x-z mid-plane (a field slice:
     * the classic "write a picture" collective, and another compressible message). */
    uint64_t *hashes = g_rank == 0 ? malloc(sizeof(uint64_t) * (size_t)nranks) : NULL;
    MPI_Gather(&hash, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const size_t sl = (size_t)face_count(&g, 1);
    double *slice = malloc(sl * sizeof(double));
    double *slices = g_rank == 0 ? malloc(sl * sizeof(double) * (size_t)nranks) : NULL;
    face_copy(&g, g.u, 1, g.n[1] / 2 + 1, slice, 1);
    MPI_Gather(slice, (int)sl, MPI_DOUBLE, slices, (int)sl, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    double tmax, comm_max, comm_sum;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&comm_time, &comm_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&comm_time, &comm_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    if (g_rank == 0) {
        uint64_t total = 0, slice_hash = 0xcbf29ce484222325ULL; /* FNV-1a over the gathered slice bytes */
        for (int q = 0; q < nranks; q++) total += hashes[q];
        const unsigned char *sb = (const unsigned char *)slices;
        for (size_t b = 0; b < sl * sizeof(double) * (size_t)nranks; b++)
            slice_hash = (slice_hash ^ sb[b]) * 0x100000001b3ULL;
        /* Bytes one rank sends to a z neighbour over the run: context for timings. */
        double halo_mb = (double)face_count(&g, 2) * sizeof(double) * o.iters / 1e6;
        printf("checksum %016llx\n", (unsigned long long)total);
        printf("slice_hash %016llx\n", (unsigned long long)slice_hash);
        printf(
            "time %.6f s  (halo exchange+allreduce: max %.3f s, mean %.3f s per rank; %.1f MB sent per z neighbour)\n",
            tmax, comm_max, comm_sum / nranks, halo_mb);
        printf("RESULT checksum=%016llx slice_hash=%016llx time_s=%.6f comm_max_s=%.6f residual=%.17g\n",
               (unsigned long long)total, (unsigned long long)slice_hash, tmax, comm_max, residual);
        fflush(stdout);
    }
    free(hashes);
    free(slices);
    free(slice);
    for (int f = 0; f < 6; f++) {
        free(g.sendbuf[f]), free(g.recvbuf[f]);
        MPI_Type_free(&g.send_type[f]);
        MPI_Type_free(&g.recv_type[f]);
    }
    free(g.u);
    free(g.unew);
    free(g.source);
    MPI_Comm_free(&g.comm);
    MPI_Finalize();
    return 0;
}
