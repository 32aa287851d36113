/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the fuzz targets and the seed writer: which codec to fuzz and how
 * a fuzz input is laid out.
 *
 * Decode input:    [0] params selector, [1..3] dst_len (20 bits, LE; bit 4 of [3]
 *                  selects guard-page buffers instead of malloc), [4..] stream
 * Round-trip input:[0] params selector, [1..] data
 * Params selector: bits 0-1 data class (elem size 1/4/4/8), bits 2-4 level 0..7. */
#ifndef COMPI_FUZZ_COMMON_H
#define COMPI_FUZZ_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "compi.h"

#define COMPI_FUZZ_HDR_DECODE 4
#define COMPI_FUZZ_MAX_DST ((size_t)1 << 20)

static inline compi_codec_params compi_fuzz_params(unsigned char sel)
{
    compi_codec_params p;
    p.dtclass = (compi_dtclass)(sel & 3u);
    p.elem_size = p.dtclass == COMPI_CLASS_DOUBLE ? 8 : p.dtclass == COMPI_CLASS_BYTE ? 1 : 4;
    p.level = (sel >> 2) & 7u;
    return p;
}

static inline unsigned char compi_fuzz_selector(compi_dtclass cls, int level)
{
    return (unsigned char)(((unsigned)cls & 3u) | (((unsigned)level & 7u) << 2));
}

/* The codec comes from COMPI_FUZZ_CODEC (env) or a compile definition, so
 * one binary serves every codec in the table, including later additions. */
static inline const compi_codec *compi_fuzz_codec(void)
{
    const char *name = getenv("COMPI_FUZZ_CODEC");
#ifdef COMPI_FUZZ_CODEC_NAME
    if (!name) name = COMPI_FUZZ_CODEC_NAME;
#endif
    const compi_codec *c = compi_codec_by_name(name);
    if (!c) {
        fprintf(stderr, "set COMPI_FUZZ_CODEC to one of: %s\n", compi_codec_names());
        exit(2);
    }
    return c;
}
/* n bytes that end exactly at an inaccessible page: the codec libraries are
 * not built with ASan, so this is what catches their over-reads/writes past
 * the end of src or dst (as SIGSEGV). Free with compi_fuzz_guard_free. */
typedef struct {
    void *map;
    size_t map_len;
} compi_fuzz_guard;

static inline unsigned char *compi_fuzz_guard_alloc(size_t n, compi_fuzz_guard *g)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (n + page - 1) / page;
    g->map_len = (data_pages + 1) * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) abort();
    unsigned char *guard = (unsigned char *)g->map + data_pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) abort();
    return guard - n;
}

static inline void compi_fuzz_guard_free(compi_fuzz_guard *g) { munmap(g->map, g->map_len); }

#endif
