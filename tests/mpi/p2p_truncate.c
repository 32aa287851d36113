/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_truncate: a receive buffer smaller than the message gives MPI_ERR_TRUNCATE
 * (MPI_ERRORS_RETURN on the communicator), for a small message and for a large
 * compressible one whose compressed size would fit the buffer but whose
 * original size does not; blocking, nonblocking, Waitall (MPI_ERR_IN_STATUS),
 * Mrecv and Sendrecv.  Communication then continues normally: the truncated
 * message is consumed and later messages arrive intact. */
#include "mpitest.h"

static MPI_Comm comm;

static int err_class(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

#define CHECK_TRUNC(what, rc)                                                                 \
    CHECK(err_class(rc) == MPI_ERR_TRUNCATE, what, "expected error class MPI_ERR_TRUNCATE (%d), got %s", \
          MPI_ERR_TRUNCATE, mt_errstr(rc))

/* After each truncation: one normal message each way, verified. */
static void follow_up(const char *after, int seed)
{
    int n = 300000;
    double *d = mt_malloc(n * sizeof(double));
    MPI_Status st;
    char w[128];
    snprintf(w, sizeof w, "normal message after %s", after);
    for (int dir = 0; dir < 2; dir++) {
        int snd = dir, rcv = 1 - dir;
        if (mt_rank == snd) {
            mt_fill(d, n, 'd', PAT_SMOOTH, seed + dir);
            MPI_CALL(MPI_Send(d, n, MPI_DOUBLE, rcv, 5, comm));
        } else if (mt_rank == rcv) {
            memset(d, 0, n * sizeof(double));
            MPI_CALL(MPI_Recv(d, n, MPI_DOUBLE, snd, MPI_ANY_TAG, comm, &st));
            CHECK_STATUS(w, &st, snd, 5, MPI_DOUBLE, n);
            CHECK_PATTERN(w, d, n, 'd', PAT_SMOOTH, seed + dir);
        }
    }
    free(d);
}

/* What MPI_Get_count and MPI_Get_elements report after a truncated receive,
 * on every receive path compi has (direct into a large buffer, staged
 * small, strided through a derived type, probed then received, matched
 * probe, wildcard, nonblocking with Wait / Test / Request_get_status,
 * Sendrecv; pipelined in the _pipe runs). MPI leaves the count after
 * MPI_ERR_TRUNCATE to the implementation; measured on plain MPI:
 *   Open MPI 4.1: the message's full length, on every path;
 *   MPICH 4.0: the count its request last held: 0 on a fresh request,
 *   another message's length on a recycled one (so MPI_UNDEFINED for a type
 *   that length is no multiple of); compi reports 0, a fresh request's. A
 *   zero-byte receive before each case makes plain MPICH's 0 as well. */
static void truncated_counts(void)
{
    static const int sizes[] = {100, 3000, 300000};
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec);   /* 2 doubles, strided */
    MPI_Type_commit(&vec);
    enum { M_RECV, M_VEC, M_PROBE, M_MPROBE, M_ANY, M_WAIT, M_TEST, M_GETSTATUS, M_SENDRECV, M_COUNT };
    static const char *names[M_COUNT] = {"MPI_Recv", "MPI_Recv into a vector type", "MPI_Probe + MPI_Recv",
                                         "MPI_Mprobe + MPI_Mrecv", "MPI_Recv(MPI_ANY_SOURCE)", "MPI_Irecv + MPI_Wait",
                                         "MPI_Irecv + MPI_Test", "MPI_Irecv + MPI_Request_get_status", "MPI_Sendrecv"};
    mt_group_begin("MPI_Get_count / MPI_Get_elements after truncation, every receive path");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int pat = 0; pat < 4; pat++) {
#ifndef MPICH_VERSION
            /* Open MPI 4.1 writes a whole truncated message past the buffer
             * when it goes by single copy (same machine, above the 4 KiB
             * eager limit): an incompressible one into compi's staging copy
             * of a 12 KB receive would corrupt the heap on this test's
             * emulated nodes (across real nodes it truncates cleanly). */
            if (pat && sizes[si] == 3000) continue;
#endif
            for (int m = 0; m < M_COUNT; m++) {
                int n = sizes[si], tag = 200 + m;
                /* compressible, incompressible (sent raw), smooth, and half
                 * random into a quarter of its size: compressed, but not into
                 * the room (a frame the MPI truncates) */
                int patid = pat == 0 ? PAT_ZERO : pat == 1 || pat == 3 ? PAT_RANDOM : PAT_SMOOTH;
                double *a = mt_malloc((size_t)n * sizeof(double));
                if (mt_rank == 1) {
                    mt_fill(a, n, 'd', patid, tag);
                    if (pat == 3) memset(a + n / 2, 0, (size_t)(n - n / 2) * sizeof(double));
                    if (m == M_SENDRECV)
                        MPI_CALL(MPI_Sendrecv(a, n, MPI_DOUBLE, 0, tag, NULL, 0, MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE));
                    else
                        MPI_CALL(MPI_Send(a, n, MPI_DOUBLE, 0, tag, comm));
                } else if (mt_rank == 0) {
                    /* MPICH 4.0 leaves a truncated receive's count as its
                     * (recycled) request last held it: a completed
                     * zero-byte receive just before makes that 0 */
                    MPI_CALL(MPI_Sendrecv(NULL, 0, MPI_BYTE, 0, 199, NULL, 0, MPI_BYTE, 0, 199, comm,
                                          MPI_STATUS_IGNORE));
                    int cap = pat == 3 ? n / 4 : n / 2, rc = MPI_SUCCESS;
                    MPI_Datatype t = m == M_VEC ? vec : MPI_DOUBLE;
                    int tcount = m == M_VEC ? cap / 2 : cap;   /* the same bytes' room, strided */
                    MPI_Status st;
                    MPI_Request r;
                    MPI_Message msg;
                    int flag = 0;
                    mt_status_prefill(&st);
                    switch (m) {
                    case M_RECV: rc = MPI_Recv(a, tcount, t, 1, tag, comm, &st); break;
                    case M_VEC: rc = MPI_Recv(a, tcount, t, 1, tag, comm, &st); break;
                    case M_PROBE:
                        MPI_CALL(MPI_Probe(1, tag, comm, &st));
                        rc = MPI_Recv(a, tcount, t, 1, tag, comm, &st);
                        break;
                    case M_MPROBE:
                        MPI_CALL(MPI_Mprobe(1, tag, comm, &msg, &st));
                        rc = MPI_Mrecv(a, tcount, t, &msg, &st);
                        break;
                    case M_ANY: rc = MPI_Recv(a, tcount, t, MPI_ANY_SOURCE, tag, comm, &st); break;
                    case M_WAIT:
                        MPI_CALL(MPI_Irecv(a, tcount, t, 1, tag, comm, &r));
                        rc = MPI_Wait(&r, &st);
                        break;
                    case M_TEST:
                        MPI_CALL(MPI_Irecv(a, tcount, t, 1, tag, comm, &r));
                        while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&r, &flag, &st);
                        break;
                    case M_GETSTATUS:
                        MPI_CALL(MPI_Irecv(a, tcount, t, 1, tag, comm, &r));
                        while (!flag) {
                            int grc = MPI_Request_get_status(r, &flag, &st);
                            if (grc != MPI_SUCCESS && err_class(grc) != MPI_ERR_TRUNCATE) break;
                        }
                        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
                        break;
                    case M_SENDRECV: rc = MPI_Sendrecv(NULL, 0, MPI_BYTE, 1, tag, a, tcount, t, 1, tag, comm, &st); break;
                    }
                    char w[160];
                    snprintf(w, sizeof w, "%s: %d %s doubles into %d", names[m], n, pat == 3 ? "half random" : mt_pat_name[patid], cap);
                    CHECK_TRUNC(w, rc);
                    CHECK_INT(w, 1, st.MPI_SOURCE);
                    CHECK_INT(w, tag, st.MPI_TAG);
                    int c = -5, e = -5;
                    MPI_Count eb = -5;
                    MPI_Get_count(&st, t, &c);
                    MPI_Get_elements(&st, t, &e);
                    MPI_Get_elements_x(&st, MPI_BYTE, &eb);
#ifdef MPICH_VERSION
                    CHECK(c == 0 && e == 0 && eb == 0, w, "count %d, elements %d, bytes %lld; expected 0", c, e,
                          (long long)eb);
#else
                    /* the message's full length, in the receive type's units */
                    int full_count = m == M_VEC ? (n % 2 ? MPI_UNDEFINED : n / 2) : n;
                    CHECK(c == full_count && e == n && eb == (MPI_Count)n * 8, w,
                          "count %d, elements %d, bytes %lld; expected %d, %d, %lld (the message's length)", c, e,
                          (long long)eb, full_count, n, (long long)n * 8);
#endif
                }
                free(a);
            }
        }
    }
    MPI_Type_free(&vec);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_truncate");
    mt_require_size(2);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Status st;
    int big = 1 << 20; /* ints: 4 MiB, very compressible */

    mt_group_begin("MPI_Recv truncation, small message");
    if (mt_rank == 1) {
        int a[10];
        mt_fill(a, 10, 'i', PAT_RAMP, 1);
        MPI_CALL(MPI_Send(a, 10, MPI_INT, 0, 1, comm));
    } else if (mt_rank == 0) {
        int b[10];
        int rc = MPI_Recv(b, 5, MPI_INT, 1, 1, comm, &st);
        CHECK_TRUNC("MPI_Recv 10 ints into 5", rc);
    }
    follow_up("small MPI_Recv truncation", 10);
    mt_group_end();

    mt_group_begin("MPI_Recv truncation, large compressible message");
    if (mt_rank == 1) {
        int *a = mt_malloc(big * sizeof(int));
        mt_fill(a, big, 'i', PAT_ZERO, 0);
        MPI_CALL(MPI_Send(a, big, MPI_INT, 0, 2, comm));
        mt_fill(a, big, 'i', PAT_RAMP, 2);
        MPI_CALL(MPI_Send(a, big, MPI_INT, 0, 2, comm));
        free(a);
    } else if (mt_rank == 0) {
        int cap = big / 2; /* the compressed message would fit easily */
        int *b = mt_malloc((size_t)big * sizeof(int));
        memset(b, MT_SENTINEL, (size_t)big * sizeof(int));
        int rc = MPI_Recv(b, cap, MPI_INT, 1, 2, comm, &st);
        CHECK_TRUNC("MPI_Recv 4 MiB zeros into 2 MiB", rc);
#ifdef MPICH_VERSION /* plain Open MPI 4.1 (CMA single copy) itself writes past the buffer */
        CHECK_SENTINEL("MPI_Recv truncation must not write beyond the receive buffer", b, (size_t)cap * 4,
                       (size_t)big * 4);
#endif
        /* the first receive may legitimately have written anywhere inside its own
         * 2 MiB buffer (MPI leaves truncated buffer contents to the implementation) */
        memset(b, MT_SENTINEL, (size_t)big * sizeof(int));
        rc = MPI_Recv(b, 1000, MPI_INT, 1, 2, comm, &st);
        CHECK_TRUNC("MPI_Recv 4 MiB ramp into 1000 ints", rc);
#ifdef MPICH_VERSION
        CHECK_SENTINEL("MPI_Recv truncation must not write beyond the receive buffer", b, 4000,
                       (size_t)big * 4);
#endif
        free(b);
    }
    follow_up("large MPI_Recv truncation", 20);
    mt_group_end();

    mt_group_begin("MPI_Irecv + MPI_Wait truncation");
    if (mt_rank == 0) {
        double *a = mt_malloc(big * sizeof(double));
        mt_fill(a, big, 'd', PAT_SMOOTH, 3);
        MPI_CALL(MPI_Send(a, big, MPI_DOUBLE, 1, 3, comm));
        MPI_CALL(MPI_Send(a, 100, MPI_DOUBLE, 1, 3, comm));
        free(a);
    } else if (mt_rank == 1) {
        double *b = mt_malloc(big * sizeof(double));
        MPI_Request r;
        MPI_CALL(MPI_Irecv(b, big - 1, MPI_DOUBLE, 0, 3, comm, &r));
        int rc = MPI_Wait(&r, &st);
        CHECK_TRUNC("MPI_Wait: 8 MiB doubles into 8 MiB - 8 B", rc);
        MPI_CALL(MPI_Irecv(b, 99, MPI_DOUBLE, 0, 3, comm, &r));
        int flag = 0;
        rc = MPI_SUCCESS;
        while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&r, &flag, &st);
        CHECK_TRUNC("MPI_Test: 100 doubles into 99", rc);
        free(b);
    }
    follow_up("MPI_Wait/MPI_Test truncation", 30);
    mt_group_end();

    mt_group_begin("MPI_Waitall with one truncated receive -> MPI_ERR_IN_STATUS");
    if (mt_rank == 1) {
        double *a = mt_malloc(big * sizeof(double));
        mt_fill(a, big, 'd', PAT_RAMP, 4);
        MPI_CALL(MPI_Send(a, 1000, MPI_DOUBLE, 0, 41, comm));
        MPI_CALL(MPI_Send(a, big, MPI_DOUBLE, 0, 42, comm));
        MPI_CALL(MPI_Send(a, 1000, MPI_DOUBLE, 0, 43, comm));
        free(a);
    } else if (mt_rank == 0) {
        double *b = mt_malloc((size_t)3 * big * sizeof(double));
        MPI_Request r[3];
        MPI_Status sts[3];
        for (int i = 0; i < 3; i++) sts[i].MPI_ERROR = MT_ERR_SENTINEL;
        MPI_CALL(MPI_Irecv(b, 1000, MPI_DOUBLE, 1, 41, comm, &r[0]));
        MPI_CALL(MPI_Irecv(b + big, big / 4, MPI_DOUBLE, 1, 42, comm, &r[1]));
        MPI_CALL(MPI_Irecv(b + 2 * (size_t)big, 1000, MPI_DOUBLE, 1, 43, comm, &r[2]));
        int rc = MPI_Waitall(3, r, sts);
        CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "MPI_Waitall return", "expected MPI_ERR_IN_STATUS (%d), got %s",
              MPI_ERR_IN_STATUS, mt_errstr(rc));
        CHECK(err_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE, "MPI_Waitall statuses[1].MPI_ERROR",
              "expected MPI_ERR_TRUNCATE, got %s", mt_errstr(sts[1].MPI_ERROR));
        /* entries that did not fail are MPI_SUCCESS (completed) or MPI_ERR_PENDING (still active) */
        for (int i = 0; i < 3; i += 2) {
            int ec = err_class(sts[i].MPI_ERROR);
            CHECK(ec == MPI_SUCCESS || ec == MPI_ERR_PENDING, "MPI_Waitall statuses[i].MPI_ERROR for a good receive",
                  "entry %d: expected MPI_SUCCESS or MPI_ERR_PENDING, got %s", i, mt_errstr(sts[i].MPI_ERROR));
            if (ec == MPI_ERR_PENDING) {
                CHECK(r[i] != MPI_REQUEST_NULL, "MPI_ERR_PENDING request still active",
                      "entry %d is MPI_REQUEST_NULL", i);
                MPI_CALL(MPI_Wait(&r[i], &sts[i]));
            } else {
                CHECK(r[i] == MPI_REQUEST_NULL, "completed request freed", "entry %d not MPI_REQUEST_NULL", i);
            }
        }
        CHECK_STATUS("Waitall ok entry 0", &sts[0], 1, 41, MPI_DOUBLE, 1000);
        CHECK_STATUS("Waitall ok entry 2", &sts[2], 1, 43, MPI_DOUBLE, 1000);
        CHECK_PATTERN("Waitall ok entry 0", b, 1000, 'd', PAT_RAMP, 4);
        CHECK_PATTERN("Waitall ok entry 2", b + 2 * (size_t)big, 1000, 'd', PAT_RAMP, 4);
        free(b);
    }
    follow_up("MPI_Waitall truncation", 40);
    mt_group_end();

    mt_group_begin("MPI_Mprobe + MPI_Mrecv truncation");
    if (mt_rank == 1) {
        int *a = mt_malloc(big * sizeof(int));
        mt_fill(a, big, 'i', PAT_SMOOTH, 5);
        MPI_CALL(MPI_Send(a, big, MPI_INT, 0, 6, comm));
        free(a);
    } else if (mt_rank == 0) {
        int *b = mt_malloc(big * sizeof(int));
        MPI_Message m;
        MPI_CALL(MPI_Mprobe(1, 6, comm, &m, &st));
        int c = 0;
        MPI_Get_count(&st, MPI_INT, &c);
        CHECK_INT("Mprobe Get_count before truncating Mrecv", big, c);
        int rc = MPI_Mrecv(b, big / 3, MPI_INT, &m, &st);
        CHECK_TRUNC("MPI_Mrecv 4 MiB into 1.3 MiB", rc);
        free(b);
    }
    follow_up("MPI_Mrecv truncation", 50);
    mt_group_end();

    mt_group_begin("MPI_Sendrecv truncation (receive part)");
    {
        int n = 400000;
        float *s = mt_malloc(n * sizeof(float)), *r = mt_malloc(n * sizeof(float));
        mt_fill(s, n, 'f', PAT_RAMP, 6 + mt_rank);
        if (mt_rank < 2) {
            int peer = 1 - mt_rank;
            /* rank 0 receives into a short buffer, rank 1 into a full one */
            int rc = MPI_Sendrecv(s, n, MPI_FLOAT, peer, 7, r, mt_rank == 0 ? n / 2 : n, MPI_FLOAT, peer, 7, comm, &st);
            if (mt_rank == 0) {
                CHECK_TRUNC("MPI_Sendrecv receive of 1.6 MB into 0.8 MB", rc);
            } else {
                CHECK_INT("MPI_Sendrecv on the non-truncated side returns", MPI_SUCCESS, rc);
                CHECK_PATTERN("MPI_Sendrecv non-truncated side data", r, n, 'f', PAT_RAMP, 6);
            }
        }
        free(s);
        free(r);
    }
    follow_up("MPI_Sendrecv truncation", 60);
    mt_group_end();

    mt_group_begin("truncation into a derived (vector) receive type, MPI_Waitany / MPI_Waitsome");
    {
        int N = 100000;
        MPI_Datatype v;
        MPI_Type_vector(N, 2, 3, MPI_DOUBLE, &v); /* 2N doubles */
        MPI_Type_commit(&v);
        double *a = mt_malloc((size_t)3 * N * sizeof(double));
        if (mt_rank == 1) {
            mt_fill(a, (size_t)3 * N, 'd', PAT_RAMP, 70);
            MPI_CALL(MPI_Send(a, 2 * N + 2, MPI_DOUBLE, 0, 71, comm)); /* 2 doubles too many */
            MPI_CALL(MPI_Send(a, 3 * N, MPI_DOUBLE, 0, 72, comm));
            MPI_CALL(MPI_Send(a, 3 * N, MPI_DOUBLE, 0, 73, comm));
        } else if (mt_rank == 0) {
            int rc = MPI_Recv(a, 1, v, 1, 71, comm, &st);
            CHECK_TRUNC("MPI_Recv into 1 vector(N,2,3) of 2N+2 doubles", rc);
            MPI_Request r[2];
            int idx = -5;
            MPI_CALL(MPI_Irecv(a, 1, v, 1, 72, comm, &r[0]));
            r[1] = MPI_REQUEST_NULL;
            rc = MPI_Waitany(2, r, &idx, &st);
            CHECK_TRUNC("MPI_Waitany on a truncated vector receive (return code)", rc);
            CHECK_INT("MPI_Waitany index", 0, idx);
            int oc = -5, ind[2];
            MPI_Status sts[2];
            sts[0].MPI_ERROR = MT_ERR_SENTINEL;
            MPI_CALL(MPI_Irecv(a, 3 * N - 1, MPI_DOUBLE, 1, 73, comm, &r[0]));
            rc = MPI_Waitsome(2, r, &oc, ind, sts);
            CHECK(err_class(rc) == MPI_ERR_IN_STATUS, "MPI_Waitsome with a truncated receive",
                  "expected MPI_ERR_IN_STATUS, got %s", mt_errstr(rc));
            CHECK_INT("MPI_Waitsome outcount", 1, oc);
            CHECK(err_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "MPI_Waitsome statuses[0].MPI_ERROR",
                  "expected MPI_ERR_TRUNCATE, got %s", mt_errstr(sts[0].MPI_ERROR));
        }
        MPI_Type_free(&v);
        free(a);
    }
    follow_up("vector / Waitany / Waitsome truncation", 70);
    mt_group_end();

    mt_group_begin("truncation of a persistent receive (MPI_Recv_init)");
    {
        int n = 200000;
        int *a = mt_malloc((size_t)n * sizeof(int));
        if (mt_rank == 1) {
            mt_fill(a, n, 'i', PAT_SMOOTH, 80);
            MPI_CALL(MPI_Send(a, n, MPI_INT, 0, 81, comm));
            MPI_CALL(MPI_Send(a, n / 2, MPI_INT, 0, 81, comm));
        } else if (mt_rank == 0) {
            MPI_Request r;
            MPI_CALL(MPI_Recv_init(a, n / 2, MPI_INT, 1, 81, comm, &r));
            MPI_CALL(MPI_Start(&r));
            int rc = MPI_Wait(&r, &st);
            CHECK_TRUNC("MPI_Wait on a truncated persistent receive", rc);
            /* the request's state after an error is not specified (plain Open MPI
             * has freed it): release it if still there, then use a fresh one */
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
            MPI_CALL(MPI_Recv_init(a, n / 2, MPI_INT, 1, 81, comm, &r));
            memset(a, 0, (size_t)n * sizeof(int));
            MPI_CALL(MPI_Start(&r));
            MPI_CALL(MPI_Wait(&r, &st));
            CHECK_STATUS("new persistent receive after truncation", &st, 1, 81, MPI_INT, n / 2);
            CHECK_PATTERN("new persistent receive after truncation", a, n / 2, 'i', PAT_SMOOTH, 80);
            MPI_CALL(MPI_Request_free(&r));
        }
        free(a);
    }
    follow_up("persistent receive truncation", 80);
    mt_group_end();

    mt_group_begin("truncation by one element across sizes (MPI_BYTE and MPI_DOUBLE)");
    {
        static const int sz[] = {1, 2, 31, 100, 4095, 4096, 4097, 16384, 65536, 65537, 262144, 1048577};
        for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
            for (int dbl = 0; dbl < 2; dbl++) {
                int n = dbl ? (sz[i] + 7) / 8 : sz[i];
                size_t es = dbl ? 8 : 1;
                MPI_Datatype t = dbl ? MPI_DOUBLE : MPI_BYTE;
                unsigned char *a = mt_malloc((size_t)n * es + 64);
                int tag = 90 + (int)i * 2 + dbl;
                if (mt_rank == 1) {
                    mt_fill(a, (size_t)n * es, 'b', i % 3 == 2 ? PAT_RANDOM : PAT_ZERO, tag);
                    MPI_CALL(MPI_Send(a, n, t, 0, tag, comm));
                    MPI_CALL(MPI_Send(a, n, t, 0, tag, comm));
                } else if (mt_rank == 0) {
                    memset(a, MT_SENTINEL, (size_t)n * es + 64);
                    int rc = MPI_Recv(a, n - 1, t, 1, tag, comm, &st);
                    char w[128];
                    snprintf(w, sizeof w, "MPI_Recv of %d x %s into %d", n, dbl ? "MPI_DOUBLE" : "MPI_BYTE", n - 1);
                    CHECK_TRUNC(w, rc);
#ifdef MPICH_VERSION
                    CHECK_SENTINEL(w, a, (size_t)(n - 1) * es, (size_t)n * es + 64);
#endif
                    MPI_CALL(MPI_Recv(a, n, t, 1, tag, comm, &st));
                    CHECK_STATUS("same size again, full buffer", &st, 1, tag, t, n);
                    CHECK_PATTERN("same size again, full buffer", a, (size_t)n * es, 'b', i % 3 == 2 ? PAT_RANDOM : PAT_ZERO, tag);
                }
                free(a);
            }
        }
    }
    mt_group_end();

    truncated_counts();
    follow_up("truncations on every receive path", 110);

    MPI_Comm_free(&comm);
    return mt_finish();
}
