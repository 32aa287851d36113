/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_iobench: collective writes and reads through MPI-IO, the MPI's own
 * two-phase against compi's (issue 12), in one run.
 *
 * Two access patterns:
 *   bips3d  the bips3d mini-app's mesh (apps/bips3d_mesh.h), METIS-partitioned
 *           over the ranks; every mesh node carries `load` doubles, stored at
 *           node_id * load * 8 in the file; each rank writes its part through
 *           an indexed file view (MPI_Type_create_indexed_block of its nodes,
 *           blocks of `load` doubles), memory contiguous: the irregular
 *           distribution of BIPS3D's output.
 *   stem    a regular 3D grid of doubles in C order, cut into blocks by
 *           MPI_Dims_create; each rank writes its block through a subarray
 *           view (STEM's output).
 * Variants, each on its own file DIR/compi_iobench_<pattern>_<variant>.dat:
 *   mpi       hint compi_cb_aggregators=mpi: the MPI's own MPI-IO (OMPIO or
 *             ROMIO, whatever the launch selects), on a communicator with
 *             compi_mode=off
 *   default   compi's two-phase, ROMIO-like aggregators (one per node)
 *   la        compi's two-phase, linear-assignment aggregators (bytes weight)
 *   la-blocks la weighing contiguous block counts ([Filgueira 2010]'s weight)
 *   la-z      la on a communicator in the environment's COMPI_MODE
 *             (adaptive when run by `compi bench io`): the redistribution
 *             compressed
 * default, la, la-blocks run on the compi_mode=off communicator, so they
 * show placement alone. Each rep runs every variant (the first rotates), a
 * write then, after all writes, a read-back of each variant's own file with
 * the same view, verified value by value. Time of one write = max over ranks
 * of MPI_File_write_all + MPI_File_close after a barrier (the close is where
 * the data is handed to the file system); of one read: MPI_File_read_all.
 * Ratios are time(mpi) / time(variant) per rep (> 1: the variant is faster),
 * their median and a distribution-free ~90 % interval. After the reps rank 0
 * compares every variant's file with the mpi variant's byte for byte.
 * Without libcompi preloaded every variant is the MPI's own (the interposer
 * line says so). Redistribution bytes come from compi's report
 * (COMPI_REPORT), per file name: `compi bench io` prints them. */
#define _GNU_SOURCE
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bips3d_mesh.h"

#define ALPHA 0.10

enum { V_MPI, V_DEFAULT, V_LA, V_LA_BLOCKS, V_LA_Z, NVAR };
static const char *const var_names[NVAR] = {"mpi", "default", "la", "la-blocks", "la-z"};

typedef struct {
    const char *pattern; /* bips3d | stem */
    int load;
    long mesh_nodes;
    int grid[3]; /* nx ny nz */
    int reps, warmup;
    const char *dir;
    int vars[NVAR], nvars;
    int read, keep, quiet;
    int expect_nodes;      /* 0: any */
    const char *numbering; /* bips3d file numbering: cells | rcm | xsweep (bips3d_mesh_numbering) */
    const char *dump;      /* --dump FILE: every rank's file segments (for tests/io/check_io_bytes.py) */
} options;

static int g_rank, g_size;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "compi_iobench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static void usage_exit(int code, const char *why)
{
    if (g_rank == 0) {
        if (why) fprintf(stderr, "compi_iobench: %s\n", why);
        fprintf(code ? stderr : stdout,
                "usage: compi_iobench [--pattern bips3d|stem] [--load N] [--mesh-nodes N] [--grid NX[,NY,NZ]]\n"
                "                     [--numbering cells|rcm|xsweep]\n"
                "                     [--reps R] [--warmup W] [--dir DIR] [--variants mpi,default,la,la-blocks,la-z]\n"
                "                     [--no-read] [--keep] [--quiet] [--expect-nodes N] [--dump FILE]\n"
                "  defaults: bips3d, load 100, 20000 mesh nodes, grid 128, 5 reps, 1 warm-up, DIR /tmp,\n"
                "  every variant; files are deleted at the end unless --keep\n");
    }
    MPI_Finalize();
    exit(code);
}

static void parse_args(int argc, char **argv, options *o)
{
    *o = (options){.pattern = "bips3d",
                   .load = 100,
                   .mesh_nodes = 20000,
                   .grid = {128, 128, 128},
                   .reps = 5,
                   .warmup = 1,
                   .dir = "/tmp",
                   .read = 1,
                   .numbering = "cells"};
    for (int v = 0; v < NVAR; v++) o->vars[o->nvars++] = v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) usage_exit(0, NULL);
        else if (!strcmp(a, "--no-read")) o->read = 0;
        else if (!strcmp(a, "--keep")) o->keep = 1;
        else if (!strcmp(a, "--quiet")) o->quiet = 1;
        else if (!v) usage_exit(2, "an option lacks its value");
        else if (!strcmp(a, "--pattern") && (!strcmp(v, "bips3d") || !strcmp(v, "stem"))) o->pattern = v, i++;
        else if (!strcmp(a, "--load") && (o->load = atoi(v)) >= 1) i++;
        else if (!strcmp(a, "--mesh-nodes") && (o->mesh_nodes = atol(v)) >= 64 && o->mesh_nodes <= 50000000L) i++;
        else if (!strcmp(a, "--reps") && (o->reps = atoi(v)) >= 1) i++;
        else if (!strcmp(a, "--warmup") && (o->warmup = atoi(v)) >= 0) i++;
        else if (!strcmp(a, "--dir")) o->dir = v, i++;
        else if (!strcmp(a, "--dump")) o->dump = v, i++;
        else if (!strcmp(a, "--numbering") && v && (!strcmp(v, "cells") || !strcmp(v, "rcm") || !strcmp(v, "xsweep")))
            o->numbering = v, i++;
        else if (!strcmp(a, "--expect-nodes") && (o->expect_nodes = atoi(v)) >= 1) i++;
        else if (!strcmp(a, "--grid")) {
            int n = sscanf(v, "%d,%d,%d", &o->grid[0], &o->grid[1], &o->grid[2]);
            if (n == 1) o->grid[1] = o->grid[2] = o->grid[0];
            if ((n != 1 && n != 3) || o->grid[0] < 1 || o->grid[1] < 1 || o->grid[2] < 1) usage_exit(2, "bad --grid");
            i++;
        } else if (!strcmp(a, "--variants")) {
            o->nvars = 0;
            char *s = strdup(v), *save = NULL;
            for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < NVAR && strcmp(t, var_names[k])) k++;
                if (k == NVAR || o->nvars == NVAR) usage_exit(2, "unknown or repeated --variants name");
                o->vars[o->nvars++] = k;
            }
            free(s);
            if (o->nvars == 0 || o->vars[0] != V_MPI) usage_exit(2, "--variants must start with mpi (the reference)");
            i++;
        } else {
            char why[200];
            snprintf(why, sizeof why, "unknown option or bad value: %s", a);
            usage_exit(2, why);
        }
    }
}

/* ------------------------------------------------------------ patterns */

typedef struct {
    MPI_Datatype filetype; /* view: etype MPI_DOUBLE */
    double *data;          /* my values, in view order */
    int count;             /* doubles */
    int64_t file_bytes;    /* the whole file */
    char desc[200];
    int64_t *segs; /* my file segments (offset, length pairs), from the pattern's own construction */
    int nseg;
} pattern;

/* A file segment of mine, merged with the previous one when it continues it. */
static void add_seg(pattern *p, int *cap, int64_t off, int64_t len)
{
    if (p->nseg && p->segs[2 * p->nseg - 2] + p->segs[2 * p->nseg - 1] == off) {
        p->segs[2 * p->nseg - 1] += len;
        return;
    }
    if (p->nseg == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        p->segs = realloc(p->segs, sizeof(int64_t) * 2 * (size_t)*cap);
        if (!p->segs) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    p->segs[2 * p->nseg] = off;
    p->segs[2 * p->nseg + 1] = len;
    p->nseg++;
}

/* The mesh file: node i's `load` doubles at file position pos[i] (the
 * --numbering: cells, the generator's own, is the identity). The partition
 * is METIS's on the mesh as generated, whatever the numbering. */
static void make_bips3d(const options *o, pattern *p)
{
    bips3d_mesh m = bips3d_mesh_build(o->mesh_nodes, 8, 2024);
    int *part = xmalloc(sizeof(int) * (size_t)m.n), *order = xmalloc(sizeof(int) * (size_t)m.n);
    long cut = 0;
    if (g_rank == 0) bips3d_mesh_partition(&m, g_size, 0, part, &cut);
    MPI_Bcast(part, m.n, MPI_INT, 0, MPI_COMM_WORLD);
    if (bips3d_mesh_numbering(&m, o->numbering, order) != 0) usage_exit(2, "bad --numbering");
    int mine = 0;
    for (int i = 0; i < m.n; i++) mine += part[i] == g_rank;
    /* my nodes by file position, increasing (a file view's displacements must) */
    int64_t *byp = xmalloc(sizeof(int64_t) * 2 * (size_t)(mine ? mine : 1));
    for (int k = 0, q = 0; k < m.n; k++)
        if (part[order[k]] == g_rank) byp[2 * q] = k, byp[2 * q + 1] = order[k], q++;
    int *disp = xmalloc(sizeof(int) * (size_t)(mine ? mine : 1));
    p->count = mine * o->load;
    p->data = xmalloc(sizeof(double) * (size_t)(p->count ? p->count : 1));
    /* each node's device data decaying over `load` steps: oxide and gate
     * nodes (no doping) hold zeros, as the mini-app's flushed densities do */
    int cap = 0;
    for (int k = 0; k < mine; k++) {
        int64_t pos = byp[2 * k];
        int i = (int)byp[2 * k + 1];
        disp[k] = (int)pos * o->load;
        add_seg(p, &cap, pos * o->load * 8, (int64_t)o->load * 8);
        for (int j = 0; j < o->load; j++)
            p->data[(size_t)k * o->load + j] = m.dop[i] * exp(-(double)j / o->load) + (m.dop[i] ? m.phi[i] : 0);
    }
    MPI_Type_create_indexed_block(mine, o->load, disp, MPI_DOUBLE, &p->filetype);
    MPI_Type_commit(&p->filetype);
    p->file_bytes = (int64_t)m.n * o->load * 8;
    snprintf(p->desc, sizeof p->desc,
             "bips3d mesh %d nodes (METIS, edge cut %ld), numbering %s, load %d doubles/node, %.1f MiB", m.n, cut,
             o->numbering, o->load, p->file_bytes / 1048576.0);
    free(disp);
    free(byp);
    free(order);
    free(part);
    bips3d_mesh_free(&m);
}

static void make_stem(const options *o, pattern *p)
{
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    MPI_Dims_create(g_size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, g_rank, 3, coords);
    MPI_Comm_free(&cart);
    /* C order [nz][ny][nx]; dims[0] cuts z, dims[1] y, dims[2] x */
    int gs[3] = {o->grid[2], o->grid[1], o->grid[0]}, ls[3], st[3];
    for (int d = 0; d < 3; d++) {
        int q = gs[d] / dims[d], r = gs[d] % dims[d];
        ls[d] = q + (coords[d] < r);
        st[d] = coords[d] * q + (coords[d] < r ? coords[d] : r);
    }
    int empty = ls[0] == 0 || ls[1] == 0 || ls[2] == 0;
    if (empty) { /* a subarray needs sizes >= 1: an empty block writes nothing */
        MPI_Type_contiguous(1, MPI_DOUBLE, &p->filetype);
        p->count = 0;
    } else {
        MPI_Type_create_subarray(3, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &p->filetype);
        p->count = ls[0] * ls[1] * ls[2];
    }
    MPI_Type_commit(&p->filetype);
    p->data = xmalloc(sizeof(double) * (size_t)(p->count ? p->count : 1));
    size_t k = 0;
    int cap = 0;
    for (int z = 0; z < ls[0] && !empty; z++)
        for (int y = 0; y < ls[1]; y++) {
            add_seg(p, &cap, (((int64_t)(st[0] + z) * gs[1] + st[1] + y) * gs[2] + st[2]) * 8, (int64_t)ls[2] * 8);
            for (int x = 0; x < ls[2]; x++) {
                double gz = (double)(st[0] + z) / gs[0], gy = (double)(st[1] + y) / gs[1],
                       gx = (double)(st[2] + x) / gs[2];
                /* a species concentration: decays with height, a plume */
                p->data[k++] = 40.0 * exp(-3 * gz) * (1 + 0.2 * sin(6.28 * gx) * cos(6.28 * gy)) +
                               80.0 * exp(-((gx - .3) * (gx - .3) + (gy - .6) * (gy - .6)) / 0.01 - 8 * gz);
            }
        }
    p->file_bytes = (int64_t)gs[0] * gs[1] * gs[2] * 8;
    snprintf(p->desc, sizeof p->desc, "stem grid %dx%dx%d doubles, %dx%dx%d blocks (subarray views), %.1f MiB",
             o->grid[0], o->grid[1], o->grid[2], dims[2], dims[1], dims[0], p->file_bytes / 1048576.0);
}

/* --dump FILE: rank 0 writes "ranks N", "file_bytes B", then "rank offset
 * length" per segment of every rank (the pattern's own construction, not
 * a flattening of its view): the distribution tests/io/check_io_bytes.py
 * recomputes the redistribution bytes from. */
static void dump_segments(const options *o, pattern *p)
{
    int n2 = 2 * p->nseg, *cnt = NULL, *dis = NULL;
    int64_t *all = NULL;
    if (g_rank == 0) cnt = xmalloc(sizeof(int) * (size_t)g_size), dis = xmalloc(sizeof(int) * (size_t)g_size);
    MPI_Gather(&n2, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    if (g_rank == 0) {
        for (int r = 0; r < g_size; r++) dis[r] = total, total += cnt[r];
        all = xmalloc(sizeof(int64_t) * (size_t)(total ? total : 1));
    }
    MPI_Gatherv(p->segs, n2, MPI_INT64_T, all, cnt, dis, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        FILE *f = fopen(o->dump, "w");
        if (!f) {
            fprintf(stderr, "compi_iobench: cannot write %s\n", o->dump);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fprintf(f, "ranks %d\nfile_bytes %lld\n", g_size, (long long)p->file_bytes);
        for (int r = 0; r < g_size; r++)
            for (int i = 0; i < cnt[r]; i += 2)
                fprintf(f, "%d %lld %lld\n", r, (long long)all[dis[r] + i], (long long)all[dis[r] + i + 1]);
        fclose(f);
        free(cnt), free(dis), free(all);
    }
}

/* ------------------------------------------------------------ variants */

typedef struct {
    MPI_Comm comm;
    MPI_Info info;
    char path[4096];
} variant;

static void make_variant(const options *o, int v, MPI_Comm c_off, MPI_Comm c_env, variant *out)
{
    out->comm = v == V_LA_Z ? c_env : c_off;
    MPI_Info_create(&out->info);
    static const char *const policy[NVAR] = {"mpi", "default", "la", "la", "la"};
    MPI_Info_set(out->info, "compi_cb_aggregators", policy[v]);
    if (v == V_LA_BLOCKS) MPI_Info_set(out->info, "compi_cb_weight", "blocks");
    snprintf(out->path, sizeof out->path, "%s/compi_iobench_%s_%s.dat", o->dir, o->pattern, var_names[v]);
}

static void check_mpi(int rc, const char *what, const char *path)
{
    if (rc == MPI_SUCCESS) return;
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, s, &n);
    fprintf(stderr, "compi_iobench: rank %d: %s %s: %s\n", g_rank, what, path, s);
    MPI_Abort(MPI_COMM_WORLD, 5);
}

static double write_once(const pattern *p, const variant *v)
{
    MPI_File fh;
    if (g_rank == 0) MPI_File_delete(v->path, MPI_INFO_NULL); /* no stale bytes from an earlier rep */
    MPI_Barrier(MPI_COMM_WORLD);
    check_mpi(MPI_File_open(v->comm, v->path, MPI_MODE_CREATE | MPI_MODE_WRONLY, v->info, &fh), "open", v->path);
    check_mpi(MPI_File_set_view(fh, 0, MPI_DOUBLE, p->filetype, "native", v->info), "set_view", v->path);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    check_mpi(MPI_File_write_all(fh, p->data, p->count, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_all", v->path);
    check_mpi(MPI_File_close(&fh), "close", v->path);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* Reads the variant's file back; *bad = values that differ (all ranks). */
static double read_once(const pattern *p, const variant *v, double *buf, long *bad)
{
    MPI_File fh;
    memset(buf, 0xff, sizeof(double) * (size_t)(p->count ? p->count : 1));
    check_mpi(MPI_File_open(v->comm, v->path, MPI_MODE_RDONLY, v->info, &fh), "open", v->path);
    check_mpi(MPI_File_set_view(fh, 0, MPI_DOUBLE, p->filetype, "native", v->info), "set_view", v->path);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    check_mpi(MPI_File_read_all(fh, buf, p->count, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_all", v->path);
    double t = MPI_Wtime() - t0, tmax;
    check_mpi(MPI_File_close(&fh), "close", v->path);
    long mine = 0;
    for (int i = 0; i < p->count; i++) mine += memcmp(&buf[i], &p->data[i], sizeof(double)) != 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return tmax;
}

/* Rank 0: 1 when files a and b hold the same bytes. */
static int same_file(const char *a, const char *b, int64_t *size)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    *size = 0;
    static unsigned char x[1 << 16], y[1 << 16];
    while (same) {
        size_t na = fread(x, 1, sizeof x, fa), nb = fread(y, 1, sizeof y, fb);
        if (na != nb || memcmp(x, y, na)) same = 0;
        *size += (int64_t)na;
        if (na == 0) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

typedef struct {
    double med, ratio, lo, hi, cov;
} summary;

static void summarize(const double *ref, const double *t, int n, summary *s)
{
    double *c = xmalloc(sizeof(double) * (size_t)n), *r = xmalloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) c[i] = t[i], r[i] = t[i] > 0 ? ref[i] / t[i] : 0;
    s->med = bench_median(c, n);
    s->ratio = bench_median(r, n);
    bench_median_ci(r, n, ALPHA, &s->lo, &s->hi, &s->cov);
    free(c);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    options o;
    parse_args(argc, argv, &o);
    pattern p;
    memset(&p, 0, sizeof p);
    if (!strcmp(o.pattern, "bips3d")) make_bips3d(&o, &p);
    else make_stem(&o, &p);

    if (o.dump) dump_segments(&o, &p);

    MPI_Info off;
    MPI_Info_create(&off);
    MPI_Info_set(off, "compi_mode", "off");
    MPI_Comm c_off, c_env;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, off, &c_off);
    MPI_Comm_dup(MPI_COMM_WORLD, &c_env);
    MPI_Info_free(&off);
    variant vs[NVAR];
    for (int k = 0; k < o.nvars; k++) make_variant(&o, o.vars[k], c_off, c_env, &vs[k]);

    char interposer[512];
    bench_describe_interposer("MPI_File_write_all", interposer, sizeof interposer);
    char node[MPI_MAX_PROCESSOR_NAME];
    int nl = 0;
    MPI_Get_processor_name(node, &nl);
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int lr, nodes = 0, first;
    MPI_Comm_rank(shm, &lr);
    first = lr == 0;
    MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&shm);
    if (o.expect_nodes && nodes != o.expect_nodes) {
        if (g_rank == 0)
            fprintf(stderr, "compi_iobench: FAIL: %d nodes, %d expected (how were the ranks placed?)\n", nodes,
                    o.expect_nodes);
        MPI_Finalize();
        return 1;
    }
    if (g_rank == 0 && !o.quiet) {
        printf("# compi_iobench: %d ranks on %d nodes; %s\n", g_size, nodes, p.desc);
        printf("# interposer: %s\n", interposer);
        printf("# time = max over ranks (write: write_all + close; read: read_all), median over %d reps after %d "
               "warm-up;\n#   ratio = time(mpi) / time(variant) per rep, median and distribution-free ~%.0f%% "
               "interval [lo, hi] (> 1: faster than the MPI's own)\n",
               o.reps, o.warmup, 100 * (1 - ALPHA));
        fflush(stdout);
    }

    int total = o.warmup + o.reps;
    double *tw = xmalloc(sizeof(double) * NVAR * (size_t)total), *tr = xmalloc(sizeof(double) * NVAR * (size_t)total);
    double *rbuf = xmalloc(sizeof(double) * (size_t)(p.count ? p.count : 1));
    long bad_reads[NVAR] = {0};
    for (int r = 0; r < total; r++) {
        for (int j = 0; j < o.nvars; j++) {
            int k = (j + r) % o.nvars;
            tw[k * total + r] = write_once(&p, &vs[k]);
        }
        for (int j = 0; j < o.nvars && o.read; j++) {
            int k = (j + r) % o.nvars;
            long bad = 0;
            tr[k * total + r] = read_once(&p, &vs[k], rbuf, &bad);
            bad_reads[k] += bad;
        }
    }
    int failed = 0;
    if (g_rank == 0) {
        int64_t ref_size = 0, size = 0;
        same_file(vs[0].path, vs[0].path, &ref_size);
        if (ref_size != p.file_bytes) {
            printf("FAIL: the mpi variant's file has %lld bytes, %lld expected\n", (long long)ref_size,
                   (long long)p.file_bytes);
            failed = 1;
        }
        printf("%-5s %-10s %10s %10s %8s %17s %9s\n", "op", "variant", "mpi_s", "time_s", "ratio", "interval",
               "identical");
        for (int op = 0; op < 1 + o.read; op++) {
            const double *t = op ? tr : tw;
            for (int k = 0; k < o.nvars; k++) {
                summary s, ref;
                summarize(t + o.warmup, t + k * total + o.warmup, o.reps, &s);
                summarize(t + o.warmup, t + o.warmup, o.reps, &ref);
                const char *ident;
                if (op == 1) ident = bad_reads[k] ? "NO" : "yes";
                else ident = k == 0 ? "ref" : same_file(vs[0].path, vs[k].path, &size) ? "yes" : "NO";
                if (ident[0] == 'N') failed = 1;
                printf("%-5s %-10s %10.4f %10.4f %8.3f   [%6.3f, %6.3f] %9s%s\n", op ? "read" : "write",
                       var_names[o.vars[k]], ref.med, s.med, s.ratio, s.lo, s.hi, ident,
                       s.cov < 1 - ALPHA - 1e-9 ? " (few reps: low coverage)" : "");
                printf("RESULT pattern=%s load=%d ranks=%d nodes=%d op=%s variant=%s reps=%d mpi_s=%.6f time_s=%.6f "
                       "ratio=%.4f lo=%.4f hi=%.4f coverage=%.3f identical=%s file=%s\n",
                       o.pattern, !strcmp(o.pattern, "bips3d") ? o.load : 0, g_size, nodes, op ? "read" : "write",
                       var_names[o.vars[k]], o.reps, ref.med, s.med, s.ratio, s.lo, s.hi, s.cov,
                       op == 1 ? (bad_reads[k] ? "no" : "yes") : (ident[0] == 'N' ? "no" : "yes"), vs[k].path);
            }
        }
        if (failed) printf("FAIL: a file or a read-back differs from the MPI's own\n");
        fflush(stdout);
        if (!o.keep)
            for (int k = 0; k < o.nvars; k++) MPI_File_delete(vs[k].path, MPI_INFO_NULL);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int k = 0; k < o.nvars; k++) MPI_Info_free(&vs[k].info);
    MPI_Comm_free(&c_off);
    MPI_Comm_free(&c_env);
    MPI_Type_free(&p.filetype);
    free(p.data);
    free(p.segs);
    free(rbuf);
    free(tw);
    free(tr);
    MPI_Finalize();
    return failed ? 1 : 0;
}
