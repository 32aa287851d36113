/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Info hints on communicators: compi_mode=off keeps a communicator raw,
 * compi_codec picks its codec, MPI_Comm_set_info changes them later.
 * Every rank sends one compressible 256 KiB message to the next rank on
 * each communicator; check_hints.py reads compi's report to see which
 * codec (if any) carried which. Under plain MPI the data checks still run. */
#include "mpitest.h"

static void ring(MPI_Comm comm, int pat, const char *what)
{
    int n = 1 << 15, rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *out = mt_malloc(sizeof(double) * (size_t)n), *in = mt_malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) out[i] = pat * 1000.0 + rank + (double)(i / 128);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    MPI_CALL(MPI_Sendrecv(out, n, MPI_DOUBLE, to, pat, in, n, MPI_DOUBLE, from, pat, comm, &st));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += in[i] != pat * 1000.0 + from + (double)(i / 128);
    CHECK(bad == 0, what, "%d of %d doubles differ", bad, n);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comm_hints");
    mt_group_begin("communicator hints");
    MPI_Info off, zstd;
    MPI_Info_create(&off);
    MPI_Info_set(off, "compi_mode", "off");
    MPI_Info_create(&zstd);
    MPI_Info_set(zstd, "compi_codec", "zstd");
    MPI_Comm c_off, c_zstd, c_later;
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, off, &c_off));
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, zstd, &c_zstd));
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c_later));
    ring(MPI_COMM_WORLD, 1, "world (environment codec)");
    ring(c_off, 2, "compi_mode=off");
    ring(c_zstd, 3, "compi_codec=zstd");
    ring(c_later, 4, "dup before set_info (environment codec)");
    MPI_CALL(MPI_Comm_set_info(c_later, zstd));
    ring(c_later, 5, "after MPI_Comm_set_info compi_codec=zstd");
    /* a communicator whose errors are fatal (the MPI default; mt_init set
     * world's to return): compi's hint handling must not raise an error
     * there (Open MPI 4.1 reports deleting a missing attribute as one) */
    MPI_Comm c_fatal, c_fatal_off;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c_fatal));
    MPI_CALL(MPI_Comm_set_errhandler(c_fatal, MPI_ERRORS_ARE_FATAL));
    MPI_CALL(MPI_Comm_dup_with_info(c_fatal, off, &c_fatal_off));
    ring(c_fatal_off, 6, "compi_mode=off, dup of a communicator with fatal errors");
    MPI_Comm_free(&c_fatal_off);
    MPI_Comm_free(&c_fatal);
    MPI_Comm_free(&c_off);
    MPI_Comm_free(&c_zstd);
    MPI_Comm_free(&c_later);
    MPI_Info_free(&off);
    MPI_Info_free(&zstd);
    mt_group_end();
    return mt_finish();
}
