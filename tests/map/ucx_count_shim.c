/* SPDX-License-Identifier: BSD-3-Clause */
/* The oracle for MPICH (ch4:ucx): an LD_PRELOAD shim that counts, per
 * destination, the messages and bytes each rank hands to UCX's tagged sends
 * (ucp_tag_send_nbx, ucp_tag_send_sync_nbx), internal collective traffic
 * included, which a PMPI layer never sees (MPICH 4.0 has no MPI_T pvars
 * either). Run with MPIR_CVAR_NOLOCAL=1 so that ranks of one host do not
 * bypass UCX through shared memory.
 *
 * The destination rank is the endpoint's index in creation order: MPICH
 * creates one endpoint per rank of MPI_COMM_WORLD, in rank order, at
 * MPI_Init (the validation would fail loudly if that changed). At exit each
 * rank (PMI_RANK) writes $COMPI_SHIM_PROF.<rank>.prof in the format of Open
 * MPI's pml monitoring ("I<TAB>src<TAB>dst<TAB>N bytes<TAB>M msgs sent"), so
 * dkb_check reads both. Sizes are bytes: for MPICH's non-contiguous sends
 * (a UCX generic datatype whose context is MPICH's datatype object, whose
 * first field is the MPI_Datatype handle; e.g. Gather's wrapped-around
 * blocks) count x PMPI_Type_size of that handle. (Calling the datatype's
 * pack callbacks from here breaks MPICH's reference counts.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucp/api/ucp.h>

#define MAXEP 4096
static ucp_ep_h eps[MAXEP];
static int neps;
static unsigned long long msgs[MAXEP], bytes[MAXEP];

#define MAXDT 1024
static struct {
    ucp_datatype_t dt;
    ucp_generic_dt_ops_t ops;
    void *context;
} dts[MAXDT];
static int ndts;

static int index_of(ucp_ep_h ep)
{
    for (int i = 0; i < neps; i++)
        if (eps[i] == ep) return i;
    return -1;
}

ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *ep)
{
    static ucs_status_t (*real)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *);
    if (!real) real = (ucs_status_t(*)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *))dlsym(RTLD_NEXT, "ucp_ep_create");
    ucs_status_t rc = real(worker, params, ep);
    if (rc == UCS_OK && neps < MAXEP) eps[neps++] = *ep;
    return rc;
}

ucs_status_t ucp_dt_create_generic(const ucp_generic_dt_ops_t *ops, void *context, ucp_datatype_t *dt)
{
    static ucs_status_t (*real)(const ucp_generic_dt_ops_t *, void *, ucp_datatype_t *);
    if (!real) real = (ucs_status_t(*)(const ucp_generic_dt_ops_t *, void *, ucp_datatype_t *))dlsym(RTLD_NEXT, "ucp_dt_create_generic");
    ucs_status_t rc = real(ops, context, dt);
    if (rc == UCS_OK && ndts < MAXDT) {
        dts[ndts].dt = *dt;
        dts[ndts].ops = *ops;
        dts[ndts].context = context;
        ndts++;
    }
    return rc;
}

static size_t packed_bytes(size_t n, const ucp_request_param_t *param)
{
    if (!param || !(param->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE)) return n;
    ucp_datatype_t dt = param->datatype;
    if ((dt & UCP_DATATYPE_CLASS_MASK) == UCP_DATATYPE_CONTIG) return n * (dt >> UCP_DATATYPE_SHIFT);
    static int (*type_size)(int, int *);
    if (!type_size) type_size = (int (*)(int, int *))dlsym(RTLD_DEFAULT, "PMPI_Type_size");
    for (int i = 0; i < ndts; i++)
        if (dts[i].dt == dt && type_size && dts[i].context) {
            int handle = *(const int *)dts[i].context, size = 0;
            if (type_size(handle, &size) == 0) return n * (size_t)size;
        }
    fprintf(stderr, "ucx_count_shim: a send with a datatype the shim does not know; counted as %zu bytes\n", n);
    return n;
}

static void count(ucp_ep_h ep, size_t n, const ucp_request_param_t *param)
{
    int i = index_of(ep);
    if (i >= 0) {
        msgs[i]++;
        bytes[i] += packed_bytes(n, param);
    }
}

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buf, size_t n, ucp_tag_t tag, const ucp_request_param_t *param)
{
    static ucs_status_ptr_t (*real)(ucp_ep_h, const void *, size_t, ucp_tag_t, const ucp_request_param_t *);
    if (!real) real = (ucs_status_ptr_t(*)(ucp_ep_h, const void *, size_t, ucp_tag_t, const ucp_request_param_t *))dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
    count(ep, n, param);
    return real(ep, buf, n, tag, param);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h ep, const void *buf, size_t n, ucp_tag_t tag,
                                       const ucp_request_param_t *param)
{
    static ucs_status_ptr_t (*real)(ucp_ep_h, const void *, size_t, ucp_tag_t, const ucp_request_param_t *);
    if (!real) real = (ucs_status_ptr_t(*)(ucp_ep_h, const void *, size_t, ucp_tag_t, const ucp_request_param_t *))dlsym(RTLD_NEXT, "ucp_tag_send_sync_nbx");
    count(ep, n, param);
    return real(ep, buf, n, tag, param);
}

__attribute__((destructor)) static void write_counts(void)
{
    const char *prefix = getenv("COMPI_SHIM_PROF"), *rank = getenv("PMI_RANK");
    if (!prefix || !rank) return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%s.prof", prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "# POINT TO POINT (UCX tagged sends, all traffic)\n");
    for (int i = 0; i < neps; i++)
        if (msgs[i]) fprintf(f, "I\t%s\t%d\t%llu bytes\t%llu msgs sent\n", rank, i, bytes[i], msgs[i]);
    fclose(f);
}
