/* SPDX-License-Identifier: BSD-3-Clause */
/* A real I/O client of compi's collective I/O: parallel HDF5 writing
 * datasets collectively (H5FD_MPIO_COLLECTIVE) through MPI-IO, then reading
 * them back collectively and checking every value.
 *   /grid2d  2D doubles, each rank a block of rows and columns (regular
 *            hyperslab: HDF5 hands MPI-IO a subarray-like file view)
 *   /grid3d  3D ints, z-slabs cut in y (regular)
 *   /mesh    1D doubles, each rank a union of irregular runs (an irregular
 *            hyperslab selection: hindexed file types), like a partitioned mesh
 * Object modification times are off (H5Pset_obj_track_times) so that files
 * written with and without compi can be compared byte for byte.
 * usage: h5_collective FILE. Prints "h5_collective: OK" or FAILED lines. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, np, bad;
#define FAIL(...) do { printf("FAILED rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); bad++; } while (0)
#define H5OK(x) do { if ((x) < 0) FAIL("%s failed", #x); } while (0)

static unsigned long long rs = 12345;
static unsigned rnd(void) { rs = rs * 6364136223846793005ull + 1442695040888963407ull; return (unsigned)(rs >> 33); }

static hid_t dataset(hid_t file, const char *name, hid_t type, int rank_, const hsize_t *dims)
{
    hid_t space = H5Screate_simple(rank_, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (d < 0) FAIL("H5Dcreate2 %s", name);
    return d;
}

/* write (then read back and check) through a collective transfer */
static void xfer(hid_t d, hid_t type, hid_t fspace, hsize_t n, void *buf, size_t esize, const char *what)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hsize_t nn = n ? n : 1;
    hid_t mspace = H5Screate_simple(1, &nn, NULL);
    if (!n) { H5Sselect_none(mspace); H5Sselect_none(fspace); }
    H5OK(H5Dwrite(d, type, mspace, fspace, dxpl, buf));
    void *back = calloc(nn, esize);
    H5OK(H5Dread(d, type, mspace, fspace, dxpl, back));
    if (n && memcmp(back, buf, (size_t)n * esize) != 0) FAIL("%s: read back differs", what);
    /* the transfer was really collective (not broken to independent) */
    H5D_mpio_actual_io_mode_t mode;
    if (n && H5Pget_mpio_actual_io_mode(dxpl, &mode) >= 0 && mode == H5D_MPIO_NO_COLLECTIVE)
        FAIL("%s: HDF5 did no collective I/O", what);
    free(back);
    H5Sclose(mspace);
    H5Pclose(dxpl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (rank == 0) printf("usage: h5_collective FILE\n");
        MPI_Finalize();
        return 2;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, fapl);
    if (file < 0) { FAIL("H5Fcreate %s", argv[1]); MPI_Abort(MPI_COMM_WORLD, 1); }

    /* /grid2d: 96 x 80 doubles, np blocks (rows x cols) */
    int dims[2] = {0, 0};
    MPI_Dims_create(np, 2, dims);
    {
        hsize_t g[2] = {96, 80};
        hid_t d = dataset(file, "grid2d", H5T_NATIVE_DOUBLE, 2, g);
        int cr = rank / dims[1], cc = rank % dims[1];
        hsize_t start[2] = {g[0] * cr / dims[0], g[1] * cc / dims[1]};
        hsize_t count[2] = {g[0] * (cr + 1) / dims[0] - start[0], g[1] * (cc + 1) / dims[1] - start[1]};
        hid_t fs = H5Dget_space(d);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hsize_t n = count[0] * count[1];
        double *v = malloc(sizeof(double) * (n ? n : 1));
        for (hsize_t i = 0; i < n; i++) v[i] = (double)((start[0] + i / count[1]) * g[1] + start[1] + i % count[1]) * 0.25;
        xfer(d, H5T_NATIVE_DOUBLE, fs, n, v, sizeof(double), "grid2d");
        free(v);
        H5Sclose(fs);
        H5Dclose(d);
    }
    /* /grid3d: 24 x 20 x 16 ints, z-slabs cut in y */
    {
        hsize_t g[3] = {24, 20, 16};
        hid_t d = dataset(file, "grid3d", H5T_NATIVE_INT, 3, g);
        int cz = rank / dims[1], cy = rank % dims[1];
        hsize_t start[3] = {g[0] * cz / dims[0], g[1] * cy / dims[1], 0};
        hsize_t count[3] = {g[0] * (cz + 1) / dims[0] - start[0], g[1] * (cy + 1) / dims[1] - start[1], g[2]};
        hid_t fs = H5Dget_space(d);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hsize_t n = count[0] * count[1] * count[2];
        int *v = malloc(sizeof(int) * (n ? n : 1));
        for (hsize_t i = 0; i < n; i++) v[i] = rank * 1000000 + (int)i;
        xfer(d, H5T_NATIVE_INT, fs, n, v, sizeof(int), "grid3d");
        free(v);
        H5Sclose(fs);
        H5Dclose(d);
    }
    /* /mesh: 20000 doubles, runs of random length dealt to random ranks */
    {
        hsize_t g = 20000;
        hid_t d = dataset(file, "mesh", H5T_NATIVE_DOUBLE, 1, &g);
        hid_t fs = H5Dget_space(d);
        H5Sselect_none(fs);
        hsize_t n = 0;
        double *v = malloc(sizeof(double) * g);
        /* the same random deal on every rank (same seed): runs in file order */
        for (hsize_t at = 0; at < g;) {
            hsize_t len = 1 + rnd() % 37;
            if (at + len > g) len = g - at;
            int owner = (int)(rnd() % (unsigned)np);
            if (owner == rank) {
                H5Sselect_hyperslab(fs, H5S_SELECT_OR, &at, NULL, &len, NULL);
                for (hsize_t i = 0; i < len; i++) v[n + i] = (double)(at + i) * 1.5 + rank;
                n += len;
            }
            at += len;
        }
        xfer(d, H5T_NATIVE_DOUBLE, fs, n, v, sizeof(double), "mesh");
        free(v);
        H5Sclose(fs);
        H5Dclose(d);
    }
    H5OK(H5Fclose(file));
    H5Pclose(fapl);
    H5Pclose(fcpl);
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("h5_collective: np %d: %s\n", np, total ? "FAILED" : "OK");
    MPI_Finalize();
    return total ? 1 : 0;
}
