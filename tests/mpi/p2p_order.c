/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_order: non-overtaking.  Many messages of varying size (small ones that
 * compi leaves raw, large compressible ones, random ones, empty ones) from one
 * sender arrive in send order, with one tag and with several tags (MPI_ANY_TAG
 * receives), with blocking and pre-posted receives, mixed send modes; several
 * senders with MPI_ANY_SOURCE (per-source order); receives interleaved with
 * probes.  Every message's content is a function of (source, sequence number),
 * so any reordering shows up as a data / count mismatch. */
#include "mpitest.h"

#define MAXCOUNT (1048576 / 4)
static int mcount(int seq, int big)
{
    static const int c[] = {2, 65536, 25, 262144, 16384, 0, 3, 40000};
    int n = c[seq % 8];
    if (!big && n > 65536) n = 65536;
    return n;
}
static int mpat(int seq) { return seq % 5 == 2 ? PAT_RANDOM : (seq % 2 ? PAT_SMOOTH : PAT_RAMP); }
static uint64_t mseed(int src, int seq) { return (uint64_t)src * 100000 + (uint64_t)seq; }

/* verify message `seq` from `src` in buf with status st */
static void verify(const char *what, const int *buf, const MPI_Status *st, int src, int seq, int tag, int big)
{
    char w[160];
    int n = mcount(seq, big);
    snprintf(w, sizeof w, "%s: message #%d from %d (%d ints, %s)", what, seq, src, n, mt_pat_name[mpat(seq)]);
    CHECK_STATUS(w, st, src, tag, MPI_INT, n);
    CHECK_PATTERN(w, buf, (size_t)n, 'i', mpat(seq), mseed(src, seq));
}

/* sender: nmsg messages to dest; tag = tagf(seq); mode mix */
static void send_stream(int dest, int nmsg, int ntags, int big, int mixmodes)
{
    MPI_Request *r = mt_malloc(nmsg * sizeof *r);
    int **bufs = mt_malloc(nmsg * sizeof *bufs);
    for (int i = 0; i < nmsg; i++) {
        int n = mcount(i, big);
        bufs[i] = mt_malloc((size_t)n * sizeof(int));
        mt_fill(bufs[i], n, 'i', mpat(i), mseed(mt_rank, i));
        int tag = 10 + i % ntags;
        r[i] = MPI_REQUEST_NULL;
        switch (mixmodes ? i % 5 : 1) {
        case 0: MPI_CALL(MPI_Send(bufs[i], n, MPI_INT, dest, tag, MPI_COMM_WORLD)); break;
        case 1: MPI_CALL(MPI_Isend(bufs[i], n, MPI_INT, dest, tag, MPI_COMM_WORLD, &r[i])); break;
        case 2: MPI_CALL(MPI_Bsend(bufs[i], n, MPI_INT, dest, tag, MPI_COMM_WORLD)); break;
        case 3: MPI_CALL(MPI_Issend(bufs[i], n, MPI_INT, dest, tag, MPI_COMM_WORLD, &r[i])); break;
        default: MPI_CALL(MPI_Ibsend(bufs[i], n, MPI_INT, dest, tag, MPI_COMM_WORLD, &r[i])); break;
        }
    }
    MPI_CALL(MPI_Waitall(nmsg, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < nmsg; i++) free(bufs[i]);
    free(bufs);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_order");
    mt_require_size(2);
    int psz;
    MPI_Pack_size(MAXCOUNT, MPI_INT, MPI_COMM_WORLD, &psz);
    int bsz = 64 * (psz + MPI_BSEND_OVERHEAD);
    void *bbuf = mt_malloc(bsz);
    MPI_CALL(MPI_Buffer_attach(bbuf, bsz));
    int *buf = mt_malloc(MAXCOUNT * sizeof(int) * 2);
    MPI_Status st;
    const int N = 120;

    /* A: one sender, one tag, blocking receives */
    mt_group_begin("one sender, same tag, MPI_Recv in order");
    if (mt_rank == 0) {
        for (int i = 0; i < N; i++) {
            MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, 1, 10, MPI_COMM_WORLD, &st));
            verify("same tag", buf, &st, 1, i, 10, 1);
        }
    } else if (mt_rank == 1) {
        send_stream(0, N, 1, 1, 0);
    }
    mt_group_end();

    /* A2: same, mixed send modes */
    mt_group_begin("one sender, same tag, mixed Send/Isend/Bsend/Issend/Ibsend");
    if (mt_rank == 0) {
        for (int i = 0; i < N; i++) {
            MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st));
            verify("mixed modes", buf, &st, 1, i, 10, 1);
        }
    } else if (mt_rank == 1) {
        send_stream(0, N, 1, 1, 1);
    }
    mt_group_end();

    /* B: several tags, MPI_ANY_TAG receive -> send order */
    mt_group_begin("one sender, 3 tags, MPI_Recv(MPI_ANY_TAG) in send order");
    if (mt_rank == 0) {
        for (int i = 0; i < N; i++) {
            MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            verify("ANY_TAG", buf, &st, 1, i, 10 + i % 3, 1);
        }
    } else if (mt_rank == 1) {
        send_stream(0, N, 3, 1, 0);
    }
    mt_group_end();

    /* B2: several tags, received tag by tag (2, 0, 1): order within each tag */
    mt_group_begin("one sender, 3 tags, received tag by tag in another order");
    if (mt_rank == 0) {
        static const int order[3] = {2, 0, 1};
        for (int t = 0; t < 3; t++)
            for (int i = order[t]; i < N; i += 3) {
                MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, 1, 10 + order[t], MPI_COMM_WORLD, &st));
                verify("tag by tag", buf, &st, 1, i, 10 + order[t], 1);
            }
    } else if (mt_rank == 1) {
        send_stream(0, N, 3, 1, 0);
    }
    mt_group_end();

    /* C: pre-posted receives, one sender */
    mt_group_begin("one sender, pre-posted MPI_Irecv (tag/ANY_TAG alternating) + MPI_Waitall");
    {
        int n = 60;
        if (mt_rank == 1) MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (mt_rank == 0) {
            int *rb = mt_malloc((size_t)n * 65536 * sizeof(int));
            MPI_Request *r = mt_malloc(n * sizeof *r);
            MPI_Status *sts = mt_malloc(n * sizeof *sts);
            for (int i = 0; i < n; i++)
                MPI_CALL(MPI_Irecv(rb + (size_t)i * 65536, 65536, MPI_INT, 1, i % 2 ? MPI_ANY_TAG : 10 + i % 2,
                                   MPI_COMM_WORLD, &r[i]));
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
            MPI_CALL(MPI_Waitall(n, r, sts));
            for (int i = 0; i < n; i++) verify("pre-posted", rb + (size_t)i * 65536, &sts[i], 1, i, 10 + i % 2, 0);
            free(rb); free(r); free(sts);
        } else if (mt_rank == 1) {
            send_stream(0, n, 2, 0, 1);
        }
    }
    mt_group_end();

    /* D: several senders, MPI_ANY_SOURCE (+ ANY_TAG), per-source order */
    mt_group_begin("%d senders, MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG), per-source order", mt_size - 1);
    if (mt_rank == 0) {
        int *next = calloc(mt_size, sizeof(int));
        for (int i = 0; i < N * (mt_size - 1); i++) {
            MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int s = st.MPI_SOURCE;
            if (s < 1 || s >= mt_size) { CHECK_INT("ANY_SOURCE status source in range", 1, s); continue; }
            verify("ANY_SOURCE", buf, &st, s, next[s], 10 + next[s] % 2, 1);
            next[s]++;
        }
        for (int s = 1; s < mt_size; s++) CHECK_INT("messages received per source", N, next[s]);
        free(next);
    } else {
        send_stream(0, N, 2, 1, mt_rank % 2);
    }
    mt_group_end();

    /* E: several senders, pre-posted ANY_SOURCE receives */
    mt_group_begin("%d senders, pre-posted MPI_Irecv(MPI_ANY_SOURCE) + MPI_Waitsome", mt_size - 1);
    {
        int n = 30, tot = n * (mt_size - 1);
        if (mt_rank == 0) {
            int *rb = mt_malloc((size_t)tot * 65536 * sizeof(int));
            MPI_Request *r = mt_malloc(tot * sizeof *r);
            MPI_Status *sts = mt_malloc(tot * sizeof *sts);
            int *idx = mt_malloc(tot * sizeof(int));
            for (int i = 0; i < tot; i++)
                MPI_CALL(MPI_Irecv(rb + (size_t)i * 65536, 65536, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   MPI_COMM_WORLD, &r[i]));
            for (int s = 1; s < mt_size; s++) MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, s, 99, MPI_COMM_WORLD));
            MPI_Status *fin = mt_malloc(tot * sizeof *fin);
            int done = 0;
            while (done < tot) {
                int oc = 0;
                MPI_CALL(MPI_Waitsome(tot, r, &oc, idx, sts));
                if (oc == MPI_UNDEFINED) break;
                for (int j = 0; j < oc; j++) fin[idx[j]] = sts[j];
                done += oc;
            }
            CHECK_INT("Waitsome completed all", tot, done);
            /* in posting order, per-source sequence numbers increase */
            int *next = calloc(mt_size, sizeof(int));
            for (int i = 0; i < tot; i++) {
                int s = fin[i].MPI_SOURCE;
                if (s < 1 || s >= mt_size) { CHECK_INT("status source in range", 1, s); continue; }
                verify("pre-posted ANY_SOURCE", rb + (size_t)i * 65536, &fin[i], s, next[s], 10 + next[s] % 2, 0);
                next[s]++;
            }
            free(next); free(fin); free(rb); free(r); free(sts); free(idx);
        } else {
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            send_stream(0, n, 2, 0, 0);
        }
    }
    mt_group_end();

    /* F: receives interleaved with probes */
    mt_group_begin("%d senders, Probe/Iprobe(ANY_SOURCE) interleaved with receives", mt_size - 1);
    if (mt_rank == 0) {
        int *next = calloc(mt_size, sizeof(int));
        for (int i = 0; i < N * (mt_size - 1); i++) {
            MPI_Status pst;
            if (i % 2) {
                int flag = 0;
                while (!flag) MPI_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &pst));
            } else {
                MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pst));
            }
            int s = pst.MPI_SOURCE;
            if (s < 1 || s >= mt_size) { CHECK_INT("probe source in range", 1, s); continue; }
            int c = -1;
            MPI_Get_count(&pst, MPI_INT, &c);
            CHECK_INT("probed count in sequence", mcount(next[s], 1), c);
            /* probe the same source again: still the same message */
            MPI_Status pst2;
            MPI_CALL(MPI_Probe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &pst2));
            CHECK_INT("re-probe same tag", pst.MPI_TAG, pst2.MPI_TAG);
            MPI_CALL(MPI_Recv(buf, 2 * MAXCOUNT, MPI_INT, s, i % 3 ? pst.MPI_TAG : MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            verify("probe+recv", buf, &st, s, next[s], 10 + next[s] % 2, 1);
            next[s]++;
        }
        free(next);
    } else {
        send_stream(0, N, 2, 1, 1);
    }
    mt_group_end();

    void *d;
    int dsz;
    MPI_CALL(MPI_Buffer_detach(&d, &dsz));
    free(bbuf);
    free(buf);
    return mt_finish();
}
