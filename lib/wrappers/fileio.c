/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO: the collective data calls may run compi's two-phase algorithm
 * (lib/io/twophase.h); everything else goes to the MPI's own MPI-IO and is
 * counted per file with the reason. */
#include <string.h>
#include "core/state.h"
#include "io/twophase.h"
#include "wrappers/impl.h"

/* compi looks at files only when it is on (COMPI_MODE=off is a pure pass-through) */
static int compi_io_active(void)
{
    return compi_g.initialized && !compi_g.finalized && compi_cfg.mode != COMPI_MODE_OFF;
}

static compi_io_file *compi_io_of(MPI_File fh)
{
    return compi_io_active() ? compi_io_file_find(fh) : NULL;
}

static void compi_io_passed(MPI_File fh, compi_io_pass why)
{
    compi_io_file *f = compi_io_of(fh);
    if (f) __atomic_fetch_add(&f->st.pass[why], 1, __ATOMIC_RELAXED);
}

int compi_impl_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    if (rc == MPI_SUCCESS && compi_io_active()) compi_io_file_opened(comm, filename, amode, info, *fh);
    return rc;
}

int compi_impl_File_close(MPI_File *fh)
{
    if (fh && compi_io_active()) compi_io_file_closing(*fh);
    return PMPI_File_close(fh);
}

int compi_impl_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                             const char *datarep, MPI_Info info)
{
    int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    compi_io_file *f = compi_io_of(fh);
    if (rc == MPI_SUCCESS && f) {
        compi_io_file_view(f, disp, etype, filetype, datarep);
        compi_io_file_hints(f, info);
    }
    return rc;
}

int compi_impl_File_set_info(MPI_File fh, MPI_Info info)
{
    int rc = PMPI_File_set_info(fh, info);
    compi_io_file *f = compi_io_of(fh);
    if (rc == MPI_SUCCESS && f) compi_io_file_hints(f, info);
    return rc;
}

int compi_impl_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    int rc = PMPI_File_get_info(fh, info_used);
    compi_io_file *f = compi_io_of(fh);
    /* the application that gave compi_cb_aggregators sees the policy in force */
    if (rc == MPI_SUCCESS && f && f->hinted && *info_used != MPI_INFO_NULL)
        PMPI_Info_set(*info_used, "compi_cb_aggregators", compi_io_policy_name(f->policy));
    return rc;
}

/* The individual file pointer stays the MPI's: compi reads it and moves it
 * with these same calls, so they pass through. */
int compi_impl_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    return PMPI_File_seek(fh, offset, whence);
}

int compi_impl_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    return PMPI_File_get_position(fh, offset);
}

int compi_impl_File_sync(MPI_File fh)
{
    compi_io_file *f = compi_io_of(fh);
    int rc = f ? compi_io_file_sync(f) : MPI_SUCCESS;
    int rc2 = PMPI_File_sync(fh);
    return rc2 != MPI_SUCCESS ? rc2 : rc;
}

/* ---- the collective data calls */
static int compi_io_call(MPI_File fh, compi_io_op op, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                         MPI_Status *status, int *handled)
{
    compi_io_file *f = compi_io_of(fh);
    *handled = 0;
    return f ? compi_io_collective(f, op, offset, buf, count, dt, status, handled) : MPI_SUCCESS;
}

int compi_impl_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    int handled, rc = compi_io_call(fh, COMPI_IO_WRITE_ALL, 0, (void *)buf, count, dt, status, &handled);
    return handled ? rc : PMPI_File_write_all(fh, buf, count, dt, status);
}

int compi_impl_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt,
                                 MPI_Status *status)
{
    int handled, rc = compi_io_call(fh, COMPI_IO_WRITE_AT_ALL, offset, (void *)buf, count, dt, status, &handled);
    return handled ? rc : PMPI_File_write_at_all(fh, offset, buf, count, dt, status);
}

int compi_impl_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    int handled, rc = compi_io_call(fh, COMPI_IO_READ_ALL, 0, buf, count, dt, status, &handled);
    return handled ? rc : PMPI_File_read_all(fh, buf, count, dt, status);
}

int compi_impl_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                                MPI_Status *status)
{
    int handled, rc = compi_io_call(fh, COMPI_IO_READ_AT_ALL, offset, buf, count, dt, status, &handled);
    return handled ? rc : PMPI_File_read_at_all(fh, offset, buf, count, dt, status);
}

/* ---- passed to the MPI, counted per file */
#define PASS(why, call)                                                                                                \
    do {                                                                                                               \
        compi_io_passed(fh, why);                                                                                      \
        return call;                                                                                                   \
    } while (0)
int compi_impl_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_INDEPENDENT, PMPI_File_write(fh, buf, count, dt, status));
}
int compi_impl_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt,
                             MPI_Status *status)
{
    PASS(COMPI_IO_PASS_INDEPENDENT, PMPI_File_write_at(fh, offset, buf, count, dt, status));
}
int compi_impl_File_read(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_INDEPENDENT, PMPI_File_read(fh, buf, count, dt, status));
}
int compi_impl_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_INDEPENDENT, PMPI_File_read_at(fh, offset, buf, count, dt, status));
}
int compi_impl_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iwrite(fh, buf, count, dt, request));
}
int compi_impl_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt,
                              MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iwrite_at(fh, offset, buf, count, dt, request));
}
int compi_impl_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iread(fh, buf, count, dt, request));
}
int compi_impl_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                             MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iread_at(fh, offset, buf, count, dt, request));
}
int compi_impl_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iwrite_all(fh, buf, count, dt, request));
}
int compi_impl_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt,
                                  MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iwrite_at_all(fh, offset, buf, count, dt, request));
}
int compi_impl_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iread_all(fh, buf, count, dt, request));
}
int compi_impl_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt,
                                 MPI_Request *request)
{
    PASS(COMPI_IO_PASS_NONBLOCKING, PMPI_File_iread_at_all(fh, offset, buf, count, dt, request));
}
int compi_impl_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_write_shared(fh, buf, count, dt, status));
}
int compi_impl_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_read_shared(fh, buf, count, dt, status));
}
int compi_impl_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_iwrite_shared(fh, buf, count, dt, request));
}
int compi_impl_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *request)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_iread_shared(fh, buf, count, dt, request));
}
int compi_impl_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_write_ordered(fh, buf, count, dt, status));
}
int compi_impl_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *status)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_read_ordered(fh, buf, count, dt, status));
}
/* split collectives: counted at _begin */
int compi_impl_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SPLIT, PMPI_File_write_all_begin(fh, buf, count, dt));
}
int compi_impl_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return PMPI_File_write_all_end(fh, buf, status);
}
int compi_impl_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SPLIT, PMPI_File_read_all_begin(fh, buf, count, dt));
}
int compi_impl_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return PMPI_File_read_all_end(fh, buf, status);
}
int compi_impl_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SPLIT, PMPI_File_write_at_all_begin(fh, offset, buf, count, dt));
}
int compi_impl_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return PMPI_File_write_at_all_end(fh, buf, status);
}
int compi_impl_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SPLIT, PMPI_File_read_at_all_begin(fh, offset, buf, count, dt));
}
int compi_impl_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return PMPI_File_read_at_all_end(fh, buf, status);
}
int compi_impl_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_write_ordered_begin(fh, buf, count, dt));
}
int compi_impl_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return PMPI_File_write_ordered_end(fh, buf, status);
}
int compi_impl_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype dt)
{
    PASS(COMPI_IO_PASS_SHARED, PMPI_File_read_ordered_begin(fh, buf, count, dt));
}
int compi_impl_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return PMPI_File_read_ordered_end(fh, buf, status);
}
