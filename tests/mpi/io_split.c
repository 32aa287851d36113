/* SPDX-License-Identifier: BSD-3-Clause */
/* io_split: MPI-IO calls of compi's table that no other test of this suite
 * reaches, mixed in one file with the collective calls compi may run itself
 * (COMPI_IO_AGGREGATORS=la, gate off: its two-phase algorithm):
 *   - MPI_File_write_all through an interleaved view, then the split
 *     MPI_File_read_at_all_begin/end of it, MPI_File_write_at_all_begin/end
 *     read back by MPI_File_read_at_all (MPI_File_sync, barrier, sync between)
 *   - MPI_File_write_ordered_begin/end and MPI_File_read_ordered_begin/end
 *   - MPI_File_iwrite_shared and MPI_File_iread_shared completed by MPI_Wait
 * checking data and the status counts. */
#include "mpitest.h"

enum { B = 300, K = 4 }; /* B ints a block, K blocks a rank */

static void sync_all(MPI_File fh)
{
    MPI_CALL(MPI_File_sync(fh));
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CALL(MPI_File_sync(fh));
}

static void check_count(const char *w, MPI_Status *st, int n)
{
    int c = -5;
    MPI_CALL(MPI_Get_count(st, MPI_INT, &c));
    CHECK_INT(w, n, c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "io_split");
    mt_require_size(2);
    char path[256];
    int pid = (int)getpid();
    MPI_CALL(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(path, sizeof path, "/tmp/compi_io_split_%d.dat", pid);
    MPI_File fh;
    MPI_CALL(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype blk, ft;
    MPI_CALL(MPI_Type_contiguous(B, MPI_INT, &blk));
    MPI_CALL(MPI_Type_create_resized(blk, 0, (MPI_Aint)mt_size * B * (MPI_Aint)sizeof(int), &ft));
    MPI_CALL(MPI_Type_commit(&ft));
    int n = K * B;
    int *w = mt_malloc(n * sizeof(int)), *r = mt_malloc(n * sizeof(int)), *exp = mt_malloc(n * sizeof(int));
    MPI_Status st;

    mt_group_begin("write_all, then split read_at_all_begin/end; write_at_all_begin/end, then read_at_all");
    MPI_CALL(MPI_File_set_view(fh, (MPI_Offset)mt_rank * B * (MPI_Offset)sizeof(int), MPI_INT, ft, "native",
                               MPI_INFO_NULL));
    for (int i = 0; i < n; i++) w[i] = mt_rank * 1000000 + i;
    memcpy(exp, w, n * sizeof(int));
    MPI_CALL(MPI_File_write_all(fh, w, n, MPI_INT, &st));
    check_count("MPI_File_write_all status", &st, n);
    sync_all(fh);
    memset(r, 0, n * sizeof(int));
    MPI_CALL(MPI_File_read_at_all_begin(fh, 0, r, n, MPI_INT));
    MPI_CALL(MPI_File_read_at_all_end(fh, r, &st));
    check_count("MPI_File_read_at_all_end status", &st, n);
    CHECK_DATA("MPI_File_read_at_all_begin/end data", r, exp, (size_t)n, 'i');
    for (int i = 0; i < n; i++) w[i] = -(mt_rank * 1000000 + i) - 1;
    memcpy(exp, w, n * sizeof(int));
    MPI_CALL(MPI_File_write_at_all_begin(fh, n, w, n, MPI_INT));
    MPI_CALL(MPI_File_write_at_all_end(fh, w, &st));
    check_count("MPI_File_write_at_all_end status", &st, n);
    sync_all(fh);
    memset(r, 0, n * sizeof(int));
    MPI_CALL(MPI_File_read_at_all(fh, n, r, n, MPI_INT, &st));
    check_count("MPI_File_read_at_all status", &st, n);
    CHECK_DATA("MPI_File_read_at_all after write_at_all_begin/end", r, exp, (size_t)n, 'i');
    mt_group_end();

    /* the rest through the shared file pointer, after the 2n ints of every rank */
    MPI_Offset base = 2 * (MPI_Offset)n * mt_size;
    mt_group_begin("write_ordered_begin/end, read_ordered_begin/end");
    MPI_CALL(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_CALL(MPI_File_seek_shared(fh, base, MPI_SEEK_SET));
    int m = 50 * (mt_rank + 1);
    for (int i = 0; i < m; i++) w[i] = 7000000 + mt_rank * 1000 + i;
    memcpy(exp, w, m * sizeof(int));
    MPI_CALL(MPI_File_write_ordered_begin(fh, w, m, MPI_INT));
    MPI_CALL(MPI_File_write_ordered_end(fh, w, &st));
    check_count("MPI_File_write_ordered_end status", &st, m);
    sync_all(fh);
    MPI_CALL(MPI_File_seek_shared(fh, base, MPI_SEEK_SET));
    memset(r, 0, n * sizeof(int));
    MPI_CALL(MPI_File_read_ordered_begin(fh, r, m, MPI_INT));
    MPI_CALL(MPI_File_read_ordered_end(fh, r, &st));
    check_count("MPI_File_read_ordered_end status", &st, m);
    CHECK_DATA("MPI_File_read_ordered_begin/end: this rank's block", r, exp, (size_t)m, 'i');
    /* rank order on the file: rank r's block starts after 50 * r(r+1)/2 ints */
    int off = 50 * mt_rank * (mt_rank + 1) / 2;
    memset(r, 0, n * sizeof(int));
    MPI_CALL(MPI_File_read_at(fh, base + off, r, m, MPI_INT, &st));
    CHECK_DATA("the ordered block where rank order puts it", r, exp, (size_t)m, 'i');
    mt_group_end();

    mt_group_begin("iwrite_shared / iread_shared, completed by MPI_Wait");
    MPI_Offset base2 = base + 50 * (MPI_Offset)mt_size * (mt_size + 1) / 2;
    MPI_Request q;
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CALL(MPI_File_seek_shared(fh, base2, MPI_SEEK_SET));
    enum { S = 64 };
    for (int i = 0; i < S; i++) w[i] = 9000000 + mt_rank;
    MPI_CALL(MPI_File_iwrite_shared(fh, w, S, MPI_INT, &q));
    MPI_CALL(MPI_Wait(&q, &st));
    check_count("MPI_File_iwrite_shared status", &st, S);
    sync_all(fh);
    MPI_CALL(MPI_File_seek_shared(fh, base2, MPI_SEEK_SET));
    memset(r, 0, n * sizeof(int));
    MPI_CALL(MPI_File_iread_shared(fh, r, S, MPI_INT, &q));
    MPI_CALL(MPI_Wait(&q, &st));
    check_count("MPI_File_iread_shared status", &st, S);
    int uniform = 1;
    for (int i = 1; i < S; i++) uniform &= r[i] == r[0];
    CHECK(uniform, "MPI_File_iread_shared block", "not one rank's block: [0] %d", r[0]);
    int *all = mt_malloc(mt_size * sizeof(int)), seen = 0;
    MPI_CALL(MPI_Allgather(&r[0], 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < mt_size; i++)
        if (all[i] >= 9000000 && all[i] < 9000000 + mt_size) seen |= 1 << (all[i] - 9000000);
    CHECK_INT("every rank's shared block read once", (1 << mt_size) - 1, seen);
    free(all);
    mt_group_end();

    MPI_CALL(MPI_File_close(&fh));
    MPI_CALL(MPI_Type_free(&ft));
    MPI_CALL(MPI_Type_free(&blk));
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
    free(w); free(r); free(exp);
    return mt_finish();
}
