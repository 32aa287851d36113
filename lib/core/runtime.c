/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's process-wide state: configuration, node map, communicator cache. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/boot.h"
#include "core/comm.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/report.h"
#include "core/stash.h"
#include "core/side.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/pool_setup.h"

compi_state compi_g = {.lock = PTHREAD_MUTEX_INITIALIZER, .comm_keyval = MPI_KEYVAL_INVALID};
compi_stats compi_st;
compi_config compi_cfg;
static MPI_Group compi_world_group = MPI_GROUP_NULL;

uint64_t compi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What COMPI_VERBOSE shows. Level 1 is what a user reads at any scale, so
 * rank 0 alone speaks, once for the whole job: its lines must hold for every
 * rank. Per-rank detail is level 2 and up (every rank prints). Level 0 is for
 * a rank's own warnings and errors, always printed by that rank. */
void compi_log(int level, const char *fmt, ...)
{
    if (compi_cfg.verbose < level) return;
    if (level == 1 && compi_g.world_rank != 0) return;
    /* one write per line, so the lines of many ranks do not mix mid-line */
    char line[2048];
    int n = snprintf(line, sizeof line, "compi[%d]: ", compi_g.world_rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
}

void compi_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "compi: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static __thread int compi_forgetting; /* deleting the cache, not the communicator */

const compi_comm_info *compi_comm_info_hold(const compi_comm_info *ci)
{
    if (ci) __atomic_add_fetch(&((compi_comm_info *)ci)->refs, 1, __ATOMIC_RELAXED);
    return ci;
}

void compi_comm_info_release(const compi_comm_info *ci)
{
    compi_comm_info *c = (compi_comm_info *)ci;
    if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    if (!c->peers_shared) {
        free(c->peer_node);
        free(c->peer_world);
    }
    compi_comm_info_release(c->copied_from);
    free(c);
}

/* The communicator is freed (or its hints replaced): the cache lets go of
 * the info, which lives on while requests still hold it. */
static int compi_comm_info_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    if (!compi_forgetting) compi_stash_purge(comm);
    compi_comm_info_release(attr);
    return MPI_SUCCESS;
}

/* A member's reading of a communicator's compi_* hints. */
typedef struct compi_hints {
    int has_mode, has_codec, has_min;
    compi_mode mode;
    const compi_codec *codec;
    size_t min_bytes;
} compi_hints;

static compi_comm_info *compi_comm_info_build(MPI_Comm comm, const compi_hints *h);
static compi_comm_info *compi_comm_members(MPI_Comm comm, int *crosses);
static compi_comm_info *compi_comm_info_policy(compi_comm_info *ci, const compi_hints *h, int crosses);
static void compi_hints_read(MPI_Comm comm, MPI_Info hints, compi_hints *h);

/* MPI_Comm_dup gives the copy the original's hints (MPI-3.1 6.4.2), which
 * MPIs keep or drop as they like (MPICH 4.0 drops compi's): compi gives the
 * copy the policy its members agreed on for the original. A dup has the
 * same members, so it needs no agreement of its own. The callback does not
 * name the new communicator, and not every copy is a dup (Open MPI 4.1's
 * MPI_Comm_create_group copies its parent's attributes too): the copy only
 * remembers the original, and compi_comm_lookup builds the info from the
 * new communicator's own members. */
static int compi_comm_info_copy(MPI_Comm oldcomm, int keyval, void *extra, void *attr_in, void *attr_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    const compi_comm_info *src = attr_in;
    compi_comm_info *ci = calloc(1, sizeof *ci);
    if (!ci) compi_die("out of memory");
    ci->refs = 1;
    ci->copied_from = compi_comm_info_hold(src->copied_from ? src->copied_from : src);
    *(void **)attr_out = ci;
    *flag = 1;
    return MPI_SUCCESS;
}

static int compi_same_peers(const compi_comm_info *a, const compi_comm_info *b)
{
    return a->is_inter == b->is_inter && a->peer_count == b->peer_count &&
           (a->peer_world == b->peer_world ||
            !memcmp(a->peer_world, b->peer_world, sizeof(int) * (size_t)a->peer_count));
}

/* The info of a communicator whose attribute is a copy (under compi's
 * lock): a duplicate's members take the original's policy; other
 * communicators (same members in another order, or others) read their own
 * hints, as one compi never saw copied does. */
static compi_comm_info *compi_comm_info_from_copy(MPI_Comm comm, const compi_comm_info *copy)
{
    const compi_comm_info *orig = copy->copied_from;
    int crosses;
    compi_comm_info *ci = compi_comm_members(comm, &crosses);
    compi_hints h = {1, 1, 1, orig->mode, orig->codec, orig->min_bytes};
    if (!compi_same_peers(ci, orig)) compi_hints_read(comm, MPI_INFO_NULL, &h);
    return compi_comm_info_policy(ci, &h, crosses);
}

/* This rank's node leader: ranks sharing memory (MPI_COMM_TYPE_SHARED) form
 * a node, led by their lowest world rank; and the name the node goes by
 * (its processor name, as `compi calibrate network` names it). */
static int compi_node_leader(compi_boot_info *x)
{
    char proc[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    int len = 0;
    PMPI_Get_processor_name(proc, &len);
    snprintf(x->name, sizeof x->name, "%s", proc); /* cleaned once its node's number is known */
    if (compi_cfg.ranks_per_node > 0) {
        x->leader = compi_g.world_rank / compi_cfg.ranks_per_node * compi_cfg.ranks_per_node;
        return MPI_SUCCESS;
    }
    /* the node's lowest rank is its rank 0 (equal keys keep
     * MPI_COMM_WORLD's order): no collective on the node either */
    MPI_Comm shm;
    MPI_Group g;
    int rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS) return rc;
    int zero = 0;
    PMPI_Comm_size(shm, &compi_g.host_ranks);
    PMPI_Comm_group(shm, &g);
    rc = PMPI_Group_translate_ranks(g, 1, &zero, compi_world_group, &x->leader);
    PMPI_Group_free(&g);
    PMPI_Comm_free(&shm);
    return rc;
}

/* Node ids from the exchanged leaders: nodes numbered in the order of their
 * leaders, densely; a leader is its node's lowest rank, so its id is known
 * before its members' (in place). Node names: the leaders' processor names,
 * or node<k> for COMPI_DEBUG_RANKS_PER_NODE's nodes. */
static void compi_build_node_map(compi_boot_info *x)
{
    int nodes = 0, *node = x->leaders;
    for (int r = 0; r < compi_g.world_size; r++) node[r] = node[r] == r ? nodes++ : node[node[r]];
    compi_g.node_of_world = node;
    compi_g.node_count = nodes;
    compi_g.my_node = node[compi_g.world_rank];
    x->leaders = NULL;
    for (int k = 0; k < nodes; k++) {
        char raw[COMPI_NET_NAME_MAX];
        memcpy(raw, x->names[k], sizeof raw);
        if (compi_cfg.ranks_per_node > 0) snprintf(x->names[k], COMPI_NET_NAME_MAX, "node%d", k);
        else compi_netcal_clean_name(x->names[k], raw, k);
    }
}

/* A bad setting stops every rank together. A clean exit, not MPI_Abort:
 * MPICH's hydra tears down an aborted job before forwarding all of its
 * stderr, which lost the message in 1 of 30 runs of compi_bad_heuristics.
 * Rank 0 prints err (if any); the caller made every other rank with
 * something else to say print it already. */
static void compi_config_fail(const char *err)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &compi_g.world_rank);
    if (compi_g.world_rank == 0 && err && *err) fprintf(stderr, "compi: configuration error: %s\n", err);
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
    exit(2);
}

/* The system configuration file belongs to the installation this library
 * was loaded from: <prefix>/etc/compi/compi.conf next to <prefix>/lib. */
static void compi_system_config(char *out, size_t cap)
{
    Dl_info di;
    out[0] = 0;
    if (dladdr((void *)&compi_core_init, &di) && di.dli_fname &&
        compi_config_system_path(di.dli_fname, out, cap) != COMPI_OK)
        out[0] = 0;
}

/* Every rank calls this, inside MPI_Init (boot.c), with its own outcome of a step that may fail on some
 * ranks only (configuration files differ between nodes). Rank 0's message is
 * printed by compi_config_fail; a failing rank with another message prints
 * its own. Returns nonzero on every rank if any failed; rank 0's err then
 * says why even if rank 0 itself was fine. */
int compi_config_agree(int failed, char *err, size_t errlen)
{
    char root[1024];
    int rank, any = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* one reduction when every rank is fine; rank 0's message only if not */
    unsigned long long v = failed != 0;
    if (compi_boot_max(&v, 1) != MPI_SUCCESS) v = 1;
    if (!(any = (int)v)) return 0;
    snprintf(root, sizeof root, "%s", failed ? err : "");
    compi_boot_bcast(root, sizeof root);
    if (rank != 0 && failed && strncmp(err, root, sizeof root - 1) != 0)
        fprintf(stderr, "compi: configuration error on rank %d: %s\n", rank, err);
    if (rank == 0 && !failed)
        snprintf(err, errlen,
                 "the configuration of other ranks is invalid or differs from rank 0's (see their messages)");
    return any;
}

/* Settings that decide what goes on the wire or which collectives run must
 * be the same on every rank; node-local configuration files (or launchers
 * that forward the environment to some ranks only) can make them differ.
 * The codec need not agree: frames name their codec. Neither do the
 * adaptive tunables, decided by each sender alone. */
#define COMPI_AGREED 7
static const struct {
    const char *what;
    int setting; /* whose source is named */
} compi_agreed[COMPI_AGREED] = {
    {"mode", COMPI_SET_MODE},
    {"min_bytes", COMPI_SET_MIN_BYTES},
    {"calibrate", COMPI_SET_CALIBRATE},
    {"debug_ranks_per_node", COMPI_SET_DEBUG_RANKS_PER_NODE},
    {"the report gathered at MPI_Finalize (report set or verbose >= 1)", COMPI_SET_REPORT},
    /* learning agrees the collective floors, and probes, collectively */
    {"adapt_refresh", COMPI_SET_ADAPT_REFRESH},
    {"adapt_probe", COMPI_SET_ADAPT_PROBE},
};

/* This rank's configuration, loaded, and its agreed settings as texts (mine)
 * and as the start-up exchange's words: failed, and a hash's range, whose
 * maxima say whether any rank failed or any two differ (compi_config_settle). */
typedef struct compi_config_seen {
    int failed;
    char err[1024], mine[COMPI_AGREED][64];
} compi_config_seen;

static void compi_config_local(compi_config_seen *c, unsigned long long *words)
{
    char sys[COMPI_CONFIG_PATH_MAX];
    compi_system_config(sys, sizeof sys);
    c->err[0] = 0;
    c->failed = compi_config_load(&compi_cfg, sys, c->err, sizeof c->err) != COMPI_OK;
    int gathers = compi_cfg.report_path[0] || compi_cfg.verbose >= 1;
    snprintf(c->mine[0], sizeof c->mine[0], "%s", compi_mode_name(compi_cfg.mode));
    snprintf(c->mine[1], sizeof c->mine[1], "%zu", compi_cfg.min_bytes);
    snprintf(c->mine[2], sizeof c->mine[2], "%s", compi_cfg.calibrate_init ? "init" : "off");
    snprintf(c->mine[3], sizeof c->mine[3], "%d", compi_cfg.ranks_per_node);
    snprintf(c->mine[4], sizeof c->mine[4], "%s", gathers ? "on" : "off");
    snprintf(c->mine[5], sizeof c->mine[5], "%d", compi_cfg.refresh);
    snprintf(c->mine[6], sizeof c->mine[6], "%d", compi_cfg.probe);
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the settings' texts */
    for (int k = 0; k < COMPI_AGREED; k++) {
        for (const char *ch = c->mine[k]; *ch; ch++) h = (h ^ (unsigned char)*ch) * 1099511628211ull;
        h = (h ^ 0xffu) * 1099511628211ull; /* a separator no text holds */
    }
    words[COMPI_BOOT_CFG_FAILED] = (unsigned long long)c->failed;
    words[COMPI_BOOT_CFG_HASH] = h;
    words[COMPI_BOOT_CFG_NOT_HASH] = ~h;
}

/* The common case, every rank loaded its configuration and agrees, is
 * known from the exchange's words; which setting differs, and from what,
 * costs more messages, and only then. */
static void compi_config_settle(compi_config_seen *c, const unsigned long long *words)
{
    char root[COMPI_AGREED][64];
    int rank, failed = c->failed;
    if (!words[COMPI_BOOT_CFG_FAILED] && words[COMPI_BOOT_CFG_HASH] == ~words[COMPI_BOOT_CFG_NOT_HASH]) return;
    char *err = c->err;
    if (compi_config_agree(failed, err, sizeof c->err)) compi_config_fail(err);
    memcpy(root, c->mine, sizeof root);
    compi_boot_bcast(root, sizeof root);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < COMPI_AGREED && !failed; k++) {
        if (strcmp(c->mine[k], root[k]) == 0) continue;
        int set = compi_agreed[k].setting;
        if (k == 4 && !compi_cfg.report_path[0]) set = COMPI_SET_VERBOSE;
        char from[COMPI_CONFIG_PATH_MAX + 64];
        compi_config_origin_text(&compi_cfg, (size_t)set, from, sizeof from);
        snprintf(err, sizeof c->err,
                 "%s is %s here (%s%sfrom %.300s) but %s on rank 0; it must be the same on "
                 "every rank (configuration files that differ between nodes?)",
                 compi_agreed[k].what, c->mine[k], k == 4 ? compi_setting_at((size_t)set)->key : "", k == 4 ? " " : "",
                 from, root[k]);
        failed = 1;
    }
    if (compi_config_agree(failed, err, sizeof c->err)) compi_config_fail(err);
}

int compi_core_init(void)
{
    char err[1024];
    /* compi's start-up agreement (configuration, node map, node names,
     * collective floors) runs up and down a tree of point-to-point messages
     * (boot.c), with no collective and no new communicator: an MPI may set
     * up per-communicator state at a communicator's creation or first
     * collective (SimGrid SMPI runs a ring over all P ranks, P^2 messages,
     * from 256 ranks on), and MPI_COMM_WORLD's first is the application's */
    PMPI_Comm_rank(MPI_COMM_WORLD, &compi_g.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &compi_g.world_size);
    PMPI_Comm_group(MPI_COMM_WORLD, &compi_world_group);
    PMPI_Comm_dup(MPI_COMM_SELF, &compi_g.self_comm); /* one rank: no messages */
    /* what each rank can do alone first, then one exchange for all of it
     * (every rank's outcome, the node map and names); its outcomes are then
     * read in the order the steps have */
    compi_config_seen *seen = calloc(1, sizeof *seen);
    compi_boot_info x;
    memset(&x, 0, sizeof x);
    if (!seen) return MPI_ERR_NO_MEM;
    compi_config_local(seen, x.max);
    int engine_failed = !seen->failed && compi_engine_preinit(x.max, err, sizeof err) != COMPI_OK;
    int rc = compi_node_leader(&x);
    if (rc == MPI_SUCCESS) rc = compi_boot_exchange(&x);
    if (rc != MPI_SUCCESS) {
        free(seen);
        return rc;
    }
    compi_config_settle(seen, x.max);
    free(seen);
    compi_build_node_map(&x);
    PMPI_Comm_create_keyval(compi_comm_info_copy, compi_comm_info_delete, &compi_g.comm_keyval, NULL);
    int *ub, found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
    compi_g.aside_tag_ub = found ? *ub : 32767;
    /* the side communicator carries escaped bytes and pipelined chunks of
     * point-to-point messages, which may come at any time after MPI_Init:
     * it cannot wait for a point where every rank is in a collective */
    if ((rc = compi_side_open()) != MPI_SUCCESS) return rc;
    int cls;
    PMPI_Add_error_class(&cls);
    PMPI_Add_error_code(cls, &compi_g.frame_error_code);
    PMPI_Add_error_string(compi_g.frame_error_code,
                          "compi: a received message failed frame validation (cause printed on stderr)");
    /* rank 0 speaks for all: the configuration and node map are the same on every rank */
    static const char *const how[COMPI_MODE_COUNT] = {
        [COMPI_MODE_OFF] = " (pass-through, nothing compressed)",
        [COMPI_MODE_ADAPTIVE] = " (codec chosen per message)",
        [COMPI_MODE_TRACE] = " (messages sent raw and traced for compi guide)",
        [COMPI_MODE_PROFILE] = " (pass-through, communication profiled for compi map)",
        [COMPI_MODE_GUIDED] = " (compi guide's rules; adaptive where none)",
    };
    char codec[64] = "", minb[48];
    snprintf(minb, sizeof minb, " min_bytes=%zu", compi_cfg.min_bytes);
    if (compi_cfg.mode == COMPI_MODE_FIXED) snprintf(codec, sizeof codec, " codec=%s", compi_cfg.codec->name);
    if (compi_g.node_count < 2)
        compi_log(1, "mode=%s%s, %d rank%s on one node: compi is inactive (no communicator spans nodes)",
                  compi_mode_name(compi_cfg.mode), codec, compi_g.world_size, compi_g.world_size == 1 ? "" : "s");
    else
        compi_log(1, "mode=%s%s%s%s, %d ranks on %d nodes", compi_mode_name(compi_cfg.mode), codec,
                  how[compi_cfg.mode] ? how[compi_cfg.mode] : "", compi_cfg.mode == COMPI_MODE_OFF ? "" : minb,
                  compi_g.world_size, compi_g.node_count);
    if ((rc = compi_engine_init(x.max, engine_failed, x.names, err, sizeof err)) != MPI_SUCCESS) {
        if (rc == COMPI_ERR_CONFIG) compi_config_fail(err);
        return rc;
    }
    compi_prof_init();
    compi_pool_setup_init();
    compi_g.initialized = 1;
    return MPI_SUCCESS;
}

void compi_ensure_init(void)
{
    if (compi_g.initialized) return;
    int flag = 0;
    PMPI_Initialized(&flag);
    if (!flag) compi_die("an MPI call was made before MPI_Init");
    pthread_mutex_lock(&compi_g.lock);
    if (!compi_g.initialized) compi_core_init();
    pthread_mutex_unlock(&compi_g.lock);
}

void compi_core_finalize(void)
{
    if (!compi_g.initialized || compi_g.finalized) return;
    compi_report_write();
    compi_engine_finalize(); /* writes the profile into the trace */
    compi_prof_finalize();
    compi_pool_setup_finalize(); /* no helper thread outlives MPI */
    /* the cached communicator info on WORLD/SELF is freed by MPI_Finalize */
    if (compi_g.self_comm != MPI_COMM_NULL) PMPI_Comm_free(&compi_g.self_comm);
    compi_side_close();
    if (compi_world_group != MPI_GROUP_NULL) PMPI_Group_free(&compi_world_group);
    compi_g.finalized = 1;
}

static int compi_group_nodes(MPI_Group grp, int **nodes_out, int **world_out, int *n_out);

/* MPI_COMM_WORLD's ranks in order (allocated once, never freed: the
 * communicators that share it may be freed by MPI_Finalize). */
static int *compi_world_ranks(void)
{
    static int *ids;
    int *mine = __atomic_load_n(&ids, __ATOMIC_ACQUIRE), *none = NULL;
    if (mine) return mine;
    if (!(mine = malloc(sizeof(int) * (size_t)(compi_g.world_size > 0 ? compi_g.world_size : 1)))) return NULL;
    for (int i = 0; i < compi_g.world_size; i++) mine[i] = i;
    if (__atomic_compare_exchange_n(&ids, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return mine;
    free(mine);
    return none;
}

/* Maps every member of grp to its node and world rank; -1 for both where a
 * member is outside MPI_COMM_WORLD (dynamic processes), which we never frame.
 * A group that is MPI_COMM_WORLD's in its order (MPI_COMM_WORLD, its
 * duplicates) gets the process's arrays (*shared set): no O(P) copy per
 * communicator. */
static int compi_group_nodes_shared(MPI_Group grp, int **nodes_out, int **world_out, int *n_out, int *shared)
{
    int n, same = MPI_UNEQUAL;
    PMPI_Group_size(grp, &n);
    PMPI_Group_compare(grp, compi_world_group, &same);
    int *ids = same == MPI_IDENT && world_out ? compi_world_ranks() : NULL;
    if (ids) {
        *nodes_out = compi_g.node_of_world;
        *world_out = ids;
        *n_out = n;
        *shared = 1;
        return MPI_SUCCESS;
    }
    return compi_group_nodes(grp, nodes_out, world_out, n_out);
}

static int compi_group_nodes(MPI_Group grp, int **nodes_out, int **world_out, int *n_out)
{
    int n;
    PMPI_Group_size(grp, &n);
    int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *world = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *nodes = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!ranks || !world || !nodes) {
        free(ranks);
        free(world);
        free(nodes);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++) ranks[i] = i;
    PMPI_Group_translate_ranks(grp, n, ranks, compi_world_group, world);
    for (int i = 0; i < n; i++) {
        if (world[i] == MPI_UNDEFINED) world[i] = -1;
        nodes[i] = world[i] < 0 ? -1 : compi_g.node_of_world[world[i]];
    }
    free(ranks);
    *nodes_out = nodes;
    if (world_out) *world_out = world;
    else free(world);
    *n_out = n;
    return MPI_SUCCESS;
}

/* A hint value compi cannot honour is ignored, as an MPI ignores hints it
 * cannot honour (and as compi ignores bad file hints): the application's
 * error handler is not for advice. Each rank says so once per key. */
static void compi_hint_bad(int key, const char *name, const char *v, const char *valid)
{
    static int warned[3];
    if (__atomic_exchange_n(&warned[key], 1, __ATOMIC_RELAXED)) return;
    compi_log(0, "communicator hint %s='%.64s' is not valid (%s); ignored", name, v, valid);
}

/* MPIs may drop hints they do not know (MPICH 4.0 does, Open MPI 4.1 does
 * for set_info), so compi reads them from the call that set them (hints);
 * otherwise from MPI_Comm_get_info. */
static void compi_hints_read(MPI_Comm comm, MPI_Info hints, compi_hints *h)
{
    memset(h, 0, sizeof *h);
    MPI_Info info = hints;
    if (hints == MPI_INFO_NULL && (PMPI_Comm_get_info(comm, &info) != MPI_SUCCESS || info == MPI_INFO_NULL)) return;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    PMPI_Info_get(info, "compi_mode", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && !(h->has_mode = compi_parse_mode(v, &h->mode) == COMPI_OK))
        compi_hint_bad(0, "compi_mode", v, "valid values: " COMPI_MODE_NAMES);
    PMPI_Info_get(info, "compi_codec", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && !(h->has_codec = (h->codec = compi_codec_by_name(v)) != NULL)) {
        char valid[512];
        snprintf(valid, sizeof valid, "valid values: %s", compi_codec_names());
        compi_hint_bad(1, "compi_codec", v, valid);
    }
    PMPI_Info_get(info, "compi_min_bytes", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && !(h->has_min = compi_parse_size(v, &h->min_bytes) == COMPI_OK))
        compi_hint_bad(2, "compi_min_bytes", v, "expected a byte count such as 0, 2048, 64K");
    if (hints == MPI_INFO_NULL) PMPI_Info_free(&info);
}

static int compi_mode_frames(compi_mode m)
{
    return m != COMPI_MODE_OFF && m != COMPI_MODE_PROFILE;
}

/* ci's node_peers and widest, from its peers' nodes (ranks on no node
 * compi knows count as one node each); 0 where comm has a topology. */
static void compi_comm_node_peers(MPI_Comm comm, compi_comm_info *ci)
{
    int nn = compi_g.node_count, topo = MPI_UNDEFINED;
    if (!ci->is_inter) PMPI_Topo_test(comm, &topo);
    ci->node_peers = ci->widest = topo == MPI_UNDEFINED ? 1 : 0;
    int *per = topo == MPI_UNDEFINED && nn > 0 ? calloc((size_t)nn, sizeof *per) : NULL;
    if (!per) return;
    int mine = 0;
    for (int i = 0; i < ci->peer_count; i++) {
        int k = ci->peer_node[i];
        if (k < 0 || k >= nn) continue;
        if (++per[k] > ci->widest) ci->widest = per[k];
        if (k == compi_g.my_node) mine++;
    }
    if (mine > 1) ci->node_peers = mine;
    free(per);
}

/* A communicator's info, its membership part: the peers' world ranks and
 * nodes; *crosses: whether its members span nodes, every one on a node
 * compi knows (what framing needs besides a mode that frames). */
static compi_comm_info *compi_comm_members(MPI_Comm comm, int *crosses)
{
    static uint32_t next_id;
    compi_comm_info *ci = calloc(1, sizeof *ci);
    if (!ci) compi_die("out of memory");
    ci->refs = 1; /* the attribute's */
    ci->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    PMPI_Comm_test_inter(comm, &ci->is_inter);
    MPI_Group peers, local = MPI_GROUP_NULL;
    if (ci->is_inter) {
        PMPI_Comm_remote_group(comm, &peers);
        PMPI_Comm_group(comm, &local);
    } else {
        PMPI_Comm_group(comm, &peers);
    }
    compi_group_nodes_shared(peers, &ci->peer_node, &ci->peer_world, &ci->peer_count, &ci->peers_shared);
    int *local_nodes = NULL, nlocal = 0;
    if (local != MPI_GROUP_NULL) compi_group_nodes(local, &local_nodes, NULL, &nlocal);
    ci->my_node = compi_g.my_node;
    /* Framing must be decided identically by every member, so it depends only
     * on the communicator's membership: frame iff members span nodes. */
    int first = ci->peer_count ? ci->peer_node[0] : -1, spans = 0, outside = 0;
    for (int i = 0; i < ci->peer_count; i++) {
        if (ci->peer_node[i] < 0) outside = 1;
        else if (ci->peer_node[i] != first) spans = 1;
    }
    for (int i = 0; i < nlocal; i++) {
        if (local_nodes[i] < 0) outside = 1;
        else if (local_nodes[i] != first) spans = 1;
    }
    *crosses = spans && !outside;
    compi_comm_node_peers(comm, ci);
    free(local_nodes);
    PMPI_Group_free(&peers);
    if (local != MPI_GROUP_NULL) PMPI_Group_free(&local);
    return ci;
}

/* The policy part of ci (compi_comm_members' crosses): the environment's
 * policy (the same on every rank: MPI_Init agreed on it), then the hints h;
 * then ci is published. */
static compi_comm_info *compi_comm_info_policy(compi_comm_info *ci, const compi_hints *h, int crosses)
{
    ci->mode = h->has_mode ? h->mode : compi_cfg.mode;
    ci->codec = h->has_codec ? h->codec : compi_cfg.codec;
    ci->min_bytes = h->has_min ? h->min_bytes : compi_cfg.min_bytes;
    ci->framed = compi_mode_frames(ci->mode) && crosses;
    /* the info reaches other threads through the MPI's attribute cache,
     * whose own ordering compi does not rely on */
    __atomic_store_n(&ci->published, 1, __ATOMIC_RELEASE);
    return ci;
}

static compi_comm_info *compi_comm_info_build(MPI_Comm comm, const compi_hints *h)
{
    int crosses;
    compi_comm_info *ci = compi_comm_members(comm, &crosses);
    return compi_comm_info_policy(ci, h, crosses);
}

const compi_comm_info *compi_comm_lookup(MPI_Comm comm)
{
    void *attr;
    int found = 0;
    compi_ensure_init();
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &attr, &found);
    if (found && __atomic_load_n(&((compi_comm_info *)attr)->published, __ATOMIC_ACQUIRE)) return attr;
    pthread_mutex_lock(&compi_g.lock);
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &attr, &found);
    if (found && ((compi_comm_info *)attr)->copied_from) {
        compi_comm_info *ci = compi_comm_info_from_copy(comm, attr);
        compi_forgetting = 1;
        PMPI_Comm_delete_attr(comm, compi_g.comm_keyval);
        compi_forgetting = 0;
        PMPI_Comm_set_attr(comm, compi_g.comm_keyval, ci);
        attr = ci;
    } else if (!found) {
        /* hints the MPI kept on a communicator compi did not see them given
         * to (not collective here: no agreement, see compi_comm_apply_hints) */
        compi_hints h;
        compi_hints_read(comm, MPI_INFO_NULL, &h);
        attr = compi_comm_info_build(comm, &h);
        PMPI_Comm_set_attr(comm, compi_g.comm_keyval, attr);
    }
    pthread_mutex_unlock(&compi_g.lock);
    return attr;
}

/* Ranks of comm (an intracommunicator) whose value of a hint is v, as text. */
static void compi_ranks_with(const int64_t *all, int n, int64_t v, char *out, size_t cap)
{
    size_t len = 0;
    int listed = 0;
    out[0] = 0;
    for (int r = 0; r < n && len + 24 < cap; r++) {
        if (all[r] != v) continue;
        if (listed == 16) {
            len += (size_t)snprintf(out + len, cap - len, ", ...");
            break;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%d", listed ? ", " : "", r);
        listed++;
    }
}

/* Says once (per hint, from the communicator's rank 0) which members gave
 * which value of a hint they disagree on. Collective over an
 * intracommunicator; an intercommunicator's members are not listed. */
static void compi_hint_disagreement(MPI_Comm comm, int is_inter, int key, const char *name, int64_t mine,
                                    const char *(*text)(int64_t, char *, size_t), const char *used)
{
    static int warned[2];
    int rank, n;
    PMPI_Comm_rank(comm, &rank);
    char who[1024] = "";
    if (!is_inter) {
        PMPI_Comm_size(comm, &n);
        int64_t *all = malloc(sizeof *all * (size_t)n);
        if (all && PMPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm) == MPI_SUCCESS && rank == 0) {
            size_t len = 0;
            for (int r = 0; r < n && len + 64 < sizeof who; r++) {
                int first = 1;
                for (int q = 0; q < r; q++) first &= all[q] != all[r];
                if (!first) continue;
                char val[64], ranks[400];
                compi_ranks_with(all, n, all[r], ranks, sizeof ranks);
                len += (size_t)snprintf(who + len, sizeof who - len, "%s%s on rank%s %s", len ? "; " : " (",
                                        text(all[r], val, sizeof val), strchr(ranks, ',') ? "s" : "", ranks);
            }
            if (len && len < sizeof who - 1) strcat(who, ")");
        }
        free(all);
    }
    if (rank != 0 || __atomic_exchange_n(&warned[key], 1, __ATOMIC_RELAXED)) return;
    compi_log(0,
              "communicator hint %s differs between the members of a communicator%s; the hint is ignored on "
              "every member, which use %s (the configuration's value)",
              name, who, used);
}

static const char *compi_mode_text(int64_t v, char *out, size_t cap)
{
    snprintf(out, cap, "%s", compi_mode_name((compi_mode)v));
    return out;
}
static const char *compi_size_text(int64_t v, char *out, size_t cap)
{
    snprintf(out, cap, "%lld", (long long)v);
    return out;
}

/* Lowest and highest of every member's v[0..n) over comm, both groups of an
 * intercommunicator included (there a reduction yields the other group's:
 * a second one over the values combined with it yields everyone's). */
static int compi_agree_range(MPI_Comm comm, int is_inter, const int64_t *v, int64_t *lo, int64_t *hi, int n)
{
    int64_t mine[4], neg[4], t[4];
    for (int k = 0; k < n; k++) {
        mine[k] = v[k];
        neg[k] = -v[k];
    }
    for (int pass = 0; pass < (is_inter ? 2 : 1); pass++) {
        int rc = PMPI_Allreduce(mine, t, n, MPI_INT64_T, MPI_MIN, comm);
        if (rc == MPI_SUCCESS) {
            for (int k = 0; k < n; k++)
                if (t[k] < mine[k]) mine[k] = t[k];
        }
        if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(neg, t, n, MPI_INT64_T, MPI_MIN, comm);
        if (rc != MPI_SUCCESS) return rc;
        for (int k = 0; k < n; k++)
            if (t[k] < neg[k]) neg[k] = t[k];
    }
    for (int k = 0; k < n; k++) {
        lo[k] = mine[k];
        hi[k] = -neg[k];
    }
    return MPI_SUCCESS;
}

/* Hints are given collectively (MPI_Comm_set_info, MPI_Comm_dup_with_info),
 * but nothing makes the members give the same ones. Those that decide what
 * goes on the wire and which collectives run, compi_mode and
 * compi_min_bytes, must be the same on every member (a framed message to a
 * member that does not decode frames arrives as its frame's bytes; differing
 * collectives hang), so the members agree on them here, as MPI_Init agrees
 * on the configuration. A member's disagreement drops that hint on every
 * member, with a notice: a hint is advice an MPI may ignore, and the
 * configuration's value is the one common setting every member has (MPI_Init
 * checked), whereas failing the call would stop a job that compi would slow
 * down at worst. compi_codec need not agree: every frame names its codec. */
static void compi_hints_agree(MPI_Comm comm, compi_hints *h)
{
    int is_inter = 0;
    PMPI_Comm_test_inter(comm, &is_inter);
    int64_t v[2] = {h->has_mode ? h->mode : compi_cfg.mode, (int64_t)(h->has_min ? h->min_bytes : compi_cfg.min_bytes)},
            lo[2], hi[2];
    if (compi_agree_range(comm, is_inter, v, lo, hi, 2) != MPI_SUCCESS) {
        /* the communicator cannot carry the agreement: it cannot carry
         * compi's frames either; every member ends up here alike */
        h->has_mode = h->has_min = 0;
        return;
    }
    if (lo[0] != hi[0]) {
        char used[64];
        snprintf(used, sizeof used, "compi_mode=%s", compi_mode_name(compi_cfg.mode));
        compi_hint_disagreement(comm, is_inter, 0, "compi_mode", v[0], compi_mode_text, used);
        h->has_mode = 0;
    }
    /* the threshold matters only where the agreed mode frames */
    compi_mode agreed = h->has_mode ? h->mode : compi_cfg.mode;
    if (lo[1] != hi[1] && compi_mode_frames(agreed)) {
        char used[64];
        snprintf(used, sizeof used, "compi_min_bytes=%zu", compi_cfg.min_bytes);
        compi_hint_disagreement(comm, is_inter, 1, "compi_min_bytes", v[1], compi_size_text, used);
        h->has_min = 0;
    }
}

void compi_comm_apply_hints(MPI_Comm comm, MPI_Info hints)
{
    compi_ensure_init();
    compi_hints h;
    compi_hints_read(comm, hints, &h);
    /* collective: outside compi's lock, which no blocking call may hold */
    compi_hints_agree(comm, &h);
    pthread_mutex_lock(&compi_g.lock);
    /* a dup_with_info's copy of the original's (compi_comm_info_copy) goes;
     * only a present one is deleted: deleting a missing attribute is an
     * error Open MPI 4.1 hands to the communicator's handler, fatal by
     * default */
    void *old;
    int found = 0;
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &old, &found);
    compi_forgetting = 1;
    if (found) PMPI_Comm_delete_attr(comm, compi_g.comm_keyval);
    compi_forgetting = 0;
    PMPI_Comm_set_attr(comm, compi_g.comm_keyval, compi_comm_info_build(comm, &h));
    pthread_mutex_unlock(&compi_g.lock);
}
