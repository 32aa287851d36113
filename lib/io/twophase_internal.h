/* SPDX-License-Identifier: BSD-3-Clause */
/* What the files of compi's two-phase collective I/O share (twophase.h is
 * the room's face to the wrappers):
 *   file.c      the registry of open files: hints, views, the view memo
 *   twophase.c  the collective call, as numbered steps
 *   exchange.c  one cycle of the redistribution between the processes and
 *               the aggregators, and the aggregators' file accesses
 *   report.c    each file's report line */
#ifndef COMPI_IO_TWOPHASE_INTERNAL_H
#define COMPI_IO_TWOPHASE_INTERNAL_H

#include "core/bigcount.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/recv.h"
#include "core/state.h"
#include "core/stats.h"
#include "io/twophase.h"
#include "coll/coll.h"

#define COMPI_IO_CB_DEFAULT ((int64_t)16 << 20) /* ROMIO's cb_buffer_size */
#define COMPI_IO_CB_MAX ((int64_t)64 << 20)     /* one cycle's message to an aggregator stays far below 2 GiB */

/* One collective call on compi's path, as every step sees it. */
typedef struct {
    compi_io_file *f;
    int is_write;
    int n, me;
    const int *node_of;
    int frames;            /* inter-node messages travel as compi frames */
    compi_typeinfo elem;   /* the data's element class, for the codec choice */
    compi_io_segs fs;      /* my file segments, increasing */
    int64_t *spos;         /* stream position of each file segment */
    unsigned char *stream; /* my data in data order */
    compi_io_domains d;
    int *agg;  /* domain -> process */
    int mydom; /* my domain, -1 if I am no aggregator */
    int64_t cb;
    unsigned char *cbuf; /* an aggregator's cycle buffer */
    int rc;              /* first MPI error on this process */
} compi_io_call;

/* file.c: compi's own handle on the file (opened by an aggregator when it
 * first needs it); returns an MPI error code */
int compi_io_open_raw(compi_io_file *f);
/* file.c: after a gate decision, remember a pass for the file's view, forget anything else */
void compi_io_memo_record(const compi_io_file *f, int is_write, uint64_t fp, int pass);

/* exchange.c: cycle cyc of a write (read): every process's pieces in each
 * aggregator's window to it (from it), the aggregator's runs written (read).
 * The first error on this process is kept in c->rc. */
void compi_io_write_cycle(compi_io_call *c, int64_t cyc);
void compi_io_read_cycle(compi_io_call *c, int64_t cyc);

/* report.c: the file's counters reduced to its first rank, which keeps its
 * report line (collective over the file's communicator) */
void compi_io_file_report(compi_io_file *f);

#endif
