/* SPDX-License-Identifier: BSD-3-Clause */
/* Guided rules (COMPI_MODE=guided): rules.<rank>.txt, made by `compi guide`
 * from traces (trace.c) and looked up by message key at run time. Format:
 * docs/guided.md. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "common/safefile.h"
#include "engine/model.h"
#include "engine/trace.h"
#include "engine/window.h"


/* ------------------------------------------------------------- rules */

#define RULES_VERSION "1"

typedef struct {
    uint64_t key;
    const compi_codec *codec;
    /* run-time feedback (compi_rules_outcome), atomics: lookups take no lock */
    uint32_t outcomes;   /* bit i = mistake of the i-th latest compression */
    uint32_t dropped;
} tr_rule;

struct compi_rules {
    size_t n;
    tr_rule *rules;   /* sorted by key */
    size_t ndropped;  /* atomic */
};

/* Program names are written with %XX for blanks, '#', '%' and non-printing
 * bytes, so the file stays one token per field. */
static void rules_encode(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c >= 0x7f || c == '#' || c == '%') o += (size_t)snprintf(dst + o, cap - o, "%%%02X", c);
        else dst[o++] = (char)c;
    }
    dst[o] = 0;
}

int compi_rules_save(const char *dir, int rank, int world_size, const char *program,
                     const compi_rule *rules, size_t n, const char *comment, char *err, size_t errlen)
{
    if (compi_dir_create(dir, 0777, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    char path[4096], prog[3 * COMPI_TRACE_PROGRAM_MAX + 4];
    if ((size_t)compi_rules_path(path, sizeof path, dir, rank) >= sizeof path) {
        compi_errf(err, errlen, "%s: directory name too long", dir);
        return COMPI_ERR_CONFIG;
    }
    /* written aside and renamed: a rank never reads a half-written file */
    compi_wfile w;
    if (compi_file_create(&w, path, 0666, COMPI_FILE_REPLACE, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    FILE *f = w.f;
    rules_encode(prog, sizeof prog, program);
    fprintf(f, "compi-rules " RULES_VERSION "\n");
    while (comment && *comment) {
        size_t k = strcspn(comment, "\n");
        fprintf(f, "# %.*s\n", (int)k, comment);
        comment += k;
        if (*comment) comment++;
    }
    fprintf(f, "program %s\nranks %d\nrank %d\n", prog, world_size, rank);
    for (size_t i = 0; i < n; i++) {
        const compi_rule *r = &rules[i];
        fprintf(f, "rule %016llx %s", (unsigned long long)r->key, r->codec ? r->codec->name : "raw");
        if (r->msg) {
            fprintf(f, " # size=%llu peer=%d tag=%d class=%s comm=%u family=%u link=%s count=%llu",
                    (unsigned long long)r->msg->size, r->msg->peer, r->msg->tag, compi_dtclass_name(r->msg->dtclass),
                    r->msg->comm_id, r->msg->family, r->msg->link_cls ? "inter" : "intra",
                    (unsigned long long)r->count);
            if (r->ratio > 0) fprintf(f, " ratio=%.2f", r->ratio);
            if (r->max_ratio > 0) fprintf(f, " max_ratio=%.2f", r->max_ratio);
            if (r->predicted > 0) fprintf(f, " predicted=%.2fx", r->predicted);
            if (r->why) fprintf(f, " why=%s", r->why);
        }
        fputc('\n', f);
    }
    fprintf(f, "end %zu\n", n);
    return compi_file_commit(&w, err, errlen);
}

static int rules_cmp(const void *a, const void *b)
{
    const tr_rule *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int rules_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

compi_rules *compi_rules_load(const char *dir, int rank, int world_size, const char *program,
                              char *err, size_t errlen)
{
    char path[4096];
    compi_rules_path(path, sizeof path, dir, rank);
    FILE *f = compi_file_open_read(path, NULL, err, errlen);
    if (!f) return NULL;
    compi_rules *r = calloc(1, sizeof *r);
    size_t cap = 0;
    char line[1024], *tok[4];
    char prog[3 * COMPI_TRACE_PROGRAM_MAX + 4] = "";
    long ranks = -1, frank = -1, end_count = -1;
    int lineno = 0, seen_header = 0;
#define RFAIL(...) do { \
        int n_ = snprintf(err, errlen, "%s:%d: ", path, lineno); \
        if (n_ < 0 || (size_t)n_ >= errlen) n_ = 0; \
        snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
        goto fail; } while (0)
    if (!r) RFAIL("out of memory");
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) RFAIL("line too long");
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int n = 0;
        for (char *save = NULL, *s = strtok_r(line, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
            if (n == 4) RFAIL("too many fields");
            tok[n++] = s;
        }
        if (!seen_header) {
            if (lineno == 1 && n == 2 && strcmp(tok[0], "compi-rules") == 0 && strcmp(tok[1], RULES_VERSION) != 0)
                RFAIL("rules format version '%s' is not supported (this compi reads version " RULES_VERSION
                      "); rerun compi guide", tok[1]);
            if (lineno != 1 || n != 2 || strcmp(tok[0], "compi-rules") != 0)
                RFAIL("not a compi rules file: the first line must be 'compi-rules " RULES_VERSION "'");
            seen_header = 1;
            continue;
        }
        if (n == 0) continue;
        if (end_count >= 0) RFAIL("'%s' after the 'end' line", tok[0]);
        if (strcmp(tok[0], "program") == 0) {
            if (n != 2) RFAIL("expected 'program <name>'");
            if (prog[0]) RFAIL("second 'program' line");
            if (strlen(tok[1]) >= sizeof prog) RFAIL("program name too long");
            strcpy(prog, tok[1]);
        } else if (strcmp(tok[0], "ranks") == 0) {
            if (n != 2 || rules_int(tok[1], 1, INT_MAX, &ranks)) RFAIL("expected 'ranks <count >= 1>'");
        } else if (strcmp(tok[0], "rank") == 0) {
            if (n != 2 || rules_int(tok[1], 0, INT_MAX, &frank)) RFAIL("expected 'rank <number >= 0>'");
        } else if (strcmp(tok[0], "rule") == 0) {
            if (!prog[0] || ranks < 0 || frank < 0) RFAIL("'rule' before the program, ranks and rank lines");
            if (n != 3) RFAIL("expected 'rule <key: 16 hex digits> <codec|raw>'");
            if (strlen(tok[1]) != 16 || strspn(tok[1], "0123456789abcdefABCDEF") != 16)
                RFAIL("key '%s' is not 16 hex digits", tok[1]);
            tr_rule x = {strtoull(tok[1], NULL, 16), NULL, 0, 0};
            if (strcmp(tok[2], "raw") != 0 && !(x.codec = compi_codec_by_name(tok[2])))
                RFAIL("unknown codec '%s' (known: raw,%s)", tok[2], compi_codec_names());
            if (r->n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                tr_rule *g = realloc(r->rules, nc * sizeof *g);
                if (!g) RFAIL("out of memory");
                r->rules = g;
                cap = nc;
            }
            r->rules[r->n++] = x;
        } else if (strcmp(tok[0], "end") == 0) {
            if (n != 2 || rules_int(tok[1], 0, LONG_MAX, &end_count)) RFAIL("expected 'end <number of rules>'");
            if ((size_t)end_count != r->n)
                RFAIL("'end %ld' but the file has %zu rules", end_count, r->n);
        } else {
            RFAIL("unknown keyword '%s' (expected program, ranks, rank, rule or end)", tok[0]);
        }
    }
    if (ferror(f)) RFAIL("read error");
    if (!seen_header) RFAIL("empty file; expected 'compi-rules " RULES_VERSION "'");
    if (end_count < 0) RFAIL("no 'end' line: the file is truncated");
    if (!prog[0] || ranks < 0 || frank < 0) RFAIL("missing program, ranks or rank line");
    fclose(f);
    f = NULL;
    if (r->n) qsort(r->rules, r->n, sizeof *r->rules, rules_cmp);
    for (size_t i = 1; i < r->n; i++)
        if (r->rules[i].key == r->rules[i - 1].key) {
            snprintf(err, errlen, "%s: two rules for key %016llx", path, (unsigned long long)r->rules[i].key);
            goto fail;
        }
    /* the trace header keeps COMPI_TRACE_PROGRAM_MAX - 1 characters of the name */
    char want[sizeof prog], cut[COMPI_TRACE_PROGRAM_MAX];
    snprintf(cut, sizeof cut, "%s", program);
    rules_encode(want, sizeof want, cut);
    if (strcmp(want, prog) != 0 || ranks != world_size || frank != rank) {
        snprintf(err, errlen, "%s: stale rules: made for program '%s' with %ld ranks (rank %ld), this is '%s' "
                 "with %d ranks (rank %d); trace and run compi guide again", path, prog, ranks, frank, want,
                 world_size, rank);
        goto fail;
    }
#undef RFAIL
    return r;
fail:
    if (f) fclose(f);
    compi_rules_free(r);
    return NULL;
}

int compi_rules_lookup(const compi_rules *r, uint64_t key, const compi_codec **codec, size_t *index)
{
    size_t lo = 0, hi = r ? r->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = r->rules[mid].key;
        if (k == key) {
            if (__atomic_load_n(&r->rules[mid].dropped, __ATOMIC_RELAXED)) return 0;
            if (codec) *codec = r->rules[mid].codec;
            if (index) *index = mid;
            return 1;
        }
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

int compi_rules_outcome(compi_rules *r, size_t index, int mistake, unsigned limit, unsigned history)
{
    if (!r || index >= r->n || limit == 0) return 0;
    tr_rule *rule = &r->rules[index];
    uint32_t old = __atomic_load_n(&rule->outcomes, __ATOMIC_RELAXED), upd;
    do {
        upd = compi_outcomes_push(old, mistake, history);
    } while (!__atomic_compare_exchange_n(&rule->outcomes, &old, upd, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    if (!mistake || compi_outcomes_mistakes(upd) < limit) return 0;
    /* only the call that flips the flag reports the drop */
    if (__atomic_exchange_n(&rule->dropped, 1u, __ATOMIC_RELAXED)) return 0;
    __atomic_fetch_add(&r->ndropped, 1, __ATOMIC_RELAXED);
    return 1;
}

size_t compi_rules_dropped(const compi_rules *r)
{
    return r ? __atomic_load_n(&r->ndropped, __ATOMIC_RELAXED) : 0;
}

size_t compi_rules_count(const compi_rules *r) { return r ? r->n : 0; }

void compi_rules_free(compi_rules *r)
{
    if (!r) return;
    free(r->rules);
    free(r);
}
