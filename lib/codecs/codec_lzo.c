/* SPDX-License-Identifier: BSD-3-Clause */
/* LZO1X-1 (liblzo2). The stream carries no length; lzo1x_decompress_safe is
 * bounded by dst_len and must fill it exactly while consuming all input. */
#include <pthread.h>
#include <stdlib.h>
#include <lzo/lzo1x.h>
#include "codec_tls.h"
#include "codecs.h"

/* lzo_init only checks the build configuration, but it must run once before
 * any other call; pthread_once makes that safe under MPI_THREAD_MULTIPLE. */
static pthread_once_t compi_lzo_once = PTHREAD_ONCE_INIT;
static int compi_lzo_init_rc = LZO_E_ERROR;

static void compi_lzo_do_init(void)
{
    compi_lzo_init_rc = lzo_init();
}

static int compi_lzo_ready(void)
{
    pthread_once(&compi_lzo_once, compi_lzo_do_init);
    return compi_lzo_init_rc == LZO_E_OK;
}

static size_t compi_lzo_bound(size_t src_len)
{
    /* Worst case documented by LZO for LZO1X: n + n/16 + 64 + 3. */
    return src_len + src_len / 16 + 64 + 3;
}

static void *compi_lzo_new_work(void)
{
    return malloc(LZO1X_1_MEM_COMPRESS);
}

static long long compi_lzo_compress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                                    const compi_codec_params *params)
{
    if (!compi_lzo_ready()) return COMPI_ERR_CODEC;
    if (dst == NULL || dst_cap < compi_lzo_bound(src_len)) return COMPI_ERR_DST_TOO_SMALL;
    /* this thread's work memory (128 KiB on 64-bit): reentrant without a
     * malloc, often an mmap, per message */
    void *wrk = compi_codec_tls(COMPI_TLS_LZO_WORK, compi_lzo_new_work, free), *own = NULL;
    if (!wrk && !(wrk = own = malloc(LZO1X_1_MEM_COMPRESS))) return COMPI_ERR_NOMEM;
    unsigned char dummy = 0;
    if (src == NULL) src = &dummy;
    lzo_uint out = (lzo_uint)dst_cap;
    int rc = lzo1x_1_compress((const unsigned char *)src, (lzo_uint)src_len, (unsigned char *)dst, &out, wrk);
    free(own);
    if (rc != LZO_E_OK) return COMPI_ERR_CODEC;
    return (long long)out;
}

static long long compi_lzo_decompress(const void *src, size_t src_len, void *dst, size_t dst_len,
                                      const compi_codec_params *params)
{
    if (!compi_lzo_ready()) return COMPI_ERR_CODEC;
    if (src == NULL || src_len == 0) return COMPI_ERR_CORRUPT;
    unsigned char dummy = 0;
    if (dst == NULL) {
        if (dst_len) return COMPI_ERR_LENGTH;
        dst = &dummy;
    }
    lzo_uint out = (lzo_uint)dst_len;
    int rc = lzo1x_decompress_safe((const unsigned char *)src, (lzo_uint)src_len, (unsigned char *)dst, &out, NULL);
    if (rc == LZO_E_OUTPUT_OVERRUN) return COMPI_ERR_LENGTH;
    if (rc != LZO_E_OK) return COMPI_ERR_CORRUPT;
    if ((size_t)out != dst_len) return COMPI_ERR_LENGTH;
    return (long long)out;
}

const compi_codec compi_codec_lzo = {
    .name = "lzo",
    .id = COMPI_CODEC_ID_LZO,
    .summary = "LZO1X-1 (liblzo2), fast LZ77 with safe decoder",
    .bound = compi_lzo_bound,
    .compress = compi_lzo_compress,
    .decompress = compi_lzo_decompress,
};
