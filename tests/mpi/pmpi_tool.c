/* SPDX-License-Identifier: BSD-3-Clause */
/* pmpi_tool: a small mpiP-style PMPI tool, to test compi next to another PMPI
 * layer (no PMPI tool is packaged in Debian 12). It wraps a subset of MPI that
 * overlaps compi's table only partly (MPI_Send, MPI_Recv, MPI_Bcast, MPI_Finalize
 * are compi's too; MPI_Comm_split is not; MPI_Isend/MPI_Irecv it leaves alone),
 * counts calls and bytes, and writes one report line per rank at MPI_Finalize
 * ("pmpi_tool[r]: ..."), or at exit if its MPI_Finalize never ran (a layer in
 * front of it took the call): like mpiP, into a file, $PMPI_TOOL_REPORT.<pid>
 * (stdout if unset). Built as libpmpi_tool.so; LD_PRELOAD it. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mpi.h>

static long n_send, n_recv, n_bcast, n_split, n_fin;
static long long b_send, b_recv, b_bcast;
static int reported, my_rank = -1;

static long long bytes(int count, MPI_Datatype dt)
{
    int sz = 0;
    PMPI_Type_size(dt, &sz);
    return (long long)count * sz;
}

static void report(const char *when)
{
    if (reported) return;
    reported = 1;
    const char *path = getenv("PMPI_TOOL_REPORT");
    char name[4096];
    FILE *f = stdout;
    if (path && *path) {
        snprintf(name, sizeof name, "%s.%ld", path, (long)getpid());
        if (!(f = fopen(name, "w"))) {
            perror(name);
            return;
        }
    }
    fprintf(f, "pmpi_tool[%d]: report (%s): MPI_Send %ld calls %lld bytes, MPI_Recv %ld calls %lld bytes, "
           "MPI_Bcast %ld calls %lld bytes, MPI_Comm_split %ld calls, MPI_Finalize %ld calls\n",
           my_rank, when, n_send, b_send, n_recv, b_recv, n_bcast, b_bcast, n_split, n_fin);
    if (f != stdout) fclose(f);
    else fflush(f);
}

__attribute__((destructor)) static void at_exit_report(void) { report("at exit, MPI_Finalize not seen"); }

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    b_send += bytes(count, dt);
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    MPI_Status local;
    if (st == MPI_STATUS_IGNORE) st = &local;
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    int got = 0;
    n_recv++;
    if (rc == MPI_SUCCESS && PMPI_Get_count(st, dt, &got) == MPI_SUCCESS && got != MPI_UNDEFINED)
        b_recv += bytes(got, dt);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    n_bcast++;
    b_bcast += bytes(count, dt);
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    n_split++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Finalize(void)
{
    n_fin++;
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    report("at MPI_Finalize");
    return PMPI_Finalize();
}
