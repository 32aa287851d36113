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
#include <string.h>
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

/* An up message from the subtree [c, e): COMPI_BOOT_WORDS words, the
 * subtree's e - c leaders, then the names of the nodes whose leader is in
 * it (leaders[q] == q), in rank order. Its size is known only after its
 * leaders are read, so it is received into room for e - c names. */
static size_t compi_boot_up_bytes(int n, int names)
{
    return sizeof(unsigned long long) * COMPI_BOOT_WORDS + sizeof(int) * (size_t)n + (size_t)names * COMPI_NET_NAME_MAX;
}

/* The nodes whose leader is among leaders[0..n), ranks lo.. */
static int compi_boot_count_nodes(const int *leaders, int lo, int n)
{
    int k = 0;
    for (int q = 0; q < n; q++) k += leaders[q] == lo + q;
    return k;
}

/* Appends k names to *names (*have so far); errors as MPI codes. */
static int compi_boot_add_names(compi_boot_info *x, int *have, const void *src, int k)
{
    if (k == 0) return MPI_SUCCESS;
    void *grown = realloc(x->names, (size_t)(*have + k) * COMPI_NET_NAME_MAX);
    if (!grown) return MPI_ERR_NO_MEM;
    x->names = grown;
    memcpy(x->names[*have], src, (size_t)k * COMPI_NET_NAME_MAX);
    *have += k;
    return MPI_SUCCESS;
}

/* Up: this subtree's words (maximum), leaders (into x->leaders at their
 * ranks) and node names (appended in rank order) from the children, then
 * to the parent in one message. */
static int compi_boot_up(compi_boot_info *x, int rank, int size, int *have)
{
    int rc = MPI_SUCCESS;
    for (int b = 1; rc == MPI_SUCCESS && b < compi_boot_low(rank, size) && rank + b < size; b <<= 1) {
        int c = rank + b, n = compi_boot_end(c, size) - c;
        unsigned char *in = malloc(compi_boot_up_bytes(n, n));
        if (!in) return MPI_ERR_NO_MEM;
        rc = compi_boot_recv(in, compi_boot_up_bytes(n, n), c);
        if (rc == MPI_SUCCESS) {
            const unsigned long long *w = (const void *)in;
            for (int k = 0; k < COMPI_BOOT_WORDS; k++)
                if (w[k] > x->max[k]) x->max[k] = w[k];
            memcpy(x->leaders + c, in + compi_boot_up_bytes(0, 0), sizeof(int) * (size_t)n);
            rc = compi_boot_add_names(x, have, in + compi_boot_up_bytes(n, 0),
                                      compi_boot_count_nodes(x->leaders + c, c, n));
        }
        free(in);
    }
    if (rc != MPI_SUCCESS || rank == 0) return rc;
    int n = compi_boot_end(rank, size) - rank;
    size_t len = compi_boot_up_bytes(n, *have);
    unsigned char *out = malloc(len);
    if (!out) return MPI_ERR_NO_MEM;
    memcpy(out, x->max, sizeof x->max);
    memcpy(out + compi_boot_up_bytes(0, 0), x->leaders + rank, sizeof(int) * (size_t)n);
    if (*have) memcpy(out + compi_boot_up_bytes(n, 0), x->names, (size_t)*have * COMPI_NET_NAME_MAX);
    rc = compi_boot_send(out, len, rank - compi_boot_low(rank, size));
    free(out);
    return rc;
}

/* Down: the words and every rank's leader in one message, then the node
 * names, whose number the leaders tell. */
static int compi_boot_down(compi_boot_info *x, int rank, int size)
{
    size_t len = compi_boot_up_bytes(size, 0);
    unsigned char *all = malloc(len);
    if (!all) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (rank == 0) {
        memcpy(all, x->max, sizeof x->max);
        memcpy(all + compi_boot_up_bytes(0, 0), x->leaders, sizeof(int) * (size_t)size);
    } else {
        rc = compi_boot_recv(all, len, rank - compi_boot_low(rank, size));
        if (rc == MPI_SUCCESS) {
            memcpy(x->max, all, sizeof x->max);
            memcpy(x->leaders, all + compi_boot_up_bytes(0, 0), sizeof(int) * (size_t)size);
            x->nodes = compi_boot_count_nodes(x->leaders, 0, size);
            free(x->names);
            x->names = malloc((size_t)(x->nodes > 0 ? x->nodes : 1) * COMPI_NET_NAME_MAX);
            if (!x->names) rc = MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS)
            rc = compi_boot_recv(x->names, (size_t)x->nodes * COMPI_NET_NAME_MAX, rank - compi_boot_low(rank, size));
    }
    for (int b = 1; rc == MPI_SUCCESS && b < compi_boot_low(rank, size) && rank + b < size; b <<= 1) {
        rc = compi_boot_send(all, len, rank + b);
        if (rc == MPI_SUCCESS) rc = compi_boot_send(x->names, (size_t)x->nodes * COMPI_NET_NAME_MAX, rank + b);
    }
    free(all);
    return rc;
}

int compi_boot_exchange(compi_boot_info *x)
{
    int rank, size, rc = compi_boot_rank(&rank, &size), have = 0;
    x->names = NULL;
    x->nodes = 0;
    x->leaders = rc == MPI_SUCCESS ? malloc(sizeof(int) * (size_t)size) : NULL;
    if (rc == MPI_SUCCESS && !x->leaders) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        x->leaders[rank] = x->leader;
        if (x->leader == rank) rc = compi_boot_add_names(x, &have, x->name, 1);
    }
    if (rc == MPI_SUCCESS) rc = compi_boot_up(x, rank, size, &have);
    if (rc == MPI_SUCCESS && rank == 0) x->nodes = have;
    if (rc == MPI_SUCCESS) rc = compi_boot_down(x, rank, size);
    if (rc == MPI_SUCCESS) {
        for (int k = 0; k < x->nodes; k++) x->names[k][COMPI_NET_NAME_MAX - 1] = 0;
        return MPI_SUCCESS;
    }
    free(x->leaders);
    free(x->names);
    x->leaders = NULL;
    x->names = NULL;
    return rc;
}
