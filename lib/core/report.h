/* SPDX-License-Identifier: BSD-3-Clause */
/* The finalize report (lib/core/report.c): every rank's counters gathered
 * to rank 0, written as JSON (COMPI_REPORT) and summarised on stderr
 * (COMPI_VERBOSE >= 1). Core writes its own counters; the rooms above it
 * (collectives, collective I/O, the wrappers' call counts) register their
 * sections before MPI_Finalize, so core names none of them. */
#ifndef COMPI_CORE_REPORT_H
#define COMPI_CORE_REPORT_H
#include <stdint.h>
#include <stdio.h>

/* A per-rank section of fixed length: `words` counters, the same number on
 * every rank, gathered with core's own, summed for the totals, and written
 * into each rank's object and into "totals" as "name": <json's text>, in
 * the order registered (after core's counters). */
typedef struct {
    const char *name;
    int words;
    void (*fill)(uint64_t *v);                /* this rank's counters into v[0 .. words) */
    void (*json)(FILE *f, const uint64_t *v); /* one JSON value (an object) from v */
    void (*summary)(const uint64_t *v);       /* optional (NULL): stderr lines from the job's totals,
                                                   at COMPI_VERBOSE >= 1 */
} compi_report_counters;
/* A job-wide list: every rank's items as a malloc'd JSON array ("[]" when
 * it has none; NULL: out of memory), written after "ranks" as one array
 * "name": [every rank's items, in rank order]. */
typedef struct {
    const char *name;
    char *(*items)(void);
} compi_report_list;
/* Registered once (again: ignored), before MPI_Finalize; the sections live
 * as long as the process. */
void compi_report_add_counters(const compi_report_counters *s);
void compi_report_add_list(const compi_report_list *s);

/* Collective over MPI_COMM_WORLD, at finalize: gathers and writes the
 * report when one is asked for (COMPI_REPORT, COMPI_VERBOSE >= 1). */
void compi_report_write(void);

#endif
