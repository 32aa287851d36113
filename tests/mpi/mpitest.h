/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared harness for the compi MPI semantic tests (tests/mpi/).
 *
 * Every program is a correct MPI program that must PASS under plain MPI; run
 * under compi (LD_PRELOAD) it must behave identically.  Checks are counted per
 * rank; each check group ends with a collective summary line printed by rank 0,
 * and mt_finish() prints "N passed, N failed" and calls MPI_Abort(…, 1) on any
 * failure.  Every failure line names the program, group, rank, check and the
 * expected vs actual values.
 *
 * If COMPI_TEST_EXPECT_PRELOAD=1 is set (the compi_* ctest variants set it),
 * the program fails unless libcompi is really mapped into the process, so a
 * missing library cannot turn a compi_* test into a silent plain-MPI pass. */
#ifndef COMPI_MPITEST_H
#define COMPI_MPITEST_H

/* A harness of static helpers: each program uses the ones it needs. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <mpi.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>

static int mt_rank = 0, mt_size = 1;
static long mt_pass = 0, mt_fail = 0;   /* totals of finished groups (local) */
static long mt_gpass = 0, mt_gfail = 0; /* current group (local) */
static char mt_group[128] = "init";
static const char *mt_prog = "?";

#define MT_MAX_FAIL_LINES 20 /* per rank per group, to keep logs readable */

static void mt_vfail(int line, const char *check, const char *fmt, va_list ap)
{
    mt_gfail++;
    if (mt_gfail > MT_MAX_FAIL_LINES) {
        if (mt_gfail == MT_MAX_FAIL_LINES + 1)
            printf("FAIL [%s/%s] rank %d: (further failures in this group suppressed)\n",
                   mt_prog, mt_group, mt_rank);
        return;
    }
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    printf("FAIL [%s/%s] rank %d line %d: %s: %s\n", mt_prog, mt_group, mt_rank, line, check, msg);
    fflush(stdout);
}

static void mt_failf(int line, const char *check, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_vfail(line, check, fmt, ap);
    va_end(ap);
}

/* CHECK(cond, "what", "fmt", ...) */
#define CHECK(cond, what, ...)                                                  \
    do {                                                                        \
        if (cond) mt_gpass++;                                                   \
        else mt_failf(__LINE__, what, __VA_ARGS__);                             \
    } while (0)

#define CHECK_INT(what, expected, actual)                                       \
    do {                                                                        \
        long long e_ = (long long)(expected), a_ = (long long)(actual);         \
        if (e_ == a_) mt_gpass++;                                               \
        else mt_failf(__LINE__, what, "expected %lld, got %lld", e_, a_);       \
    } while (0)

static const char *mt_errstr(int rc)
{
    static char s[MPI_MAX_ERROR_STRING + 64];
    char e[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    e[0] = 0;
    PMPI_Error_string(rc, e, &len);
    PMPI_Error_class(rc, &cls);
    snprintf(s, sizeof s, "rc=%d class=%d \"%s\"", rc, cls, e);
    return s;
}

/* A failing MPI call in a place where continuing makes no sense: report and abort. */
#define MPI_CALL(call)                                                          \
    do {                                                                        \
        int rc_ = (call);                                                       \
        if (rc_ != MPI_SUCCESS) {                                               \
            printf("FAIL [%s/%s] rank %d line %d: %s returned %s\n", mt_prog,   \
                   mt_group, mt_rank, __LINE__, #call, mt_errstr(rc_));         \
            fflush(stdout);                                                     \
            MPI_Abort(MPI_COMM_WORLD, 2);                                       \
        }                                                                       \
    } while (0)

/* Is libcompi mapped into this process (preloaded or linked)? */
static int mt_libcompi_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    int found = 0;
    char line[4096];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libcompi")) { found = 1; break; }
    if (f) fclose(f);
    return found;
}

static void mt_check_preload(void)
{
    const char *e = getenv("COMPI_TEST_EXPECT_PRELOAD");
    if (!e || strcmp(e, "1") != 0) return;
    if (!mt_libcompi_mapped()) {
        printf("FAIL [%s/preload] rank %d: COMPI_TEST_EXPECT_PRELOAD=1 but libcompi is not "
               "mapped in this process (LD_PRELOAD=%s)\n",
               mt_prog, mt_rank, getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "(unset)");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void mt_setup(const char *prog)
{
    mt_prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mt_check_preload();
}

static void mt_init(int *argc, char ***argv, const char *prog)
{
    MPI_Init(argc, argv);
    mt_setup(prog);
}

static void mt_require_size(int min)
{
    if (mt_size < min) {
        if (mt_rank == 0)
            printf("FAIL [%s] needs at least %d ranks, got %d\n", mt_prog, min, mt_size);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

static void mt_group_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mt_group, sizeof mt_group, fmt, ap);
    va_end(ap);
    mt_gpass = mt_gfail = 0;
}

/* Collective over MPI_COMM_WORLD (Allreduce is not wrapped by compi). */
static void mt_group_end(void)
{
    long loc[2] = {mt_gpass, mt_gfail}, tot[2] = {0, 0};
    MPI_CALL(MPI_Allreduce(loc, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("%s [%s] %s: %ld checks, %ld failed\n", tot[1] ? "FAIL" : "PASS", mt_prog,
               mt_group, tot[0] + tot[1], tot[1]);
    mt_pass += mt_gpass;
    mt_fail += mt_gfail;
    mt_gpass = mt_gfail = 0;
}

static int mt_finish(void)
{
    long loc[2] = {mt_pass, mt_fail}, tot[2] = {0, 0};
    MPI_CALL(MPI_Allreduce(loc, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        printf("[%s] %ld passed, %ld failed\n", mt_prog, tot[0], tot[1]);
        fflush(stdout);
    }
    if (tot[1] != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}

/* ---------------------------------------------------------------- data --- */

enum { PAT_ZERO = 0, PAT_RAMP, PAT_SMOOTH, PAT_RANDOM, PAT_COUNT };
__attribute__((unused)) static const char *mt_pat_name[PAT_COUNT] = {"zero", "ramp", "smooth", "random"};

static uint64_t mt_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* kind: 'b' byte, 'i' int, 'f' float, 'd' double.  Deterministic in
 * (kind, pattern, seed, index), so a receiver can recompute what was sent. */
static void mt_fill(void *buf, size_t n, char kind, int pat, uint64_t seed)
{
    size_t i;
    switch (kind) {
    case 'b': {
        unsigned char *p = buf;
        for (i = 0; i < n; i++) {
            switch (pat) {
            case PAT_ZERO: p[i] = 0; break;
            case PAT_RAMP: p[i] = (unsigned char)((i / 64) + seed); break;
            case PAT_SMOOTH: p[i] = (unsigned char)(128 + 100 * sin((double)i * 0.01 + (double)seed)); break;
            default: p[i] = (unsigned char)mt_mix(seed * 0x100000001ULL + i); break;
            }
        }
        break;
    }
    case 'i': {
        int *p = buf;
        for (i = 0; i < n; i++) {
            switch (pat) {
            case PAT_ZERO: p[i] = 0; break;
            case PAT_RAMP: p[i] = (int)(seed * 1000 + i / 3); break;
            case PAT_SMOOTH: p[i] = (int)(100000.0 * sin((double)i * 0.001 + (double)seed)); break;
            default: p[i] = (int)(uint32_t)mt_mix(seed * 0x100000001ULL + i); break;
            }
        }
        break;
    }
    case 'f': {
        float *p = buf;
        for (i = 0; i < n; i++) {
            switch (pat) {
            case PAT_ZERO: p[i] = 0.0f; break;
            case PAT_RAMP: p[i] = (float)(50001.0 + 2.0 * (double)(i % 100000) + (double)seed); break;
            case PAT_SMOOTH: p[i] = (float)(sin((double)i * 0.001 + (double)seed) * 100.0); break;
            default: { uint32_t u = (uint32_t)mt_mix(seed * 0x100000001ULL + i);
                       u &= 0xBFFFFFFFu; /* finite values only */ memcpy(&p[i], &u, 4); }
            }
        }
        break;
    }
    default: {
        double *p = buf;
        for (i = 0; i < n; i++) {
            switch (pat) {
            case PAT_ZERO: p[i] = 0.0; break;
            case PAT_RAMP: p[i] = 50001.0 + 2.0 * (double)i + (double)seed; break;
            case PAT_SMOOTH: p[i] = sin((double)i * 0.0005 + (double)seed) * cos((double)i * 0.00007) * 1000.0; break;
            default: { uint64_t u = mt_mix(seed * 0x100000001ULL + i);
                       u &= 0xBFFFFFFFFFFFFFFFull; memcpy(&p[i], &u, 8); }
            }
        }
    }
    }
}

static size_t mt_kind_size(char kind)
{
    return kind == 'b' ? 1 : kind == 'd' ? 8 : 4;
}

static MPI_Datatype mt_kind_type(char kind)
{
    return kind == 'b' ? MPI_BYTE : kind == 'i' ? MPI_INT : kind == 'f' ? MPI_FLOAT : MPI_DOUBLE;
}

static const char *mt_kind_name(char kind)
{
    return kind == 'b' ? "MPI_BYTE" : kind == 'i' ? "MPI_INT" : kind == 'f' ? "MPI_FLOAT" : "MPI_DOUBLE";
}

static void mt_fmt_elem(char *out, size_t cap, const void *p, char kind)
{
    switch (kind) {
    case 'b': snprintf(out, cap, "0x%02x", *(const unsigned char *)p); break;
    case 'i': { int v; memcpy(&v, p, 4); snprintf(out, cap, "%d", v); break; }
    case 'f': { float v; uint32_t u; memcpy(&v, p, 4); memcpy(&u, p, 4);
                snprintf(out, cap, "%.9g (0x%08x)", (double)v, u); break; }
    default: { double v; uint64_t u; memcpy(&v, p, 8); memcpy(&u, p, 8);
               snprintf(out, cap, "%.17g (0x%016llx)", v, (unsigned long long)u); }
    }
}

/* Bit-exact comparison of n elements; one CHECK. */
static int mt_check_data_(int line, const char *what, const void *got, const void *exp, size_t n, char kind)
{
    size_t es = mt_kind_size(kind);
    if (n == 0 || memcmp(got, exp, n * es) == 0) { mt_gpass++; return 1; }
    size_t first = (size_t)-1, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * es, (const char *)exp + i * es, es) != 0) {
            if (first == (size_t)-1) first = i;
            bad++;
        }
    char e[64], a[64];
    mt_fmt_elem(e, sizeof e, (const char *)exp + first * es, kind);
    mt_fmt_elem(a, sizeof a, (const char *)got + first * es, kind);
    mt_failf(line, what, "data mismatch (%s x %zu): %zu elements differ, first at [%zu]: expected %s, got %s",
             mt_kind_name(kind), n, bad, first, e, a);
    return 0;
}
#define CHECK_DATA(what, got, exp, n, kind) mt_check_data_(__LINE__, what, got, exp, n, kind)

/* Check that the pattern generated by (kind, pat, seed) arrived. */
static int mt_check_pattern_(int line, const char *what, const void *got, size_t n, char kind, int pat, uint64_t seed)
{
    void *exp = malloc(n * mt_kind_size(kind) + 1);
    mt_fill(exp, n, kind, pat, seed);
    int ok = mt_check_data_(line, what, got, exp, n, kind);
    free(exp);
    return ok;
}
#define CHECK_PATTERN(what, got, n, kind, pat, seed) mt_check_pattern_(__LINE__, what, got, n, kind, pat, seed)

#define MT_SENTINEL 0xA5
/* Bytes [from, to) of buf must still hold the sentinel (MPI modifies only the
 * locations of the received message). */
static int mt_check_sentinel_(int line, const char *what, const void *buf, size_t from, size_t to)
{
    const unsigned char *p = buf;
    for (size_t i = from; i < to; i++)
        if (p[i] != MT_SENTINEL) {
            mt_failf(line, what, "byte %zu beyond/outside the message was modified: expected 0x%02x, got 0x%02x",
                     i, MT_SENTINEL, p[i]);
            return 0;
        }
    mt_gpass++;
    return 1;
}
#define CHECK_SENTINEL(what, buf, from, to) mt_check_sentinel_(__LINE__, what, buf, from, to)

/* Status checks for a receive status. */
static void mt_check_status_(int line, const char *what, const MPI_Status *st, int src, int tag,
                             MPI_Datatype type, int count)
{
    char w[256];
    if (st->MPI_SOURCE == src) mt_gpass++;
    else { snprintf(w, sizeof w, "%s: status.MPI_SOURCE", what);
           mt_failf(line, w, "expected %d, got %d", src, st->MPI_SOURCE); }
    if (st->MPI_TAG == tag) mt_gpass++;
    else { snprintf(w, sizeof w, "%s: status.MPI_TAG", what);
           mt_failf(line, w, "expected %d, got %d", tag, st->MPI_TAG); }
    int c2 = -12345, e2 = -12345;
    MPI_Get_count(st, type, &c2);
    MPI_Get_elements(st, type, &e2);
    if (c2 == count) mt_gpass++;
    else { snprintf(w, sizeof w, "%s: MPI_Get_count", what);
           mt_failf(line, w, "expected %d, got %d", count, c2); }
    int tsz = 0;
    MPI_Type_size(type, &tsz);
    /* For basic types elements == count; for derived types the caller checks separately. */
    int nbasic = -1;
    {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(type, &ni, &na, &nd, &comb);
        if (comb == MPI_COMBINER_NAMED) nbasic = count;
    }
    if (nbasic >= 0) {
        if (e2 == nbasic) mt_gpass++;
        else { snprintf(w, sizeof w, "%s: MPI_Get_elements", what);
               mt_failf(line, w, "expected %d, got %d", nbasic, e2); }
        int cb = -12345;
        MPI_Get_count(st, MPI_BYTE, &cb);
        if (cb == count * tsz) mt_gpass++;
        else { snprintf(w, sizeof w, "%s: MPI_Get_count(MPI_BYTE)", what);
               mt_failf(line, w, "expected %d, got %d", count * tsz, cb); }
    }
}
#define CHECK_STATUS(what, st, src, tag, type, count) mt_check_status_(__LINE__, what, st, src, tag, type, count)

/* MPI_ERROR of a status returned by a single-completion call: the standard
 * leaves it unmodified (implementations may also set MPI_SUCCESS). */
#define MT_ERR_SENTINEL 0x5eed
#define CHECK_STATUS_ERROR_OK(what, st)                                             \
    CHECK((st)->MPI_ERROR == MPI_SUCCESS || (st)->MPI_ERROR == MT_ERR_SENTINEL,     \
          what, "status.MPI_ERROR expected MPI_SUCCESS or untouched (%d), got %d", \
          MT_ERR_SENTINEL, (st)->MPI_ERROR)

static void mt_status_prefill(MPI_Status *st)
{
    memset(st, 0x7b, sizeof *st);
    st->MPI_SOURCE = -777;
    st->MPI_TAG = -777;
    st->MPI_ERROR = MT_ERR_SENTINEL;
}

static void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { printf("FAIL [%s] rank %d: malloc(%zu) failed\n", mt_prog, mt_rank, n); MPI_Abort(MPI_COMM_WORLD, 5); }
    return p;
}

/* stderr goes to a file while compi may complain; the text comes back in out */
static int mt_capture_begin(char *path, size_t len)
{
    snprintf(path, len, "/tmp/compi_mpitest.%d.XXXXXX", (int)getpid());
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    close(fd);
    return saved;
}

static void mt_capture_end(int saved, const char *path, char *out, size_t len)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t r = fread(out, 1, len - 1, f);
        out[r] = 0;
        fclose(f);
    }
    unlink(path);
}

/* n bytes of word-like text, compressible as a solver's log or a
 * table of names is; seed picks the word it starts with. */
static inline void mt_fill_text(char *b, size_t n, int seed)
{
    static const char *w[] = {"pressure ", "velocity ", "boundary ", "halo ", "cell ", "flux "};
    size_t i = 0;
    unsigned k = (unsigned)seed;
    while (i < n) {
        const char *s = w[k++ % 6];
        for (; *s && i < n; s++) b[i++] = *s;
    }
}

/* n bytes of text whose words follow a pseudo-random sequence: lz4 halves
 * it or so, so a 256 KiB chunk stays far above an eager limit */
static void mt_fill_words(char *b, size_t n, unsigned seed)
{
    static const char *w[] = {"pressure ", "velocity ", "boundary ", "halo ", "cell ", "flux ", "density ",
                              "step ",     "residual ", "norm ",     "grid ", "face ", "node ", "edge ",
                              "solver ",   "iter "};
    size_t i = 0;
    uint32_t x = 2463534242u + seed;
    while (i < n) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        for (const char *s = w[x & 15]; *s && i < n; s++) b[i++] = *s;
        if (i < n && (x >> 8 & 3) == 0) b[i++] = (char)('0' + (x >> 12) % 10);
    }
}

/* Ranks 0 and 1 exchange a small message each way (buffers of 4 KiB at
 * least): the library is sound after the failures a test provoked. */
static void mt_ordinary_after(unsigned char *buf, unsigned char *want)
{
    mt_group_begin("ordinary messages afterwards");
    for (int it = 0; it < 2; it++) {
        int src = it, dst = 1 - it, k = 4096;
        mt_fill(want, (size_t)k, 'b', PAT_RAMP, (uint64_t)it + 50);
        if (mt_rank == src) MPI_CALL(MPI_Send(want, k, MPI_BYTE, dst, 7, MPI_COMM_WORLD));
        if (mt_rank == dst) {
            MPI_Status st;
            MPI_CALL(MPI_Recv(buf, k, MPI_BYTE, src, 7, MPI_COMM_WORLD, &st));
            CHECK_DATA("ordinary message", buf, want, (size_t)k, 'b');
        }
    }
    mt_group_end();
}

/* ---- signals between the ranks of one machine outside MPI: a rank that
 * must make no MPI call (as an application computing) waits for a file
 * another rank creates in a directory both see. */
static char mt_sig_dir[256];

/* Rank 0 makes the directory (/tmp/compi-<prog>.XXXXXX), every rank learns
 * it; collective over MPI_COMM_WORLD. */
static void mt_sig_open(void)
{
    if (mt_rank == 0) {
        snprintf(mt_sig_dir, sizeof mt_sig_dir, "/tmp/compi-%s.XXXXXX", mt_prog);
        if (!mkdtemp(mt_sig_dir)) mt_sig_dir[0] = '\0';
    }
    MPI_Bcast(mt_sig_dir, sizeof mt_sig_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!mt_sig_dir[0]) {
        printf("FAIL [%s/init] rank %d: no temporary directory\n", mt_prog, mt_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void mt_sig_path(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/%s", mt_sig_dir, name);
}

/* Signals name to the other ranks, without MPI. */
static void mt_signal(const char *name)
{
    char path[300];
    mt_sig_path(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "signal file", "cannot create %s (errno %d)", path, errno);
    if (f) fclose(f);
}

/* Waits, without any MPI call, until a rank signalled name. */
static void mt_await(const char *name)
{
    char path[300];
    mt_sig_path(path, sizeof path, name);
    while (access(path, F_OK) != 0) usleep(1000);
}

/* Takes a signal back (the rank that owns it, once nobody waits for it). */
static void mt_unsignal(const char *name)
{
    char path[300];
    mt_sig_path(path, sizeof path, name);
    unlink(path);
}


#endif
