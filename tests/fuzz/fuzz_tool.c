/* SPDX-License-Identifier: BSD-3-Clause */
/* Helper for run_fuzzers.sh (no fuzzer runtime):
 *   fuzz_tool list                   codec names, one per line
 *   fuzz_tool seed CODEC DEC_DIR RT_DIR   write seed corpora from the data sets
 *   fuzz_tool frames DIR             whole-frame seeds, every codec (fuzz_frame)
 *   fuzz_tool escapes DIR            escaped messages and their side bytes (fuzz_escape) */
#include <stdint.h>
#include <string.h>
#include "fuzz_common.h"
#include "common/datasets.h"
#include "frame/frame.h"

static int ft_write(const char *dir, const char *tag, size_t ds, size_t n, const unsigned char *hdr,
                    size_t hlen, const unsigned char *body, size_t blen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s-%zu", dir, tag, compi_dataset_name(ds), n);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    int ok = fwrite(hdr, 1, hlen, f) == hlen && (blen == 0 || fwrite(body, 1, blen, f) == blen);
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* Whole-frame seeds (fuzz_frame): for every codec, valid frames of the data
 * sets as decode inputs (as they are, resealed, each receive room) and
 * their data as round-trip inputs. */
static int ft_frames(const char *dir)
{
    static const size_t sizes[] = {0, 17, 1000, 4099};
    unsigned char data[4099];
    size_t cap = compi_chunk_capacity(sizeof data);
    unsigned char *frame = malloc(cap + 1);
    if (!frame) return 1;
    for (size_t c = 0; c < compi_codec_count(); c++) {
        const compi_codec *codec = compi_codec_at(c);
        for (size_t ds = 0; ds < compi_dataset_count(); ds += 3)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                size_t n = sizes[i];
                compi_dataset_fill(ds, data, n, 11 + ds);
                unsigned char sel = compi_fuzz_selector(compi_dataset_class(ds), 0);
                compi_codec_params p = compi_fuzz_params(sel);
                int compressed;
                long long len = compi_chunk_encode(0, data, n, codec, &p, frame + 1, cap, &compressed);
                if (len < 0) return 1;
                char tag[96];
                frame[0] = (unsigned char)((i & 3) << 1 | (i & 1));   /* a room and resealing, by size */
                snprintf(tag, sizeof tag, "frame-%s", codec->name);
                unsigned char rt[3] = {8, sel, (unsigned char)c};
                if (ft_write(dir, tag, ds, n, frame, 1, frame + 1, (size_t)len)) return 1;
                snprintf(tag, sizeof tag, "rt-%s", codec->name);
                if (ft_write(dir, tag, ds, n, rt, 3, data, n)) return 1;
            }
    }
    free(frame);
    return 0;
}

/* Escape seeds (fuzz_escape): escaped messages as they land, with their
 * side message, in each truncation and tag range. */
static int ft_escapes(const char *dir)
{
    static const size_t sizes[] = {32, 33, 100, 1000};
    unsigned char in[36 + 1000];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char msg[1000];
        compi_dataset_fill((size_t)compi_dataset_find("text"), msg, n, 3 + i);
        memcpy(msg, "CMPI", 4);   /* why it was escaped */
        in[0] = (unsigned char)(i & 1);
        in[1] = 31;
        in[2] = in[3] = 0;
        memcpy(in + 4, msg, COMPI_FRAME_HEADER_SIZE);
        compi_frame_header h = {COMPI_CODEC_ESCAPE, 0, n, 17 + i, 0};
        compi_frame_write_header(msg, &h);
        memcpy(in + 36, msg, n);
        char tag[32];
        snprintf(tag, sizeof tag, "escape%zu", i);
        if (ft_write(dir, tag, 0, n, in, 36, in + 36, n)) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "frames")) return ft_frames(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "escapes")) return ft_escapes(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; i < compi_codec_count(); i++) printf("%s\n", compi_codec_at(i)->name);
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "seed")) {
        fprintf(stderr, "usage: fuzz_tool list | fuzz_tool seed CODEC DECODE_DIR ROUNDTRIP_DIR | fuzz_tool frames DIR"
                        " | fuzz_tool escapes DIR\n");
        return 2;
    }
    const compi_codec *c = compi_codec_by_name(argv[2]);
    if (!c) {
        fprintf(stderr, "unknown codec %s (have %s)\n", argv[2], compi_codec_names());
        return 2;
    }
    static const size_t sizes[] = {0, 1, 17, 256, 1000, 4099};
    unsigned char data[4099];
    for (size_t ds = 0; ds < compi_dataset_count(); ds++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            compi_dataset_fill(ds, data, n, 7 + ds);
            compi_dtclass cls = compi_dataset_class(ds);
            unsigned char sel = compi_fuzz_selector(cls, 0);
            compi_codec_params p = compi_fuzz_params(sel);
            size_t cap = c->bound(n);
            unsigned char *buf = malloc(cap);
            if (!buf) return 1;
            long long cl = c->compress(data, n, buf, cap, &p);
            if (cl < 0) {
                fprintf(stderr, "%s: compress failed on %s/%zu: %s\n", c->name, compi_dataset_name(ds), n,
                        compi_error_string((int)cl));
                return 1;
            }
            unsigned char hdr[4] = {sel, (unsigned char)n, (unsigned char)(n >> 8),
                                    (unsigned char)(((n >> 16) & 0x0f) | ((i & 1) ? 0x10 : 0))};
            if (ft_write(argv[3], "dec", ds, n, hdr, 4, buf, (size_t)cl) ||
                ft_write(argv[4], "rt", ds, n, &sel, 1, data, n))
                return 1;
            free(buf);
        }
    return 0;
}
