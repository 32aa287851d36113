/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Init/Finalize hooks and the buffered-send buffer. */
#include "core/requests.h"
#include "core/stash.h"
#include "wrappers/impl.h"

int compi_impl_Init(int *argc, char ***argv)
{
    compi_prof_pre_init();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) compi_interpose_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_core_init();
    return rc;
}

int compi_impl_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    compi_prof_pre_init();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) compi_interpose_init();
    if (rc == MPI_SUCCESS && !compi_bypass) rc = compi_core_init();
    return rc;
}

int compi_impl_Finalize(void)
{
    if (compi_g.initialized) {
        /* Everything compi still owes the network goes out before MPI closes. */
        compi_orphans_progress(1);
        if (compi_stash_live)
            compi_log(0, "%d probed message(s) were never received by the application", compi_stash_live);
        compi_core_finalize();
    }
    return PMPI_Finalize();
}

int compi_impl_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    /* compi_* hints change the communicator's policy */
    int rc = PMPI_Comm_set_info(comm, info);
    if (rc == MPI_SUCCESS) compi_comm_apply_hints(comm, info);
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
