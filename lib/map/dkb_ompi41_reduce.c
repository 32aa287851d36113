/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI 4.1 coll/tuned's reductions: Reduce, Allreduce, Reduce_scatter
 * (coll_base_reduce.c, coll_base_allreduce.c, coll_base_reduce_scatter.c of
 * v4.1.4): every message each algorithm sends (dkb_ompi41.c says how the
 * decompositions were transcribed and checked). */
#include <stdlib.h>
#include <string.h>
#include "map/dkb_internal.h"

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
        compi_ompi41_tree t;
        compi_ompi41_tree_of(kind, param, c->size, tree_root, r, &t);
        for (int64_t s = 0; s < nseg; s++) EMIT(o, r, t.prev, (s == nseg - 1 ? last : segcount) * c->type_size);
    }
    return 0;
}

int compi_ompi41_reduce_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int i = 0; i < c->size; i++)
        if (i != c->root) EMIT(o, i, c->root, c->count * c->type_size);
    return 0;
}
static int reduce_linear_alg(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return compi_ompi41_reduce_linear(c, o);
}
static int reduce_chain(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, COMPI_OMPI41_TREE_CHAIN, a->fanout, c->root,
                          compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
static int reduce_pipeline(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, COMPI_OMPI41_TREE_CHAIN, 1, c->root,
                          compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
static int reduce_binary(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, COMPI_OMPI41_TREE_KARY, 2, c->root,
                          compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
static int reduce_binomial(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    return reduce_generic(c, COMPI_OMPI41_TREE_IN_ORDER_BM, 0, c->root,
                          compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
}
/* in-order binary tree rooted at size - 1, which then hands the result to root */
static int reduce_in_order_binary(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int io_root = c->size - 1;
    int ret = reduce_generic(c, COMPI_OMPI41_TREE_IN_ORDER_BIN, 0, io_root,
                             compi_ompi41_segcount(a->segsize, c->type_size, c->count), o);
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
    int pof2 = compi_ompi41_flp2(n), nsteps = compi_ompi41_ilog2(pof2);
    if (pof2 < 2 || count < pof2 || !c->commutative) return compi_ompi41_reduce_linear(c, o);
    int rem = n - pof2;
    int64_t rindex[32], sindex[32], rcount[32], scount[32];
    /* rank 0's last rcount, needed when an odd root took part only through rank 0 */
    int64_t rank0_last_rcount = 0;
    int *vranks = malloc(n * sizeof *vranks);
    int64_t(*rc_all)[32] = malloc(n * sizeof *rc_all), (*ri_all)[32] = malloc(n * sizeof *ri_all);
    int64_t(*sc_all)[32] = malloc(n * sizeof *sc_all), (*si_all)[32] = malloc(n * sizeof *si_all);
    int ret = 0;
    if (!vranks || !rc_all || !ri_all || !sc_all || !si_all) {
        ret = COMPI_MAP_ENOMEM;
        goto out;
    }
    for (int rank = 0; rank < n; rank++) {
        int vrank;
        if (rank < 2 * rem) {
            int64_t lhalf = count / 2, rhalf = count - lhalf;
            if (rank % 2 != 0) {
                if ((ret = compi_map_emit(o, rank, rank - 1, lhalf * ts))) goto out;
                if ((ret = compi_map_emit(o, rank, rank - 1, rhalf * ts))) goto out;
                vrank = -1;
            } else {
                if ((ret = compi_map_emit(o, rank, rank + 1, rhalf * ts))) goto out;
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
                if ((ret = compi_map_emit(o, rank, dest, scount[step] * ts))) goto out;
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
            if ((ret = compi_map_emit(o, 0, root, rank0_last_rcount * ts))) goto out;
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
                if ((ret = compi_map_emit(o, rank, dest, rc_all[rank][step] * ts))) goto out;
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

static int allreduce_linear(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    int ret = compi_ompi41_reduce_linear(&s, o);
    return ret ? ret : compi_ompi41_bcast_linear(&s, o);
}

/* reduce to 0 and bcast from 0, each as the fixed rules choose */
static int allreduce_nonoverlapping(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    compi_map_call s = *c;
    s.root = 0;
    s.coll = COMPI_MAP_REDUCE;
    int ret = compi_ompi41_decide_and_run(&s, o);
    if (ret) return ret;
    s.coll = COMPI_MAP_BCAST;
    return compi_ompi41_decide_and_run(&s, o);
}

static int allreduce_recursivedoubling(const compi_map_call *c, const compi_map_alg *a, compi_map_msgs *o)
{
    int n = c->size;
    uint64_t bytes = c->count * c->type_size;
    int adjsize = compi_ompi41_next_pow2(n) >> 1;
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
    compi_ompi41_blockcount(c->count, n, &split, &early, &late);
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
    int64_t segcount = compi_ompi41_segcount(a->segsize, ts, count);
    if (count < n * segcount) return allreduce_ring(c, a, o);
    int64_t phases = count / (n * segcount);
    if ((count % (n * segcount) >= n) && (count % (n * segcount) > ((n * segcount) / 2))) phases++;
    int64_t split, early, late;
    compi_ompi41_blockcount(count, n, &split, &early, &late);
    for (int r = 0; r < n; r++) {
        int to = (r + 1) % n;
        for (int64_t ph = 0; ph < phases; ph++) {
            for (int k = 1; k < n; k++) {
                int blk = k == 1 ? r : (r + n - k + 1) % n;
                int64_t bc = block_of(blk, split, early, late), psplit, pe, pl;
                compi_ompi41_blockcount(bc, phases, &psplit, &pe, &pl);
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
    int pof2 = compi_ompi41_flp2(n), nsteps = compi_ompi41_ilog2(pof2);
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
    if ((ret = compi_ompi41_decide_and_run(&s, o))) return ret;
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
    int tmp_size = compi_ompi41_next_pow2(n) >> 1, remain = n - tmp_size;
    int64_t *tc = malloc(tmp_size * sizeof *tc);
    if (!tc) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < tmp_size; i++)
        tc[i] = i < remain ? c->counts[2 * i + 1] + c->counts[2 * i] : c->counts[i + remain];
    for (int rank = 0; rank < n && !ret; rank++) {
        int tmp_rank;
        if (rank < 2 * remain) {
            if ((rank & 1) == 0) {
                ret = compi_map_emit(o, rank, rank + 1, count * ts);
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
                if (send_count > 0) ret = compi_map_emit(o, rank, peer, send_count * ts);
                send_index = recv_index;
                last_index = recv_index + mask;
            }
        }
        if (!ret && rank < 2 * remain && (rank & 1) && c->counts[rank - 1])
            ret = compi_map_emit(o, rank, rank - 1, c->counts[rank - 1] * ts);
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
    int pof2 = compi_ompi41_next_pow2(n) >> 1, rem = n - pof2, log2_size = compi_ompi41_ilog2(pof2);
    int ret = 0;
    for (int rank = 0; rank < n && !ret; rank++) {
        int vrank;
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                ret = compi_map_emit(o, rank, rank + 1, total * ts);
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
            ret = compi_map_emit(o, rank, peer, rs_sum(counts, displs, rem, send_index, send_index + nblocks - 1) * ts);
            send_index = recv_index;
        }
        if (ret) break;
        int vpeer = (int)compi_ompi41_mirror_perm(vrank, log2_size);
        int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
        int index = send_index < rem ? 2 * send_index : rem + send_index;
        if (vpeer < rem) {
            if ((ret = compi_map_emit(o, rank, peer - 1, counts[index] * ts))) break;
            index++;
        }
        if (vpeer != vrank) ret = compi_map_emit(o, rank, peer, counts[index] * ts);
    }
    free(displs);
    return ret;
}

/* ------------------------------------------------------------------ */
/* coll_tuned_<coll>_algorithm ids, named as Open MPI names them */

static const compi_ompi41_alg_row rows[] = {
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
    {COMPI_MAP_REDUCE_SCATTER, 1, "non-overlapping", rs_nonoverlapping},
    {COMPI_MAP_REDUCE_SCATTER, 2, "recursive_halving", rs_recursivehalving},
    {COMPI_MAP_REDUCE_SCATTER, 3, "ring", rs_ring},
    {COMPI_MAP_REDUCE_SCATTER, 4, "butterfly", rs_butterfly},
    /* known ids whose decomposition is not written yet */
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 1, "basic_linear", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 2, "recursive_doubling", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 3, "recursive_halving", NULL},
    {COMPI_MAP_REDUCE_SCATTER_BLOCK, 4, "butterfly", NULL},
};
const compi_ompi41_algs compi_ompi41_reduce_algs = {rows, (int)(sizeof rows / sizeof rows[0])};
