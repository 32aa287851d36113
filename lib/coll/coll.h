/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's collectives over nodes: what a communicator that spans nodes runs
 * instead of the MPI's own algorithm when compression may pay.
 *
 * Traffic inside a node stays on plain PMPI calls (shared memory); only the
 * inter-node part travels as compi frames, compressed per the
 * communicator's mode (fixed / adaptive / guided / trace) by the same
 * decision code as point-to-point messages. Whether a collective takes this
 * path is decided from data every rank has (sizes known to all, the static
 * network model), so all ranks agree without talking; frame lengths travel
 * before the frames, so each sender still picks its codec (or raw) alone.
 * In adaptive and guided mode a gate per communicator, collective and size
 * class then runs compi's path or the MPI's own, from trials agreed by a
 * small vote (see "gates" below and lib/engine/trials.h).
 *
 *   allgather(v)  node-local gather to the node's leader (its lowest rank);
 *                 leaders exchange one block per node (an exchange among
 *                 leaders); node-local broadcast of the whole result
 *   alltoall(v)   every rank pair: blocks for other nodes as frames (one
 *                 decision per destination), blocks inside the node raw;
 *                 one exchange (lengths, then the blocks point to point)
 *   allreduce     node-local reduce to the leader; leaders reduce-scatter
 *                 (a framed chunk to each leader, combined in node order:
 *                 the same result on every rank and in every run with the
 *                 same placement), then allgather the reduced chunks
 *                 (framed) -- or, when partials compress better than
 *                 results, each leader's whole partial goes to every leader,
 *                 combined in the same order (engine/leaders.h: the same
 *                 bits either way); node-local broadcast
 *   reduce        the same, but the reduced chunks (or the whole partials)
 *                 go to the root's leader, which hands the result to the root
 *   reduce_scatter(_block)  node-local reduce of the whole vector; each
 *                 leader sends every other node's leader the blocks of that
 *                 node's members (framed), combines what it gets in node
 *                 order, and scatters the blocks inside its node
 * Reductions: predefined ops on predefined datatypes only (exact ops give
 * MPI's bit pattern; floating-point sums may differ in the last bits, as
 * between two MPIs). User-defined ops, derived datatypes, intercommunicators,
 * Alltoallw, Scan and Exscan pass through to the MPI (counted in the
 * report). */
#ifndef COMPI_COLL_H
#define COMPI_COLL_H
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/send.h"
#include "core/state.h"
#include "core/stats.h"
#include "engine/trials.h"
#include "engine/leaders.h"

/* Gate kinds (see "gates" below): the compi_coll_kind values, then these. */
enum {
    COMPI_GATE_BCAST = 11,
    COMPI_GATE_GATHER,
    COMPI_GATE_GATHERV,
    COMPI_GATE_SCATTER,
    COMPI_GATE_SCATTERV,
    COMPI_GATE_KINDS
};

/* The node structure of a framed intracommunicator, built on first use
 * (collective: every rank builds it in the same collective call). */
typedef struct compi_coll_layout {
    MPI_Comm local;   /* the ranks of my node, in comm rank order */
    MPI_Comm leaders; /* each node's lowest rank, ranked by node index; MPI_COMM_NULL on others */
    int size, rank;   /* in comm */
    int nnodes;
    int my_node;          /* my node's index: nodes are numbered by their leaders' comm rank */
    int *node_of;         /* comm rank -> node index */
    int *leader_of;       /* node index -> comm rank of its leader */
    int *first, *members; /* ranks of node k: members[first[k] .. first[k+1]), increasing */
    int local_rank, local_size;
    int unusable; /* compi could not make its communicators for comm: the MPI's own collectives */
    /* the blocks of compi's exchanges (pipex.c) travel point to point on
     * xall, a dup of comm, and on leaders (which carries no other
     * point-to-point message), never matched by the application's or
     * compi's other messages; errors come back as codes */
    MPI_Comm xall;
    compi_trials *gates[COMPI_GATE_KINDS]; /* per gate kind, an array of COMPI_GATE_CLASSES, lazily */
    compi_leaders_plan *plans[2];          /* Allreduce, Reduce: the leaders' way per size class, lazily */
} compi_coll_layout;

/* Collectives on comm may take compi's path: a framed intracommunicator in a
 * mode that frames (fixed, adaptive, guided, trace). Sets *ci. */
int compi_coll_applies(MPI_Comm comm, const compi_comm_info **ci);
/* The same test on a communicator's info already looked up. */
static inline int compi_coll_frames(const compi_comm_info *ci)
{
    compi_mode m = ci->mode;
    /* trace mode frames them too (raw), so the trace holds the very
     * collective messages guided mode will look up */
    return ci->framed && !ci->is_inter &&
           (m == COMPI_MODE_FIXED || m == COMPI_MODE_ADAPTIVE || m == COMPI_MODE_GUIDED || m == COMPI_MODE_TRACE);
}

/* After MPI_Init (the wrappers' MPI_Init; else on first use): coll's
 * keyval, under which each communicator's layout is cached. */
int compi_coll_init(void);
/* The layout cached on comm (ci: its info), built now if needed; NULL with
 * *rc set on failure, and NULL with *rc MPI_SUCCESS when compi could not
 * make its communicators for comm (the MPI out of communicator contexts, or
 * of memory, on any rank: agreed over comm when first built, logged): its
 * collectives then run as the MPI's own. */
const compi_coll_layout *compi_coll_layout_get(MPI_Comm comm, const compi_comm_info *ci, int *rc);
/* The same layout's node map only (size, rank, nnodes, my_node, node_of,
 * leader_of, first, members; the communicators may be MPI_COMM_NULL):
 * local, no communication, so a nonblocking collective can ask for it. */
const compi_coll_layout *compi_coll_nodes_get(MPI_Comm comm, const compi_comm_info *ci, int *rc);
/* comm's hints were replaced: its sub-communicators go (built again, with
 * fresh gates, on next use). */
void compi_coll_comm_reset(MPI_Comm comm);
/* Before MPI_Finalize: every layout still cached is released, and the keyval. */
void compi_coll_finalize(void);
/* Registers the "collectives" section of the report (core/report.h). */
void compi_coll_report_register(void);

/* ---- algorithms (the caller checked that the path applies); *wire grows
 * by the bytes this rank put on inter-node links */
/* Displacements are in elements, as MPI_Aint: Allgather's and Alltoall's
 * i * count may exceed an int where the MPI's own call has no such limit. */
int compi_coll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                          const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire);
int compi_coll_alltoallv(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire);
/* The non-empty blocks of counts[] (one per rank of ci's group) that go
 * to ranks on other nodes: the `away` an alltoall(v)'s blocks are decided
 * with (compi_decide_in_burst; a block of a zero-size type is never
 * decided, so its count does not matter). */
int compi_coll_blocks_away(const compi_comm_info *ci, const int counts[]);
/* root < 0: allreduce. *path: how it ran (compi_prof_path: the leaders'
 * way; ranks that are not node leaders do not know it and get
 * COMPI_PROF_PATH_COMPI). */
int compi_coll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire, int *path);
/* Reduce_scatter(_block): node-local reduce of the full vector, leaders
 * exchange each node's members' blocks (framed), then a node-local scatterv. */
int compi_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, const compi_comm_info *ci, const compi_coll_layout *l, uint64_t *wire);
/* Reductions compi runs itself: predefined op on a predefined datatype. */
int compi_coll_reduction_ok(MPI_Datatype dt, MPI_Op op);

/* ---- frames of packed bytes (shared by the algorithms) */
/* Encodes n bytes of elements of class cls / size elem as one frame for
 * comm rank peer (-1: every other node), deciding like a p2p message. */
int compi_coll_encode(const compi_comm_info *ci, int peer, compi_family fam, const void *bytes, size_t n,
                      const compi_typeinfo *elem, unsigned char **frame, size_t *flen);

/* Waitall on compi's own requests of a collective (pipex.c); with
 * MPI_ERR_IN_STATUS, the first failed request's own error (a truncated typed
 * block: MPI_ERR_TRUNCATE, as the MPI's collective says). */
int compi_coll_waitall(int nq, MPI_Request *rq);

/* ---- blocks of an exchange (pipex.c). A block for another rank goes one
 * of three ways, named in the metadata sent before any data
 * (frame/coll_meta.h):
 *   typed      the application's data as it is, when it goes raw: one
 *              message from the caller's buffer with the caller's datatype,
 *              received straight into the receiver's (no copy on either
 *              side, no int limit on its bytes)
 *   bytes      a frame (compressed) or bytes the caller packed, landing in
 *              compi's buffer at the receiver, in messages of at most 1 GiB
 *   pipelined  a block its decision compresses that is at least two chunks
 *              long by the chunk rule of point-to-point messages
 *              (compi_decision_chunk, COMPI_CHUNK): its chunks are
 *              compressed during the exchange and decoded where they belong
 *              as they arrive.
 * compi's extra memory per block is therefore its compressed frame (or
 * chunk buffers), plus a packed copy of a non-contiguous block that is
 * compressed, plus the copies an in-place call needs. */
typedef struct {
    unsigned char *frame;     /* bytes: the frame, flen bytes */
    const unsigned char *ref; /* bytes, frame NULL: flen bytes of the caller's, sent as they are */
    size_t flen;              /* bytes; typed: the packed bytes */
    int typed;                /* typed: (tbuf, tcount, ttype) of the caller's */
    const void *tbuf;
    int tcount;
    MPI_Datatype ttype;
    size_t chunk; /* pipelined: the chunk size (2^log2) */
    unsigned log2;
    const unsigned char *src; /* pipelined: the packed bytes (the caller's, or packed) */
    unsigned char *packed;    /* compi's packed copy, or NULL */
    size_t size;
    const compi_codec *codec;
    compi_codec_params params;
    compi_decision d;
    size_t n, encoded;    /* chunks; encoded so far (once for every destination) */
    unsigned char **bufs; /* encoded chunks */
    int *blen;            /* their lengths (-1: dropped by a test fault) */
    size_t wire, raw_chunks;
    uint64_t ns, hidden;
    compi_frame_work work; /* a whole frame whose codec work is pending (compi_coll_outs_code) */
    int pending, copy, work_rc;
} compi_coll_out;
/* Collective blocks are pipelined only with a fixed COMPI_CHUNK (an
 * explicit request): with auto they go whole. Measured (README,
 * "Collectives with pipelined blocks"): MPICH, 2 nodes, 100 Mbit/s, 8 MiB
 * of smooth doubles ran 1.34-1.39x whole but 0.84-1.26x pipelined, and
 * Open MPI's Allgather at 1 Gbit/s lost too (text 4.95x whole, 2.81x
 * pipelined), while Alltoall and Allreduce gained; until the exchange wins
 * everywhere it stays opt-in. Every rank has the same setting. */
static inline int compi_coll_pipelines(void)
{
    return compi_cfg.chunk != COMPI_CHUNK_OFF && compi_cfg.chunk != 0;
}
/* The block of count dt at buf (its typeinfo ti) for comm rank peer of ci
 * (-1: every other node), decided like a p2p message of family fam: typed
 * when it goes raw, else a frame or (COMPI_CHUNK not off) a pipelined
 * block. copy: the send data is overwritten by the exchange (in place):
 * the block is never sent from it (raw: a raw frame). */
int compi_coll_out_build(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy);
/* The same in two steps (lib/coll/blocks.c), for calls that build several
 * blocks: compi_coll_out_begin decides and packs on the calling thread and
 * leaves a whole frame's codec work pending; compi_coll_outs_code then does
 * the pending work of outs[0..n) on the codec pool (lib/pool) and finishes
 * every block in order on the calling thread. The frames are the bytes
 * compi_coll_out_build makes, whatever the pool's thread count. On failure
 * the blocks still need compi_coll_out_free. away: an alltoall's blocks
 * this rank sends to other nodes in the call (compi_decide_in_burst; 0
 * for the other families). */
int compi_coll_out_begin(compi_coll_out *o, const compi_comm_info *ci, int peer, compi_family fam, const void *buf,
                         int count, MPI_Datatype dt, const compi_typeinfo *ti, int copy, int away);
int compi_coll_outs_code(compi_coll_out *outs, int n);
/* A block sent as it is, typed (same-node blocks). */
void compi_coll_out_typed(compi_coll_out *o, const void *buf, int count, MPI_Datatype dt, size_t size);
void compi_coll_out_free(compi_coll_out *o);
/* Bytes it put on the wire per destination (frame, data or chunks). */
size_t compi_coll_out_wire(const compi_coll_out *o);
/* Where a block from one source goes: a pipelined one as size packed bytes
 * to dst (NULL: none expected); a typed one into (tbuf, tcount, ttype)
 * (typed 0: none may come typed). */
typedef struct {
    unsigned char *dst;
    size_t size;
    int typed;
    void *tbuf;
    int tcount;
    MPI_Datatype ttype;
} compi_coll_in;

/* Bytes blocks that arrived: block i (from rank i) is lens[i] bytes at
 * bytes + displs[i] (0: none, or it came typed or pipelined). */
typedef struct {
    unsigned char *bytes;
    size_t *lens, *displs;
} compi_coll_blocks;
void compi_coll_blocks_free(compi_coll_blocks *b);
/* Bytes per message of a bytes block: 2^30, or COMPI_DEBUG_COLL_PIECE
 * (tests: the same on every rank) to take the many-message path with
 * small data. */
size_t compi_coll_piece(void);
/* The blocks out[j] (NULL: none; same: one block for every rank but me,
 * as in an allgather) to every rank j of sub, and every rank's block to me:
 * a bytes block lands in got, a typed one in in[i]'s buffer, a pipelined
 * one (piped[i] set) is decoded into in[i].dst as its chunks arrive (dst
 * NULL: into a buffer of stage[i] made for it, when stage is not NULL).
 * Metadata first (frame/coll_meta.h, over sub), then every block point to
 * point on chunks (a dup of sub reserved for it), only between the pairs
 * that have a block. names[i]: the comm rank of sub rank i, for errors:
 * damaged metadata or a damaged chunk fails the call with compi's frame
 * error (naming the rank), which the caller raises on comm. */
int compi_coll_exchange(MPI_Comm sub, MPI_Comm chunks, int same, compi_coll_out *const out[], const compi_coll_in in[],
                        unsigned char **stage, compi_coll_blocks *got, int *piped, const int *names, MPI_Comm comm);

/* One exchange's state, as every algorithm above uses it: what goes to
 * each rank of sub (out[j]; NULL: nothing), where each rank's block goes
 * (in[i]), the staging buffers of pipelined blocks that cannot be decoded
 * in place, which sources pipelined, and the bytes blocks that arrived. */
typedef struct {
    int n;
    compi_coll_out **out;
    compi_coll_in *in;
    unsigned char **stage;
    int *piped;
    compi_coll_blocks got;
    struct compi_coll_dec *dec; /* compressed frames the pool decodes (blocks.c); NULL: none */
} compi_coll_xfer;
/* Allocates for n ranks (all empty); MPI_ERR_NO_MEM or MPI_SUCCESS. */
int compi_coll_xfer_init(compi_coll_xfer *x, int n);
void compi_coll_xfer_free(compi_coll_xfer *x);
/* A block of size packed bytes is due from rank i, to land in count dt at
 * buf: typed, straight there; pipelined, decoded straight to dst (buf's
 * first byte for a contiguous type; dst NULL: into a staging buffer of its
 * own); bytes (a frame), into got. */
int compi_coll_xfer_expect(compi_coll_xfer *x, int i, size_t size, unsigned char *dst, void *buf, int count,
                           MPI_Datatype dt);
/* compi_coll_exchange with x's blocks. */
int compi_coll_xfer_run(compi_coll_xfer *x, MPI_Comm sub, MPI_Comm chunks, int same, const int *names, MPI_Comm comm);
/* Rank i's block into count dt at dst: nothing to do when it came typed or
 * was decoded in place, unpacked from its staging buffer (pipelined), or
 * decoded from its frame (source: its comm rank, for errors). */
int compi_coll_xfer_deliver(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt, int source,
                            MPI_Comm comm);
/* For calls that deliver several blocks: before the compi_coll_xfer_deliver
 * calls, compi_coll_xfer_prepare (same arguments) notes each compressed
 * frame that fits its destination, and compi_coll_xfer_decode decodes them
 * all on the codec pool (into the destination when its type is
 * contiguous, else aside); compi_coll_xfer_deliver then reports each
 * frame's error, or unpacks it, in the caller's order. Destinations must
 * not overlap. */
int compi_coll_xfer_prepare(compi_coll_xfer *x, int i, void *dst, int count, MPI_Datatype dt);
int compi_coll_xfer_decode(compi_coll_xfer *x);
void compi_coll_dec_free(compi_coll_xfer *x);

/* ---- gates (lib/engine/trials.h): in adaptive and guided mode, whether a
 * call runs compi's path or the MPI's own, per communicator, collective and
 * size class (log2 of a size every rank knows alike; 0 for the v variants
 * whose sizes differ per rank), from agreed trials. Fixed and trace mode
 * always run compi's path. */
#define COMPI_GATE_CLASSES 48
/* A gate's size class: floor(log2(size)), capped at COMPI_GATE_CLASSES - 1
 * (the blocking and the nonblocking gates alike). */
int compi_gate_size_class(size_t size);
typedef struct {
    compi_trials *g; /* NULL: no gate, compi's path */
    int kind;        /* gate kind */
    int path;        /* compi_trials_path */
    uint64_t t0;
} compi_coll_ticket;
/* Which path this call takes: COMPI_TRIALS_PATH_COMPI or _MPI. Starts the
 * call's clock and scope; every call must be followed by
 * compi_coll_gate_end on the same communicator, whichever path ran (a vote
 * may be due: a small collective on comm). size: the size the class is
 * taken from, the same on every rank (0: class 0). */
int compi_coll_gate_begin(const compi_comm_info *ci, const compi_coll_layout *l, int kind, size_t size,
                          compi_coll_ticket *t);
int compi_coll_gate_end(compi_coll_ticket *t, MPI_Comm comm);
void compi_coll_choices_free(compi_coll_layout *l);

/* ---- the leaders' way of a reduction (engine/leaders.h): split or whole,
 * per communicator, Allreduce / Reduce and size class (of raw, the packed
 * bytes of the vector, the same on every rank). Leaders only. */
typedef struct {
    compi_leaders_plan *s; /* NULL: forced or not measuring */
    int rooted, measure;
} compi_coll_leaders;
/* whole_ok: the type's elements are contiguous (whole is run only then). */
compi_leaders_way compi_coll_leaders_begin(const compi_coll_layout *l, int rooted, size_t raw, int whole_ok,
                                           compi_coll_leaders *t);
/* After a split call: a measuring one agrees (MAX over the leaders, one
 * small allreduce among them) the bytes of this leader's reduce-scatter
 * frames and of its reduced chunk's frame, and decides. */
int compi_coll_leaders_end(compi_coll_leaders *t, const compi_coll_layout *l, size_t raw, uint64_t split,
                           uint64_t chunk);

/* ---- report */
typedef enum {
    COMPI_COLL_ALLGATHER,
    COMPI_COLL_ALLGATHERV,
    COMPI_COLL_ALLTOALL,
    COMPI_COLL_ALLTOALLV,
    COMPI_COLL_ALLTOALLW,
    COMPI_COLL_ALLREDUCE,
    COMPI_COLL_REDUCE,
    COMPI_COLL_REDUCE_SCATTER,
    COMPI_COLL_REDUCE_SCATTER_BLOCK,
    COMPI_COLL_SCAN,
    COMPI_COLL_EXSCAN,
    COMPI_COLL_KINDS
} compi_coll_kind;
extern const char *const compi_coll_names[COMPI_COLL_KINDS];
_Static_assert((int)COMPI_GATE_BCAST == (int)COMPI_COLL_KINDS, "gate kinds follow the collective kinds");
/* per kind, this rank: calls, calls on compi's node-aware path, calls its
 * gate sent to the MPI's own algorithm (data that did not compress, and the
 * MPI's algorithm was not slower; gate trials included), application
 * bytes (this rank's contribution), bytes this rank put on inter-node
 * links in compi's path (frames), time spent in the call, and (node
 * leaders, Allreduce and Reduce) the calls whose leaders' phase ran split
 * or whole (engine/leaders.h) */
enum {
    COMPI_COLL_CALLS,
    COMPI_COLL_NODE_AWARE,
    COMPI_COLL_GATED,
    COMPI_COLL_BYTES,
    COMPI_COLL_WIRE,
    COMPI_COLL_NS,
    COMPI_COLL_SPLIT,
    COMPI_COLL_WHOLE,
    COMPI_COLL_FIELDS
};
extern uint64_t compi_coll_st[COMPI_COLL_KINDS][COMPI_COLL_FIELDS];
#define COMPI_COLL_ADD(kind, field, v) __atomic_fetch_add(&compi_coll_st[kind][field], (uint64_t)(v), __ATOMIC_RELAXED)
extern const char *const compi_coll_field_names[COMPI_COLL_FIELDS];
/* The rooted collectives (Bcast, Gather(v), Scatter(v)), per gate kind
 * from COMPI_GATE_BCAST, this rank: calls that ran compi's framed path
 * (the report's "rooted_collectives"; their call counts are the report's
 * "calls"). */
#define COMPI_ROOTED_KINDS (COMPI_GATE_KINDS - COMPI_GATE_BCAST)
extern const char *const compi_rooted_names[COMPI_ROOTED_KINDS];
extern uint64_t compi_rooted_compi_calls[COMPI_ROOTED_KINDS];
#define COMPI_ROOTED_ADD(gate_kind)                                                                                    \
    __atomic_fetch_add(&compi_rooted_compi_calls[(gate_kind)-COMPI_GATE_BCAST], (uint64_t)1, __ATOMIC_RELAXED)

#endif
