/* SPDX-License-Identifier: BSD-3-Clause */
/* compi collective I/O: the foundations of LA-Two-Phase.
 *
 * Two-phase collective I/O cuts the accessed file range into equal file
 * domains, one per aggregator; each aggregator gathers the bytes of its
 * domain from the processes that hold them (redistribution) and writes one
 * contiguous range. ROMIO and OMPIO hand domain i to aggregator i of a fixed
 * list whatever data each process holds; LA-Two-Phase instead assigns each
 * domain to the process holding most of it, by solving a linear assignment
 * problem on the processes x domains matrix ([Filgueira 2010], ch. 3; README.md References).
 *
 * The room's pieces (twophase.h wires them into MPI_File_*):
 *   assign.c   a Jonker-Volgenant linear assignment solver (MPI-free)
 *   flatten.c  the (file offset, length) segments an access touches, from a
 *              file view and a memory datatype (needs MPI: envelope/contents)
 *   plist.c    compact piece lists, the two-phase metadata (MPI-free)
 *   domains.c  file domains, the processes x domains matrices, the `default`
 *              and `la` aggregator placements, the redistribution volume each
 *              implies (MPI-free)
 *   mpiio_model.c  the MPI's own MPI-IO modelled (ROMIO), and the gate's verdict:
 *              whether compi can beat it (MPI-free)
 * and the two-phase call itself (twophase_internal.h): file.c (open files,
 * hints, views), twophase.c (the call's steps), exchange.c (one cycle's
 * redistribution and the aggregators' accesses), report.c.
 * Errors are negative values: compi_status codes plus the COMPI_IO_ERR_* below. */
#ifndef COMPI_IO_H
#define COMPI_IO_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h> /* types only in the MPI-free parts (everything builds with mpicc) */
#include "compi.h"

#define COMPI_IO_ERR_ARG (-20)         /* bad size, NULL pointer, NaN or infinite weight */
#define COMPI_IO_ERR_INFEASIBLE (-21)  /* no assignment covers every domain (too few candidates) */
#define COMPI_IO_ERR_UNSUPPORTED (-22) /* datatype or view compi does not flatten */
#define COMPI_IO_ERR_MPI (-23)         /* an MPI call failed */

/* Text of a compi_status or COMPI_IO_ERR_* code. */
const char *compi_io_error_string(int rc);

/* ---------------------------------------------------------------- assign.c
 * Rectangular linear assignment: rows x cols weights w (row-major). Every
 * row of the smaller side is assigned to a distinct element of the larger
 * side so that the sum of the chosen weights is minimal (COMPI_ASSIGN_MIN) or
 * maximal (COMPI_ASSIGN_MAX). Weights are doubles: byte counts are exact up
 * to 2^53; |w| must stay below 2^53 / (rows + cols) for exact totals.
 * Jonker-Volgenant (1987): column reduction, two rounds of augmenting row
 * reduction, then shortest augmenting paths (Dijkstra on reduced costs) for
 * the rows still free; rectangular problems are transposed so rows <= cols
 * and padded with zero-weight rows to a square.
 * Out: row_col[rows] (column of each row, -1 if unassigned: only when
 * rows > cols), col_row[cols] (row of each column, -1 if unassigned), *total
 * (sum of the chosen weights). Any out pointer may be NULL. rows or cols 0 is
 * a valid empty problem. Errors: COMPI_IO_ERR_ARG, COMPI_ERR_NOMEM. */
typedef enum { COMPI_ASSIGN_MIN = 0, COMPI_ASSIGN_MAX = 1 } compi_assign_sense;
int compi_assign_solve(size_t rows, size_t cols, const double *w, compi_assign_sense sense, int *row_col, int *col_row,
                       double *total);

/* The same with forbidden pairs: allowed[r*cols+c] == 0 excludes (r, c).
 * allowed NULL allows every pair. COMPI_IO_ERR_INFEASIBLE when no assignment
 * of every row of the smaller side uses allowed pairs only. */
int compi_assign_solve_masked(size_t rows, size_t cols, const double *w, const unsigned char *allowed,
                              compi_assign_sense sense, int *row_col, int *col_row, double *total);

/* ------------------------------------------------------------------ segs.c
 * A list of byte segments (file offsets or memory displacements), in access
 * order. compi_io_segs_add appends and merges with the last segment when it
 * continues it exactly (off == last.off + last.len); zero lengths are dropped. */
typedef struct {
    int64_t off, len;
} compi_io_seg;
typedef struct {
    compi_io_seg *v;
    size_t n, cap;
    int64_t bytes;
} compi_io_segs;

void compi_io_segs_init(compi_io_segs *s);
void compi_io_segs_free(compi_io_segs *s);
int compi_io_segs_add(compi_io_segs *s, int64_t off, int64_t len);
/* Appends every segment of src shifted by delta (merging across the seam). */
int compi_io_segs_append(compi_io_segs *s, const compi_io_segs *src, int64_t delta);

/* ----------------------------------------------------------------- plist.c
 * Compact piece lists: the (file offset, length) pieces a process sends an
 * aggregator in one cycle (two-phase metadata), increasing, not overlapping,
 * every length >= 1, inside the aggregator's window [lo, hi). 16 bytes a
 * piece made the metadata outweigh the data for tiny pieces; here:
 *   header  varint n (pieces), varint bytes (their total), varint body size
 *   body    records: varint delta (gap from the previous piece's end, from
 *           lo for the first), varint k >= 1, varint len, and when k > 1
 *           varint gap: k pieces of len bytes, gap bytes apart
 * (varints: LEB128, at most 10 bytes). Equal lengths at equal strides
 * (vector, subarray rows) cost one record; irregular pieces ~3-6 bytes. */
typedef struct {
    int64_t lo, end; /* window start; end of the last piece added */
    int64_t n, bytes;
    int64_t rdelta, rk, rlen, rgap; /* the record being extended */
    unsigned char *body;
    size_t len, cap;
    unsigned char head[30];
    size_t head_len;
} compi_io_plist;

void compi_io_plist_init(compi_io_plist *pl, int64_t lo);
void compi_io_plist_free(compi_io_plist *pl);
/* Appends a piece; COMPI_IO_ERR_ARG if len < 1 or off is below the end of
 * the previous piece (or lo); COMPI_ERR_NOMEM. */
int compi_io_plist_add(compi_io_plist *pl, int64_t off, int64_t len);
/* Ends the list: then compi_io_plist_size bytes, written by compi_io_plist_write. */
int compi_io_plist_finish(compi_io_plist *pl);
size_t compi_io_plist_size(const compi_io_plist *pl);
void compi_io_plist_write(const compi_io_plist *pl, unsigned char *out);

/* Parses the list at p[0..size) (trailing bytes after it are the caller's:
 * *used says where it ends), checking every piece against [lo, hi), the
 * count and the total; fn (NULL: none) gets each piece in order, as it is
 * decoded, so a caller that must not act on a bad list parses twice (first
 * with fn NULL). *np, *bytes, *used may be NULL. COMPI_IO_ERR_ARG: malformed. */
typedef void (*compi_io_plist_fn)(void *arg, int64_t off, int64_t len);
int compi_io_plist_parse(const unsigned char *p, size_t size, int64_t lo, int64_t hi, compi_io_plist_fn fn, void *arg,
                         int64_t *np, int64_t *bytes, size_t *used);

/* --------------------------------------------------------------- flatten.c
 * Flattening uses PMPI_Type_get_envelope / get_contents recursively:
 * named, dup, contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct, subarray (C and Fortran order) and
 * resized types are walked natively; darray, named types with holes
 * (MPI_DOUBLE_INT...) and any other combiner are read back from MPI_Pack of a
 * self-describing buffer (each byte holds its own offset, one pass per
 * offset byte), only when the type's true extent is at most
 * COMPI_IO_PACK_PROBE_MAX bytes (else COMPI_IO_ERR_UNSUPPORTED).
 * All calls are local (no communication). */
#define COMPI_IO_PACK_PROBE_MAX ((int64_t)64 << 20)

/* The type map of one instance of type, in type-map order, as byte
 * segments relative to the buffer address (may be negative), merged. */
int compi_io_flatten_type(MPI_Datatype type, compi_io_segs *out);

/* The memory side of an access: count instances of type tiled by its extent. */
int compi_io_flatten_memory(MPI_Datatype type, int count, compi_io_segs *out);

/* The file side: the file segments that the data bytes [pos, pos + nbytes)
 * of a view (disp, etype, filetype; the filetype tiles the file from disp
 * every extent bytes) land on, in access order, merged. For an explicit
 * offset in etypes, pos = offset * size(etype). Errors: COMPI_IO_ERR_ARG
 * (negative pos/nbytes, filetype of size 0 with nbytes > 0), those above. */
int compi_io_flatten_view(MPI_Offset disp, MPI_Datatype filetype, int64_t pos, int64_t nbytes, compi_io_segs *out);

/* The same from a filetype already flattened (ft: one instance, relative to
 * the tile start; ft_extent: its extent). MPI-free. */
int compi_io_view_segments(int64_t disp, const compi_io_segs *ft, int64_t ft_extent, int64_t pos, int64_t nbytes,
                           compi_io_segs *out);

/* --------------------------------------------------------------- domains.c
 * Two-phase planning, MPI-free: every process's file segments in, file
 * domains, the processes x domains matrices and aggregator placements out.
 * File domains: the global access range [start, end) cut into n equal parts
 * (ceil), boundaries moved up to multiples of stripe (absolute file offsets)
 * when stripe > 0, as ROMIO does; trailing domains may be empty. */
typedef struct {
    int n;
    int64_t start, end;
    int64_t *begin, *stop; /* domain k is [begin[k], stop[k]) */
} compi_io_domains;

int compi_io_domains_make(int64_t start, int64_t end, int n, int64_t stripe, compi_io_domains *d);
void compi_io_domains_free(compi_io_domains *d);
/* The global access range of nprocs segment lists (start == end when empty). */
void compi_io_access_range(int nprocs, const compi_io_segs *segs, int64_t *start, int64_t *end);

/* The processes x domains matrices (row-major, nprocs x d->n): bytes[p][k]
 * = bytes of process p inside domain k; blocks[p][k] = contiguous pieces of
 * p's access inside k ([Filgueira 2010]'s weight; a segment crossing a boundary
 * counts in both). Either out may be NULL. */
int compi_io_domain_matrix(const compi_io_domains *d, int nprocs, const compi_io_segs *segs, double *bytes,
                           double *blocks);

/* `default` placement (ROMIO-like, cb_config_list "*:1"): one aggregator
 * per node, its lowest rank, nodes in order of their lowest rank; cb_nodes
 * > 0 keeps the first cb_nodes of them. node_of[p] (NULL: every process its
 * own node). Writes the aggregators into agg (room for nprocs) in domain
 * order and returns how many (the number of domains), or an error. */
int compi_io_place_default(int nprocs, const int *node_of, int cb_nodes, int *agg);

/* `la` placement: each of ndomains domains to a distinct process maximising
 * the sum of w[p][k] (bytes or blocks matrix), via compi_assign_solve.
 * candidate[p] != 0 allows p (NULL: all); one_per_node with node_of: at most
 * one aggregator per node (solved exactly on nodes x domains with each
 * node's best candidate per domain). agg[k] = process of domain k.
 * COMPI_IO_ERR_INFEASIBLE when fewer candidates (nodes) than domains. */
int compi_io_place_la(int nprocs, int ndomains, const double *w, const unsigned char *candidate, const int *node_of,
                      int one_per_node, int *agg);

/* `la` with the network in view (bytes weight, one aggregator per node):
 * maximising the bytes the aggregators already hold can leave bytes on the
 * wrong node (measured on the bips3d mesh at 4 ranks per node: la moved 14 %
 * fewer bytes than default but no fewer across nodes). This solves the nodes
 * x domains assignment on each node's summed bytes (the fewest bytes across
 * nodes any one-per-node placement can reach), each domain's aggregator the
 * node's member holding most of it. agg (la's placement, in and out)
 * becomes whichever of agg, that placement and def (`default`'s) moves the
 * fewest bytes across nodes among those that move no more bytes between
 * processes than def (ties keep the earlier): so `la` never moves more
 * bytes than `default`, neither to other processes nor across nodes.
 * node_of required. */
int compi_io_place_la_net(int nprocs, int ndomains, const double *bytes, const int *node_of, const int *def, int *agg);

/* What a placement costs in the redistribution phase, from the bytes
 * matrix: bytes already at their aggregator (local), bytes sent to another
 * process (moved), of which to another node (internode, node_of NULL: every
 * process its own node), and the (process, domain) messages that carry them
 * (one per pair with data, cb_buffer_size cycles not counted). */
typedef struct {
    int64_t total, local, moved, internode;
    int64_t messages, internode_messages;
} compi_io_volume;

int compi_io_volume_of(int nprocs, int ndomains, const double *bytes, const int *agg, const int *node_of,
                       compi_io_volume *v);

/* ----------------------------------------------------------- mpiio_model.c
 * The gate: whether compi's two-phase plan can beat the MPI's own MPI-IO.
 * compi models only ROMIO (MPICH's, Open MPI's romio321): with the hint
 * romio_cb_write/romio_cb_read "automatic" (the default) and no interleaving
 * accesses ROMIO writes independently and moves nothing; otherwise it cuts
 * the range into equal domains (compi_io_domains_make), domain i to
 * aggregator i of its list (cb_config_list "*:1": one per host in rank
 * order, cb_nodes of them). compi passes a call to the MPI when `la`'s
 * placement moves no fewer bytes across nodes than ROMIO's and compression
 * cannot make up for it: compression off, or ROMIO moves nothing across
 * nodes. Under OMPIO or an unknown MPI-IO compi never passes. "No fewer"
 * has a margin: la must move COMPI_IO_GATE_MARGIN % fewer bytes across
 * nodes than ROMIO, else the call is passed. */
typedef enum {
    COMPI_IO_MPIIO_UNKNOWN = 0,
    COMPI_IO_MPIIO_ROMIO,
    COMPI_IO_MPIIO_OMPIO,
    COMPI_IO_MPIIO_COUNT
} compi_io_mpiio;
const char *compi_io_mpiio_name(int kind);
/* ROMIO's interleave test on every process's access range [start[p], end[p])
 * in rank order (start == end: empty): 1 when some process starts before the
 * previous one ends (ROMIO then runs two-phase even in "automatic"). */
int compi_io_romio_interleaved(int nprocs, const int64_t *start, const int64_t *end);
/* The bytes of one process (me, increasing segments inside [d->start,
 * d->end)) whose domain's aggregator agg[k] is on another node (node_of NULL:
 * every process its own node). Summed over processes: the placement's
 * inter-node redistribution bytes. */
int64_t compi_io_row_internode(const compi_io_domains *d, const compi_io_segs *mine, int me, const int *agg,
                               const int *node_of);
/* ROMIO as the gate models it: romio_cb_write (or _read) 1 automatic, 0
 * enable, -1 disable; its aggregator list (romio_aggregator_list; nragg 0:
 * unknown, then one per node in rank order, cb_nodes of them); striping_unit. */
typedef struct {
    int cb;
    const int *ragg;
    int nragg, cb_nodes;
    int64_t stripe;
} compi_io_romio_model;
/* One process's bytes that ROMIO would send across nodes in a collective
 * call over the global range [gs, ge), every process's range in starts/ends:
 * 0 when ROMIO accesses independently (cb -1, or automatic and no
 * interleaving), else compi_io_row_internode over ROMIO's domains. -1: no
 * memory. */
int64_t compi_io_romio_row_internode(const compi_io_romio_model *m, int nprocs, const int *node_of, int64_t gs,
                                     int64_t ge, const int64_t *starts, const int64_t *ends, const compi_io_segs *mine,
                                     int me);
/* The decision, from data every process has: COMPI_IO_GATE_PASS (the MPI's
 * own call) or COMPI_IO_GATE_COMPI. compress: compi's inter-node messages
 * are compressed (a framed communicator in a compressing mode). */
enum { COMPI_IO_GATE_COMPI = 0, COMPI_IO_GATE_PASS = 1 };
/* la must move at least this many percent fewer bytes across nodes than
 * ROMIO to take compi's path without compression (mpiio_model.c says why). */
#define COMPI_IO_GATE_MARGIN 10
int compi_io_gate(int mpiio, int64_t la_internode, int64_t mpi_internode, int compress);

/* The gate with compression's account measured (compi_io_gate is this with
 * nothing measured). Where la alone does not clear the margin and compi
 * compresses, compression must make up for it, and the model says whether
 * it can: every byte a process compresses or decompresses is on that
 * process's critical path (a read's aggregator compresses every reply it
 * sends across nodes before the first leaves; a write's aggregator
 * decompresses what it receives), the links carry their bytes in parallel,
 * one per node:
 *     T_mpi   = mpi_internode * beta / nodes
 *     T_compi = la_internode / ratio * beta / nodes + comp_max * c + decomp_max * d
 * compi's path is taken when T_compi is COMPI_IO_GATE_MARGIN % below T_mpi.
 * Nothing measured yet (ratio 0): compi's path (the call measures it). */
typedef struct {
    int mpiio, compress, nodes;
    int64_t la_internode, mpi_internode;
    int64_t comp_max, decomp_max; /* compi_io_codec_load */
    double beta_ns;               /* inter-node ns per byte (compi_engine_inter_ns_per_byte) */
    double c_ns, d_ns;            /* measured compression (evaluation included) and decompression ns per input byte */
    double ratio;                 /* measured compression ratio (input / output) of the inter-node frames; 1:
                                       frames were decided on and none compressed; 0: nothing measured */
} compi_io_gate_in;
int compi_io_gate_model(const compi_io_gate_in *in);
/* The codec work on the critical path of placement agg (ndomains domains,
 * bytes[p * ndomains + k] = process p's bytes in domain k): a write's
 * senders compress and its aggregators decompress, a read's aggregators
 * compress and its processes decompress, every inter-node piece. *comp_max,
 * *decomp_max: the most inter-node bytes one process compresses, decompresses. */
/* The run's codec record summed over the processes, rec[0..4] = compression
 * ns (sample evaluations included), decompression ns, bytes into codecs,
 * bytes out of them, inter-node messages decided on: per-byte times and the
 * ratio for compi_io_gate_in (ratio 0: nothing decided on yet; 1, times 0:
 * decided on, nothing compressed). */
void compi_io_codec_rates(const double *rec, double *c_ns, double *d_ns, double *ratio);
void compi_io_codec_load(int nprocs, int ndomains, const double *bytes, const int *agg, const int *node_of,
                         int is_write, int64_t *comp_max, int64_t *decomp_max);

/* The same with flags: COMPI_ASSIGN_NO_INIT skips column reduction and
 * augmenting row reduction (every row starts free at zero prices), so the
 * shortest augmenting paths do all the work: for tests and comparisons. */
#define COMPI_ASSIGN_NO_INIT 1u
int compi_assign_solve_ex(size_t rows, size_t cols, const double *w, const unsigned char *allowed,
                          compi_assign_sense sense, unsigned flags, int *row_col, int *col_row, double *total);

#endif
