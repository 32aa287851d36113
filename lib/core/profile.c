/* SPDX-License-Identifier: BSD-3-Clause */
/* The communication profile (engine/commprof.h) as the wrappers feed it:
 * every point-to-point send (sender side, per peer) and every collective
 * call, on every communicator, in every mode. Recorded when the run writes a
 * trace (COMPI_MODE=trace or profile) or a report; otherwise compi_prof_on
 * is 0 and each hook costs one test.
 *
 * Collective algorithms. The trace's first chunk says which algorithms the
 * MPI runs, so `compi map` decomposes each collective into the messages the
 * MPI really sent (lib/map):
 *   Open MPI  coll/tuned's fixed decision rules unless the run pinned its
 *             own (OMPI_MCA_coll_tuned_use_dynamic_rules and
 *             OMPI_MCA_coll_tuned_<coll>_algorithm[_segmentsize|_tree_fanout|
 *             _chain_fanout], as mpirun --mca sets them); lib/map holds the
 *             fixed rules, so nothing needs pinning.
 *   MPICH     its default selection is not modelled, so in trace and profile
 *             mode compi pins, before MPI_Init, every MPIR_CVAR_<COLL>_INTRA_
 *             ALGORITHM the user left unset (MPIR_CVAR_DEVICE_COLLECTIVES=none,
 *             so the device's node-aware compositions do not override them)
 *             and records all of them; `compi run --placement` sets the same
 *             ones for the placed run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/bigcount.h"
#include "core/profile.h"
#include "core/state.h"
#include "engine/commprof.h"
#include "engine/trace.h"

int compi_prof_on;
static compi_commprof *compi_P;

/* ------------------------------------------------------------ algorithms */

#if defined(COMPI_MPI_mpich)
/* What compi pins for a traced MPICH run: algorithms without restrictions
 * (valid at every size and op) that MPICH's own selection uses for part of
 * the range; lib/map/dkb_mpich.c decomposes each. */
static const char *const compi_mpich_pins[][2] = {
    {"MPIR_CVAR_DEVICE_COLLECTIVES", "none"},
    {"MPIR_CVAR_BCAST_INTRA_ALGORITHM", "binomial"},
    {"MPIR_CVAR_REDUCE_INTRA_ALGORITHM", "binomial"},
    {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling"},
    {"MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "pairwise"},
    {"MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM", "ring"},
    {"MPIR_CVAR_GATHER_INTRA_ALGORITHM", "binomial"},
    {"MPIR_CVAR_SCATTER_INTRA_ALGORITHM", "binomial"},
    {"MPIR_CVAR_BARRIER_INTRA_ALGORITHM", "dissemination"},
    {"MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM", "scattered"},
    {"MPIR_CVAR_GATHERV_INTRA_ALGORITHM", "linear"},
    {"MPIR_CVAR_SCATTERV_INTRA_ALGORITHM", "linear"},
};
#define COMPI_NPINS (sizeof compi_mpich_pins / sizeof compi_mpich_pins[0])
#endif

void compi_prof_pre_init(void)
{
#if defined(COMPI_MPI_mpich)
    /* the mode, before MPI_Init reads the CVARs; errors are reported after it */
    compi_config c;
    char err[256];
    if (compi_config_load(&c, NULL, err, sizeof err) != COMPI_OK) return;
    if (c.mode != COMPI_MODE_TRACE && c.mode != COMPI_MODE_PROFILE) return;
    for (size_t i = 0; i < COMPI_NPINS; i++) setenv(compi_mpich_pins[i][0], compi_mpich_pins[i][1], 0);
#endif
}

/* "key=value" lines: the MPI and every collective-algorithm setting in force. */
static char *compi_prof_algorithms(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    extern char **environ;
#if defined(COMPI_MPI_openmpi)
    fprintf(f, "mpi=openmpi\n");
    const char *prefix = "OMPI_MCA_coll_tuned_";
#else
    fprintf(f, "mpi=mpich\n");
    const char *prefix = "MPIR_CVAR_";
#endif
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, prefix, strlen(prefix)) != 0 || strchr(*e, '\n')) continue;
#if defined(COMPI_MPI_mpich)
        if (!strstr(*e, "ALGORITHM") && !strstr(*e, "COLLECTIVE") && !strstr(*e, "COMPOSITION")) continue;
#endif
        fprintf(f, "%s\n", *e);
    }
    fclose(f);
    return text;
}

/* ------------------------------------------------------------ life cycle */

void compi_prof_init(void)
{
    int tracing = compi_cfg.mode == COMPI_MODE_TRACE || compi_cfg.mode == COMPI_MODE_PROFILE;
    if (!tracing && !compi_cfg.report_path[0] && compi_cfg.verbose < 1) return;
    compi_P = compi_commprof_new(compi_g.world_rank, compi_g.world_size);
    if (!compi_P) compi_die("out of memory for the communication profile");
    __atomic_store_n(&compi_prof_on, 1, __ATOMIC_RELEASE);
}

void compi_prof_trace_opened(compi_trace_writer *w)
{
    char *algs = compi_prof_algorithms();
    if (!algs || compi_trace_set_algorithms(w, algs) != COMPI_OK)
        compi_log(0, "the trace does not record the collective algorithms (out of memory)");
    free(algs);
}

void compi_prof_trace_closing(compi_trace_writer *w)
{
    uint8_t *blob;
    size_t len;
    if (!compi_P) return;
    if (compi_commprof_save(compi_P, &blob, &len) != 0 || compi_trace_set_profile(w, blob, len) != COMPI_OK)
        compi_log(0, "the trace lacks the communication profile (out of memory)");
    else free(blob);
}

void compi_prof_finalize(void)
{
    __atomic_store_n(&compi_prof_on, 0, __ATOMIC_RELEASE);
    compi_commprof_free(compi_P);
    compi_P = NULL;
}

/* ------------------------------------------------------------ recording */

/* The communicator's profile id, registered on first use; 0 if not profiled
 * (intercommunicators, members outside WORLD). */
static int compi_prof_register(MPI_Comm comm, const compi_comm_info *ci)
{
    if (!compi_P || ci->is_inter) return 0;
    if (compi_commprof_has(compi_P, ci->id)) return 1;
    for (int i = 0; i < ci->peer_count; i++)
        if (ci->peer_world[i] < 0) return 0;
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return compi_commprof_comm(compi_P, ci->id, ci->peer_count, rank, ci->peer_world) == 0;
}

static uint64_t compi_prof_tsize(MPI_Datatype dt)
{
    MPI_Count s = 0;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size_x(dt, &s) != MPI_SUCCESS || s < 0) return 0;
    return (uint64_t)s;
}

void compi_prof_send_(MPI_Comm comm, int dest, int count, MPI_Datatype dt, int family)
{
    if (dest < 0 || count < 0) return; /* MPI_PROC_NULL; MPI reports bad counts */
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (!compi_prof_register(comm, ci)) return;
    compi_commprof_send(compi_P, ci->id, dest, (uint64_t)count * compi_prof_tsize(dt), family);
}

void compi_prof_coll_(MPI_Comm comm, int family, int root, int count, MPI_Datatype dt, const int *counts, MPI_Op op,
                      int path)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (!compi_prof_register(comm, ci)) return;
    uint64_t ts = compi_prof_tsize(dt);
    int commutative = 1;
    if (op != MPI_OP_NULL) PMPI_Op_commutative(op, &commutative);
    int n = counts ? ci->peer_count : 0;
    int64_t stack[64], *c64 = n <= 64 ? stack : malloc(sizeof(int64_t) * (size_t)n);
    if (!c64) return;
    uint64_t hist = 0;
    for (int i = 0; i < n; i++) {
        c64[i] = counts[i] > 0 ? counts[i] : 0;
        hist += (uint64_t)c64[i] * ts;
    }
    if (!counts) hist = (uint64_t)(count > 0 ? count : 0) * ts;
    compi_prof_call call = {family, root, count > 0 ? count : 0, (uint32_t)(ts ? ts : 1), commutative, n, c64, path};
    if (ts == 0 && count > 0) call.count = 0; /* empty type: nothing moves */
    compi_commprof_coll(compi_P, ci->id, &call, hist);
    if (c64 != stack) free(c64);
}

/* Alltoallw: per-peer types, so the row is recorded in bytes. */
void compi_prof_alltoallw_(MPI_Comm comm, const int *sendcounts, const MPI_Datatype *sendtypes)
{
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (!compi_prof_register(comm, ci)) return;
    int n = ci->peer_count;
    int *bytes = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!bytes) return;
    for (int i = 0; i < n; i++) {
        uint64_t b = sendcounts[i] > 0 ? (uint64_t)sendcounts[i] * compi_prof_tsize(sendtypes[i]) : 0;
        bytes[i] = compi_int_clamp(b);
    }
    compi_prof_coll_(comm, COMPI_PROF_ALLTOALLW, -1, 0, MPI_BYTE, bytes, MPI_OP_NULL, COMPI_PROF_PATH_MPI);
    free(bytes);
}

/* ------------------------------------------------------------ persistent sends */

/* Persistent sends: destination and size are taken when the request is
 * made (the application may free its communicator and datatype before it
 * starts it) and counted at each MPI_Start, by request handle. */
typedef struct compi_prof_preq {
    MPI_Request req;
    uint32_t id;
    int dest;
    uint64_t bytes;
    struct compi_prof_preq *next;
} compi_prof_preq;
static compi_prof_preq *compi_preqs;
static pthread_mutex_t compi_preq_lock = PTHREAD_MUTEX_INITIALIZER;

void compi_prof_persistent_(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype dt)
{
    if (dest < 0 || count < 0) return;
    const compi_comm_info *ci = compi_comm_lookup(comm);
    if (!compi_prof_register(comm, ci)) return;
    compi_prof_preq *p = malloc(sizeof *p);
    if (!p) return;
    *p = (compi_prof_preq){req, ci->id, dest, (uint64_t)count * compi_prof_tsize(dt), NULL};
    pthread_mutex_lock(&compi_preq_lock);
    p->next = compi_preqs;
    compi_preqs = p;
    pthread_mutex_unlock(&compi_preq_lock);
}

void compi_prof_start_(MPI_Request req)
{
    int found = 0, dest = -1;
    uint32_t id = 0;
    uint64_t bytes = 0;
    pthread_mutex_lock(&compi_preq_lock);
    for (compi_prof_preq *p = compi_preqs; p; p = p->next)
        if (p->req == req) {
            found = 1;
            id = p->id;
            dest = p->dest;
            bytes = p->bytes;
            break;
        }
    pthread_mutex_unlock(&compi_preq_lock);
    if (found && compi_P) compi_commprof_send(compi_P, id, dest, bytes, COMPI_PROF_START);
}

void compi_prof_request_free_(MPI_Request req)
{
    pthread_mutex_lock(&compi_preq_lock);
    for (compi_prof_preq **pp = &compi_preqs; *pp; pp = &(*pp)->next)
        if ((*pp)->req == req) {
            compi_prof_preq *p = *pp;
            *pp = p->next;
            free(p);
            break;
        }
    pthread_mutex_unlock(&compi_preq_lock);
}

/* ------------------------------------------------------------ report */

char *compi_prof_report_json(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    if (!compi_P) {
        fprintf(f, "null");
        fclose(f);
        return text;
    }
    pthread_mutex_lock(&compi_P->lock);
    fprintf(f, "{\"communicators\": [");
    int firstc = 1;
    for (size_t i = 0; i < compi_P->nbyid; i++) {
        const compi_prof_comm *c = compi_P->byid[i];
        if (!c) continue;
        fprintf(f, "%s{\"id\": %u, \"size\": %d, \"rank\": %d, \"world\": [", firstc ? "" : ", ", c->id, c->size,
                c->rank);
        firstc = 0;
        for (int k = 0; k < c->size; k++) fprintf(f, "%s%d", k ? "," : "", c->world[k]);
        fprintf(f, "], \"families\": {");
        int firstf = 1;
        for (int fam = 0; fam < COMPI_PROF_NFAM; fam++) {
            const compi_prof_hist *h = c->hist[fam];
            if (!h) continue;
            /* [low bound of the bucket, calls or messages, bytes] per non-empty bucket */
            fprintf(f, "%s\"%s\": [", firstf ? "" : ", ", compi_prof_family_name(fam));
            firstf = 0;
            int firstb = 1;
            for (int b = 0; b < COMPI_PROF_HIST; b++) {
                if (!h->n[b]) continue;
                fprintf(f, "%s[%llu, %llu, %llu]", firstb ? "" : ", ", b ? 1ull << (b - 1) : 0ull,
                        (unsigned long long)h->n[b], (unsigned long long)h->bytes[b]);
                firstb = 0;
            }
            fprintf(f, "]");
        }
        fprintf(f, "}, \"p2p_to_world\": [");
        int firstp = 1;
        for (int k = 0; c->peer_msgs && k < c->size; k++) {
            if (!c->peer_msgs[k]) continue;
            fprintf(f, "%s[%d, %llu, %llu]", firstp ? "" : ", ", c->world[k], (unsigned long long)c->peer_msgs[k],
                    (unsigned long long)c->peer_bytes[k]);
            firstp = 0;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}");
    pthread_mutex_unlock(&compi_P->lock);
    fclose(f);
    return text;
}
