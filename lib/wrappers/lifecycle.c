/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Init/Finalize hooks and the buffered-send buffer. The wrappers drive
 * the rooms below them: core starts first and finalizes last but for the
 * rooms' own state (coll's sub-communicators), and the rooms register their
 * sections of core's report (core/report.h), so core names none of them. */
#include "coll/coll.h"
#include "coll/nbc.h"
#include "core/comm.h"
#include "core/profile.h"
#include "core/report.h"
#include "core/requests.h"
#include "core/side.h"
#include "core/stash.h"
#include "core/state.h"
#include "io/twophase.h"
#include "wrappers/impl.h"

/* generated with the wrappers (tools/wrapgen.py): calls per MPI function */
extern uint64_t compi_call_counts[];
extern const int compi_call_count_n;
extern const char *const compi_call_names[];

static void compi_calls_fill(uint64_t *v)
{
    for (int i = 0; i < compi_call_count_n; i++) v[i] = __atomic_load_n(&compi_call_counts[i], __ATOMIC_RELAXED);
}

/* The MPI functions called, with their counts; those never called are left out. */
static void compi_calls_json(FILE *f, const uint64_t *v)
{
    fprintf(f, "{");
    int first = 1;
    for (int i = 0; i < compi_call_count_n; i++) {
        if (!v[i]) continue;
        fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", compi_call_names[i], (unsigned long long)v[i]);
        first = 0;
    }
    fprintf(f, "}");
}

static compi_report_counters compi_calls_section = {"calls", 0, compi_calls_fill, compi_calls_json, NULL};
static const compi_report_list compi_io_section = {"io_files", compi_io_report_json};

/* The rooms' state and report sections, once core is up (again: nothing). */
static int compi_rooms_init(void)
{
    compi_calls_section.words = compi_call_count_n;
    compi_report_add_counters(&compi_calls_section);
    compi_coll_report_register();
    compi_sched_set_wait(compi_impl_Wait);
    compi_report_add_list(&compi_io_section);
    return compi_coll_init();
}

int compi_impl_Init(int *argc, char ***argv)
{
    compi_prof_pre_init();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) compi_interpose_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_core_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_rooms_init();
    return rc;
}

int compi_impl_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    compi_prof_pre_init();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) compi_interpose_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_core_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_rooms_init();
    return rc;
}

int compi_impl_Finalize(void)
{
    if (compi_g.initialized) {
        /* Everything compi still owes the network goes out before MPI closes. */
        compi_orphans_progress(1);
        compi_side_stale_finish(); /* parts of failed messages: their senders may wait for them */
        if (compi_stash_live)
            compi_log(0, "%d probed message(s) were never received by the application", compi_stash_live);
        /* compi started lazily (an MPI call before MPI_Init's wrapper ran):
         * the report still has every section */
        compi_rooms_init();
        compi_nbc_finalize();  /* the nonblocking collectives' gate votes in flight */
        compi_core_finalize(); /* the report, traces, compi's own communicators */
        /* the node-aware collectives' sub-communicators on every
         * communicator the application did not free: MPI_Finalize deletes
         * the attributes of MPI_COMM_SELF first, while MPI still works, but
         * the standard promises nothing for other communicators
         * (MPI_COMM_WORLD included), so compi frees them here, while every
         * rank can */
        compi_coll_finalize();
    }
    return PMPI_Finalize();
}

int compi_impl_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    /* compi_* hints change the communicator's policy, and so what the
     * collectives built for the old one */
    int rc = PMPI_Comm_set_info(comm, info);
    if (rc == MPI_SUCCESS) {
        compi_comm_apply_hints(comm, info);
        compi_coll_comm_reset(comm);
    }
    return rc;
}

int compi_impl_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    if (rc == MPI_SUCCESS) compi_comm_apply_hints(*newcomm, info);
    return rc;
}

int compi_impl_Buffer_detach(void *buffer_addr, int *size)
{
    /* Detach waits until buffered messages are sent; compi's own copies of
     * buffered frames count as such messages. */
    if (compi_g.initialized) compi_orphans_progress(1);
    return PMPI_Buffer_detach(buffer_addr, size);
}

#if MPI_VERSION >= 4
int compi_impl_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    if (compi_g.initialized) compi_orphans_progress(1);
    return PMPI_Buffer_detach_c(buffer_addr, size);
}
#endif
