/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_all: randomized semantic test of the nonblocking and neighbourhood
 * collectives.
 *
 * Part 1 runs coll_all.c's randomized cases (counts 0 to ~1 MiB per block,
 * predefined, pair and strided derived types, different send/receive types
 * of one signature, in-place, MPI_COMM_WORLD, a dup and a reversed split,
 * every predefined and two user ops) with each collective that has a
 * nonblocking twin replaced by that twin (MPI_Iallgather(v), MPI_Ialltoall(v),
 * MPI_Iallreduce, MPI_Ireduce, MPI_Ireduce_scatter(_block), MPI_Ibcast,
 * MPI_Igather, MPI_Iscatter) and completed in one of several ways, in turn:
 * MPI_Wait; MPI_Waitall, MPI_Testany, MPI_Waitsome, MPI_Testall or
 * MPI_Waitany over an array mixing it with a point-to-point receive and send
 * round a ring of MPI_COMM_WORLD (whose data is checked too); polling
 * MPI_Request_get_status, then MPI_Wait. coll_all's oracle checks every
 * byte of every receive buffer (and that the rest stays untouched).
 * Part 2: the neighbourhood collectives, blocking and nonblocking
 * (allgather(v), alltoall(v)) on cartesian (periodic, not periodic with
 * MPI_PROC_NULL neighbours, a periodic dimension of size 1 so a process is
 * its own -1 and +1 neighbour), graph (self loops) and distributed-graph
 * (random directed graph with self loops, weighted or not)
 * communicators; each receive slot is checked against the block its sender
 * sent on the matching edge, gaps between blocks untouched.
 * Part 3: several nonblocking collectives outstanding on one communicator,
 * completed in reverse or through MPI_Waitsome, reductions of several MiB
 * outstanding together, and Igatherv/Iscatterv.
 * Part 4: progress without Wait: rank 0 starts a two-round MPI_Iallreduce
 * and then polls MPI_Iprobe, or blocks in MPI_Recv, MPI_Probe,
 * MPI_Sendrecv(_replace), until rank 1, which waits for the reduction,
 * sends it a message, or enters MPI_Barrier or MPI_Bcast, which the other
 * ranks enter after their Wait.
 * Part 5: a 32-byte-element derived type with a negative lower bound
 * through the schedules, freed before the Wait. Part 6: the calls compi
 * passes to the MPI (Ibarrier, Iscan, Iexscan, (I)neighbor_alltoallw).
 * NBC_ALL_CASES=<n> sets the cases per collective of part 1 (default 10). */
#include <unistd.h>
#include "mpitest.h"

static int nb_turn;   /* which completion style the next collective uses */

/* Completes the collective request r in this turn's style; with a mixed
 * style also a point-to-point exchange round MPI_COMM_WORLD. */
static int nb_finish(MPI_Request *r)
{
    int style = nb_turn++ % 7;
    if (style == 0) return MPI_Wait(r, MPI_STATUS_IGNORE);
    if (style == 6) {
        int flag = 0;
        while (!flag) MPI_CALL(MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE));
        return MPI_Wait(r, MPI_STATUS_IGNORE);
    }
    int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    int in[64], out[64];
    for (int i = 0; i < 64; i++) out[i] = nb_turn * 1000 + mt_rank * 64 + i, in[i] = -1;
    MPI_Request q[3];
    MPI_CALL(MPI_Irecv(in, 64, MPI_INT, left, 777, MPI_COMM_WORLD, &q[0]));
    q[1] = *r;
    MPI_CALL(MPI_Isend(out, 64, MPI_INT, right, 777, MPI_COMM_WORLD, &q[2]));
    int rc = MPI_SUCCESS, done = 0;
    MPI_Status st[3];
    if (style == 1) {
        rc = MPI_Waitall(3, q, st);
        done = 3;
    } else if (style == 2) {
        while (done < 3) {
            int idx, flag;
            MPI_CALL(MPI_Testany(3, q, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED) done++;
        }
    } else if (style == 3) {
        while (done < 3) {
            int n, idx[3];
            MPI_CALL(MPI_Waitsome(3, q, &n, idx, st));
            done += n;
        }
    } else if (style == 4) {
        int flag = 0;
        while (!flag) MPI_CALL(MPI_Testall(3, q, &flag, MPI_STATUSES_IGNORE));
        done = 3;
    } else {
        while (done < 3) {
            int idx;
            MPI_CALL(MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE));
            done++;
        }
    }
    CHECK(q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[2] == MPI_REQUEST_NULL, "mixed completion",
          "style %d left a request active", style);
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += in[i] != nb_turn * 1000 + left * 64 + i;
    CHECK(!bad, "mixed p2p data", "style %d: %d of 64 ints wrong", style, bad);
    *r = MPI_REQUEST_NULL;
    return rc;
}

#define NB1(call, ...)                                    \
    do {                                                  \
        MPI_Request r_;                                   \
        int rc_ = call(__VA_ARGS__, &r_);                 \
        return rc_ != MPI_SUCCESS ? rc_ : nb_finish(&r_); \
    } while (0)

static int nb_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm c)
{ NB1(MPI_Iallgather, sb, sc, st, rb, rc, rt, c); }
static int nb_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int *rcs, const int *d, MPI_Datatype rt,
                         MPI_Comm c)
{ NB1(MPI_Iallgatherv, sb, sc, st, rb, rcs, d, rt, c); }
static int nb_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm c)
{ NB1(MPI_Ialltoall, sb, sc, st, rb, rc, rt, c); }
static int nb_Alltoallv(const void *sb, const int *scs, const int *sd, MPI_Datatype st, void *rb, const int *rcs,
                        const int *rd, MPI_Datatype rt, MPI_Comm c)
{
#ifdef OMPI_MAJOR_VERSION
    /* Open MPI 4.1's own in-place MPI_Ialltoallv delivers wrong bytes when
     * the counts differ: only compi's is checked there */
    if (sb == MPI_IN_PLACE && OMPI_MAJOR_VERSION < 5 && !mt_libcompi_mapped())
        return MPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, c);
#endif
    NB1(MPI_Ialltoallv, sb, scs, sd, st, rb, rcs, rd, rt, c);
}
static int nb_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{ NB1(MPI_Iallreduce, sb, rb, n, t, op, c); }
static int nb_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{ NB1(MPI_Ireduce, sb, rb, n, t, op, root, c); }
static int nb_Reduce_scatter(const void *sb, void *rb, const int *rcs, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{ NB1(MPI_Ireduce_scatter, sb, rb, rcs, t, op, c); }
static int nb_Reduce_scatter_block(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{ NB1(MPI_Ireduce_scatter_block, sb, rb, n, t, op, c); }
static int nb_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { NB1(MPI_Ibcast, b, n, t, root, c); }
static int nb_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm c)
{ NB1(MPI_Igather, sb, sc, st, rb, rc, rt, root, c); }
static int nb_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm c)
{ NB1(MPI_Iscatter, sb, sc, st, rb, rc, rt, root, c); }

static int nbc_finish_all(void);

#define MPI_Allgather nb_Allgather
#define MPI_Allgatherv nb_Allgatherv
#define MPI_Alltoall nb_Alltoall
#define MPI_Alltoallv nb_Alltoallv
#define MPI_Allreduce nb_Allreduce
#define MPI_Reduce nb_Reduce
#define MPI_Reduce_scatter nb_Reduce_scatter
#define MPI_Reduce_scatter_block nb_Reduce_scatter_block
#define MPI_Bcast nb_Bcast
#define MPI_Gather nb_Gather
#define MPI_Scatter nb_Scatter
#define mt_finish() nbc_finish_all()
#define mt_init(a, b, p) (mt_init)(a, b, "nbc_all")
#define main coll_all_main
#include "coll_all.c"
#undef main
#undef mt_finish
#undef mt_init
#undef MPI_Allgather
#undef MPI_Allgatherv
#undef MPI_Alltoall
#undef MPI_Alltoallv
#undef MPI_Allreduce
#undef MPI_Reduce
#undef MPI_Reduce_scatter
#undef MPI_Reduce_scatter_block
#undef MPI_Bcast
#undef MPI_Gather
#undef MPI_Scatter

/* ------------------------------------------------------------ neighbours --- */

enum { TOPO_CART, TOPO_GRAPH, TOPO_DIST };

typedef struct {
    MPI_Comm comm;
    int kind;
    char name[96];
    int n;                 /* ranks */
    int **out, *outdeg;    /* every rank's destinations, in order */
    int **in, *indeg;      /* every rank's sources, in order */
    int self_pair;         /* cartesian: a periodic dimension of size 1 or 2 */
} topo_t;

static void topo_free(topo_t *t)
{
    for (int i = 0; i < t->n; i++) { free(t->out[i]); free(t->in[i]); }
    free(t->out); free(t->in); free(t->outdeg); free(t->indeg);
    MPI_CALL(MPI_Comm_free(&t->comm));
}

static void topo_alloc(topo_t *t, int n)
{
    t->n = n;
    t->out = calloc((size_t)n, sizeof(int *));
    t->in = calloc((size_t)n, sizeof(int *));
    t->outdeg = calloc((size_t)n, sizeof(int));
    t->indeg = calloc((size_t)n, sizeof(int));
}

/* A cartesian communicator and every rank's neighbour lists (-1 then +1
 * per dimension, MPI_PROC_NULL kept). */
static void topo_cart(topo_t *t, int nd, const int *dims, const int *periods)
{
    t->kind = TOPO_CART;
    MPI_CALL(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t->comm));
    int n = mt_size;
    topo_alloc(t, n);
    for (int r = 0; r < n; r++) {
        t->outdeg[r] = t->indeg[r] = 2 * nd;
        t->out[r] = malloc(sizeof(int) * (size_t)(2 * nd + 1));
        t->in[r] = malloc(sizeof(int) * (size_t)(2 * nd + 1));
        int coords[8];
        MPI_CALL(MPI_Cart_coords(t->comm, r, nd, coords));
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < 2; s++) {
                int c2[8];
                memcpy(c2, coords, sizeof c2);
                c2[d] += s ? 1 : -1;
                int nb;
                if (c2[d] < 0 || c2[d] >= dims[d]) {
                    if (!periods[d]) nb = MPI_PROC_NULL;
                    else { c2[d] = (c2[d] + dims[d]) % dims[d]; MPI_CALL(MPI_Cart_rank(t->comm, c2, &nb)); }
                } else {
                    MPI_CALL(MPI_Cart_rank(t->comm, c2, &nb));
                }
                t->out[r][2 * d + s] = t->in[r][2 * d + s] = nb;
            }
    }
    for (int d = 0; d < nd; d++) t->self_pair |= periods[d] && dims[d] <= 2;
    snprintf(t->name, sizeof t->name, "cart %dD dims %d,%d periods %d,%d", nd, dims[0], nd > 1 ? dims[1] : 0, periods[0],
             nd > 1 ? periods[1] : 0);
}

/* A graph: each rank linked to itself and to its ring neighbours. Repeated
 * edges between two ranks are left out (here and in the distributed
 * graph): which of their blocks lands in which slot differs between the
 * MPIs (Open MPI 4.1 does not match them in edge order). */
static void topo_graph(topo_t *t)
{
    t->kind = TOPO_GRAPH;
    int n = mt_size;
    topo_alloc(t, n);
    int *index = malloc(sizeof(int) * (size_t)n), *edges = malloc(sizeof(int) * (size_t)n * 5);
    for (int r = 0, e = 0; r < n; r++) {
        int l = (r + n - 1) % n, h = (r + 1) % n;
        int list[3] = {h, r, l}, deg = h == l ? 2 : 3;
        t->outdeg[r] = t->indeg[r] = deg;
        t->out[r] = malloc(sizeof list);
        t->in[r] = malloc(sizeof list);
        memcpy(t->out[r], list, sizeof list);
        memcpy(t->in[r], list, sizeof list);
        for (int k = 0; k < deg; k++) edges[e++] = list[k];
        index[r] = e;
    }
    MPI_CALL(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t->comm));
    free(index);
    free(edges);
    snprintf(t->name, sizeof t->name, "graph ring + self loops");
}

/* A random directed graph (self loops, ranks without edges), the same on
 * every rank; sources ordered by (sender, its slot). */
static void topo_dist(topo_t *t, uint64_t seed, int weighted)
{
    t->kind = TOPO_DIST;
    int n = mt_size;
    topo_alloc(t, n);
    rng_t g = {seed};
    for (int r = 0; r < n; r++) {
        t->outdeg[r] = (int)rbelow(&g, 5);
        t->out[r] = malloc(sizeof(int) * (size_t)(t->outdeg[r] + 1));
        int deg = 0;
        for (int k = 0; k < t->outdeg[r]; k++) {
            int d = (int)rbelow(&g, (uint32_t)n), dup = 0;
            for (int i = 0; i < deg; i++) dup |= t->out[r][i] == d;
            if (!dup) t->out[r][deg++] = d;
        }
        t->outdeg[r] = deg;
    }
    for (int r = 0; r < n; r++) t->in[r] = malloc(sizeof(int) * (size_t)(5 * n + 1));
    for (int s = 0; s < n; s++)
        for (int k = 0; k < t->outdeg[s]; k++) {
            int d = t->out[s][k];
            t->in[d][t->indeg[d]++] = s;
        }
    int me = mt_rank;
    int *sw = malloc(sizeof(int) * (size_t)(t->indeg[me] + 1)), *dw = malloc(sizeof(int) * (size_t)(t->outdeg[me] + 1));
    for (int i = 0; i < t->indeg[me]; i++) sw[i] = 1 + i;
    for (int i = 0; i < t->outdeg[me]; i++) dw[i] = 1 + i;
    MPI_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->indeg[me], t->in[me], weighted ? sw : MPI_UNWEIGHTED,
                                            t->outdeg[me], t->out[me], weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL,
                                            0, &t->comm));
    free(sw);
    free(dw);
    snprintf(t->name, sizeof t->name, "dist graph seed %llu%s", (unsigned long long)seed, weighted ? " weighted" : "");
}

/* The sender slot whose block arrives in receive slot j of rank me. */
static int topo_sender_slot(const topo_t *t, int me, int j)
{
    int s = t->in[me][j];
    if (t->kind == TOPO_CART) return j % 2 ? j - 1 : j + 1;
    int occ = 0;
    for (int i = 0; i < j; i++) occ += t->in[me][i] == s;
    for (int k = 0; k < t->outdeg[s]; k++)
        if (t->out[s][k] == me && occ-- == 0) return k;
    return -1;
}

/* Elements of block (sender s, its slot k) in case cs: the v variants vary it. */
static int nbr_count(uint64_t cs, int v, int base, int s, int k)
{
    if (!v) return base;
    int c = base / 2 + (int)(hseed(cs, (uint64_t)s, (uint64_t)k) % (uint64_t)(base + 1));
    return hseed(cs, (uint64_t)k, (uint64_t)s + 99) % 7 == 0 ? 0 : c;
}

static void nbr_case(topo_t *t, int cno, int op, int nonblocking, int base, int pat)
{
    /* op: 0 alltoall, 1 allgather, 2 alltoallv, 3 allgatherv */
    static const char *names[] = {"alltoall", "allgather", "alltoallv", "allgatherv"};
    int me = mt_rank, v = op >= 2, gather = op % 2;
    uint64_t cs = hseed(0x4E1B, (uint64_t)cno, (uint64_t)op);
    int od = t->outdeg[me], id = t->indeg[me];
    snprintf(D, sizeof D, "case %d: %s%s on %s, base count %d, %s", cno, nonblocking ? "MPI_Ineighbor_" : "MPI_Neighbor_",
             names[op], t->name, base, mt_pat_name[pat]);
    /* send side: one block per destination (alltoall) or one block */
    int *scounts = malloc(sizeof(int) * (size_t)(od + 1)), *sdispls = malloc(sizeof(int) * (size_t)(od + 1));
    size_t stot = 0;
    for (int k = 0; k < od; k++) {
        scounts[k] = nbr_count(cs, v, base, me, gather ? 0 : k);
        sdispls[k] = (int)stot;
        if (!gather) stot += (size_t)scounts[k] + (v ? 3 : 0);
    }
    if (gather) stot = (size_t)nbr_count(cs, v, base, me, 0);
    int *sbuf = mt_malloc((stot + 1) * sizeof(int));
    if (gather) mt_fill(sbuf, stot, 'i', pat, hseed(cs, (uint64_t)me, 0));
    for (int k = 0; k < od && !gather; k++)
        mt_fill(sbuf + sdispls[k], (size_t)scounts[k], 'i', pat, hseed(cs, (uint64_t)me, (uint64_t)k));
    int *rcounts = malloc(sizeof(int) * (size_t)(id + 1)), *rdispls = malloc(sizeof(int) * (size_t)(id + 1));
    size_t rtot = 0;
    for (int j = 0; j < id; j++) {
        int s = t->in[me][j];
        int k = s == MPI_PROC_NULL ? 0 : topo_sender_slot(t, me, j);
        rcounts[j] = s == MPI_PROC_NULL ? base : nbr_count(cs, v, base, s, gather ? 0 : k);
        rdispls[j] = (int)rtot;
        rtot += (size_t)rcounts[j] + (v ? 2 : 0);
    }
    int *rbuf = mt_malloc((rtot + 1) * sizeof(int)), *exp = mt_malloc((rtot + 1) * sizeof(int));
    memset(rbuf, MT_SENTINEL, (rtot + 1) * sizeof(int));
    memset(exp, MT_SENTINEL, (rtot + 1) * sizeof(int));
    for (int j = 0; j < id; j++) {
        int s = t->in[me][j];
        if (s == MPI_PROC_NULL) continue;   /* its slot stays as it was */
        int k = topo_sender_slot(t, me, j);
        mt_fill(exp + rdispls[j], (size_t)rcounts[j], 'i', pat, hseed(cs, (uint64_t)s, (uint64_t)(gather ? 0 : k)));
    }
    int bc = v ? 0 : base;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    MPI_Comm c = t->comm;
    if (!nonblocking) {
        rc = op == 0 ? MPI_Neighbor_alltoall(sbuf, bc, MPI_INT, rbuf, bc, MPI_INT, c)
           : op == 1 ? MPI_Neighbor_allgather(sbuf, (int)stot, MPI_INT, rbuf, bc, MPI_INT, c)
           : op == 2 ? MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, c)
                     : MPI_Neighbor_allgatherv(sbuf, (int)stot, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, c);
    } else {
        rc = op == 0 ? MPI_Ineighbor_alltoall(sbuf, bc, MPI_INT, rbuf, bc, MPI_INT, c, &r)
           : op == 1 ? MPI_Ineighbor_allgather(sbuf, (int)stot, MPI_INT, rbuf, bc, MPI_INT, c, &r)
           : op == 2 ? MPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, c, &r)
                     : MPI_Ineighbor_allgatherv(sbuf, (int)stot, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, c, &r);
        if (rc == MPI_SUCCESS) rc = nb_finish(&r);
    }
    CHECK(rc == MPI_SUCCESS, "neighbor call", "%s: %s", D, mt_errstr(rc));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < rtot; i++)
        if (rbuf[i] != exp[i] && !bad++) first = i;
    CHECK(!bad, "neighbor data", "%s: %zu of %zu ints differ, first at %zu", D, bad, rtot, first);
    free(scounts); free(sdispls); free(rcounts); free(rdispls);
    free(sbuf); free(rbuf); free(exp);
}

static void nbr_all(void)
{
    topo_t topos[7];
    memset(topos, 0, sizeof topos);
    int nt = 0;
    int dims2[2] = {0, 0}, per[2];
    MPI_CALL(MPI_Dims_create(mt_size, 2, dims2));
    int d1[1] = {mt_size}, p1[1] = {1};
    topo_cart(&topos[nt++], 1, d1, p1);
    per[0] = 1; per[1] = 0;
    topo_cart(&topos[nt++], 2, dims2, per);
    int d3[2] = {mt_size, 1}, p3[2] = {0, 1};   /* not periodic, and a periodic dimension of size 1 */
    topo_cart(&topos[nt++], 2, d3, p3);
    topo_graph(&topos[nt++]);
    topo_dist(&topos[nt++], 11, 0);
    topo_dist(&topos[nt++], 12, 1);
    static const int bases[] = {0, 1, 257, 4096, 70000, 300000};
    static const int pats[] = {PAT_RAMP, PAT_RANDOM, PAT_SMOOTH, PAT_ZERO};
    int cno = 0;
    for (int ti = 0; ti < nt; ti++) {
        /* The MPIs' own neighbourhood collectives along a periodic dimension
         * of size 1 or 2 (one rank is both the -1 and the +1 neighbour)
         * put blocks in the wrong slots (the block sent to the -1 neighbour
         * lands in its -1 slot) or fail with a truncation: Open MPI 4.1 in
         * every call, MPICH 4.0 in the v variants. Only compi's are checked
         * there (the slots the standard gives) */
        int plain = !mt_libcompi_mapped(), skip_all = 0, skip_v = 0;
#ifdef OMPI_MAJOR_VERSION
        skip_all = topos[ti].self_pair && plain && OMPI_MAJOR_VERSION < 5;
#else
        skip_v = topos[ti].self_pair && plain;
#endif
        if (skip_all) {
            if (mt_rank == 0) printf("INFO [%s] %s skipped under the plain MPI\n", mt_prog, topos[ti].name);
            cno += 8;
            continue;
        }
        mt_group_begin("neighbor %s", topos[ti].name);
        for (int op = 0; op < 4; op++)
            for (int nbk = 0; nbk < 2; nbk++) {
                int b = bases[(cno * 5 + op + ti) % 6], p = pats[(cno + ti) % 4];
                if (skip_v && op >= 2) {
                    if (mt_rank == 0 && nbk == 0)
                        printf("INFO [%s] %s: %s skipped under the plain MPI\n", mt_prog, topos[ti].name,
                               op == 2 ? "alltoallv" : "allgatherv");
                    cno++;
                    continue;
                }
                nbr_case(&topos[ti], cno++, op, nbk, b, p);
            }
        mt_group_end();
    }
    for (int ti = 0; ti < nt; ti++) topo_free(&topos[ti]);
}

/* ------------------------------------------------- several outstanding --- */

static void outstanding(void)
{
    mt_group_begin("several outstanding on one communicator");
    MPI_Comm c;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int n = mt_size, me = mt_rank;
    for (int round = 0; round < 4; round++) {
        int cnt = round % 2 ? 200000 : 3000;
        uint64_t cs = hseed(0x0D7, (uint64_t)round, 0);
        int *a_s = mt_malloc(sizeof(int) * (size_t)cnt * n), *a_r = mt_malloc(sizeof(int) * (size_t)cnt * n);
        int *a2_s = mt_malloc(sizeof(int) * (size_t)cnt * n), *a2_r = mt_malloc(sizeof(int) * (size_t)cnt * n);
        int *g_r = mt_malloc(sizeof(int) * (size_t)cnt * n), *g_s = mt_malloc(sizeof(int) * (size_t)cnt);
        int *red_s = mt_malloc(sizeof(int) * (size_t)cnt), *red_r = mt_malloc(sizeof(int) * (size_t)cnt);
        int *b = mt_malloc(sizeof(int) * (size_t)cnt);
        for (int j = 0; j < n; j++) {
            mt_fill(a_s + (size_t)j * cnt, (size_t)cnt, 'i', PAT_RAMP, hseed(cs, (uint64_t)me, (uint64_t)j));
            mt_fill(a2_s + (size_t)j * cnt, (size_t)cnt, 'i', PAT_RANDOM, hseed(cs, (uint64_t)me, (uint64_t)j + 50));
        }
        mt_fill(g_s, (size_t)cnt, 'i', PAT_SMOOTH, hseed(cs, (uint64_t)me, 7));
        for (int i = 0; i < cnt; i++) red_s[i] = (me + 1) * (i % 1000);
        int root = round % n;
        if (me == root) mt_fill(b, (size_t)cnt, 'i', PAT_RAMP, hseed(cs, 99, 99));
        MPI_Request q[5];
        /* the same kind twice (q[0], q[4]): only the order tells them apart */
        MPI_CALL(MPI_Ialltoall(a_s, cnt, MPI_INT, a_r, cnt, MPI_INT, c, &q[0]));
        MPI_CALL(MPI_Iallgather(g_s, cnt, MPI_INT, g_r, cnt, MPI_INT, c, &q[1]));
        MPI_CALL(MPI_Iallreduce(red_s, red_r, cnt, MPI_INT, MPI_SUM, c, &q[2]));
        MPI_CALL(MPI_Ibcast(b, cnt, MPI_INT, root, c, &q[3]));
        MPI_CALL(MPI_Ialltoall(a2_s, cnt, MPI_INT, a2_r, cnt, MPI_INT, c, &q[4]));
        if (round % 2 == 0) {
            for (int i = 4; i >= 0; i--) MPI_CALL(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
        } else {
            for (int done = 0; done < 5;) {
                int k, idx[5];
                MPI_CALL(MPI_Waitsome(5, q, &k, idx, MPI_STATUSES_IGNORE));
                done += k;
            }
        }
        int *e = mt_malloc(sizeof(int) * (size_t)cnt);
        long bad = 0;
        for (int j = 0; j < n; j++) {
            mt_fill(e, (size_t)cnt, 'i', PAT_RAMP, hseed(cs, (uint64_t)j, (uint64_t)me));
            bad += memcmp(e, a_r + (size_t)j * cnt, sizeof(int) * (size_t)cnt) != 0;
            mt_fill(e, (size_t)cnt, 'i', PAT_RANDOM, hseed(cs, (uint64_t)j, (uint64_t)me + 50));
            bad += memcmp(e, a2_r + (size_t)j * cnt, sizeof(int) * (size_t)cnt) != 0;
            mt_fill(e, (size_t)cnt, 'i', PAT_SMOOTH, hseed(cs, (uint64_t)j, 7));
            bad += memcmp(e, g_r + (size_t)j * cnt, sizeof(int) * (size_t)cnt) != 0;
        }
        CHECK(!bad, "outstanding alltoall/allgather", "round %d: %ld blocks wrong", round, bad);
        bad = 0;
        for (int i = 0; i < cnt; i++) bad += red_r[i] != n * (n + 1) / 2 * (i % 1000);
        CHECK(!bad, "outstanding allreduce", "round %d: %ld elements wrong", round, bad);
        mt_fill(e, (size_t)cnt, 'i', PAT_RAMP, hseed(cs, 99, 99));
        CHECK(!memcmp(e, b, sizeof(int) * (size_t)cnt), "outstanding bcast", "round %d: data differ", round);
        free(e); free(a_s); free(a_r); free(a2_s); free(a2_r); free(g_r); free(g_s); free(red_s); free(red_r); free(b);
    }
    MPI_CALL(MPI_Comm_free(&c));
    mt_group_end();
}

/* Igatherv / Iscatterv with counts that differ per rank, gaps untouched. */
static void rooted_v(void)
{
    mt_group_begin("Igatherv/Iscatterv");
    int n = mt_size, me = mt_rank;
    for (int cse = 0; cse < 6; cse++) {
        int root = cse % n;
        uint64_t cs = hseed(0x6A7, (uint64_t)cse, 0);
        int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n), tot = 0;
        for (int i = 0; i < n; i++) {
            counts[i] = (int)(hseed(cs, (uint64_t)i, 1) % 3) == 0 ? 0 : (int)(hseed(cs, (uint64_t)i, 2) % 300000);
            displs[i] = tot;
            tot += counts[i] + 5;
        }
        int *big = mt_malloc(sizeof(int) * (size_t)(tot + 1)), *exp = mt_malloc(sizeof(int) * (size_t)(tot + 1));
        int *mine = mt_malloc(sizeof(int) * (size_t)(counts[me] + 1));
        /* gather */
        mt_fill(mine, (size_t)counts[me], 'i', cse % 2 ? PAT_RANDOM : PAT_RAMP, hseed(cs, (uint64_t)me, 3));
        memset(big, MT_SENTINEL, sizeof(int) * (size_t)(tot + 1));
        memset(exp, MT_SENTINEL, sizeof(int) * (size_t)(tot + 1));
        for (int i = 0; i < n; i++)
            mt_fill(exp + displs[i], (size_t)counts[i], 'i', cse % 2 ? PAT_RANDOM : PAT_RAMP, hseed(cs, (uint64_t)i, 3));
        MPI_Request r;
        MPI_CALL(MPI_Igatherv(mine, counts[me], MPI_INT, big, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &r));
        MPI_CALL(nb_finish(&r));
        if (me == root)
            CHECK(!memcmp(big, exp, sizeof(int) * (size_t)tot), "igatherv", "case %d root %d: data differ", cse, root);
        /* scatter: the root sends exp's blocks */
        memset(mine, MT_SENTINEL, sizeof(int) * (size_t)(counts[me] + 1));
        MPI_CALL(MPI_Iscatterv(exp, counts, displs, MPI_INT, mine, counts[me], MPI_INT, root, MPI_COMM_WORLD, &r));
        MPI_CALL(nb_finish(&r));
        CHECK(!memcmp(mine, exp + displs[me], sizeof(int) * (size_t)counts[me]), "iscatterv", "case %d: data differ",
              cse);
        free(counts); free(displs); free(big); free(exp); free(mine);
    }
    mt_group_end();
}

/* A two-round nonblocking collective advances from a rank's other MPI
 * calls: rank 0 does not wait for it before rank 1's message has come, and
 * rank 1 sends that only after its MPI_Wait on the reduction returned.
 * Rank 0 polls MPI_Iprobe (phase 0), or blocks in MPI_Recv (1), MPI_Probe
 * (2), MPI_Sendrecv (3) or MPI_Sendrecv_replace (4) from MPI_ANY_SOURCE
 * (so a blocking receive inside); in phases 5 and 6 it
 * enters a blocking MPI_Barrier or MPI_Bcast on the same communicator that
 * the other ranks enter only after their Wait. A hang fails the test
 * (SIGALRM) instead of running into the ctest timeout. */
static void progress_without_wait(void)
{
    static const char *how[] = {"MPI_Iprobe",          "a blocking MPI_Recv",   "a blocking MPI_Probe",
                                "MPI_Sendrecv",        "MPI_Sendrecv_replace",  "a blocking MPI_Barrier",
                                "a blocking MPI_Bcast"};
    for (int phase = 0; phase < 7; phase++) {
        mt_group_begin("progress while in %s", how[phase]);
        alarm(60);
        int cnt = 100000;
        int *s = mt_malloc(sizeof(int) * (size_t)cnt), *r = mt_malloc(sizeof(int) * (size_t)cnt);
        for (int i = 0; i < cnt; i++) s[i] = mt_rank + i % 17 + phase;
        MPI_Request q;
        /* the others start late, so rank 0 is blocked before its first round
         * can complete (the outcome does not depend on it, only whether a
         * missing advance shows) */
        if (phase >= 3 && mt_rank != 0) usleep(50000);
        MPI_CALL(MPI_Iallreduce(s, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q));
        int token = 0, mine = 1, peer = mt_rank == 0 ? 1 : 0;
        MPI_Status st;
        if (phase >= 5) {
            if (mt_rank != 0) MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
            token = 1;
            if (phase == 5) MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
            else MPI_CALL(MPI_Bcast(&token, 1, MPI_INT, 1, MPI_COMM_WORLD));
            if (mt_rank == 0) MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else if (mt_rank == 0) {
            int flag = 0;
            if (phase == 0)
                while (!flag) MPI_CALL(MPI_Iprobe(1, 4242, MPI_COMM_WORLD, &flag, &st));
            if (phase == 2) MPI_CALL(MPI_Probe(1, 4242, MPI_COMM_WORLD, &st));
            if (phase <= 2) MPI_CALL(MPI_Recv(&token, 1, MPI_INT, 1, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            /* from any source: a wildcard receive is a blocking one inside */
            if (phase == 3)
                MPI_CALL(MPI_Sendrecv(&mine, 1, MPI_INT, 1, 4242, &token, 1, MPI_INT, MPI_ANY_SOURCE, 4242,
                                      MPI_COMM_WORLD, &st));
            if (phase == 4) {
                MPI_CALL(MPI_Sendrecv_replace(&mine, 1, MPI_INT, 1, 4242, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &st));
                token = mine;
            }
            MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        } else {
            MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
            token = 1;
            if (mt_rank == 1 && phase <= 2) MPI_CALL(MPI_Send(&token, 1, MPI_INT, 0, 4242, MPI_COMM_WORLD));
            if (mt_rank == 1 && phase >= 3)
                MPI_CALL(MPI_Sendrecv(&token, 1, MPI_INT, peer, 4242, &mine, 1, MPI_INT, peer, 4242, MPI_COMM_WORLD,
                                      &st));
        }
        alarm(0);
        CHECK_INT("token", 1, token);
        long bad = 0, n = mt_size;
        for (int i = 0; i < cnt; i++) bad += r[i] != n * (n - 1) / 2 + n * (i % 17 + phase);
        CHECK(!bad, "iallreduce data", "%ld elements wrong", bad);
        free(s);
        free(r);
        mt_group_end();
    }
}

/* ------------------------------------------------ wide-element types --- */

/* A derived type of 32-byte basic elements (long double complex) with a
 * negative lower bound: elements at -2, 0 and 2 of a 6-element extent.
 * A compressed block ends inside such an element whatever its count. */
typedef struct {
    long double re, im;
} wt_el;
#define WT_EXT 6

static MPI_Datatype wt_type(void)
{
    int disp[3] = {-2, 0, 2};
    MPI_Datatype ib, t;
    MPI_CALL(MPI_Type_create_indexed_block(3, 1, disp, MPI_C_LONG_DOUBLE_COMPLEX, &ib));
    MPI_CALL(MPI_Type_create_resized(ib, -2 * (MPI_Aint)sizeof(wt_el), WT_EXT * (MPI_Aint)sizeof(wt_el), &t));
    MPI_CALL(MPI_Type_free(&ib));
    MPI_CALL(MPI_Type_commit(&t));
    return t;
}

/* nb blocks of cnt elements of the type; the base is 2 slots in. */
static wt_el *wt_buf(int nb, int cnt)
{
    size_t n = (size_t)nb * (size_t)cnt * WT_EXT + 1;
    wt_el *b = mt_malloc(n * sizeof *b);
    memset(b, 0, n * sizeof *b);
    for (size_t i = 0; i < n; i++) b[i].re = -7777, b[i].im = 7777;
    return b + 2;
}

/* Block blk of buffer base: what rank s sends rank d (d -1: every rank). */
static void wt_fill(wt_el *base, int blk, int cnt, int s, int d)
{
    for (int i = 0; i < cnt; i++)
        for (int k = 0; k < 3; k++) {
            wt_el *e = base + (size_t)(blk * cnt + i) * WT_EXT + 2 * k - 2;
            e->re = s * 1000 + (d + 1) * 100 + i * 3 + k;
            e->im = -(i % 5);
        }
}

/* op: 0 Ibcast, 1 Igather, 2 Iscatter, 3 Iallgather, 4 Ialltoall,
 * 5 Ialltoallv, 6 Ineighbor_alltoall, 7 Neighbor_allgather; the two
 * neighbourhood ones on ring (from the left, to the right). The type is
 * freed right after a nonblocking call, as the standard allows. */
static void wt_case(int op, int cnt, int root, MPI_Comm ring)
{
    static const char *names[] = {"MPI_Ibcast",    "MPI_Igather",    "MPI_Iscatter",           "MPI_Iallgather",
                                  "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ineighbor_alltoall", "MPI_Neighbor_allgather"};
    int n = mt_size, me = mt_rank, left = (me + n - 1) % n;
    int nbr = op == 0 || op == 2 || op >= 6 ? 1 : n, nbs = op == 2 || op == 4 || op == 5 ? n : 1;
    wt_el *sb = wt_buf(nbs, cnt), *rb = wt_buf(nbr, cnt), *ex = wt_buf(nbr, cnt);
    for (int b = 0; b < nbs; b++) wt_fill(sb, b, cnt, me, nbs > 1 ? b : op == 1 ? root : -1);
    if (op == 0 && me == root) wt_fill(rb, 0, cnt, me, -1);
    if (op == 0 || op == 2) wt_fill(ex, 0, cnt, root, op == 0 ? -1 : me);
    for (int b = 0; b < n && (op == 3 || op == 4 || op == 5 || (op == 1 && me == root)); b++)
        wt_fill(ex, b, cnt, b, op == 3 ? -1 : op == 1 ? root : me);
    if (op >= 6) wt_fill(ex, 0, cnt, left, -1);
    int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) counts[i] = cnt, displs[i] = i * cnt;
    MPI_Datatype t = wt_type();
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = op == 0 ? MPI_Ibcast(rb, cnt, t, root, MPI_COMM_WORLD, &r)
           : op == 1 ? MPI_Igather(sb, cnt, t, rb, cnt, t, root, MPI_COMM_WORLD, &r)
           : op == 2 ? MPI_Iscatter(sb, cnt, t, rb, cnt, t, root, MPI_COMM_WORLD, &r)
           : op == 3 ? MPI_Iallgather(sb, cnt, t, rb, cnt, t, MPI_COMM_WORLD, &r)
           : op == 4 ? MPI_Ialltoall(sb, cnt, t, rb, cnt, t, MPI_COMM_WORLD, &r)
           : op == 5 ? MPI_Ialltoallv(sb, counts, displs, t, rb, counts, displs, t, MPI_COMM_WORLD, &r)
           : op == 6 ? MPI_Ineighbor_alltoall(sb, cnt, t, rb, cnt, t, ring, &r)
                     : MPI_Neighbor_allgather(sb, cnt, t, rb, cnt, t, ring);
    MPI_CALL(MPI_Type_free(&t));
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, names[op], "%d elements, root %d: %s", cnt, root, mt_errstr(rc));
    size_t tot = (size_t)nbr * (size_t)cnt * WT_EXT + 1, bad = 0, first = 0;
    for (size_t i = 0; i < tot; i++) {
        const wt_el *g = rb - 2 + i, *e = ex - 2 + i;
        if ((g->re != e->re || g->im != e->im) && !bad++) first = i;
    }
    CHECK(!bad, names[op], "%d elements of a 32-byte-element type, root %d: %zu of %zu slots wrong, first %zu", cnt,
          root, bad, tot, first);
    free(counts);
    free(displs);
    free(sb - 2);
    free(rb - 2);
    free(ex - 2);
}

static void wide_types(void)
{
    mt_group_begin("32-byte elements, negative lower bound, type freed before the wait");
    int me = mt_rank, n = mt_size, left = (me + n - 1) % n, right = (me + 1) % n, w = 1;
    MPI_Comm ring;
    MPI_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w, 1, &right, &w, MPI_INFO_NULL, 0, &ring));
    static const int cnts[] = {1, 5, 40};
    for (int op = 0; op < 8; op++)
        for (int c = 0; c < 3; c++) wt_case(op, cnts[c], (op + c) % n, ring);
    MPI_CALL(MPI_Comm_free(&ring));
    mt_group_end();
}

/* The calls compi passes to the MPI (counted): Ibarrier, Iscan, Iexscan,
 * and the w neighbourhood variants with byte displacements on a ring. */
static void passed_through(void)
{
    mt_group_begin("MPI_Ibarrier, MPI_Iscan, MPI_Iexscan, MPI_(I)neighbor_alltoallw");
    int me = mt_rank, n = mt_size, left = (me + n - 1) % n, right = (me + 1) % n, w = 1, m = 3000;
    int *a = mt_malloc(sizeof(int) * (size_t)m), *sc = mt_malloc(sizeof(int) * (size_t)m);
    int *ex = mt_malloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < m; i++) a[i] = (me + 1) * (i % 100);
    MPI_Request q[3];
    MPI_CALL(MPI_Ibarrier(MPI_COMM_WORLD, &q[0]));
    MPI_CALL(MPI_Iscan(a, sc, m, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    MPI_CALL(MPI_Iexscan(a, ex, m, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[2]));
    MPI_CALL(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    long bad = 0;
    for (int i = 0; i < m; i++) {
        bad += sc[i] != (me + 1) * (me + 2) / 2 * (i % 100);
        bad += me > 0 && ex[i] != me * (me + 1) / 2 * (i % 100);
    }
    CHECK(!bad, "MPI_Iscan/MPI_Iexscan", "%ld elements wrong", bad);
    MPI_Comm ring;
    MPI_CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w, 1, &right, &w, MPI_INFO_NULL, 0, &ring));
    MPI_Aint disp = 8; /* bytes: the block starts at the third int */
    MPI_Datatype t = MPI_INT;
    int cnt = m - 2;
    for (int nb = 0; nb < 2; nb++) {
        memset(sc, MT_SENTINEL, sizeof(int) * (size_t)m);
        if (nb) {
            MPI_CALL(MPI_Ineighbor_alltoallw(a, &cnt, &disp, &t, sc, &cnt, &disp, &t, ring, &q[0]));
            MPI_CALL(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
        } else {
            MPI_CALL(MPI_Neighbor_alltoallw(a, &cnt, &disp, &t, sc, &cnt, &disp, &t, ring));
        }
        bad = 0;
        for (int i = 2; i < m; i++) bad += sc[i] != (left + 1) * (i % 100);
        CHECK(!bad, nb ? "MPI_Ineighbor_alltoallw" : "MPI_Neighbor_alltoallw", "%ld elements wrong", bad);
        CHECK_SENTINEL("neighbor_alltoallw: the bytes before the displacement", sc, 0, 8);
    }
    MPI_CALL(MPI_Comm_free(&ring));
    free(a);
    free(sc);
    free(ex);
    mt_group_end();
}

/* Reductions of several MiB (compi cuts them into segments, each reduced on
 * its own): MPI_Iallreduce, in place and not, and MPI_Ireduce with the root
 * in place, all outstanding at once on one communicator and completed in
 * reverse; integer sums, so every element is known exactly. */
static void large_reductions(void)
{
    mt_group_begin("large reductions");
    int n = mt_size, me = mt_rank, cnt = 3 * (1 << 19) + 7; /* 6 MiB of ints and a tail */
    int *s1 = mt_malloc(sizeof(int) * (size_t)cnt), *r1 = mt_malloc(sizeof(int) * (size_t)cnt);
    int *ip = mt_malloc(sizeof(int) * (size_t)cnt), *s3 = mt_malloc(sizeof(int) * (size_t)cnt);
    int *r3 = mt_malloc(sizeof(int) * (size_t)cnt);
    for (int i = 0; i < cnt; i++) {
        s1[i] = (me + 1) * (i % 1009);
        ip[i] = (me + 2) * (i % 997) - me;
        s3[i] = (me + 1) * (i % 31) + i / 4096;
    }
    int root = 1 % n, root_in_place = me == root;
    if (root_in_place) memcpy(r3, s3, sizeof(int) * (size_t)cnt);
    MPI_Request q[3];
    MPI_CALL(MPI_Iallreduce(s1, r1, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]));
    MPI_CALL(MPI_Iallreduce(MPI_IN_PLACE, ip, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    MPI_CALL(MPI_Ireduce(root_in_place ? MPI_IN_PLACE : s3, r3, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &q[2]));
    for (int i = 2; i >= 0; i--) MPI_CALL(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
    long bad1 = 0, bad2 = 0, bad3 = 0, t = (long)n * (n + 1) / 2, t2 = (long)n * (n + 3) / 2, tm = (long)n * (n - 1) / 2;
    for (int i = 0; i < cnt; i++) {
        bad1 += r1[i] != t * (i % 1009);
        bad2 += ip[i] != t2 * (i % 997) - tm;
        bad3 += me == root && r3[i] != t * (i % 31) + (long)n * (i / 4096);
    }
    CHECK(!bad1, "large iallreduce", "%ld of %d elements wrong", bad1, cnt);
    CHECK(!bad2, "large iallreduce in place", "%ld of %d elements wrong", bad2, cnt);
    CHECK(!bad3, "large ireduce, root in place", "%ld of %d elements wrong", bad3, cnt);
    free(s1); free(r1); free(ip); free(s3); free(r3);
    mt_group_end();
}

static int nbc_finish_all(void)
{
    nbr_all();
    outstanding();
    large_reductions();
    rooted_v();
    progress_without_wait();
    wide_types();
    passed_through();
    return mt_finish();
}

int main(int argc, char **argv)
{
    const char *e = getenv("NBC_ALL_CASES");
    setenv("COLL_ALL_CASES", e && *e ? e : "10", 1);
    return coll_all_main(argc, argv);
}
