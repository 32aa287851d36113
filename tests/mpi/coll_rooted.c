/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_rooted: MPI_Bcast, MPI_Scatter, MPI_Scatterv, MPI_Gather, MPI_Gatherv
 * with every root, counts 0 / small / large, MPI_IN_PLACE at the root
 * (Gather/Gatherv sendbuf, Scatter/Scatterv recvbuf), derived datatypes
 * (vector Bcast; column-type Scatter/Gather), on MPI_COMM_WORLD, a dup of it and
 * sub-communicators from MPI_Comm_split (reversed key order).  Every result is
 * compared with values computed locally; receive-buffer bytes outside the
 * message (tails, Gatherv gaps) must stay untouched. */
#include "mpitest.h"

static MPI_Comm comm;
static int crank, csize, cid;
static const char *cname;

static uint64_t seedf(int root, int op, int var, int who)
{
    return (uint64_t)cid * 1000003 + (uint64_t)root * 10007 + (uint64_t)op * 101 + (uint64_t)var * 11 + (uint64_t)who;
}
static char kind_for(int v) { return "dibf"[v % 4]; }
static int pat_for(int v) { return v % 3 == 2 ? PAT_RANDOM : (v % 2 ? PAT_SMOOTH : PAT_RAMP); }

static void gname(char *w, size_t n, const char *op, int root, int count, char kind, const char *extra)
{
    snprintf(w, n, "%s on %s (size %d) root %d, %s x %d%s", op, cname, csize, root, mt_kind_name(kind), count, extra);
}

static void test_bcast(int root)
{
    static const int counts[] = {0, 1, 1000, 300000};
    for (int v = 0; v < 4; v++) {
        int n = counts[v];
        char k = kind_for(v + root);
        int pat = pat_for(v + root);
        size_t es = mt_kind_size(k), cap = (size_t)(n + 16) * es;
        unsigned char *buf = mt_malloc(cap);
        uint64_t seed = seedf(root, 1, v, 0);
        if (crank == root) mt_fill(buf, n, k, pat, seed);
        else memset(buf, MT_SENTINEL, cap);
        MPI_CALL(MPI_Bcast(buf, n, mt_kind_type(k), root, comm));
        char w[200];
        gname(w, sizeof w, "MPI_Bcast", root, n, k, "");
        CHECK_PATTERN(w, buf, n, k, pat, seed);
        if (crank != root) CHECK_SENTINEL(w, buf, (size_t)n * es, cap);
        free(buf);
    }
    /* derived: 2 x vector(1000 blocks of 3 ints, stride 7) */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 3, 7, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec, &lb, &ext);
    size_t total = (size_t)(2 * ext) / 4;
    int *buf = mt_malloc(total * 4), *exp = mt_malloc(total * 4);
    uint64_t seed = seedf(root, 2, 0, 0);
    mt_fill(exp, total, 'i', PAT_SMOOTH, seed);
    if (crank == root) memcpy(buf, exp, total * 4);
    else {
        memset(buf, MT_SENTINEL, total * 4);
        /* expected: only the typemap positions of 2 consecutive vectors are written */
        int *e2 = mt_malloc(total * 4);
        memset(e2, MT_SENTINEL, total * 4);
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < 1000; b++)
                for (int j = 0; j < 3; j++) {
                    size_t i = (size_t)c * (ext / 4) + (size_t)b * 7 + j;
                    if (i < total) e2[i] = exp[i];
                }
        memcpy(exp, e2, total * 4);
        free(e2);
    }
    MPI_CALL(MPI_Bcast(buf, 2, vec, root, comm));
    char w[200];
    gname(w, sizeof w, "MPI_Bcast", root, 2, 'i', " [vector(1000,3,7) type; gaps untouched]");
    CHECK_DATA(w, buf, exp, total, 'i');
    MPI_Type_free(&vec);
    free(buf);
    free(exp);
}

static void test_scatter_gather(int root)
{
    static const int counts[] = {0, 5, 70000};
    for (int v = 0; v < 3; v++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            int c = counts[v];
            char k = kind_for(v + inplace + root);
            int pat = pat_for(v + root + inplace);
            size_t es = mt_kind_size(k);
            MPI_Datatype t = mt_kind_type(k);
            char w[200];
            /* Scatter: root's sendbuf = csize chunks of pattern seeded by chunk index */
            unsigned char *sb = NULL, *rb = mt_malloc((size_t)(c + 8) * es);
            memset(rb, MT_SENTINEL, (size_t)(c + 8) * es);
            if (crank == root) {
                sb = mt_malloc((size_t)csize * c * es + 1);
                for (int i = 0; i < csize; i++) mt_fill(sb + (size_t)i * c * es, c, k, pat, seedf(root, 3, v, i));
            }
            if (crank == root && inplace)
                MPI_CALL(MPI_Scatter(sb, c, t, MPI_IN_PLACE, c, t, root, comm));
            else
                MPI_CALL(MPI_Scatter(sb, c, t, rb, c, t, root, comm));
            gname(w, sizeof w, "MPI_Scatter", root, c, k, inplace ? " [IN_PLACE at root]" : "");
            if (crank == root && inplace) {
                for (int i = 0; i < csize; i++) /* root's sendbuf unchanged, its own chunk in place */
                    CHECK_PATTERN(w, sb + (size_t)i * c * es, c, k, pat, seedf(root, 3, v, i));
                CHECK_SENTINEL(w, rb, 0, (size_t)(c + 8) * es);
            } else {
                CHECK_PATTERN(w, rb, c, k, pat, seedf(root, 3, v, crank));
                CHECK_SENTINEL(w, rb, (size_t)c * es, (size_t)(c + 8) * es);
            }
            free(sb);
            free(rb);

            /* Gather: each rank contributes pattern seeded by its rank */
            unsigned char *mine = mt_malloc((size_t)c * es + 1), *all = NULL;
            mt_fill(mine, c, k, pat, seedf(root, 4, v, crank));
            size_t allsz = (size_t)(csize * c + 8) * es;
            if (crank == root) {
                all = mt_malloc(allsz);
                memset(all, MT_SENTINEL, allsz);
                if (inplace) memcpy(all + (size_t)root * c * es, mine, (size_t)c * es);
            }
            if (crank == root && inplace)
                MPI_CALL(MPI_Gather(MPI_IN_PLACE, c, t, all, c, t, root, comm));
            else
                MPI_CALL(MPI_Gather(mine, c, t, all, c, t, root, comm));
            gname(w, sizeof w, "MPI_Gather", root, c, k, inplace ? " [IN_PLACE at root]" : "");
            if (crank == root) {
                for (int i = 0; i < csize; i++) {
                    char w2[240];
                    snprintf(w2, sizeof w2, "%s: block from comm rank %d", w, i);
                    CHECK_PATTERN(w2, all + (size_t)i * c * es, c, k, pat, seedf(root, 4, v, i));
                }
                CHECK_SENTINEL(w, all, (size_t)csize * c * es, allsz);
            }
            free(mine);
            free(all);
        }
    }
}

/* Scatterv / Gatherv: counts vary per rank (some zero), displacements in
 * reverse rank order with gaps. */
static void test_v(int root)
{
    static const int bases[] = {3, 40000};
    for (int v = 0; v < 2; v++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            int *cnt = mt_malloc(csize * sizeof(int)), *dsp = mt_malloc(csize * sizeof(int));
            int pos = 2;
            for (int i = csize - 1; i >= 0; i--) {
                cnt[i] = ((i + root + v) % 3 == 1) ? 0 : bases[v] * (i + 1);
                dsp[i] = pos;
                pos += cnt[i] + 1 + i; /* gap after each block */
            }
            int span = pos + 4;
            char k = kind_for(v + 2 * inplace + root + 1);
            int pat = pat_for(v + inplace + root + 1);
            size_t es = mt_kind_size(k);
            MPI_Datatype t = mt_kind_type(k);
            int me = cnt[crank];
            char w[200], extra[64];
            snprintf(extra, sizeof extra, " [my count %d%s]", me, inplace ? ", IN_PLACE at root" : "");

            /* Scatterv */
            unsigned char *sb = NULL, *rb = mt_malloc((size_t)(me + 8) * es);
            memset(rb, MT_SENTINEL, (size_t)(me + 8) * es);
            if (crank == root) {
                sb = mt_malloc((size_t)span * es);
                memset(sb, 0x5a, (size_t)span * es);
                for (int i = 0; i < csize; i++) mt_fill(sb + (size_t)dsp[i] * es, cnt[i], k, pat, seedf(root, 5, v, i));
            }
            if (crank == root && inplace)
                MPI_CALL(MPI_Scatterv(sb, cnt, dsp, t, MPI_IN_PLACE, me, t, root, comm));
            else
                MPI_CALL(MPI_Scatterv(sb, cnt, dsp, t, rb, me, t, root, comm));
            gname(w, sizeof w, "MPI_Scatterv", root, bases[v], k, extra);
            if (crank == root && inplace) {
                CHECK_PATTERN(w, sb + (size_t)dsp[root] * es, me, k, pat, seedf(root, 5, v, root));
                CHECK_SENTINEL(w, rb, 0, (size_t)(me + 8) * es);
            } else {
                CHECK_PATTERN(w, rb, me, k, pat, seedf(root, 5, v, crank));
                CHECK_SENTINEL(w, rb, (size_t)me * es, (size_t)(me + 8) * es);
            }
            free(sb);
            free(rb);

            /* Gatherv */
            unsigned char *mine = mt_malloc((size_t)me * es + 1), *all = NULL;
            mt_fill(mine, me, k, pat, seedf(root, 6, v, crank));
            if (crank == root) {
                all = mt_malloc((size_t)span * es);
                memset(all, MT_SENTINEL, (size_t)span * es);
                if (inplace) memcpy(all + (size_t)dsp[root] * es, mine, (size_t)me * es);
            }
            if (crank == root && inplace)
                MPI_CALL(MPI_Gatherv(MPI_IN_PLACE, me, t, all, cnt, dsp, t, root, comm));
            else
                MPI_CALL(MPI_Gatherv(mine, me, t, all, cnt, dsp, t, root, comm));
            gname(w, sizeof w, "MPI_Gatherv", root, bases[v], k, extra);
            if (crank == root) {
                unsigned char *exp = mt_malloc((size_t)span * es);
                memset(exp, MT_SENTINEL, (size_t)span * es);
                for (int i = 0; i < csize; i++) mt_fill(exp + (size_t)dsp[i] * es, cnt[i], k, pat, seedf(root, 6, v, i));
                /* compare the full span bytewise: blocks and untouched gaps */
                size_t bad = 0, first = 0, nb = (size_t)span * es;
                for (size_t i = 0; i < nb; i++)
                    if (all[i] != exp[i]) { if (!bad) first = i; bad++; }
                if (!bad) mt_gpass++;
                else {
                    int owner = -1;
                    for (int i = 0; i < csize; i++)
                        if (first >= (size_t)dsp[i] * es && first < (size_t)(dsp[i] + cnt[i]) * es) owner = i;
                    mt_failf(__LINE__, w, "%zu bytes differ; first at byte %zu (%s): expected 0x%02x, got 0x%02x", bad,
                             first, owner >= 0 ? "inside a block" : "in a gap that must stay untouched", exp[first],
                             all[first]);
                }
                free(exp);
            }
            free(mine);
            free(all);
            free(cnt);
            free(dsp);
        }
    }
}

/* Column scatter/gather with a resized vector type at the root. */
static void test_derived(int root)
{
    int R = 20000;
    MPI_Datatype col, colr;
    MPI_Type_vector(R, 1, csize, MPI_DOUBLE, &col);
    MPI_Type_create_resized(col, 0, sizeof(double), &colr);
    MPI_Type_commit(&colr);
    MPI_Type_free(&col);
    double *mat = NULL, *mat2 = NULL, *mycol = mt_malloc((size_t)(R + 4) * sizeof(double));
    size_t nm = (size_t)R * csize;
    uint64_t seed = seedf(root, 7, 0, 0);
    if (crank == root) {
        mat = mt_malloc(nm * sizeof(double));
        mat2 = mt_malloc(nm * sizeof(double));
        mt_fill(mat, nm, 'd', PAT_SMOOTH, seed);
        memset(mat2, MT_SENTINEL, nm * sizeof(double));
    }
    memset(mycol, MT_SENTINEL, (size_t)(R + 4) * sizeof(double));
    MPI_CALL(MPI_Scatter(mat, 1, colr, mycol, R, MPI_DOUBLE, root, comm));
    double *expcol = mt_malloc((size_t)R * sizeof(double)), *full = mt_malloc(nm * sizeof(double));
    mt_fill(full, nm, 'd', PAT_SMOOTH, seed);
    for (int i = 0; i < R; i++) expcol[i] = full[(size_t)i * csize + crank];
    char w[200];
    gname(w, sizeof w, "MPI_Scatter", root, 1, 'd', " [column type vector(R,1,size) resized -> R doubles]");
    CHECK_DATA(w, mycol, expcol, R, 'd');
    CHECK_SENTINEL(w, mycol, (size_t)R * 8, (size_t)(R + 4) * 8);
    /* scale locally and gather back by columns */
    for (int i = 0; i < R; i++) mycol[i] = mycol[i] * 2.0;
    MPI_CALL(MPI_Gather(mycol, R, MPI_DOUBLE, mat2, 1, colr, root, comm));
    if (crank == root) {
        for (size_t i = 0; i < nm; i++) full[i] *= 2.0;
        gname(w, sizeof w, "MPI_Gather", root, R, 'd', " [R doubles -> column type at root]");
        CHECK_DATA(w, mat2, full, nm, 'd');
    }
    MPI_Type_free(&colr);
    free(mat); free(mat2); free(mycol); free(expcol); free(full);
}

static void run_on(MPI_Comm c, const char *name, int id)
{
    comm = c;
    cname = name;
    cid = id;
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    mt_group_begin("MPI_Bcast on %s", name);
    for (int root = 0; root < csize; root++) test_bcast(root);
    mt_group_end();
    mt_group_begin("MPI_Scatter/MPI_Gather on %s", name);
    for (int root = 0; root < csize; root++) test_scatter_gather(root);
    mt_group_end();
    mt_group_begin("MPI_Scatterv/MPI_Gatherv on %s", name);
    for (int root = 0; root < csize; root++) test_v(root);
    mt_group_end();
    mt_group_begin("zero-count rooted collectives with NULL buffers on %s", name);
    for (int root = 0; root < csize; root++) {
        MPI_CALL(MPI_Bcast(NULL, 0, MPI_DOUBLE, root, comm));
        MPI_CALL(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm));
        MPI_CALL(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, comm));
        int *z = calloc(csize, sizeof(int));
        MPI_CALL(MPI_Gatherv(NULL, 0, MPI_INT, NULL, z, z, MPI_INT, root, comm));
        MPI_CALL(MPI_Scatterv(NULL, z, z, MPI_INT, NULL, 0, MPI_INT, root, comm));
        free(z);
        mt_gpass++;
    }
    mt_group_end();
    mt_group_begin("derived-type MPI_Scatter/MPI_Gather on %s", name);
    for (int root = 0; root < csize; root++) test_derived(root);
    mt_group_end();
}

/* Rooted collectives on an intercommunicator (even <-> odd world ranks):
 * root = MPI_ROOT at the root, MPI_PROC_NULL at the other ranks of its group,
 * the root's rank in the remote group everywhere in the other group. */
static void test_intercomm(void)
{
    MPI_Comm half, inter;
    int color = mt_rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 78, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lr, lsz, rsz;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &lsz);
    MPI_Comm_remote_size(inter, &rsz);
    mt_group_begin("rooted collectives on an intercommunicator (MPI_ROOT / MPI_PROC_NULL)");
    for (int rootgrp = 0; rootgrp < 2; rootgrp++) {
        int in_root_grp = color == rootgrp;
        int root = in_root_grp ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int n = 250000, c = 40000;
        char w[160];
        uint64_t seed = 5000 + (uint64_t)rootgrp * 10;
        /* Bcast */
        double *b = mt_malloc((size_t)n * sizeof(double));
        if (root == MPI_ROOT) mt_fill(b, n, 'd', PAT_SMOOTH, seed);
        else memset(b, MT_SENTINEL, (size_t)n * sizeof(double));
        MPI_CALL(MPI_Bcast(b, n, MPI_DOUBLE, root, inter));
        snprintf(w, sizeof w, "intercomm MPI_Bcast, root group %d, my root arg %d", rootgrp, root);
        if (!in_root_grp) CHECK_PATTERN(w, b, n, 'd', PAT_SMOOTH, seed);
        else if (root == MPI_PROC_NULL) CHECK_SENTINEL(w, b, 0, (size_t)n * sizeof(double));
        free(b);
        /* Scatter: root sends c ints to each remote rank */
        int *sb = NULL, *rb = mt_malloc((size_t)c * sizeof(int));
        if (root == MPI_ROOT) {
            sb = mt_malloc((size_t)rsz * c * sizeof(int));
            for (int i = 0; i < rsz; i++) mt_fill(sb + (size_t)i * c, c, 'i', PAT_RAMP, seed + 1 + (uint64_t)i * 100);
        }
        MPI_CALL(MPI_Scatter(sb, c, MPI_INT, rb, c, MPI_INT, root, inter));
        snprintf(w, sizeof w, "intercomm MPI_Scatter, root group %d", rootgrp);
        if (!in_root_grp) CHECK_PATTERN(w, rb, c, 'i', PAT_RAMP, seed + 1 + (uint64_t)lr * 100);
        /* Gather: remote ranks send c ints to the root */
        int *all = root == MPI_ROOT ? mt_malloc((size_t)rsz * c * sizeof(int)) : NULL;
        mt_fill(rb, c, 'i', lr % 2 ? PAT_RANDOM : PAT_SMOOTH, seed + 2 + (uint64_t)lr * 100);
        MPI_CALL(MPI_Gather(rb, c, MPI_INT, all, c, MPI_INT, root, inter));
        snprintf(w, sizeof w, "intercomm MPI_Gather, root group %d", rootgrp);
        if (root == MPI_ROOT)
            for (int i = 0; i < rsz; i++)
                CHECK_PATTERN(w, all + (size_t)i * c, c, 'i', i % 2 ? PAT_RANDOM : PAT_SMOOTH, seed + 2 + (uint64_t)i * 100);
        /* Gatherv / Scatterv with per-rank counts */
        int *cnt = mt_malloc(rsz * sizeof(int)), *dsp = mt_malloc(rsz * sizeof(int)), tot = 0;
        for (int i = 0; i < rsz; i++) { cnt[i] = (i + 1) * 1000 + 7; dsp[i] = tot; tot += cnt[i] + 3; }
        int mine = (lr + 1) * 1000 + 7;
        int *vb = mt_malloc((size_t)(tot > mine ? tot : mine) * sizeof(int));
        if (root == MPI_ROOT)
            for (int i = 0; i < rsz; i++) mt_fill(vb + dsp[i], cnt[i], 'i', PAT_SMOOTH, seed + 3 + (uint64_t)i);
        int *mv = mt_malloc((size_t)mine * sizeof(int));
        MPI_CALL(MPI_Scatterv(vb, cnt, dsp, MPI_INT, mv, in_root_grp ? 0 : mine, MPI_INT, root, inter));
        snprintf(w, sizeof w, "intercomm MPI_Scatterv, root group %d", rootgrp);
        if (!in_root_grp) CHECK_PATTERN(w, mv, mine, 'i', PAT_SMOOTH, seed + 3 + (uint64_t)lr);
        if (!in_root_grp) mt_fill(mv, mine, 'i', PAT_RAMP, seed + 4 + (uint64_t)lr);
        if (root == MPI_ROOT) memset(vb, 0, (size_t)tot * sizeof(int));
        MPI_CALL(MPI_Gatherv(mv, in_root_grp ? 0 : mine, MPI_INT, vb, cnt, dsp, MPI_INT, root, inter));
        snprintf(w, sizeof w, "intercomm MPI_Gatherv, root group %d", rootgrp);
        if (root == MPI_ROOT)
            for (int i = 0; i < rsz; i++) CHECK_PATTERN(w, vb + dsp[i], cnt[i], 'i', PAT_RAMP, seed + 4 + (uint64_t)i);
        free(cnt); free(dsp); free(vb); free(mv);
        free(sb); free(rb); free(all);
    }
    (void)lsz;
    mt_group_end();
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "coll_rooted");
    mt_require_size(2);
    run_on(MPI_COMM_WORLD, "MPI_COMM_WORLD", 1);
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run_on(dup, "dup(MPI_COMM_WORLD)", 2);
    /* split: two halves (or a half and a singleton), reversed rank order */
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &split);
    run_on(split, mt_rank % 2 ? "split(odd ranks, reversed)" : "split(even ranks, reversed)", 3 + mt_rank % 2);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    test_intercomm();
    return mt_finish();
}
