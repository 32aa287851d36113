/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI 4.0's large-count vector collectives (MPI_Gatherv_c, MPI_Alltoallv_c,
 * ...). The standard lets one rank call the _c form of a collective while
 * another calls the int form, and compi's int forms may take compi's own
 * path: so where a _c call's counts and displacements all fit an int, it
 * runs as the int form, on compi's path or the MPI's as that form decides.
 * Where one does not fit (beyond 2^31 elements or bytes of displacement),
 * and on intercommunicators, the MPI's own _c call runs. The nonblocking
 * _c forms are the MPI's own: their arrays would have to outlive the call. */
#include <limits.h>
#include <stdlib.h>
#include "coll/nbc.h"
#include "core/datatype.h"
#include "wrappers/impl.h"

#if MPI_VERSION >= 4

/* The int copy of n counts and displacements (either NULL: none). */
typedef struct {
    int *counts, *displs;
} compi_lc_ints;

/* 1: every entry fits an int and *out holds the copies; 0: one does not;
 * -1: no memory. */
static int compi_lc_convert(int n, const MPI_Count counts[], const MPI_Aint displs[], compi_lc_ints *out)
{
    out->counts = out->displs = NULL;
    if (n < 0) return 0;
    if (counts) {
        for (int i = 0; i < n; i++)
            if (!compi_count_fits(counts[i])) return 0;
        if (!(out->counts = malloc(sizeof(int) * (size_t)(n ? n : 1)))) return -1;
        for (int i = 0; i < n; i++) out->counts[i] = (int)counts[i];
    }
    if (displs) {
        for (int i = 0; i < n; i++)
            if (displs[i] < INT_MIN || displs[i] > INT_MAX) return free(out->counts), out->counts = NULL, 0;
        if (!(out->displs = malloc(sizeof(int) * (size_t)(n ? n : 1))))
            return free(out->counts), out->counts = NULL, -1;
        for (int i = 0; i < n; i++) out->displs[i] = (int)displs[i];
    }
    return 1;
}

static void compi_lc_free(compi_lc_ints *a)
{
    free(a->counts);
    free(a->displs);
    a->counts = a->displs = NULL;
}

/* The group size of an intracommunicator; -1 for an intercommunicator. */
static int compi_lc_size(MPI_Comm comm)
{
    int inter = 0, n = -1;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return -1;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int compi_lc_is_root(MPI_Comm comm, int root)
{
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

int compi_impl_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                         MPI_Comm comm)
{
    int n = compi_lc_size(comm), root_here = n >= 0 && compi_lc_is_root(comm, root);
    compi_lc_ints r = {NULL, NULL};
    /* the receive arrays count at the root only */
    if (n < 0 || !compi_count_fits(sendcount) || (root_here && compi_lc_convert(n, recvcounts, displs, &r) != 1))
        return compi_lc_free(&r),
               PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    int rc = compi_impl_Gatherv(sendbuf, (int)sendcount, sendtype, recvbuf, r.counts, r.displs, recvtype, root, comm);
    compi_lc_free(&r);
    return rc;
}

int compi_impl_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm)
{
    int n = compi_lc_size(comm), root_here = n >= 0 && compi_lc_is_root(comm, root);
    compi_lc_ints s = {NULL, NULL};
    if (n < 0 || !compi_count_fits(recvcount) || (root_here && compi_lc_convert(n, sendcounts, displs, &s) != 1))
        return compi_lc_free(&s),
               PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    int rc = compi_impl_Scatterv(sendbuf, s.counts, s.displs, sendtype, recvbuf, (int)recvcount, recvtype, root, comm);
    compi_lc_free(&s);
    return rc;
}

int compi_impl_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int n = compi_lc_size(comm);
    compi_lc_ints r = {NULL, NULL};
    if (n < 0 || !compi_count_fits(sendcount) || compi_lc_convert(n, recvcounts, displs, &r) != 1)
        return compi_lc_free(&r),
               PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    int rc = compi_impl_Allgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, r.counts, r.displs, recvtype, comm);
    compi_lc_free(&r);
    return rc;
}

int compi_impl_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    int n = compi_lc_size(comm);
    compi_lc_ints s = {NULL, NULL}, r = {NULL, NULL};
    /* in place: the send arrays are not significant */
    if (n < 0 || (sendbuf != MPI_IN_PLACE && compi_lc_convert(n, sendcounts, sdispls, &s) != 1) ||
        compi_lc_convert(n, recvcounts, rdispls, &r) != 1) {
        compi_lc_free(&s);
        compi_lc_free(&r);
        return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    }
    int rc = compi_impl_Alltoallv(sendbuf, s.counts, s.displs, sendtype, recvbuf, r.counts, r.displs, recvtype, comm);
    compi_lc_free(&s);
    compi_lc_free(&r);
    return rc;
}

int compi_impl_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm)
{
    int n = compi_lc_size(comm);
    compi_lc_ints r = {NULL, NULL};
    if (n < 0 || compi_lc_convert(n, recvcounts, NULL, &r) != 1)
        return compi_lc_free(&r), PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, dt, op, comm);
    int rc = compi_impl_Reduce_scatter(sendbuf, recvbuf, r.counts, dt, op, comm);
    compi_lc_free(&r);
    return rc;
}

int compi_impl_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm)
{
    int topo, indeg, outdeg, weighted;
    compi_lc_ints r = {NULL, NULL};
    if (compi_nbc_degrees(comm, &topo, &indeg, &outdeg, &weighted) != MPI_SUCCESS || !compi_count_fits(sendcount) ||
        compi_lc_convert(indeg, recvcounts, displs, &r) != 1)
        return compi_lc_free(&r),
               PMPI_Neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    int rc =
        compi_impl_Neighbor_allgatherv(sendbuf, (int)sendcount, sendtype, recvbuf, r.counts, r.displs, recvtype, comm);
    compi_lc_free(&r);
    return rc;
}

int compi_impl_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int topo, indeg, outdeg, weighted;
    compi_lc_ints s = {NULL, NULL}, r = {NULL, NULL};
    if (compi_nbc_degrees(comm, &topo, &indeg, &outdeg, &weighted) != MPI_SUCCESS ||
        compi_lc_convert(outdeg, sendcounts, sdispls, &s) != 1 ||
        compi_lc_convert(indeg, recvcounts, rdispls, &r) != 1) {
        compi_lc_free(&s);
        compi_lc_free(&r);
        return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                         comm);
    }
    int rc = compi_impl_Neighbor_alltoallv(sendbuf, s.counts, s.displs, sendtype, recvbuf, r.counts, r.displs, recvtype,
                                           comm);
    compi_lc_free(&s);
    compi_lc_free(&r);
    return rc;
}
#endif
