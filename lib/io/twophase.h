/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's own two-phase collective I/O, wired into MPI_File_* by
 * lib/wrappers/fileio.c. Part of libcompi (needs compi's core for frames).
 *
 * A file opened through compi carries a compi_io_file. Its policy
 * (MPI_Info hint compi_cb_aggregators, else COMPI_IO_AGGREGATORS) is
 *   mpi      every call goes to the MPI's own MPI-IO (the default);
 *   default  compi's two-phase, one aggregator per node (its lowest rank),
 *            file domain i to aggregator i, as ROMIO's cb_config_list "*:1";
 *   la       compi's two-phase, each domain to the process (at most one per
 *            node) that holds most of its bytes: a linear assignment
 *            (lib/io/assign.c) on the processes x domains bytes matrix, or
 *            with compi_cb_weight=blocks (COMPI_IO_WEIGHT) on the matrix of
 *            contiguous block counts ([Filgueira 2010]'s weight).
 * The collective data calls (write_all, write_at_all, read_all, read_at_all)
 * then run, on every process of the file's communicator:
 *   1 flatten the access: file segments from the view (disp, filetype) and
 *     the data position, memory segments from (buf, count, datatype); the
 *     data is packed into one stream in data order
 *   2 one allgather of {flags, start, end}: the global access range, and
 *     whether every process can take compi's path (any process that cannot
 *     sends everyone to the MPI's own call, counted with its reason)
 *   3 file domains: the range cut into as many equal parts as aggregators
 *     (cb_nodes, aligned to striping_unit when given)
 *   4 aggregator placement (la: one allgather of the bytes matrix's rows)
 *   5-7 in cycles of cb_buffer_size bytes of each domain: every process
 *     sends each aggregator its pieces in the aggregator's window (a
 *     compact piece list, lib/io/plist.c, then the data: one message;
 *     inter-node ones as compi frames, compressed per the communicator's mode, family "io"), by an alltoall
 *     of lengths and an alltoallv of bytes on compi's duplicate of the
 *     communicator. Reads send the offsets first and get the data back.
 *   8 each aggregator writes (reads) the runs of bytes that processes wrote
 *     (asked for), each contiguous run with one MPI_File_write_at (read_at) on
 *     a second handle compi opened on the same file with the MPI's byte view:
 *     no hole is filled, no byte is read to be written back.
 * The individual file pointer stays the MPI's (read with get_position,
 * moved with seek after the call); status counts are the bytes accessed;
 * an error on any process is returned by all (MPI_MAX of the codes, as
 * ROMIO), through the file's error handler. */
#ifndef COMPI_IO_TWOPHASE_H
#define COMPI_IO_TWOPHASE_H

#include "core/comm.h"
#include "io/io.h"

/* Why a call on a compi file went to the MPI's own MPI-IO. */
typedef enum {
    COMPI_IO_PASS_POLICY = 0,  /* policy mpi */
    COMPI_IO_PASS_INDEPENDENT, /* independent read/write(_at) */
    COMPI_IO_PASS_NONBLOCKING, /* iread/iwrite, nonblocking collectives */
    COMPI_IO_PASS_SPLIT,       /* split collectives (_begin/_end) */
    COMPI_IO_PASS_SHARED,      /* shared and ordered file pointers */
    COMPI_IO_PASS_ATOMIC,      /* atomic mode */
    COMPI_IO_PASS_DATAREP,     /* a data representation other than "native" */
    COMPI_IO_PASS_SEQUENTIAL,  /* MPI_MODE_SEQUENTIAL */
    COMPI_IO_PASS_AMODE,       /* write on a read-only file, read on a write-only one: the MPI's error */
    COMPI_IO_PASS_VIEW,        /* a filetype compi does not flatten, or not monotonic */
    COMPI_IO_PASS_TYPE,        /* a memory datatype compi does not flatten */
    COMPI_IO_PASS_ARGS,        /* arguments the MPI must judge (count < 0, partial etypes, negative offset) */
    COMPI_IO_PASS_EOF,         /* a read past the end of the file */
    COMPI_IO_PASS_NOTHING,     /* the gate: la cannot beat the MPI's own (ROMIO) placement here */
    COMPI_IO_PASS_COUNT
} compi_io_pass;
extern const char *const compi_io_pass_names[COMPI_IO_PASS_COUNT];

/* The collective data calls compi runs. */
typedef enum {
    COMPI_IO_WRITE_ALL = 0,
    COMPI_IO_WRITE_AT_ALL,
    COMPI_IO_READ_ALL,
    COMPI_IO_READ_AT_ALL,
    COMPI_IO_OPS
} compi_io_op;

/* Stage timers of compi's path. */
enum { COMPI_IO_T_FLATTEN = 0, COMPI_IO_T_PLAN, COMPI_IO_T_EXCHANGE, COMPI_IO_T_IO, COMPI_IO_T_COUNT };

/* One file's counters on one process (all uint64_t: reduced in one call). */
typedef struct {
    uint64_t calls[COMPI_IO_OPS];       /* collective calls on compi's path */
    uint64_t bytes[COMPI_IO_OPS];       /* application bytes they accessed */
    uint64_t pass[COMPI_IO_PASS_COUNT]; /* calls passed to the MPI, by reason */
    uint64_t ns[COMPI_IO_T_COUNT];      /* stage times */
    uint64_t local, intra, inter;       /* redistribution data bytes: to itself, same node, other node */
    uint64_t msgs_intra, msgs_inter;    /* redistribution messages to other processes */
    uint64_t wire_inter;                /* bytes put on inter-node links (frames, metadata included) */
    uint64_t meta, meta_inter; /* piece-list bytes to other processes (before compression), of which inter-node */
    uint64_t io_runs;          /* write_at/read_at calls of aggregators */
    uint64_t cycles;
    uint64_t planned, cached; /* la placements solved; calls that reused the file's cached plan */
} compi_io_stats;

/* The plan of the last la call on a file, reused while every process makes
 * the same access again (same view, operation, position and size: the file
 * segments, hence the matrix, the placement and the gate's verdict, are the
 * same). Every process knows whether all processes hit (one bit each in the
 * first allgather), so all reuse it or none does. */
typedef struct {
    int valid;
    uint64_t view_gen;
    int is_write;
    int64_t pos, nbytes; /* data position (bytes into the view) and size */
    int64_t start, end;  /* my access range */
    int pass;            /* the gate's verdict: COMPI_IO_GATE_PASS or _COMPI */
    int nagg, *agg;      /* la's placement */
} compi_io_plan_cache;

typedef struct compi_io_file {
    MPI_File fh;               /* the application's handle */
    MPI_File raw;              /* compi's handle on the same file, byte view; MPI_FILE_NULL if none */
    MPI_Comm comm;             /* compi's duplicate of the file's communicator; MPI_COMM_NULL if none */
    const compi_comm_info *ci; /* the file communicator's compi info (held) */
    char *filename;
    int amode;
    int policy; /* compi_io_policy */
    int hinted; /* the application gave compi_cb_aggregators */
    int weight; /* la's matrix: compi_io_weight (hint compi_cb_weight, else COMPI_IO_WEIGHT) */
    int gate;   /* la passes calls it cannot speed up (hint compi_cb_gate, else COMPI_IO_GATE) */
    /* the MPI's own MPI-IO, as the gate models it (the same on every process) */
    int mpiio;            /* compi_io_mpiio */
    int romio_cb_auto[2]; /* romio_cb_read / romio_cb_write: [0] read, [1] write; 1 automatic, 0 enable, -1 disable */
    int nragg, *ragg;     /* ROMIO's aggregators (romio_aggregator_list), nragg 0: unknown */
    uint64_t view_gen;    /* set_view / set_info count: invalidates the plan cache */
    compi_io_plan_cache pc;
    MPI_Comm app_comm; /* the application's communicator (a key of the view memo) */
    uint64_t view_sig; /* hash of the view (disp, etype size, filetype segments, extent) */
    int sticky[2];     /* [0] reads, [1] writes: passed from set_view on (the view memo) */
    int64_t cb_buffer_size, stripe;
    int cb_nodes;
    int nprocs, rank;
    /* the view */
    int64_t disp, etype_size;
    int native;       /* datarep "native" */
    compi_io_segs ft; /* one filetype instance, flattened */
    int64_t ft_extent;
    int view_ok; /* ft is usable (flattened, increasing, nonnegative) */
    /* report */
    compi_io_stats st;
    int nagg, *agg; /* aggregators of the last call on compi's path */
    struct compi_io_file *next;
} compi_io_file;

/* The state of an open file (NULL: not opened through compi). */
compi_io_file *compi_io_file_find(MPI_File fh);

/* After a successful PMPI_File_open (collective): registers the file and
 * applies the hints (compi_cb_aggregators, cb_buffer_size, cb_nodes,
 * striping_unit). Never fails the application: problems fall back to the
 * MPI's own MPI-IO with a one-line notice. */
void compi_io_file_opened(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File fh);
/* Before PMPI_File_close (collective): compi's handle is closed, the
 * counters reduced to the file's first rank for the report. */
void compi_io_file_closing(MPI_File fh);
/* New hints (set_info, set_view; collective). */
void compi_io_file_hints(compi_io_file *f, MPI_Info info);
/* After a successful PMPI_File_set_view (collective). */
void compi_io_file_view(compi_io_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        const char *datarep);
/* PMPI_File_sync of compi's handle too. */
int compi_io_file_sync(compi_io_file *f);

/* A collective data call. *handled = 0: the caller passes the call to the
 * MPI (the reason is counted); else the return value is the call's. */
int compi_io_collective(compi_io_file *f, compi_io_op op, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                        MPI_Status *status, int *handled);

/* The finished files' report lines (JSON objects, one per file, kept by the
 * file's first rank), as one malloc'd string "[{...}, ...]" for the report. */
char *compi_io_report_json(void);

#endif
