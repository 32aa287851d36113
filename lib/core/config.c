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
    "COMPI_VERBOSE", "COMPI_DEBUG_RANKS_PER_NODE", NULL
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

int compi_parse_mode(const char *s, compi_mode *out)
{
    if (strcmp(s, "off") == 0) *out = COMPI_MODE_OFF;
    else if (strcmp(s, "fixed") == 0) *out = COMPI_MODE_FIXED;
    else return COMPI_ERR_CONFIG;
    return COMPI_OK;
}

int compi_config_load(compi_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = COMPI_MODE_OFF;
    cfg->codec = compi_codec_by_name("lz4");
    cfg->min_bytes = 2048;
    err[0] = 0;

    const char *v = getenv("COMPI_MODE");
    if (v && *v) {
        if (compi_parse_mode(v, &cfg->mode) != COMPI_OK) {
            snprintf(err, errlen, "COMPI_MODE='%s' is not valid; valid values: off, fixed", v);
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
