/* SPDX-License-Identifier: BSD-3-Clause */
/* The node-aware collectives' report counters: per collective kind, calls,
 * bytes, wire bytes, seconds and the paths taken; per rooted collective,
 * the calls on compi's path (coll.h). */
#include "coll/coll.h"

const char *const compi_coll_names[COMPI_COLL_KINDS] = {
    "allgather",      "allgatherv",           "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce",
    "reduce_scatter", "reduce_scatter_block", "scan",     "exscan",
};
const char *const compi_coll_field_names[COMPI_COLL_FIELDS] = {
    "calls",   "node_aware_calls",    "gated_calls",         "bytes", "inter_node_wire_bytes",
    "seconds", "leaders_split_calls", "leaders_whole_calls",
};
uint64_t compi_coll_st[COMPI_COLL_KINDS][COMPI_COLL_FIELDS];
const char *const compi_rooted_names[COMPI_ROOTED_KINDS] = {"bcast", "gather", "gatherv", "scatter", "scatterv"};
uint64_t compi_rooted_compi_calls[COMPI_ROOTED_KINDS];
