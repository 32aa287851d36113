/* SPDX-License-Identifier: BSD-3-Clause */
/* Damaged and missing chunks of pipelined messages (lib/core/pipeline.c):
 * the receive fails with compi's error and a message naming the chunk and
 * the cause; the library stays sound afterwards.
 *
 * The sender's compi damages or drops chunk 3 of every pipelined message,
 * or fails there as on an error of its own (COMPI_DEBUG_DAMAGE_CHUNK=3,
 * =drop:3 or =fail:3, set by the test; a failing sender's MPI_Send returns
 * compi's error, and its receiver must not wait for the chunks never sent)
 * and the test says what the receiver must report (COMPI_TEST_EXPECT_CAUSE). Rank 0
 * sends 1 MiB of compressible bytes (COMPI_CHUNK=64K: 16 chunks) per
 * receive kind; rank 1 receives it with MPI_ERRORS_RETURN. Without a fault
 * (plain MPI, or compi without COMPI_DEBUG_DAMAGE_CHUNK) every message must
 * arrive intact. Afterwards small ordinary messages go both ways. */
#include "mpitest.h"

enum { RK_RECV, RK_IRECV_WAIT, RK_IRECV_TEST, RK_PROBE, RK_MPROBE, RK_PERSISTENT, RK_ANY, RK_COUNT };
static const char *rk_name[RK_COUNT] = {"Recv",         "Irecv+Wait",           "Irecv+Test",          "Probe+Recv",
                                        "Mprobe+Mrecv", "Recv_init+Start+Wait", "Recv(MPI_ANY_SOURCE)"};

static int receive(int kind, unsigned char *buf, int n, int tag, MPI_Status *st)
{
    MPI_Request rq;
    MPI_Message msg;
    int rc, flag = 0;
    switch (kind) {
    case RK_RECV: return MPI_Recv(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, st);
    case RK_IRECV_WAIT:
        rc = MPI_Irecv(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq, st);
    case RK_IRECV_TEST:
        rc = MPI_Irecv(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
        while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(&rq, &flag, st);
        return rc;
    case RK_PROBE:
        rc = MPI_Probe(0, tag, MPI_COMM_WORLD, st);
        return rc != MPI_SUCCESS ? rc : MPI_Recv(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, st);
    case RK_MPROBE:
        rc = MPI_Mprobe(0, tag, MPI_COMM_WORLD, &msg, st);
        return rc != MPI_SUCCESS ? rc : MPI_Mrecv(buf, n, MPI_BYTE, &msg, st);
    case RK_PERSISTENT:
        rc = MPI_Recv_init(buf, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS) rc = MPI_Start(&rq);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, st);
        MPI_Request_free(&rq);
        return rc;
    default: return MPI_Recv(buf, n, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, st);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "pipe_fault");
    mt_require_size(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* spaces travel as '_' through the launchers' environment options */
    char cause[256] = "";
    if (getenv("COMPI_TEST_EXPECT_CAUSE")) snprintf(cause, sizeof cause, "%s", getenv("COMPI_TEST_EXPECT_CAUSE"));
    for (char *c = cause; *c; c++)
        if (*c == '_') *c = ' ';
    int faulty = mt_libcompi_mapped() && getenv("COMPI_DEBUG_DAMAGE_CHUNK") && cause[0];
    const int n = 1 << 20;
    unsigned char *m = mt_malloc((size_t)n), *buf = mt_malloc((size_t)n), *want = mt_malloc((size_t)n);
    mt_group_begin(faulty ? "pipelined messages with a damaged chunk" : "pipelined messages intact");
    for (int kind = 0; kind < RK_COUNT; kind++) {
        int tag = 300 + kind;
        mt_fill(want, (size_t)n, 'b', PAT_RAMP, (uint64_t)kind);
        if (mt_rank == 0) {
            const char *f = getenv("COMPI_DEBUG_DAMAGE_CHUNK");
            if (faulty && f && strncmp(f, "fail:", 5) == 0) {
                char path[128], text[8192];
                int saved = mt_capture_begin(path, sizeof path);
                int rc = MPI_Send(want, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
                if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
                CHECK(rc != MPI_SUCCESS, "failing sender returns an error", "%s: MPI_Send succeeded", rk_name[kind]);
            } else {
                MPI_CALL(MPI_Send(want, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
            }
        } else if (mt_rank == 1) {
            memset(buf, 0xA5, (size_t)n);
            char path[128], text[8192];
            int saved = mt_capture_begin(path, sizeof path);
            MPI_Status st;
            int rc = receive(kind, buf, n, tag, &st);
            if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
            else text[0] = 0;
            if (!faulty) {
                CHECK(rc == MPI_SUCCESS, "received", "%s: %s", rk_name[kind], mt_errstr(rc));
                CHECK_STATUS(rk_name[kind], &st, 0, tag, MPI_BYTE, n);
                CHECK_DATA(rk_name[kind], buf, want, (size_t)n, 'b');
                continue;
            }
            CHECK(rc != MPI_SUCCESS, "damaged pipelined message refused", "%s: receive succeeded", rk_name[kind]);
            char es[MPI_MAX_ERROR_STRING];
            int el = 0;
            es[0] = 0;
            if (rc != MPI_SUCCESS) MPI_Error_string(rc, es, &el);
            CHECK(strstr(es, "compi") != NULL, "error string names compi", "%s: %s", rk_name[kind], mt_errstr(rc));
            CHECK(strstr(text, "chunk 3 of 16") != NULL && strstr(text, cause) != NULL, "stderr names chunk and cause",
                  "%s: expected \"chunk 3 of 16\" and \"%s\" in \"%s\"", rk_name[kind], cause, text);
        }
    }
    mt_group_end();
    mt_ordinary_after((unsigned char *)buf, (unsigned char *)want);
    free(m);
    free(buf);
    free(want);
    return mt_finish();
}
