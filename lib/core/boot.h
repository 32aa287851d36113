/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's start-up agreement over MPI_COMM_WORLD without MPI collectives
 * (boot.c says why, and why it is safe). Inside MPI_Init only: every rank
 * makes the same calls in the same order. Each returns an MPI error code. */
#ifndef COMPI_CORE_BOOT_H
#define COMPI_CORE_BOOT_H
#include <stddef.h>
#include <mpi.h>
#include "netcal/netcal.h"

/* Rank 0's len bytes at buf, to every rank. */
int compi_boot_bcast(void *buf, size_t len);

#define COMPI_BOOT_MAX_WORDS 8

/* v[0..n) (n <= COMPI_BOOT_MAX_WORDS) becomes the element-wise maximum over all ranks. */
int compi_boot_max(unsigned long long *v, int n);

/* The words of the start-up exchange, each the maximum over all ranks. */
enum {
    COMPI_BOOT_CFG_FAILED,    /* a rank could not load its configuration */
    COMPI_BOOT_CFG_HASH,      /* the agreed settings' hash ... */
    COMPI_BOOT_CFG_NOT_HASH,  /* ... and its complement: equal everywhere iff max(h) == ~max(~h) */
    COMPI_BOOT_ENGINE_FAILED, /* a rank could not load its models or check its report path */
    COMPI_BOOT_NOT_FLOOR,     /* the collective floor's complement (the least floor) ... */
    COMPI_BOOT_FLOOR,         /* ... and the greatest: the same model on every rank iff they agree */
    COMPI_BOOT_WORDS
};

/* compi's start-up agreement in one pass up and one pass down the tree
 * (O(log P) messages a rank): the words' maxima, every rank's node leader
 * and the node names, which only each node's leader sends up (O(nodes)
 * names, not one per rank). */
typedef struct compi_boot_info {
    unsigned long long max[COMPI_BOOT_WORDS]; /* in: this rank's; out: the maximum over all ranks */
    int leader;                               /* in: the lowest world rank on this rank's node */
    char name[COMPI_NET_NAME_MAX];            /* in: its node's name, used where it is that leader */
    int *leaders;                             /* out: every world rank's leader (malloc'd) */
    char (*names)[COMPI_NET_NAME_MAX];        /* out: the nodes' names, in their leaders' order (malloc'd) */
    int nodes;                                /* out: the number of names */
} compi_boot_info;

int compi_boot_exchange(compi_boot_info *x);

#endif
