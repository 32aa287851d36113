/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include "compi.h"
#include "common/errf.h"

void compi_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *compi_error_string(int rc)
{
    switch (rc) {
    case COMPI_OK: return "no error";
    case COMPI_ERR_CORRUPT: return "corrupt compressed data";
    case COMPI_ERR_DST_TOO_SMALL: return "output buffer too small";
    case COMPI_ERR_NOMEM: return "out of memory";
    case COMPI_ERR_CODEC: return "codec library failure";
    case COMPI_ERR_CONFIG: return "invalid configuration";
    case COMPI_ERR_UNKNOWN_CODEC: return "unknown codec";
    case COMPI_ERR_LENGTH: return "decoded length differs from the frame's original length";
    case COMPI_ERR_TRUNCATE: return "message longer than the receive buffer";
    default: return rc >= 0 ? "no error" : "unknown error";
    }
}
