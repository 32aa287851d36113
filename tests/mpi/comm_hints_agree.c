/* SPDX-License-Identifier: BSD-3-Clause */
/* Members that give a communicator different compi hints, or bad ones.
 * Hints are advice: the MPI (and compi) may ignore them, but no combination
 * may change what the application receives. Even and odd ranks give
 * different compi_mode, compi_min_bytes or compi_codec values to
 * MPI_Comm_dup_with_info and MPI_Comm_set_info; one rank gives values compi
 * cannot parse, on a communicator whose errors are fatal; a dup of a
 * disagreeing communicator; an intercommunicator whose two groups disagree.
 * On each: a ring Sendrecv (status and every value), Bcast from every root,
 * Allreduce and Alltoall. Under compi the disagreeing hints are dropped on
 * every member with a notice from rank 0 (CMakeLists checks its text). */
#include "mpitest.h"

static void ring(MPI_Comm comm, const char *what, int seed)
{
    int rank, size, n = 12800;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *out = mt_malloc(sizeof(double) * (size_t)n), *in = mt_malloc(sizeof(double) * (size_t)n);
    mt_fill(out, n, 'd', PAT_SMOOTH, seed + rank);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    char w[160];
    snprintf(w, sizeof w, "%s: Sendrecv of %d doubles", what, n);
    MPI_CALL(MPI_Sendrecv(out, n, MPI_DOUBLE, to, 7, in, n, MPI_DOUBLE, from, 7, comm, &st));
    CHECK_STATUS(w, &st, from, 7, MPI_DOUBLE, n);
    CHECK_PATTERN(w, in, n, 'd', PAT_SMOOTH, seed + from);
    free(out);
    free(in);
}

static void collectives(MPI_Comm comm, const char *what, int seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char w[160];
    int nb = 150000;
    double *b = mt_malloc(sizeof(double) * (size_t)nb);
    for (int root = 0; root < size; root++) {
        if (rank == root) mt_fill(b, nb, 'd', PAT_SMOOTH, seed + root);
        else memset(b, 0, sizeof(double) * (size_t)nb);
        MPI_CALL(MPI_Bcast(b, nb, MPI_DOUBLE, root, comm));
        snprintf(w, sizeof w, "%s: Bcast of %d doubles from root %d", what, nb, root);
        CHECK_PATTERN(w, b, nb, 'd', PAT_SMOOTH, seed + root);
    }
    free(b);
    int nr = 60000;
    int *x = mt_malloc(sizeof(int) * (size_t)nr), *sum = mt_malloc(sizeof(int) * (size_t)nr);
    for (int i = 0; i < nr; i++) x[i] = (i / 100) * (rank + 1);
    MPI_CALL(MPI_Allreduce(x, sum, nr, MPI_INT, MPI_SUM, comm));
    int bad = 0;
    for (int i = 0; i < nr; i++) bad += sum[i] != (i / 100) * size * (size + 1) / 2;
    snprintf(w, sizeof w, "%s: Allreduce of %d ints", what, nr);
    CHECK(bad == 0, w, "%d of %d sums wrong", bad, nr);
    free(x);
    free(sum);
    int na = 20000;
    double *s = mt_malloc(sizeof(double) * (size_t)na * size), *r = mt_malloc(sizeof(double) * (size_t)na * size);
    for (int p = 0; p < size; p++) mt_fill(s + (size_t)p * na, na, 'd', PAT_RAMP, seed + rank * 16 + p);
    MPI_CALL(MPI_Alltoall(s, na, MPI_DOUBLE, r, na, MPI_DOUBLE, comm));
    for (int p = 0; p < size; p++) {
        snprintf(w, sizeof w, "%s: Alltoall block from rank %d", what, p);
        CHECK_PATTERN(w, r + (size_t)p * na, na, 'd', PAT_RAMP, seed + p * 16 + rank);
    }
    free(s);
    free(r);
}

static void exercise(MPI_Comm comm, const char *what, int seed)
{
    ring(comm, what, seed);
    collectives(comm, what, seed + 100);
}

static MPI_Info info_of(const char *key, const char *even, const char *odd)
{
    MPI_Info info;
    MPI_Info_create(&info);
    const char *v = mt_rank % 2 ? odd : even;
    if (v) MPI_Info_set(info, key, v);
    return info;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "comm_hints_agree");
    mt_require_size(2);
    MPI_Comm c;

    mt_group_begin("compi_mode fixed on even ranks, off on odd ranks (MPI_Comm_dup_with_info)");
    MPI_Info info = info_of("compi_mode", "fixed", "off");
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_Info_free(&info);
    exercise(c, "compi_mode fixed/off", 10);
    /* a dup of it has its members, and must agree as well */
    MPI_Comm d;
    MPI_CALL(MPI_Comm_dup(c, &d));
    exercise(d, "MPI_Comm_dup of the fixed/off communicator", 20);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("compi_mode off on even ranks, adaptive on odd ranks (MPI_Comm_set_info)");
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    info = info_of("compi_mode", "off", "adaptive");
    MPI_CALL(MPI_Comm_set_info(c, info));
    MPI_Info_free(&info);
    exercise(c, "compi_mode off/adaptive by set_info", 30);
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("compi_min_bytes 0 on even ranks, 1M on odd ranks");
    info = info_of("compi_min_bytes", "0", "1M");
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_Info_free(&info);
    exercise(c, "compi_min_bytes 0/1M", 40);
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("compi_mode given on even ranks only");
    info = info_of("compi_mode", "off", NULL);
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_Info_free(&info);
    exercise(c, "compi_mode off/unset", 50);
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("compi_codec zstd on even ranks, lz4 on odd ranks (frames name their codec)");
    info = info_of("compi_codec", "zstd", "lz4");
    MPI_CALL(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_Info_free(&info);
    exercise(c, "compi_codec zstd/lz4", 60);
    MPI_Comm_free(&c);
    mt_group_end();

    mt_group_begin("values compi cannot parse, on a communicator whose errors are fatal");
    {
        MPI_Comm fatal;
        MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &fatal));
        MPI_CALL(MPI_Comm_set_errhandler(fatal, MPI_ERRORS_ARE_FATAL));
        MPI_Info_create(&info);
        if (mt_rank == 1) {
            MPI_Info_set(info, "compi_mode", "bogus");
            MPI_Info_set(info, "compi_codec", "nope");
            MPI_Info_set(info, "compi_min_bytes", "lots");
        }
        int rc = MPI_Comm_dup_with_info(fatal, info, &c);
        CHECK_INT("MPI_Comm_dup_with_info with bad compi hints on rank 1", MPI_SUCCESS, rc);
        exercise(c, "bad compi hints on rank 1 (dup_with_info)", 70);
        rc = MPI_Comm_set_info(c, info);
        CHECK_INT("MPI_Comm_set_info with bad compi hints on rank 1", MPI_SUCCESS, rc);
        exercise(c, "bad compi hints on rank 1 (set_info)", 80);
        MPI_Info_free(&info);
        MPI_Comm_free(&c);
        MPI_Comm_free(&fatal);
    }
    mt_group_end();

    mt_group_begin("intercommunicator whose groups disagree on compi_mode");
    {
        MPI_Comm half, inter, inter2;
        MPI_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &half));
        MPI_CALL(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, mt_rank % 2 ? 0 : 1, 5, &inter));
        info = info_of("compi_mode", "fixed", "off");
        MPI_CALL(MPI_Comm_dup_with_info(inter, info, &inter2));
        MPI_Info_free(&info);
        int rank, rsize, n = 12800;
        MPI_Comm_rank(inter2, &rank);
        MPI_Comm_remote_size(inter2, &rsize);
        double *out = mt_malloc(sizeof(double) * (size_t)n), *in = mt_malloc(sizeof(double) * (size_t)n);
        mt_fill(out, n, 'd', PAT_SMOOTH, 90 + mt_rank);
        if (rank < rsize) {
            /* local rank k of each group exchanges with the remote rank k */
            MPI_Status st;
            MPI_CALL(MPI_Sendrecv(out, n, MPI_DOUBLE, rank, 9, in, n, MPI_DOUBLE, rank, 9, inter2, &st));
            int peer = 2 * rank + (mt_rank % 2 ? 0 : 1);   /* its world rank */
            CHECK_STATUS("intercommunicator fixed/off: Sendrecv", &st, rank, 9, MPI_DOUBLE, n);
            CHECK_PATTERN("intercommunicator fixed/off: Sendrecv", in, n, 'd', PAT_SMOOTH, 90 + peer);
        }
        free(out);
        free(in);
        MPI_Comm_free(&inter2);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    mt_group_end();

    return mt_finish();
}
