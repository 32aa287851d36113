/* SPDX-License-Identifier: BSD-3-Clause */
/* DKB for MPICH 4.0 (ch4:ucx, checked with Debian's 4.0.2): the MPIR
 * algorithms a run can pin with MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>,
 * one table row each. Most are the very algorithms Open MPI's coll/base
 * ported from MPICH, and send the same messages: those rows name the Open
 * MPI row whose decomposition they share; the others have their own
 * function here. Each equivalence is a claim checked message by message
 * (tests/map/dkb_validate.sh --mpi mpich: a UCX shim counts what every rank
 * hands to ucp_tag_send*, with MPIR_CVAR_NOLOCAL=1 so that no message takes
 * the shared-memory path).
 *
 * A pinned algorithm whose restriction the call breaks (coll_algorithms.txt:
 * power-of-two, size-ge-pof2, builtin-op) makes MPICH fall back to its
 * default selection: COMPI_MAP_ENOTYET, as for every unpinned call.
 *
 * Not here yet: MPICH's default selection (the JSON tree compiled into
 * libmpich, and CH4's node-aware compositions that come before it on a
 * communicator spanning nodes), the nb/smp/tsp variants, Allgatherv and
 * Reduce_scatter. Alltoallv, Gatherv and Scatterv: the algorithms compi pins
 * in a traced run (the sub-steps of compi's own collectives use them). */
#include <stdlib.h>
#include <string.h>
#include "map/map.h"

typedef int (*own_fn)(const compi_map_call *, compi_map_msgs *);

/* MPIR_Bcast_intra_binomial: relative rank r receives from r - lowbit(r) and
 * sends to r + mask for every mask below lowbit(r) (the root: below size),
 * the whole message each time (no segmentation). */
static int mpich_bcast_binomial(const compi_map_call *c, compi_map_msgs *o)
{
    int n = c->size;
    for (int v = 1; v < n; v++) {
        int parent = v - (v & -v);
        int rc = compi_map_msgs_add(o, (parent + c->root) % n, (v + c->root) % n, (uint64_t)c->count * c->type_size);
        if (rc) return rc;
    }
    return 0;
}

#define ADD(o, s, d, b)                                                                                                \
    do {                                                                                                               \
        int rc_ = compi_map_msgs_add((o), (s), (d), (uint64_t)(b));                                                    \
        if (rc_) return rc_;                                                                                           \
    } while (0)

static int flp2(int n)
{
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

/* the pof2 blocks of MPICH's recursive halving: block i has count/pof2
 * elements, the first count%pof2 one more */
static int64_t blocks(const int64_t *cnts, int from, int to)
{
    int64_t s = 0;
    for (int i = from; i < to; i++) s += cnts[i];
    return s;
}

/* MPIR_Allreduce_intra_reduce_scatter_allgather. Unlike Open MPI's port,
 * the remainder ranks hand their whole vector over (even -> odd) and get the
 * whole result back, and the halving works on pof2 blocks. */
static int mpich_allreduce_rsa(const compi_map_call *c, compi_map_msgs *o)
{
    int n = c->size, pof2 = flp2(n), rem = n - pof2;
    if (c->count < pof2 || !c->commutative) return COMPI_MAP_ENOTYET; /* MPICH falls back to its default selection */
    size_t ts = c->type_size;
    int64_t count = c->count;
    int64_t *cnts = malloc(pof2 * sizeof *cnts);
    if (!cnts) return COMPI_MAP_ENOMEM;
    for (int i = 0; i < pof2; i++) cnts[i] = count / pof2 + (i < count % pof2 ? 1 : 0);
    int ret = 0;
    for (int rank = 0; rank < n && !ret; rank++) {
        int newrank;
        if (rank < 2 * rem) {
            if (rank % 2 == 0) {
                ret = compi_map_msgs_add(o, rank, rank + 1, count * ts);
                newrank = -1;
            } else {
                newrank = rank / 2;
            }
        } else {
            newrank = rank - rem;
        }
        if (newrank != -1) {
            int mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2;
            while (mask < pof2 && !ret) {
                int newdst = newrank ^ mask, dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
                int64_t send_cnt;
                if (newrank < newdst) {
                    send_idx = recv_idx + pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, last_idx);
                } else {
                    recv_idx = send_idx + pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, recv_idx);
                }
                ret = compi_map_msgs_add(o, rank, dst, send_cnt * ts);
                send_idx = recv_idx;
                mask <<= 1;
                if (mask < pof2) last_idx = recv_idx + pof2 / mask;
            }
            mask >>= 1;
            while (mask > 0 && !ret) {
                int newdst = newrank ^ mask, dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
                int64_t send_cnt;
                if (newrank < newdst) {
                    if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
                    recv_idx = send_idx + pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, recv_idx);
                } else {
                    recv_idx = send_idx - pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, last_idx);
                }
                ret = compi_map_msgs_add(o, rank, dst, send_cnt * ts);
                if (newrank > newdst) send_idx = recv_idx;
                mask >>= 1;
            }
        }
        if (!ret && rank < 2 * rem && rank % 2) ret = compi_map_msgs_add(o, rank, rank - 1, count * ts);
    }
    free(cnts);
    return ret;
}

/* MPIR_Reduce_intra_reduce_scatter_gather: odd remainder ranks hand their
 * vector to the even ones; recursive halving; a binomial gather of the
 * halves to the root (an odd remainder root gets block 0 from rank 0 first). */
static int mpich_reduce_rsg(const compi_map_call *c, compi_map_msgs *o)
{
    int n = c->size, pof2 = flp2(n), rem = n - pof2, root = c->root;
    if (c->count < pof2 || !c->commutative) return COMPI_MAP_ENOTYET; /* MPICH falls back to its default selection */
    size_t ts = c->type_size;
    int64_t count = c->count;
    int64_t *cnts = malloc(pof2 * sizeof *cnts);
    int *nr = malloc(n * sizeof *nr), *sidx = malloc(n * sizeof *sidx), *lidx = malloc(n * sizeof *lidx);
    int ret = 0;
    if (!cnts || !nr || !sidx || !lidx) {
        ret = COMPI_MAP_ENOMEM;
        goto out;
    }
    for (int i = 0; i < pof2; i++) cnts[i] = count / pof2 + (i < count % pof2 ? 1 : 0);
    for (int rank = 0; rank < n && !ret; rank++) {
        int newrank;
        if (rank < 2 * rem) {
            if (rank % 2 != 0) {
                ret = compi_map_msgs_add(o, rank, rank - 1, count * ts);
                newrank = -1;
            } else {
                newrank = rank / 2;
            }
        } else {
            newrank = rank - rem;
        }
        nr[rank] = newrank;
        sidx[rank] = 0;
        lidx[rank] = 0;
        if (newrank != -1) {
            int mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2;
            while (mask < pof2 && !ret) {
                int newdst = newrank ^ mask, dst = newdst < rem ? newdst * 2 : newdst + rem;
                int64_t send_cnt;
                if (newrank < newdst) {
                    send_idx = recv_idx + pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, last_idx);
                } else {
                    recv_idx = send_idx + pof2 / (mask * 2);
                    send_cnt = blocks(cnts, send_idx, recv_idx);
                }
                ret = compi_map_msgs_add(o, rank, dst, send_cnt * ts);
                send_idx = recv_idx;
                mask <<= 1;
                if (mask < pof2) last_idx = recv_idx + pof2 / mask;
            }
            sidx[rank] = send_idx;
            lidx[rank] = last_idx;
        }
    }
    if (ret) goto out;
    int newroot;
    if (root < 2 * rem) {
        if (root % 2 != 0) {
            /* newrank 0 (rank 0) hands block 0 to the root, which takes its place */
            if ((ret = compi_map_msgs_add(o, 0, root, cnts[0] * ts))) goto out;
            nr[root] = 0;
            sidx[root] = 0;
            lidx[root] = 2;
            nr[0] = -1;
            newroot = 0;
        } else {
            newroot = root / 2;
        }
    } else {
        newroot = root - rem;
    }
    for (int rank = 0; rank < n && !ret; rank++) {
        int newrank = nr[rank];
        if (newrank == -1) continue;
        int j = 0, mask = 1, send_idx = sidx[rank], last_idx = lidx[rank], recv_idx;
        while (mask < pof2) {
            mask <<= 1;
            j++;
        }
        mask >>= 1;
        j--;
        while (mask > 0) {
            int newdst = newrank ^ mask, dst = newdst < rem ? newdst * 2 : newdst + rem;
            if (newdst == 0 && root < 2 * rem && root % 2 != 0) dst = root;
            int newdst_tree_root = (newdst >> j) << j, newroot_tree_root = (newroot >> j) << j;
            int64_t send_cnt;
            if (newrank < newdst) {
                if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
                recv_idx = send_idx + pof2 / (mask * 2);
                send_cnt = blocks(cnts, send_idx, recv_idx);
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                send_cnt = blocks(cnts, send_idx, last_idx);
            }
            if (newdst_tree_root == newroot_tree_root) {
                ret = compi_map_msgs_add(o, rank, dst, send_cnt * ts);
                break;
            }
            if (newrank > newdst) send_idx = recv_idx;
            mask >>= 1;
            j--;
        }
    }
out:
    free(cnts);
    free(nr);
    free(sidx);
    free(lidx);
    return ret;
}

/* MPIR_Bcast_intra_scatter_{recursive_doubling,ring}_allgather: the
 * algorithms Open MPI ported, but MPICH cuts the message into
 * ceil(bytes / size)-byte pieces (Open MPI: whole elements) and has no
 * linear fallback below size elements; below size bytes it is not
 * checked (not modelled). */
static int mpich_bcast_scatter(const compi_map_call *c, int ompi_alg, compi_map_msgs *o)
{
    uint64_t nbytes = (uint64_t)c->count * c->type_size;
    if (nbytes < (uint64_t)c->size) return COMPI_MAP_ENOTYET;
    compi_map_call b = *c;
    b.count = (int64_t)nbytes;
    b.type_size = 1;
    compi_map_alg a;
    int rc = compi_map_ompi41_pinned(COMPI_MAP_BCAST, ompi_alg, &a);
    return rc ? rc : compi_map_ompi41_messages(&b, &a, o);
}
static int mpich_bcast_sag_rd(const compi_map_call *c, compi_map_msgs *o)
{
    return mpich_bcast_scatter(c, 8, o);
}
static int mpich_bcast_sag_ring(const compi_map_call *c, compi_map_msgs *o)
{
    return mpich_bcast_scatter(c, 9, o);
}

/* power-of-two sizes only: otherwise MPICH falls back to its default selection */
static int mpich_allgather_rd(const compi_map_call *c, compi_map_msgs *o)
{
    if (c->size & (c->size - 1)) return COMPI_MAP_ENOTYET;
    compi_map_alg a;
    int rc = compi_map_ompi41_pinned(COMPI_MAP_ALLGATHER, 3, &a);
    return rc ? rc : compi_map_ompi41_messages(c, &a, o);
}

/* MPIR_Alltoall_intra_scattered: like the linear exchange, but the loop
 * includes the rank itself, and that block goes through the network module
 * as a real message to oneself (seen by UCX) */
static int mpich_alltoall_scattered(const compi_map_call *c, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        for (int d = 0; d < c->size; d++) ADD(o, r, d, c->count * c->type_size);
    return 0;
}

/* MPIR_Alltoallv_intra_scattered: every non-empty block, the rank's own
 * included (a real message to itself, as in Alltoall's scattered) */
static int mpich_alltoallv_scattered(const compi_map_call *c, compi_map_msgs *o)
{
    int n = c->size;
    for (int r = 0; r < n; r++)
        for (int d = 0; d < n; d++) {
            int64_t k = c->counts[(size_t)r * n + d];
            if (k > 0) ADD(o, r, d, k * c->type_size);
        }
    return 0;
}

/* MPIR_Gatherv_allcomm_linear / MPIR_Scatterv_allcomm_linear: one message
 * between the root and each other rank with a non-empty block (the root's
 * own block is a local copy; a synchronous send from 32 ranks up is still
 * one message) */
static int mpich_gatherv_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        if (r != c->root && c->counts[r] > 0) ADD(o, r, c->root, c->counts[r] * c->type_size);
    return 0;
}
static int mpich_scatterv_linear(const compi_map_call *c, compi_map_msgs *o)
{
    for (int r = 0; r < c->size; r++)
        if (r != c->root && c->counts[r] > 0) ADD(o, c->root, r, c->counts[r] * c->type_size);
    return 0;
}

typedef struct {
    compi_map_coll coll;
    const char *name; /* the MPIR_CVAR_<COLL>_INTRA_ALGORITHM value */
    int ompi_alg;     /* same messages as this Open MPI 4.1 algorithm (pinned, segsize 0) */
    own_fn own;       /* or MPICH's own pattern */
} mpich_row;

static const mpich_row rows[] = {
    {COMPI_MAP_BCAST, "binomial", 0, mpich_bcast_binomial},
    {COMPI_MAP_BCAST, "scatter_recursive_doubling_allgather", 0, mpich_bcast_sag_rd},
    {COMPI_MAP_BCAST, "scatter_ring_allgather", 0, mpich_bcast_sag_ring},
    {COMPI_MAP_REDUCE, "binomial", 5, NULL},
    {COMPI_MAP_REDUCE, "reduce_scatter_gather", 0, mpich_reduce_rsg},
    {COMPI_MAP_ALLREDUCE, "recursive_doubling", 3, NULL},
    {COMPI_MAP_ALLREDUCE, "reduce_scatter_allgather", 0, mpich_allreduce_rsa},
    {COMPI_MAP_ALLTOALL, "brucks", 3, NULL},
    {COMPI_MAP_ALLTOALL, "pairwise", 1, NULL},
    {COMPI_MAP_ALLTOALL, "scattered", 0, mpich_alltoall_scattered},
    {COMPI_MAP_ALLGATHER, "brucks", 2, NULL},
    {COMPI_MAP_ALLGATHER, "recursive_doubling", 0, mpich_allgather_rd},
    {COMPI_MAP_ALLGATHER, "ring", 4, NULL},
    {COMPI_MAP_GATHER, "binomial", 2, NULL},
    {COMPI_MAP_SCATTER, "binomial", 2, NULL},
    {COMPI_MAP_BARRIER, "dissemination", 4, NULL},
    {COMPI_MAP_ALLTOALLV, "scattered", 0, mpich_alltoallv_scattered},
    {COMPI_MAP_GATHERV, "linear", 0, mpich_gatherv_linear},
    {COMPI_MAP_SCATTERV, "linear", 0, mpich_scatterv_linear},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static const mpich_row *row_of(compi_map_coll coll, int alg)
{
    int k = 0;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].coll == coll && ++k == alg) return &rows[i];
    return NULL;
}

int compi_map_mpich40_nalgs(compi_map_coll coll)
{
    int k = 0;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].coll == coll) k++;
    return k;
}

const char *compi_map_mpich40_alg_name(compi_map_coll coll, int alg)
{
    const mpich_row *r = row_of(coll, alg);
    return r ? r->name : NULL;
}

int compi_map_mpich40_alg_parse(compi_map_coll coll, const char *name)
{
    for (int alg = 1; alg <= compi_map_mpich40_nalgs(coll); alg++)
        if (name && strcmp(compi_map_mpich40_alg_name(coll, alg), name) == 0) return alg;
    return -1;
}

int compi_map_mpich40_messages(const compi_map_call *c, int alg, compi_map_msgs *out)
{
    const mpich_row *r = row_of(c->coll, alg);
    if (!r) return COMPI_MAP_EALG;
    if (!r->own) {
        compi_map_alg a;
        int rc = compi_map_ompi41_pinned(c->coll, r->ompi_alg, &a);
        return rc ? rc : compi_map_ompi41_messages(c, &a, out);
    }
    /* MPICH's own pattern */
    int v = c->coll == COMPI_MAP_ALLTOALLV || c->coll == COMPI_MAP_GATHERV || c->coll == COMPI_MAP_SCATTERV;
    if (c->size < 1 || c->root < 0 || c->root >= c->size || c->type_size < 1 || (v ? !c->counts : c->count < 1))
        return COMPI_MAP_EARG;
    return c->size == 1 ? 0 : r->own(c, out);
}
