! SPDX-License-Identifier: BSD-3-Clause
! install_check.f90: the Fortran ("use mpi") twin of install_check.c for
! tests/install/test_install.sh: every rank sends rank+1 (mod size) 1 MiB of
! smooth doubles and checks what it receives from rank-1.  Rank 0 prints
! "install_check: OK ranks=N"; exit status 1 and a FAIL line otherwise.
program install_check
  use mpi
  implicit none
  integer, parameter :: n = 131072
  integer :: ierr, rank, nprocs, to, from, i, rep, cnt, bad, allbad
  integer :: status(MPI_STATUS_SIZE)
  double precision, allocatable :: sbuf(:), rbuf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(sbuf(n), rbuf(n))
  do i = 1, n
     sbuf(i) = 1000.0d0 * rank + 0.25d0 * ((i - 1) / 16)
  end do
  to = mod(rank + 1, nprocs)
  from = mod(rank + nprocs - 1, nprocs)
  bad = 0
  do rep = 1, 3
     call MPI_Sendrecv(sbuf, n, MPI_DOUBLE_PRECISION, to, 7, rbuf, n, MPI_DOUBLE_PRECISION, from, 7, &
                       MPI_COMM_WORLD, status, ierr)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     if (cnt /= n .or. status(MPI_SOURCE) /= from .or. status(MPI_TAG) /= 7) bad = bad + 1
     do i = 1, n
        if (rbuf(i) /= 1000.0d0 * from + 0.25d0 * ((i - 1) / 16)) then
           bad = bad + 1
           exit
        end if
     end do
  end do
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (allbad /= 0) then
        print '(a,i0,a)', 'install_check: FAIL ', allbad, ' bad receives'
     else
        print '(a,i0)', 'install_check: OK ranks=', nprocs
     end if
  end if
  deallocate(sbuf, rbuf)
  call MPI_Finalize(ierr)
  if (allbad /= 0) stop 1
end program install_check
