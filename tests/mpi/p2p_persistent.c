/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_persistent: MPI_Send_init / MPI_Ssend_init / MPI_Bsend_init /
 * MPI_Rsend_init / MPI_Recv_init + MPI_Start / MPI_Startall over many
 * iterations; the send buffers change every iteration (compressible in some,
 * random in others, all-zero in others); completion by Waitall, Wait, Test loops
 * and Testall; persistent handles survive completion; requests freed and
 * re-created while inactive; Request_free of inactive requests at the end;
 * Bsend_init with an exactly sized attached buffer.  Ranks 0 and 1. */
#include "mpitest.h"

#define NS 6 /* per rank: 5 + 1 requests */
#define ITERS 40
enum { P_SEND, P_SSEND, P_BSEND, P_RSEND, P_ZERO, P_BACK };
static const char *pname[NS] = {"Send_init", "Ssend_init", "Bsend_init", "Rsend_init", "Send_init(0 bytes)",
                                "Send_init back 1->0"};
static const int pcount[NS] = {262144, 5000, 65536, 300000, 0, 100000};
static const char pkind[NS] = {'d', 'i', 'f', 'b', 'd', 'i'};

/* Plain Open MPI 4.1 (ob1) corrupts a restarted MPI_Bsend_init request: the
 * second and later MPI_Start resend stale/zeroed data (open-mpi/ompi#12797,
 * v4.1.x backport #14366).  Under Open MPI < 5 the sender therefore frees and
 * re-creates that request (inactive) before every start. */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define BSEND_INIT_RESTART_BUG 1
#else
#define BSEND_INIT_RESTART_BUG 0
#endif
static int pat_of(int it, int k) { return (it + k) % PAT_COUNT; }
static uint64_t seed_of(int it, int k) { return (uint64_t)it * 10 + (uint64_t)k; }

static void make_req(int k, void *buf, int peer, MPI_Request *r)
{
    MPI_Datatype t = mt_kind_type(pkind[k]);
    int tag = 10 + k;
    int rcv = (mt_rank == 1) != (k == P_BACK); /* receiver side of this channel */
    if (rcv) {
        if (k == P_SSEND) /* wildcard-source persistent receive */
            MPI_CALL(MPI_Recv_init(buf, pcount[k], t, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, r));
        else /* larger receive count than the message */
            MPI_CALL(MPI_Recv_init(buf, pcount[k] + 100, t, peer, tag, MPI_COMM_WORLD, r));
        return;
    }
    switch (k) {
    case P_SSEND: MPI_CALL(MPI_Ssend_init(buf, pcount[k], t, peer, tag, MPI_COMM_WORLD, r)); break;
    case P_BSEND: MPI_CALL(MPI_Bsend_init(buf, pcount[k], t, peer, tag, MPI_COMM_WORLD, r)); break;
    case P_RSEND: MPI_CALL(MPI_Rsend_init(buf, pcount[k], t, peer, tag, MPI_COMM_WORLD, r)); break;
    default: MPI_CALL(MPI_Send_init(buf, pcount[k], t, peer, tag, MPI_COMM_WORLD, r)); break;
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_persistent");
    mt_require_size(2);
    if (mt_rank >= 2) {
        mt_group_begin("persistent requests, %d iterations", ITERS);
        mt_group_end();
        mt_group_begin("inactive persistent requests: Wait/Test, Request_free");
        mt_group_end();
        return mt_finish();
    }
    int peer = 1 - mt_rank;
    void *buf[NS];
    MPI_Request r[NS];
    int bsize = 0;
    if (mt_rank == 0) {
        MPI_Pack_size(pcount[P_BSEND], mt_kind_type(pkind[P_BSEND]), MPI_COMM_WORLD, &bsize);
        bsize += MPI_BSEND_OVERHEAD;
    }
    void *bbuf = mt_malloc(bsize);
    if (mt_rank == 0) MPI_CALL(MPI_Buffer_attach(bbuf, bsize));

    for (int k = 0; k < NS; k++) {
        size_t bytes = ((size_t)pcount[k] + 100) * mt_kind_size(pkind[k]);
        buf[k] = mt_malloc(bytes);
        make_req(k, buf[k], peer, &r[k]);
    }

    mt_group_begin("persistent requests, %d iterations", ITERS);
    for (int it = 0; it < ITERS; it++) {
        if (it == ITERS / 2) { /* free inactive requests and re-create them */
            for (int k = 0; k < NS; k += 2) {
                MPI_CALL(MPI_Request_free(&r[k]));
                CHECK(r[k] == MPI_REQUEST_NULL, "Request_free(inactive persistent)", "handle %d not MPI_REQUEST_NULL", k);
                make_req(k, buf[k], peer, &r[k]);
            }
        }
        if (BSEND_INIT_RESTART_BUG && mt_rank == 0 && it > 0) {
            MPI_CALL(MPI_Request_free(&r[P_BSEND]));
            make_req(P_BSEND, buf[P_BSEND], peer, &r[P_BSEND]);
        }
        MPI_Status sts[NS];
        for (int k = 0; k < NS; k++) mt_status_prefill(&sts[k]);
        if (mt_rank == 1) {
            for (int k = 0; k < NS; k++) {
                if (k == P_BACK) mt_fill(buf[k], pcount[k], pkind[k], pat_of(it, k), seed_of(it, k));
                else memset(buf[k], MT_SENTINEL, ((size_t)pcount[k] + 100) * mt_kind_size(pkind[k]));
            }
            if (it % 2) MPI_CALL(MPI_Startall(NS, r));
            else for (int k = 0; k < NS; k++) MPI_CALL(MPI_Start(&r[k]));
            MPI_CALL(MPI_Send(NULL, 0, MPI_BYTE, 0, 999, MPI_COMM_WORLD)); /* receives are posted */
        } else {
            for (int k = 0; k < NS; k++)
                if (k != P_BACK) mt_fill(buf[k], pcount[k], pkind[k], pat_of(it, k), seed_of(it, k));
                else memset(buf[k], MT_SENTINEL, ((size_t)pcount[k] + 100) * mt_kind_size(pkind[k]));
            MPI_CALL(MPI_Start(&r[P_BACK]));
            MPI_CALL(MPI_Recv(NULL, 0, MPI_BYTE, 1, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (it % 2) MPI_CALL(MPI_Startall(NS - 1, r));
            else for (int k = NS - 2; k >= 0; k--) MPI_CALL(MPI_Start(&r[k]));
        }
        switch (it % 4) {
        case 0: MPI_CALL(MPI_Waitall(NS, r, sts)); break;
        case 1: for (int k = 0; k < NS; k++) MPI_CALL(MPI_Wait(&r[k], &sts[k])); break;
        case 2:
            for (int k = NS - 1; k >= 0; k--) {
                int f = 0;
                while (!f) MPI_CALL(MPI_Test(&r[k], &f, &sts[k]));
            }
            break;
        default: {
            int f = 0;
            while (!f) MPI_CALL(MPI_Testall(NS, r, &f, sts));
        }
        }
        for (int k = 0; k < NS; k++)
            CHECK(r[k] != MPI_REQUEST_NULL, "persistent request handle after completion",
                  "iteration %d: %s request became MPI_REQUEST_NULL (must stay allocated, inactive)", it, pname[k]);
        for (int k = 0; k < NS; k++) {
            int rcv = (mt_rank == 1) != (k == P_BACK);
            if (!rcv) continue;
            char w[160];
            snprintf(w, sizeof w, "iteration %d %s (%s x %d, %s)", it, pname[k], mt_kind_name(pkind[k]), pcount[k],
                     mt_pat_name[pat_of(it, k)]);
            CHECK_STATUS(w, &sts[k], peer, 10 + k, mt_kind_type(pkind[k]), pcount[k]);
            CHECK_PATTERN(w, buf[k], pcount[k], pkind[k], pat_of(it, k), seed_of(it, k));
            size_t es = mt_kind_size(pkind[k]);
            if (k != P_SSEND) CHECK_SENTINEL(w, buf[k], (size_t)pcount[k] * es, ((size_t)pcount[k] + 100) * es);
        }
    }
    mt_group_end();

    mt_group_begin("inactive persistent requests: Wait/Test, Request_free");
    {
        MPI_Status st;
        mt_status_prefill(&st);
        MPI_CALL(MPI_Wait(&r[0], &st));
        CHECK(r[0] != MPI_REQUEST_NULL, "Wait on inactive persistent request", "handle became MPI_REQUEST_NULL");
        CHECK_INT("Wait on inactive persistent request: empty status MPI_SOURCE", MPI_ANY_SOURCE, st.MPI_SOURCE);
        CHECK_INT("Wait on inactive persistent request: empty status MPI_TAG", MPI_ANY_TAG, st.MPI_TAG);
        int f = 0;
        MPI_CALL(MPI_Test(&r[1], &f, &st));
        CHECK_INT("Test on inactive persistent request: flag", 1, f);
        for (int k = 0; k < NS; k++) {
            MPI_CALL(MPI_Request_free(&r[k]));
            CHECK(r[k] == MPI_REQUEST_NULL, "Request_free(inactive persistent)", "handle %d not MPI_REQUEST_NULL", k);
        }
        /* normal traffic still fine afterwards */
        int n = 123457;
        int *a = mt_malloc(n * sizeof(int));
        if (mt_rank == 0) {
            mt_fill(a, n, 'i', PAT_SMOOTH, 5);
            MPI_CALL(MPI_Send(a, n, MPI_INT, 1, 10, MPI_COMM_WORLD));
        } else {
            MPI_CALL(MPI_Recv(a, n, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK_STATUS("message after freeing persistent requests", &st, 0, 10, MPI_INT, n);
            CHECK_PATTERN("message after freeing persistent requests", a, n, 'i', PAT_SMOOTH, 5);
        }
        free(a);
    }
    mt_group_end();
    if (mt_rank == 0) {
        void *d;
        int ds;
        MPI_CALL(MPI_Buffer_detach(&d, &ds));
    }
    for (int k = 0; k < NS; k++) free(buf[k]);
    free(bbuf);
    return mt_finish();
}
