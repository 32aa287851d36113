/* SPDX-License-Identifier: BSD-3-Clause */
/* The hand-written semantics behind each generated wrapper. The generated
 * MPI_X / mpi_x_ entry points (tools/wrapgen.py, lib/wrappers/mpi_calls.def)
 * call compi_impl_X with the C signature of MPI_X. */
#ifndef COMPI_WRAPPERS_IMPL_H
#define COMPI_WRAPPERS_IMPL_H
#include <mpi.h>

int compi_impl_Init(int *argc, char ***argv);
int compi_impl_Init_thread(int *argc, char ***argv, int required, int *provided);
int compi_impl_Finalize(void);
int compi_impl_Buffer_detach(void *buffer_addr, int *size);
int compi_impl_Comm_set_info(MPI_Comm comm, MPI_Info info);
int compi_impl_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);

int compi_impl_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int compi_impl_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int compi_impl_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int compi_impl_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int compi_impl_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status);
int compi_impl_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request);
int compi_impl_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request);
int compi_impl_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request);
int compi_impl_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request);
int compi_impl_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *request);
int compi_impl_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request);
int compi_impl_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request);
int compi_impl_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request);
int compi_impl_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request);
int compi_impl_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                         MPI_Request *request);
int compi_impl_Start(MPI_Request *request);
int compi_impl_Startall(int count, MPI_Request requests[]);
int compi_impl_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                        MPI_Status *status);
int compi_impl_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source, int recvtag,
                                MPI_Comm comm, MPI_Status *status);

int compi_impl_Wait(MPI_Request *request, MPI_Status *status);
int compi_impl_Test(MPI_Request *request, int *flag, MPI_Status *status);
int compi_impl_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]);
int compi_impl_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);
int compi_impl_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status);
int compi_impl_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status);
int compi_impl_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);
int compi_impl_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]);
int compi_impl_Request_free(MPI_Request *request);
int compi_impl_Cancel(MPI_Request *request);
int compi_impl_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);

int compi_impl_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int compi_impl_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int compi_impl_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int compi_impl_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
int compi_impl_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status);
int compi_impl_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request);

int compi_impl_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int compi_impl_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm);
int compi_impl_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int compi_impl_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm);
int compi_impl_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int compi_impl_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm);
int compi_impl_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm);
int compi_impl_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int compi_impl_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                      MPI_Comm comm);
int compi_impl_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm);
int compi_impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op,
                                    MPI_Comm comm);
int compi_impl_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int compi_impl_Barrier(MPI_Comm comm);
int compi_impl_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

/* MPI-IO (lib/wrappers/fileio.c) */
int compi_impl_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int compi_impl_File_close(MPI_File *fh);
int compi_impl_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                             const char *datarep, MPI_Info info);
int compi_impl_File_set_info(MPI_File fh, MPI_Info info);
int compi_impl_File_get_info(MPI_File fh, MPI_Info *info_used);
int compi_impl_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int compi_impl_File_get_position(MPI_File fh, MPI_Offset *offset);
int compi_impl_File_sync(MPI_File fh);
int compi_impl_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                                 MPI_Status *status);
int compi_impl_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                MPI_Status *status);
int compi_impl_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                             MPI_Status *status);
int compi_impl_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status);
int compi_impl_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                              MPI_Request *request);
int compi_impl_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                             MPI_Request *request);
int compi_impl_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                                  MPI_Request *request);
int compi_impl_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                 MPI_Request *request);
int compi_impl_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int compi_impl_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int compi_impl_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int compi_impl_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int compi_impl_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int compi_impl_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int compi_impl_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                       MPI_Datatype datatype);
int compi_impl_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int compi_impl_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
int compi_impl_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int compi_impl_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int compi_impl_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int compi_impl_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int compi_impl_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);

/* Nonblocking and neighbourhood collectives (lib/coll/nbc.c, neighbor.c). */
int compi_impl_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *request);
int compi_impl_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int compi_impl_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request);
int compi_impl_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int compi_impl_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request);
int compi_impl_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int compi_impl_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
int compi_impl_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int compi_impl_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request);
int compi_impl_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int compi_impl_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Request *request);
int compi_impl_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request *request);
int compi_impl_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request);
int compi_impl_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm, MPI_Request *request);
int compi_impl_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int compi_impl_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Request *request);
int compi_impl_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int compi_impl_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int compi_impl_Ibarrier(MPI_Comm comm, MPI_Request *request);
int compi_impl_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                     MPI_Request *request);
int compi_impl_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                       MPI_Request *request);
int compi_impl_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int compi_impl_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Request *request);
/* Every entry point advances compi's live nonblocking collectives first
 * (lib/coll/sched.c): one load when there are none. */
extern int compi_nbc_live;
int compi_nbc_progress(void);
static inline void compi_nbc_poke(void)
{
    if (__builtin_expect(__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED) != 0, 0)) compi_nbc_progress();
}
/* The entry points of blocking collectives (flag "coll" in mpi_calls.def):
 * also complete comm's live schedules before the call (compi_nbc_drain). */
void compi_nbc_drain(MPI_Comm comm);
static inline void compi_nbc_poke_coll(MPI_Comm comm)
{
    if (__builtin_expect(__atomic_load_n(&compi_nbc_live, __ATOMIC_RELAXED) != 0, 0)) {
        compi_nbc_progress();
        compi_nbc_drain(comm);
    }
}

/* Living with other PMPI tools (lib/wrappers/interpose.c). compi_bypass is set at
 * load time when another library's definitions come before compi's for some of
 * the symbols compi defines (compi_symbols, generated): then every compi entry
 * point goes straight to PMPI_ on every rank. */
extern int compi_bypass;
extern const char *const compi_symbols[];
void compi_bypass_call(void);
void compi_interpose_init(void); /* after PMPI_Init: agree over WORLD, tell */
#if MPI_VERSION >= 4
int compi_impl_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Request *request);
int compi_impl_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source, int recvtag,
                                 MPI_Comm comm, MPI_Request *request);
int compi_impl_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int compi_impl_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                         MPI_Comm comm);
int compi_impl_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm);
int compi_impl_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                            MPI_Comm comm);
int compi_impl_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm);
int compi_impl_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm);
int compi_impl_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm);
int compi_impl_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
#endif

#endif
