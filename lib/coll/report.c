/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives' section of the finalize report (core/report.h): per
 * collective that was called, its counters (coll.h, "report"). */
#include <stdio.h>
#include "coll/coll.h"
#include "coll/nbc.h"
#include "core/report.h"

static void compi_coll_report_fill(uint64_t *v)
{
    for (int k = 0; k < COMPI_COLL_KINDS; k++)
        for (int f = 0; f < COMPI_COLL_FIELDS; f++)
            v[k * COMPI_COLL_FIELDS + f] = __atomic_load_n(&compi_coll_st[k][f], __ATOMIC_RELAXED);
}

/* Calls, how many ran compi's node-aware path (the rest ran the MPI's own),
 * bytes, inter-node wire bytes, time. */
static void compi_coll_report_json(FILE *f, const uint64_t *v)
{
    fprintf(f, "{");
    int first = 1;
    for (int k = 0; k < COMPI_COLL_KINDS; k++) {
        const uint64_t *c = v + k * COMPI_COLL_FIELDS;
        if (!c[COMPI_COLL_CALLS]) continue;
        fprintf(f, "%s\"%s\": {", first ? "" : ", ", compi_coll_names[k]);
        for (int fi = 0; fi < COMPI_COLL_FIELDS; fi++) {
            if (fi == COMPI_COLL_NS)
                fprintf(f, "%s\"%s\": %.6f", fi ? ", " : "", compi_coll_field_names[fi], c[fi] * 1e-9);
            else fprintf(f, "%s\"%s\": %llu", fi ? ", " : "", compi_coll_field_names[fi], (unsigned long long)c[fi]);
        }
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "}");
}

static const compi_report_counters compi_coll_section = {
    "collectives", COMPI_COLL_KINDS *COMPI_COLL_FIELDS, compi_coll_report_fill, compi_coll_report_json, NULL,
};

/* The nonblocking and neighbourhood collectives' section (nbc.h): per call
 * that was made, calls, how many ran as compi's schedules, bytes sent in
 * them, inter-node messages. */
static void compi_nbc_report_fill(uint64_t *v)
{
    for (int k = 0; k < COMPI_NBC_KINDS; k++)
        for (int f = 0; f < COMPI_NBC_FIELDS; f++)
            v[k * COMPI_NBC_FIELDS + f] = __atomic_load_n(&compi_nbc_st[k][f], __ATOMIC_RELAXED);
}

static void compi_nbc_report_json(FILE *f, const uint64_t *v)
{
    fprintf(f, "{");
    int first = 1;
    for (int k = 0; k < COMPI_NBC_KINDS; k++) {
        const uint64_t *c = v + k * COMPI_NBC_FIELDS;
        if (!c[COMPI_NBC_CALLS]) continue;
        fprintf(f, "%s\"%s\": {", first ? "" : ", ", compi_nbc_names[k]);
        for (int fi = 0; fi < COMPI_NBC_FIELDS; fi++)
            fprintf(f, "%s\"%s\": %llu", fi ? ", " : "", compi_nbc_field_names[fi], (unsigned long long)c[fi]);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "}");
}

static void compi_nbc_report_summary(const uint64_t *v)
{
    uint64_t calls = 0, scheduled = 0;
    for (int k = 0; k < COMPI_NBC_KINDS; k++) {
        calls += v[k * COMPI_NBC_FIELDS + COMPI_NBC_CALLS];
        scheduled += v[k * COMPI_NBC_FIELDS + COMPI_NBC_COMPI];
    }
    if (calls)
        fprintf(stderr,
                "compi: %llu nonblocking/neighbourhood collective call(s), %llu as compi's compressed "
                "schedules (all ranks)\n",
                (unsigned long long)calls, (unsigned long long)scheduled);
}

static const compi_report_counters compi_nbc_section = {
    "nonblocking_collectives", COMPI_NBC_KINDS *COMPI_NBC_FIELDS, compi_nbc_report_fill,
    compi_nbc_report_json,     compi_nbc_report_summary,
};

/* The rooted collectives' section: per kind with any, the calls that ran
 * compi's framed path. */
static void compi_rooted_report_fill(uint64_t *v)
{
    for (int k = 0; k < COMPI_ROOTED_KINDS; k++) v[k] = __atomic_load_n(&compi_rooted_compi_calls[k], __ATOMIC_RELAXED);
}

static void compi_rooted_report_json(FILE *f, const uint64_t *v)
{
    fprintf(f, "{");
    int first = 1;
    for (int k = 0; k < COMPI_ROOTED_KINDS; k++) {
        if (!v[k]) continue;
        fprintf(f, "%s\"%s\": {\"compi_path_calls\": %llu}", first ? "" : ", ", compi_rooted_names[k],
                (unsigned long long)v[k]);
        first = 0;
    }
    fprintf(f, "}");
}

static const compi_report_counters compi_rooted_section = {
    "rooted_collectives", COMPI_ROOTED_KINDS, compi_rooted_report_fill, compi_rooted_report_json, NULL,
};

void compi_coll_report_register(void)
{
    compi_report_add_counters(&compi_coll_section);
    compi_report_add_counters(&compi_rooted_section);
    compi_report_add_counters(&compi_nbc_section);
}
