/* SPDX-License-Identifier: BSD-3-Clause */
/* The gate of compi's collective I/O end to end (libcompi preloaded,
 * compi_cb_aggregators=la): which calls go to the MPI's own MPI-IO, and that
 * the files do not change.
 *   1 a STEM-like block grid (subarray views) written twice and read back
 *     with every rank on one (emulated) node: nothing crosses nodes, so under
 *     ROMIO both writes and the read are passed ("nothing to gain"; the
 *     second write from the cached plan), under OMPIO none is;
 *   2 a mesh-like indexed view whose first half lives on the last node and
 *     second half on the first (COMPI_DEBUG_RANKS_PER_NODE < np): la moves
 *     fewer bytes across nodes than ROMIO, so the write stays on compi's path;
 *   3 the same grid with compi_cb_gate=off: compi's path;
 *   4 compi_cb_gate=maybe: a notice, the MPI's own MPI-IO for the file.
 * In 1 the grid is written to a second file as well: under ROMIO its calls
 * are passed by the view memo from set_view on, without planning.
 * Every file is compared byte for byte with the same write through
 * compi_cb_aggregators=mpi, every read with the data written.
 * usage: io_gate romio|ompio (the MPI-IO underneath). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "slurp.h"

static int rank, np, bad;
#define FAIL(...) do { printf("FAILED rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); bad++; } while (0)

static uint64_t (*path_calls)(void), (*gate_passes)(void), (*memo_passes)(void);

static void same_files(const char *a, const char *b, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) return;
    long na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    if (na != nb || na <= 0 || memcmp(x, y, (size_t)na) != 0) FAIL("%s: %s and %s differ (sizes %ld, %ld)", what, a, b, na, nb);
    free(x);
    free(y);
}

/* one collective write (twice when twice) and one read through policy, view (disp 0, etype double, ft) */
static void run(const char *path, const char *policy, const char *gate, MPI_Datatype ft, const double *data, int count,
                int twice, int read)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "compi_cb_aggregators", policy);
    if (gate) MPI_Info_set(info, "compi_cb_gate", gate);
    /* ROMIO's default, given explicitly: OMPIO keeps such hints in the
     * file's info, which must not make compi take it for ROMIO */
    MPI_Info_set(info, "romio_cb_write", "automatic");
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) != MPI_SUCCESS) {
        FAIL("cannot open %s", path);
        MPI_Info_free(&info);
        return;
    }
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", info);
    for (int t = 0; t < 1 + twice; t++)
        if (MPI_File_write_at_all(fh, 0, data, count, MPI_DOUBLE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            FAIL("write_at_all on %s", path);
    if (read) {
        double *back = malloc(sizeof(double) * (size_t)(count ? count : 1));
        for (int i = 0; i < count; i++) back[i] = -1;
        MPI_Status st;
        if (MPI_File_read_at_all(fh, 0, back, count, MPI_DOUBLE, &st) != MPI_SUCCESS) FAIL("read_at_all on %s", path);
        int got = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        if (got != count) FAIL("read %d of %d doubles from %s", got, count, path);
        for (int i = 0; i < count; i++)
            if (back[i] != data[i]) { FAIL("read back %s: element %d is %g, not %g", path, i, back[i], data[i]); break; }
        free(back);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int romio = argc > 1 && strcmp(argv[1], "romio") == 0;
    path_calls = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "compi_io_path_calls");
    gate_passes = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "compi_io_gate_passes");
    memo_passes = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "compi_io_memo_passes");
    if (!path_calls || !gate_passes || !memo_passes) {
        if (rank == 0) printf("FAILED: libcompi is not loaded (LD_PRELOAD it)\n");
        MPI_Finalize();
        return 1;
    }
    const char *rpn_s = getenv("COMPI_DEBUG_RANKS_PER_NODE");
    int rpn = rpn_s ? atoi(rpn_s) : 0;
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/compi_io_gate.%d", tmp ? tmp : "/tmp", (int)getpid());
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) mkdir(dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    char pa[300], pb[300];

    /* the grid: 24 x 20 x 16 doubles in np blocks (z, y) */
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    int gsz[3] = {24, 20, 16}, lsz[3], st[3] = {0, 0, 0};
    int cz = rank / dims[1], cy = rank % dims[1];
    lsz[0] = gsz[0] / dims[0] + (cz < gsz[0] % dims[0]);
    st[0] = cz * (gsz[0] / dims[0]) + (cz < gsz[0] % dims[0] ? cz : gsz[0] % dims[0]);
    lsz[1] = gsz[1] / dims[1] + (cy < gsz[1] % dims[1]);
    st[1] = cy * (gsz[1] / dims[1]) + (cy < gsz[1] % dims[1] ? cy : gsz[1] % dims[1]);
    lsz[2] = gsz[2];
    MPI_Datatype grid;
    MPI_Type_create_subarray(3, gsz, lsz, st, MPI_ORDER_C, MPI_DOUBLE, &grid);
    MPI_Type_commit(&grid);
    int gcount = lsz[0] * lsz[1] * lsz[2];
    double *gdata = malloc(sizeof(double) * (size_t)gcount);
    for (int i = 0; i < gcount; i++) gdata[i] = rank * 100000.0 + i * 0.5;

    /* 1: the grid on one node */
    if (rpn == 0 || rpn >= np) {
        uint64_t p0 = path_calls(), g0 = gate_passes();
        snprintf(pa, sizeof pa, "%s/grid_la", dir);
        snprintf(pb, sizeof pb, "%s/grid_mpi", dir);
        run(pa, "la", NULL, grid, gdata, gcount, 1, 1);
        run(pb, "mpi", NULL, grid, gdata, gcount, 0, 0);
        same_files(pa, pb, "grid, one node");
        uint64_t dp = path_calls() - p0, dg = gate_passes() - g0;
        if (romio && (dg != 3 || dp != 0))
            FAIL("grid on one node under ROMIO: %llu calls passed by the gate (want 3), %llu on compi's path (want 0)",
                 (unsigned long long)dg, (unsigned long long)dp);
        if (!romio && (dg != 0 || dp != 3))
            FAIL("grid on one node under OMPIO: %llu calls passed by the gate (want 0), %llu on compi's path (want 3)",
                 (unsigned long long)dg, (unsigned long long)dp);
        if (rank == 0) printf("grid, one node: %llu passed by the gate, %llu on compi's path\n", (unsigned long long)dg,
                              (unsigned long long)dp);
        /* the same layout in a new file (a checkpoint every N steps): under
         * ROMIO the view memo passes all three calls from set_view on */
        uint64_t m0 = memo_passes();
        p0 = path_calls();
        g0 = gate_passes();
        snprintf(pa, sizeof pa, "%s/grid_la2", dir);
        run(pa, "la", NULL, grid, gdata, gcount, 1, 1);
        same_files(pa, pb, "grid again, one node");
        uint64_t dm = memo_passes() - m0;
        dp = path_calls() - p0;
        dg = gate_passes() - g0;
        if (romio && (dm != 3 || dg != 3 || dp != 0))
            FAIL("grid again under ROMIO: %llu calls passed from the view memo (want 3), %llu by the gate, %llu on compi's path",
                 (unsigned long long)dm, (unsigned long long)dg, (unsigned long long)dp);
        if (!romio && (dm != 0 || dp != 3))
            FAIL("grid again under OMPIO: %llu calls passed from the view memo (want 0), %llu on compi's path (want 3)",
                 (unsigned long long)dm, (unsigned long long)dp);
    }
    /* 2: a mesh living on the wrong nodes */
    if (rpn > 0 && rpn < np) {
        int n = 3000, mine = 0;
        int *bl = malloc(sizeof(int) * (size_t)n), *dl = malloc(sizeof(int) * (size_t)n);
        int nnodes = (np + rpn - 1) / rpn, mynode = rank / rpn;
        /* element e: of node (nnodes - 1 - e * nnodes / n), rank within it e % rpn (when it exists) */
        for (int e = 0; e < n; e++) {
            int node = nnodes - 1 - (int)((int64_t)e * nnodes / n);
            int width = node == nnodes - 1 ? np - node * rpn : rpn;
            int owner = node * rpn + e % width;
            if (owner == rank) { bl[mine] = 1; dl[mine] = e; mine++; }
        }
        (void)mynode;
        MPI_Datatype mesh;
        MPI_Type_indexed(mine ? mine : 1, bl, dl, MPI_DOUBLE, &mesh);
        MPI_Type_commit(&mesh);
        double *md = malloc(sizeof(double) * (size_t)(mine ? mine : 1));
        for (int i = 0; i < mine; i++) md[i] = dl[i] * 1.25 + rank;
        uint64_t p0 = path_calls(), g0 = gate_passes();
        snprintf(pa, sizeof pa, "%s/mesh_la", dir);
        snprintf(pb, sizeof pb, "%s/mesh_mpi", dir);
        run(pa, "la", NULL, mesh, md, mine, 0, 1);
        run(pb, "mpi", NULL, mesh, md, mine, 0, 0);
        same_files(pa, pb, "mesh on the wrong nodes");
        uint64_t dp = path_calls() - p0, dg = gate_passes() - g0;
        if (dg != 0 || dp != 2)
            FAIL("mesh on the wrong nodes: %llu calls passed by the gate (want 0), %llu on compi's path (want 2)",
                 (unsigned long long)dg, (unsigned long long)dp);
        if (rank == 0) printf("mesh on the wrong nodes: %llu passed by the gate, %llu on compi's path\n",
                              (unsigned long long)dg, (unsigned long long)dp);
        MPI_Type_free(&mesh);
        free(md);
        free(bl);
        free(dl);
    }
    /* 3: the gate off */
    {
        uint64_t p0 = path_calls(), g0 = gate_passes();
        snprintf(pa, sizeof pa, "%s/grid_off", dir);
        snprintf(pb, sizeof pb, "%s/grid_mpi2", dir);
        run(pa, "la", "off", grid, gdata, gcount, 0, 1);
        run(pb, "mpi", NULL, grid, gdata, gcount, 0, 0);
        same_files(pa, pb, "grid, gate off");
        uint64_t dp = path_calls() - p0, dg = gate_passes() - g0;
        if (dg != 0 || dp != 2)
            FAIL("compi_cb_gate=off: %llu calls passed by the gate (want 0), %llu on compi's path (want 2)",
                 (unsigned long long)dg, (unsigned long long)dp);
    }
    /* 4: a bad compi_cb_gate value: a notice and the MPI's own MPI-IO for the
     * file (neither compi's path nor the gate), the data written all the same */
    {
        uint64_t p0 = path_calls(), g0 = gate_passes();
        snprintf(pa, sizeof pa, "%s/grid_badgate", dir);
        run(pa, "la", "maybe", grid, gdata, gcount, 0, 1);
        same_files(pa, pb, "grid, bad compi_cb_gate");
        if (path_calls() != p0 || gate_passes() != g0)
            FAIL("compi_cb_gate=maybe: %llu calls on compi's path, %llu passed by the gate (want 0, 0)",
                 (unsigned long long)(path_calls() - p0), (unsigned long long)(gate_passes() - g0));
    }
    MPI_Type_free(&grid);
    free(gdata);
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!total) {
            char cmd[400];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            if (system(cmd) != 0) printf("(could not remove %s)\n", dir);
        }
        printf("io_gate: np %d, ranks per node %d, %s: %s\n", np, rpn, romio ? "ROMIO" : "OMPIO", total ? "FAILED" : "OK");
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
