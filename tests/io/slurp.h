/* SPDX-License-Identifier: BSD-3-Clause */
/* Test helper shared by the io tests: a whole file read into memory. */
#ifndef COMPI_TESTS_IO_SLURP_H
#define COMPI_TESTS_IO_SLURP_H
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

/* The file's bytes (malloc'd, one spare byte) and their count in *n (-1 and
 * NULL when it cannot be opened). */
static unsigned char *slurp(const char *path, long *n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) { *n = -1; return NULL; }
    off_t sz = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)sz + 1);
    *n = (long)pread(fd, b, (size_t)sz, 0);
    close(fd);
    return b;
}
#endif
