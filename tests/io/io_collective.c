/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's two-phase collective I/O against the MPI's own MPI-IO, in one run.
 * Every round opens two files on MPI_COMM_WORLD: A with the hint
 * compi_cb_aggregators=la or default (compi's path when libcompi is
 * preloaded) and a small random cb_buffer_size (many cycles), B with
 * compi_cb_aggregators=mpi (the MPI's own MPI-IO: the oracle). Both get the
 * same prefilled bytes (holes must keep them), the same view, the same
 * collective write (write_at_all, or seek + write_all); then
 *   - status counts (MPI_Get_count, MPI_Get_elements) and file pointers agree,
 *   - rank 0 compares A and B byte for byte (size included),
 *   - the same collective read (read_at_all, or seek + read_all; sometimes
 *     past the end of file) into sentinel-filled buffers gives the same
 *     buffers (untouched bytes included), counts and pointers.
 * Views (mode "full", OMPIO's oracle): random nested filetypes in an
 * interleaved view, global subarrays and darrays, an irregular indexed
 * view of doubles (a random partition, as a METIS-partitioned mesh), with
 * random nested memory types. Mode "romio": subarray, darray and indexed
 * views with contiguous memory (what ROMIO gets right, see flatten_view.c).
 * With IO_EXPECT_COMPI=1 the run fails unless libcompi is loaded and ran
 * its own path (compi_io_path_calls, found with dlsym) for most rounds.
 * usage: io_collective [rounds] [seed] [full|romio]. One line per failure. */
#define _GNU_SOURCE
#include "randtypes.h"
#include "slurp.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

static int rank, np, bad;

#define FAIL(...) do { printf("FAILED round %d rank %d: ", round, rank); printf(__VA_ARGS__); printf("\n"); bad++; } while (0)

/* An irregular partition of n doubles: element i belongs to a random rank;
 * my elements as an indexed type of runs. */
static MPI_Datatype indexed_view(int n)
{
    int *own = malloc(sizeof(int) * (size_t)n), *bl = malloc(sizeof(int) * (size_t)n), *dp = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) own[i] = rr(0, 3) == 0 && i > 0 ? own[i - 1] : rr(0, np - 1);   /* some runs */
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (own[i] != rank) continue;
        if (k > 0 && dp[k - 1] + bl[k - 1] == i) bl[k - 1]++;
        else { dp[k] = i; bl[k] = 1; k++; }
    }
    MPI_Datatype t, r;
    MPI_Type_indexed(k, bl, dp, MPI_DOUBLE, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)n * 8, &r);   /* the whole array is one tile */
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    free(own); free(bl); free(dp);
    return r;
}

/* Open MPI 4.1's datatype engine and the standard disagree on some memory
 * types (hvector with a negative stride: lb 0 and bytes packed forward), so
 * neither MPI_Pack nor the MPI's MPI-IO can judge them: such types are
 * redrawn. True when lib/io's type map of t is MPI_Pack's. */
static int pack_agrees(MPI_Datatype t)
{
    int n;
    int *map = typemap(t, &n);
    if (!map) return 0;
    compi_io_segs sg;
    compi_io_segs_init(&sg);
    int ok = compi_io_flatten_type(t, &sg) == COMPI_OK && sg.bytes == n;
    int at = 0;
    for (size_t k = 0; ok && k < sg.n; k++)
        for (int64_t b = 0; ok && b < sg.v[k].len; b++) ok = map[at++] == (int)(sg.v[k].off + b);
    compi_io_segs_free(&sg);
    free(map);
    return ok;
}

static void check_status(int round, const char *what, MPI_Status *a, MPI_Status *b, MPI_Datatype dt)
{
    int ca, cb, ea, eb;
    MPI_Get_count(a, dt, &ca);
    MPI_Get_count(b, dt, &cb);
    MPI_Get_elements(a, dt, &ea);
    MPI_Get_elements(b, dt, &eb);
    if (ca != cb || ea != eb) FAIL("%s: status count %d elements %d, the MPI's %d / %d", what, ca, ea, cb, eb);
}

static void check_position(int round, const char *what, MPI_File a, MPI_File b)
{
    MPI_Offset pa, pb;
    MPI_File_get_position(a, &pa);
    MPI_File_get_position(b, &pb);
    if (pa != pb) FAIL("%s: file pointer %lld, the MPI's %lld", what, (long long)pa, (long long)pb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 7;
    int romio = argc > 3 && strcmp(argv[3], "romio") == 0;
    int strict = getenv("IO_STRICT_MPI") && atoi(getenv("IO_STRICT_MPI"));
    char dir[256], pa[300], pb[300], pc[300];
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/compi_iocoll_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) { perror("mkdtemp"); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(pa, sizeof pa, "%s/compi.out", dir);
    snprintf(pb, sizeof pb, "%s/mpi.out", dir);
    int kinds[4] = {0, 0, 0, 0};

    uint64_t (*calls)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "compi_io_path_calls");
    uint64_t (*gated)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "compi_io_gate_passes");
    for (int round = 0; round < rounds; round++) {
        rs = seed * 1000003u + (uint64_t)round * 7919u + 1;
        int scenario = romio ? 1 + rr(0, 2) : (rr(0, 5) < 3 ? 0 : 1 + rr(0, 2));
        int depth = rr(1, 3);
        MPI_Datatype ft = MPI_DATATYPE_NULL, etype = MPI_BYTE;
        MPI_Offset disp = rr(0, 3) == 0 ? 0 : rr(1, 100);
        char cbs[32];
        snprintf(cbs, sizeof cbs, "%d", rr(0, 3) == 0 ? 16 << 20 : rr(8, 3000));
        const char *policy = round % 2 ? "default" : "la";
        int cbnodes = rr(0, 3) == 0 ? rr(1, 2) : 0;
        if (scenario == 0) {   /* interleaved: rank r's random type in slot r of np */
            uint64_t keep = rs;
            rs ^= (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ull;
            rnd();
            MPI_Datatype t = gen(depth, 1);
            if (!valid_filetype(t)) {
                free_type(&t);
                MPI_Type_contiguous(rr(1, 64), MPI_BYTE, &t);
                MPI_Type_commit(&t);
            }
            rs = keep;
            tinfo ti = info_of(t);
            MPI_Aint need = ti.tlb + ti.text, slot;
            MPI_Allreduce(&need, &slot, 1, MPI_AINT, MPI_MAX, MPI_COMM_WORLD);
            slot += round % 4;
            int one = 1;
            MPI_Aint at = (MPI_Aint)rank * slot;
            MPI_Datatype s;
            MPI_Type_create_struct(1, &one, &at, &t, &s);
            MPI_Type_create_resized(s, 0, (MPI_Aint)np * slot, &ft);
            MPI_Type_commit(&ft);
            MPI_Type_free(&s);
            free_type(&t);
        } else if (scenario == 1) {   /* global 3D subarray, split along the slowest axis */
            int sizes[3] = {rr(np, 2 * np + 6), rr(1, 9), rr(1, 9)}, subs[3], starts[3];
            int order = rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
            int axis = order == MPI_ORDER_C ? 0 : 2;
            if (axis == 2) { int x = sizes[0]; sizes[0] = sizes[2]; sizes[2] = x; }
            for (int k = 0; k < 3; k++) { subs[k] = sizes[k]; starts[k] = 0; }
            int per = sizes[axis] / np;
            subs[axis] = per + (rank < sizes[axis] % np);
            starts[axis] = rank * per + (rank < sizes[axis] % np ? rank : sizes[axis] % np);
            etype = rr(0, 1) ? MPI_DOUBLE : MPI_INT;
            MPI_Type_create_subarray(3, sizes, subs, starts, order, etype, &ft);
            MPI_Type_commit(&ft);
        } else if (scenario == 2) {   /* darray over a 2D process grid */
            int dims[2] = {0, 0};
            MPI_Dims_create(np, 2, dims);
            int g[2] = {rr(2, 16), rr(2, 16)}, dist[2], darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
            for (int k = 0; k < 2; k++) {
                dist[k] = rr(0, 1) ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_CYCLIC;
                if (dist[k] == MPI_DISTRIBUTE_CYCLIC && rr(0, 1)) darg[k] = rr(1, 3);
                if (dist[k] == MPI_DISTRIBUTE_BLOCK && g[k] < dims[k]) g[k] = dims[k];
            }
            etype = MPI_INT;
            MPI_Type_create_darray(np, rank, 2, g, dist, darg, dims, rr(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                                   MPI_INT, &ft);
            MPI_Type_commit(&ft);
        } else {   /* irregular indexed view of doubles */
            etype = MPI_DOUBLE;
            ft = indexed_view(rr(np, 400));
        }
        if (getenv("IO_ALIGN_DISP")) { int es; MPI_Type_size(etype, &es); disp -= disp % es; }
        kinds[scenario]++;
        int ftsize, esize;
        MPI_Type_size(ft, &ftsize);
        MPI_Type_size(etype, &esize);

        /* memory side, per rank */
        uint64_t shared = rs;
        rs ^= (uint64_t)(rank + 7) * 0xD1B54A32D192ED03ull;
        rnd();
        MPI_Datatype mt = romio || etype != MPI_BYTE ? etype : gen(rr(0, 3), 0);
        for (int tries = 0; !valid_memtype(mt) || !pack_agrees(mt); tries++) {
            free_type(&mt);
            mt = tries < 5 ? gen(rr(0, 3), 0) : MPI_BYTE;
        }
        tinfo mi = info_of(mt);
        int msize;
        MPI_Type_size(mt, &msize);
        int count = msize ? rr(0, 1 + 6000 / msize) : rr(0, 3);
        if (ftsize == 0) count = 0;
        MPI_Offset offset = ftsize ? rr(0, 2 * ftsize / esize) : 0;   /* in etypes */
        int read_more = rr(0, 5) == 0;   /* read past the end of file: the MPI's own read */
        rs = shared;
        int use_pointer = rr(0, 1);      /* the same collective call on every rank */

        MPI_Aint lo = mi.tlb, hi = mi.tlb + mi.text;
        if (msize == 0) lo = hi = 0;
        else {
            int c2 = count + (read_more ? 64 : 0);
            if (c2 > 0) {
                MPI_Aint last = (MPI_Aint)(c2 - 1) * mi.ext;
                if (mi.tlb + last < lo) lo = mi.tlb + last;
                if (mi.tlb + last + mi.text > hi) hi = mi.tlb + last + mi.text;
            }
        }
        size_t span = (size_t)(hi - lo) + 1;
        unsigned char *mem = malloc(span), *ra = malloc(span), *rb = malloc(span);
        for (size_t i = 0; i < span; i++) mem[i] = (unsigned char)(((i * 131 + (size_t)rank * 977 + round) % 251) + 1);
        unsigned char *buf = mem - lo;

        /* both files: the same prefilled bytes (what no process writes must stay) */
        MPI_Info ia, ib;
        MPI_Info_create(&ia);
        MPI_Info_create(&ib);
        MPI_Info_set(ia, "compi_cb_aggregators", policy);
        if (round % 4 == 2) MPI_Info_set(ia, "compi_cb_weight", "blocks");   /* la weighing block counts */
        /* la with the gate (on by default: under ROMIO a call la cannot speed
         * up goes to the MPI, the file must not change) in a third of its
         * rounds, forced onto compi's path in the others */
        if (round % 2 == 0 && (round / 2) % 3 != 0) MPI_Info_set(ia, "compi_cb_gate", "off");
        if (!getenv("IO_NO_CB")) MPI_Info_set(ia, "cb_buffer_size", cbs);
        if (cbnodes && !getenv("IO_NO_CBN")) { char v[16]; snprintf(v, sizeof v, "%d", cbnodes); MPI_Info_set(ia, "cb_nodes", v); }
        MPI_Info_set(ib, "compi_cb_aggregators", "mpi");
        MPI_File fa, fb;
        snprintf(pa, sizeof pa, "%s/compi.%d", dir, round);
        snprintf(pb, sizeof pb, "%s/mpi.%d", dir, round);
        snprintf(pc, sizeof pc, "%s/pwrite.%d", dir, round);
        if (MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_CREATE | MPI_MODE_RDWR, ia, &fa) != MPI_SUCCESS ||
            MPI_File_open(MPI_COMM_WORLD, pb, MPI_MODE_CREATE | MPI_MODE_RDWR, ib, &fb) != MPI_SUCCESS) {
            printf("FAILED: cannot open %s / %s\n", pa, pb);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int pre = rr(0, 3) == 0 ? 0 : rr(1, 20000);
        if (getenv("IO_NO_PRE")) pre = 0;
        if (rank == 0 && pre) {
            unsigned char *p = malloc((size_t)pre);
            for (int i = 0; i < pre; i++) p[i] = (unsigned char)(0x80 | (i * 7 + round));
            MPI_Status st;
            MPI_File_write_at(fa, 0, p, pre, MPI_BYTE, &st);
            MPI_File_write_at(fb, 0, p, pre, MPI_BYTE, &st);
            int fd = open(pc, O_CREAT | O_WRONLY, 0644);
            if (fd < 0 || pwrite(fd, p, (size_t)pre, 0) != pre) FAIL("cannot prefill %s", pc);
            if (fd >= 0) close(fd);
            free(p);
        }
        MPI_File_sync(fa);
        MPI_File_sync(fb);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fa);
        MPI_File_sync(fb);
        MPI_File_set_view(fa, disp, etype, ft, "native", MPI_INFO_NULL);
        MPI_File_set_view(fb, disp, etype, ft, "native", MPI_INFO_NULL);

        if (getenv("IO_DEBUG"))
            fprintf(stderr, "round %d rank %d: scenario %d disp %lld ftsize %d esize %d msize %d count %d offset %lld pointer %d pre %d\n",
                    round, rank, scenario, (long long)disp, ftsize, esize, msize, count, (long long)offset, use_pointer, pre);
        /* the write */
        unsigned long long before = calls ? (unsigned long long)calls() : 0;
        MPI_Status sa, sb;
        int rca, rcb;
        if (use_pointer) {
            MPI_File_seek(fa, offset, MPI_SEEK_SET);
            MPI_File_seek(fb, offset, MPI_SEEK_SET);
            rca = MPI_File_write_all(fa, buf, count, mt, &sa);
            rcb = MPI_File_write_all(fb, buf, count, mt, &sb);
        } else {
            rca = MPI_File_write_at_all(fa, offset, buf, count, mt, &sa);
            rcb = MPI_File_write_at_all(fb, offset, buf, count, mt, &sb);
        }
        if (rca != rcb) FAIL("write returned %d, the MPI's %d", rca, rcb);
        const char *path_taken = calls && calls() > before ? "compi's path" : "passed to the MPI";
        {   /* file C: the same bytes pwrite()n by each rank to its flattened segments */
            compi_io_segs ms, fs;
            compi_io_segs_init(&ms);
            compi_io_segs_init(&fs);
            int64_t nbytes = (int64_t)count * msize;
            if (compi_io_flatten_memory(mt, count, &ms) == COMPI_OK &&
                compi_io_flatten_view(disp, ft, (int64_t)offset * esize, nbytes, &fs) == COMPI_OK) {
                unsigned char *stream = malloc((size_t)nbytes + 1);
                int64_t at = 0;
                for (size_t k = 0; k < ms.n; k++) { memcpy(stream + at, buf + ms.v[k].off, (size_t)ms.v[k].len); at += ms.v[k].len; }
                int psize = 0, ppos = 0;
                MPI_Pack_size(count, mt, MPI_COMM_SELF, &psize);
                unsigned char *packed = malloc((size_t)psize + 1);
                MPI_Pack(buf, count, mt, packed, psize, &ppos, MPI_COMM_SELF);
                if (ppos != nbytes || memcmp(packed, stream, (size_t)nbytes) != 0)
                {
                    FAIL("the memory side differs from MPI_Pack (%d of %lld bytes packed)", ppos, (long long)nbytes);
                    if (getenv("IO_DEBUG")) {
                        print_type(mt, 2);
                        for (size_t k = 0; k < ms.n && k < 16; k++) fprintf(stderr, " %lld+%lld", (long long)ms.v[k].off, (long long)ms.v[k].len);
                        fprintf(stderr, "\n");
                        for (int64_t k = 0; k < 40 && k < nbytes; k++) fprintf(stderr, " %02x/%02x", stream[k], packed[k]);
                        fprintf(stderr, "\n");
                    }
                }
                free(packed);
                int fd = open(pc, O_CREAT | O_WRONLY, 0644);
                at = 0;
                for (size_t k = 0; k < fs.n && fd >= 0; k++) {
                    if (pwrite(fd, stream + at, (size_t)fs.v[k].len, fs.v[k].off) != fs.v[k].len) FAIL("pwrite %s", pc);
                    at += fs.v[k].len;
                }
                if (fd >= 0) close(fd);
                free(stream);
            } else {
                FAIL("lib/io does not flatten this round's types");
            }
            compi_io_segs_free(&ms);
            compi_io_segs_free(&fs);
        }
        check_status(round, "write", &sa, &sb, mt);
        check_position(round, "write", fa, fb);
        MPI_File_sync(fa);
        MPI_File_sync(fb);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fa);
        MPI_File_sync(fb);
        if (getenv("IO_SLEEP")) sleep(1);
        if (rank == 0) {
            long na, nb;
            long nc;
            unsigned char *a = slurp(pa, &na), *b = slurp(pb, &nb), *cc = slurp(pc, &nc);
            long diff = nc != nb ? 0 : -1;
            for (long i = 0; diff < 0 && i < nc; i++)
                if (cc[i] != b[i]) diff = i;
            if (diff >= 0 && strict)
                FAIL("the MPI's file differs from pwrite's at byte %ld (sizes %ld / %ld) (scenario %d)", diff, nb, nc, scenario);
            else if (diff >= 0)
                printf("NOTE round %d: the MPI's own file differs from the type map at byte %ld (sizes %ld / %ld)\n", round, diff, nb, nc);
            /* compi's file against the type map (always), the MPI's against
             * it too (OMPIO's two-phase fcoll components were seen writing
             * stale buffer bytes into holes: IO_STRICT_MPI=1 makes that a
             * failure, run with --mca fcoll individual) */
            if (na != nc) FAIL("file sizes %ld (compi) and %ld (pwrite) (scenario %d, policy %s)", na, nc, scenario, policy);
            else
                for (long i = 0; i < na; i++)
                    if (a[i] != cc[i] && !strict && calls && strcmp(path_taken, "compi's path") != 0) {
                        printf("NOTE round %d: the write went to the MPI and its file differs from the type map at byte %ld\n", round, i);
                        break;
                    } else if (a[i] != cc[i]) {
                        FAIL("files differ first at byte %ld: %02x (compi) vs %02x (pwrite) (scenario %d, policy %s, cb %s, %s)",
                             i, a[i], cc[i], scenario, policy, cbs, path_taken);
                        break;
                    }
            free(a);
            free(b);
            free(cc);
        }

        /* the read back: file A through compi (fa) and through the MPI (fm) */
        MPI_File fm;
        if (MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_RDONLY, ib, &fm) != MPI_SUCCESS) {
            printf("FAILED: cannot reopen %s\n", pa);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_File_set_view(fm, disp, etype, ft, "native", MPI_INFO_NULL);
        int rcount = count + (read_more ? 64 : 0);
        if (msize == 0) rcount = count;
        memset(ra, 0xEE, span);
        memset(rb, 0xEE, span);
        if (use_pointer) {
            MPI_File_seek(fa, offset, MPI_SEEK_SET);
            MPI_File_seek(fm, offset, MPI_SEEK_SET);
            rca = MPI_File_read_all(fa, ra - lo, rcount, mt, &sa);
            rcb = MPI_File_read_all(fm, rb - lo, rcount, mt, &sb);
        } else {
            rca = MPI_File_read_at_all(fa, offset, ra - lo, rcount, mt, &sa);
            rcb = MPI_File_read_at_all(fm, offset, rb - lo, rcount, mt, &sb);
        }
        if (rca != rcb) FAIL("read returned %d, the MPI's %d", rca, rcb);
        check_status(round, "read", &sa, &sb, mt);
        check_position(round, "read", fa, fm);
        for (size_t i = 0; i < span; i++)
            if (ra[i] != rb[i]) {
                if (strict)
                    FAIL("read buffers differ first at byte %zu: %02x (compi) vs %02x (MPI) (scenario %d, policy %s)", i,
                         ra[i], rb[i], scenario, policy);
                else
                    printf("NOTE round %d rank %d: the MPI's read differs from compi's at byte %zu\n", round, rank, i);
                break;
            }
        MPI_File_close(&fm);
        MPI_File_close(&fa);
        MPI_File_close(&fb);
        if (rank == 0 && !bad) { unlink(pa); unlink(pb); unlink(pc); }
        MPI_Info_free(&ia);
        MPI_Info_free(&ib);
        free(mem); free(ra); free(rb);
        free_type(&mt);
        MPI_Type_free(&ft);
    }
    /* a bad compi_cb_weight: a notice and the MPI's own MPI-IO for the file
     * (compi's path not taken); the data is written all the same */
    if (calls) {
        int round = rounds;   /* for FAIL */
        uint64_t before = calls();
        MPI_Info ibad;
        MPI_Info_create(&ibad);
        MPI_Info_set(ibad, "compi_cb_aggregators", "la");
        MPI_Info_set(ibad, "compi_cb_weight", "bogus");
        MPI_File fh;
        snprintf(pa, sizeof pa, "%s/badhint", dir);
        int v[2] = {rank, -rank}, w[2] = {0, 0};
        if (MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_CREATE | MPI_MODE_RDWR, ibad, &fh) != MPI_SUCCESS) {
            FAIL("cannot open %s", pa);
        } else {
            MPI_File_write_at_all(fh, (MPI_Offset)rank * 8, v, 2, MPI_INT, MPI_STATUS_IGNORE);
            MPI_File_read_at_all(fh, (MPI_Offset)rank * 8, w, 2, MPI_INT, MPI_STATUS_IGNORE);
            MPI_File_close(&fh);
            if (calls() != before) FAIL("a bad compi_cb_weight hint still took compi's path");
            if (w[0] != v[0] || w[1] != v[1]) FAIL("the file with a bad hint reads back %d %d", w[0], w[1]);
        }
        MPI_Info_free(&ibad);
    }
    unsigned long long path = calls ? (unsigned long long)calls() : 0;
    const char *expect = getenv("IO_EXPECT_COMPI");
    /* 4 collective calls per round, two of them on file A */
    if (expect && atoi(expect) && (!calls || path < (unsigned long long)rounds)) {
        printf("FAILED rank %d: compi's path ran %llu collective calls in %d rounds (libcompi %s)\n", rank, path,
               rounds, calls ? "loaded" : "not loaded");
        bad++;
    }
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!total) {
            char cmd[400];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            if (system(cmd) != 0) printf("(could not remove %s)\n", dir);
        }
        printf("io_collective: np %d, %d rounds (interleaved %d, subarray %d, darray %d, indexed %d), compi path calls on rank 0: %llu, "
               "passed by the gate: %llu: %s\n",
               np, rounds, kinds[0], kinds[1], kinds[2], kinds[3], path, gated ? (unsigned long long)gated() : 0ull,
               total ? "FAILED" : "OK");
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
