/* SPDX-License-Identifier: BSD-3-Clause */
/* compi config: the settings libcompi would run with, and where each came
 * from (default, system file, user file, environment); --check validates
 * configuration files. Same parser and precedence as the library
 * (lib/engine/config.h). Exit status: 0 fine, 2 configuration error (as
 * MPI_Init would stop), 1 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/config.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: compi_config [--lib LIBCOMPI]       print every setting, its value and its source\n"
               "       compi_config --check FILE...        validate configuration files\n"
               "  --lib  the library whose system file (<libdir>/../etc/compi/compi.conf) applies;\n"
               "         default: this tool's own installation (<prefix>/libexec/compi or <build>/bin)\n");
}

static int check_files(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        char err[1024];
        int nset = 0;
        if (compi_config_check_file(files[i], &nset, err, sizeof err) != COMPI_OK) {
            fprintf(stderr, "compi: configuration error: %s\n", err);
            bad = 1;
        } else {
            printf("%s: ok (%d setting%s)\n", files[i], nset, nset == 1 ? "" : "s");
        }
    }
    return bad ? 2 : 0;
}

int main(int argc, char **argv)
{
    const char *lib = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            if (i + 1 >= argc) {
                usage(stderr);
                return 1;
            }
            return check_files(argc - i - 1, argv + i + 1);
        } else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc) {
            lib = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "compi_config: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }
    char self[COMPI_CONFIG_PATH_MAX], sys[COMPI_CONFIG_PATH_MAX];
    if (!lib) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            perror("compi_config: /proc/self/exe");
            return 1;
        }
        self[n] = 0;
    }
    if (compi_config_system_path(lib ? lib : self, sys, sizeof sys) != COMPI_OK) {
        fprintf(stderr, "compi_config: cannot tell the installation prefix of %s\n", lib ? lib : self);
        return 1;
    }
    static compi_config cfg;
    char err[1024];
    int rc = compi_config_load(&cfg, sys, err, sizeof err);
    if (lib) printf("library:     %s\n", lib);
    printf("system file: %s (%s)\n", cfg.system_file, cfg.system_read ? "read" : "absent");
    if (cfg.user_file[0])
        printf("user file:   %s (%s%s)\n", cfg.user_file, cfg.user_read ? "read" : "absent",
               cfg.user_from_env ? ", from COMPI_CONFIG" : "");
    else printf("user file:   none (no COMPI_CONFIG, XDG_CONFIG_HOME or HOME)\n");
    if (rc != COMPI_OK) {
        fprintf(stderr, "compi: configuration error: %s\n", err);
        return 2;
    }
    printf("\n%-22s  %-24s  %s\n", "setting", "value", "from");
    for (size_t i = 0; i < compi_setting_count(); i++) {
        char from[COMPI_CONFIG_PATH_MAX + 64];
        const char *v = compi_config_value(&cfg, i);
        compi_config_origin_text(&cfg, i, from, sizeof from);
        printf("%-22s  %-24s  %s\n", compi_setting_at(i)->key, *v ? v : "(unset)", from);
    }
    printf("\nPer communicator, the MPI_Info hints compi_mode, compi_codec and compi_min_bytes\n"
           "override mode, codec and min_bytes (set by the application, not shown here).\n");
    return 0;
}
