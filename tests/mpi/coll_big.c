/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives whose data or frames exceed what one int count of bytes
 * holds (> 2 GiB), and the peak memory they take: every call plain MPI
 * accepts, compi must accept, with the same results.
 *
 *   coll_big OP SIZE [DATA]
 * OP: bcast alltoall gather gatherv scatter allgather allreduce (in place)
 *     or all (every one of them in turn; small sizes only).
 * SIZE: bytes (suffix K, M, G: powers of 1000) of the largest buffer one
 *     rank passes: the broadcast, one rank's alltoall send buffer, one
 *     rank's gather/scatter block, the allgather's result, the allreduce
 *     vector.
 * DATA: random (default), smooth (long runs: compresses hundreds of
 *     times), dense (random bytes with every 8th byte zero: zstd shrinks it
 *     by about 5%, so a compressed payload of 2.4 GB of it exceeds 2 GiB).
 * Elements are uint64 computed from (sender, receiver, index), so every
 * receiver checks every element against what was sent. Rank 0 prints every
 * rank's peak resident memory (VmHWM) at the end: "peak_rss_kb rank R N";
 * with COLL_BIG_RSS_FACTOR set, every rank checks it against its buffers. */
#include "mpitest.h"

static char data_kind = 'r';
/* the most bytes of buffers this rank passed to one call */
static size_t app_bytes;
static void app_live(size_t n)
{
    if (n > app_bytes) app_bytes = n;
}

static uint64_t value(uint64_t src, uint64_t dst, uint64_t i)
{
    uint64_t seed = (src + 1) * 0x10001ULL + dst;
    switch (data_kind) {
    case 's': return seed << 40 | i >> 12;
    case 'd': return mt_mix(seed * 0x100000001ULL + i) & 0x00ffffffffffffffULL;
    default: return mt_mix(seed * 0x100000001ULL + i);
    }
}

static void fill(uint64_t *p, size_t n, int src, int dst)
{
    for (size_t i = 0; i < n; i++) p[i] = value((uint64_t)src, (uint64_t)dst, i);
}

/* Elements of p that differ from what src sent to dst. */
static size_t mismatches(const uint64_t *p, size_t n, int src, int dst, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != value((uint64_t)src, (uint64_t)dst, i) && bad++ == 0) *first = i;
    return bad;
}

#define CHECK_BLOCK(what, p, n, src, dst)                                                                   \
    do {                                                                                                    \
        size_t f_ = 0, b_ = mismatches(p, n, src, dst, &f_);                                                \
        CHECK(b_ == 0, what, "block from rank %d: %zu of %zu elements differ, first at [%zu]", src, b_,      \
              (size_t)(n), f_);                                                                             \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("FAIL [%s] rank %d: cannot allocate %zu bytes\n", mt_prog, mt_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

#define CHECK_RC(what, rc) CHECK((rc) == MPI_SUCCESS, what, "returned %s", mt_errstr(rc))

static void run_bcast(size_t bytes)
{
    size_t n = bytes / 8;
    uint64_t *b = xmalloc(n * 8);
    app_live(n * 8);
    if (mt_rank == 0) fill(b, n, 0, 0);
    else memset(b, 0, n * 8);
    int rc = MPI_Bcast(b, (int)n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    CHECK_RC("MPI_Bcast", rc);
    CHECK_BLOCK("bcast data", b, n, 0, 0);
    free(b);
    if (bytes > 64000000) return;
    /* small runs: the same data as n elements of a type whose bytes start
     * one element past the buffer (lower bound 8, extent 8: contiguous) */
    MPI_Datatype shifted;
    int one = 1;
    MPI_Aint disp = 8;
    MPI_CALL(MPI_Type_create_hindexed(1, &one, &disp, MPI_UINT64_T, &shifted));
    MPI_CALL(MPI_Type_commit(&shifted));
    b = xmalloc((n + 1) * 8);
    if (mt_rank == 0) fill(b + 1, n, 0, 0);
    else memset(b, 0, (n + 1) * 8);
    b[0] = 0x5eed;
    rc = MPI_Bcast(b, (int)n, shifted, 0, MPI_COMM_WORLD);
    CHECK_RC("MPI_Bcast (lower bound 8)", rc);
    CHECK_BLOCK("bcast data (lower bound 8)", b + 1, n, 0, 0);
    CHECK(b[0] == 0x5eed, "bcast (lower bound 8)", "the element before the data was written");
    MPI_Type_free(&shifted);
    free(b);
}

static void run_alltoall(size_t bytes)
{
    size_t blk = bytes / 8 / (size_t)mt_size;
    uint64_t *s = xmalloc(blk * 8 * (size_t)mt_size), *r = xmalloc(blk * 8 * (size_t)mt_size);
    app_live(2 * blk * 8 * (size_t)mt_size);
    for (int j = 0; j < mt_size; j++) fill(s + (size_t)j * blk, blk, mt_rank, j);
    memset(r, 0, blk * 8 * (size_t)mt_size);
    int rc = MPI_Alltoall(s, (int)blk, MPI_UINT64_T, r, (int)blk, MPI_UINT64_T, MPI_COMM_WORLD);
    CHECK_RC("MPI_Alltoall", rc);
    free(s);
    for (int i = 0; i < mt_size; i++) CHECK_BLOCK("alltoall block", r + (size_t)i * blk, blk, i, mt_rank);
    free(r);
}

/* v: counts differ per rank and the root stores the blocks in reverse rank order */
static void run_gather(size_t bytes, int v)
{
    size_t base = bytes / 8;
    int *counts = xmalloc(sizeof(int) * (size_t)mt_size), *displs = xmalloc(sizeof(int) * (size_t)mt_size);
    size_t total = 0;
    for (int i = 0; i < mt_size; i++) counts[i] = (int)(base - (v ? (size_t)i * 1000 : 0));
    for (int i = mt_size - 1; i >= 0; i--) {
        displs[i] = (int)total;   /* elements of MPI_UINT64_T: every displacement fits an int */
        total += (size_t)counts[i];
    }
    if (!v)
        for (int i = 0; i < mt_size; i++) displs[i] = (int)((size_t)i * base);
    uint64_t *s = xmalloc((size_t)counts[mt_rank] * 8), *r = mt_rank == 0 ? xmalloc(total * 8) : NULL;
    app_live((size_t)counts[mt_rank] * 8 + (r ? total * 8 : 0));
    fill(s, (size_t)counts[mt_rank], mt_rank, 0);
    if (r) memset(r, 0, total * 8);
    int rc = v ? MPI_Gatherv(s, counts[mt_rank], MPI_UINT64_T, r, counts, displs, MPI_UINT64_T, 0, MPI_COMM_WORLD)
               : MPI_Gather(s, (int)base, MPI_UINT64_T, r, (int)base, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    CHECK_RC(v ? "MPI_Gatherv" : "MPI_Gather", rc);
    free(s);
    for (int i = 0; r && i < mt_size; i++)
        CHECK_BLOCK(v ? "gatherv block" : "gather block", r + displs[i], (size_t)counts[i], i, 0);
    free(r);
    free(counts);
    free(displs);
}

static void run_scatter(size_t bytes)
{
    size_t blk = bytes / 8;
    uint64_t *s = mt_rank == 0 ? xmalloc(blk * 8 * (size_t)mt_size) : NULL, *r = xmalloc(blk * 8);
    app_live(blk * 8 * (s ? (size_t)mt_size + 1 : 1));
    for (int j = 0; s && j < mt_size; j++) fill(s + (size_t)j * blk, blk, 0, j);
    memset(r, 0, blk * 8);
    int rc = MPI_Scatter(s, (int)blk, MPI_UINT64_T, r, (int)blk, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    CHECK_RC("MPI_Scatter", rc);
    free(s);
    CHECK_BLOCK("scatter block", r, blk, 0, mt_rank);
    free(r);
}

static void run_allgather(size_t bytes)
{
    size_t blk = bytes / 8 / (size_t)mt_size;
    uint64_t *s = xmalloc(blk * 8), *r = xmalloc(blk * 8 * (size_t)mt_size);
    app_live(blk * 8 * ((size_t)mt_size + 1));
    fill(s, blk, mt_rank, 0);
    memset(r, 0, blk * 8 * (size_t)mt_size);
    int rc = MPI_Allgather(s, (int)blk, MPI_UINT64_T, r, (int)blk, MPI_UINT64_T, MPI_COMM_WORLD);
    CHECK_RC("MPI_Allgather", rc);
    free(s);
    for (int i = 0; i < mt_size; i++) CHECK_BLOCK("allgather block", r + (size_t)i * blk, blk, i, 0);
    free(r);
}

/* in place, MPI_BXOR: exact in any order, so every element is checked */
static void run_allreduce(size_t bytes)
{
    size_t n = bytes / 8;
    uint64_t *b = xmalloc(n * 8);
    app_live(n * 8);
    fill(b, n, mt_rank, 0);
    int rc = MPI_Allreduce(MPI_IN_PLACE, b, (int)n, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    CHECK_RC("MPI_Allreduce", rc);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t e = 0;
        for (int r = 0; r < mt_size; r++) e ^= value((uint64_t)r, 0, i);
        if (b[i] != e && bad++ == 0) first = i;
    }
    CHECK(bad == 0, "allreduce result", "%zu of %zu elements differ, first at [%zu]", bad, n, first);
    free(b);
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    double m = *end == 'K' ? 1e3 : *end == 'M' ? 1e6 : *end == 'G' ? 1e9 : 1;
    return ((size_t)(v * m) + 7) / 8 * 8;
}

static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_big");
    if (argc < 3) {
        if (mt_rank == 0) printf("FAIL [coll_big] usage: coll_big OP SIZE [random|smooth|dense]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *op = argv[1];
    size_t bytes = parse_size(argv[2]);
    if (argc > 3) data_kind = argv[3][0];
    static const char *const ops[] = {"bcast", "alltoall", "gather", "gatherv", "scatter", "allgather", "allreduce"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (strcmp(op, "all") != 0 && strcmp(op, ops[k]) != 0) continue;
        mt_group_begin("%s %zu bytes %s", ops[k], bytes, data_kind == 's' ? "smooth" : data_kind == 'd' ? "dense" : "random");
        switch (k) {
        case 0: run_bcast(bytes); break;
        case 1: run_alltoall(bytes); break;
        case 2: run_gather(bytes, 0); break;
        case 3: run_gather(bytes, 1); break;
        case 4: run_scatter(bytes); break;
        case 5: run_allgather(bytes); break;
        case 6: run_allreduce(bytes); break;
        }
        mt_group_end();
    }
    /* COLL_BIG_RSS_FACTOR=F: each rank's peak RSS must stay within F times
     * the buffers it passed to one call, plus 256 MB for the program, the
     * MPI and compi themselves (the large runs: compi's memory bound,
     * docs/limits.md) */
    const char *fs = getenv("COLL_BIG_RSS_FACTOR");
    if (fs && *fs) {
        mt_group_begin("peak memory");
        double limit = atof(fs) * (double)app_bytes / 1024.0 + 256.0 * 1024.0;
        long peak = peak_rss_kb();
        CHECK((double)peak <= limit, "peak RSS", "%ld kB, more than %s x %zu bytes of buffers + 256 MB (%.0f kB)",
              peak, fs, app_bytes, limit);
        mt_group_end();
    }
    /* one printer: lines of several ranks would interleave */
    long mine = peak_rss_kb(), *all = mt_rank == 0 ? xmalloc(sizeof(long) * (size_t)mt_size) : NULL;
    MPI_CALL(MPI_Gather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    for (int r = 0; all && r < mt_size; r++) printf("peak_rss_kb rank %d %ld\n", r, all[r]);
    free(all);
    return mt_finish();
}
