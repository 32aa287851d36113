/* SPDX-License-Identifier: BSD-3-Clause */
/* compi public header: the codec table and error helpers, for tools, tests and
 * benchmarks. MPI applications need no header: compi interposes through PMPI. */
#ifndef COMPI_H
#define COMPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version is CMakeLists.txt's project() version, in the generated
 * compi_version.h (COMPI_VERSION_STRING, COMPI_GIT_DESCRIBE). */

/* Errors are negative return values; one helper tells them apart (zstd style). */
typedef enum {
    COMPI_OK = 0,
    COMPI_ERR_CORRUPT = -1,        /* compressed stream or frame fails validation */
    COMPI_ERR_DST_TOO_SMALL = -2,  /* output does not fit the given capacity */
    COMPI_ERR_NOMEM = -3,
    COMPI_ERR_CODEC = -4,          /* the codec library reported a failure */
    COMPI_ERR_CONFIG = -5,         /* malformed configuration value */
    COMPI_ERR_UNKNOWN_CODEC = -6,
    COMPI_ERR_LENGTH = -7,         /* decoded length differs from the declared one */
    COMPI_ERR_TRUNCATE = -8        /* message longer than the receive buffer */
} compi_status;

static inline int compi_is_error(int rc) { return rc < 0; }
const char *compi_error_string(int rc);

/* Datatype class of a message: drives codec choice (FPC/DFCM want doubles,
 * Blosc wants the element size). */
typedef enum {
    COMPI_CLASS_BYTE = 0,   /* anything else / heterogeneous */
    COMPI_CLASS_INT = 1,    /* 4-byte integers */
    COMPI_CLASS_FLOAT = 2,  /* 4-byte floats */
    COMPI_CLASS_DOUBLE = 3, /* 8-byte doubles */
    COMPI_CLASS_COUNT
} compi_dtclass;

typedef struct {
    compi_dtclass dtclass;
    size_t elem_size;        /* 1, 4 or 8: element width of the data */
    int level;               /* codec-specific effort; 0 = codec default */
} compi_codec_params;

/* A codec is a struct of function pointers (an MCA-style plug-in). Adding a
 * codec is one file in lib/codecs/ and one line in lib/codecs/codec_table.c.
 *
 * compress: src_len bytes -> dst; dst_cap is always >= bound(src_len).
 *           Returns the compressed length (>= 0) or a negative compi_status.
 * decompress: must produce exactly dst_len bytes (the original length carried
 *           by the frame); any other outcome is COMPI_ERR_CORRUPT or
 *           COMPI_ERR_LENGTH. Must be safe on arbitrary input: never write
 *           outside dst, never read outside src, never crash.
 * Both are reentrant: no global mutable state.
 * max_input: the most bytes compress takes in one call (0: no limit below
 * SIZE_MAX); larger inputs are refused (COMPI_ERR_CODEC), so callers split
 * them first (compi_codec_accepts). */
typedef struct compi_codec {
    const char *name;
    uint8_t id;              /* wire id, stable forever; 0 is reserved for raw */
    const char *summary;
    size_t (*bound)(size_t src_len);
    long long (*compress)(const void *src, size_t src_len, void *dst, size_t dst_cap,
                          const compi_codec_params *params);
    long long (*decompress)(const void *src, size_t src_len, void *dst, size_t dst_len,
                            const compi_codec_params *params);
    size_t max_input;
} compi_codec;

/* Registry */
size_t compi_codec_count(void);
const compi_codec *compi_codec_at(size_t index);
const compi_codec *compi_codec_by_name(const char *name);
const compi_codec *compi_codec_by_id(uint8_t id);
/* The most bytes any codec of the table may write for len input bytes:
 * room for whichever codec a decision ends with. */
size_t compi_codec_bound_max(size_t len);
/* Whether codec compresses len bytes in one call (len <= its max_input). */
int compi_codec_accepts(const compi_codec *codec, size_t len);
/* Comma-separated list of codec names, for error messages. */
const char *compi_codec_names(void);
/* 1 when name is an optional codec this library was built without (lzo:
 * CMake option COMPI_WITH_LZO), so a heuristics file written by a build
 * that had it can skip it and an error can name the option. */
int compi_codec_not_built(const char *name);

#ifdef __cplusplus
}
#endif
#endif
