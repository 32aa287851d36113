/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_all: randomized semantic test of the data-moving collectives.
 *
 * MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw,
 * MPI_Allreduce, MPI_Reduce (every root), MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan, and briefly MPI_Bcast,
 * MPI_Gather and MPI_Scatter.  Each collective runs a fixed number of cases
 * drawn from a deterministic PRNG (fixed seed; COLL_ALL_SEED=<n> picks another
 * seed, COLL_ALL_CASES=<n> another number of cases per collective, the same on
 * every rank; COLL_ALL_ONLY=6,7 runs only those collectives, numbered as in
 * main).  A case draws:
 *   - the communicator: MPI_COMM_WORLD, a dup of it, or the even/odd split
 *     with reversed rank order (both halves run the case at the same time);
 *   - counts: 0, 1, small, a few KiB, 16-256 KiB, and ~1 MiB per block (up to
 *     ~2^18 elements), varied per rank/peer for the v/w-variants, zero for some;
 *   - datatypes: MPI_INT, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_LONG, MPI_CHAR,
 *     MPI_BYTE, a strided vector(3,2,3,MPI_INT) resized to 40 bytes (gaps inside
 *     and after each element), MPI_DOUBLE_INT and MPI_2INT; senders and
 *     receivers may use different types of the same signature (vector x c on
 *     one side, MPI_INT x 6c on the other);
 *   - reduction ops: MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR,
 *     MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MINLOC and MPI_MAXLOC (pair
 *     types, values with many ties so the lowest-index rule matters), a
 *     user-defined commutative op (a+b+2ab mod 2^32 / 2^64, on MPI_INT,
 *     MPI_LONG_LONG and the strided vector type) and a user-defined
 *     NON-commutative op (2x2 matrix product mod 2^32 on contiguous(4,MPI_INT));
 *   - MPI_IN_PLACE wherever the standard allows it;
 *   - data: many zeros, ramps, smooth curves (compressible) and random bits.
 *
 * The oracle: every rank can regenerate every other rank's input from (case
 * seed, communicator, rank), so each rank computes the exact expected image of
 * its whole receive buffer locally, without MPI: received values at the
 * typemap positions, and the sentinel byte everywhere else (vector gaps, gaps
 * between v-blocks, tails past the counts) — MPI must leave those bytes alone.
 * Pair-type padding is not compared.  Reductions are folded in increasing rank
 * order with unsigned (wrapping) integer arithmetic, as MPI specifies for the
 * non-commutative op.  Checks are exact except for floating-point SUM/PROD,
 * whose reduction order MPI may choose: every input of those is >= 0 (SUM) or
 * in [0.5, 2) / 0 (PROD), so with no cancellation any order's result is within
 * (p-1) units of roundoff of the exact value, p <= 8 ranks here; the test allows
 * a relative difference of 1e-12 for doubles (2*7*1.1e-16 = 1.6e-15 would do)
 * and 1e-5 for floats (2*7*6e-8 = 8.4e-7), and prints the largest one seen.
 * Allreduce/Allgather(v) results must be bit-identical on every rank (a 64-bit
 * hash of the checked bytes, compared with an MPI_Allgather); send buffers must
 * be unchanged; Reduce's recvbuf at non-roots untouched; a user op must be
 * called with the datatype of the call. */
#include "mpitest.h"
#include <float.h>

#define TOL_F64 1e-12
#define TOL_F32 1e-5

static uint64_t g_seed = 0xC011A11C0FFEEULL;
static int g_cases_override = 0;
static char D[640]; /* description of the current case, for failure lines */
static int g_verbose = 0; /* COLL_ALL_VERBOSE=1: every rank prints each case before running it */
#define ANNOUNCE() do { if (g_verbose) { printf("rank %d: %s\n", mt_rank, D); fflush(stdout); } } while (0)

/* ------------------------------------------------------------------ PRNG --- */
typedef struct { uint64_t s; } rng_t;
static uint64_t rnd(rng_t *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return mt_mix(r->s);
}
static uint32_t rbelow(rng_t *r, uint32_t n) { return n ? (uint32_t)(rnd(r) % n) : 0; }
static uint64_t hseed(uint64_t a, uint64_t b, uint64_t c) { return mt_mix(mt_mix(mt_mix(a) + b) + c); }

/* --------------------------------------------------------- communicators --- */
typedef struct { MPI_Comm comm; char name[64]; int id, rank, size; } cx_t;
static cx_t CX[3];
static cx_t *C; /* the current case's communicator */

static uint64_t dseed(uint64_t cs, int a, int b) { return hseed(cs, (uint64_t)C->id * 0x10001ULL + (uint64_t)a, (uint64_t)b); }
static int dpat(uint64_t cs, int a, int b)
{
    return (int)(hseed(cs ^ 0xABCDEF12345ULL, (uint64_t)C->id * 0x10001ULL + (uint64_t)a, (uint64_t)b) % PAT_COUNT);
}

/* ----------------------------------------------------------------- kinds --- */
enum { B_I32, B_I64, B_F32, B_F64, B_U8 };
static const size_t bsize[] = {4, 8, 4, 8, 1};
static const char *bname[] = {"int32", "int64", "float", "double", "byte"};

enum { K_INT, K_FLOAT, K_DOUBLE, K_LLONG, K_CHAR, K_BYTE, K_VEC, K_DINT, K_2INT, K_MAT, K_N };
typedef struct {
    const char *name;
    MPI_Datatype type;
    size_t ext;   /* extent in bytes */
    int nf;       /* fields (basic values) per element */
    int off[6];   /* byte offset of each field within the element */
    int bt[6];    /* basic type of each field */
    size_t psz;   /* packed size of one element (fields only) */
    int pad_free; /* bytes outside the fields are padding MPI may write (pair types) */
} kind_t;
static kind_t K[K_N];
static MPI_Datatype t_vec = MPI_DATATYPE_NULL, t_mat = MPI_DATATYPE_NULL;

static void kinds_init(void)
{
    MPI_Datatype v;
    MPI_CALL(MPI_Type_vector(3, 2, 3, MPI_INT, &v));
    MPI_CALL(MPI_Type_create_resized(v, 0, 40, &t_vec));
    MPI_CALL(MPI_Type_commit(&t_vec));
    MPI_CALL(MPI_Type_free(&v));
    MPI_CALL(MPI_Type_contiguous(4, MPI_INT, &t_mat));
    MPI_CALL(MPI_Type_commit(&t_mat));
    struct di { double v; int i; };
    K[K_INT] = (kind_t){"MPI_INT", MPI_INT, 4, 1, {0}, {B_I32}, 0, 0};
    K[K_FLOAT] = (kind_t){"MPI_FLOAT", MPI_FLOAT, 4, 1, {0}, {B_F32}, 0, 0};
    K[K_DOUBLE] = (kind_t){"MPI_DOUBLE", MPI_DOUBLE, 8, 1, {0}, {B_F64}, 0, 0};
    K[K_LLONG] = (kind_t){"MPI_LONG_LONG", MPI_LONG_LONG, 8, 1, {0}, {B_I64}, 0, 0};
    K[K_CHAR] = (kind_t){"MPI_CHAR", MPI_CHAR, 1, 1, {0}, {B_U8}, 0, 0};
    K[K_BYTE] = (kind_t){"MPI_BYTE", MPI_BYTE, 1, 1, {0}, {B_U8}, 0, 0};
    K[K_VEC] = (kind_t){"vector(3,2,3,MPI_INT)/resized 40", t_vec, 40, 6, {0, 4, 12, 16, 24, 28},
                        {B_I32, B_I32, B_I32, B_I32, B_I32, B_I32}, 0, 0};
    K[K_DINT] = (kind_t){"MPI_DOUBLE_INT", MPI_DOUBLE_INT, sizeof(struct di), 2, {0, offsetof(struct di, i)},
                         {B_F64, B_I32}, 0, 1};
    K[K_2INT] = (kind_t){"MPI_2INT", MPI_2INT, 8, 2, {0, 4}, {B_I32, B_I32}, 0, 1};
    K[K_MAT] = (kind_t){"2x2 matrix contiguous(4,MPI_INT)", t_mat, 16, 4, {0, 4, 8, 12},
                        {B_I32, B_I32, B_I32, B_I32}, 0, 0};
    for (int k = 0; k < K_N; k++) {
        K[k].psz = 0;
        for (int f = 0; f < K[k].nf; f++) K[k].psz += bsize[K[k].bt[f]];
        MPI_Aint lb, ext;
        int sz;
        MPI_CALL(MPI_Type_get_extent(K[k].type, &lb, &ext));
        MPI_CALL(MPI_Type_size(K[k].type, &sz));
        if (lb != 0 || (size_t)ext != K[k].ext || (size_t)sz != K[k].psz) {
            printf("FAIL [%s/init] rank %d: %s has lb %ld extent %ld size %d, expected 0/%zu/%zu\n", mt_prog, mt_rank,
                   K[k].name, (long)lb, (long)ext, sz, K[k].ext, K[k].psz);
            MPI_Abort(MPI_COMM_WORLD, 6);
        }
    }
}

/* Basic values per element for signature matching (vector x c == MPI_INT x 6c). */
static int sigu(int k) { return k == K_VEC ? 6 : 1; }
static int unit_of(int sk, int rk) { return sigu(sk) > sigu(rk) ? sigu(sk) : sigu(rk); }
static size_t ubytes(int sk, int rk) { return K[sk].psz * (size_t)(unit_of(sk, rk) / sigu(sk)); }

/* ------------------------------------------------------------------ data --- */
enum { VC_ANY, VC_SUM, VC_PROD, VC_LOGIC, VC_TIE, VC_IDX };

static void gen_field(int bt, int vc, int pat, uint64_t seed, size_t idx, unsigned char *out)
{
    uint64_t r = mt_mix(seed + mt_mix((uint64_t)idx));
    int64_t iv = 0;
    double dv = 0, s = 0;
    if (pat == PAT_SMOOTH) s = sin((double)idx * 0.0007 + (double)(seed % 1000));
    int rawbits = 0; /* random floating-point bit patterns */
    switch (vc) {
    case VC_ANY:
        switch (pat) {
        case PAT_ZERO: iv = (r % 13 == 0) ? (int64_t)(r >> 40) : 0; dv = (double)iv * 0.25; break;
        case PAT_RAMP: iv = (int64_t)(seed % 4096) + (int64_t)(idx / 3); dv = 50001.0 + 2.0 * (double)idx + (double)(seed % 64); break;
        case PAT_SMOOTH: dv = 100000.0 * s; iv = (int64_t)dv; break;
        default: iv = (int64_t)r; rawbits = 1;
        }
        break;
    case VC_SUM: /* floats >= 0; integers anything (wraparound is exact) */
        switch (pat) {
        case PAT_ZERO: iv = (r % 11 == 0) ? (int64_t)(r >> 44) : 0; dv = (double)iv * 0.125; break;
        case PAT_RAMP: iv = (int64_t)(seed % 4096) + (int64_t)idx; dv = 1.0 + 0.5 * (double)idx + (double)(seed % 64); break;
        case PAT_SMOOTH: dv = 1000.0 * (1.5 + s); iv = (int64_t)(dv * 1000.0); break;
        default: iv = (int64_t)r; dv = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)((r >> 3) % 41) - 20);
        }
        break;
    case VC_PROD: /* floats 0 or in [0.5, 2); integers mostly small */
        switch (pat) {
        case PAT_ZERO: iv = (r % 5 == 0) ? 0 : 1; dv = (double)iv; break;
        case PAT_RAMP: iv = (int64_t)((idx + seed) % 7) - 3; dv = 0.5 + (double)((idx + seed) % 16) * 0.09375; break;
        case PAT_SMOOTH: dv = 1.0 + 0.5 * s; iv = (int64_t)(3.0 * s); break;
        default: iv = (int64_t)r; dv = 0.5 + 1.5 * (double)(r >> 11) * 0x1p-53;
        }
        break;
    case VC_LOGIC: /* a mix of zero and nonzero */
        if (pat == PAT_ZERO) iv = (r % 8 == 0) ? (int64_t)((r >> 33) | 1) : 0;
        else if (r % 5 == 0) iv = 0;
        else iv = pat == PAT_RAMP ? (int64_t)idx + 1 : (int64_t)((r >> 20) | 1);
        break;
    case VC_TIE: /* few distinct values: ties everywhere */
        switch (pat) {
        case PAT_ZERO: iv = (r % 6 == 0); break;
        case PAT_RAMP: iv = (int64_t)((idx / 4) % 3); break;
        case PAT_SMOOTH: iv = (int64_t)floor(2.0 * s); break;
        default: iv = (int64_t)(r % 5) - 2;
        }
        dv = (double)iv * 0.5;
        break;
    default: /* VC_IDX */
        switch (pat) {
        case PAT_ZERO: iv = (int64_t)(r % 3); break;
        case PAT_RAMP: iv = (int64_t)(idx % 97); break;
        case PAT_SMOOTH: iv = (int64_t)(50.0 + 50.0 * s); break;
        default: iv = (int64_t)(r % 1000);
        }
    }
    switch (bt) {
    case B_I32: { int32_t v = (int32_t)(uint32_t)(uint64_t)iv; memcpy(out, &v, 4); break; }
    case B_I64: memcpy(out, &iv, 8); break;
    case B_U8: {
        unsigned char b;
        if (pat == PAT_SMOOTH) b = (unsigned char)(128 + 100 * s);
        else if (pat == PAT_RAMP) b = (unsigned char)(idx / 64 + seed);
        else b = (unsigned char)iv;
        *out = b;
        break;
    }
    case B_F32:
        if (rawbits) { uint32_t u = (uint32_t)r & 0xBFFFFFFFu; memcpy(out, &u, 4); }
        else { float f = (float)dv; memcpy(out, &f, 4); }
        break;
    default:
        if (rawbits) { uint64_t u = r & 0xBFFFFFFFFFFFFFFFULL; memcpy(out, &u, 8); }
        else memcpy(out, &dv, 8);
    }
}

/* count elements of kind k, elements [first, first+count) of the stream
 * (seed, pat, vc), packed (fields only, no gaps). */
static unsigned char *gen_packed(int k, size_t first, size_t count, uint64_t seed, int pat, int vc)
{
    const kind_t *t = &K[k];
    unsigned char *buf = mt_malloc(count * t->psz + 1), *p = buf;
    int pair = k == K_DINT || k == K_2INT;
    for (size_t e = 0; e < count; e++)
        for (int f = 0; f < t->nf; f++) {
            gen_field(t->bt[f], pair ? (f ? VC_IDX : VC_TIE) : vc, pat, seed, (first + e) * (size_t)t->nf + (size_t)f, p);
            if (k == K_MAT) { /* odd determinant: products never degenerate */
                uint32_t u;
                memcpy(&u, p, 4);
                u = (f == 0 || f == 3) ? (u | 1u) : (u & ~1u);
                memcpy(p, &u, 4);
            }
            p += bsize[t->bt[f]];
        }
    return buf;
}

static void unpack(int k, const unsigned char *packed, size_t count, unsigned char *dst)
{
    const kind_t *t = &K[k];
    if (t->nf == 1 || k == K_MAT) { memcpy(dst, packed, count * t->psz); return; }
    for (size_t e = 0; e < count; e++)
        for (int f = 0; f < t->nf; f++) {
            size_t b = bsize[t->bt[f]];
            memcpy(dst + e * t->ext + (size_t)t->off[f], packed, b);
            packed += b;
        }
}

/* ------------------------------------------------------- expected images --- */
enum { C_NO = 0, C_EX = 1, C_F32 = 2, C_F64 = 3, C_CONT = 4 };
typedef struct { unsigned char *got, *exp, *care; size_t n; } img_t;

static unsigned char *salloc(size_t n)
{
    unsigned char *p = mt_malloc(n);
    memset(p, MT_SENTINEL, n);
    return p;
}
static unsigned char *bdup(const unsigned char *p, size_t n)
{
    unsigned char *q = mt_malloc(n);
    if (n) memcpy(q, p, n);
    return q;
}
static void img_init(img_t *m, size_t n)
{
    m->n = n;
    m->got = salloc(n);
    m->exp = salloc(n);
    m->care = mt_malloc(n);
    memset(m->care, C_EX, n);
}
static void img_free(img_t *m) { free(m->got); free(m->exp); free(m->care); }

/* care codes for count elements of kind k: pair padding not compared;
 * tol: floating-point fields compared with a relative tolerance. */
static void mark(int k, size_t count, unsigned char *care, int tol)
{
    const kind_t *t = &K[k];
    if (!t->pad_free && !tol) return;
    for (size_t e = 0; e < count; e++) {
        unsigned char *c = care + e * t->ext;
        if (t->pad_free) memset(c, C_NO, t->ext);
        for (int f = 0; f < t->nf; f++) {
            int fl = tol && (t->bt[f] == B_F32 || t->bt[f] == B_F64);
            memset(c + t->off[f], fl ? C_CONT : C_EX, bsize[t->bt[f]]);
            if (fl) c[t->off[f]] = t->bt[f] == B_F32 ? C_F32 : C_F64;
        }
    }
}

/* Blocks of the current image, for failure messages. */
typedef struct { size_t lo, hi; int who, k; const char *what; } reg_t;
static reg_t *regs;
static int nregs, capregs;
static void reg_reset(void) { nregs = 0; }
static void reg_add(size_t lo, size_t len, int who, int k, const char *what)
{
    if (nregs == capregs) {
        capregs = capregs ? 2 * capregs : 64;
        regs = realloc(regs, (size_t)capregs * sizeof *regs);
    }
    regs[nregs++] = (reg_t){lo, lo + len, who, k, what};
}

static void fmt_val(char *o, size_t cap, int bt, const unsigned char *p)
{
    switch (bt) {
    case B_I32: { int32_t v; memcpy(&v, p, 4); snprintf(o, cap, "%d", v); break; }
    case B_I64: { long long v; memcpy(&v, p, 8); snprintf(o, cap, "%lld", v); break; }
    case B_U8: snprintf(o, cap, "0x%02x", *p); break;
    case B_F32: { float v; memcpy(&v, p, 4); snprintf(o, cap, "%.9g", (double)v); break; }
    default: { double v; memcpy(&v, p, 8); snprintf(o, cap, "%.17g", v); }
    }
}

/* Where byte off lies; fstart and fbt give the field containing it, if any (fbt -1: none). */
static void where(char *o, size_t cap, size_t off, size_t *fstart, int *fbt)
{
    *fbt = -1;
    for (int i = 0; i < nregs; i++) {
        if (off < regs[i].lo || off >= regs[i].hi) continue;
        const kind_t *t = &K[regs[i].k];
        size_t e = (off - regs[i].lo) / t->ext, b = (off - regs[i].lo) % t->ext;
        char who[32] = "";
        if (regs[i].who >= 0) snprintf(who, sizeof who, " %d", regs[i].who);
        for (int f = 0; f < t->nf; f++)
            if (b >= (size_t)t->off[f] && b < (size_t)t->off[f] + bsize[t->bt[f]]) {
                *fstart = regs[i].lo + e * t->ext + (size_t)t->off[f];
                *fbt = t->bt[f];
                snprintf(o, cap, "in %s%s, element %zu field %d (%s)", regs[i].what, who, e, f, bname[t->bt[f]]);
                return;
            }
        snprintf(o, cap, "in %s%s, element %zu, byte %zu of its extent: a gap of %s that must stay untouched",
                 regs[i].what, who, e, b, t->name);
        return;
    }
    snprintf(o, cap, "outside every block: a gap or tail that must stay untouched");
}

/* Coverage of a group, as this rank saw it: cases with MPI_IN_PLACE, with an
 * empty contribution, and the largest block of data (bytes of the type
 * signature) one rank sent or received in one case. */
static int st_inplace, st_empty, st_16k, st_1m;
static size_t st_max;
static void note(int inplace, size_t minbytes, size_t maxbytes)
{
    st_inplace += inplace != 0;
    st_empty += minbytes == 0;
    st_16k += maxbytes > ((size_t)16 << 10);
    st_1m += maxbytes > ((size_t)1 << 20);
    if (maxbytes > st_max) st_max = maxbytes;
}

static double maxrel[2]; /* largest relative FP difference seen: [0] float, [1] double */

static int check_img_(int line, const char *what, const img_t *m)
{
    if (m->n == 0 || memcmp(m->got, m->exp, m->n) == 0) { mt_gpass++; return 1; }
    size_t bad = 0, first = 0;
    double firstrel = 0;
    for (size_t i = 0; i < m->n;) {
        unsigned char c = m->care[i];
        if (c == C_F32 || c == C_F64) {
            size_t w = c == C_F32 ? 4 : 8;
            if (memcmp(m->got + i, m->exp + i, w) != 0) {
                double g, e;
                if (c == C_F32) { float gf, ef; memcpy(&gf, m->got + i, 4); memcpy(&ef, m->exp + i, 4); g = gf; e = ef; }
                else { memcpy(&g, m->got + i, 8); memcpy(&e, m->exp + i, 8); }
                double rel = fabs(g - e) / (fabs(e) > 0 ? fabs(e) : DBL_MIN);
                if (isnan(rel)) rel = INFINITY;
                if (rel > maxrel[c == C_F64]) maxrel[c == C_F64] = rel;
                if (!(rel <= (c == C_F32 ? TOL_F32 : TOL_F64)) && !bad++) { first = i; firstrel = rel; }
            }
            i += w;
        } else {
            if (c == C_EX && m->got[i] != m->exp[i] && !bad++) first = i;
            i++;
        }
    }
    if (!bad) { mt_gpass++; return 1; }
    char loc[256], e[64], g[64];
    size_t fs = 0;
    int fbt;
    where(loc, sizeof loc, first, &fs, &fbt);
    if (fbt >= 0) {
        fmt_val(e, sizeof e, fbt, m->exp + fs);
        fmt_val(g, sizeof g, fbt, m->got + fs);
    } else {
        snprintf(e, sizeof e, "0x%02x", m->exp[first]);
        snprintf(g, sizeof g, "0x%02x", m->got[first]);
    }
    char rel[64] = "";
    if (m->care[first] == C_F32 || m->care[first] == C_F64)
        snprintf(rel, sizeof rel, " (relative difference %.3g)", firstrel);
    mt_failf(line, what, "%zu bytes/values differ; first at byte %zu %s: expected %s, got %s%s", bad, first, loc, e, g, rel);
    return 0;
}
#define CHECK_IMG(what, m) check_img_(__LINE__, what, m)

/* The compared bytes must be identical on every rank of the communicator. */
/* FNV-1a over the checked bytes of a result, continuing from h */
static uint64_t img_hash(uint64_t h, const img_t *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->care[i] != C_NO) h = (h ^ m->got[i]) * 0x100000001b3ULL;
    return h;
}

static void same_everywhere(const char *what, const img_t *m)
{
    uint64_t h = img_hash(0xcbf29ce484222325ULL, m);
    uint64_t *all = mt_malloc((size_t)C->size * sizeof(uint64_t));
    MPI_CALL(MPI_Allgather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, C->comm));
    int bad = -1;
    for (int i = 0; i < C->size; i++)
        if (all[i] != all[0]) bad = i;
    CHECK(bad < 0, what, "result differs between ranks: hash of comm rank 0's result 0x%016llx, of comm rank %d's 0x%016llx",
          (unsigned long long)all[0], bad, bad >= 0 ? (unsigned long long)all[bad] : 0ULL);
    free(all);
}

/* A digest of every reduction result this rank checked (Allreduce; Reduce
 * at the root), printed at the end: runs of the same seed and placement must
 * print the same one whichever way compi's node leaders take
 * (COMPI_COLL_LEADERS=split or whole: check_leaders.py), floating point
 * included. */
static uint64_t g_rdigest = 0xcbf29ce484222325ULL;
static void digest_add(const img_t *m) { g_rdigest = img_hash(g_rdigest, m); }

/* A send buffer that must come back unchanged. */
typedef struct { unsigned char *buf, *copy; size_t n; } sbuf_t;
static void sb_init(sbuf_t *s, int k, size_t count, const unsigned char *packed)
{
    s->n = count * K[k].ext + 8;
    s->buf = salloc(s->n);
    unpack(k, packed, count, s->buf);
    s->copy = bdup(s->buf, s->n);
}
static void sb_done_(int line, sbuf_t *s)
{
    if (memcmp(s->buf, s->copy, s->n) == 0) mt_gpass++;
    else {
        size_t i = 0;
        while (s->buf[i] == s->copy[i]) i++;
        mt_failf(line, D, "the send buffer was modified (first at byte %zu: 0x%02x -> 0x%02x)", i, s->copy[i], s->buf[i]);
    }
    free(s->buf);
    free(s->copy);
}
#define SB_DONE(s) sb_done_(__LINE__, s)

/* --------------------------------------------------------------- drawing --- */
static const int mv_kinds[] = {K_INT, K_FLOAT, K_DOUBLE, K_LLONG, K_CHAR, K_BYTE, K_VEC, K_DINT, K_2INT};

static void draw_mkinds(rng_t *r, int *sk, int *rk)
{
    int k = mv_kinds[rbelow(r, sizeof mv_kinds / sizeof mv_kinds[0])];
    *sk = *rk = k;
    if (k == K_VEC || k == K_INT) { /* same signature, other representation */
        uint32_t u = rbelow(r, 4);
        if (u == 1) { *sk = K_VEC; *rk = K_INT; }
        else if (u == 2) { *sk = K_INT; *rk = K_VEC; }
    }
}

/* Units of ub data bytes for one block of a buffer of nblocks blocks:
 * 0, 1, small, a few KiB, 16-256 KiB, or ~1 MiB (at most ~10 MiB a buffer). */
static size_t draw_units(rng_t *r, size_t ub, int nblocks)
{
    size_t cap = ((size_t)10 << 20) / (size_t)(nblocks > 0 ? nblocks : 1);
    if (cap > ((size_t)1200 << 10)) cap = (size_t)1200 << 10;
    uint32_t u = rbelow(r, 100);
    size_t units;
    if (u < 6) return 0;
    if (u < 16) return 1;
    if (u < 58) units = 2 + rbelow(r, 120);
    else if (u < 80) units = (256 + rbelow(r, 8000)) / ub + 1;
    else if (u < 92) units = (((size_t)16 << 10) + rbelow(r, 240 << 10)) / ub + 1;
    else { /* over 1 MiB where the cap allows it */
        size_t lo = cap > ((size_t)1 << 20) + 4096 ? ((size_t)1 << 20) + 64 : cap * 3 / 4;
        units = (lo + rbelow(r, (uint32_t)(cap - lo))) / ub + 1;
    }
    if (units * ub > cap) units = cap / ub;
    if (units > 300000) units = 300000;
    return units;
}

/* Plain-MPI quirk: MPICH 4.0 loses track of MPI_DOUBLE_INT's size (12 bytes, extent
 * 16) where it forwards packed data, and fails with "Message truncated":
 *  - in-place all-to-alls (MPI_Alltoall, -v, -w) once a block exceeds ~8 KiB: they
 *    exchange blocks with MPI_Sendrecv_replace, which itself fails for
 *    MPI_DOUBLE_INT from 688 elements (also MPI_LONG_INT; MPI_SHORT_INT from 1376);
 *  - MPI_Gather (binomial tree) and MPI_Scatter from a few hundred elements per
 *    rank at 4 ranks (the tree forwards several ranks' blocks in one message).
 * Under MPICH those MPI_DOUBLE_INT counts stay at most max units. */
static size_t dint_cap(int k, size_t units, size_t max)
{
#ifdef MPICH_VERSION
    if (k == K_DINT && units > max) return max;
#else
    (void)k;
    (void)max;
#endif
    return units;
}
#define INPLACE_DINT_MAX 600

/* Blocks of sz[i] bytes in random order with random gaps (multiples of gap
 * bytes, each block starting at a multiple of align); returns the span. */
static size_t layout(rng_t *r, int n, const size_t *sz, size_t *dsp, size_t gap, size_t align)
{
    int *perm = mt_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rbelow(r, (uint32_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    size_t pos = gap * rbelow(r, 2);
    for (int j = 0; j < n; j++) {
        pos = (pos + align - 1) / align * align;
        dsp[perm[j]] = pos;
        pos += sz[perm[j]] + gap * rbelow(r, 3);
    }
    free(perm);
    return pos;
}

/* ------------------------------------------------------------------- ops --- */
enum { O_SUM, O_PROD, O_MIN, O_MAX, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_MINLOC, O_MAXLOC, O_UCOMM,
       O_UNONC, O_N };
static const char *opname[O_N] = {"MPI_SUM", "MPI_PROD", "MPI_MIN", "MPI_MAX", "MPI_BAND", "MPI_BOR", "MPI_BXOR",
                                  "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_MINLOC", "MPI_MAXLOC",
                                  "user commutative a+b+2ab", "user non-commutative 2x2 matrix product"};
static MPI_Op opv[O_N];
static long uop_badtype = 0;

static uint32_t ld32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t ld64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void st32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void st64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void ucomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned char *a = in, *b = inout;
    if (*dt == MPI_INT) {
        for (int i = 0; i < *len; i++) {
            uint32_t x = ld32(a + 4 * i), y = ld32(b + 4 * i);
            st32(b + 4 * i, x + y + 2u * x * y);
        }
    } else if (*dt == MPI_LONG_LONG) {
        for (int i = 0; i < *len; i++) {
            uint64_t x = ld64(a + 8 * i), y = ld64(b + 8 * i);
            st64(b + 8 * i, x + y + 2u * x * y);
        }
    } else if (*dt == t_vec) {
        for (int e = 0; e < *len; e++)
            for (int f = 0; f < 6; f++) {
                size_t o = (size_t)e * 40 + (size_t)K[K_VEC].off[f];
                uint32_t x = ld32(a + o), y = ld32(b + o);
                st32(b + o, x + y + 2u * x * y);
            }
    } else
        uop_badtype++;
}

static void matmul(const unsigned char *a, const unsigned char *b, unsigned char *c)
{
    uint32_t a0 = ld32(a), a1 = ld32(a + 4), a2 = ld32(a + 8), a3 = ld32(a + 12);
    uint32_t b0 = ld32(b), b1 = ld32(b + 4), b2 = ld32(b + 8), b3 = ld32(b + 12);
    st32(c, a0 * b0 + a1 * b2);
    st32(c + 4, a0 * b1 + a1 * b3);
    st32(c + 8, a2 * b0 + a3 * b2);
    st32(c + 12, a2 * b1 + a3 * b3);
}

/* inoutvec = invec o inoutvec, invec from the lower ranks. */
static void unonc_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != t_mat) { uop_badtype++; return; }
    for (int e = 0; e < *len; e++) matmul((unsigned char *)in + 16 * e, (unsigned char *)inout + 16 * e,
                                          (unsigned char *)inout + 16 * e);
}

static void ops_init(void)
{
    MPI_Op pre[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR,
                    MPI_MINLOC, MPI_MAXLOC};
    for (int i = 0; i < O_UCOMM; i++) opv[i] = pre[i];
    MPI_CALL(MPI_Op_create(ucomm_fn, 1, &opv[O_UCOMM]));
    MPI_CALL(MPI_Op_create(unonc_fn, 0, &opv[O_UNONC]));
}

static void draw_op(rng_t *r, int *op, int *k)
{
    static const int ar[] = {K_INT, K_LLONG, K_FLOAT, K_DOUBLE}, bw[] = {K_INT, K_LLONG, K_BYTE},
                     lg[] = {K_INT, K_LLONG}, pr[] = {K_DINT, K_2INT}, uc[] = {K_INT, K_LLONG, K_VEC};
    *op = (int)rbelow(r, O_N);
    switch (*op) {
    case O_SUM: case O_PROD: case O_MIN: case O_MAX: *k = ar[rbelow(r, 4)]; break;
    case O_BAND: case O_BOR: case O_BXOR: *k = bw[rbelow(r, 3)]; break;
    case O_LAND: case O_LOR: case O_LXOR: *k = lg[rbelow(r, 2)]; break;
    case O_MINLOC: case O_MAXLOC: *k = pr[rbelow(r, 2)]; break;
    case O_UCOMM: *k = uc[rbelow(r, 3)]; break;
    default: *k = K_MAT;
    }
}
static int op_vc(int op)
{
    return op == O_SUM ? VC_SUM : op == O_PROD ? VC_PROD : (op >= O_LAND && op <= O_LXOR) ? VC_LOGIC : VC_ANY;
}
static int op_tol(int op, int k) { return (op == O_SUM || op == O_PROD) && (k == K_FLOAT || k == K_DOUBLE); }

static uint64_t fold_int(int op, uint64_t a, uint64_t b, int bits)
{
    uint64_t m = bits == 64 ? ~0ULL : bits == 32 ? 0xffffffffULL : 0xffULL;
    int64_t sa = bits == 64 ? (int64_t)a : (int64_t)(int32_t)(uint32_t)a;
    int64_t sb = bits == 64 ? (int64_t)b : (int64_t)(int32_t)(uint32_t)b;
    switch (op) {
    case O_SUM: return (a + b) & m;
    case O_PROD: return (a * b) & m;
    case O_MIN: return sb < sa ? b : a;
    case O_MAX: return sb > sa ? b : a;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    case O_BXOR: return a ^ b;
    case O_LAND: return (a != 0) && (b != 0);
    case O_LOR: return (a != 0) || (b != 0);
    case O_LXOR: return (a != 0) != (b != 0);
    default: return (a + b + 2 * a * b) & m; /* O_UCOMM */
    }
}

/* acc = acc op x elementwise (acc from the lower ranks), packed arrays. */
static void op_fold(int op, int k, unsigned char *acc, const unsigned char *x, size_t count)
{
    const kind_t *t = &K[k];
    if (k == K_DINT || k == K_2INT) {
        size_t vs = bsize[t->bt[0]];
        for (size_t e = 0; e < count; e++) {
            unsigned char *a = acc + e * t->psz;
            const unsigned char *b = x + e * t->psz;
            double av, bv;
            if (k == K_DINT) { memcpy(&av, a, 8); memcpy(&bv, b, 8); }
            else { av = (int32_t)ld32(a); bv = (int32_t)ld32(b); }
            int32_t ai = (int32_t)ld32(a + vs), bi = (int32_t)ld32(b + vs);
            int better = op == O_MINLOC ? bv < av : bv > av;
            if (better) memcpy(a, b, t->psz);
            else if (bv == av && bi < ai) st32(a + vs, (uint32_t)bi);
        }
        return;
    }
    if (k == K_MAT) {
        for (size_t e = 0; e < count; e++) matmul(acc + 16 * e, x + 16 * e, acc + 16 * e);
        return;
    }
    size_t nv = count * (size_t)t->nf;
    switch (t->bt[0]) {
    case B_I32: for (size_t i = 0; i < nv; i++) st32(acc + 4 * i, (uint32_t)fold_int(op, ld32(acc + 4 * i), ld32(x + 4 * i), 32)); break;
    case B_I64: for (size_t i = 0; i < nv; i++) st64(acc + 8 * i, fold_int(op, ld64(acc + 8 * i), ld64(x + 8 * i), 64)); break;
    case B_U8: for (size_t i = 0; i < nv; i++) acc[i] = (unsigned char)fold_int(op, acc[i], x[i], 8); break;
    case B_F32:
        for (size_t i = 0; i < nv; i++) {
            float a, b;
            memcpy(&a, acc + 4 * i, 4);
            memcpy(&b, x + 4 * i, 4);
            a = op == O_SUM ? a + b : op == O_PROD ? a * b : op == O_MIN ? (b < a ? b : a) : (b > a ? b : a);
            memcpy(acc + 4 * i, &a, 4);
        }
        break;
    default:
        for (size_t i = 0; i < nv; i++) {
            double a, b;
            memcpy(&a, acc + 8 * i, 8);
            memcpy(&b, x + 8 * i, 8);
            a = op == O_SUM ? a + b : op == O_PROD ? a * b : op == O_MIN ? (b < a ? b : a) : (b > a ? b : a);
            memcpy(acc + 8 * i, &a, 8);
        }
    }
}

/* x_lo o x_lo+1 o ... o x_hi over elements [first, first+count) of each
 * rank's input (rank i's input: stream dseed(cs,i,0), dpat(cs,i,0)). */
static unsigned char *oracle(uint64_t cs, int op, int k, int lo, int hi, size_t first, size_t count)
{
    unsigned char *acc = gen_packed(k, first, count, dseed(cs, lo, 0), dpat(cs, lo, 0), op_vc(op));
    for (int i = lo + 1; i <= hi; i++) {
        unsigned char *x = gen_packed(k, first, count, dseed(cs, i, 0), dpat(cs, i, 0), op_vc(op));
        op_fold(op, k, acc, x, count);
        free(x);
    }
    return acc;
}
static unsigned char *my_input(uint64_t cs, int op, int k, size_t count)
{
    return gen_packed(k, 0, count, dseed(cs, C->rank, 0), dpat(cs, C->rank, 0), op_vc(op));
}

/* Expected image of count reduced elements at byte 0 of m. */
static void expect_result(img_t *m, uint64_t cs, int op, int k, int lo, int hi, size_t first, size_t count)
{
    unsigned char *acc = oracle(cs, op, k, lo, hi, first, count);
    unpack(k, acc, count, m->exp);
    mark(k, count, m->care, op_tol(op, k));
    reg_reset();
    reg_add(0, count * K[k].ext, -1, k, "the result");
    free(acc);
}

/* ------------------------------------------------- data-moving collectives --- */
static void t_allgather(int cno, uint64_t cs, rng_t *cr)
{
    int n = C->size, me = C->rank, sk, rk;
    draw_mkinds(cr, &sk, &rk);
    int inplace = rbelow(cr, 4) == 0;
    if (inplace) sk = rk;
    int U = unit_of(sk, rk);
    size_t units = draw_units(cr, ubytes(sk, rk), n);
    size_t sc = units * (size_t)(U / sigu(sk)), rc = units * (size_t)(U / sigu(rk)), blk = rc * K[rk].ext;
    img_t m;
    img_init(&m, (size_t)n * blk + 2 * K[rk].ext + 5);
    reg_reset();
    unsigned char *mine = NULL;
    for (int i = 0; i < n; i++) {
        unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, i, 0), dpat(cs, i, 0), VC_ANY);
        unpack(rk, p, rc, m.exp + (size_t)i * blk);
        mark(rk, rc, m.care + (size_t)i * blk, 0);
        reg_add((size_t)i * blk, blk, i, rk, "the block from comm rank");
        if (i == me) mine = p;
        else free(p);
    }
    snprintf(D, sizeof D, "case %d: MPI_Allgather on %s (size %d), send %s x %zu, recv %s x %zu%s", cno, C->name, n,
             K[sk].name, sc, K[rk].name, rc, inplace ? ", MPI_IN_PLACE" : "");
    ANNOUNCE();
    note(inplace, sc * K[sk].psz, sc * K[sk].psz);
    if (inplace) {
        unpack(rk, mine, rc, m.got + (size_t)me * blk);
        MPI_CALL(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m.got, (int)rc, K[rk].type, C->comm));
    } else {
        sbuf_t s;
        sb_init(&s, sk, sc, mine);
        MPI_CALL(MPI_Allgather(s.buf, (int)sc, K[sk].type, m.got, (int)rc, K[rk].type, C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    same_everywhere(D, &m);
    free(mine);
    img_free(&m);
}

static void t_allgatherv(int cno, uint64_t cs, rng_t *cr)
{
    int n = C->size, me = C->rank, sk, rk;
    draw_mkinds(cr, &sk, &rk);
    int inplace = rbelow(cr, 4) == 0;
    if (inplace) sk = rk;
    int U = unit_of(sk, rk);
    size_t ext = K[rk].ext, *sc = mt_malloc((size_t)n * sizeof(size_t)), *rc = mt_malloc((size_t)n * sizeof(size_t));
    size_t *bytes = mt_malloc((size_t)n * sizeof(size_t)), *dspb = mt_malloc((size_t)n * sizeof(size_t));
    int *rci = mt_malloc((size_t)n * sizeof(int)), *dsp = mt_malloc((size_t)n * sizeof(int));
    memset(bytes, 0, (size_t)n * sizeof(size_t));
    /* At most one block over 256 KiB a case, to bound the run time.  Under MPICH
     * none: MPICH 4.0's MPI_Allgatherv (ring, 32 KiB pipeline steps) costs ~0.7 s
     * per MB with 8 ranks oversubscribing 2 cores. */
#ifdef MPICH_VERSION
    int big = 1;
#else
    int big = 0;
#endif
    for (int i = 0; i < n; i++) {
        size_t units = rbelow(cr, 4) == 0 ? 0 : draw_units(cr, ubytes(sk, rk), n);
        if (units * ubytes(sk, rk) > ((size_t)256 << 10) && big++) units = ((size_t)256 << 10) / ubytes(sk, rk);
        sc[i] = units * (size_t)(U / sigu(sk));
        rc[i] = units * (size_t)(U / sigu(rk));
        bytes[i] = rc[i] * ext;
        rci[i] = (int)rc[i];
    }
    size_t span = layout(cr, n, bytes, dspb, ext, 1);
#ifdef MPICH_VERSION
    /* Plain-MPI quirk: MPICH 4.0's MPI_Allgatherv on a one-process communicator
     * copies the block to the start of recvbuf, ignoring displs[0]
     * (pmodels/mpich#6374, fixed after 4.0).  Under MPICH that displacement is 0. */
    if (n == 1) {
        span -= dspb[0];
        dspb[0] = 0;
    }
#endif
    img_t m;
    img_init(&m, span + 2 * ext + 3);
    reg_reset();
    unsigned char *mine = NULL;
    for (int i = 0; i < n; i++) {
        dsp[i] = (int)(dspb[i] / ext);
        unsigned char *p = gen_packed(sk, 0, sc[i], dseed(cs, i, 0), dpat(cs, i, 0), VC_ANY);
        unpack(rk, p, rc[i], m.exp + dspb[i]);
        mark(rk, rc[i], m.care + dspb[i], 0);
        reg_add(dspb[i], bytes[i], i, rk, "the block from comm rank");
        if (i == me) mine = p;
        else free(p);
    }
    snprintf(D, sizeof D, "case %d: MPI_Allgatherv on %s (size %d), send %s x %zu, recv %s (my block %zu at displ %d)%s",
             cno, C->name, n, K[sk].name, sc[me], K[rk].name, rc[me], dsp[me], inplace ? ", MPI_IN_PLACE" : "");
    ANNOUNCE();
    {
        size_t lo = (size_t)-1, hi = 0;
        for (int i = 0; i < n; i++) {
            size_t b = sc[i] * K[sk].psz;
            lo = b < lo ? b : lo;
            hi = b > hi ? b : hi;
        }
        note(inplace, lo, hi);
    }
    if (inplace) {
        unpack(rk, mine, rc[me], m.got + dspb[me]);
        MPI_CALL(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m.got, rci, dsp, K[rk].type, C->comm));
    } else {
        sbuf_t s;
        sb_init(&s, sk, sc[me], mine);
        MPI_CALL(MPI_Allgatherv(s.buf, (int)sc[me], K[sk].type, m.got, rci, dsp, K[rk].type, C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    same_everywhere(D, &m);
    free(mine); free(sc); free(rc); free(bytes); free(dspb); free(rci); free(dsp);
    img_free(&m);
}

/* block i -> j of the all-to-alls: stream (i, 1 + j) */
static void t_alltoall(int cno, uint64_t cs, rng_t *cr)
{
    int n = C->size, me = C->rank, sk, rk;
    draw_mkinds(cr, &sk, &rk);
    int inplace = rbelow(cr, 4) == 0, nullargs = rbelow(cr, 2);
    if (inplace) sk = rk;
    int U = unit_of(sk, rk);
    size_t units = draw_units(cr, ubytes(sk, rk), n);
    if (inplace) units = dint_cap(rk, units, INPLACE_DINT_MAX);
    size_t sc = units * (size_t)(U / sigu(sk)), rc = units * (size_t)(U / sigu(rk));
    size_t sblk = sc * K[sk].ext, rblk = rc * K[rk].ext;
    img_t m;
    img_init(&m, (size_t)n * rblk + 2 * K[rk].ext + 1);
    reg_reset();
    for (int i = 0; i < n; i++) {
        unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, i, 1 + me), dpat(cs, i, 1 + me), VC_ANY);
        unpack(rk, p, rc, m.exp + (size_t)i * rblk);
        mark(rk, rc, m.care + (size_t)i * rblk, 0);
        reg_add((size_t)i * rblk, rblk, i, rk, "the block from comm rank");
        free(p);
    }
    snprintf(D, sizeof D, "case %d: MPI_Alltoall on %s (size %d), send %s x %zu, recv %s x %zu%s", cno, C->name, n,
             K[sk].name, sc, K[rk].name, rc, inplace ? (nullargs ? ", MPI_IN_PLACE (send args 0/MPI_DATATYPE_NULL)" : ", MPI_IN_PLACE") : "");
    ANNOUNCE();
    note(inplace, sc * K[sk].psz, sc * K[sk].psz);
    if (inplace) {
        for (int j = 0; j < n; j++) {
            unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(rk, p, rc, m.got + (size_t)j * rblk);
            free(p);
        }
        MPI_CALL(MPI_Alltoall(MPI_IN_PLACE, nullargs ? 0 : (int)rc, nullargs ? MPI_DATATYPE_NULL : K[rk].type, m.got,
                              (int)rc, K[rk].type, C->comm));
    } else {
        sbuf_t s;
        s.n = (size_t)n * sblk + 8;
        s.buf = salloc(s.n);
        for (int j = 0; j < n; j++) {
            unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(sk, p, sc, s.buf + (size_t)j * sblk);
            free(p);
        }
        s.copy = bdup(s.buf, s.n);
        MPI_CALL(MPI_Alltoall(s.buf, (int)sc, K[sk].type, m.got, (int)rc, K[rk].type, C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    img_free(&m);
}

static void t_alltoallv(int cno, uint64_t cs, rng_t *cr)
{
    int n = C->size, me = C->rank, sk, rk;
    draw_mkinds(cr, &sk, &rk);
    int inplace = rbelow(cr, 4) == 0, nullargs = rbelow(cr, 2);
    if (inplace) sk = rk;
    int U = unit_of(sk, rk);
    size_t *cnt = mt_malloc((size_t)n * (size_t)n * sizeof(size_t)); /* units i -> j */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            cnt[i * n + j] = (inplace && j < i) ? cnt[j * n + i]
                             : rbelow(cr, 4) == 0 ? 0 : draw_units(cr, ubytes(sk, rk), 2 * n);
    if (inplace)
        for (int i = 0; i < n * n; i++) cnt[i] = dint_cap(rk, cnt[i], INPLACE_DINT_MAX);
    size_t *sc = mt_malloc((size_t)n * sizeof(size_t)), *rc = mt_malloc((size_t)n * sizeof(size_t));
    size_t *sbytes = mt_malloc((size_t)n * sizeof(size_t)), *rbytes = mt_malloc((size_t)n * sizeof(size_t));
    size_t *sdb = mt_malloc((size_t)n * sizeof(size_t)), *rdb = mt_malloc((size_t)n * sizeof(size_t));
    int *sci = mt_malloc((size_t)n * sizeof(int)), *rci = mt_malloc((size_t)n * sizeof(int));
    int *sd = mt_malloc((size_t)n * sizeof(int)), *rd = mt_malloc((size_t)n * sizeof(int));
    for (int j = 0; j < n; j++) {
        sc[j] = cnt[me * n + j] * (size_t)(U / sigu(sk));
        rc[j] = cnt[j * n + me] * (size_t)(U / sigu(rk));
        sbytes[j] = sc[j] * K[sk].ext;
        rbytes[j] = rc[j] * K[rk].ext;
        sci[j] = (int)sc[j];
        rci[j] = (int)rc[j];
    }
    rng_t lr = {hseed(cs, 0x5d5d, (uint64_t)C->id * 0x10001ULL + (uint64_t)me)}; /* my own layouts */
    size_t sspan = layout(&lr, n, sbytes, sdb, K[sk].ext, 1);
    size_t rspan = layout(&lr, n, rbytes, rdb, K[rk].ext, 1);
    for (int j = 0; j < n; j++) {
        sd[j] = (int)(sdb[j] / K[sk].ext);
        rd[j] = (int)(rdb[j] / K[rk].ext);
    }
    img_t m;
    img_init(&m, rspan + K[rk].ext + 3);
    reg_reset();
    for (int i = 0; i < n; i++) {
        unsigned char *p = gen_packed(sk, 0, cnt[i * n + me] * (size_t)(U / sigu(sk)), dseed(cs, i, 1 + me), dpat(cs, i, 1 + me), VC_ANY);
        unpack(rk, p, rc[i], m.exp + rdb[i]);
        mark(rk, rc[i], m.care + rdb[i], 0);
        reg_add(rdb[i], rbytes[i], i, rk, "the block from comm rank");
        free(p);
    }
    snprintf(D, sizeof D, "case %d: MPI_Alltoallv on %s (size %d), send %s (to rank 0: %zu), recv %s (from rank 0: %zu)%s",
             cno, C->name, n, K[sk].name, sc[0], K[rk].name, rc[0],
             inplace ? (nullargs ? ", MPI_IN_PLACE (send args NULL/MPI_DATATYPE_NULL)" : ", MPI_IN_PLACE") : "");
    ANNOUNCE();
    {
        size_t lo = (size_t)-1, hi = 0;
        for (int j = 0; j < n; j++) {
            size_t a = sc[j] * K[sk].psz, b = rc[j] * K[rk].psz;
            lo = a < lo ? a : lo;
            lo = b < lo ? b : lo;
            hi = a > hi ? a : hi;
            hi = b > hi ? b : hi;
        }
        note(inplace, lo, hi);
    }
    if (g_verbose) for (int j = 0; j < n; j++) printf("rank %d: sc %d sd %d rc %d rd %d\n", mt_rank, sci[j], sd[j], rci[j], rd[j]);
    if (inplace) {
        for (int j = 0; j < n; j++) {
            unsigned char *p = gen_packed(sk, 0, sc[j], dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(rk, p, rc[j], m.got + rdb[j]);
            free(p);
        }
        MPI_CALL(MPI_Alltoallv(MPI_IN_PLACE, nullargs ? NULL : rci, nullargs ? NULL : rd,
                               nullargs ? MPI_DATATYPE_NULL : K[rk].type, m.got, rci, rd, K[rk].type, C->comm));
    } else {
        sbuf_t s;
        s.n = sspan + 8;
        s.buf = mt_malloc(s.n);
        memset(s.buf, 0x5a, s.n); /* gaps hold junk that must not travel */
        for (int j = 0; j < n; j++) {
            unsigned char *p = gen_packed(sk, 0, sc[j], dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(sk, p, sc[j], s.buf + sdb[j]);
            free(p);
        }
        s.copy = bdup(s.buf, s.n);
        MPI_CALL(MPI_Alltoallv(s.buf, sci, sd, K[sk].type, m.got, rci, rd, K[rk].type, C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    img_free(&m);
    free(cnt); free(sc); free(rc); free(sbytes); free(rbytes); free(sdb); free(rdb);
    free(sci); free(rci); free(sd); free(rd);
}

static void t_alltoallw(int cno, uint64_t cs, rng_t *cr)
{
    int n = C->size, me = C->rank, nn = n * n;
    int inplace = rbelow(cr, 4) == 0, nullargs = rbelow(cr, 2);
    int *skk = mt_malloc((size_t)nn * sizeof(int)), *rkk = mt_malloc((size_t)nn * sizeof(int));
    size_t *cnt = mt_malloc((size_t)nn * sizeof(size_t));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int ij = i * n + j;
            if (inplace && j < i) { skk[ij] = skk[j * n + i]; rkk[ij] = rkk[j * n + i]; cnt[ij] = cnt[j * n + i]; continue; }
            draw_mkinds(cr, &skk[ij], &rkk[ij]);
            if (inplace) skk[ij] = rkk[ij];
            cnt[ij] = rbelow(cr, 4) == 0 ? 0 : draw_units(cr, ubytes(skk[ij], rkk[ij]), 2 * n);
            if (inplace) cnt[ij] = dint_cap(rkk[ij], cnt[ij], INPLACE_DINT_MAX);
        }
    size_t *sc = mt_malloc((size_t)n * sizeof(size_t)), *rc = mt_malloc((size_t)n * sizeof(size_t));
    size_t *sbytes = mt_malloc((size_t)n * sizeof(size_t)), *rbytes = mt_malloc((size_t)n * sizeof(size_t));
    size_t *sdb = mt_malloc((size_t)n * sizeof(size_t)), *rdb = mt_malloc((size_t)n * sizeof(size_t));
    int *sci = mt_malloc((size_t)n * sizeof(int)), *rci = mt_malloc((size_t)n * sizeof(int));
    int *sd = mt_malloc((size_t)n * sizeof(int)), *rd = mt_malloc((size_t)n * sizeof(int));
    MPI_Datatype *st = mt_malloc((size_t)n * sizeof(MPI_Datatype)), *rt = mt_malloc((size_t)n * sizeof(MPI_Datatype));
    for (int j = 0; j < n; j++) {
        int o = me * n + j, in = j * n + me;
        sc[j] = cnt[o] * (size_t)(unit_of(skk[o], rkk[o]) / sigu(skk[o]));
        rc[j] = cnt[in] * (size_t)(unit_of(skk[in], rkk[in]) / sigu(rkk[in]));
        sbytes[j] = sc[j] * K[skk[o]].ext;
        rbytes[j] = rc[j] * K[rkk[in]].ext;
        sci[j] = (int)sc[j];
        rci[j] = (int)rc[j];
        st[j] = K[skk[o]].type;
        rt[j] = K[rkk[in]].type;
    }
    rng_t lr = {hseed(cs, 0x3e3e, (uint64_t)C->id * 0x10001ULL + (uint64_t)me)};
    size_t sspan = layout(&lr, n, sbytes, sdb, 8, 8);
    size_t rspan = layout(&lr, n, rbytes, rdb, 8, 8);
#ifdef OPEN_MPI
    /* Plain-MPI quirk: Open MPI 4.1's MPI_Alltoallw on a one-process communicator
     * (coll/self) multiplies the byte displacements by the types' extents, so it
     * reads and writes the wrong places (even outside the buffers).  Under Open MPI
     * those displacements are 0. */
    if (n == 1) {
        sspan -= sdb[0];
        sdb[0] = 0;
        rspan -= rdb[0];
        rdb[0] = 0;
    }
#endif
    for (int j = 0; j < n; j++) {
        sd[j] = (int)sdb[j];
        rd[j] = (int)rdb[j];
    }
    img_t m;
    img_init(&m, rspan + 48);
    reg_reset();
    for (int i = 0; i < n; i++) {
        int in = i * n + me;
        unsigned char *p = gen_packed(skk[in], 0, cnt[in] * (size_t)(unit_of(skk[in], rkk[in]) / sigu(skk[in])),
                                      dseed(cs, i, 1 + me), dpat(cs, i, 1 + me), VC_ANY);
        unpack(rkk[in], p, rc[i], m.exp + rdb[i]);
        mark(rkk[in], rc[i], m.care + rdb[i], 0);
        reg_add(rdb[i], rbytes[i], i, rkk[in], "the block from comm rank");
        free(p);
    }
    snprintf(D, sizeof D, "case %d: MPI_Alltoallw on %s (size %d), to rank 0: %s x %zu, from rank 0: %s x %zu%s", cno,
             C->name, n, K[skk[me * n]].name, sc[0], K[rkk[me]].name, rc[0],
             inplace ? (nullargs ? ", MPI_IN_PLACE (send args NULL)" : ", MPI_IN_PLACE") : "");
    ANNOUNCE();
    {
        size_t lo = (size_t)-1, hi = 0;
        for (int j = 0; j < n; j++) {
            size_t a = sc[j] * K[skk[me * n + j]].psz, b = rc[j] * K[rkk[j * n + me]].psz;
            lo = a < lo ? a : lo;
            lo = b < lo ? b : lo;
            hi = a > hi ? a : hi;
            hi = b > hi ? b : hi;
        }
        note(inplace, lo, hi);
    }
    if (inplace) {
        for (int j = 0; j < n; j++) {
            int o = me * n + j;
            unsigned char *p = gen_packed(skk[o], 0, sc[j], dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(rkk[j * n + me], p, rc[j], m.got + rdb[j]);
            free(p);
        }
        MPI_CALL(MPI_Alltoallw(MPI_IN_PLACE, nullargs ? NULL : rci, nullargs ? NULL : rd, nullargs ? NULL : rt, m.got,
                               rci, rd, rt, C->comm));
    } else {
        sbuf_t s;
        s.n = sspan + 8;
        s.buf = mt_malloc(s.n);
        memset(s.buf, 0x5a, s.n);
        for (int j = 0; j < n; j++) {
            int o = me * n + j;
            unsigned char *p = gen_packed(skk[o], 0, sc[j], dseed(cs, me, 1 + j), dpat(cs, me, 1 + j), VC_ANY);
            unpack(skk[o], p, sc[j], s.buf + sdb[j]);
            free(p);
        }
        s.copy = bdup(s.buf, s.n);
        MPI_CALL(MPI_Alltoallw(s.buf, sci, sd, st, m.got, rci, rd, rt, C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    img_free(&m);
    free(skk); free(rkk); free(cnt); free(sc); free(rc); free(sbytes); free(rbytes); free(sdb); free(rdb);
    free(sci); free(rci); free(sd); free(rd); free(st); free(rt);
}

/* ------------------------------------------------------------ reductions --- */
static void rdesc(int cno, const char *coll, int op, int k, size_t count, const char *extra)
{
    snprintf(D, sizeof D, "case %d: %s on %s (size %d), %s, %s x %zu%s", cno, coll, C->name, C->size, opname[op],
             K[k].name, count, extra);
    ANNOUNCE();
}

static void t_allreduce(int cno, uint64_t cs, rng_t *cr)
{
    int op, k;
    draw_op(cr, &op, &k);
    size_t cnt = draw_units(cr, K[k].psz, 1), ext = K[k].ext;
    int inplace = rbelow(cr, 4) == 0;
    img_t m;
    img_init(&m, cnt * ext + 2 * ext + 3);
    expect_result(&m, cs, op, k, 0, C->size - 1, 0, cnt);
    unsigned char *mine = my_input(cs, op, k, cnt);
    rdesc(cno, "MPI_Allreduce", op, k, cnt, inplace ? ", MPI_IN_PLACE" : "");
    note(inplace, cnt * K[k].psz, cnt * K[k].psz);
    if (inplace) {
        unpack(k, mine, cnt, m.got);
        MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, m.got, (int)cnt, K[k].type, opv[op], C->comm));
    } else {
        sbuf_t s;
        sb_init(&s, k, cnt, mine);
        MPI_CALL(MPI_Allreduce(s.buf, m.got, (int)cnt, K[k].type, opv[op], C->comm));
        SB_DONE(&s);
    }
    CHECK_IMG(D, &m);
    same_everywhere(D, &m);
    digest_add(&m);
    free(mine);
    img_free(&m);
}

static void t_reduce(int cno, uint64_t cs, rng_t *cr)
{
    int op, k, me = C->rank;
    draw_op(cr, &op, &k);
    size_t cnt = draw_units(cr, K[k].psz, 1), ext = K[k].ext;
    int root = (int)rbelow(cr, (uint32_t)C->size), inplace = rbelow(cr, 4) == 0, nullrecv = rbelow(cr, 2);
#ifdef MPICH_VERSION
    /* Plain-MPI quirk: MPICH 4.0 MPI_Reduce with MPI_IN_PLACE at a root other than 0
     * segfaults once the message exceeds 2 KiB (pmodels/mpich#6540, fixed in 4.1.2+).
     * Under MPICH those cases stay at 2 KiB. */
    if (inplace && root != 0 && cnt * K[k].psz > 2048) cnt = 2048 / K[k].psz;
#endif
    unsigned char *mine = my_input(cs, op, k, cnt);
    char extra[96];
    snprintf(extra, sizeof extra, ", root %d%s%s", root, inplace ? ", MPI_IN_PLACE at the root" : "",
             nullrecv ? ", recvbuf NULL at non-roots" : "");
    rdesc(cno, "MPI_Reduce", op, k, cnt, extra);
    note(inplace, cnt * K[k].psz, cnt * K[k].psz);
    if (me == root) {
        img_t m;
        img_init(&m, cnt * ext + 2 * ext + 3);
        expect_result(&m, cs, op, k, 0, C->size - 1, 0, cnt);
        if (inplace) {
            unpack(k, mine, cnt, m.got);
            MPI_CALL(MPI_Reduce(MPI_IN_PLACE, m.got, (int)cnt, K[k].type, opv[op], root, C->comm));
        } else {
            sbuf_t s;
            sb_init(&s, k, cnt, mine);
            MPI_CALL(MPI_Reduce(s.buf, m.got, (int)cnt, K[k].type, opv[op], root, C->comm));
            SB_DONE(&s);
        }
        CHECK_IMG(D, &m);
        digest_add(&m);
        img_free(&m);
    } else {
        sbuf_t s;
        sb_init(&s, k, cnt, mine);
        size_t rn = cnt * ext + 8;
        unsigned char *rb = nullrecv ? NULL : salloc(rn);
        MPI_CALL(MPI_Reduce(s.buf, rb, (int)cnt, K[k].type, opv[op], root, C->comm));
        SB_DONE(&s);
        if (rb) {
            char w[700];
            snprintf(w, sizeof w, "%s: recvbuf at a non-root", D);
            CHECK_SENTINEL(w, rb, 0, rn);
            free(rb);
        }
    }
    free(mine);
}

static void t_reduce_scatter(int cno, uint64_t cs, rng_t *cr, int block)
{
    int op, k, n = C->size, me = C->rank;
    draw_op(cr, &op, &k);
    size_t ext = K[k].ext, total = 0, off = 0;
    int *rci = mt_malloc((size_t)n * sizeof(int));
    size_t bc = draw_units(cr, K[k].psz, n);
    for (int i = 0; i < n; i++) {
        size_t c = block ? bc : rbelow(cr, 4) == 0 ? 0 : draw_units(cr, K[k].psz, n);
        rci[i] = (int)c;
        if (i < me) off += c;
        total += c;
    }
    int inplace = rbelow(cr, 4) == 0;
#ifdef MPICH_VERSION
    /* Plain-MPI quirk: MPICH 4.0's in-place MPI_Reduce_scatter with 512 KiB or more
     * in all (its pairwise algorithm) moves each rank's result to the start of
     * recvbuf with an overlapping memcpy when the block's displacement is smaller
     * than its count, and aborts ("memcpy argument memory ranges overlap").  Under
     * MPICH the in-place cases stay below 512 KiB in all. */
    if (inplace && !block && total * K[k].psz >= ((size_t)512 << 10)) {
        size_t lim = (((size_t)512 << 10) - 1) / K[k].psz, t2 = 0;
        off = 0;
        for (int i = 0; i < n; i++) {
            rci[i] = (int)((size_t)rci[i] * lim / total);
            if (i < me) off += (size_t)rci[i];
            t2 += (size_t)rci[i];
        }
        total = t2;
    }
#endif
    size_t my = (size_t)rci[me];
    unsigned char *mine = my_input(cs, op, k, total);
    img_t m;
    img_init(&m, (inplace ? total : my) * ext + 2 * ext + 3);
    expect_result(&m, cs, op, k, 0, n - 1, off, my);
    if (inplace) memset(m.care + my * ext, C_NO, (total - my) * ext); /* the rest of the input: undefined */
    char extra[96];
    snprintf(extra, sizeof extra, " in all, my block %zu at %zu%s", my, off, inplace ? ", MPI_IN_PLACE" : "");
    rdesc(cno, block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", op, k, total, extra);
    note(inplace, my * K[k].psz, total * K[k].psz);
    const void *sb;
    sbuf_t s;
    if (inplace) {
        unpack(k, mine, total, m.got);
        sb = MPI_IN_PLACE;
    } else {
        sb_init(&s, k, total, mine);
        sb = s.buf;
    }
    if (block) MPI_CALL(MPI_Reduce_scatter_block(sb, m.got, (int)bc, K[k].type, opv[op], C->comm));
    else MPI_CALL(MPI_Reduce_scatter(sb, m.got, rci, K[k].type, opv[op], C->comm));
    if (!inplace) SB_DONE(&s);
    CHECK_IMG(D, &m);
    free(mine);
    free(rci);
    img_free(&m);
}

static void t_scan(int cno, uint64_t cs, rng_t *cr, int ex)
{
    int op, k, me = C->rank;
    draw_op(cr, &op, &k);
    size_t cnt = draw_units(cr, K[k].psz, 1), ext = K[k].ext;
    int inplace = rbelow(cr, 4) == 0;
    img_t m;
    img_init(&m, cnt * ext + 2 * ext + 3);
    if (!ex) expect_result(&m, cs, op, k, 0, me, 0, cnt);
    else if (me > 0) expect_result(&m, cs, op, k, 0, me - 1, 0, cnt);
    else memset(m.care, C_NO, cnt * ext); /* rank 0's recvbuf is undefined after MPI_Exscan */
    unsigned char *mine = my_input(cs, op, k, cnt);
    rdesc(cno, ex ? "MPI_Exscan" : "MPI_Scan", op, k, cnt, inplace ? ", MPI_IN_PLACE" : "");
    note(inplace, cnt * K[k].psz, cnt * K[k].psz);
    const void *sb;
    sbuf_t s;
    if (inplace) {
        unpack(k, mine, cnt, m.got);
        sb = MPI_IN_PLACE;
    } else {
        sb_init(&s, k, cnt, mine);
        sb = s.buf;
    }
    if (ex) MPI_CALL(MPI_Exscan(sb, m.got, (int)cnt, K[k].type, opv[op], C->comm));
    else MPI_CALL(MPI_Scan(sb, m.got, (int)cnt, K[k].type, opv[op], C->comm));
    if (!inplace) SB_DONE(&s);
    CHECK_IMG(D, &m);
    free(mine);
    img_free(&m);
}
static void t_reduce_scatter_v(int cno, uint64_t cs, rng_t *cr) { t_reduce_scatter(cno, cs, cr, 0); }
static void t_reduce_scatter_b(int cno, uint64_t cs, rng_t *cr) { t_reduce_scatter(cno, cs, cr, 1); }
static void t_scan_i(int cno, uint64_t cs, rng_t *cr) { t_scan(cno, cs, cr, 0); }
static void t_exscan(int cno, uint64_t cs, rng_t *cr) { t_scan(cno, cs, cr, 1); }

/* ---------------------------------------------------- rooted (briefly) --- */
static void t_bcast(int cno, uint64_t cs, rng_t *cr)
{
    int sk, rk, me = C->rank;
    draw_mkinds(cr, &sk, &rk);
    int root = (int)rbelow(cr, (uint32_t)C->size), U = unit_of(sk, rk);
    size_t units = draw_units(cr, ubytes(sk, rk), 1);
    size_t sc = units * (size_t)(U / sigu(sk)), rc = units * (size_t)(U / sigu(rk));
    int k = me == root ? sk : rk;
    size_t c = me == root ? sc : rc;
    img_t m;
    img_init(&m, c * K[k].ext + 2 * K[k].ext + 3);
    unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, root, 0), dpat(cs, root, 0), VC_ANY);
    unpack(k, p, c, m.exp);
    mark(k, c, m.care, 0);
    reg_reset();
    reg_add(0, c * K[k].ext, -1, k, me == root ? "the root's buffer" : "the broadcast data");
    if (me == root) unpack(k, p, c, m.got);
    snprintf(D, sizeof D, "case %d: MPI_Bcast on %s (size %d), root %d: %s x %zu, others %s x %zu", cno, C->name, C->size,
             root, K[sk].name, sc, K[rk].name, rc);
    ANNOUNCE();
    note(0, sc * K[sk].psz, sc * K[sk].psz);
    MPI_CALL(MPI_Bcast(m.got, (int)c, K[k].type, root, C->comm));
    CHECK_IMG(D, &m);
    free(p);
    img_free(&m);
}

static void t_gather(int cno, uint64_t cs, rng_t *cr)
{
    int sk, rk, n = C->size, me = C->rank;
    draw_mkinds(cr, &sk, &rk);
    int root = (int)rbelow(cr, (uint32_t)n), U = unit_of(sk, rk), inplace = rbelow(cr, 4) == 0;
    size_t units = dint_cap(sk, draw_units(cr, ubytes(sk, rk), n), 8192 / (16 * (size_t)n));
    size_t sc = units * (size_t)(U / sigu(sk)), rc = units * (size_t)(U / sigu(rk)), blk = rc * K[rk].ext;
    unsigned char *mine = gen_packed(sk, 0, sc, dseed(cs, me, 0), dpat(cs, me, 0), VC_ANY);
    snprintf(D, sizeof D, "case %d: MPI_Gather on %s (size %d), root %d, send %s x %zu, recv %s x %zu%s", cno, C->name,
             n, root, K[sk].name, sc, K[rk].name, rc, inplace ? ", MPI_IN_PLACE at the root" : "");
    ANNOUNCE();
    note(inplace, sc * K[sk].psz, sc * K[sk].psz);
    if (me == root) {
        img_t m;
        img_init(&m, (size_t)n * blk + K[rk].ext + 3);
        reg_reset();
        for (int i = 0; i < n; i++) {
            unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, i, 0), dpat(cs, i, 0), VC_ANY);
            unpack(rk, p, rc, m.exp + (size_t)i * blk);
            mark(rk, rc, m.care + (size_t)i * blk, 0);
            reg_add((size_t)i * blk, blk, i, rk, "the block from comm rank");
            free(p);
        }
        if (inplace) {
            unpack(rk, mine, rc, m.got + (size_t)me * blk);
            MPI_CALL(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m.got, (int)rc, K[rk].type, root, C->comm));
        } else {
            sbuf_t s;
            sb_init(&s, sk, sc, mine);
            MPI_CALL(MPI_Gather(s.buf, (int)sc, K[sk].type, m.got, (int)rc, K[rk].type, root, C->comm));
            SB_DONE(&s);
        }
        CHECK_IMG(D, &m);
        img_free(&m);
    } else {
        sbuf_t s;
        sb_init(&s, sk, sc, mine);
        MPI_CALL(MPI_Gather(s.buf, (int)sc, K[sk].type, NULL, (int)rc, K[rk].type, root, C->comm));
        SB_DONE(&s);
    }
    free(mine);
}

static void t_scatter(int cno, uint64_t cs, rng_t *cr)
{
    int sk, rk, n = C->size, me = C->rank;
    draw_mkinds(cr, &sk, &rk);
    int root = (int)rbelow(cr, (uint32_t)n), U = unit_of(sk, rk), inplace = rbelow(cr, 4) == 0;
    size_t units = dint_cap(sk, draw_units(cr, ubytes(sk, rk), n), 8192 / (16 * (size_t)n));
    size_t sc = units * (size_t)(U / sigu(sk)), rc = units * (size_t)(U / sigu(rk)), sblk = sc * K[sk].ext;
    snprintf(D, sizeof D, "case %d: MPI_Scatter on %s (size %d), root %d, send %s x %zu, recv %s x %zu%s", cno,
             C->name, n, root, K[sk].name, sc, K[rk].name, rc, inplace ? ", MPI_IN_PLACE at the root" : "");
    ANNOUNCE();
    note(inplace, sc * K[sk].psz, sc * K[sk].psz);
    sbuf_t s = {NULL, NULL, 0};
    if (me == root) {
        s.n = (size_t)n * sblk + 8;
        s.buf = salloc(s.n);
        for (int j = 0; j < n; j++) {
            unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, root, 1 + j), dpat(cs, root, 1 + j), VC_ANY);
            unpack(sk, p, sc, s.buf + (size_t)j * sblk);
            free(p);
        }
        s.copy = bdup(s.buf, s.n);
    }
    if (me == root && inplace) {
        MPI_CALL(MPI_Scatter(s.buf, (int)sc, K[sk].type, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, C->comm));
    } else {
        img_t m;
        img_init(&m, rc * K[rk].ext + K[rk].ext + 3);
        unsigned char *p = gen_packed(sk, 0, sc, dseed(cs, root, 1 + me), dpat(cs, root, 1 + me), VC_ANY);
        unpack(rk, p, rc, m.exp);
        mark(rk, rc, m.care, 0);
        reg_reset();
        reg_add(0, rc * K[rk].ext, root, rk, "the block from root");
        free(p);
        MPI_CALL(MPI_Scatter(s.buf, (int)sc, K[sk].type, m.got, (int)rc, K[rk].type, root, C->comm));
        CHECK_IMG(D, &m);
        img_free(&m);
    }
    if (me == root) SB_DONE(&s);
}

/* ----------------------------------------------------------------- driver --- */
static void run_cases(int id, const char *coll, int ncases, int fp, void (*fn)(int, uint64_t, rng_t *))
{
    if (g_cases_override > 0) ncases = g_cases_override;
    /* COLL_ALL_ONLY=6,7: only these collectives (numbers as in main) */
    const char *only = getenv("COLL_ALL_ONLY");
    if (only && *only) {
        int listed = 0;
        for (const char *q = only; *q;) {
            char *end;
            long v = strtol(q, &end, 10);
            if (end == q) break;
            listed |= v == id;
            q = *end == ',' ? end + 1 : end;
        }
        if (!listed) return;
    }
    mt_group_begin("%s: %d random cases", coll, ncases);
    maxrel[0] = maxrel[1] = 0;
    uop_badtype = 0;
    st_inplace = st_empty = st_16k = st_1m = 0;
    st_max = 0;
    double t0 = MPI_Wtime();
    for (int c = 0; c < ncases; c++) {
        uint64_t cs = hseed(g_seed, (uint64_t)id, (uint64_t)c);
        rng_t cr = {cs};
        C = &CX[rbelow(&cr, 3)];
        double tc = MPI_Wtime();
        fn(c, cs, &cr);
        if (g_verbose) printf("rank %d: case %d took %.3f s\n", mt_rank, c, MPI_Wtime() - tc);
    }
    CHECK_INT("user-defined op called with a datatype other than the call's (count of calls)", 0, uop_badtype);
    double dt = MPI_Wtime() - t0;
    mt_group_end();
    if (mt_rank == 0)
        printf("INFO [%s] %s: %.2f s; rank 0 saw %d cases with MPI_IN_PLACE, %d with an empty block, %d with a "
               "block over 16 KiB, %d over 1 MiB, largest %zu bytes\n", mt_prog, coll, dt, st_inplace, st_empty,
               st_16k, st_1m, st_max);
    if (fp) {
        double g[2];
        MPI_CALL(MPI_Allreduce(maxrel, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        if (mt_rank == 0)
            printf("INFO [%s] %s: largest relative difference of floating-point SUM/PROD results from the oracle: "
                   "float %.3g (allowed %g), double %.3g (allowed %g)\n", mt_prog, coll, g[0], TOL_F32, g[1], TOL_F64);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_all");
    mt_require_size(2);
    const char *e = getenv("COLL_ALL_SEED");
    if (e && *e) g_seed = strtoull(e, NULL, 0);
    e = getenv("COLL_ALL_CASES");
    if (e && *e) g_cases_override = atoi(e);
    e = getenv("COLL_ALL_VERBOSE");
    g_verbose = e && atoi(e) > 0;
    kinds_init();
    ops_init();
    CX[0].comm = MPI_COMM_WORLD;
    snprintf(CX[0].name, sizeof CX[0].name, "MPI_COMM_WORLD");
    CX[0].id = 0;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &CX[1].comm));
    snprintf(CX[1].name, sizeof CX[1].name, "dup(MPI_COMM_WORLD)");
    CX[1].id = 1;
    MPI_CALL(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &CX[2].comm));
    snprintf(CX[2].name, sizeof CX[2].name, "split(%s world ranks, reversed)", mt_rank % 2 ? "odd" : "even");
    CX[2].id = 2 + mt_rank % 2;
    for (int i = 0; i < 3; i++) {
        MPI_CALL(MPI_Comm_set_errhandler(CX[i].comm, MPI_ERRORS_RETURN));
        MPI_CALL(MPI_Comm_rank(CX[i].comm, &CX[i].rank));
        MPI_CALL(MPI_Comm_size(CX[i].comm, &CX[i].size));
    }
    if (mt_rank == 0)
        printf("INFO [%s] seed 0x%llx, %d ranks\n", mt_prog, (unsigned long long)g_seed, mt_size);

    run_cases(1, "MPI_Allgather", 40, 0, t_allgather);
    run_cases(2, "MPI_Allgatherv", 40, 0, t_allgatherv);
    run_cases(3, "MPI_Alltoall", 40, 0, t_alltoall);
    run_cases(4, "MPI_Alltoallv", 40, 0, t_alltoallv);
    run_cases(5, "MPI_Alltoallw", 40, 0, t_alltoallw);
    run_cases(6, "MPI_Allreduce", 60, 1, t_allreduce);
    run_cases(7, "MPI_Reduce", 60, 1, t_reduce);
    run_cases(8, "MPI_Reduce_scatter", 50, 1, t_reduce_scatter_v);
    run_cases(9, "MPI_Reduce_scatter_block", 50, 1, t_reduce_scatter_b);
    run_cases(10, "MPI_Scan", 50, 1, t_scan_i);
    run_cases(11, "MPI_Exscan", 50, 1, t_exscan);
    run_cases(12, "MPI_Bcast", 16, 0, t_bcast);
    run_cases(13, "MPI_Gather", 16, 0, t_gather);
    run_cases(14, "MPI_Scatter", 16, 0, t_scatter);

    uint64_t *dg = mt_malloc((size_t)mt_size * sizeof(uint64_t)), d = 0xcbf29ce484222325ULL;
    MPI_CALL(MPI_Allgather(&g_rdigest, 1, MPI_UINT64_T, dg, 1, MPI_UINT64_T, MPI_COMM_WORLD));
    for (int i = 0; i < mt_size; i++) d = (d ^ dg[i]) * 0x100000001b3ULL;
    if (mt_rank == 0) printf("INFO [%s] reduction digest 0x%016llx\n", mt_prog, (unsigned long long)d);
    free(dg);

    MPI_CALL(MPI_Op_free(&opv[O_UCOMM]));
    MPI_CALL(MPI_Op_free(&opv[O_UNONC]));
    MPI_CALL(MPI_Type_free(&t_vec));
    MPI_CALL(MPI_Type_free(&t_mat));
    MPI_CALL(MPI_Comm_free(&CX[1].comm));
    MPI_CALL(MPI_Comm_free(&CX[2].comm));
    free(regs);
    return mt_finish();
}
