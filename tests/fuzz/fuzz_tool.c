/* SPDX-License-Identifier: BSD-3-Clause */
/* Helper for run_fuzzers.sh (no fuzzer runtime):
 *   fuzz_tool list                   codec names, one per line
 *   fuzz_tool seed CODEC DEC_DIR RT_DIR   write seed corpora from the data sets */
#include <stdint.h>
#include <string.h>
#include "fuzz_common.h"
#include "common/datasets.h"

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

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; i < compi_codec_count(); i++) printf("%s\n", compi_codec_at(i)->name);
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "seed")) {
        fprintf(stderr, "usage: fuzz_tool list | fuzz_tool seed CODEC DECODE_DIR ROUNDTRIP_DIR\n");
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
