/* SPDX-License-Identifier: BSD-3-Clause */
/* Network and codec models: evaluation, built-in defaults, heuristics files.
 * The file format is documented in docs/heuristics.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/safefile.h"
#include "engine/model.h"

static const char *const compi_class_names[COMPI_CLASS_COUNT] = {"byte", "int", "float", "double"};

const char *compi_dtclass_name(int cls)
{
    return cls >= 0 && cls < COMPI_CLASS_COUNT ? compi_class_names[cls] : "*";
}

int compi_dtclass_parse(const char *s)
{
    if (strcmp(s, "*") == 0) return -1;
    for (int c = 0; c < COMPI_CLASS_COUNT; c++)
        if (strcmp(s, compi_class_names[c]) == 0) return c;
    return -2;
}

/* ------------------------------------------------------------- network */

double compi_net_time_us(const compi_net_link *l, double bytes)
{
    if (bytes <= 0) return l->alpha_us;
    if (l->npoints == 0) return l->alpha_us;
    double beta;
    if (bytes <= l->bytes[0]) {
        beta = l->beta_ns[0];
    } else if (bytes >= l->bytes[l->npoints - 1]) {
        beta = l->beta_ns[l->npoints - 1];
    } else {
        int i = 1;
        while (l->bytes[i] < bytes) i++;
        /* linear in log(size) between the two measured sizes around it */
        double x0 = log(l->bytes[i - 1]), x1 = log(l->bytes[i]), x = log(bytes);
        double w = (x - x0) / (x1 - x0);
        beta = l->beta_ns[i - 1] * (1 - w) + l->beta_ns[i] * w;
    }
    return l->alpha_us + bytes * beta * 1e-3;
}

size_t compi_net_coll_floor(const compi_net_link *l, size_t floor, int extra)
{
    if (floor < 1) floor = 1;
    if (extra < 1) extra = 1;
    while (floor < ((size_t)1 << 40) && compi_net_time_us(l, (double)floor) < 20.0 * extra * l->alpha_us) floor *= 2;
    return floor;
}

static int compi_name_eq(const char *pattern, const char *name)
{
    return strcmp(pattern, name) == 0;
}

const compi_net_link *compi_net_find(const compi_net_model *m, compi_link_class cls, const char *a, const char *b)
{
    const compi_net_link *dflt = NULL;
    for (int i = 0; i < m->nlinks; i++) {
        const compi_net_link *l = &m->links[i];
        if (l->cls != cls) continue;
        if (strcmp(l->node_a, "*") == 0 && strcmp(l->node_b, "*") == 0) {
            if (!dflt) dflt = l;
            continue;
        }
        if (a && b &&
            ((compi_name_eq(l->node_a, a) && compi_name_eq(l->node_b, b)) ||
             (compi_name_eq(l->node_a, b) && compi_name_eq(l->node_b, a))))
            return l;
    }
    return dflt;
}

int compi_net_add(compi_net_model *m, const compi_net_link *l)
{
    compi_net_link *grown = realloc(m->links, (size_t)(m->nlinks + 1) * sizeof *grown);
    if (!grown) return COMPI_ERR_NOMEM;
    m->links = grown;
    m->links[m->nlinks++] = *l;
    return COMPI_OK;
}

static int compi_dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double compi_dbl_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compi_dbl_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int compi_net_theil_sen(int n, const double *x, const double *y, double *slope, double *intercept)
{
    if (n < 2) return COMPI_ERR_CONFIG;
    size_t npairs = (size_t)n * (size_t)(n - 1) / 2, k = 0;
    double *v = malloc((npairs > (size_t)n ? npairs : (size_t)n) * sizeof *v);
    if (!v) return COMPI_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (x[j] != x[i]) v[k++] = (y[j] - y[i]) / (x[j] - x[i]);
    if (k == 0) {
        free(v);
        return COMPI_ERR_CONFIG;
    }
    double b = compi_dbl_median(v, (int)k);
    for (int i = 0; i < n; i++) v[i] = y[i] - b * x[i];
    *slope = b;
    *intercept = compi_dbl_median(v, n);
    free(v);
    return COMPI_OK;
}

const char *compi_net_fit_degenerate(int n, const double *bytes, const double *t_us, double alpha_us, double beta_ns,
                                     char *why, size_t whylen)
{
    if (!(beta_ns > COMPI_NET_FLAT_NS) || !isfinite(beta_ns)) {
        snprintf(why, whylen, "flat or negative slope (%.3g ns/B): the large sizes took no longer than the small ones",
                 beta_ns);
        return why;
    }
    if (!(alpha_us <= COMPI_NET_MAX_ALPHA_US) || !isfinite(alpha_us)) {
        snprintf(why, whylen, "latency %.3g us is beyond %g us", alpha_us, (double)COMPI_NET_MAX_ALPHA_US);
        return why;
    }
    /* a line that most samples disagree with (by more than 2x) describes
     * none of them: descheduled or contended samples dominate */
    int agree = 0;
    for (int i = 0; i < n; i++) {
        double fit = alpha_us + bytes[i] * beta_ns * 1e-3;
        if (t_us[i] <= 2 * fit && 2 * t_us[i] >= fit) agree++;
    }
    if (2 * agree < n) {
        snprintf(why, whylen, "only %d of %d samples within 2x of the fit (latency outliers)", agree, n);
        return why;
    }
    return NULL;
}

/* The robust fit of t = alpha + beta * max(0, S - burst) for one burst:
 * Theil-Sen on the bytes beyond it (x, 2n of room); into *resid the
 * relative residual that 70% of the samples stay within (the fit ignores
 * up to 29% of wild samples: so does its judge, while a wrong knee leaves
 * more than that off the line even where most sizes are small). */
static int compi_fit_beyond(int n, const double *bytes, const double *t_us, double burst, double *x, double *alpha,
                            double *beta, double *resid)
{
    for (int i = 0; i < n; i++) x[i] = bytes[i] > burst ? bytes[i] - burst : 0;
    int rc = compi_net_theil_sen(n, x, t_us, beta, alpha);
    if (rc != COMPI_OK) return rc;
    double *r = x + n;
    for (int i = 0; i < n; i++) {
        double fit = *alpha + *beta * x[i];
        r[i] = t_us[i] > 0 ? fabs(t_us[i] - fit) / t_us[i] : HUGE_VAL;
    }
    qsort(r, (size_t)n, sizeof *r, compi_dbl_cmp);
    *resid = r[(int)(0.7 * (n - 1) + 0.5)];
    return COMPI_OK;
}

int compi_net_fit_steady(int n, const double *bytes, const double *t_us, double *alpha_us, double *beta_ns,
                         double *burst)
{
    if (n < 2) return COMPI_ERR_CONFIG;
    double *x = malloc((size_t)n * 2 * sizeof *x);
    if (!x) return COMPI_ERR_NOMEM;
    double a, b, r;
    int rc = compi_fit_beyond(n, bytes, t_us, 0, x, &a, &b, &r);
    if (rc != COMPI_OK) {
        free(x);
        return rc;
    }
    double best_a = a, best_b = b, best_r = r, plain_r = r, best = 0;
    /* each size a candidate burst that leaves at least 3 samples beyond it;
     * taken only where it explains the samples clearly better (half the
     * residual), so a link without one keeps the plain line */
    for (int c = 0; c < n; c++) {
        int beyond = 0;
        for (int i = 0; i < n; i++) beyond += bytes[i] > bytes[c];
        if (beyond < 3 || bytes[c] <= 0) continue;
        if (compi_fit_beyond(n, bytes, t_us, bytes[c], x, &a, &b, &r) != COMPI_OK) continue;
        if (r < 0.5 * plain_r && r < best_r) {
            best_a = a, best_b = b, best_r = r, best = bytes[c];
        }
    }
    free(x);
    if (best_a < 0) best_a = 0; /* a latency cannot be negative: a slightly negative intercept is noise */
    *alpha_us = best_a;
    *beta_ns = best_b * 1e3;
    *burst = best;
    return COMPI_OK;
}

int compi_net_link_fit(compi_net_link *l, int n, const double *bytes, const double *t_us, char *why, size_t whylen)
{
    return compi_net_link_fit_latency(l, n, bytes, t_us, -1, why, whylen);
}

int compi_net_link_fit_latency(compi_net_link *l, int n, const double *bytes, const double *t_us, double latency_us,
                               char *why, size_t whylen)
{
    double alpha, beta, burst;
    if (n > COMPI_NET_MAX_POINTS) n = COMPI_NET_MAX_POINTS;
    if (n < 3 || compi_net_fit_steady(n, bytes, t_us, &alpha, &beta, &burst) != COMPI_OK) {
        snprintf(why, whylen, "%d samples: too few sizes to fit a latency and a bandwidth", n);
        return COMPI_ERR_CONFIG;
    }
    /* a measured latency beats the intercept: where the sizes take
     * milliseconds, microseconds of jitter, or a bucket that passed part of
     * the smallest size at once, move the intercept by more than the
     * latency itself (to 0, clamped, at 100 Mbit/s) */
    if (latency_us >= 0 && isfinite(latency_us)) alpha = latency_us;
    /* judged as fitted: the bytes beyond the burst */
    double x[COMPI_NET_MAX_POINTS];
    for (int i = 0; i < n; i++) x[i] = bytes[i] > burst ? bytes[i] - burst : 0;
    if (compi_net_fit_degenerate(n, x, t_us, alpha, beta, why, whylen)) return COMPI_ERR_CONFIG;
    l->alpha_us = alpha;
    l->npoints = n;
    for (int i = 0; i < n; i++) {
        /* per size, what is left after the latency, where that is more
         * than noise: never under the steady state (a size that beat it
         * passed in a burst, which messages that follow one another do not
         * find), and the slope where it is an outlier */
        double rest = t_us[i] - alpha, b = rest * 1e3 / bytes[i];
        if (rest < 0.1 * t_us[i] || b < beta || b > beta * 4) b = beta;
        l->bytes[i] = bytes[i];
        l->beta_ns[i] = b;
    }
    return COMPI_OK;
}

static void compi_net_default_link(compi_net_link *l, compi_link_class cls, double alpha_us, double beta_ns)
{
    memset(l, 0, sizeof *l);
    l->cls = cls;
    strcpy(l->node_a, "*");
    strcpy(l->node_b, "*");
    l->alpha_us = alpha_us;
    l->npoints = 1;
    l->bytes[0] = 1;
    l->beta_ns[0] = beta_ns;
}

void compi_net_default(compi_net_model *m)
{
    memset(m, 0, sizeof *m);
    compi_net_link l;
    compi_net_default_link(&l, COMPI_LINK_INTER, 50.0, 8.0);
    compi_net_add(m, &l);
    compi_net_default_link(&l, COMPI_LINK_INTRA, 1.0, 0.2);
    compi_net_add(m, &l);
    snprintf(m->source, sizeof m->source, "built-in default (1 Gbit/s-like: 50 us, 8 ns/B)");
}

void compi_net_free(compi_net_model *m)
{
    free(m->links);
    m->links = NULL;
    m->nlinks = 0;
    free(m->nodes);
    m->nodes = NULL;
    m->nnodes = 0;
}

const compi_net_node *compi_net_node_find(const compi_net_model *m, const char *name)
{
    for (int i = 0; i < m->nnodes; i++)
        if (strcmp(m->nodes[i].name, name) == 0) return &m->nodes[i];
    return NULL;
}

int compi_net_node_set(compi_net_model *m, const compi_net_node *n)
{
    for (int i = 0; i < m->nnodes; i++)
        if (strcmp(m->nodes[i].name, n->name) == 0) {
            m->nodes[i] = *n;
            return COMPI_OK;
        }
    compi_net_node *g = realloc(m->nodes, sizeof *g * (size_t)(m->nnodes + 1));
    if (!g) return COMPI_ERR_NOMEM;
    m->nodes = g;
    m->nodes[m->nnodes++] = *n;
    return COMPI_OK;
}

/* ------------------------------------------------------------- codecs */

double compi_codec_model_d_over_c(const compi_codec_model *m, const compi_codec *c, int cls, double r)
{
    double any = -1;
    for (int i = 0; i < m->nrelations; i++) {
        const compi_codec_relation *x = &m->relations[i];
        if (x->codec != c || r < x->ratio_lo || r >= x->ratio_hi) continue;
        if (x->dtclass == cls) return x->d_over_c;
        if (x->dtclass == -1 && any < 0) any = x->d_over_c;
    }
    return any >= 0 ? any : 1.0;
}

double compi_codec_model_threads_speedup(int helpers, double measured)
{
    if (helpers <= 0) return 1.0;
    /* Before any measurement, a core per helper: the thread count gave the
     * rank those cores. A prior too high is corrected by the first message
     * it sends with a stronger codec (its chunks are coded side by side
     * and measured); one too low would never be, since a fast codec's
     * chunks, coded one at a time ahead of the wire, say nothing about the
     * cores. Once measured, cores shared with other work give less than
     * one more core each. */
    if (measured == 0) return (double)(helpers + 1);
    if (!(measured > 1)) return 1.0;
    return measured < helpers + 1 ? measured : (double)(helpers + 1);
}

/* ------------------------------------------------------------- files */

typedef struct {
    const char *path;
    int line;
    char *err;
    size_t errlen;
} compi_parse_ctx;

static int compi_parse_fail(compi_parse_ctx *p, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, p->line);
    if (n < 0 || (size_t)n >= p->errlen) n = 0;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return COMPI_ERR_CONFIG;
}

static int compi_parse_number(compi_parse_ctx *p, const char *tok, const char *what, double lo, double hi, double *out)
{
    char *end;
    if (!tok) return compi_parse_fail(p, "missing %s", what);
    errno = 0;
    double v = strtod(tok, &end);
    if (errno || end == tok || *end || !isfinite(v)) return compi_parse_fail(p, "%s '%s' is not a number", what, tok);
    if (v < lo || v > hi) return compi_parse_fail(p, "%s %s is out of range [%g, %g]", what, tok, lo, hi);
    *out = v;
    return COMPI_OK;
}

/* Splits a line into at most max whitespace-separated tokens (comments cut). */
static int compi_tokenize(char *line, char **tok, int max)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    int n = 0;
    for (char *s = strtok(line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
        if (n == max) return max + 1;
        tok[n++] = s;
    }
    return n;
}

/* Opens the file and checks the "compi-heuristics 1 <kind>" first line. */
static FILE *compi_heur_open(compi_parse_ctx *p, const char *kind)
{
    FILE *f = compi_file_open_read(p->path, NULL, p->err, p->errlen);
    if (!f) return NULL;
    char line[512], *tok[4];
    p->line = 1;
    if (!fgets(line, sizeof line, f)) {
        compi_parse_fail(p, "empty file; expected 'compi-heuristics 1 %s'", kind);
        fclose(f);
        return NULL;
    }
    int n = compi_tokenize(line, tok, 3);
    if (n != 3 || strcmp(tok[0], "compi-heuristics") != 0 || strcmp(tok[1], "1") != 0 || strcmp(tok[2], kind) != 0) {
        compi_parse_fail(p, "not a compi %s heuristics file: the first line must be 'compi-heuristics 1 %s'", kind,
                         kind);
        fclose(f);
        return NULL;
    }
    return f;
}

/* Reads the next line; returns 0 at EOF, -1 if too long. Keeps the raw text
 * for "source" lines, whose value is free text. */
static int compi_next_line(FILE *f, compi_parse_ctx *p, char *line, size_t cap)
{
    if (!fgets(line, (int)cap, f)) return 0;
    p->line++;
    size_t n = strlen(line);
    if (n == cap - 1 && line[n - 1] != '\n' && !feof(f)) return -1;
    return 1;
}

/* "source <free text>": the value is taken whole, '#' and blanks included. */
static int compi_is_source_line(const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    return strncmp(line, "source", 6) == 0 &&
           (line[6] == ' ' || line[6] == '\t' || line[6] == '\n' || line[6] == '\r' || line[6] == 0);
}

static void compi_copy_source(char *dst, size_t cap, const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    const char *v = line + strlen("source");
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strcspn(v, "\r\n");
    if (n >= cap) n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = 0;
}

static int compi_net_check_link(compi_parse_ctx *p, const compi_net_link *l, int have_alpha)
{
    if (!have_alpha) return compi_parse_fail(p, "link %s-%s has no alpha_us line", l->node_a, l->node_b);
    if (l->npoints == 0) return compi_parse_fail(p, "link %s-%s has no beta lines", l->node_a, l->node_b);
    return COMPI_OK;
}

int compi_net_load(const char *path, compi_net_model *m, char *err, size_t errlen)
{
    compi_parse_ctx p = {path, 0, err, errlen};
    memset(m, 0, sizeof *m);
    FILE *f = compi_heur_open(&p, "network");
    if (!f) return COMPI_ERR_CONFIG;
    char line[512], *tok[8];
    compi_net_link cur;
    int in_link = 0, have_alpha = 0, rc = COMPI_OK, got;
    while (rc == COMPI_OK && (got = compi_next_line(f, &p, line, sizeof line)) != 0) {
        if (got < 0) {
            rc = compi_parse_fail(&p, "line too long");
            break;
        }
        if (compi_is_source_line(line)) {
            compi_copy_source(m->source, sizeof m->source, line);
            continue;
        }
        int n = compi_tokenize(line, tok, 8);
        if (n == 0) continue;
        if (n > 8 || (n > 6 && strcmp(tok[0], "node") != 0)) {
            rc = compi_parse_fail(&p, "too many fields");
            break;
        }
        if (strcmp(tok[0], "node") == 0) {
            /* node NAME packages P cores C pus U (hwloc, outside link blocks) */
            compi_net_node nd;
            double v[3];
            memset(&nd, 0, sizeof nd);
            if (in_link) {
                rc = compi_parse_fail(&p, "'node' inside a link block");
                break;
            }
            if (n != 8 || strcmp(tok[2], "packages") != 0 || strcmp(tok[4], "cores") != 0 ||
                strcmp(tok[6], "pus") != 0) {
                rc = compi_parse_fail(&p, "expected 'node <name> packages <P> cores <C> pus <U>'");
                break;
            }
            if (strlen(tok[1]) >= COMPI_NET_NAME_MAX) {
                rc = compi_parse_fail(&p, "node name longer than %d characters", COMPI_NET_NAME_MAX - 1);
                break;
            }
            for (int k = 0; k < 3 && rc == COMPI_OK; k++)
                rc = compi_parse_number(&p, tok[3 + 2 * k], tok[2 + 2 * k], 1, 1 << 20, &v[k]);
            if (rc == COMPI_OK &&
                (v[0] != (int)v[0] || v[1] != (int)v[1] || v[2] != (int)v[2] || v[1] < v[0] || v[2] < v[1]))
                rc = compi_parse_fail(&p, "node %s: whole numbers with packages <= cores <= pus", tok[1]);
            if (rc == COMPI_OK && compi_net_node_find(m, tok[1]))
                rc = compi_parse_fail(&p, "node %s described twice", tok[1]);
            if (rc != COMPI_OK) break;
            strcpy(nd.name, tok[1]);
            nd.packages = (int)v[0], nd.cores = (int)v[1], nd.pus = (int)v[2];
            if (compi_net_node_set(m, &nd) != COMPI_OK) rc = compi_parse_fail(&p, "out of memory");
            continue;
        }
        if (strcmp(tok[0], "link") == 0) {
            if (in_link) {
                rc = compi_parse_fail(&p, "'link' before the previous link's 'end'");
                break;
            }
            if (n != 4) {
                rc = compi_parse_fail(&p, "expected 'link <intra|inter> <node_a> <node_b>'");
                break;
            }
            memset(&cur, 0, sizeof cur);
            if (strcmp(tok[1], "intra") == 0) cur.cls = COMPI_LINK_INTRA;
            else if (strcmp(tok[1], "inter") == 0) cur.cls = COMPI_LINK_INTER;
            else {
                rc = compi_parse_fail(&p, "link class '%s' is not intra or inter", tok[1]);
                break;
            }
            if (strlen(tok[2]) >= COMPI_NET_NAME_MAX || strlen(tok[3]) >= COMPI_NET_NAME_MAX) {
                rc = compi_parse_fail(&p, "node name longer than %d characters", COMPI_NET_NAME_MAX - 1);
                break;
            }
            if ((strcmp(tok[2], "*") == 0) != (strcmp(tok[3], "*") == 0)) {
                rc = compi_parse_fail(&p, "a class default link names both nodes '*'");
                break;
            }
            strcpy(cur.node_a, tok[2]);
            strcpy(cur.node_b, tok[3]);
            in_link = 1;
            have_alpha = 0;
        } else if (!in_link) {
            rc = compi_parse_fail(&p, "'%s' outside a link block (expected 'link', 'source' or a comment)", tok[0]);
        } else if (strcmp(tok[0], "alpha_us") == 0) {
            if (n != 2) rc = compi_parse_fail(&p, "expected 'alpha_us <microseconds>'");
            else rc = compi_parse_number(&p, tok[1], "alpha_us", 0, 1e7, &cur.alpha_us);
            have_alpha = 1;
        } else if (strcmp(tok[0], "beta") == 0) {
            double b, ns;
            if (n != 3) {
                rc = compi_parse_fail(&p, "expected 'beta <bytes> <ns_per_byte>'");
                break;
            }
            if (cur.npoints == COMPI_NET_MAX_POINTS) {
                rc = compi_parse_fail(&p, "more than %d beta lines in one link", COMPI_NET_MAX_POINTS);
                break;
            }
            rc = compi_parse_number(&p, tok[1], "beta size", 1, 1e12, &b);
            if (rc == COMPI_OK) rc = compi_parse_number(&p, tok[2], "beta ns_per_byte", 0, 1e6, &ns);
            if (rc == COMPI_OK && cur.npoints > 0 && b <= cur.bytes[cur.npoints - 1])
                rc = compi_parse_fail(&p, "beta sizes must increase (%s after %.0f)", tok[1],
                                      cur.bytes[cur.npoints - 1]);
            if (rc == COMPI_OK) {
                cur.bytes[cur.npoints] = b;
                cur.beta_ns[cur.npoints++] = ns;
            }
        } else if (strcmp(tok[0], "end") == 0) {
            if (n != 1) rc = compi_parse_fail(&p, "'end' takes no fields");
            if (rc == COMPI_OK) rc = compi_net_check_link(&p, &cur, have_alpha);
            if (rc == COMPI_OK && compi_net_add(m, &cur) != COMPI_OK) rc = compi_parse_fail(&p, "out of memory");
            in_link = 0;
        } else {
            rc = compi_parse_fail(&p, "unknown keyword '%s' in a link block", tok[0]);
        }
    }
    if (rc == COMPI_OK && in_link) rc = compi_parse_fail(&p, "file ends inside a link block (missing 'end')");
    if (rc == COMPI_OK && m->nlinks == 0) rc = compi_parse_fail(&p, "no link blocks");
    fclose(f);
    if (rc != COMPI_OK) compi_net_free(m);
    return rc;
}

static void compi_write_comment(FILE *f, const char *comment)
{
    while (comment && *comment) {
        size_t n = strcspn(comment, "\n");
        fprintf(f, "# %.*s\n", (int)n, comment);
        comment += n;
        if (*comment) comment++;
    }
}

int compi_net_save(const char *path, const compi_net_model *m, const char *comment, char *err, size_t errlen)
{
    /* replaced whole: a model file another job reads is never half written */
    compi_wfile w;
    if (compi_file_create(&w, path, 0666, COMPI_FILE_REPLACE, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    FILE *f = w.f;
    fprintf(f, "compi-heuristics 1 network\n");
    compi_write_comment(f, comment);
    if (m->source[0]) fprintf(f, "source %s\n", m->source);
    for (int i = 0; i < m->nnodes; i++)
        fprintf(f, "%snode %s packages %d cores %d pus %d\n", i ? "" : "\n", m->nodes[i].name, m->nodes[i].packages,
                m->nodes[i].cores, m->nodes[i].pus);
    for (int i = 0; i < m->nlinks; i++) {
        const compi_net_link *l = &m->links[i];
        fprintf(f, "\nlink %s %s %s\nalpha_us %.3f\n", l->cls == COMPI_LINK_INTRA ? "intra" : "inter", l->node_a,
                l->node_b, l->alpha_us);
        for (int k = 0; k < l->npoints; k++) fprintf(f, "beta %.0f %.6f\n", l->bytes[k], l->beta_ns[k]);
        fprintf(f, "end\n");
    }
    return compi_file_commit(&w, err, errlen);
}

/* A codec line's "<codec> <class|*>" fields: 1 with both set, 0 for a
 * codec this build lacks (the line is skipped), -1 with *rc set. */
static int compi_parse_codec_class(compi_parse_ctx *p, const char *codec, const char *cls, const compi_codec **c,
                                   int *dtclass, int *rc)
{
    *c = compi_codec_by_name(codec);
    if (!*c && compi_codec_not_built(codec)) return 0;
    if (!*c) {
        *rc = compi_parse_fail(p, "unknown codec '%s' (known: %s)", codec, compi_codec_names());
        return -1;
    }
    *dtclass = compi_dtclass_parse(cls);
    if (*dtclass < -1) {
        *rc = compi_parse_fail(p, "'%s' is not a datatype class (byte, int, float, double, *)", cls);
        return -1;
    }
    return 1;
}

int compi_codec_model_load(const char *path, compi_codec_model *m, char *err, size_t errlen)
{
    compi_parse_ctx p = {path, 0, err, errlen};
    memset(m, 0, sizeof *m);
    FILE *f = compi_heur_open(&p, "codecs");
    if (!f) return COMPI_ERR_CONFIG;
    char line[512], *tok[COMPI_MODEL_MAX_CANDIDATES + 3];
    int rc = COMPI_OK, got, seen_class[COMPI_CLASS_COUNT] = {0};
    while (rc == COMPI_OK && (got = compi_next_line(f, &p, line, sizeof line)) != 0) {
        if (got < 0) {
            rc = compi_parse_fail(&p, "line too long");
            break;
        }
        if (compi_is_source_line(line)) {
            compi_copy_source(m->source, sizeof m->source, line);
            continue;
        }
        int max = COMPI_MODEL_MAX_CANDIDATES + 2;
        int n = compi_tokenize(line, tok, max);
        if (n == 0) continue;
        if (strcmp(tok[0], "candidates") == 0) {
            if (n > max) {
                rc = compi_parse_fail(&p, "more than %d candidates", COMPI_MODEL_MAX_CANDIDATES);
                break;
            }
            if (n < 2) {
                rc = compi_parse_fail(&p, "expected 'candidates <class> [codec...]'");
                break;
            }
            int cls = compi_dtclass_parse(tok[1]);
            if (cls < 0) {
                rc = compi_parse_fail(&p, "'%s' is not a datatype class (byte, int, float, double)", tok[1]);
                break;
            }
            if (seen_class[cls]++) {
                rc = compi_parse_fail(&p, "second 'candidates' line for class %s", tok[1]);
                break;
            }
            for (int i = 2; i < n && rc == COMPI_OK; i++) {
                const compi_codec *c = compi_codec_by_name(tok[i]);
                if (!c && compi_codec_not_built(tok[i])) continue; /* written by a build with it */
                if (!c) rc = compi_parse_fail(&p, "unknown codec '%s' (known: %s)", tok[i], compi_codec_names());
                else m->candidates[cls][m->ncandidates[cls]++] = c;
            }
        } else if (strcmp(tok[0], "relation") == 0) {
            compi_codec_relation r;
            if (n != 6) {
                rc = compi_parse_fail(&p, "expected 'relation <codec> <class|*> <ratio_lo> <ratio_hi> <d_over_c>'");
                break;
            }
            if (m->nrelations == COMPI_MODEL_MAX_RELATIONS) {
                rc = compi_parse_fail(&p, "more than %d relation lines", COMPI_MODEL_MAX_RELATIONS);
                break;
            }
            int got_codec = compi_parse_codec_class(&p, tok[1], tok[2], &r.codec, &r.dtclass, &rc);
            if (got_codec <= 0) {
                if (got_codec < 0) break;
                continue; /* written by a build with the codec */
            }
            rc = compi_parse_number(&p, tok[3], "ratio_lo", 0, 1e9, &r.ratio_lo);
            if (rc == COMPI_OK) rc = compi_parse_number(&p, tok[4], "ratio_hi", 0, 1e9, &r.ratio_hi);
            if (rc == COMPI_OK && r.ratio_hi <= r.ratio_lo) rc = compi_parse_fail(&p, "ratio_hi must exceed ratio_lo");
            if (rc == COMPI_OK) rc = compi_parse_number(&p, tok[5], "d_over_c", 1e-4, 1e4, &r.d_over_c);
            if (rc == COMPI_OK) m->relations[m->nrelations++] = r;
        } else if (strcmp(tok[0], "speed") == 0) {
            compi_codec_speed v;
            if (n != 4 && n != 6) {
                rc = compi_parse_fail(&p, "expected 'speed <codec> <class|*> <compress_MB/s> [<ratio_lo> <ratio_hi>]'");
                break;
            }
            if (m->nspeeds == COMPI_MODEL_MAX_SPEEDS) {
                rc = compi_parse_fail(&p, "more than %d speed lines", COMPI_MODEL_MAX_SPEEDS);
                break;
            }
            int got_codec = compi_parse_codec_class(&p, tok[1], tok[2], &v.codec, &v.dtclass, &rc);
            if (got_codec <= 0) {
                if (got_codec < 0) break;
                continue; /* written by a build with the codec */
            }
            rc = compi_parse_number(&p, tok[3], "compress MB/s", 1e-3, 1e9, &v.compress_mbs);
            v.ratio_lo = v.ratio_hi = 0; /* any ratio */
            if (rc == COMPI_OK && n == 6) rc = compi_parse_number(&p, tok[4], "ratio_lo", 0, 1e9, &v.ratio_lo);
            if (rc == COMPI_OK && n == 6) rc = compi_parse_number(&p, tok[5], "ratio_hi", 0, 1e9, &v.ratio_hi);
            if (rc == COMPI_OK && n == 6 && v.ratio_hi <= v.ratio_lo)
                rc = compi_parse_fail(&p, "ratio_hi must exceed ratio_lo");
            if (rc == COMPI_OK) m->speeds[m->nspeeds++] = v;
        } else {
            rc = compi_parse_fail(&p, "unknown keyword '%s' (expected source, candidates, relation or speed)", tok[0]);
        }
    }
    for (int c = 0; rc == COMPI_OK && c < COMPI_CLASS_COUNT; c++)
        if (!seen_class[c]) rc = compi_parse_fail(&p, "no 'candidates' line for class %s", compi_dtclass_name(c));
    fclose(f);
    return rc;
}

int compi_codec_model_save(const char *path, const compi_codec_model *m, const char *comment, char *err, size_t errlen)
{
    /* replaced whole: a model file another job reads is never half written */
    compi_wfile w;
    if (compi_file_create(&w, path, 0666, COMPI_FILE_REPLACE, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    FILE *f = w.f;
    fprintf(f, "compi-heuristics 1 codecs\n");
    compi_write_comment(f, comment);
    if (m->source[0]) fprintf(f, "source %s\n", m->source);
    for (int c = 0; c < COMPI_CLASS_COUNT; c++) {
        fprintf(f, "candidates %s", compi_dtclass_name(c));
        for (int i = 0; i < m->ncandidates[c]; i++) fprintf(f, " %s", m->candidates[c][i]->name);
        fprintf(f, "\n");
    }
    for (int i = 0; i < m->nrelations; i++) {
        const compi_codec_relation *r = &m->relations[i];
        fprintf(f, "relation %s %s %g %g %.4f\n", r->codec->name, compi_dtclass_name(r->dtclass), r->ratio_lo,
                r->ratio_hi, r->d_over_c);
    }
    for (int i = 0; i < m->nspeeds; i++) {
        const compi_codec_speed *v = &m->speeds[i];
        fprintf(f, "speed %s %s %.1f", v->codec->name, compi_dtclass_name(v->dtclass), v->compress_mbs);
        if (v->ratio_hi > 0) fprintf(f, " %g %g", v->ratio_lo, v->ratio_hi);
        fprintf(f, "\n");
    }
    return compi_file_commit(&w, err, errlen);
}

/* 1 if path is there (a regular file or not: the loader names what it is),
 * 0 if it does not exist, -1 (err set) if it cannot be looked at. */
static int compi_heur_present(const char *path, char *err, size_t errlen)
{
    int missing = 0;
    FILE *f = compi_file_open_read(path, &missing, err, errlen);
    if (f) fclose(f);
    return f || !missing ? 1 : 0;
}

int compi_models_load_dir(const char *dir, compi_net_model *net, int *have_net, compi_codec_model *codecs,
                          int *have_codecs, char *err, size_t errlen)
{
    char path[4200], why[512];
    *have_net = *have_codecs = 0;
    if (compi_dir_check(dir, why, sizeof why) != COMPI_OK) {
        snprintf(err, errlen, "heuristics directory %s", why);
        return COMPI_ERR_CONFIG;
    }
    snprintf(path, sizeof path, "%s/network.txt", dir);
    if (compi_heur_present(path, why, sizeof why)) {
        if (compi_net_load(path, net, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
        *have_net = 1;
    }
    snprintf(path, sizeof path, "%s/codecs.txt", dir);
    if (compi_heur_present(path, why, sizeof why)) {
        if (compi_codec_model_load(path, codecs, err, errlen) != COMPI_OK) {
            if (*have_net) compi_net_free(net);
            *have_net = 0;
            return COMPI_ERR_CONFIG;
        }
        *have_codecs = 1;
    }
    return COMPI_OK;
}
