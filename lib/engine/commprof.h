/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication profile of one rank (COMPI_MODE=profile and trace, and
 * the report's "profile" section): per communicator, the point-to-point
 * messages and bytes this rank sent to each peer, a message-size histogram
 * per call family, and every collective call, aggregated by signature
 * (kind, root, element count and size, per-rank counts of the v variants).
 *
 * Communicators are named by this rank's ordinal (compi_comm_info.id) and
 * carry their rank -> world rank map, so `compi map` rebuilds the job's
 * communication graph from the files of all ranks without matching
 * communicators across ranks: collectives are decomposed once, from the
 * record of one member that knows the whole call (rank 0 of the
 * communicator, or the root of Gatherv/Scatterv; every rank for its own row
 * of an Alltoallv). Serialised into the trace file's PROF chunk
 * (docs/map.md). MPI-free; recording is thread-safe (one mutex). */
#ifndef COMPI_ENGINE_COMMPROF_H
#define COMPI_ENGINE_COMMPROF_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    /* point-to-point sends (sender side) */
    COMPI_PROF_SEND = 0,
    COMPI_PROF_ISEND,
    COMPI_PROF_START,
    COMPI_PROF_SENDRECV,
    /* collectives: the same names as lib/map (compi_map_coll_name) where it knows them */
    COMPI_PROF_BCAST,
    COMPI_PROF_REDUCE,
    COMPI_PROF_ALLREDUCE,
    COMPI_PROF_ALLTOALL,
    COMPI_PROF_ALLGATHER,
    COMPI_PROF_GATHER,
    COMPI_PROF_SCATTER,
    COMPI_PROF_REDUCE_SCATTER,
    COMPI_PROF_BARRIER,
    COMPI_PROF_ALLTOALLV,
    COMPI_PROF_ALLGATHERV,
    COMPI_PROF_GATHERV,
    COMPI_PROF_SCATTERV,
    COMPI_PROF_REDUCE_SCATTER_BLOCK,
    COMPI_PROF_SCAN,
    COMPI_PROF_EXSCAN,
    COMPI_PROF_ALLTOALLW,
    COMPI_PROF_NFAM
} compi_prof_family;
#define COMPI_PROF_NP2P 4  /* families below this are point-to-point */
#define COMPI_PROF_HIST 48 /* size buckets: 0 = empty, b >= 1 = [2^(b-1), 2^b) bytes */

const char *compi_prof_family_name(int fam);
int compi_prof_family_parse(const char *name); /* -1: unknown */
int compi_prof_bucket(uint64_t bytes);

/* How a collective call ran: the MPI's own algorithm, or compi's (the
 * node-aware ones of lib/coll/coll.h, the rooted ones' framed payloads); for Allreduce and Reduce compi's leaders either
 * split (on a measuring call also agreeing two sizes among them) or send
 * whole partials (engine/leaders.h). Recorded by the code that chose it;
 * only node leaders know the leaders' way (communicator rank 0, whose
 * record compi map decomposes, is one), the other ranks record split. */
typedef enum {
    COMPI_PROF_PATH_MPI = 0,
    COMPI_PROF_PATH_COMPI,
    COMPI_PROF_PATH_SPLIT_AGREE,
    COMPI_PROF_PATH_WHOLE,
    COMPI_PROF_NPATHS
} compi_prof_path;
const char *compi_prof_path_name(int path);

/* One collective call as this rank made it. count: elements (the vector of
 * reductions and Bcast, one block of Alltoall/Allgather/Gather/Scatter);
 * counts: ncounts = communicator size entries for the v variants and
 * Reduce_scatter (Alltoallv: this rank's send row; Gatherv/Scatterv: the
 * root's vector, non-roots pass ncounts 0 and their own count). */
typedef struct {
    int family;
    int root; /* rooted collectives; else -1 */
    int64_t count;
    uint32_t type_size;
    int commutative;
    int ncounts;
    const int64_t *counts;
    int path; /* compi_prof_path */
} compi_prof_call;

typedef struct {
    uint64_t n[COMPI_PROF_HIST]; /* calls (or messages) per size bucket */
    uint64_t bytes[COMPI_PROF_HIST];
} compi_prof_hist;

typedef struct {
    uint32_t id;
    int size, rank;                         /* communicator size, this rank in it */
    int *world;                             /* world rank of each member */
    compi_prof_hist *hist[COMPI_PROF_NFAM]; /* NULL: family unused */
    uint64_t *peer_msgs, *peer_bytes;       /* size entries each, NULL if no send */
} compi_prof_comm;

typedef struct {
    uint32_t comm; /* compi_prof_comm.id */
    int family, root, commutative;
    int64_t count;
    uint32_t type_size;
    int ncounts;
    int64_t *counts;
    int path;       /* compi_prof_path: part of the signature */
    uint64_t calls; /* occurrences of this signature */
} compi_prof_coll;

typedef struct compi_commprof {
    int world_rank, world_size;
    compi_prof_comm **byid; /* index = id; NULL: never registered */
    size_t nbyid;
    compi_prof_coll *colls;
    size_t ncolls, colls_cap;
    uint32_t *table; /* open addressing: index + 1 into colls */
    size_t table_cap;
    pthread_mutex_t lock;
} compi_commprof;

compi_commprof *compi_commprof_new(int world_rank, int world_size);
void compi_commprof_free(compi_commprof *p);
/* 1 if communicator id is registered. */
int compi_commprof_has(compi_commprof *p, uint32_t id);
/* Registers communicator id (size members, this rank is `rank`, world[i] =
 * world rank of member i). A second registration of id is ignored. 0, or -1
 * for bad arguments / out of memory. */
int compi_commprof_comm(compi_commprof *p, uint32_t id, int size, int rank, const int *world);
/* A point-to-point send of bytes to peer (a rank of comm id). Unknown
 * communicators and peers out of range (MPI_PROC_NULL) are ignored. */
void compi_commprof_send(compi_commprof *p, uint32_t id, int peer, uint64_t bytes, int family);
/* A collective call on comm id. hist_bytes: this rank's bytes for the
 * histogram (its block, or the vector). */
void compi_commprof_coll(compi_commprof *p, uint32_t id, const compi_prof_call *c, uint64_t hist_bytes);

/* Serialises the profile (malloc'd *out, *len). 0 or -1 (out of memory). */
int compi_commprof_save(compi_commprof *p, uint8_t **out, size_t *len);
/* Parses a serialised profile, checking every field (ranges, member lists,
 * references, lengths). NULL with err on any problem. */
compi_commprof *compi_commprof_load(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Registered communicators in id order: iterate i < p->nbyid, skip NULL. */

#endif
