/* SPDX-License-Identifier: BSD-3-Clause */
/* Settings from configuration files and the COMPI_* environment (config.h).
 * Bad values are fatal at MPI_Init: a typo must not silently run an
 * experiment with the wrong settings. One table below is the list of
 * settings; every source (file or environment) goes through the same
 * per-setting parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>
#include <stddef.h>
#include <unistd.h>
#include <limits.h>
#include "common/safefile.h"
#include "engine/config.h"
#include "engine/leaders.h"

extern char **environ;

/* Edit distance of short names, to tell a typo (COMPI_CODE) from another
 * tool's variable (COMPI_ROOT, read by the command-line tools). */
static size_t compi_edit_distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b), row[64];
    if (na >= 63 || nb >= 63) return 99;
    for (size_t j = 0; j <= nb; j++) row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* Accepts plain integers with optional K/M/G (binary) suffix. */
int compi_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-') return COMPI_ERR_CONFIG;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return COMPI_ERR_CONFIG;
    unsigned long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ull << 10; break;
        case 'M': mul = 1ull << 20; break;
        case 'G': mul = 1ull << 30; break;
        default: return COMPI_ERR_CONFIG;
        }
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'b' || *end == 'B') end++;
        if (*end) return COMPI_ERR_CONFIG;
    }
    if (v > (unsigned long long)SIZE_MAX / mul) return COMPI_ERR_CONFIG;
    *out = (size_t)(v * mul);
    return COMPI_OK;
}

static int compi_parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return COMPI_ERR_CONFIG;
    *out = (int)v;
    return COMPI_OK;
}

static int compi_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return COMPI_ERR_CONFIG;
    *out = v;
    return COMPI_OK;
}

static const char *const compi_mode_names[COMPI_MODE_COUNT] = {"off",   "fixed",  "adaptive",
                                                               "trace", "guided", "profile"};

const char *compi_mode_name(compi_mode m)
{
    return m < COMPI_MODE_COUNT ? compi_mode_names[m] : "?";
}

int compi_parse_mode(const char *s, compi_mode *out)
{
    for (int m = 0; m < COMPI_MODE_COUNT; m++) {
        if (strcmp(s, compi_mode_names[m]) == 0) {
            *out = (compi_mode)m;
            return COMPI_OK;
        }
    }
    return COMPI_ERR_CONFIG;
}

/* ------------------------------------------------------------ the setters
 * Each validates one value and stores it; on a bad value it writes what
 * follows "'<value>' " in the message (the valid values) and fails. */
typedef int (*compi_setter)(compi_config *cfg, const char *v, char *why, size_t whylen);

#define COMPI_BAD(...) (snprintf(why, whylen, __VA_ARGS__), COMPI_ERR_CONFIG)

static int set_mode(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_mode(v, &c->mode) == COMPI_OK ? COMPI_OK
                                                     : COMPI_BAD("is not valid; valid values: " COMPI_MODE_NAMES);
}
static int set_codec(compi_config *c, const char *v, char *why, size_t whylen)
{
    const compi_codec *k = compi_codec_by_name(v);
    /* lzo is optional (its library is GPL): say so rather than "unknown" */
    if (!k && compi_codec_not_built(v))
        return COMPI_BAD("is not built into this library (configure with -DCOMPI_WITH_LZO=ON); valid values: %s",
                         compi_codec_names());
    if (!k) return COMPI_BAD("is not a known codec; valid values: %s", compi_codec_names());
    c->codec = k;
    return COMPI_OK;
}
static int set_min_bytes(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_size(v, &c->min_bytes) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected a byte count such as 0, 2048, 64K, 1M");
}
static int set_calibrate(compi_config *c, const char *v, char *why, size_t whylen)
{
    if (strcmp(v, "init") == 0) c->calibrate_init = 1;
    else if (strcmp(v, "off") == 0) c->calibrate_init = 0;
    else return COMPI_BAD("is not valid; valid values: off, init");
    return COMPI_OK;
}
const char *compi_io_policy_name(int p)
{
    static const char *const names[COMPI_IO_POLICY_COUNT] = {"mpi", "default", "la"};
    return p >= 0 && p < COMPI_IO_POLICY_COUNT ? names[p] : "?";
}
int compi_parse_io_policy(const char *s, int *out)
{
    for (int p = 0; p < COMPI_IO_POLICY_COUNT; p++)
        if (strcmp(s, compi_io_policy_name(p)) == 0) {
            *out = p;
            return COMPI_OK;
        }
    return COMPI_ERR_CONFIG;
}
static int set_io_aggregators(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_io_policy(v, &c->io_aggregators) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; valid values: " COMPI_IO_POLICY_NAMES);
}
const char *compi_io_weight_name(int w)
{
    static const char *const names[COMPI_IO_WEIGHT_COUNT] = {"bytes", "blocks"};
    return w >= 0 && w < COMPI_IO_WEIGHT_COUNT ? names[w] : "?";
}
int compi_parse_io_weight(const char *s, int *out)
{
    for (int w = 0; w < COMPI_IO_WEIGHT_COUNT; w++)
        if (strcmp(s, compi_io_weight_name(w)) == 0) {
            *out = w;
            return COMPI_OK;
        }
    return COMPI_ERR_CONFIG;
}
static int set_io_weight(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_io_weight(v, &c->io_weight) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; valid values: " COMPI_IO_WEIGHT_NAMES);
}
static int set_io_gate(compi_config *c, const char *v, char *why, size_t whylen)
{
    if (strcmp(v, "on") == 0) c->io_gate = 1;
    else if (strcmp(v, "off") == 0) c->io_gate = 0;
    else return COMPI_BAD("is not valid; valid values: on, off");
    return COMPI_OK;
}
static int set_nbc_node_reduce(compi_config *c, const char *v, char *why, size_t whylen)
{
    if (strcmp(v, "on") == 0) c->nbc_node_reduce = 1;
    else if (strcmp(v, "off") == 0) c->nbc_node_reduce = 0;
    else return COMPI_BAD("is not valid; valid values: on, off");
    return COMPI_OK;
}
static int set_reeval(compi_config *c, const char *v, char *why, size_t whylen)
{
    int n;
    if (compi_parse_int(v, 1, 1 << 30, &n) != COMPI_OK)
        return COMPI_BAD("is not valid; expected a positive message count (default 1000)");
    c->window.reeval_after = c->window.recheck_after = (unsigned)n;
    return COMPI_OK;
}
static int set_reeval_bytes(compi_config *c, const char *v, char *why, size_t whylen)
{
    size_t n;
    if (compi_parse_size(v, &n) != COMPI_OK || n == 0)
        return COMPI_BAD("is not valid; expected a positive byte count such as 16M (default)");
    c->window.reeval_bytes = n;
    return COMPI_OK;
}
static int set_mistakes(compi_config *c, const char *v, char *why, size_t whylen)
{
    int n;
    if (compi_parse_int(v, 1, (int)c->window.history, &n) != COMPI_OK)
        return COMPI_BAD("is not valid; expected 1..%u (mistakes among the last %u compressed messages that restart "
                         "the study; default 4)",
                         c->window.history, c->window.history);
    c->window.restart_mistakes = (unsigned)n;
    return COMPI_OK;
}
static int set_backoff(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_double(v, 0, 86400, &c->window.backoff_s) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected seconds from 0 to 86400 (default 10)");
}
static int set_min_speedup(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_double(v, 0.5, 100, &c->min_speedup) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected a number from 0.5 to 100 (default 1.05)");
}
static int set_sample(compi_config *c, const char *v, char *why, size_t whylen)
{
    size_t n;
    if (compi_parse_size(v, &n) != COMPI_OK || n < 1024 || n > (64u << 20))
        return COMPI_BAD("is not valid; expected a byte count from 1K to 64M (default 64K)");
    c->sample_bytes = n;
    return COMPI_OK;
}
static int set_refresh(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_int(v, 0, 1, &c->refresh) == COMPI_OK ? COMPI_OK : COMPI_BAD("is not valid; valid values: 0, 1");
}
static int set_trace_max(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_size(v, &c->trace_max) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected a byte count such as 64M");
}
static int set_level(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_int(v, -100, 22, &c->level) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected an integer from -100 to 22 (0 = codec default)");
}
static int set_verbose(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_int(v, 0, 3, &c->verbose) == COMPI_OK ? COMPI_OK
                                                             : COMPI_BAD("is not valid; valid values: 0, 1, 2, 3");
}
static int set_escape_wait(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_double(v, 0.001, 86400, &c->escape_wait_s) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected seconds from 0.001 to 86400 (default 60)");
}
static int set_chunk_wait(compi_config *c, const char *v, char *why, size_t whylen)
{
    double w;
    if (compi_parse_double(v, 0, 86400, &w) != COMPI_OK || (w > 0 && w < 0.001))
        return COMPI_BAD("is not valid; expected 0 (no limit, the default) or seconds from 0.001 to 86400");
    c->chunk_wait_s = w;
    return COMPI_OK;
}
static int set_chunk(compi_config *c, const char *v, char *why, size_t whylen)
{
    size_t n;
    if (strcmp(v, "auto") == 0) c->chunk = 0;
    else if (strcmp(v, "off") == 0) c->chunk = COMPI_CHUNK_OFF;
    else if (compi_parse_size(v, &n) == COMPI_OK && n >= 4096 && n <= (64u << 20) && (n & (n - 1)) == 0) c->chunk = n;
    else return COMPI_BAD("is not valid; expected auto (from the link model), off, or a power of two from 4K to 64M");
    return COMPI_OK;
}
static int set_coll_leaders(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_leaders_policy(v, &c->coll_leaders) == 0
               ? COMPI_OK
               : COMPI_BAD("is not valid; valid values: " COMPI_LEADERS_POLICY_NAMES);
}
static int set_ranks_per_node(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_int(v, 0, 1 << 30, &c->ranks_per_node) == COMPI_OK
               ? COMPI_OK
               : COMPI_BAD("is not valid; expected 0 (real nodes) or a positive rank count");
}

static int set_probe(compi_config *c, const char *v, char *why, size_t whylen)
{
    return compi_parse_int(v, 0, 1, &c->probe) == COMPI_OK ? COMPI_OK : COMPI_BAD("is not valid; valid values: 0, 1");
}
static int set_debug_link(compi_config *c, const char *v, char *why, size_t whylen)
{
    double a, b, d = 0, e = 0;
    int k = 0, used = 0;
    c->debug_link.set = 0;
    if (!*v) return COMPI_OK;
    int got = sscanf(v, "%lf,%lf%n,%d%n,%lf%n,%lf%n", &a, &b, &used, &k, &used, &d, &used, &e, &used);
    if (got < 2 || v[used] || !(a >= 0 && a <= 1e6) || !(b >= 0 && b <= 1e6) || k < 0 || !(d >= 0 && d <= 1e12) ||
        !(e >= 0 && e <= 1e6))
        return COMPI_BAD("is not valid; expected A,B or A,B,K or A,B,K,D or A,B,K,D,C: latency in us (0 to 1e6), ns "
                         "per byte (0 to 1e6), every K-th timing 50x slower (K >= 0), a burst of D bytes passed at "
                         "once (0 to 1e12), a sender coding C ns per byte (0 to 1e6)");
    c->debug_link.set = 1;
    c->debug_link.alpha_us = a;
    c->debug_link.beta_ns = b;
    c->debug_link.outlier_every = got > 2 ? k : 0;
    c->debug_link.burst_bytes = got > 3 ? d : 0;
    c->debug_link.code_ns = got > 4 ? e : 0;
    return COMPI_OK;
}

static int set_threads(compi_config *c, const char *v, char *why, size_t whylen)
{
    if (strcmp(v, "auto") == 0) c->threads = COMPI_THREADS_AUTO;
    else if (compi_parse_int(v, 0, 64, &c->threads) != COMPI_OK)
        return COMPI_BAD(
            "is not valid; expected auto (from the cores the rank may use) or a helper count from 0 to 64");
    return COMPI_OK;
}

typedef struct {
    compi_setting pub;
    compi_setter set; /* NULL: a path, stored at path_off */
    size_t path_off;
} compi_setting_def;

#define PATH_AT(field) NULL, offsetof(compi_config, field)
static const compi_setting_def compi_settings[COMPI_SET_COUNT] = {
    [COMPI_SET_MODE] = {{"mode", "COMPI_MODE", "adaptive", 0}, set_mode, 0},
    [COMPI_SET_CODEC] = {{"codec", "COMPI_CODEC", "lz4", 0}, set_codec, 0},
    [COMPI_SET_MIN_BYTES] = {{"min_bytes", "COMPI_MIN_BYTES", "2048", 0}, set_min_bytes, 0},
    [COMPI_SET_HEURISTICS] = {{"heuristics", "COMPI_HEURISTICS", "", 1}, PATH_AT(heuristics_dir)},
    [COMPI_SET_CALIBRATE] = {{"calibrate", "COMPI_CALIBRATE", "off", 0}, set_calibrate, 0},
    [COMPI_SET_ADAPT_REEVAL] = {{"adapt_reeval", "COMPI_ADAPT_REEVAL", "1000", 0}, set_reeval, 0},
    [COMPI_SET_ADAPT_REEVAL_BYTES] = {{"adapt_reeval_bytes", "COMPI_ADAPT_REEVAL_BYTES", "16M", 0},
                                      set_reeval_bytes,
                                      0},
    [COMPI_SET_ADAPT_MISTAKES] = {{"adapt_mistakes", "COMPI_ADAPT_MISTAKES", "4", 0}, set_mistakes, 0},
    [COMPI_SET_ADAPT_BACKOFF] = {{"adapt_backoff", "COMPI_ADAPT_BACKOFF", "10", 0}, set_backoff, 0},
    [COMPI_SET_ADAPT_MIN_SPEEDUP] = {{"adapt_min_speedup", "COMPI_ADAPT_MIN_SPEEDUP", "1.05", 0}, set_min_speedup, 0},
    [COMPI_SET_ADAPT_SAMPLE] = {{"adapt_sample", "COMPI_ADAPT_SAMPLE", "64K", 0}, set_sample, 0},
    [COMPI_SET_ADAPT_REFRESH] = {{"adapt_refresh", "COMPI_ADAPT_REFRESH", "1", 0}, set_refresh, 0},
    [COMPI_SET_TRACE] = {{"trace", "COMPI_TRACE", "", 1}, PATH_AT(trace_dir)},
    [COMPI_SET_TRACE_MAX] = {{"trace_max", "COMPI_TRACE_MAX", "64M", 0}, set_trace_max, 0},
    [COMPI_SET_RULES] = {{"rules", "COMPI_RULES", "", 1}, PATH_AT(rules_dir)},
    [COMPI_SET_LEVEL] = {{"level", "COMPI_LEVEL", "0", 0}, set_level, 0},
    [COMPI_SET_REPORT] = {{"report", "COMPI_REPORT", "", 1}, PATH_AT(report_path)},
    [COMPI_SET_VERBOSE] = {{"verbose", "COMPI_VERBOSE", "0", 0}, set_verbose, 0},
    [COMPI_SET_ESCAPE_WAIT] = {{"escape_wait", "COMPI_ESCAPE_WAIT", "60", 0}, set_escape_wait, 0},
    [COMPI_SET_CHUNK_WAIT] = {{"chunk_wait", "COMPI_CHUNK_WAIT", "0", 0}, set_chunk_wait, 0},
    [COMPI_SET_CHUNK] = {{"chunk", "COMPI_CHUNK", "auto", 0}, set_chunk, 0},
    [COMPI_SET_COLL_LEADERS] = {{"coll_leaders", "COMPI_COLL_LEADERS", "auto", 0}, set_coll_leaders, 0},
    [COMPI_SET_IO_AGGREGATORS] = {{"io_aggregators", "COMPI_IO_AGGREGATORS", "mpi", 0}, set_io_aggregators, 0},
    [COMPI_SET_IO_WEIGHT] = {{"io_weight", "COMPI_IO_WEIGHT", "bytes", 0}, set_io_weight, 0},
    [COMPI_SET_IO_GATE] = {{"io_gate", "COMPI_IO_GATE", "on", 0}, set_io_gate, 0},
    [COMPI_SET_DEBUG_RANKS_PER_NODE] = {{"debug_ranks_per_node", "COMPI_DEBUG_RANKS_PER_NODE", "0", 0},
                                        set_ranks_per_node,
                                        0},
    [COMPI_SET_ADAPT_PROBE] = {{"adapt_probe", "COMPI_ADAPT_PROBE", "1", 0}, set_probe, 0},
    [COMPI_SET_DEBUG_LINK_TIMES] = {{"debug_link_times", "COMPI_DEBUG_LINK_TIMES", "", 0}, set_debug_link, 0},
    [COMPI_SET_THREADS] = {{"threads", "COMPI_THREADS", "auto", 0}, set_threads, 0},
    [COMPI_SET_NBC_NODE_REDUCE] = {{"nbc_node_reduce", "COMPI_NBC_NODE_REDUCE", "on", 0}, set_nbc_node_reduce, 0},
};

size_t compi_setting_count(void)
{
    return COMPI_SET_COUNT;
}
const compi_setting *compi_setting_at(size_t i)
{
    return i < COMPI_SET_COUNT ? &compi_settings[i].pub : NULL;
}

/* The environment variables libcompi reads besides the settings. */
static const char *const compi_other_vars[] = {"COMPI_CONFIG", NULL};

static void compi_config_defaults(compi_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = COMPI_MODE_ADAPTIVE;
    cfg->codec = compi_codec_by_name("lz4");
    cfg->min_bytes = 2048;
    cfg->escape_wait_s = 60;
    cfg->io_gate = 1;
    cfg->nbc_node_reduce = 1;
    cfg->threads = COMPI_THREADS_AUTO;
    compi_window_params_default(&cfg->window);
    cfg->min_speedup = 1.05;
    cfg->sample_bytes = 64 * 1024;
    cfg->refresh = 1;
    cfg->probe = 1;
    cfg->trace_max = 64u << 20;
}

/* The one way a value reaches the configuration, from a file or the
 * environment. base_dir: a relative path is taken relative to it (files);
 * NULL keeps it as given (environment: relative to the working directory).
 * Fills why with what follows "'<value>' " on a bad value. */
static int compi_setting_apply(compi_config *cfg, size_t i, const char *v, const char *base_dir, char *why,
                               size_t whylen)
{
    const compi_setting_def *d = &compi_settings[i];
    if (d->set) {
        if (strlen(v) >= sizeof cfg->src[i].text) return COMPI_BAD("is too long to be valid");
        if (d->set(cfg, v, why, whylen) != COMPI_OK) return COMPI_ERR_CONFIG;
        strcpy(cfg->src[i].text, v);
        return COMPI_OK;
    }
    char *dst = (char *)cfg + d->path_off;
    int n = base_dir && v[0] != '/' ? snprintf(dst, COMPI_CONFIG_PATH_MAX, "%s/%s", base_dir, v)
                                    : snprintf(dst, COMPI_CONFIG_PATH_MAX, "%s", v);
    if (n < 0 || n >= COMPI_CONFIG_PATH_MAX) {
        dst[0] = 0;
        return COMPI_BAD("is not valid: the path is longer than %d bytes", COMPI_CONFIG_PATH_MAX - 1);
    }
    return COMPI_OK;
}

static int compi_setting_find(const char *key)
{
    for (size_t i = 0; i < COMPI_SET_COUNT; i++)
        if (strcmp(key, compi_settings[i].pub.key) == 0) return (int)i;
    return -1;
}

static void compi_valid_keys(char *out, size_t cap)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < COMPI_SET_COUNT && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", compi_settings[i].pub.key);
}

static char *compi_trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

/* Parses one configuration file into cfg (origin: where its values come
 * from). A missing file is not an error unless must_exist. */
static int compi_config_read_file(compi_config *cfg, const char *path, compi_config_origin origin, int must_exist,
                                  int *read, int *nset, char *err, size_t errlen)
{
    *read = 0;
    int missing = 0;
    char oerr[600];
    FILE *f = compi_file_open_read(path, &missing, oerr, sizeof oerr);
    if (!f) {
        if (missing && !must_exist) return COMPI_OK;
        if (missing) snprintf(err, errlen, "configuration file %s: %s", path, strerror(ENOENT));
        else snprintf(err, errlen, "configuration file %s", oerr);
        return COMPI_ERR_CONFIG;
    }
    *read = 1;
    /* relative paths in the file are relative to its directory */
    char dir[COMPI_CONFIG_PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int seen_line[COMPI_SET_COUNT] = {0};
    char buf[4096], why[512];
    int lineno = 0, rc = COMPI_OK;
    while (rc == COMPI_OK && fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno, sizeof buf - 2);
            rc = COMPI_ERR_CONFIG;
            break;
        }
        char *line = compi_trim(buf);
        if (!*line || *line == '#') continue;
        char *eq = strchr(line, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value', got '%.200s'", path, lineno, line);
            rc = COMPI_ERR_CONFIG;
            break;
        }
        *eq = 0;
        char *key = compi_trim(line), *val = compi_trim(eq + 1);
        int i = compi_setting_find(key);
        if (i < 0) {
            char keys[512], hint[160] = "";
            size_t best = 3;
            compi_valid_keys(keys, sizeof keys);
            for (size_t k = 0; k < COMPI_SET_COUNT; k++) {
                const compi_setting *s = &compi_settings[k].pub;
                if (strcmp(key, s->env) == 0) {
                    snprintf(hint, sizeof hint, " (files use the names without COMPI_, in lower case: write '%s')",
                             s->key);
                    break;
                }
                size_t dist = compi_edit_distance(key, strlen(key), s->key);
                if (dist < best) { /* the nearest key, if one or two edits away */
                    best = dist;
                    snprintf(hint, sizeof hint, " (did you mean '%s'?)", s->key);
                }
            }
            snprintf(err, errlen, "%s:%d: unknown key '%.64s'%s; valid keys: %s", path, lineno, key, hint, keys);
            rc = COMPI_ERR_CONFIG;
            break;
        }
        if (seen_line[i]) {
            snprintf(err, errlen, "%s:%d: key '%s' is set twice in this file (first on line %d)", path, lineno, key,
                     seen_line[i]);
            rc = COMPI_ERR_CONFIG;
            break;
        }
        seen_line[i] = lineno;
        if (!*val) {
            snprintf(err, errlen, "%s:%d: key '%s' has no value (remove the line to keep the %s)", path, lineno, key,
                     origin == COMPI_FROM_SYSTEM ? "default" : "value from the files before it");
            rc = COMPI_ERR_CONFIG;
            break;
        }
        if (compi_setting_apply(cfg, (size_t)i, val, dir, why, sizeof why) != COMPI_OK) {
            snprintf(err, errlen, "%s:%d: key '%s': '%.200s' %s", path, lineno, key, val, why);
            rc = COMPI_ERR_CONFIG;
            break;
        }
        cfg->src[i].origin = origin;
        cfg->src[i].line = lineno;
        if (nset) (*nset)++;
    }
    if (rc == COMPI_OK && ferror(f)) {
        snprintf(err, errlen, "configuration file %s: read error", path);
        rc = COMPI_ERR_CONFIG;
    }
    fclose(f);
    return rc;
}

/* A relative path names a file in the working directory; messages and
 * `compi config` show where that was. */
static void compi_absolute(const char *path, char *out, size_t cap)
{
    char cwd[COMPI_CONFIG_PATH_MAX];
    int n = path[0] != '/' && getcwd(cwd, sizeof cwd) ? snprintf(out, cap, "%s/%s", cwd, path)
                                                      : snprintf(out, cap, "%s", path);
    if (n < 0 || (size_t)n >= cap) out[0] = 0; /* too long to name: no file */
}

static void compi_user_file(compi_config *cfg)
{
    const char *v = getenv("COMPI_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    cfg->user_file[0] = 0;
    if (v && *v) {
        compi_absolute(v, cfg->user_file, sizeof cfg->user_file);
        cfg->user_from_env = 1;
    } else if (xdg && xdg[0] == '/') { /* the XDG spec ignores relative values */
        snprintf(cfg->user_file, sizeof cfg->user_file, "%s/compi/compi.conf", xdg);
    } else if (home && *home) {
        snprintf(cfg->user_file, sizeof cfg->user_file, "%s/.config/compi/compi.conf", home);
    }
}

int compi_config_load(compi_config *cfg, const char *system_file, char *err, size_t errlen)
{
    char why[512];
    compi_config_defaults(cfg);
    err[0] = 0;
    if (system_file && *system_file) {
        compi_absolute(system_file, cfg->system_file, sizeof cfg->system_file);
        if (compi_config_read_file(cfg, cfg->system_file, COMPI_FROM_SYSTEM, 0, &cfg->system_read, NULL, err, errlen) !=
            COMPI_OK)
            return COMPI_ERR_CONFIG;
    }
    compi_user_file(cfg);
    if (cfg->user_file[0] && compi_config_read_file(cfg, cfg->user_file, COMPI_FROM_USER, cfg->user_from_env,
                                                    &cfg->user_read, NULL, err, errlen) != COMPI_OK) {
        if (cfg->user_from_env && !cfg->user_read) { /* name the variable that asked for it */
            char inner[600];
            snprintf(inner, sizeof inner, "%s", err);
            snprintf(err, errlen, "COMPI_CONFIG: %s", inner);
        }
        return COMPI_ERR_CONFIG;
    }
    /* the environment, through the same parsers; empty means unset */
    for (size_t i = 0; i < COMPI_SET_COUNT; i++) {
        const char *v = getenv(compi_settings[i].pub.env);
        if (!v || !*v) continue;
        if (compi_setting_apply(cfg, i, v, NULL, why, sizeof why) != COMPI_OK) {
            snprintf(err, errlen, "%s='%.200s' %s", compi_settings[i].pub.env, v, why);
            return COMPI_ERR_CONFIG;
        }
        cfg->src[i].origin = COMPI_FROM_ENV;
        cfg->src[i].line = 0;
    }
    cfg->window.floor = cfg->min_bytes;
    char from[COMPI_CONFIG_PATH_MAX + 64];
    if ((cfg->mode == COMPI_MODE_TRACE || cfg->mode == COMPI_MODE_PROFILE) && !cfg->trace_dir[0]) {
        compi_config_origin_text(cfg, COMPI_SET_MODE, from, sizeof from);
        snprintf(
            err, errlen,
            "mode %s (from %s) needs a trace directory: COMPI_TRACE=<dir> or 'trace = <dir>' in a configuration file",
            compi_mode_name(cfg->mode), from);
        return COMPI_ERR_CONFIG;
    }
    if (cfg->mode == COMPI_MODE_GUIDED && !cfg->rules_dir[0]) {
        compi_config_origin_text(cfg, COMPI_SET_MODE, from, sizeof from);
        snprintf(err, errlen,
                 "mode guided (from %s) needs the directory written by compi guide: COMPI_RULES=<dir> or 'rules = "
                 "<dir>' in a configuration file",
                 from);
        return COMPI_ERR_CONFIG;
    }
    /* A COMPI_ name one or two edits away from a library variable is a typo
     * that would silently run the wrong experiment. */
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "COMPI_", 6) != 0) continue;
        size_t n = strcspn(*e, "="), best = 99;
        const char *near = NULL;
        for (size_t k = 0; k < COMPI_SET_COUNT + 1 && best; k++) {
            const char *name = k < COMPI_SET_COUNT ? compi_settings[k].pub.env : compi_other_vars[0];
            size_t d = compi_edit_distance(*e, n, name);
            if (d < best) best = d, near = name;
        }
        if (best > 0 && best <= 2) {
            snprintf(err, errlen, "unknown variable %.*s: did you mean %s?", (int)n, *e, near);
            return COMPI_ERR_CONFIG;
        }
    }
    return COMPI_OK;
}

int compi_config_check_file(const char *path, int *nset, char *err, size_t errlen)
{
    compi_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        snprintf(err, errlen, "out of memory");
        return COMPI_ERR_NOMEM;
    }
    compi_config_defaults(cfg);
    int read = 0;
    *nset = 0;
    err[0] = 0;
    int rc = compi_config_read_file(cfg, path, COMPI_FROM_USER, 1, &read, nset, err, errlen);
    free(cfg);
    return rc;
}

int compi_config_system_path(const char *binary_path, char *out, size_t cap)
{
    char dir[COMPI_CONFIG_PATH_MAX], real[PATH_MAX];
    /* a symlink to the library (/usr/lib/libcompi.so -> /opt/compi/lib/...)
     * belongs to the installation it points into */
    if (realpath(binary_path, real) && strlen(real) < sizeof dir) strcpy(dir, real);
    else compi_absolute(binary_path, dir, sizeof dir);
    /* strip the file name, then lib/ or bin/ (or libexec/compi/) */
    char *s = strrchr(dir, '/');
    if (!s) return COMPI_ERR_CONFIG;
    *s = 0;
    size_t n = strlen(dir);
    static const char tail[] = "/libexec/compi";
    if (n >= sizeof tail - 1 && strcmp(dir + n - (sizeof tail - 1), tail) == 0) dir[n - (sizeof tail - 1)] = 0;
    else if ((s = strrchr(dir, '/'))) *s = 0;
    else return COMPI_ERR_CONFIG;
    int w = snprintf(out, cap, "%s/etc/compi/compi.conf", dir);
    return w < 0 || (size_t)w >= cap ? COMPI_ERR_CONFIG : COMPI_OK;
}

const char *compi_config_value(const compi_config *cfg, size_t i)
{
    if (i >= COMPI_SET_COUNT) return "";
    const compi_setting_def *d = &compi_settings[i];
    if (!d->set) return (const char *)cfg + d->path_off;
    return cfg->src[i].origin == COMPI_FROM_DEFAULT ? d->pub.dflt : cfg->src[i].text;
}

void compi_config_origin_text(const compi_config *cfg, size_t i, char *out, size_t cap)
{
    if (i >= COMPI_SET_COUNT) {
        snprintf(out, cap, "?");
        return;
    }
    switch (cfg->src[i].origin) {
    case COMPI_FROM_SYSTEM: snprintf(out, cap, "%s:%d", cfg->system_file, cfg->src[i].line); break;
    case COMPI_FROM_USER: snprintf(out, cap, "%s:%d", cfg->user_file, cfg->src[i].line); break;
    case COMPI_FROM_ENV: snprintf(out, cap, "environment (%s)", compi_settings[i].pub.env); break;
    default: snprintf(out, cap, "default"); break;
    }
}
