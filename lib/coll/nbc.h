/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking and neighbourhood collectives on compi's path.
 *
 * A nonblocking collective compi runs itself is a schedule (sched.c): rounds
 * of point-to-point steps, each a compi message (framed and compressed per
 * the point-to-point decision for peers on other nodes, plain inside the
 * node), plus local steps (a reduction, a copy) that run before a round's
 * messages are posted. Round k+1 starts when every step of round k has
 * completed. Most collectives are one round: every message is posted when
 * the call starts, so the MPI moves them on its own and only decoding is
 * left for the completion call.
 *
 * The application holds an ordinary MPI_Request: a generalized request
 * (MPI_Grequest_start) that compi completes once the schedule has finished,
 * listed in compi's request table like its other requests. Schedules
 * advance from every call the application makes through compi (the
 * generated entry points poke compi_nbc_poke), and the completion calls
 * (Wait/Test families, Request_get_status) poll them until the requests
 * they wait for are complete, so a schedule never waits for its own Wait.
 *
 * Messages travel on a dup of the application's communicator that compi
 * makes at the first such call with PMPI_Comm_idup (every rank posts it in
 * the same collective call; the call does not wait for it: the schedules
 * on the communicator are held until it completes, see sched.c), with tags
 * carrying a per-communicator sequence number: several collectives
 * outstanding on one communicator match in the order they were started, as
 * the standard asks. */
#ifndef COMPI_NBC_H
#define COMPI_NBC_H
#include "core/comm.h"
#include "core/datatype.h"
#include "core/decide.h"
#include "core/state.h"
#include "core/stats.h"
#include "core/status.h"

/* The families compi counts for the report. */
typedef enum {
    COMPI_NBC_IBCAST,
    COMPI_NBC_IGATHER,
    COMPI_NBC_IGATHERV,
    COMPI_NBC_ISCATTER,
    COMPI_NBC_ISCATTERV,
    COMPI_NBC_IALLGATHER,
    COMPI_NBC_IALLGATHERV,
    COMPI_NBC_IALLTOALL,
    COMPI_NBC_IALLTOALLV,
    COMPI_NBC_IALLTOALLW,
    COMPI_NBC_IALLREDUCE,
    COMPI_NBC_IREDUCE,
    COMPI_NBC_IREDUCE_SCATTER,
    COMPI_NBC_IREDUCE_SCATTER_BLOCK,
    COMPI_NBC_NEIGHBOR_ALLGATHER,
    COMPI_NBC_NEIGHBOR_ALLGATHERV,
    COMPI_NBC_NEIGHBOR_ALLTOALL,
    COMPI_NBC_NEIGHBOR_ALLTOALLV,
    COMPI_NBC_INEIGHBOR_ALLGATHER,
    COMPI_NBC_INEIGHBOR_ALLGATHERV,
    COMPI_NBC_INEIGHBOR_ALLTOALL,
    COMPI_NBC_INEIGHBOR_ALLTOALLV,
    /* passed to the MPI, counted */
    COMPI_NBC_IBARRIER,
    COMPI_NBC_ISCAN,
    COMPI_NBC_IEXSCAN,
    COMPI_NBC_NEIGHBOR_ALLTOALLW,
    COMPI_NBC_INEIGHBOR_ALLTOALLW,
    COMPI_NBC_KINDS
} compi_nbc_kind;
/* Per family: calls, calls on compi's path, application bytes this rank
 * sent in them, messages this rank sent to another node, calls the gate
 * (nbc_gate.c) passed to the MPI's own call. */
enum { COMPI_NBC_CALLS, COMPI_NBC_COMPI, COMPI_NBC_BYTES, COMPI_NBC_INTER_MSGS, COMPI_NBC_GATED, COMPI_NBC_FIELDS };
extern uint64_t compi_nbc_st[COMPI_NBC_KINDS][COMPI_NBC_FIELDS];
extern const char *const compi_nbc_names[COMPI_NBC_KINDS];
extern const char *const compi_nbc_field_names[COMPI_NBC_FIELDS];
#define COMPI_NBC_ADD(kind, field, v) __atomic_fetch_add(&compi_nbc_st[kind][field], (uint64_t)(v), __ATOMIC_RELAXED)

/* Schedules not finished yet (0: every poke is one load). */
extern int compi_nbc_live;

/* ---- building a schedule */
typedef struct compi_sched compi_sched;

/* A new schedule for a collective on comm (ci: its info, framed), counted
 * as family kind, its messages as p2p family fam; NULL with *rc set when
 * compi's communicator for comm cannot be made. */
compi_sched *compi_sched_new(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, compi_family fam, int *rc);
/* Ends the current round: steps added later wait for it to complete. */
void compi_sched_round(compi_sched *s);
/* An alltoall's schedule: this rank sends `away` blocks to other nodes
 * (compi_coll_blocks_away; its sends are decided as that burst's blocks,
 * compi_decide_in_burst). Not set: one to every rank elsewhere. */
void compi_sched_away(compi_sched *s, int away);
/* Ends the current round and starts a lane: the rounds added from here on
 * run in order, independently of the earlier lanes' rounds (their messages
 * must not match those of other lanes: sub tags of their own). */
int compi_sched_lane(compi_sched *s);
/* A message step: count elements of dt at buf to / from peer (MPI_PROC_NULL:
 * none), sub (0..COMPI_NBC_SUBTAGS-1) telling apart messages of one call
 * between the same two ranks that must not match each other. */
#define COMPI_NBC_SUBTAGS 64
int compi_sched_send(compi_sched *s, const void *buf, int count, MPI_Datatype dt, int peer, int sub);
int compi_sched_recv(compi_sched *s, void *buf, int count, MPI_Datatype dt, int peer, int sub);
/* A local step run before the round's messages are posted. */
typedef int (*compi_sched_fn)(void *arg);
int compi_sched_call(compi_sched *s, compi_sched_fn fn, void *arg);
/* inout = in op inout, count elements of the predefined dt. */
int compi_sched_reduce(compi_sched *s, const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op);
/* Memory the schedule frees when it finishes (NULL on failure to allocate). */
void *compi_sched_alloc(compi_sched *s, size_t n);
/* Starts the schedule and gives the application its request (on failure
 * the schedule is freed and nothing was sent). */
int compi_sched_start(compi_sched *s, MPI_Request *request);
/* Runs the schedule to completion (the blocking neighbourhood calls)
 * through the completion call set below. */
int compi_sched_run(compi_sched *s);
/* The Wait that completes compi's requests and advances every live
 * schedule meanwhile: the wrappers' (set at MPI_Init; the room above
 * coll owns the completion calls). */
void compi_sched_set_wait(int (*wait)(MPI_Request *request, MPI_Status *status));
/* Frees a schedule that was never started. */
void compi_sched_abandon(compi_sched *s);

/* ---- point-to-point schedules (MPI_Isendrecv, MPI_Isendrecv_replace):
 * messages on comm itself with the application's tags, so they match any
 * send or receive of the peer's; no dup of comm is made (the call is not
 * collective), the schedule is not one of comm's collectives (a blocking
 * collective does not wait for it) and is counted in its family fam only.
 * The request's status is the receive's (MPI_PROC_NULL's when there is
 * none). Started with compi_sched_start. */
compi_sched *compi_sched_new_p2p(MPI_Comm comm, const compi_comm_info *ci, compi_family fam, int *rc);
int compi_sched_p2p_send(compi_sched *s, const void *buf, int count, MPI_Datatype dt, int dest, int tag);
int compi_sched_p2p_recv(compi_sched *s, void *buf, int count, MPI_Datatype dt, int source, int tag);

/* ---- progress */
/* Advances every live schedule once (and the communicators' set-ups, see
 * sched.c); returns how many finished (0: no progress). */
int compi_nbc_progress(void);
/* Completes every communicator set-up in flight (before MPI_Finalize). */
void compi_nbc_setups_complete(void);
/* The generated entry points' hook is compi_nbc_poke (wrappers/impl.h). */
/* Before a blocking completion call on these PMPI handles: while schedules
 * are live, advances them until the PMPI call will not block on one of
 * them (need_all: every request complete; else at least one). */
void compi_nbc_hold(int count, const MPI_Request reqs[], int need_all);

/* Before a blocking collective on comm (the application's communicator):
 * advances the schedules until none of comm's is live. A blocking
 * collective gives no hook to advance them while it blocks, and a peer
 * may enter it only after its Wait on one of them returned. Every rank of
 * comm started the same schedules on comm before this call (collectives
 * go in one order per communicator) and each completes them here or in
 * its Wait, so this waits for nothing the plain call would not.
 * Schedules of other communicators are not waited for: a peer may start
 * its part of them after this collective. */
void compi_nbc_drain(MPI_Comm comm);

/* ---- gates (nbc_gate.c): in adaptive and guided mode, whether a call
 * whose schedule compi could run runs it or the MPI's own call, per
 * communicator, family and size class, decided by lib/engine/trials.h's
 * trials from votes agreed without a blocking collective. */
typedef struct compi_nbc_gate compi_nbc_gate;
typedef struct {
    compi_nbc_gate *g; /* NULL: no gate, compi's path */
    compi_nbc_kind kind;
    int path; /* compi_trials_path */
    int lag;  /* a call between a gate's vote and its use: no trial */
} compi_nbc_ticket;
/* The path of this call (COMPI_TRIALS_PATH_COMPI or _MPI); opens the
 * call's scope. size: a size every rank knows alike (0: class 0). Every
 * call must be followed by compi_nbc_gate_end once the call has been
 * started, whichever path it took. */
int compi_nbc_gate_begin(MPI_Comm comm, const compi_comm_info *ci, compi_nbc_kind kind, size_t size,
                         compi_nbc_ticket *t);
void compi_nbc_gate_end(compi_nbc_ticket *t);
/* The gate of the trial call running on this thread (NULL: none) and
 * whether its frames are to be evaluated: a schedule started in it counts
 * the frames of its every round for that trial's vote. */
compi_nbc_gate *compi_nbc_gate_trial(int *probe);
/* Adds a trial schedule's frame bytes and the bytes compression saved. */
void compi_nbc_gate_count(compi_nbc_gate *g, uint64_t frame_bytes, uint64_t saved_bytes);
/* A communicator's gates (sched.c keeps them with compi's dup x). */
typedef struct compi_nbc_gates compi_nbc_gates;
compi_nbc_gates *compi_nbc_gates_of(MPI_Comm comm, int *rc);
compi_nbc_gates *compi_nbc_gates_new(void); /* NULL: no memory */
/* The communicator's set-up completed (x: compi's dup, rc: how; under
 * sched.c's lock): the votes queued until then are posted, in order. */
void compi_nbc_gates_ready(compi_nbc_gates *gs, MPI_Comm x, int rc);
/* Whether none of gs's votes is queued or in flight; completes those that
 * finished, without waiting (a freed communicator's, from the progress). */
int compi_nbc_gates_idle(compi_nbc_gates *gs);
void compi_nbc_gates_free(compi_nbc_gates *gs);
/* Completes every vote still in flight (before MPI_Finalize). */
void compi_nbc_finalize(void);

/* ---- helpers of the families */
/* comm's process topology (*topo: MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH)
 * and this rank's in- and out-degree; *weighted for a distributed graph.
 * Returns an MPI error (MPI_ERR_TOPOLOGY without a topology). */
int compi_nbc_degrees(MPI_Comm comm, int *topo, int *indeg, int *outdeg, int *weighted);
/* The neighbours of comm's topology, in the standard's order: *in sources
 * (receive blocks), *out destinations (send blocks), malloc'd; cart
 * (non-NULL *cart_sub): the subtag pairing of each slot. Returns an MPI
 * error (MPI_ERR_TOPOLOGY without a topology). */
int compi_nbc_neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out, int **send_sub, int **recv_sub);

/* ---- node-aware reductions (nbc_nodes.c): where some node holds several
 * ranks; ci: comm's info (the gates of nbc.c passed) */
int compi_nbc_node_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                             const compi_comm_info *ci, MPI_Request *request);
int compi_nbc_node_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                          MPI_Comm comm, const compi_comm_info *ci, MPI_Request *request);
/* recvcounts NULL: every block recvcount elements (the _block form) */
int compi_nbc_node_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, int recvcount,
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const compi_comm_info *ci,
                                  compi_nbc_kind kind, MPI_Request *request);

/* ---- profile (nbc_prof.c): a neighbourhood call's blocks as this rank's
 * point-to-point sends of family (a COMPI_PROF_* send family) to its
 * out-neighbours; sendcounts NULL: sendcount each */
void compi_nbr_prof(MPI_Comm comm, const int *sendcounts, int sendcount, MPI_Datatype sendtype, int family);
/* A rooted nonblocking call (Igather(v), Iscatter(v)) recorded as its
 * blocking twin: the root by its side (rcount, rtype, rcounts: the v
 * variants' every rank's count), the others by theirs (count, type). */
void compi_nbc_rooted_prof(MPI_Comm comm, int family, int root, int rcount, MPI_Datatype rtype, const int *rcounts,
                           int count, MPI_Datatype type);
#endif
