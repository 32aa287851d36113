/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's process-wide state: configuration, node map, communicator cache. */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/internal.h"
#include "core/stash.h"
#include "coll/coll.h"

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

static __thread int compi_forgetting;   /* deleting the cache, not the communicator */

const compi_comm_info *compi_comm_info_hold(const compi_comm_info *ci)
{
    if (ci) __atomic_add_fetch(&((compi_comm_info *)ci)->refs, 1, __ATOMIC_RELAXED);
    return ci;
}

void compi_comm_info_release(const compi_comm_info *ci)
{
    compi_comm_info *c = (compi_comm_info *)ci;
    if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    free(c->peer_node);
    free(c->peer_world);
    free(c);
}

/* The communicator is freed (or its hints replaced): the cache lets go of
 * the info, which lives on while requests still hold it. */
static int compi_comm_info_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    if (!compi_forgetting) compi_stash_purge(comm);
    compi_coll_forget(attr);
    compi_comm_info_release(attr);
    return MPI_SUCCESS;
}

/* Node ids: ranks sharing memory (MPI_COMM_TYPE_SHARED) form a node, named by
 * their lowest world rank, then renumbered densely. */
static int compi_build_node_map(void)
{
    int n = compi_g.world_size;
    compi_g.node_of_world = calloc((size_t)n, sizeof(int));
    int *leader = calloc((size_t)n, sizeof(int));
    if (!compi_g.node_of_world || !leader) return MPI_ERR_NO_MEM;
    if (compi_cfg.ranks_per_node > 0) {
        for (int r = 0; r < n; r++) leader[r] = r / compi_cfg.ranks_per_node * compi_cfg.ranks_per_node;
    } else {
        MPI_Comm shm;
        int rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
        if (rc != MPI_SUCCESS) return rc;
        int mine = compi_g.world_rank, low;
        PMPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, shm);
        PMPI_Comm_free(&shm);
        PMPI_Allgather(&low, 1, MPI_INT, leader, 1, MPI_INT, MPI_COMM_WORLD);
    }
    int nodes = 0;
    for (int r = 0; r < n; r++) {
        if (leader[r] == r) compi_g.node_of_world[r] = nodes++;
    }
    for (int r = 0; r < n; r++) compi_g.node_of_world[r] = compi_g.node_of_world[leader[r]];
    compi_g.node_count = nodes;
    compi_g.my_node = compi_g.node_of_world[compi_g.world_rank];
    free(leader);
    return MPI_SUCCESS;
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

/* Every rank calls this with its own outcome of a step that may fail on some
 * ranks only (configuration files differ between nodes). Rank 0's message is
 * printed by compi_config_fail; a failing rank with another message prints
 * its own. Returns nonzero on every rank if any failed; rank 0's err then
 * says why even if rank 0 itself was fine. */
int compi_config_agree(int failed, char *err, size_t errlen)
{
    char root[1024];
    int rank, any = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(root, sizeof root, "%s", failed ? err : "");
    PMPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0 && failed && strncmp(err, root, sizeof root - 1) != 0)
        fprintf(stderr, "compi: configuration error on rank %d: %s\n", rank, err);
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && rank == 0 && !failed)
        snprintf(err, errlen, "the configuration of other ranks is invalid or differs from rank 0's (see their messages)");
    return any;
}

/* Settings that decide what goes on the wire or which collectives run must
 * be the same on every rank; node-local configuration files (or launchers
 * that forward the environment to some ranks only) can make them differ.
 * The codec need not agree: frames name their codec. Neither do the
 * adaptive tunables, decided by each sender alone. */
#define COMPI_AGREED 5
static const struct {
    const char *what;
    int setting;          /* whose source is named */
} compi_agreed[COMPI_AGREED] = {
    {"mode", COMPI_SET_MODE},
    {"min_bytes", COMPI_SET_MIN_BYTES},
    {"calibrate", COMPI_SET_CALIBRATE},
    {"debug_ranks_per_node", COMPI_SET_DEBUG_RANKS_PER_NODE},
    {"the report gathered at MPI_Finalize (report set or verbose >= 1)", COMPI_SET_REPORT},
};

static void compi_config_init(void)
{
    char sys[COMPI_CONFIG_PATH_MAX], err[1024] = "", mine[COMPI_AGREED][64], root[COMPI_AGREED][64];
    int rank;
    compi_system_config(sys, sizeof sys);
    int failed = compi_config_load(&compi_cfg, sys, err, sizeof err) != COMPI_OK;
    if (compi_config_agree(failed, err, sizeof err)) compi_config_fail(err);
    int gathers = compi_cfg.report_path[0] || compi_cfg.verbose >= 1;
    snprintf(mine[0], sizeof mine[0], "%s", compi_mode_name(compi_cfg.mode));
    snprintf(mine[1], sizeof mine[1], "%zu", compi_cfg.min_bytes);
    snprintf(mine[2], sizeof mine[2], "%s", compi_cfg.calibrate_init ? "init" : "off");
    snprintf(mine[3], sizeof mine[3], "%d", compi_cfg.ranks_per_node);
    snprintf(mine[4], sizeof mine[4], "%s", gathers ? "on" : "off");
    memcpy(root, mine, sizeof root);
    PMPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < COMPI_AGREED && !failed; k++) {
        if (strcmp(mine[k], root[k]) == 0) continue;
        int set = compi_agreed[k].setting;
        if (k == 4 && !compi_cfg.report_path[0]) set = COMPI_SET_VERBOSE;
        char from[COMPI_CONFIG_PATH_MAX + 64];
        compi_config_origin_text(&compi_cfg, (size_t)set, from, sizeof from);
        snprintf(err, sizeof err, "%s is %s here (%s%sfrom %.300s) but %s on rank 0; it must be the same on "
                 "every rank (configuration files that differ between nodes?)", compi_agreed[k].what, mine[k],
                 k == 4 ? compi_setting_at((size_t)set)->key : "", k == 4 ? " " : "", from, root[k]);
        failed = 1;
    }
    if (compi_config_agree(failed, err, sizeof err)) compi_config_fail(err);
}

int compi_core_init(void)
{
    char err[1024];
    compi_config_init();
    PMPI_Comm_rank(MPI_COMM_WORLD, &compi_g.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &compi_g.world_size);
    int rc = compi_build_node_map();
    if (rc != MPI_SUCCESS) return rc;
    PMPI_Comm_group(MPI_COMM_WORLD, &compi_world_group);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, compi_comm_info_delete, &compi_g.comm_keyval, NULL);
    PMPI_Comm_dup(MPI_COMM_SELF, &compi_g.self_comm);
    PMPI_Comm_dup(MPI_COMM_WORLD, &compi_g.aside_comm);
    /* compi judges what goes wrong on its side communicator (a chunk longer
     * than declared is a damaged message, not a reason to abort the job) */
    PMPI_Comm_set_errhandler(compi_g.aside_comm, MPI_ERRORS_RETURN);
    int *ub, found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
    compi_g.aside_tag_ub = found ? *ub : 32767;
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
    if ((rc = compi_engine_init(err, sizeof err)) != MPI_SUCCESS) {
        if (rc == COMPI_ERR_CONFIG) compi_config_fail(err);
        return rc;
    }
    compi_prof_init();
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
    compi_engine_finalize();   /* writes the profile into the trace */
    compi_prof_finalize();
    compi_coll_finalize();   /* node-aware collectives' sub-communicators */
    /* the cached communicator info on WORLD/SELF is freed by MPI_Finalize */
    if (compi_g.self_comm != MPI_COMM_NULL) PMPI_Comm_free(&compi_g.self_comm);
    if (compi_g.aside_comm != MPI_COMM_NULL) PMPI_Comm_free(&compi_g.aside_comm);
    if (compi_world_group != MPI_GROUP_NULL) PMPI_Group_free(&compi_world_group);
    compi_g.finalized = 1;
}

/* Maps every member of grp to its node and world rank; -1 for both where a
 * member is outside MPI_COMM_WORLD (dynamic processes), which we never frame. */
static int compi_group_nodes(MPI_Group grp, int **nodes_out, int **world_out, int *n_out)
{
    int n;
    PMPI_Group_size(grp, &n);
    int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *world = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *nodes = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!ranks || !world || !nodes) { free(ranks); free(world); free(nodes); return MPI_ERR_NO_MEM; }
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

/* The environment's policy, then the communicator's hints. Hints are set
 * collectively (MPI_Comm_set_info, MPI_Comm_dup_with_info), so every member
 * decides alike. MPIs may drop hints they do not know (MPICH 4.0 does, Open
 * MPI 4.1 does for set_info), so compi reads them from the call that set
 * them; otherwise from MPI_Comm_get_info. A bad value is fatal, like a bad
 * environment value. */
static void compi_comm_policy(MPI_Comm comm, MPI_Info hints, compi_comm_info *ci)
{
    ci->mode = compi_cfg.mode;
    ci->codec = compi_cfg.codec;
    ci->min_bytes = compi_cfg.min_bytes;
    MPI_Info info = hints;
    if (hints == MPI_INFO_NULL && (PMPI_Comm_get_info(comm, &info) != MPI_SUCCESS || info == MPI_INFO_NULL))
        return;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    PMPI_Info_get(info, "compi_mode", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && compi_parse_mode(v, &ci->mode) != COMPI_OK)
        compi_die("communicator hint compi_mode='%s' is not valid; valid values: " COMPI_MODE_NAMES, v);
    PMPI_Info_get(info, "compi_codec", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && !(ci->codec = compi_codec_by_name(v)))
        compi_die("communicator hint compi_codec='%s' is not a known codec; valid values: %s", v, compi_codec_names());
    PMPI_Info_get(info, "compi_min_bytes", MPI_MAX_INFO_VAL, v, &flag);
    if (flag && compi_parse_size(v, &ci->min_bytes) != COMPI_OK)
        compi_die("communicator hint compi_min_bytes='%s' is not valid; expected a byte count such as 0, 2048, 64K", v);
    if (hints == MPI_INFO_NULL) PMPI_Info_free(&info);
}

static compi_comm_info *compi_comm_info_build(MPI_Comm comm, MPI_Info hints)
{
    static uint32_t next_id;
    compi_comm_info *ci = calloc(1, sizeof *ci);
    if (!ci) compi_die("out of memory");
    ci->refs = 1;   /* the attribute's */
    ci->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    PMPI_Comm_test_inter(comm, &ci->is_inter);
    MPI_Group peers, local = MPI_GROUP_NULL;
    if (ci->is_inter) {
        PMPI_Comm_remote_group(comm, &peers);
        PMPI_Comm_group(comm, &local);
    } else {
        PMPI_Comm_group(comm, &peers);
    }
    compi_group_nodes(peers, &ci->peer_node, &ci->peer_world, &ci->peer_count);
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
    compi_comm_policy(comm, hints, ci);
    ci->framed = ci->mode != COMPI_MODE_OFF && ci->mode != COMPI_MODE_PROFILE && spans && !outside;
    free(local_nodes);
    PMPI_Group_free(&peers);
    if (local != MPI_GROUP_NULL) PMPI_Group_free(&local);
    return ci;
}

const compi_comm_info *compi_comm_lookup(MPI_Comm comm)
{
    void *attr;
    int found = 0;
    compi_ensure_init();
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &attr, &found);
    if (found) return attr;
    pthread_mutex_lock(&compi_g.lock);
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &attr, &found);
    if (!found) {
        attr = compi_comm_info_build(comm, MPI_INFO_NULL);
        PMPI_Comm_set_attr(comm, compi_g.comm_keyval, attr);
    }
    pthread_mutex_unlock(&compi_g.lock);
    return attr;
}

void compi_comm_apply_hints(MPI_Comm comm, MPI_Info hints)
{
    compi_ensure_init();
    pthread_mutex_lock(&compi_g.lock);
    /* a new communicator (dup_with_info: the attribute is not copied) has
     * none; deleting a missing attribute is an error Open MPI 4.1 hands to
     * the communicator's handler, fatal by default */
    void *old;
    int found = 0;
    PMPI_Comm_get_attr(comm, compi_g.comm_keyval, &old, &found);
    compi_forgetting = 1;
    if (found) PMPI_Comm_delete_attr(comm, compi_g.comm_keyval);
    compi_forgetting = 0;
    PMPI_Comm_set_attr(comm, compi_g.comm_keyval, compi_comm_info_build(comm, hints));
    pthread_mutex_unlock(&compi_g.lock);
}
