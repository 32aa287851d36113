/* SPDX-License-Identifier: BSD-3-Clause */
/* Sizes beyond an int count and beyond a codec's input limit (MPI-free):
 * compi_bytes_split, which every PMPI call on a compi buffer of more than
 * INT_MAX bytes is built from, and compi_whole_frame_plan, which keeps a
 * frame larger than its codec takes from going raw as "incompressible". */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include "core/bigcount.h"

static int passed, failed;

#define T(cond, ...)                                                                   \
    do {                                                                               \
        if (cond) passed++;                                                            \
        else { failed++; printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

static void split_case(size_t len, size_t limit)
{
    size_t block, blocks, rest;
    compi_bytes_split(len, limit, &block, &blocks, &rest);
    /* counts: the block's and the remainder's within the limit, the blocks' within an int */
    T(block >= 1 && block <= limit && rest < block && blocks <= (size_t)INT_MAX,
      "split(%zu, limit %zu): block %zu, %zu blocks, rest %zu: a count out of range", len, limit, block, blocks,
      rest);
    T(blocks * block + rest == len, "split(%zu, limit %zu): %zu x %zu + %zu != len", len, limit, blocks, block, rest);
}

int main(void)
{
    const size_t lens[] = {0, 1, (size_t)INT_MAX, (size_t)INT_MAX + 1, 2200000008u, 2400000000u,
                           ((size_t)1 << 32) + 7, (size_t)5e9 + 3, ((size_t)1 << 40) + 12345};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        split_case(lens[i], (size_t)INT_MAX);
        split_case(lens[i] % 100000, 4096);   /* COMPI_DEBUG_INT_LIMIT's small limits */
        split_case(lens[i] % 100000, 2);
    }

    /* codec input limits */
    const compi_codec *lz4 = compi_codec_by_name("lz4"), *snappy = compi_codec_by_name("snappy");
    const compi_codec *zstd = compi_codec_by_name("zstd");
    T(lz4 && lz4->max_input > 0 && lz4->max_input < (size_t)INT_MAX, "lz4 declares its int-sized block limit");
    T(snappy && snappy->max_input > 0 && snappy->max_input <= UINT32_MAX, "snappy declares its 32-bit limit");
    T(zstd && zstd->max_input == 0 && compi_codec_accepts(zstd, SIZE_MAX), "zstd has no limit");
    T(compi_codec_accepts(lz4, lz4->max_input) && !compi_codec_accepts(lz4, lz4->max_input + 1),
      "lz4 accepts up to max_input and no more");
    T(!compi_codec_accepts(NULL, 1), "no codec accepts nothing");

    size_t chunk = 1;
    T(compi_whole_frame_plan(lz4, 1000000, 1, &chunk) == COMPI_WHOLE_COMPRESS && chunk == 0,
      "lz4 takes 1 MB whole");
    T(compi_whole_frame_plan(lz4, 2400000000u, 1, &chunk) == COMPI_WHOLE_PIPELINE,
      "2.4 GB of lz4 is pipelined where it can be");
    for (size_t i = 0; i < compi_codec_count(); i++)
        T(compi_codec_accepts(compi_codec_at(i), chunk), "%s takes a pipelined chunk of %zu bytes",
          compi_codec_at(i)->name, chunk);
    T(chunk >= ((size_t)1 << COMPI_CHUNK_LOG2_MIN) && chunk <= ((size_t)1 << COMPI_CHUNK_LOG2_MAX),
      "the chunk is one a pipelined header can name");
    T(compi_whole_frame_plan(lz4, 2400000000u, 0, &chunk) == COMPI_WHOLE_RAW && chunk == 0,
      "2.4 GB of lz4 goes raw where it cannot be pipelined");
    T(compi_whole_frame_plan(zstd, 2400000000u, 0, &chunk) == COMPI_WHOLE_COMPRESS, "zstd takes 2.4 GB whole");
    T(compi_whole_frame_plan(snappy, ((size_t)1 << 32) + 1, 0, &chunk) == COMPI_WHOLE_RAW,
      "snappy cannot take 4 GiB + 1 whole");

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
