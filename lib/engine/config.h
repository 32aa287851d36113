/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's settings: defaults, configuration files, COMPI_* environment.
 * MPI-free, so libcompi and `compi config` (tools/config) share one parser
 * and one precedence rule and can never disagree:
 *   default < system file < user file < environment
 * (MPI_Info hints then override mode, codec and min_bytes per communicator,
 * in the library). The system file is <prefix>/etc/compi/compi.conf, where
 * the prefix is found from the path of the library (or tool) itself
 * (compi_config_system_path); the user file is $COMPI_CONFIG if set, else
 * ${XDG_CONFIG_HOME:-$HOME/.config}/compi/compi.conf. README: Configuration. */
#ifndef COMPI_ENGINE_CONFIG_H
#define COMPI_ENGINE_CONFIG_H

#include <stddef.h>
#include "compi.h"
#include "engine/window.h"

typedef enum {
    COMPI_MODE_OFF = 0,  /* pass-through, no frames */
    COMPI_MODE_FIXED,    /* one codec for every inter-node message >= min_bytes */
    COMPI_MODE_ADAPTIVE, /* the runtime adaptive strategy (lib/engine/window.h) */
    COMPI_MODE_TRACE,    /* raw, recording a trace for `compi guide` */
    COMPI_MODE_GUIDED,   /* decisions replayed from `compi guide` rules */
    COMPI_MODE_PROFILE,  /* pass-through, recording the communication profile for `compi map` */
    COMPI_MODE_COUNT
} compi_mode;
#define COMPI_MODE_NAMES "off, fixed, adaptive, trace, guided, profile"
const char *compi_mode_name(compi_mode m);

/* The settings, in README order; compi_setting_at(i) describes setting i. */
enum {
    COMPI_SET_MODE = 0,
    COMPI_SET_CODEC,
    COMPI_SET_MIN_BYTES,
    COMPI_SET_HEURISTICS,
    COMPI_SET_CALIBRATE,
    COMPI_SET_ADAPT_REEVAL,
    COMPI_SET_ADAPT_REEVAL_BYTES,
    COMPI_SET_ADAPT_MISTAKES,
    COMPI_SET_ADAPT_BACKOFF,
    COMPI_SET_ADAPT_MIN_SPEEDUP,
    COMPI_SET_ADAPT_SAMPLE,
    COMPI_SET_ADAPT_REFRESH,
    COMPI_SET_TRACE,
    COMPI_SET_TRACE_MAX,
    COMPI_SET_RULES,
    COMPI_SET_LEVEL,
    COMPI_SET_REPORT,
    COMPI_SET_VERBOSE,
    COMPI_SET_ESCAPE_WAIT,
    COMPI_SET_CHUNK_WAIT,
    COMPI_SET_CHUNK,
    COMPI_SET_COLL_LEADERS,
    COMPI_SET_IO_AGGREGATORS,
    COMPI_SET_IO_WEIGHT,
    COMPI_SET_IO_GATE,
    COMPI_SET_DEBUG_RANKS_PER_NODE,
    COMPI_SET_DEBUG_LINK_TIMES,
    COMPI_SET_ADAPT_PROBE,
    COMPI_SET_THREADS,
    COMPI_SET_NBC_NODE_REDUCE,
    COMPI_SET_COUNT
};

/* Where a setting's effective value came from. */
typedef enum { COMPI_FROM_DEFAULT = 0, COMPI_FROM_SYSTEM, COMPI_FROM_USER, COMPI_FROM_ENV } compi_config_origin;

#define COMPI_CONFIG_PATH_MAX 1024

#define COMPI_CHUNK_OFF ((size_t)-1)
#define COMPI_THREADS_AUTO (-1)

typedef struct {
    compi_mode mode;
    const compi_codec *codec;                /* fixed mode's codec */
    size_t min_bytes;                        /* smaller messages go raw */
    int level;                               /* codec effort (COMPI_LEVEL), 0 = default */
    char report_path[COMPI_CONFIG_PATH_MAX]; /* COMPI_REPORT; empty = no JSON */
    int verbose;                             /* COMPI_VERBOSE */
    int ranks_per_node;                      /* COMPI_DEBUG_RANKS_PER_NODE; 0 = real nodes */
    struct {                                 /* COMPI_DEBUG_LINK_TIMES=A,B[,K[,D[,C]]]: every link timing compi
                                     takes (learned samples, COMPI_CALIBRATE=init) is that of a link of
                                     A us latency and B ns per byte, every K-th one 50x slower,
                                     behind a token bucket that passes a message's first D bytes
                                     at once, fed by senders whose pipelined chunks take C ns per
                                     byte to code */
        int set;
        double alpha_us, beta_ns;
        int outlier_every;
        double burst_bytes;
        double code_ns;
    } debug_link;
    double escape_wait_s; /* COMPI_ESCAPE_WAIT: how long an escaped message's first bytes,
                                     sent ahead of it, may be missing */
    double chunk_wait_s;  /* COMPI_CHUNK_WAIT: how long a pipelined message's next chunk may
                                     be missing; 0 = as long as its sender takes */
    size_t chunk;         /* COMPI_CHUNK: pipelined chunk size; 0 = from the link model,
                                     COMPI_CHUNK_OFF = never pipeline */
    int coll_leaders;     /* COMPI_COLL_LEADERS: a compi_leaders_policy (engine/leaders.h) */
    int io_aggregators;   /* COMPI_IO_AGGREGATORS: a compi_io_policy (0 mpi, 1 default, 2 la) */
    int io_weight;        /* COMPI_IO_WEIGHT: a compi_io_weight (la's matrix: 0 bytes, 1 blocks) */
    int io_gate;          /* COMPI_IO_GATE: 1 = la passes calls it cannot speed up to the MPI (ROMIO only) */
    int threads;          /* COMPI_THREADS: codec pool helpers (lib/pool/pool.h); COMPI_THREADS_AUTO = from the node */
    int nbc_node_reduce;  /* COMPI_NBC_NODE_REDUCE: 1 = node-aware nonblocking reductions (lib/coll/nbc_nodes.c) */
    /* adaptive engine */
    char heuristics_dir[COMPI_CONFIG_PATH_MAX]; /* COMPI_HEURISTICS: network.txt, codecs.txt */
    int calibrate_init;                         /* COMPI_CALIBRATE=init: measure the network at MPI_Init */
    compi_window_params window;                 /* COMPI_ADAPT_REEVAL, _MISTAKES, _BACKOFF; floor = min_bytes */
    double min_speedup;                         /* COMPI_ADAPT_MIN_SPEEDUP */
    size_t sample_bytes;                        /* COMPI_ADAPT_SAMPLE */
    int refresh;                                /* COMPI_ADAPT_REFRESH: learn the links from traffic */
    int probe;                                  /* COMPI_ADAPT_PROBE: probe links known only from the prior */
    /* guided strategy */
    char trace_dir[COMPI_CONFIG_PATH_MAX]; /* COMPI_TRACE */
    size_t trace_max;                      /* COMPI_TRACE_MAX */
    char rules_dir[COMPI_CONFIG_PATH_MAX]; /* COMPI_RULES */
    /* provenance, for `compi config` and for messages */
    char system_file[COMPI_CONFIG_PATH_MAX]; /* empty: no system file location known */
    char user_file[COMPI_CONFIG_PATH_MAX];   /* empty: no $HOME, no XDG_CONFIG_HOME, no COMPI_CONFIG */
    int system_read, user_read;              /* the file existed and was read */
    int user_from_env;                       /* user_file is $COMPI_CONFIG */
    struct {
        compi_config_origin origin;
        int line;      /* line in the file it came from */
        char text[64]; /* the value as given (non-path settings) */
    } src[COMPI_SET_COUNT];
} compi_config;

typedef struct {
    const char *key;  /* in configuration files: "min_bytes" */
    const char *env;  /* in the environment: "COMPI_MIN_BYTES" */
    const char *dflt; /* the default, as shown */
    int is_path;      /* relative in a file: relative to the file's directory */
} compi_setting;

size_t compi_setting_count(void);
const compi_setting *compi_setting_at(size_t i);

/* Collective I/O aggregator placement (lib/io/twophase.h): the MPI's own
 * MPI-IO, compi's two-phase with ROMIO-like placement, or linear assignment. */
typedef enum { COMPI_IO_MPI = 0, COMPI_IO_DEFAULT, COMPI_IO_LA, COMPI_IO_POLICY_COUNT } compi_io_policy;
#define COMPI_IO_POLICY_NAMES "mpi, default, la"
const char *compi_io_policy_name(int p);
int compi_parse_io_policy(const char *s, int *out);
/* What `la` maximises: locally held bytes, or contiguous blocks ([Filgueira 2010]). */
typedef enum { COMPI_IO_WEIGHT_BYTES = 0, COMPI_IO_WEIGHT_BLOCKS, COMPI_IO_WEIGHT_COUNT } compi_io_weight;
#define COMPI_IO_WEIGHT_NAMES "bytes, blocks"
const char *compi_io_weight_name(int w);
int compi_parse_io_weight(const char *s, int *out);

/* Value parsers shared by the files, the environment and MPI_Info hints. */
int compi_parse_mode(const char *s, compi_mode *out);
int compi_parse_size(const char *s, size_t *out);

/* Loads defaults, then system_file (NULL or absent: skipped), then the user
 * file, then the COMPI_* environment. On an error fills err (naming the file,
 * line, key or variable, and the valid values) and returns COMPI_ERR_CONFIG. */
int compi_config_load(compi_config *cfg, const char *system_file, char *err, size_t errlen);
/* Validates one file on its own (compi config --check): every line and every
 * value, as compi_config_load would; *nset gets the number of settings. */
int compi_config_check_file(const char *path, int *nset, char *err, size_t errlen);
/* <prefix>/etc/compi/compi.conf for a library or tool at binary_path: the
 * prefix is the parent of the binary's directory (<prefix>/lib,
 * <prefix>/bin), or of <prefix>/libexec/compi. COMPI_OK or COMPI_ERR_CONFIG. */
int compi_config_system_path(const char *binary_path, char *out, size_t cap);
/* Setting i's effective value as text (a path, a number, a name; "" = unset). */
const char *compi_config_value(const compi_config *cfg, size_t i);
/* Where setting i came from: "default", "environment (COMPI_MODE)", or "<file>:<line>". */
void compi_config_origin_text(const compi_config *cfg, size_t i, char *out, size_t cap);

#endif
