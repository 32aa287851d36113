/* SPDX-License-Identifier: BSD-3-Clause */
/* What to do with one outgoing message, for every mode (lib/core/decide.c),
 * and the engine's hooks the decisions and the collectives use. */
#ifndef COMPI_CORE_DECIDE_H
#define COMPI_CORE_DECIDE_H
#include <stddef.h>
#include <stdint.h>
#include "compi.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/stats.h"
#include "engine/config.h"
#include "engine/model.h"

/* What to do with one outgoing message, for every mode (lib/core/decide.c).
 * Made before the data is touched, so raw messages keep their zero-copy
 * path; completed inside compi_frame_encode once the data is contiguous. */
struct compi_link_state;
typedef struct {
    const compi_codec *codec;      /* codec to try; NULL = raw */
    int evaluate;                  /* adaptive: choose the codec from a sample first */
    int trace;                     /* COMPI_MODE=trace: record the message */
    struct compi_link_state *link; /* adaptive and guided: the destination link's state */
    int by_rule;                   /* guided: a rule decided; rule_index names it */
    size_t rule_index;
    int dtclass;
    compi_mode mode;
    /* the message's identity, for traces and guided rules */
    uint32_t comm_id;
    int peer, tag, peer_node;
    compi_family fam;
    double predicted;  /* predicted speedup of the chosen codec */
    double share, own; /* messages crossing the link with this one, and the sender's (compi_estimate_ctx) */
    int settled;       /* evaluation and sample done: 1 with codec, 2 raw (message.c) */
    int watch;         /* adaptive, raw: the window's raw zone asks for the data's signature */
    /* The caller posts the message itself (compi_outgoing_build's callers):
     * the outcome is kept here and recorded by compi_decision_outcome_due
     * once the message is in the MPI's hands (see there). */
    int outcome_later;
    int outcome_kept; /* an outcome waits in out_size, out_len, out_ns */
    size_t out_size;
    long long out_len;
    uint64_t out_ns;
} compi_decision;
/* peer: destination rank in ci's peer group, or -1 for "every remote node"
 * (a broadcast root). */
void compi_decide(compi_decision *d, const compi_comm_info *ci, int peer, int tag, const compi_typeinfo *ti,
                  compi_family fam);
/* The same for a block of an alltoall family call in which this rank
 * sends `away` blocks to ranks on other nodes (the v variants count the
 * blocks they send; 0: one to every rank elsewhere, as an Alltoall). The
 * node's other ranks are taken to send as many at the same time: the
 * block is priced as part of that burst (compi_estimate_ctx's share and
 * own). Other families: compi_decide. */
void compi_decide_in_burst(compi_decision *d, const compi_comm_info *ci, int peer, int tag, const compi_typeinfo *ti,
                           compi_family fam, int away);
static inline int compi_decision_needs_data(const compi_decision *d)
{
    return d && (d->codec || d->evaluate || d->trace);
}
/* A raw decision with d->watch set, its contiguous bytes at hand: their
 * signature (lib/engine/window.h) tells whether the data changed since the
 * window chose raw; then d is turned into an evaluation. Cheap: a few
 * cache lines read, no codec. */
void compi_decision_watch(compi_decision *d, const void *src, size_t size);
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
/* The outcome kept for a decision with outcome_later set, recorded now:
 * called once the message was handed to the MPI (its send returned or was
 * posted). What the engine learns from an outcome (the achieved speedup
 * from the link and codec models, the codec's cost, the window's bias and
 * mistakes) then runs while the message travels and the peer works, not
 * between the compression and the send: in a ping-pong of small frames it
 * was a visible share of the one-way time. Nothing kept: nothing done. */
void compi_decision_outcome_due(compi_decision *d);
/* A pipelined message's later chunks that the wire paced (the sender's
 * pace hint, frame.h compi_chunk_gap, left out those its coding paced):
 * `bytes` on the wire in `us` over `chunks` chunks (engine/linkest.h,
 * compi_linkest_add_chunks: too few bytes a chunk time its per-message
 * cost, not the link), codec codec_id (dtclass, ratio about
 * `ratio`), decoded here in decode_us. A rate sample of the link to world
 * rank world_peer's node (engine/linkest.h), left out when the sender may
 * have been the bottleneck all the same: its compression time, estimated
 * from decode_us and the codec model's decompress/compress ratio, near
 * the flow's time. */
void compi_engine_observe_pipe(int world_peer, double bytes, double us, double chunks, int codec_id, int dtclass,
                               double ratio, double decode_us);
/* A pipelined message from world_peer whose chunks the sender's coding
 * paced: no sample of the link, counted (the report's sender_bound_samples). */
void compi_engine_sender_bound(int world_peer);
/* Tests' injected timings (COMPI_DEBUG_LINK_TIMES=A,B,K,D,C): the time
 * from the arrival of a chunk to that of the next one, of wire_bytes on the
 * wire after head bytes of its message, gap_us after the one before it
 * left the sender: the wire's or, when longer, the sender's gap; and the
 * sender's gap for a chunk of len bytes of data (C ns per byte of coding). */
double compi_engine_injected_chunk_us(double wire_bytes, double head, double gap_us);
double compi_engine_injected_gap_us(double len);
/* At a collective on comm: on agreed calls, the ranks agree the collective
 * floors from their learned links (one small allreduce). Every rank of comm
 * must call it for the same collectives. */
int compi_coll_floor_sync(MPI_Comm comm, compi_comm_info *ci);
/* Rank 0's view of each link, for the COMPI_VERBOSE summary. */
void compi_engine_links_summary(void);
/* Collectives whose receivers must know up front whether a frame comes
 * (broadcast): a size test every rank evaluates alike. */
int compi_coll_may_compress(const compi_comm_info *ci, size_t size);
/* The same test for a collective whose compressed path costs `extra` small
 * metadata collectives (1..COMPI_COLL_EXTRA_MAX) beyond the MPI's own. */
#define COMPI_COLL_EXTRA_MAX 4
_Static_assert(COMPI_COLL_EXTRA_MAX + 1 <= 5, "compi_comm_info.coll_floor holds a floor per extra count");
int compi_coll_worth(const compi_comm_info *ci, size_t size, int extra);
/* The size an alltoall of block-byte blocks is judged by in these tests:
 * what the most crowded node's link carries in the call (each of its
 * ranks' blocks for every rank elsewhere leave together), the same on
 * every rank (on a communicator with a topology, the block: widest 0);
 * 0 for blocks under the communicator's min_bytes, which go raw whatever
 * is decided (so the call is the MPI's own). */
static inline size_t compi_alltoall_link_bytes(const compi_comm_info *ci, size_t block)
{
    if (block < ci->min_bytes) return 0;
    if (ci->widest < 1) return block;
    size_t away = ci->peer_count > ci->widest ? (size_t)(ci->peer_count - ci->widest) : 1;
    return block * (size_t)ci->widest * away;
}
/* An alltoall's extra metadata collective (the frames' lengths, among P
 * ranks) counted in latencies: ceil(log2 P), as the MPIs' small-message
 * alltoall algorithms take (Bruck's); at least 1. */
static inline int compi_alltoall_extra(const compi_comm_info *ci)
{
    int r = 1;
    while (r < 30 && (1 << r) < ci->peer_count) r++;
    return r;
}
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
/* This thread's scope, set aside while another collective's frames are
 * counted (a nonblocking collective's later round, posted from inside
 * another call) and put back after. */
typedef struct {
    int active, probe;
    uint64_t frame_bytes, saved_bytes;
} compi_coll_scope_state;
void compi_coll_scope_save(compi_coll_scope_state *s);
void compi_coll_scope_restore(const compi_coll_scope_state *s);
/* Before the start-up exchange (boot.h), on this rank alone: loads the
 * models, checks the report path and sets the engine's words of the
 * exchange. A bad heuristics file gives COMPI_ERR_CONFIG with err naming
 * file, line and cause. */
int compi_engine_preinit(unsigned long long *words, char *err, size_t errlen);
/* After the exchange and the node map, with the exchange's words, this
 * rank's preinit outcome (failed) and the node names (kept); collective
 * over MPI_COMM_WORLD. COMPI_ERR_CONFIG with err set, or an MPI error code. */
int compi_engine_init(const unsigned long long *words, int failed, char (*names)[COMPI_NET_NAME_MAX], char *err,
                      size_t errlen);
void compi_engine_finalize(void); /* closes traces */
/* This rank's engine section of the report as a JSON object (malloc'd). */
char *compi_engine_report_json(void);

#endif
