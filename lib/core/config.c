/* COMPI_* environment parsing. Bad values are fatal at MPI_Init: a typo must
 * not silently run an experiment with the wrong settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>
#include "core/internal.h"

compi_config compi_cfg;

extern char **environ;

static const char *const compi_known_vars[] = {
    "COMPI_MODE", "COMPI_CODEC", "COMPI_MIN_BYTES", "COMPI_LEVEL", "COMPI_REPORT",
    "COMPI_VERBOSE", "COMPI_DEBUG_RANKS_PER_NODE", "COMPI_HEURISTICS", "COMPI_CALIBRATE",
    "COMPI_ADAPT_REEVAL", "COMPI_ADAPT_REEVAL_BYTES", "COMPI_ADAPT_MISTAKES", "COMPI_ADAPT_BACKOFF", "COMPI_ADAPT_MIN_SPEEDUP",
    "COMPI_ADAPT_SAMPLE", "COMPI_ADAPT_REFRESH", "COMPI_TRACE", "COMPI_TRACE_MAX", "COMPI_RULES", "COMPI_ESCAPE_WAIT", NULL
};

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

static const char *const compi_mode_names[COMPI_MODE_COUNT] = {"off", "fixed", "adaptive", "trace", "guided"};

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

static int compi_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return COMPI_ERR_CONFIG;
    *out = v;
    return COMPI_OK;
}

static int compi_copy_path(const char *var, const char *v, char *dst, size_t cap, char *err, size_t errlen)
{
    if (strlen(v) >= cap) {
        snprintf(err, errlen, "%s path is longer than %zu bytes", var, cap - 1);
        return COMPI_ERR_CONFIG;
    }
    strcpy(dst, v);
    return COMPI_OK;
}

/* The adaptive engine's tunables; defaults in compi_window_params_default. */
static int compi_config_load_engine(compi_config *cfg, char *err, size_t errlen)
{
    const char *v;
    int n;
    compi_window_params_default(&cfg->window);
    cfg->window.floor = cfg->min_bytes;
    cfg->min_speedup = 1.05;
    cfg->sample_bytes = 64 * 1024;
    cfg->refresh = 1;
    cfg->trace_max = 64u << 20;
    if ((v = getenv("COMPI_HEURISTICS")) && *v &&
        compi_copy_path("COMPI_HEURISTICS", v, cfg->heuristics_dir, sizeof cfg->heuristics_dir, err, errlen))
        return COMPI_ERR_CONFIG;
    if ((v = getenv("COMPI_CALIBRATE")) && *v) {
        if (strcmp(v, "init") == 0) cfg->calibrate_init = 1;
        else if (strcmp(v, "off") != 0) {
            snprintf(err, errlen, "COMPI_CALIBRATE='%s' is not valid; valid values: off, init", v);
            return COMPI_ERR_CONFIG;
        }
    }
    if ((v = getenv("COMPI_ADAPT_REEVAL")) && *v) {
        if (compi_parse_int(v, 1, 1 << 30, &n) != COMPI_OK) {
            snprintf(err, errlen, "COMPI_ADAPT_REEVAL='%s' is not valid; expected a positive message count (default 1000)", v);
            return COMPI_ERR_CONFIG;
        }
        cfg->window.reeval_after = cfg->window.recheck_after = (unsigned)n;
    }
    if ((v = getenv("COMPI_ADAPT_REEVAL_BYTES")) && *v &&
        (compi_parse_size(v, &cfg->window.reeval_bytes) != COMPI_OK || cfg->window.reeval_bytes == 0)) {
        snprintf(err, errlen, "COMPI_ADAPT_REEVAL_BYTES='%s' is not valid; expected a positive byte count such as 16M (default)", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_ADAPT_MISTAKES")) && *v) {
        if (compi_parse_int(v, 1, (int)cfg->window.history, &n) != COMPI_OK) {
            snprintf(err, errlen, "COMPI_ADAPT_MISTAKES='%s' is not valid; expected 1..%u (mistakes among the last %u compressed messages that restart the study; default 4)",
                     v, cfg->window.history, cfg->window.history);
            return COMPI_ERR_CONFIG;
        }
        cfg->window.restart_mistakes = (unsigned)n;
    }
    if ((v = getenv("COMPI_ADAPT_BACKOFF")) && *v &&
        compi_parse_double(v, 0, 86400, &cfg->window.backoff_s) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_ADAPT_BACKOFF='%s' is not valid; expected seconds from 0 to 86400 (default 10)", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_ADAPT_MIN_SPEEDUP")) && *v &&
        compi_parse_double(v, 0.5, 100, &cfg->min_speedup) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_ADAPT_MIN_SPEEDUP='%s' is not valid; expected a number from 0.5 to 100 (default 1.05)", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_ADAPT_SAMPLE")) && *v &&
        (compi_parse_size(v, &cfg->sample_bytes) != COMPI_OK || cfg->sample_bytes < 1024 ||
         cfg->sample_bytes > (64u << 20))) {
        snprintf(err, errlen, "COMPI_ADAPT_SAMPLE='%s' is not valid; expected a byte count from 1K to 64M (default 64K)", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_ADAPT_REFRESH")) && *v && compi_parse_int(v, 0, 1, &cfg->refresh) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_ADAPT_REFRESH='%s' is not valid; valid values: 0, 1", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_TRACE")) && *v &&
        compi_copy_path("COMPI_TRACE", v, cfg->trace_dir, sizeof cfg->trace_dir, err, errlen))
        return COMPI_ERR_CONFIG;
    if ((v = getenv("COMPI_TRACE_MAX")) && *v && compi_parse_size(v, &cfg->trace_max) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_TRACE_MAX='%s' is not valid; expected a byte count such as 64M", v);
        return COMPI_ERR_CONFIG;
    }
    if ((v = getenv("COMPI_RULES")) && *v &&
        compi_copy_path("COMPI_RULES", v, cfg->rules_dir, sizeof cfg->rules_dir, err, errlen))
        return COMPI_ERR_CONFIG;
    if (cfg->mode == COMPI_MODE_TRACE && !cfg->trace_dir[0]) {
        snprintf(err, errlen, "COMPI_MODE=trace needs COMPI_TRACE=<directory for the trace files>");
        return COMPI_ERR_CONFIG;
    }
    if (cfg->mode == COMPI_MODE_GUIDED && !cfg->rules_dir[0]) {
        snprintf(err, errlen, "COMPI_MODE=guided needs COMPI_RULES=<directory written by compi guide>");
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

int compi_config_load(compi_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = COMPI_MODE_ADAPTIVE;
    cfg->codec = compi_codec_by_name("lz4");
    cfg->min_bytes = 2048;
    err[0] = 0;

    const char *v = getenv("COMPI_MODE");
    if (v && *v) {
        if (compi_parse_mode(v, &cfg->mode) != COMPI_OK) {
            snprintf(err, errlen, "COMPI_MODE='%s' is not valid; valid values: " COMPI_MODE_NAMES, v);
            return COMPI_ERR_CONFIG;
        }
    }
    v = getenv("COMPI_CODEC");
    if (v && *v) {
        cfg->codec = compi_codec_by_name(v);
        if (!cfg->codec) {
            snprintf(err, errlen, "COMPI_CODEC='%s' is not a known codec; valid values: %s", v,
                     compi_codec_names());
            return COMPI_ERR_CONFIG;
        }
    }
    v = getenv("COMPI_MIN_BYTES");
    if (v && *v && compi_parse_size(v, &cfg->min_bytes) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_MIN_BYTES='%s' is not valid; expected a byte count such as 0, 2048, 64K, 1M", v);
        return COMPI_ERR_CONFIG;
    }
    v = getenv("COMPI_LEVEL");
    if (v && *v && compi_parse_int(v, -100, 22, &cfg->level) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_LEVEL='%s' is not valid; expected an integer from -100 to 22 (0 = codec default)", v);
        return COMPI_ERR_CONFIG;
    }
    v = getenv("COMPI_VERBOSE");
    if (v && *v && compi_parse_int(v, 0, 3, &cfg->verbose) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_VERBOSE='%s' is not valid; valid values: 0, 1, 2, 3", v);
        return COMPI_ERR_CONFIG;
    }
    cfg->escape_wait_s = 60;
    v = getenv("COMPI_ESCAPE_WAIT");
    if (v && *v && compi_parse_double(v, 0.001, 86400, &cfg->escape_wait_s) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_ESCAPE_WAIT='%s' is not valid; expected seconds from 0.001 to 86400 (default 60)", v);
        return COMPI_ERR_CONFIG;
    }
    v = getenv("COMPI_DEBUG_RANKS_PER_NODE");
    if (v && *v && compi_parse_int(v, 0, 1 << 30, &cfg->ranks_per_node) != COMPI_OK) {
        snprintf(err, errlen, "COMPI_DEBUG_RANKS_PER_NODE='%s' is not valid; expected 0 (real nodes) or a positive rank count", v);
        return COMPI_ERR_CONFIG;
    }
    v = getenv("COMPI_REPORT");
    if (v && *v) {
        if (strlen(v) >= sizeof cfg->report_path) {
            snprintf(err, errlen, "COMPI_REPORT path is longer than %zu bytes", sizeof cfg->report_path - 1);
            return COMPI_ERR_CONFIG;
        }
        strcpy(cfg->report_path, v);
    }
    if (compi_config_load_engine(cfg, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    /* A COMPI_ name one or two edits away from a library variable is a typo
     * that would silently run the wrong experiment. */
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "COMPI_", 6) != 0) continue;
        size_t n = strcspn(*e, "=");
        int known = 0;
        for (const char *const *k = compi_known_vars; *k; k++)
            if (compi_edit_distance(*e, n, *k) == 0) known = 1;
        for (const char *const *k = compi_known_vars; *k && !known; k++) {
            size_t d = compi_edit_distance(*e, n, *k);
            if (d > 0 && d <= 2) {
                snprintf(err, errlen, "unknown variable %.*s: did you mean %s?", (int)n, *e, *k);
                return COMPI_ERR_CONFIG;
            }
        }
    }
    return COMPI_OK;
}
