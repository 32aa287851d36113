/* SPDX-License-Identifier: BSD-3-Clause */
/* The SimGrid SMPI compatibility room (the `smpi` build flavour only).
 *
 * The smpi build force-includes this header into every source of libcompi
 * (cmake/CompiSmpi.cmake); the openmpi and mpich builds never see it. SMPI
 * (SimGrid 3.32) declares but does not implement a few calls compi makes;
 * they are routed here to lib/compat/smpi_compat.c:
 *   - the matched-probe family (Mprobe, Improbe, Mrecv, Imrecv) and the
 *     message handle conversions: emulated by a probe and an immediate
 *     receive of the whole message into a buffer that the handle owns, so a
 *     matched message leaves the MPI's queues at the probe exactly as with a
 *     real matched probe (no later receive can take it). SMPI runs each
 *     simulated rank as one thread of the simulator, one at a time, so
 *     nothing can receive between the probe and that receive;
 *   - MPI_Get_elements(_x): computed from the byte count of the status;
 *   - MPI_Topo_test: MPI_UNDEFINED (SMPI has no graph or neighbourhood
 *     collectives, whose communicators compi tells apart by it).
 * It also charges a modelled codec cost to the simulated clock
 * (COMPI_SIM_CODEC_COST, docs/simulate.md), so that simulated times do not
 * depend on how busy the simulating machine is. */
#ifndef COMPI_COMPAT_SMPI_H
#define COMPI_COMPAT_SMPI_H
#include <mpi.h>

int compi_compat_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int compi_compat_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
int compi_compat_mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status);
int compi_compat_imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request);
MPI_Fint compi_compat_message_c2f(MPI_Message message);
MPI_Message compi_compat_message_f2c(MPI_Fint f);
int compi_compat_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count);
int compi_compat_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count);
int compi_compat_topo_test(MPI_Comm comm, int *status);

#define PMPI_Mprobe compi_compat_mprobe
#define PMPI_Improbe compi_compat_improbe
#define PMPI_Mrecv compi_compat_mrecv
#define PMPI_Imrecv compi_compat_imrecv
#define PMPI_Message_c2f compi_compat_message_c2f
#define PMPI_Message_f2c compi_compat_message_f2c
#define PMPI_Get_elements_x compi_compat_get_elements_x
#define PMPI_Get_elements compi_compat_get_elements
#define PMPI_Topo_test compi_compat_topo_test

/* Non-contiguous receives are staged as bytes and unpacked (lib/core/
 * message.c): SMPI 3.32 mis-places a frame received into a struct type
 * that joins compi's header slot and the user's layout. */
#define COMPI_COMPAT_STAGE_NONCONTIG 1

/* No interposition check (lib/wrappers/interpose.c): under SMPI compi is
 * linked into the program, never preloaded, and each simulated rank loads
 * its own copy of libcompi, so the check's global symbol lookups would find
 * another rank's copy of compi's own symbols, and scan every rank's copy:
 * O(P) per lookup, O(P^2) in all. */
#define COMPI_COMPAT_NO_INTERPOSE_CHECK 1

/* Waits block in MPI instead of polling (lib/netcal/netcal.c): polling
 * waits politely so as not to steal a measuring pair's core, but simulated
 * ranks take no core from each other, and every MPI_Test costs simulated
 * time (smpi/test) and a round of the simulator's scheduler. With 56 of 64
 * ranks polling while one pair measures, the network calibration at
 * MPI_Init cost minutes of host CPU, or (with SMPI's default test cost,
 * 0.1 ms and growing) its whole budget in tests, leaving the link fits
 * to the smallest message sizes. */
#define COMPI_COMPAT_BLOCKING_WAITS 1

/* No codec pool (lib/core/pool_setup.c): a simulated rank is a SimGrid
 * actor, and a thread of its own outside the simulator faults in SMPI's
 * interposed clock (smpi_clock_gettime asks for the calling actor, which a
 * helper thread is not). Codec time is charged by a model here anyway
 * (lib/compat/smpi_codecs.c), so helpers could not change simulated time. */
#define COMPI_COMPAT_NO_POOL 1

/* compi's side channel (lib/core/escape.c) is MPI_COMM_WORLD itself, on
 * tags from -2^30 down: SMPI creates no communicator spanning its ranks
 * without a ring over all of them (P^2 messages: 20 s of host CPU at 1024
 * ranks, eight times a plain MPI_Init+Finalize), and escaped bytes and
 * pipelined chunks of point-to-point messages may come at any time after
 * MPI_Init, so no later collective point could create one. Negative tags
 * are SMPI's own (its collectives use -1 .. -7000): an application cannot
 * send one (MPI_ERR_TAG), and SMPI matches MPI_ANY_TAG only with tags >= 0,
 * so no receive or probe of the application, wildcard or not, can take a
 * side message, and compi's tags are far from any SMPI uses. The messages
 * go through SMPI's own request calls, which take negative tags. */
#define COMPI_COMPAT_SIDE_ON_WORLD 1
#define COMPI_COMPAT_SIDE_TAG_UB ((1 << 29) - 1)
int compi_compat_side_isend(const void *buf, int n, int world, int tag, MPI_Request *req);
int compi_compat_side_irecv(void *buf, int n, int world, int tag, MPI_Request *req);
int compi_compat_side_iprobe(int world, int tag, int *flag, MPI_Status *st);

/* Per-thread data is per-rank data: a simulated rank is one SimGrid actor
 * and has no threads of its own (no codec pool; SMPI lets no other thread
 * call MPI), and all actors run on one thread of the simulator. Plain
 * static data is what SMPI privatizes per rank, in both of its ways
 * (smpi/privatization:dlopen copies the program, mmap swaps its data
 * segment at every switch between ranks); thread-local data would be one
 * copy for all ranks under mmap, with compi linked into the program. */
#define __thread

/* SMPI gives MPI_MESSAGE_NO_PROC the value of MPI_MESSAGE_NULL, and so does
 * compi here: a program sees SMPI's values. A matched MPI_PROC_NULL is
 * MPI_MESSAGE_NO_PROC, and a receive of it returns the empty status. */

#endif
