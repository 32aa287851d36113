/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1 coll/tuned's Bcast algorithms (coll_base_bcast.c of
 * v4.1.4): every message each one sends (dkb_ompi41.c says how the
 * decompositions were transcribed and checked). */
#include <stdlib.h>
#include "map/dkb_internal.h"

/* ------------------------------------------------------------------ */
/* Bcast */

/* ompi_coll_base_bcast_intra_generic: every tree edge carries the message
 * in segments of segcount elements (the last one shorter). */
static int bcast_generic(const compi_map_call *c, int kind, int param, int64_t segcount, compi_map_msgs *o)
{
    int size = c->size;
    int64_t nseg = (c->count + segcount - 1) / segcount;
    int64_t last = c->count - (nseg - 1) * segcount;
    for (int r = 0; r < size; r++) {
        compi_ompi41_tree t;
        compi_ompi41_tree_of(kind, param, size, c->root, r, &t);
        for (int i = 0; i < t.n; i++)
            for (int64_t s = 0; s < nseg; s++) EMIT(o, r, t.next[i], (s == nseg - 1 ? last : segcount) * c->type_size);
    }
    return 0;
}

int compi_ompi41_bcast_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root) EMIT(o, c->root, i, c->count * c->type_size);
    return 0;
}

static int bcast_chain_fanout(const compi_map_call *c, uint32_t segsize, int fanout, compi_map_msgs *o)
{
    return bcast_generic(c, COMPI_OMPI41_TREE_CHAIN, fanout, compi_ompi41_segcount(segsize, c->type_size, c->count), o);
}

static int bcast_chain(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_chain_fanout(c, a->segsize, a->fanout, o);
}
static int bcast_pipeline(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_chain_fanout(c, a->segsize, 1, o);
}
static int bcast_bintree(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_generic(c, COMPI_OMPI41_TREE_KARY, 2, compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
static int bcast_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_generic(c, COMPI_OMPI41_TREE_BM, 0, compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
static int bcast_knomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_generic(c, COMPI_OMPI41_TREE_KM, a->radix, compi_ompi41_segcount(a->segsize, c->type_size, c->count),
                         o);
}
static int bcast_linear_alg(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_bcast_linear(c, o);
}

/* ompi_coll_base_bcast_intra_split_bintree */
static int bcast_split_bintree(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int size = c->size, root = c->root;
    size_t ts = c->type_size;
    uint32_t segsize = a->segsize;
    int64_t counts[2], segcount[2], nseg[2];
    counts[0] = c->count / 2;
    if (c->count % 2) counts[0]++;
    counts[1] = c->count - counts[0];
    if (segsize > 0) {
        if (segsize < ts) segsize = (uint32_t)ts;
        segcount[0] = segcount[1] = segsize / ts;
        for (int i = 0; i < 2; i++) nseg[i] = (counts[i] + segcount[i] - 1) / segcount[i];
    } else {
        segcount[0] = counts[0];
        segcount[1] = counts[1];
        nseg[0] = nseg[1] = 1;
    }
    if (counts[0] == 0 || counts[1] == 0 || segsize > (uint64_t)counts[0] * ts || segsize > (uint64_t)counts[1] * ts)
        return bcast_chain_fanout(c, segsize, 1, o);
    for (int r = 0; r < size; r++) {
        compi_ompi41_tree t;
        compi_ompi41_tree_of(COMPI_OMPI41_TREE_KARY, 2, size, root, r, &t);
        int lr = ((r + size - root) % size + 1) % 2;
        if (r == root) {
            for (int64_t s = 0; s < nseg[0]; s++)
                for (int i = 0; i < t.n && i < 2; i++) {
                    if (s >= nseg[i]) continue;
                    int64_t n = (s == nseg[i] - 1) ? counts[i] - s * segcount[i] : segcount[i];
                    EMIT(o, r, t.next[i], n * ts);
                }
        } else if (t.n > 0) {
            int64_t lastn = nseg[lr] > 1 ? counts[lr] - (nseg[lr] - 1) * segcount[lr] : segcount[lr];
            for (int64_t s = 0; s < nseg[lr]; s++)
                for (int i = 0; i < t.n; i++) EMIT(o, r, t.next[i], (s == nseg[lr] - 1 ? lastn : segcount[lr]) * ts);
        }
        /* step 2: exchange halves with the pair in the other subtree */
        int pair = lr == 0 ? (r + 1) % size : (r + size - 1) % size;
        if (size % 2 != 0) {
            if (r != root) EMIT(o, r, pair, counts[lr] * ts);
        } else {
            if (r == root) EMIT(o, r, (root + size - 1) % size, counts[1] * ts);
            else if (r != (root + size - 1) % size) EMIT(o, r, pair, counts[lr] * ts);
        }
    }
    return 0;
}

/* ompi_coll_base_bcast_intra_scatter_allgather{,_ring}: binomial scatter of
 * ceil(count/size)-element blocks, then an allgather. The amounts depend on
 * what each rank received, so the phases are replayed in lockstep. */
static int bcast_scatter_phase(const compi_map_call *c, int64_t sc, int64_t *curr, compi_map_msgs *o)
{
    int n = c->size, root = c->root;
    int64_t count = c->count;
    /* parents have smaller vranks: increasing vrank order is causal */
    for (int v = 0; v < n; v++) {
        int rank = (v + root) % n;
        int mask = 1;
        if (v == 0) {
            curr[v] = count;
            while (mask < n) mask <<= 1;
        } else {
            while (mask < n && !(v & mask)) mask <<= 1;
            /* curr[v] was set by the parent's send (0 when nothing came) */
        }
        mask >>= 1;
        while (mask > 0) {
            if (v + mask < n) {
                int64_t send_count = curr[v] - sc * mask;
                if (send_count > 0) {
                    int child = (rank + mask) % n;
                    EMIT(o, rank, child, send_count * c->type_size);
                    curr[v + mask] = send_count;
                    curr[v] -= send_count;
                }
            }
            mask >>= 1;
        }
    }
    return 0;
}

static int bcast_scatter_allgather(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, root = c->root;
    int64_t count = c->count;
    if (count < n) return compi_ompi41_bcast_linear(c, o);
    int64_t sc = (count + n - 1) / n;
    int64_t *curr = calloc(n, sizeof *curr), *rc = calloc(n, sizeof *rc), *newrc = calloc(n, sizeof *newrc);
    int ret = 0;
    if (!curr || !rc || !newrc) {
        ret = COMPI_MAP_ENOMEM;
        goto out;
    }
    if ((ret = bcast_scatter_phase(c, sc, curr, o))) goto out;
    /* after the scatter each rank keeps its own block */
    for (int v = 0; v < n; v++) {
        int64_t rem = count - v * sc;
        curr[v] = sc < rem ? sc : rem;
        if (curr[v] < 0) curr[v] = 0;
    }
    for (int mask = 1; mask < n; mask <<= 1) {
        /* the sendrecv of this round: every rank sends curr, receives the partner's curr */
        for (int v = 0; v < n; v++) {
            int vr = v ^ mask;
            if (vr < n) {
                EMIT(o, (v + root) % n, (vr + root) % n, curr[v] * c->type_size);
                newrc[v] = curr[vr];
            } else {
                newrc[v] = rc[v]; /* recv_count keeps its previous value */
            }
        }
        for (int v = 0; v < n; v++) {
            if ((v ^ mask) < n) curr[v] += newrc[v];
            rc[v] = newrc[v];
        }
        /* non-power-of-two fix-up: recursive halving inside the subtree */
        for (int v = 0; v < n; v++) newrc[v] = -1;
        for (int h = mask >> 1; h > 0; h >>= 1) {
            for (int v = 0; v < n; v++) newrc[v] = -1;
            for (int v = 0; v < n; v++) {
                int vremote_tree_root = compi_ompi41_rounddown(v ^ mask, mask);
                if (!(vremote_tree_root + mask > n)) continue;
                int vrank_tree_root = compi_ompi41_rounddown(v, mask);
                int nprocs_alldata = n - vrank_tree_root - mask;
                int vremote = v ^ h;
                int tree_root = compi_ompi41_rounddown(v, h << 1);
                if (vremote > v && v < tree_root + nprocs_alldata && vremote >= tree_root + nprocs_alldata) {
                    EMIT(o, (v + root) % n, (vremote + root) % n, rc[v] * c->type_size);
                    newrc[vremote] = rc[v];
                }
            }
            for (int v = 0; v < n; v++)
                if (newrc[v] >= 0) {
                    rc[v] = newrc[v];
                    curr[v] += newrc[v];
                }
        }
    }
out:
    free(curr);
    free(rc);
    free(newrc);
    return ret;
}

static int bcast_scatter_allgather_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, root = c->root;
    int64_t count = c->count;
    if (count < n) return compi_ompi41_bcast_linear(c, o);
    int64_t sc = (count + n - 1) / n;
    int64_t *curr = calloc(n, sizeof *curr);
    if (!curr) return COMPI_MAP_ENOMEM;
    int ret = bcast_scatter_phase(c, sc, curr, o);
    free(curr);
    if (ret) return ret;
    for (int r = 0; r < n; r++) {
        int vrank = (r - root + n) % n;
        int send_block = vrank, recv_block = (vrank - 1 + n) % n;
        for (int i = 1; i < n; i++) {
            int64_t send_count = count - send_block * sc;
            if (sc < send_count) send_count = sc;
            if (send_count < 0) send_count = 0;
            EMIT(o, r, (r + 1) % n, send_count * c->type_size);
            send_block = recv_block;
            recv_block = (recv_block - 1 + n) % n;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* coll_tuned_<coll>_algorithm ids, named as Open MPI names them */

static const compi_ompi41_alg_row rows[] = {
    {COMPI_MAP_BCAST, 1, "basic_linear", bcast_linear_alg},
    {COMPI_MAP_BCAST, 2, "chain", bcast_chain},
    {COMPI_MAP_BCAST, 3, "pipeline", bcast_pipeline},
    {COMPI_MAP_BCAST, 4, "split_binary_tree", bcast_split_bintree},
    {COMPI_MAP_BCAST, 5, "binary_tree", bcast_bintree},
    {COMPI_MAP_BCAST, 6, "binomial", bcast_binomial},
    {COMPI_MAP_BCAST, 7, "knomial", bcast_knomial},
    {COMPI_MAP_BCAST, 8, "scatter_allgather", bcast_scatter_allgather},
    {COMPI_MAP_BCAST, 9, "scatter_allgather_ring", bcast_scatter_allgather_ring},
};
const compi_ompi41_algs compi_ompi41_bcast_algs = {rows, (int)(sizeof rows / sizeof rows[0])};
