/* SPDX-License-Identifier: BSD-3-Clause */
/* The report of compi's two-phase collective I/O: one JSON object per file,
 * kept by the file's first rank when the file closes. */
#include "io/twophase_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const compi_io_pass_names[COMPI_IO_PASS_COUNT] = {
    "policy_mpi",  "independent", "nonblocking",   "split_collective", "shared_or_ordered",
    "atomic",      "datarep",     "sequential",    "access_mode",      "view",
    "memory_type", "arguments",   "read_past_eof", "nothing_to_gain",
};
static const char *const compi_io_op_names[COMPI_IO_OPS] = {"write_all", "write_at_all", "read_all", "read_at_all"};
static const char *const compi_io_stage_names[COMPI_IO_T_COUNT] = {"flatten", "plan", "exchange", "io"};

static pthread_mutex_t compi_io_report_lock = PTHREAD_MUTEX_INITIALIZER;
static char *compi_io_lines; /* finished files' JSON objects, comma-separated */
static size_t compi_io_lines_len;

static void compi_io_cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void compi_io_cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*s ? *s + *len : NULL, *s ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (*s && *len + (size_t)n < *cap) {
            *len += (size_t)n;
            return;
        }
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

void compi_io_file_report(compi_io_file *f)
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
    compi_io_cat(&s, &len, &cap,
                 ", \"policy\": \"%s\", \"weight\": \"%s\", \"mpi_io\": \"%s\", \"gate\": \"%s\", "
                 "\"la_plans\": {\"solved\": %llu, \"reused\": %llu}, \"processes\": %d, \"aggregators\": [",
                 compi_io_policy_name(f->policy), compi_io_weight_name(f->weight), compi_io_mpiio_name(f->mpiio),
                 f->gate ? "on" : "off", (unsigned long long)(sum.planned / (uint64_t)f->nprocs),
                 (unsigned long long)(sum.cached / (uint64_t)f->nprocs), f->nprocs);
    for (int k = 0; k < f->nagg; k++) compi_io_cat(&s, &len, &cap, "%s%d", k ? ", " : "", f->agg[k]);
    compi_io_cat(&s, &len, &cap, "], \"compi_calls\": {");
    for (int o = 0; o < COMPI_IO_OPS; o++)
        compi_io_cat(&s, &len, &cap, "%s\"%s\": {\"calls\": %llu, \"bytes\": %llu}", o ? ", " : "",
                     compi_io_op_names[o], (unsigned long long)(sum.calls[o] / (uint64_t)f->nprocs),
                     (unsigned long long)sum.bytes[o]);
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
    compi_io_cat(
        &s, &len, &cap,
        "}, \"redistribution\": {\"local_bytes\": %llu, \"intra_node_bytes\": %llu, \"inter_node_bytes\": %llu, "
        "\"intra_node_messages\": %llu, \"inter_node_messages\": %llu, \"inter_node_wire_bytes\": %llu, "
        "\"metadata_bytes\": %llu, \"inter_node_metadata_bytes\": %llu}, "
        "\"aggregator_io_calls\": %llu, \"cycles\": %llu}",
        (unsigned long long)sum.local, (unsigned long long)sum.intra, (unsigned long long)sum.inter,
        (unsigned long long)sum.msgs_intra, (unsigned long long)sum.msgs_inter, (unsigned long long)sum.wire_inter,
        (unsigned long long)sum.meta, (unsigned long long)sum.meta_inter, (unsigned long long)sum.io_runs,
        (unsigned long long)(sum.cycles / (uint64_t)f->nprocs));
    if (!s) return;
    if (compi_cfg.verbose >= 1) {
        uint64_t on = 0, passed = 0;
        for (int o = 0; o < COMPI_IO_OPS; o++) on += sum.calls[o] / (uint64_t)f->nprocs;
        for (int r = 0; r < COMPI_IO_PASS_COUNT; r++) passed += sum.pass[r];
        compi_log(0,
                  "collective I/O on %s (%s): %llu collective calls on compi's path, %llu calls passed to the MPI; "
                  "redistribution %llu B inter-node (%llu B on the wire), %llu B intra-node, %llu B local",
                  f->filename, compi_io_policy_name(f->policy), (unsigned long long)on, (unsigned long long)passed,
                  (unsigned long long)sum.inter, (unsigned long long)sum.wire_inter, (unsigned long long)sum.intra,
                  (unsigned long long)sum.local);
    }
    pthread_mutex_lock(&compi_io_report_lock);
    char *nl = realloc(compi_io_lines, compi_io_lines_len + len + 3);
    if (nl) {
        compi_io_lines = nl;
        if (compi_io_lines_len) {
            memcpy(nl + compi_io_lines_len, ", ", 2);
            compi_io_lines_len += 2;
        }
        memcpy(nl + compi_io_lines_len, s, len + 1);
        compi_io_lines_len += len;
    }
    pthread_mutex_unlock(&compi_io_report_lock);
    free(s);
}

char *compi_io_report_json(void)
{
    pthread_mutex_lock(&compi_io_report_lock);
    size_t n = compi_io_lines_len;
    char *s = malloc(n + 3);
    if (s) {
        s[0] = '[';
        if (n) memcpy(s + 1, compi_io_lines, n);
        s[n + 1] = ']';
        s[n + 2] = 0;
    }
    pthread_mutex_unlock(&compi_io_report_lock);
    return s;
}
