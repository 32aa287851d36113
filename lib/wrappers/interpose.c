/* SPDX-License-Identifier: BSD-3-Clause */
/* Living with other PMPI tools (mpiP, Score-P, TAU, ...) in one process.
 *
 * Symbol interposition runs only the FIRST definition of MPI_Send in lookup
 * order. If another tool's library comes before compi for some of the symbols
 * compi defines (LD_PRELOAD=tool:compi, or compi linked with -lcompi and the
 * tool preloaded), those calls go to the tool and from it to PMPI_, past
 * compi: a message could be compressed by compi's MPI_Isend and received by
 * the tool's MPI_Recv, raw. So when anything shadows compi, compi switches
 * itself to pass-through for every call (compi_bypass), on every rank.
 *
 * A tool BEHIND compi (LD_PRELOAD=compi:tool) is harmless to compi: compi
 * calls PMPI_ directly, so the tool's MPI_ wrappers simply never run for the
 * calls compi intercepts. compi works and says the tool will not see them.
 *
 * The check runs when the library is loaded (all objects are mapped by then)
 * and is agreed over MPI_COMM_WORLD in compi's MPI_Init when that runs (if a
 * tool shadows MPI_Init itself, compi's never runs, and the load-time check
 * has already chosen pass-through). Rank 0 explains the decision on stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "core/boot.h"
#include "wrappers/impl.h"

int compi_bypass;

#define COMPI_IP_MAX 2048
static char compi_ip_front[COMPI_IP_MAX]; /* "libX.so: MPI_Send MPI_Recv ..." */
static char compi_ip_behind[COMPI_IP_MAX];
static int compi_ip_told;

static const char *compi_base(const char *path)
{
    if (!path || !*path) return "the program itself"; /* dladdr names the executable "" */
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Appends "name" under the library's heading in buf ("lib: a b; lib2: c"). */
static void compi_ip_add(char *buf, const char *lib, const char *name)
{
    size_t len = strlen(buf);
    char head[512];
    snprintf(head, sizeof head, "%s:", lib);
    char *at = strstr(buf, head);
    if (len + strlen(head) + strlen(name) + 8 >= COMPI_IP_MAX) return;
    if (!at) {
        snprintf(buf + len, COMPI_IP_MAX - len, "%s%s %s", len ? "; " : "", head, name);
        return;
    }
    /* insert " name" before the next "; " of this library's list */
    char *end = strstr(at, "; ");
    size_t pos = end ? (size_t)(end - buf) : len;
    size_t nl = strlen(name) + 1;
    memmove(buf + pos + nl, buf + pos, len - pos + 1);
    buf[pos] = ' ';
    memcpy(buf + pos + 1, name, nl - 1);
}

/* Is the object at `base` one of the MPI's own libraries? It is if it defines
 * the profiling name of `name` (PMPI_Send, pmpi_send_, pmpir_wait_f08_ under
 * MPICH's f08 layer) or is the library that defines PMPI_Init. */
static int compi_ip_is_mpi(void *base, const char *fname, const char *name, void *pmpi_init_base)
{
    if (base == pmpi_init_base) return 1;
    void *h = dlopen(fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    char p[256];
    int mpi = 0;
    const char *alts[3] = {"P%s", "p%s", "pmpir%s"};
    for (int i = 0; i < 3 && !mpi; i++) {
        snprintf(p, sizeof p, alts[i], i == 2 ? name + 3 : name);
        void *q = dlsym(h, p);
        Dl_info qi;
        mpi = q && dladdr(q, &qi) && qi.dli_fbase == base;
    }
    dlclose(h);
    return mpi;
}

__attribute__((constructor)) static void compi_interpose_check(void)
{
#ifdef COMPI_COMPAT_NO_INTERPOSE_CHECK
    return; /* lib/compat/smpi_compat.h says why */
#endif
    Dl_info self;
    if (!dladdr((void *)compi_interpose_check, &self) || !self.dli_fname) return;
    void *own = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!own) return;
    Dl_info pi;
    void *pinit = dlsym(RTLD_DEFAULT, "PMPI_Init");
    void *pmpi_base = pinit && dladdr(pinit, &pi) ? pi.dli_fbase : NULL;
    for (int i = 0; compi_symbols[i]; i++) {
        const char *name = compi_symbols[i];
        void *mine = dlsym(own, name);
        if (!mine) continue;
        void *first = dlsym(RTLD_DEFAULT, name);
        Dl_info fi;
        if (first && first != mine && dladdr(first, &fi) && fi.dli_fbase != self.dli_fbase) {
            compi_bypass = 1;
            compi_ip_add(compi_ip_front, compi_base(fi.dli_fname), name);
            continue;
        }
        void *next = dlsym(RTLD_NEXT, name);
        Dl_info ni;
        if (next && dladdr(next, &ni) && ni.dli_fbase != self.dli_fbase &&
            !compi_ip_is_mpi(ni.dli_fbase, ni.dli_fname, name, pmpi_base))
            compi_ip_add(compi_ip_behind, compi_base(ni.dli_fname), name);
    }
    dlclose(own);
}

static void compi_ip_tell(void)
{
    if (__atomic_exchange_n(&compi_ip_told, 1, __ATOMIC_RELAXED)) return;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    if (compi_bypass) {
        if (compi_ip_front[0])
            fprintf(stderr,
                    "compi[0]: another PMPI tool comes before compi in symbol lookup order and "
                    "shadows these calls of compi's (%s); compi is OFF (pass-through on every rank, "
                    "nothing compressed) so that no message is compressed on one side only. To compress, "
                    "load compi first (LD_PRELOAD=libcompi.so:<tool>).\n",
                    compi_ip_front);
        else
            fprintf(stderr, "compi[0]: another rank found a PMPI tool in front of compi; compi is OFF "
                            "(pass-through on every rank, nothing compressed)\n");
    } else if (compi_ip_behind[0]) {
        fprintf(stderr,
                "compi[0]: a PMPI tool comes after compi in symbol lookup order (%s); compi works, "
                "but calls the MPI (PMPI_) directly, so that tool does not see these calls\n",
                compi_ip_behind);
    }
    fflush(stderr);
}

void compi_interpose_init(void)
{
#ifdef COMPI_COMPAT_NO_INTERPOSE_CHECK
    /* no rank looked: every rank's answer is "not bypassed", and the
     * global symbol lookups would find every simulated rank's copy */
    return;
#endif
    /* every rank runs this inside MPI_Init: one decision for all, up and
     * down a tree of messages (lib/core/boot.c: no collective, so
     * MPI_COMM_WORLD's first is the application's) */
    unsigned long long any = (unsigned long long)compi_bypass;
    if (compi_boot_max(&any, 1) != MPI_SUCCESS) any = 1; /* pass-through: safe whatever the others do */
    compi_bypass = any != 0;
    compi_ip_tell();
}

/* In bypass mode: tell once, as soon as MPI is up (when a tool shadows
 * MPI_Init, compi's MPI_Init never runs). */
void compi_bypass_call(void)
{
    if (__atomic_load_n(&compi_ip_told, __ATOMIC_RELAXED)) return;
    int up = 0, down = 0;
    PMPI_Initialized(&up);
    PMPI_Finalized(&down);
    if (up && !down) compi_ip_tell();
}
