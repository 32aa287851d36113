/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1's trees (ompi/mca/coll/base/coll_base_topo.c of v4.1.4): for
 * one rank of a collective, its parent and children in the tree an
 * algorithm sends along (dkb_internal.h names the kinds). */
#include "map/dkb_internal.h"

static int pown(int fanout, int num)
{
    int p = 1;
    if (num < 0) return 0;
    if (num == 1) return fanout;
    for (int j = 0; j < num; j++) p *= fanout;
    return p;
}
static int calc_level(int fanout, int rank)
{
    int level, num;
    if (rank < 0) return -1;
    for (level = 0, num = 0; num <= rank; level++) num += pown(fanout, level);
    return level - 1;
}

/* ompi_coll_base_topo_build_tree */
static void tree_kary(int fanout, int size, int root, int rank, compi_ompi41_tree *t)
{
    t->prev = -1;
    t->n = 0;
    if (size < 2) return;
    int shifted = rank - root;
    if (shifted < 0) shifted += size;
    int level = calc_level(fanout, shifted);
    int delta = pown(fanout, level);
    for (int i = 0; i < fanout; i++) {
        int schild = shifted + delta * (i + 1);
        if (schild < size) t->next[t->n++] = (schild + root) % size;
        else break;
    }
    int slimit = (pown(fanout, level) - 1) / (fanout - 1);
    int sparent = shifted;
    if (sparent < fanout) sparent = 0;
    else
        while (sparent >= slimit) sparent -= delta / fanout;
    t->prev = (sparent + root) % size;
}

/* ompi_coll_base_topo_build_bmtree */
static void tree_bm(int size, int root, int rank, compi_ompi41_tree *t)
{
    int index = rank - root;
    if (index < 0) index += size;
    int mask = compi_ompi41_next_pow2(index);
    t->n = 0;
    if (root == rank) t->prev = root;
    else {
        int remote = (index ^ (mask >> 1)) + root;
        if (remote >= size) remote -= size;
        t->prev = remote;
    }
    while (mask < size) {
        int remote = index ^ mask;
        if (remote >= size) break;
        remote += root;
        if (remote >= size) remote -= size;
        t->next[t->n++] = remote;
        mask <<= 1;
    }
}

/* ompi_coll_base_topo_build_in_order_bmtree */
static void tree_in_order_bm(int size, int root, int rank, compi_ompi41_tree *t)
{
    int vrank = (rank - root + size) % size;
    t->n = 0;
    t->prev = (rank == root) ? root : -1;
    for (int mask = 1; mask < size; mask <<= 1) {
        int remote = vrank ^ mask;
        if (remote < vrank) {
            t->prev = (remote + root) % size;
            break;
        } else if (remote < size) {
            t->next[t->n++] = (remote + root) % size;
        }
    }
}

/* ompi_coll_base_topo_build_kmtree */
static void tree_km(int size, int root, int rank, int radix, compi_ompi41_tree *t)
{
    int vrank = (rank - root + size) % size;
    t->prev = -1;
    t->n = 0;
    int mask = 1;
    while (mask < size) {
        if (vrank % (radix * mask)) {
            t->prev = (vrank / (radix * mask) * (radix * mask) + root) % size;
            break;
        }
        mask *= radix;
    }
    mask /= radix;
    while (mask > 0) {
        for (int r = 1; r < radix; r++) {
            int child = vrank + mask * r;
            if (child < size && t->n < COMPI_OMPI41_MAXKIDS) t->next[t->n++] = (child + root) % size;
        }
        mask /= radix;
    }
}

/* ompi_coll_base_topo_build_chain */
static void tree_chain(int fanout, int size, int root, int rank, compi_ompi41_tree *t)
{
    if (fanout < 1) fanout = 1;
    if (fanout > 32) fanout = 32; /* MAXTREEFANOUT */
    t->prev = -1;
    t->n = 0;
    if (size - 1 < fanout) fanout = size - 1;
    int srank = rank - root;
    if (srank < 0) srank += size;
    if (fanout == 1) {
        t->prev = srank == 0 ? -1 : (srank - 1 + root) % size;
        if (srank + 1 < size) t->next[t->n++] = (srank + 1 + root) % size;
        return;
    }
    if (size == 1) return;
    int maxchainlen = (size - 1) / fanout, mark;
    if ((size - 1) % fanout != 0) {
        maxchainlen++;
        mark = (size - 1) % fanout;
    } else {
        mark = fanout + 1;
    }
    if (srank != 0) {
        int column, head, len;
        if (srank - 1 < mark * maxchainlen) {
            column = (srank - 1) / maxchainlen;
            head = 1 + column * maxchainlen;
            len = maxchainlen;
        } else {
            column = mark + (srank - 1 - mark * maxchainlen) / (maxchainlen - 1);
            head = mark * maxchainlen + 1 + (column - mark) * (maxchainlen - 1);
            len = maxchainlen - 1;
        }
        t->prev = ((srank == head ? 0 : srank - 1) + root) % size;
        if (srank != head + len - 1 && srank + 1 < size) t->next[t->n++] = (srank + 1 + root) % size;
    } else {
        t->next[0] = (root + 1) % size;
        for (int i = 1; i < fanout; i++) {
            int nx = t->next[i - 1] + maxchainlen;
            if (i > mark) nx--;
            t->next[i] = nx % size;
        }
        t->n = fanout;
    }
}

/* ompi_coll_base_topo_build_in_order_bintree (root is size - 1) */
static void tree_in_order_bin(int size, int rank, compi_ompi41_tree *t)
{
    int myrank = rank, parent = size - 1, delta = 0;
    int next0 = -1, next1 = -1;
    t->prev = -1;
    t->n = 0;
    for (;;) {
        int rightsize = size >> 1, lchild = -1, rchild = -1;
        if (size - 1 > 0) {
            lchild = parent - 1;
            if (lchild > 0) rchild = rightsize - 1;
        }
        if (myrank == parent) {
            if (lchild >= 0) next0 = lchild + delta;
            if (rchild >= 0) next1 = rchild + delta;
            break;
        }
        if (myrank > rchild) {
            if (myrank == lchild) t->prev = parent + delta;
            size = size - rightsize - 1;
            delta = delta + rightsize;
            myrank = myrank - rightsize;
            parent = size - 1;
        } else {
            if (myrank == rchild) t->prev = parent + delta;
            size = rightsize;
            parent = rchild;
        }
    }
    if (next0 >= 0) t->next[t->n++] = next0;
    if (next1 >= 0) t->next[t->n++] = next1;
}

void compi_ompi41_tree_of(int kind, int param, int size, int root, int rank, compi_ompi41_tree *t)
{
    switch (kind) {
    case COMPI_OMPI41_TREE_KARY: tree_kary(param, size, root, rank, t); break;
    case COMPI_OMPI41_TREE_BM: tree_bm(size, root, rank, t); break;
    case COMPI_OMPI41_TREE_IN_ORDER_BM: tree_in_order_bm(size, root, rank, t); break;
    case COMPI_OMPI41_TREE_KM: tree_km(size, root, rank, param, t); break;
    case COMPI_OMPI41_TREE_CHAIN: tree_chain(param, size, root, rank, t); break;
    default: tree_in_order_bin(size, rank, t); break;
    }
}
