/* SPDX-License-Identifier: BSD-3-Clause */
/* A rank's communication profile (commprof.h): recording, serialisation,
 * strict parsing.
 *
 * Serialised form (all integers little-endian):
 *   u32 version=1  i32 world_rank  i32 world_size  u32 ncomms  u32 ncolls
 *   ncomms x: u32 id  i32 size  i32 rank  i32 world[size]
 *             u32 nfam, nfam x (u32 family, u64 n[48], u64 bytes[48])
 *             u32 has_peers, has_peers ? size x (u64 msgs, u64 bytes)
 *   ncolls x: u32 comm  u32 family  i32 root  u32 commutative  i64 count
 *             u32 type_size  u32 ncounts  i64 counts[ncounts]  u64 calls */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "codecs/codec_util.h"
#include "engine/commprof.h"

/* 2: collective records carry their path (compi_prof_path); 1 is read as
 * every call on the MPI's path */
#define CP_VERSION 2u

static const char *const cp_names[COMPI_PROF_NFAM] = {
    "send",      "isend",     "start",      "sendrecv", "bcast",    "reduce",
    "allreduce", "alltoall",  "allgather",  "gather",   "scatter",  "reduce_scatter",
    "barrier",   "alltoallv", "allgatherv", "gatherv",  "scatterv", "reduce_scatter_block",
    "scan",      "exscan",    "alltoallw",
};

const char *compi_prof_family_name(int fam)
{
    return fam >= 0 && fam < COMPI_PROF_NFAM ? cp_names[fam] : "?";
}

int compi_prof_family_parse(const char *name)
{
    for (int f = 0; f < COMPI_PROF_NFAM; f++)
        if (strcmp(name, cp_names[f]) == 0) return f;
    return -1;
}

int compi_prof_bucket(uint64_t bytes)
{
    int b = 0;
    while (bytes && b < COMPI_PROF_HIST - 1) {
        bytes >>= 1;
        b++;
    }
    return b;
}

compi_commprof *compi_commprof_new(int world_rank, int world_size)
{
    compi_commprof *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->world_rank = world_rank;
    p->world_size = world_size;
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

static void cp_comm_free(compi_prof_comm *c)
{
    if (!c) return;
    for (int f = 0; f < COMPI_PROF_NFAM; f++) free(c->hist[f]);
    free(c->world);
    free(c->peer_msgs);
    free(c->peer_bytes);
    free(c);
}

void compi_commprof_free(compi_commprof *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nbyid; i++) cp_comm_free(p->byid[i]);
    for (size_t i = 0; i < p->ncolls; i++) free(p->colls[i].counts);
    free(p->byid);
    free(p->colls);
    free(p->table);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static compi_prof_comm *cp_get(compi_commprof *p, uint32_t id)
{
    return id < p->nbyid ? p->byid[id] : NULL;
}

int compi_commprof_has(compi_commprof *p, uint32_t id)
{
    pthread_mutex_lock(&p->lock);
    int r = cp_get(p, id) != NULL;
    pthread_mutex_unlock(&p->lock);
    return r;
}

/* registers without the lock (also used by the parser) */
static int cp_register(compi_commprof *p, uint32_t id, int size, int rank, const int *world)
{
    if (size < 1 || rank < 0 || rank >= size || id > (1u << 28)) return -1;
    if (cp_get(p, id)) return 0;
    if (id >= p->nbyid) {
        size_t n = p->nbyid ? p->nbyid : 16;
        while (n <= id) n *= 2;
        compi_prof_comm **g = realloc(p->byid, n * sizeof *g);
        if (!g) return -1;
        memset(g + p->nbyid, 0, (n - p->nbyid) * sizeof *g);
        p->byid = g;
        p->nbyid = n;
    }
    compi_prof_comm *c = calloc(1, sizeof *c);
    if (!c || !(c->world = malloc((size_t)size * sizeof *c->world))) {
        free(c);
        return -1;
    }
    c->id = id;
    c->size = size;
    c->rank = rank;
    memcpy(c->world, world, (size_t)size * sizeof *c->world);
    p->byid[id] = c;
    return 0;
}

int compi_commprof_comm(compi_commprof *p, uint32_t id, int size, int rank, const int *world)
{
    pthread_mutex_lock(&p->lock);
    int rc = cp_register(p, id, size, rank, world);
    pthread_mutex_unlock(&p->lock);
    return rc;
}

static void cp_hist(compi_prof_comm *c, int fam, uint64_t bytes)
{
    if (!c->hist[fam] && !(c->hist[fam] = calloc(1, sizeof *c->hist[fam]))) return;
    int b = compi_prof_bucket(bytes);
    c->hist[fam]->n[b]++;
    c->hist[fam]->bytes[b] += bytes;
}

void compi_commprof_send(compi_commprof *p, uint32_t id, int peer, uint64_t bytes, int family)
{
    if (family < 0 || family >= COMPI_PROF_NP2P) return;
    pthread_mutex_lock(&p->lock);
    compi_prof_comm *c = cp_get(p, id);
    if (c && peer >= 0 && peer < c->size) {
        if (!c->peer_msgs) {
            c->peer_msgs = calloc((size_t)c->size, sizeof *c->peer_msgs);
            c->peer_bytes = calloc((size_t)c->size, sizeof *c->peer_bytes);
        }
        if (c->peer_msgs && c->peer_bytes) {
            c->peer_msgs[peer]++;
            c->peer_bytes[peer] += bytes;
        }
        cp_hist(c, family, bytes);
    }
    pthread_mutex_unlock(&p->lock);
}

static uint64_t cp_hash(uint32_t comm, const compi_prof_call *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t v[8] = {comm,         (uint64_t)c->family,      (uint64_t)(int64_t)c->root, (uint64_t)c->count,
                           c->type_size, (uint64_t)c->commutative, (uint64_t)c->ncounts,       (uint64_t)c->path};
    for (int i = 0; i < 8; i++) h = (h ^ v[i]) * 0x100000001b3ull;
    for (int i = 0; i < c->ncounts; i++) h = (h ^ (uint64_t)c->counts[i]) * 0x100000001b3ull;
    h ^= h >> 31;
    return h;
}

static int cp_same(const compi_prof_coll *r, uint32_t comm, const compi_prof_call *c)
{
    return r->comm == comm && r->family == c->family && r->root == c->root && r->count == c->count &&
           r->type_size == c->type_size && r->commutative == c->commutative && r->ncounts == c->ncounts &&
           r->path == c->path &&
           (c->ncounts == 0 || memcmp(r->counts, c->counts, (size_t)c->ncounts * sizeof *c->counts) == 0);
}

static int cp_table_grow(compi_commprof *p)
{
    size_t n = p->table_cap ? p->table_cap * 2 : 256;
    uint32_t *t = calloc(n, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < p->ncolls; i++) {
        compi_prof_call c = {p->colls[i].family,      p->colls[i].root,    p->colls[i].count,  p->colls[i].type_size,
                             p->colls[i].commutative, p->colls[i].ncounts, p->colls[i].counts, p->colls[i].path};
        size_t h = (size_t)cp_hash(p->colls[i].comm, &c) & (n - 1);
        while (t[h]) h = (h + 1) & (n - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(p->table);
    p->table = t;
    p->table_cap = n;
    return 0;
}

/* adds (or counts again) a signature; lock held */
static int cp_coll_add(compi_commprof *p, uint32_t comm, const compi_prof_call *c, uint64_t calls)
{
    if ((p->ncolls + 1) * 2 > p->table_cap && cp_table_grow(p) != 0) return -1;
    size_t h = (size_t)cp_hash(comm, c) & (p->table_cap - 1);
    while (p->table[h]) {
        compi_prof_coll *r = &p->colls[p->table[h] - 1];
        if (cp_same(r, comm, c)) {
            r->calls += calls;
            return 0;
        }
        h = (h + 1) & (p->table_cap - 1);
    }
    if (p->ncolls == p->colls_cap) {
        size_t n = p->colls_cap ? p->colls_cap * 2 : 64;
        compi_prof_coll *g = realloc(p->colls, n * sizeof *g);
        if (!g) return -1;
        p->colls = g;
        p->colls_cap = n;
    }
    compi_prof_coll *r = &p->colls[p->ncolls];
    memset(r, 0, sizeof *r);
    if (c->ncounts > 0) {
        r->counts = malloc((size_t)c->ncounts * sizeof *r->counts);
        if (!r->counts) return -1;
        memcpy(r->counts, c->counts, (size_t)c->ncounts * sizeof *r->counts);
    }
    r->comm = comm;
    r->family = c->family;
    r->root = c->root;
    r->commutative = c->commutative;
    r->count = c->count;
    r->type_size = c->type_size;
    r->ncounts = c->ncounts;
    r->path = c->path;
    r->calls = calls;
    p->table[h] = (uint32_t)++p->ncolls;
    return 0;
}

void compi_commprof_coll(compi_commprof *p, uint32_t id, const compi_prof_call *c, uint64_t hist_bytes)
{
    if (c->family < COMPI_PROF_NP2P || c->family >= COMPI_PROF_NFAM) return;
    pthread_mutex_lock(&p->lock);
    compi_prof_comm *cm = cp_get(p, id);
    if (cm && (c->ncounts == 0 || c->ncounts == cm->size)) {
        cp_hist(cm, c->family, hist_bytes);
        cp_coll_add(p, id, c, 1);
    }
    pthread_mutex_unlock(&p->lock);
}

/* ------------------------------------------------------------- save */

typedef struct {
    uint8_t *b;
    size_t n, cap;
    int oom;
} cp_buf;

static void cp_put(cp_buf *o, const void *p, size_t n)
{
    if (o->oom) return;
    if (o->n + n > o->cap) {
        size_t c = o->cap ? o->cap : 4096;
        while (c < o->n + n) c *= 2;
        uint8_t *g = realloc(o->b, c);
        if (!g) {
            o->oom = 1;
            return;
        }
        o->b = g;
        o->cap = c;
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void cp_u32(cp_buf *o, uint32_t v)
{
    uint8_t b[4];
    compi_store_le32(b, v);
    cp_put(o, b, 4);
}
static void cp_u64(cp_buf *o, uint64_t v)
{
    uint8_t b[8];
    compi_store_le64(b, v);
    cp_put(o, b, 8);
}

int compi_commprof_save(compi_commprof *p, uint8_t **out, size_t *len)
{
    cp_buf o = {0};
    pthread_mutex_lock(&p->lock);
    uint32_t ncomms = 0;
    for (size_t i = 0; i < p->nbyid; i++) ncomms += p->byid[i] != NULL;
    cp_u32(&o, CP_VERSION);
    cp_u32(&o, (uint32_t)p->world_rank);
    cp_u32(&o, (uint32_t)p->world_size);
    cp_u32(&o, ncomms);
    cp_u32(&o, (uint32_t)p->ncolls);
    for (size_t i = 0; i < p->nbyid; i++) {
        const compi_prof_comm *c = p->byid[i];
        if (!c) continue;
        cp_u32(&o, c->id);
        cp_u32(&o, (uint32_t)c->size);
        cp_u32(&o, (uint32_t)c->rank);
        for (int k = 0; k < c->size; k++) cp_u32(&o, (uint32_t)c->world[k]);
        uint32_t nfam = 0;
        for (int f = 0; f < COMPI_PROF_NFAM; f++) nfam += c->hist[f] != NULL;
        cp_u32(&o, nfam);
        for (int f = 0; f < COMPI_PROF_NFAM; f++) {
            if (!c->hist[f]) continue;
            cp_u32(&o, (uint32_t)f);
            for (int b = 0; b < COMPI_PROF_HIST; b++) cp_u64(&o, c->hist[f]->n[b]);
            for (int b = 0; b < COMPI_PROF_HIST; b++) cp_u64(&o, c->hist[f]->bytes[b]);
        }
        cp_u32(&o, c->peer_msgs ? 1u : 0u);
        if (c->peer_msgs)
            for (int k = 0; k < c->size; k++) {
                cp_u64(&o, c->peer_msgs[k]);
                cp_u64(&o, c->peer_bytes[k]);
            }
    }
    for (size_t i = 0; i < p->ncolls; i++) {
        const compi_prof_coll *r = &p->colls[i];
        cp_u32(&o, r->comm);
        cp_u32(&o, (uint32_t)r->family);
        cp_u32(&o, (uint32_t)r->root);
        cp_u32(&o, (uint32_t)r->commutative);
        cp_u64(&o, (uint64_t)r->count);
        cp_u32(&o, r->type_size);
        cp_u32(&o, (uint32_t)r->ncounts);
        for (int k = 0; k < r->ncounts; k++) cp_u64(&o, (uint64_t)r->counts[k]);
        cp_u32(&o, (uint32_t)r->path);
        cp_u64(&o, r->calls);
    }
    pthread_mutex_unlock(&p->lock);
    if (o.oom) {
        free(o.b);
        return -1;
    }
    *out = o.b;
    *len = o.n;
    return 0;
}

/* ------------------------------------------------------------- load */

typedef struct {
    const uint8_t *b;
    size_t n, at;
    int short_read;
} cp_in;

static uint32_t cp_g32(cp_in *x)
{
    if (x->n - x->at < 4) {
        x->short_read = 1;
        x->at = x->n;
        return 0;
    }
    uint32_t v = compi_load_le32(x->b + x->at);
    x->at += 4;
    return v;
}
static uint64_t cp_g64(cp_in *x)
{
    if (x->n - x->at < 8) {
        x->short_read = 1;
        x->at = x->n;
        return 0;
    }
    uint64_t v = compi_load_le64(x->b + x->at);
    x->at += 8;
    return v;
}

static int cp_rooted(int fam)
{
    return fam == COMPI_PROF_BCAST || fam == COMPI_PROF_REDUCE || fam == COMPI_PROF_GATHER ||
           fam == COMPI_PROF_SCATTER || fam == COMPI_PROF_GATHERV || fam == COMPI_PROF_SCATTERV;
}

/* the collectives compi can run with its own algorithm (lib/coll, the rooted ones) */
static int cp_compi_path(int fam)
{
    return fam == COMPI_PROF_ALLGATHER || fam == COMPI_PROF_ALLGATHERV || fam == COMPI_PROF_ALLTOALL ||
           fam == COMPI_PROF_ALLTOALLV || fam == COMPI_PROF_ALLREDUCE || fam == COMPI_PROF_REDUCE ||
           fam == COMPI_PROF_REDUCE_SCATTER || fam == COMPI_PROF_REDUCE_SCATTER_BLOCK || fam == COMPI_PROF_BCAST ||
           fam == COMPI_PROF_GATHER || fam == COMPI_PROF_GATHERV || fam == COMPI_PROF_SCATTER ||
           fam == COMPI_PROF_SCATTERV;
}

static const char *const cp_path_names[COMPI_PROF_NPATHS] = {"mpi", "compi", "compi_split_agree", "compi_whole"};
const char *compi_prof_path_name(int path)
{
    return path >= 0 && path < COMPI_PROF_NPATHS ? cp_path_names[path] : "?";
}

#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        compi_errf(err, errlen, __VA_ARGS__);                                                                          \
        goto fail;                                                                                                     \
    } while (0)

/* Communicator record i's id, size, rank and members (each a distinct world
 * rank, this rank where the record says), registered in p. *idp = its id. */
static int cp_load_members(compi_commprof *p, cp_in *x, uint32_t i, uint32_t *idp, char *err, size_t errlen)
{
    int ws = p->world_size, wr = p->world_rank;
    int *world = NULL;
    uint32_t id = cp_g32(x);
    int size = (int32_t)cp_g32(x), rank = (int32_t)cp_g32(x);
    if (x->short_read) BAD("profile truncated in communicator %u", i);
    if (size < 1 || size > ws || rank < 0 || rank >= size || id > (1u << 28) || cp_get(p, id))
        BAD("profile: communicator %u (id %u): size %d, rank %d out of range or id repeated", i, id, size, rank);
    if ((size_t)size * 4 > x->n - x->at) BAD("profile truncated in communicator %u's members", id);
    world = malloc((size_t)size * sizeof *world);
    char *seen = calloc((size_t)ws, 1);
    if (!world || !seen) {
        free(seen);
        BAD("out of memory");
    }
    int dup = 0;
    for (int k = 0; k < size; k++) {
        world[k] = (int32_t)cp_g32(x);
        if (world[k] < 0 || world[k] >= ws || seen[world[k]]) dup = 1;
        else seen[world[k]] = 1;
    }
    free(seen);
    if (dup) BAD("profile: communicator %u maps its members to world ranks out of range or twice", id);
    if (world[rank] != wr)
        BAD("profile: communicator %u puts this rank (world %d) at world rank %d", id, wr, world[rank]);
    if (cp_register(p, id, size, rank, world) != 0) BAD("out of memory");
    free(world);
    *idp = id;
    return 0;
fail:
    free(world);
    return -1;
}

/* Communicator record i: its members, then its histograms and per-peer
 * counters. */
static int cp_load_comm(compi_commprof *p, cp_in *x, uint32_t i, char *err, size_t errlen)
{
    uint32_t id;
    if (cp_load_members(p, x, i, &id, err, errlen) != 0) return -1;
    compi_prof_comm *c = cp_get(p, id);
    int size = c->size;
    uint32_t nfam = cp_g32(x);
    if (nfam > COMPI_PROF_NFAM) BAD("profile: communicator %u has %u families", id, nfam);
    for (uint32_t k = 0; k < nfam; k++) {
        uint32_t f = cp_g32(x);
        if (x->short_read) BAD("profile truncated in communicator %u's histograms", id);
        if (f >= COMPI_PROF_NFAM || c->hist[f]) BAD("profile: communicator %u: family %u unknown or repeated", id, f);
        if (!(c->hist[f] = calloc(1, sizeof *c->hist[f]))) BAD("out of memory");
        for (int b = 0; b < COMPI_PROF_HIST; b++) c->hist[f]->n[b] = cp_g64(x);
        for (int b = 0; b < COMPI_PROF_HIST; b++) c->hist[f]->bytes[b] = cp_g64(x);
    }
    uint32_t has = cp_g32(x);
    if (x->short_read) BAD("profile truncated in communicator %u", id);
    if (has > 1) BAD("profile: communicator %u: peer flag %u", id, has);
    if (has) {
        if ((size_t)size * 16 > x->n - x->at) BAD("profile truncated in communicator %u's peers", id);
        c->peer_msgs = calloc((size_t)size, sizeof *c->peer_msgs);
        c->peer_bytes = calloc((size_t)size, sizeof *c->peer_bytes);
        if (!c->peer_msgs || !c->peer_bytes) BAD("out of memory");
        for (int k = 0; k < size; k++) {
            c->peer_msgs[k] = cp_g64(x);
            c->peer_bytes[k] = cp_g64(x);
            if (c->peer_bytes[k] && !c->peer_msgs[k])
                BAD("profile: communicator %u: %llu bytes to peer %d in no message", id,
                    (unsigned long long)c->peer_bytes[k], k);
        }
    }
    return 0;
fail:
    return -1;
}

/* Collective record i (format version v): a signature on a known
 * communicator, with its fields in range, not seen before. */
static int cp_load_coll(compi_commprof *p, cp_in *x, uint32_t i, uint32_t v, char *err, size_t errlen)
{
    int64_t *counts = NULL;
    uint32_t comm = cp_g32(x), fam = cp_g32(x);
    int root = (int32_t)cp_g32(x);
    uint32_t commut = cp_g32(x);
    int64_t count = (int64_t)cp_g64(x);
    uint32_t tsize = cp_g32(x), ncounts = cp_g32(x);
    if (x->short_read) BAD("profile truncated in collective record %u", i);
    const compi_prof_comm *c = cp_get(p, comm);
    if (!c) BAD("profile: collective record %u names communicator %u, which is not in the profile", i, comm);
    if (fam < COMPI_PROF_NP2P || fam >= COMPI_PROF_NFAM) BAD("profile: collective record %u: family %u", i, fam);
    if (cp_rooted((int)fam) ? (root < 0 || root >= c->size) : root != -1)
        BAD("profile: collective record %u (%s): root %d for %d ranks", i, cp_names[fam], root, c->size);
    if (commut > 1 || count < 0 || tsize < 1 || (ncounts != 0 && ncounts != (uint32_t)c->size))
        BAD("profile: collective record %u (%s): fields out of range", i, cp_names[fam]);
    if ((size_t)ncounts * 8 + 8 > x->n - x->at) BAD("profile truncated in collective record %u", i);
    counts = malloc((ncounts ? ncounts : 1) * sizeof *counts);
    if (!counts) BAD("out of memory");
    for (uint32_t k = 0; k < ncounts; k++)
        if ((counts[k] = (int64_t)cp_g64(x)) < 0) BAD("profile: collective record %u: negative count", i);
    uint32_t path = v >= 2 ? cp_g32(x) : COMPI_PROF_PATH_MPI;
    uint64_t calls = cp_g64(x);
    if (x->short_read) BAD("profile truncated in collective record %u", i);
    if (calls == 0) BAD("profile: collective record %u counts no call", i);
    if (path >= COMPI_PROF_NPATHS || (path != COMPI_PROF_PATH_MPI && !cp_compi_path((int)fam)) ||
        (path > COMPI_PROF_PATH_COMPI && fam != COMPI_PROF_ALLREDUCE && fam != COMPI_PROF_REDUCE))
        BAD("profile: collective record %u (%s): path %u", i, cp_names[fam], path);
    compi_prof_call call = {(int)fam, root, count, tsize, (int)commut, (int)ncounts, counts, (int)path};
    size_t before = p->ncolls;
    if (cp_coll_add(p, comm, &call, calls) != 0) BAD("out of memory");
    if (p->ncolls == before) BAD("profile: collective record %u repeats an earlier signature", i);
    free(counts);
    return 0;
fail:
    free(counts);
    return -1;
}

#undef BAD

compi_commprof *compi_commprof_load(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    cp_in x = {buf, len, 0, 0};
    uint32_t v = cp_g32(&x);
    if (v != CP_VERSION && v != 1) {
        compi_errf(err, errlen, "profile format version %u is not supported (this compi reads 1 and %u)", v,
                   CP_VERSION);
        return NULL;
    }
    int wr = (int32_t)cp_g32(&x), ws = (int32_t)cp_g32(&x);
    uint32_t ncomms = cp_g32(&x), ncolls = cp_g32(&x);
    if (x.short_read) {
        compi_errf(err, errlen, "profile truncated in its header");
        return NULL;
    }
    if (ws < 1 || wr < 0 || wr >= ws) {
        compi_errf(err, errlen, "profile: rank %d of %d ranks", wr, ws);
        return NULL;
    }
    compi_commprof *p = compi_commprof_new(wr, ws);
    if (!p) {
        compi_errf(err, errlen, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < ncomms; i++)
        if (cp_load_comm(p, &x, i, err, errlen) != 0) goto fail;
    for (uint32_t i = 0; i < ncolls; i++)
        if (cp_load_coll(p, &x, i, v, err, errlen) != 0) goto fail;
    if (x.at != len) {
        compi_errf(err, errlen, "profile: %zu unexpected bytes after the last record", len - x.at);
        goto fail;
    }
    return p;
fail:
    compi_commprof_free(p);
    return NULL;
}
