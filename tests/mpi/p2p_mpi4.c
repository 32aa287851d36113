/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_mpi4: MPI 4.0's point-to-point calls (MPICH 4.0 has them; the build
 * registers this program only there): MPI_Isendrecv, MPI_Isendrecv_replace
 * and the large-count _c calls, each matched against the MPI-3 calls on the
 * other side (a message may be sent with one form and received with the
 * other), on a ring where every message crosses to another rank:
 *   - Isendrecv with named and wildcard sources, mixed with Isend/Irecv in
 *     one Waitall, completed by Test loops, Testany, Request_get_status;
 *   - Isendrecv_replace with a strided type; MPI_PROC_NULL peers;
 *   - a truncated Isendrecv (MPI_ERR_TRUNCATE);
 *   - Send_c / Recv_c / Isend_c / Irecv_c / Sendrecv_c / Isendrecv_c /
 *     Mrecv_c / Imrecv_c / persistent _c, MPI_Get_count_c on the statuses;
 *   - the collectives' _c forms against their int forms.
 * The counts stay small; a run with COMPI_DEBUG_INT_LIMIT lowered takes the
 * path of counts beyond an int (one element of a derived type). */
#include "mpitest.h"

#define N 20000 /* doubles: compressible, big enough to be pipelined in the _pipe runs */

static int left, right;

/* MPICH 4.0 leaves the status of MPI_Isendrecv(_replace) unset (source,
 * tag and count are whatever the request held; measured with 4.0.2). The
 * standard's status is the receive's; compi gives it where it runs the
 * call itself (every message to another node), so the checks of those
 * statuses run there and on MPIs that fill them. */
static int isendrecv_status_defined(void)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
    const char *rpn = getenv("COMPI_DEBUG_RANKS_PER_NODE");
    return mt_libcompi_mapped() && rpn && strcmp(rpn, "1") == 0;
#else
    return 1;
#endif
}
#define CHECK_SR_STATUS(what, st, src, tag, type, count)                                                               \
    do {                                                                                                               \
        if (isendrecv_status_defined()) CHECK_STATUS(what, st, src, tag, type, count);                                 \
    } while (0)

static void fill(double *d, int n, int seed)
{
    mt_fill(d, (size_t)n, 'd', PAT_SMOOTH, (uint64_t)seed);
}

static void isendrecv_ring(void)
{
    mt_group_begin("MPI_Isendrecv around the ring, named source");
    double *s = mt_malloc(N * sizeof(double)), *r = mt_malloc(N * sizeof(double));
    fill(s, N, mt_rank);
    memset(r, 0, N * sizeof(double));
    MPI_Request req;
    MPI_Status st;
    MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 11, r, N, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &req));
    MPI_CALL(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "request freed by MPI_Wait", "handle not MPI_REQUEST_NULL");
    CHECK_SR_STATUS("Isendrecv status", &st, left, 11, MPI_DOUBLE, N);
    CHECK_PATTERN("Isendrecv data", r, N, 'd', PAT_SMOOTH, left);
    MPI_Count c = -1;
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    if (isendrecv_status_defined()) CHECK_INT("MPI_Get_count_c", N, c);
    mt_group_end();

    mt_group_begin("MPI_Isendrecv, wildcard source and tag, completed by a Test loop");
    memset(r, 0, N * sizeof(double));
    MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 12 + mt_rank, r, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &req));
    int flag = 0;
    while (!flag) MPI_CALL(MPI_Test(&req, &flag, &st));
    CHECK_SR_STATUS("wildcard status", &st, left, 12 + left, MPI_DOUBLE, N);
    CHECK_PATTERN("wildcard data", r, N, 'd', PAT_SMOOTH, left);
    mt_group_end();

    mt_group_begin("MPI_Isendrecv matched by the peers' MPI_Isend and MPI_Irecv, one Waitall");
    /* every rank: Isend to the right (tag 21) is received by the right's
     * Isendrecv; the Isendrecv's send (tag 22) by the right's Irecv */
    double *a = mt_malloc(N * sizeof(double)), *ra = mt_malloc(N * sizeof(double)), *rb = mt_malloc(N * sizeof(double));
    fill(a, N, 100 + mt_rank);
    fill(s, N, 200 + mt_rank);
    memset(ra, 0, N * sizeof(double));
    memset(rb, 0, N * sizeof(double));
    MPI_Request rq[3];
    MPI_Status sts[3];
    MPI_CALL(MPI_Irecv(rb, N, MPI_DOUBLE, left, 22, MPI_COMM_WORLD, &rq[0]));
    MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 22, ra, N, MPI_DOUBLE, left, 21, MPI_COMM_WORLD, &rq[1]));
    MPI_CALL(MPI_Isend(a, N, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &rq[2]));
    MPI_CALL(MPI_Waitall(3, rq, sts));
    CHECK_STATUS("Irecv status", &sts[0], left, 22, MPI_DOUBLE, N);
    CHECK_SR_STATUS("Isendrecv status in Waitall", &sts[1], left, 21, MPI_DOUBLE, N);
    CHECK_PATTERN("Isendrecv got the peer's MPI_Isend", ra, N, 'd', PAT_SMOOTH, 100 + left);
    CHECK_PATTERN("Irecv got the peer's Isendrecv send", rb, N, 'd', PAT_SMOOTH, 200 + left);
    mt_group_end();

    mt_group_begin("MPI_Isendrecv matched by blocking MPI_Send / MPI_Recv, Testany and Request_get_status");
    fill(a, N, 300 + mt_rank);
    memset(ra, 0, N * sizeof(double));
    memset(rb, 0, N * sizeof(double));
    /* even ranks Isendrecv; odd ranks the blocking pair (ring of even size
     * or not, every rank's left and right run the other form or the same) */
    if (mt_rank % 2 == 0) {
        MPI_CALL(MPI_Isendrecv(a, N, MPI_DOUBLE, right, 31, ra, N, MPI_DOUBLE, left, 31, MPI_COMM_WORLD, &rq[0]));
        rq[1] = MPI_REQUEST_NULL;
        flag = 0;
        while (!flag) MPI_CALL(MPI_Request_get_status(rq[0], &flag, &st));
        CHECK_SR_STATUS("Request_get_status", &st, left, 31, MPI_DOUBLE, N);
        int idx = -1;
        flag = 0;
        while (!flag) MPI_CALL(MPI_Testany(2, rq, &idx, &flag, &st));
        CHECK_INT("Testany index", 0, idx);
        CHECK_SR_STATUS("Testany status", &st, left, 31, MPI_DOUBLE, N);
    } else {
        MPI_CALL(MPI_Send(a, N, MPI_DOUBLE, right, 31, MPI_COMM_WORLD));
        MPI_CALL(MPI_Recv(ra, N, MPI_DOUBLE, left, 31, MPI_COMM_WORLD, &st));
        CHECK_STATUS("MPI_Recv of an Isendrecv's send", &st, left, 31, MPI_DOUBLE, N);
    }
    CHECK_PATTERN("data", ra, N, 'd', PAT_SMOOTH, 300 + left);
    mt_group_end();
    free(a);
    free(ra);
    free(rb);
    free(s);
    free(r);
}

static void isendrecv_replace(void)
{
    /* MPICH 4.0.2's own MPI_Isendrecv_replace fails on derived types (a
     * noncontiguous one crashes in its copy; a contiguous one trips an
     * assertion on the type's reference count at MPI_Type_free), both
     * measured: where the MPI runs the call, the data are plain doubles */
    int strided = isendrecv_status_defined();
    mt_group_begin("MPI_Isendrecv_replace with %s", strided ? "a strided type freed while in use" : "doubles");
    MPI_Datatype vec = MPI_DOUBLE;
    if (strided) {
        MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &vec); /* every other double */
        MPI_Type_commit(&vec);
    }
    double *b = mt_malloc(N * sizeof(double)), *exp = mt_malloc(N * sizeof(double));
    fill(b, N, 400 + mt_rank);
    fill(exp, N, 400 + left);
    int stride = strided ? 2 : 1;
    for (int i = 0; i < N; i++)
        if (i % stride || i / stride >= N / 2) b[i] = exp[i] = -1.0 - mt_rank; /* outside the data: untouched */
    MPI_Request req;
    MPI_Status st;
    MPI_CALL(MPI_Isendrecv_replace(b, strided ? 1 : N / 2, vec, right, 41, left, 41, MPI_COMM_WORLD, &req));
    if (strided) MPI_Type_free(&vec); /* freed while the request uses it */
    MPI_CALL(MPI_Wait(&req, &st));
    CHECK_SR_STATUS("status", &st, left, 41, MPI_DOUBLE, N / 2);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += b[i] != exp[i];
    CHECK_INT("elements differing from the left's (outside the data: kept)", 0, bad);
    mt_group_end();
    free(b);
    free(exp);
}

static void proc_null_and_truncate(void)
{
    double *s = mt_malloc(N * sizeof(double)), *r = mt_malloc(N * sizeof(double));
    MPI_Request req;
    MPI_Status st;
    fill(s, N, 500 + mt_rank);
    /* MPICH 4.0.2's own MPI_Isendrecv crashes when a peer is MPI_PROC_NULL
     * (measured, in its send); compi runs such calls itself */
    int proc_null_ok = mt_libcompi_mapped();
#if !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 40100000
    proc_null_ok = 1;
#endif
    if (proc_null_ok) {
        mt_group_begin("MPI_Isendrecv with MPI_PROC_NULL peers");
        double x[4] = {1, 2, 3, 4}, y[4] = {9, 9, 9, 9};
        MPI_CALL(MPI_Isendrecv(x, 4, MPI_DOUBLE, MPI_PROC_NULL, 1, y, 4, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                               &req));
        MPI_CALL(MPI_Wait(&req, &st));
        CHECK_INT("source", MPI_PROC_NULL, st.MPI_SOURCE);
        CHECK_INT("tag", MPI_ANY_TAG, st.MPI_TAG);
        int c = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        CHECK_INT("count", 0, c);
        CHECK(y[0] == 9 && y[3] == 9, "receive buffer untouched", "y = %g..%g", y[0], y[3]);
        /* a send to the right, nothing received */
        MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 51, y, 4, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
        MPI_CALL(MPI_Recv(r, N, MPI_DOUBLE, left, 51, MPI_COMM_WORLD, &st));
        CHECK_PATTERN("send to the right, received", r, N, 'd', PAT_SMOOTH, 500 + left);
        MPI_CALL(MPI_Wait(&req, &st));
        CHECK_INT("send-only source", MPI_PROC_NULL, st.MPI_SOURCE);
        mt_group_end();
    }

    mt_group_begin("MPI_Isendrecv truncated: MPI_ERR_TRUNCATE");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 52, r, N / 4, MPI_DOUBLE, left, 52, comm, &req));
    int rc = MPI_Wait(&req, &st);
    int cls = rc;
    MPI_Error_class(rc, &cls);
    /* MPICH 4.0.2's own call truncates silently (returns MPI_SUCCESS) */
    if (isendrecv_status_defined()) {
        CHECK_INT("error class", MPI_ERR_TRUNCATE, cls);
        CHECK_INT("truncated status source", left, st.MPI_SOURCE);
    }
    /* the next message arrives intact */
    MPI_CALL(MPI_Isendrecv(s, N, MPI_DOUBLE, right, 53, r, N, MPI_DOUBLE, left, 53, comm, &req));
    MPI_CALL(MPI_Wait(&req, &st));
    CHECK_PATTERN("after truncation", r, N, 'd', PAT_SMOOTH, 500 + left);
    MPI_Comm_free(&comm);
    free(s);
    free(r);
    mt_group_end();
}

static void large_count(void)
{
    double *s = mt_malloc(N * sizeof(double)), *r = mt_malloc(N * sizeof(double));
    MPI_Status st;
    MPI_Count c;
    MPI_Request rq[2];

    mt_group_begin("MPI_Send_c to MPI_Recv, MPI_Send to MPI_Recv_c");
    fill(s, N, 600 + mt_rank);
    MPI_CALL(MPI_Isend_c(s, N, MPI_DOUBLE, right, 61, MPI_COMM_WORLD, &rq[0]));
    MPI_CALL(MPI_Recv(r, N, MPI_DOUBLE, left, 61, MPI_COMM_WORLD, &st));
    MPI_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_STATUS("Recv of Isend_c", &st, left, 61, MPI_DOUBLE, N);
    CHECK_PATTERN("Recv of Isend_c", r, N, 'd', PAT_SMOOTH, 600 + left);
    memset(r, 0, N * sizeof(double));
    if (mt_rank % 2 == 0) {
        MPI_CALL(MPI_Send_c(s, N, MPI_DOUBLE, right, 62, MPI_COMM_WORLD));
        MPI_CALL(MPI_Recv_c(r, N, MPI_DOUBLE, left, 62, MPI_COMM_WORLD, &st));
    } else {
        MPI_CALL(MPI_Irecv_c(r, N, MPI_DOUBLE, left, 62, MPI_COMM_WORLD, &rq[0]));
        MPI_CALL(MPI_Send(s, N, MPI_DOUBLE, right, 62, MPI_COMM_WORLD));
        MPI_CALL(MPI_Wait(&rq[0], &st));
    }
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    CHECK_INT("Get_count_c", N, c);
    CHECK_INT("source", left, st.MPI_SOURCE);
    CHECK_PATTERN("Recv_c / Irecv_c data", r, N, 'd', PAT_SMOOTH, 600 + left);
    mt_group_end();

    mt_group_begin("MPI_Sendrecv_c, MPI_Isendrecv_c, MPI_Sendrecv_replace_c, MPI_Isendrecv_replace_c");
    fill(s, N, 700 + mt_rank);
    memset(r, 0, N * sizeof(double));
    MPI_CALL(MPI_Sendrecv_c(s, N, MPI_DOUBLE, right, 71, r, N, MPI_DOUBLE, left, 71, MPI_COMM_WORLD, &st));
    CHECK_STATUS("Sendrecv_c", &st, left, 71, MPI_DOUBLE, N);
    CHECK_PATTERN("Sendrecv_c", r, N, 'd', PAT_SMOOTH, 700 + left);
    memset(r, 0, N * sizeof(double));
    MPI_CALL(MPI_Isendrecv_c(s, N, MPI_DOUBLE, right, 72, r, N, MPI_DOUBLE, left, 72, MPI_COMM_WORLD, &rq[0]));
    MPI_CALL(MPI_Wait(&rq[0], &st));
    CHECK_SR_STATUS("Isendrecv_c", &st, left, 72, MPI_DOUBLE, N);
    CHECK_PATTERN("Isendrecv_c", r, N, 'd', PAT_SMOOTH, 700 + left);
    memcpy(r, s, N * sizeof(double));
    MPI_CALL(MPI_Sendrecv_replace_c(r, N, MPI_DOUBLE, right, 73, left, 73, MPI_COMM_WORLD, &st));
    CHECK_PATTERN("Sendrecv_replace_c", r, N, 'd', PAT_SMOOTH, 700 + left);
    memcpy(r, s, N * sizeof(double));
    MPI_CALL(MPI_Isendrecv_replace_c(r, N, MPI_DOUBLE, right, 74, left, 74, MPI_COMM_WORLD, &rq[0]));
    MPI_CALL(MPI_Wait(&rq[0], &st));
    CHECK_SR_STATUS("Isendrecv_replace_c", &st, left, 74, MPI_DOUBLE, N);
    CHECK_PATTERN("Isendrecv_replace_c", r, N, 'd', PAT_SMOOTH, 700 + left);
    mt_group_end();

    mt_group_begin("MPI_Mprobe + MPI_Mrecv_c, MPI_Improbe + MPI_Imrecv_c, persistent _c");
    fill(s, N, 800 + mt_rank);
    memset(r, 0, N * sizeof(double));
    MPI_CALL(MPI_Isend(s, N, MPI_DOUBLE, right, 81, MPI_COMM_WORLD, &rq[0]));
    MPI_Message m;
    MPI_CALL(MPI_Mprobe(left, 81, MPI_COMM_WORLD, &m, &st));
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    CHECK_INT("Mprobe's count", N, c);
    MPI_CALL(MPI_Mrecv_c(r, N, MPI_DOUBLE, &m, &st));
    MPI_CALL(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_STATUS("Mrecv_c", &st, left, 81, MPI_DOUBLE, N);
    CHECK_PATTERN("Mrecv_c", r, N, 'd', PAT_SMOOTH, 800 + left);
    memset(r, 0, N * sizeof(double));
    MPI_CALL(MPI_Isend_c(s, N, MPI_DOUBLE, right, 82, MPI_COMM_WORLD, &rq[0]));
    int flag = 0;
    while (!flag) MPI_CALL(MPI_Improbe(left, 82, MPI_COMM_WORLD, &flag, &m, &st));
    MPI_CALL(MPI_Imrecv_c(r, N, MPI_DOUBLE, &m, &rq[1]));
    MPI_CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_PATTERN("Imrecv_c", r, N, 'd', PAT_SMOOTH, 800 + left);
    MPI_Request ps, pr;
    MPI_CALL(MPI_Send_init_c(s, N, MPI_DOUBLE, right, 83, MPI_COMM_WORLD, &ps));
    MPI_CALL(MPI_Recv_init_c(r, N, MPI_DOUBLE, left, 83, MPI_COMM_WORLD, &pr));
    for (int it = 0; it < 2; it++) {
        fill(s, N, 900 + 10 * it + mt_rank);
        memset(r, 0, N * sizeof(double));
        MPI_Request both[2] = {pr, ps};
        MPI_CALL(MPI_Startall(2, both));
        MPI_Status bst[2];
        MPI_CALL(MPI_Waitall(2, both, bst));
        CHECK_STATUS("persistent _c receive", &bst[0], left, 83, MPI_DOUBLE, N);
        CHECK_PATTERN("persistent _c data", r, N, 'd', PAT_SMOOTH, 900 + 10 * it + left);
        pr = both[0];
        ps = both[1];
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    mt_group_end();
    free(s);
    free(r);
}

static void collectives_c(void)
{
    mt_group_begin("collectives' _c forms against their int forms");
    int n = 4096;
    double *a = mt_malloc((size_t)n * mt_size * sizeof(double)), *b = mt_malloc((size_t)n * mt_size * sizeof(double));
    fill(a, n, 1000);
    /* rank 0 calls the _c form, the others the int form */
    if (mt_rank == 0) MPI_CALL(MPI_Bcast_c(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    else {
        memset(a, 0, (size_t)n * sizeof(double));
        MPI_CALL(MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    }
    CHECK_PATTERN("Bcast_c / Bcast", a, n, 'd', PAT_SMOOTH, 1000);
    for (int i = 0; i < mt_size; i++) fill(a + (size_t)i * n, n, 1100 + mt_rank * 16 + i);
    if (mt_rank % 2) MPI_CALL(MPI_Alltoall_c(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD));
    else MPI_CALL(MPI_Alltoall(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD));
    int bad = 0;
    double *exp = mt_malloc((size_t)n * sizeof(double));
    for (int i = 0; i < mt_size; i++) {
        fill(exp, n, 1100 + i * 16 + mt_rank);
        bad += memcmp(exp, b + (size_t)i * n, (size_t)n * sizeof(double)) != 0;
    }
    CHECK_INT("Alltoall_c / Alltoall blocks differing", 0, bad);
    for (int i = 0; i < n; i++) a[i] = (double)(i % 97 + mt_rank);
    if (mt_rank % 2) MPI_CALL(MPI_Allreduce_c(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    else MPI_CALL(MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    bad = 0;
    for (int i = 0; i < n; i++) bad += b[i] != (double)((i % 97) * mt_size + mt_size * (mt_size - 1) / 2);
    CHECK_INT("Allreduce_c / Allreduce elements differing", 0, bad);
    MPI_Request req;
    fill(a, n, 1200);
    if (mt_rank != 0) memset(a, 0, (size_t)n * sizeof(double));
    if (mt_rank % 2) MPI_CALL(MPI_Ibcast_c(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req));
    else MPI_CALL(MPI_Ibcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req));
    MPI_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_PATTERN("Ibcast_c / Ibcast", a, n, 'd', PAT_SMOOTH, 1200);
    /* vector forms, odd ranks _c, even ranks int */
    MPI_Count *counts = mt_malloc(sizeof(MPI_Count) * (size_t)mt_size);
    MPI_Aint *displs = mt_malloc(sizeof(MPI_Aint) * (size_t)mt_size);
    int *icounts = mt_malloc(sizeof(int) * (size_t)mt_size), *idispls = mt_malloc(sizeof(int) * (size_t)mt_size);
    for (int i = 0; i < mt_size; i++) {
        icounts[i] = (int)(counts[i] = n);
        idispls[i] = (int)(displs[i] = (MPI_Aint)i * n);
    }
    fill(a, n, 1300 + mt_rank);
    if (mt_rank % 2) MPI_CALL(MPI_Allgatherv_c(a, n, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD));
    else MPI_CALL(MPI_Allgatherv(a, n, MPI_DOUBLE, b, icounts, idispls, MPI_DOUBLE, MPI_COMM_WORLD));
    bad = 0;
    for (int i = 0; i < mt_size; i++) {
        fill(exp, n, 1300 + i);
        bad += memcmp(exp, b + (size_t)i * n, (size_t)n * sizeof(double)) != 0;
    }
    CHECK_INT("Allgatherv_c / Allgatherv blocks differing", 0, bad);
    memset(b, 0, (size_t)n * mt_size * sizeof(double));
    if (mt_rank % 2) MPI_CALL(MPI_Gatherv_c(a, n, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    else MPI_CALL(MPI_Gatherv(a, n, MPI_DOUBLE, b, icounts, idispls, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        bad = 0;
        for (int i = 0; i < mt_size; i++) {
            fill(exp, n, 1300 + i);
            bad += memcmp(exp, b + (size_t)i * n, (size_t)n * sizeof(double)) != 0;
        }
        CHECK_INT("Gatherv_c / Gatherv blocks differing at the root", 0, bad);
    }
    for (int i = 0; i < mt_size; i++) fill(a + (size_t)i * n, n, 1400 + mt_rank * 16 + i);
    if (mt_rank % 2)
        MPI_CALL(MPI_Alltoallv_c(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD));
    else MPI_CALL(MPI_Alltoallv(a, icounts, idispls, MPI_DOUBLE, b, icounts, idispls, MPI_DOUBLE, MPI_COMM_WORLD));
    bad = 0;
    for (int i = 0; i < mt_size; i++) {
        fill(exp, n, 1400 + i * 16 + mt_rank);
        bad += memcmp(exp, b + (size_t)i * n, (size_t)n * sizeof(double)) != 0;
    }
    CHECK_INT("Alltoallv_c / Alltoallv blocks differing", 0, bad);
    /* a periodic ring: Neighbor_alltoallv_c against Neighbor_alltoallv (of
     * 3 ranks or more: on 2, both neighbours are one rank, and MPICH 4.0's
     * own call swaps the two blocks) */
    if (mt_size >= 3) {
        MPI_Comm ring;
        int dims[1] = {mt_size}, periods[1] = {1};
        MPI_CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
        fill(a, n, 1500 + 2 * mt_rank);
        fill(a + n, n, 1500 + 2 * mt_rank + 1);
        if (mt_rank % 2)
            MPI_CALL(MPI_Neighbor_alltoallv_c(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, ring));
        else MPI_CALL(MPI_Neighbor_alltoallv(a, icounts, idispls, MPI_DOUBLE, b, icounts, idispls, MPI_DOUBLE, ring));
        /* from the -1 neighbour its +1 block, from the +1 neighbour its -1 block */
        fill(exp, n, 1500 + 2 * left + 1);
        bad = memcmp(exp, b, (size_t)n * sizeof(double)) != 0;
        fill(exp, n, 1500 + 2 * right);
        bad += memcmp(exp, b + n, (size_t)n * sizeof(double)) != 0;
        CHECK_INT("Neighbor_alltoallv_c / Neighbor_alltoallv blocks differing", 0, bad);
        MPI_Comm_free(&ring);
    }
    free(icounts);
    free(idispls);
    free(counts);
    free(displs);
    free(exp);
    free(a);
    free(b);
    mt_group_end();
}

/* value of element i of block k that rank r sends (integers: sums are exact) */
static double cv(int r, int i, int k) { return r * 1000.0 + i + k * 7.0; }

/* elements of b[0..n) that differ from want(i) */
#define COUNT_BAD(b, n, want) ({ int bad_ = 0; for (int i = 0; i < (n); i++) bad_ += (b)[i] != (want); bad_; })
/* odd ranks the _c form, even ranks the int form; nonblocking ones waited */
#define C_OR_INT(cform, iform) do { if (mt_rank % 2) MPI_CALL(cform); else MPI_CALL(iform); } while (0)
#define C_OR_INT_NB(cform, iform) do { C_OR_INT(cform, iform); MPI_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE)); } while (0)

/* the _c rows of compi's table collectives_c leaves out, blocking (nb 0)
 * or nonblocking (nb 1), every result against a local oracle */
static void more_collectives_c(int nb)
{
    mt_group_begin("%s collectives' _c forms against their int forms", nb ? "nonblocking" : "blocking");
    const int n = 1000, P = mt_size, me = mt_rank, S = P * (P - 1) / 2;
    double *a = mt_malloc((size_t)n * P * sizeof(double)), *b = mt_malloc((size_t)n * P * sizeof(double));
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    char what[96];
    for (int k = 0; k < P; k++)
        for (int i = 0; i < n; i++) a[(size_t)k * n + i] = cv(me, i, k);
/* RUN(X, IX, args...): MPI_X(_c) or MPI_IX(_c) with args (and &req) */
#define RUN(x, ix, ...) do { if (nb) C_OR_INT_NB(MPI_##ix##_c(__VA_ARGS__, &req), MPI_##ix(__VA_ARGS__, &req)); \
                             else C_OR_INT(MPI_##x##_c(__VA_ARGS__), MPI_##x(__VA_ARGS__)); } while (0)
#define BAD(name, bad) do { snprintf(what, sizeof what, "%s%s_c / %s: elements differing", nb ? "I" : "", name, name); \
                            CHECK_INT(what, 0, bad); } while (0)
    int root = 1 % P, bad = 0;
    memset(b, 0, (size_t)n * P * sizeof(double));
    RUN(Gather, Igather, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w);
    if (me == root) for (int r = 0; r < P; r++) bad += COUNT_BAD(b + (size_t)r * n, n, cv(r, i, 0));
    BAD("Gather", bad);
    memset(b, 0, (size_t)n * sizeof(double));
    RUN(Scatter, Iscatter, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, 0, w);
    BAD("Scatter", COUNT_BAD(b, n, cv(0, i, me)));
    memset(b, 0, (size_t)n * P * sizeof(double));
    RUN(Allgather, Iallgather, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w);
    bad = 0;
    for (int r = 0; r < P; r++) bad += COUNT_BAD(b + (size_t)r * n, n, cv(r, i, 0));
    BAD("Allgather", bad);
    if (nb) {
        memset(b, 0, (size_t)n * P * sizeof(double));
        C_OR_INT_NB(MPI_Ialltoall_c(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w, &req),
                    MPI_Ialltoall(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w, &req));
        bad = 0;
        for (int r = 0; r < P; r++) bad += COUNT_BAD(b + (size_t)r * n, n, cv(r, i, me));
        BAD("Alltoall", bad);
        memset(b, 0, (size_t)n * sizeof(double));
        C_OR_INT_NB(MPI_Iallreduce_c(a, b, n, MPI_DOUBLE, MPI_SUM, w, &req),
                    MPI_Iallreduce(a, b, n, MPI_DOUBLE, MPI_SUM, w, &req));
        BAD("Allreduce", COUNT_BAD(b, n, 1000.0 * S + (double)P * i));
    }
    memset(b, 0, (size_t)n * sizeof(double));
    RUN(Reduce, Ireduce, a, b, n, MPI_DOUBLE, MPI_SUM, root, w);
    if (me == root) BAD("Reduce", COUNT_BAD(b, n, 1000.0 * S + (double)P * i));
    memset(b, 0, (size_t)n * sizeof(double));
    RUN(Reduce_scatter_block, Ireduce_scatter_block, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    BAD("Reduce_scatter_block", COUNT_BAD(b, n, 1000.0 * S + (double)P * (i + me * 7.0)));
    memset(b, 0, (size_t)n * sizeof(double));
    RUN(Scan, Iscan, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    BAD("Scan", COUNT_BAD(b, n, 1000.0 * me * (me + 1) / 2 + (me + 1.0) * i));
    memset(b, 0, (size_t)n * sizeof(double));
    RUN(Exscan, Iexscan, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    if (me > 0) BAD("Exscan", COUNT_BAD(b, n, 1000.0 * me * (me - 1) / 2 + (double)me * i));
    if (!nb) {
        MPI_Count *cc = mt_malloc(sizeof(MPI_Count) * (size_t)P);
        MPI_Aint *cd = mt_malloc(sizeof(MPI_Aint) * (size_t)P);
        int *ic = mt_malloc(sizeof(int) * (size_t)P), *id = mt_malloc(sizeof(int) * (size_t)P);
        for (int r = 0; r < P; r++) { ic[r] = (int)(cc[r] = n); id[r] = (int)(cd[r] = (MPI_Aint)r * n); }
        memset(b, 0, (size_t)n * sizeof(double));
        C_OR_INT(MPI_Reduce_scatter_c(a, b, cc, MPI_DOUBLE, MPI_SUM, w), MPI_Reduce_scatter(a, b, ic, MPI_DOUBLE, MPI_SUM, w));
        BAD("Reduce_scatter", COUNT_BAD(b, n, 1000.0 * S + (double)P * (i + me * 7.0)));
        memset(b, 0, (size_t)n * sizeof(double));
        C_OR_INT(MPI_Scatterv_c(a, cc, cd, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w),
                 MPI_Scatterv(a, ic, id, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w));
        BAD("Scatterv", COUNT_BAD(b, n, cv(root, i, me)));
        free(cc); free(cd); free(ic); free(id);
    }
    /* a periodic ring of 3 ranks or more (see collectives_c) */
    if (P >= 3) {
        MPI_Comm ring;
        int dims[1] = {P}, periods[1] = {1};
        MPI_CALL(MPI_Cart_create(w, 1, dims, periods, 0, &ring));
        memset(b, 0, 2 * (size_t)n * sizeof(double));
        RUN(Neighbor_allgather, Ineighbor_allgather, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, ring);
        BAD("Neighbor_allgather", COUNT_BAD(b, n, cv(left, i, 0)) + COUNT_BAD(b + n, n, cv(right, i, 0)));
        memset(b, 0, 2 * (size_t)n * sizeof(double));
        RUN(Neighbor_alltoall, Ineighbor_alltoall, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, ring);
        /* from the -1 neighbour its block 1 (to +1), from the +1 neighbour its block 0 */
        BAD("Neighbor_alltoall", COUNT_BAD(b, n, cv(left, i, 1)) + COUNT_BAD(b + n, n, cv(right, i, 0)));
        if (!nb) {
            MPI_Count cc[2] = {n, n};
            MPI_Aint cd[2] = {0, n};
            int ic[2] = {n, n}, id[2] = {0, n};
            memset(b, 0, 2 * (size_t)n * sizeof(double));
            C_OR_INT(MPI_Neighbor_allgatherv_c(a, n, MPI_DOUBLE, b, cc, cd, MPI_DOUBLE, ring),
                     MPI_Neighbor_allgatherv(a, n, MPI_DOUBLE, b, ic, id, MPI_DOUBLE, ring));
            BAD("Neighbor_allgatherv", COUNT_BAD(b, n, cv(left, i, 0)) + COUNT_BAD(b + n, n, cv(right, i, 0)));
        }
        MPI_Comm_free(&ring);
    }
#undef RUN
#undef BAD
    free(a);
    free(b);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_mpi4");
    mt_require_size(2);
    left = (mt_rank + mt_size - 1) % mt_size;
    right = (mt_rank + 1) % mt_size;
    isendrecv_ring();
    isendrecv_replace();
    proc_null_and_truncate();
    large_count();
    collectives_c();
    more_collectives_c(0);
    more_collectives_c(1);
    return mt_finish();
}
