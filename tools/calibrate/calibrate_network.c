/* SPDX-License-Identifier: BSD-3-Clause */
/* compi_calibrate_network: measures the network model and writes the network
 * heuristics file (docs/heuristics.md). A plain MPI program: it links the
 * engine and lib/netcal/netcal.c, never libcompi (run it without LD_PRELOAD).
 * `compi calibrate network` builds and launches it, also on the emulated
 * cluster (one rank per node).
 *
 *   mpirun -np N compi_calibrate_network [-o network.txt] [--max-bytes 128M]
 *          [--reps 20] [--max-rtt 30] [--budget 0] [--ranks-per-node K] [--serial] [--quiet]
 *
 * Nodes: ranks sharing memory (MPI_COMM_TYPE_SHARED), named by
 * MPI_Get_processor_name of their lowest rank; --ranks-per-node K fakes nodes
 * node0, node1, ... of K consecutive ranks (tests on one host). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <hwloc.h>
#include <mpi.h>
#include "engine/model.h"
#include "netcal/netcal.h"

static void cn_usage(FILE *f)
{
    fprintf(f, "usage: compi_calibrate_network [-o PATH] [--max-bytes SIZE] [--reps N] [--max-rtt SEC]\n"
               "                               [--budget SEC] [--ranks-per-node K] [--serial] [--quiet]\n"
               "  -o PATH            network heuristics file to write (default ./network.txt)\n"
               "  --max-bytes SIZE   largest message, power-of-two sizes from 2 B (default 128M;\n"
               "                     suffixes K, M, G = KiB, MiB, GiB)\n"
               "  --reps N           round trips per size, median kept (default 20; fewer above 1 MiB)\n"
               "  --max-rtt SEC      a pair stops growing sizes after a round trip this long (default 30)\n"
               "  --budget SEC       bound on the whole measurement (default 0 = none)\n"
               "  --ranks-per-node K fake nodes node0, node1, ... of K ranks each (testing on one host;\n"
               "                     implies --serial)\n"
               "  --serial           one node pair at a time instead of a round's pairs at once: for\n"
               "                     nodes sharing one host's cores (an emulated cluster)\n"
               "  --quiet            no progress and no table (the file is still written)\n"
               "Run with one rank per node (two on a node to measure its intra-node link).\n");
}

static int cn_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 1) return -1;
    double mult = 1;
    if (*end) {
        switch (*end) {
        case 'k':
        case 'K': mult = 1024.0; break;
        case 'm':
        case 'M': mult = 1024.0 * 1024; break;
        case 'g':
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'i') end++;
        if (*end == 'B' || *end == 'b') end++;
        if (*end) return -1;
    }
    *out = (size_t)(v * mult);
    return 0;
}

static int cn_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < 0) return -1;
    *out = v;
    return 0;
}

static void cn_human_size(double b, char *buf, size_t cap)
{
    if (b >= 1 << 30 && (long long)b % (1 << 30) == 0) snprintf(buf, cap, "%.0fG", b / (1 << 30));
    else if (b >= 1 << 20 && (long long)b % (1 << 20) == 0) snprintf(buf, cap, "%.0fM", b / (1 << 20));
    else if (b >= 1 << 10 && (long long)b % (1 << 10) == 0) snprintf(buf, cap, "%.0fK", b / (1 << 10));
    else snprintf(buf, cap, "%.0f", b);
}

/* MB/s (10^6 B/s) of link l at size b if b was measured, else < 0. */
static double cn_mbps_at(const compi_net_link *l, double b)
{
    for (int k = 0; k < l->npoints; k++)
        if (l->bytes[k] == b) return b / compi_net_time_us(l, b);
    return -1;
}

static void cn_print_tables(const compi_net_model *m)
{
    for (int i = 0; i < m->nlinks; i++) {
        const compi_net_link *l = &m->links[i];
        printf("\nlink %s %s %s   alpha %.2f us\n", l->cls == COMPI_LINK_INTRA ? "intra" : "inter", l->node_a,
               l->node_b, l->alpha_us);
        printf("%12s %14s %12s\n", "size", "one-way us", "MB/s");
        for (int k = 0; k < l->npoints; k++) {
            char sz[32];
            cn_human_size(l->bytes[k], sz, sizeof sz);
            double t = compi_net_time_us(l, l->bytes[k]);
            printf("%12s %14.2f %12.2f\n", sz, t, l->bytes[k] / t);
        }
    }
    /* One summary line per link: the numbers people compare. */
    printf("\n%-30s %10s %10s %10s %10s %16s\n", "link", "alpha_us", "MB/s@64K", "MB/s@1M", "MB/s@8M", "MB/s@max");
    for (int i = 0; i < m->nlinks; i++) {
        const compi_net_link *l = &m->links[i];
        char name[160], cell[4][48], maxs[16];
        snprintf(name, sizeof name, "%s %s-%s", l->cls == COMPI_LINK_INTRA ? "intra" : "inter", l->node_a, l->node_b);
        const double at[3] = {65536.0, 1048576.0, 8388608.0};
        for (int j = 0; j < 3; j++) {
            double v = cn_mbps_at(l, at[j]);
            if (v < 0) snprintf(cell[j], sizeof cell[j], "-");
            else snprintf(cell[j], sizeof cell[j], "%.2f", v);
        }
        if (l->npoints > 0) {
            double b = l->bytes[l->npoints - 1];
            cn_human_size(b, maxs, sizeof maxs);
            snprintf(cell[3], sizeof cell[3], "%.2f (%s)", b / compi_net_time_us(l, b), maxs);
        } else {
            snprintf(cell[3], sizeof cell[3], "-");
        }
        printf("%-30s %10.2f %10s %10s %10s %16s\n", name, l->alpha_us, cell[0], cell[1], cell[2], cell[3]);
    }
}

/* This host's packages, cores and processing units (hwloc); zeros if
 * hwloc cannot tell (the file then has no node line for it). */
static void cn_hwloc(int out[3])
{
    hwloc_topology_t t;
    out[0] = out[1] = out[2] = 0;
    if (hwloc_topology_init(&t) != 0) return;
    if (hwloc_topology_load(t) == 0) {
        int p = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE), c = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE),
            u = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        if (p < 1) p = 1; /* some virtual machines report no package */
        if (c < p) c = p;
        out[0] = p, out[1] = c, out[2] = u >= c ? u : c;
    }
    hwloc_topology_destroy(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const char *out_path = "network.txt";
    int rpn = 0, quiet = 0, serial = 0;
    compi_netcal_opts o;
    compi_netcal_opts_tool(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0) cn_usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            bad = !v;
            out_path = v;
            i++;
        } else if (!strcmp(a, "--max-bytes")) {
            bad = !v || cn_parse_size(v, &o.max_bytes) != 0;
            i++;
        } else if (!strcmp(a, "--reps")) {
            bad = !v || (o.reps = atoi(v)) < 1;
            i++;
        } else if (!strcmp(a, "--max-rtt")) {
            bad = !v || cn_parse_double(v, &o.max_rtt_s) != 0;
            i++;
        } else if (!strcmp(a, "--budget")) {
            bad = !v || cn_parse_double(v, &o.budget_s) != 0;
            i++;
        } else if (!strcmp(a, "--ranks-per-node")) {
            bad = !v || (rpn = atoi(v)) < 1;
            i++;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--serial")) {
            serial = 1;
        } else {
            bad = 1;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "compi_calibrate_network: bad or incomplete option '%s'\n", a);
                cn_usage(stderr);
            }
            MPI_Finalize();
            return 2;
        }
    }
    o.verbose = quiet ? 0 : 1;
    /* testing: COMPI_DEBUG_LINK_TIMES=A,B[,K[,D]] (compi.conf(5)) gives every
     * link these timings instead of measured ones, so the tests of the
     * phases, budget and file do not depend on the machine's load */
    const char *inj = getenv("COMPI_DEBUG_LINK_TIMES");
    if (inj && *inj) {
        int k = 0, got = sscanf(inj, "%lf,%lf,%d,%lf", &o.inject_alpha_us, &o.inject_beta_ns, &k, &o.inject_burst);
        if (got < 2 || o.inject_alpha_us < 0 || o.inject_beta_ns < 0 || k < 0 || o.inject_burst < 0) {
            if (rank == 0)
                fprintf(stderr, "compi_calibrate_network: COMPI_DEBUG_LINK_TIMES='%s' is not A,B[,K[,D]]\n", inj);
            MPI_Finalize();
            return 2;
        }
        o.inject = 1;
        o.inject_outlier_every = got > 2 ? k : 0;
    }
    o.serial = serial || rpn > 0; /* fake nodes share this host: one pair at a time */

    int nnodes, *node_of_rank;
    char(*names)[COMPI_NET_NAME_MAX];
    int rc = compi_netcal_node_map(MPI_COMM_WORLD, rpn, &nnodes, &node_of_rank, &names);
    if (rc != COMPI_OK) {
        if (rank == 0) fprintf(stderr, "compi_calibrate_network: node map failed (%d)\n", rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0 && !quiet) {
        printf("compi calibrate network: %d ranks on %d nodes:", size, nnodes);
        for (int n = 0; n < nnodes; n++) {
            int cnt = 0;
            for (int r = 0; r < size; r++) cnt += node_of_rank[r] == n;
            printf(" %s(%d)", names[n], cnt);
        }
        printf("\n  sizes 2 B .. %zu B, median of %d round trips, max round trip %g s, budget %s\n", o.max_bytes,
               o.reps, o.max_rtt_s, o.budget_s > 0 ? "set" : "none");
        fflush(stdout);
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "compi_calibrate_network: needs at least 2 ranks (one per node)\n");
        MPI_Finalize();
        return 2;
    }

    /* what each node is made of (hwloc), from its first rank */
    int mine[3] = {0, 0, 0}, *all = rank == 0 ? malloc(sizeof(int) * 3 * (size_t)size) : NULL;
    cn_hwloc(mine);
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);

    compi_net_model m;
    double spent = 0;
    rc = compi_netcal_measure(MPI_COMM_WORLD, nnodes, node_of_rank, (const char(*)[COMPI_NET_NAME_MAX])names, &o, &m,
                              &spent);
    int status = 0;
    if (rank == 0) {
        if (rc != COMPI_OK) {
            fprintf(stderr, "compi_calibrate_network: measurement failed (%d)\n", rc);
            status = 1;
        } else if (m.nlinks == 0 && m.nrejected) {
            fprintf(stderr,
                    "compi_calibrate_network: every measured link's fit was degenerate (%s): nothing written; "
                    "a larger --budget or --max-bytes measures more sizes\n",
                    m.rejected);
            status = 1;
        } else if (m.nlinks == 0) {
            fprintf(stderr, "compi_calibrate_network: nothing measured (one node with one rank?)\n");
            status = 1;
        } else {
            if (m.nrejected)
                fprintf(stderr,
                        "compi_calibrate_network: warning: %d measured link(s) left out, their fit was "
                        "degenerate (%s); the class default or compi's built-in model serves them\n",
                        m.nrejected, m.rejected);
            char date[64], lib[MPI_MAX_LIBRARY_VERSION_STRING], comment[4096];
            time_t now = time(NULL);
            strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
            int len = 0;
            MPI_Get_library_version(lib, &len);
            lib[strcspn(lib, "\r\n")] = 0;
            int off = snprintf(comment, sizeof comment,
                               "compi calibrate network, %s\n"
                               "MPI: %s\n"
                               "%d ranks on %d nodes%s:",
                               date, lib, size, nnodes, rpn > 0 ? " (faked: --ranks-per-node)" : "");
            for (int n = 0; n < nnodes && off < (int)sizeof comment - 200; n++) {
                int cnt = 0;
                for (int r = 0; r < size; r++) cnt += node_of_rank[r] == n;
                off += snprintf(comment + off, sizeof comment - (size_t)off, "%s %s(%d ranks)", n ? "," : "", names[n],
                                cnt);
            }
            snprintf(comment + off, sizeof comment - (size_t)off,
                     "\nping-pong between node leaders (intra: leader and the next rank of its node),\n"
                     "sizes 2 B .. %zu B (powers of two), median of %d round trips per size (fewer above\n"
                     "1 MiB, at least 3), max round trip %g s, budget %g s (0 = none); one-way = round trip / 2;\n"
                     "\"* *\" links: per size the median over the measured pairs of the class;\n"
                     "latency and bandwidth from a robust (Theil-Sen) fit of each link's times.\n"
                     "pairs measured %s; measured in %.2f s",
                     o.max_bytes, o.reps, o.max_rtt_s, o.budget_s,
                     o.serial ? "one at a time (--serial: nodes share a host)" : "a tournament round at a time", spent);
            char day[16];
            strftime(day, sizeof day, "%Y-%m-%d", localtime(&now));
            /* at most 5 words: compi_net_load rejects longer source lines */
            snprintf(m.source, sizeof m.source, "compi-calibrate-network %s %d-nodes median-of-%d", day, nnodes,
                     o.reps);
            char err[512];
            for (int n = 0; n < nnodes; n++) {
                int r = 0;
                while (r < size && node_of_rank[r] != n) r++;
                compi_net_node nd = {.packages = all[3 * r], .cores = all[3 * r + 1], .pus = all[3 * r + 2]};
                snprintf(nd.name, sizeof nd.name, "%s", names[n]);
                if (nd.packages >= 1 && nd.cores >= nd.packages && nd.pus >= nd.cores &&
                    compi_net_node_set(&m, &nd) != COMPI_OK)
                    fprintf(stderr, "compi_calibrate_network: out of memory for the node descriptions\n");
            }
            if (compi_net_save(out_path, &m, comment, err, sizeof err) != COMPI_OK) {
                fprintf(stderr, "compi_calibrate_network: %s\n", err);
                status = 1;
            } else {
                if (!quiet) cn_print_tables(&m);
                printf("\nwrote %s (%d links, %.2f s)\n", out_path, m.nlinks, spent);
            }
        }
    }
    compi_net_free(&m);
    free(all);
    free(node_of_rank);
    free(names);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
