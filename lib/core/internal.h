/* SPDX-License-Identifier: BSD-3-Clause */
/* compi internals shared by the core, the frame layer and the wrappers.
 * Not installed; applications never see this. */
#ifndef COMPI_INTERNAL_H
#define COMPI_INTERNAL_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include "compi.h"
#include "engine/window.h"
#include "engine/model.h"
#include "engine/trace.h"

/* ---------------------------------------------------------------- config */
/* compi_mode, compi_config and their parsers are MPI-free (engine/config.h),
 * shared with `compi config`. */
#include "engine/config.h"

extern compi_config compi_cfg;
/* Every rank passes its own outcome of a step that can fail on some ranks
 * only; nonzero on all if any failed (runtime.c). Then call compi_config_fail. */
int compi_config_agree(int failed, char *err, size_t errlen);

/* ---------------------------------------------------------------- state */
typedef struct {
    int initialized;
    int finalized;
    int world_rank, world_size;
    int *node_of_world;           /* node id of every world rank */
    int my_node, node_count;
    int comm_keyval;              /* caches compi_comm_info on communicators */
    int frame_error_code;         /* MPI error code: "compi: frame failed validation" */
    MPI_Comm self_comm;           /* private dup of MPI_COMM_SELF for local unpacking */
    MPI_Comm aside_comm;          /* private dup of MPI_COMM_WORLD for escaped bytes (escape.c) */
    int aside_tag_ub;             /* MPI_TAG_UB */
    pthread_mutex_t lock;         /* guards request table, stash, orphans */
} compi_state;
extern compi_state compi_g;

void compi_ensure_init(void);     /* lazy init for calls before MPI_Init wrappers ran */
int compi_core_init(void);        /* after PMPI_Init succeeded */
void compi_core_finalize(void);   /* before PMPI_Finalize */
void compi_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void compi_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- locality */
typedef struct {
    int framed;          /* p2p traffic on this comm carries compi frames */
    int is_inter;
    int peer_count;      /* size of the group peers are named in (remote group for intercomms) */
    int my_node;
    int *peer_node;      /* node id per peer rank */
    int *peer_world;     /* MPI_COMM_WORLD rank per peer rank */
    /* the environment's policy, overridden by the communicator's MPI_Info
     * hints compi_mode, compi_codec, compi_min_bytes */
    compi_mode mode;
    const compi_codec *codec;
    size_t min_bytes;
    uint32_t id;         /* ordinal of first use on this rank: names the comm in traces */
    struct compi_coll_layout *coll;   /* node-aware collectives' sub-communicators (lib/coll), lazily */
    int refs;            /* the communicator's attribute + requests still using it */
    int published;       /* set (release) once built: a thread that finds the info in the
                            attribute cache without compi's lock reads it (acquire) after that */
} compi_comm_info;
/* Requests keep the info of their communicator, which the application may
 * free (or give new hints) while they are pending or, if persistent,
 * inactive: a reference keeps it. */
const compi_comm_info *compi_comm_info_hold(const compi_comm_info *ci);
void compi_comm_info_release(const compi_comm_info *ci);
/* Rebuilds the cached info from hints just given to MPI_Comm_set_info or
 * MPI_Comm_dup_with_info. */
void compi_comm_apply_hints(MPI_Comm comm, MPI_Info hints);

/* Cached per communicator; never NULL after init. */
const compi_comm_info *compi_comm_lookup(MPI_Comm comm);
static inline int compi_peer_is_remote(const compi_comm_info *ci, int peer)
{
    return peer >= 0 && peer < ci->peer_count && ci->peer_node[peer] != ci->my_node;
}
/* Traffic between ranks of one node is never compressed, so it carries no
 * frame: it goes to PMPI exactly as the application posted it (no copy, no
 * header). The receiver knows every sender's node, so only a wildcard
 * receive has to tell the two kinds apart, by the source it matched.
 * Ranks out of range take this path too, so PMPI reports them. */
static inline int compi_p2p_plain(const compi_comm_info *ci, int peer)
{
    return !ci->framed || peer == MPI_PROC_NULL || (peer != MPI_ANY_SOURCE && !compi_peer_is_remote(ci, peer));
}

/* ---------------------------------------------------------------- frame */
/* The wire format (MPI-free, fuzzed): lib/frame/frame.h. */
#include "frame/frame.h"
/* Contiguous receives of at least this many bytes land straight in the
 * application's buffer (smaller ones are staged). A frame is therefore
 * never longer than the data it stands for. */
#define COMPI_DIRECT_MIN 16384

/* ---------------------------------------------------------------- datatypes */
typedef struct {
    MPI_Count size;          /* packed bytes of count elements */
    MPI_Count type_size;     /* packed bytes of one element */
    int contiguous;          /* data is one block starting at buf + lb */
    MPI_Aint true_lb;
    compi_dtclass dtclass;
    size_t elem_size;
} compi_typeinfo;
void compi_typeinfo_get(MPI_Datatype dt, int count, compi_typeinfo *ti);
/* Byte buffers of any size for PMPI calls (lib/core/bigcount.c): len bytes
 * as (*count, *dt), MPI_BYTE up to compi_int_limit() bytes (INT_MAX unless
 * COMPI_DEBUG_INT_LIMIT lowers it), else one element of a committed
 * gap-free derived type that compi_bytes_type_free releases. */
int compi_bytes_type(size_t len, int *count, MPI_Datatype *dt);
void compi_bytes_type_free(MPI_Datatype *dt);   /* no-op for MPI_BYTE */
size_t compi_int_limit(void);
/* compi_bytes_split (the decomposition compi_bytes_type uses) and
 * compi_whole_frame_plan (whether a whole frame fits its codec's input
 * limit; collectives call it for their frames too). */
#include "core/bigcount.h"
/* Bytes in pack order from/to (buf, count, dt); MPI_BOTTOM allowed. Unpack
 * places a trailing partial element the way a receive would. */
int compi_pack_bytes(const void *buf, int count, MPI_Datatype dt, void *dst, size_t size);
int compi_unpack_bytes(const void *src, size_t nbytes, void *buf, int count, MPI_Datatype dt);
/* A datatype compi uses after the call that gave it (persistent requests,
 * receives decoded at completion): the application may MPI_Type_free it at
 * once. *held stands for dt (a reference of compi's own for derived types,
 * dt itself for predefined ones) until compi_type_release(dt, held). */
int compi_type_hold(MPI_Datatype dt, MPI_Datatype *held);
void compi_type_release(MPI_Datatype original, MPI_Datatype *held);

/* ---------------------------------------------------------------- stats */
typedef enum {
    COMPI_FAM_SEND = 0, COMPI_FAM_ISEND, COMPI_FAM_PERSISTENT_SEND,
    COMPI_FAM_RECV, COMPI_FAM_IRECV, COMPI_FAM_PERSISTENT_RECV,
    COMPI_FAM_SENDRECV, COMPI_FAM_PROBE, COMPI_FAM_MRECV,
    COMPI_FAM_BCAST, COMPI_FAM_SCATTER, COMPI_FAM_GATHER,
    COMPI_FAM_ALLGATHER, COMPI_FAM_ALLTOALL, COMPI_FAM_ALLREDUCE, COMPI_FAM_REDUCE,
    COMPI_FAM_IO,        /* collective I/O redistribution (lib/io/twophase.c) */
    COMPI_FAM_COUNT
} compi_family;
_Static_assert(COMPI_FAM_BCAST == COMPI_TRACE_FAM_COLL_FIRST && COMPI_FAM_REDUCE == COMPI_TRACE_FAM_COLL_LAST,
               "engine/trace.h names compi's collective families by number");

typedef struct {
    uint64_t messages[COMPI_FAM_COUNT];
    uint64_t bytes[COMPI_FAM_COUNT];          /* application bytes */
    uint64_t intra_msgs, inter_msgs;          /* sends by peer locality (same-node persistent starts not seen) */
    uint64_t inter_decided;                   /* inter-node messages and collective blocks compi decided on
                                                 (compressed or raw; compi_decide) */
    uint64_t raw_small, raw_incompressible;   /* why inter-node messages went raw */
    uint64_t raw_too_large;                   /* ... larger than the codec takes whole (max_input) */
    uint64_t raw_unframed, raw_escaped;       /* raw messages sent without a header; escapes (escape.c) */
    uint64_t codec_msgs[256], codec_in[256], codec_out[256];
    uint64_t frames_decoded, frames_decoded_compressed;
    uint64_t compress_ns, decompress_ns;
    uint64_t evaluations, evaluate_ns;        /* adaptive: sample evaluations and their cost */
    /* pipelined messages (pipeline.c), by codec id: sent, chunks, chunks
     * that went raw, codec time and the part of it that ran while earlier
     * (sender) or later (receiver) chunks were on the wire */
    uint64_t pipe_msgs[256], pipe_chunks[256], pipe_raw_chunks[256];
    uint64_t pipe_compress_ns[256], pipe_compress_hidden_ns[256];
    uint64_t pipe_decompress_ns[256], pipe_decompress_hidden_ns[256];
    uint64_t pipe_recv_msgs, pipe_wait_ns;    /* received; time waiting for chunks */
} compi_stats;
extern compi_stats compi_st;
/* relaxed atomics: counters may be bumped from many threads */
#define COMPI_STAT_ADD(field, v) __atomic_fetch_add(&compi_st.field, (uint64_t)(v), __ATOMIC_RELAXED)
uint64_t compi_now_ns(void);
void compi_report_write(void);

/* ---------------------------------------------------------------- decisions */
/* What to do with one outgoing message, for every mode (lib/core/decide.c).
 * Made before the data is touched, so raw messages keep their zero-copy
 * path; completed inside compi_frame_encode once the data is contiguous. */
struct compi_link_state;
typedef struct {
    const compi_codec *codec;       /* codec to try; NULL = raw */
    int evaluate;                   /* adaptive: choose the codec from a sample first */
    int trace;                      /* COMPI_MODE=trace: record the message */
    struct compi_link_state *link;  /* adaptive and guided: the destination link's state */
    int by_rule;                    /* guided: a rule decided; rule_index names it */
    size_t rule_index;
    int dtclass;
    compi_mode mode;
    /* the message's identity, for traces and guided rules */
    uint32_t comm_id;
    int peer, tag, peer_node;
    compi_family fam;
    double predicted;               /* predicted speedup of the chosen codec */
    int settled;                    /* evaluation and sample done: 1 with codec, 2 raw (message.c) */
} compi_decision;
/* peer: destination rank in ci's peer group, or -1 for "every remote node"
 * (a broadcast root). */
void compi_decide(compi_decision *d, const compi_comm_info *ci, int peer, int tag, const compi_typeinfo *ti,
                  compi_family fam);
static inline int compi_decision_needs_data(const compi_decision *d)
{
    return d && (d->codec || d->evaluate || d->trace);
}
/* In compi_frame_encode: the contiguous bytes are at hand. */
void compi_decision_evaluate(compi_decision *d, const void *src, size_t size, const compi_typeinfo *ti);
/* The chunk size the message is pipelined in (lib/core/pipeline.c), 0 to
 * send it whole: by the link model unless COMPI_CHUNK fixes it. Only for a
 * decision that compresses (d->codec set). */
size_t compi_decision_chunk(const compi_decision *d, size_t size);
/* For bytes at hand (src, contiguous, ti->size bytes): runs what
 * compi_frame_encode runs before compressing (the decision's evaluation in
 * adaptive and trace mode, the incompressibility sample for a codec fixed
 * without one) and returns the codec the bytes go with (NULL: raw) and in
 * *chunk the chunk size they are pipelined in (0: whole). Settles d: a
 * compi_frame_encode with it afterwards does neither again. */
const compi_codec *compi_decision_settle(compi_decision *d, const char *src, const compi_typeinfo *ti, size_t *chunk);
/* After the codec ran: out_len < 0 when the message went raw after all
 * (the sample check found it incompressible, or the codec failed). */
void compi_decision_outcome(compi_decision *d, size_t size, long long out_len, uint64_t compress_ns);
/* A blocking send of wire_bytes to d's link took ns: corrects the network model. */
void compi_engine_observe_send(const compi_decision *d, size_t wire_bytes, uint64_t ns);
/* Collectives whose receivers must know up front whether a frame comes
 * (broadcast): a size test every rank evaluates alike. */
int compi_coll_may_compress(const compi_comm_info *ci, size_t size);
/* The same test for a collective whose compressed path costs `extra` small
 * metadata collectives (1..COMPI_COLL_EXTRA_MAX) beyond the MPI's own. */
#define COMPI_COLL_EXTRA_MAX 4
int compi_coll_worth(const compi_comm_info *ci, size_t size, int extra);
/* The static model's default inter-node link, the same on every rank (NULL
 * before the engine is up). */
const compi_net_link *compi_engine_default_link(void);
/* The inter-node time per byte, in ns, of a message of `bytes` on the
 * slowest link this process knows: each inter-node link's model times the
 * correction observed on it so far (>= 1, compi_engine_observe_send), the
 * default link's model when nothing was observed; 0 before the engine is
 * up. The collective I/O gate's network term (lib/io/gate.c). */
double compi_engine_inter_ns_per_byte(double bytes);
/* A collective gate (lib/engine/gate.h) around one collective call on this
 * thread: probe = its trial wants the frames' data evaluated even where the
 * adaptive windows say raw; _end gives the bytes of collective data decided
 * on (inter-node frames) in between, and how many of them compression saved. */
void compi_coll_scope_begin(int probe);
void compi_coll_scope_end(uint64_t *frame_bytes, uint64_t *saved_bytes);
/* After the node map; collective over MPI_COMM_WORLD. A bad heuristics file
 * gives COMPI_ERR_CONFIG with err naming file, line and cause; else an MPI
 * error code. */
int compi_engine_init(char *err, size_t errlen);
void compi_engine_finalize(void);  /* closes traces */
/* This rank's engine section of the report as a JSON object (malloc'd). */
char *compi_engine_report_json(void);

/* ---------------------------------------------------------------- profile */
/* The communication profile (lib/core/profile.c, engine/commprof.h): the
 * wrappers call the COMPI_PROF_* hooks, which cost one test unless the run
 * writes a trace (COMPI_MODE=trace or profile) or a report. */
#include "engine/commprof.h"
struct compi_trace_writer;
extern int compi_prof_on;
void compi_prof_pre_init(void);   /* before PMPI_Init: MPICH's algorithm pins in trace/profile mode */
void compi_prof_init(void);
void compi_prof_finalize(void);
void compi_prof_trace_opened(struct compi_trace_writer *w);   /* writes the algorithms */
void compi_prof_trace_closing(struct compi_trace_writer *w);  /* writes the profile */
char *compi_prof_report_json(void);                           /* malloc'd; "null" when off */
void compi_prof_send_(MPI_Comm comm, int dest, int count, MPI_Datatype dt, int family);
/* path: compi_prof_path, how the call ran */
void compi_prof_coll_(MPI_Comm comm, int family, int root, int count, MPI_Datatype dt, const int *counts, MPI_Op op,
                      int path);
void compi_prof_alltoallw_(MPI_Comm comm, const int *sendcounts, const MPI_Datatype *sendtypes);
void compi_prof_persistent_(MPI_Request req, MPI_Comm comm, int dest, int count, MPI_Datatype dt);
void compi_prof_start_(MPI_Request req);
void compi_prof_request_free_(MPI_Request req);
#define COMPI_PROF_ACTIVE() __builtin_expect(__atomic_load_n(&compi_prof_on, __ATOMIC_RELAXED), 0)
#define COMPI_PROF_SEND_HOOK(comm, dest, count, dt, fam) \
    do { if (COMPI_PROF_ACTIVE()) compi_prof_send_(comm, dest, count, dt, fam); } while (0)
/* count/dt: the block (or vector); counts: per-rank counts (v variants) or NULL */
#define COMPI_PROF_COLL_HOOK(comm, fam, root, count, dt, counts, op) \
    COMPI_PROF_COLL_PATH_HOOK(comm, fam, root, count, dt, counts, op, COMPI_PROF_PATH_MPI)
/* the collectives compi may run itself record after the call, with the path it took */
#define COMPI_PROF_COLL_PATH_HOOK(comm, fam, root, count, dt, counts, op, path) \
    do { if (COMPI_PROF_ACTIVE()) compi_prof_coll_(comm, fam, root, count, dt, counts, op, path); } while (0)

/* ---------------------------------------------------------------- sending */
/* What goes on the wire for one message on a framed communicator (see
 * message.c): the application's own buffer when the message goes raw and
 * unframed, else bytes compi holds (a frame, a packed copy, an escape). */
struct compi_pipe;
typedef struct {
    void *tmp;                    /* compi's allocation, freed at release */
    const void *addr;             /* what PMPI sends: (addr, count, dt) */
    int count;
    MPI_Datatype dt;
    int dt_owned;                 /* dt is compi's (compi_bytes_type), freed at release */
    size_t wire_len;              /* bytes on the wire */
    struct compi_pipe *pipe;      /* pipelined: addr is its header, the chunks follow (pipeline.c) */
} compi_outgoing;
/* keep_ref: the application's buffer may be sent from (not for buffered
 * sends, whose buffer is free again at once). */
int compi_outgoing_build(compi_outgoing *out, const void *buf, int count, MPI_Datatype dt,
                         const compi_comm_info *ci, int dest, int tag, compi_family fam, compi_decision *d,
                         int keep_ref);
/* Releasing a pipelined message whose chunks are still on their way hands
 * them to compi, which completes them in the background. */
void compi_outgoing_release(compi_outgoing *out);
/* Pipelined messages (lib/core/pipeline.c). After the caller posted out's
 * header-only frame with the application's send mode, this compresses and
 * posts the chunks (nothing to do unless out->pipe), and reports the
 * outcome to d. */
int compi_outgoing_stream(compi_outgoing *out, compi_decision *d);
/* out's header frame for a message of size packed bytes at src (packed:
 * compi's copy, freed once streamed) in chunks of chunk bytes. */
int compi_pipe_prepare(compi_outgoing *out, const char *src, void *packed, size_t size, size_t chunk,
                       const compi_codec *codec, const compi_codec_params *params, const compi_comm_info *ci,
                       int dest);
/* Fault injection for tests (COMPI_DEBUG_DAMAGE_CHUNK=k or drop:k): whether
 * chunk k of a pipelined message (p2p or collective) is to be damaged, or
 * with *drop set, never sent. */
int compi_chunk_fault(size_t k, int *drop);
/* The report's counters for one pipelined stream: sent (size bytes in n
 * chunks, wire bytes, raw_chunks of them raw, ns of codec time of which
 * hidden ran while earlier chunks travelled) and received (codec_id: its
 * codec, or raw). */
void compi_pipe_count_sent(const compi_codec *codec, size_t size, size_t n, size_t wire, size_t raw_chunks,
                           uint64_t ns, uint64_t hidden);
void compi_pipe_count_received(uint8_t codec_id, uint64_t decode_ns, uint64_t hidden_ns, uint64_t wait_ns);
/* 1 when every chunk send completed (wait: block until they have). */
int compi_pipe_done(struct compi_pipe *p, int wait);
/* The header's send was cancelled: so are the chunks. */
void compi_pipe_cancel(struct compi_pipe *p);
void compi_pipe_free(struct compi_pipe *p);
/* A fresh tag on compi's side communicator (escapes, pipelined chunks). */
int compi_side_tag(void);
/* Encodes (buf,count,dt) as one contiguous frame in a new buffer, trying
 * codec unless NULL (raw if it does not shrink the data). A compressed
 * frame is never longer than the data. */
int compi_frame_encode(const void *buf, int count, MPI_Datatype dt, const compi_typeinfo *ti,
                       compi_decision *d, unsigned char **frame, size_t *frame_len);
/* Escapes (lib/core/escape.c): the first 32 bytes of bytes[0..size) leave
 * for dest (a rank of ci) on the aside communicator, and a header naming
 * them takes their place. */
int compi_escape_send(const compi_comm_info *ci, int dest, unsigned char *bytes, size_t size, int dtclass);
/* Receives an escaped message's first 32 bytes into head (32 bytes;
 * compi_escape_put_back, frame/frame.h, checks them and puts them over the
 * header). They were sent first; if they are still missing after
 * COMPI_ESCAPE_WAIT seconds (*arrived = 0) the header was damaged or forged:
 * compi's frame error, cause on stderr. */
int compi_escape_restore(const compi_comm_info *ci, int source, const compi_frame_header *h, void *head,
                         int *arrived);

/* ---------------------------------------------------------------- receiving */
typedef struct {
    void *buf; int count; MPI_Datatype dt;   /* the application's receive buffer */
    MPI_Datatype user_dt;                    /* dt as the application gave it (dt may be compi's hold) */
    compi_typeinfo ti;
    int direct;           /* contiguous and large: lands in the user buffer */
    void *tmp;            /* else the message lands here (small or non-contiguous) */
    size_t tmp_cap;
    MPI_Datatype tmp_dt;  /* tmp_cap bytes as PMPI's type (compi_bytes_type), compi's to free */
    MPI_Datatype dtype;   /* else: header + user buffer as one datatype */
    unsigned char header[COMPI_FRAME_HEADER_SIZE];
    void *post_addr;      /* what the PMPI receive is posted on (COMPI_IN_*): */
    int post_count;       /* a layout that takes a message of any byte length */
    MPI_Datatype post_dt;
} compi_incoming;
/* hold: the receive completes after this call returns (nonblocking,
 * persistent), so compi keeps its own reference on a derived dt it will
 * need at completion. */
int compi_incoming_prepare(compi_incoming *in, void *buf, int count, MPI_Datatype dt, int hold);
/* The PMPI receive is posted on (COMPI_IN_ADDR, COMPI_IN_COUNT, COMPI_IN_TYPE)
 * and holds at most compi_incoming_room bytes. */
#define COMPI_IN_ADDR(in) ((in)->post_addr)
#define COMPI_IN_COUNT(in) ((in)->post_count)
#define COMPI_IN_TYPE(in) ((in)->post_dt)
size_t compi_incoming_room(const compi_incoming *in);
/* After the PMPI receive completed with wire status st: decodes into the user
 * buffer, rewrites st so counts are the application's, returns an MPI error
 * code (MPI_SUCCESS, MPI_ERR_TRUNCATE or compi's frame error). */
int compi_incoming_finish(compi_incoming *in, MPI_Status *st, const compi_comm_info *ci, MPI_Comm comm);
/* What arrived from an inter-node peer, judged by its first landed of n
 * bytes at head: the application's bytes (an escape's first 32 bytes are
 * fetched and put back over its header), a frame (*h read) or a bad one
 * (why says what is wrong). *rc: an MPI error fetching an escape's bytes.
 * The one classification for receives and probes alike. */
typedef enum { COMPI_ARRIVAL_UNFRAMED, COMPI_ARRIVAL_FRAME, COMPI_ARRIVAL_BAD } compi_arrival;
compi_arrival compi_arrival_resolve(const compi_comm_info *ci, int source, unsigned char *head, size_t landed,
                                    size_t n, int truncated, compi_frame_header *h, int *rc, char *why, size_t whylen);
/* compi_frame_length_check: frame/frame.h */
/* Reports a message that failed validation (naming why) and returns compi's frame error code. */
int compi_frame_fail(MPI_Comm comm, const MPI_Status *st, const char *why);
/* Decodes a whole frame held in memory (probed/stashed messages). */
int compi_frame_deliver(const void *frame, size_t frame_len, void *buf, int count,
                        MPI_Datatype dt, MPI_Status *st, MPI_Comm comm);
/* Places an unframed message held in memory into (buf,count,dt). */
int compi_bytes_deliver(const void *bytes, size_t n, void *buf, int count, MPI_Datatype dt, MPI_Status *st);
void compi_incoming_release(compi_incoming *in);
/* Receives and decodes the chunks of the pipelined message whose header h
 * came from source (a rank of ci) into (buf,count,dt); sets st's count;
 * MPI_SUCCESS, MPI_ERR_TRUNCATE or compi's frame error (naming the chunk). */
int compi_pipe_receive(const compi_comm_info *ci, int source, const compi_frame_header *h, void *buf, int count,
                       MPI_Datatype dt, const compi_typeinfo *ti, MPI_Status *st, MPI_Comm comm);
/* What a truncated receive leaves in the buffer and reports, as the MPI
 * underneath does (message.c). */
int compi_trunc_writes_prefix(void);
size_t compi_truncated_count(uint64_t original);
int compi_raise(MPI_Comm comm, int code);
/* Copies compi's status to the application's: single-completion calls and
 * probes never modify MPI_ERROR (MPI-3.1 3.2.5), so it is kept. */
/* The empty status (MPI 3.7.3): source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
 * error MPI_SUCCESS, count 0, not cancelled. */
void compi_status_empty(MPI_Status *st);
static inline void compi_status_out(MPI_Status *user, const MPI_Status *st)
{
    if (user == MPI_STATUS_IGNORE) return;
    int keep = user->MPI_ERROR;
    *user = *st;
    user->MPI_ERROR = keep;
}
/* MPICH returns rich error codes; compare classes, never codes. */
static inline int compi_error_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS) PMPI_Error_class(code, &cls);
    return cls;
}

#endif
