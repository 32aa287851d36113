/* SPDX-License-Identifier: BSD-3-Clause */
/* What compi caches per communicator (lib/core/runtime.c): where its peers
 * live, and the policy (mode, codec, threshold) its hints give it. */
#ifndef COMPI_CORE_COMM_H
#define COMPI_CORE_COMM_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "compi.h"
#include "engine/config.h"

typedef struct compi_comm_info {
    int framed; /* p2p traffic on this comm carries compi frames */
    int is_inter;
    int peer_count; /* size of the group peers are named in (remote group for intercomms) */
    int my_node;
    int *peer_node;   /* node id per peer rank */
    int *peer_world;  /* MPI_COMM_WORLD rank per peer rank */
    int peers_shared; /* the two are the process's (peers in MPI_COMM_WORLD's order): not freed */
    /* peers on my node, and on the node that has the most of them: an
     * alltoall's blocks from every rank of a node leave through its link
     * together (the same on every rank: widest); 0 on a communicator with
     * a topology, whose alltoall family is mostly the neighbourhood
     * collectives (a few neighbours each, not every rank) */
    int node_peers, widest;
    /* the environment's policy, overridden by the communicator's MPI_Info
     * hints compi_mode, compi_codec, compi_min_bytes */
    compi_mode mode;
    const compi_codec *codec;
    size_t min_bytes;
    uint32_t id;          /* ordinal of first use on this rank: names the comm in traces */
    size_t coll_floor[5]; /* collective floors agreed from learned links, per count of extra
                                         metadata collectives (0: the engine's static ones) */
    uint64_t coll_calls;  /* collectives so far: when the floors are agreed again */
    int probed;           /* times its links were probed (engine/learn.c: at most a few) */
    int refs;             /* the communicator's attribute + requests still using it */
    int published;        /* set (release) once built: a thread that finds the info in the
                            attribute cache without compi's lock reads it (acquire) after that */
    /* set on the copy an attribute copy callback made (never published):
     * the info of the communicator copied from, whose policy a duplicate
     * takes; compi_comm_lookup builds the real info from the communicator
     * itself */
    const struct compi_comm_info *copied_from;
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

#endif
