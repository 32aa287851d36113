/* SPDX-License-Identifier: BSD-3-Clause */
/* The GUIDED strategy's files: message traces and the rules made from them.
 *
 *   COMPI_MODE=trace   each rank records its messages (compi_trace_writer)
 *                      into <dir>/trace.<rank>.bin
 *   compi guide <dir>  reads the traces (compi_trace_load), tries the codecs
 *                      on the recorded samples and writes <dir>/rules.<rank>.txt
 *   COMPI_MODE=guided  each rank loads its rules (compi_rules_load) and looks
 *                      messages up by key instead of evaluating them
 *
 * A message's key hashes what identifies "the same message" from one
 * iteration (or run) to the next: communicator ordinal, peer, tag, datatype
 * class, call family and packed size. Formats: docs/guided.md.
 *
 * MPI-free. The writer is thread-safe (one mutex); loaded rules are
 * read-only, so lookups from many threads need no lock.
 *
 * Where each part lives in lib/engine: trace.c the key and the file names,
 * trace_write.c the writer, trace_read.c the reader, trace_format.h the
 * binary layout they share (internal), rules.c the rules. */
#ifndef COMPI_ENGINE_TRACE_H
#define COMPI_ENGINE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "compi.h"

typedef struct {
    uint64_t seq;     /* message number on this rank, from 0 */
    uint32_t comm_id; /* communicator ordinal on this rank (first-use order) */
    int32_t peer;     /* destination rank in the communicator */
    int32_t tag;
    uint8_t dtclass;    /* compi_dtclass */
    uint8_t family;     /* call family id (send, isend, bcast, ...), opaque small int */
    uint8_t link_cls;   /* compi_link_class: 0 intra, 1 inter */
    uint64_t size;      /* packed bytes */
    size_t elem_size;   /* 1, 4 or 8 */
    char peer_node[64]; /* host name of the destination's node */
    /* the burst it travels in (an alltoall's block: the messages crossing
     * its link with it, and this rank's among them; engine/estimate.h's
     * share and own); 1 and 1 alone. Not part of the key; a key's first
     * message gives them. */
    uint32_t share, own;
} compi_trace_msg;
/* The families of compi's collective frames (compi_family's bcast ..
 * reduce, lib/core/stats.h asserts the range): what compi map --rules
 * reads from compi guide's rules. */
#define COMPI_TRACE_FAM_COLL_FIRST 9
#define COMPI_TRACE_FAM_COLL_LAST 15

/* Message identifier: a 64-bit hash of comm_id, peer, tag, dtclass, family,
 * size (not seq). Stable across runs and machines. */
uint64_t compi_trace_key(const compi_trace_msg *m);

/* ------------------------------------------------------------- writer */

#define COMPI_TRACE_DEFAULT_CAP ((size_t)64 << 20) /* COMPI_TRACE_MAX default */
#define COMPI_TRACE_SAMPLE_MAX 65536               /* content bytes kept per sample */
#define COMPI_TRACE_SLICE 4096                     /* bytes per slice of a strided sample */
#define COMPI_TRACE_SAMPLES_PER_KEY 12             /* at most: occurrences 1, 2, 4, ..., 2^10 */
#define COMPI_TRACE_MAX_PERIOD 65536               /* longest cycle (messages) detected */
#define COMPI_TRACE_PROGRAM_MAX 256
#define COMPI_TRACE_NODE_MAX 64

typedef struct compi_trace_writer compi_trace_writer;

/* Creates <dir>/trace.<rank>.bin, mode 0600 (traces hold samples of message
 * contents); dir is created (0700) if missing, not its parents, and an
 * existing trace file is truncated, never a link or non-regular file
 * (common/safefile.h). program: basename
 * of the executable; cap_bytes bounds the file (samples stop when reached;
 * counting goes on); 0 means COMPI_TRACE_DEFAULT_CAP. A cap below
 * compi_trace_min_cap() is refused. */
compi_trace_writer *compi_trace_open(const char *dir, int rank, int world_size, const char *program,
                                     const char *my_node, size_t cap_bytes, char *err, size_t errlen);
/* Records one message. data = its packed contiguous bytes (size bytes).
 * Keeps a bounded content sample (up to COMPI_TRACE_SAMPLE_MAX bytes: the
 * whole message, or COMPI_TRACE_SLICE-byte slices spread evenly over it,
 * aligned to elem_size) of occurrences 1, 2, 4, 8, ... of each key (up to
 * COMPI_TRACE_SAMPLES_PER_KEY samples): an iterative application's data
 * changes as it runs (a stencil's field starts flat and 100x compressible,
 * later compresses 5x), so late occurrences are sampled too, at a cost that
 * grows only with the logarithm of the run length. Other occurrences only
 * bump counters. Also detects the application's cycle (the key sequence
 * repeating with a period P) and reports it in the summary. data may be NULL
 * when size is 0. */
void compi_trace_record(compi_trace_writer *w, const compi_trace_msg *m, const void *data);
/* The collective algorithms in force during the run, as text ("key=value"
 * lines; lib/core/profile.c writes them): the first chunk after the header,
 * so call it right after open. COMPI_ERR_CONFIG if something was already
 * written. */
int compi_trace_set_algorithms(compi_trace_writer *w, const char *text);
/* The rank's serialised communication profile (engine/commprof.h); once,
 * after the last record, before close. Not bounded by the cap. */
int compi_trace_set_profile(compi_trace_writer *w, const void *blob, size_t len);
/* Writes index and summary, closes, frees w (also on failure). Returns
 * COMPI_OK or a negative compi_status with err set (e.g. a failed write
 * during the run: disk full). NULL w is a no-op. */
int compi_trace_close(compi_trace_writer *w, char *err, size_t errlen);

typedef struct {
    uint64_t messages, bytes;    /* everything recorded */
    uint64_t keys;               /* distinct keys in the index */
    uint64_t untracked_messages; /* messages of keys that found no room in the index (cap) */
    uint64_t untracked_bytes;
    uint64_t samples, sample_bytes; /* content samples written */
    uint64_t file_bytes;            /* written so far (the index and summary come on close) */
    int cap_reached;                /* a sample or key was dropped for the cap */
    uint64_t cycle_len;             /* messages per cycle; 0 = no cycle seen (yet) */
    uint64_t cycle_start;           /* message position where the first of the two copies began */
    uint64_t cycle_detected_at;     /* message position at which the second copy completed */
    uint64_t cycle_deviations;      /* later messages that broke the cycle */
    int write_error;                /* errno of the first failed write, 0 if none */
} compi_trace_stats;

/* A snapshot of the writer's counters (thread-safe). */
void compi_trace_get_stats(compi_trace_writer *w, compi_trace_stats *s);
/* Smallest accepted cap_bytes (header + empty index + summary). */
size_t compi_trace_min_cap(void);
/* "<dir>/trace.<rank>.bin" / "<dir>/rules.<rank>.txt"; returns snprintf's value. */
int compi_trace_path(char *buf, size_t len, const char *dir, int rank);
int compi_rules_path(char *buf, size_t len, const char *dir, int rank);

/* ------------------------------------------------------------- reader */

typedef struct {
    uint64_t seq;        /* message number of the sampled occurrence */
    uint32_t occurrence; /* 0 = first occurrence of the key */
    uint32_t nslices;    /* 1 = the whole message; else slices of COMPI_TRACE_SLICE */
    uint32_t len;        /* content bytes */
    uint8_t *data;
} compi_trace_sample;

typedef struct {
    uint64_t key;
    compi_trace_msg msg; /* descriptor; msg.seq = the first occurrence's */
    uint64_t count;      /* occurrences */
    uint32_t nsamples;
    compi_trace_sample *samples;
} compi_trace_entry;

typedef struct {
    uint32_t version;
    int rank, world_size;
    char program[COMPI_TRACE_PROGRAM_MAX];
    char my_node[COMPI_TRACE_NODE_MAX];
    uint64_t cap_bytes;
    compi_trace_stats stats; /* as at close (file_bytes = the file's size) */
    size_t nentries;
    compi_trace_entry *entries; /* in first-occurrence order */
    char *algorithms;           /* version 2: the ALGS chunk's text, or NULL */
    uint8_t *profile;           /* version 2: the PROF chunk (engine/commprof.h), or NULL */
    size_t profile_len;
} compi_trace;

/* Loads a whole trace file, validating everything (magic, version, checksums,
 * field ranges, sample/index consistency, trailing bytes). NULL with
 * err = "<path>: why" on any problem. */
compi_trace *compi_trace_load(const char *path, char *err, size_t errlen);
void compi_trace_free(compi_trace *t);

/* ------------------------------------------------------------- rules */

typedef struct compi_rules compi_rules;

/* Loads <dir>/rules.<rank>.txt. NULL with err explaining why if missing,
 * malformed ("file:line: why"), or stale (program name or world size differs
 * from the trace the rules came from, rank differs, or another rules format
 * version). */
compi_rules *compi_rules_load(const char *dir, int rank, int world_size, const char *program, char *err, size_t errlen);
/* 1, *codec (NULL = send raw) and *index (either may be NULL) if key has a
 * rule; 0 if there is no rule for it or it was dropped. Thread-safe. */
int compi_rules_lookup(const compi_rules *r, uint64_t key, const compi_codec **codec, size_t *index);
/* Run-time feedback on the rule at index, after a message it compressed:
 * mistake = the compression did not pay (ratio <= 1, or the achieved speedup
 * below 1). When `limit` of the rule's last `history` (<= COMPI_OUTCOMES_MAX) outcomes are
 * mistakes the rule is dropped: the data is no longer what was traced, so
 * lookups miss it and the message is decided adaptively instead. limit 0
 * never drops. Returns 1 from the one call that dropped the rule.
 * Thread-safe (atomics). */
int compi_rules_outcome(compi_rules *r, size_t index, int mistake, unsigned limit, unsigned history);
/* Rules dropped so far. */
size_t compi_rules_dropped(const compi_rules *r);
size_t compi_rules_count(const compi_rules *r);
void compi_rules_free(compi_rules *r);

/* One rule for compi_rules_save: the key's descriptor goes into the comment. */
typedef struct {
    uint64_t key;
    const compi_codec *codec;   /* NULL = raw */
    const compi_trace_msg *msg; /* may be NULL (no comment) */
    uint64_t count;             /* occurrences in the trace */
    double ratio;               /* measured compression ratio (0: not measured) */
    double predicted;           /* predicted speedup of the best codec (0: none) */
    const char *why;            /* short reason for raw, or NULL */
    double max_ratio;           /* the best ratio of any candidate codec (0: not measured): what
                                     a slower link's codec would reach (compi map --rules) */
} compi_rule;

/* Writes <dir>/rules.<rank>.txt, replacing it whole (dir created if missing,
 * not its parents: common/safefile.h). comment: free
 * text written as '#' lines after the header. */
int compi_rules_save(const char *dir, int rank, int world_size, const char *program, const compi_rule *rules, size_t n,
                     const char *comment, char *err, size_t errlen);

#endif
