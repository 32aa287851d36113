/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_halo_types: halo faces sent the way stencil codes send them, as one or a
 * few elements of a derived datatype: a strided vector, a subarray face, an
 * indexed type and structs of absolute addresses sent from MPI_BOTTOM (with
 * gaps, and without: one block, received in place when large), at
 * counts 1, 2 and 16, with compressible values. Each is received as the same
 * type and as different types with the same signature (contiguous doubles,
 * one big contiguous type, another strided vector), by Send/Recv,
 * Isend/Irecv, persistent requests restarted with new content, and
 * Probe + Recv, both directions at once; and broadcast from rank 0 with the
 * others receiving in each receive layout. Receive buffers are compared byte
 * for byte with a local MPI_Pack/MPI_Unpack reference (gaps must stay
 * untouched), statuses with the counts plain MPI reports.
 *
 * check_report.py --all-compressed runs it under compi and checks in the
 * report that every halo went compressed and that the codec's bytes_out
 * count whole frames (header included). */
#include "mpitest.h"

enum { K_VECTOR, K_SUBARRAY, K_INDEXED, K_BOTTOM, K_BOTTOM_CONTIG, K_COUNT };
static const char *kind_name[K_COUNT] = {"vector", "subarray", "indexed", "MPI_BOTTOM struct",
                                         "MPI_BOTTOM struct without gaps"};
enum { R_SAME, R_DOUBLES, R_CONTIG, R_VECTOR, R_COUNT };
static const char *recv_name[R_COUNT] = {"same type", "N x MPI_DOUBLE", "1 x contiguous(N doubles)",
                                         "1 x vector(N,1,2)"};

/* The structs' pieces (doubles, byte offsets from the first): with gaps,
 * and adjacent (the data is one block: received in place when large). */
static const int bottom_len[3] = {1000, 1500, 548};
static const MPI_Aint bottom_off[2][3] = {{0, 16000, 40000}, {0, 8000, 20000}};

static int is_bottom(int k)
{
    return k == K_BOTTOM || k == K_BOTTOM_CONTIG;
}

/* Type of one halo element of kind k. For the structs, base != NULL gives
 * the absolute-address version over memory at base (sent from MPI_BOTTOM),
 * else the same layout relative to a buffer. */
static MPI_Datatype halo_type(int k, const void *base)
{
    MPI_Datatype t;
    switch (k) {
    case K_VECTOR:
        MPI_CALL(MPI_Type_vector(4096, 1, 3, MPI_DOUBLE, &t));
        break;
    case K_SUBARRAY: {
        /* the x = 1 face of a 16 x 32 x 34 block */
        int sizes[3] = {16, 32, 34}, subs[3] = {16, 32, 1}, starts[3] = {0, 0, 1};
        MPI_CALL(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t));
        break;
    }
    case K_INDEXED: {
        int lens[5] = {300, 1, 700, 1000, 48}, displs[5] = {3, 400, 402, 1200, 2300};
        MPI_CALL(MPI_Type_indexed(5, lens, displs, MPI_DOUBLE, &t));
        break;
    }
    default: {
        int lens[3];
        MPI_Aint disp[3];
        MPI_Datatype types[3] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE};
        MPI_Aint a0 = 0;
        if (base) MPI_CALL(MPI_Get_address(base, &a0));
        for (int i = 0; i < 3; i++) {
            lens[i] = bottom_len[i];
            disp[i] = a0 + bottom_off[k == K_BOTTOM_CONTIG][i];
        }
        MPI_CALL(MPI_Type_create_struct(3, lens, disp, types, &t));
    }
    }
    MPI_CALL(MPI_Type_commit(&t));
    return t;
}

/* Bytes of memory that count elements of t (relative) cover from the buffer. */
static size_t span_of(MPI_Datatype t, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return (size_t)(tlb + (MPI_Aint)(count - 1) * ext + text);
}

/* Compressible halo values: runs of equal doubles over a slow ramp. */
static void fill_halo(double *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) p[i] = 1000.0 + 0.25 * (double)((i / 48) % 97) + (double)seed;
}

/* One receive layout: type, count, the bytes it covers, and the counts its
 * status must report. */
typedef struct {
    MPI_Datatype t;
    int count, exp_count;
    size_t bytes;
} layout;

static layout recv_layout(int r, int k, int count, int n, MPI_Datatype same)
{
    layout l = {MPI_DATATYPE_NULL, 1, 1, 0};
    int N = count * n;
    switch (r) {
    case R_SAME: l.t = same; l.count = l.exp_count = count; break;
    case R_DOUBLES: l.t = MPI_DOUBLE; l.count = l.exp_count = N; break;
    case R_CONTIG: MPI_CALL(MPI_Type_contiguous(N, MPI_DOUBLE, &l.t)); MPI_CALL(MPI_Type_commit(&l.t)); break;
    default: MPI_CALL(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &l.t)); MPI_CALL(MPI_Type_commit(&l.t)); break;
    }
    (void)k;
    l.bytes = span_of(l.t, l.count);
    return l;
}

static void layout_free(layout *l, MPI_Datatype same)
{
    if (l->t != same && l->t != MPI_DOUBLE) MPI_Type_free(&l->t);
}

/* One side of a transfer: the sender's memory and what a receiver in layout
 * l must hold afterwards. */
typedef struct {
    int k, count, n;
    MPI_Datatype rel;      /* the halo type relative to a buffer */
    size_t smem;           /* bytes of the sender's memory */
    double *sbuf;
    MPI_Datatype stype;    /* what is sent: rel, or the absolute struct from MPI_BOTTOM */
    const void *saddr;
} halo;

static void halo_init(halo *h, int k, int count)
{
    h->k = k;
    h->count = count;
    h->rel = halo_type(k, NULL);
    int sz;
    MPI_Type_size(h->rel, &sz);
    h->n = sz / 8;
    h->smem = span_of(h->rel, count);
    h->sbuf = mt_malloc(h->smem + 8);
    if (is_bottom(k)) {
        h->stype = halo_type(k, h->sbuf);
        h->saddr = MPI_BOTTOM;
    } else {
        h->stype = h->rel;
        h->saddr = h->sbuf;
    }
}

static void halo_fill(halo *h, int seed)
{
    fill_halo(h->sbuf, h->smem / 8, seed);
}

static void halo_free(halo *h)
{
    if (h->stype != h->rel) MPI_Type_free(&h->stype);
    MPI_Type_free(&h->rel);
    free(h->sbuf);
}

/* What (rtype, rcount) over sentinel memory holds after receiving h's data
 * as filled with seed. */
static unsigned char *expected(const halo *h, int seed, const layout *l, MPI_Datatype rrel)
{
    double *src = mt_malloc(h->smem + 8);
    fill_halo(src, h->smem / 8, seed);
    int psz = 0, pos = 0, upos = 0;
    MPI_Pack_size(h->count, h->rel, MPI_COMM_WORLD, &psz);
    void *packed = mt_malloc((size_t)psz);
    MPI_CALL(MPI_Pack(src, h->count, h->rel, packed, psz, &pos, MPI_COMM_WORLD));
    unsigned char *exp = mt_malloc(l->bytes);
    memset(exp, MT_SENTINEL, l->bytes);
    MPI_CALL(MPI_Unpack(packed, pos, &upos, exp, l->count, rrel, MPI_COMM_WORLD));
    free(packed);
    free(src);
    return exp;
}

/* A receive buffer in layout l: the relative type for the reference, and
 * what is posted (for the MPI_BOTTOM struct received as itself: absolute). */
typedef struct {
    unsigned char *mem;
    MPI_Datatype rel, post;
    void *addr;
} rbuf_t;

static rbuf_t rbuf_make(const halo *h, int r, const layout *l)
{
    rbuf_t b;
    b.mem = mt_malloc(l->bytes);
    memset(b.mem, MT_SENTINEL, l->bytes);
    b.rel = b.post = l->t;
    b.addr = b.mem;
    if (r == R_SAME && is_bottom(h->k)) {
        b.post = halo_type(h->k, b.mem);
        b.addr = MPI_BOTTOM;
    }
    return b;
}

static void rbuf_free(rbuf_t *b)
{
    if (b->post != b->rel) MPI_Type_free(&b->post);
    free(b->mem);
}

static void check_recv(const char *what, const halo *h, int seed, const layout *l, const rbuf_t *b,
                       const MPI_Status *st, int from, int tag)
{
    int N = h->count * h->n, c = -5, e = -5, d = -5;
    CHECK_INT("status.MPI_SOURCE", from, st->MPI_SOURCE);
    CHECK_INT("status.MPI_TAG", tag, st->MPI_TAG);
    MPI_Get_count(st, b->rel, &c);
    MPI_Get_elements(st, b->rel, &e);
    MPI_Get_count(st, MPI_DOUBLE, &d);
    CHECK(c == l->exp_count, what, "MPI_Get_count: expected %d, got %d", l->exp_count, c);
    CHECK(e == N, what, "MPI_Get_elements: expected %d, got %d", N, e);
    CHECK(d == N, what, "MPI_Get_count(MPI_DOUBLE): expected %d, got %d", N, d);
    unsigned char *exp = expected(h, seed, l, b->rel);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < l->bytes; i++)
        if (b->mem[i] != exp[i]) { if (!bad) first = i; bad++; }
    if (!bad) mt_gpass++;
    else
        mt_failf(__LINE__, what, "%zu of %zu receive-buffer bytes differ from the pack/unpack reference; first at "
                 "byte %zu: expected 0x%02x%s, got 0x%02x", bad, l->bytes, first, exp[first],
                 exp[first] == MT_SENTINEL ? " (untouched gap)" : "", b->mem[first]);
    free(exp);
}

enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT, M_PROBE, M_COUNT };
static const char *method_name[M_COUNT] = {"Send/Recv", "Isend/Irecv", "Send_init/Recv_init", "Probe+Recv"};

/* Ranks 0 and 1 exchange h's halo (both directions at once where the method
 * allows), the receiver in layout r. */
static void exchange(int k, int count, int r, int m, int tag)
{
    if (mt_rank > 1) return;
    int peer = 1 - mt_rank;
    halo h;
    halo_init(&h, k, count);
    layout l = recv_layout(r, k, count, h.n, h.rel);
    rbuf_t b = rbuf_make(&h, r, &l);
    char what[200];
    snprintf(what, sizeof what, "%s x %d (%d doubles) received as %s, %s", kind_name[k], count, count * h.n,
             recv_name[r], method_name[m]);
    int seed = 10 * k + mt_rank;   /* each direction its own content */
    MPI_Status st;
    mt_status_prefill(&st);
    halo_fill(&h, seed);
    switch (m) {
    case M_BLOCKING:
        for (int turn = 0; turn < 2; turn++) {
            if (mt_rank == turn) MPI_CALL(MPI_Send(h.saddr, count, h.stype, peer, tag, MPI_COMM_WORLD));
            else MPI_CALL(MPI_Recv(b.addr, l.count, b.post, peer, tag, MPI_COMM_WORLD, &st));
        }
        check_recv(what, &h, 10 * k + peer, &l, &b, &st, peer, tag);
        break;
    case M_NONBLOCKING: {
        MPI_Request q[2];
        MPI_Status sts[2];
        MPI_CALL(MPI_Irecv(b.addr, l.count, b.post, peer, tag, MPI_COMM_WORLD, &q[0]));
        MPI_CALL(MPI_Isend(h.saddr, count, h.stype, peer, tag, MPI_COMM_WORLD, &q[1]));
        MPI_CALL(MPI_Waitall(2, q, sts));
        check_recv(what, &h, 10 * k + peer, &l, &b, &sts[0], peer, tag);
        break;
    }
    case M_PERSISTENT: {
        MPI_Request q[2];
        MPI_Status sts[2];
        MPI_CALL(MPI_Recv_init(b.addr, l.count, b.post, peer, tag, MPI_COMM_WORLD, &q[0]));
        MPI_CALL(MPI_Send_init(h.saddr, count, h.stype, peer, tag, MPI_COMM_WORLD, &q[1]));
        for (int it = 0; it < 3; it++) {
            halo_fill(&h, seed + 100 * it);
            memset(b.mem, MT_SENTINEL, l.bytes);
            MPI_CALL(MPI_Startall(2, q));
            MPI_CALL(MPI_Waitall(2, q, sts));
            check_recv(what, &h, 10 * k + peer + 100 * it, &l, &b, &sts[0], peer, tag);
        }
        MPI_Request_free(&q[0]);
        MPI_Request_free(&q[1]);
        break;
    }
    default: {
        MPI_Request q;
        MPI_CALL(MPI_Isend(h.saddr, count, h.stype, peer, tag, MPI_COMM_WORLD, &q));
        MPI_Status pst;
        mt_status_prefill(&pst);
        MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &pst));
        int pc = -5, pb = -5;
        MPI_Get_count(&pst, MPI_DOUBLE, &pc);
        MPI_Get_count(&pst, MPI_BYTE, &pb);
        CHECK(pc == count * h.n, what, "probe MPI_Get_count(MPI_DOUBLE): expected %d, got %d", count * h.n, pc);
        CHECK(pb == 8 * count * h.n, what, "probe MPI_Get_count(MPI_BYTE): expected %d, got %d", 8 * count * h.n, pb);
        CHECK_INT("probe status.MPI_SOURCE", peer, pst.MPI_SOURCE);
        MPI_CALL(MPI_Recv(b.addr, l.count, b.post, pst.MPI_SOURCE, pst.MPI_TAG, MPI_COMM_WORLD, &st));
        MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
        check_recv(what, &h, 10 * k + peer, &l, &b, &st, peer, tag);
    }
    }
    rbuf_free(&b);
    layout_free(&l, h.rel);
    halo_free(&h);
}

/* Rank 0 broadcasts h's halo; the others receive in layout r. */
static void bcast(int k, int count, int r)
{
    halo h;
    halo_init(&h, k, count);
    layout l = recv_layout(r, k, count, h.n, h.rel);
    rbuf_t b = rbuf_make(&h, r, &l);
    int seed = 40 + k + count;
    char what[200];
    snprintf(what, sizeof what, "Bcast of %s x %d (%d doubles), others in %s", kind_name[k], count, count * h.n,
             recv_name[r]);
    if (mt_rank == 0) {
        halo_fill(&h, seed);
        MPI_CALL(MPI_Bcast((void *)h.saddr, count, h.stype, 0, MPI_COMM_WORLD));
        double *ref = mt_malloc(h.smem + 8);
        fill_halo(ref, h.smem / 8, seed);
        CHECK(memcmp(ref, h.sbuf, h.smem) == 0, what, "the root's buffer changed");
        free(ref);
    } else {
        MPI_CALL(MPI_Bcast(b.addr, l.count, b.post, 0, MPI_COMM_WORLD));
        unsigned char *exp = expected(&h, seed, &l, b.rel);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < l.bytes; i++)
            if (b.mem[i] != exp[i]) { if (!bad) first = i; bad++; }
        if (!bad) mt_gpass++;
        else
            mt_failf(__LINE__, what, "%zu of %zu bytes differ from the reference; first at byte %zu: expected 0x%02x, "
                     "got 0x%02x", bad, l.bytes, first, exp[first], b.mem[first]);
        free(exp);
    }
    rbuf_free(&b);
    layout_free(&l, h.rel);
    halo_free(&h);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_halo_types");
    mt_require_size(2);
    static const int counts[3] = {1, 2, 16};
    int tag = 1;
    for (int k = 0; k < K_COUNT; k++) {
        for (int m = 0; m < M_COUNT; m++) {
            mt_group_begin("%s halos, %s", kind_name[k], method_name[m]);
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < R_COUNT; r++) exchange(k, counts[c], r, m, tag++);
            mt_group_end();
        }
        mt_group_begin("%s halos, Bcast", kind_name[k]);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < R_COUNT; r++) bcast(k, counts[c], r);
        mt_group_end();
    }
    return mt_finish();
}
