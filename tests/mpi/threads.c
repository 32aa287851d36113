/* SPDX-License-Identifier: BSD-3-Clause */
/* threads: MPI_THREAD_MULTIPLE.  NT pthreads per rank; each does ping-pong with
 * the partner rank (0<->1, 2<->3, ...) on its own tag, cycling through Send/Recv,
 * Isend/Irecv, Sendrecv, Probe+Recv, Mprobe+Mrecv, Issend+Test, with
 * compressible and random payloads, verified on both sides; then each thread
 * runs rooted collectives (Bcast, Gather) and then nonblocking ones (Ialltoall,
 * Iallreduce, Ibcast, and under MPI 4.0 an MPI_Isendrecv around the ring;
 * completed by Waitall, Testall or Waitany) on its own dup of MPI_COMM_WORLD.
 * Skips (prints "SKIP [threads]") if MPI_THREAD_MULTIPLE is not provided. */
#include "mpitest.h"
#include <pthread.h>

#define NT 3
#define ITERS 24

typedef struct {
    int id;
    long pass, fail;
    MPI_Comm comm;
} tctx;

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

#define TCHECK(c, cond, what, ...)                                                                                     \
    do {                                                                                                               \
        if (cond) (c)->pass++;                                                                                         \
        else {                                                                                                         \
            (c)->fail++;                                                                                               \
            if ((c)->fail <= 10) {                                                                                     \
                pthread_mutex_lock(&print_lock);                                                                       \
                printf("FAIL [threads] rank %d thread %d line %d: %s: ", mt_rank, (c)->id, __LINE__, what);            \
                printf(__VA_ARGS__);                                                                                   \
                printf("\n");                                                                                          \
                fflush(stdout);                                                                                        \
                pthread_mutex_unlock(&print_lock);                                                                     \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

#define TCALL(c, call)                                                                                                 \
    do {                                                                                                               \
        int rc_ = (call);                                                                                              \
        if (rc_ != MPI_SUCCESS) {                                                                                      \
            printf("FAIL [threads] rank %d thread %d line %d: %s returned %d\n", mt_rank, (c)->id, __LINE__, #call,    \
                   rc_);                                                                                               \
            fflush(stdout);                                                                                            \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                              \
        }                                                                                                              \
    } while (0)

static const int tcounts[5] = {0, 10, 65536, 16384, 262144};
static const char tkinds[5] = {'i', 'i', 'd', 'i', 'b'};
static const int tpats[5] = {PAT_RAMP, PAT_RAMP, PAT_SMOOTH, PAT_RANDOM, PAT_RAMP};

static int verify(const void *got, size_t n, char kind, int pat, uint64_t seed, size_t *first)
{
    size_t es = mt_kind_size(kind);
    void *exp = mt_malloc(n * es + 1);
    mt_fill(exp, n, kind, pat, seed);
    int ok = n == 0 || memcmp(got, exp, n * es) == 0;
    if (!ok)
        for (size_t i = 0; i < n * es; i++)
            if (((const unsigned char *)got)[i] != ((unsigned char *)exp)[i]) {
                *first = i;
                break;
            }
    free(exp);
    return ok;
}

static void *worker(void *arg)
{
    tctx *c = arg;
    int partner = mt_rank ^ 1;
    int active = partner < mt_size;
    int tag = 100 + c->id;
    if (active) {
        for (int it = 0; it < ITERS; it++) {
            int v = (it + c->id) % 5, n = tcounts[v], pat = tpats[v];
            char k = tkinds[v];
            MPI_Datatype t = mt_kind_type(k);
            size_t es = mt_kind_size(k);
            uint64_t s_out = (uint64_t)mt_rank * 1000000 + (uint64_t)c->id * 1000 + (uint64_t)it;
            uint64_t s_in = (uint64_t)partner * 1000000 + (uint64_t)c->id * 1000 + (uint64_t)it;
            unsigned char *sb = mt_malloc((size_t)n * es + 1), *rb = mt_malloc((size_t)n * es + 1);
            mt_fill(sb, n, k, pat, s_out);
            MPI_Status st;
            MPI_Request r[2];
            int method = it % 6, first = (mt_rank % 2 == 0);
            /* the even rank sends first; both sides then receive */
            for (int phase = 0; phase < 2; phase++) {
                int sending = (phase == 0) == first;
                if (method == 2) { /* Sendrecv: both at once, only in phase 0 */
                    if (phase == 1) break;
                    TCALL(c, MPI_Sendrecv(sb, n, t, partner, tag, rb, n, t, partner, tag, MPI_COMM_WORLD, &st));
                } else if (sending) {
                    switch (method) {
                    case 1:
                        TCALL(c, MPI_Isend(sb, n, t, partner, tag, MPI_COMM_WORLD, &r[0]));
                        TCALL(c, MPI_Wait(&r[0], MPI_STATUS_IGNORE));
                        break;
                    case 5: {
                        int f = 0;
                        TCALL(c, MPI_Issend(sb, n, t, partner, tag, MPI_COMM_WORLD, &r[0]));
                        while (!f) {
                            TCALL(c, MPI_Test(&r[0], &f, MPI_STATUS_IGNORE));
                        }
                        break;
                    }
                    default: TCALL(c, MPI_Send(sb, n, t, partner, tag, MPI_COMM_WORLD));
                    }
                    continue;
                } else {
                    switch (method) {
                    case 1:
                        TCALL(c, MPI_Irecv(rb, n, t, partner, tag, MPI_COMM_WORLD, &r[1]));
                        TCALL(c, MPI_Wait(&r[1], &st));
                        break;
                    case 3: {
                        int pc = -1;
                        TCALL(c, MPI_Probe(partner, tag, MPI_COMM_WORLD, &st));
                        MPI_Get_count(&st, t, &pc);
                        TCHECK(c, pc == n, "Probe Get_count", "expected %d, got %d (iteration %d)", n, pc, it);
                        TCALL(c, MPI_Recv(rb, n, t, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
                        break;
                    }
                    case 4: {
                        MPI_Message m;
                        TCALL(c, MPI_Mprobe(partner, tag, MPI_COMM_WORLD, &m, &st));
                        TCALL(c, MPI_Mrecv(rb, n, t, &m, &st));
                        break;
                    }
                    case 5: {
                        int f = 0;
                        TCALL(c, MPI_Irecv(rb, n, t, partner, tag, MPI_COMM_WORLD, &r[1]));
                        while (!f) {
                            TCALL(c, MPI_Test(&r[1], &f, &st));
                        }
                        break;
                    }
                    default: TCALL(c, MPI_Recv(rb, n, t, partner, tag, MPI_COMM_WORLD, &st));
                    }
                }
            }
            int cnt = -1;
            MPI_Get_count(&st, t, &cnt);
            TCHECK(c, st.MPI_SOURCE == partner && st.MPI_TAG == tag && cnt == n, "receive status",
                   "iteration %d method %d: expected source %d tag %d count %d, got %d/%d/%d", it, method, partner, tag,
                   n, st.MPI_SOURCE, st.MPI_TAG, cnt);
            size_t fb = 0;
            TCHECK(c, verify(rb, n, k, pat, s_in, &fb), "ping-pong data",
                   "iteration %d method %d (%s x %d %s): first differing byte %zu", it, method, mt_kind_name(k), n,
                   mt_pat_name[pat], fb);
            free(sb);
            free(rb);
        }
    }
    /* rooted collectives on this thread's own communicator (all ranks) */
    for (int it = 0; it < 6; it++) {
        int root = (it + c->id) % mt_size, n = it % 2 ? 200000 : 1000;
        double *b = mt_malloc((size_t)n * sizeof(double));
        uint64_t seed = (uint64_t)c->id * 100 + (uint64_t)it;
        if (mt_rank == root) mt_fill(b, n, 'd', PAT_SMOOTH, seed);
        else memset(b, 0, (size_t)n * sizeof(double));
        TCALL(c, MPI_Bcast(b, n, MPI_DOUBLE, root, c->comm));
        size_t fb = 0;
        TCHECK(c, verify(b, n, 'd', PAT_SMOOTH, seed, &fb), "Bcast on per-thread comm",
               "iteration %d root %d: first differing byte %zu", it, root, fb);
        int m = n / 4;
        double *all = mt_rank == root ? mt_malloc((size_t)m * mt_size * sizeof(double)) : NULL;
        mt_fill(b, m, 'd', PAT_RAMP, seed + (uint64_t)mt_rank * 7);
        TCALL(c, MPI_Gather(b, m, MPI_DOUBLE, all, m, MPI_DOUBLE, root, c->comm));
        if (mt_rank == root)
            for (int i = 0; i < mt_size; i++)
                TCHECK(c, verify(all + (size_t)i * m, m, 'd', PAT_RAMP, seed + (uint64_t)i * 7, &fb),
                       "Gather on per-thread comm", "iteration %d root %d block %d: first differing byte %zu", it, root,
                       i, fb);
        free(all);
        free(b);
    }
    /* nonblocking collectives on this thread's own communicator: compi's
     * schedules, their set-up on a fresh communicator and the progress run by
     * every entry point all happen in several threads at once */
    for (int it = 0; it < 6; it++) {
        int me = 0, np = 1;
        MPI_Comm_rank(c->comm, &me);
        MPI_Comm_size(c->comm, &np);
        int n = it % 2 ? 16384 : 300, m = it % 2 ? 65536 : 50, root = (it + c->id) % np;
        uint64_t base = (uint64_t)c->id * 100000 + (uint64_t)it * 1000;
        double *sb = mt_malloc((size_t)n * np * sizeof(double)), *rb = mt_malloc((size_t)n * np * sizeof(double));
        double *bb = mt_malloc((size_t)n * sizeof(double));
        int *ib = mt_malloc((size_t)m * sizeof(int)), *ir = mt_malloc((size_t)m * sizeof(int));
        for (int d = 0; d < np; d++)
            mt_fill(sb + (size_t)d * n, n, 'd', PAT_SMOOTH, base + (uint64_t)me * 10 + (uint64_t)d);
        for (int i = 0; i < m; i++) ib[i] = (me + 1) * i + it;
        if (me == root) mt_fill(bb, n, 'd', PAT_SMOOTH, base + 999);
        else memset(bb, 0, (size_t)n * sizeof(double));
        MPI_Request rq[4];
        int nrq = 3;
        TCALL(c, MPI_Ialltoall(sb, n, MPI_DOUBLE, rb, n, MPI_DOUBLE, c->comm, &rq[0]));
        TCALL(c, MPI_Iallreduce(ib, ir, m, MPI_INT, MPI_SUM, c->comm, &rq[1]));
        TCALL(c, MPI_Ibcast(bb, n, MPI_DOUBLE, root, c->comm, &rq[2]));
#if MPI_VERSION >= 4
        /* the ring: this rank's first block to the right, the left's into sr */
        double *sr = mt_malloc((size_t)n * sizeof(double));
        int right = (me + 1) % np, left = (me + np - 1) % np;
        TCALL(c, MPI_Isendrecv(sb, n, MPI_DOUBLE, right, 7, sr, n, MPI_DOUBLE, left, 7, c->comm, &rq[3]));
        nrq = 4;
#endif
        if (it % 3 == 0) {
            TCALL(c, MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
        } else if (it % 3 == 1) {
            int done = 0;
            while (!done) TCALL(c, MPI_Testall(nrq, rq, &done, MPI_STATUSES_IGNORE));
        } else {
            for (int k = 0; k < nrq; k++) {
                int idx = -1;
                TCALL(c, MPI_Waitany(nrq, rq, &idx, MPI_STATUS_IGNORE));
                TCHECK(c, idx >= 0 && idx < nrq && rq[idx] == MPI_REQUEST_NULL, "Waitany index",
                       "iteration %d: index %d", it, idx);
            }
        }
        size_t fb = 0;
#if MPI_VERSION >= 4
        TCHECK(c, verify(sr, n, 'd', PAT_SMOOTH, base + (uint64_t)left * 10, &fb), "Isendrecv on per-thread comm",
               "iteration %d from %d: first differing byte %zu", it, left, fb);
        free(sr);
#endif
        for (int s = 0; s < np; s++)
            TCHECK(c, verify(rb + (size_t)s * n, n, 'd', PAT_SMOOTH, base + (uint64_t)s * 10 + (uint64_t)me, &fb),
                   "Ialltoall on per-thread comm", "iteration %d block from %d: first differing byte %zu", it, s, fb);
        TCHECK(c, verify(bb, n, 'd', PAT_SMOOTH, base + 999, &fb), "Ibcast on per-thread comm",
               "iteration %d root %d: first differing byte %zu", it, root, fb);
        int bad = -1;
        for (int i = 0; i < m && bad < 0; i++)
            if (ir[i] != i * np * (np + 1) / 2 + np * it) bad = i;
        TCHECK(c, bad < 0, "Iallreduce on per-thread comm", "iteration %d: element %d is %d, expected %d", it, bad,
               bad < 0 ? 0 : ir[bad], bad < 0 ? 0 : bad * np * (np + 1) / 2 + np * it);
        free(sb);
        free(rb);
        free(bb);
        free(ib);
        free(ir);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup("threads");
    if (provided < MPI_THREAD_MULTIPLE) {
        if (mt_rank == 0)
            printf("SKIP [threads] MPI_Init_thread provided level %d < MPI_THREAD_MULTIPLE (%d); test skipped\n",
                   provided, MPI_THREAD_MULTIPLE);
        MPI_Finalize();
        return 0;
    }
    mt_require_size(2);
    tctx ctx[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        ctx[i].id = i;
        ctx[i].pass = ctx[i].fail = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &ctx[i].comm);
    }
    mt_group_begin("%d threads per rank: ping-pong on own tag + collectives on own comm", NT);
    for (int i = 0; i < NT; i++) pthread_create(&th[i], NULL, worker, &ctx[i]);
    for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < NT; i++) {
        mt_gpass += ctx[i].pass;
        mt_gfail += ctx[i].fail;
        MPI_Comm_free(&ctx[i].comm);
    }
    mt_group_end();
    return mt_finish();
}
