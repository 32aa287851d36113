/* SPDX-License-Identifier: BSD-3-Clause */
/* Guided rules (COMPI_MODE=guided): rules.<rank>.txt, made by `compi guide`
 * from traces (trace_read.c) and looked up by message key at run time. Format:
 * docs/guided.md. The writer, the parser and the lookups stay in one file:
 * the writer and the parser share the format's version and its encoding of
 * program names, and the lookups search the table the parser builds. */
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
    uint32_t outcomes; /* bit i = mistake of the i-th latest compression */
    uint32_t dropped;
} tr_rule;

struct compi_rules {
    size_t n;
    tr_rule *rules;  /* sorted by key */
    size_t ndropped; /* atomic */
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

int compi_rules_save(const char *dir, int rank, int world_size, const char *program, const compi_rule *rules, size_t n,
                     const char *comment, char *err, size_t errlen)
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
            if (r->msg->share > 1) fprintf(f, " burst=%u/%u", r->msg->share, r->msg->own);
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

/* One rules file being parsed. Every step returns 0, or -1 with err set
 * to "file:line: why" (rules_fail). */
typedef struct {
    const char *path;
    int lineno;
    char *err;
    size_t errlen;
    compi_rules *r;
    size_t cap;
    char prog[3 * COMPI_TRACE_PROGRAM_MAX + 4];
    long ranks, frank, end_count; /* -1 until their lines are read */
    int seen_header;
} rules_parser;

__attribute__((format(printf, 2, 3))) static int rules_fail(rules_parser *ps, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->path, ps->lineno);
    if (n < 0 || (size_t)n >= ps->errlen) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The first line: "compi-rules <version>". */
static int rules_header_line(rules_parser *ps, char **tok, int n)
{
    if (ps->lineno == 1 && n == 2 && strcmp(tok[0], "compi-rules") == 0 && strcmp(tok[1], RULES_VERSION) != 0)
        return rules_fail(ps,
                          "rules format version '%s' is not supported (this compi reads version " RULES_VERSION
                          "); rerun compi guide",
                          tok[1]);
    if (ps->lineno != 1 || n != 2 || strcmp(tok[0], "compi-rules") != 0)
        return rules_fail(ps, "not a compi rules file: the first line must be 'compi-rules " RULES_VERSION "'");
    ps->seen_header = 1;
    return 0;
}

/* "rule <key> <codec|raw>", after the program, ranks and rank lines. */
static int rules_rule_line(rules_parser *ps, char **tok, int n)
{
    compi_rules *r = ps->r;
    if (!ps->prog[0] || ps->ranks < 0 || ps->frank < 0)
        return rules_fail(ps, "'rule' before the program, ranks and rank lines");
    if (n != 3) return rules_fail(ps, "expected 'rule <key: 16 hex digits> <codec|raw>'");
    if (strlen(tok[1]) != 16 || strspn(tok[1], "0123456789abcdefABCDEF") != 16)
        return rules_fail(ps, "key '%s' is not 16 hex digits", tok[1]);
    tr_rule x = {strtoull(tok[1], NULL, 16), NULL, 0, 0};
    if (strcmp(tok[2], "raw") != 0 && !(x.codec = compi_codec_by_name(tok[2])))
        return rules_fail(ps, "unknown codec '%s' (known: raw,%s)", tok[2], compi_codec_names());
    if (r->n == ps->cap) {
        size_t nc = ps->cap ? ps->cap * 2 : 64;
        tr_rule *g = realloc(r->rules, nc * sizeof *g);
        if (!g) return rules_fail(ps, "out of memory");
        r->rules = g;
        ps->cap = nc;
    }
    r->rules[r->n++] = x;
    return 0;
}

/* Any line after the header, as its n tokens (comments stripped). */
static int rules_line(rules_parser *ps, char **tok, int n)
{
    if (!ps->seen_header) return rules_header_line(ps, tok, n);
    if (n == 0) return 0;
    if (ps->end_count >= 0) return rules_fail(ps, "'%s' after the 'end' line", tok[0]);
    if (strcmp(tok[0], "program") == 0) {
        if (n != 2) return rules_fail(ps, "expected 'program <name>'");
        if (ps->prog[0]) return rules_fail(ps, "second 'program' line");
        if (strlen(tok[1]) >= sizeof ps->prog) return rules_fail(ps, "program name too long");
        strcpy(ps->prog, tok[1]);
    } else if (strcmp(tok[0], "ranks") == 0) {
        if (n != 2 || rules_int(tok[1], 1, INT_MAX, &ps->ranks)) return rules_fail(ps, "expected 'ranks <count >= 1>'");
    } else if (strcmp(tok[0], "rank") == 0) {
        if (n != 2 || rules_int(tok[1], 0, INT_MAX, &ps->frank)) return rules_fail(ps, "expected 'rank <number >= 0>'");
    } else if (strcmp(tok[0], "rule") == 0) {
        return rules_rule_line(ps, tok, n);
    } else if (strcmp(tok[0], "end") == 0) {
        if (n != 2 || rules_int(tok[1], 0, LONG_MAX, &ps->end_count))
            return rules_fail(ps, "expected 'end <number of rules>'");
        if ((size_t)ps->end_count != ps->r->n)
            return rules_fail(ps, "'end %ld' but the file has %zu rules", ps->end_count, ps->r->n);
    } else {
        return rules_fail(ps, "unknown keyword '%s' (expected program, ranks, rank, rule or end)", tok[0]);
    }
    return 0;
}

/* Every line of f, then what must have been seen by the end. */
static int rules_parse(rules_parser *ps, FILE *f)
{
    char line[1024], *tok[4];
    while (fgets(line, sizeof line, f)) {
        ps->lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) return rules_fail(ps, "line too long");
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int n = 0;
        for (char *save = NULL, *s = strtok_r(line, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
            if (n == 4) return rules_fail(ps, "too many fields");
            tok[n++] = s;
        }
        if (rules_line(ps, tok, n) != 0) return -1;
    }
    if (ferror(f)) return rules_fail(ps, "read error");
    if (!ps->seen_header) return rules_fail(ps, "empty file; expected 'compi-rules " RULES_VERSION "'");
    if (ps->end_count < 0) return rules_fail(ps, "no 'end' line: the file is truncated");
    if (!ps->prog[0] || ps->ranks < 0 || ps->frank < 0) return rules_fail(ps, "missing program, ranks or rank line");
    return 0;
}

/* Sorted for lookups, one rule per key, and made for this program, world
 * size and rank. */
static int rules_check(rules_parser *ps, int rank, int world_size, const char *program)
{
    compi_rules *r = ps->r;
    if (r->n) qsort(r->rules, r->n, sizeof *r->rules, rules_cmp);
    for (size_t i = 1; i < r->n; i++)
        if (r->rules[i].key == r->rules[i - 1].key) {
            snprintf(ps->err, ps->errlen, "%s: two rules for key %016llx", ps->path,
                     (unsigned long long)r->rules[i].key);
            return -1;
        }
    /* the trace header keeps COMPI_TRACE_PROGRAM_MAX - 1 characters of the name */
    char want[sizeof ps->prog], cut[COMPI_TRACE_PROGRAM_MAX];
    snprintf(cut, sizeof cut, "%s", program);
    rules_encode(want, sizeof want, cut);
    if (strcmp(want, ps->prog) != 0 || ps->ranks != world_size || ps->frank != rank) {
        snprintf(ps->err, ps->errlen,
                 "%s: stale rules: made for program '%s' with %ld ranks (rank %ld), this is '%s' "
                 "with %d ranks (rank %d); trace and run compi guide again",
                 ps->path, ps->prog, ps->ranks, ps->frank, want, world_size, rank);
        return -1;
    }
    return 0;
}

compi_rules *compi_rules_load(const char *dir, int rank, int world_size, const char *program, char *err, size_t errlen)
{
    char path[4096];
    compi_rules_path(path, sizeof path, dir, rank);
    FILE *f = compi_file_open_read(path, NULL, err, errlen);
    if (!f) return NULL;
    rules_parser ps = {.path = path,
                       .err = err,
                       .errlen = errlen,
                       .r = calloc(1, sizeof *ps.r),
                       .ranks = -1,
                       .frank = -1,
                       .end_count = -1};
    int rc = ps.r ? rules_parse(&ps, f) : rules_fail(&ps, "out of memory");
    fclose(f);
    if (rc == 0 && rules_check(&ps, rank, world_size, program) == 0) return ps.r;
    compi_rules_free(ps.r);
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

size_t compi_rules_count(const compi_rules *r)
{
    return r ? r->n : 0;
}

void compi_rules_free(compi_rules *r)
{
    if (!r) return;
    free(r->rules);
    free(r);
}
