/* SPDX-License-Identifier: BSD-3-Clause */
/* compi map: the algorithms a traced run used (the trace's ALGS text:
 * Open MPI's coll/tuned MCA values, MPICH's CVARs) and the messages of one
 * collective call under them (place.h).
 *
 * Under MPICH, collectives compi did not pin or dkb_mpich.c does not cover
 * take Open MPI's fixed decision (a stand-in, counted in
 * graph->approximated). */
#include <stdlib.h>
#include <string.h>
#include "common/errf.h"
#include "map/place_internal.h"

int compi_place_num(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end) return -1;
    *out = v;
    return 0;
}

int compi_map_algs_parse(const char *text, compi_map_algs *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (!text) return 0;
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512];
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = 0;
        line += nl ? n + 1 : n;
        char *eq = strchr(buf, '=');
        if (!eq) continue;
        *eq = 0;
        const char *key = buf, *val = eq + 1;
        long v;
        if (strcmp(key, "mpi") == 0) {
            if (strcmp(val, "openmpi") == 0) a->mpich = 0;
            else if (strcmp(val, "mpich") == 0) a->mpich = 1;
            else {
                compi_errf(err, errlen, "the trace was made with an unknown MPI '%s'", val);
                return COMPI_MAP_EARG;
            }
        } else if (strncmp(key, "OMPI_MCA_coll_tuned_", 20) == 0) {
            const char *rest = key + 20;
            if (strcmp(rest, "use_dynamic_rules") == 0) {
                a->dynamic = compi_place_num(val, &v) == 0 ? v != 0 : (strcmp(val, "true") == 0);
                continue;
            }
            for (int c = 0; c < COMPI_MAP_NCOLLS; c++) {
                const char *name = compi_map_coll_name((compi_map_coll)c);
                size_t ln = strlen(name);
                if (strncmp(rest, name, ln) != 0 || strncmp(rest + ln, "_algorithm", 10) != 0) continue;
                const char *what = rest + ln + 10;
                if (*what == 0) {
                    int alg = -1;
                    if (compi_place_num(val, &v) == 0) alg = (int)v;
                    else
                        for (int k = 1; k <= compi_map_ompi41_nalgs((compi_map_coll)c); k++)
                            if (strcmp(val, compi_map_ompi41_alg_name((compi_map_coll)c, k)) == 0) alg = k;
                    if (alg < 0 || alg > compi_map_ompi41_nalgs((compi_map_coll)c)) {
                        compi_errf(err, errlen, "%s=%s: no such Open MPI algorithm in lib/map", key, val);
                        return COMPI_MAP_EALG;
                    }
                    a->alg[c] = alg;
                } else if (strcmp(what, "_segmentsize") == 0 && compi_place_num(val, &v) == 0 && v >= 0) {
                    a->segsize[c] = (uint32_t)v;
                } else if (strcmp(what, "_tree_fanout") == 0 && compi_place_num(val, &v) == 0 && v > 0) {
                    a->tree_fanout[c] = (int)v;
                } else if (strcmp(what, "_chain_fanout") == 0 && compi_place_num(val, &v) == 0 && v > 0) {
                    a->chain_fanout[c] = (int)v;
                }
                break;
            }
        } else if (strncmp(key, "MPIR_CVAR_", 10) == 0) {
            const char *rest = key + 10;
            const char *suffix = strstr(rest, "_INTRA_ALGORITHM");
            if (!suffix || suffix[16]) continue;
            char coll[64];
            size_t ln = (size_t)(suffix - rest);
            if (ln >= sizeof coll) continue;
            for (size_t i = 0; i < ln; i++) coll[i] = (char)(rest[i] >= 'A' && rest[i] <= 'Z' ? rest[i] + 32 : rest[i]);
            coll[ln] = 0;
            int c = compi_map_coll_parse(coll);
            if (c < 0 || strcmp(val, "auto") == 0) continue;
            int alg = compi_map_mpich40_alg_parse((compi_map_coll)c, val);
            if (alg < 0) {
                /* known to MPICH, not to lib/map: decomposed by the stand-in */
                a->alg[c] = -1;
                continue;
            }
            a->alg[c] = alg;
        }
    }
    return 0;
}

/* The messages of one call under the traced algorithms; *approx set when a stand-in decomposed it. */
int compi_place_decompose(const compi_map_call *c, const compi_map_algs *a, compi_map_msgs *out, int *approx)
{
    if (a->mpich) {
        int alg = a->alg[c->coll];
        if (alg > 0) {
            int rc = compi_map_mpich40_messages(c, alg, out);
            if (rc != COMPI_MAP_EUNSUPP && rc != COMPI_MAP_ENOTYET) return rc;
            out->n = 0; /* a restriction failed: MPICH falls back to its own selection */
        }
        *approx = 1;
    }
    compi_map_alg pins[COMPI_MAP_NCOLLS];
    memset(pins, 0, sizeof pins);
    for (int k = 0; k < COMPI_MAP_NCOLLS && !a->mpich && a->dynamic; k++) {
        int id = a->alg[k];
        if (id <= 0 || compi_map_ompi41_pinned((compi_map_coll)k, id, &pins[k]) != 0) {
            pins[k].alg = 0;
            continue;
        }
        pins[k].segsize = a->segsize[k];
        const char *name = compi_map_ompi41_alg_name((compi_map_coll)k, id);
        int fo = name && strstr(name, "chain") ? a->chain_fanout[k] : a->tree_fanout[k];
        if (fo > 0) pins[k].fanout = fo;
    }
    compi_map_alg alg = pins[c->coll];
    if (alg.alg <= 0) {
        int rc = compi_map_ompi41_decide(c, &alg);
        if (rc) return rc;
    }
    return compi_map_ompi41_messages_pins(c, &alg, pins, out);
}
