/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_modes: the rarer send modes and request kinds around compi's messages,
 * each rank sending to the next one in a ring (so under
 * COMPI_DEBUG_RANKS_PER_NODE=2 some pairs share a node and some do not).
 *   - MPI_Rsend / MPI_Irsend / MPI_Rsend_init of a strided vector type into
 *     a contiguous receive, small and large (pipelined under COMPI_CHUNK);
 *     where MPI 4.0 is there, the large-count ready, synchronous and
 *     buffered sends too (MPI_Buffer_detach_c after the buffered ones)
 *   - a receive of 7 ints into a 2-int derived type: MPI_Get_count is
 *     MPI_UNDEFINED, MPI_Get_elements 7; MPI_Status_set_elements on that
 *     status then rules both
 *   - generalized requests (MPI_Grequest_start) in one array with compi's
 *     receive and send: MPI_Testall / Testsome / Testany must leave them
 *     pending until MPI_Grequest_complete, then report the query function's
 *     status; MPI_Waitall / MPI_Waitany with them
 *   - MPI_Cancel of a started persistent receive, then the same request
 *     started again receives
 *   - MPI_Bsend_init: the send buffer is overwritten as soon as the send
 *     completes, before the receive is posted; MPI_Buffer_detach returns the
 *     attached buffer */
#include "mpitest.h"

static int left, right;

#if MPI_VERSION >= 4
#define NMODES 12
#else
#define NMODES 3
#endif
static const char *mode_names[] = {"MPI_Rsend", "MPI_Irsend", "MPI_Rsend_init", "MPI_Rsend_c", "MPI_Irsend_c",
                                   "MPI_Rsend_init_c", "MPI_Ssend_c", "MPI_Issend_c", "MPI_Ssend_init_c",
                                   "MPI_Bsend_c", "MPI_Ibsend_c", "MPI_Bsend_init_c"};

/* One send of mode `mode` to the right, the receive from the left posted
 * before it. The int forms send one vector of n strided ints; the _c forms
 * send n ints resized to a stride of 2 (the same layout), so a count beyond
 * compi's int limit goes the large-count way. */
static int mode_send(int mode, const int *s, int n, MPI_Datatype vec, MPI_Datatype strided, MPI_Request *pr)
{
    MPI_Request sr;
    switch (mode) {
    case 0: return MPI_Rsend(s, 1, vec, right, 20, MPI_COMM_WORLD);
    case 1: MPI_CALL(MPI_Irsend(s, 1, vec, right, 20, MPI_COMM_WORLD, &sr)); return MPI_Wait(&sr, MPI_STATUS_IGNORE);
    case 2: MPI_CALL(MPI_Start(pr)); return MPI_Wait(pr, MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
    case 3: return MPI_Rsend_c(s, n, strided, right, 20, MPI_COMM_WORLD);
    case 4: MPI_CALL(MPI_Irsend_c(s, n, strided, right, 20, MPI_COMM_WORLD, &sr)); return MPI_Wait(&sr, MPI_STATUS_IGNORE);
    case 5: case 8: case 11: MPI_CALL(MPI_Start(pr)); return MPI_Wait(pr, MPI_STATUS_IGNORE);
    case 6: return MPI_Ssend_c(s, n, strided, right, 20, MPI_COMM_WORLD);
    case 7: MPI_CALL(MPI_Issend_c(s, n, strided, right, 20, MPI_COMM_WORLD, &sr)); return MPI_Wait(&sr, MPI_STATUS_IGNORE);
    case 9: return MPI_Bsend_c(s, n, strided, right, 20, MPI_COMM_WORLD);
    case 10: MPI_CALL(MPI_Ibsend_c(s, n, strided, right, 20, MPI_COMM_WORLD, &sr)); return MPI_Wait(&sr, MPI_STATUS_IGNORE);
#endif
    }
    (void)n; (void)strided;
    return MPI_ERR_OTHER;
}

static void ring_mode(int n, int mode)
{
    const char *name = mode_names[mode];
    mt_group_begin("%s of strided ints, %d ints", name, n);
    MPI_Datatype vec, strided;
    MPI_CALL(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
    MPI_CALL(MPI_Type_commit(&vec));
    MPI_CALL(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided));
    MPI_CALL(MPI_Type_commit(&strided));
    int *s = mt_malloc(2 * (size_t)n * sizeof(int)), *exp = mt_malloc((size_t)n * sizeof(int));
    int *r = mt_malloc(((size_t)n + 4) * sizeof(int));
    char *att = NULL;
    int bsz = 2 * (n * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    MPI_Request pr = MPI_REQUEST_NULL;
    if (mode == 2) MPI_CALL(MPI_Rsend_init(s, 1, vec, right, 20, MPI_COMM_WORLD, &pr));
#if MPI_VERSION >= 4
    if (mode == 5) MPI_CALL(MPI_Rsend_init_c(s, n, strided, right, 20, MPI_COMM_WORLD, &pr));
    if (mode == 8) MPI_CALL(MPI_Ssend_init_c(s, n, strided, right, 20, MPI_COMM_WORLD, &pr));
    if (mode == 11) MPI_CALL(MPI_Bsend_init_c(s, n, strided, right, 20, MPI_COMM_WORLD, &pr));
#endif
    if (mode >= 9) { att = mt_malloc((size_t)bsz); MPI_CALL(MPI_Buffer_attach(att, bsz)); }
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n; i++) { s[2 * i] = mt_rank * 100000 + round * 50000 + i; s[2 * i + 1] = -1; }
        memset(r, MT_SENTINEL, ((size_t)n + 4) * sizeof(int));
        MPI_Request rr;
        MPI_Status st;
        MPI_CALL(MPI_Irecv(r, n + 4, MPI_INT, left, 20, MPI_COMM_WORLD, &rr));
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); /* every receive is posted */
        int rc = mode_send(mode, s, n, vec, strided, &pr);
        CHECK_INT(name, MPI_SUCCESS, rc);
        MPI_CALL(MPI_Wait(&rr, &st));
        CHECK_STATUS(name, &st, left, 20, MPI_INT, n);
        for (int i = 0; i < n; i++) exp[i] = left * 100000 + round * 50000 + i;
        CHECK_DATA(name, r, exp, (size_t)n, 'i');
        CHECK_SENTINEL(name, r, (size_t)n * sizeof(int), ((size_t)n + 4) * sizeof(int));
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (pr != MPI_REQUEST_NULL) MPI_CALL(MPI_Request_free(&pr));
    if (att) {
        void *db = NULL;
#if MPI_VERSION >= 4
        MPI_Count ds = -1;
        MPI_CALL(MPI_Buffer_detach_c(&db, &ds));
#else
        int ds = -1;
        MPI_CALL(MPI_Buffer_detach(&db, &ds));
#endif
        CHECK(db == att, "buffer detach pointer", "expected %p, got %p", (void *)att, db);
        CHECK_INT("buffer detach size", bsz, ds);
        free(att);
    }
    MPI_CALL(MPI_Type_free(&vec));
    MPI_CALL(MPI_Type_free(&strided));
    free(s); free(exp); free(r);
    mt_group_end();
}

static void partial_elements(void)
{
    mt_group_begin("7 ints received as 2-int pairs; MPI_Status_set_elements");
    MPI_Datatype pair;
    MPI_CALL(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_CALL(MPI_Type_commit(&pair));
    for (int v = 0; v < 2; v++) {
        int s[7], r[16], exp[7];
        for (int i = 0; i < 7; i++) { s[i] = mt_rank * 10 + i + v; exp[i] = left * 10 + i + v; }
        for (int i = 0; i < 16; i++) r[i] = -7;
        MPI_Status st;
        MPI_Request rr, sr;
        MPI_CALL(MPI_Isend(s, 7, MPI_INT, right, 30 + v, MPI_COMM_WORLD, &sr));
        if (v == 0) MPI_CALL(MPI_Recv(r, 8, pair, left, 30, MPI_COMM_WORLD, &st));
        else { MPI_CALL(MPI_Irecv(r, 8, pair, left, 31, MPI_COMM_WORLD, &rr)); MPI_CALL(MPI_Wait(&rr, &st)); }
        MPI_CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        const char *w = v ? "MPI_Irecv" : "MPI_Recv";
        int c = -5, e = -5;
        MPI_CALL(MPI_Get_count(&st, pair, &c));
        MPI_CALL(MPI_Get_elements(&st, pair, &e));
        CHECK_INT(w, MPI_UNDEFINED, c);
        CHECK_INT(w, 7, e);
        CHECK_INT(w, left, st.MPI_SOURCE);
        CHECK_INT(w, 30 + v, st.MPI_TAG);
        MPI_CALL(MPI_Get_count(&st, MPI_INT, &c));
        CHECK_INT(w, 7, c);
        CHECK_DATA(w, r, exp, 7, 'i');
        CHECK_INT("past the message", -7, r[7]);
        MPI_CALL(MPI_Status_set_elements(&st, MPI_INT, 4));
        MPI_CALL(MPI_Get_count(&st, pair, &c));
        MPI_CALL(MPI_Get_elements(&st, pair, &e));
        CHECK_INT("MPI_Status_set_elements 4 ints: count of pairs", 2, c);
        CHECK_INT("MPI_Status_set_elements 4 ints: elements", 4, e);
        CHECK_INT("MPI_Status_set_elements keeps the source", left, st.MPI_SOURCE);
    }
    MPI_CALL(MPI_Type_free(&pair));
    mt_group_end();
}

static int greq_freed;
static int greq_query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_BYTE, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 44;
    return MPI_SUCCESS;
}
static int greq_free(void *extra) { (void)extra; greq_freed++; return MPI_SUCCESS; }
static int greq_cancel(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static void check_greq_status(const char *w, MPI_Status *st, int bytes)
{
    int c = -5, canc = -5;
    MPI_Get_count(st, MPI_BYTE, &c);
    MPI_Test_cancelled(st, &canc);
    CHECK_INT(w, bytes, c);
    CHECK_INT(w, 0, canc);
    CHECK_INT(w, 3, st->MPI_SOURCE);
    CHECK_INT(w, 44, st->MPI_TAG);
}

/* 0 Testall, 1 Testsome, 2 Testany, 3 Waitall, 4 Waitany */
static void greq_mixed(int how)
{
    static const char *names[] = {"MPI_Testall", "MPI_Testsome", "MPI_Testany", "MPI_Waitall", "MPI_Waitany"};
    mt_group_begin("generalized request with compi's requests: %s", names[how]);
    enum { N = 3000 };
    double *s = mt_malloc(N * sizeof(double)), *r = mt_malloc(N * sizeof(double));
    mt_fill(s, N, 'd', PAT_SMOOTH, 50 + how + mt_rank);
    memset(r, 0, N * sizeof(double));
    int bytes = 40 + how;
    MPI_Request q[3];
    MPI_Status sts[3];
    greq_freed = 0;
    MPI_CALL(MPI_Irecv(r, N, MPI_DOUBLE, left, 40 + how, MPI_COMM_WORLD, &q[0]));
    MPI_CALL(MPI_Isend(s, N, MPI_DOUBLE, right, 40 + how, MPI_COMM_WORLD, &q[1]));
    MPI_CALL(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &bytes, &q[2]));
    MPI_Request g = q[2];
    int seen[3] = {0, 0, 0}, flag = 0, idx, outc, ind[3];
    double t0 = MPI_Wtime();
    if (how == 0) {
        /* compi's two may complete meanwhile: Testall must still say no and
         * leave all three requests as they are */
        MPI_Request q0 = q[0], q1 = q[1];
        for (int i = 0; i < 200; i++) {
            MPI_CALL(MPI_Testall(3, q, &flag, sts));
            CHECK(!flag, "MPI_Testall before MPI_Grequest_complete", "flag set");
            CHECK(q[0] == q0 && q[1] == q1 && q[2] == g, "MPI_Testall before MPI_Grequest_complete",
                  "a request changed");
            if (flag) break;
        }
        MPI_CALL(MPI_Grequest_complete(g));
        while (!flag) MPI_CALL(MPI_Testall(3, q, &flag, sts));
        CHECK_STATUS("MPI_Testall: compi's receive", &sts[0], left, 40 + how, MPI_DOUBLE, N);
        check_greq_status("MPI_Testall: query function's status", &sts[2], bytes);
        seen[0] = seen[1] = seen[2] = 1;
    } else if (how == 1 || how == 2) {
        while (!(seen[0] && seen[1])) {
            if (how == 1) {
                MPI_CALL(MPI_Testsome(3, q, &outc, ind, sts));
                for (int k = 0; k < outc; k++) {
                    CHECK(ind[k] != 2, names[how], "generalized request reported before MPI_Grequest_complete");
                    if (ind[k] == 0) CHECK_STATUS("MPI_Testsome: compi's receive", &sts[k], left, 40 + how, MPI_DOUBLE, N);
                    seen[ind[k]]++;
                }
            } else {
                MPI_CALL(MPI_Testany(3, q, &idx, &flag, &sts[0]));
                if (flag) {
                    CHECK(idx == 0 || idx == 1, names[how], "index %d before MPI_Grequest_complete", idx);
                    if (idx == 0) CHECK_STATUS("MPI_Testany: compi's receive", &sts[0], left, 40 + how, MPI_DOUBLE, N);
                    if (idx >= 0 && idx < 3) seen[idx]++;
                }
            }
            if (MPI_Wtime() - t0 > 20) { CHECK(0, names[how], "compi's requests never completed"); break; }
        }
        CHECK(q[2] == g, names[how], "generalized request changed before MPI_Grequest_complete");
        if (how == 1) {
            MPI_CALL(MPI_Testsome(3, q, &outc, ind, sts));
            CHECK_INT("MPI_Testsome with only the pending generalized request", 0, outc);
        } else {
            MPI_CALL(MPI_Testany(3, q, &idx, &flag, &sts[0]));
            CHECK_INT("MPI_Testany with only the pending generalized request: flag", 0, flag);
            CHECK_INT("MPI_Testany with only the pending generalized request: index", MPI_UNDEFINED, idx);
        }
        MPI_CALL(MPI_Grequest_complete(g));
        if (how == 1) {
            MPI_CALL(MPI_Testsome(3, q, &outc, ind, sts));
            CHECK_INT("MPI_Testsome after MPI_Grequest_complete: outcount", 1, outc);
            CHECK_INT("MPI_Testsome after MPI_Grequest_complete: index", 2, ind[0]);
            check_greq_status("MPI_Testsome: query function's status", &sts[0], bytes);
        } else {
            MPI_CALL(MPI_Testany(3, q, &idx, &flag, &sts[0]));
            CHECK_INT("MPI_Testany after MPI_Grequest_complete: flag", 1, flag);
            CHECK_INT("MPI_Testany after MPI_Grequest_complete: index", 2, idx);
            check_greq_status("MPI_Testany: query function's status", &sts[0], bytes);
        }
        seen[2]++;
    } else {
        MPI_CALL(MPI_Grequest_complete(g));
        if (how == 3) {
            MPI_CALL(MPI_Waitall(3, q, sts));
            CHECK_STATUS("MPI_Waitall: compi's receive", &sts[0], left, 40 + how, MPI_DOUBLE, N);
            check_greq_status("MPI_Waitall: query function's status", &sts[2], bytes);
            seen[0] = seen[1] = seen[2] = 1;
        } else {
            for (int k = 0; k < 3; k++) {
                MPI_CALL(MPI_Waitany(3, q, &idx, &sts[0]));
                CHECK(idx >= 0 && idx < 3, "MPI_Waitany index", "got %d", idx);
                if (idx < 0 || idx >= 3) break;
                seen[idx]++;
                if (idx == 0) CHECK_STATUS("MPI_Waitany: compi's receive", &sts[0], left, 40 + how, MPI_DOUBLE, N);
                if (idx == 2) check_greq_status("MPI_Waitany: query function's status", &sts[0], bytes);
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        CHECK_INT("each request reported once", 1, seen[k]);
        CHECK(q[k] == MPI_REQUEST_NULL, "request freed", "q[%d] not MPI_REQUEST_NULL", k);
    }
    CHECK_INT("free function calls", 1, greq_freed);
    CHECK_PATTERN("compi's receive data", r, N, 'd', PAT_SMOOTH, 50 + how + left);
    free(s); free(r);
    mt_group_end();
}

static void persistent_cancel(void)
{
    mt_group_begin("MPI_Cancel of a started persistent receive, then started again");
    enum { N = 5000 };
    int *r = mt_malloc(N * sizeof(int)), *s = mt_malloc(N * sizeof(int)), *exp = mt_malloc(N * sizeof(int));
    MPI_Request pr, sr;
    MPI_Status st;
    MPI_CALL(MPI_Recv_init(r, N, MPI_INT, left, 60, MPI_COMM_WORLD, &pr));
    MPI_CALL(MPI_Start(&pr));
    MPI_CALL(MPI_Cancel(&pr));
    MPI_CALL(MPI_Wait(&pr, &st));
    int canc = -1;
    MPI_CALL(MPI_Test_cancelled(&st, &canc));
    CHECK_INT("MPI_Test_cancelled of the unmatched persistent receive", 1, canc);
    CHECK(pr != MPI_REQUEST_NULL, "persistent request after MPI_Wait", "freed");
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); /* every receive cancelled before any send */
    for (int i = 0; i < N; i++) { s[i] = mt_rank * 7 + i; exp[i] = left * 7 + i; }
    MPI_CALL(MPI_Start(&pr));
    MPI_CALL(MPI_Isend(s, N, MPI_INT, right, 60, MPI_COMM_WORLD, &sr));
    MPI_CALL(MPI_Wait(&pr, &st));
    MPI_CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    MPI_CALL(MPI_Test_cancelled(&st, &canc));
    CHECK_INT("MPI_Test_cancelled of the restarted receive", 0, canc);
    CHECK_STATUS("restarted persistent receive", &st, left, 60, MPI_INT, N);
    CHECK_DATA("restarted persistent receive", r, exp, N, 'i');
    MPI_CALL(MPI_Request_free(&pr));
    free(r); free(s); free(exp);
    mt_group_end();
}

static void bsend_init_detach(void)
{
    /* Plain Open MPI 4.1 (ob1) resends stale or zeroed data on a restarted
     * MPI_Bsend_init request (open-mpi/ompi#12797; p2p_persistent): under
     * Open MPI < 5 the request is re-created before every start */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
    const int recreate = 1;
#else
    const int recreate = 0;
#endif
    enum { N = 40000 };
    mt_group_begin("MPI_Bsend_init: buffer reused at once, MPI_Buffer_detach, %d doubles", N);
    int bsz = 4 * (N * (int)sizeof(double) + MPI_BSEND_OVERHEAD); /* all four messages */
    char *att = mt_malloc((size_t)bsz);
    double *s = mt_malloc(N * sizeof(double)), *r = mt_malloc(N * sizeof(double));
    MPI_Request br;
    MPI_Status st;
    MPI_CALL(MPI_Buffer_attach(att, bsz));
    MPI_CALL(MPI_Bsend_init(s, N, MPI_DOUBLE, right, 70, MPI_COMM_WORLD, &br));
    for (int round = 0; round < 3; round++) {
        mt_fill(s, N, 'd', PAT_SMOOTH, 70 + round * 10 + mt_rank);
        if (recreate && round > 0) {
            MPI_CALL(MPI_Request_free(&br));
            MPI_CALL(MPI_Bsend_init(s, N, MPI_DOUBLE, right, 70, MPI_COMM_WORLD, &br));
        }
        MPI_CALL(MPI_Start(&br));
        MPI_CALL(MPI_Wait(&br, MPI_STATUS_IGNORE));
        memset(s, 0xEE, N * sizeof(double)); /* the message was copied out */
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        memset(r, 0, N * sizeof(double));
        MPI_CALL(MPI_Recv(r, N, MPI_DOUBLE, left, 70, MPI_COMM_WORLD, &st));
        CHECK_STATUS("MPI_Bsend_init message", &st, left, 70, MPI_DOUBLE, N);
        CHECK_PATTERN("MPI_Bsend_init message", r, N, 'd', PAT_SMOOTH, 70 + round * 10 + left);
    }
    /* one more round, its send buffer overwritten and the request freed
     * before the detach, which must deliver it */
    mt_fill(s, N, 'd', PAT_RAMP, 99 + mt_rank);
    if (recreate) {
        MPI_CALL(MPI_Request_free(&br));
        MPI_CALL(MPI_Bsend_init(s, N, MPI_DOUBLE, right, 70, MPI_COMM_WORLD, &br));
    }
    MPI_CALL(MPI_Start(&br));
    MPI_CALL(MPI_Wait(&br, MPI_STATUS_IGNORE));
    MPI_CALL(MPI_Request_free(&br));
    memset(s, 0xEE, N * sizeof(double));
    MPI_Request rr;
    MPI_CALL(MPI_Irecv(r, N, MPI_DOUBLE, left, 70, MPI_COMM_WORLD, &rr));
    void *db = NULL;
    int ds = -1;
    MPI_CALL(MPI_Buffer_detach(&db, &ds));
    CHECK(db == att, "MPI_Buffer_detach pointer", "expected %p, got %p", (void *)att, db);
    CHECK_INT("MPI_Buffer_detach size", bsz, ds);
    MPI_CALL(MPI_Wait(&rr, &st));
    CHECK_STATUS("buffered message completed by the detach", &st, left, 70, MPI_DOUBLE, N);
    CHECK_PATTERN("buffered message completed by the detach", r, N, 'd', PAT_RAMP, 99 + left);
    free(att); free(s); free(r);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_modes");
    mt_require_size(2);
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank + mt_size - 1) % mt_size;
    for (int mode = 0; mode < NMODES; mode++) {
        ring_mode(5, mode);
        ring_mode(40000, mode);
    }
    partial_elements();
    for (int how = 0; how < 5; how++) greq_mixed(how);
    persistent_cancel();
    bsend_init_detach();
    return mt_finish();
}
