/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_complete: completion calls.  Waitall/Waitany/Waitsome/Testall/Testany/
 * Testsome over arrays mixing sends, receives and MPI_REQUEST_NULL (indices,
 * statuses, handles reset to MPI_REQUEST_NULL, MPI_UNDEFINED at the end);
 * MPI_Test loops; MPI_Request_free of active send requests (message arrives
 * intact); MPI_Cancel of an unmatched receive followed by normal traffic on the
 * same tag; MPI_Sendrecv / MPI_Sendrecv_replace; MPI_Bsend / MPI_Ibsend with a
 * buffer of exactly the size the standard requires (MPI_Pack_size +
 * MPI_BSEND_OVERHEAD per message) - compi must not need more. Ranks 0 and 1. */
#include "mpitest.h"

#define NREQ 10
typedef struct {
    int is_recv, is_null, count, tag, pat;
    char kind;
    void *buf;
} slot_t;

/* Build a request array mixing receives, sends and MPI_REQUEST_NULL. */
static void post(slot_t *s, MPI_Request *r, int peer, int round, int role)
{
    static const int counts[5] = {0, 7, 5000, 262144, 100000};
    static const char kinds[5] = {'b', 'i', 'd', 'd', 'f'};
    for (int i = 0; i < NREQ; i++) {
        int j = i / 2; /* pair j: one receive and one send of the same shape */
        s[i].is_null = (i == 3 || i == 8);
        s[i].is_recv = (i % 2 == 0) ^ role;
        s[i].count = counts[j];
        s[i].kind = kinds[j];
        s[i].tag = 1000 * round + j;
        s[i].pat = (j + round) % PAT_COUNT;
        size_t bytes = (size_t)s[i].count * mt_kind_size(s[i].kind);
        s[i].buf = mt_malloc(bytes + 32);
        r[i] = MPI_REQUEST_NULL;
        if (s[i].is_null) continue;
        if (s[i].is_recv) {
            memset(s[i].buf, MT_SENTINEL, bytes + 32);
            MPI_CALL(MPI_Irecv(s[i].buf, s[i].count + 4, mt_kind_type(s[i].kind), peer, s[i].tag, MPI_COMM_WORLD, &r[i]));
        } else {
            mt_fill(s[i].buf, s[i].count, s[i].kind, s[i].pat, (uint64_t)s[i].tag);
            MPI_CALL(MPI_Isend(s[i].buf, s[i].count, mt_kind_type(s[i].kind), peer, s[i].tag, MPI_COMM_WORLD, &r[i]));
        }
    }
}


static void verify_slot(const char *how, slot_t *s, int i, const MPI_Status *st, int peer)
{
    char w[160];
    snprintf(w, sizeof w, "%s: slot %d (recv %s x %d tag %d)", how, i, mt_kind_name(s[i].kind), s[i].count, s[i].tag);
    if (s[i].is_recv && !s[i].is_null) {
        if (st) CHECK_STATUS(w, st, peer, s[i].tag, mt_kind_type(s[i].kind), s[i].count);
        CHECK_PATTERN(w, s[i].buf, s[i].count, s[i].kind, s[i].pat, (uint64_t)s[i].tag);
        CHECK_SENTINEL(w, s[i].buf, (size_t)s[i].count * mt_kind_size(s[i].kind),
                       (size_t)s[i].count * mt_kind_size(s[i].kind) + 32);
    }
}

static void check_empty_status(const char *what, const MPI_Status *st)
{
    char w[160];
    int c = -1;
    snprintf(w, sizeof w, "%s: empty status MPI_SOURCE", what);
    CHECK_INT(w, MPI_ANY_SOURCE, st->MPI_SOURCE);
    snprintf(w, sizeof w, "%s: empty status MPI_TAG", what);
    CHECK_INT(w, MPI_ANY_TAG, st->MPI_TAG);
    MPI_Get_count(st, MPI_INT, &c);
    snprintf(w, sizeof w, "%s: empty status count", what);
    CHECK_INT(w, 0, c);
}

static void release(slot_t *s)
{
    for (int i = 0; i < NREQ; i++) free(s[i].buf);
}

/* Slot pair j (slots 2j, 2j+1) holds one receive and one send of the same
 * shape and tag; the roles are flipped on the other rank, so each send meets
 * the peer's receive.  Slots 3 and 8 are MPI_REQUEST_NULL (and so are the
 * corresponding peer slots: one direction of pairs 1 and 4 carries nothing). */
static void run_completion(int which, int round)
{
    static const char *names[6] = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
                                   "MPI_Testall", "MPI_Testany", "MPI_Testsome"};
    mt_group_begin("%s with sends, receives and MPI_REQUEST_NULL", names[which]);
    if (mt_rank < 2) {
        int peer = 1 - mt_rank;
        slot_t s[NREQ];
        MPI_Request r[NREQ];
        MPI_Status sts[NREQ];
        post(s, r, peer, round, mt_rank); /* complementary send/recv roles on the two ranks */
        for (int i = 0; i < NREQ; i++) mt_status_prefill(&sts[i]);
        int seen[NREQ] = {0};
        const char *nm = names[which];
        if (which == 0) {
            MPI_CALL(MPI_Waitall(NREQ, r, sts));
            for (int i = 0; i < NREQ; i++) {
                CHECK(r[i] == MPI_REQUEST_NULL, nm, "request %d not MPI_REQUEST_NULL after completion", i);
                if (s[i].is_null) check_empty_status("Waitall MPI_REQUEST_NULL entry", &sts[i]);
                else if (s[i].is_recv) verify_slot(nm, s, i, &sts[i], peer);
            }
        } else if (which == 1 || which == 4) {
            int done = 0, active = 0;
            for (int i = 0; i < NREQ; i++) active += !s[i].is_null;
            for (;;) {
                int idx = -5, flag = 0;
                MPI_Status st;
                mt_status_prefill(&st);
                if (which == 1) {
                    MPI_CALL(MPI_Waitany(NREQ, r, &idx, &st));
                    flag = 1;
                } else {
                    MPI_CALL(MPI_Testany(NREQ, r, &idx, &flag, &st));
                }
                if (!flag) {
                    if (idx != MPI_UNDEFINED) /* count only failures: this spins */
                        CHECK_INT("Testany flag 0 -> index MPI_UNDEFINED", MPI_UNDEFINED, idx);
                    continue;
                }
                if (idx == MPI_UNDEFINED) {
                    CHECK_INT("completions before MPI_UNDEFINED", active, done);
                    check_empty_status(which == 1 ? "Waitany all-null" : "Testany all-null", &st);
                    break;
                }
                if (idx < 0 || idx >= NREQ) { CHECK_INT("index in range", 0, idx); break; }
                CHECK(!seen[idx] && !s[idx].is_null, nm, "index %d returned twice or for a MPI_REQUEST_NULL entry", idx);
                seen[idx] = 1;
                done++;
                CHECK(r[idx] == MPI_REQUEST_NULL, nm, "request %d not MPI_REQUEST_NULL after completion", idx);
                verify_slot(nm, s, idx, &st, peer);
                if (done > NREQ) break;
            }
        } else if (which == 2 || which == 5) {
            int done = 0, active = 0;
            for (int i = 0; i < NREQ; i++) active += !s[i].is_null;
            for (;;) {
                int oc = -5, idx[NREQ];
                if (which == 2) MPI_CALL(MPI_Waitsome(NREQ, r, &oc, idx, sts));
                else MPI_CALL(MPI_Testsome(NREQ, r, &oc, idx, sts));
                if (oc == MPI_UNDEFINED) {
                    CHECK_INT("completions before outcount MPI_UNDEFINED", active, done);
                    break;
                }
                if (which == 2) CHECK(oc >= 1, nm, "outcount %d < 1", oc);
                for (int j = 0; j < oc; j++) {
                    int k = idx[j];
                    if (k < 0 || k >= NREQ) { CHECK_INT("index in range", 0, k); continue; }
                    CHECK(!seen[k] && !s[k].is_null, nm, "index %d returned twice or for a MPI_REQUEST_NULL entry", k);
                    seen[k] = 1;
                    CHECK(r[k] == MPI_REQUEST_NULL, nm, "request %d not MPI_REQUEST_NULL after completion", k);
                    verify_slot(nm, s, k, &sts[j], peer);
                }
                done += oc;
                if (done > NREQ) break;
            }
        } else {
            int flag = 0;
            while (!flag) MPI_CALL(MPI_Testall(NREQ, r, &flag, sts));
            for (int i = 0; i < NREQ; i++) {
                CHECK(r[i] == MPI_REQUEST_NULL, nm, "request %d not MPI_REQUEST_NULL after completion", i);
                if (s[i].is_null) check_empty_status("Testall MPI_REQUEST_NULL entry", &sts[i]);
                else if (s[i].is_recv) verify_slot(nm, s, i, &sts[i], peer);
            }
        }
        release(s);
    }
    mt_group_end();
}

/* Fills the stack below the caller with a pattern that is no MPI error code,
 * so a status field MPI_Request_get_status does not write, read by a
 * library underneath, is that pattern (under Open MPI an invalid code makes
 * MPI_Error_class raise MPI_ERR_ARG, fatal by default) instead of whatever
 * happened to be there. */
static void __attribute__((noinline)) scribble_stack(void)
{
    volatile unsigned char junk[32768];
    memset((void *)junk, 0x5a, sizeof junk);
}

static int err_class(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* MPI_Request_get_status polling receives from another node (rank 0 and the
 * last rank: each its own node in every layout the tests run), many rounds,
 * with MPI_COMM_WORLD's errors fatal as in an application that sets none:
 * complete receives of 8 B to 2.4 MB, a truncated one, and a cancelled one. */
static void request_get_status_rounds(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int last = size - 1, me = mt_rank == 0 ? 0 : mt_rank == last ? 1 : -1;
    int other = me == 0 ? last : 0;
    static const int counts[] = {1, 100, 4000, 30000, 300000};
    const int rounds = 120;
    mt_group_begin("MPI_Request_get_status polling inter-node MPI_Irecv, %d rounds", rounds);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int nmax = counts[4];
    double *a = mt_malloc((size_t)nmax * sizeof(double)), *b = mt_malloc((size_t)nmax * sizeof(double));
    for (int k = 0; k < rounds && me >= 0; k++) {
        int n = counts[k % 5], tag = 300 + k % 7;
        if (me == 1) {
            mt_fill(a, n, 'd', k % 2 ? PAT_SMOOTH : PAT_RANDOM, k);
            MPI_CALL(MPI_Send(a, n, MPI_DOUBLE, other, tag, MPI_COMM_WORLD));
            continue;
        }
        MPI_Request r;
        MPI_Status st;
        MPI_CALL(MPI_Irecv(b, n, MPI_DOUBLE, other, tag, MPI_COMM_WORLD, &r));
        int flag = 0, polls = 0;
        double t0 = MPI_Wtime();
        /* bounded only to turn a hang into a failure; not a performance check */
        while (!flag && MPI_Wtime() - t0 < 20.0) {
            scribble_stack();
            MPI_CALL(MPI_Request_get_status(r, &flag, &st));
            polls++;
        }
        char w[96];
        snprintf(w, sizeof w, "round %d: %d doubles after %d polls", k, n, polls);
        CHECK(flag, w, "MPI_Request_get_status never reported completion within 20 s");
        if (!flag) break;
        CHECK_STATUS(w, &st, other, tag, MPI_DOUBLE, n);
        CHECK_PATTERN(w, b, n, 'd', k % 2 ? PAT_SMOOTH : PAT_RANDOM, k);
        MPI_CALL(MPI_Wait(&r, &st));
        CHECK_STATUS(w, &st, other, tag, MPI_DOUBLE, n);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mt_group_end();

    mt_group_begin("MPI_Request_get_status on a truncated inter-node MPI_Irecv");
    for (int v = 0; v < 2 && me >= 0; v++) {
        int n = v ? 300000 : 100, cap = n / 2;
        if (me == 1) {
            mt_fill(a, n, 'd', PAT_SMOOTH, 40 + v);
            MPI_CALL(MPI_Send(a, n, MPI_DOUBLE, other, 310, MPI_COMM_WORLD));
            continue;
        }
        MPI_Request r;
        MPI_Status st;
        /* MPICH 4.0 leaves a truncated receive's count as its (recycled)
         * request last held it: a completed zero-byte receive just before
         * makes that 0 */
        MPI_CALL(MPI_Sendrecv(NULL, 0, MPI_BYTE, 0, 309, NULL, 0, MPI_BYTE, 0, 309, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_CALL(MPI_Irecv(b, cap, MPI_DOUBLE, other, 310, MPI_COMM_WORLD, &r));
        int flag = 0, rc = MPI_SUCCESS;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 20.0) {
            scribble_stack();
            rc = MPI_Request_get_status(r, &flag, &st);
        }
        char w[96];
        snprintf(w, sizeof w, "%d doubles into %d", n, cap);
        CHECK(flag, w, "MPI_Request_get_status never reported completion within 20 s");
        int c = -5, e = -5;
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        MPI_Get_elements(&st, MPI_DOUBLE, &e);
        CHECK_INT("MPI_Request_get_status: status source", other, st.MPI_SOURCE);
        CHECK_INT("MPI_Request_get_status: status tag", 310, st.MPI_TAG);
#ifdef MPICH_VERSION
        /* MPICH 4.0: the request's error, status count 0 */
        CHECK(err_class(rc) == MPI_ERR_TRUNCATE, w, "MPI_Request_get_status returned %s, expected MPI_ERR_TRUNCATE",
              mt_errstr(rc));
        CHECK_INT("MPI_Request_get_status truncated: MPI_Get_count", 0, c);
        CHECK_INT("MPI_Request_get_status truncated: MPI_Get_elements", 0, e);
#else
        /* Open MPI 4.1: success now, the error at completion; the message's full length */
        CHECK_INT("MPI_Request_get_status on a truncated receive returns", MPI_SUCCESS, rc);
        CHECK_INT("MPI_Request_get_status truncated: MPI_Get_count", n, c);
        CHECK_INT("MPI_Request_get_status truncated: MPI_Get_elements", n, e);
#endif
        rc = MPI_Wait(&r, &st);
        CHECK(err_class(rc) == MPI_ERR_TRUNCATE, w, "MPI_Wait returned %s, expected MPI_ERR_TRUNCATE", mt_errstr(rc));
    }
    mt_group_end();

    mt_group_begin("MPI_Cancel of an inter-node MPI_Irecv, then MPI_Request_get_status");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int k = 0; k < 20 && me == 0; k++) {
        MPI_Request r;
        MPI_Status st;
        MPI_CALL(MPI_Irecv(b, nmax, MPI_DOUBLE, other, 320, MPI_COMM_WORLD, &r));
        MPI_CALL(MPI_Cancel(&r));
        int flag = 0, cancelled = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 20.0) {
            scribble_stack();
            MPI_CALL(MPI_Request_get_status(r, &flag, &st));
        }
        CHECK(flag, "MPI_Request_get_status after MPI_Cancel", "never reported completion within 20 s");
        MPI_CALL(MPI_Test_cancelled(&st, &cancelled));
        CHECK_INT("MPI_Test_cancelled after MPI_Request_get_status", 1, cancelled);
        scribble_stack();
        if (k % 2) {
            MPI_CALL(MPI_Wait(&r, &st));
        } else {
            flag = 0;
            while (!flag) { scribble_stack(); MPI_CALL(MPI_Test(&r, &flag, &st)); }
        }
        MPI_CALL(MPI_Test_cancelled(&st, &cancelled));
        CHECK_INT(k % 2 ? "MPI_Test_cancelled after MPI_Wait" : "MPI_Test_cancelled after MPI_Test", 1, cancelled);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    free(a);
    free(b);
    mt_group_end();
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_complete");
    mt_require_size(2);
    MPI_Status st;
    int peer = mt_rank < 2 ? 1 - mt_rank : MPI_PROC_NULL;

    for (int w = 0; w < 6; w++) run_completion(w, w * 2);

    /* ---- Test loop on single requests */
    mt_group_begin("MPI_Test loop on single send and receive");
    if (mt_rank < 2) {
        int n = 500000;
        double *a = mt_malloc(n * sizeof(double)), *b = mt_malloc(n * sizeof(double));
        mt_fill(a, n, 'd', PAT_SMOOTH, 40 + mt_rank);
        MPI_Request rs, rr;
        MPI_CALL(MPI_Irecv(b, n, MPI_DOUBLE, peer, 40, MPI_COMM_WORLD, &rr));
        MPI_CALL(MPI_Isend(a, n, MPI_DOUBLE, peer, 40, MPI_COMM_WORLD, &rs));
        int fr = 0, fs = 0;
        while (!fr || !fs) {
            if (!fs) MPI_CALL(MPI_Test(&rs, &fs, MPI_STATUS_IGNORE));
            if (!fr) MPI_CALL(MPI_Test(&rr, &fr, &st));
        }
        CHECK(rr == MPI_REQUEST_NULL && rs == MPI_REQUEST_NULL, "Test loop", "requests not MPI_REQUEST_NULL");
        CHECK_STATUS("Test loop receive", &st, peer, 40, MPI_DOUBLE, n);
        CHECK_PATTERN("Test loop receive", b, n, 'd', PAT_SMOOTH, 40 + peer);
        /* MPI_Test on MPI_REQUEST_NULL: flag true, empty status */
        MPI_Request nr = MPI_REQUEST_NULL;
        int f = 0;
        mt_status_prefill(&st);
        MPI_CALL(MPI_Test(&nr, &f, &st));
        CHECK_INT("MPI_Test(MPI_REQUEST_NULL) flag", 1, f);
        check_empty_status("MPI_Test(MPI_REQUEST_NULL)", &st);
        mt_status_prefill(&st);
        MPI_CALL(MPI_Wait(&nr, &st));
        check_empty_status("MPI_Wait(MPI_REQUEST_NULL)", &st);
        free(a);
        free(b);
    }
    mt_group_end();

    /* ---- Request_free on active send requests */
    mt_group_begin("MPI_Request_free of active MPI_Isend/MPI_Issend requests");
    {
        int n = 1 << 20;
        int *a = mt_malloc(n * sizeof(int)), *b = mt_malloc(n * sizeof(int)), *c = mt_malloc(100 * sizeof(int));
        if (mt_rank == 0) {
            MPI_Request r;
            mt_fill(a, n, 'i', PAT_RAMP, 50);
            MPI_CALL(MPI_Isend(a, n, MPI_INT, 1, 50, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Request_free(&r));
            CHECK(r == MPI_REQUEST_NULL, "Request_free", "handle not set to MPI_REQUEST_NULL");
            mt_fill(b, n, 'i', PAT_RANDOM, 51);
            MPI_CALL(MPI_Issend(b, n, MPI_INT, 1, 51, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Request_free(&r));
            mt_fill(c, 100, 'i', PAT_SMOOTH, 52);
            MPI_CALL(MPI_Isend(c, 100, MPI_INT, 1, 52, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Request_free(&r));
            /* the buffers may be reused only once the receiver confirms */
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (mt_rank == 1) {
            MPI_CALL(MPI_Recv(c, 100, MPI_INT, 0, 52, MPI_COMM_WORLD, &st));
            CHECK_STATUS("freed Isend small", &st, 0, 52, MPI_INT, 100);
            CHECK_PATTERN("freed Isend small", c, 100, 'i', PAT_SMOOTH, 52);
            MPI_CALL(MPI_Recv(a, n, MPI_INT, 0, 50, MPI_COMM_WORLD, &st));
            CHECK_STATUS("freed Isend large", &st, 0, 50, MPI_INT, n);
            CHECK_PATTERN("freed Isend large", a, n, 'i', PAT_RAMP, 50);
            MPI_CALL(MPI_Recv(b, n, MPI_INT, 0, 51, MPI_COMM_WORLD, &st));
            CHECK_STATUS("freed Issend random", &st, 0, 51, MPI_INT, n);
            CHECK_PATTERN("freed Issend random", b, n, 'i', PAT_RANDOM, 51);
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 53, MPI_COMM_WORLD));
        }
        free(a); free(b); free(c);
    }
    mt_group_end();

    /* ---- Cancel an unmatched receive */
    mt_group_begin("MPI_Cancel of unmatched receives, then normal traffic on the same tag");
    if (mt_rank < 2) {
        int n = 200000;
        double *a = mt_malloc(n * sizeof(double));
        MPI_Request r[2];
        memset(a, MT_SENTINEL, n * sizeof(double));
        MPI_CALL(MPI_Irecv(a, n, MPI_DOUBLE, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &r[0]));
        MPI_CALL(MPI_Irecv(a, n, MPI_DOUBLE, peer, 61, MPI_COMM_WORLD, &r[1]));
        MPI_CALL(MPI_Cancel(&r[0]));
        MPI_CALL(MPI_Cancel(&r[1]));
        for (int i = 0; i < 2; i++) {
            int cancelled = 0;
            mt_status_prefill(&st);
            if (i == 0) MPI_CALL(MPI_Wait(&r[i], &st));
            else { int f = 0; while (!f) MPI_CALL(MPI_Test(&r[i], &f, &st)); }
            MPI_CALL(MPI_Test_cancelled(&st, &cancelled));
            CHECK_INT(i ? "MPI_Test_cancelled after Cancel(Irecv(peer)) + Test" : "MPI_Test_cancelled after Cancel(Irecv(ANY_SOURCE)) + Wait",
                      1, cancelled);
            CHECK(r[i] == MPI_REQUEST_NULL, "cancelled request", "not MPI_REQUEST_NULL after Wait/Test");
        }
        CHECK_SENTINEL("cancelled receive buffer untouched", a, 0, n * sizeof(double));
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        double *b = mt_malloc(n * sizeof(double));
        mt_fill(b, n, 'd', PAT_RAMP, 60 + mt_rank);
        MPI_Request sr[2];
        MPI_CALL(MPI_Isend(b, n, MPI_DOUBLE, peer, 60, MPI_COMM_WORLD, &sr[0]));
        MPI_CALL(MPI_Isend(b, 5, MPI_DOUBLE, peer, 61, MPI_COMM_WORLD, &sr[1]));
        MPI_CALL(MPI_Recv(a, n, MPI_DOUBLE, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &st));
        CHECK_STATUS("tag 60 after cancel", &st, peer, 60, MPI_DOUBLE, n);
        CHECK_PATTERN("tag 60 after cancel", a, n, 'd', PAT_RAMP, 60 + peer);
        MPI_CALL(MPI_Recv(a, n, MPI_DOUBLE, peer, 61, MPI_COMM_WORLD, &st));
        CHECK_STATUS("tag 61 after cancel", &st, peer, 61, MPI_DOUBLE, 5);
        CHECK_PATTERN("tag 61 after cancel", a, 5, 'd', PAT_RAMP, 60 + peer);
        MPI_CALL(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
        free(a);
        free(b);
    } else {
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    mt_group_end();

    /* ---- Cancel of a send that is never received: cancelled (then the
     * message must never arrive, and nothing of it may linger: a pipelined
     * message's chunks are cancelled with it, or MPI_Finalize would wait for
     * them) or not (MPIs may refuse to cancel sends: then it is received) */
    mt_group_begin("MPI_Cancel of a large send");
    if (mt_rank < 2) {
        /* The receive is posted only after the cancel: a cancelled send
         * never matches it (the receiver then cancels it), one the MPI
         * refused to cancel (Open MPI cannot cancel sends) is received. */
        int n = 300000, cancelled = 0;
        double *a = mt_malloc(n * sizeof(double));
        if (mt_rank == 0) {
            MPI_Request r;
            mt_fill(a, n, 'd', PAT_SMOOTH, 70);
            MPI_CALL(MPI_Isend(a, n, MPI_DOUBLE, 1, 70, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Cancel(&r));
            MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
            MPI_CALL(MPI_Wait(&r, &st));
            MPI_CALL(MPI_Test_cancelled(&st, &cancelled));
            MPI_CALL(MPI_Send(&cancelled, 1, MPI_INT, 1, 71, MPI_COMM_WORLD));
        } else {
            MPI_Request r;
            MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
            memset(a, MT_SENTINEL, n * sizeof(double));
            MPI_CALL(MPI_Irecv(a, n, MPI_DOUBLE, 0, 70, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Recv(&cancelled, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, &st));
            if (cancelled) {
                int rc = 0;
                MPI_CALL(MPI_Cancel(&r));
                MPI_CALL(MPI_Wait(&r, &st));
                MPI_CALL(MPI_Test_cancelled(&st, &rc));
                CHECK_INT("a cancelled send never matches a receive", 1, rc);
                CHECK_SENTINEL("receive of a cancelled send untouched", a, 0, n * sizeof(double));
            } else {
                MPI_CALL(MPI_Wait(&r, &st));
                CHECK_STATUS("send that was not cancelled", &st, 0, 70, MPI_DOUBLE, n);
                CHECK_PATTERN("send that was not cancelled", a, n, 'd', PAT_SMOOTH, 70);
            }
        }
        free(a);
    } else {
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    mt_group_end();

    /* ---- Sendrecv / Sendrecv_replace */
    mt_group_begin("MPI_Sendrecv and MPI_Sendrecv_replace");
    if (mt_rank < 2) {
        /* rank 0 sends 300000 doubles (smooth), rank 1 sends 70001 ints (random) */
        int nd = 300000, ni = 70001;
        double *d = mt_malloc(nd * sizeof(double));
        int *iv = mt_malloc((ni + 10) * sizeof(int));
        if (mt_rank == 0) {
            mt_fill(d, nd, 'd', PAT_SMOOTH, 70);
            memset(iv, MT_SENTINEL, (ni + 10) * sizeof(int));
            MPI_CALL(MPI_Sendrecv(d, nd, MPI_DOUBLE, 1, 70, iv, ni + 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                  MPI_COMM_WORLD, &st));
            CHECK_STATUS("Sendrecv recv part (ANY_SOURCE/ANY_TAG)", &st, 1, 71, MPI_INT, ni);
            CHECK_PATTERN("Sendrecv recv part", iv, ni, 'i', PAT_RANDOM, 71);
            CHECK_SENTINEL("Sendrecv recv part tail", iv, (size_t)ni * 4, (size_t)(ni + 10) * 4);
        } else {
            mt_fill(iv, ni, 'i', PAT_RANDOM, 71);
            MPI_CALL(MPI_Sendrecv(iv, ni, MPI_INT, 0, 71, d, nd, MPI_DOUBLE, 0, 70, MPI_COMM_WORLD, &st));
            CHECK_STATUS("Sendrecv recv part", &st, 0, 70, MPI_DOUBLE, nd);
            CHECK_PATTERN("Sendrecv recv part", d, nd, 'd', PAT_SMOOTH, 70);
        }
        /* Sendrecv_replace: same buffer, swapped contents */
        for (int k = 0; k < 4; k++) {
            int n = k == 0 ? 0 : k == 1 ? 3 : k == 2 ? 262144 : 150000;
            int pat = k == 3 ? PAT_RANDOM : PAT_RAMP;
            double *x = mt_malloc((size_t)n * sizeof(double) + 8);
            mt_fill(x, n, 'd', pat, 80 + k * 2 + mt_rank);
            MPI_CALL(MPI_Sendrecv_replace(x, n, MPI_DOUBLE, peer, 80 + k, peer, 80 + k, MPI_COMM_WORLD, &st));
            char w[64];
            snprintf(w, sizeof w, "Sendrecv_replace %d doubles", n);
            CHECK_STATUS(w, &st, peer, 80 + k, MPI_DOUBLE, n);
            CHECK_PATTERN(w, x, n, 'd', pat, 80 + k * 2 + peer);
            free(x);
        }
        free(d);
        free(iv);
    }
    mt_group_end();

    /* ---- Bsend/Ibsend with an exactly sized buffer */
    static const int bcount[6] = {100, 262144, 16384, 0, 1 << 20, 3};
    static const char bkind[6] = {'i', 'd', 'd', 'b', 'b', 'f'};
    static const int bpat[6] = {PAT_RAMP, PAT_SMOOTH, PAT_RANDOM, PAT_ZERO, PAT_ZERO, PAT_RANDOM};
    for (int variant = 0; variant < 2; variant++) {
        mt_group_begin("%s x6 outstanding with buffer = sum(MPI_Pack_size + MPI_BSEND_OVERHEAD)",
                       variant ? "MPI_Ibsend" : "MPI_Bsend");
        if (mt_rank == 0) {
            int total = 0;
            for (int i = 0; i < 6; i++) {
                int ps = 0;
                MPI_Pack_size(bcount[i], mt_kind_type(bkind[i]), MPI_COMM_WORLD, &ps);
                total += ps + MPI_BSEND_OVERHEAD;
            }
            void *bb = mt_malloc(total);
            MPI_CALL(MPI_Buffer_attach(bb, total));
            void *bufs[6];
            MPI_Request r[6];
            for (int i = 0; i < 6; i++) {
                bufs[i] = mt_malloc((size_t)bcount[i] * mt_kind_size(bkind[i]));
                mt_fill(bufs[i], bcount[i], bkind[i], bpat[i], 90 + i);
                int rc;
                if (variant == 0) {
                    rc = MPI_Bsend(bufs[i], bcount[i], mt_kind_type(bkind[i]), 1, 90 + i, MPI_COMM_WORLD);
                } else {
                    rc = MPI_Ibsend(bufs[i], bcount[i], mt_kind_type(bkind[i]), 1, 90 + i, MPI_COMM_WORLD, &r[i]);
                    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r[i], MPI_STATUS_IGNORE);
                }
                CHECK(rc == MPI_SUCCESS, variant ? "MPI_Ibsend+MPI_Wait into exactly sized buffer" : "MPI_Bsend into exactly sized buffer",
                      "message %d (%s x %d): %s", i, mt_kind_name(bkind[i]), bcount[i], mt_errstr(rc));
                /* the message is buffered: overwrite the user buffer at once */
                memset(bufs[i], 0x3c, (size_t)bcount[i] * mt_kind_size(bkind[i]));
            }
            /* only now let the receiver start: all 6 messages sit in the buffer */
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
            void *db;
            int ds;
            MPI_CALL(MPI_Buffer_detach(&db, &ds));
            CHECK(db == bb, "Buffer_detach pointer", "expected %p, got %p", bb, db);
            CHECK_INT("Buffer_detach size", total, ds);
            for (int i = 0; i < 6; i++) free(bufs[i]);
            free(bb);
        } else if (mt_rank == 1) {
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 5; i >= 0; i--) {
                size_t bytes = (size_t)bcount[i] * mt_kind_size(bkind[i]);
                void *b = mt_malloc(bytes);
                MPI_CALL(MPI_Recv(b, bcount[i], mt_kind_type(bkind[i]), 0, 90 + i, MPI_COMM_WORLD, &st));
                char w[96];
                snprintf(w, sizeof w, "buffered message %d (%s x %d)", i, mt_kind_name(bkind[i]), bcount[i]);
                CHECK_STATUS(w, &st, 0, 90 + i, mt_kind_type(bkind[i]), bcount[i]);
                CHECK_PATTERN(w, b, bcount[i], bkind[i], bpat[i], 90 + i);
                free(b);
            }
        }
        mt_group_end();
    }
    /* ---- synchronous mode: an MPI_Issend / MPI_Ssend_init cannot complete
     *      before the receiver has matched it (the receiver only posts its
     *      receive after the sender has tested many times and said "go"). */
    mt_group_begin("MPI_Issend / MPI_Ssend_init do not complete before the receive is matched");
    for (int v = 0; v < 4; v++) {
        int n = v % 2 ? 1 << 20 : 10; /* large compressible and tiny */
        int *a = mt_malloc(n * sizeof(int));
        if (mt_rank == 0) {
            MPI_Request r;
            mt_fill(a, n, 'i', PAT_RAMP, 95 + v);
            if (v < 2) MPI_CALL(MPI_Issend(a, n, MPI_INT, 1, 95, MPI_COMM_WORLD, &r));
            else { MPI_CALL(MPI_Ssend_init(a, n, MPI_INT, 1, 95, MPI_COMM_WORLD, &r)); MPI_CALL(MPI_Start(&r)); }
            int early = 0;
            for (int i = 0; i < 2000 && !early; i++) MPI_CALL(MPI_Test(&r, &early, MPI_STATUS_IGNORE));
            CHECK(!early, v < 2 ? "MPI_Issend + MPI_Test before the receive is posted" : "MPI_Ssend_init/Start + MPI_Test before the receive is posted",
                  "synchronous send (%d ints) completed although the receiver has not posted a receive", n);
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 96, MPI_COMM_WORLD)); /* go */
            if (!early) MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
            if (v >= 2) MPI_CALL(MPI_Request_free(&r));
        } else if (mt_rank == 1) {
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_CALL(MPI_Recv(a, n, MPI_INT, 0, 95, MPI_COMM_WORLD, &st));
            CHECK_STATUS("synchronous send data", &st, 0, 95, MPI_INT, n);
            CHECK_PATTERN("synchronous send data", a, n, 'i', PAT_RAMP, 95 + v);
        }
        free(a);
    }
    mt_group_end();

    /* ---- MPI_Request_get_status (not wrapped by compi, still app-visible):
     *      must eventually report completion with the right status, and leave
     *      the request to be freed by MPI_Wait. */
    mt_group_begin("MPI_Request_get_status on framed receives and sends");
    if (mt_rank < 2) {
        int n = 300000;
        double *a = mt_malloc(n * sizeof(double)), *b = mt_malloc(n * sizeof(double));
        mt_fill(a, n, 'd', PAT_SMOOTH, 97 + mt_rank);
        MPI_Request rr, rs;
        MPI_CALL(MPI_Irecv(b, n, MPI_DOUBLE, peer, 97, MPI_COMM_WORLD, &rr));
        MPI_CALL(MPI_Isend(a, n - 3, MPI_DOUBLE, peer, 97, MPI_COMM_WORLD, &rs));
        int fr = 0, fs = 0;
        double t0 = MPI_Wtime();
        MPI_Status sr;
        /* bounded only to turn a hang into a failure; not a performance check */
        while ((!fr || !fs) && MPI_Wtime() - t0 < 20.0) {
            if (!fr) MPI_CALL(MPI_Request_get_status(rr, &fr, &sr));
            if (!fs) MPI_CALL(MPI_Request_get_status(rs, &fs, MPI_STATUS_IGNORE));
        }
        CHECK(fr && fs, "MPI_Request_get_status", "never reported completion within 20 s (recv flag %d, send flag %d)", fr, fs);
        CHECK(rr != MPI_REQUEST_NULL, "MPI_Request_get_status", "must not free the request");
        if (fr) {
            CHECK_STATUS("MPI_Request_get_status status", &sr, peer, 97, MPI_DOUBLE, n - 3);
            CHECK_PATTERN("data after MPI_Request_get_status", b, n - 3, 'd', PAT_SMOOTH, 97 + peer);
        }
        MPI_CALL(MPI_Wait(&rr, &st));
        MPI_CALL(MPI_Wait(&rs, MPI_STATUS_IGNORE));
        CHECK_STATUS("MPI_Wait after MPI_Request_get_status", &st, peer, 97, MPI_DOUBLE, n - 3);
        CHECK_PATTERN("MPI_Wait after MPI_Request_get_status", b, n - 3, 'd', PAT_SMOOTH, 97 + peer);
        free(a);
        free(b);
    }
    mt_group_end();

    /* ---- two concurrent MPI_Isend from the same buffer (legal since MPI-3) */
    mt_group_begin("concurrent MPI_Isend from one buffer");
    if (mt_rank < 2) {
        int n = 500000;
        float *a = mt_malloc(n * sizeof(float)), *b = mt_malloc(2 * (size_t)n * sizeof(float));
        mt_fill(a, n, 'f', PAT_SMOOTH, 98 + mt_rank);
        MPI_Request r[4];
        MPI_CALL(MPI_Irecv(b, n, MPI_FLOAT, peer, 98, MPI_COMM_WORLD, &r[0]));
        MPI_CALL(MPI_Irecv(b + n, n, MPI_FLOAT, peer, 99, MPI_COMM_WORLD, &r[1]));
        MPI_CALL(MPI_Isend(a, n, MPI_FLOAT, peer, 99, MPI_COMM_WORLD, &r[2]));
        MPI_CALL(MPI_Isend(a, n, MPI_FLOAT, peer, 98, MPI_COMM_WORLD, &r[3]));
        MPI_CALL(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        CHECK_PATTERN("first copy", b, n, 'f', PAT_SMOOTH, 98 + peer);
        CHECK_PATTERN("second copy", b + n, n, 'f', PAT_SMOOTH, 98 + peer);
        CHECK_PATTERN("send buffer unchanged", a, n, 'f', PAT_SMOOTH, 98 + mt_rank);
        free(a);
        free(b);
    }
    mt_group_end();

    /* ---- MPI_Testall with one incomplete request: flag 0 and no request modified */
    mt_group_begin("MPI_Testall with an incomplete request leaves the requests alone");
    if (mt_rank < 2) {
        int n = 200000;
        double *a = mt_malloc(n * sizeof(double)), *b = mt_malloc(2 * (size_t)n * sizeof(double));
        mt_fill(a, n, 'd', PAT_SMOOTH, 110 + mt_rank);
        MPI_Request r[2], sr;
        MPI_Status sts[2];
        MPI_CALL(MPI_Irecv(b, n, MPI_DOUBLE, peer, 110, MPI_COMM_WORLD, &r[0]));
        MPI_CALL(MPI_Irecv(b + n, n, MPI_DOUBLE, peer, 111, MPI_COMM_WORLD, &r[1]));
        MPI_CALL(MPI_Isend(a, n, MPI_DOUBLE, peer, 110, MPI_COMM_WORLD, &sr));
        MPI_Request r0 = r[0], r1 = r[1];
        int flag = 1, bad = 0;
        for (int i = 0; i < 300 && !bad; i++) {
            MPI_CALL(MPI_Testall(2, r, &flag, sts));
            bad = flag || r[0] != r0 || r[1] != r1;
        }
        CHECK(!bad, "MPI_Testall while the tag-111 receive cannot complete",
              "flag %d; request[0] %s, request[1] %s", flag, r[0] == r0 ? "unchanged" : "MODIFIED",
              r[1] == r1 ? "unchanged" : "MODIFIED");
        int oc = -5, ind[2];
        MPI_CALL(MPI_Testsome(1, &r[1], &oc, ind, sts));
        CHECK_INT("MPI_Testsome on the incomplete request: outcount", 0, oc);
        MPI_CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        MPI_CALL(MPI_Isend(a, n / 2, MPI_DOUBLE, peer, 111, MPI_COMM_WORLD, &sr));
        flag = 0;
        while (!flag) MPI_CALL(MPI_Testall(2, r, &flag, sts));
        MPI_CALL(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK_STATUS("Testall after both arrived: entry 0", &sts[0], peer, 110, MPI_DOUBLE, n);
        CHECK_STATUS("Testall after both arrived: entry 1", &sts[1], peer, 111, MPI_DOUBLE, n / 2);
        CHECK_PATTERN("Testall entry 0 data", b, n, 'd', PAT_SMOOTH, 110 + peer);
        CHECK_PATTERN("Testall entry 1 data", b + n, n / 2, 'd', PAT_SMOOTH, 110 + peer);
        free(a);
        free(b);
    } else {
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
    }
    mt_group_end();

    /* ---- MPI_Cancel of a receive whose message has (probably) already arrived:
     *      either it is cancelled and the message goes to the next receive, or it
     *      completes normally.  The message must never be lost or duplicated. */
    mt_group_begin("MPI_Cancel of a receive whose message has arrived: cancelled or completed, never lost");
    for (int v = 0; v < 2; v++) {
        int n = v ? 300000 : 20;
        int *a = mt_malloc(n * sizeof(int));
        if (mt_rank == 0) {
            mt_fill(a, n, 'i', PAT_RAMP, 120 + v);
            MPI_CALL(MPI_Send(a, n, MPI_INT, 1, 120, MPI_COMM_WORLD));
            MPI_CALL(MPI_Send(a, 1, MPI_INT, 1, 121, MPI_COMM_WORLD));
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 122, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* next round */
        } else if (mt_rank == 1) {
            MPI_CALL(MPI_Probe(0, 120, MPI_COMM_WORLD, &st)); /* it has arrived */
            MPI_Request r;
            memset(a, 0, n * sizeof(int));
            MPI_CALL(MPI_Irecv(a, n, MPI_INT, 0, 120, MPI_COMM_WORLD, &r));
            MPI_CALL(MPI_Cancel(&r));
            MPI_CALL(MPI_Wait(&r, &st));
            int cancelled = -1;
            MPI_CALL(MPI_Test_cancelled(&st, &cancelled));
            if (cancelled) {
                MPI_CALL(MPI_Recv(a, n, MPI_INT, 0, 120, MPI_COMM_WORLD, &st));
                CHECK_STATUS("message received after a successful cancel", &st, 0, 120, MPI_INT, n);
            } else {
                CHECK_STATUS("cancel failed, receive completed", &st, 0, 120, MPI_INT, n);
            }
            CHECK_PATTERN(cancelled ? "message after successful cancel" : "receive that could not be cancelled", a, n,
                          'i', PAT_RAMP, 120 + v);
            MPI_CALL(MPI_Recv(a, 1, MPI_INT, 0, 121, MPI_COMM_WORLD, &st));
            int flag = 1;
            MPI_CALL(MPI_Iprobe(0, 120, MPI_COMM_WORLD, &flag, &st));
            CHECK_INT("no duplicate of the message left after cancel", 0, flag);
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 122, MPI_COMM_WORLD));
        }
        free(a);
    }
    mt_group_end();

    request_get_status_rounds();

    return mt_finish();
}
