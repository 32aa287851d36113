/* SPDX-License-Identifier: BSD-3-Clause */
/* Codec test suite: round trips and decoder robustness for every codec in the
 * table (iterated through compi_codec_at, so new codecs are covered without
 * edits) over every synthetic data set.
 *
 *   test_codecs [--roundtrip] [--robust] [--threads] [--huge] [--codec NAME] [--quick]
 * With no part selected, roundtrip, robust and threads run. --huge (not in
 * ctest: needs ~8 GB RAM) round-trips 2 GiB + 13 bytes, past the 31-bit limits
 * of LZ4/Blosc; a codec may instead refuse with a clean error. Each failure prints one line with
 * codec, data set, size and what went wrong; the last line is always
 * "N passed, N failed" and the exit status is non-zero on any failure.
 * --limits checks each codec's declared input limit (max_input): one byte
 * more is refused cleanly without reading the input. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "compi.h"
#include "common/datasets.h"

#define TC_MAX_DATA ((size_t)4 << 20)
#define TC_RATIO_SIZE ((size_t)1 << 20)

static unsigned long long tc_passed, tc_failed;
static int tc_quick;
static pthread_mutex_t tc_lock = PTHREAD_MUTEX_INITIALIZER;

static void tc_pass(void)
{
    pthread_mutex_lock(&tc_lock);
    tc_passed++;
    pthread_mutex_unlock(&tc_lock);
}

static void tc_fail(const compi_codec *c, const char *ds, size_t size, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&tc_lock);
    tc_failed++;
    if (tc_failed <= 200)
        fprintf(stderr, "FAIL codec=%s dataset=%s size=%zu: %s\n", c->name, ds, size, msg);
    else if (tc_failed == 201)
        fprintf(stderr, "FAIL ... further failures not printed\n");
    pthread_mutex_unlock(&tc_lock);
}

static uint64_t tc_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void *tc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_codecs: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* What the robustness part is doing right now, so a crash inside a codec
 * still names codec, data set and size. */
static char tc_context[256];
static struct sigaction tc_old_segv, tc_old_bus;

static void tc_crash_handler(int sig)
{
    static const char pre[] = "FAIL crash (signal) during: ";
    ssize_t w = write(2, pre, sizeof pre - 1);
    w = write(2, tc_context, strnlen(tc_context, sizeof tc_context));
    w = write(2, "\n", 1);
    (void)w;
    /* Hand the fault back to the previous handler (ASan's, or the default). */
    sigaction(SIGSEGV, &tc_old_segv, NULL);
    sigaction(SIGBUS, &tc_old_bus, NULL);
    (void)sig;
}

static void tc_install_crash_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tc_crash_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &tc_old_segv);
    sigaction(SIGBUS, &sa, &tc_old_bus);
}

static compi_codec_params tc_params(size_t ds)
{
    compi_codec_params p;
    memset(&p, 0, sizeof p);
    p.dtclass = compi_dataset_class(ds);
    p.elem_size = p.dtclass == COMPI_CLASS_DOUBLE ? 8 : p.dtclass == COMPI_CLASS_BYTE ? 1 : 4;
    p.level = 0;
    return p;
}

/* n bytes ending exactly at a PROT_NONE page: the codec libraries are not
 * built with ASan, so this is what catches their over-runs past the end. */
typedef struct {
    void *map;
    size_t map_len;
} tc_guard;

static unsigned char *tc_guard_alloc(size_t n, tc_guard *g)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (n + page - 1) / page;
    g->map_len = (data_pages + 1) * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        fprintf(stderr, "test_codecs: mmap failed\n");
        exit(2);
    }
    unsigned char *guard = (unsigned char *)g->map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        fprintf(stderr, "test_codecs: mprotect failed\n");
        exit(2);
    }
    return guard - n;
}

/* Decode `len` stream bytes copied into an exact-size block into an
 * exact-size output block of dst_len bytes. Alternates between malloc (ASan
 * redzones on both sides, for instrumented code) and guard pages (for the
 * uninstrumented libraries). Robustness part only: single-threaded. */
static long long tc_decode_exact(const compi_codec *c, const unsigned char *stream, size_t len,
                                 size_t dst_len, const compi_codec_params *p)
{
    static unsigned long calls;
    int guarded = (calls++ & 1) != 0;
    tc_guard gs = {0}, gd = {0};
    unsigned char *in = guarded ? tc_guard_alloc(len, &gs) : tc_xmalloc(len);
    unsigned char *dst = guarded ? tc_guard_alloc(dst_len, &gd) : tc_xmalloc(dst_len);
    memcpy(in, stream, len); /* stream is never NULL here */
    long long r = c->decompress(in, len, dst, dst_len, p);
    if (guarded) {
        munmap(gs.map, gs.map_len);
        munmap(gd.map, gd.map_len);
    } else {
        free(in);
        free(dst);
    }
    return r;
}

/* Compress n bytes of data; returns the stream (heap) and its length, or NULL. */
static unsigned char *tc_compress(const compi_codec *c, const char *dsname, const unsigned char *data,
                                  size_t n, const compi_codec_params *p, size_t *clen)
{
    size_t cap = c->bound(n);
    if (cap < n / 2) {
        tc_fail(c, dsname, n, "bound(%zu) = %zu is implausibly small", n, cap);
        return NULL;
    }
    unsigned char *dst = tc_xmalloc(cap);
    long long r = c->compress(data, n, dst, cap, p);
    if (r < 0 || (size_t)r > cap) {
        tc_fail(c, dsname, n, "compress returned %lld (%s), bound %zu", r,
                r < 0 ? compi_error_string((int)r) : "over bound", cap);
        free(dst);
        return NULL;
    }
    *clen = (size_t)r;
    return dst;
}

/* ---------------------------------------------------------------- round trip */

static void tc_sizes(size_t *sizes, size_t *count)
{
    size_t n = 0;
    static const size_t small[] = {0, 1, 7, 8, 9};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) sizes[n++] = small[i];
    for (int k = 2; k <= 20; k++) {
        size_t b = (size_t)1 << k;
        size_t cand[3] = {b - 1, b, b + 1};
        for (int j = 0; j < 3; j++) {
            int dup = 0;
            for (size_t q = 0; q < n; q++) dup |= sizes[q] == cand[j];
            if (!dup) sizes[n++] = cand[j];
        }
    }
    sizes[n++] = TC_MAX_DATA - 3;
    sizes[n++] = TC_MAX_DATA;
    *count = n;
}

/* One round trip from src offset soff into dst offset doff; returns the
 * compressed size or (size_t)-1 on failure. */
static size_t tc_roundtrip_one(const compi_codec *c, size_t ds, const unsigned char *data, size_t n,
                               unsigned soff, unsigned doff, int level)
{
    const char *dsname = compi_dataset_name(ds);
    compi_codec_params p = tc_params(ds);
    p.level = level;
    unsigned char *srcblk = tc_xmalloc(n + soff);
    memcpy(srcblk + soff, data, n);
    size_t cap = c->bound(n);
    unsigned char *cblk = tc_xmalloc(cap + doff);
    long long r = c->compress(srcblk + soff, n, cblk + doff, cap, &p);
    free(srcblk);
    if (r < 0 || (size_t)r > cap) {
        tc_fail(c, dsname, n, "compress (src+%u, dst+%u, level %d) returned %lld (%s), bound %zu", soff,
                doff, level, r, r < 0 ? compi_error_string((int)r) : "over bound", cap);
        free(cblk);
        return (size_t)-1;
    }
    size_t clen = (size_t)r;
    /* Decode from an exact-size, misaligned copy into an exact-size,
     * misaligned destination. */
    unsigned char *in = tc_xmalloc(clen + soff);
    memcpy(in + soff, cblk + doff, clen);
    free(cblk);
    unsigned char *outblk = tc_xmalloc(n + doff);
    memset(outblk, 0xa5, n + doff);
    long long d = c->decompress(in + soff, clen, outblk + doff, n, &p);
    free(in);
    size_t ret = clen;
    if (d != (long long)n) {
        tc_fail(c, dsname, n, "decompress (src+%u, dst+%u, level %d) of %zu-byte stream returned %lld (%s)",
                soff, doff, level, clen, d, d < 0 ? compi_error_string((int)d) : "wrong length");
        ret = (size_t)-1;
    } else if (n && memcmp(outblk + doff, data, n) != 0) {
        size_t at = 0;
        while (outblk[doff + at] == data[at]) at++;
        tc_fail(c, dsname, n, "round trip differs at byte %zu (src+%u, dst+%u, level %d)", at, soff, doff,
                level);
        ret = (size_t)-1;
    } else {
        tc_pass();
    }
    free(outblk);
    return ret;
}

static void tc_roundtrip_codec(const compi_codec *c, unsigned char **data)
{
    size_t sizes[80], nsizes;
    tc_sizes(sizes, &nsizes);
    size_t nds = compi_dataset_count();
    unsigned long long before = tc_failed;
    printf("%-11s ratio@1MiB:", c->name);
    for (size_t ds = 0; ds < nds; ds++) {
        double ratio = 0;
        for (size_t i = 0; i < nsizes; i++) {
            size_t n = sizes[i];
            if (tc_quick && n > ((size_t)1 << 16) && n != TC_RATIO_SIZE) continue;
            unsigned soff = (unsigned)(i % 8), doff = (unsigned)((i * 3 + ds) % 8);
            snprintf(tc_context, sizeof tc_context, "codec=%s dataset=%s size=%zu (round trip)",
                     c->name, compi_dataset_name(ds), n);
            size_t clen = tc_roundtrip_one(c, ds, data[ds], n, soff, doff, 0);
            if (n == TC_RATIO_SIZE && clen != (size_t)-1) ratio = (double)n / (double)(clen ? clen : 1);
        }
        printf(" %s=%.2f", compi_dataset_name(ds), ratio);
        /* Non-default levels, including out-of-range ones codecs must clamp. */
        static const int levels[] = {-1000, -5, 1, 3, 9, 19, 1000};
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            tc_roundtrip_one(c, ds, data[ds], 1001, 1, 2, levels[l]);
            tc_roundtrip_one(c, ds, data[ds], 65537, 3, 5, levels[l]);
        }
    }
    printf("\n%-11s roundtrip: %s\n", c->name, tc_failed == before ? "ok" : "FAILED");
    fflush(stdout);
}

/* ---------------------------------------------------------------- robustness */

/* compi.h: a failed decode is COMPI_ERR_CORRUPT or COMPI_ERR_LENGTH (NOMEM
 * is tolerated: a codec may need scratch memory). */
static int tc_decode_error_ok(long long r)
{
    return r == COMPI_ERR_CORRUPT || r == COMPI_ERR_LENGTH || r == COMPI_ERR_NOMEM;
}

/* A decode of damaged input must fail or yield exactly dst_len bytes. */
static void tc_expect_safe(const compi_codec *c, const char *ds, size_t n, long long r, size_t dst_len,
                           const char *what, size_t detail)
{
    if (r == (long long)dst_len || tc_decode_error_ok(r)) tc_pass();
    else tc_fail(c, ds, n, "%s (%zu): decompress returned %lld for dst_len %zu", what, detail, r, dst_len);
}

static void tc_robust_stream(const compi_codec *c, size_t ds, const unsigned char *data, size_t n,
                             uint64_t *rng)
{
    const char *dsname = compi_dataset_name(ds);
    compi_codec_params p = tc_params(ds);
    size_t clen = 0;
    snprintf(tc_context, sizeof tc_context, "codec=%s dataset=%s size=%zu (robustness)", c->name,
             dsname, n);
    unsigned char *stream = tc_compress(c, dsname, data, n, &p, &clen);
    if (!stream) return;

    /* Truncation: every prefix of small streams, sampled cut points of large. */
    if (clen <= 2048) {
        for (size_t cut = 0; cut < clen; cut++)
            tc_expect_safe(c, dsname, n, tc_decode_exact(c, stream, cut, n, &p), n, "prefix", cut);
    } else {
        for (int t = 0; t < 48; t++) {
            size_t cut = t < 16 ? (size_t)t : t < 32 ? clen - (size_t)(t - 15) : tc_rng(rng) % clen;
            tc_expect_safe(c, dsname, n, tc_decode_exact(c, stream, cut, n, &p), n, "prefix", cut);
        }
    }

    /* Bit flips: every bit of tiny streams, random bits otherwise, plus a few
     * multi-byte smashes. */
    unsigned char *mut = tc_xmalloc(clen);
    size_t nflips = clen * 8 <= 512 ? clen * 8 : 160;
    for (size_t f = 0; clen && f < nflips; f++) {
        size_t bit = clen * 8 <= 512 ? f : tc_rng(rng) % (clen * 8);
        memcpy(mut, stream, clen);
        mut[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        tc_expect_safe(c, dsname, n, tc_decode_exact(c, mut, clen, n, &p), n, "bit flip", bit);
    }
    for (int f = 0; clen && f < 32; f++) {
        memcpy(mut, stream, clen);
        size_t at = tc_rng(rng) % clen, k = 1 + tc_rng(rng) % 8;
        for (size_t q = at; q < clen && q < at + k; q++) mut[q] = (unsigned char)tc_rng(rng);
        tc_expect_safe(c, dsname, n, tc_decode_exact(c, mut, clen, n, &p), n, "smash at", at);
    }
    free(mut);

    /* Wrong dst_len: every codec must notice a length that differs from the
     * one the stream encodes. */
    size_t wrong[5] = {n + 1, n * 2 + 8, n - 1, n / 2, 0};
    int nwrong = n == 0 ? 2 : n == 1 ? 3 : 5;
    for (int w = 0; w < nwrong; w++) {
        if (w == 4 && (n / 2 == 0)) continue; /* already covered by n/2 */
        long long r = tc_decode_exact(c, stream, clen, wrong[w], &p);
        if (tc_decode_error_ok(r)) tc_pass();
        else tc_fail(c, dsname, n, "wrong dst_len %zu: decompress returned %lld, want %d or %d", wrong[w],
                     r, COMPI_ERR_CORRUPT, COMPI_ERR_LENGTH);
    }
    free(stream);
}

static void tc_robust_garbage(const compi_codec *c, uint64_t *rng)
{
    static const size_t lens[] = {0, 1, 2, 3, 4, 5, 8, 16, 17, 32, 64, 100, 1000, 5000};
    static const size_t dlens[] = {0, 1, 8, 100, 4096, 65536};
    compi_codec_params p = {COMPI_CLASS_BYTE, 1, 0};
    snprintf(tc_context, sizeof tc_context, "codec=%s random garbage input", c->name);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (size_t j = 0; j < sizeof dlens / sizeof dlens[0]; j++)
            for (int t = 0; t < 8; t++) {
                unsigned char *g = tc_xmalloc(lens[i]);
                for (size_t q = 0; q < lens[i]; q++) g[q] = (unsigned char)tc_rng(rng);
                if (t & 1 && lens[i]) g[0] = c->id; /* plausible first bytes */
                if (t & 2) for (size_t q = 1; q < lens[i]; q++) g[q] &= 0x0f;
                p.dtclass = (compi_dtclass)(t % 4);
                p.elem_size = t % 4 == 3 ? 8 : t % 4 == 0 ? 1 : 4;
                tc_expect_safe(c, "garbage", lens[i],
                               tc_decode_exact(c, g, lens[i], dlens[j], &p), dlens[j],
                               "garbage len", lens[i]);
                free(g);
            }
}

static void tc_robust_codec(const compi_codec *c, unsigned char **data, uint64_t seed)
{
    static const size_t sizes[] = {0, 1, 9, 100, 1000, 4099, 65536};
    unsigned long long before = tc_failed;
    uint64_t rng = seed ^ c->id;
    size_t nds = compi_dataset_count();
    for (size_t ds = 0; ds < nds; ds++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (tc_quick && sizes[i] > 4099) continue;
            tc_robust_stream(c, ds, data[ds], sizes[i], &rng);
        }
    tc_robust_garbage(c, &rng);
    printf("%-11s robustness: %s\n", c->name, tc_failed == before ? "ok" : "FAILED");
    fflush(stdout);
}

/* ---------------------------------------------------------------- threads */

typedef struct {
    const compi_codec *codec;
    unsigned char **data;
    size_t ds0;
} tc_thread_arg;

static void *tc_thread_main(void *arg)
{
    tc_thread_arg *a = arg;
    size_t nds = compi_dataset_count();
    for (int rep = 0; rep < 4; rep++)
        for (size_t k = 0; k < nds; k++) {
            size_t ds = (a->ds0 + k) % nds;
            tc_roundtrip_one(a->codec, ds, a->data[ds], 65536 + 8 * k + (size_t)rep, 1, 3, 0);
        }
    return NULL;
}

/* Same codec from several threads at once (MPI_THREAD_MULTIPLE). */
static void tc_threads_codec(const compi_codec *c, unsigned char **data)
{
    enum { NT = 4 };
    pthread_t th[NT];
    tc_thread_arg args[NT];
    unsigned long long before = tc_failed;
    for (int t = 0; t < NT; t++) {
        args[t] = (tc_thread_arg){c, data, (size_t)t * 5};
        if (pthread_create(&th[t], NULL, tc_thread_main, &args[t]) != 0) {
            tc_fail(c, "-", 0, "pthread_create failed");
            return;
        }
    }
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    printf("%-11s threads: %s\n", c->name, tc_failed == before ? "ok" : "FAILED");
    fflush(stdout);
}

/* ---------------------------------------------------------------- huge */

static void tc_huge_codec(const compi_codec *c)
{
    size_t n = ((size_t)1 << 31) + 13;
    size_t ds = (size_t)compi_dataset_find("int_r75");
    compi_codec_params p = tc_params(ds);
    unsigned char *data = tc_xmalloc(n);
    compi_dataset_fill(ds, data, n, 5);
    size_t cap = c->bound(n);
    unsigned char *z = tc_xmalloc(cap);
    long long r = c->compress(data, n, z, cap, &p);
    if (r == COMPI_ERR_CODEC && compi_codec_accepts(c, n)) {
        tc_fail(c, "int_r75", n, "refused %zu bytes although its max_input (%zu) takes them", n, c->max_input);
    } else if (r == COMPI_ERR_CODEC) {
        printf("%-11s huge: refused cleanly (%s), as its max_input %zu says\n", c->name, compi_error_string((int)r),
               c->max_input);
        tc_pass();
    } else if (!compi_codec_accepts(c, n)) {
        tc_fail(c, "int_r75", n, "compressed %zu bytes although its max_input is %zu", n, c->max_input);
    } else if (r < 0 || (size_t)r > cap) {
        tc_fail(c, "int_r75", n, "huge compress returned %lld", r);
    } else {
        unsigned char *out = tc_xmalloc(n);
        long long d = c->decompress(z, (size_t)r, out, n, &p);
        if (d != (long long)n || memcmp(out, data, n) != 0)
            tc_fail(c, "int_r75", n, "huge round trip failed (decompress returned %lld)", d);
        else {
            printf("%-11s huge: ok, ratio %.2f\n", c->name, (double)n / (double)r);
            tc_pass();
        }
        free(out);
    }
    fflush(stdout);
    free(z);
    free(data);
}

/* ---------------------------------------------------------------- limits */

/* A codec that declares an input limit refuses one byte more cleanly,
 * before reading any of it (the input is an inaccessible reservation). */
static void tc_limits_codec(const compi_codec *c)
{
    if (!c->max_input) {
        if (compi_codec_accepts(c, SIZE_MAX)) tc_pass();
        else tc_fail(c, "-", SIZE_MAX, "no max_input but compi_codec_accepts refuses");
        return;
    }
    size_t n = c->max_input + 1;
    if (!compi_codec_accepts(c, n - 1) && compi_codec_accepts(c, n)) {
        tc_fail(c, "-", n, "compi_codec_accepts disagrees with max_input %zu", c->max_input);
        return;
    }
    void *src = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    unsigned char dst[64];
    if (src == MAP_FAILED) {
        tc_fail(c, "-", n, "cannot reserve %zu bytes of address space", n);
        return;
    }
    compi_codec_params p = {COMPI_CLASS_BYTE, 1, 0};
    long long r = c->compress(src, n, dst, sizeof dst, &p);
    munmap(src, n);
    if (r == COMPI_ERR_CODEC) tc_pass();
    else tc_fail(c, "-", n, "max_input %zu + 1 bytes: compress returned %lld, not COMPI_ERR_CODEC", c->max_input, r);
    printf("%-11s limits: max_input %zu\n", c->name, c->max_input);
}

/* ---------------------------------------------------------------- main */

static void tc_check_datasets(void)
{
    /* The data sets themselves: determinism, prefix stability, names. */
    size_t nds = compi_dataset_count();
    unsigned char a[1003], b[1003], c2[500];
    for (size_t ds = 0; ds < nds; ds++) {
        const char *name = compi_dataset_name(ds);
        compi_dataset_fill(ds, a, sizeof a, 42);
        compi_dataset_fill(ds, b, sizeof b, 42);
        compi_dataset_fill(ds, c2, sizeof c2, 42);
        if (!name || compi_dataset_find(name) != (int)ds) {
            fprintf(stderr, "FAIL dataset %zu: name lookup broken\n", ds);
            tc_failed++;
        } else if (memcmp(a, b, sizeof a) || memcmp(a, c2, sizeof c2)) {
            fprintf(stderr, "FAIL dataset=%s: fill not deterministic / not prefix-stable\n", name);
            tc_failed++;
        } else {
            tc_passed++;
        }
    }
    if (compi_dataset_find("no_such_set") != -1) {
        fprintf(stderr, "FAIL dataset_find accepts unknown names\n");
        tc_failed++;
    }
}

int main(int argc, char **argv)
{
    int do_rt = 0, do_robust = 0, do_threads = 0, do_huge = 0, do_limits = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--roundtrip")) do_rt = 1;
        else if (!strcmp(argv[i], "--robust")) do_robust = 1;
        else if (!strcmp(argv[i], "--threads")) do_threads = 1;
        else if (!strcmp(argv[i], "--huge")) do_huge = 1;
        else if (!strcmp(argv[i], "--limits")) do_limits = 1;
        else if (!strcmp(argv[i], "--quick")) tc_quick = 1;
        else if (!strcmp(argv[i], "--codec") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--roundtrip] [--robust] [--threads] [--huge] [--limits] [--quick] [--codec NAME]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!do_rt && !do_robust && !do_threads && !do_huge && !do_limits) do_rt = do_robust = do_threads = 1;
    uint64_t seed = 20261123;
    if (getenv("COMPI_TEST_SEED")) seed = strtoull(getenv("COMPI_TEST_SEED"), NULL, 0);
    printf("test_codecs: %zu codecs, %zu data sets, seed %" PRIu64 "\n", compi_codec_count(),
           compi_dataset_count(), seed);

    if (only && !compi_codec_by_name(only)) {
        fprintf(stderr, "FAIL unknown codec '%s' (have %s)\n", only, compi_codec_names());
        printf("0 passed, 1 failed\n");
        return 1;
    }
    tc_check_datasets();
    tc_install_crash_handler();

    size_t nds = compi_dataset_count();
    unsigned char **data = tc_xmalloc(nds * sizeof *data);
    for (size_t ds = 0; ds < nds; ds++) {
        data[ds] = tc_xmalloc(TC_MAX_DATA);
        compi_dataset_fill(ds, data[ds], TC_MAX_DATA, seed + ds);
    }
    for (size_t i = 0; i < compi_codec_count(); i++) {
        const compi_codec *c = compi_codec_at(i);
        if (only && strcmp(c->name, only)) continue;
        if (compi_codec_by_id(c->id) != c || compi_codec_by_name(c->name) != c || c->id == 0) {
            fprintf(stderr, "FAIL codec=%s: id %u / name lookup inconsistent\n", c->name, c->id);
            tc_failed++;
        }
        if (do_rt) tc_roundtrip_codec(c, data);
        if (do_robust) tc_robust_codec(c, data, seed);
        if (do_threads) tc_threads_codec(c, data);
        if (do_huge) tc_huge_codec(c);
        if (do_limits) tc_limits_codec(c);
    }
    for (size_t ds = 0; ds < nds; ds++) free(data[ds]);
    free(data);
    printf("%llu passed, %llu failed\n", tc_passed, tc_failed);
    return tc_failed ? 1 : 0;
}
