/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's start-up agreement: a binomial tree of point-to-point messages on
 * MPI_COMM_WORLD, O(log P) rounds, with no communicator created and no MPI
 * collective called. An MPI may set up per-communicator state at a
 * communicator's creation or first collective: SimGrid SMPI 3.32 runs a ring
 * over all P ranks (P^2 messages) then, which at 1024 simulated ranks costs
 * eight times the whole of a plain MPI_Init+Finalize. MPI_COMM_WORLD's first
 * collective is left to the application.
 *
 * Why no application receive can see these messages, whatever its source,
 * tag or wildcards: they are sent and received only inside compi's
 * MPI_Init (and MPI_Init_thread), with blocking calls naming their source
 * and tag. A rank's MPI_Init returns only after it received every message
 * addressed to it (each is matched by one of its own receives there), and
 * an application can post no receive before its MPI_Init returns, so none
 * is pending when one arrives and none is left for a later one. (Where
 * compi's MPI_Init did not run, compi starts at a rank's first MPI call it
 * sees, before that call does anything: the rank has posted no receive
 * through compi then.) The tag is reserved all the same, so that a reader
 * of a trace can tell them apart. */
#include <stdlib.h>
#include "core/boot.h"
#include "core/state.h"

#define COMPI_BOOT_TAG 32767 /* MPI_TAG_UB is at least this on every MPI */

static int compi_boot_rank(int *rank, int *size)
{
    int rc = PMPI_Comm_rank(MPI_COMM_WORLD, rank);
    return rc == MPI_SUCCESS ? PMPI_Comm_size(MPI_COMM_WORLD, size) : rc;
}

/* The tree rooted at rank 0: r's parent is r less its lowest set bit; its
 * children are r + 2^k for 2^k below that bit (below size for rank 0), and
 * its subtree the ranks [r, compi_boot_end(r)). */
static int compi_boot_low(int r, int size)
{
    if (r == 0) {
        int b = 1;
        while (b < size) b <<= 1;
        return b;
    }
    return r & -r;
}

static int compi_boot_end(int r, int size)
{
    long e = (long)r + compi_boot_low(r, size);
    return e < size ? (int)e : size;
}

static int compi_boot_send(const void *buf, size_t len, int to)
{
    return PMPI_Send(buf, (int)len, MPI_BYTE, to, COMPI_BOOT_TAG, MPI_COMM_WORLD);
}

static int compi_boot_recv(void *buf, size_t len, int from)
{
    return PMPI_Recv(buf, (int)len, MPI_BYTE, from, COMPI_BOOT_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Down the tree: rank 0's len bytes to every rank. */
int compi_boot_bcast(void *buf, size_t len)
{
    int rank, size, rc = compi_boot_rank(&rank, &size);
    if (rc == MPI_SUCCESS && rank != 0) rc = compi_boot_recv(buf, len, rank - compi_boot_low(rank, size));
    for (int b = 1; rc == MPI_SUCCESS && b < compi_boot_low(rank, size) && rank + b < size; b <<= 1)
        rc = compi_boot_send(buf, len, rank + b);
    return rc;
}

int compi_boot_max(unsigned long long *v, int n)
{
    int rank, size, rc = compi_boot_rank(&rank, &size);
    unsigned long long in[COMPI_BOOT_MAX_WORDS];
    if (n < 0 || n > COMPI_BOOT_MAX_WORDS) return MPI_ERR_COUNT; /* the same n, so the same answer, on every rank */
    for (int b = 1; rc == MPI_SUCCESS && b < compi_boot_low(rank, size) && rank + b < size; b <<= 1) {
        rc = compi_boot_recv(in, sizeof *in * (size_t)n, rank + b);
        for (int k = 0; rc == MPI_SUCCESS && k < n; k++)
            if (in[k] > v[k]) v[k] = in[k];
    }
    if (rc == MPI_SUCCESS && rank != 0)
        rc = compi_boot_send(v, sizeof *v * (size_t)n, rank - compi_boot_low(rank, size));
    return rc == MPI_SUCCESS ? compi_boot_bcast(v, sizeof *v * (size_t)n) : rc;
}

int compi_boot_allgather(void *all, size_t rec, compi_boot_first_fn first, const void *ctx)
{
    int rank, size, rc = compi_boot_rank(&rank, &size);
    unsigned char *a = all;
    /* up: each child's subtree holds the slots [first(child), first(its end)) */
    for (int b = 1; rc == MPI_SUCCESS && b < compi_boot_low(rank, size) && rank + b < size; b <<= 1) {
        int c = rank + b, lo = first(c, ctx), hi = first(compi_boot_end(c, size), ctx);
        if (hi > lo) rc = compi_boot_recv(a + (size_t)lo * rec, (size_t)(hi - lo) * rec, c);
    }
    if (rc == MPI_SUCCESS && rank != 0) {
        int lo = first(rank, ctx), hi = first(compi_boot_end(rank, size), ctx);
        if (hi > lo)
            rc = compi_boot_send(a + (size_t)lo * rec, (size_t)(hi - lo) * rec, rank - compi_boot_low(rank, size));
    }
    return rc == MPI_SUCCESS ? compi_boot_bcast(all, (size_t)first(size, ctx) * rec) : rc;
}

/* The nodes of ranks before r: nodes are numbered in the order of their
 * lowest rank, so those are 0 .. the highest node among them. */
static int compi_boot_first_node(int r, const void *ctx)
{
    (void)ctx;
    int top = -1;
    for (int q = 0; q < r; q++)
        if (compi_g.node_of_world[q] > top) top = compi_g.node_of_world[q];
    return top + 1;
}

int compi_boot_node_names(int ask_mpi, char (**node_names)[COMPI_NET_NAME_MAX])
{
    int me = compi_g.world_rank, n = compi_g.node_count;
    if (!ask_mpi) return compi_netcal_node_names(MPI_COMM_WORLD, n, compi_g.node_of_world, 0, node_names);
    char(*names)[COMPI_NET_NAME_MAX] = calloc((size_t)(n > 0 ? n : 1), sizeof *names);
    unsigned long long bad = !names;
    int rc = compi_boot_max(&bad, 1); /* every rank goes on, or none */
    if (rc == MPI_SUCCESS && bad) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        /* each node's lowest rank names it: node count names, not one per rank */
        int node = compi_g.node_of_world[me];
        if (compi_boot_first_node(me, NULL) == node) {
            char proc[MPI_MAX_PROCESSOR_NAME + 1] = {0};
            int len = 0;
            PMPI_Get_processor_name(proc, &len);
            compi_netcal_clean_name(names[node], proc, node);
        }
        rc = compi_boot_allgather(names, sizeof *names, compi_boot_first_node, NULL);
    }
    if (rc != MPI_SUCCESS) {
        free(names);
        return rc;
    }
    for (int k = 0; k < n; k++) names[k][COMPI_NET_NAME_MAX - 1] = 0;
    *node_names = names;
    return MPI_SUCCESS;
}
