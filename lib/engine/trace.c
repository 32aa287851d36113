/* SPDX-License-Identifier: BSD-3-Clause */
/* What the trace writer (trace_write.c), the trace reader (trace_read.c)
 * and the rules (rules.c) share: the message key and the files' names. The
 * binary format is defined in trace_format.h, documented in docs/guided.md. */
#include <stdio.h>
#include <string.h>
#include "codecs/codec_util.h"
#include "engine/trace.h"

static uint64_t tr_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t compi_trace_key(const compi_trace_msg *m)
{
    /* FNV-1a over a fixed little-endian layout, then a finalizer so that
     * keys differing in one field differ in every bit position. */
    uint8_t b[26];
    compi_store_le32(b, m->comm_id);
    compi_store_le32(b + 4, (uint32_t)m->peer);
    compi_store_le32(b + 8, (uint32_t)m->tag);
    b[12] = m->dtclass;
    b[13] = m->family;
    compi_store_le64(b + 14, m->size);
    memset(b + 22, 0, 4);
    return tr_mix64(compi_fnv1a64(COMPI_FNV64_INIT, b, sizeof b));
}

int compi_trace_path(char *buf, size_t len, const char *dir, int rank)
{
    return snprintf(buf, len, "%s/trace.%d.bin", dir, rank);
}

int compi_rules_path(char *buf, size_t len, const char *dir, int rank)
{
    return snprintf(buf, len, "%s/rules.%d.txt", dir, rank);
}
