/* Compares the DKB's prediction for one collective call with what Open MPI's
 * pml monitoring recorded (MPI-free; dkb_validate.sh runs dkb_probe under
 * mpirun first).
 *
 *   dkb_check --prof PREFIX --coll C --size N --count K --type-size T
 *             [--root R] [--alg A [--segsize S]]
 * Reads PREFIX.<rank>.prof for every rank: the "I" (internal: sent inside
 * collectives) and "E" (external) lines, summed per (src, dst): the probe
 * makes no point-to-point call of its own, and Open MPI's persistent
 * requests (alltoall linear) are reported as external. Without --alg the
 * DKB's fixed decision picks the algorithm. Exit 0 when messages and bytes
 * agree for every rank pair, 1 when they differ (each difference printed),
 * 2 on bad input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "map/map.h"
#include "probe_counts.h"

typedef struct {
    uint64_t msgs, bytes;
} cell;

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "dkb_check: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(2);
}

static long num(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || end == v) {
        fprintf(stderr, "dkb_check: %s: not a number: '%s'\n", opt, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    const char *prof = NULL, *coll = NULL;
    long size = -1, count = -1, ts = -1, root = 0, alg = 0, segsize = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) die("option %s needs a value", argv[i]);
        const char *o = argv[i], *v = argv[++i];
        if (!strcmp(o, "--prof")) prof = v;
        else if (!strcmp(o, "--coll")) coll = v;
        else if (!strcmp(o, "--size")) size = num(o, v);
        else if (!strcmp(o, "--count")) count = num(o, v);
        else if (!strcmp(o, "--type-size")) ts = num(o, v);
        else if (!strcmp(o, "--root")) root = num(o, v);
        else if (!strcmp(o, "--alg")) alg = num(o, v);
        else if (!strcmp(o, "--segsize")) segsize = num(o, v);
        else die("unknown option %s", o);
    }
    if (!prof || !coll || size < 1 || count < 0 || ts < 1) die("%s", "need --prof --coll --size --count --type-size");
    int c = compi_map_coll_parse(coll);
    if (c < 0) die("unknown collective '%s'", coll);

    int64_t *counts = calloc(size, sizeof *counts);
    cell *seen = calloc((size_t)size * size, sizeof *seen), *want = calloc((size_t)size * size, sizeof *want);
    if (!counts || !seen || !want) die("%s", "out of memory");
    for (long i = 0; i < size; i++) counts[i] = probe_rs_count((int)i, count);
    compi_map_call call = {.coll = c, .size = (int)size, .root = (int)root, .count = count, .counts = counts,
                           .type_size = (size_t)ts, .commutative = 1};
    compi_map_alg a;
    int rc = alg ? compi_map_ompi41_pinned(c, (int)alg, &a) : compi_map_ompi41_decide(&call, &a);
    if (rc) die("DKB: %s", compi_map_strerror(rc));
    a.segsize = (uint32_t)segsize;
    compi_map_msgs m = {0};
    if ((rc = compi_map_ompi41_messages(&call, &a, &m))) die("DKB: %s", compi_map_strerror(rc));
    for (size_t i = 0; i < m.n; i++) {
        cell *w = &want[(size_t)m.v[i].src * size + m.v[i].dst];
        w->msgs++;
        w->bytes += m.v[i].bytes;
    }

    for (long r = 0; r < size; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%ld.prof", prof, r);
        FILE *f = fopen(path, "r");
        if (!f) die("cannot open %s", path);
        char line[8192];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            if (line[0] != 'I' && line[0] != 'E') continue;
            if (line[1] != '\t') continue;
            long src, dst;
            unsigned long long bytes, msgs;
            if (sscanf(line + 2, "%ld\t%ld\t%llu bytes\t%llu msgs", &src, &dst, &bytes, &msgs) != 4 || src != r ||
                dst < 0 || dst >= size) {
                fprintf(stderr, "dkb_check: %s:%d: unexpected line: %s", path, lineno, line);
                exit(2);
            }
            seen[(size_t)src * size + dst].msgs += msgs;
            seen[(size_t)src * size + dst].bytes += bytes;
        }
        fclose(f);
    }

    int bad = 0;
    uint64_t tm = 0, tb = 0;
    for (long s = 0; s < size; s++)
        for (long d = 0; d < size; d++) {
            cell *x = &seen[s * size + d], *w = &want[s * size + d];
            tm += w->msgs;
            tb += w->bytes;
            if (x->msgs != w->msgs || x->bytes != w->bytes) {
                if (bad < 20)
                    printf("  %ld->%ld: monitoring %" PRIu64 " msgs %" PRIu64 " bytes, DKB %" PRIu64 " msgs %" PRIu64
                           " bytes\n", s, d, x->msgs, x->bytes, w->msgs, w->bytes);
                bad++;
            }
        }
    printf("%s %s size=%ld count=%ld ts=%ld root=%ld alg=%d(%s)%s segsize=%ld: %" PRIu64 " msgs %" PRIu64
           " bytes predicted, %d pairs differ\n", bad ? "MISMATCH" : "match", coll, size, count, ts, root, a.alg,
           compi_map_ompi41_alg_name(c, a.alg), alg ? " pinned" : " fixed", segsize, tm, tb, bad);
    compi_map_msgs_free(&m);
    free(counts);
    free(seen);
    free(want);
    return bad ? 1 : 0;
}
