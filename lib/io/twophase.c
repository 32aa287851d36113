/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's two-phase collective I/O over PMPI (see twophase.h): one
 * collective data call, as the numbered steps twophase.h lists. */
#include "io/twophase_internal.h"
#include "codecs/codec_util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static uint64_t compi_io_path_total;
static uint64_t compi_io_gate_total; /* calls the gate passed to the MPI */
static uint64_t compi_io_memo_total; /* of which passed from the view memo, without planning */

static int compi_io_frames(const compi_comm_info *ci)
{
    compi_mode m = ci->mode;
    return ci->framed && !ci->is_inter &&
           (m == COMPI_MODE_FIXED || m == COMPI_MODE_ADAPTIVE || m == COMPI_MODE_GUIDED || m == COMPI_MODE_TRACE);
}

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

/* My bytes that the MPI's own (ROMIO) placement would send to an
 * aggregator on another node (see io.h, mpiio_model.c): none when ROMIO accesses
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

/* What one process knows of one collective call, step by step. */
typedef struct {
    compi_io_op op;
    int is_write, explicit_offset;
    int la; /* the file's policy is la */
    void *buf;
    int count;
    MPI_Datatype dt;
    /* step 1: my access */
    MPI_Offset position;    /* the data position, in etypes of the view */
    int64_t position_bytes; /* ... in bytes into the view */
    int64_t nbytes;         /* the bytes I access */
    compi_io_segs memory;   /* my memory segments, in data order */
    uint64_t reasons;       /* bits of compi_io_pass: why I cannot take compi's path */
    int plan_hit;           /* my access is the one the file's cached plan was made for */
    int plan_hit_pass;      /* ... and that plan's verdict was to pass */
    int64_t start, end;     /* my file range */
    /* step 2: what every process agreed on */
    uint64_t any_reasons;
    int nhit, nhit_pass; /* processes with plan_hit, plan_hit_pass */
    int64_t global_start, global_end;
    int64_t *starts, *ends; /* every process's file range */
    int nothing;            /* no process accesses a byte */
    /* steps 3-4 */
    int *placement; /* domain -> aggregator (c->agg points here) */
    /* my data as one stream, when it is a packed copy */
    unsigned char *own_stream;
} compi_io_access;

static void compi_io_access_free(compi_io_call *c, compi_io_access *a)
{
    free(a->starts);
    free(a->ends);
    a->starts = a->ends = NULL;
    free(a->own_stream);
    free(c->spos);
    free(c->cbuf);
    free(a->placement);
    if (c->agg) compi_io_domains_free(&c->d);
    compi_io_segs_free(&c->fs);
    compi_io_segs_free(&a->memory);
}

/* Step 1, the memory side: my buffer's segments (one when contiguous). */
static void compi_io_flatten_memory_side(compi_io_access *a)
{
    compi_io_segs one;
    compi_io_segs_init(&one);
    MPI_Aint lb, ext;
    int frc = compi_io_flatten_type(a->dt, &one);
    PMPI_Type_get_extent(a->dt, &lb, &ext);
    if (frc == COMPI_OK && one.n == 1 && one.v[0].len == (int64_t)ext) /* contiguous: one segment */
        frc = compi_io_segs_add(&a->memory, one.v[0].off, a->nbytes);
    else if (frc == COMPI_OK) frc = compi_io_flatten_memory(a->dt, a->count, &a->memory);
    compi_io_segs_free(&one);
    if (frc != COMPI_OK || a->memory.bytes != a->nbytes) a->reasons |= 1u << COMPI_IO_PASS_TYPE;
}

/* Step 1, the file side: my file segments through the view. */
static void compi_io_flatten_file_side(compi_io_call *c, compi_io_access *a)
{
    const compi_io_file *f = c->f;
    int vrc;
    if (f->ft.n == 1 && f->ft.v[0].len == f->ft_extent) /* contiguous view */
        vrc = compi_io_segs_add(&c->fs, f->disp + f->ft.v[0].off + a->position_bytes, a->nbytes);
    else vrc = compi_io_view_segments(f->disp, &f->ft, f->ft_extent, a->position_bytes, a->nbytes, &c->fs);
    if (vrc != COMPI_OK || c->fs.bytes != a->nbytes) a->reasons |= 1u << COMPI_IO_PASS_VIEW;
}

/* Step 1: my access, flattened; any problem is a reason bit. */
static void compi_io_flatten_access(compi_io_call *c, compi_io_access *a, MPI_Offset offset)
{
    compi_io_file *f = c->f;
    MPI_Count tsize = 0;
    if (!f->view_ok) a->reasons |= 1u << COMPI_IO_PASS_VIEW;
    if (a->count < 0 || PMPI_Type_size_x(a->dt, &tsize) != MPI_SUCCESS || tsize < 0)
        a->reasons |= 1u << COMPI_IO_PASS_ARGS;
    else a->nbytes = (int64_t)a->count * (int64_t)tsize;
    if (a->nbytes % f->etype_size) a->reasons |= 1u << COMPI_IO_PASS_ARGS;
    if (a->explicit_offset) {
        if (offset < 0) a->reasons |= 1u << COMPI_IO_PASS_ARGS;
        a->position = offset;
    } else if (PMPI_File_get_position(f->fh, &a->position) != MPI_SUCCESS) {
        a->reasons |= 1u << COMPI_IO_PASS_ARGS;
    }
    /* the cached plan: the same access as last time (the file segments are a
     * function of the view, the position and the size) */
    a->position_bytes = (int64_t)a->position * f->etype_size;
    a->plan_hit = a->la && !a->reasons && f->pc.valid && f->pc.view_gen == f->view_gen &&
                  f->pc.is_write == a->is_write && f->pc.pos == a->position_bytes && f->pc.nbytes == a->nbytes;
    a->plan_hit_pass = a->plan_hit && f->pc.pass == COMPI_IO_GATE_PASS;
    if (!a->reasons && a->nbytes > 0 && !a->plan_hit_pass) compi_io_flatten_memory_side(a);
    if (!a->reasons && a->nbytes > 0 && !a->plan_hit_pass) compi_io_flatten_file_side(c, a);
    a->start = c->fs.n ? c->fs.v[0].off : 0;
    a->end = c->fs.n ? c->fs.v[c->fs.n - 1].off + c->fs.v[c->fs.n - 1].len : 0;
    if (a->plan_hit_pass) {
        a->start = f->pc.start;
        a->end = f->pc.end;
    }
    if (!a->reasons && !a->is_write && a->end > 0 && !a->plan_hit_pass) {
        MPI_Offset size = 0;
        if (PMPI_File_get_size(f->fh, &size) != MPI_SUCCESS || a->end > (int64_t)size)
            a->reasons |= 1u << COMPI_IO_PASS_EOF;
    }
}

/* Step 2: one allgather of {reasons and plan hits, start, end}: the
 * agreement and the global range. Bit 32: my access hits the cached plan,
 * bit 33: and its verdict was to pass. */
static void compi_io_agree_access(compi_io_call *c, compi_io_access *a)
{
    int64_t mine[3] = {(int64_t)(a->reasons | ((uint64_t)a->plan_hit << 32) | ((uint64_t)a->plan_hit_pass << 33)),
                       a->start, a->end};
    int64_t *all = malloc(sizeof(int64_t) * 3 * (size_t)c->n);
    a->starts = malloc(sizeof(int64_t) * (size_t)c->n);
    a->ends = malloc(sizeof(int64_t) * (size_t)c->n);
    if (!all || !a->starts || !a->ends) compi_die("out of memory in collective I/O");
    int rc = PMPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, c->f->comm);
    a->global_start = INT64_MAX;
    a->global_end = INT64_MIN;
    for (int p = 0; p < c->n; p++) {
        uint64_t w = (uint64_t)all[3 * p];
        a->any_reasons |= w & 0xffffffffu;
        a->nhit += (int)((w >> 32) & 1);
        a->nhit_pass += (int)((w >> 33) & 1);
        a->starts[p] = all[3 * p + 1];
        a->ends[p] = all[3 * p + 2];
        if (all[3 * p + 2] > all[3 * p + 1]) {
            if (all[3 * p + 1] < a->global_start) a->global_start = all[3 * p + 1];
            if (all[3 * p + 2] > a->global_end) a->global_end = all[3 * p + 2];
        }
    }
    free(all);
    if (rc != MPI_SUCCESS) a->any_reasons |= 1u << COMPI_IO_PASS_ARGS;
    a->nothing = a->global_end <= a->global_start;
}

/* After step 2: whether the call goes to the MPI (counted with its reason). */
static int compi_io_agreed_to_pass(compi_io_call *c, const compi_io_access *a)
{
    compi_io_file *f = c->f;
    if (!a->any_reasons && a->nhit_pass > 0) {
        /* every process makes the access the gate passed last time: the MPI's
         * own call again, without planning. Some but not all: the accesses
         * changed; passing is always right, and the next call plans anew. */
        if (a->nhit_pass == c->n) f->st.cached++;
        else f->pc.valid = 0;
        f->st.pass[COMPI_IO_PASS_NOTHING]++;
        __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
        return 1;
    }
    if (a->any_reasons) {
        int r = 0;
        while (!(a->any_reasons & (1u << r))) r++;
        f->st.pass[r]++;
        return 1;
    }
    return 0;
}

/* la's inputs, gathered from every process in one allgather: the bytes
 * matrix (processes x domains), the bytes the MPI's own placement sends
 * across nodes, and (the gate's compression account) the codec records
 * summed and the slowest link's time per byte. */
enum { COMPI_IO_LA_EXTRA = 6 };
typedef struct {
    int nagg;
    double *bytes;  /* processes x domains */
    double *blocks; /* ... block counts (compi_cb_weight=blocks) */
    double mpi_internode;
    double rec[COMPI_IO_LA_EXTRA];
    int rc; /* the allgathers' MPI code */
} compi_io_la_inputs;

static void compi_io_la_gather(compi_io_call *c, const compi_io_access *a, int gate, compi_io_la_inputs *in)
{
    compi_io_file *f = c->f;
    int nagg = in->nagg, cols = nagg + 1 + COMPI_IO_LA_EXTRA;
    double *row = calloc((size_t)cols, sizeof(double));
    double *all = malloc(sizeof(double) * (size_t)cols * (size_t)c->n);
    in->bytes = malloc(sizeof(double) * (size_t)nagg * (size_t)c->n);
    in->blocks = malloc(sizeof(double) * (size_t)nagg * (size_t)c->n);
    if (!row || !all || !in->bytes || !in->blocks) compi_die("out of memory in collective I/O");
    compi_io_domain_matrix(&c->d, 1, &c->fs, row, NULL);
    if (gate) {
        row[nagg] =
            (double)compi_io_mpi_internode(f, c, a->is_write, a->global_start, a->global_end, a->starts, a->ends);
        compi_io_codec_record(row + nagg + 1);
        row[nagg + 1 + 5] = compi_engine_inter_ns_per_byte((double)(a->global_end - a->global_start) / nagg);
    }
    in->rc = PMPI_Allgather(row, cols, MPI_DOUBLE, all, cols, MPI_DOUBLE, f->comm);
    in->mpi_internode = 0;
    memset(in->rec, 0, sizeof in->rec);
    for (int p = 0; p < c->n; p++) {
        const double *w = all + (size_t)p * cols;
        memcpy(in->bytes + (size_t)p * nagg, w, sizeof(double) * (size_t)nagg);
        in->mpi_internode += w[nagg];
        for (int j = 0; j < COMPI_IO_LA_EXTRA - 1; j++) in->rec[j] += w[nagg + 1 + j];
        if (w[nagg + COMPI_IO_LA_EXTRA] > in->rec[COMPI_IO_LA_EXTRA - 1])
            in->rec[COMPI_IO_LA_EXTRA - 1] = w[nagg + COMPI_IO_LA_EXTRA];
    }
    /* la weighs bytes, or (compi_cb_weight=blocks) the block counts, gathered likewise */
    if (in->rc == MPI_SUCCESS && f->weight == COMPI_IO_WEIGHT_BLOCKS) {
        compi_io_domain_matrix(&c->d, 1, &c->fs, NULL, row);
        in->rc = PMPI_Allgather(row, nagg, MPI_DOUBLE, in->blocks, nagg, MPI_DOUBLE, f->comm);
    }
    free(row);
    free(all);
}

/* la's placement into a->placement, which holds default's on entry: every
 * process solves the same problem with the same code, so all get the same
 * answer. */
static void compi_io_la_solve(compi_io_call *c, compi_io_access *a, const compi_io_la_inputs *in)
{
    compi_io_file *f = c->f;
    int nagg = in->nagg;
    int *lap = malloc(sizeof(int) * (size_t)nagg);
    if (!lap) compi_die("out of memory in collective I/O");
    const double *weights = f->weight == COMPI_IO_WEIGHT_BLOCKS ? in->blocks : in->bytes;
    int placed = in->rc == MPI_SUCCESS && compi_io_place_la(c->n, nagg, weights, NULL, c->node_of, 1, lap) == COMPI_OK;
    /* bytes weight: the placement with the fewest bytes across nodes
     * when it moves no more than default */
    if (placed && f->weight != COMPI_IO_WEIGHT_BLOCKS &&
        compi_io_place_la_net(c->n, nagg, in->bytes, c->node_of, a->placement, lap) != COMPI_OK)
        placed = 0;
    if (placed) memcpy(a->placement, lap, sizeof(int) * (size_t)nagg);
    free(lap);
}

/* The gate's verdict on la's placement: COMPI_IO_GATE_PASS or _COMPI. */
static int compi_io_la_verdict(compi_io_call *c, const compi_io_access *a, const compi_io_la_inputs *in)
{
    compi_io_volume v;
    compi_io_volume_of(c->n, in->nagg, in->bytes, a->placement, c->node_of, &v);
    compi_io_gate_in gi = {.mpiio = c->f->mpiio,
                           .compress = c->frames,
                           .nodes = compi_io_node_count(c),
                           .la_internode = v.internode,
                           .mpi_internode = (int64_t)in->mpi_internode,
                           .beta_ns = in->rec[5]};
    compi_io_codec_load(c->n, in->nagg, in->bytes, a->placement, c->node_of, a->is_write, &gi.comp_max, &gi.decomp_max);
    compi_io_codec_rates(in->rec, &gi.c_ns, &gi.d_ns, &gi.ratio);
    return compi_io_gate_model(&gi);
}

/* The view memo learns the verdict, under the decision's fingerprint: all it
 * was made from, the same on every process. */
static void compi_io_la_memo(compi_io_call *c, const compi_io_access *a, const compi_io_la_inputs *in, int verdict)
{
    uint64_t fp = COMPI_FNV64_INIT;
    int64_t hd[6] = {a->global_start, a->global_end, in->nagg, (int64_t)in->mpi_internode, c->frames, verdict};
    fp = compi_fnv1a64(fp, hd, sizeof hd);
    fp = compi_fnv1a64(fp, a->starts, sizeof(int64_t) * (size_t)c->n);
    fp = compi_fnv1a64(fp, a->ends, sizeof(int64_t) * (size_t)c->n);
    fp = compi_fnv1a64(fp, in->bytes, sizeof(double) * (size_t)in->nagg * (size_t)c->n);
    compi_io_memo_record(c->f, a->is_write, fp, verdict == COMPI_IO_GATE_PASS);
}

/* The plan, for the next identical access. */
static void compi_io_plan_keep(compi_io_call *c, const compi_io_access *a, int nagg, int valid, int verdict)
{
    compi_io_plan_cache *pc = &c->f->pc;
    free(pc->agg);
    pc->agg = malloc(sizeof(int) * (size_t)nagg);
    pc->valid = pc->agg != NULL && valid;
    if (pc->agg) memcpy(pc->agg, a->placement, sizeof(int) * (size_t)nagg);
    pc->nagg = nagg;
    pc->view_gen = c->f->view_gen;
    pc->is_write = a->is_write;
    pc->pos = a->position_bytes;
    pc->nbytes = a->nbytes;
    pc->start = a->start;
    pc->end = a->end;
    pc->pass = verdict;
}

/* Step 4 for la: the placement solved (or the cached one reused) and the
 * gate's verdict. Returns 1 when the gate passes the call to the MPI. */
static int compi_io_place_la_step(compi_io_call *c, compi_io_access *a, int nagg)
{
    compi_io_file *f = c->f;
    if (a->nhit == c->n && f->pc.nagg == nagg && f->pc.agg) {
        /* every process hit: the same matrix, the same placement */
        memcpy(a->placement, f->pc.agg, sizeof(int) * (size_t)nagg);
        f->st.cached++;
        return 0;
    }
    int gate = f->gate && f->mpiio == COMPI_IO_MPIIO_ROMIO;
    compi_io_la_inputs in = {.nagg = nagg};
    compi_io_la_gather(c, a, gate, &in);
    compi_io_la_solve(c, a, &in);
    f->st.planned++;
    int verdict = COMPI_IO_GATE_COMPI;
    if (gate && in.rc == MPI_SUCCESS) {
        verdict = compi_io_la_verdict(c, a, &in);
        compi_io_la_memo(c, a, &in, verdict);
    }
    compi_io_plan_keep(c, a, nagg, in.rc == MPI_SUCCESS, verdict);
    free(in.bytes);
    free(in.blocks);
    return verdict == COMPI_IO_GATE_PASS;
}

/* Steps 3-4: file domains and their aggregators (default's placement, or
 * la's). Returns 1 when la's gate passes the call to the MPI. */
static int compi_io_place_aggregators(compi_io_call *c, compi_io_access *a)
{
    compi_io_file *f = c->f;
    a->placement = malloc(sizeof(int) * (size_t)c->n);
    if (!a->placement) compi_die("out of memory in collective I/O");
    int nagg = compi_io_place_default(c->n, c->node_of, f->cb_nodes, a->placement);
    if (nagg <= 0 || compi_io_domains_make(a->global_start, a->global_end, nagg, f->stripe, &c->d) != COMPI_OK)
        compi_die("collective I/O: no file domains for [%lld, %lld)", (long long)a->global_start,
                  (long long)a->global_end);
    c->agg = a->placement;
    if (a->la && compi_io_place_la_step(c, a, nagg)) return 1;
    for (int k = 0; k < c->d.n; k++)
        if (c->agg[k] == c->me) c->mydom = k;
    if (f->nagg != c->d.n || !f->agg || memcmp(f->agg, c->agg, sizeof(int) * (size_t)c->d.n) != 0) {
        free(f->agg);
        f->agg = malloc(sizeof(int) * (size_t)c->d.n);
        f->nagg = f->agg ? c->d.n : 0;
        if (f->agg) memcpy(f->agg, c->agg, sizeof(int) * (size_t)c->d.n);
    }
    return 0;
}

/* My data as one stream in data order: the application's buffer itself
 * when its memory side is contiguous (writes only read it; reads land in
 * it), else a packed copy. */
static void compi_io_make_stream(compi_io_call *c, compi_io_access *a)
{
    const compi_io_segs *ms = &a->memory;
    if (ms->n == 1) c->stream = (unsigned char *)a->buf + ms->v[0].off;
    else c->stream = a->own_stream = malloc(a->nbytes ? (size_t)a->nbytes : 1);
    c->spos = malloc(sizeof(int64_t) * (c->fs.n ? c->fs.n : 1));
    if (!c->stream || !c->spos) compi_die("out of memory in collective I/O");
    int64_t at = 0;
    for (size_t k = 0; k < c->fs.n; k++) {
        c->spos[k] = at;
        at += c->fs.v[k].len;
    }
    if (a->is_write && a->own_stream) {
        at = 0;
        for (size_t k = 0; k < ms->n; k++) {
            memcpy(c->stream + at, (const char *)a->buf + ms->v[k].off, (size_t)ms->v[k].len);
            at += ms->v[k].len;
        }
    }
    compi_typeinfo_get(a->dt, 1, &c->elem);
}

/* Steps 5-8: cycles of cb_buffer_size over every domain. */
static void compi_io_run_cycles(compi_io_call *c)
{
    int64_t ncyc = 0;
    for (int k = 0; k < c->d.n; k++) {
        int64_t len = c->d.stop[k] - c->d.begin[k];
        int64_t cy = len > 0 ? (len + c->cb - 1) / c->cb : 0;
        if (cy > ncyc) ncyc = cy;
    }
    if (c->mydom >= 0) {
        c->cbuf = malloc((size_t)c->cb);
        if (!c->cbuf) compi_die("out of memory in collective I/O (cb_buffer_size %lld)", (long long)c->cb);
    }
    for (int64_t cyc = 0; cyc < ncyc; cyc++) {
        if (c->is_write) compi_io_write_cycle(c, cyc);
        else compi_io_read_cycle(c, cyc);
    }
    c->f->st.cycles += (uint64_t)ncyc;
}

/* The end of the call: every process returns the error if any failed; a
 * read's packed stream goes to the application's buffer, the individual
 * file pointer moves, the status counts the bytes. */
static int compi_io_finish(compi_io_call *c, const compi_io_access *a, MPI_Status *status)
{
    compi_io_file *f = c->f;
    int err = c->rc, anyerr = MPI_SUCCESS;
    PMPI_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, f->comm);
    if (anyerr == MPI_SUCCESS && !a->is_write && !a->nothing && a->own_stream) {
        int64_t at = 0;
        for (size_t k = 0; k < a->memory.n; k++) {
            memcpy((char *)a->buf + a->memory.v[k].off, c->stream + at, (size_t)a->memory.v[k].len);
            at += a->memory.v[k].len;
        }
    }
    if (anyerr == MPI_SUCCESS && !a->explicit_offset && a->nbytes > 0)
        anyerr = PMPI_File_seek(f->fh, a->position + a->nbytes / f->etype_size, MPI_SEEK_SET);
    if (status != MPI_STATUS_IGNORE) {
        PMPI_Status_set_elements_x(status, MPI_BYTE, anyerr == MPI_SUCCESS ? (MPI_Count)a->nbytes : 0);
        PMPI_Status_set_cancelled(status, 0);
    }
    return anyerr;
}

/* Before any step: whether the call goes to the MPI for a reason every
 * process shares, or from the view memo (counted). */
static int compi_io_passes_before_planning(compi_io_file *f, int is_write)
{
    int reason = compi_io_file_reason(f, is_write);
    if (reason >= 0) {
        f->st.pass[reason]++;
        return 1;
    }
    if (f->policy == COMPI_IO_LA && f->gate && f->mpiio == COMPI_IO_MPIIO_ROMIO && f->sticky[is_write]) {
        /* the view memo: decided when this view was used before */
        f->st.pass[COMPI_IO_PASS_NOTHING]++;
        f->st.cached++;
        __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&compi_io_memo_total, 1, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

static void compi_io_call_init(compi_io_call *c, compi_io_file *f, int is_write)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->is_write = is_write;
    c->n = f->nprocs;
    c->me = f->rank;
    c->node_of = f->ci->peer_node;
    c->frames = compi_io_frames(f->ci);
    c->mydom = -1;
    c->cb = f->cb_buffer_size;
    compi_io_segs_init(&c->fs);
}

int compi_io_collective(compi_io_file *f, compi_io_op op, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                        MPI_Status *status, int *handled)
{
    *handled = 0;
    int is_write = op == COMPI_IO_WRITE_ALL || op == COMPI_IO_WRITE_AT_ALL;
    if (compi_io_passes_before_planning(f, is_write)) return MPI_SUCCESS;
    uint64_t t_start = compi_now_ns();
    compi_io_call c;
    compi_io_call_init(&c, f, is_write);
    compi_io_access a = {.op = op,
                         .is_write = is_write,
                         .la = f->policy == COMPI_IO_LA,
                         .buf = buf,
                         .count = count,
                         .dt = dt,
                         .explicit_offset = op == COMPI_IO_WRITE_AT_ALL || op == COMPI_IO_READ_AT_ALL};
    compi_io_segs_init(&a.memory);

    compi_io_flatten_access(&c, &a, offset); /* 1 */
    compi_io_agree_access(&c, &a);           /* 2 */
    if (compi_io_agreed_to_pass(&c, &a)) {
        compi_io_access_free(&c, &a);
        return MPI_SUCCESS;
    }
    uint64_t t_planned = compi_now_ns();
    f->st.ns[COMPI_IO_T_FLATTEN] += t_planned - t_start;

    if (!a.nothing && compi_io_place_aggregators(&c, &a)) { /* 3-4 */
        f->st.pass[COMPI_IO_PASS_NOTHING]++;
        __atomic_fetch_add(&compi_io_gate_total, 1, __ATOMIC_RELAXED);
        f->st.ns[COMPI_IO_T_PLAN] += compi_now_ns() - t_planned;
        compi_io_access_free(&c, &a);
        return MPI_SUCCESS;
    }
    free(a.starts);
    free(a.ends);
    a.starts = a.ends = NULL;
    *handled = 1;
    __atomic_fetch_add(&compi_io_path_total, 1, __ATOMIC_RELAXED);
    f->st.calls[op]++;
    f->st.bytes[op] += (uint64_t)a.nbytes;
    if (!a.nothing) compi_io_make_stream(&c, &a);
    f->st.ns[COMPI_IO_T_PLAN] += compi_now_ns() - t_planned;

    if (!a.nothing) compi_io_run_cycles(&c); /* 5-8 */
    int rc = compi_io_finish(&c, &a, status);
    compi_io_access_free(&c, &a);
    if (rc != MPI_SUCCESS) {
        PMPI_File_call_errhandler(f->fh, rc);
        return rc;
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
