/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening files whose paths a user names (COMPI_REPORT, COMPI_TRACE,
 * COMPI_HEURISTICS, COMPI_RULES, configuration files, the tools' inputs and
 * outputs). MPI-free (lib/common/safefile.c).
 *
 * Writing never follows a symbolic link, never writes into a FIFO, device
 * or directory, and never creates more than the last component of a
 * directory path. Reading never blocks on a FIFO and says what a path is
 * when it is not a regular file. Every refusal is COMPI_ERR_CONFIG with err
 * naming the path and the cause. */
#ifndef COMPI_COMMON_SAFEFILE_H
#define COMPI_COMMON_SAFEFILE_H
#include <stdio.h>
#include <sys/types.h>

/* Opens a regular file for reading ("r"). NULL with err set when it cannot:
 * missing (then *missing = 1, if missing is not NULL), unreadable, a
 * directory, a FIFO, socket or device. A symbolic link to a regular file is
 * read (sites link shared model files). */
FILE *compi_file_open_read(const char *path, int *missing, char *err, size_t errlen);

/* COMPI_OK when path is a directory (or a link to one); else
 * COMPI_ERR_CONFIG with err saying whether it is missing or what it is. */
int compi_dir_check(const char *path, char *err, size_t errlen);

/* Makes sure directory path exists: creates its last component (mode,
 * less the umask) if needed, never its parents (err names the missing
 * parent). An existing directory, or a link to one, is used as it is;
 * anything else there is refused. Ranks may race to create it: fine. */
int compi_dir_create(const char *path, mode_t mode, char *err, size_t errlen);

/* How compi_file_create writes. */
enum {
    /* Written to a new temporary file beside path (O_EXCL) and renamed over
     * path by compi_file_commit: readers never see a half-written file, a
     * run that dies leaves the previous file as it was, and a file reused
     * run after run is replaced, not rewritten through. */
    COMPI_FILE_REPLACE = 0,
    /* Opened at path itself and truncated (files written through a whole
     * run, like traces: a run that dies leaves what it wrote so far). */
    COMPI_FILE_IN_PLACE = 1,
    /* Mode 0600 whatever the umask, also for a file that existed with
     * wider permissions (files holding samples of message contents). */
    COMPI_FILE_PRIVATE = 2,
};

typedef struct {
    FILE *f; /* write through this */
    int flags;
    char path[4096];
    char tmp[4096 + 32]; /* COMPI_FILE_REPLACE: the file being written */
} compi_wfile;

/* Opens path for writing (mode less the umask; COMPI_FILE_PRIVATE: 0600).
 * Refused: a path that is a symbolic link, a directory, FIFO, socket or
 * device; a regular file owned by another user; a parent directory that
 * does not exist. COMPI_OK and w->f open, or COMPI_ERR_CONFIG and err. */
int compi_file_create(compi_wfile *w, const char *path, mode_t mode, int flags, char *err, size_t errlen);

/* What compi_file_create would refuse, checked without creating anything:
 * lets a path written at the end of a run be refused at its start. */
int compi_file_check_writable(const char *path, char *err, size_t errlen);

/* Closes w->f; COMPI_FILE_REPLACE: renames the written file over path.
 * COMPI_ERR_CONFIG with err on any write error (the temporary file is then
 * removed, a previous file at path kept). */
int compi_file_commit(compi_wfile *w, char *err, size_t errlen);

/* Gives up: closes w->f and removes the temporary file (COMPI_FILE_REPLACE;
 * an in-place file keeps what was written). */
void compi_file_abort(compi_wfile *w);

#endif
