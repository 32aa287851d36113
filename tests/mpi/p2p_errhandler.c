/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_errhandler: completing receives never changes an error handler.
 *
 * Rank 0 completes nonblocking receives on a duplicate of MPI_COMM_WORLD
 * through MPI_Test and through MPI_Request_get_status then MPI_Wait:
 * receives the MPI truncates (a long incompressible message into a small
 * buffer), receives truncated by the message's original length (a large
 * compressible message, pipelined under compi, into a smaller buffer), and
 * whole ones. Meanwhile nothing below the application may call
 * MPI_Comm_set_errhandler on MPI_COMM_WORLD: under MPI_THREAD_MULTIPLE an
 * error another thread raised there in such a window would miss the
 * application's handler, and its MPI_Comm_get_errhandler would see another.
 * The program defines PMPI_Comm_set_errhandler and exports it: the
 * executable comes first in the dynamic symbol lookup, so a PMPI layer
 * under the application (compi) calls this one, which counts the calls on
 * MPI_COMM_WORLD made while rank 0's receives are under way, then passes
 * them on. Both communicators have counting error handlers; return codes,
 * handler calls, statuses and data are checked too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "mpitest.h"

#define RAW_BYTES 40000       /* incompressible: raw on the wire */
#define PIPE_BYTES (1 << 20)  /* compressible: pipelined (COMPI_CHUNK=16K) */
#define SMALL_BYTES 1000      /* the MPI truncates RAW_BYTES into this */
#define HALF_BYTES (1 << 19)  /* compi truncates PIPE_BYTES into this */

static volatile int watching;
static long world_sets;

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    static int (*real)(MPI_Comm, MPI_Errhandler);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Comm_set_errhandler");
    if (watching && comm == MPI_COMM_WORLD) world_sets++;
    return real(comm, eh);
}

static long calls_world, calls_dup;
static void count_world(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
    calls_world++;
}
static void count_dup(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
    calls_dup++;
}

static int err_class(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

enum { BY_TEST, BY_GET_STATUS };

/* Rank 0's side of one case: posts, completes by `how`, returns the
 * completing call's code. */
static int receive(MPI_Comm comm, void *buf, int cap, int tag, int how, MPI_Status *st)
{
    MPI_Request r;
    int rc, flag = 0;
    watching = 1;
    MPI_CALL(MPI_Irecv(buf, cap, MPI_BYTE, 1, tag, comm, &r));
    if (how == BY_TEST) {
        do rc = MPI_Test(&r, &flag, st);
        while (!flag);
    } else {
        do MPI_Request_get_status(r, &flag, st); /* its code is the MPI's own (MPICH's is the error) */
        while (!flag);
        rc = MPI_Wait(&r, st);
    }
    watching = 0;
    CHECK(r == MPI_REQUEST_NULL, "request freed", "the request is still live after its completion");
    return rc;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_errhandler");
    mt_require_size(2);
    MPI_Comm comm;
    MPI_Errhandler ehw, ehd;
    MPI_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_CALL(MPI_Comm_create_errhandler(count_world, &ehw));
    MPI_CALL(MPI_Comm_create_errhandler(count_dup, &ehd));
    MPI_CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ehw));
    MPI_CALL(MPI_Comm_set_errhandler(comm, ehd));
    unsigned char *raw = mt_malloc(RAW_BYTES), *pipe = mt_malloc(PIPE_BYTES), *buf = mt_malloc(PIPE_BYTES);
    mt_fill(raw, RAW_BYTES, 'b', PAT_RANDOM, 3);
    mt_fill(pipe, PIPE_BYTES, 'b', PAT_SMOOTH, 4);
    static const char *const how_name[] = {"MPI_Test", "MPI_Request_get_status and MPI_Wait"};
    for (int how = BY_TEST; how <= BY_GET_STATUS; how++) {
        for (int kind = 0; kind < 3; kind++) {
            static const char *const kind_name[] = {"truncated by the MPI", "truncated pipelined", "whole pipelined"};
            mt_group_begin("receive %s completed by %s", kind_name[kind], how_name[how]);
            int tag = 10 * how + kind, bytes = kind == 0 ? RAW_BYTES : PIPE_BYTES;
            const unsigned char *src = kind == 0 ? raw : pipe;
            if (mt_rank == 1) {
                MPI_Request r;
                MPI_CALL(MPI_Isend(src, bytes, MPI_BYTE, 0, tag, comm, &r));
                MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
            } else if (mt_rank == 0) {
                int cap = kind == 0 ? SMALL_BYTES : kind == 1 ? HALF_BYTES : PIPE_BYTES;
                long sets0 = world_sets, calls0 = calls_world + calls_dup;
                MPI_Status st;
                int rc = receive(comm, buf, cap, tag, how, &st);
                CHECK_INT("MPI_Comm_set_errhandler calls on MPI_COMM_WORLD under the receive", 0,
                          world_sets - sets0);
                if (kind < 2) {
                    CHECK(err_class(rc) == MPI_ERR_TRUNCATE, "completion code",
                          "expected error class MPI_ERR_TRUNCATE, got %s", mt_errstr(rc));
                    /* on the communicator or (MPICH 4.0, which raises a request's
                     * failure there) on MPI_COMM_WORLD */
                    CHECK(calls_world + calls_dup > calls0, "error handler", "no handler was called");
                } else {
                    CHECK_INT("completion code", MPI_SUCCESS, rc);
                    CHECK_STATUS("status", &st, 1, tag, MPI_BYTE, bytes);
                    CHECK_DATA("message", buf, src, (size_t)bytes, 'b');
                    CHECK_INT("error handler calls", 0, calls_world + calls_dup - calls0);
                }
            }
            mt_group_end();
        }
    }
    MPI_CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&ehw);
    MPI_Errhandler_free(&ehd);
    MPI_Comm_free(&comm);
    free(raw);
    free(pipe);
    free(buf);
    return mt_finish();
}
