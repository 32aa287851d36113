/* SPDX-License-Identifier: BSD-3-Clause */
/* DKB for Open MPI 4.1 coll/tuned: which point-to-point messages each
 * algorithm sends, and which algorithm the fixed decision rules pick.
 *
 * Transcribed from Open MPI v4.1.4 (ompi/mca/coll/base/coll_base_*.c,
 * coll_base_topo.c, coll/tuned/coll_tuned_decision_fixed.c and
 * coll_tuned_<coll>_decision.c): each decomposition function replays every
 * rank's send side of the algorithm (the sizes a rank sends depend only on
 * the call, except where noted), so the result is the exact multiset of
 * PML messages. Validated against the pml monitoring component
 * (tests/map/dkb_validate.sh).
 *
 * Facts of Open MPI's code the decompositions depend on:
 * - a send to oneself (pairwise step size, sendrecv with dest == me) is a
 *   local copy, no message;
 * - segmented algorithms send one message per segment; the segment holds
 *   COLL_BASE_COMPUTED_SEGCOUNT(segsize) elements (rounded to nearest);
 * - the fixed path passes segsize 0 and fan-out 0 (a chain of fan-out 0 is a
 *   chain of fan-out 1); a pinned run passes the MCA values (fan-out 4);
 * - composite algorithms call the communicator's own reduce/bcast/gather,
 *   i.e. the fixed decision (a pinned algorithm of one collective does not
 *   pin another);
 * - coll/tuned has no Gatherv and Scatterv: the communicator runs
 *   coll/basic's linear ones (empty blocks skipped), also inside
 *   Reduce_scatter "non-overlapping" and Allgatherv "default". */
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "map/map.h"

/* ------------------------------------------------------------------ */
/* message list */

void compi_map_msgs_free(compi_map_msgs *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

static int emit(compi_map_msgs *o, int src, int dst, uint64_t bytes)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        compi_map_msg *v = realloc(o->v, cap * sizeof *v);
        if (!v) return COMPI_MAP_ENOMEM;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n].src = src;
    o->v[o->n].dst = dst;
    o->v[o->n].bytes = bytes;
    o->n++;
    return 0;
}

int compi_map_msgs_add(compi_map_msgs *m, int src, int dst, uint64_t bytes)
{
    return emit(m, src, dst, bytes);
}

#define EMIT(o, s, d, b) do { int rc_ = emit((o), (s), (d), (uint64_t)(b)); if (rc_) return rc_; } while (0)

static const char *const coll_names[COMPI_MAP_NCOLLS] = {
    "bcast", "reduce", "allreduce", "alltoall", "allgather", "gather", "scatter",
    "reduce_scatter", "barrier", "alltoallv", "allgatherv", "gatherv", "scatterv", "reduce_scatter_block",
};

const char *compi_map_coll_name(compi_map_coll c)
{
    return (unsigned)c < COMPI_MAP_NCOLLS ? coll_names[c] : "?";
}

int compi_map_coll_parse(const char *name)
{
    for (int i = 0; i < COMPI_MAP_NCOLLS; i++)
        if (name && strcmp(name, coll_names[i]) == 0) return i;
    return -1;
}

const char *compi_map_strerror(int rc)
{
    switch (rc) {
    case 0: return "ok";
    case COMPI_MAP_EARG: return "collective call parameters out of range";
    case COMPI_MAP_EALG: return "no such algorithm for this collective";
    case COMPI_MAP_EUNSUPP: return "the MPI refuses this algorithm for this call";
    case COMPI_MAP_ENOMEM: return "out of memory";
    case COMPI_MAP_ENOTYET: return "collective not decomposed by the DKB yet";
    default: return "unknown DKB error";
    }
}

/* ------------------------------------------------------------------ */
/* small helpers of Open MPI's (opal/util/bit_ops.h, coll_base_util.c) */

static int next_pow2_incl(int v) /* opal_next_poweroftwo_inclusive */
{
    int p = 1;
    while (p < v) p <<= 1;
    return p;
}
static int next_pow2(int v) /* opal_next_poweroftwo: smallest power of two > v */
{
    int p = 1;
    while (p <= v) p <<= 1;
    return p;
}
static int flp2(int v) /* largest power of two <= v (v >= 1) */
{
    return next_pow2(v) >> 1;
}
static int ilog2(int pof2)
{
    int n = 0;
    while ((1 << n) < pof2) n++;
    return n;
}
static unsigned mirror_perm(unsigned x, int nbits)
{
    x = (((x & 0xaaaaaaaa) >> 1) | ((x & 0x55555555) << 1));
    x = (((x & 0xcccccccc) >> 2) | ((x & 0x33333333) << 2));
    x = (((x & 0xf0f0f0f0) >> 4) | ((x & 0x0f0f0f0f) << 4));
    x = (((x & 0xff00ff00) >> 8) | ((x & 0x00ff00ff) << 8));
    x = ((x >> 16) | (x << 16));
    return nbits ? x >> (32 - nbits) : 0;
}
static int rounddown(int num, int factor)
{
    return (num / factor) * factor;
}

/* COLL_BASE_COMPUTED_SEGCOUNT: elements per segment for segsize bytes. */
static int64_t segcount_of(uint32_t segsize, size_t typelng, int64_t count)
{
    int64_t segcount = count;
    if (segsize >= typelng && segsize < typelng * (uint64_t)segcount) {
        segcount = segsize / typelng;
        size_t residual = segsize - segcount * typelng;
        if (residual > (typelng >> 1)) segcount++;
    }
    return segcount;
}

/* COLL_BASE_COMPUTE_BLOCKCOUNT */
static void blockcount(int64_t count, int64_t nblocks, int64_t *split, int64_t *early, int64_t *late)
{
    *early = *late = count / nblocks;
    *split = count % nblocks;
    if (*split) *early += 1;
}

/* ------------------------------------------------------------------ */
/* trees (coll_base_topo.c): for one rank, its parent and children */

#define MAXKIDS 64
typedef struct {
    int prev;
    int n;
    int next[MAXKIDS];
} tree_t;

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
static void tree_kary(int fanout, int size, int root, int rank, tree_t *t)
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
    else while (sparent >= slimit) sparent -= delta / fanout;
    t->prev = (sparent + root) % size;
}

/* ompi_coll_base_topo_build_bmtree */
static void tree_bm(int size, int root, int rank, tree_t *t)
{
    int index = rank - root;
    if (index < 0) index += size;
    int mask = next_pow2(index);
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
static void tree_in_order_bm(int size, int root, int rank, tree_t *t)
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
static void tree_km(int size, int root, int rank, int radix, tree_t *t)
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
            if (child < size && t->n < MAXKIDS) t->next[t->n++] = (child + root) % size;
        }
        mask /= radix;
    }
}

/* ompi_coll_base_topo_build_chain */
static void tree_chain(int fanout, int size, int root, int rank, tree_t *t)
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
static void tree_in_order_bin(int size, int rank, tree_t *t)
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

enum { TREE_KARY, TREE_BM, TREE_IN_ORDER_BM, TREE_KM, TREE_CHAIN, TREE_IN_ORDER_BIN };

static void tree_of(int kind, int param, int size, int root, int rank, tree_t *t)
{
    switch (kind) {
    case TREE_KARY: tree_kary(param, size, root, rank, t); break;
    case TREE_BM: tree_bm(size, root, rank, t); break;
    case TREE_IN_ORDER_BM: tree_in_order_bm(size, root, rank, t); break;
    case TREE_KM: tree_km(size, root, rank, param, t); break;
    case TREE_CHAIN: tree_chain(param, size, root, rank, t); break;
    default: tree_in_order_bin(size, rank, t); break;
    }
}

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
        tree_t t;
        tree_of(kind, param, size, c->root, r, &t);
        for (int i = 0; i < t.n; i++)
            for (int64_t s = 0; s < nseg; s++)
                EMIT(o, r, t.next[i], (s == nseg - 1 ? last : segcount) * c->type_size);
    }
    return 0;
}

static int bcast_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root) EMIT(o, c->root, i, c->count * c->type_size);
    return 0;
}

static int bcast_chain_fanout(const compi_map_call *c, uint32_t segsize, int fanout, compi_map_msgs *o)
{
    return bcast_generic(c, TREE_CHAIN, fanout, segcount_of(segsize, c->type_size, c->count), o);
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
    return bcast_generic(c, TREE_KARY, 2, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int bcast_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_generic(c, TREE_BM, 0, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int bcast_knomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_generic(c, TREE_KM, a->radix, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int bcast_linear_alg(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_linear(c, o);
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
        tree_t t;
        tree_kary(2, size, root, r, &t);
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
                for (int i = 0; i < t.n; i++)
                    EMIT(o, r, t.next[i], (s == nseg[lr] - 1 ? lastn : segcount[lr]) * ts);
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
    if (count < n) return bcast_linear(c, o);
    int64_t sc = (count + n - 1) / n;
    int64_t *curr = calloc(n, sizeof *curr), *rc = calloc(n, sizeof *rc), *newrc = calloc(n, sizeof *newrc);
    int ret = 0;
    if (!curr || !rc || !newrc) { ret = COMPI_MAP_ENOMEM; goto out; }
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
                int vremote_tree_root = rounddown(v ^ mask, mask);
                if (!(vremote_tree_root + mask > n)) continue;
                int vrank_tree_root = rounddown(v, mask);
                int nprocs_alldata = n - vrank_tree_root - mask;
                int vremote = v ^ h;
                int tree_root = rounddown(v, h << 1);
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
    if (count < n) return bcast_linear(c, o);
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
/* Reduce */

/* ompi_coll_base_reduce_generic: every non-root node sends its (partial)
 * result to its parent, one message per segment. */
static int reduce_generic(const compi_map_call *c, int kind, int param, int tree_root, int64_t segcount,
                          compi_map_msgs *o)
{
    int64_t nseg = (c->count + segcount - 1) / segcount;
    int64_t last = c->count - (nseg - 1) * segcount;
    for (int r = 0; r < c->size; r++) {
        if (r == tree_root) continue;
        tree_t t;
        tree_of(kind, param, c->size, tree_root, r, &t);
        for (int64_t s = 0; s < nseg; s++) EMIT(o, r, t.prev, (s == nseg - 1 ? last : segcount) * c->type_size);
    }
    return 0;
}

static int reduce_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root) EMIT(o, i, c->root, c->count * c->type_size);
    return 0;
}
static int reduce_linear_alg(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_linear(c, o);
}
static int reduce_chain(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, TREE_CHAIN, a->fanout, c->root, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int reduce_pipeline(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, TREE_CHAIN, 1, c->root, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int reduce_binary(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, TREE_KARY, 2, c->root, segcount_of(a->segsize, c->type_size, c->count), o);
}
static int reduce_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, TREE_IN_ORDER_BM, 0, c->root, segcount_of(a->segsize, c->type_size, c->count), o);
}
/* in-order binary tree rooted at size - 1, which then hands the result to root */
static int reduce_in_order_binary(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int io_root = c->size - 1;
    int ret = reduce_generic(c, TREE_IN_ORDER_BIN, 0, io_root, segcount_of(a->segsize, c->type_size, c->count), o);
    if (ret) return ret;
    if (io_root != c->root) EMIT(o, io_root, c->root, c->count * c->type_size);
    return 0;
}

/* ompi_coll_base_reduce_intra_redscat_gather (Rabenseifner) */
static int reduce_redscat_gather(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, root = c->root;
    int64_t count = c->count;
    size_t ts = c->type_size;
    int pof2 = flp2(n), nsteps = ilog2(pof2);
    if (pof2 < 2 || count < pof2 || !c->commutative) return reduce_linear(c, o);
    int rem = n - pof2;
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
    /* rank 0's last rcount, needed when an odd root took part only through rank 0 */
    int64_t rank0_last_rcount = 0;
    int *vranks = malloc(n * sizeof *vranks);
    int64_t (*rc_all)[32] = malloc(n * sizeof *rc_all), (*ri_all)[32] = malloc(n * sizeof *ri_all);
    int64_t (*sc_all)[32] = malloc(n * sizeof *sc_all), (*si_all)[32] = malloc(n * sizeof *si_all);
    int ret = 0;
    if (!vranks || !rc_all || !ri_all || !sc_all || !si_all) { ret = COMPI_MAP_ENOMEM; goto out; }
    for (int rank = 0; rank < n; rank++) {
        int vrank;
        if (rank < 2 * rem) {
            int64_t lhalf = count / 2, rhalf = count - lhalf;
            if (rank % 2 != 0) {
                if ((ret = emit(o, rank, rank - 1, lhalf * ts))) goto out;
                if ((ret = emit(o, rank, rank - 1, rhalf * ts))) goto out;
                vrank = -1;
            } else {
                if ((ret = emit(o, rank, rank + 1, rhalf * ts))) goto out;
                vrank = rank / 2;
            }
        } else {
            vrank = rank - rem;
        }
        vranks[rank] = vrank;
        if (vrank != -1) {
            int step = 0;
            int64_t wsize = count;
            sindex[0] = rindex[0] = 0;
            for (int mask = 1; mask < pof2; mask <<= 1) {
                int vdest = vrank ^ mask;
                int dest = vdest < rem ? vdest * 2 : vdest + rem;
                if (rank < dest) {
                    rcount[step] = wsize / 2;
                    scount[step] = wsize - rcount[step];
                    sindex[step] = rindex[step] + rcount[step];
                } else {
                    scount[step] = wsize / 2;
                    rcount[step] = wsize - scount[step];
                    rindex[step] = sindex[step] + scount[step];
                }
                if ((ret = emit(o, rank, dest, scount[step] * ts))) goto out;
                if (step + 1 < nsteps) {
                    rindex[step + 1] = rindex[step];
                    sindex[step + 1] = rindex[step];
                    wsize = rcount[step];
                    step++;
                }
            }
            if (rank == 0) rank0_last_rcount = rcount[nsteps - 1];
        }
        memcpy(rc_all[rank], rcount, sizeof rcount);
        memcpy(ri_all[rank], rindex, sizeof rindex);
        memcpy(sc_all[rank], scount, sizeof scount);
        memcpy(si_all[rank], sindex, sizeof sindex);
    }
    int vroot;
    if (root < 2 * rem) {
        if (root % 2 != 0) {
            vroot = 0;
            /* rank 0 (vrank 0) hands its block to the root, which takes vrank 0 */
            if ((ret = emit(o, 0, root, rank0_last_rcount * ts))) goto out;
            int step = 0;
            int64_t wsize = count;
            for (int mask = 1; mask < pof2; mask *= 2) {
                rc_all[root][step] = wsize / 2;
                sc_all[root][step] = wsize - rc_all[root][step];
                ri_all[root][step] = 0;
                si_all[root][step] = rc_all[root][step];
                step++;
                wsize /= 2;
            }
            vranks[root] = 0;
            vranks[0] = -1;
        } else {
            vroot = root / 2;
        }
    } else {
        vroot = root - rem;
    }
    /* gather to the root along a binomial tree of halving blocks */
    for (int rank = 0; rank < n; rank++) {
        int vrank = vranks[rank];
        if (vrank == -1) continue;
        int step = nsteps - 1;
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int vdest = vrank ^ mask;
            int dest = vdest < rem ? vdest * 2 : vdest + rem;
            if (vdest == 0 && root < 2 * rem && root % 2 != 0) dest = root;
            int vdest_tree = (vdest >> step) << step;
            int vroot_tree = (vroot >> step) << step;
            if (vdest_tree == vroot_tree) {
                if ((ret = emit(o, rank, dest, rc_all[rank][step] * ts))) goto out;
                break;
            }
            step--;
        }
    }
out:
    free(vranks);
    free(rc_all);
    free(ri_all);
    free(sc_all);
    free(si_all);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Allreduce */

static int decide_and_run(const compi_map_call *c, compi_map_msgs *o);

static int allreduce_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    int ret = reduce_linear(&s, o);
    return ret ? ret : bcast_linear(&s, o);
}

/* reduce to 0 and bcast from 0, each as the fixed rules choose */
static int allreduce_nonoverlapping(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    s.coll = COMPI_MAP_REDUCE;
    int ret = decide_and_run(&s, o);
    if (ret) return ret;
    s.coll = COMPI_MAP_BCAST;
    return decide_and_run(&s, o);
}

static int allreduce_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    uint64_t bytes = c->count * c->type_size;
    int adjsize = next_pow2(n) >> 1;
    int extra = n - adjsize;
    for (int rank = 0; rank < n; rank++) {
        int newrank;
        if (rank < 2 * extra) {
            if (rank % 2 == 0) {
                EMIT(o, rank, rank + 1, bytes);
                newrank = -1;
            } else {
                newrank = rank >> 1;
            }
        } else {
            newrank = rank - extra;
        }
        for (int d = 1; d < adjsize && newrank >= 0; d <<= 1) {
            int nr = newrank ^ d;
            int remote = nr < extra ? nr * 2 + 1 : nr + extra;
            EMIT(o, rank, remote, bytes);
        }
        if (rank < 2 * extra && rank % 2 != 0) EMIT(o, rank, rank - 1, bytes);
    }
    return 0;
}

static int64_t block_of(int b, int64_t split, int64_t early, int64_t late)
{
    return b < split ? early : late;
}

static int allreduce_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    size_t ts = c->type_size;
    if (c->count < n) return allreduce_recursivedoubling(c, a, o);
    int64_t split, early, late;
    blockcount(c->count, n, &split, &early, &late);
    for (int r = 0; r < n; r++) {
        int to = (r + 1) % n;
        EMIT(o, r, to, block_of(r, split, early, late) * ts);
        for (int k = 2; k < n; k++) EMIT(o, r, to, block_of((r + n - k + 1) % n, split, early, late) * ts);
        for (int k = 0; k < n - 1; k++) EMIT(o, r, to, block_of((r + 1 + n - k) % n, split, early, late) * ts);
    }
    return 0;
}

static int allreduce_ring_segmented(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    size_t ts = c->type_size;
    int64_t count = c->count;
    int64_t segcount = segcount_of(a->segsize, ts, count);
    if (count < n * segcount) return allreduce_ring(c, a, o);
    int64_t phases = count / (n * segcount);
    if ((count % (n * segcount) >= n) && (count % (n * segcount) > ((n * segcount) / 2))) phases++;
    int64_t split, early, late;
    blockcount(count, n, &split, &early, &late);
    for (int r = 0; r < n; r++) {
        int to = (r + 1) % n;
        for (int64_t ph = 0; ph < phases; ph++) {
            for (int k = 1; k < n; k++) {
                int blk = k == 1 ? r : (r + n - k + 1) % n;
                int64_t bc = block_of(blk, split, early, late), psplit, pe, pl;
                blockcount(bc, phases, &psplit, &pe, &pl);
                EMIT(o, r, to, (ph < psplit ? pe : pl) * ts);
            }
        }
        for (int k = 0; k < n - 1; k++) EMIT(o, r, to, block_of((r + 1 + n - k) % n, split, early, late) * ts);
    }
    return 0;
}

/* ompi_coll_base_allreduce_intra_redscat_allgather (Rabenseifner) */
static int allreduce_redscat_allgather(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    int64_t count = c->count;
    size_t ts = c->type_size;
    int pof2 = flp2(n), nsteps = ilog2(pof2);
    if (count < pof2 || !c->commutative) return allreduce_linear(c, a, o);
    int rem = n - pof2;
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
    for (int rank = 0; rank < n; rank++) {
        int vrank;
        if (rank < 2 * rem) {
            int64_t lhalf = count / 2, rhalf = count - lhalf;
            if (rank % 2 != 0) {
                EMIT(o, rank, rank - 1, lhalf * ts);
                EMIT(o, rank, rank - 1, rhalf * ts);
                vrank = -1;
            } else {
                EMIT(o, rank, rank + 1, rhalf * ts);
                vrank = rank / 2;
            }
        } else {
            vrank = rank - rem;
        }
        if (vrank != -1) {
            int step = 0;
            int64_t wsize = count;
            sindex[0] = rindex[0] = 0;
            for (int mask = 1; mask < pof2; mask <<= 1) {
                int vdest = vrank ^ mask;
                int dest = vdest < rem ? vdest * 2 : vdest + rem;
                if (rank < dest) {
                    rcount[step] = wsize / 2;
                    scount[step] = wsize - rcount[step];
                    sindex[step] = rindex[step] + rcount[step];
                } else {
                    scount[step] = wsize / 2;
                    rcount[step] = wsize - scount[step];
                    rindex[step] = sindex[step] + scount[step];
                }
                EMIT(o, rank, dest, scount[step] * ts);
                if (step + 1 < nsteps) {
                    rindex[step + 1] = rindex[step];
                    sindex[step + 1] = rindex[step];
                    wsize = rcount[step];
                    step++;
                }
            }
            step = nsteps - 1;
            for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
                int vdest = vrank ^ mask;
                int dest = vdest < rem ? vdest * 2 : vdest + rem;
                EMIT(o, rank, dest, rcount[step] * ts);
                step--;
            }
        }
        if (rank < 2 * rem && rank % 2 == 0) EMIT(o, rank, rank + 1, count * ts);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Alltoall */

static int alltoall_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    /* linear, pairwise and linear_sync send the same set: one block to every other rank */
    for (int r = 0; r < c->size; r++)
        for (int d = 0; d < c->size; d++)
            if (d != r) EMIT(o, r, d, c->count * c->type_size);
    return 0;
}

static int alltoall_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int64_t k = 0;
            for (int i = 1; i < n; i++)
                if ((i & d) == d) k++;
            EMIT(o, r, (r + d) % n, k * c->count * c->type_size);
        }
    return 0;
}

static int two_proc(const compi_map_call *c, compi_map_msgs *o, uint64_t bytes)
{
    if (c->size != 2) return COMPI_MAP_EUNSUPP;
    EMIT(o, 0, 1, bytes);
    EMIT(o, 1, 0, bytes);
    return 0;
}
static int alltoall_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return two_proc(c, o, c->count * c->type_size);
}

/* ------------------------------------------------------------------ */
/* Allgather */

static int allgather_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    s.coll = COMPI_MAP_GATHER;
    int ret = decide_and_run(&s, o);
    if (ret) return ret;
    s.coll = COMPI_MAP_BCAST;
    s.count = c->count * c->size;
    return decide_and_run(&s, o);
}

static int allgather_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int64_t blocks = d <= (n >> 1) ? d : n - d;
            EMIT(o, r, (r - d + n) % n, blocks * c->count * c->type_size);
        }
    return 0;
}

static int allgather_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (flp2(n) != n) return allgather_bruck(c, a, o);
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) EMIT(o, r, r ^ d, (int64_t)d * c->count * c->type_size);
    return 0;
}

static int allgather_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        for (int i = 0; i < c->size - 1; i++) EMIT(o, r, (r + 1) % c->size, c->count * c->type_size);
    return 0;
}

static int allgather_neighborexchange(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (n % 2) return allgather_ring(c, a, o);
    for (int r = 0; r < n; r++) {
        int nb[2];
        if (r % 2 == 0) {
            nb[0] = (r + 1) % n;
            nb[1] = (r - 1 + n) % n;
        } else {
            nb[0] = (r - 1 + n) % n;
            nb[1] = (r + 1) % n;
        }
        EMIT(o, r, nb[0], c->count * c->type_size);
        for (int i = 1; i < n / 2; i++) EMIT(o, r, nb[i % 2], 2 * c->count * c->type_size);
    }
    return 0;
}

static int allgather_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return two_proc(c, o, c->count * c->type_size);
}

/* ------------------------------------------------------------------ */
/* Gather, Scatter */

static int gather_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_linear(c, o);
}

/* in-order binomial tree: each rank's subtree goes to its parent in one message */
static int subtree(int n, int vrank)
{
    int low = vrank & -vrank;
    return low < n - vrank ? low : n - vrank;
}
static int gather_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int v = 1; v < n; v++) {
        int parent = v - (v & -v);
        EMIT(o, (v + c->root) % n, (parent + c->root) % n, (int64_t)subtree(n, v) * c->count * c->type_size);
    }
    return 0;
}
/* root asks each rank with a zero-byte message; the rank answers in two parts */
static int gather_linear_sync(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int64_t first = segcount_of(a->segsize, c->type_size, c->count);
    for (int i = 0; i < c->size; i++) {
        if (i == c->root) continue;
        EMIT(o, c->root, i, 0);
        EMIT(o, i, c->root, first * c->type_size);
        EMIT(o, i, c->root, (c->count - first) * c->type_size);
    }
    return 0;
}

static int scatter_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return bcast_linear(c, o);
}
static int scatter_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int v = 1; v < n; v++) {
        int parent = v - (v & -v);
        EMIT(o, (parent + c->root) % n, (v + c->root) % n, (int64_t)subtree(n, v) * c->count * c->type_size);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Reduce_scatter (counts[i]: elements of rank i's block) */

static int rs_total(const compi_map_call *c, int64_t *total)
{
    *total = 0;
    for (int i = 0; i < c->size; i++) {
        if (c->counts[i] < 0) return COMPI_MAP_EARG;
        *total += c->counts[i];
    }
    return 0;
}

/* reduce of the whole vector to 0 (fixed rules), then coll/basic's linear scatterv */
static int rs_nonoverlapping(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    int ret = rs_total(c, &s.count);
    if (ret) return ret;
    s.coll = COMPI_MAP_REDUCE;
    s.root = 0;
    s.counts = NULL;
    if ((ret = decide_and_run(&s, o))) return ret;
    for (int i = 1; i < c->size; i++)
        if (c->counts[i] > 0) EMIT(o, 0, i, c->counts[i] * c->type_size);
    return 0;
}

static int rs_recursivehalving(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    size_t ts = c->type_size;
    int64_t count;
    int ret = rs_total(c, &count);
    if (ret) return ret;
    if (count == 0) return 0;
    int tmp_size = next_pow2(n) >> 1, remain = n - tmp_size;
    int64_t *tc = malloc(tmp_size * sizeof *tc);
    if (!tc) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < tmp_size; i++) tc[i] = i < remain ? c->counts[2 * i + 1] + c->counts[2 * i] : c->counts[i + remain];
    for (int rank = 0; rank < n && !ret; rank++) {
        int tmp_rank;
        if (rank < 2 * remain) {
            if ((rank & 1) == 0) {
                ret = emit(o, rank, rank + 1, count * ts);
                tmp_rank = -1;
            } else {
                tmp_rank = rank / 2;
            }
        } else {
            tmp_rank = rank - remain;
        }
        if (tmp_rank >= 0) {
            int send_index = 0, recv_index = 0, last_index = tmp_size;
            for (int mask = tmp_size >> 1; mask > 0 && !ret; mask >>= 1) {
                int tmp_peer = tmp_rank ^ mask;
                int peer = tmp_peer < remain ? tmp_peer * 2 + 1 : tmp_peer + remain;
                int64_t send_count = 0;
                if (tmp_rank < tmp_peer) {
                    send_index = recv_index + mask;
                    for (int i = send_index; i < last_index; i++) send_count += tc[i];
                } else {
                    recv_index = send_index + mask;
                    for (int i = send_index; i < recv_index; i++) send_count += tc[i];
                }
                if (send_count > 0) ret = emit(o, rank, peer, send_count * ts);
                send_index = recv_index;
                last_index = recv_index + mask;
            }
        }
        if (!ret && rank < 2 * remain && (rank & 1) && c->counts[rank - 1])
            ret = emit(o, rank, rank - 1, c->counts[rank - 1] * ts);
    }
    free(tc);
    return ret;
}

static int rs_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++) {
        int to = (r + 1) % n;
        EMIT(o, r, to, c->counts[(r + n - 1) % n] * c->type_size);
        for (int k = 2; k < n; k++) EMIT(o, r, to, c->counts[(r + n - k) % n] * c->type_size);
    }
    return 0;
}

static int64_t rs_sum(const int64_t *counts, const int64_t *displs, int rem, int lo, int hi)
{
    lo = lo < rem ? lo * 2 : lo + rem;
    hi = hi < rem ? hi * 2 + 1 : hi + rem;
    return displs[hi] + counts[hi] - displs[lo];
}

static int rs_butterfly(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    size_t ts = c->type_size;
    const int64_t *counts = c->counts;
    int64_t *displs = malloc(n * sizeof *displs);
    if (!displs) return COMPI_MAP_ENOMEM;
    displs[0] = 0;
    for (int i = 1; i < n; i++) displs[i] = displs[i - 1] + counts[i - 1];
    int64_t total = displs[n - 1] + counts[n - 1];
    int pof2 = next_pow2(n) >> 1, rem = n - pof2, log2_size = ilog2(pof2);
    int ret = 0;
    for (int rank = 0; rank < n && !ret; rank++) {
        int vrank;
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                ret = emit(o, rank, rank + 1, total * ts);
                vrank = -1;
            } else {
                vrank = rank / 2;
            }
        } else {
            vrank = rank - rem;
        }
        if (ret || vrank == -1) continue;
        int nblocks = pof2, send_index = 0, recv_index = 0;
        for (int mask = 1; mask < pof2 && !ret; mask <<= 1) {
            int vpeer = vrank ^ mask;
            int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
            nblocks /= 2;
            if ((vrank & mask) == 0) send_index += nblocks;
            else recv_index += nblocks;
            ret = emit(o, rank, peer, rs_sum(counts, displs, rem, send_index, send_index + nblocks - 1) * ts);
            send_index = recv_index;
        }
        if (ret) break;
        int vpeer = (int)mirror_perm(vrank, log2_size);
        int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
        int index = send_index < rem ? 2 * send_index : rem + send_index;
        if (vpeer < rem) {
            if ((ret = emit(o, rank, peer - 1, counts[index] * ts))) break;
            index++;
        }
        if (vpeer != vrank) ret = emit(o, rank, peer, counts[index] * ts);
    }
    free(displs);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Barrier: zero-byte messages only */

static int barrier_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 1; i < c->size; i++) {
        EMIT(o, i, 0, 0);
        EMIT(o, 0, i, 0);
    }
    return 0;
}
static int barrier_doublering(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++) {
        EMIT(o, r, (r + 1) % c->size, 0);
        EMIT(o, r, (r + 1) % c->size, 0);
    }
    return 0;
}
static int barrier_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, adj = next_pow2(n) >> 1;
    for (int r = 0; r < n; r++) {
        if (adj != n && r >= adj) EMIT(o, r, r - adj, 0);
        if (r < adj)
            for (int mask = 1; mask < adj; mask <<= 1)
                if ((r ^ mask) < adj) EMIT(o, r, r ^ mask, 0);
        if (adj != n && r < n - adj) EMIT(o, r, r + adj, 0);
    }
    return 0;
}
static int barrier_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        for (int d = 1; d < c->size; d <<= 1) EMIT(o, r, (r + d) % c->size, 0);
    return 0;
}
static int barrier_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return two_proc(c, o, 0);
}
static int barrier_tree(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size, depth = next_pow2_incl(n);
    for (int r = 0; r < n; r++) {
        for (int jump = 1; jump < depth; jump <<= 1) {
            int p = r ^ jump;
            if (!(p & (jump - 1)) && p < n && p < r) EMIT(o, r, p, 0);
        }
        for (int jump = depth >> 1; jump > 0; jump >>= 1) {
            int p = r ^ jump;
            if (!(p & (jump - 1)) && p < n && p > r) EMIT(o, r, p, 0);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* v variants */

/* coll/basic's linear Gatherv / Scatterv: one message per non-empty block */
static int gatherv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root && c->counts[i] > 0) EMIT(o, i, c->root, c->counts[i] * c->type_size);
    return 0;
}
static int scatterv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root && c->counts[i] > 0) EMIT(o, c->root, i, c->counts[i] * c->type_size);
    return 0;
}

/* basic_linear and pairwise: every ordered pair, empty blocks included */
static int alltoallv_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++)
            if (s != d) EMIT(o, s, d, c->counts[(size_t)s * n + d] * c->type_size);
    return 0;
}

/* Gatherv to 0, then a bcast of one element of an indexed type holding all
 * blocks (so the fixed rules see the whole vector as one element) */
static int allgatherv_default(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    int ret = gatherv_linear(&s, a, o);
    if (ret) return ret;
    uint64_t total = 0;
    for (int i = 0; i < c->size; i++) total += c->counts[i] * c->type_size;
    if (total == 0) return 0;
    s.coll = COMPI_MAP_BCAST;
    s.count = 1;
    s.type_size = total;
    s.counts = NULL;
    return decide_and_run(&s, o);
}

static int allgatherv_bruck(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 1; d < n; d <<= 1) {
            int blocks = d <= (n >> 1) ? d : n - d;
            int64_t e = 0;
            for (int i = 0; i < blocks; i++) e += c->counts[(r + i) % n];
            EMIT(o, r, (r - d + n) % n, e * c->type_size);
        }
    return 0;
}

static int allgatherv_ring(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < n - 1; i++) EMIT(o, r, (r + 1) % n, c->counts[(r - i + n) % n] * c->type_size);
    return 0;
}

static int allgatherv_neighborexchange(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    if (n % 2) return allgatherv_ring(c, a, o);
    for (int r = 0; r < n; r++) {
        int nb[2], rdf[2], off[2], sdf;
        if (r % 2 == 0) {
            nb[0] = (r + 1) % n;
            nb[1] = (r - 1 + n) % n;
            rdf[0] = rdf[1] = r;
            off[0] = 2;
            off[1] = -2;
        } else {
            nb[0] = (r - 1 + n) % n;
            nb[1] = (r + 1) % n;
            rdf[0] = rdf[1] = nb[0];
            off[0] = -2;
            off[1] = 2;
        }
        EMIT(o, r, nb[0], c->counts[r] * c->type_size);
        sdf = r % 2 == 0 ? r : rdf[0];
        for (int i = 1; i < n / 2; i++) {
            int p = i % 2;
            rdf[p] = (rdf[p] + off[p] + n) % n;
            EMIT(o, r, nb[p], (c->counts[sdf] + c->counts[sdf + 1]) * c->type_size);
            sdf = rdf[p];
        }
    }
    return 0;
}

static int allgatherv_two_proc(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    if (c->size != 2) return COMPI_MAP_EUNSUPP;
    EMIT(o, 0, 1, c->counts[0] * c->type_size);
    EMIT(o, 1, 0, c->counts[1] * c->type_size);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The algorithm table: one row per (collective, algorithm id) of
 * coll_tuned_<coll>_algorithm, named as Open MPI names them. */

typedef int (*decomp_fn)(const compi_map_call *, const compi_map_alg *, compi_map_msgs *);
typedef struct {
    compi_map_coll coll;
    int alg;
    const char *name;
    decomp_fn fn;
} alg_row;

static const alg_row algs[] = {
    {COMPI_MAP_BCAST, 1, "basic_linear", bcast_linear_alg},
    {COMPI_MAP_BCAST, 2, "chain", bcast_chain},
    {COMPI_MAP_BCAST, 3, "pipeline", bcast_pipeline},
    {COMPI_MAP_BCAST, 4, "split_binary_tree", bcast_split_bintree},
    {COMPI_MAP_BCAST, 5, "binary_tree", bcast_bintree},
    {COMPI_MAP_BCAST, 6, "binomial", bcast_binomial},
    {COMPI_MAP_BCAST, 7, "knomial", bcast_knomial},
    {COMPI_MAP_BCAST, 8, "scatter_allgather", bcast_scatter_allgather},
    {COMPI_MAP_BCAST, 9, "scatter_allgather_ring", bcast_scatter_allgather_ring},
    {COMPI_MAP_REDUCE, 1, "linear", reduce_linear_alg},
    {COMPI_MAP_REDUCE, 2, "chain", reduce_chain},
    {COMPI_MAP_REDUCE, 3, "pipeline", reduce_pipeline},
    {COMPI_MAP_REDUCE, 4, "binary", reduce_binary},
    {COMPI_MAP_REDUCE, 5, "binomial", reduce_binomial},
    {COMPI_MAP_REDUCE, 6, "in-order_binary", reduce_in_order_binary},
    {COMPI_MAP_REDUCE, 7, "rabenseifner", reduce_redscat_gather},
    {COMPI_MAP_ALLREDUCE, 1, "basic_linear", allreduce_linear},
    {COMPI_MAP_ALLREDUCE, 2, "nonoverlapping", allreduce_nonoverlapping},
    {COMPI_MAP_ALLREDUCE, 3, "recursive_doubling", allreduce_recursivedoubling},
    {COMPI_MAP_ALLREDUCE, 4, "ring", allreduce_ring},
    {COMPI_MAP_ALLREDUCE, 5, "segmented_ring", allreduce_ring_segmented},
    {COMPI_MAP_ALLREDUCE, 6, "rabenseifner", allreduce_redscat_allgather},
    {COMPI_MAP_ALLTOALL, 1, "linear", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 2, "pairwise", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 3, "modified_bruck", alltoall_bruck},
    {COMPI_MAP_ALLTOALL, 4, "linear_sync", alltoall_linear},
    {COMPI_MAP_ALLTOALL, 5, "two_proc", alltoall_two_proc},
    {COMPI_MAP_ALLGATHER, 1, "linear", allgather_linear},
    {COMPI_MAP_ALLGATHER, 2, "bruck", allgather_bruck},
    {COMPI_MAP_ALLGATHER, 3, "recursive_doubling", allgather_recursivedoubling},
    {COMPI_MAP_ALLGATHER, 4, "ring", allgather_ring},
    {COMPI_MAP_ALLGATHER, 5, "neighbor", allgather_neighborexchange},
    {COMPI_MAP_ALLGATHER, 6, "two_proc", allgather_two_proc},
    {COMPI_MAP_GATHER, 1, "basic_linear", gather_linear},
    {COMPI_MAP_GATHER, 2, "binomial", gather_binomial},
    {COMPI_MAP_GATHER, 3, "linear_sync", gather_linear_sync},
    {COMPI_MAP_SCATTER, 1, "basic_linear", scatter_linear},
    {COMPI_MAP_SCATTER, 2, "binomial", scatter_binomial},
    {COMPI_MAP_SCATTER, 3, "linear_nb", scatter_linear},
    {COMPI_MAP_REDUCE_SCATTER, 1, "non-overlapping", rs_nonoverlapping},
    {COMPI_MAP_REDUCE_SCATTER, 2, "recursive_halving", rs_recursivehalving},
    {COMPI_MAP_REDUCE_SCATTER, 3, "ring", rs_ring},
    {COMPI_MAP_REDUCE_SCATTER, 4, "butterfly", rs_butterfly},
    {COMPI_MAP_BARRIER, 1, "linear", barrier_linear},
    {COMPI_MAP_BARRIER, 2, "double_ring", barrier_doublering},
    {COMPI_MAP_BARRIER, 3, "recursive_doubling", barrier_recursivedoubling},
    {COMPI_MAP_BARRIER, 4, "bruck", barrier_bruck},
    {COMPI_MAP_BARRIER, 5, "two_proc", barrier_two_proc},
    {COMPI_MAP_BARRIER, 6, "tree", barrier_tree},
    {COMPI_MAP_ALLTOALLV, 1, "basic_linear", alltoallv_linear},
    {COMPI_MAP_ALLTOALLV, 2, "pairwise", alltoallv_linear},
    {COMPI_MAP_ALLGATHERV, 1, "default", allgatherv_default},
    {COMPI_MAP_ALLGATHERV, 2, "bruck", allgatherv_bruck},
    {COMPI_MAP_ALLGATHERV, 3, "ring", allgatherv_ring},
    {COMPI_MAP_ALLGATHERV, 4, "neighbor", allgatherv_neighborexchange},
    {COMPI_MAP_ALLGATHERV, 5, "two_proc", allgatherv_two_proc},
    /* coll/tuned has none: coll/basic's linear algorithm, no decision */
    {COMPI_MAP_GATHERV, 1, "basic_linear", gatherv_linear},
    {COMPI_MAP_SCATTERV, 1, "basic_linear", scatterv_linear},
    /* known ids whose decomposition is not written yet */
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 1, "basic_linear", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 2, "recursive_doubling", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 3, "recursive_halving", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 4, "butterfly", NULL},
};
#define NALGS ((int)(sizeof algs / sizeof algs[0]))

static const alg_row *find_alg(compi_map_coll coll, int alg)
{
    for (int i = 0; i < NALGS; i++)
        if (algs[i].coll == coll && algs[i].alg == alg) return &algs[i];
    return NULL;
}

int compi_map_ompi41_nalgs(compi_map_coll coll)
{
    int n = 0;
    for (int i = 0; i < NALGS; i++)
        if (algs[i].coll == coll && algs[i].alg > n) n = algs[i].alg;
    return n;
}

const char *compi_map_ompi41_alg_name(compi_map_coll coll, int alg)
{
    const alg_row *r = find_alg(coll, alg);
    return r ? r->name : NULL;
}

/* ------------------------------------------------------------------ */
/* The fixed decision rules (coll_tuned_decision_fixed.c of v4.1.x),
 * transcribed mechanically into rows. Rows of one collective are read in
 * order: the first row whose communicator-size band holds the call opens
 * the band; inside it the first row whose size bound exceeds the message
 * size gives the algorithm. commute: 0 rules for non-commutative ops, 1 for
 * commutative ones, -1 both. size_lt: band is size < size_lt (EQ2: size ==
 * 2, ANY: the rest). bytes_lt: message size < bytes_lt (ANY: the rest).
 * Message size: count x type size (per peer for alltoall, per block for
 * allgather, gather, scatter; the whole vector for reduce_scatter; the
 * mean block for allgatherv). */
#define EQ2 (-2)
#define ANY INT64_MAX
typedef struct {
    compi_map_coll coll;
    int commute;
    int64_t size_lt;
    int64_t bytes_lt;
    int alg;
} dec_row;

static const dec_row dec_rows[] = {
    {COMPI_MAP_ALLREDUCE,  0,     4,   131072, 3},
    {COMPI_MAP_ALLREDUCE,  0,     4,      ANY, 1},
    {COMPI_MAP_ALLREDUCE,  0,     8,      ANY, 3},
    {COMPI_MAP_ALLREDUCE,  0,    16,  1048576, 3},
    {COMPI_MAP_ALLREDUCE,  0,    16,      ANY, 2},
    {COMPI_MAP_ALLREDUCE,  0,   128,      ANY, 3},
    {COMPI_MAP_ALLREDUCE,  0,   256,   131072, 2},
    {COMPI_MAP_ALLREDUCE,  0,   256,   524288, 3},
    {COMPI_MAP_ALLREDUCE,  0,   256,      ANY, 2},
    {COMPI_MAP_ALLREDUCE,  0,   512,     4096, 2},
    {COMPI_MAP_ALLREDUCE,  0,   512,   524288, 3},
    {COMPI_MAP_ALLREDUCE,  0,   512,      ANY, 2},
    {COMPI_MAP_ALLREDUCE,  0,   ANY,     2048, 2},
    {COMPI_MAP_ALLREDUCE,  0,   ANY,      ANY, 3},
    {COMPI_MAP_ALLREDUCE,  1,     4,        8, 4},
    {COMPI_MAP_ALLREDUCE,  1,     4,     4096, 3},
    {COMPI_MAP_ALLREDUCE,  1,     4,     8192, 4},
    {COMPI_MAP_ALLREDUCE,  1,     4,    16384, 3},
    {COMPI_MAP_ALLREDUCE,  1,     4,    65536, 4},
    {COMPI_MAP_ALLREDUCE,  1,     4,   262144, 5},
    {COMPI_MAP_ALLREDUCE,  1,     4,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,     8,       16, 4},
    {COMPI_MAP_ALLREDUCE,  1,     8,     8192, 3},
    {COMPI_MAP_ALLREDUCE,  1,     8,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,    16,     8192, 3},
    {COMPI_MAP_ALLREDUCE,  1,    16,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,    32,       64, 5},
    {COMPI_MAP_ALLREDUCE,  1,    32,     4096, 3},
    {COMPI_MAP_ALLREDUCE,  1,    32,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,    64,      128, 5},
    {COMPI_MAP_ALLREDUCE,  1,    64,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,   128,   262144, 3},
    {COMPI_MAP_ALLREDUCE,  1,   128,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,   256,   131072, 2},
    {COMPI_MAP_ALLREDUCE,  1,   256,   262144, 3},
    {COMPI_MAP_ALLREDUCE,  1,   256,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,   512,     4096, 2},
    {COMPI_MAP_ALLREDUCE,  1,   512,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,  2048,     2048, 2},
    {COMPI_MAP_ALLREDUCE,  1,  2048,    16384, 3},
    {COMPI_MAP_ALLREDUCE,  1,  2048,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,  4096,     2048, 2},
    {COMPI_MAP_ALLREDUCE,  1,  4096,     4096, 5},
    {COMPI_MAP_ALLREDUCE,  1,  4096,    16384, 3},
    {COMPI_MAP_ALLREDUCE,  1,  4096,      ANY, 6},
    {COMPI_MAP_ALLREDUCE,  1,   ANY,     2048, 2},
    {COMPI_MAP_ALLREDUCE,  1,   ANY,    16384, 5},
    {COMPI_MAP_ALLREDUCE,  1,   ANY,    32768, 3},
    {COMPI_MAP_ALLREDUCE,  1,   ANY,      ANY, 6},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,        2, 2},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,        4, 5},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,       16, 2},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,       64, 5},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,      256, 2},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,     4096, 5},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,    32768, 2},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,   262144, 4},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,  1048576, 5},
    {COMPI_MAP_ALLTOALL, -1,   EQ2,      ANY, 2},
    {COMPI_MAP_ALLTOALL, -1,     8,     8192, 4},
    {COMPI_MAP_ALLTOALL, -1,     8,    16384, 1},
    {COMPI_MAP_ALLTOALL, -1,     8,    65536, 4},
    {COMPI_MAP_ALLTOALL, -1,     8,   524288, 1},
    {COMPI_MAP_ALLTOALL, -1,     8,  1048576, 2},
    {COMPI_MAP_ALLTOALL, -1,     8,      ANY, 1},
    {COMPI_MAP_ALLTOALL, -1,    16,   262144, 4},
    {COMPI_MAP_ALLTOALL, -1,    16,      ANY, 1},
    {COMPI_MAP_ALLTOALL, -1,    32,        4, 4},
    {COMPI_MAP_ALLTOALL, -1,    32,      512, 3},
    {COMPI_MAP_ALLTOALL, -1,    32,     8192, 4},
    {COMPI_MAP_ALLTOALL, -1,    32,    32768, 1},
    {COMPI_MAP_ALLTOALL, -1,    32,   262144, 4},
    {COMPI_MAP_ALLTOALL, -1,    32,   524288, 1},
    {COMPI_MAP_ALLTOALL, -1,    32,      ANY, 4},
    {COMPI_MAP_ALLTOALL, -1,    64,      512, 3},
    {COMPI_MAP_ALLTOALL, -1,    64,   524288, 1},
    {COMPI_MAP_ALLTOALL, -1,    64,      ANY, 4},
    {COMPI_MAP_ALLTOALL, -1,   128,     1024, 3},
    {COMPI_MAP_ALLTOALL, -1,   128,     2048, 1},
    {COMPI_MAP_ALLTOALL, -1,   128,     4096, 4},
    {COMPI_MAP_ALLTOALL, -1,   128,   262144, 1},
    {COMPI_MAP_ALLTOALL, -1,   128,      ANY, 2},
    {COMPI_MAP_ALLTOALL, -1,   256,     1024, 3},
    {COMPI_MAP_ALLTOALL, -1,   256,     2048, 4},
    {COMPI_MAP_ALLTOALL, -1,   256,   262144, 1},
    {COMPI_MAP_ALLTOALL, -1,   256,      ANY, 2},
    {COMPI_MAP_ALLTOALL, -1,   512,     1024, 3},
    {COMPI_MAP_ALLTOALL, -1,   512,     8192, 4},
    {COMPI_MAP_ALLTOALL, -1,   512,    32768, 1},
    {COMPI_MAP_ALLTOALL, -1,   512,      ANY, 2},
    {COMPI_MAP_ALLTOALL, -1,  1024,      512, 3},
    {COMPI_MAP_ALLTOALL, -1,  1024,     8192, 4},
    {COMPI_MAP_ALLTOALL, -1,  1024,    16384, 1},
    {COMPI_MAP_ALLTOALL, -1,  1024,   131072, 4},
    {COMPI_MAP_ALLTOALL, -1,  1024,   262144, 1},
    {COMPI_MAP_ALLTOALL, -1,  1024,      ANY, 2},
    {COMPI_MAP_ALLTOALL, -1,  2048,      512, 3},
    {COMPI_MAP_ALLTOALL, -1,  2048,     1024, 4},
    {COMPI_MAP_ALLTOALL, -1,  2048,     2048, 1},
    {COMPI_MAP_ALLTOALL, -1,  2048,    16384, 4},
    {COMPI_MAP_ALLTOALL, -1,  2048,   262144, 1},
    {COMPI_MAP_ALLTOALL, -1,  2048,      ANY, 4},
    {COMPI_MAP_ALLTOALL, -1,  4096,     1024, 3},
    {COMPI_MAP_ALLTOALL, -1,  4096,     4096, 4},
    {COMPI_MAP_ALLTOALL, -1,  4096,     8192, 1},
    {COMPI_MAP_ALLTOALL, -1,  4096,   131072, 4},
    {COMPI_MAP_ALLTOALL, -1,  4096,      ANY, 1},
    {COMPI_MAP_ALLTOALL, -1,   ANY,     2048, 3},
    {COMPI_MAP_ALLTOALL, -1,   ANY,     8192, 4},
    {COMPI_MAP_ALLTOALL, -1,   ANY,    16384, 1},
    {COMPI_MAP_ALLTOALL, -1,   ANY,    32768, 4},
    {COMPI_MAP_ALLTOALL, -1,   ANY,    65536, 1},
    {COMPI_MAP_ALLTOALL, -1,   ANY,      ANY, 4},
    {COMPI_MAP_ALLTOALLV, -1,     4,      ANY, 2},
    {COMPI_MAP_ALLTOALLV, -1,    64,      ANY, 1},
    {COMPI_MAP_ALLTOALLV, -1,   128,      ANY, 2},
    {COMPI_MAP_ALLTOALLV, -1,   256,      ANY, 1},
    {COMPI_MAP_ALLTOALLV, -1,  1024,      ANY, 2},
    {COMPI_MAP_ALLTOALLV, -1,   ANY,      ANY, 1},
    {COMPI_MAP_BARRIER, -1,     4,      ANY, 3},
    {COMPI_MAP_BARRIER, -1,     8,      ANY, 1},
    {COMPI_MAP_BARRIER, -1,    64,      ANY, 3},
    {COMPI_MAP_BARRIER, -1,   256,      ANY, 4},
    {COMPI_MAP_BARRIER, -1,   512,      ANY, 6},
    {COMPI_MAP_BARRIER, -1,  1024,      ANY, 4},
    {COMPI_MAP_BARRIER, -1,  4096,      ANY, 6},
    {COMPI_MAP_BARRIER, -1,   ANY,      ANY, 4},
    {COMPI_MAP_BCAST, -1,     4,       32, 3},
    {COMPI_MAP_BCAST, -1,     4,      256, 5},
    {COMPI_MAP_BCAST, -1,     4,      512, 3},
    {COMPI_MAP_BCAST, -1,     4,     1024, 7},
    {COMPI_MAP_BCAST, -1,     4,    32768, 1},
    {COMPI_MAP_BCAST, -1,     4,   131072, 5},
    {COMPI_MAP_BCAST, -1,     4,   262144, 2},
    {COMPI_MAP_BCAST, -1,     4,   524288, 1},
    {COMPI_MAP_BCAST, -1,     4,  1048576, 6},
    {COMPI_MAP_BCAST, -1,     4,      ANY, 5},
    {COMPI_MAP_BCAST, -1,     8,       64, 5},
    {COMPI_MAP_BCAST, -1,     8,      128, 6},
    {COMPI_MAP_BCAST, -1,     8,     2048, 5},
    {COMPI_MAP_BCAST, -1,     8,     8192, 6},
    {COMPI_MAP_BCAST, -1,     8,  1048576, 1},
    {COMPI_MAP_BCAST, -1,     8,      ANY, 2},
    {COMPI_MAP_BCAST, -1,    16,        8, 7},
    {COMPI_MAP_BCAST, -1,    16,       64, 5},
    {COMPI_MAP_BCAST, -1,    16,     4096, 7},
    {COMPI_MAP_BCAST, -1,    16,    16384, 5},
    {COMPI_MAP_BCAST, -1,    16,    32768, 6},
    {COMPI_MAP_BCAST, -1,    16,      ANY, 1},
    {COMPI_MAP_BCAST, -1,    32,     4096, 7},
    {COMPI_MAP_BCAST, -1,    32,  1048576, 6},
    {COMPI_MAP_BCAST, -1,    32,      ANY, 8},
    {COMPI_MAP_BCAST, -1,    64,     2048, 6},
    {COMPI_MAP_BCAST, -1,    64,      ANY, 7},
    {COMPI_MAP_BCAST, -1,   128,      ANY, 7},
    {COMPI_MAP_BCAST, -1,   256,        2, 6},
    {COMPI_MAP_BCAST, -1,   256,    16384, 5},
    {COMPI_MAP_BCAST, -1,   256,    32768, 1},
    {COMPI_MAP_BCAST, -1,   256,    65536, 5},
    {COMPI_MAP_BCAST, -1,   256,      ANY, 7},
    {COMPI_MAP_BCAST, -1,  1024,    16384, 7},
    {COMPI_MAP_BCAST, -1,  1024,    32768, 4},
    {COMPI_MAP_BCAST, -1,  1024,      ANY, 7},
    {COMPI_MAP_BCAST, -1,  2048,   524288, 7},
    {COMPI_MAP_BCAST, -1,  2048,      ANY, 8},
    {COMPI_MAP_BCAST, -1,  4096,   262144, 7},
    {COMPI_MAP_BCAST, -1,  4096,      ANY, 8},
    {COMPI_MAP_BCAST, -1,   ANY,     8192, 7},
    {COMPI_MAP_BCAST, -1,   ANY,    16384, 5},
    {COMPI_MAP_BCAST, -1,   ANY,   262144, 7},
    {COMPI_MAP_BCAST, -1,   ANY,      ANY, 8},
    {COMPI_MAP_REDUCE,  0,     4,        8, 6},
    {COMPI_MAP_REDUCE,  0,     4,      ANY, 1},
    {COMPI_MAP_REDUCE,  0,     8,      ANY, 1},
    {COMPI_MAP_REDUCE,  0,    16,     1024, 6},
    {COMPI_MAP_REDUCE,  0,    16,     8192, 1},
    {COMPI_MAP_REDUCE,  0,    16,    16384, 6},
    {COMPI_MAP_REDUCE,  0,    16,   262144, 1},
    {COMPI_MAP_REDUCE,  0,    16,      ANY, 6},
    {COMPI_MAP_REDUCE,  0,   128,      ANY, 6},
    {COMPI_MAP_REDUCE,  0,   256,      512, 6},
    {COMPI_MAP_REDUCE,  0,   256,     1024, 1},
    {COMPI_MAP_REDUCE,  0,   256,      ANY, 6},
    {COMPI_MAP_REDUCE,  0,   ANY,      ANY, 6},
    {COMPI_MAP_REDUCE,  1,     4,        8, 7},
    {COMPI_MAP_REDUCE,  1,     4,       16, 4},
    {COMPI_MAP_REDUCE,  1,     4,       32, 3},
    {COMPI_MAP_REDUCE,  1,     4,   262144, 1},
    {COMPI_MAP_REDUCE,  1,     4,   524288, 3},
    {COMPI_MAP_REDUCE,  1,     4,  1048576, 2},
    {COMPI_MAP_REDUCE,  1,     4,      ANY, 3},
    {COMPI_MAP_REDUCE,  1,     8,     4096, 4},
    {COMPI_MAP_REDUCE,  1,     8,    65536, 2},
    {COMPI_MAP_REDUCE,  1,     8,   262144, 5},
    {COMPI_MAP_REDUCE,  1,     8,   524288, 1},
    {COMPI_MAP_REDUCE,  1,     8,  1048576, 5},
    {COMPI_MAP_REDUCE,  1,     8,      ANY, 1},
    {COMPI_MAP_REDUCE,  1,    16,     8192, 4},
    {COMPI_MAP_REDUCE,  1,    16,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,    32,     4096, 4},
    {COMPI_MAP_REDUCE,  1,    32,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,   256,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,   512,     8192, 5},
    {COMPI_MAP_REDUCE,  1,   512,    16384, 6},
    {COMPI_MAP_REDUCE,  1,   512,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,  2048,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,  4096,      512, 5},
    {COMPI_MAP_REDUCE,  1,  4096,     1024, 6},
    {COMPI_MAP_REDUCE,  1,  4096,     8192, 5},
    {COMPI_MAP_REDUCE,  1,  4096,    16384, 6},
    {COMPI_MAP_REDUCE,  1,  4096,      ANY, 5},
    {COMPI_MAP_REDUCE,  1,   ANY,       16, 5},
    {COMPI_MAP_REDUCE,  1,   ANY,       32, 6},
    {COMPI_MAP_REDUCE,  1,   ANY,     1024, 5},
    {COMPI_MAP_REDUCE,  1,   ANY,     2048, 6},
    {COMPI_MAP_REDUCE,  1,   ANY,     8192, 5},
    {COMPI_MAP_REDUCE,  1,   ANY,    16384, 6},
    {COMPI_MAP_REDUCE,  1,   ANY,      ANY, 5},
    {COMPI_MAP_REDUCE_SCATTER,  0,   ANY,      ANY, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,     4,    65536, 3},
    {COMPI_MAP_REDUCE_SCATTER,  1,     4,   131072, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,     4,      ANY, 3},
    {COMPI_MAP_REDUCE_SCATTER,  1,     8,        8, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,     8,   262144, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,     8,      ANY, 3},
    {COMPI_MAP_REDUCE_SCATTER,  1,    32,   262144, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,    32,      ANY, 3},
    {COMPI_MAP_REDUCE_SCATTER,  1,    64,       64, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,    64,     2048, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,    64,   524288, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,    64,      ANY, 3},
    {COMPI_MAP_REDUCE_SCATTER,  1,   128,      256, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,   128,      512, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,   128,     2048, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,   128,     4096, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,   128,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,   256,      256, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,   256,      512, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,   256,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,   512,      256, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,   512,     1024, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,   512,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,  1024,      512, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,  1024,     2048, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,  1024,     8192, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,  1024,    16384, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,  1024,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,  2048,      512, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,  2048,     4096, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,  2048,    16384, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,  2048,    32768, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,  2048,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,  4096,      512, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,  4096,     4096, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,  4096,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER,  1,   ANY,     1024, 1},
    {COMPI_MAP_REDUCE_SCATTER,  1,   ANY,     8192, 2},
    {COMPI_MAP_REDUCE_SCATTER,  1,   ANY,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  0,   ANY,      ANY, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,        4, 2},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,        8, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,       16, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,      128, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,      256, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,     4096, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,     8192, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,   131072, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     4,      ANY, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,        8, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,       32, 2},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,      256, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,     8192, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,    16384, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,  1048576, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,     8,      ANY, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,        4, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,       32, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,      128, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,   524288, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,  4194304, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    16,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    32,       32, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    32,   524288, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    32,  2097152, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    32,  4194304, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,    32,      ANY, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,   ANY,        4, 3},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,   ANY,       16, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,   ANY,    65536, 4},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,   ANY,   262144, 1},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK,  1,   ANY,      ANY, 4},
    {COMPI_MAP_ALLGATHER, -1,   EQ2,      ANY, 6},
    {COMPI_MAP_ALLGATHER, -1,    32,      ANY, 3},
    {COMPI_MAP_ALLGATHER, -1,    64,     1024, 3},
    {COMPI_MAP_ALLGATHER, -1,    64,    65536, 5},
    {COMPI_MAP_ALLGATHER, -1,    64,      ANY, 4},
    {COMPI_MAP_ALLGATHER, -1,   128,      512, 3},
    {COMPI_MAP_ALLGATHER, -1,   128,    65536, 5},
    {COMPI_MAP_ALLGATHER, -1,   128,      ANY, 4},
    {COMPI_MAP_ALLGATHER, -1,   256,      512, 3},
    {COMPI_MAP_ALLGATHER, -1,   256,   131072, 5},
    {COMPI_MAP_ALLGATHER, -1,   256,   524288, 4},
    {COMPI_MAP_ALLGATHER, -1,   256,  1048576, 5},
    {COMPI_MAP_ALLGATHER, -1,   256,      ANY, 4},
    {COMPI_MAP_ALLGATHER, -1,   512,       32, 3},
    {COMPI_MAP_ALLGATHER, -1,   512,      128, 2},
    {COMPI_MAP_ALLGATHER, -1,   512,     1024, 3},
    {COMPI_MAP_ALLGATHER, -1,   512,   131072, 5},
    {COMPI_MAP_ALLGATHER, -1,   512,   524288, 4},
    {COMPI_MAP_ALLGATHER, -1,   512,  1048576, 5},
    {COMPI_MAP_ALLGATHER, -1,   512,      ANY, 4},
    {COMPI_MAP_ALLGATHER, -1,  1024,       64, 3},
    {COMPI_MAP_ALLGATHER, -1,  1024,      256, 2},
    {COMPI_MAP_ALLGATHER, -1,  1024,     2048, 3},
    {COMPI_MAP_ALLGATHER, -1,  1024,      ANY, 5},
    {COMPI_MAP_ALLGATHER, -1,  2048,        4, 3},
    {COMPI_MAP_ALLGATHER, -1,  2048,        8, 2},
    {COMPI_MAP_ALLGATHER, -1,  2048,       16, 3},
    {COMPI_MAP_ALLGATHER, -1,  2048,       32, 2},
    {COMPI_MAP_ALLGATHER, -1,  2048,      256, 3},
    {COMPI_MAP_ALLGATHER, -1,  2048,      512, 2},
    {COMPI_MAP_ALLGATHER, -1,  2048,     4096, 3},
    {COMPI_MAP_ALLGATHER, -1,  2048,      ANY, 5},
    {COMPI_MAP_ALLGATHER, -1,  4096,       32, 2},
    {COMPI_MAP_ALLGATHER, -1,  4096,      128, 3},
    {COMPI_MAP_ALLGATHER, -1,  4096,      512, 2},
    {COMPI_MAP_ALLGATHER, -1,  4096,     4096, 3},
    {COMPI_MAP_ALLGATHER, -1,  4096,      ANY, 5},
    {COMPI_MAP_ALLGATHER, -1,   ANY,        2, 3},
    {COMPI_MAP_ALLGATHER, -1,   ANY,        8, 2},
    {COMPI_MAP_ALLGATHER, -1,   ANY,       16, 3},
    {COMPI_MAP_ALLGATHER, -1,   ANY,      512, 2},
    {COMPI_MAP_ALLGATHER, -1,   ANY,     4096, 3},
    {COMPI_MAP_ALLGATHER, -1,   ANY,      ANY, 5},
    {COMPI_MAP_ALLGATHERV, -1,   EQ2,     2048, 3},
    {COMPI_MAP_ALLGATHERV, -1,   EQ2,     4096, 5},
    {COMPI_MAP_ALLGATHERV, -1,   EQ2,     8192, 3},
    {COMPI_MAP_ALLGATHERV, -1,   EQ2,      ANY, 5},
    {COMPI_MAP_ALLGATHERV, -1,     8,      256, 1},
    {COMPI_MAP_ALLGATHERV, -1,     8,     4096, 4},
    {COMPI_MAP_ALLGATHERV, -1,     8,     8192, 3},
    {COMPI_MAP_ALLGATHERV, -1,     8,    16384, 4},
    {COMPI_MAP_ALLGATHERV, -1,     8,   262144, 2},
    {COMPI_MAP_ALLGATHERV, -1,     8,      ANY, 4},
    {COMPI_MAP_ALLGATHERV, -1,    16,     1024, 1},
    {COMPI_MAP_ALLGATHERV, -1,    16,      ANY, 2},
    {COMPI_MAP_ALLGATHERV, -1,    32,      128, 1},
    {COMPI_MAP_ALLGATHERV, -1,    32,   262144, 2},
    {COMPI_MAP_ALLGATHERV, -1,    32,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,    64,      256, 1},
    {COMPI_MAP_ALLGATHERV, -1,    64,     8192, 2},
    {COMPI_MAP_ALLGATHERV, -1,    64,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,   128,      256, 1},
    {COMPI_MAP_ALLGATHERV, -1,   128,     4096, 2},
    {COMPI_MAP_ALLGATHERV, -1,   128,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,   256,     1024, 2},
    {COMPI_MAP_ALLGATHERV, -1,   256,    65536, 4},
    {COMPI_MAP_ALLGATHERV, -1,   256,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,   512,     1024, 2},
    {COMPI_MAP_ALLGATHERV, -1,   512,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,  1024,      512, 2},
    {COMPI_MAP_ALLGATHERV, -1,  1024,     1024, 1},
    {COMPI_MAP_ALLGATHERV, -1,  1024,     4096, 2},
    {COMPI_MAP_ALLGATHERV, -1,  1024,  1048576, 4},
    {COMPI_MAP_ALLGATHERV, -1,  1024,      ANY, 3},
    {COMPI_MAP_ALLGATHERV, -1,   ANY,     4096, 2},
    {COMPI_MAP_ALLGATHERV, -1,   ANY,      ANY, 4},
    {COMPI_MAP_GATHER, -1,     4,        2, 3},
    {COMPI_MAP_GATHER, -1,     4,        4, 1},
    {COMPI_MAP_GATHER, -1,     4,    32768, 2},
    {COMPI_MAP_GATHER, -1,     4,    65536, 1},
    {COMPI_MAP_GATHER, -1,     4,   131072, 2},
    {COMPI_MAP_GATHER, -1,     4,      ANY, 3},
    {COMPI_MAP_GATHER, -1,     8,     1024, 2},
    {COMPI_MAP_GATHER, -1,     8,     8192, 1},
    {COMPI_MAP_GATHER, -1,     8,    32768, 2},
    {COMPI_MAP_GATHER, -1,     8,   262144, 1},
    {COMPI_MAP_GATHER, -1,     8,      ANY, 3},
    {COMPI_MAP_GATHER, -1,   256,      ANY, 2},
    {COMPI_MAP_GATHER, -1,   512,     2048, 2},
    {COMPI_MAP_GATHER, -1,   512,     8192, 1},
    {COMPI_MAP_GATHER, -1,   512,      ANY, 2},
    {COMPI_MAP_GATHER, -1,   ANY,      ANY, 2},
    {COMPI_MAP_SCATTER, -1,     4,        2, 3},
    {COMPI_MAP_SCATTER, -1,     4,   131072, 1},
    {COMPI_MAP_SCATTER, -1,     4,   262144, 3},
    {COMPI_MAP_SCATTER, -1,     4,      ANY, 1},
    {COMPI_MAP_SCATTER, -1,     8,     2048, 2},
    {COMPI_MAP_SCATTER, -1,     8,     4096, 1},
    {COMPI_MAP_SCATTER, -1,     8,     8192, 2},
    {COMPI_MAP_SCATTER, -1,     8,    32768, 1},
    {COMPI_MAP_SCATTER, -1,     8,  1048576, 3},
    {COMPI_MAP_SCATTER, -1,     8,      ANY, 1},
    {COMPI_MAP_SCATTER, -1,    16,    16384, 2},
    {COMPI_MAP_SCATTER, -1,    16,  1048576, 3},
    {COMPI_MAP_SCATTER, -1,    16,      ANY, 1},
    {COMPI_MAP_SCATTER, -1,    32,    16384, 2},
    {COMPI_MAP_SCATTER, -1,    32,    32768, 1},
    {COMPI_MAP_SCATTER, -1,    32,      ANY, 3},
    {COMPI_MAP_SCATTER, -1,    64,      512, 2},
    {COMPI_MAP_SCATTER, -1,    64,     8192, 3},
    {COMPI_MAP_SCATTER, -1,    64,    16384, 2},
    {COMPI_MAP_SCATTER, -1,    64,      ANY, 3},
    {COMPI_MAP_SCATTER, -1,   ANY,      512, 2},
    {COMPI_MAP_SCATTER, -1,   ANY,      ANY, 3},
};
#define NDEC ((int)(sizeof dec_rows / sizeof dec_rows[0]))

static int size_in_band(int64_t size_lt, int size)
{
    if (size_lt == EQ2) return size == 2;
    return size_lt == ANY || size < size_lt;
}

static int decide_alg(compi_map_coll coll, int size, uint64_t bytes, int commutative)
{
    int64_t band = 0;
    int have_band = 0;
    for (int i = 0; i < NDEC; i++) {
        const dec_row *r = &dec_rows[i];
        if (r->coll != coll) continue;
        if (r->commute >= 0 && r->commute != (commutative ? 1 : 0)) continue;
        if (!have_band) {
            if (!size_in_band(r->size_lt, size)) continue;
            band = r->size_lt;
            have_band = 1;
        } else if (r->size_lt != band) {
            break;
        }
        if (r->bytes_lt == ANY || bytes < (uint64_t)r->bytes_lt) return r->alg;
    }
    return -1;
}

static int check_call(const compi_map_call *c)
{
    if ((unsigned)c->coll >= COMPI_MAP_NCOLLS || c->size < 1 || c->type_size < 1) return COMPI_MAP_EARG;
    switch (c->coll) {
    case COMPI_MAP_BCAST: case COMPI_MAP_REDUCE: case COMPI_MAP_GATHER: case COMPI_MAP_SCATTER:
    case COMPI_MAP_GATHERV: case COMPI_MAP_SCATTERV:
        if (c->root < 0 || c->root >= c->size) return COMPI_MAP_EARG;
        break;
    default:
        break;
    }
    switch (c->coll) {
    case COMPI_MAP_BARRIER:
        return 0;
    case COMPI_MAP_REDUCE_SCATTER: case COMPI_MAP_ALLGATHERV: case COMPI_MAP_GATHERV: case COMPI_MAP_SCATTERV:
    case COMPI_MAP_ALLTOALLV: {
        size_t n = c->coll == COMPI_MAP_ALLTOALLV ? (size_t)c->size * c->size : (size_t)c->size;
        if (!c->counts) return COMPI_MAP_EARG;
        for (size_t i = 0; i < n; i++)
            if (c->counts[i] < 0 || c->counts[i] > INT_MAX) return COMPI_MAP_EARG;
        return 0;
    }
    case COMPI_MAP_REDUCE_SCATTER_BLOCK:
        return c->count >= 0 && c->count <= INT_MAX ? 0 : COMPI_MAP_EARG;
    default:
        /* count 0 returns before the collective runs in most MPI_ bindings;
         * the DKB does not model the ones that would still talk */
        return c->count >= 1 && c->count <= INT_MAX ? 0 : COMPI_MAP_EARG;
    }
}

static uint64_t decision_bytes(const compi_map_call *c)
{
    if (c->coll == COMPI_MAP_REDUCE_SCATTER || c->coll == COMPI_MAP_ALLGATHERV) {
        uint64_t t = 0;
        for (int i = 0; c->counts && i < c->size; i++) t += (uint64_t)c->counts[i] * c->type_size;
        return c->coll == COMPI_MAP_ALLGATHERV ? t / c->size : t;
    }
    return (uint64_t)c->count * c->type_size;
}

int compi_map_ompi41_decide(const compi_map_call *c, compi_map_alg *a)
{
    int rc = check_call(c);
    if (rc) return rc;
    memset(a, 0, sizeof *a);
    if (c->coll == COMPI_MAP_GATHERV || c->coll == COMPI_MAP_SCATTERV) a->alg = 1;
    else a->alg = decide_alg(c->coll, c->size, decision_bytes(c), c->commutative);
    a->radix = 4; /* coll_tuned_bcast_algorithm_knomial_radix is used on both paths */
    return a->alg > 0 ? 0 : COMPI_MAP_EALG;
}

int compi_map_ompi41_pinned(compi_map_coll coll, int alg, compi_map_alg *a)
{
    if (!find_alg(coll, alg)) return COMPI_MAP_EALG;
    memset(a, 0, sizeof *a);
    a->alg = alg;
    a->fanout = 4; /* coll_tuned_init_{tree,chain}_fanout */
    a->radix = 4;
    return 0;
}

int compi_map_ompi41_messages(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *out)
{
    int rc = check_call(c);
    if (rc) return rc;
    const alg_row *r = find_alg(c->coll, a->alg);
    if (!r) return COMPI_MAP_EALG;
    if (!r->fn) return COMPI_MAP_ENOTYET;
    if (c->size == 1) return 0; /* every algorithm returns before talking */
    if (c->coll == COMPI_MAP_REDUCE_SCATTER) {
        int64_t total = 0;
        for (int i = 0; i < c->size; i++) total += c->counts[i];
        if (total == 0) return 0;
    }
    return r->fn(c, a, out);
}

/* the run's pins while compi_map_ompi41_messages_pins runs (NULL: none) */
static __thread const compi_map_alg *run_pins;

static int decide_and_run(const compi_map_call *c, compi_map_msgs *o)
{
    compi_map_alg a;
    int rc;
    if (run_pins && run_pins[c->coll].alg > 0) a = run_pins[c->coll], rc = 0;
    else rc = compi_map_ompi41_decide(c, &a);
    return rc ? rc : compi_map_ompi41_messages(c, &a, o);
}

int compi_map_ompi41_messages_pins(const compi_map_call *c, const compi_map_alg *a,
                                   const compi_map_alg pins[COMPI_MAP_NCOLLS], compi_map_msgs *out)
{
    const compi_map_alg *saved = run_pins;
    run_pins = pins;
    int rc = compi_map_ompi41_messages(c, a, out);
    run_pins = saved;
    return rc;
}
