/* SPDX-License-Identifier: BSD-3-Clause */
/* The oracle for the bytes compi puts on the wire: preloaded after libcompi,
 * this library defines PMPI_Send, PMPI_Isend and PMPI_Sendrecv, so compi's own
 * calls (the frames it sends) come here before the MPI's. It counts the bytes
 * of the sends whose tag is in [WIRE_TAG_LO, WIRE_TAG_HI] and prints them at
 * MPI_Finalize ("WIRE rank R: M messages, B bytes"); check_report.py
 * --wire-oracle compares them with the report's bytes_out. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static long long wire_bytes, wire_msgs;
static int lo = 0, hi = 0, inited;
static void init(void) { if (inited) return; inited = 1; const char *a = getenv("WIRE_TAG_LO"), *b = getenv("WIRE_TAG_HI"); if (a) lo = atoi(a); if (b) hi = atoi(b); }
/* the application's messages on MPI_COMM_WORLD only: compi's own
 * collectives move blocks on communicators of their own */
static void add(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    init();
    if (comm != MPI_COMM_WORLD || dest == MPI_PROC_NULL || tag < lo || tag > hi) return;
    int sz = 0; MPI_Type_size(dt, &sz);
    wire_bytes += (long long)count * sz; wire_msgs++;
}
int PMPI_Send(const void *b, int c, MPI_Datatype d, int dest, int tag, MPI_Comm comm)
{
    static int (*f)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    if (!f) f = dlsym(RTLD_NEXT, "PMPI_Send");
    add(c, d, dest, tag, comm); return f(b, c, d, dest, tag, comm);
}
int PMPI_Isend(const void *b, int c, MPI_Datatype d, int dest, int tag, MPI_Comm comm, MPI_Request *r)
{
    static int (*f)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!f) f = dlsym(RTLD_NEXT, "PMPI_Isend");
    add(c, d, dest, tag, comm); return f(b, c, d, dest, tag, comm, r);
}
int PMPI_Sendrecv(const void *sb, int sc, MPI_Datatype sd, int dest, int st, void *rb, int rc, MPI_Datatype rd,
                  int src, int rt, MPI_Comm comm, MPI_Status *s)
{
    static int (*f)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    if (!f) f = dlsym(RTLD_NEXT, "PMPI_Sendrecv");
    add(sc, sd, dest, st, comm); return f(sb, sc, sd, dest, st, rb, rc, rd, src, rt, comm, s);
}
int PMPI_Finalize(void)
{
    static int (*f)(void);
    if (!f) f = dlsym(RTLD_NEXT, "PMPI_Finalize");
    int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
    init();
    fprintf(stderr, "WIRE rank %d: %lld messages, %lld bytes handed to the MPI (tags %d-%d)\n", r, wire_msgs, wire_bytes, lo, hi);
    return f();
}
