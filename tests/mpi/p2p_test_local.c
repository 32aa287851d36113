/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_test_local: testing a nonblocking receive never waits for a peer.
 *
 * A correct MPI program that plain MPI runs to the end: for each
 * nonblocking completion call that is local (MPI_Test, Testany, Testsome,
 * Testall, Request_get_status), rank 1 MPI_Isend's a large compressible
 * message and then waits outside MPI (a file in a directory both ranks
 * see) until rank 0 has called that function TESTS times on its MPI_Irecv;
 * only then do both call MPI_Wait. The calls are local (MPI 3.7.3), so
 * rank 0's must return while rank 1 makes no MPI call at all, as an
 * application's compute between its send and its Wait. A compi receive of
 * a pipelined message (its header matched, its chunks still to come, which
 * the sender's MPI may move only from inside an MPI call) that took the
 * chunks inside the Test that found the header would wait there for
 * rank 1 until COMPI_ESCAPE_WAIT and fail the receive. Data, source, tag
 * and count are checked. The same with a message a probe found first
 * (MPI_Improbe then MPI_Imrecv, MPI_Iprobe then MPI_Irecv; the probes find
 * it without rank 1, the receive calls are local), and with an Irecv freed
 * at once by MPI_Request_free, where rank 0's other calls (MPI_Iprobe of an
 * unrelated tag) must return too, and the data arrive once rank 1 is back
 * in MPI (within FREED_WAIT s, polled). Ranks on one machine (the
 * directory is local). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mpitest.h"

#define SIZE (8 * 1024 * 1024) /* bytes: pipelined, chunks past the eager limit */
#define TESTS 200              /* rank 0's calls before it lets rank 1 on */

enum { BY_TEST, BY_TESTANY, BY_TESTSOME, BY_TESTALL, BY_GET_STATUS, BY_IMPROBE, BY_IPROBE, BY_FREE, NCALLS };
static const char *const call_name[NCALLS] = {
    "MPI_Test on an Irecv",
    "MPI_Testany on an Irecv",
    "MPI_Testsome on an Irecv",
    "MPI_Testall on an Irecv",
    "MPI_Request_get_status on an Irecv",
    "MPI_Test on an MPI_Imrecv of what MPI_Improbe found",
    "MPI_Test on an MPI_Irecv of what MPI_Iprobe found",
    "MPI_Iprobe of another tag after MPI_Request_free"};
#define FREED_WAIT 30.0 /* s: at most this for a freed receive's data once rank 1 is back in MPI */

/* One call of the completion function under test; 1 when r completed
 * (the request is then freed, except by MPI_Request_get_status). */
static int test_once(int how, MPI_Request *r, MPI_Status *st)
{
    int flag = 0, index = -1, outcount = 0, indices[1];
    switch (how) {
    case BY_TEST: MPI_CALL(MPI_Test(r, &flag, st)); break;
    case BY_TESTANY:
        MPI_CALL(MPI_Testany(1, r, &index, &flag, st));
        CHECK(!flag || index == 0, "Testany index", "index %d with flag set", index);
        break;
    case BY_TESTSOME:
        MPI_CALL(MPI_Testsome(1, r, &outcount, indices, st));
        CHECK(outcount == 0 || outcount == 1, "Testsome outcount", "outcount %d", outcount);
        flag = outcount == 1;
        break;
    case BY_TESTALL: MPI_CALL(MPI_Testall(1, r, &flag, st)); break;
    case BY_FREE: /* the receive was freed: any other call that drives progress */
        MPI_CALL(MPI_Iprobe(1, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        flag = 0;
        break;
    case BY_GET_STATUS: MPI_CALL(MPI_Request_get_status(*r, &flag, st)); break;
    default: MPI_CALL(MPI_Test(r, &flag, st)); break;
    }
    return flag;
}

/* Rank 0's receive of tag: posted before the message is on its way, or
 * (the probe cases) once a probe found it, which it does without rank 1;
 * freed at once in the BY_FREE case. */
static void post(int how, char *buf, int tag, const char *sent, MPI_Request *r)
{
    if (how < BY_IMPROBE || how == BY_FREE) MPI_CALL(MPI_Irecv(buf, SIZE, MPI_CHAR, 1, tag, MPI_COMM_WORLD, r));
    mt_await(sent); /* the message is on its way */
    MPI_Status pst;
    int found = 0;
    if (how == BY_IMPROBE) {
        MPI_Message m = MPI_MESSAGE_NULL;
        while (!found) MPI_CALL(MPI_Improbe(1, tag, MPI_COMM_WORLD, &found, &m, &pst));
        MPI_CALL(MPI_Imrecv(buf, SIZE, MPI_CHAR, &m, r));
    } else if (how == BY_IPROBE) {
        while (!found) MPI_CALL(MPI_Iprobe(1, tag, MPI_COMM_WORLD, &found, &pst));
        MPI_CALL(MPI_Irecv(buf, SIZE, MPI_CHAR, 1, tag, MPI_COMM_WORLD, r));
    } else if (how == BY_FREE) {
        MPI_CALL(MPI_Request_free(r));
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_test_local");
    mt_require_size(2);
    mt_sig_open();
    char *buf = mt_malloc(SIZE), *want = mt_malloc(SIZE);
    for (int how = 0; how < NCALLS; how++) {
        char sent[32], tested[32];
        snprintf(sent, sizeof sent, "sent%d", how);
        snprintf(tested, sizeof tested, "tested%d", how);
        mt_group_begin("rank 0 calls %s while rank 1 makes no MPI call", call_name[how]);
        mt_fill_words(want, SIZE, 7u + (unsigned)how);
        MPI_Request r = MPI_REQUEST_NULL;
        if (mt_rank == 0) {
            memset(buf, 0x55, SIZE);
            post(how, buf, 40 + how, sent, &r);
            MPI_Status st;
            int done = 0;
            for (int t = 0; t < TESTS && !done; t++) {
                done = test_once(how, &r, &st);
                usleep(1000);
            }
            mt_signal(tested);
            if (how == BY_FREE) {
                /* completion is known only by the data: progress until it is in */
                double t0 = MPI_Wtime();
                while (memcmp(buf, want, SIZE) != 0 && MPI_Wtime() - t0 < FREED_WAIT) {
                    test_once(how, &r, &st);
                    usleep(1000);
                }
                CHECK_DATA("message (freed receive)", buf, want, SIZE, 'b');
            } else {
                if (!done || how == BY_GET_STATUS) MPI_CALL(MPI_Wait(&r, &st));
                CHECK(r == MPI_REQUEST_NULL, "request freed", "the request is still live after its completion");
                CHECK_STATUS("status", &st, 1, 40 + how, MPI_CHAR, SIZE);
                CHECK_DATA("message", buf, want, SIZE, 'b');
            }
        } else if (mt_rank == 1) {
            MPI_CALL(MPI_Isend(want, SIZE, MPI_CHAR, 0, 40 + how, MPI_COMM_WORLD, &r));
            mt_signal(sent);
            mt_await(tested);
            MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        mt_group_end();
        MPI_CALL(MPI_Barrier(MPI_COMM_WORLD));
        if (mt_rank == 0) {
            mt_unsignal(sent);
            mt_unsignal(tested);
        }
    }
    if (mt_rank == 0) rmdir(mt_sig_dir);
    free(buf);
    free(want);
    return mt_finish();
}
