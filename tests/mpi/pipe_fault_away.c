/* SPDX-License-Identifier: BSD-3-Clause */
/* pipe_fault_away: a pipelined receive that fails returns its error without
 * its sender.
 *
 * Rank 1 MPI_Isend's a pipelined message (512 KiB of word-like text in two
 * 256 KiB chunks: compressed, each stays far past the eager limit) with its
 * chunk 0 dropped by its compi (COMPI_DEBUG_DAMAGE_CHUNK=drop:0, set by the
 * test), then waits outside MPI (a file in a directory both ranks see)
 * until rank 0's receive returned; only then does it call MPI_Wait. Rank 0
 * receives once rank 1 is outside MPI: its compi posts a receive for each
 * chunk, and chunk 1 matches the one for chunk 0. Where the MPI moves a
 * large message only with its sender (Open MPI without its shared-memory
 * single copy, as between nodes), chunk 1 stays due and the receive fails
 * after COMPI_CHUNK_WAIT naming chunk 0; a receive the MPI matched cannot
 * be cancelled, so a failed receive that waited for it to end would wait
 * for rank 1, which waits for rank 0: the test hangs (its short timeout).
 * Where the receiver pulls the data alone, chunk 1 arrives and the receive
 * fails naming chunk 0 as missing. Receive kinds: MPI_Recv, MPI_Irecv +
 * MPI_Wait, MPI_Mprobe + MPI_Mrecv. Small messages go both ways afterwards,
 * and MPI_Finalize completes what compi left posted.
 *
 * Without the fault (plain MPI, or compi without COMPI_DEBUG_DAMAGE_CHUNK)
 * rank 1 stays outside MPI for 0.8 s before its MPI_Wait (an application
 * computing between its send and its Wait, longer than the run's short
 * COMPI_ESCAPE_WAIT) and every message must arrive intact: a receiver waits
 * for chunks as long as their sender takes, as for any large message.
 * Ranks on one machine (the directory is local). */
#include <unistd.h>
#include "mpitest.h"

#define SIZE (512 * 1024)

enum { RK_RECV, RK_IRECV_WAIT, RK_MPROBE, RK_COUNT };
static const char *const rk_name[RK_COUNT] = {"Recv", "Irecv+Wait", "Mprobe+Mrecv"};

static int receive(int kind, char *buf, int tag, MPI_Status *st)
{
    MPI_Request rq;
    MPI_Message msg;
    int rc;
    switch (kind) {
    case RK_RECV: return MPI_Recv(buf, SIZE, MPI_CHAR, 1, tag, MPI_COMM_WORLD, st);
    case RK_IRECV_WAIT:
        rc = MPI_Irecv(buf, SIZE, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &rq);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq, st);
    default:
        rc = MPI_Mprobe(1, tag, MPI_COMM_WORLD, &msg, st);
        return rc != MPI_SUCCESS ? rc : MPI_Mrecv(buf, SIZE, MPI_CHAR, &msg, st);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "pipe_fault_away");
    mt_require_size(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mt_sig_open();
    const char *fault = getenv("COMPI_DEBUG_DAMAGE_CHUNK");
    int faulty = mt_libcompi_mapped() && fault && strcmp(fault, "drop:0") == 0;
    char *buf = mt_malloc(SIZE), *want = mt_malloc(SIZE);
    for (int kind = 0; kind < RK_COUNT; kind++) {
        char sent[32], returned[32];
        snprintf(sent, sizeof sent, "sent%d", kind);
        snprintf(returned, sizeof returned, "returned%d", kind);
        int tag = 60 + kind;
        mt_group_begin(faulty ? "%s of a message missing chunk 0, its sender outside MPI" : "%s of a message intact",
                       rk_name[kind]);
        mt_fill_words(want, SIZE, 11u + (unsigned)kind);
        if (mt_rank == 0) {
            memset(buf, 0x55, SIZE);
            char path[128], text[8192];
            int saved = mt_capture_begin(path, sizeof path);
            MPI_Status st;
            mt_await(sent); /* rank 1 is outside MPI when the receive matches */
            int rc = receive(kind, buf, tag, &st);
            if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
            else text[0] = 0;
            mt_signal(returned);
            if (!faulty) {
                CHECK(rc == MPI_SUCCESS, "received", "%s: %s", rk_name[kind], mt_errstr(rc));
                CHECK_STATUS(rk_name[kind], &st, 1, tag, MPI_CHAR, SIZE);
                CHECK_DATA(rk_name[kind], buf, want, SIZE, 'b');
            } else {
                CHECK(rc != MPI_SUCCESS, "message missing a chunk refused", "%s: receive succeeded", rk_name[kind]);
                char es[MPI_MAX_ERROR_STRING];
                int el = 0;
                es[0] = 0;
                if (rc != MPI_SUCCESS) MPI_Error_string(rc, es, &el);
                CHECK(strstr(es, "compi") != NULL, "error string names compi", "%s: %s", rk_name[kind], mt_errstr(rc));
                /* the MPI moved chunk 1 without rank 1 (a receiver's single
                 * copy), or did not */
                CHECK(strstr(text, "chunk 0 of 2") != NULL &&
                          (strstr(text, "COMPI_CHUNK_WAIT") != NULL || strstr(text, "where 0 was due") != NULL),
                      "stderr names the chunk and the cause", "%s: expected \"chunk 0 of 2\" and its cause in \"%s\"",
                      rk_name[kind], text);
            }
        } else if (mt_rank == 1) {
            MPI_Request r;
            MPI_CALL(MPI_Isend(want, SIZE, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &r));
            mt_signal(sent);
            /* an application computing between its send and its Wait */
            if (faulty) mt_await(returned);
            else usleep(800000);
            MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        mt_group_end();
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        if (mt_rank == 0) {
            mt_unsignal(sent);
            mt_unsignal(returned);
        }
    }
    mt_ordinary_after((unsigned char *)buf, (unsigned char *)want);
    if (mt_rank == 0) rmdir(mt_sig_dir);
    free(buf);
    free(want);
    return mt_finish();
}
