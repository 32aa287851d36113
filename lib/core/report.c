/* The finalize report: every rank's counters gathered to rank 0, written as
 * JSON (COMPI_REPORT) and summarised on stderr (COMPI_VERBOSE >= 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "coll/coll.h"

extern uint64_t compi_call_counts[];
extern const int compi_call_count_n;
extern const char *const compi_call_names[];

static const char *const compi_family_names[COMPI_FAM_COUNT] = {
    "send", "isend", "persistent_send", "recv", "irecv", "persistent_recv",
    "sendrecv", "probe", "mrecv", "bcast", "scatter", "gather",
    "allgather", "alltoall", "allreduce", "reduce",
};

/* One rank's counters as a flat vector so one MPI_Gather moves them all. */
enum { COMPI_CODEC_SLOTS = 32 };
typedef struct {
    uint64_t node;
    uint64_t messages[COMPI_FAM_COUNT], bytes[COMPI_FAM_COUNT];
    uint64_t intra_msgs, inter_msgs, raw_small, raw_incompressible, raw_unframed, raw_escaped;
    uint64_t frames_decoded, frames_decoded_compressed, compress_ns, decompress_ns;
    uint64_t evaluations, evaluate_ns;
    uint64_t codec_msgs[COMPI_CODEC_SLOTS], codec_in[COMPI_CODEC_SLOTS], codec_out[COMPI_CODEC_SLOTS];
    uint64_t coll[COMPI_COLL_KINDS][COMPI_COLL_FIELDS];   /* lib/coll/coll.h */
} compi_rank_record;

static void compi_record_fill(compi_rank_record *r)
{
    memset(r, 0, sizeof *r);
    r->node = (uint64_t)compi_g.my_node;
    memcpy(r->messages, compi_st.messages, sizeof r->messages);
    memcpy(r->bytes, compi_st.bytes, sizeof r->bytes);
    r->intra_msgs = compi_st.intra_msgs;
    r->inter_msgs = compi_st.inter_msgs;
    r->raw_small = compi_st.raw_small;
    r->raw_incompressible = compi_st.raw_incompressible;
    r->raw_unframed = compi_st.raw_unframed;
    r->raw_escaped = compi_st.raw_escaped;
    r->frames_decoded = compi_st.frames_decoded;
    r->frames_decoded_compressed = compi_st.frames_decoded_compressed;
    r->compress_ns = compi_st.compress_ns;
    r->decompress_ns = compi_st.decompress_ns;
    r->evaluations = compi_st.evaluations;
    r->evaluate_ns = compi_st.evaluate_ns;
    for (int i = 0; i < COMPI_CODEC_SLOTS; i++) {
        r->codec_msgs[i] = compi_st.codec_msgs[i];
        r->codec_in[i] = compi_st.codec_in[i];
        r->codec_out[i] = compi_st.codec_out[i];
    }
    for (int k = 0; k < COMPI_COLL_KINDS; k++)
        for (int f = 0; f < COMPI_COLL_FIELDS; f++)
            r->coll[k][f] = __atomic_load_n(&compi_coll_st[k][f], __ATOMIC_RELAXED);
}

/* Per collective that was called: calls, how many ran compi's node-aware
 * path (the rest ran the MPI's own), bytes, inter-node wire bytes, time. */
static void compi_json_collectives(FILE *f, const compi_rank_record *r)
{
    fprintf(f, "\"collectives\": {");
    int first = 1;
    for (int k = 0; k < COMPI_COLL_KINDS; k++) {
        if (!r->coll[k][COMPI_COLL_CALLS]) continue;
        fprintf(f, "%s\"%s\": {", first ? "" : ", ", compi_coll_names[k]);
        for (int fi = 0; fi < COMPI_COLL_FIELDS; fi++) {
            if (fi == COMPI_COLL_NS) fprintf(f, "%s\"%s\": %.6f", fi ? ", " : "", compi_coll_field_names[fi], r->coll[k][fi] * 1e-9);
            else fprintf(f, "%s\"%s\": %llu", fi ? ", " : "", compi_coll_field_names[fi], (unsigned long long)r->coll[k][fi]);
        }
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "}");
}

static void compi_record_add(compi_rank_record *sum, const compi_rank_record *r)
{
    const uint64_t *src = (const uint64_t *)r;
    uint64_t *dst = (uint64_t *)sum;
    for (size_t i = 1; i < sizeof *r / sizeof(uint64_t); i++) dst[i] += src[i]; /* skip node */
}

static void compi_json_record(FILE *f, const compi_rank_record *r, const uint64_t *calls, const char *indent)
{
    fprintf(f, "%s\"families\": {", indent);
    for (int i = 0; i < COMPI_FAM_COUNT; i++)
        fprintf(f, "%s\"%s\": {\"messages\": %llu, \"bytes\": %llu}", i ? ", " : "", compi_family_names[i],
                (unsigned long long)r->messages[i], (unsigned long long)r->bytes[i]);
    fprintf(f, "},\n");
    fprintf(f, "%s\"intra_node_messages\": %llu, \"inter_node_messages\": %llu,\n", indent,
            (unsigned long long)r->intra_msgs, (unsigned long long)r->inter_msgs);
    fprintf(f, "%s\"raw_small\": %llu, \"raw_incompressible\": %llu,\n", indent,
            (unsigned long long)r->raw_small, (unsigned long long)r->raw_incompressible);
    fprintf(f, "%s\"raw_unframed\": %llu, \"raw_escaped\": %llu,\n", indent,
            (unsigned long long)r->raw_unframed, (unsigned long long)r->raw_escaped);
    fprintf(f, "%s\"frames_decoded\": %llu, \"frames_decoded_compressed\": %llu,\n", indent,
            (unsigned long long)r->frames_decoded, (unsigned long long)r->frames_decoded_compressed);
    fprintf(f, "%s\"compress_seconds\": %.6f, \"decompress_seconds\": %.6f,\n", indent, r->compress_ns * 1e-9,
            r->decompress_ns * 1e-9);
    fprintf(f, "%s\"evaluations\": %llu, \"evaluate_seconds\": %.6f,\n", indent,
            (unsigned long long)r->evaluations, r->evaluate_ns * 1e-9);
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
    fprintf(f, "},\n%s\"calls\": {", indent);
    first = 1;
    for (int i = 0; i < compi_call_count_n; i++) {
        if (!calls[i]) continue;
        fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", compi_call_names[i], (unsigned long long)calls[i]);
        first = 0;
    }
    fprintf(f, "},\n%s", indent);
    compi_json_collectives(f, r);
}

static void compi_summary(const compi_rank_record *t)
{
    uint64_t in = 0, out = 0;
    uint64_t msgs = 0;
    for (int id = 0; id < COMPI_CODEC_SLOTS; id++) {
        in += t->codec_in[id];
        out += t->codec_out[id];
        msgs += t->codec_msgs[id];
    }
    fprintf(stderr,
            "compi: %d ranks on %d node(s), mode %s, codec %s (fixed mode), min %zu B\n"
            "compi: sends: %llu inter-node, %llu intra-node (never compressed); raw inter-node: %llu small, "
            "%llu incompressible, %llu sent unframed (zero-copy), %llu escaped\n"
            "compi: compressed %llu messages: %.1f MiB -> %.1f MiB (ratio %.2f); compress %.3f s, decompress %.3f s "
            "(all ranks); %llu sample evaluations took %.3f s\n",
            compi_g.world_size, compi_g.node_count, compi_mode_name(compi_cfg.mode),
            compi_cfg.codec->name, compi_cfg.min_bytes, (unsigned long long)t->inter_msgs,
            (unsigned long long)t->intra_msgs, (unsigned long long)t->raw_small,
            (unsigned long long)t->raw_incompressible, (unsigned long long)t->raw_unframed,
            (unsigned long long)t->raw_escaped, (unsigned long long)msgs, in / 1048576.0, out / 1048576.0,
            out ? (double)in / (double)out : 0.0, t->compress_ns * 1e-9, t->decompress_ns * 1e-9,
            (unsigned long long)t->evaluations, t->evaluate_ns * 1e-9);
}

void compi_report_write(void)
{
    if (!compi_cfg.report_path[0] && compi_cfg.verbose < 1) return;
    int n = compi_g.world_size, rank = compi_g.world_rank;
    int words = (int)(sizeof(compi_rank_record) / sizeof(uint64_t));
    compi_rank_record mine, *all = NULL;
    uint64_t *calls = NULL;
    compi_record_fill(&mine);
    if (rank == 0) {
        all = calloc((size_t)n, sizeof *all);
        calls = calloc((size_t)n * (size_t)compi_call_count_n, sizeof(uint64_t));
        if (!all || !calls) compi_die("out of memory writing the report");
    }
    PMPI_Gather(&mine, words, MPI_UINT64_T, all, words, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    PMPI_Gather(compi_call_counts, compi_call_count_n, MPI_UINT64_T, calls, compi_call_count_n, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    /* the engine's section varies in length: gathered as text */
    char *engine = compi_engine_report_json();
    int elen = (int)strlen(engine) + 1, *elens = NULL, *edispl = NULL;
    char *engines = NULL;
    if (rank == 0) {
        elens = calloc((size_t)n, sizeof(int));
        edispl = calloc((size_t)n, sizeof(int));
        if (!elens || !edispl) compi_die("out of memory writing the report");
    }
    PMPI_Gather(&elen, 1, MPI_INT, elens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long long total_len = 0;
        for (int r = 0; r < n; r++) {
            edispl[r] = (int)total_len;
            total_len += elens[r];
        }
        if (total_len > 0x7fffffff) compi_die("engine report larger than 2 GiB");
        engines = malloc((size_t)total_len);
        if (!engines) compi_die("out of memory writing the report");
    }
    PMPI_Gatherv(engine, elen, MPI_CHAR, engines, elens, edispl, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(engine);
    if (rank != 0) return;
    compi_rank_record total;
    memset(&total, 0, sizeof total);
    uint64_t *call_total = calloc((size_t)compi_call_count_n, sizeof(uint64_t));
    for (int r = 0; r < n; r++) {
        compi_record_add(&total, &all[r]);
        for (int i = 0; i < compi_call_count_n; i++) call_total[i] += calls[(size_t)r * compi_call_count_n + i];
    }
    if (compi_cfg.report_path[0]) {
        FILE *f = fopen(compi_cfg.report_path, "w");
        if (!f) {
            perror("compi: cannot write COMPI_REPORT");
        } else {
            fprintf(f, "{\n  \"compi_version\": \"%d.%d.%d\",\n", COMPI_VERSION_MAJOR, COMPI_VERSION_MINOR,
                    COMPI_VERSION_PATCH);
#if defined(COMPI_MPI_openmpi)
            fprintf(f, "  \"mpi\": \"openmpi\",\n");
#else
            fprintf(f, "  \"mpi\": \"mpich\",\n");
#endif
            fprintf(f, "  \"mode\": \"%s\", \"codec\": \"%s\", \"min_bytes\": %zu,\n",
                    compi_mode_name(compi_cfg.mode), compi_cfg.codec->name, compi_cfg.min_bytes);
            fprintf(f, "  \"world_size\": %d, \"nodes\": %d,\n  \"ranks\": [\n", n, compi_g.node_count);
            for (int r = 0; r < n; r++) {
                fprintf(f, "    {\"rank\": %d, \"node\": %llu,\n", r, (unsigned long long)all[r].node);
                compi_json_record(f, &all[r], calls + (size_t)r * compi_call_count_n, "     ");
                fprintf(f, ",\n     \"engine\": %s}%s\n", engines + edispl[r], r + 1 < n ? "," : "");
            }
            fprintf(f, "  ],\n  \"totals\": {\n");
            compi_json_record(f, &total, call_total, "    ");
            fprintf(f, "\n  }\n}\n");
            fclose(f);
        }
    }
    if (compi_cfg.verbose >= 1) compi_summary(&total);
    free(call_total);
    free(all);
    free(calls);
    free(engines);
    free(elens);
    free(edispl);
}
