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

/* The slots of records that ranks from r on own start at first(r, ctx),
 * nondecreasing in r; first(size) is the number of slots. */
typedef int (*compi_boot_first_fn)(int r, const void *ctx);

/* Every rank has filled its own slots [first(me), first(me + 1)) of all
 * (rec bytes each); afterwards every rank has every slot. */
int compi_boot_allgather(void *all, size_t rec, compi_boot_first_fn first, const void *ctx);

/* The node names of compi's node map (compi_netcal_node_names' names):
 * with ask_mpi, each node's lowest rank's processor name, else "node<k>".
 * *node_names (node_count entries) is malloc'd. */
int compi_boot_node_names(int ask_mpi, char (**node_names)[COMPI_NET_NAME_MAX]);

#endif
