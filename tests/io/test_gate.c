/* SPDX-License-Identifier: BSD-3-Clause */
/* The gate of compi's collective I/O (lib/io/mpiio_model.c), MPI-free, against a
 * byte-by-byte oracle: random files whose every byte belongs to one process
 * (or none), random nodes, ROMIO hints and aggregator lists. For each case
 * the oracle walks the bytes: ROMIO's domains (equal parts of the accessed
 * range, boundaries rounded up to the stripe), the aggregator of each byte's
 * domain (ROMIO's list, or one per node in rank order, cb_nodes of them), and
 * counts the bytes whose owner is on another node; ROMIO's interleave test
 * literally as in ad_write_coll.c; la's placement (compi_io_place_la on the
 * oracle's own bytes matrix) walked the same way; then the verdict as the
 * rule states it. Fixed cases: a STEM-like block grid passes, a mesh whose
 * domains live on the "wrong" nodes does not, OMPIO never passes. The
 * compression account (compi_io_gate_model): each process's codec bytes
 * walked byte by byte for writes and reads, the verdict as a predicted
 * speedup with random measured records, and the measured 1 Gbit/s cell
 * (reads passed, writes and 100 Mbit/s reads kept). Mutations: read/write
 * roles swapped 456 failures, codec term dropped 7, "nothing measured"
 * passed 87.
 * usage: test_gate [cases]. Prints "N passed, N failed". */
#include "io/io.h"
#include "common/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed, passed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAILED: "); printf(__VA_ARGS__); printf("\n"); } } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { return compi_rng_next(&rng); }
static int rint_(int n) { return (int)(rnd() % (uint64_t)n); }

typedef struct {
    int n, L;
    int *owner;        /* owner[b]: process or -1 */
    int *node_of;
    compi_io_segs *segs;
    int64_t *st, *en;  /* exclusive ends; empty: 0, 0 */
    int64_t gs, ge;
} scen;

static void scen_segments(scen *s)
{
    s->segs = calloc((size_t)s->n, sizeof *s->segs);
    s->st = calloc((size_t)s->n, sizeof(int64_t));
    s->en = calloc((size_t)s->n, sizeof(int64_t));
    for (int p = 0; p < s->n; p++) compi_io_segs_init(&s->segs[p]);
    for (int b = 0; b < s->L; b++)
        if (s->owner[b] >= 0) compi_io_segs_add(&s->segs[s->owner[b]], b, 1);
    s->gs = -1;
    s->ge = -1;
    for (int p = 0; p < s->n; p++)
        if (s->segs[p].n) {
            s->st[p] = s->segs[p].v[0].off;
            s->en[p] = s->segs[p].v[s->segs[p].n - 1].off + s->segs[p].v[s->segs[p].n - 1].len;
        }
    for (int b = 0; b < s->L; b++)
        if (s->owner[b] >= 0) {
            if (s->gs < 0) s->gs = b;
            s->ge = b + 1;
        }
}

static void scen_free(scen *s)
{
    for (int p = 0; p < s->n; p++) compi_io_segs_free(&s->segs[p]);
    free(s->segs); free(s->st); free(s->en); free(s->owner); free(s->node_of);
}

/* ---- the oracle */
static int oracle_interleaved(const scen *s)
{
    /* ROMIO: inclusive end offsets; an empty access: start 0, end -1 */
    for (int i = 1; i < s->n; i++) {
        int64_t st = s->st[i], e = s->en[i] - 1, pe = s->en[i - 1] - 1;
        if (st < pe && st <= e) return 1;
    }
    return 0;
}

/* domain of byte b among nr equal parts of [gs, ge), boundaries up to stripe multiples */
static int oracle_domain(int64_t gs, int64_t ge, int nr, int64_t stripe, int64_t b)
{
    int64_t size = (ge - gs + nr - 1) / nr, lo = gs;
    for (int k = 0; k < nr; k++) {
        int64_t e = gs + (int64_t)(k + 1) * size;
        if (stripe > 0 && e % stripe) e += stripe - e % stripe;
        if (e > ge || k == nr - 1) e = ge;
        if (e < lo) e = lo;
        if (b >= lo && b < e) return k;
        lo = e;
    }
    return -1;
}

/* bytes crossing nodes when domain k of nd parts goes to agg[k] */
static int64_t oracle_cross(const scen *s, int nd, const int *agg, int64_t stripe)
{
    int64_t x = 0;
    for (int b = 0; b < s->L; b++) {
        int p = s->owner[b];
        if (p < 0) continue;
        int k = oracle_domain(s->gs, s->ge, nd, stripe, b);
        if (k < 0) { printf("FAILED: oracle byte %d outside every domain\n", b); failed++; continue; }
        if (s->node_of[agg[k]] != s->node_of[p]) x++;
    }
    return x;
}

static int oracle_default_list(const scen *s, int cb_nodes, int *agg)
{
    int n = 0;
    for (int p = 0; p < s->n; p++) {
        int first = 1;
        for (int q = 0; q < p; q++) if (s->node_of[q] == s->node_of[p]) first = 0;
        if (first) agg[n++] = p;
    }
    if (cb_nodes > 0 && cb_nodes < n) n = cb_nodes;
    return n;
}

static int oracle_verdict(int mpiio, int64_t la, int64_t mpi, int compress)
{
    int romio = mpiio == COMPI_IO_MPIIO_ROMIO;
    int la_fewer = (double)la < 0.9 * (double)mpi;   /* 10 % fewer (COMPI_IO_GATE_MARGIN) */
    int compression_may_help = compress && mpi > 0;
    return romio && !la_fewer && !compression_may_help;
}

/* one scenario through the library (as every process together computes it) and the oracle */
static void check_scen(const scen *s, const compi_io_romio_model *m, int mpiio, int compress, const char *what,
                       int expect_verdict)
{
    if (s->ge <= s->gs) return;
    /* the library: each process's row, summed (the runtime's allgather) */
    int64_t mpi = 0;
    for (int p = 0; p < s->n; p++)
        mpi += compi_io_romio_row_internode(m, s->n, s->node_of, s->gs, s->ge, s->st, s->en, &s->segs[p], p);
    /* the oracle */
    int64_t omp = 0;
    int inter = oracle_interleaved(s);
    CHECK(inter == compi_io_romio_interleaved(s->n, s->st, s->en), "%s: interleave %d, library %d", what, inter,
          compi_io_romio_interleaved(s->n, s->st, s->en));
    if (!(m->cb < 0 || (m->cb > 0 && !inter))) {
        int *ragg = malloc(sizeof(int) * (size_t)s->n), nr;
        if (m->nragg > 0) { nr = m->nragg; memcpy(ragg, m->ragg, sizeof(int) * (size_t)nr); }
        else nr = oracle_default_list(s, m->cb_nodes, ragg);
        omp = oracle_cross(s, nr, ragg, m->stripe);
        free(ragg);
    }
    CHECK(mpi == omp, "%s: ROMIO's inter-node bytes %lld, oracle %lld", what, (long long)mpi, (long long)omp);
    /* la: compi's domains (one per node), the oracle's bytes matrix */
    int *def = malloc(sizeof(int) * (size_t)s->n);
    int nagg = compi_io_place_default(s->n, s->node_of, 0, def);
    double *w = calloc((size_t)s->n * (size_t)nagg, sizeof(double));
    for (int b = 0; b < s->L; b++)
        if (s->owner[b] >= 0) w[(size_t)s->owner[b] * nagg + oracle_domain(s->gs, s->ge, nagg, m->stripe, b)] += 1;
    int *la = malloc(sizeof(int) * (size_t)nagg);
    int rc = compi_io_place_la(s->n, nagg, w, NULL, s->node_of, 1, la);
    CHECK(rc == COMPI_OK, "%s: la placement failed (%d)", what, rc);
    compi_io_volume v;
    compi_io_volume_of(s->n, nagg, w, la, s->node_of, &v);
    int64_t ola = oracle_cross(s, nagg, la, m->stripe);
    CHECK(v.internode == ola, "%s: la inter-node %lld, oracle %lld", what, (long long)v.internode, (long long)ola);
    int verdict = compi_io_gate(mpiio, v.internode, mpi, compress);
    int ov = oracle_verdict(mpiio, ola, omp, compress);
    CHECK(verdict == ov, "%s: gate %d, oracle %d (la %lld, ROMIO %lld, compress %d, %s)", what, verdict, ov,
          (long long)ola, (long long)omp, compress, compi_io_mpiio_name(mpiio));
    if (expect_verdict >= 0)
        CHECK(verdict == expect_verdict, "%s: gate %d, expected %d (la %lld, ROMIO %lld)", what, verdict,
              expect_verdict, (long long)v.internode, (long long)mpi);
    /* compression's account: the codec work on each process, byte by byte
     * (a write's owner compresses and its aggregator decompresses every
     * inter-node byte, a read the other way round), and the verdict with a
     * random measured record */
    int64_t *cw = calloc((size_t)s->n * 4, sizeof(int64_t));   /* comp write, decomp write, comp read, decomp read */
    for (int b = 0; b < s->L; b++) {
        int p = s->owner[b];
        if (p < 0) continue;
        int a = la[oracle_domain(s->gs, s->ge, nagg, m->stripe, b)];
        if (s->node_of[a] == s->node_of[p]) continue;
        cw[4 * p + 0]++, cw[4 * a + 1]++, cw[4 * a + 2]++, cw[4 * p + 3]++;
    }
    for (int wr = 0; wr < 2; wr++) {
        int64_t oc = 0, od = 0, lc, ld;
        for (int p = 0; p < s->n; p++) {
            int64_t c = cw[4 * p + (wr ? 0 : 2)], d = cw[4 * p + (wr ? 1 : 3)];
            if (c > oc) oc = c;
            if (d > od) od = d;
        }
        compi_io_codec_load(s->n, nagg, w, la, s->node_of, wr, &lc, &ld);
        CHECK(lc == oc && ld == od, "%s: codec load (%s) %lld/%lld, oracle %lld/%lld", what, wr ? "write" : "read",
              (long long)lc, (long long)ld, (long long)oc, (long long)od);
        int nodes = 0;
        for (int p = 0; p < s->n; p++) {
            int seen = 0;
            for (int q = 0; q < p; q++) seen |= s->node_of[q] == s->node_of[p];
            nodes += !seen;
        }
        compi_io_gate_in gi = {.mpiio = mpiio, .compress = compress, .nodes = nodes, .la_internode = v.internode,
                               .mpi_internode = mpi, .comp_max = lc, .decomp_max = ld,
                               .beta_ns = rint_(5) ? 0.5 + rint_(1000) / 10.0 : 0,
                               .c_ns = rint_(1000) / 100.0, .d_ns = rint_(500) / 100.0,
                               .ratio = rint_(4) ? 1 + rint_(300) / 100.0 : 0};
        /* the oracle: the predicted speedup of compi's path over the MPI's */
        int ov2;
        if (mpiio != COMPI_IO_MPIIO_ROMIO || (double)ola < 0.9 * (double)omp) ov2 = COMPI_IO_GATE_COMPI;
        else if (!compress || omp == 0) ov2 = COMPI_IO_GATE_PASS;
        else if (gi.ratio == 0 || gi.beta_ns == 0) ov2 = COMPI_IO_GATE_COMPI;
        else {
            long double link = (long double)gi.beta_ns / nodes;
            long double speedup = (long double)omp * link /
                                  ((long double)ola * link / gi.ratio + (long double)oc * gi.c_ns + (long double)od * gi.d_ns);
            ov2 = speedup * 0.9L > 1.0L ? COMPI_IO_GATE_COMPI : COMPI_IO_GATE_PASS;
        }
        int v2 = compi_io_gate_model(&gi);
        CHECK(v2 == ov2, "%s (%s): measured gate %d, oracle %d (la %lld, ROMIO %lld, ratio %.2f, beta %.1f, c %.2f, "
              "d %.2f, load %lld/%lld)", what, wr ? "write" : "read", v2, ov2, (long long)ola, (long long)omp,
              gi.ratio, gi.beta_ns, gi.c_ns, gi.d_ns, (long long)oc, (long long)od);
    }
    free(cw);
    free(def); free(w); free(la);
}

/* The cell that motivated the compression account (README, Collective I/O
 * at 1 Gbit/s: la+adaptive reads 0.80x of ROMIO at 4 ranks per node): the
 * bips3d mesh (10000 nodes, load 100) on 2 nodes x 4 ranks, bytes from
 * compi's report, the codec record of that run (dfcm, ratio 1.93, 3.4 ns/B
 * compressing with the evaluations, 1.6 ns/B decompressing), the two
 * aggregators splitting the inter-node bytes evenly, the 4 ranks of a node
 * evenly. */
static void check_measured(void)
{
    compi_io_gate_in rd = {.mpiio = COMPI_IO_MPIIO_ROMIO, .compress = 1, .nodes = 2, .la_internode = 3850400,
                           .mpi_internode = 4149600, .comp_max = 3850400 / 2, .decomp_max = 3850400 / 8,
                           .beta_ns = 8.0, .c_ns = 3.4, .d_ns = 1.6, .ratio = 1.93};
    CHECK(compi_io_gate_model(&rd) == COMPI_IO_GATE_PASS, "1 Gbit/s read: compression cannot pay, yet compi's path");
    compi_io_gate_in wr = rd;   /* a write: 8 senders compress, the 2 aggregators decompress */
    wr.comp_max = 3850400 / 8, wr.decomp_max = 3850400 / 2;
    CHECK(compi_io_gate_model(&wr) == COMPI_IO_GATE_COMPI, "1 Gbit/s write: compression pays, yet passed");
    compi_io_gate_in slow = rd;  /* 100 Mbit/s: the wire dominates */
    slow.beta_ns = 80.0;
    CHECK(compi_io_gate_model(&slow) == COMPI_IO_GATE_COMPI, "100 Mbit/s read: compression pays, yet passed");
    compi_io_gate_in none = rd;  /* decided on, nothing compressed: la's bytes alone decide */
    none.ratio = 1, none.c_ns = 0, none.d_ns = 0;
    CHECK(compi_io_gate_model(&none) == COMPI_IO_GATE_PASS, "nothing compressed: compi's path");
    compi_io_gate_in fresh = rd; /* nothing measured yet: this call measures */
    fresh.ratio = 0;
    CHECK(compi_io_gate_model(&fresh) == COMPI_IO_GATE_COMPI, "nothing measured: passed");
    /* the record turned into rates */
    double rec[5] = {68e6, 32e6, 20e6, 10e6, 40}, c, d, r;
    compi_io_codec_rates(rec, &c, &d, &r);
    CHECK(c == 3.4 && d == 1.6 && r == 2.0, "codec rates %.3f %.3f %.3f", c, d, r);
    double rec0[5] = {0, 0, 0, 0, 12};
    compi_io_codec_rates(rec0, &c, &d, &r);
    CHECK(r == 1 && c == 0 && d == 0, "decided, nothing compressed: ratio %.2f", r);
    double rec1[5] = {0, 0, 0, 0, 0};
    compi_io_codec_rates(rec1, &c, &d, &r);
    CHECK(r == 0, "nothing decided: ratio %.2f", r);
}

/* a STEM-like grid: nz x ny x nx bytes, dims[0] x dims[1] blocks (z, y), rank order z-major */
static void make_grid(scen *s, int nz, int ny, int nx, int dz, int dy, int ppn)
{
    s->n = dz * dy;
    s->L = nz * ny * nx;
    s->owner = malloc(sizeof(int) * (size_t)s->L);
    s->node_of = malloc(sizeof(int) * (size_t)s->n);
    for (int p = 0; p < s->n; p++) s->node_of[p] = p / ppn;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                s->owner[(z * ny + y) * nx + x] = (z * dz / nz) * dy + (y * dy / ny);
    scen_segments(s);
}

int main(int argc, char **argv)
{
    int cases = argc > 1 ? atoi(argv[1]) : 400;
    compi_io_romio_model aut = {1, NULL, 0, 0, 0};

    /* STEM-like 4 ranks on 2 nodes: ROMIO's halves are each node's: nothing to gain */
    scen g;
    make_grid(&g, 16, 12, 10, 2, 2, 2);
    check_scen(&g, &aut, COMPI_IO_MPIIO_ROMIO, 0, "stem 2x2 ppn2", COMPI_IO_GATE_PASS);
    check_scen(&g, &aut, COMPI_IO_MPIIO_ROMIO, 1, "stem 2x2 ppn2 compressed", COMPI_IO_GATE_PASS);
    check_scen(&g, &aut, COMPI_IO_MPIIO_OMPIO, 0, "stem under OMPIO", COMPI_IO_GATE_COMPI);
    check_scen(&g, &aut, COMPI_IO_MPIIO_UNKNOWN, 0, "stem under an unknown MPI-IO", COMPI_IO_GATE_COMPI);
    CHECK(compi_io_romio_interleaved(g.n, g.st, g.en) == 1, "stem blocks interleave");
    /* the same grid cut in z only: no interleaving, ROMIO writes independently */
    scen slab;
    make_grid(&slab, 16, 12, 10, 4, 1, 2);
    CHECK(compi_io_romio_interleaved(slab.n, slab.st, slab.en) == 0, "z slabs do not interleave");
    check_scen(&slab, &aut, COMPI_IO_MPIIO_ROMIO, 1, "slabs", COMPI_IO_GATE_PASS);
    /* ROMIO with one aggregator (MPICH on one real host: romio_aggregator_list "0"): half the grid crosses */
    int one[1] = {0};
    compi_io_romio_model single = {1, one, 1, 0, 0};
    check_scen(&g, &single, COMPI_IO_MPIIO_ROMIO, 0, "stem, ROMIO with 1 aggregator", COMPI_IO_GATE_COMPI);
    /* a mesh whose first half lives on node 1 and second half on node 0: ROMIO
     * hands them to the wrong nodes, la swaps them */
    scen wrong = {0};
    wrong.n = 4;
    wrong.L = 800;
    wrong.owner = malloc(sizeof(int) * 800);
    wrong.node_of = malloc(sizeof(int) * 4);
    for (int p = 0; p < 4; p++) wrong.node_of[p] = p / 2;
    for (int b = 0; b < 800; b++) wrong.owner[b] = (b < 400 ? 2 : 0) + (b % 3 == 0);
    scen_segments(&wrong);
    check_scen(&wrong, &aut, COMPI_IO_MPIIO_ROMIO, 0, "mesh on the wrong nodes", COMPI_IO_GATE_COMPI);
    /* equal inter-node bytes: compression decides */
    scen same = {0};
    same.n = 4;
    same.L = 800;
    same.owner = malloc(sizeof(int) * 800);
    same.node_of = malloc(sizeof(int) * 4);
    for (int p = 0; p < 4; p++) same.node_of[p] = p / 2;
    for (int b = 0; b < 800; b++) same.owner[b] = b % 4;   /* cyclic: every domain half remote */
    scen_segments(&same);
    check_scen(&same, &aut, COMPI_IO_MPIIO_ROMIO, 0, "cyclic, no compression", COMPI_IO_GATE_PASS);
    check_scen(&same, &aut, COMPI_IO_MPIIO_ROMIO, 1, "cyclic, compressed", COMPI_IO_GATE_COMPI);
    scen_free(&g); scen_free(&slab); scen_free(&wrong); scen_free(&same);

    check_measured();

    /* random cases against the oracle */
    for (int c = 0; c < cases; c++) {
        scen s = {0};
        s.n = 1 + rint_(8);
        s.L = 1 + rint_(3000);
        s.owner = malloc(sizeof(int) * (size_t)s.L);
        s.node_of = malloc(sizeof(int) * (size_t)s.n);
        int nodes = 1 + rint_(s.n < 4 ? s.n : 4), ppn = (s.n + nodes - 1) / nodes;
        int scatter = rint_(3) == 0;
        for (int p = 0; p < s.n; p++) s.node_of[p] = scatter ? rint_(nodes) : p / ppn;
        int kind = rint_(4), blk = 1 + rint_(64);
        for (int b = 0; b < s.L; b++) {
            int o;
            switch (kind) {
            case 0: o = (int)((int64_t)b * s.n / s.L); break;             /* slabs */
            case 1: o = (b / blk) % s.n; break;                           /* block-cyclic */
            case 2: o = rint_(s.n); break;                                /* random, like a mesh numbering */
            default: o = ((b / blk) * 7 + (b / (blk * s.n))) % s.n; break; /* permuted blocks */
            }
            if (rint_(10) == 0) o = -1;                                   /* holes */
            s.owner[b] = o;
        }
        scen_segments(&s);
        int ragg[8], nragg = 0;
        if (rint_(3) == 0) {   /* an explicit aggregator list (MPICH's romio_aggregator_list) */
            nragg = 1 + rint_(s.n);
            for (int k = 0; k < nragg; k++) ragg[k] = rint_(s.n);
        }
        compi_io_romio_model m = {rint_(3) - 1, nragg ? ragg : NULL, nragg, rint_(3), rint_(2) ? 0 : 1 + rint_(100)};
        int mpiio = rint_(4) ? COMPI_IO_MPIIO_ROMIO : rint_(3);
        char what[64];
        snprintf(what, sizeof what, "random case %d (np %d, kind %d)", c, s.n, kind);
        check_scen(&s, &m, mpiio, rint_(2), what, -1);
        scen_free(&s);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
