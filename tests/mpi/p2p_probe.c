/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_probe: MPI_Probe / MPI_Iprobe / MPI_Mprobe / MPI_Improbe + MPI_Mrecv /
 * MPI_Imrecv.  The probed status must report the application's count (not the
 * compressed wire size), source and tag; the probed message is the one then
 * received, also with wildcards; Iprobe/Improbe without a matching message give
 * flag 0.  Rank 0 receives; with >= 3 ranks several senders are probed. */
#include "mpitest.h"

static const int sizes[] = {0, 1, 17, 1000, 65536, 300000, 1048576}; /* elements */
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
static const char kinds[] = {'d', 'i', 'b', 'f'};

static int msg_pat(int k) { return k % 3 == 2 ? PAT_RANDOM : (k % 3 ? PAT_SMOOTH : PAT_RAMP); }

/* Message k from rank src: kind, count, tag, pattern, seed */
static void msg_params(int src, int k, char *kind, int *count, int *tag, int *pat, uint64_t *seed)
{
    *kind = kinds[(k + src) % 4];
    *count = sizes[k % NSIZES];
    if (*kind == 'b' && *count > 0) *count = *count * 3 + 1;
    *tag = 100 + k;
    *pat = msg_pat(k + src);
    *seed = (uint64_t)src * 1000 + (uint64_t)k;
}

static void send_msgs(int dest, int nmsg, int ssend_first)
{
    MPI_Request *r = mt_malloc(nmsg * sizeof *r);
    void **bufs = mt_malloc(nmsg * sizeof *bufs);
    for (int k = 0; k < nmsg; k++) {
        char kind; int count, tag, pat; uint64_t seed;
        msg_params(mt_rank, k, &kind, &count, &tag, &pat, &seed);
        bufs[k] = mt_malloc((size_t)count * mt_kind_size(kind));
        mt_fill(bufs[k], (size_t)count, kind, pat, seed);
        if (k == 0 && ssend_first)
            MPI_CALL(MPI_Issend(bufs[k], count, mt_kind_type(kind), dest, tag, MPI_COMM_WORLD, &r[k]));
        else
            MPI_CALL(MPI_Isend(bufs[k], count, mt_kind_type(kind), dest, tag, MPI_COMM_WORLD, &r[k]));
    }
    MPI_CALL(MPI_Waitall(nmsg, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < nmsg; k++) free(bufs[k]);
    free(bufs);
    free(r);
}

/* Verify a probe status + receive of message (src, k) */
enum { RX_RECV_PROBED, RX_RECV_WILD, RX_RECV_SRC_ANYTAG, RX_IRECV, RX_MRECV, RX_IMRECV };

static void probe_and_receive(const char *how, MPI_Status *pst, MPI_Message *msg, int rx)
{
    int src = pst->MPI_SOURCE;
    int k = pst->MPI_TAG - 100;
    char kind; int count, tag, pat; uint64_t seed;
    if (src < 1 || src >= mt_size || k < 0) {
        mt_failf(__LINE__, how, "probe returned an impossible envelope source %d tag %d", src, pst->MPI_TAG);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    msg_params(src, k, &kind, &count, &tag, &pat, &seed);
    MPI_Datatype type = mt_kind_type(kind);
    char w[200];
    snprintf(w, sizeof w, "%s: probed msg src %d tag %d (%s x %d %s)", how, src, tag, mt_kind_name(kind), count,
             mt_pat_name[pat]);
    CHECK_STATUS(w, pst, src, tag, type, count);
    if (kind == 'i' && count % 2 == 1) { /* odd number of 4-byte ints is not a whole number of doubles */
        int c = 0;
        MPI_Get_count(pst, MPI_DOUBLE, &c);
        CHECK_INT("probe Get_count(MPI_DOUBLE) on odd int count -> MPI_UNDEFINED", MPI_UNDEFINED, c);
    }
    /* buffer of exactly the probed size (+ sentinel tail) */
    int pc = 0;
    MPI_Get_count(pst, type, &pc);
    if (pc < 0 || pc == MPI_UNDEFINED) pc = count;
    size_t es = mt_kind_size(kind), cap = (size_t)pc * es + 64;
    unsigned char *buf = mt_malloc(cap);
    memset(buf, MT_SENTINEL, cap);
    MPI_Status st;
    mt_status_prefill(&st);
    MPI_Request req;
    switch (rx) {
    case RX_RECV_PROBED:
        MPI_CALL(MPI_Recv(buf, pc, type, pst->MPI_SOURCE, pst->MPI_TAG, MPI_COMM_WORLD, &st));
        break;
    case RX_RECV_WILD:
        MPI_CALL(MPI_Recv(buf, pc, type, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        break;
    case RX_RECV_SRC_ANYTAG:
        MPI_CALL(MPI_Recv(buf, pc, type, pst->MPI_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        break;
    case RX_IRECV:
        MPI_CALL(MPI_Irecv(buf, pc, type, pst->MPI_SOURCE, pst->MPI_TAG, MPI_COMM_WORLD, &req));
        MPI_CALL(MPI_Wait(&req, &st));
        break;
    case RX_MRECV:
        MPI_CALL(MPI_Mrecv(buf, pc, type, msg, &st));
        CHECK(*msg == MPI_MESSAGE_NULL, w, "message handle not MPI_MESSAGE_NULL after MPI_Mrecv");
        break;
    default:
        MPI_CALL(MPI_Imrecv(buf, pc, type, msg, &req));
        CHECK(*msg == MPI_MESSAGE_NULL, w, "message handle not MPI_MESSAGE_NULL after MPI_Imrecv");
        MPI_CALL(MPI_Wait(&req, &st));
        break;
    }
    snprintf(w, sizeof w, "%s: received msg (probed src %d tag %d, %s x %d %s)", how, src, tag,
             mt_kind_name(kind), count, mt_pat_name[pat]);
    CHECK_STATUS(w, &st, src, tag, type, count);
    CHECK_PATTERN(w, buf, (size_t)count, kind, pat, seed);
    CHECK_SENTINEL(w, buf, (size_t)count * es, cap);
    free(buf);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_probe");
    mt_require_size(2);
    const int nmsg = 2 * NSIZES;
    int nsend = mt_size - 1;
    MPI_Status st;

    /* 1. Probe a specific (source, tag), in reverse order of sending. */
    mt_group_begin("MPI_Probe specific source/tag (reverse order) + MPI_Recv");
    if (mt_rank == 0) {
        for (int s = 1; s < mt_size; s++)
            for (int k = nmsg - 1; k >= 0; k--) {
                mt_status_prefill(&st);
                MPI_CALL(MPI_Probe(s, 100 + k, MPI_COMM_WORLD, &st));
                probe_and_receive("Probe(src,tag)", &st, NULL, k % 2 ? RX_RECV_PROBED : RX_IRECV);
            }
    } else {
        send_msgs(0, nmsg, 1);
    }
    mt_group_end();

    /* 2. Iprobe loop with specific source, ANY_TAG */
    mt_group_begin("MPI_Iprobe loop (src, MPI_ANY_TAG) + MPI_Recv/MPI_Irecv");
    if (mt_rank == 0) {
        for (int s = 1; s < mt_size; s++)
            for (int k = 0; k < nmsg; k++) {
                int flag = 0;
                mt_status_prefill(&st);
                while (!flag) MPI_CALL(MPI_Iprobe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                CHECK_INT("Iprobe(src, ANY_TAG) finds messages in send order: tag", 100 + k, st.MPI_TAG);
                probe_and_receive("Iprobe(src,ANY_TAG)", &st, NULL, k % 2 ? RX_IRECV : RX_RECV_PROBED);
            }
    } else {
        send_msgs(0, nmsg, 0);
    }
    mt_group_end();

    /* 3. Probe with ANY_SOURCE/ANY_TAG, then receive with full wildcards: the
     *    same message.  Only one sender is active at a time, so the wildcard
     *    receive is guaranteed to match the probed message (with several
     *    concurrent senders plain Open MPI may legitimately pick another source). */
    mt_group_begin("MPI_Probe(ANY_SOURCE, ANY_TAG) then MPI_Recv(ANY_SOURCE, ANY_TAG), one sender at a time");
    if (mt_rank == 0) {
        for (int s = 1; s < mt_size; s++) {
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, s, 98, MPI_COMM_WORLD)); /* your turn */
            for (int i = 0; i < nmsg; i++) {
                mt_status_prefill(&st);
                MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK_INT("wildcard probe: source", s, st.MPI_SOURCE);
                CHECK_INT("wildcard probe: order (tag)", 100 + i, st.MPI_TAG);
                probe_and_receive("Probe(ANY,ANY)+Recv(ANY,ANY)", &st, NULL, i % 3 ? RX_RECV_WILD : RX_RECV_PROBED);
            }
        }
    } else {
        MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        send_msgs(0, nmsg, 1);
    }
    mt_group_end();

    /* 3b. Concurrent senders: Probe(ANY,ANY) then receive from the probed source
     *     with MPI_ANY_TAG or the probed tag; per-source order must hold. */
    mt_group_begin("MPI_Probe(ANY_SOURCE, ANY_TAG), concurrent senders, Recv(probed src, ANY_TAG)");
    if (mt_rank == 0) {
        int *next = calloc(mt_size, sizeof(int));
        for (int i = 0; i < nmsg * nsend; i++) {
            mt_status_prefill(&st);
            MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            if (st.MPI_SOURCE >= 1 && st.MPI_SOURCE < mt_size) {
                CHECK_INT("wildcard probe: per-source order (tag)", 100 + next[st.MPI_SOURCE], st.MPI_TAG);
                next[st.MPI_SOURCE]++;
            }
            probe_and_receive("Probe(ANY,ANY)+Recv(src,ANY_TAG)", &st, NULL, i % 3 ? RX_RECV_SRC_ANYTAG : RX_IRECV);
        }
        free(next);
    } else {
        send_msgs(0, nmsg, 0);
    }
    mt_group_end();

    /* 4. Mprobe + Mrecv, Improbe + Imrecv (wildcards and specific). */
    mt_group_begin("MPI_Mprobe/MPI_Mrecv and MPI_Improbe/MPI_Imrecv");
    if (mt_rank == 0) {
        for (int i = 0; i < nmsg * nsend; i++) {
            MPI_Message m = MPI_MESSAGE_NULL;
            mt_status_prefill(&st);
            if (i % 2 == 0) {
                MPI_CALL(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            } else {
                int flag = 0;
                while (!flag) MPI_CALL(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
            }
            CHECK(m != MPI_MESSAGE_NULL, "Mprobe/Improbe message handle", "got MPI_MESSAGE_NULL for a real message");
            probe_and_receive(i % 2 ? "Improbe" : "Mprobe", &st, &m, (i / 2) % 2 ? RX_IMRECV : RX_MRECV);
        }
        /* matched-probe of a specific source and tag out of order */
        for (int s = 1; s < mt_size; s++) MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, s, 99, MPI_COMM_WORLD));
        for (int s = 1; s < mt_size; s++)
            for (int k = nmsg - 1; k >= 0; k--) {
                MPI_Message m;
                mt_status_prefill(&st);
                MPI_CALL(MPI_Mprobe(s, 100 + k, MPI_COMM_WORLD, &m, &st));
                probe_and_receive("Mprobe(src,tag) reverse", &st, &m, k % 2 ? RX_MRECV : RX_IMRECV);
            }
    } else {
        send_msgs(0, nmsg, 0);
        MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* go */
        send_msgs(0, nmsg, 1);
    }
    mt_group_end();

    /* 5. Mprobe from MPI_PROC_NULL */
    mt_group_begin("MPI_Mprobe/MPI_Improbe from MPI_PROC_NULL");
    {
        MPI_Message m = MPI_MESSAGE_NULL;
        mt_status_prefill(&st);
        MPI_CALL(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
        CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) message", "expected MPI_MESSAGE_NO_PROC");
        CHECK_INT("Mprobe(PROC_NULL) status.MPI_SOURCE", MPI_PROC_NULL, st.MPI_SOURCE);
        CHECK_INT("Mprobe(PROC_NULL) status.MPI_TAG", MPI_ANY_TAG, st.MPI_TAG);
        int buf[4] = {1, 2, 3, 4}, c = -1;
        mt_status_prefill(&st);
        MPI_CALL(MPI_Mrecv(buf, 4, MPI_INT, &m, &st));
        CHECK_INT("Mrecv(NO_PROC) status.MPI_SOURCE", MPI_PROC_NULL, st.MPI_SOURCE);
        MPI_Get_count(&st, MPI_INT, &c);
        CHECK_INT("Mrecv(NO_PROC) Get_count", 0, c);
        CHECK(buf[0] == 1 && buf[3] == 4, "Mrecv(NO_PROC) buffer", "buffer modified");
        int flag = 0;
        MPI_CALL(MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK_INT("Improbe(PROC_NULL) flag", 1, flag);
        CHECK(m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL) message", "expected MPI_MESSAGE_NO_PROC");
        flag = 0;
        MPI_CALL(MPI_Iprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &st));
        CHECK_INT("Iprobe(PROC_NULL) flag", 1, flag);
        CHECK_INT("Iprobe(PROC_NULL) status.MPI_SOURCE", MPI_PROC_NULL, st.MPI_SOURCE);
    }
    mt_group_end();

    /* 6. Iprobe/Improbe with no matching message: flag 0, even while other
     *    messages (other tags) are pending; those are then received normally. */
    mt_group_begin("MPI_Iprobe/MPI_Improbe without a matching message");
    {
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        int flag = 1;
        MPI_Message m = MPI_MESSAGE_NULL;
        MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK_INT("Iprobe(ANY,ANY) with nothing sent: flag", 0, flag);
        flag = 1;
        MPI_CALL(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK_INT("Improbe(ANY,ANY) with nothing sent: flag", 0, flag);
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        int n = 500000;
        double *d = mt_malloc(n * sizeof(double));
        MPI_Request sr[2];
        if (mt_rank == 1) {
            mt_fill(d, n, 'd', PAT_SMOOTH, 77);
            MPI_CALL(MPI_Isend(d, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &sr[0]));
            MPI_CALL(MPI_Isend(d, 10, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &sr[1]));
        }
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD)); /* messages are posted (eager or pending rendezvous) */
        if (mt_rank == 0) {
            /* make sure they are visible */
            MPI_CALL(MPI_Probe(1, 7, MPI_COMM_WORLD, &st));
            MPI_CALL(MPI_Probe(1, 8, MPI_COMM_WORLD, &st));
            flag = 1;
            MPI_CALL(MPI_Iprobe(1, 9, MPI_COMM_WORLD, &flag, &st));
            CHECK_INT("Iprobe(1, tag 9) while tags 7,8 pending: flag", 0, flag);
            if (mt_size > 2) {
                flag = 1;
                MPI_CALL(MPI_Iprobe(2, 7, MPI_COMM_WORLD, &flag, &st));
                CHECK_INT("Iprobe(2, tag 7) while only rank 1 sent tag 7: flag", 0, flag);
            }
            flag = 1;
            MPI_CALL(MPI_Improbe(1, 9, MPI_COMM_WORLD, &flag, &m, &st));
            CHECK_INT("Improbe(1, tag 9) while tags 7,8 pending: flag", 0, flag);
            memset(d, 0, n * sizeof(double));
            MPI_CALL(MPI_Recv(d, 10, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, &st));
            CHECK_STATUS("tag 8 after failed iprobes", &st, 1, 8, MPI_DOUBLE, 10);
            CHECK_PATTERN("tag 8 after failed iprobes", d, 10, 'd', PAT_SMOOTH, 77);
            MPI_CALL(MPI_Recv(d, n, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &st));
            CHECK_STATUS("tag 7 after failed iprobes", &st, 1, 7, MPI_DOUBLE, n);
            CHECK_PATTERN("tag 7 after failed iprobes", d, n, 'd', PAT_SMOOTH, 77);
        }
        if (mt_rank == 1) MPI_CALL(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
        free(d);
    }
    mt_group_end();

    /* 7. Probe a message from a blocking MPI_Ssend (sender is waiting) */
    mt_group_begin("MPI_Probe of an MPI_Ssend in progress");
    {
        int n = 2 * 1024 * 1024;
        unsigned char *b = mt_malloc(n);
        if (mt_rank == 1) {
            mt_fill(b, n, 'b', PAT_RAMP, 3);
            MPI_CALL(MPI_Ssend(b, n, MPI_BYTE, 0, 11, MPI_COMM_WORLD));
        } else if (mt_rank == 0) {
            MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st));
            CHECK_STATUS("Probe of Ssend", &st, 1, 11, MPI_BYTE, n);
            int c = 0;
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK_INT("Probe of Ssend: Get_count(MPI_INT) of 2 MiB", n / 4, c);
            memset(b, 0, n);
            MPI_CALL(MPI_Recv(b, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
            CHECK_STATUS("Recv of probed Ssend", &st, 1, 11, MPI_BYTE, n);
            CHECK_PATTERN("Recv of probed Ssend", b, n, 'b', PAT_RAMP, 3);
        }
        free(b);
    }
    mt_group_end();
    return mt_finish();
}
