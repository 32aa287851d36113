/* SPDX-License-Identifier: BSD-3-Clause */
/* The files of compi's two-phase collective I/O: the registry of open
 * files, their hints (and which MPI-IO runs underneath), their views and
 * the view memo, compi's own handle on each file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "io/twophase_internal.h"
#include "codecs/codec_util.h"

#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t compi_io_lock = PTHREAD_MUTEX_INITIALIZER;
static compi_io_file *compi_io_files;

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
int compi_io_open_raw(compi_io_file *f)
{
    if (f->raw != MPI_FILE_NULL) return MPI_SUCCESS;
    int amode = f->amode &
                ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_APPEND);
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
    return 1; /* automatic */
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
                        if (end == p) {
                            ok = *p == ' ';
                            p++;
                            continue;
                        }
                        if (r < 0 || r >= f->nprocs || n >= f->nprocs) ok = 0;
                        else l[n++] = (int)r;
                        p = end;
                    }
                    if (ok && n > 0) {
                        f->ragg = l;
                        f->nragg = n;
                    } else free(l);
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
void compi_io_memo_record(const compi_io_file *f, int is_write, uint64_t fp, int pass)
{
    if (!f->view_sig) return;
    pthread_mutex_lock(&compi_io_lock);
    int i = compi_io_memo_at(f, is_write);
    if (pass) {
        if (i < 0) {
            if (compi_io_nmemo < COMPI_IO_MEMO) i = compi_io_nmemo++;
            else {
                i = compi_io_memo_next;
                compi_io_memo_next = (compi_io_memo_next + 1) % COMPI_IO_MEMO;
            }
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
        else if (policy != COMPI_IO_MPI)
            snprintf(why, sizeof why, "hint cb_buffer_size='%.40s' is not a positive byte count", v),
                policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "cb_nodes", v, sizeof v)) {
        if (compi_io_parse_i64(v, 1, &x)) nodes = compi_int_clamp((uint64_t)x);
        else if (policy != COMPI_IO_MPI)
            snprintf(why, sizeof why, "hint cb_nodes='%.40s' is not a positive count", v), policy = COMPI_IO_MPI;
    }
    if (compi_io_hint(info, "striping_unit", v, sizeof v)) {
        if (compi_io_parse_i64(v, 0, &x)) stripe = x;
        else if (policy != COMPI_IO_MPI)
            snprintf(why, sizeof why, "hint striping_unit='%.40s' is not a byte count", v), policy = COMPI_IO_MPI;
    }
    /* every process must plan alike: the same policy, buffer, aggregators, stripe */
    compi_io_detect(f, info);
    int64_t mine[12] = {policy,
                        cb,
                        nodes,
                        stripe,
                        weight,
                        gate,
                        why[0] != 0,
                        f->mpiio,
                        f->romio_cb_auto[0] + 2 * f->romio_cb_auto[1],
                        f->nragg,
                        (int64_t)compi_io_memo_find(f, 0),
                        (int64_t)compi_io_memo_find(f, 1)},
            lo[12], hi[12];
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
    if (!all) {
        free(f);
        free(name);
        return;
    }
    f->fh = fh;
    f->app_comm = comm;
    f->raw = MPI_FILE_NULL;
    f->filename = name;
    f->amode = amode;
    if (PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS) {
        free(f);
        free(name);
        return;
    }
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

void compi_io_file_closing(MPI_File fh)
{
    pthread_mutex_lock(&compi_io_lock);
    compi_io_file **pp = &compi_io_files, *f = NULL;
    while (*pp && (*pp)->fh != fh) pp = &(*pp)->next;
    if (*pp) {
        f = *pp;
        *pp = f->next;
    }
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
