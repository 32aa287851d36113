! SPDX-License-Identifier: BSD-3-Clause
! fortran_nbc: the nonblocking and neighbourhood collectives through compi's
! Fortran bindings, once with "use mpi" and once with "use mpi_f08" (two
! program units of one program): MPI_Ialltoall + MPI_Wait, MPI_Neighbor_alltoall
! and MPI_Ineighbor_alltoall + MPI_Waitall on a distributed-graph ring (from
! the left, to the right), MPI_Ibarrier + MPI_Test until done. Compressible
! integers, every element checked. The report test (check_report.py --nbc)
! checks that compi ran them: a binding that went to the MPI directly would
! leave compi's counts at zero.
! Prints PASS/FAIL per group and "N passed, N failed".
module nbc_checks
  implicit none
  integer :: npass = 0, nfail = 0
contains
  subroutine expect(ok, what, got, want)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, want
    if (ok) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,a,a,i0,a,i0)', 'FAIL [fortran_nbc] ', what, ': got ', got, ', expected ', want
    end if
  end subroutine expect

  ! The value rank s sends rank d at element i of a block.
  integer function val(s, d, i)
    integer, intent(in) :: s, d, i
    val = s * 100000 + d * 1000 + mod(i, 50)
  end function val

  ! Counts the elements of blk(1:m) that are not val(s, d, i).
  integer function wrong(blk, m, s, d)
    integer, intent(in) :: m, blk(m), s, d
    integer :: i
    wrong = 0
    do i = 1, m
       if (blk(i) /= val(s, d, i)) wrong = wrong + 1
    end do
  end function wrong
end module nbc_checks

subroutine via_mpi(m)
  use mpi
  use nbc_checks
  implicit none
  integer, intent(in) :: m
  integer :: ierr, rank, np, left, right, j, i, req, reqs(2), ring, w(1), bad
  integer :: statuses(MPI_STATUS_SIZE, 2)
  logical :: flag
  integer, allocatable :: sb(:), rb(:), nb(:), nr(:)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate(sb(m * np), rb(m * np), nb(m), nr(m))
  do j = 0, np - 1
     do i = 1, m
        sb(j * m + i) = val(rank, j, i)
     end do
  end do
  rb = -1
  call MPI_Ialltoall(sb, m, MPI_INTEGER, rb, m, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call expect(ierr == MPI_SUCCESS, 'use mpi: MPI_Ialltoall ierror', ierr, MPI_SUCCESS)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call expect(req == MPI_REQUEST_NULL, 'use mpi: MPI_Wait left the request', req, MPI_REQUEST_NULL)
  bad = 0
  do j = 0, np - 1
     bad = bad + wrong(rb(j * m + 1:), m, j, rank)
  end do
  call expect(bad == 0, 'use mpi: MPI_Ialltoall elements wrong', bad, 0)

  left = mod(rank + np - 1, np)
  right = mod(rank + 1, np)
  w(1) = 1
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (/ left /), w, 1, (/ right /), w, &
                                      MPI_INFO_NULL, .false., ring, ierr)
  do i = 1, m
     nb(i) = val(rank, right, i)
  end do
  nr = -1
  call MPI_Neighbor_alltoall(nb, m, MPI_INTEGER, nr, m, MPI_INTEGER, ring, ierr)
  call expect(ierr == MPI_SUCCESS, 'use mpi: MPI_Neighbor_alltoall ierror', ierr, MPI_SUCCESS)
  call expect(wrong(nr, m, left, rank) == 0, 'use mpi: MPI_Neighbor_alltoall elements wrong', &
              wrong(nr, m, left, rank), 0)
  nr = -1
  call MPI_Ineighbor_alltoall(nb, m, MPI_INTEGER, nr, m, MPI_INTEGER, ring, reqs(1), ierr)
  call MPI_Ibarrier(ring, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call expect(ierr == MPI_SUCCESS, 'use mpi: MPI_Waitall ierror', ierr, MPI_SUCCESS)
  call expect(wrong(nr, m, left, rank) == 0, 'use mpi: MPI_Ineighbor_alltoall elements wrong', &
              wrong(nr, m, left, rank), 0)
  call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Comm_free(ring, ierr)
  deallocate(sb, rb, nb, nr)
end subroutine via_mpi

subroutine via_f08(m)
  use mpi_f08
  use nbc_checks
  implicit none
  integer, intent(in) :: m
  integer :: ierr, rank, np, left, right, j, i, w(1), bad
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Comm) :: ring
  logical :: flag
  integer, allocatable :: sb(:), rb(:), nb(:), nr(:)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  allocate(sb(m * np), rb(m * np), nb(m), nr(m))
  do j = 0, np - 1
     do i = 1, m
        sb(j * m + i) = val(rank, j, i)
     end do
  end do
  rb = -1
  call MPI_Ialltoall(sb, m, MPI_INTEGER, rb, m, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call expect(ierr == MPI_SUCCESS, 'mpi_f08: MPI_Ialltoall ierror', ierr, MPI_SUCCESS)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call expect(req == MPI_REQUEST_NULL, 'mpi_f08: MPI_Wait left the request', 1, 0)
  bad = 0
  do j = 0, np - 1
     bad = bad + wrong(rb(j * m + 1:), m, j, rank)
  end do
  call expect(bad == 0, 'mpi_f08: MPI_Ialltoall elements wrong', bad, 0)

  left = mod(rank + np - 1, np)
  right = mod(rank + 1, np)
  w(1) = 1
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (/ left /), w, 1, (/ right /), w, &
                                      MPI_INFO_NULL, .false., ring)
  do i = 1, m
     nb(i) = val(rank, right, i)
  end do
  nr = -1
  call MPI_Neighbor_alltoall(nb, m, MPI_INTEGER, nr, m, MPI_INTEGER, ring, ierr)
  call expect(ierr == MPI_SUCCESS, 'mpi_f08: MPI_Neighbor_alltoall ierror', ierr, MPI_SUCCESS)
  call expect(wrong(nr, m, left, rank) == 0, 'mpi_f08: MPI_Neighbor_alltoall elements wrong', &
              wrong(nr, m, left, rank), 0)
  nr = -1
  call MPI_Ineighbor_alltoall(nb, m, MPI_INTEGER, nr, m, MPI_INTEGER, ring, reqs(1))
  call MPI_Ibarrier(ring, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call expect(ierr == MPI_SUCCESS, 'mpi_f08: MPI_Waitall ierror', ierr, MPI_SUCCESS)
  call expect(wrong(nr, m, left, rank) == 0, 'mpi_f08: MPI_Ineighbor_alltoall elements wrong', &
              wrong(nr, m, left, rank), 0)
  call MPI_Ibarrier(MPI_COMM_WORLD, req)
  flag = .false.
  do while (.not. flag)
     call MPI_Test(req, flag, MPI_STATUS_IGNORE)
  end do
  call MPI_Comm_free(ring)
  deallocate(sb, rb, nb, nr)
end subroutine via_f08

program fortran_nbc
  use mpi
  use nbc_checks
  implicit none
  integer :: ierr, rank, k, tot(2), loc(2)
  integer, parameter :: sizes(2) = (/ 7, 30000 /)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do k = 1, 2
     call via_mpi(sizes(k))
     call via_f08(sizes(k))
  end do
  loc = (/ npass, nfail /)
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (tot(2) == 0) then
        print '(a,i0,a)', 'PASS [fortran_nbc] use mpi and mpi_f08: ', tot(1), ' checks'
     else
        print '(a,i0,a)', 'FAIL [fortran_nbc] ', tot(2), ' checks failed'
     end if
     print '(i0,a,i0,a)', tot(1), ' passed, ', tot(2), ' failed'
  end if
  call MPI_Finalize(ierr)
end program fortran_nbc
