/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_datatypes: derived datatypes on both sides of a transfer, sender and
 * receiver using different but type-signature-compatible types.  Vector with
 * stride, indexed, struct {int, double, char[3]} with resized extent,
 * contiguous of vector, subarray; Get_count / Get_elements on full and partial
 * derived-type receives.  The expected receive buffer is computed locally with
 * MPI_Pack (sender type) + MPI_Unpack (receiver type) into a sentinel-filled
 * buffer, so gaps / padding that MPI must not touch are checked byte for byte.
 * Rank 0 sends, rank 1 receives (and the reverse for half the cases). */
#include "mpitest.h"

typedef struct {
    int a;
    double b;
    char c[3];
} rec_t;

static int ncase = 0;
/* If set, the local reference is packed from these instead of (sbuf, stype):
 * MPICH 4.0's MPI_Pack rejects MPI_BOTTOM as inbuf ("Null pointer"). */
static const void *ref_buf;
static MPI_Datatype ref_type = MPI_DATATYPE_NULL;

/* sbuf holds identical contents on both ranks (deterministic generation). */
static void xfer(const char *name, const void *sbuf, int scount, MPI_Datatype stype, size_t rbytes, int rcount,
                 MPI_Datatype rtype, int exp_count, int exp_elems)
{
    int sender = ncase % 2, receiver = 1 - sender, tag = 100 + ncase, nb = (ncase / 2) % 2;
    ncase++;
    if (mt_rank == sender) {
        if (nb) {
            MPI_Request r;
            MPI_CALL(MPI_Isend(sbuf, scount, stype, receiver, tag, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            MPI_CALL(MPI_Send(sbuf, scount, stype, receiver, tag, MPI_COMM_WORLD));
        }
    } else if (mt_rank == receiver) {
        unsigned char *rbuf = mt_malloc(rbytes), *exp = mt_malloc(rbytes);
        memset(rbuf, MT_SENTINEL, rbytes);
        memset(exp, MT_SENTINEL, rbytes);
        MPI_Status st;
        mt_status_prefill(&st);
        if (nb) {
            MPI_Request r;
            MPI_CALL(MPI_Irecv(rbuf, rcount, rtype, sender, tag, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Wait(&r, &st));
        } else {
            MPI_CALL(MPI_Recv(rbuf, rcount, rtype, sender, tag, MPI_COMM_WORLD, &st));
        }
        char w[256];
        snprintf(w, sizeof w, "%s (%s)", name, nb ? "Isend/Irecv" : "Send/Recv");
        int c = -5, e = -5;
        MPI_Get_count(&st, rtype, &c);
        MPI_Get_elements(&st, rtype, &e);
        CHECK_INT("status.MPI_SOURCE", sender, st.MPI_SOURCE);
        CHECK_INT("status.MPI_TAG", tag, st.MPI_TAG);
        CHECK(c == exp_count, w, "MPI_Get_count: expected %d, got %d", exp_count, c);
        CHECK(e == exp_elems, w, "MPI_Get_elements: expected %d, got %d", exp_elems, e);
        int ssz = 0, bc = -5;
        MPI_Type_size(stype, &ssz);
        MPI_Get_count(&st, MPI_BYTE, &bc);
        CHECK(bc == scount * ssz, w, "MPI_Get_count(MPI_BYTE): expected %d, got %d", scount * ssz, bc);
        /* expected: pack with the sender's type, unpack with the receiver's */
        int psz = 0, pos = 0;
        const void *pb = ref_type != MPI_DATATYPE_NULL ? ref_buf : sbuf;
        MPI_Datatype pt = ref_type != MPI_DATATYPE_NULL ? ref_type : stype;
        MPI_Pack_size(scount, pt, MPI_COMM_WORLD, &psz);
        void *packed = mt_malloc(psz);
        MPI_CALL(MPI_Pack(pb, scount, pt, packed, psz, &pos, MPI_COMM_WORLD));
        int upos = 0, ucount = exp_count == MPI_UNDEFINED ? 0 : exp_count;
        if (ucount > 0) MPI_CALL(MPI_Unpack(packed, pos, &upos, exp, ucount, rtype, MPI_COMM_WORLD));
        if (exp_count == MPI_UNDEFINED) {
            /* partial: unpack the whole elements via MPI_BYTE knowledge is type-specific; caller passes
             * receive types whose first exp_elems basic elements are contiguous doubles */
            memcpy(exp, packed, (size_t)pos);
        }
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < rbytes; i++)
            if (rbuf[i] != exp[i]) { if (!bad) first = i; bad++; }
        if (!bad) mt_gpass++;
        else
            mt_failf(__LINE__, w, "%zu of %zu receive-buffer bytes differ from pack/unpack reference; first at byte %zu: "
                     "expected 0x%02x%s, got 0x%02x", bad, rbytes, first, exp[first],
                     exp[first] == MT_SENTINEL ? " (untouched gap/padding)" : "", rbuf[first]);
        free(packed);
        free(rbuf);
        free(exp);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_datatypes");
    mt_require_size(2);

    /* ---- vector with stride */
    mt_group_begin("vector(stride) <-> contiguous MPI_DOUBLE");
    {
        int N = 100000;
        MPI_Datatype vec;
        MPI_Type_vector(N, 2, 5, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        double *src = mt_malloc((size_t)5 * N * sizeof(double));
        mt_fill(src, (size_t)5 * N, 'd', PAT_SMOOTH, 1);
        xfer("send 1 vector(100000,2,5), recv 200000 contiguous doubles", src, 1, vec, (size_t)2 * N * 8 + 64,
             2 * N + 8, MPI_DOUBLE, 2 * N, 2 * N);
        xfer("send 200000 contiguous doubles, recv 1 vector(100000,2,5)", src, 2 * N, MPI_DOUBLE, (size_t)5 * N * 8,
             1, vec, 1, 2 * N);
        mt_fill(src, (size_t)5 * N, 'd', PAT_RANDOM, 2);
        xfer("vector -> vector, random doubles", src, 1, vec, (size_t)5 * N * 8, 1, vec, 1, 2 * N);
        /* probe of a derived-type message: counts in the probing rank's types */
        if (mt_rank < 2) {
            int snd = ncase % 2, tag = 100 + ncase;
            if (mt_rank == snd) {
                MPI_CALL(MPI_Send(src, 1, vec, 1 - snd, tag, MPI_COMM_WORLD));
            } else {
                MPI_Status st;
                MPI_CALL(MPI_Probe(snd, tag, MPI_COMM_WORLD, &st));
                int c = -1, cv = -1, ev = -1;
                MPI_Get_count(&st, MPI_DOUBLE, &c);
                MPI_Get_count(&st, vec, &cv);
                MPI_Get_elements(&st, vec, &ev);
                CHECK_INT("Probe of vector message: Get_count(MPI_DOUBLE)", 2 * N, c);
                CHECK_INT("Probe of vector message: Get_count(vector)", 1, cv);
                CHECK_INT("Probe of vector message: Get_elements(vector)", 2 * N, ev);
                double *rb = mt_malloc((size_t)2 * N * sizeof(double));
                MPI_CALL(MPI_Recv(rb, c, MPI_DOUBLE, snd, tag, MPI_COMM_WORLD, &st));
                double *e = mt_malloc((size_t)2 * N * sizeof(double));
                for (int i = 0; i < N; i++) { e[2 * i] = src[(size_t)i * 5]; e[2 * i + 1] = src[(size_t)i * 5 + 1]; }
                CHECK_DATA("Probe of vector message: data", rb, e, (size_t)2 * N, 'd');
                free(rb);
                free(e);
            }
        }
        ncase++;
        MPI_Datatype vsmall;
        MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &vsmall);
        MPI_Type_commit(&vsmall);
        xfer("send 7 vector(3,1,4) (ramp), recv 21 doubles", src, 7, vsmall, 30 * 8, 30, MPI_DOUBLE, 21, 21);
        MPI_Type_free(&vsmall);
        free(src);
        MPI_Type_free(&vec);
    }
    mt_group_end();

    /* ---- indexed */
    mt_group_begin("indexed MPI_INT <-> contiguous / other indexed");
    {
        int nb = 64, bl[64], dp[64], tot = 0, d = 0;
        for (int i = 0; i < nb; i++) {
            bl[i] = ((i * 7) % 13 + 1) * 500;
            dp[i] = d;
            d += bl[i] + (i % 5) * 37 + 3;
            tot += bl[i];
        }
        MPI_Datatype idx, idx2;
        MPI_Type_indexed(nb, bl, dp, MPI_INT, &idx);
        MPI_Type_commit(&idx);
        /* receiver layout: same blocks in reverse gap pattern */
        int dp2[64];
        d = 5;
        for (int i = 0; i < nb; i++) { dp2[i] = d; d += bl[i] + ((nb - i) % 3) * 11; }
        MPI_Type_indexed(nb, bl, dp2, MPI_INT, &idx2);
        MPI_Type_commit(&idx2);
        int ext = dp[nb - 1] + bl[nb - 1] + 16, ext2 = d + 16;
        int *src = mt_malloc((size_t)ext * sizeof(int));
        mt_fill(src, ext, 'i', PAT_RAMP, 3);
        xfer("indexed -> contiguous ints", src, 1, idx, (size_t)tot * 4 + 40, tot + 10, MPI_INT, tot, tot);
        xfer("contiguous ints -> indexed", src, tot, MPI_INT, (size_t)ext * 4, 1, idx, 1, tot);
        mt_fill(src, ext, 'i', PAT_SMOOTH, 4);
        xfer("indexed -> different indexed", src, 1, idx, (size_t)ext2 * 4, 1, idx2, 1, tot);
        free(src);
        MPI_Type_free(&idx);
        MPI_Type_free(&idx2);
    }
    mt_group_end();

    /* ---- struct {int, double, char[3]} with resized extent */
    mt_group_begin("struct {int, double, char[3]} resized");
    {
        int K = 60000;
        int bl[3] = {1, 1, 3};
        MPI_Aint disp[3] = {offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c)};
        MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, tmp, rec, rec2x;
        MPI_Type_create_struct(3, bl, disp, types, &tmp);
        MPI_Type_create_resized(tmp, 0, sizeof(rec_t), &rec);
        MPI_Type_commit(&rec);
        MPI_Type_create_resized(tmp, 0, 2 * sizeof(rec_t), &rec2x); /* every other record */
        MPI_Type_commit(&rec2x);
        MPI_Type_free(&tmp);
        rec_t *src = mt_malloc((size_t)2 * K * sizeof(rec_t));
        memset(src, 0x11, (size_t)2 * K * sizeof(rec_t)); /* padding bytes have a value the receiver must not see */
        for (int i = 0; i < 2 * K; i++) {
            src[i].a = i / 3;
            src[i].b = 1000.0 + 0.5 * (double)(i % 1000);
            src[i].c[0] = 'x'; src[i].c[1] = (char)(i % 7); src[i].c[2] = (char)(i % 2);
        }
        xfer("struct x K -> struct x (K+10)", src, K, rec, (size_t)(K + 10) * sizeof(rec_t), K + 10, rec, K, 5 * K);
        xfer("struct resized 2x extent -> struct", src, K, rec2x, (size_t)K * sizeof(rec_t), K, rec, K, 5 * K);
        xfer("struct -> struct resized 2x extent", src, K, rec, (size_t)2 * K * sizeof(rec_t), K, rec2x, K, 5 * K);
        /* signature-compatible: struct {int,double,char x3} -> same signature in another struct layout */
        int bl2[5] = {1, 1, 1, 1, 1};
        MPI_Aint d2[5] = {0, 4, 12, 13, 14};
        MPI_Datatype t2[5] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_CHAR, MPI_CHAR}, packedrec;
        MPI_Type_create_struct(5, bl2, d2, t2, &tmp);
        MPI_Type_create_resized(tmp, 0, 16, &packedrec);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&packedrec);
        xfer("struct (padded layout) -> struct (packed 15-byte layout, extent 16)", src, K, rec, (size_t)K * 16, K,
             packedrec, K, 5 * K);
        /* partial: 2 records + nothing; receive count larger */
        xfer("struct x 2 -> struct x 10", src, 2, rec, 10 * sizeof(rec_t), 10, rec, 2, 10);
        MPI_Type_free(&packedrec);
        MPI_Type_free(&rec);
        MPI_Type_free(&rec2x);
        free(src);
    }
    mt_group_end();

    /* ---- contiguous of vector */
    mt_group_begin("contiguous(vector) MPI_FLOAT");
    {
        MPI_Datatype v, cv;
        MPI_Type_vector(4, 1, 3, MPI_FLOAT, &v); /* 4 floats, stride 3, extent 10 floats */
        MPI_Type_contiguous(3, v, &cv);            /* 12 floats over 30 */
        MPI_Type_commit(&cv);
        int M = 40000;
        float *src = mt_malloc((size_t)M * 30 * sizeof(float) + 64);
        mt_fill(src, (size_t)M * 30, 'f', PAT_SMOOTH, 5);
        xfer("contiguous(3, vector(4,1,3)) x M -> floats", src, M, cv, (size_t)M * 12 * 4, M * 12, MPI_FLOAT, M * 12,
             M * 12);
        xfer("floats -> contiguous(3, vector(4,1,3)) x M", src, M * 12, MPI_FLOAT, (size_t)M * 30 * 4, M, cv, M,
             M * 12);
        mt_fill(src, (size_t)M * 30, 'f', PAT_RANDOM, 6);
        xfer("contiguous(vector) -> contiguous(vector), random", src, M, cv, (size_t)M * 30 * 4, M, cv, M, M * 12);
        MPI_Type_free(&v);
        MPI_Type_free(&cv);
        free(src);
    }
    mt_group_end();

    /* ---- subarray */
    mt_group_begin("subarray 2D -> subarray of another shape");
    {
        int s1[2] = {512, 512}, ss1[2] = {300, 400}, st1[2] = {100, 50};
        int s2[2] = {400, 600}, st2[2] = {10, 20};
        MPI_Datatype a1, a2;
        MPI_Type_create_subarray(2, s1, ss1, st1, MPI_ORDER_C, MPI_DOUBLE, &a1);
        MPI_Type_create_subarray(2, s2, ss1, st2, MPI_ORDER_C, MPI_DOUBLE, &a2);
        MPI_Type_commit(&a1);
        MPI_Type_commit(&a2);
        double *src = mt_malloc((size_t)512 * 512 * sizeof(double));
        mt_fill(src, (size_t)512 * 512, 'd', PAT_RAMP, 7);
        xfer("subarray 300x400 of 512x512 -> of 400x600", src, 1, a1, (size_t)400 * 600 * 8, 1, a2, 1, 300 * 400);
        MPI_Type_free(&a1);
        MPI_Type_free(&a2);
        free(src);
    }
    mt_group_end();

    /* ---- partial derived-type receives: Get_count MPI_UNDEFINED, Get_elements exact */
    mt_group_begin("partial derived-type receives: MPI_Get_count / MPI_Get_elements");
    {
        MPI_Datatype c3, c4;
        MPI_Type_contiguous(3, MPI_DOUBLE, &c3);
        MPI_Type_commit(&c3);
        MPI_Type_contiguous(4, MPI_DOUBLE, &c4);
        MPI_Type_commit(&c4);
        int n = 1000003;
        double *src = mt_malloc((size_t)n * sizeof(double));
        mt_fill(src, n, 'd', PAT_SMOOTH, 8);
        xfer("7 doubles -> contiguous(3 doubles) x 5", src, 7, MPI_DOUBLE, 15 * 8, 5, c3, MPI_UNDEFINED, 7);
        xfer("1000003 doubles -> contiguous(4 doubles) x 300000", src, n, MPI_DOUBLE, (size_t)1200000 * 8, 300000, c4,
             MPI_UNDEFINED, n);
        xfer("9 doubles -> contiguous(3 doubles) x 5 (whole)", src, 9, MPI_DOUBLE, 15 * 8, 5, c3, 3, 9);
        /* struct signature prefix: (int, double) received as struct {int,double,char[3]} x 3 */
        int bl[3] = {1, 1, 3};
        MPI_Aint disp[3] = {offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c)};
        MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, tmp, rec, id2;
        MPI_Type_create_struct(3, bl, disp, types, &tmp);
        MPI_Type_create_resized(tmp, 0, sizeof(rec_t), &rec);
        MPI_Type_commit(&rec);
        MPI_Type_free(&tmp);
        MPI_Type_create_struct(2, bl, disp, types, &id2);
        MPI_Type_commit(&id2);
        if (mt_rank < 2) {
            int sender = ncase % 2, receiver = 1 - sender, tag = 100 + ncase;
            ncase++;
            rec_t one = {42, 3.25, {'a', 'b', 'c'}}, got[3];
            if (mt_rank == sender) {
                MPI_CALL(MPI_Send(&one, 1, id2, receiver, tag, MPI_COMM_WORLD));
            } else {
                MPI_Status st;
                memset(got, MT_SENTINEL, sizeof got);
                MPI_CALL(MPI_Recv(got, 3, rec, sender, tag, MPI_COMM_WORLD, &st));
                int c = -5, e = -5;
                MPI_Get_count(&st, rec, &c);
                MPI_Get_elements(&st, rec, &e);
                CHECK_INT("(int,double) -> struct x3: MPI_Get_count", MPI_UNDEFINED, c);
                CHECK_INT("(int,double) -> struct x3: MPI_Get_elements", 2, e);
                CHECK(got[0].a == 42 && got[0].b == 3.25, "(int,double) -> struct x3: data", "got a=%d b=%g",
                      got[0].a, got[0].b);
                CHECK_SENTINEL("(int,double) -> struct x3: char[3] untouched", got[0].c, 0, 3);
            }
        }
        MPI_Type_free(&id2);
        MPI_Type_free(&rec);
        MPI_Type_free(&c3);
        MPI_Type_free(&c4);
        free(src);
    }
    mt_group_end();
    /* ---- basic elements wider than 16 bytes in non-contiguous layouts: a
     *      compressed message ends inside one whatever its element count */
    mt_group_begin("indexed long double complex (32-byte elements)");
    {
        int n = 200, idx[100];
        long double *src = mt_malloc((size_t)n * 2 * sizeof(long double));
        memset(src, 0, (size_t)n * 2 * sizeof(long double));
        for (int i = 0; i < n; i++) src[2 * i] = i, src[2 * i + 1] = -(i % 7);
        for (int i = 0; i < n / 2; i++) idx[i] = 2 * i;
        for (int k = 5; k <= n / 2; k *= 4) {
            MPI_Datatype ib;
            MPI_Type_create_indexed_block(k, 1, idx, MPI_C_LONG_DOUBLE_COMPLEX, &ib);
            MPI_Type_commit(&ib);
            char w[96];
            snprintf(w, sizeof w, "indexed_block(%d, 1, every other) -> the same", k);
            xfer(w, src, 1, ib, (size_t)n * 32, 1, ib, 1, k);
            snprintf(w, sizeof w, "%d contiguous -> indexed_block(%d, 1, every other)", k, k);
            xfer(w, src, k, MPI_C_LONG_DOUBLE_COMPLEX, (size_t)n * 32, 1, ib, 1, k);
            MPI_Type_free(&ib);
        }
        free(src);
    }
    mt_group_end();
    /* ---- MPI_PACKED on either side, MPI_BOTTOM with absolute addresses,
     *      Sendrecv_replace with a non-contiguous type */
    mt_group_begin("MPI_PACKED, MPI_BOTTOM + absolute struct, Sendrecv_replace(vector)");
    {
        int n = 200000;
        double *d = mt_malloc((size_t)n * sizeof(double));
        int *iv = mt_malloc((size_t)n * sizeof(int));
        mt_fill(d, n, 'd', PAT_SMOOTH, 20);
        mt_fill(iv, n, 'i', PAT_RAMP, 21);
        /* absolute struct type: {iv[0..n), d[0..n)} from MPI_BOTTOM */
        MPI_Aint ad[2];
        MPI_Get_address(iv, &ad[0]);
        MPI_Get_address(d, &ad[1]);
        int bl[2] = {n, n};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, abs_t, rel_t;
        MPI_Type_create_struct(2, bl, ad, ty, &abs_t);
        MPI_Type_commit(&abs_t);
        /* relative struct: n ints followed by n doubles in one block */
        MPI_Aint rd[2] = {0, (MPI_Aint)n * 8};
        MPI_Type_create_struct(2, bl, rd, ty, &rel_t);
        MPI_Type_commit(&rel_t);
        size_t relsz = (size_t)n * 8 + (size_t)n * 8;
        /* the same layout relative to iv (for local packing, see ref_type) */
        MPI_Aint rd2[2] = {0, ad[1] - ad[0]};
        MPI_Datatype based_t;
        MPI_Type_create_struct(2, bl, rd2, ty, &based_t);
        MPI_Type_commit(&based_t);
        ref_buf = iv;
        ref_type = based_t;
        xfer("MPI_BOTTOM + absolute struct {int[n], double[n]} -> relative struct", MPI_BOTTOM, 1, abs_t, relsz, 1,
             rel_t, 1, 2 * n);
        ref_type = MPI_DATATYPE_NULL;
        int psz = 0, pos = 0;
        MPI_Pack_size(1, based_t, MPI_COMM_WORLD, &psz);
        void *packed = mt_malloc(psz);
        MPI_CALL(MPI_Pack(iv, 1, based_t, packed, psz, &pos, MPI_COMM_WORLD));
        MPI_Type_free(&based_t);
        xfer("MPI_PACKED (packed absolute struct) -> relative struct", packed, pos, MPI_PACKED, relsz, 1, rel_t, 1,
             2 * n);
        xfer("relative struct -> MPI_PACKED", packed, pos, MPI_PACKED, (size_t)psz + 64, psz + 64, MPI_PACKED, pos, pos);
        free(packed);
        /* receive into MPI_BOTTOM with an absolute-address type */
        if (mt_rank < 2) {
            int snd = ncase % 2, tag = 100 + ncase;
            if (mt_rank == snd) {
                void *rel = mt_malloc(relsz);
                mt_fill(rel, (size_t)n, 'i', PAT_SMOOTH, 22);
                mt_fill((char *)rel + (size_t)n * 8, (size_t)n, 'd', PAT_RAMP, 23);
                MPI_CALL(MPI_Send(rel, 1, rel_t, 1 - snd, tag, MPI_COMM_WORLD));
                free(rel);
            } else {
                memset(iv, MT_SENTINEL, (size_t)n * sizeof(int));
                memset(d, MT_SENTINEL, (size_t)n * sizeof(double));
                MPI_Status st;
                MPI_CALL(MPI_Recv(MPI_BOTTOM, 1, abs_t, snd, tag, MPI_COMM_WORLD, &st));
                int c = -1, e = -1;
                MPI_Get_count(&st, abs_t, &c);
                MPI_Get_elements(&st, abs_t, &e);
                CHECK_INT("Recv(MPI_BOTTOM, absolute struct): Get_count", 1, c);
                CHECK_INT("Recv(MPI_BOTTOM, absolute struct): Get_elements", 2 * n, e);
                CHECK_PATTERN("Recv(MPI_BOTTOM, absolute struct): int part", iv, (size_t)n, 'i', PAT_SMOOTH, 22);
                CHECK_PATTERN("Recv(MPI_BOTTOM, absolute struct): double part", d, (size_t)n, 'd', PAT_RAMP, 23);
            }
        }
        ncase++;
        MPI_Type_free(&abs_t);
        MPI_Type_free(&rel_t);

        /* Sendrecv_replace with vector type: only the strided elements are replaced */
        if (mt_rank < 2) {
            int peer = 1 - mt_rank, N = 50000;
            MPI_Datatype v;
            MPI_Type_vector(N, 3, 4, MPI_DOUBLE, &v);
            MPI_Type_commit(&v);
            double *x = mt_malloc((size_t)4 * N * sizeof(double)), *e = mt_malloc((size_t)4 * N * sizeof(double));
            mt_fill(x, (size_t)4 * N, 'd', PAT_RAMP, 30 + mt_rank);
            mt_fill(e, (size_t)4 * N, 'd', PAT_RAMP, 30 + peer);
            for (int i = 0; i < N; i++) e[(size_t)i * 4 + 3] = x[(size_t)i * 4 + 3]; /* every 4th stays local */
            MPI_Status st;
            MPI_CALL(MPI_Sendrecv_replace(x, 1, v, peer, 31, peer, 31, MPI_COMM_WORLD, &st));
            int c = -1, el = -1;
            MPI_Get_count(&st, v, &c);
            MPI_Get_elements(&st, v, &el);
            CHECK_INT("Sendrecv_replace(vector) Get_count", 1, c);
            CHECK_INT("Sendrecv_replace(vector) Get_elements", 3 * N, el);
            CHECK_DATA("Sendrecv_replace(vector): strided elements swapped, gaps kept", x, e, (size_t)4 * N, 'd');
            MPI_Type_free(&v);
            free(x);
            free(e);
        }
        free(d);
        free(iv);
    }
    mt_group_end();
    return mt_finish();
}
