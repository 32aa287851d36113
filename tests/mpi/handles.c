/* SPDX-License-Identifier: BSD-3-Clause */
/* handles: MPI handles an application frees while operations still use them,
 * and the empty status of null and inactive requests.
 *
 *  - A derived datatype freed right after nonblocking operations were posted
 *    with it (MPI_Type_free "does not affect any communication that is
 *    currently using the datatype"): Isend / Issend / Irsend / Irecv with an
 *    indexed-block type, staged (small) and large, named and wildcard source.
 *  - A datatype freed after MPI_Send_init / MPI_Recv_init (dup of MPI_INT,
 *    and a strided vector), then 16 x Start + Wait with changing data.
 *  - A persistent request freed while active (MPI_Request_free), its datatype
 *    already freed: the message must still arrive intact.
 *  - A communicator freed with nonblocking operations pending, and with
 *    persistent requests that outlive it (Start after MPI_Comm_free).
 *  - MPI_Comm_set_info replacing a communicator's hints while a persistent
 *    request on it exists.
 *  - The empty status: MPI_Request_get_status, Test, Wait, Test/Wait any, all
 *    and some on MPI_REQUEST_NULL and on inactive persistent requests (never
 *    started, and completed), to a peer on another node and to self.
 * Rank 0 and the last rank talk; the others only join the collective parts. */
#include "mpitest.h"

/* role: 0 for rank 0, 1 for the last rank, -1 for the others (idle in p2p parts).
 * With COMPI_DEBUG_RANKS_PER_NODE=2 and np 3 or more the pair spans nodes
 * while ranks 0 and 1 share one. */
static int role = -1;

#define NMSG 4
static const int msg_count[NMSG] = {3, 700, 9000, 40}; /* elements of the indexed-block type */

/* indexed block: 3 ints at 0, 5, 11, 20 -> extent 23 ints, 12 ints of data */
#define IB_BLK 3
#define IB_N 4
#define IB_EXT 23
static const int ib_disp[IB_N] = {0, 5, 11, 20};

static MPI_Datatype make_ib(void)
{
    MPI_Datatype t;
    MPI_CALL(MPI_Type_create_indexed_block(IB_N, IB_BLK, ib_disp, MPI_INT, &t));
    MPI_CALL(MPI_Type_commit(&t));
    return t;
}

static int ib_is_data(size_t i)
{
    size_t o = i % IB_EXT;
    for (int k = 0; k < IB_N; k++)
        if (o >= (size_t)ib_disp[k] && o < (size_t)ib_disp[k] + IB_BLK) return 1;
    return 0;
}

/* value of int i of message m at iteration it: compressible, different per message */
static int val(int m, int it, size_t i) { return (int)(i / 7) * 3 + m * 1000 + it * 17; }

static void check_ib(const char *what, const int *buf, int count, int m, int it)
{
    size_t n = (size_t)count * IB_EXT;
    long bad = 0, first = -1;
    for (size_t i = 0; i < n; i++) {
        int want = ib_is_data(i) ? val(m, it, i) : -1;
        if (buf[i] != want) {
            if (first < 0) first = (long)i;
            bad++;
        }
    }
    CHECK(bad == 0, what, "%ld of %zu ints differ (first at %ld: %d, want %d)", bad, n, first,
          first >= 0 ? buf[first] : 0, first >= 0 ? (ib_is_data((size_t)first) ? val(m, it, (size_t)first) : -1) : 0);
}

static void fill_ib(int *buf, int count, int m, int it)
{
    size_t n = (size_t)count * IB_EXT;
    for (size_t i = 0; i < n; i++) buf[i] = ib_is_data(i) ? val(m, it, i) : -1;
}

static void check_empty(const char *what, const MPI_Status *st, int error_must_be_success)
{
    char w[200];
    snprintf(w, sizeof w, "%s: MPI_SOURCE", what);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE, w, "expected MPI_ANY_SOURCE (%d), got %d", MPI_ANY_SOURCE, st->MPI_SOURCE);
    snprintf(w, sizeof w, "%s: MPI_TAG", what);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, w, "expected MPI_ANY_TAG (%d), got %d", MPI_ANY_TAG, st->MPI_TAG);
    int c = -1, e = -1, cancelled = -1;
    MPI_Get_count(st, MPI_INT, &c);
    MPI_Get_elements(st, MPI_INT, &e);
    MPI_Test_cancelled(st, &cancelled);
    snprintf(w, sizeof w, "%s: count", what);
    CHECK(c == 0 && e == 0, w, "Get_count %d, Get_elements %d, expected 0", c, e);
    snprintf(w, sizeof w, "%s: cancelled", what);
    CHECK(cancelled == 0, w, "MPI_Test_cancelled gave %d", cancelled);
    snprintf(w, sizeof w, "%s: MPI_ERROR", what);
    if (error_must_be_success)
        CHECK(st->MPI_ERROR == MPI_SUCCESS, w, "expected MPI_SUCCESS, got %d", st->MPI_ERROR);
    else
        CHECK_STATUS_ERROR_OK(w, st);
}

/* ------------------------------------------------------------------ groups */

static void nonblocking_type_freed(int peer)
{
    mt_group_begin("datatype freed while Isend/Issend/Irsend/Irecv use it");
    for (int wildcard = 0; wildcard < 2; wildcard++) {
        int *buf[NMSG];
        MPI_Request r[NMSG];
        MPI_Datatype t = make_ib();
        for (int m = 0; m < NMSG; m++) buf[m] = mt_malloc((size_t)msg_count[m] * IB_EXT * sizeof(int));
        if (role == 1) {
            for (int m = 0; m < NMSG; m++) {
                for (size_t i = 0; i < (size_t)msg_count[m] * IB_EXT; i++) buf[m][i] = -1;
                MPI_CALL(MPI_Irecv(buf[m], msg_count[m], t, wildcard ? MPI_ANY_SOURCE : peer, 30 + m,
                                   MPI_COMM_WORLD, &r[m]));
            }
        }
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); /* receives are posted: Irsend is legal */
        if (role == 0) {
            for (int m = 0; m < NMSG; m++) {
                fill_ib(buf[m], msg_count[m], m, wildcard);
                int tag = 30 + m;
                if (m % 3 == 1) MPI_CALL(MPI_Issend(buf[m], msg_count[m], t, peer, tag, MPI_COMM_WORLD, &r[m]));
                else if (m % 3 == 2) MPI_CALL(MPI_Irsend(buf[m], msg_count[m], t, peer, tag, MPI_COMM_WORLD, &r[m]));
                else MPI_CALL(MPI_Isend(buf[m], msg_count[m], t, peer, tag, MPI_COMM_WORLD, &r[m]));
            }
        }
        MPI_CALL(MPI_Type_free(&t));
        CHECK(t == MPI_DATATYPE_NULL, "Type_free", "handle not MPI_DATATYPE_NULL");
        if (role >= 0) {
            MPI_Status st[NMSG];
            MPI_CALL(MPI_Waitall(NMSG, r, st));
            if (role == 1) {
                for (int m = 0; m < NMSG; m++) {
                    char w[120];
                    snprintf(w, sizeof w, "%s message %d (%d elements)", wildcard ? "wildcard" : "named", m, msg_count[m]);
                    check_ib(w, buf[m], msg_count[m], m, wildcard);
                    CHECK(st[m].MPI_SOURCE == peer && st[m].MPI_TAG == 30 + m, w, "status source %d tag %d",
                          st[m].MPI_SOURCE, st[m].MPI_TAG);
                    int c = -1;
                    MPI_Get_count(&st[m], MPI_INT, &c);
                    CHECK(c == msg_count[m] * IB_N * IB_BLK, w, "Get_count(MPI_INT) %d, want %d", c,
                          msg_count[m] * IB_N * IB_BLK);
                }
            }
        }
        for (int m = 0; m < NMSG; m++) free(buf[m]);
    }
    mt_group_end();
}

/* Persistent requests whose datatype was freed at once: 16 starts. kind 0:
 * dup of MPI_INT (contiguous), 1: vector of 2 ints stride 3 (non-contiguous). */
static void persistent_type_freed(int peer)
{
    mt_group_begin("datatype freed after Send_init/Recv_init, 16 x Start + Wait");
    for (int kind = 0; kind < 2; kind++) {
        for (int big = 0; big < 2; big++) {
            int count = big ? 20000 : 100;
            int stride = kind ? 3 : 1, blk = kind ? 2 : 1;
            size_t n = (size_t)count * (size_t)stride + 8;
            int *buf = mt_malloc(n * sizeof(int));
            MPI_Datatype t;
            if (kind) MPI_CALL(MPI_Type_vector(1, blk, stride, MPI_INT, &t));
            else MPI_CALL(MPI_Type_dup(MPI_INT, &t));
            MPI_Datatype tr = t;
            if (kind) { /* resize to the stride so count elements tile */
                MPI_CALL(MPI_Type_create_resized(t, 0, (MPI_Aint)(stride * sizeof(int)), &tr));
                MPI_CALL(MPI_Type_free(&t));
            }
            MPI_CALL(MPI_Type_commit(&tr));
            MPI_Request r = MPI_REQUEST_NULL;
            if (role == 0) MPI_CALL(MPI_Send_init(buf, count, tr, peer, 40, MPI_COMM_WORLD, &r));
            if (role == 1) MPI_CALL(MPI_Recv_init(buf, count, tr, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Type_free(&tr));
            for (int it = 0; it < 16 && role >= 0; it++) {
                for (size_t i = 0; i < n; i++) {
                    int data = (i % (size_t)stride) < (size_t)blk && i < (size_t)count * (size_t)stride;
                    buf[i] = role == 0 && data ? val(kind, it, i) : -1;
                }
                MPI_Status st;
                MPI_CALL(MPI_Start(&r));
                MPI_CALL(MPI_Wait(&r, &st));
                CHECK(r != MPI_REQUEST_NULL, "persistent handle", "became MPI_REQUEST_NULL after Wait");
                if (role == 1) {
                    long bad = 0;
                    for (size_t i = 0; i < n; i++) {
                        int data = (i % (size_t)stride) < (size_t)blk && i < (size_t)count * (size_t)stride;
                        if (buf[i] != (data ? val(kind, it, i) : -1)) bad++;
                    }
                    CHECK(bad == 0, kind ? "vector data" : "dup(MPI_INT) data", "iteration %d (%d elements): %ld ints differ",
                          it, count, bad);
                    int c = -1;
                    MPI_Get_count(&st, MPI_INT, &c);
                    CHECK(c == count * blk && st.MPI_SOURCE == peer, "persistent status", "count %d source %d", c,
                          st.MPI_SOURCE);
                }
            }
            if (role >= 0) MPI_CALL(MPI_Request_free(&r));
            free(buf);
        }
    }
    mt_group_end();
}

/* A persistent request freed while active, with its datatype already freed. */
static void persistent_freed_active(int peer)
{
    mt_group_begin("active persistent request freed, datatype freed before");
    int count = 5000;
    int *buf = mt_malloc((size_t)count * IB_EXT * sizeof(int));
    MPI_Datatype t = make_ib();
    MPI_Request r = MPI_REQUEST_NULL;
    if (role == 0) {
        fill_ib(buf, count, 2, 5);
        MPI_CALL(MPI_Send_init(buf, count, t, peer, 50, MPI_COMM_WORLD, &r));
    }
    if (role == 1) {
        for (size_t i = 0; i < (size_t)count * IB_EXT; i++) buf[i] = -1;
        MPI_CALL(MPI_Recv_init(buf, count, t, peer, 50, MPI_COMM_WORLD, &r));
    }
    MPI_CALL(MPI_Type_free(&t));
    if (role >= 0) {
        MPI_CALL(MPI_Start(&r));
        MPI_CALL(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "Request_free", "handle not MPI_REQUEST_NULL");
    }
    /* completion is only known through the data: the receiver learns it from a second message */
    int done = 0;
    if (role == 0) MPI_CALL(MPI_Send(&done, 1, MPI_INT, peer, 51, MPI_COMM_WORLD));
    if (role == 1) {
        MPI_CALL(MPI_Recv(&done, 1, MPI_INT, peer, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* the freed receive completes in the background: a barrier-free wait for it */
        double t0 = MPI_Wtime();
        int ok = 0;
        while (!ok && MPI_Wtime() - t0 < 30) {
            int flag;
            MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE)); /* progress */
            ok = buf[20] == val(2, 5, 20) && buf[(size_t)count * IB_EXT - 3] == val(2, 5, (size_t)count * IB_EXT - 3);
        }
        check_ib("freed active persistent receive", buf, count, 2, 5);
    }
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
    mt_group_end();
}

static void comm_freed(int peer)
{
    mt_group_begin("communicator freed with nonblocking and persistent operations pending");
    int n = 30000;
    int *a = mt_malloc((size_t)n * sizeof(int)), *b = mt_malloc((size_t)n * sizeof(int));
    MPI_Comm c;
    /* nonblocking: posted, then the communicator is freed, then waited for */
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (role >= 0) {
        for (int i = 0; i < n; i++) a[i] = val(mt_rank, 0, (size_t)i), b[i] = -1;
        MPI_CALL(MPI_Irecv(b, n, MPI_INT, peer, 60, c, &r[0]));
        MPI_CALL(MPI_Isend(a, n, MPI_INT, peer, 60, c, &r[1]));
    }
    MPI_CALL(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "Comm_free", "handle not MPI_COMM_NULL");
    if (role >= 0) {
        MPI_Status st[2];
        MPI_CALL(MPI_Waitall(2, r, st));
        long bad = 0;
        for (int i = 0; i < n; i++) bad += b[i] != val(peer, 0, (size_t)i);
        CHECK(bad == 0, "Irecv on freed communicator", "%ld ints differ", bad);
        CHECK_STATUS("Irecv on freed communicator", &st[0], peer, 60, MPI_INT, n);
    }
    /* persistent requests that outlive their communicator */
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Request p[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (role >= 0) {
        MPI_CALL(MPI_Recv_init(b, n, MPI_INT, MPI_ANY_SOURCE, 61, c, &p[0]));
        MPI_CALL(MPI_Send_init(a, n, MPI_INT, peer, 61, c, &p[1]));
    }
    MPI_CALL(MPI_Comm_free(&c));
    for (int it = 1; it <= 4 && role >= 0; it++) {
        for (int i = 0; i < n; i++) a[i] = val(mt_rank, it, (size_t)i), b[i] = -1;
        MPI_Status st[2];
        MPI_CALL(MPI_Startall(2, p));
        MPI_CALL(MPI_Waitall(2, p, st));
        long bad = 0;
        for (int i = 0; i < n; i++) bad += b[i] != val(peer, it, (size_t)i);
        CHECK(bad == 0, "persistent on freed communicator", "iteration %d: %ld ints differ", it, bad);
        CHECK_STATUS("persistent on freed communicator", &st[0], peer, 61, MPI_INT, n);
    }
    if (role >= 0) {
        MPI_CALL(MPI_Request_free(&p[0]));
        MPI_CALL(MPI_Request_free(&p[1]));
    }
    /* hints replaced while a persistent request exists (compi rebuilds its
     * per-communicator policy; the request must keep working) */
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (role >= 0) {
        MPI_CALL(MPI_Recv_init(b, n, MPI_INT, peer, 62, c, &p[0]));
        MPI_CALL(MPI_Send_init(a, n, MPI_INT, peer, 62, c, &p[1]));
    }
    MPI_Info info;
    MPI_CALL(MPI_Info_create(&info));
    MPI_CALL(MPI_Info_set(info, "compi_min_bytes", "64K"));
    MPI_CALL(MPI_Comm_set_info(c, info));
    MPI_CALL(MPI_Info_free(&info));
    for (int it = 5; it <= 7 && role >= 0; it++) {
        for (int i = 0; i < n; i++) a[i] = val(mt_rank, it, (size_t)i), b[i] = -1;
        MPI_CALL(MPI_Startall(2, p));
        MPI_CALL(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
        long bad = 0;
        for (int i = 0; i < n; i++) bad += b[i] != val(peer, it, (size_t)i);
        CHECK(bad == 0, "persistent across Comm_set_info", "iteration %d: %ld ints differ", it, bad);
    }
    if (role >= 0) {
        MPI_CALL(MPI_Request_free(&p[0]));
        MPI_CALL(MPI_Request_free(&p[1]));
    }
    MPI_CALL(MPI_Comm_free(&c));
    free(a);
    free(b);
    mt_group_end();
}

/* Empty statuses from null and inactive requests. Under compi, the empty
 * status of MPI_Request_get_status carries MPI_ERROR = MPI_SUCCESS (the
 * standard's definition) for MPI_REQUEST_NULL and compi's own persistent
 * requests; plain MPI may leave the field untouched (Open MPI 4.1 always,
 * MPICH 4.0 for inactive persistent requests), and so may every completion
 * call. */
static void empty_statuses(int peer)
{
    mt_group_begin("empty status: MPI_REQUEST_NULL and inactive persistent requests");
    int strict = mt_libcompi_mapped();
    int x[4] = {0}, y[4] = {0};
    for (int variant = 0; variant < 4; variant++) {
        /* 0: MPI_REQUEST_NULL; 1: persistent receive from peer, never started;
         * 2: persistent send to self, never started; 3: the receive from peer after one completion */
        MPI_Request q = MPI_REQUEST_NULL, self_recv = MPI_REQUEST_NULL;
        const char *vn[] = {"MPI_REQUEST_NULL", "inactive Recv_init(peer)", "inactive Send_init(self)",
                            "completed Recv_init(peer)"};
        if (role >= 0) {
            if (variant == 1 || variant == 3) MPI_CALL(MPI_Recv_init(y, 4, MPI_INT, peer, 70, MPI_COMM_WORLD, &q));
            if (variant == 2) MPI_CALL(MPI_Send_init(x, 4, MPI_INT, mt_rank, 71, MPI_COMM_WORLD, &q));
            if (variant == 3) {
                MPI_CALL(MPI_Start(&q));
                MPI_CALL(MPI_Send(x, 4, MPI_INT, peer, 70, MPI_COMM_WORLD));
                MPI_CALL(MPI_Wait(&q, MPI_STATUS_IGNORE));
            }
        }
        char w[160];
        MPI_Status st;
        int flag = -1, idx = -7, outcount = -7, indices[2];
        MPI_Status sts[2];

        mt_status_prefill(&st);
        MPI_CALL(MPI_Request_get_status(q, &flag, &st));
        snprintf(w, sizeof w, "Request_get_status(%s)", vn[variant]);
        CHECK(flag == 1, w, "flag %d", flag);
        check_empty(w, &st, strict && variant != 2); /* a same-node request is plain MPI's */

        mt_status_prefill(&st);
        flag = -1;
        MPI_CALL(MPI_Test(&q, &flag, &st));
        snprintf(w, sizeof w, "Test(%s)", vn[variant]);
        CHECK(flag == 1, w, "flag %d", flag);
        check_empty(w, &st, 0);

        mt_status_prefill(&st);
        MPI_CALL(MPI_Wait(&q, &st));
        snprintf(w, sizeof w, "Wait(%s)", vn[variant]);
        check_empty(w, &st, 0);

        MPI_Request two[2] = {q, MPI_REQUEST_NULL};
        mt_status_prefill(&st);
        flag = -1;
        MPI_CALL(MPI_Testany(2, two, &idx, &flag, &st));
        snprintf(w, sizeof w, "Testany(%s, NULL)", vn[variant]);
        CHECK(flag == 1 && idx == MPI_UNDEFINED, w, "flag %d index %d", flag, idx);
#if defined(MPICH_VERSION)
        /* MPICH 4.0 leaves the status untouched when the array holds an
         * inactive persistent request (all-null arrays get an empty one) */
        if (variant != 0 && st.MPI_SOURCE == -777 && st.MPI_TAG == -777) mt_gpass++;
        else
#endif
        check_empty(w, &st, 0);

        mt_status_prefill(&st);
        idx = -7;
        MPI_CALL(MPI_Waitany(2, two, &idx, &st));
        snprintf(w, sizeof w, "Waitany(%s, NULL)", vn[variant]);
        CHECK(idx == MPI_UNDEFINED, w, "index %d", idx);
        check_empty(w, &st, 0);

        mt_status_prefill(&sts[0]);
        mt_status_prefill(&sts[1]);
        flag = -1;
        MPI_CALL(MPI_Testall(2, two, &flag, sts));
        snprintf(w, sizeof w, "Testall(%s, NULL)", vn[variant]);
        CHECK(flag == 1, w, "flag %d", flag);
        check_empty(w, &sts[0], 0);
        check_empty(w, &sts[1], 0);

        mt_status_prefill(&sts[0]);
        mt_status_prefill(&sts[1]);
        MPI_CALL(MPI_Waitall(2, two, sts));
        snprintf(w, sizeof w, "Waitall(%s, NULL)", vn[variant]);
        check_empty(w, &sts[0], 0);
        check_empty(w, &sts[1], 0);

        MPI_CALL(MPI_Testsome(2, two, &outcount, indices, sts));
        snprintf(w, sizeof w, "Testsome(%s, NULL)", vn[variant]);
        CHECK(outcount == MPI_UNDEFINED, w, "outcount %d", outcount);
        outcount = -7;
        MPI_CALL(MPI_Waitsome(2, two, &outcount, indices, sts));
        snprintf(w, sizeof w, "Waitsome(%s, NULL)", vn[variant]);
        CHECK(outcount == MPI_UNDEFINED, w, "outcount %d", outcount);

        CHECK(two[0] == q, "inactive persistent handle", "changed by a completion call");
        if (q != MPI_REQUEST_NULL) MPI_CALL(MPI_Request_free(&q));
        if (self_recv != MPI_REQUEST_NULL) MPI_CALL(MPI_Request_free(&self_recv));
    }
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "handles");
    mt_require_size(2);
    role = mt_rank == 0 ? 0 : mt_rank == mt_size - 1 ? 1 : -1;
    int peer = role == 0 ? mt_size - 1 : role == 1 ? 0 : MPI_PROC_NULL;
    nonblocking_type_freed(peer);
    persistent_type_freed(peer);
    persistent_freed_active(peer);
    comm_freed(peer);
    empty_statuses(peer);
    return mt_finish();
}
