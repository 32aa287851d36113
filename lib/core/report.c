/* SPDX-License-Identifier: BSD-3-Clause */
/* The finalize report: every rank's counters gathered to rank 0, written as
 * JSON (COMPI_REPORT) and summarised on stderr (COMPI_VERBOSE >= 1). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/safefile.h"
#include "compi_version.h" /* generated: the project's version, git describe */
#include "core/bigcount.h"
#include "core/decide.h"
#include "core/profile.h"
#include "core/report.h"
#include "core/state.h"
#include "core/stats.h"

static const char *const compi_family_names[COMPI_FAM_COUNT] = {
    "send",  "isend",   "persistent_send", "recv",      "irecv",    "persistent_recv", "sendrecv", "probe", "mrecv",
    "bcast", "scatter", "gather",          "allgather", "alltoall", "allreduce",       "reduce",   "io",
};

/* One rank's counters as a flat vector so one MPI_Gather moves them all. */
enum { COMPI_CODEC_SLOTS = 32 };
typedef struct {
    uint64_t node;
    uint64_t messages[COMPI_FAM_COUNT], bytes[COMPI_FAM_COUNT];
    uint64_t intra_msgs, inter_msgs, inter_decided, raw_small, raw_incompressible, raw_unframed, raw_escaped;
    uint64_t raw_too_large;
    uint64_t frames_decoded, frames_decoded_compressed, compress_ns, decompress_ns;
    uint64_t evaluations, evaluate_ns, outcomes_after_send;
    uint64_t codec_msgs[COMPI_CODEC_SLOTS], codec_in[COMPI_CODEC_SLOTS], codec_out[COMPI_CODEC_SLOTS];
    uint64_t pipe_msgs[COMPI_CODEC_SLOTS], pipe_chunks[COMPI_CODEC_SLOTS], pipe_raw_chunks[COMPI_CODEC_SLOTS];
    uint64_t pipe_c_ns[COMPI_CODEC_SLOTS], pipe_c_hidden_ns[COMPI_CODEC_SLOTS];
    uint64_t pipe_d_ns[COMPI_CODEC_SLOTS], pipe_d_hidden_ns[COMPI_CODEC_SLOTS];
    uint64_t pipe_recv_msgs, pipe_wait_ns;
} compi_rank_record;
enum { COMPI_RECORD_WORDS = sizeof(compi_rank_record) / sizeof(uint64_t) };

/* The sections of the rooms above core (report.h), in the order registered. */
enum { COMPI_REPORT_SECTIONS_MAX = 8 };
static const compi_report_counters *compi_counters[COMPI_REPORT_SECTIONS_MAX];
static int compi_counters_n;
static const compi_report_list *compi_lists[COMPI_REPORT_SECTIONS_MAX];
static int compi_lists_n;

void compi_report_add_counters(const compi_report_counters *s)
{
    for (int i = 0; i < compi_counters_n; i++)
        if (compi_counters[i] == s) return;
    if (compi_counters_n == COMPI_REPORT_SECTIONS_MAX) compi_die("too many report sections (adding %s)", s->name);
    compi_counters[compi_counters_n++] = s;
}

void compi_report_add_list(const compi_report_list *s)
{
    for (int i = 0; i < compi_lists_n; i++)
        if (compi_lists[i] == s) return;
    if (compi_lists_n == COMPI_REPORT_SECTIONS_MAX) compi_die("too many report sections (adding %s)", s->name);
    compi_lists[compi_lists_n++] = s;
}

/* Words of one rank's vector: core's record, then every counters section. */
static int compi_record_words(void)
{
    int words = COMPI_RECORD_WORDS;
    for (int i = 0; i < compi_counters_n; i++) words += compi_counters[i]->words;
    return words;
}

static void compi_record_fill(compi_rank_record *r)
{
    memset(r, 0, sizeof *r);
    r->node = (uint64_t)compi_g.my_node;
    memcpy(r->messages, compi_st.messages, sizeof r->messages);
    memcpy(r->bytes, compi_st.bytes, sizeof r->bytes);
    r->intra_msgs = compi_st.intra_msgs;
    r->inter_msgs = compi_st.inter_msgs;
    r->inter_decided = compi_st.inter_decided;
    r->raw_small = compi_st.raw_small;
    r->raw_incompressible = compi_st.raw_incompressible;
    r->raw_too_large = compi_st.raw_too_large;
    r->raw_unframed = compi_st.raw_unframed;
    r->raw_escaped = compi_st.raw_escaped;
    r->frames_decoded = compi_st.frames_decoded;
    r->frames_decoded_compressed = compi_st.frames_decoded_compressed;
    r->compress_ns = compi_st.compress_ns;
    r->decompress_ns = compi_st.decompress_ns;
    r->evaluations = compi_st.evaluations;
    r->evaluate_ns = compi_st.evaluate_ns;
    r->outcomes_after_send = compi_st.outcomes_after_send;
    for (int i = 0; i < COMPI_CODEC_SLOTS; i++) {
        r->codec_msgs[i] = compi_st.codec_msgs[i];
        r->codec_in[i] = compi_st.codec_in[i];
        r->codec_out[i] = compi_st.codec_out[i];
        r->pipe_msgs[i] = compi_st.pipe_msgs[i];
        r->pipe_chunks[i] = compi_st.pipe_chunks[i];
        r->pipe_raw_chunks[i] = compi_st.pipe_raw_chunks[i];
        r->pipe_c_ns[i] = compi_st.pipe_compress_ns[i];
        r->pipe_c_hidden_ns[i] = compi_st.pipe_compress_hidden_ns[i];
        r->pipe_d_ns[i] = compi_st.pipe_decompress_ns[i];
        r->pipe_d_hidden_ns[i] = compi_st.pipe_decompress_hidden_ns[i];
    }
    r->pipe_recv_msgs = compi_st.pipe_recv_msgs;
    r->pipe_wait_ns = compi_st.pipe_wait_ns;
}

/* This rank's vector: core's record, then the registered sections'. */
static void compi_vector_fill(uint64_t *v)
{
    compi_record_fill((compi_rank_record *)v);
    v += COMPI_RECORD_WORDS;
    for (int i = 0; i < compi_counters_n; i++) {
        memset(v, 0, sizeof *v * (size_t)compi_counters[i]->words);
        compi_counters[i]->fill(v);
        v += compi_counters[i]->words;
    }
}

/* Pipelined messages per codec: chunks, and how much codec time ran while
 * other chunks were on the wire (sender: every compression but the first;
 * receiver: every decompression but the last). */
static void compi_json_pipelined(FILE *f, const compi_rank_record *r, const char *indent)
{
    fprintf(f, "%s\"pipelined\": {\"received\": %llu, \"wait_seconds\": %.6f, \"codecs\": {", indent,
            (unsigned long long)r->pipe_recv_msgs, r->pipe_wait_ns * 1e-9);
    int first = 1;
    for (int id = 0; id < COMPI_CODEC_SLOTS; id++) {
        if (!r->pipe_msgs[id] && !r->pipe_d_ns[id]) continue;
        const compi_codec *c = compi_codec_by_id((uint8_t)id);
        uint64_t all = r->pipe_c_ns[id] + r->pipe_d_ns[id], hidden = r->pipe_c_hidden_ns[id] + r->pipe_d_hidden_ns[id];
        fprintf(f,
                "%s\"%s\": {\"messages\": %llu, \"chunks\": %llu, \"raw_chunks\": %llu, "
                "\"compress_seconds\": %.6f, \"compress_hidden_seconds\": %.6f, "
                "\"decompress_seconds\": %.6f, \"decompress_hidden_seconds\": %.6f, \"overlap\": %.3f}",
                first ? "" : ", ", c ? c->name : "raw", (unsigned long long)r->pipe_msgs[id],
                (unsigned long long)r->pipe_chunks[id], (unsigned long long)r->pipe_raw_chunks[id],
                r->pipe_c_ns[id] * 1e-9, r->pipe_c_hidden_ns[id] * 1e-9, r->pipe_d_ns[id] * 1e-9,
                r->pipe_d_hidden_ns[id] * 1e-9, all ? (double)hidden / (double)all : 0.0);
        first = 0;
    }
    fprintf(f, "}}");
}

/* Sums a rank's vector (words long) into sum, but for the node. */
static void compi_vector_add(uint64_t *sum, const uint64_t *v, int words)
{
    for (int i = 1; i < words; i++) sum[i] += v[i];
}

/* One rank's vector (or the totals) as the members of its JSON object. */
static void compi_json_record(FILE *f, const uint64_t *v, const char *indent)
{
    const compi_rank_record *r = (const compi_rank_record *)v;
    fprintf(f, "%s\"families\": {", indent);
    for (int i = 0; i < COMPI_FAM_COUNT; i++)
        fprintf(f, "%s\"%s\": {\"messages\": %llu, \"bytes\": %llu}", i ? ", " : "", compi_family_names[i],
                (unsigned long long)r->messages[i], (unsigned long long)r->bytes[i]);
    fprintf(f, "},\n");
    fprintf(f, "%s\"intra_node_messages\": %llu, \"inter_node_messages\": %llu,\n", indent,
            (unsigned long long)r->intra_msgs, (unsigned long long)r->inter_msgs);
    fprintf(f, "%s\"inter_node_decided\": %llu,\n", indent, (unsigned long long)r->inter_decided);
    fprintf(f, "%s\"raw_small\": %llu, \"raw_incompressible\": %llu, \"raw_too_large\": %llu,\n", indent,
            (unsigned long long)r->raw_small, (unsigned long long)r->raw_incompressible,
            (unsigned long long)r->raw_too_large);
    fprintf(f, "%s\"raw_unframed\": %llu, \"raw_escaped\": %llu,\n", indent, (unsigned long long)r->raw_unframed,
            (unsigned long long)r->raw_escaped);
    fprintf(f, "%s\"frames_decoded\": %llu, \"frames_decoded_compressed\": %llu,\n", indent,
            (unsigned long long)r->frames_decoded, (unsigned long long)r->frames_decoded_compressed);
    fprintf(f, "%s\"compress_seconds\": %.6f, \"decompress_seconds\": %.6f,\n", indent, r->compress_ns * 1e-9,
            r->decompress_ns * 1e-9);
    fprintf(f, "%s\"evaluations\": %llu, \"evaluate_seconds\": %.6f, \"outcomes_after_send\": %llu,\n", indent,
            (unsigned long long)r->evaluations, r->evaluate_ns * 1e-9, (unsigned long long)r->outcomes_after_send);
    fprintf(f, "%s\"codecs\": {", indent);
    int first = 1;
    for (int id = 0; id < COMPI_CODEC_SLOTS; id++) {
        if (!r->codec_msgs[id]) continue;
        const compi_codec *c = compi_codec_by_id((uint8_t)id);
        fprintf(f, "%s\"%s\": {\"messages\": %llu, \"bytes_in\": %llu, \"bytes_out\": %llu, \"ratio\": %.3f}",
                first ? "" : ", ", c ? c->name : "unknown", (unsigned long long)r->codec_msgs[id],
                (unsigned long long)r->codec_in[id], (unsigned long long)r->codec_out[id],
                r->codec_out[id] ? (double)r->codec_in[id] / (double)r->codec_out[id] : 0.0);
        first = 0;
    }
    fprintf(f, "},\n");
    compi_json_pipelined(f, r, indent);
    v += COMPI_RECORD_WORDS;
    for (int i = 0; i < compi_counters_n; i++) {
        fprintf(f, ",\n%s\"%s\": ", indent, compi_counters[i]->name);
        compi_counters[i]->json(f, v);
        v += compi_counters[i]->words;
    }
}

/* Appends printf-style text to a fixed buffer (truncating, never overflowing). */
static void compi_cat(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void compi_cat(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* The finalize summary on rank 0's stderr (COMPI_VERBOSE >= 1): what compi
 * did in this job, in the mode the job ran. Counters that are zero are left
 * out rather than printed as "0 ..." next to things compi never saw. */
static void compi_summary(const compi_rank_record *t)
{
    uint64_t in = 0, out = 0, packed = 0;
    char used[512] = "";
    for (int id = 0; id < COMPI_CODEC_SLOTS; id++) {
        if (!t->codec_msgs[id]) continue;
        const compi_codec *c = compi_codec_by_id((uint8_t)id);
        compi_cat(used, sizeof used, "%s%s %llu", used[0] ? ", " : "", c ? c->name : "unknown",
                  (unsigned long long)t->codec_msgs[id]);
        in += t->codec_in[id];
        out += t->codec_out[id];
        packed += t->codec_msgs[id];
    }
    compi_mode mode = compi_cfg.mode;
    if (compi_g.node_count < 2) {
        fprintf(stderr,
                "compi: %d rank%s, all on one node: compi was inactive (no communicator spans nodes, so "
                "every message went to MPI untouched; mode %s)\n",
                compi_g.world_size, compi_g.world_size == 1 ? "" : "s", compi_mode_name(mode));
        return;
    }
    char head[256];
    snprintf(head, sizeof head, "compi: %d ranks on %d nodes, mode %s", compi_g.world_size, compi_g.node_count,
             compi_mode_name(mode));
    switch (mode) {
    case COMPI_MODE_OFF: compi_cat(head, sizeof head, " (pass-through)"); break;
    case COMPI_MODE_PROFILE:
        compi_cat(head, sizeof head, " (pass-through, communication profiled for compi map)");
        break;
    case COMPI_MODE_FIXED: compi_cat(head, sizeof head, ", codec %s", compi_cfg.codec->name); break;
    case COMPI_MODE_ADAPTIVE: compi_cat(head, sizeof head, " (codec chosen per message)"); break;
    case COMPI_MODE_TRACE: compi_cat(head, sizeof head, " (every message raw, traced for compi guide)"); break;
    case COMPI_MODE_GUIDED: compi_cat(head, sizeof head, " (compi guide's rules, adaptive where none)"); break;
    default: break;
    }
    if ((mode != COMPI_MODE_OFF && mode != COMPI_MODE_PROFILE) || t->inter_decided)
        compi_cat(head, sizeof head, ", min %zu B", compi_cfg.min_bytes);
    fprintf(stderr, "%s\n", head);
    if (!t->inter_decided) {
        /* communicator hints can turn compi on in off mode, so only the counters say nothing happened */
        fprintf(stderr, "compi: no message between nodes went through compi%s\n",
                mode == COMPI_MODE_OFF ? ""
                                       : " (no inter-node point-to-point or rooted-collective traffic on "
                                         "communicators spanning nodes)");
    } else {
        /* raw = what was decided on minus what went compressed; besides the
         * known causes, the rest is the engine's or a rule's choice */
        uint64_t raw = t->inter_decided > packed ? t->inter_decided - packed : 0;
        uint64_t why = t->raw_small + t->raw_incompressible + t->raw_too_large, chosen = raw > why ? raw - why : 0;
        char causes[256] = "";
        if (chosen)
            compi_cat(causes, sizeof causes, "%llu %s", (unsigned long long)chosen,
                      mode == COMPI_MODE_TRACE ? "traced" : "judged not to pay");
        if (t->raw_small)
            compi_cat(causes, sizeof causes, "%s%llu below min %zu B", causes[0] ? ", " : "",
                      (unsigned long long)t->raw_small, compi_cfg.min_bytes);
        if (t->raw_incompressible)
            compi_cat(causes, sizeof causes, "%s%llu incompressible", causes[0] ? ", " : "",
                      (unsigned long long)t->raw_incompressible);
        if (t->raw_too_large)
            compi_cat(causes, sizeof causes, "%s%llu beyond the codec's input limit", causes[0] ? ", " : "",
                      (unsigned long long)t->raw_too_large);
        char line[1024];
        snprintf(line, sizeof line, "compi: %llu inter-node message(s) through compi",
                 (unsigned long long)t->inter_decided);
        if (!raw) compi_cat(line, sizeof line, ", all compressed (%s)", used);
        else if (!packed) compi_cat(line, sizeof line, ", none compressed (%s)", causes);
        else
            compi_cat(line, sizeof line, ": %llu compressed (%s), %llu raw (%s)", (unsigned long long)packed, used,
                      (unsigned long long)raw, causes);
        fprintf(stderr, "%s\n", line);
        if (packed)
            fprintf(stderr,
                    "compi: compressed %.1f MiB -> %.1f MiB (ratio %.2f); compress %.3f s, decompress %.3f s "
                    "(all ranks)\n",
                    in / 1048576.0, out / 1048576.0, out ? (double)in / (double)out : 0.0, t->compress_ns * 1e-9,
                    t->decompress_ns * 1e-9);
    }
    uint64_t pm = 0, pc = 0, pall = 0, phid = 0;
    for (int id = 0; id < COMPI_CODEC_SLOTS; id++) {
        pm += t->pipe_msgs[id];
        pc += t->pipe_chunks[id];
        pall += t->pipe_c_ns[id] + t->pipe_d_ns[id];
        phid += t->pipe_c_hidden_ns[id] + t->pipe_d_hidden_ns[id];
    }
    if (pm)
        fprintf(stderr,
                "compi: %llu of them pipelined in %llu chunks; %.0f%% of their codec time ran while other "
                "chunks were on the wire\n",
                (unsigned long long)pm, (unsigned long long)pc, pall ? 100.0 * (double)phid / (double)pall : 0.0);
    compi_engine_links_summary();
    /* the registered sections' lines, from their totals after core's */
    const uint64_t *v = (const uint64_t *)t + COMPI_RECORD_WORDS;
    for (int i = 0; i < compi_counters_n; i++) {
        if (compi_counters[i]->summary) compi_counters[i]->summary(v);
        v += compi_counters[i]->words;
    }
    if (t->evaluations)
        fprintf(stderr, "compi: %llu sample evaluation(s) took %.3f s (all ranks)\n",
                (unsigned long long)t->evaluations, t->evaluate_ns * 1e-9);
    if (t->intra_msgs)
        fprintf(stderr,
                "compi: %llu same-node send(s) on communicators spanning nodes went to MPI untouched "
                "(never compressed)\n",
                (unsigned long long)t->intra_msgs);
    /* how raw messages travelled: detail, not what a user needs to read */
    if (compi_cfg.verbose >= 2 && (t->raw_unframed || t->raw_escaped))
        fprintf(stderr, "compi: raw point-to-point sends: %llu unframed (zero-copy), %llu escaped\n",
                (unsigned long long)t->raw_unframed, (unsigned long long)t->raw_escaped);
}

/* Every rank's text (malloc'd, taken over; NULL counts as "null") gathered
 * on rank 0: the concatenation, each NUL-terminated at (*displ)[r]. */
static char *compi_gather_text(char *mine, int **displ)
{
    int n = compi_g.world_size, rank = compi_g.world_rank;
    const char *text = mine ? mine : "null";
    int len = (int)strlen(text) + 1, *lens = NULL;
    char *all = NULL;
    *displ = NULL;
    if (rank == 0) {
        lens = calloc((size_t)n, sizeof(int));
        *displ = calloc((size_t)n, sizeof(int));
        if (!lens || !*displ) compi_die("out of memory writing the report");
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < n; r++) {
            (*displ)[r] = (int)total;
            total += lens[r];
        }
        if (!compi_fits_int((uint64_t)total)) compi_die("report section larger than 2 GiB");
        all = malloc((size_t)total);
        if (!all) compi_die("out of memory writing the report");
    }
    PMPI_Gatherv(text, len, MPI_CHAR, all, lens, *displ, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(mine);
    free(lens);
    return all;
}

/* A list section's items from every rank, as the members of one array. */
static void compi_json_list(FILE *f, const char *items, const int *displ, int n)
{
    int first = 1;
    for (int r = 0; r < n; r++) {
        const char *l = items + displ[r];
        size_t ll = strlen(l);
        if (ll <= 2) continue; /* "[]" */
        fprintf(f, "%s%.*s", first ? "" : ", ", (int)(ll - 2), l + 1);
        first = 0;
    }
}

void compi_report_write(void)
{
    if (!compi_cfg.report_path[0] && compi_cfg.verbose < 1) return;
    int n = compi_g.world_size, rank = compi_g.world_rank;
    int words = compi_record_words();
    uint64_t *mine = calloc((size_t)words, sizeof *mine), *all = NULL;
    if (!mine) compi_die("out of memory writing the report");
    compi_vector_fill(mine);
    if (rank == 0) {
        all = calloc((size_t)n * (size_t)words, sizeof *all);
        if (!all) compi_die("out of memory writing the report");
    }
    PMPI_Gather(mine, words, MPI_UINT64_T, all, words, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    free(mine);
    /* the engine's, the profile's and the list sections vary in length:
     * gathered as text (collective I/O's list: each file's line is kept by
     * the file's first rank) */
    int *edispl = NULL, *pdispl = NULL, *ldispl[COMPI_REPORT_SECTIONS_MAX] = {NULL};
    char *engines = compi_gather_text(compi_engine_report_json(), &edispl);
    char *profiles = compi_gather_text(compi_prof_report_json(), &pdispl);
    char *lists[COMPI_REPORT_SECTIONS_MAX] = {NULL};
    for (int i = 0; i < compi_lists_n; i++) {
        char *items = compi_lists[i]->items();
        if (!items) compi_die("out of memory writing the report");
        lists[i] = compi_gather_text(items, &ldispl[i]);
    }
    if (rank != 0) return;
    uint64_t *total = calloc((size_t)words, sizeof *total);
    if (!total) compi_die("out of memory writing the report");
    for (int r = 0; r < n; r++) compi_vector_add(total, all + (size_t)r * (size_t)words, words);
    if (compi_cfg.report_path[0]) {
        /* replaced whole (a path reused run after run), never written
         * through a link (common/safefile.h) */
        compi_wfile w;
        char err[4400];
        FILE *f = NULL;
        if (compi_file_create(&w, compi_cfg.report_path, 0666, COMPI_FILE_REPLACE, err, sizeof err) != COMPI_OK)
            fprintf(stderr, "compi: warning: COMPI_REPORT not written: %s\n", err);
        else f = w.f;
        if (f) {
            fprintf(f, "{\n  \"compi_version\": \"%d.%d.%d\",\n", COMPI_VERSION_MAJOR, COMPI_VERSION_MINOR,
                    COMPI_VERSION_PATCH);
            fprintf(f, "  \"mpi\": \"%s\",\n", COMPI_MPI_NAME);
            fprintf(f, "  \"git_describe\": \"%s\",\n", COMPI_GIT_DESCRIBE);
            fprintf(f, "  \"mode\": \"%s\", \"codec\": \"%s\", \"min_bytes\": %zu,\n", compi_mode_name(compi_cfg.mode),
                    compi_cfg.codec->name, compi_cfg.min_bytes);
            fprintf(f, "  \"world_size\": %d, \"nodes\": %d,\n  \"ranks\": [\n", n, compi_g.node_count);
            for (int r = 0; r < n; r++) {
                const uint64_t *v = all + (size_t)r * (size_t)words;
                fprintf(f, "    {\"rank\": %d, \"node\": %llu,\n", r, (unsigned long long)v[0]);
                compi_json_record(f, v, "     ");
                fprintf(f, ",\n     \"engine\": %s,\n     \"profile\": %s}%s\n", engines + edispl[r],
                        profiles + pdispl[r], r + 1 < n ? "," : "");
            }
            fprintf(f, "  ]");
            for (int i = 0; i < compi_lists_n; i++) {
                fprintf(f, ",\n  \"%s\": [", compi_lists[i]->name);
                compi_json_list(f, lists[i], ldispl[i], n);
                fprintf(f, "]");
            }
            fprintf(f, ",\n  \"totals\": {\n");
            compi_json_record(f, total, "    ");
            fprintf(f, "\n  }\n}\n");
            if (compi_file_commit(&w, err, sizeof err) != COMPI_OK)
                fprintf(stderr, "compi: warning: COMPI_REPORT not written: %s\n", err);
        }
    }
    if (compi_cfg.verbose >= 1) compi_summary((const compi_rank_record *)total);
    free(total);
    free(all);
    free(engines);
    free(edispl);
    free(profiles);
    free(pdispl);
    for (int i = 0; i < compi_lists_n; i++) {
        free(lists[i]);
        free(ldispl[i]);
    }
}
