/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the DKB (MPI-free): for every algorithm of every covered
 * collective, communicator sizes 1..64, several counts, roots and segment
 * sizes, the decomposition must satisfy what the collective's semantics
 * imply, independently of how the algorithm is built:
 *   - every message is between two distinct ranks of the communicator;
 *   - data can flow where the result needs it: for Bcast/Scatter every rank
 *     is reachable from the root along messages that carry bytes, for
 *     Reduce/Gather the root is reachable from every rank, for the
 *     all-to-all kinds (and Barrier, whose messages carry none) every rank
 *     reaches every other;
 *   - exact byte totals where the semantics fix them: a tree Bcast delivers
 *     the vector to each rank exactly once, Gather/Scatter move each block
 *     once into/out of the root, Alltoall's direct algorithms send each block
 *     once per ordered pair, Allgather delivers every other rank's block to
 *     each rank exactly once, the ring reduce-scatter forwards every block
 *     but one's own, ring Allreduce sends 2 (n-1) vectors' worth, a segmented
 *     algorithm sends ceil(bytes / segment) messages per tree edge;
 *   - the v variants: Alltoallv sends each pair its block (empty ones too),
 *     Allgatherv delivers every other rank's block to each rank exactly
 *     once, Gatherv/Scatterv move each non-empty block once;
 *   - the fixed decision picks an algorithm the table knows, for every size.
 * Also the error paths: bad call parameters, unknown algorithms, two_proc on
 * more than two ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map/map.h"

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; if (failures < 30 || getenv("TEST_DKB_ALL")) { \
    printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } } while (0)

/* reach[i*n+j]: j reachable from i along messages with bytes (or any message when zero_ok) */
static void closure(const compi_map_msgs *m, int n, int zero_ok, unsigned char *reach)
{
    memset(reach, 0, (size_t)n * n);
    for (int i = 0; i < n; i++) reach[i * n + i] = 1;
    for (size_t k = 0; k < m->n; k++)
        if (m->v[k].bytes > 0 || zero_ok) reach[m->v[k].src * n + m->v[k].dst] = 1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (reach[i * n + k])
                for (int j = 0; j < n; j++)
                    if (reach[k * n + j]) reach[i * n + j] = 1;
}

static const char *desc(const compi_map_call *c, const compi_map_alg *a)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s alg %d (%s) size %d root %d count %lld ts %zu segsize %u",
             compi_map_coll_name(c->coll), a->alg, compi_map_ompi41_alg_name(c->coll, a->alg), c->size, c->root,
             (long long)c->count, c->type_size, a->segsize);
    return buf;
}

static int is_tree_bcast(int alg)
{
    return alg >= 1 && alg <= 7;
}

static void check_one(const compi_map_call *c, const compi_map_alg *a)
{
    compi_map_msgs m = {0};
    int rc = compi_map_ompi41_messages(c, a, &m);
    int n = c->size;
    int two_only = (c->coll == COMPI_MAP_ALLTOALL && a->alg == 5) || (c->coll == COMPI_MAP_ALLGATHER && a->alg == 6) ||
                   (c->coll == COMPI_MAP_BARRIER && a->alg == 5) || (c->coll == COMPI_MAP_ALLGATHERV && a->alg == 5);
    if (two_only && n > 2) {
        CHECK(rc == COMPI_MAP_EUNSUPP, "%s: two_proc on %d ranks must be refused, got %d", desc(c, a), n, rc);
        compi_map_msgs_free(&m);
        return;
    }
    CHECK(rc == 0, "%s: %s", desc(c, a), compi_map_strerror(rc));
    if (rc) return;
    if (n == 1) {
        CHECK(m.n == 0, "%s: a single rank sends nothing", desc(c, a));
        compi_map_msgs_free(&m);
        return;
    }
    uint64_t *in = calloc(n, sizeof *in), *out = calloc(n, sizeof *out), *pair = calloc((size_t)n * n, sizeof *pair);
    unsigned char *reach = malloc((size_t)n * n);
    uint64_t total = 0, ts = c->type_size, K = (uint64_t)c->count * ts;
    for (size_t k = 0; k < m.n; k++) {
        const compi_map_msg *x = &m.v[k];
        CHECK(x->src >= 0 && x->src < n && x->dst >= 0 && x->dst < n && x->src != x->dst, "%s: bad message %d->%d",
              desc(c, a), x->src, x->dst);
        if (!(x->src >= 0 && x->src < n && x->dst >= 0 && x->dst < n)) continue;
        in[x->dst] += x->bytes;
        out[x->src] += x->bytes;
        pair[(size_t)x->src * n + x->dst] += x->bytes;
        total += x->bytes;
    }
    int zero_ok = c->coll == COMPI_MAP_BARRIER;
    closure(&m, n, zero_ok, reach);
    int r = c->root;
    switch (c->coll) {
    case COMPI_MAP_BCAST:
    case COMPI_MAP_SCATTER:
        for (int i = 0; i < n; i++) CHECK(reach[r * n + i], "%s: rank %d never gets data from the root", desc(c, a), i);
        break;
    case COMPI_MAP_REDUCE:
    case COMPI_MAP_GATHER:
        for (int i = 0; i < n; i++) CHECK(reach[i * n + r], "%s: rank %d's data never reaches the root", desc(c, a), i);
        break;
    case COMPI_MAP_GATHERV:
    case COMPI_MAP_SCATTERV:
        for (int i = 0; i < n; i++) {
            uint64_t want = i == r ? 0 : c->counts[i] * ts;
            uint64_t got = c->coll == COMPI_MAP_GATHERV ? pair[(size_t)i * n + r] : pair[(size_t)r * n + i];
            CHECK(got == want, "%s: rank %d's block moves %llu bytes, not %llu", desc(c, a), i,
                  (unsigned long long)got, (unsigned long long)want);
        }
        break;
    case COMPI_MAP_ALLTOALLV:
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                CHECK(pair[(size_t)i * n + j] == (i == j ? 0 : c->counts[(size_t)i * n + j] * ts),
                      "%s: %d->%d carries %llu bytes", desc(c, a), i, j, (unsigned long long)pair[(size_t)i * n + j]);
        break;
    default:
        /* (Reduce_scatter: only ranks with a non-empty block need anything) */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if ((c->coll != COMPI_MAP_REDUCE_SCATTER || c->counts[j] > 0) &&
                    (c->coll != COMPI_MAP_ALLGATHERV || c->counts[i] > 0))
                    CHECK(reach[i * n + j], "%s: %d's data never reaches %d", desc(c, a), i, j);
    }
    /* exact totals */
    if (c->coll == COMPI_MAP_BCAST && is_tree_bcast(a->alg)) {
        for (int i = 0; i < n; i++)
            CHECK(in[i] == (i == r ? 0 : K), "%s: rank %d receives %llu bytes, not %llu", desc(c, a), i,
                  (unsigned long long)in[i], (unsigned long long)(i == r ? 0 : K));
    }
    if (c->coll == COMPI_MAP_BCAST && a->alg >= 8 && c->count >= n) {
        /* scatter + allgather: every rank receives every block but its own at least once */
        uint64_t sc = (c->count + n - 1) / n;
        for (int i = 0; i < n; i++) {
            if (i == r) continue;
            int v = (i - r + n) % n;
            int64_t own = (int64_t)c->count - (int64_t)v * sc;
            if (own > (int64_t)sc) own = sc;
            if (own < 0) own = 0;
            CHECK(in[i] >= K - own * ts, "%s: rank %d receives %llu bytes, less than the vector minus its block",
                  desc(c, a), i, (unsigned long long)in[i]);
        }
    }
    if ((c->coll == COMPI_MAP_GATHER || c->coll == COMPI_MAP_SCATTER)) {
        uint64_t at_root = c->coll == COMPI_MAP_GATHER ? in[r] : out[r];
        CHECK(at_root == (uint64_t)(n - 1) * K, "%s: root moves %llu bytes, not (n-1) blocks", desc(c, a),
              (unsigned long long)at_root);
        for (int i = 0; i < n; i++)
            if (i != r) {
                uint64_t mine = c->coll == COMPI_MAP_GATHER ? out[i] : in[i];
                CHECK(mine >= K, "%s: rank %d moves %llu bytes, less than its block", desc(c, a), i,
                      (unsigned long long)mine);
            }
    }
    if (c->coll == COMPI_MAP_REDUCE && a->alg <= 6) {
        uint64_t want = (uint64_t)(n - 1) * K + (a->alg == 6 && r != n - 1 ? K : 0);
        CHECK(total == want, "%s: %llu bytes in total, not %llu", desc(c, a), (unsigned long long)total,
              (unsigned long long)want);
    }
    if (c->coll == COMPI_MAP_ALLTOALL && a->alg != 3) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                CHECK(pair[(size_t)i * n + j] == (i == j ? 0 : K), "%s: %d->%d carries %llu bytes", desc(c, a), i, j,
                      (unsigned long long)pair[(size_t)i * n + j]);
    }
    if (c->coll == COMPI_MAP_ALLTOALL && a->alg == 3) {
        for (int i = 0; i < n; i++)
            CHECK(out[i] >= (uint64_t)(n - 1) * K, "%s: rank %d sends less than its n-1 blocks", desc(c, a), i);
    }
    if (c->coll == COMPI_MAP_ALLGATHER && a->alg >= 2) {
        for (int i = 0; i < n; i++)
            CHECK(in[i] == (uint64_t)(n - 1) * K, "%s: rank %d receives %llu bytes, not n-1 blocks", desc(c, a), i,
                  (unsigned long long)in[i]);
    }
    if (c->coll == COMPI_MAP_ALLGATHERV && a->alg >= 2) {
        uint64_t T = 0;
        for (int i = 0; i < n; i++) T += c->counts[i] * ts;
        for (int i = 0; i < n; i++)
            CHECK(in[i] == T - c->counts[i] * ts, "%s: rank %d receives %llu bytes, not the other blocks", desc(c, a), i,
                  (unsigned long long)in[i]);
    }
    if (c->coll == COMPI_MAP_ALLREDUCE && (a->alg == 4 || a->alg == 5) && c->count >= n) {
        CHECK(total == 2 * (uint64_t)(n - 1) * K, "%s: ring sends %llu bytes, not 2(n-1) vectors", desc(c, a),
              (unsigned long long)total);
    }
    if (c->coll == COMPI_MAP_ALLREDUCE && a->alg == 6 && (n & (n - 1)) == 0 && c->count % n == 0) {
        CHECK(total == 2 * (uint64_t)(n - 1) * K, "%s: Rabenseifner sends %llu bytes, not 2(n-1) vectors", desc(c, a),
              (unsigned long long)total);
    }
    if (c->coll == COMPI_MAP_REDUCE_SCATTER && a->alg == 3) {
        uint64_t T = 0;
        for (int i = 0; i < n; i++) T += c->counts[i] * ts;
        CHECK(total == (uint64_t)(n - 1) * T, "%s: ring forwards %llu bytes, not (n-1) vectors", desc(c, a),
              (unsigned long long)total);
    }
    if (c->coll == COMPI_MAP_BARRIER) CHECK(total == 0, "%s: a barrier carries no bytes", desc(c, a));
    /* segmentation: one message per segment on every tree edge */
    if (a->segsize && c->coll == COMPI_MAP_BCAST && a->alg >= 2 && a->alg <= 7 && a->alg != 4 &&
        a->segsize < K) {
        /* whole elements, rounded to the nearest; below one element no segmentation */
        uint64_t seg = a->segsize / ts * ts;
        if (a->segsize - seg > ts / 2) seg += ts;
        uint64_t nseg = a->segsize < ts ? 1 : (K + seg - 1) / seg;
        CHECK(m.n == (size_t)(n - 1) * nseg, "%s: %zu messages, not %llu segments x %d edges", desc(c, a), m.n,
              (unsigned long long)nseg, n - 1);
    }
    free(in);
    free(out);
    free(pair);
    free(reach);
    compi_map_msgs_free(&m);
}

int main(void)
{
    static const compi_map_coll colls[] = {COMPI_MAP_BCAST, COMPI_MAP_REDUCE, COMPI_MAP_ALLREDUCE,
                                           COMPI_MAP_ALLTOALL, COMPI_MAP_ALLGATHER, COMPI_MAP_GATHER,
                                           COMPI_MAP_SCATTER, COMPI_MAP_REDUCE_SCATTER, COMPI_MAP_BARRIER,
                                           COMPI_MAP_ALLTOALLV, COMPI_MAP_ALLGATHERV, COMPI_MAP_GATHERV,
                                           COMPI_MAP_SCATTERV};
    static const int64_t counts[] = {1, 7, 1000, 65539};
    static const size_t tss[] = {4, 1};
    static int64_t rsc[64 * 64];
    int cases = 0;
    for (unsigned ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
        compi_map_coll coll = colls[ci];
        int nalgs = compi_map_ompi41_nalgs(coll);
        CHECK(nalgs > 0, "%s has no algorithms", compi_map_coll_name(coll));
        for (int n = 1; n <= 64; n++)
            for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++)
                for (unsigned t = 0; t < 2; t++) {
                    if (t == 1 && k != 2) continue;
                    if (coll == COMPI_MAP_ALLTOALLV)
                        for (int i = 0; i < n * n; i++) rsc[i] = (i % 7 == 3) ? 0 : counts[k] + i % 5;
                    else
                        for (int i = 0; i < n; i++) rsc[i] = i % 4 == 3 ? 0 : counts[k] + i;
                    int roots[3] = {0, n - 1, n / 2};
                    for (int ri = 0; ri < 3; ri++) {
                        if (ri > 0 && roots[ri] == roots[ri - 1]) continue;
                        compi_map_call c = {.coll = coll, .size = n, .root = roots[ri], .count = counts[k],
                                            .counts = rsc, .type_size = tss[t], .commutative = 1};
                        compi_map_alg fixed;
                        int rc = compi_map_ompi41_decide(&c, &fixed);
                        CHECK(rc == 0 && compi_map_ompi41_alg_name(coll, fixed.alg), "fixed decision for %s size %d: %d",
                              compi_map_coll_name(coll), n, rc);
                        c.commutative = 0;
                        compi_map_alg fixed_nc;
                        if (coll == COMPI_MAP_REDUCE || coll == COMPI_MAP_ALLREDUCE)
                            CHECK(compi_map_ompi41_decide(&c, &fixed_nc) == 0, "non-commutative decision %s size %d",
                                  compi_map_coll_name(coll), n);
                        c.commutative = 1;
                        for (int alg = 1; alg <= nalgs; alg++) {
                            compi_map_alg a;
                            CHECK(compi_map_ompi41_pinned(coll, alg, &a) == 0, "pinned %s %d", compi_map_coll_name(coll), alg);
                            static const uint32_t segs[] = {0, 1024, 1000, 3};
                            for (unsigned s = 0; s < 4; s++) {
                                a.segsize = segs[s];
                                if (s && !(coll == COMPI_MAP_BCAST || coll == COMPI_MAP_REDUCE ||
                                           (coll == COMPI_MAP_ALLREDUCE && alg == 5) ||
                                           (coll == COMPI_MAP_GATHER && alg == 3)))
                                    break;
                                check_one(&c, &a);
                                cases++;
                            }
                        }
                    }
                }
    }
    /* MPICH 4.0 rows: valid messages, data reaches where the semantics need
     * it, tree bcast delivers each rank the vector once; ENOTYET only where
     * MPICH's restrictions send the call to its default selection */
    for (unsigned ci = 0; ci < sizeof colls / sizeof colls[0]; ci++) {
        compi_map_coll coll = colls[ci];
        for (int alg = 1; alg <= compi_map_mpich40_nalgs(coll); alg++) {
            const char *name = compi_map_mpich40_alg_name(coll, alg);
            CHECK(compi_map_mpich40_alg_parse(coll, name) == alg, "MPICH name %s", name);
            for (int n = 1; n <= 64; n++)
                for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) {
                    int pof2 = 1;
                    while (pof2 * 2 <= n) pof2 *= 2;
                    compi_map_call c = {.coll = coll, .size = n, .root = n / 3, .count = counts[k], .type_size = 4,
                                        .commutative = 1};
                    /* the v variants: blocks of counts[k] to counts[k] + 2 elements, every fifth empty */
                    int64_t *vc = NULL;
                    if (coll == COMPI_MAP_ALLTOALLV || coll == COMPI_MAP_GATHERV || coll == COMPI_MAP_SCATTERV) {
                        size_t nv = coll == COMPI_MAP_ALLTOALLV ? (size_t)n * n : (size_t)n;
                        vc = malloc(sizeof *vc * nv);
                        for (size_t q = 0; q < nv; q++) vc[q] = q % 5 == 3 ? 0 : counts[k] + (int64_t)(q % 3);
                        c.counts = vc;
                    }
                    compi_map_msgs m = {0};
                    int rc = compi_map_mpich40_messages(&c, alg, &m);
                    int restricted = (strstr(name, "reduce_scatter") && counts[k] < pof2) ||
                                     (coll == COMPI_MAP_ALLGATHER && !strcmp(name, "recursive_doubling") && (n & (n - 1))) ||
                                     (coll == COMPI_MAP_BCAST && strstr(name, "scatter") && (uint64_t)counts[k] * 4 < (uint64_t)n);
                    CHECK(restricted ? rc == COMPI_MAP_ENOTYET : rc == 0, "MPICH %s %s size %d count %lld: %s",
                          compi_map_coll_name(coll), name, n, (long long)counts[k], compi_map_strerror(rc));
                    if (rc == 0 && n > 1) {
                        unsigned char *reach = malloc((size_t)n * n);
                        uint64_t *in = calloc(n, sizeof *in);
                        closure(&m, n, coll == COMPI_MAP_BARRIER, reach);
                        for (size_t x = 0; x < m.n; x++) {
                            CHECK(m.v[x].src >= 0 && m.v[x].src < n && m.v[x].dst >= 0 && m.v[x].dst < n &&
                                      (m.v[x].src != m.v[x].dst || !strcmp(name, "scattered")),
                                  "MPICH %s %s: bad message %d->%d", compi_map_coll_name(coll), name, m.v[x].src,
                                  m.v[x].dst);
                            if (m.v[x].dst >= 0 && m.v[x].dst < n) in[m.v[x].dst] += m.v[x].bytes;
                        }
                        for (int i = 0; i < n; i++)
                            for (int j = 0; j < n; j++) {
                                int need = coll == COMPI_MAP_BCAST || coll == COMPI_MAP_SCATTER ? i == c.root
                                           : coll == COMPI_MAP_REDUCE || coll == COMPI_MAP_GATHER ? j == c.root
                                           : coll == COMPI_MAP_SCATTERV ? i == c.root && (i == j || vc[j] > 0)
                                           : coll == COMPI_MAP_GATHERV ? j == c.root && (i == j || vc[i] > 0)
                                           : coll == COMPI_MAP_ALLTOALLV ? i == j || vc[(size_t)i * n + j] > 0
                                                                         : 1;
                                if (need)
                                    CHECK(reach[i * n + j], "MPICH %s %s size %d: %d never reaches %d",
                                          compi_map_coll_name(coll), name, n, i, j);
                            }
                        if (coll == COMPI_MAP_BCAST && !strcmp(name, "binomial"))
                            for (int i = 0; i < n; i++)
                                CHECK(in[i] == (i == c.root ? 0 : (uint64_t)counts[k] * 4), "MPICH binomial bcast size %d rank %d",
                                      n, i);
                        /* the v variants move each block once, straight: what a rank gets is its blocks */
                        for (int j = 0; vc && j < n; j++) {
                            uint64_t want = 0;
                            for (int i = 0; i < n; i++)
                                want += coll == COMPI_MAP_ALLTOALLV ? (uint64_t)vc[(size_t)i * n + j] * 4
                                        : coll == COMPI_MAP_GATHERV ? (j == c.root && i != j ? (uint64_t)vc[i] * 4 : 0)
                                                                    : (i == c.root && i != j ? (uint64_t)vc[j] * 4 : 0);
                            CHECK(in[j] == want, "MPICH %s %s size %d: rank %d gets %llu bytes, expected %llu",
                                  compi_map_coll_name(coll), name, n, j, (unsigned long long)in[j],
                                  (unsigned long long)want);
                        }
                        free(reach);
                        free(in);
                    }
                    free(vc);
                    compi_map_msgs_free(&m);
                    cases++;
                }
        }
    }

    /* error paths */
    compi_map_msgs m = {0};
    compi_map_alg a;
    compi_map_call bad = {.coll = COMPI_MAP_BCAST, .size = 4, .root = 4, .count = 10, .type_size = 4, .commutative = 1};
    CHECK(compi_map_ompi41_pinned(COMPI_MAP_BCAST, 6, &a) == 0, "pinned bcast 6");
    CHECK(compi_map_ompi41_messages(&bad, &a, &m) == COMPI_MAP_EARG, "root out of range accepted");
    bad.root = 0;
    bad.type_size = 0;
    CHECK(compi_map_ompi41_messages(&bad, &a, &m) == COMPI_MAP_EARG, "type size 0 accepted");
    bad.type_size = 4;
    CHECK(compi_map_ompi41_pinned(COMPI_MAP_BCAST, 10, &a) == COMPI_MAP_EALG, "bcast algorithm 10 accepted");
    CHECK(compi_map_ompi41_pinned(COMPI_MAP_BCAST, 0, &a) == COMPI_MAP_EALG, "bcast algorithm 0 accepted");
    CHECK(compi_map_ompi41_pinned(COMPI_MAP_REDUCE_SCATTER_BLOCK, 1, &a) == 0 &&
              compi_map_ompi41_messages(
                  &(compi_map_call){.coll = COMPI_MAP_REDUCE_SCATTER_BLOCK, .size = 4, .count = 1, .type_size = 1}, &a,
                  &m) == COMPI_MAP_ENOTYET,
          "reduce_scatter_block must report not yet decomposed");
    CHECK(compi_map_ompi41_pinned(COMPI_MAP_ALLTOALLV, 1, &a) == 0 &&
              compi_map_ompi41_messages(&(compi_map_call){.coll = COMPI_MAP_ALLTOALLV, .size = 4, .type_size = 1}, &a,
                                        &m) == COMPI_MAP_EARG,
          "alltoallv without counts accepted");
    CHECK(compi_map_coll_parse("reduce_scatter") == COMPI_MAP_REDUCE_SCATTER && compi_map_coll_parse("bcastx") == -1,
          "collective names");
    CHECK(strcmp(compi_map_ompi41_alg_name(COMPI_MAP_BCAST, 6), "binomial") == 0, "algorithm names");
    /* Open MPI's own examples (notes/mpi-internals.md): 8 ranks, 1 MiB bcast -> linear */
    compi_map_call b8 = {.coll = COMPI_MAP_BCAST, .size = 8, .count = 1 << 20, .type_size = 1, .commutative = 1};
    CHECK(compi_map_ompi41_decide(&b8, &a) == 0 && a.alg == 1, "8 ranks 1 MiB bcast: fixed rules pick linear, got %d", a.alg);
    compi_map_msgs_free(&m);
    printf("test_dkb: %d decompositions, %d checks, %d failures\n", cases, checks, failures);
    return failures ? 1 : 0;
}
