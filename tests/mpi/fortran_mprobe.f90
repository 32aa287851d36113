! SPDX-License-Identifier: BSD-3-Clause
! fortran_mprobe: matched probes from "use mpi" (INTEGER message handles).
! Under compi a matched probe of a compressed message hands out compi's own
! MPI_Message; the MPI's Fortran layer converts it (MPICH: a cast, Open MPI:
! compi's Fortran entry points) and it must come back intact to MPI_Mrecv /
! MPI_Imrecv. Two messages probed before either is received (received in the
! other order), improbe + imrecv + wait, MPI_MESSAGE_NO_PROC.
! Prints PASS/FAIL per check group and "N passed, N failed"; MPI_Abort on failure.
program fortran_mprobe
  use mpi
  implicit none
  integer, parameter :: n = 100000
  integer :: ierr, rank, nprocs, i, cnt, m1, m2, req, reqs(2)
  integer :: status(MPI_STATUS_SIZE)
  double precision, allocatable :: a(:), b(:)
  integer :: npass, nfail, gfail, tot(2), loc(2)
  logical :: lflag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  npass = 0; nfail = 0; gfail = 0
  allocate(a(n), b(n))

  ! ---- two matched probes before either receive; received in reverse order
  if (rank == 1) then
     ! nonblocking: rank 0 probes both before receiving either
     call fill(a, n, 1)
     call fill(b, n, 2)
     call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, reqs(1), ierr)
     call MPI_Isend(b, n / 2, MPI_DOUBLE_PRECISION, 0, 2, MPI_COMM_WORLD, reqs(2), ierr)
     call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  else if (rank == 0) then
     call MPI_Mprobe(1, 1, MPI_COMM_WORLD, m1, status, ierr)
     call check(m1 /= MPI_MESSAGE_NULL .and. m1 /= MPI_MESSAGE_NO_PROC, 'Mprobe 1 handle', m1, 0)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == n, 'Mprobe 1 count', cnt, n)
     call MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, m2, status, ierr)
     call check(status(MPI_SOURCE) == 1 .and. status(MPI_TAG) == 2, 'Mprobe 2 source/tag', status(MPI_TAG), 2)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == n / 2, 'Mprobe 2 count', cnt, n / 2)
     call check(m1 /= m2, 'two claimed messages have different handles', m2, m1)
     b = 0
     call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, m2, status, ierr)
     call check(ierr == MPI_SUCCESS, 'Mrecv 2 ierr', ierr, MPI_SUCCESS)
     call check(m2 == MPI_MESSAGE_NULL, 'Mrecv 2 sets MPI_MESSAGE_NULL', m2, MPI_MESSAGE_NULL)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == n / 2 .and. status(MPI_TAG) == 2, 'Mrecv 2 status', cnt, n / 2)
     call verify('Mrecv 2 data', b, n / 2, 2)
     b = 0
     call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, m1, status, ierr)
     call check(m1 == MPI_MESSAGE_NULL, 'Mrecv 1 sets MPI_MESSAGE_NULL', m1, MPI_MESSAGE_NULL)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == n .and. status(MPI_TAG) == 1, 'Mrecv 1 status', cnt, n)
     call verify('Mrecv 1 data', b, n, 1)
  end if
  call group_end('MPI_Mprobe x2 + MPI_Mrecv (reverse order)')

  ! ---- improbe + imrecv + wait
  if (rank == 1) then
     call fill(a, n, 3)
     call MPI_Send(a, n - 7, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 0) then
     lflag = .false.
     do while (.not. lflag)
        call MPI_Improbe(1, 3, MPI_COMM_WORLD, lflag, m1, status, ierr)
     end do
     b = 0
     call MPI_Imrecv(b, n, MPI_DOUBLE_PRECISION, m1, req, ierr)
     call check(m1 == MPI_MESSAGE_NULL, 'Imrecv sets MPI_MESSAGE_NULL', m1, MPI_MESSAGE_NULL)
     call MPI_Wait(req, status, ierr)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == n - 7 .and. status(MPI_SOURCE) == 1, 'Imrecv + Wait status', cnt, n - 7)
     call verify('Imrecv data', b, n - 7, 3)
  end if
  call group_end('MPI_Improbe + MPI_Imrecv + MPI_Wait')

  ! ---- MPI_PROC_NULL
  call MPI_Mprobe(MPI_PROC_NULL, 4, MPI_COMM_WORLD, m1, status, ierr)
  call check(m1 == MPI_MESSAGE_NO_PROC, 'Mprobe(MPI_PROC_NULL) handle', m1, MPI_MESSAGE_NO_PROC)
  call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, m1, status, ierr)
  call check(m1 == MPI_MESSAGE_NULL, 'Mrecv(MPI_MESSAGE_NO_PROC) sets MPI_MESSAGE_NULL', m1, MPI_MESSAGE_NULL)
  call check(status(MPI_SOURCE) == MPI_PROC_NULL, 'MPI_MESSAGE_NO_PROC status source', status(MPI_SOURCE), &
       MPI_PROC_NULL)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  call check(cnt == 0, 'MPI_MESSAGE_NO_PROC count', cnt, 0)
  call MPI_Improbe(MPI_PROC_NULL, 4, MPI_COMM_WORLD, lflag, m1, status, ierr)
  call check(lflag .and. m1 == MPI_MESSAGE_NO_PROC, 'Improbe(MPI_PROC_NULL)', m1, MPI_MESSAGE_NO_PROC)
  call MPI_Imrecv(b, n, MPI_DOUBLE_PRECISION, m1, req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(status(MPI_SOURCE) == MPI_PROC_NULL, 'Imrecv(MPI_MESSAGE_NO_PROC) status', status(MPI_SOURCE), &
       MPI_PROC_NULL)
  call group_end('MPI_MESSAGE_NO_PROC')

  loc(1) = npass; loc(2) = nfail
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', '[fortran_mprobe] ', tot(1), ' passed, ', tot(2), ' failed'
  if (tot(2) /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine group_end(name)
    character(len=*), intent(in) :: name
    integer :: l, t
    l = nfail - gfail
    call MPI_Allreduce(l, t, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
       if (t == 0) then
          print '(a,a)', 'PASS [fortran_mprobe] ', name
       else
          print '(a,a,a,i0,a)', 'FAIL [fortran_mprobe] ', name, ': ', t, ' checks failed'
       end if
    end if
    gfail = nfail
  end subroutine group_end

  subroutine check(ok, what, got, expected)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, expected
    if (ok) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,i0,a,a,a,i0,a,i0)', 'FAIL [fortran_mprobe] rank ', rank, ': ', what, ': expected ', expected, &
            ', got ', got
    end if
  end subroutine check

  subroutine fill(x, m, s)
    integer, intent(in) :: m, s
    double precision, intent(out) :: x(m)
    integer :: k
    do k = 1, m
       x(k) = dble(abs(mod(k + 37 * s, 4000) - 2000)) * 0.125d0 + dble(s)
    end do
  end subroutine fill

  subroutine verify(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    double precision, intent(in) :: x(m)
    double precision, allocatable :: y(:)
    integer :: k, bad
    allocate(y(m))
    call fill(y, m, s)
    bad = 0
    do k = 1, m
       if (x(k) /= y(k)) bad = bad + 1
    end do
    call check(bad == 0, what // ': elements differ', bad, 0)
    deallocate(y)
  end subroutine verify

end program fortran_mprobe
