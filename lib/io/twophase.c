/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's two-phase collective I/O over PMPI (see twophase.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* dl_iterate_phdr */
#endif
#include "core/comm.h"
#include "core/bigcount.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/state.h"
#include "core/stats.h"
#include "io/twophase.h"
#include "coll/coll.h"
#include "codecs/codec_util.h"

#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const compi_io_pass_names[COMPI_IO_PASS_COUNT] = {
    "policy_mpi", "independent", "nonblocking", "split_collective", "shared_or_ordered", "atomic", "datarep",
    "sequential", "access_mode", "view", "memory_type", "arguments", "read_past_eof", "nothing_to_gain",
};
static const char *const compi_io_op_names[COMPI_IO_OPS] = {"write_all", "write_at_all", "read_all", "read_at_all"};
static const char *const compi_io_stage_names[COMPI_IO_T_COUNT] = {"flatten", "plan", "exchange", "io"};

#define COMPI_IO_CB_DEFAULT ((int64_t)16 << 20)   /* ROMIO's cb_buffer_size */
#define COMPI_IO_CB_MAX ((int64_t)64 << 20)       /* one cycle's message to an aggregator stays far below 2 GiB */
#define COMPI_IO_READ_GAP ((int64_t)64 << 10)     /* reads: runs this close are read as one */

static uint64_t compi_io_path_total;
static uint64_t compi_io_gate_total;   /* calls the gate passed to the MPI */
static uint64_t compi_io_memo_total;   /* of which passed from the view memo, without planning */
static pthread_mutex_t compi_io_lock = PTHREAD_MUTEX_INITIALIZER;
static compi_io_file *compi_io_files;
static char *compi_io_lines;   /* finished files' JSON objects, comma-separated */
static size_t compi_io_lines_len;

compi_io_file *compi_io_file_find(MPI_File fh)
{
    pthread_mutex_lock(&compi_io_lock);
    compi_io_file *f = compi_io_files;
    while (f && f->fh != fh) f = f->next;
    pthread_mutex_unlock(&compi_io_lock);
    return f;
}

/* A notice from the file's first rank (every rank reached the same verdict). */
static void compi_io_notice(const compi_io_file *f, const char *what)
{
    if (f->rank == 0) compi_log(0, "collective I/O on %s: %s; the MPI's own MPI-IO is used", f->filename, what);
}

static int compi_io_frames(const compi_comm_info *ci)
{
    compi_mode m = ci->mode;
    return ci->framed && !ci->is_inter &&
           (m == COMPI_MODE_FIXED || m == COMPI_MODE_ADAPTIVE || m == COMPI_MODE_GUIDED || m == COMPI_MODE_TRACE);
}

/* ------------------------------------------------------------------ hints */
static int compi_io_hint(MPI_Info info, const char *key, char *v, size_t cap)
{
    int flag = 0;
    if (info == MPI_INFO_NULL) return 0;
    PMPI_Info_get(info, key, (int)cap - 1, v, &flag);
    return flag;
}

static int compi_io_parse_i64(const char *v, int64_t lo, int64_t *out)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    while (*end == ' ') end++;
    if (end == v || *end || x < lo) return 0;
    *out = x;
    return 1;
}

/* compi's own handle on the file, for the aggregators' contiguous writes
 * and reads at byte offsets: opened on MPI_COMM_SELF by an aggregator when it
 * first needs it (local: no collective open or close for the application to
 * pay; processes that never aggregate never open it). The same file and
 * access mode, without create, exclusivity or deletion (the application's
 * handle owns those). Returns an MPI error code. */
static int compi_io_open_raw(compi_io_file *f)
{
    if (f->raw != MPI_FILE_NULL) return MPI_SUCCESS;
    int amode = f->amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                             MPI_MODE_APPEND);
    int rc = PMPI_File_open(MPI_COMM_SELF, f->filename, amode, MPI_INFO_NULL, &f->raw);
    if (rc != MPI_SUCCESS) {
        f->raw = MPI_FILE_NULL;
        return rc;
    }
    PMPI_File_set_errhandler(f->raw, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

/* Which MPI-IO runs underneath, and the ROMIO hints the gate models. Under
 * Open MPI the loaded io components tell (its romio321 returns an empty
 * info, OMPIO returns the application's hints, romio_* ones included):
 * mca_io_ompio loaded is taken for OMPIO (its priority wins by default),
 * mca_io_romio321 alone (--mca io romio321) is ROMIO. Otherwise (MPICH) ROMIO
 * says so itself in the file's info: romio_cb_write, romio_cb_read,
 * romio_aggregator_list. Nothing known: unknown (the gate never passes). */
static int compi_io_dl_cb(struct dl_phdr_info *i, size_t size, void *arg)
{
    (void)size;
    int *m = arg;
    if (i->dlpi_name && strstr(i->dlpi_name, "mca_io_ompio")) m[0] = 1;
    if (i->dlpi_name && strstr(i->dlpi_name, "mca_io_romio")) m[1] = 1;
    return 0;
}

static int compi_io_cb_value(const char *v)
{
    if (strcmp(v, "enable") == 0) return 0;
    if (strcmp(v, "disable") == 0) return -1;
    return 1;   /* automatic */
}

static void compi_io_detect(compi_io_file *f, MPI_Info user)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int kind = COMPI_IO_MPIIO_UNKNOWN, m[2] = {0, 0};
    free(f->ragg);
    f->ragg = NULL;
    f->nragg = 0;
    f->romio_cb_auto[0] = f->romio_cb_auto[1] = 1;
    /* Open MPI first: OMPIO keeps whatever hints the application gave, romio_*
     * ones included, so its info cannot tell */
    dl_iterate_phdr(compi_io_dl_cb, m);
    if (m[0]) {
        kind = COMPI_IO_MPIIO_OMPIO;
    } else if (m[1]) {
        kind = COMPI_IO_MPIIO_ROMIO;
        /* romio321 takes the application's romio_cb_* hints as they are */
        if (compi_io_hint(user, "romio_cb_write", v, sizeof v)) f->romio_cb_auto[1] = compi_io_cb_value(v);
        if (compi_io_hint(user, "romio_cb_read", v, sizeof v)) f->romio_cb_auto[0] = compi_io_cb_value(v);
    } else {
        MPI_Info used = MPI_INFO_NULL;
        if (PMPI_File_get_info(f->fh, &used) == MPI_SUCCESS && used != MPI_INFO_NULL) {
            if (compi_io_hint(used, "romio_cb_write", v, sizeof v)) {
                kind = COMPI_IO_MPIIO_ROMIO;
                f->romio_cb_auto[1] = compi_io_cb_value(v);
                if (compi_io_hint(used, "romio_cb_read", v, sizeof v)) f->romio_cb_auto[0] = compi_io_cb_value(v);
                if (compi_io_hint(used, "romio_aggregator_list", v, sizeof v)) {
                    int *l = malloc(sizeof(int) * (size_t)f->nprocs), n = 0, ok = l != NULL;
                    char *p = v, *end;
                    while (ok && *p) {
                        long r = strtol(p, &end, 10);
                        if (end == p) { ok = *p == ' '; p++; continue; }
                        if (r < 0 || r >= f->nprocs || n >= f->nprocs) ok = 0;
                        else l[n++] = (int)r;
                        p = end;
                    }
                    if (ok && n > 0) { f->ragg = l; f->nragg = n; }
                    else free(l);
                }
            }
            PMPI_Info_free(&used);
        }
    }
    f->mpiio = kind;
}

/* The view memo: a regular writer reopens the same file layout again and
 * again (a checkpoint every N steps), and the gate's verdict for it does not
 * change. Each process remembers, per communicator and view (its own, as a
 * hash), the fingerprint of the last gate decision that passed a call made
 * through that view: a hash of everything the decision was made from, the
 * same on every process. At set_view the fingerprints ride on the hint
 * agreement's allreduce (no message of its own): when every process has one
 * and they are equal, all processes' views were decided together and passed,
 * and the file's calls through this view go to the MPI from the first one on,
 * without planning. Passing is always right; a later access that differs
 * from the decided one is passed too (the price: compi's gain, if any, on
 * that access). Only views with a non-contiguous filetype are memorised. */
typedef struct {
    MPI_Comm comm;
    int nprocs, is_write;
    uint64_t sig, fp;
} compi_io_memo;
#define COMPI_IO_MEMO 32
static compi_io_memo compi_io_memos[COMPI_IO_MEMO];
static int compi_io_nmemo, compi_io_memo_next;

static int compi_io_memo_at(const compi_io_file *f, int is_write)
{
    for (int i = 0; i < compi_io_nmemo; i++) {
        const compi_io_memo *m = &compi_io_memos[i];
        if (m->comm == f->app_comm && m->nprocs == f->nprocs && m->is_write == is_write && m->sig == f->view_sig)
            return i;
    }
    return -1;
}

/* my memorised fingerprint for the file's current view (0: none) */
static uint64_t compi_io_memo_find(const compi_io_file *f, int is_write)
{
    if (!f->view_sig) return 0;
    pthread_mutex_lock(&compi_io_lock);
    int i = compi_io_memo_at(f, is_write);
    uint64_t fp = i >= 0 ? compi_io_memos[i].fp : 0;
    pthread_mutex_unlock(&compi_io_lock);
    return fp;
}

/* after a gate decision: remember a pass, forget anything else */
static void compi_io_memo_record(const compi_io_file *f, int is_write, uint64_t fp, int pass)
{
    if (!f->view_sig) return;
    pthread_mutex_lock(&compi_io_lock);
    int i = compi_io_memo_at(f, is_write);
    if (pass) {
        if (i < 0) {
            if (compi_io_nmemo < COMPI_IO_MEMO) i = compi_io_nmemo++;
            else { i = compi_io_memo_next; compi_io_memo_next = (compi_io_memo_next + 1) % COMPI_IO_MEMO; }
        }
        compi_io_memos[i] = (compi_io_memo){f->app_comm, f->nprocs, is_write, f->view_sig, fp ? fp : 1};
    } else if (i >= 0) {
        compi_io_memos[i].fp = 0;
    }
    pthread_mutex_unlock(&compi_io_lock);
}

void compi_io_file_hints(compi_io_file *f, MPI_Info info)
{
    char v[MPI_MAX_INFO_VAL + 1], why[300] = "";
    int policy = f->policy, weight = f->weight, gate = f->gate;
    int64_t cb = f->cb_buffer_size, nodes = f->cb_nodes, stripe = f->stripe, x;
    if (compi_io_hint(info, "compi_cb_aggregators", v, sizeof v)) {
        if (compi_parse_io_policy(v, &policy) != COMPI_OK) {
            snprintf(why, sizeof why, "hint compi_cb_aggregators='%.40s' is not one of " COMPI_IO_POLICY_NAMES, v);
            policy = COMPI_IO_MPI;
        } else {
            f->hinted = 1;
        }
    }
    if (compi_io_hint(info, "compi_cb_weight", v, sizeof v) && compi_parse_io_weight(v, &weight) != COMPI_OK &&
        policy != COMPI_IO_MPI) {
        snprintf(why, sizeof why, "hint compi_cb_weight='%.40s' is not one of " COMPI_IO_WEIGHT_NAMES, v);
        policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "compi_cb_gate", v, sizeof v)) {
        if (strcmp(v, "on") == 0) gate = 1;
        else if (strcmp(v, "off") == 0) gate = 0;
        else if (policy != COMPI_IO_MPI)
            snprintf(why, sizeof why, "hint compi_cb_gate='%.40s' is not one of on, off", v), policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "cb_buffer_size", v, sizeof v)) {
        if (compi_io_parse_i64(v, 1, &x)) cb = x < COMPI_IO_CB_MAX ? x : COMPI_IO_CB_MAX;
        else if (policy != COMPI_IO_MPI) snprintf(why, sizeof why, "hint cb_buffer_size='%.40s' is not a positive byte count", v), policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "cb_nodes", v, sizeof v)) {
        if (compi_io_parse_i64(v, 1, &x)) nodes = compi_int_clamp((uint64_t)x);
        else if (policy != COMPI_IO_MPI) snprintf(why, sizeof why, "hint cb_nodes='%.40s' is not a positive count", v), policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "striping_unit", v, sizeof v)) {
        if (compi_io_parse_i64(v, 0, &x)) stripe = x;
        else if (policy != COMPI_IO_MPI) snprintf(why, sizeof why, "hint striping_unit='%.40s' is not a byte count", v), policy = COMPI_IO_MPI;
    }
    /* every process must plan alike: the same policy, buffer, aggregators, stripe */
    compi_io_detect(f, info);
    int64_t mine[12] = {policy, cb, nodes, stripe, weight, gate, why[0] != 0,
                        f->mpiio, f->romio_cb_auto[0] + 2 * f->romio_cb_auto[1], f->nragg,
                        (int64_t)compi_io_memo_find(f, 0), (int64_t)compi_io_memo_find(f, 1)}, lo[12], hi[12];
    PMPI_Allreduce(mine, lo, 12, MPI_INT64_T, MPI_MIN, f->comm);
    PMPI_Allreduce(mine, hi, 12, MPI_INT64_T, MPI_MAX, f->comm);
    /* the view memo: every process's view passed in one decision */
    for (int w = 0; w < 2; w++) f->sticky[w] = lo[10 + w] == hi[10 + w] && lo[10 + w] != 0;
    /* the MPI-IO as every process sees it, or unknown (then the gate never passes) */
    if (memcmp(lo + 7, hi + 7, 3 * sizeof(int64_t)) != 0) f->mpiio = COMPI_IO_MPIIO_UNKNOWN;
    f->view_gen++;
    f->pc.valid = 0;
    if (hi[6]) {
        if (!why[0]) snprintf(why, sizeof why, "a bad collective I/O hint on another process");
        compi_io_notice(f, why);
        policy = COMPI_IO_MPI;
    } else if (memcmp(lo, hi, 6 * sizeof(int64_t)) != 0) {
        compi_io_notice(f, "processes gave different compi_cb_aggregators, compi_cb_weight, compi_cb_gate, "
                           "cb_buffer_size, cb_nodes or striping_unit");
        policy = COMPI_IO_MPI;
    } else {
        f->cb_buffer_size = cb;
        f->cb_nodes = (int)nodes;
        f->stripe = stripe;
        f->weight = weight;
        f->gate = gate;
    }
    /* compi's own handle on the file is opened by an aggregator when it first
     * needs it (compi_io_open_raw) */
    f->policy = policy;
}

void compi_io_file_opened(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File fh)
{
    compi_io_file *f = calloc(1, sizeof *f);
    char *name = filename ? strdup(filename) : NULL;
    int ok = f && name, all = 0;
    /* an allocation that failed on one process leaves the file with the MPI everywhere */
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) { free(f); free(name); return; }
    f->fh = fh;
    f->app_comm = comm;
    f->raw = MPI_FILE_NULL;
    f->filename = name;
    f->amode = amode;
    if (PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS) { free(f); free(name); return; }
    f->ci = compi_comm_info_hold(compi_comm_lookup(comm));
    PMPI_Comm_size(f->comm, &f->nprocs);
    PMPI_Comm_rank(f->comm, &f->rank);
    f->policy = compi_cfg.io_aggregators;
    f->weight = compi_cfg.io_weight;
    f->gate = compi_cfg.io_gate;
    f->cb_buffer_size = COMPI_IO_CB_DEFAULT;
    /* the initial view: bytes from offset 0, native */
    f->etype_size = 1;
    f->native = 1;
    compi_io_segs_init(&f->ft);
    compi_io_segs_add(&f->ft, 0, 1);
    f->ft_extent = 1;
    f->view_ok = f->ft.n == 1;
    compi_io_file_hints(f, info);
    pthread_mutex_lock(&compi_io_lock);
    f->next = compi_io_files;
    compi_io_files = f;
    pthread_mutex_unlock(&compi_io_lock);
}

void compi_io_file_view(compi_io_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        const char *datarep)
{
    int esize = 0;
    MPI_Aint lb = 0, ext = 0;
    f->disp = (int64_t)disp;
    PMPI_Type_size(etype, &esize);
    f->etype_size = esize > 0 ? esize : 1;
    f->native = datarep && strcmp(datarep, "native") == 0;
    compi_io_segs_free(&f->ft);
    int rc = compi_io_flatten_type(filetype, &f->ft);
    PMPI_Type_get_extent(filetype, &lb, &ext);
    f->ft_extent = (int64_t)ext;
    /* MPI asks filetypes for nonnegative, nondecreasing displacements; compi
     * also needs the tiles not to overlap, so file segments increase */
    int ok = rc == COMPI_OK && f->ft.bytes > 0 && f->ft_extent > 0 && disp >= 0;
    for (size_t k = 0; ok && k < f->ft.n; k++) {
        if (f->ft.v[k].off < 0) ok = 0;
        if (k > 0 && f->ft.v[k].off < f->ft.v[k - 1].off + f->ft.v[k - 1].len) ok = 0;
    }
    if (ok && f->ft.v[f->ft.n - 1].off + f->ft.v[f->ft.n - 1].len > f->ft_extent + f->ft.v[0].off) ok = 0;
    f->view_ok = ok;
    f->view_gen++;
    f->pc.valid = 0;
    /* the view's hash for the view memo (non-contiguous filetypes only) */
    f->view_sig = 0;
    if (ok && !(f->ft.n == 1 && f->ft.v[0].len == f->ft_extent)) {
        uint64_t h = COMPI_FNV64_INIT;
        int64_t hd[4] = {f->disp, f->etype_size, f->ft_extent, f->native};
        h = compi_fnv1a64(h, hd, sizeof hd);
        h = compi_fnv1a64(h, f->ft.v, sizeof(compi_io_seg) * f->ft.n);
        f->view_sig = h ? h : 1;
    }
}

int compi_io_file_sync(compi_io_file *f)
{
    return f->raw != MPI_FILE_NULL ? PMPI_File_sync(f->raw) : MPI_SUCCESS;
}

/* ---------------------------------------------------------------- report */
static void compi_io_cat(char **s, size_t *len, size_t *cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void compi_io_cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*s ? *s + *len : NULL, *s ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (*s && *len + (size_t)n < *cap) { *len += (size_t)n; return; }
        size_t nc = (*cap ? *cap * 2 : 1024) + (size_t)n;
        char *ns = realloc(*s, nc);
        if (!ns) return;
        *s = ns;
        *cap = nc;
    }
}

static void compi_io_json_escape(char **s, size_t *len, size_t *cap, const char *str)
{
    compi_io_cat(s, len, cap, "\"");
    for (const char *p = str; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') compi_io_cat(s, len, cap, "\\%c", c);
        else if (c < 0x20) compi_io_cat(s, len, cap, "\\u%04x", c);
        else compi_io_cat(s, len, cap, "%c", c);
    }
    compi_io_cat(s, len, cap, "\"");
}

static void compi_io_file_report(compi_io_file *f)
{
    enum { W = sizeof(compi_io_stats) / sizeof(uint64_t) };
    compi_io_stats sum, mx;
    PMPI_Reduce(&f->st, &sum, W, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    PMPI_Reduce(&f->st, &mx, W, MPI_UINT64_T, MPI_MAX, 0, f->comm);
    if (f->rank != 0) return;
    char *s = NULL;
    size_t len = 0, cap = 0;
    compi_io_cat(&s, &len, &cap, "{\"file\": ");
    compi_io_json_escape(&s, &len, &cap, f->filename);
    compi_io_cat(&s, &len, &cap, ", \"policy\": \"%s\", \"weight\": \"%s\", \"mpi_io\": \"%s\", \"gate\": \"%s\", "
                 "\"la_plans\": {\"solved\": %llu, \"reused\": %llu}, \"processes\": %d, \"aggregators\": [",
                 compi_io_policy_name(f->policy), compi_io_weight_name(f->weight), compi_io_mpiio_name(f->mpiio),
                 f->gate ? "on" : "off", (unsigned long long)(sum.planned / (uint64_t)f->nprocs),
                 (unsigned long long)(sum.cached / (uint64_t)f->nprocs), f->nprocs);
    for (int k = 0; k < f->nagg; k++) compi_io_cat(&s, &len, &cap, "%s%d", k ? ", " : "", f->agg[k]);
    compi_io_cat(&s, &len, &cap, "], \"compi_calls\": {");
    for (int o = 0; o < COMPI_IO_OPS; o++)
        compi_io_cat(&s, &len, &cap, "%s\"%s\": {\"calls\": %llu, \"bytes\": %llu}", o ? ", " : "", compi_io_op_names[o],
                     (unsigned long long)(sum.calls[o] / (uint64_t)f->nprocs), (unsigned long long)sum.bytes[o]);
    compi_io_cat(&s, &len, &cap, "}, \"passed_to_mpi\": {");
    int first = 1;
    for (int r = 0; r < COMPI_IO_PASS_COUNT; r++) {
        if (!sum.pass[r]) continue;
        compi_io_cat(&s, &len, &cap, "%s\"%s\": %llu", first ? "" : ", ", compi_io_pass_names[r],
                     (unsigned long long)sum.pass[r]);
        first = 0;
    }
    compi_io_cat(&s, &len, &cap, "}, \"stage_seconds_max\": {");
    for (int t = 0; t < COMPI_IO_T_COUNT; t++)
        compi_io_cat(&s, &len, &cap, "%s\"%s\": %.6f", t ? ", " : "", compi_io_stage_names[t], (double)mx.ns[t] * 1e-9);
    compi_io_cat(&s, &len, &cap,
                 "}, \"redistribution\": {\"local_bytes\": %llu, \"intra_node_bytes\": %llu, \"inter_node_bytes\": %llu, "
                 "\"intra_node_messages\": %llu, \"inter_node_messages\": %llu, \"inter_node_wire_bytes\": %llu, "
                 "\"metadata_bytes\": %llu, \"inter_node_metadata_bytes\": %llu}, "
                 "\"aggregator_io_calls\": %llu, \"cycles\": %llu}",
                 (unsigned long long)sum.local, (unsigned long long)sum.intra, (unsigned long long)sum.inter,
                 (unsigned long long)sum.msgs_intra, (unsigned long long)sum.msgs_inter,
                 (unsigned long long)sum.wire_inter, (unsigned long long)sum.meta, (unsigned long long)sum.meta_inter,
                 (unsigned long long)sum.io_runs,
                 (unsigned long long)(sum.cycles / (uint64_t)f->nprocs));
    if (!s) return;
    if (compi_cfg.verbose >= 1) {
        uint64_t on = 0, passed = 0;
        for (int o = 0; o < COMPI_IO_OPS; o++) on += sum.calls[o] / (uint64_t)f->nprocs;
        for (int r = 0; r < COMPI_IO_PASS_COUNT; r++) passed += sum.pass[r];
        compi_log(0, "collective I/O on %s (%s): %llu collective calls on compi's path, %llu calls passed to the MPI; "
                  "redistribution %llu B inter-node (%llu B on the wire), %llu B intra-node, %llu B local",
                  f->filename, compi_io_policy_name(f->policy), (unsigned long long)on, (unsigned long long)passed,
                  (unsigned long long)sum.inter, (unsigned long long)sum.wire_inter, (unsigned long long)sum.intra,
                  (unsigned long long)sum.local);
    }
    pthread_mutex_lock(&compi_io_lock);
    char *nl = realloc(compi_io_lines, compi_io_lines_len + len + 3);
    if (nl) {
        compi_io_lines = nl;
        if (compi_io_lines_len) { memcpy(nl + compi_io_lines_len, ", ", 2); compi_io_lines_len += 2; }
        memcpy(nl + compi_io_lines_len, s, len + 1);
        compi_io_lines_len += len;
    }
    pthread_mutex_unlock(&compi_io_lock);
    free(s);
}

char *compi_io_report_json(void)
{
    pthread_mutex_lock(&compi_io_lock);
    size_t n = compi_io_lines_len;
    char *s = malloc(n + 3);
    if (s) {
        s[0] = '[';
        if (n) memcpy(s + 1, compi_io_lines, n);
        s[n + 1] = ']';
        s[n + 2] = 0;
    }
    pthread_mutex_unlock(&compi_io_lock);
    return s;
}

void compi_io_file_closing(MPI_File fh)
{
    pthread_mutex_lock(&compi_io_lock);
    compi_io_file **pp = &compi_io_files, *f = NULL;
    while (*pp && (*pp)->fh != fh) pp = &(*pp)->next;
    if (*pp) { f = *pp; *pp = f->next; }
    pthread_mutex_unlock(&compi_io_lock);
    if (!f) return;
    compi_io_file_report(f);
    if (f->raw != MPI_FILE_NULL) PMPI_File_close(&f->raw);
    PMPI_Comm_free(&f->comm);
    compi_comm_info_release(f->ci);
    compi_io_segs_free(&f->ft);
    free(f->agg);
    free(f->ragg);
    free(f->pc.agg);
    free(f->filename);
    free(f);
}

/* --------------------------------------------------------- the algorithm */
typedef struct {
    compi_io_file *f;
    int is_write;
    int n, me;
    const int *node_of;
    int frames;                  /* inter-node messages travel as compi frames */
    compi_typeinfo elem;         /* the data's element class, for the codec choice */
    compi_io_segs fs;            /* my file segments, increasing */
    int64_t *spos;               /* stream position of each file segment */
    unsigned char *stream;       /* my data in data order */
    compi_io_domains d;
    int *agg;                    /* domain -> process */
    int mydom;                   /* my domain, -1 if I am no aggregator */
    int64_t cb;
    unsigned char *cbuf;         /* an aggregator's cycle buffer */
    int rc;                      /* first MPI error on this process */
} compi_io_call;

/* The gate's compression account (see io.h, compi_io_gate_model): this
 * process's codec record of the run so far, rec[0..4] = compression ns
 * (sample evaluations included), decompression ns, bytes into codecs,
 * bytes out of them, inter-node messages decided on. Summed over the
 * processes, compi_io_codec_rates turns it into per-byte times and a ratio. */
static void compi_io_codec_record(double *rec)
{
    double in = 0, out = 0;
    for (int id = 1; id < 256; id++) {
        in += (double)__atomic_load_n(&compi_st.codec_in[id], __ATOMIC_RELAXED);
        out += (double)__atomic_load_n(&compi_st.codec_out[id], __ATOMIC_RELAXED);
    }
    rec[0] = (double)(__atomic_load_n(&compi_st.compress_ns, __ATOMIC_RELAXED) +
                      __atomic_load_n(&compi_st.evaluate_ns, __ATOMIC_RELAXED));
    rec[1] = (double)__atomic_load_n(&compi_st.decompress_ns, __ATOMIC_RELAXED);
    rec[2] = in;
    rec[3] = out;
    rec[4] = (double)__atomic_load_n(&compi_st.inter_decided, __ATOMIC_RELAXED);
}

/* distinct nodes among the call's processes */
static int compi_io_node_count(const compi_io_call *c)
{
    if (!c->node_of) return c->n;
    int nodes = 0;
    for (int p = 0; p < c->n; p++) {
        int seen = 0;
        for (int q = 0; q < p && !seen; q++) seen = c->node_of[q] == c->node_of[p];
        nodes += !seen;
    }
    return nodes;
}

/* Window of domain k in cycle c. */
static void compi_io_window(const compi_io_call *c, int k, int64_t cyc, int64_t *lo, int64_t *hi)
{
    *lo = c->d.begin[k] + cyc * c->cb;
    *hi = *lo + c->cb < c->d.stop[k] ? *lo + c->cb : c->d.stop[k];
    if (*lo > *hi) *lo = *hi;
}

/* My pieces in [lo, hi): calls fn(arg, off, len, stream position) for each, in order. */
typedef void (*compi_io_piece_fn)(void *arg, int64_t off, int64_t len, int64_t spos);
static void compi_io_pieces(const compi_io_call *c, int64_t lo, int64_t hi, compi_io_piece_fn fn, void *arg)
{
    if (lo >= hi || c->fs.n == 0) return;
    size_t a = 0, b = c->fs.n;   /* first segment ending after lo */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (c->fs.v[m].off + c->fs.v[m].len <= lo) a = m + 1;
        else b = m;
    }
    for (size_t i = a; i < c->fs.n && c->fs.v[i].off < hi; i++) {
        int64_t s = c->fs.v[i].off > lo ? c->fs.v[i].off : lo;
        int64_t e = c->fs.v[i].off + c->fs.v[i].len < hi ? c->fs.v[i].off + c->fs.v[i].len : hi;
        if (e > s) fn(arg, s, e - s, c->spos[i] + (s - c->fs.v[i].off));
    }
}

typedef struct { int64_t n, bytes; } compi_io_tally;
static void compi_io_tally_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off; (void)spos;
    compi_io_tally *t = arg;
    t->n++;
    t->bytes += len;
}

/* A message under construction: the piece list (compact, lib/io/plist.c),
 * then (writes) the bytes. */
typedef struct { compi_io_plist pl; int rc; } compi_io_meta;
static void compi_io_meta_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)spos;
    compi_io_meta *m = arg;
    if (m->rc == COMPI_OK) m->rc = compi_io_plist_add(&m->pl, off, len);
}
typedef struct { unsigned char *data; const unsigned char *stream; } compi_io_fill;
static void compi_io_fill_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off;
    compi_io_fill *w = arg;
    memcpy(w->data, w->stream + spos, (size_t)len);
    w->data += len;
}

/* The piece list of my pieces in [lo, hi), finished; *size its bytes. */
static void compi_io_meta_build(const compi_io_call *c, int64_t lo, int64_t hi, compi_io_meta *m)
{
    compi_io_plist_init(&m->pl, lo);
    m->rc = COMPI_OK;
    compi_io_pieces(c, lo, hi, compi_io_meta_fn, m);
    if (m->rc == COMPI_OK) m->rc = compi_io_plist_finish(&m->pl);
    if (m->rc != COMPI_OK) compi_die("out of memory in collective I/O (piece list)");
}

/* The reply of an aggregator, copied to my stream in request order. */
typedef struct { unsigned char *stream; const unsigned char *data; } compi_io_take;
static void compi_io_take_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    (void)off;
    compi_io_take *t = arg;
    memcpy(t->stream + spos, t->data, (size_t)len);
    t->data += len;
}

static int compi_io_remote(const compi_io_call *c, int p)
{
    return c->node_of[p] != c->node_of[c->me];
}

/* Counts one redistribution message of `bytes` data bytes and `meta` piece
 * list bytes to p, `wire` on the wire. */
static void compi_io_count(compi_io_call *c, int p, int64_t bytes, int64_t meta, size_t wire)
{
    compi_io_stats *st = &c->f->st;
    if (p == c->me) { st->local += (uint64_t)bytes; return; }
    st->meta += (uint64_t)meta;
    if (compi_io_remote(c, p)) {
        st->inter += (uint64_t)bytes; st->msgs_inter++; st->wire_inter += wire; st->meta_inter += (uint64_t)meta;
    } else {
        st->intra += (uint64_t)bytes; st->msgs_intra++;
    }
}

/* One exchange of messages msgs[p] (lens[p] bytes; NULL/0: none) with
 * every process, through the collective layer's exchange (lib/coll/pipex.c:
 * lengths first, then point to point with only the processes that
 * have a message, each sent from where it lies) on the file's duplicate
 * communicator; inter-node ones as compi frames. A message to myself is
 * never sent: the caller handles its own part in place. Frees msgs[p];
 * x->got holds what arrived (compi_coll_xfer_free). */
static int compi_io_exchange(compi_io_call *c, unsigned char **msgs, size_t *lens, const int64_t *data_bytes,
                             const int64_t *meta_bytes, compi_coll_xfer *x)
{
    int rc = MPI_SUCCESS;
    compi_coll_out *outs = calloc((size_t)c->n, sizeof *outs);
    if (!outs || compi_coll_xfer_init(x, c->n) != MPI_SUCCESS) compi_die("out of memory in collective I/O");
    for (int p = 0; p < c->n; p++) {
        if (!msgs[p] || lens[p] == 0 || p == c->me) continue;
        compi_coll_out *o = &outs[p];
        if (c->frames && compi_io_remote(c, p)) {
            int erc = compi_coll_encode(c->f->ci, p, COMPI_FAM_IO, msgs[p], lens[p], &c->elem, &o->frame,
                                        &o->flen);
            if (erc != MPI_SUCCESS) { rc = erc; break; }
        } else {
            o->ref = msgs[p];
            o->flen = lens[p];
        }
        compi_io_count(c, p, data_bytes ? data_bytes[p] : 0, meta_bytes ? meta_bytes[p] : 0, o->flen);
        x->out[p] = o;
    }
    /* an encoding failure still takes part in the exchange (nothing sent) */
    if (rc != MPI_SUCCESS)
        for (int p = 0; p < c->n; p++) x->out[p] = NULL;
    int xrc = compi_coll_xfer_run(x, c->f->comm, c->f->comm, 0, NULL, c->f->comm);
    for (int p = 0; p < c->n; p++) {
        free(outs[p].frame);
        free(msgs[p]);
        msgs[p] = NULL;
    }
    free(outs);
    return rc != MPI_SUCCESS ? rc : xrc;
}

/* Block i of in as plain bytes: decoded when it is a frame (*owned set). */
static int compi_io_block(compi_io_call *c, const compi_coll_blocks *in, int i, const unsigned char **p, size_t *n,
                          unsigned char **owned)
{
    *owned = NULL;
    *p = in->bytes + in->displs[i];
    *n = (size_t)in->lens[i];
    if (*n == 0 || !c->frames || !compi_io_remote(c, i)) return MPI_SUCCESS;
    compi_frame_header h;
    char why[200];
    if (compi_frame_read_header(*p, *n, &h, why, sizeof why) != COMPI_OK) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.MPI_SOURCE = i;
        return compi_frame_fail(c->f->comm, &st, why);
    }
    unsigned char *b = malloc(h.original_len ? (size_t)h.original_len : 1);
    if (!b) compi_die("out of memory in collective I/O");
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = i;
    int rc;
    if (compi_fits_int(h.original_len)) {
        rc = compi_frame_deliver(*p, *n, b, (int)h.original_len, MPI_BYTE, &st, c->f->comm);
    } else {   /* beyond an int count: the MPI-free decoder, no MPI datatype involved */
        rc = compi_frame_decode_whole(*p, *n, b, (size_t)h.original_len, &h, why, sizeof why) == COMPI_OK
                 ? MPI_SUCCESS
                 : compi_frame_fail(c->f->comm, &st, why);
    }
    if (rc != MPI_SUCCESS) { free(b); return rc; }
    *owned = b;
    *p = b;
    *n = (size_t)h.original_len;
    return MPI_SUCCESS;
}

static int compi_io_seg_cmp(const void *x, const void *y)
{
    const compi_io_seg *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Sorted pieces merged into runs (gap: pieces this close join one run). */
static size_t compi_io_runs(compi_io_seg *v, size_t n, int64_t gap)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, compi_io_seg_cmp);
    size_t r = 0;
    for (size_t i = 1; i < n; i++) {
        int64_t end = v[r].off + v[r].len;
        if (v[i].off <= end + gap) {
            if (v[i].off + v[i].len > end) v[r].len = v[i].off + v[i].len - v[r].off;
        } else {
            v[++r] = v[i];
        }
    }
    return r + 1;
}

/* Checks a message: a piece list inside [lo, hi), then (with_data) exactly
 * its bytes. *data: where they start. */
static int compi_io_parse(const unsigned char *p, size_t n, int64_t lo, int64_t hi, int with_data, int64_t *np,
                          int64_t *bytes, const unsigned char **data)
{
    size_t used = 0;
    if (compi_io_plist_parse(p, n, lo, hi, NULL, NULL, np, bytes, &used) != COMPI_OK) return 0;
    *data = p + used;
    return n - used == (with_data ? (size_t)*bytes : 0);
}

static void compi_io_pieces_grow(compi_io_seg **v, size_t *n, size_t *cap, int64_t off, int64_t len)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        compi_io_seg *nv = realloc(*v, *cap * sizeof **v);
        if (!nv) compi_die("out of memory in collective I/O");
        *v = nv;
    }
    (*v)[*n].off = off;
    (*v)[(*n)++].len = len;
}

static int compi_io_internal(compi_io_call *c, int src, const char *what)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = src;
    return compi_frame_fail(c->f->comm, &st, what);
}

/* An aggregator takes a writer's pieces: bytes into the cycle buffer, pieces into the run list. */
typedef struct {
    unsigned char *cbuf;
    int64_t lo;
    const unsigned char *data;
    compi_io_seg **pv;
    size_t *pn, *pcap;
} compi_io_put;
static void compi_io_put_fn(void *arg, int64_t off, int64_t len)
{
    compi_io_put *u = arg;
    if (u->cbuf) {
        memcpy(u->cbuf + (off - u->lo), u->data, (size_t)len);
        u->data += len;
    }
    compi_io_pieces_grow(u->pv, u->pn, u->pcap, off, len);
}

/* An aggregator's own pieces, straight from its stream into the cycle buffer. */
typedef struct { const compi_io_call *c; unsigned char *cbuf; int64_t lo; compi_io_seg **pv; size_t *pn, *pcap; int64_t bytes; } compi_io_own;
static void compi_io_own_put_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    compi_io_own *u = arg;
    if (u->cbuf) memcpy(u->cbuf + (off - u->lo), u->c->stream + spos, (size_t)len);
    compi_io_pieces_grow(u->pv, u->pn, u->pcap, off, len);
    u->bytes += len;
}
/* ... and back (reads), once the cycle buffer holds them. */
static void compi_io_own_get_fn(void *arg, int64_t off, int64_t len, int64_t spos)
{
    compi_io_own *u = arg;
    memcpy(u->c->stream + spos, u->cbuf + (off - u->lo), (size_t)len);
}

static void compi_io_write_cycle(compi_io_call *c, int64_t cyc)
{
    unsigned char **msgs = calloc((size_t)c->n, sizeof *msgs);
    size_t *lens = calloc((size_t)c->n, sizeof *lens);
    int64_t *dbytes = calloc((size_t)c->n, sizeof(int64_t)), *mbytes = calloc((size_t)c->n, sizeof(int64_t));
    if (!msgs || !lens || !dbytes || !mbytes) compi_die("out of memory in collective I/O");
    uint64_t t0 = compi_now_ns();
    for (int k = 0; k < c->d.n; k++) {
        if (c->agg[k] == c->me) continue;   /* my own domain: my pieces go straight to the cycle buffer */
        int64_t lo, hi;
        compi_io_window(c, k, cyc, &lo, &hi);
        compi_io_meta meta;
        compi_io_meta_build(c, lo, hi, &meta);
        if (meta.pl.n == 0) { compi_io_plist_free(&meta.pl); continue; }
        int a = c->agg[k];
        size_t msize = compi_io_plist_size(&meta.pl), size = msize + (size_t)meta.pl.bytes;
        unsigned char *m = malloc(size);
        if (!m) compi_die("out of memory in collective I/O");
        compi_io_plist_write(&meta.pl, m);
        compi_io_fill w = {m + msize, c->stream};
        compi_io_pieces(c, lo, hi, compi_io_fill_fn, &w);
        msgs[a] = m;
        lens[a] = size;
        dbytes[a] = meta.pl.bytes;
        mbytes[a] = (int64_t)msize;
        compi_io_plist_free(&meta.pl);
    }
    compi_coll_xfer x;
    int rc = compi_io_exchange(c, msgs, lens, dbytes, mbytes, &x);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    if (c->mydom >= 0 && rc == MPI_SUCCESS) {
        int64_t lo, hi;
        compi_io_window(c, c->mydom, cyc, &lo, &hi);
        compi_io_seg *pv = NULL;
        size_t pn = 0, pcap = 0;
        /* senders in rank order: where processes wrote the same byte, the
         * highest rank's stays (MPI leaves it undefined; ROMIO does this) */
        for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
            if (i == c->me) {
                compi_io_own own = {c, c->cbuf, lo, &pv, &pn, &pcap, 0};
                compi_io_pieces(c, lo, hi, compi_io_own_put_fn, &own);
                if (own.bytes) compi_io_count(c, c->me, own.bytes, 0, 0);
                continue;
            }
            const unsigned char *p, *data;
            size_t len;
            unsigned char *owned;
            if (x.got.lens[i] == 0) continue;
            if ((rc = compi_io_block(c, &x.got, i, &p, &len, &owned)) != MPI_SUCCESS) { c->rc = rc; break; }
            int64_t np, nb;
            if (!compi_io_parse(p, len, lo, hi, 1, &np, &nb, &data)) {
                c->rc = compi_io_internal(c, i, "a collective I/O message does not match the aggregator's window");
                free(owned);
                break;
            }
            compi_io_put put = {c->cbuf, lo, data, &pv, &pn, &pcap};
            compi_io_plist_parse(p, len, lo, hi, compi_io_put_fn, &put, NULL, NULL, NULL);
            free(owned);
        }
        uint64_t t1 = compi_now_ns();
        c->f->st.ns[COMPI_IO_T_EXCHANGE] += t1 - t0;
        t0 = t1;
        /* only the bytes processes wrote: each contiguous run once */
        size_t nr = c->rc == MPI_SUCCESS ? compi_io_runs(pv, pn, 0) : 0;
        if (nr > 0 && (rc = compi_io_open_raw(c->f)) != MPI_SUCCESS) c->rc = rc;
        for (size_t r = 0; r < nr && c->rc == MPI_SUCCESS; r++) {
            MPI_Status st;
            int wrc = PMPI_File_write_at(c->f->raw, (MPI_Offset)pv[r].off, c->cbuf + (pv[r].off - lo),
                                         (int)pv[r].len, MPI_BYTE, &st);
            c->f->st.io_runs++;
            if (wrc != MPI_SUCCESS) c->rc = wrc;
        }
        c->f->st.ns[COMPI_IO_T_IO] += compi_now_ns() - t0;
        free(pv);
    } else {
        c->f->st.ns[COMPI_IO_T_EXCHANGE] += compi_now_ns() - t0;
    }
    compi_coll_xfer_free(&x);
    free(msgs);
    free(lens);
    free(dbytes);
    free(mbytes);
}

/* An aggregator answers a reader: the bytes of its pieces, in its order. */
typedef struct { const unsigned char *cbuf; int64_t lo; unsigned char *out; } compi_io_get;
static void compi_io_get_fn(void *arg, int64_t off, int64_t len)
{
    compi_io_get *g = arg;
    memcpy(g->out, g->cbuf + (off - g->lo), (size_t)len);
    g->out += len;
}

static void compi_io_read_cycle(compi_io_call *c, int64_t cyc)
{
    unsigned char **msgs = calloc((size_t)c->n, sizeof *msgs);
    size_t *lens = calloc((size_t)c->n, sizeof *lens);
    int64_t *dbytes = calloc((size_t)c->n, sizeof(int64_t)), *mbytes = calloc((size_t)c->n, sizeof(int64_t));
    if (!msgs || !lens || !dbytes || !mbytes) compi_die("out of memory in collective I/O");
    uint64_t t0 = compi_now_ns();
    /* 1: requests (piece lists) to the aggregators; my own domain's pieces need none */
    for (int k = 0; k < c->d.n; k++) {
        if (c->agg[k] == c->me) continue;
        int64_t lo, hi;
        compi_io_window(c, k, cyc, &lo, &hi);
        compi_io_meta meta;
        compi_io_meta_build(c, lo, hi, &meta);
        if (meta.pl.n == 0) { compi_io_plist_free(&meta.pl); continue; }
        int a = c->agg[k];
        size_t size = compi_io_plist_size(&meta.pl);
        unsigned char *m = malloc(size);
        if (!m) compi_die("out of memory in collective I/O");
        compi_io_plist_write(&meta.pl, m);
        msgs[a] = m;
        lens[a] = size;
        mbytes[a] = (int64_t)size;
        compi_io_plist_free(&meta.pl);
    }
    compi_coll_xfer req, rep;
    memset(&rep, 0, sizeof rep);
    int rc = compi_io_exchange(c, msgs, lens, NULL, mbytes, &req);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    /* 2: the aggregator reads the runs asked for and answers each process */
    memset(lens, 0, sizeof *lens * (size_t)c->n);
    if (c->mydom >= 0 && rc == MPI_SUCCESS) {
        int64_t lo, hi;
        compi_io_window(c, c->mydom, cyc, &lo, &hi);
        compi_io_seg *pv = NULL;
        size_t pn = 0, pcap = 0;
        const unsigned char **reqp = calloc((size_t)c->n, sizeof *reqp);
        unsigned char **owned = calloc((size_t)c->n, sizeof *owned);
        size_t *reql = calloc((size_t)c->n, sizeof *reql);
        if (!reqp || !owned || !reql) compi_die("out of memory in collective I/O");
        int64_t own_bytes = 0;
        for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
            const unsigned char *p, *data;
            size_t len;
            int64_t np, nb;
            if (i == c->me) {   /* my own pieces of my domain: runs to read, no request */
                compi_io_own own = {c, NULL, lo, &pv, &pn, &pcap, 0};
                compi_io_pieces(c, lo, hi, compi_io_own_put_fn, &own);
                own_bytes = own.bytes;
                continue;
            }
            if (req.got.lens[i] == 0) continue;
            if ((rc = compi_io_block(c, &req.got, i, &p, &len, &owned[i])) != MPI_SUCCESS) { c->rc = rc; break; }
            if (!compi_io_parse(p, len, lo, hi, 0, &np, &nb, &data)) {
                c->rc = compi_io_internal(c, i, "a collective I/O request does not match the aggregator's window");
                break;
            }
            reqp[i] = p;
            reql[i] = len;
            dbytes[i] = nb;
            compi_io_put put = {NULL, lo, NULL, &pv, &pn, &pcap};
            compi_io_plist_parse(p, len, lo, hi, compi_io_put_fn, &put, NULL, NULL, NULL);
        }
        uint64_t t1 = compi_now_ns();
        c->f->st.ns[COMPI_IO_T_EXCHANGE] += t1 - t0;
        t0 = t1;
        size_t nr = c->rc == MPI_SUCCESS ? compi_io_runs(pv, pn, COMPI_IO_READ_GAP) : 0;
        if (nr > 0 && (rc = compi_io_open_raw(c->f)) != MPI_SUCCESS) c->rc = rc;
        for (size_t r = 0; r < nr && c->rc == MPI_SUCCESS; r++) {
            MPI_Status st;
            int got = 0;
            int rrc = PMPI_File_read_at(c->f->raw, (MPI_Offset)pv[r].off, c->cbuf + (pv[r].off - lo), (int)pv[r].len,
                                        MPI_BYTE, &st);
            c->f->st.io_runs++;
            if (rrc == MPI_SUCCESS) PMPI_Get_count(&st, MPI_BYTE, &got);
            if (rrc != MPI_SUCCESS) c->rc = rrc;
            else if (got != (int)pv[r].len) {
                /* the file got shorter since the size was checked: a read past its end */
                c->rc = compi_io_internal(c, c->me, "collective I/O: the file ended before the bytes asked for");
            }
        }
        uint64_t t2 = compi_now_ns();
        c->f->st.ns[COMPI_IO_T_IO] += t2 - t0;
        t0 = t2;
        if (c->rc == MPI_SUCCESS && own_bytes) {   /* my own pieces, from the cycle buffer to my stream */
            compi_io_own own = {c, c->cbuf, lo, NULL, NULL, NULL, 0};
            compi_io_pieces(c, lo, hi, compi_io_own_get_fn, &own);
            compi_io_count(c, c->me, own_bytes, 0, 0);
        }
        for (int i = 0; i < c->n && c->rc == MPI_SUCCESS; i++) {
            if (!reqp[i] || dbytes[i] == 0) continue;
            unsigned char *m = malloc((size_t)dbytes[i]);
            if (!m) compi_die("out of memory in collective I/O");
            compi_io_get get = {c->cbuf, lo, m};
            compi_io_plist_parse(reqp[i], reql[i], lo, hi, compi_io_get_fn, &get, NULL, NULL, NULL);
            msgs[i] = m;
            lens[i] = (size_t)dbytes[i];
        }
        if (c->rc != MPI_SUCCESS)   /* nothing half-answered */
            for (int i = 0; i < c->n; i++) { free(msgs[i]); msgs[i] = NULL; lens[i] = 0; }
        for (int i = 0; i < c->n; i++) free(owned[i]);
        free(owned);
        free(reqp);
        free(reql);
        free(pv);
    }
    rc = compi_io_exchange(c, msgs, lens, dbytes, NULL, &rep);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS) c->rc = rc;
    /* 3: my pieces from each other aggregator's reply, in the order asked */
    for (int k = 0; k < c->d.n && rc == MPI_SUCCESS; k++) {
        int a = c->agg[k];
        if (a == c->me) continue;   /* taken from my cycle buffer above */
        int64_t lo, hi;
        compi_io_window(c, k, cyc, &lo, &hi);
        compi_io_tally t = {0, 0};
        compi_io_pieces(c, lo, hi, compi_io_tally_fn, &t);
        if (t.n == 0) continue;
        const unsigned char *p;
        size_t len;
        unsigned char *own;
        if (rep.got.lens[a] == 0) {   /* the aggregator failed: its error comes back in the final agreement */
            if (c->rc == MPI_SUCCESS) c->rc = MPI_ERR_IO;
            continue;
        }
        if ((rc = compi_io_block(c, &rep.got, a, &p, &len, &own)) != MPI_SUCCESS) { c->rc = rc; break; }
        if (len != (size_t)t.bytes) {
            c->rc = compi_io_internal(c, a, "a collective I/O reply has the wrong length");
            free(own);
            break;
        }
        compi_io_take tk = {c->stream, p};
        compi_io_pieces(c, lo, hi, compi_io_take_fn, &tk);
        free(own);
    }
    c->f->st.ns[COMPI_IO_T_EXCHANGE] += compi_now_ns() - t0;
    compi_coll_xfer_free(&req);
    compi_coll_xfer_free(&rep);
    free(msgs);
    free(lens);
    free(dbytes);
    free(mbytes);
}

/* My bytes that the MPI's own (ROMIO) placement would send to an
 * aggregator on another node (see io.h, gate.c): none when ROMIO accesses
 * independently (romio_cb_* disable, or automatic and no interleaving). */
static int64_t compi_io_mpi_internode(const compi_io_file *f, const compi_io_call *c, int is_write, int64_t gs,
                                      int64_t ge, const int64_t *starts, const int64_t *ends)
{
    compi_io_romio_model m = {f->romio_cb_auto[is_write ? 1 : 0], f->ragg, f->nragg, f->cb_nodes, f->stripe};
    int64_t v = compi_io_romio_row_internode(&m, c->n, c->node_of, gs, ge, starts, ends, &c->fs, c->me);
    if (v < 0) compi_die("out of memory in collective I/O");
    return v;
}

/* Reasons that are the same on every process (set by collective calls). */
static int compi_io_file_reason(compi_io_file *f, int is_write)
{
    if (f->policy == COMPI_IO_MPI) return COMPI_IO_PASS_POLICY;
    if (f->amode & MPI_MODE_SEQUENTIAL) return COMPI_IO_PASS_SEQUENTIAL;
    if (is_write ? (f->amode & MPI_MODE_RDONLY) : (f->amode & MPI_MODE_WRONLY)) return COMPI_IO_PASS_AMODE;
    int atomic = 0;
    PMPI_File_get_atomicity(f->fh, &atomic);
    if (atomic) return COMPI_IO_PASS_ATOMIC;
    if (!f->native) return COMPI_IO_PASS_DATAREP;
    return -1;
}

int compi_io_collective(compi_io_file *f, compi_io_op op, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                        MPI_Status *status, int *handled)
{
    *handled = 0;
    int is_write = op == COMPI_IO_WRITE_ALL || op == COMPI_IO_WRITE_AT_ALL;
    int explicit_off = op == COMPI_IO_WRITE_AT_ALL || op == COMPI_IO_READ_AT_ALL;
    int reason = compi_io_file_reason(f, is_write);
    if (reason >= 0) {
        f->st.pass[reason]++;
        return MPI_SUCCESS;
    }
    if (f->policy == COMPI_IO_LA && f->gate && f->mpiio == COMPI_IO_MPIIO_ROMIO && f->sticky[is_write]) {
        /* the view memo: decided when this view was used before */
        f->st.pass[COMPI_IO_PASS_NOTHING]++;
        f->st.cached++;
        __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&compi_io_memo_total, 1, __ATOMIC_RELAXED);
        return MPI_SUCCESS;
    }
    uint64_t t0 = compi_now_ns();
    compi_io_call c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.is_write = is_write;
    c.n = f->nprocs;
    c.me = f->rank;
    c.node_of = f->ci->peer_node;
    c.frames = compi_io_frames(f->ci);
    c.mydom = -1;
    c.cb = f->cb_buffer_size;
    compi_io_segs_init(&c.fs);
    compi_io_segs ms;
    compi_io_segs_init(&ms);

    /* 1: my access, flattened (any problem: a reason bit) */
    uint64_t bad = 0;
    MPI_Count tsize = 0;
    MPI_Offset pos0 = 0;
    int64_t nbytes = 0;
    if (!f->view_ok) bad |= 1u << COMPI_IO_PASS_VIEW;
    if (count < 0 || PMPI_Type_size_x(dt, &tsize) != MPI_SUCCESS || tsize < 0) bad |= 1u << COMPI_IO_PASS_ARGS;
    else nbytes = (int64_t)count * (int64_t)tsize;
    if (nbytes % f->etype_size) bad |= 1u << COMPI_IO_PASS_ARGS;
    if (explicit_off) {
        if (offset < 0) bad |= 1u << COMPI_IO_PASS_ARGS;
        pos0 = offset;
    } else if (PMPI_File_get_position(f->fh, &pos0) != MPI_SUCCESS) {
        bad |= 1u << COMPI_IO_PASS_ARGS;
    }
    /* the cached plan: the same access as last time (the file segments are a
     * function of the view, the position and the size) */
    int64_t posb = (int64_t)pos0 * f->etype_size;
    int la = f->policy == COMPI_IO_LA;
    int hit = la && !bad && f->pc.valid && f->pc.view_gen == f->view_gen && f->pc.is_write == is_write &&
              f->pc.pos == posb && f->pc.nbytes == nbytes;
    int hit_pass = hit && f->pc.pass == COMPI_IO_GATE_PASS;
    int have_fs = 0;
    if (!bad && nbytes > 0 && !hit_pass) {
        compi_io_segs one;
        compi_io_segs_init(&one);
        MPI_Aint lb, ext;
        int frc = compi_io_flatten_type(dt, &one);
        PMPI_Type_get_extent(dt, &lb, &ext);
        if (frc == COMPI_OK && one.n == 1 && one.v[0].len == (int64_t)ext)   /* contiguous: one segment */
            frc = compi_io_segs_add(&ms, one.v[0].off, nbytes);
        else if (frc == COMPI_OK)
            frc = compi_io_flatten_memory(dt, count, &ms);
        compi_io_segs_free(&one);
        if (frc != COMPI_OK || ms.bytes != nbytes) bad |= 1u << COMPI_IO_PASS_TYPE;
    }
    if (!bad && nbytes > 0 && !hit_pass) {
        int vrc;
        if (f->ft.n == 1 && f->ft.v[0].len == f->ft_extent)   /* contiguous view */
            vrc = compi_io_segs_add(&c.fs, f->disp + f->ft.v[0].off + posb, nbytes);
        else
            vrc = compi_io_view_segments(f->disp, &f->ft, f->ft_extent, posb, nbytes, &c.fs);
        if (vrc != COMPI_OK || c.fs.bytes != nbytes) bad |= 1u << COMPI_IO_PASS_VIEW;
        have_fs = 1;
    }
    int64_t start = c.fs.n ? c.fs.v[0].off : 0;
    int64_t end = c.fs.n ? c.fs.v[c.fs.n - 1].off + c.fs.v[c.fs.n - 1].len : 0;
    if (hit_pass) { start = f->pc.start; end = f->pc.end; }
    if (!bad && !is_write && end > 0 && !hit_pass) {
        MPI_Offset size = 0;
        if (PMPI_File_get_size(f->fh, &size) != MPI_SUCCESS || end > (int64_t)size) bad |= 1u << COMPI_IO_PASS_EOF;
    }
    /* 2: agreement and the global range; bit 32: my access hits the cached
     * plan, bit 33: and its verdict was to pass */
    int64_t mine[3] = {(int64_t)(bad | ((uint64_t)hit << 32) | ((uint64_t)hit_pass << 33)), start, end};
    int64_t *all = malloc(sizeof(int64_t) * 3 * (size_t)c.n);
    int64_t *starts = malloc(sizeof(int64_t) * (size_t)c.n), *ends = malloc(sizeof(int64_t) * (size_t)c.n);
    if (!all || !starts || !ends) compi_die("out of memory in collective I/O");
    int rc = PMPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, f->comm);
    uint64_t anybad = 0;
    int nhit = 0, nhit_pass = 0;
    int64_t gs = INT64_MAX, ge = INT64_MIN;
    for (int p = 0; p < c.n; p++) {
        uint64_t w = (uint64_t)all[3 * p];
        anybad |= w & 0xffffffffu;
        nhit += (int)((w >> 32) & 1);
        nhit_pass += (int)((w >> 33) & 1);
        starts[p] = all[3 * p + 1];
        ends[p] = all[3 * p + 2];
        if (all[3 * p + 2] > all[3 * p + 1]) {
            if (all[3 * p + 1] < gs) gs = all[3 * p + 1];
            if (all[3 * p + 2] > ge) ge = all[3 * p + 2];
        }
    }
    free(all);
    if (rc != MPI_SUCCESS) anybad |= 1u << COMPI_IO_PASS_ARGS;
    if (!anybad && nhit_pass > 0) {
        /* every process makes the access the gate passed last time: the MPI's
         * own call again, without planning. Some but not all: the accesses
         * changed; passing is always right, and the next call plans anew. */
        if (nhit_pass == c.n) f->st.cached++;
        else f->pc.valid = 0;
        f->st.pass[COMPI_IO_PASS_NOTHING]++;
        __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
        free(starts);
        free(ends);
        compi_io_segs_free(&c.fs);
        compi_io_segs_free(&ms);
        return MPI_SUCCESS;
    }
    if (anybad) {
        int r = 0;
        while (!(anybad & (1u << r))) r++;
        f->st.pass[r]++;
        free(starts);
        free(ends);
        compi_io_segs_free(&c.fs);
        compi_io_segs_free(&ms);
        return MPI_SUCCESS;
    }
    (void)have_fs;
    int nothing = ge <= gs;   /* no process accesses a byte */
    uint64_t t1 = compi_now_ns();
    f->st.ns[COMPI_IO_T_FLATTEN] += t1 - t0;

    /* 3-4: domains and aggregators (la: the gate may pass the call here) */
    int *def = NULL;
    if (!nothing) {
        def = malloc(sizeof(int) * (size_t)c.n);
        if (!def) compi_die("out of memory in collective I/O");
        int nagg = compi_io_place_default(c.n, c.node_of, f->cb_nodes, def);
        if (nagg <= 0 || compi_io_domains_make(gs, ge, nagg, f->stripe, &c.d) != COMPI_OK)
            compi_die("collective I/O: no file domains for [%lld, %lld)", (long long)gs, (long long)ge);
        c.agg = def;
        if (la && nhit == c.n && f->pc.nagg == nagg && f->pc.agg) {
            /* every process hit: the same matrix, the same placement */
            memcpy(def, f->pc.agg, sizeof(int) * (size_t)nagg);
            f->st.cached++;
        } else if (la) {
            int gate = f->gate && f->mpiio == COMPI_IO_MPIIO_ROMIO;
            /* my bytes per domain, my bytes the MPI's placement sends across
             * nodes, then (the gate's compression account) my codec record so
             * far and my link's time per byte */
            enum { XC = 6 };
            int cols = nagg + 1 + XC;
            double *row = calloc((size_t)cols, sizeof(double));
            double *w = malloc(sizeof(double) * (size_t)cols * (size_t)c.n);
            double *wb = malloc(sizeof(double) * (size_t)nagg * (size_t)c.n);
            double *wk = malloc(sizeof(double) * (size_t)nagg * (size_t)c.n);
            int *lap = malloc(sizeof(int) * (size_t)nagg);
            if (!row || !w || !wb || !wk || !lap) compi_die("out of memory in collective I/O");
            compi_io_domain_matrix(&c.d, 1, &c.fs, row, NULL);
            if (gate) {
                row[nagg] = (double)compi_io_mpi_internode(f, &c, is_write, gs, ge, starts, ends);
                compi_io_codec_record(row + nagg + 1);
                row[nagg + 1 + 5] = compi_engine_inter_ns_per_byte((double)(ge - gs) / nagg);
            }
            int arc = PMPI_Allgather(row, cols, MPI_DOUBLE, w, cols, MPI_DOUBLE, f->comm);
            double mpi_inter = 0, rec[XC] = {0};
            for (int p = 0; p < c.n; p++) {
                memcpy(wb + (size_t)p * nagg, w + (size_t)p * cols, sizeof(double) * (size_t)nagg);
                mpi_inter += w[(size_t)p * cols + nagg];
                for (int j = 0; j < XC - 1; j++) rec[j] += w[(size_t)p * cols + nagg + 1 + j];
                if (w[(size_t)p * cols + nagg + XC] > rec[XC - 1]) rec[XC - 1] = w[(size_t)p * cols + nagg + XC];
            }
            /* la weighs bytes, or (compi_cb_weight=blocks) the block counts, gathered likewise */
            const double *wt = wb;
            if (arc == MPI_SUCCESS && f->weight == COMPI_IO_WEIGHT_BLOCKS) {
                compi_io_domain_matrix(&c.d, 1, &c.fs, NULL, row);
                arc = PMPI_Allgather(row, nagg, MPI_DOUBLE, wk, nagg, MPI_DOUBLE, f->comm);
                wt = wk;
            }
            /* every process solves the same problem with the same code: the same answer */
            int placed = arc == MPI_SUCCESS && compi_io_place_la(c.n, nagg, wt, NULL, c.node_of, 1, lap) == COMPI_OK;
            /* bytes weight: the placement with the fewest bytes across nodes
             * when it moves no more than default (def holds default's here) */
            if (placed && f->weight != COMPI_IO_WEIGHT_BLOCKS &&
                compi_io_place_la_net(c.n, nagg, wb, c.node_of, def, lap) != COMPI_OK)
                placed = 0;
            if (placed) memcpy(def, lap, sizeof(int) * (size_t)nagg);
            f->st.planned++;
            int verdict = COMPI_IO_GATE_COMPI;
            if (gate && arc == MPI_SUCCESS) {
                compi_io_volume v;
                compi_io_volume_of(c.n, nagg, wb, def, c.node_of, &v);
                compi_io_gate_in gi = {.mpiio = f->mpiio, .compress = c.frames, .nodes = compi_io_node_count(&c),
                                       .la_internode = v.internode, .mpi_internode = (int64_t)mpi_inter,
                                       .beta_ns = rec[5]};
                compi_io_codec_load(c.n, nagg, wb, def, c.node_of, is_write, &gi.comp_max, &gi.decomp_max);
                compi_io_codec_rates(rec, &gi.c_ns, &gi.d_ns, &gi.ratio);
                verdict = compi_io_gate_model(&gi);
            }
            if (gate && arc == MPI_SUCCESS) {
                /* the decision's fingerprint: all it was made from, the same on every process */
                uint64_t fp = COMPI_FNV64_INIT;
                int64_t hd[6] = {gs, ge, nagg, (int64_t)mpi_inter, c.frames, verdict};
                fp = compi_fnv1a64(fp, hd, sizeof hd);
                fp = compi_fnv1a64(fp, starts, sizeof(int64_t) * (size_t)c.n);
                fp = compi_fnv1a64(fp, ends, sizeof(int64_t) * (size_t)c.n);
                fp = compi_fnv1a64(fp, wb, sizeof(double) * (size_t)nagg * (size_t)c.n);
                compi_io_memo_record(f, is_write, fp, verdict == COMPI_IO_GATE_PASS);
            }
            /* the plan, for the next identical access */
            free(f->pc.agg);
            f->pc.agg = malloc(sizeof(int) * (size_t)nagg);
            f->pc.valid = f->pc.agg != NULL && arc == MPI_SUCCESS;
            if (f->pc.agg) memcpy(f->pc.agg, def, sizeof(int) * (size_t)nagg);
            f->pc.nagg = nagg;
            f->pc.view_gen = f->view_gen;
            f->pc.is_write = is_write;
            f->pc.pos = posb;
            f->pc.nbytes = nbytes;
            f->pc.start = start;
            f->pc.end = end;
            f->pc.pass = verdict;
            free(row);
            free(w);
            free(wb);
            free(wk);
            free(lap);
            if (verdict == COMPI_IO_GATE_PASS) {
                f->st.pass[COMPI_IO_PASS_NOTHING]++;
                __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
                f->st.ns[COMPI_IO_T_PLAN] += compi_now_ns() - t1;
                free(def);
                compi_io_domains_free(&c.d);
                free(starts);
                free(ends);
                compi_io_segs_free(&c.fs);
                compi_io_segs_free(&ms);
                return MPI_SUCCESS;
            }
        }
        for (int k = 0; k < c.d.n; k++)
            if (c.agg[k] == c.me) c.mydom = k;
        if (f->nagg != c.d.n || !f->agg || memcmp(f->agg, c.agg, sizeof(int) * (size_t)c.d.n) != 0) {
            free(f->agg);
            f->agg = malloc(sizeof(int) * (size_t)c.d.n);
            f->nagg = f->agg ? c.d.n : 0;
            if (f->agg) memcpy(f->agg, c.agg, sizeof(int) * (size_t)c.d.n);
        }
    }
    free(starts);
    free(ends);
    *handled = 1;
    __atomic_fetch_add(&compi_io_path_total, 1, __ATOMIC_RELAXED);
    f->st.calls[op]++;
    f->st.bytes[op] += (uint64_t)nbytes;

    /* my data as one stream in data order: the application's buffer itself
     * when its memory side is contiguous (writes only read it; reads land
     * in it), else a packed copy */
    unsigned char *own_stream = NULL;
    if (!nothing) {
        if (ms.n == 1) c.stream = (unsigned char *)buf + ms.v[0].off;
        else c.stream = own_stream = malloc(nbytes ? (size_t)nbytes : 1);
        c.spos = malloc(sizeof(int64_t) * (c.fs.n ? c.fs.n : 1));
        if (!c.stream || !c.spos) compi_die("out of memory in collective I/O");
        int64_t at = 0;
        for (size_t k = 0; k < c.fs.n; k++) { c.spos[k] = at; at += c.fs.v[k].len; }
        if (is_write && own_stream) {
            at = 0;
            for (size_t k = 0; k < ms.n; k++) {
                memcpy(c.stream + at, (const char *)buf + ms.v[k].off, (size_t)ms.v[k].len);
                at += ms.v[k].len;
            }
        }
        compi_typeinfo_get(dt, 1, &c.elem);
    }
    uint64_t t2 = compi_now_ns();
    f->st.ns[COMPI_IO_T_PLAN] += t2 - t1;

    /* 5-8: cycles of cb_buffer_size over every domain */
    if (!nothing) {
        int64_t ncyc = 0;
        for (int k = 0; k < c.d.n; k++) {
            int64_t len = c.d.stop[k] - c.d.begin[k];
            int64_t cy = len > 0 ? (len + c.cb - 1) / c.cb : 0;
            if (cy > ncyc) ncyc = cy;
        }
        if (c.mydom >= 0) {
            c.cbuf = malloc((size_t)c.cb);
            if (!c.cbuf) compi_die("out of memory in collective I/O (cb_buffer_size %lld)", (long long)c.cb);
        }
        for (int64_t cyc = 0; cyc < ncyc; cyc++) {
            if (is_write) compi_io_write_cycle(&c, cyc);
            else compi_io_read_cycle(&c, cyc);
        }
        f->st.cycles += (uint64_t)ncyc;
    }
    /* every process returns the error if any failed */
    int err = c.rc, anyerr = MPI_SUCCESS;
    PMPI_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, f->comm);
    if (anyerr == MPI_SUCCESS && !is_write && !nothing && own_stream) {
        int64_t at = 0;
        for (size_t k = 0; k < ms.n; k++) {
            memcpy((char *)buf + ms.v[k].off, c.stream + at, (size_t)ms.v[k].len);
            at += ms.v[k].len;
        }
    }
    if (anyerr == MPI_SUCCESS && !explicit_off && nbytes > 0)
        anyerr = PMPI_File_seek(f->fh, pos0 + nbytes / f->etype_size, MPI_SEEK_SET);
    if (status != MPI_STATUS_IGNORE) {
        PMPI_Status_set_elements_x(status, MPI_BYTE, anyerr == MPI_SUCCESS ? (MPI_Count)nbytes : 0);
        PMPI_Status_set_cancelled(status, 0);
    }
    free(own_stream);
    free(c.spos);
    free(c.cbuf);
    free(def);
    if (!nothing) compi_io_domains_free(&c.d);
    compi_io_segs_free(&c.fs);
    compi_io_segs_free(&ms);
    if (anyerr != MPI_SUCCESS) {
        PMPI_File_call_errhandler(f->fh, anyerr);
        return anyerr;
    }
    return MPI_SUCCESS;
}

/* For tests (found with dlsym): collective calls this process ran on compi's
 * path, over every file, open or closed. Exported by the test build of the
 * library (libcompi_testhooks.so) only; libcompi's export list hides them. */
#define COMPI_TEST_HOOK __attribute__((visibility("default")))
COMPI_TEST_HOOK uint64_t compi_io_path_calls(void);
COMPI_TEST_HOOK uint64_t compi_io_path_calls(void)
{
    return __atomic_load_n(&compi_io_path_total, __ATOMIC_RELAXED);
}

/* For tests: collective calls the gate passed to the MPI on this process. */
COMPI_TEST_HOOK uint64_t compi_io_gate_passes(void);
COMPI_TEST_HOOK uint64_t compi_io_gate_passes(void)
{
    return __atomic_load_n(&compi_io_gate_total, __ATOMIC_RELAXED);
}

/* For tests: calls passed from the view memo (no planning at all). */
COMPI_TEST_HOOK uint64_t compi_io_memo_passes(void);
COMPI_TEST_HOOK uint64_t compi_io_memo_passes(void)
{
    return __atomic_load_n(&compi_io_memo_total, __ATOMIC_RELAXED);
}
