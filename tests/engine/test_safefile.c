/* SPDX-License-Identifier: BSD-3-Clause */
/* Files compi opens at a user's word (common/safefile.h), MPI-free: what is
 * written (replaced whole, never through a link, FIFO, device or directory,
 * private where asked), what is read (never blocking on a FIFO, naming a
 * directory as one), directories (only the last component is created), and
 * the users of the helpers: heuristics directories, trace files, rules.
 * Every case runs in a fresh scratch directory; a hang (a FIFO opened
 * blocking) ends the test through alarm(). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine_test.h"
#include "common/safefile.h"
#include "engine/trace.h"

static char scratch[4096];

static const char *at(const char *name)
{
    static char buf[4][4200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, name);
    return buf[k];
}

static int contains(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

static void put(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static int read_back(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
    return (int)n;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static int write_text(const char *path, const char *text, int flags, char *err, size_t errlen)
{
    compi_wfile w;
    if (compi_file_create(&w, path, 0666, flags, err, errlen) != COMPI_OK) return COMPI_ERR_CONFIG;
    fputs(text, w.f);
    return compi_file_commit(&w, err, errlen);
}

static void test_write_replace(void)
{
    char err[8192], buf[256];
    struct stat st, st2;
    umask(022);
    /* a new file: written, mode 0666 less the umask, no temporary left */
    CHECK(write_text(at("report.json"), "one\n", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_OK, "%s", err);
    CHECK(read_back(at("report.json"), buf, sizeof buf) == 4 && !strcmp(buf, "one\n"), "content '%s'", buf);
    CHECK(stat(at("report.json"), &st) == 0 && (st.st_mode & 0777) == 0644, "mode %o", st.st_mode & 0777);
    CHECK(entries(scratch) == 1, "temporary files left beside the file");
    /* the same path next run: replaced, as a new file (a hard link to the
     * old one keeps the old contents: nothing is written through it) */
    CHECK(link(at("report.json"), at("hardlink")) == 0, "link: %s", strerror(errno));
    CHECK(write_text(at("report.json"), "second run\n", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_OK, "%s", err);
    CHECK(read_back(at("report.json"), buf, sizeof buf) > 0 && !strcmp(buf, "second run\n"), "content '%s'", buf);
    CHECK(read_back(at("hardlink"), buf, sizeof buf) > 0 && !strcmp(buf, "one\n"), "old inode rewritten: '%s'", buf);
    CHECK(stat(at("report.json"), &st) == 0 && stat(at("hardlink"), &st2) == 0 && st.st_ino != st2.st_ino,
          "not replaced by a new file");
    /* a symbolic link: refused, its target untouched */
    put(at("victim"), "precious\n", 0644);
    CHECK(symlink(at("victim"), at("link.json")) == 0, "symlink: %s", strerror(errno));
    CHECK(write_text(at("link.json"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "link.json is a symbolic link"), "symlink: '%s'", err);
    CHECK(read_back(at("victim"), buf, sizeof buf) > 0 && !strcmp(buf, "precious\n"), "link target now '%s'", buf);
    /* ... also a dangling one (it would create its target) */
    CHECK(symlink(at("nothing-yet"), at("dangling")) == 0, "symlink: %s", strerror(errno));
    CHECK(write_text(at("dangling"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "symbolic link") && access(at("nothing-yet"), F_OK) != 0, "dangling link: '%s'", err);
    /* a FIFO (no reader: opening it for writing would block) and a directory */
    CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo: %s", strerror(errno));
    CHECK(write_text(at("fifo"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "fifo is a FIFO"), "FIFO: '%s'", err);
    CHECK(mkdir(at("dir"), 0700) == 0, "mkdir");
    CHECK(write_text(at("dir"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "dir is a directory"), "directory: '%s'", err);
    CHECK(write_text("/dev/null", "x", COMPI_FILE_IN_PLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "character device"), "device: '%s'", err);
    /* a missing parent: named, and not created */
    CHECK(write_text(at("no/such/report.json"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "directory ") && contains(err, "/no/such does not exist") && access(at("no"), F_OK) != 0,
          "missing parent: '%s'", err);
    CHECK(compi_file_check_writable(at("no/report.json"), err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "/no does not exist"), "check, missing parent: '%s'", err);
    CHECK(compi_file_check_writable(at("link.json"), err, sizeof err) == COMPI_ERR_CONFIG,
          "check, symlink: accepted");
    CHECK(compi_file_check_writable(at("report.json"), err, sizeof err) == COMPI_OK, "check, own file: '%s'", err);
    CHECK(compi_file_check_writable(at("new.json"), err, sizeof err) == COMPI_OK &&
          access(at("new.json"), F_OK) != 0, "check, new file: '%s'", err);
    /* a file of another user (root can make one): refused, not replaced */
    if (geteuid() == 0) {
        put(at("theirs"), "theirs\n", 0666);
        CHECK(chown(at("theirs"), 12345, 12345) == 0, "chown: %s", strerror(errno));
        CHECK(write_text(at("theirs"), "x", COMPI_FILE_REPLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
              contains(err, "belongs to another user"), "other user's file: '%s'", err);
        CHECK(read_back(at("theirs"), buf, sizeof buf) > 0 && !strcmp(buf, "theirs\n"), "now '%s'", buf);
    }
    /* abort: the previous file stays, no temporary is left */
    compi_wfile w;
    CHECK(compi_file_create(&w, at("report.json"), 0666, COMPI_FILE_REPLACE, err, sizeof err) == COMPI_OK, "%s", err);
    fputs("half", w.f);
    compi_file_abort(&w);
    CHECK(read_back(at("report.json"), buf, sizeof buf) > 0 && !strcmp(buf, "second run\n"), "after abort '%s'", buf);
    CHECK(access(w.tmp, F_OK) != 0, "temporary %s left after abort", w.tmp);
}

static void test_write_private_in_place(void)
{
    char err[8192], buf[256];
    struct stat st;
    umask(0);   /* the widest umask: private files must not follow it */
    put(at("trace.bin"), "old contents, longer\n", 0644);
    CHECK(write_text(at("trace.bin"), "new\n", COMPI_FILE_IN_PLACE | COMPI_FILE_PRIVATE, err, sizeof err) == COMPI_OK,
          "%s", err);
    CHECK(read_back(at("trace.bin"), buf, sizeof buf) == 4 && !strcmp(buf, "new\n"), "not truncated: '%s'", buf);
    CHECK(stat(at("trace.bin"), &st) == 0 && (st.st_mode & 0777) == 0600, "existing file: mode %o", st.st_mode & 0777);
    CHECK(write_text(at("fresh.bin"), "x", COMPI_FILE_IN_PLACE | COMPI_FILE_PRIVATE, err, sizeof err) == COMPI_OK, "%s",
          err);
    CHECK(stat(at("fresh.bin"), &st) == 0 && (st.st_mode & 0777) == 0600, "new file: mode %o", st.st_mode & 0777);
    CHECK(write_text(at("fresh.json"), "x", COMPI_FILE_REPLACE | COMPI_FILE_PRIVATE, err, sizeof err) == COMPI_OK,
          "%s", err);
    CHECK(stat(at("fresh.json"), &st) == 0 && (st.st_mode & 0777) == 0600, "replaced file: mode %o",
          st.st_mode & 0777);
    put(at("victim2"), "precious\n", 0644);
    CHECK(symlink(at("victim2"), at("trace.lnk")) == 0, "symlink");
    CHECK(write_text(at("trace.lnk"), "x", COMPI_FILE_IN_PLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "symbolic link"), "in place through a link: '%s'", err);
    CHECK(read_back(at("victim2"), buf, sizeof buf) > 0 && !strcmp(buf, "precious\n"), "link target now '%s'", buf);
    CHECK(mkfifo(at("fifo2"), 0600) == 0, "mkfifo");
    CHECK(write_text(at("fifo2"), "x", COMPI_FILE_IN_PLACE, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "FIFO"), "in place into a FIFO: '%s'", err);
    umask(022);
}

static void test_read(void)
{
    char err[8192];
    int missing = -1;
    FILE *f;
    put(at("model.txt"), "x\n", 0644);
    CHECK((f = compi_file_open_read(at("model.txt"), &missing, err, sizeof err)) && !missing, "regular: '%s'", err);
    if (f) fclose(f);
    CHECK(symlink(at("model.txt"), at("model.lnk")) == 0, "symlink");
    CHECK((f = compi_file_open_read(at("model.lnk"), &missing, err, sizeof err)) != NULL, "link to a file: '%s'", err);
    if (f) fclose(f);
    CHECK(!compi_file_open_read(at("absent.txt"), &missing, err, sizeof err) && missing == 1 &&
          contains(err, "No such file"), "missing: %d '%s'", missing, err);
    CHECK(mkfifo(at("fifo.txt"), 0600) == 0, "mkfifo");
    CHECK(!compi_file_open_read(at("fifo.txt"), &missing, err, sizeof err) && !missing &&
          contains(err, "fifo.txt is a FIFO, not a regular file"), "FIFO: '%s'", err);
    CHECK(mkdir(at("dir.txt"), 0700) == 0, "mkdir");
    CHECK(!compi_file_open_read(at("dir.txt"), &missing, err, sizeof err) && !missing &&
          contains(err, "dir.txt is a directory"), "directory: '%s'", err);
}

static void test_dirs(void)
{
    char err[8192];
    struct stat st;
    CHECK(compi_dir_create(at("traces"), 0700, err, sizeof err) == COMPI_OK, "%s", err);
    CHECK(stat(at("traces"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700, "mode %o",
          st.st_mode & 0777);
    CHECK(compi_dir_create(at("traces"), 0700, err, sizeof err) == COMPI_OK, "existing: %s", err);
    CHECK(compi_dir_create(at("traces/"), 0700, err, sizeof err) == COMPI_OK, "trailing slash: %s", err);
    CHECK(compi_dir_create(at("a/b/c"), 0700, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "cannot create directory") && contains(err, "/a/b does not exist") && access(at("a"), F_OK) != 0,
          "nested: '%s'", err);
    put(at("plain"), "x", 0644);
    CHECK(compi_dir_create(at("plain"), 0700, err, sizeof err) == COMPI_ERR_CONFIG && contains(err, "not a directory"),
          "a file in the way: '%s'", err);
    CHECK(compi_dir_create(at("plain/sub"), 0700, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "not a directory"), "a file as parent: '%s'", err);
    CHECK(symlink(at("traces"), at("traces.lnk")) == 0, "symlink");
    CHECK(compi_dir_create(at("traces.lnk"), 0700, err, sizeof err) == COMPI_OK, "link to a directory: '%s'", err);
    CHECK(compi_dir_check(at("nodir"), err, sizeof err) == COMPI_ERR_CONFIG && contains(err, "no such directory"),
          "check: '%s'", err);
}

/* COMPI_HEURISTICS: a mistyped directory, a FIFO or directory as a model
 * file, a directory without models: errors naming the cause. */
static void test_heuristics_dir(void)
{
    char err[8192];
    compi_net_model net;
    compi_codec_model cod;
    int hn, hc;
    CHECK(compi_models_load_dir(at("heur-typo"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "heur-typo: no such directory"), "mistyped: '%s'", err);
    CHECK(mkdir(at("heur"), 0755) == 0, "mkdir");
    CHECK(compi_models_load_dir(at("heur"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_OK && !hn && !hc,
          "empty: '%s'", err);
    CHECK(mkfifo(at("heur/network.txt"), 0600) == 0, "mkfifo");
    alarm(20);
    CHECK(compi_models_load_dir(at("heur"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "network.txt is a FIFO"), "FIFO: '%s'", err);
    CHECK(compi_net_load(at("heur/network.txt"), &net, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "network.txt is a FIFO"), "FIFO, net_load: '%s'", err);
    alarm(0);
    unlink(at("heur/network.txt"));
    CHECK(mkdir(at("heur/network.txt"), 0755) == 0, "mkdir");
    CHECK(compi_models_load_dir(at("heur"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "network.txt is a directory"), "directory: '%s'", err);
    CHECK(compi_net_load(at("heur/network.txt"), &net, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "network.txt is a directory") && !contains(err, "empty file"), "directory, net_load: '%s'", err);
    rmdir(at("heur/network.txt"));
    compi_codec_model dflt;
    compi_codec_model_default(&dflt);
    CHECK(compi_codec_model_save(at("heur/codecs.txt"), &dflt, "test", err, sizeof err) == COMPI_OK, "%s", err);
    CHECK(compi_models_load_dir(at("heur"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_OK && !hn && hc,
          "codecs only: '%s' (%d %d)", err, hn, hc);
    compi_net_model dnet;
    compi_net_default(&dnet);
    CHECK(compi_net_save(at("heur/network.txt"), &dnet, "test", err, sizeof err) == COMPI_OK, "%s", err);
    CHECK(compi_models_load_dir(at("heur"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_OK && hn && hc,
          "both: '%s'", err);
    if (hn) compi_net_free(&net);
    compi_net_free(&dnet);
    put(at("heur-file"), "x", 0644);
    CHECK(compi_models_load_dir(at("heur-file"), &net, &hn, &cod, &hc, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "not a directory"), "a file as directory: '%s'", err);
}

/* Trace files: private, in a directory made for them (only the last
 * component), never through a link. */
static void test_trace_files(void)
{
    char err[8192], path[4200];
    struct stat st;
    umask(022);
    compi_trace_writer *w = compi_trace_open(at("tr"), 0, 2, "prog", "node0", 0, err, sizeof err);
    CHECK(w != NULL, "trace open: %s", err);
    if (w) CHECK(compi_trace_close(w, err, sizeof err) == COMPI_OK, "trace close: %s", err);
    snprintf(path, sizeof path, "%s", at("tr/trace.0.bin"));
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "trace file mode %o", st.st_mode & 0777);
    CHECK(stat(at("tr"), &st) == 0 && (st.st_mode & 0777) == 0700, "trace directory mode %o", st.st_mode & 0777);
    CHECK(!compi_trace_open(at("deep/er/tr"), 0, 2, "prog", "node0", 0, err, sizeof err) &&
          contains(err, "/deep/er does not exist") && access(at("deep"), F_OK) != 0, "nested trace dir: '%s'", err);
    put(at("victim3"), "precious\n", 0644);
    CHECK(symlink(at("victim3"), at("tr/trace.1.bin")) == 0, "symlink");
    CHECK(!compi_trace_open(at("tr"), 1, 2, "prog", "node0", 0, err, sizeof err) && contains(err, "symbolic link"),
          "trace through a link: '%s'", err);
    char buf[64];
    CHECK(read_back(at("victim3"), buf, sizeof buf) > 0 && !strcmp(buf, "precious\n"), "link target now '%s'", buf);
    /* rules: written whole into a directory compi_guide makes (not its parents) */
    CHECK(compi_rules_save(at("rules/x"), 0, 1, "prog", NULL, 0, NULL, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "/rules does not exist"), "nested rules dir: '%s'", err);
    CHECK(compi_rules_save(at("rules"), 0, 1, "prog", NULL, 0, NULL, err, sizeof err) == COMPI_OK, "rules: %s", err);
    CHECK(symlink(at("victim3"), at("rules/rules.1.txt")) == 0, "symlink");
    CHECK(compi_rules_save(at("rules"), 1, 2, "prog", NULL, 0, NULL, err, sizeof err) == COMPI_ERR_CONFIG &&
          contains(err, "symbolic link"), "rules through a link: '%s'", err);
    CHECK(mkfifo(at("rules/rules.2.txt"), 0600) == 0, "mkfifo");
    alarm(20);
    CHECK(!compi_rules_load(at("rules"), 2, 3, "prog", err, sizeof err) && contains(err, "a FIFO"),
          "rules from a FIFO: '%s'", err);
    alarm(0);
}

int main(void)
{
    snprintf(scratch, sizeof scratch, "%s/compi-safefile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(scratch)) { perror("mkdtemp"); return 1; }
    alarm(60);   /* a FIFO opened blocking would hang: fail instead */
    char base[3000];
    snprintf(base, sizeof base, "%.2900s", scratch);
    void (*cases[])(void) = {test_write_replace, test_write_private_in_place, test_read, test_dirs,
                             test_heuristics_dir, test_trace_files};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(scratch, sizeof scratch, "%s/case%zu", base, i);
        mkdir(scratch, 0755);
        cases[i]();
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", base);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("safefile: all checks passed\n");
    return failures ? 1 : 0;
}
