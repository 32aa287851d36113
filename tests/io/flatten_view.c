/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_io_flatten_view / compi_io_flatten_memory against the MPI's own
 * MPI-IO. Each round builds, on every rank, a random nested filetype
 * (contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, subarray C/Fortran, darray, resized, dup) placed in
 * an interleaved view, or a global subarray/darray view, and a random nested
 * memory type (any order, overlaps allowed); then
 *   file A: MPI_File_set_view + MPI_File_write_at_all (ROMIO or OMPIO)
 *   file B: the same bytes gathered through the flattened memory segments
 *           and pwrite()n to the flattened file segments
 * and rank 0 compares A and B byte for byte. The gathered stream is also
 * compared with MPI_Pack of the buffer (the memory side's oracle).
 * usage: flatten_view [rounds] [seed]. Prints one line per failure, exits 1. */
#include "io/io.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "randtypes.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);   /* a darray the MPI refuses is replaced */
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 12;
    char dir[256], pa[300], pb[300];
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/compi_flatten_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) { perror("mkdtemp"); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(pa, sizeof pa, "%s/mpi.out", dir);
    snprintf(pb, sizeof pb, "%s/pwrite.out", dir);
    MPI_File fa;
    MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fa);
    int fb = open(pb, O_CREAT | O_RDWR, 0644);
    if (fb < 0) { perror(pb); MPI_Abort(MPI_COMM_WORLD, 2); }
    int kinds[3] = {0, 0, 0}, invalid = 0, memreplaced = 0;
    /* "romio": global subarray/darray views and plain-byte memory only.
     * ROMIO (MPICH 4.0.2, Open MPI's romio321) is no oracle for the rest:
     * it adds a memory type's nonzero lb twice, skips bytes of some random
     * nested filetypes when the access starts inside a tile (where OMPIO and
     * lib/io agree), and crashes or spins on others. */
    int contigmem = argc > 3 && strcmp(argv[3], "romio") == 0;
    /* "pack": the memory side only (random memory types against MPI_Pack), no MPI-IO */
    int packonly = argc > 3 && strcmp(argv[3], "pack") == 0;

    for (int round = 0; round < rounds; round++) {
        /* shared choices from the round's seed, then per-rank ones */
        rs = seed * 1000003u + (uint64_t)round * 7919u + 1;
        int scenario = rr(0, 5) < 4 ? 0 : rr(1, 2);
        if (contigmem) scenario = 1 + round % 2;
        int depth = rr(1, 3);
        MPI_Datatype ft = MPI_DATATYPE_NULL;
        MPI_Offset disp = rr(0, 3) == 0 ? 0 : rr(1, 100);
        if (scenario == 0) {   /* interleaved: rank r's random type in slot r of np */
            rs ^= (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull;
            rnd();
            MPI_Datatype t = gen(depth, 1);
            if (!valid_filetype(t)) {   /* (rare) generator slip: a plain block instead */
                MPI_Type_free(&t);
                MPI_Type_contiguous(rr(1, 64), MPI_BYTE, &t);
                MPI_Type_commit(&t);
                invalid++;
            }
            tinfo ti = info_of(t);
            MPI_Aint need = ti.tlb + ti.text, slot;
            MPI_Allreduce(&need, &slot, 1, MPI_AINT, MPI_MAX, MPI_COMM_WORLD);
            slot += round % 4;   /* the same on every rank */
            int one = 1;
            MPI_Aint at = (MPI_Aint)rank * slot;
            MPI_Datatype s;
            MPI_Type_create_struct(1, &one, &at, &t, &s);
            MPI_Type_create_resized(s, 0, (MPI_Aint)np * slot, &ft);
            MPI_Type_commit(&ft);
            MPI_Type_free(&s);
            free_type(&t);
        } else if (scenario == 1) {   /* global 3D subarray, split along one axis */
            int sizes[3] = {rr(np, 2 * np + 2), rr(1, 6), rr(1, 6)}, subs[3], starts[3];
            int order = rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
            int axis = order == MPI_ORDER_C ? 0 : 2;   /* the slowest axis */
            if (axis == 2) { int x = sizes[0]; sizes[0] = sizes[2]; sizes[2] = x; }
            for (int k = 0; k < 3; k++) { subs[k] = sizes[k]; starts[k] = 0; }
            int per = sizes[axis] / np;
            subs[axis] = per + (rank < sizes[axis] % np);
            starts[axis] = rank * per + (rank < sizes[axis] % np ? rank : sizes[axis] % np);
            MPI_Type_create_subarray(3, sizes, subs, starts, order, rr(0, 1) ? MPI_DOUBLE : MPI_INT, &ft);
            MPI_Type_commit(&ft);
        } else {   /* darray over a 2D process grid */
            int dims[2] = {0, 0};
            MPI_Dims_create(np, 2, dims);
            int g[2] = {rr(2, 12), rr(2, 12)}, dist[2], darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
            for (int k = 0; k < 2; k++) {
                dist[k] = rr(0, 1) ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_CYCLIC;
                if (dist[k] == MPI_DISTRIBUTE_CYCLIC && rr(0, 1)) darg[k] = rr(1, 3);
                if (dist[k] == MPI_DISTRIBUTE_BLOCK && g[k] < dims[k]) g[k] = dims[k];
            }
            MPI_Type_create_darray(np, rank, 2, g, dist, darg, dims, rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                                   MPI_INT, &ft);
            MPI_Type_commit(&ft);
        }
        kinds[scenario]++;
        int ftsize;
        MPI_Type_size(ft, &ftsize);

        /* memory side, per rank */
        rs ^= (uint64_t)(rank + 7) * 0xD1B54A32D192ED03ull;
        rnd();
        MPI_Datatype mt = contigmem ? MPI_BYTE : gen(rr(0, 3), 0);
        for (int tries = 0; !valid_memtype(mt); tries++) {
            free_type(&mt);
            mt = tries < 5 ? gen(rr(0, 3), 0) : MPI_BYTE;
            memreplaced++;
        }
        tinfo mi = info_of(mt);
        int msize;
        MPI_Type_size(mt, &msize);
        int count = msize ? rr(0, 1 + 4096 / msize) : rr(0, 3);
        if (ftsize == 0) count = 0;
        MPI_Offset offset = ftsize ? rr(0, 2 * ftsize) : 0;
        /* the buffer spans every byte the memory type touches */
        MPI_Aint lo = mi.tlb, hi = mi.tlb + mi.text;
        if (msize == 0) lo = hi = 0;   /* an empty type's true bounds are sentinels (Open MPI: LONG_MAX) */
        else if (count > 0) {
            MPI_Aint last = (MPI_Aint)(count - 1) * mi.ext;
            if (mi.tlb + last < lo) lo = mi.tlb + last;
            if (mi.tlb + last + mi.text > hi) hi = mi.tlb + last + mi.text;
        }
        size_t span = (size_t)(hi - lo) + 1;
        unsigned char *mem = malloc(span);
        for (size_t i = 0; i < span; i++) mem[i] = (unsigned char)(((i * 131 + (size_t)rank * 977 + round) % 251) + 1);
        unsigned char *buf = mem - lo;

        MPI_File_set_size(fa, 0);
        compi_io_segs ms, fs;
        compi_io_segs_init(&ms);
        compi_io_segs_init(&fs);
        int frc = compi_io_flatten_memory(mt, count, &ms);
        if (getenv("FLATTEN_DEBUG")) fprintf(stderr, "round %d scen %d count %d msize %d ftsize %d offset %lld mem rc %d\n", round, scenario, count, msize, ftsize, (long long)offset, frc);
        int64_t nbytes = (int64_t)count * msize;
        if (getenv("FLATTEN_DEBUG")) {
            compi_io_segs x;
            compi_io_segs_init(&x);
            compi_io_flatten_type(ft, &x);
            tinfo fi = info_of(ft);
            fprintf(stderr, "  rank %d filetype lb %ld extent %ld: %zu segs", rank, (long)fi.lb, (long)fi.ext, x.n);
            for (size_t k = 0; k < x.n && k < 12; k++) fprintf(stderr, " %lld+%lld", (long long)x.v[k].off, (long long)x.v[k].len);
            fprintf(stderr, "; disp %lld\n", (long long)disp);
            fprintf(stderr, "  rank %d memtype lb %ld extent %ld true lb %ld true extent %ld: %zu segs", rank, (long)mi.lb, (long)mi.ext, (long)mi.tlb, (long)mi.text, ms.n);
            for (size_t k = 0; k < ms.n && k < 12; k++) fprintf(stderr, " %lld+%lld", (long long)ms.v[k].off, (long long)ms.v[k].len);
            fprintf(stderr, "\n");
            compi_io_segs_free(&x);
        }
        unsigned char *stream = malloc((size_t)nbytes + 1);
        if (frc == COMPI_OK && ms.bytes != nbytes) {
            printf("round %d rank %d: memory segments hold %lld bytes, want %lld\n", round, rank, (long long)ms.bytes, (long long)nbytes);
            bad++;
            frc = -1;
        }
        if (frc == COMPI_OK) {
            int64_t at = 0;
            for (size_t k = 0; k < ms.n; k++) { memcpy(stream + at, buf + ms.v[k].off, (size_t)ms.v[k].len); at += ms.v[k].len; }
            /* oracle of the memory side: MPI_Pack */
            int psize, pos = 0;
            MPI_Pack_size(count, mt, MPI_COMM_SELF, &psize);
            unsigned char *packed = malloc((size_t)psize + 1);
            MPI_Pack(buf, count, mt, packed, psize, &pos, MPI_COMM_SELF);
            if (pos != nbytes || memcmp(packed, stream, (size_t)nbytes) != 0) {
                printf("round %d rank %d: gathered stream differs from MPI_Pack (%d vs %lld bytes)\n", round, rank, pos, (long long)nbytes);
                if (getenv("FLATTEN_DEBUG")) {
                    int64_t k = 0;
                    while (k < nbytes && packed[k] == stream[k]) k++;
                    fprintf(stderr, "  first difference at stream byte %lld; msize %d\n", (long long)k, msize);
                    print_type(mt, 2);
                }
                bad++;
            }
            free(packed);
            frc = compi_io_flatten_view(disp, ft, (int64_t)offset, nbytes, &fs);
        }
        /* Both files start as zeros up to the last byte the flattened lists
         * say anyone writes (data bytes are never 0): ROMIO's two-phase reads
         * the holes of a domain and writes them back, and beyond EOF it
         * writes its buffer's garbage instead. A byte the MPI writes beyond
         * that end changes the size; one the lists add, the content. */
        int64_t my_end = 0, end;
        for (size_t k = 0; k < fs.n; k++)
            if (fs.v[k].off + fs.v[k].len > my_end) my_end = fs.v[k].off + fs.v[k].len;
        MPI_Allreduce(&my_end, &end, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            int da = open(pa, O_RDWR);
            if (da < 0 || ftruncate(da, (off_t)end) != 0 || ftruncate(fb, 0) != 0 || ftruncate(fb, (off_t)end) != 0)
                perror("ftruncate");
            if (da >= 0) close(da);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        /* file A through MPI-IO */
        if (!packonly) MPI_File_set_view(fa, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        MPI_Status st;
        int rc = packonly ? MPI_SUCCESS : MPI_File_write_at_all(fa, offset, buf, count, mt, &st);
        if (rc != MPI_SUCCESS) { printf("round %d rank %d: MPI_File_write_at_all failed\n", round, rank); bad++; }
        MPI_File_sync(fa);

        /* file B through the flattened lists */
        if (frc != COMPI_OK) {
            if (frc != -1) {
                printf("round %d rank %d: flatten failed: %s\n", round, rank, compi_io_error_string(frc));
                bad++;
                if (getenv("FLATTEN_DEBUG")) {
                    compi_io_segs x;
                    compi_io_segs_init(&x);
                    int r2 = compi_io_flatten_type(ft, &x);
                    fprintf(stderr, "  filetype rc %d: %zu segs %lld bytes\n", r2, x.n, (long long)x.bytes);
                    for (size_t k = 0; k < x.n && k < 8; k++) fprintf(stderr, "   %lld+%lld\n", (long long)x.v[k].off, (long long)x.v[k].len);
                    compi_io_segs_free(&x);
                }
            }
        } else {
            int64_t at = 0;
            for (size_t k = 0; k < fs.n; k++) {
                if (pwrite(fb, stream + at, (size_t)fs.v[k].len, (off_t)fs.v[k].off) != (ssize_t)fs.v[k].len) {
                    perror("pwrite");
                    bad++;
                }
                at += fs.v[k].len;
            }
        }
        fsync(fb);
        MPI_Barrier(MPI_COMM_WORLD);

        if (rank == 0 && !packonly) {
            int da = open(pa, O_RDONLY);
            off_t sa = lseek(da, 0, SEEK_END), sb = lseek(fb, 0, SEEK_END);
            if (sa != sb) {
                printf("round %d (scenario %d, np %d): file sizes differ: MPI-IO %lld, pwrite %lld\n", round, scenario, np, (long long)sa, (long long)sb);
                bad++;
            } else if (sa > 0) {
                unsigned char *a = malloc((size_t)sa), *b = malloc((size_t)sa);
                if (pread(da, a, (size_t)sa, 0) != sa || pread(fb, b, (size_t)sa, 0) != sa) { perror("pread"); bad++; }
                else if (memcmp(a, b, (size_t)sa) != 0) {
                    off_t k = 0;
                    while (a[k] == b[k]) k++;
                    printf("round %d (scenario %d, np %d): files differ first at byte %lld of %lld\n", round, scenario, np, (long long)k, (long long)sa);
                    if (getenv("FLATTEN_DEBUG"))
                        for (off_t j = 0, shown = 0; j < sa && shown < 24; j++)
                            if (a[j] != b[j]) { fprintf(stderr, "  byte %lld: MPI-IO %u pwrite %u\n", (long long)j, a[j], b[j]); shown++; }
                    bad++;
                }
                free(a); free(b);
            }
            close(da);
        }
        compi_io_segs_free(&ms);
        compi_io_segs_free(&fs);
        free(stream);
        free(mem);
        free_type(&mt);
        MPI_Type_free(&ft);
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_File_close(&fa);
    close(fb);
    if (rank == 0) {
        unlink(pa); unlink(pb); rmdir(dir);
        printf("flatten_view: np %d, %d rounds (%d interleaved random (%d replaced), %d subarray, %d darray; rank 0 redrew %d "
               "overlapping memory types)%s, %s\n", np, rounds, kinds[0], invalid, kinds[1], kinds[2], memreplaced,
               contigmem ? ", ROMIO-safe subset" : packonly ? ", memory side vs MPI_Pack only" : "",
               total ? "FAILED" : "all identical");
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
