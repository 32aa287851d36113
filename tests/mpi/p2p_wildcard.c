/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_wildcard: receives posted with MPI_ANY_SOURCE that match senders on
 * the receiver's node and on other nodes in one run. compi sends same-node
 * messages unframed and inter-node ones framed, so a wildcard receive learns
 * which kind it got only from the source it matched; this checks every way
 * such a receive can be posted: blocking, nonblocking (contiguous and strided
 * layouts, small and large, exact and truncated), persistent and matched
 * probe. Run with COMPI_DEBUG_RANKS_PER_NODE=2 and 4 ranks: rank 1 shares
 * rank 0's node, ranks 2 and 3 do not. Rank 0 receives from all others. */
#include "mpitest.h"

/* doubles per message; 2000 (16 KB) is staged by compi, the others not */
static const int sizes[] = {3, 2000, 5000, 300000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define STRIDE 2

static uint64_t seed_of(int src, int k) { return (uint64_t)src * 7919 + (uint64_t)k; }
static int pat_of(int src, int k) { return (src + k) % 2 ? PAT_SMOOTH : PAT_RANDOM; }

/* Every sender sends NSIZES messages (tag 10+k, k-th size, extra doubles
 * more than the receiver expects) with a pattern rank 0 can recompute. */
static void send_all(int extra, int ssend)
{
    if (mt_rank == 0) return;
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k] + extra;
        double *b = mt_malloc((size_t)n * sizeof *b);
        mt_fill(b, (size_t)n, 'd', pat_of(mt_rank, k), seed_of(mt_rank, k));
        if (ssend) MPI_CALL(MPI_Ssend(b, n, MPI_DOUBLE, 0, 10 + k, MPI_COMM_WORLD));
        else MPI_CALL(MPI_Send(b, n, MPI_DOUBLE, 0, 10 + k, MPI_COMM_WORLD));
        free(b);
    }
}

/* A strided receive layout: n doubles, each followed by a gap. */
static MPI_Datatype strided(int n)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, STRIDE, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Checks message k from st.MPI_SOURCE in buf (strided or not); gaps and the
 * tail past the message must keep the sentinel. */
static void check_msg(const char *how, const MPI_Status *st, int k, const double *buf, int is_strided)
{
    char w[160];
    int src = st->MPI_SOURCE, n = sizes[k];
    snprintf(w, sizeof w, "%s: %d doubles from rank %d", how, n, src);
    if (src < 1 || src >= mt_size) {
        mt_failf(__LINE__, w, "impossible source %d", src);
        return;
    }
    CHECK_INT(w, 10 + k, st->MPI_TAG);
    int cnt = -1;
    MPI_Get_count(st, MPI_DOUBLE, &cnt);
    CHECK_INT(w, n, cnt);
    double *dense = mt_malloc((size_t)n * sizeof *dense);
    for (int i = 0; i < n; i++) dense[i] = buf[is_strided ? (size_t)i * STRIDE : (size_t)i];
    CHECK_PATTERN(w, dense, (size_t)n, 'd', pat_of(src, k), seed_of(src, k));
    free(dense);
    if (is_strided)
        for (int i = 0; i + 1 < n; i++)
            if (!CHECK_SENTINEL(w, &buf[(size_t)i * STRIDE + 1], 0, sizeof(double))) break;
    size_t used = is_strided ? ((size_t)n - 1) * STRIDE + 1 : (size_t)n;
    CHECK_SENTINEL(w, buf + used, 0, 4 * sizeof(double));
}

static double *fresh(int k, int is_strided)
{
    size_t n = (size_t)sizes[k] * (is_strided ? STRIDE : 1) + 4;
    double *b = mt_malloc(n * sizeof *b);
    memset(b, MT_SENTINEL, n * sizeof *b);
    return b;
}

/* Where a receive of message k lands: a sentinel-filled buffer, and either
 * sizes[k] doubles or one strided vector of them. */
typedef struct {
    double *buf;
    MPI_Datatype type;
    int count, is_strided;
} target;

static target target_new(int k, int is_strided)
{
    target t = {fresh(k, is_strided), is_strided ? strided(sizes[k]) : MPI_DOUBLE, is_strided ? 1 : sizes[k],
                is_strided};
    return t;
}

static void target_free(target *t)
{
    if (t->is_strided) MPI_Type_free(&t->type);
    free(t->buf);
}

/* Nonblocking wildcard receives, all posted before any sender starts. */
static void irecv_group(int is_strided)
{
    mt_group_begin("irecv ANY_SOURCE %s", is_strided ? "strided" : "contiguous");
    int nrecv = (mt_size - 1) * NSIZES;
    MPI_Request *r = mt_malloc((size_t)nrecv * sizeof *r);
    target *tg = mt_malloc((size_t)nrecv * sizeof *tg);
    if (mt_rank == 0) {
        for (int j = 0; j < nrecv; j++) {
            int k = j % NSIZES;
            tg[j] = target_new(k, is_strided);
            MPI_CALL(MPI_Irecv(tg[j].buf, tg[j].count, tg[j].type, MPI_ANY_SOURCE, 10 + k, MPI_COMM_WORLD, &r[j]));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    send_all(0, 0);
    if (mt_rank == 0) {
        MPI_Status *st = mt_malloc((size_t)nrecv * sizeof *st);
        MPI_CALL(MPI_Waitall(nrecv, r, st));
        for (int j = 0; j < nrecv; j++) {
            /* a strided receive counts one vector of n doubles */
            MPI_Status s = st[j];
            if (is_strided) {
                int c = -1;
                MPI_Get_count(&s, tg[j].type, &c);
                CHECK_INT("strided receive: count of vector types", 1, c);
            }
            check_msg("Irecv", &s, j % NSIZES, tg[j].buf, is_strided);
            target_free(&tg[j]);
        }
        free(st);
    }
    free(r); free(tg);
    mt_group_end();
}

/* Blocking wildcard receives, one per message, strided every other time:
 * probe any source and tag, then receive that tag from any source (every
 * sender sends the same size for a tag). */
static void recv_group(void)
{
    mt_group_begin("recv ANY_SOURCE");
    if (mt_rank == 0) {
        for (int j = 0; j < (mt_size - 1) * NSIZES; j++) {
            MPI_Status st;
            mt_status_prefill(&st);
            MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int k = st.MPI_TAG - 10, is_strided = j % 2;
            if (k < 0 || k >= NSIZES) { mt_failf(__LINE__, "probe tag", "got %d", st.MPI_TAG); break; }
            int probed_count = -1;
            MPI_Get_count(&st, MPI_DOUBLE, &probed_count);
            CHECK_INT("Probe: count of the probed message", sizes[k], probed_count);
            target t = target_new(k, is_strided);
            mt_status_prefill(&st);
            MPI_CALL(MPI_Recv(t.buf, t.count, t.type, MPI_ANY_SOURCE, 10 + k, MPI_COMM_WORLD, &st));
            CHECK_STATUS_ERROR_OK("Recv status", &st);
            check_msg("Recv", &st, k, t.buf, is_strided);
            target_free(&t);
        }
    }
    send_all(0, 1);
    mt_group_end();
}

/* Matched probe with a wildcard, then Mrecv / Imrecv into either layout. */
static void mprobe_group(void)
{
    mt_group_begin("mprobe ANY_SOURCE");
    if (mt_rank == 0) {
        for (int j = 0; j < (mt_size - 1) * NSIZES; j++) {
            MPI_Message m;
            MPI_Status st;
            MPI_CALL(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            int k = st.MPI_TAG - 10, is_strided = j % 2;
            if (k < 0 || k >= NSIZES) { mt_failf(__LINE__, "mprobe tag", "got %d", st.MPI_TAG); break; }
            int src = st.MPI_SOURCE, cnt = -1;
            MPI_Get_count(&st, MPI_DOUBLE, &cnt);
            CHECK_INT("Mprobe: count", sizes[k], cnt);
            target t = target_new(k, is_strided);
            if (j % 3 == 0) {
                MPI_Request r;
                MPI_CALL(MPI_Imrecv(t.buf, t.count, t.type, &m, &r));
                MPI_CALL(MPI_Wait(&r, &st));
            } else {
                MPI_CALL(MPI_Mrecv(t.buf, t.count, t.type, &m, &st));
            }
            CHECK_INT("Mrecv: source is the probed one", src, st.MPI_SOURCE);
            check_msg("Mrecv", &st, k, t.buf, is_strided);
            target_free(&t);
        }
    }
    send_all(0, 0);
    mt_group_end();
}

/* One persistent wildcard receive per size, restarted for every sender
 * (one sender per round, so each round meets one source). */
static void persistent_group(void)
{
    mt_group_begin("persistent ANY_SOURCE");
    MPI_Request r[NSIZES];
    double *b[NSIZES];
    if (mt_rank == 0)
        for (int k = 0; k < NSIZES; k++) {
            b[k] = fresh(k, 0);
            MPI_CALL(MPI_Recv_init(b[k], sizes[k], MPI_DOUBLE, MPI_ANY_SOURCE, 10 + k, MPI_COMM_WORLD, &r[k]));
        }
    for (int turn = 1; turn < mt_size; turn++) {
        if (mt_rank == 0) {
            MPI_Status st[NSIZES];
            for (int k = 0; k < NSIZES; k++) memset(b[k], MT_SENTINEL, ((size_t)sizes[k] + 4) * sizeof(double));
            MPI_CALL(MPI_Startall(NSIZES, r));
            MPI_CALL(MPI_Waitall(NSIZES, r, st));
            for (int k = 0; k < NSIZES; k++) {
                CHECK_INT("persistent: this round's sender", turn, st[k].MPI_SOURCE);
                check_msg("persistent", &st[k], k, b[k], 0);
            }
        } else if (turn == mt_rank) {
            send_all(0, 1);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (mt_rank == 0)
        for (int k = 0; k < NSIZES; k++) { MPI_Request_free(&r[k]); free(b[k]); }
    mt_group_end();
}

/* Messages longer than the wildcard receive of n doubles: 1 double more
 * (shorter than a compi frame header) and 100 more; 400 doubles are staged
 * by compi, 2500 are not. Only the error class is portable; the
 * receive buffer's contents after truncation are the MPI's business. */
static void truncate_group(int n, int extra)
{
    mt_group_begin("truncate ANY_SOURCE %d doubles by %d", n, extra);
    /* buffers keep room past the receive: Open MPI's shared-memory
     * single-copy path may write a long message past a short buffer even
     * without compi (README, Known limits) */
    if (mt_rank == 0) {
        for (int s = 1; s < mt_size; s++) {
            double *b = mt_malloc(((size_t)n + extra + 8) * sizeof *b);
            MPI_Request r;
            MPI_Status st;
            int rc;
            if (s % 2) {
                MPI_CALL(MPI_Irecv(b, n, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &r));
                rc = MPI_Wait(&r, &st);
            } else {
                rc = MPI_Recv(b, n, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st);
            }
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK_INT("truncated wildcard receive: error class", MPI_ERR_TRUNCATE, cls);
            CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < mt_size, "truncated receive: source",
                  "got %d", st.MPI_SOURCE);
            CHECK_INT("truncated receive: tag", 77, st.MPI_TAG);
            free(b);
        }
    } else {
        double *b = mt_malloc(((size_t)n + extra) * sizeof *b);
        mt_fill(b, (size_t)n + extra, 'd', PAT_RANDOM, (uint64_t)mt_rank);
        MPI_CALL(MPI_Send(b, n + extra, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD));
        free(b);
    }
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_wildcard");
    mt_require_size(2);
    irecv_group(0);
    irecv_group(1);
    recv_group();
    mprobe_group();
    persistent_group();
    for (int n = 400; n <= 2500; n += 2100) {
        truncate_group(n, 1);
        truncate_group(n, 100);
    }
    return mt_finish();
}
