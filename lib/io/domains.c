/* SPDX-License-Identifier: BSD-3-Clause */
/* File domains, processes x domains matrices, aggregator placements and
 * redistribution volume (see io.h). MPI-free. */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

int compi_io_domains_make(int64_t start, int64_t end, int n, int64_t stripe, compi_io_domains *d)
{
    if (!d || n <= 0 || end < start || stripe < 0) return COMPI_IO_ERR_ARG;
    d->n = n;
    d->start = start;
    d->end = end;
    d->begin = malloc(sizeof(int64_t) * (size_t)n);
    d->stop = malloc(sizeof(int64_t) * (size_t)n);
    if (!d->begin || !d->stop) {
        compi_io_domains_free(d);
        return COMPI_ERR_NOMEM;
    }
    int64_t size = (end - start + n - 1) / n;
    int64_t at = start;
    for (int k = 0; k < n; k++) {
        int64_t e = start + (int64_t)(k + 1) * size;
        if (stripe > 0 && e % stripe) e += stripe - e % stripe;
        if (e > end || k == n - 1) e = end;
        if (e < at) e = at;
        d->begin[k] = at;
        d->stop[k] = e;
        at = e;
    }
    return COMPI_OK;
}

void compi_io_domains_free(compi_io_domains *d)
{
    if (!d) return;
    free(d->begin);
    free(d->stop);
    d->begin = d->stop = NULL;
    d->n = 0;
}

void compi_io_access_range(int nprocs, const compi_io_segs *segs, int64_t *start, int64_t *end)
{
    int any = 0;
    int64_t lo = 0, hi = 0;
    for (int p = 0; p < nprocs; p++)
        for (size_t k = 0; k < segs[p].n; k++) {
            int64_t a = segs[p].v[k].off, b = a + segs[p].v[k].len;
            if (!any || a < lo) lo = a;
            if (!any || b > hi) hi = b;
            any = 1;
        }
    *start = lo;
    *end = hi;
}

/* The domain holding byte off (domains are sorted and contiguous). */
static int domain_of(const compi_io_domains *d, int64_t off)
{
    int lo = 0, hi = d->n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (off < d->stop[mid]) hi = mid;
        else lo = mid + 1;
    }
    while (lo < d->n - 1 && d->stop[lo] <= off) lo++; /* skip empty domains */
    return lo;
}

int compi_io_domain_matrix(const compi_io_domains *d, int nprocs, const compi_io_segs *segs, double *bytes,
                           double *blocks)
{
    if (!d || nprocs < 0 || (nprocs && !segs)) return COMPI_IO_ERR_ARG;
    size_t cells = (size_t)nprocs * (size_t)d->n;
    if (bytes) memset(bytes, 0, cells * sizeof *bytes);
    if (blocks) memset(blocks, 0, cells * sizeof *blocks);
    for (int p = 0; p < nprocs; p++)
        for (size_t s = 0; s < segs[p].n; s++) {
            int64_t a = segs[p].v[s].off, b = a + segs[p].v[s].len;
            if (a < d->start || b > d->end) return COMPI_IO_ERR_ARG; /* outside the range */
            while (a < b) {                                          /* one piece per domain the segment touches */
                int k = domain_of(d, a);
                int64_t e = b < d->stop[k] ? b : d->stop[k];
                if (bytes) bytes[(size_t)p * d->n + k] += (double)(e - a);
                if (blocks) blocks[(size_t)p * d->n + k] += 1;
                a = e;
            }
        }
    return COMPI_OK;
}

int compi_io_place_default(int nprocs, const int *node_of, int cb_nodes, int *agg)
{
    if (nprocs <= 0 || !agg || cb_nodes < 0) return COMPI_IO_ERR_ARG;
    int n = 0;
    for (int p = 0; p < nprocs; p++) {
        int first = 1;
        if (node_of)
            for (int q = 0; q < p && first; q++)
                if (node_of[q] == node_of[p]) first = 0;
        if (first) agg[n++] = p;
    }
    if (cb_nodes > 0 && cb_nodes < n) n = cb_nodes;
    return n;
}

int compi_io_place_la(int nprocs, int ndomains, const double *w, const unsigned char *candidate, const int *node_of,
                      int one_per_node, int *agg)
{
    if (nprocs <= 0 || ndomains < 0 || !w || !agg || (one_per_node && !node_of)) return COMPI_IO_ERR_ARG;
    if (ndomains == 0) return COMPI_OK;
    /* rows: candidate processes, or nodes with each node's best candidate per domain */
    int *rowproc = malloc(sizeof(int) * (size_t)nprocs); /* row -> process (process mode) */
    int *nodeid = malloc(sizeof(int) * (size_t)nprocs);  /* row -> node id (node mode) */
    int *best = NULL;
    double *m = NULL;
    int *col_row = malloc(sizeof(int) * (size_t)ndomains);
    int rc = COMPI_OK, rows = 0;
    if (!rowproc || !nodeid || !col_row) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    if (!one_per_node) {
        for (int p = 0; p < nprocs; p++)
            if (!candidate || candidate[p]) rowproc[rows++] = p;
    } else {
        for (int p = 0; p < nprocs; p++) {
            if (candidate && !candidate[p]) continue;
            int seen = 0;
            for (int r = 0; r < rows && !seen; r++) seen = nodeid[r] == node_of[p];
            if (!seen) nodeid[rows++] = node_of[p];
        }
    }
    if (rows < ndomains) {
        rc = COMPI_IO_ERR_INFEASIBLE;
        goto done;
    }
    m = malloc(sizeof(double) * (size_t)rows * (size_t)ndomains);
    if (!m) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    if (!one_per_node) {
        for (int r = 0; r < rows; r++)
            memcpy(m + (size_t)r * ndomains, w + (size_t)rowproc[r] * ndomains, sizeof(double) * (size_t)ndomains);
    } else {
        best = malloc(sizeof(int) * (size_t)rows * (size_t)ndomains);
        if (!best) {
            rc = COMPI_ERR_NOMEM;
            goto done;
        }
        for (int r = 0; r < rows; r++)
            for (int k = 0; k < ndomains; k++) {
                int bp = -1;
                for (int p = 0; p < nprocs; p++) {
                    if (node_of[p] != nodeid[r] || (candidate && !candidate[p])) continue;
                    if (bp < 0 || w[(size_t)p * ndomains + k] > w[(size_t)bp * ndomains + k]) bp = p;
                }
                best[(size_t)r * ndomains + k] = bp;
                m[(size_t)r * ndomains + k] = w[(size_t)bp * ndomains + k];
            }
    }
    rc = compi_assign_solve(rows, ndomains, m, COMPI_ASSIGN_MAX, NULL, col_row, NULL);
    if (rc == COMPI_OK)
        for (int k = 0; k < ndomains; k++)
            agg[k] = one_per_node ? best[(size_t)col_row[k] * ndomains + k] : rowproc[col_row[k]];
done:
    free(rowproc);
    free(nodeid);
    free(best);
    free(m);
    free(col_row);
    return rc;
}

/* The one-aggregator-per-node placement that moves the fewest bytes across
 * nodes: the assignment maximising each node's summed bytes per domain, each
 * domain's aggregator the node's member holding most of it (lowest rank on
 * ties), or def itself: whichever moves fewest bytes across nodes, among
 * those moving no more bytes between processes than def (see io.h). */
int compi_io_place_la_net(int nprocs, int ndomains, const double *bytes, const int *node_of, const int *def, int *agg)
{
    if (nprocs <= 0 || ndomains < 0 || !bytes || !node_of || !def || !agg) return COMPI_IO_ERR_ARG;
    if (ndomains == 0) return COMPI_OK;
    int *nodeid = malloc(sizeof(int) * (size_t)nprocs), *col_row = malloc(sizeof(int) * (size_t)ndomains);
    int *cand = malloc(sizeof(int) * (size_t)ndomains), rows = 0, rc = COMPI_OK;
    double *m = NULL;
    if (!nodeid || !col_row || !cand) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    for (int p = 0; p < nprocs; p++) {
        int seen = 0;
        for (int r = 0; r < rows && !seen; r++) seen = nodeid[r] == node_of[p];
        if (!seen) nodeid[rows++] = node_of[p];
    }
    if (rows < ndomains) {
        rc = COMPI_IO_ERR_INFEASIBLE;
        goto done;
    }
    m = calloc((size_t)rows * (size_t)ndomains, sizeof(double));
    if (!m) {
        rc = COMPI_ERR_NOMEM;
        goto done;
    }
    for (int r = 0; r < rows; r++)
        for (int p = 0; p < nprocs; p++)
            if (node_of[p] == nodeid[r])
                for (int k = 0; k < ndomains; k++) m[(size_t)r * ndomains + k] += bytes[(size_t)p * ndomains + k];
    rc = compi_assign_solve(rows, ndomains, m, COMPI_ASSIGN_MAX, NULL, col_row, NULL);
    if (rc != COMPI_OK) goto done;
    for (int k = 0; k < ndomains; k++) {
        int bp = -1;
        for (int p = 0; p < nprocs; p++)
            if (node_of[p] == nodeid[col_row[k]] &&
                (bp < 0 || bytes[(size_t)p * ndomains + k] > bytes[(size_t)bp * ndomains + k]))
                bp = p;
        cand[k] = bp;
    }
    compi_io_volume vn, vl, vd;
    if ((rc = compi_io_volume_of(nprocs, ndomains, bytes, cand, node_of, &vn)) != COMPI_OK ||
        (rc = compi_io_volume_of(nprocs, ndomains, bytes, agg, node_of, &vl)) != COMPI_OK ||
        (rc = compi_io_volume_of(nprocs, ndomains, bytes, def, node_of, &vd)) != COMPI_OK)
        goto done;
    /* the fewest bytes across nodes of: agg, the node placement (if it moves
     * no more than default), default itself; ties keep the earlier */
    const int *pick = agg;
    int64_t bi = vl.internode;
    if (vn.moved <= vd.moved && vn.internode < bi) pick = cand, bi = vn.internode;
    if (vd.internode < bi) pick = def;
    if (pick != agg) memcpy(agg, pick, sizeof(int) * (size_t)ndomains);
done:
    free(nodeid);
    free(col_row);
    free(cand);
    free(m);
    return rc;
}

int compi_io_volume_of(int nprocs, int ndomains, const double *bytes, const int *agg, const int *node_of,
                       compi_io_volume *v)
{
    if (nprocs <= 0 || ndomains < 0 || !bytes || !agg || !v) return COMPI_IO_ERR_ARG;
    memset(v, 0, sizeof *v);
    for (int k = 0; k < ndomains; k++) {
        int a = agg[k];
        if (a < 0 || a >= nprocs) return COMPI_IO_ERR_ARG;
        for (int p = 0; p < nprocs; p++) {
            int64_t b = (int64_t)bytes[(size_t)p * ndomains + k];
            if (b == 0) continue;
            v->total += b;
            if (p == a) {
                v->local += b;
                continue;
            }
            v->moved += b;
            v->messages++;
            int remote = node_of ? node_of[p] != node_of[a] : 1;
            if (remote) {
                v->internode += b;
                v->internode_messages++;
            }
        }
    }
    return COMPI_OK;
}
