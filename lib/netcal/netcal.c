/* SPDX-License-Identifier: BSD-3-Clause */
/* Network calibration by ping-pong between node leaders (see netcal.h).
 * PMPI_* only: this file is part of libcompi and of compi_calibrate_network. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/stats.h"
#include "netcal/netcal.h"

#define NC_TAG_DATA 1
#define NC_TAG_CTRL 2
#define NC_MAX_MSG ((size_t)1 << 30) /* an int count of MPI_BYTE, with room to spare */
#define NC_FEWER_REPS_ABOVE ((size_t)1 << 20)

void compi_netcal_opts_tool(compi_netcal_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = (size_t)128 << 20;
    o->reps = 20;
    o->max_rtt_s = 30.0;
    o->budget_s = 0;
    o->min_bytes = 2;
    o->size_shift = 1;
    o->min_sizes = 3; /* the fewest the robust fit takes (model.c) */
}

void compi_netcal_opts_init(compi_netcal_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = (size_t)1 << 20;
    o->reps = 5;
    o->max_rtt_s = 0.05;
    o->budget_s = 0.5;
    o->min_bytes = 2;
    o->size_shift = 1;
    o->min_sizes = 3; /* the fewest the robust fit takes (model.c) */
}

/* ------------------------------------------------------------ node map */

static void nc_clean_name(char *dst, const char *src, int node)
{
    size_t n = 0;
    for (; src[n] && n < COMPI_NET_NAME_MAX - 1; n++) {
        char ch = src[n];
        dst[n] = (ch <= ' ' || ch == '#' || ch == 0x7f) ? '_' : ch;
    }
    dst[n] = 0;
    if (n == 0 || strcmp(dst, "*") == 0) snprintf(dst, COMPI_NET_NAME_MAX, "node%d", node);
}

void compi_netcal_clean_name(char *dst, const char *src, int node)
{
    nc_clean_name(dst, src, node);
}

int compi_netcal_node_names(MPI_Comm comm, int nnodes, const int *node_of_rank, int ask_mpi,
                            char (**node_names)[COMPI_NET_NAME_MAX])
{
    int size, rank, rc = MPI_SUCCESS;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    char(*names)[COMPI_NET_NAME_MAX] = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof *names);
    *node_names = NULL;
    if (!ask_mpi) {
        if (!names) return COMPI_ERR_NOMEM;
        for (int k = 0; k < nnodes; k++) snprintf(names[k], COMPI_NET_NAME_MAX, "node%d", k);
        *node_names = names;
        return COMPI_OK;
    }
    /* only each node's lowest rank sends its name: nnodes names in all, not
     * one per rank (a million names at a thousand ranks) */
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
    int bad = !names || !counts || !displs, anybad;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm); /* every rank joins even if its malloc failed */
    if (anybad) {
        rc = COMPI_ERR_NOMEM;
        goto out;
    }
    int seen = 0; /* nodes are numbered by their lowest rank: node k's leader is the (k+1)-th new node */
    for (int r = 0; r < size; r++) {
        int k = node_of_rank[r];
        counts[r] = k == seen ? COMPI_NET_NAME_MAX : 0;
        displs[r] = k * COMPI_NET_NAME_MAX;
        if (k == seen) seen++;
    }
    char proc[MPI_MAX_PROCESSOR_NAME + 1] = {0}, mine[COMPI_NET_NAME_MAX] = {0};
    int len = 0;
    PMPI_Get_processor_name(proc, &len);
    nc_clean_name(mine, proc, node_of_rank[rank]);
    rc = PMPI_Allgatherv(mine, counts[rank], MPI_CHAR, names, counts, displs, MPI_CHAR, comm);
    if (rc == MPI_SUCCESS) {
        for (int k = 0; k < nnodes; k++) names[k][COMPI_NET_NAME_MAX - 1] = 0;
        *node_names = names;
        names = NULL;
        rc = COMPI_OK;
    }
out:
    free(names);
    free(counts);
    free(displs);
    return rc;
}

int compi_netcal_node_map(MPI_Comm comm, int ranks_per_node, int *nnodes, int **node_of_rank,
                          char (**node_names)[COMPI_NET_NAME_MAX])
{
    int size, rank, rc = COMPI_OK;
    *nnodes = 0;
    *node_of_rank = NULL;
    *node_names = NULL;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    int *leader = malloc((size_t)size * sizeof *leader);
    int *node = malloc((size_t)size * sizeof *node);
    int fail = !leader || !node;
    if (ranks_per_node <= 0) {
        /* every rank joins the collectives below even if its malloc failed */
        MPI_Comm shm;
        rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
        if (rc != MPI_SUCCESS) goto out;
        int low, anybad;
        PMPI_Allreduce(&rank, &low, 1, MPI_INT, MPI_MIN, shm);
        PMPI_Comm_free(&shm);
        PMPI_Allreduce(&fail, &anybad, 1, MPI_INT, MPI_MAX, comm);
        if (anybad) {
            rc = COMPI_ERR_NOMEM;
            goto out;
        }
        PMPI_Allgather(&low, 1, MPI_INT, leader, 1, MPI_INT, comm);
    } else {
        if (fail) {
            rc = COMPI_ERR_NOMEM;
            goto out;
        }
        for (int r = 0; r < size; r++) leader[r] = r / ranks_per_node * ranks_per_node;
    }
    int n = 0;
    for (int r = 0; r < size; r++)
        if (leader[r] == r) node[r] = n++;
    for (int r = 0; r < size; r++) node[r] = node[leader[r]];
    rc = compi_netcal_node_names(comm, n, node, ranks_per_node <= 0, node_names);
    if (rc != COMPI_OK) goto out;
    *nnodes = n;
    *node_of_rank = node;
    node = NULL;
out:
    free(leader);
    free(node);
    return rc;
}

/* ------------------------------------------------------------ measurement */

typedef struct {
    int na, nb; /* node indices; na == nb: intra */
    int npoints;
    double t_us[COMPI_NET_MAX_POINTS]; /* one-way times per size */
    double lat_us;                     /* opts->oneway: an empty message's one-way time; else -1 */
} nc_result;

typedef struct {
    MPI_Comm comm;
    int rank;
    const compi_netcal_opts *o;
    unsigned char *buf;
    size_t touched; /* bytes of buf written so far */
    double *rtt;    /* opts->reps entries */
    size_t sizes[COMPI_NET_MAX_POINTS];
    int nsizes;
    double t0;        /* this rank's start; rank 0's is the one that counts */
    double elapsed;   /* rank 0's elapsed time, as of the last allreduce */
    int steps;        /* sizes run in the last phase (max over pairs) */
    double empty_rtt; /* opts->oneway: fastest empty round trip of this pair (s) */
} nc_ctx;

static int nc_reps_for(const nc_ctx *c, size_t s)
{
    int r = c->o->reps;
    for (size_t lim = NC_FEWER_REPS_ABOVE; s > lim && r > 3; lim <<= 1) r = (r + 1) / 2;
    return r < 3 && c->o->reps >= 3 ? 3 : r;
}

/* Allreduce (MAX) that waits politely: ranks with nothing to measure sit in
 * it while a pair times its round trips, and on a node with more ranks than
 * cores a busy-polling wait would steal the pair's CPU and skew its times. */
static int nc_allreduce_max(nc_ctx *c, const double *in, double *out, int n)
{
#ifdef COMPI_COMPAT_BLOCKING_WAITS
    return PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, c->comm);
#else
    MPI_Request req;
    int rc = PMPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_MAX, c->comm, &req);
    if (rc != MPI_SUCCESS) return rc;
    for (;;) {
        int done = 0;
        rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
#endif
}

/* One round trip of s bytes out and back (opts->oneway: an empty answer);
 * its time in *rtt when not NULL. */
static int nc_round_trip(nc_ctx *c, int peer, size_t s, double *rtt)
{
    double a = PMPI_Wtime();
    int rc = PMPI_Send(c->buf, (int)s, MPI_BYTE, peer, NC_TAG_DATA, c->comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv(c->buf, c->o->oneway ? 0 : (int)s, MPI_BYTE, peer, NC_TAG_DATA, c->comm, MPI_STATUS_IGNORE);
    if (rtt) *rtt = PMPI_Wtime() - a;
    return rc;
}

/* opts->oneway, before the first size: the fastest of 3 empty round trips
 * (which also warm the connection), the part of every round trip that is
 * not the size's own one-way time. */
static int nc_empty_rtt(nc_ctx *c, int peer)
{
    c->empty_rtt = 0;
    for (int i = 0; i < 3; i++) {
        double rtt;
        int rc = nc_round_trip(c, peer, 0, &rtt);
        if (rc != MPI_SUCCESS) return rc;
        if (i == 0 || rtt < c->empty_rtt) c->empty_rtt = rtt;
    }
    return MPI_SUCCESS;
}

/* The one-way time of a size whose (kept) round trip took rtt seconds. */
static double nc_one_way_us(const nc_ctx *c, double rtt)
{
    if (!c->o->oneway) return rtt * 0.5e6;
    double t = rtt - 0.5 * c->empty_rtt;
    return (t > 0.5 * rtt ? t : 0.5 * rtt) * 1e6;
}

/* The bytes size k's messages may take, never fewer than the size;
 * opts->oneway: its one warm-up message, at least NC_DRAIN_BYTES (within
 * the buffer, sized for the largest size): a
 * shaper's token bucket or a buffer refills while the pair waits between
 * sizes and would pass the first bytes of a one-way stream at once; the
 * warm-up drains it, so the timed messages find the link's steady state. */
#define NC_DRAIN_BYTES ((size_t)32 << 10)
static size_t nc_warm_bytes(const nc_ctx *c, int k)
{
    size_t s = c->sizes[k], max = c->sizes[c->nsizes - 1];
    if (!c->o->oneway || s >= NC_DRAIN_BYTES) return s;
    return NC_DRAIN_BYTES < max ? NC_DRAIN_BYTES : max;
}

/* Initiator side of one size: warm-up, timed round trips, then a control
 * byte telling the partner whether the pair goes on to the next size. */
static int nc_ping(nc_ctx *c, int peer, int k, double *t_us, int *more)
{
    size_t s = c->sizes[k], ws = s;
    int warm = k == 0 ? 3 : (s <= NC_FEWER_REPS_ABOVE ? 1 : 0), rc;
    if (c->o->oneway) {
        /* the empty round trips warm the connection; one message per size
         * drains any burst (nc_warm_bytes) */
        if (k == 0 && (rc = nc_empty_rtt(c, peer)) != MPI_SUCCESS) return rc;
        warm = 1;
        ws = nc_warm_bytes(c, k);
    }
    for (int w = 0; w < warm; w++)
        if ((rc = nc_round_trip(c, peer, ws, NULL)) != MPI_SUCCESS) return rc;
    int n = nc_reps_for(c, s), got = 0, stop = 0;
    while (got < n) {
        double rtt;
        if ((rc = nc_round_trip(c, peer, s, &rtt)) != MPI_SUCCESS) return rc;
        c->rtt[got++] = rtt;
        if (c->o->max_rtt_s > 0 && rtt > c->o->max_rtt_s) {
            stop = 1; /* too slow to grow further: keep what this size has */
            break;
        }
    }
    if (c->o->fastest) {
        /* descheduling and contention only ever add time: the fastest
         * round trip is the least disturbed one */
        double lo = c->rtt[0];
        for (int i = 1; i < got; i++)
            if (c->rtt[i] < lo) lo = c->rtt[i];
        *t_us = nc_one_way_us(c, lo);
    } else {
        *t_us = nc_one_way_us(c, compi_median(c->rtt, got));
    }
    *more = !stop && k + 1 < c->nsizes;
    unsigned char ctrl = (unsigned char)*more;
    return PMPI_Send(&ctrl, 1, MPI_BYTE, peer, NC_TAG_CTRL, c->comm);
}

/* Responder side: echo data messages until the control byte arrives. */
static int nc_pong(nc_ctx *c, int peer, int k, int *more)
{
    size_t s = c->sizes[k], n = nc_warm_bytes(c, k); /* the warm-up's or the size's */
    for (;;) {
        MPI_Status st;
        int rc = PMPI_Recv(c->buf, (int)n, MPI_BYTE, peer, MPI_ANY_TAG, c->comm, &st);
        if (rc != MPI_SUCCESS) return rc;
        if (st.MPI_TAG == NC_TAG_CTRL) {
            *more = c->buf[0] != 0;
            return MPI_SUCCESS;
        }
        rc = PMPI_Send(c->buf, c->o->oneway ? 0 : (int)s, MPI_BYTE, peer, NC_TAG_DATA, c->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
}

/* One phase: every rank of comm calls it; ranks with a partner measure.
 * After each size all ranks agree (allreduce) on whether to go on: some pair
 * still wants a bigger size and the phase's deadline allows it. */
static int nc_phase(nc_ctx *c, int partner, int initiator, double deadline, double *t_us, int *npoints)
{
    int active = partner >= 0, rc;
    *npoints = 0;
    c->steps = 0;
    for (int k = 0; k < c->nsizes; k++) {
        double s0 = PMPI_Wtime();
        size_t need = nc_warm_bytes(c, k);
        if (active && need > c->touched) {
            /* fault the pages in before timing, and only as sizes grow: a
             * budget-bounded run never pays for a max size it won't reach */
            memset(c->buf + c->touched, 0x5a, need - c->touched);
            c->touched = need;
        }
        if (active) {
            int more = 0;
            if (initiator) {
                rc = nc_ping(c, partner, k, &t_us[k], &more);
                *npoints = k + 1;
            } else {
                rc = nc_pong(c, partner, k, &more);
            }
            if (rc != MPI_SUCCESS) return rc;
            active = more;
        }
        double now = PMPI_Wtime();
        double v[3] = {c->rank == 0 ? now - c->t0 : 0, now - s0, active}, g[3];
        rc = nc_allreduce_max(c, v, g, 3);
        if (rc != MPI_SUCCESS) return rc;
        c->elapsed = g[0];
        c->steps = k + 1;
        if (c->o->verbose >= 2 && c->rank == 0) fprintf(stderr, "netcal:   %zu B done (%.3f s)\n", c->sizes[k], g[1]);
        if (g[2] == 0) break;
        /* The next size moves twice the bytes: predict twice this step. A
         * phase measures at least its min_sizes smallest sizes, deadline or not,
         * so every link of the model has a latency and a slope. */
        if (deadline > 0 && k + 1 >= c->o->min_sizes && g[0] + 2 * g[1] > deadline) break;
    }
    return MPI_SUCCESS;
}

static int nc_result_cmp(const void *pa, const void *pb)
{
    const nc_result *a = pa, *b = pb;
    int ia = a->na == a->nb, ib = b->na == b->nb; /* inter links first */
    if (ia != ib) return ia - ib;
    if (a->na != b->na) return a->na < b->na ? -1 : 1;
    return (a->nb > b->nb) - (a->nb < b->nb);
}

/* Keeps a link within what compi_net_load accepts (a wild outlier at a tiny
 * size, e.g. a descheduled rank, could otherwise make an unloadable file). */
static void nc_clamp(compi_net_link *l)
{
    if (l->alpha_us > 1e7) l->alpha_us = 1e7;
    for (int k = 0; k < l->npoints; k++)
        if (l->beta_ns[k] > 1e6) l->beta_ns[k] = 1e6;
}

/* The robust fit of one link's times; 0 (and the model's rejection count
 * and first reason noted) when it is degenerate: no model is better than
 * one that says the link is free and turns compression off. */
static int nc_fit(compi_net_model *m, compi_net_link *l, int n, const double *bytes, const double *t, double lat_us)
{
    char why[160];
    if (compi_net_link_fit_latency(l, n, bytes, t, lat_us, why, sizeof why) == COMPI_OK) {
        nc_clamp(l);
        return 1;
    }
    if (m->nrejected++ == 0)
        snprintf(m->rejected, sizeof m->rejected, "%s %.24s-%.24s: %.120s",
                 l->cls == COMPI_LINK_INTRA ? "intra" : "inter", l->node_a, l->node_b, why);
    return 0;
}

/* Per size, the median over the results of one class; appended as "* *". */
static int nc_add_default(compi_net_model *m, const nc_result *res, int nres, int intra, const double *bytes)
{
    int npoints = 0, n = 0;
    for (int i = 0; i < nres; i++)
        if ((res[i].na == res[i].nb) == intra) {
            n++;
            if (res[i].npoints > npoints) npoints = res[i].npoints;
        }
    if (n == 0) return COMPI_OK;
    double *v = malloc((size_t)n * sizeof *v), t[COMPI_NET_MAX_POINTS];
    if (!v) return COMPI_ERR_NOMEM;
    for (int k = 0; k < npoints; k++) {
        int got = 0;
        for (int i = 0; i < nres; i++)
            if ((res[i].na == res[i].nb) == intra && res[i].npoints > k) v[got++] = res[i].t_us[k];
        t[k] = compi_median(v, got);
    }
    /* the latencies' median, where the pairs measured one */
    double lat = -1;
    int nlat = 0;
    for (int i = 0; i < nres; i++)
        if ((res[i].na == res[i].nb) == intra && res[i].lat_us >= 0) v[nlat++] = res[i].lat_us;
    if (nlat) lat = compi_median(v, nlat);
    free(v);
    compi_net_link l;
    memset(&l, 0, sizeof l);
    l.cls = intra ? COMPI_LINK_INTRA : COMPI_LINK_INTER;
    strcpy(l.node_a, "*");
    strcpy(l.node_b, "*");
    if (!nc_fit(m, &l, npoints, bytes, t, lat)) return COMPI_OK; /* the built-in default stays */
    return compi_net_add(m, &l);
}

/* Rank 0: results -> model (pairs, then the class defaults). */
static int nc_build_model(nc_result *res, int nres, const char (*names)[COMPI_NET_NAME_MAX], const nc_ctx *c,
                          compi_net_model *m)
{
    double bytes[COMPI_NET_MAX_POINTS];
    for (int k = 0; k < c->nsizes; k++) bytes[k] = (double)c->sizes[k];
    qsort(res, (size_t)nres, sizeof *res, nc_result_cmp);
    for (int i = 0; i < nres; i++) {
        compi_net_link l;
        memset(&l, 0, sizeof l);
        l.cls = res[i].na == res[i].nb ? COMPI_LINK_INTRA : COMPI_LINK_INTER;
        snprintf(l.node_a, sizeof l.node_a, "%s", names[res[i].na]);
        snprintf(l.node_b, sizeof l.node_b, "%s", names[res[i].nb]);
        if (!nc_fit(m, &l, res[i].npoints, bytes, res[i].t_us, res[i].lat_us)) continue; /* the class default serves */
        if (compi_net_add(m, &l) != COMPI_OK) return COMPI_ERR_NOMEM;
    }
    int rc = nc_add_default(m, res, nres, 0, bytes);
    if (rc == COMPI_OK) rc = nc_add_default(m, res, nres, 1, bytes);
    return rc;
}

/* Tests: the times of a known link instead of the measured ones, every
 * outlier_every-th size 50x slower (a descheduled rank), the first
 * inject_burst bytes of each size passed at once (a token bucket). */
static void nc_inject(const compi_netcal_opts *o, const size_t *sizes, nc_result *r)
{
    double *t_us = r->t_us;
    int n = r->npoints;
    if (o->oneway) r->lat_us = o->inject_alpha_us; /* an empty message takes the latency */
    for (int k = 0; k < n; k++) {
        double paced = (double)sizes[k] > o->inject_burst ? (double)sizes[k] - o->inject_burst : 0;
        t_us[k] = o->inject_alpha_us + paced * o->inject_beta_ns * 1e-3;
        if (o->inject_outlier_every > 0 && k % o->inject_outlier_every == o->inject_outlier_every - 1) t_us[k] *= 50;
    }
}

/* The pair of node `me` in tournament round r of M (even) slots; -1 = bye. */
static int nc_round_partner(int me, int r, int M)
{
    if (me == M - 1) return r;
    if (me == r) return M - 1;
    /* (r + i, r - i) mod (M - 1) for i = 1 .. M/2 - 1 */
    int i = ((me - r) % (M - 1) + (M - 1)) % (M - 1); /* me = r + i */
    return ((r - i) % (M - 1) + (M - 1)) % (M - 1);
}

/* Each node's leader (its lowest rank) and second rank (-1: none); my
 * roles; the nodes with an intra pair (mine among them: *myintra) and the
 * nodes with a rank (inter_only: no intra pairs). */
static void nc_roles(int nnodes, const int *node_of_rank, int size, int rank, int *leader, int *second, int *is_leader,
                     int *is_second, int *nintra, int *nreal, int *myintra, int inter_only)
{
    for (int n = 0; n < nnodes; n++) leader[n] = second[n] = -1;
    for (int r = 0; r < size; r++) {
        int n = node_of_rank[r];
        if (leader[n] < 0) leader[n] = r;
        else if (second[n] < 0) second[n] = r;
    }
    int mynode = node_of_rank[rank];
    *is_leader = leader[mynode] == rank;
    *is_second = second[mynode] == rank;
    for (int n = 0; n < nnodes; n++) {
        if (second[n] >= 0) {
            if (n == mynode) *myintra = *nintra;
            (*nintra)++;
        }
        if (leader[n] >= 0) (*nreal)++;
    }
    if (inter_only) {
        /* no intra phase: a node's second rank has nothing to measure */
        *is_second = 0;
        *nintra = 0;
        *myintra = -1;
    }
}

/* opts->serial: the tournament's node pairs (a, b), in phase order, one
 * phase each; *npairs of them. NULL: no memory. */
static int *nc_serial_pairs(int nnodes, const int *leader, int nrounds, int M, int *npairs)
{
    int *pairs = malloc((size_t)nrounds * (size_t)(M / 2) * 2 * sizeof *pairs);
    if (!pairs) return NULL;
    *npairs = 0;
    for (int r = 0; r < nrounds; r++)
        for (int a = 0; a < M; a++) {
            int b = nc_round_partner(a, r, M);
            if (a < b && b < nnodes && leader[a] >= 0 && leader[b] >= 0) {
                pairs[2 * *npairs] = a;
                pairs[2 * *npairs + 1] = b;
                (*npairs)++;
            }
        }
    return pairs;
}

/* Phase ph's deadline under the budget (0: none): an equal share of what
 * is left. */
static double nc_phase_deadline(const nc_ctx *c, int ph, int nphases, int *budget_noted)
{
    const compi_netcal_opts *opts = c->o;
    if (opts->budget_s <= 0) return 0;
    double left = opts->budget_s - c->elapsed;
    if (left > 0) return c->elapsed + left / (nphases - ph);
    /* spent (a slow start, a loaded machine): the remaining
     * phases still measure their min_sizes smallest sizes, so no link
     * is missing from the model; the budget bounds growth */
    if (opts->verbose && c->rank == 0 && ph > 0 && !*budget_noted)
        fprintf(stderr, "netcal: budget of %.3g s spent; %d of %d phases measure their smallest sizes only\n",
                opts->budget_s, nphases - ph, nphases);
    *budget_noted = 1;
    return c->elapsed > 0 ? c->elapsed : 1e-9;
}

/* Every rank's results to rank 0 (*all, *total bytes there; counts and
 * displs: rank 0's, of size entries). */
static int nc_gather_results(nc_ctx *c, const nc_result *res, int nres, int size, int *counts, int *displs,
                             nc_result **all, int *total)
{
    int mybytes = nres * (int)sizeof(nc_result), ok = COMPI_OK;
    int rc = PMPI_Gather(&mybytes, 1, MPI_INT, counts, 1, MPI_INT, 0, c->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (c->rank == 0) {
        for (int r = 0; r < size; r++) {
            displs[r] = *total;
            *total += counts[r];
        }
        *all = malloc(*total > 0 ? (size_t)*total : 1);
        if (!*all) ok = COMPI_ERR_NOMEM;
    }
    rc = PMPI_Bcast(&ok, 1, MPI_INT, 0, c->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (ok != COMPI_OK) return ok;
    return PMPI_Gatherv(res, mybytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, c->comm);
}

/* Rank 0's nlinks links of the model to every rank. */
static int nc_bcast_links(nc_ctx *c, compi_net_model *out, int nlinks)
{
    if (c->rank != 0) {
        out->links = malloc((size_t)nlinks * sizeof *out->links);
        out->nlinks = out->links ? nlinks : 0;
    }
    int have = out->links != NULL, allhave;
    int rc = PMPI_Allreduce(&have, &allhave, 1, MPI_INT, MPI_MIN, c->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (!allhave) return COMPI_ERR_NOMEM;
    MPI_Datatype link_t;
    rc = PMPI_Type_contiguous((int)sizeof(compi_net_link), MPI_BYTE, &link_t);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&link_t);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Bcast(out->links, nlinks, link_t, 0, c->comm);
    PMPI_Type_free(&link_t);
    return rc;
}

/* The message sizes to time: from min_bytes (at least 2) doubling, or
 * growing by 2^size_shift, up to max_bytes (at most NC_MAX_MSG). */
static void nc_sizes(nc_ctx *cp, const compi_netcal_opts *opts)
{
    size_t max = opts->max_bytes < 2 ? 2 : opts->max_bytes;
    if (max > NC_MAX_MSG) max = NC_MAX_MSG;
    int shift = opts->size_shift > 0 ? opts->size_shift : 1;
    for (size_t s = opts->min_bytes >= 2 ? opts->min_bytes : 2; s <= max && cp->nsizes < COMPI_NET_MAX_POINTS;
         s <<= shift)
        cp->sizes[cp->nsizes++] = s;
}

/* The node a leader meets in inter phase ip: the tournament's round
 * partner, or in serial mode its side of the phase's pair (-1: none). */
static int nc_inter_partner_node(int mynode, int ip, int M, const int *serial_pairs)
{
    if (!serial_pairs) return nc_round_partner(mynode, ip, M);
    if (serial_pairs[2 * ip] == mynode) return serial_pairs[2 * ip + 1];
    if (serial_pairs[2 * ip + 1] == mynode) return serial_pairs[2 * ip];
    return -1;
}

int compi_netcal_measure(MPI_Comm comm, int nnodes, const int *node_of_rank,
                         const char (*node_names)[COMPI_NET_NAME_MAX], const compi_netcal_opts *opts,
                         compi_net_model *out, double *seconds_spent)
{
    memset(out, 0, sizeof *out);
    if (seconds_spent) *seconds_spent = 0;
    if (!opts || opts->reps < 1 || nnodes < 1 || !node_of_rank || !node_names) return COMPI_ERR_CONFIG;
    nc_ctx c;
    memset(&c, 0, sizeof c);
    c.o = opts;
    c.t0 = PMPI_Wtime();
    int size, rc;
    PMPI_Comm_size(comm, &size);
    for (int r = 0; r < size; r++)
        if (node_of_rank[r] < 0 || node_of_rank[r] >= nnodes) return COMPI_ERR_CONFIG;
    nc_sizes(&c, opts);

    /* Our own communicator: no tag or message can mix with the caller's. */
    rc = PMPI_Comm_dup(comm, &c.comm);
    if (rc != MPI_SUCCESS) return rc;
    PMPI_Comm_rank(c.comm, &c.rank);

    int *leader = malloc((size_t)nnodes * sizeof *leader);
    int *second = malloc((size_t)nnodes * sizeof *second);
    nc_result *res = NULL, *all = NULL;
    int *serial_pairs = NULL; /* node pairs (a, b) in phase order, opts->serial only */
    int nres = 0, *counts = NULL, *displs = NULL;
    int bad = !leader || !second;
    if (c.rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
        bad |= !counts || !displs;
    }
    int mynode = node_of_rank[c.rank];
    int is_leader = 0, is_second = 0;
    int nintra = 0, nreal = 0, myintra = -1; /* nodes with an intra pair; mine among them */
    if (!bad)
        nc_roles(nnodes, node_of_rank, size, c.rank, leader, second, &is_leader, &is_second, &nintra, &nreal, &myintra,
                 opts->inter_only);
    int M = nnodes % 2 ? nnodes + 1 : nnodes;
    int nrounds = nreal >= 2 ? M - 1 : 0;
    int measures = (is_leader && (nrounds > 0 || (second[mynode] >= 0 && !opts->inter_only))) || is_second;
    if (measures && !bad) {
        c.buf = malloc(c.sizes[c.nsizes - 1]);
        c.rtt = malloc((size_t)opts->reps * sizeof *c.rtt);
        /* at most one result per round (a node meets each other node
         * once, serial or not) plus the intra one */
        res = malloc((size_t)(nrounds + 1) * sizeof *res);
        if (!c.buf || !c.rtt || !res) bad = 1;
    }
    {
        double v[2] = {c.rank == 0 ? PMPI_Wtime() - c.t0 : 0, bad}, g[2];
        rc = PMPI_Allreduce(v, g, 2, MPI_DOUBLE, MPI_MAX, c.comm);
        if (rc != MPI_SUCCESS) goto out;
        c.elapsed = g[0];
        if (g[1] != 0) {
            rc = COMPI_ERR_NOMEM;
            goto out;
        }
    }

    /* Phases: the intra pairs first (all at once; serial: one node at a
     * time) -- shared memory is quick, so under a budget they leave nearly
     * all of it to the inter pairs, which matter more -- then the
     * tournament's rounds (serial: each of their pairs alone). */
    int ninter = nrounds;
    if (opts->serial && nrounds > 0) {
        serial_pairs = nc_serial_pairs(nnodes, leader, nrounds, M, &ninter);
        if (!serial_pairs) {
            rc = COMPI_ERR_NOMEM;
            goto out;
        } /* same on every rank: same sizes */
    }
    int intra_phases = opts->serial ? nintra : nintra > 0;
    int nphases = ninter + intra_phases;
    int budget_noted = 0;
    for (int ph = 0; ph < nphases; ph++) {
        double deadline = nc_phase_deadline(&c, ph, nphases, &budget_noted);
        int partner = -1, initiator = 0, na = -1, nb = -1;
        int inter = ph >= intra_phases, ip = ph - intra_phases; /* ip: index among inter phases */
        if (inter && is_leader) {
            int pn = nc_inter_partner_node(mynode, ip, M, serial_pairs);
            if (pn >= 0 && pn < nnodes && leader[pn] >= 0) {
                partner = leader[pn];
                initiator = mynode < pn;
                na = mynode;
                nb = pn;
            }
        } else if (!inter && myintra >= 0 && (!opts->serial || ph == myintra)) {
            if (is_leader) {
                partner = second[mynode];
                initiator = 1;
                na = nb = mynode;
            } else if (is_second) {
                partner = leader[mynode];
            }
        }
        nc_result r;
        memset(&r, 0, sizeof r);
        r.na = na;
        r.nb = nb;
        r.lat_us = -1;
        rc = nc_phase(&c, partner, initiator, deadline, r.t_us, &r.npoints);
        if (rc != MPI_SUCCESS) goto out;
        if (initiator && opts->oneway) r.lat_us = c.empty_rtt * 0.5e6; /* its fastest empty round trip's half */
        if (initiator && opts->inject) nc_inject(opts, c.sizes, &r);
        if (initiator && r.npoints > 0) res[nres++] = r;
        if (opts->verbose && c.rank == 0)
            fprintf(stderr, "netcal: %s %d/%d done: sizes up to %zu B, %.2f s so far\n",
                    inter ? (serial_pairs ? "inter pair" : "inter round") : "intra phase", inter ? ip + 1 : ph + 1,
                    inter ? ninter : intra_phases, c.sizes[c.steps > 0 ? c.steps - 1 : 0], c.elapsed);
    }

    /* All results to rank 0, which builds the model and sends it to everyone. */
    int total = 0, head[3] = {COMPI_OK, 0, 0};
    rc = nc_gather_results(&c, res, nres, size, counts, displs, &all, &total);
    if (rc != MPI_SUCCESS) goto out;
    double spent = PMPI_Wtime() - c.t0;
    if (c.rank == 0) {
        head[0] = nc_build_model(all, total / (int)sizeof(nc_result), node_names, &c, out);
        head[1] = out->nlinks;
        /* at most 5 words: compi_net_load takes no more on a source line */
        snprintf(out->source, sizeof out->source, "compi_netcal_measure %d-nodes median-of-%d max-%zu-B %.2f-s", nreal,
                 opts->reps, c.sizes[c.nsizes - 1], spent);
    }
    rc = PMPI_Bcast(head, 2, MPI_INT, 0, c.comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(&spent, 1, MPI_DOUBLE, 0, c.comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(out->source, sizeof out->source, MPI_CHAR, 0, c.comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(&out->nrejected, 1, MPI_INT, 0, c.comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(out->rejected, sizeof out->rejected, MPI_CHAR, 0, c.comm);
    if (rc != MPI_SUCCESS) goto out;
    if (head[0] != COMPI_OK) {
        rc = head[0];
        goto out;
    }
    if (head[1] > 0 && (rc = nc_bcast_links(&c, out, head[1])) != MPI_SUCCESS) goto out;
    if (seconds_spent) *seconds_spent = spent;
out:
    if (rc != COMPI_OK) compi_net_free(out);
    free(serial_pairs);
    free(all);
    free(counts);
    free(displs);
    free(res);
    free(c.buf);
    free(c.rtt);
    free(leader);
    free(second);
    PMPI_Comm_free(&c.comm);
    return rc;
}
