/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening user-named files for reading and writing (common/safefile.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compi.h"
#include "common/errf.h"
#include "common/safefile.h"

static const char *compi_file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

/* The directory that holds path's last component ("." for a bare name). */
static void compi_parent_of(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--; /* "dir/" names dir */
    while (n > 0 && path[n - 1] != '/') n--; /* drop the last component */
    while (n > 1 && path[n - 1] == '/') n--; /* and the slashes before it */
    if (n == 0) snprintf(out, cap, ".");
    else snprintf(out, cap, "%.*s", (int)n, path);
}

/* Why path could not be created, when the cause is its parent. */
static int compi_parent_error(const char *path, const char *what, char *err, size_t errlen)
{
    char parent[4096];
    struct stat st;
    compi_parent_of(path, parent, sizeof parent);
    if (stat(parent, &st) != 0) {
        if (errno == ENOENT)
            compi_errf(err, errlen,
                       "cannot create %s %s: directory %s does not exist (compi creates only the last "
                       "component of a path)",
                       what, path, parent);
        else compi_errf(err, errlen, "cannot create %s %s: directory %s: %s", what, path, parent, strerror(errno));
        return COMPI_ERR_CONFIG;
    }
    if (!S_ISDIR(st.st_mode)) {
        compi_errf(err, errlen, "cannot create %s %s: %s is %s, not a directory", what, path, parent,
                   compi_file_kind(st.st_mode));
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

FILE *compi_file_open_read(const char *path, int *missing, char *err, size_t errlen)
{
    if (missing) *missing = 0;
    /* non-blocking: opening a FIFO for reading would wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && missing) *missing = 1;
        compi_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        compi_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        compi_errf(err, errlen, "%s is %s, not a regular file", path, compi_file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        compi_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int compi_dir_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        compi_errf(err, errlen, "%s: %s", path, errno == ENOENT ? "no such directory" : strerror(errno));
        return COMPI_ERR_CONFIG;
    }
    if (!S_ISDIR(st.st_mode)) {
        compi_errf(err, errlen, "%s is %s, not a directory", path, compi_file_kind(st.st_mode));
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

int compi_dir_create(const char *path, mode_t mode, char *err, size_t errlen)
{
    if (!path[0]) {
        compi_errf(err, errlen, "empty directory name");
        return COMPI_ERR_CONFIG;
    }
    if (mkdir(path, mode) == 0) return COMPI_OK;
    int e = errno;
    if ((e == ENOENT || e == ENOTDIR) && compi_parent_error(path, "directory", err, errlen) != COMPI_OK)
        return COMPI_ERR_CONFIG;
    if (e != EEXIST) {
        compi_errf(err, errlen, "cannot create directory %s: %s", path, strerror(e));
        return COMPI_ERR_CONFIG;
    }
    return compi_dir_check(path, err, errlen);
}

/* What is at path already, if anything, must be a regular file of ours. */
static int compi_check_target(const char *path, int *exists, char *err, size_t errlen)
{
    struct stat st;
    *exists = 0;
    if (lstat(path, &st) != 0) {
        int e = errno;
        if ((e == ENOENT || e == ENOTDIR) && compi_parent_error(path, "file", err, errlen) != COMPI_OK)
            return COMPI_ERR_CONFIG;
        if (e == ENOENT) return COMPI_OK; /* to be created */
        compi_errf(err, errlen, "%s: %s", path, strerror(e));
        return COMPI_ERR_CONFIG;
    }
    *exists = 1;
    if (S_ISLNK(st.st_mode)) {
        compi_errf(err, errlen,
                   "%s is a symbolic link; compi does not write through links (name the file itself, "
                   "or remove the link)",
                   path);
        return COMPI_ERR_CONFIG;
    }
    if (!S_ISREG(st.st_mode)) {
        compi_errf(err, errlen, "%s is %s; compi writes only regular files", path, compi_file_kind(st.st_mode));
        return COMPI_ERR_CONFIG;
    }
    if (st.st_uid != geteuid()) {
        compi_errf(err, errlen, "%s belongs to another user (uid %u); compi replaces only its user's files", path,
                   (unsigned)st.st_uid);
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

int compi_file_check_writable(const char *path, char *err, size_t errlen)
{
    int exists;
    if (!path[0]) {
        compi_errf(err, errlen, "empty file name");
        return COMPI_ERR_CONFIG;
    }
    return compi_check_target(path, &exists, err, errlen);
}

static int compi_open_replace(compi_wfile *w, mode_t mode, char *err, size_t errlen)
{
    static unsigned seq;
    for (int tries = 0; tries < 100; tries++) {
        unsigned k = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
        if ((size_t)snprintf(w->tmp, sizeof w->tmp, "%s.tmp%ld.%u", w->path, (long)getpid(), k) >= sizeof w->tmp) {
            compi_errf(err, errlen, "%s: path too long", w->path);
            return -1;
        }
        int fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) return fd;
        if (errno != EEXIST) {
            compi_errf(err, errlen, "%s: cannot create: %s", w->tmp, strerror(errno));
            return -1;
        }
    }
    compi_errf(err, errlen, "%s: cannot create a temporary file beside it", w->path);
    return -1;
}

static int compi_open_in_place(compi_wfile *w, mode_t mode, char *err, size_t errlen)
{
    /* checked again on the open file: the path may have changed since */
    int fd = open(w->path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0) {
        if (errno == ELOOP)
            compi_errf(err, errlen, "%s is a symbolic link; compi does not write through links", w->path);
        else compi_errf(err, errlen, "%s: cannot create: %s", w->path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        compi_errf(err, errlen, "%s changed while it was opened (no longer a regular file of this user)", w->path);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (ftruncate(fd, 0) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        compi_errf(err, errlen, "%s: cannot truncate: %s", w->path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int compi_file_create(compi_wfile *w, const char *path, mode_t mode, int flags, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->flags = flags;
    if (!path[0]) {
        compi_errf(err, errlen, "empty file name");
        return COMPI_ERR_CONFIG;
    }
    if ((size_t)snprintf(w->path, sizeof w->path, "%s", path) >= sizeof w->path) {
        compi_errf(err, errlen, "%.200s...: path too long", path);
        return COMPI_ERR_CONFIG;
    }
    int exists;
    if (compi_check_target(path, &exists, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    if (flags & COMPI_FILE_PRIVATE) mode = 0600;
    int fd = flags & COMPI_FILE_IN_PLACE ? compi_open_in_place(w, mode, err, errlen)
                                         : compi_open_replace(w, mode, err, errlen);
    if (fd < 0) return COMPI_ERR_CONFIG;
    /* the umask may leave less, an older file may have had more */
    if ((flags & COMPI_FILE_PRIVATE) && fchmod(fd, 0600) != 0) {
        compi_errf(err, errlen, "%s: cannot make it private: %s", path, strerror(errno));
        close(fd);
        if (!(flags & COMPI_FILE_IN_PLACE)) unlink(w->tmp);
        return COMPI_ERR_CONFIG;
    }
    w->f = fdopen(fd, "w");
    if (!w->f) {
        compi_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        if (!(flags & COMPI_FILE_IN_PLACE)) unlink(w->tmp);
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

int compi_file_commit(compi_wfile *w, char *err, size_t errlen)
{
    if (!w->f) {
        compi_errf(err, errlen, "%s: not open", w->path);
        return COMPI_ERR_CONFIG;
    }
    int bad = fflush(w->f) != 0 || ferror(w->f);
    int e = errno;
    if (fclose(w->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    w->f = NULL;
    int replace = !(w->flags & COMPI_FILE_IN_PLACE);
    if (bad) {
        compi_errf(err, errlen, "%s: write failed: %s", w->path, strerror(e ? e : EIO));
        if (replace) unlink(w->tmp);
        return COMPI_ERR_CONFIG;
    }
    if (replace && rename(w->tmp, w->path) != 0) {
        compi_errf(err, errlen, "%s: cannot replace it with %s: %s", w->path, w->tmp, strerror(errno));
        unlink(w->tmp);
        return COMPI_ERR_CONFIG;
    }
    return COMPI_OK;
}

void compi_file_abort(compi_wfile *w)
{
    if (w->f) fclose(w->f);
    w->f = NULL;
    if (!(w->flags & COMPI_FILE_IN_PLACE) && w->tmp[0]) unlink(w->tmp);
}
