! SPDX-License-Identifier: BSD-3-Clause
! fortran_p2p: the Fortran bindings ("use mpi") through compi.
! send/recv, isend/irecv/waitall, probe + get_count, sendrecv, bcast,
! gather with MPI_IN_PLACE at the root; compressible and random data, verified.
! Prints PASS/FAIL per check group and "N passed, N failed"; MPI_Abort on failure.
program fortran_p2p
  use mpi
  implicit none
  integer, parameter :: n = 300000
  integer :: ierr, rank, nprocs, peer, i, cnt, root, req(4), flag
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4)
  double precision, allocatable :: a(:), b(:), g(:)
  integer, allocatable :: ia(:), ib(:)
  integer :: npass, nfail, gfail, tot(2), loc(2)
  logical :: lflag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs < 2) then
     if (rank == 0) print '(a)', 'FAIL [fortran_p2p] needs at least 2 ranks'
     call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  end if
  npass = 0; nfail = 0
  allocate(a(n), b(n), ia(n), ib(n), g(n / 10 * nprocs))
  peer = 1 - rank

  ! ---- blocking send/recv, both directions
  gfail = nfail
  if (rank < 2) then
     call fill_smooth(a, n, 1 + rank)
     if (rank == 0) then
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, 1, 11, MPI_COMM_WORLD, ierr)
        call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 1, 12, MPI_COMM_WORLD, status, ierr)
     else
        call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 0, 11, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, 0, 12, MPI_COMM_WORLD, ierr)
     end if
     call check_status('MPI_Recv', status, peer, 12 - rank, MPI_DOUBLE_PRECISION, n)
     call check_smooth('MPI_Send/MPI_Recv data', b, n, 1 + peer)
  end if
  call group_end('MPI_Send/MPI_Recv')

  ! ---- isend/irecv/waitall, integer random + double ramp
  if (rank < 2) then
     call fill_random(ia, n, 7 + rank)
     call fill_ramp(a, n, 3 + rank)
     call MPI_Irecv(ib, n, MPI_INTEGER, peer, 21, MPI_COMM_WORLD, req(1), ierr)
     call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, peer, 22, MPI_COMM_WORLD, req(2), ierr)
     call MPI_Isend(ia, n, MPI_INTEGER, peer, 21, MPI_COMM_WORLD, req(3), ierr)
     call MPI_Isend(a, n - 5, MPI_DOUBLE_PRECISION, peer, 22, MPI_COMM_WORLD, req(4), ierr)
     call MPI_Waitall(4, req, statuses, ierr)
     call check(ierr == MPI_SUCCESS, 'MPI_Waitall ierr', ierr, MPI_SUCCESS)
     do i = 1, 4
        call check(req(i) == MPI_REQUEST_NULL, 'request MPI_REQUEST_NULL after Waitall', i, 0)
     end do
     call check_status('Waitall status 1', statuses(:, 1), peer, 21, MPI_INTEGER, n)
     call check_status('Waitall status 2', statuses(:, 2), peer, 22, MPI_DOUBLE_PRECISION, n - 5)
     call check_random('MPI_Irecv integer data', ib, n, 7 + peer)
     call check_ramp('MPI_Irecv double data', b, n - 5, 3 + peer)
  end if
  call group_end('MPI_Isend/MPI_Irecv/MPI_Waitall')

  ! ---- probe + get_count, iprobe loop
  if (rank == 1) then
     call fill_smooth(a, n, 9)
     call MPI_Send(a, 123457, MPI_DOUBLE_PRECISION, 0, 31, MPI_COMM_WORLD, ierr)
     call MPI_Send(a, 17, MPI_DOUBLE_PRECISION, 0, 32, MPI_COMM_WORLD, ierr)
  else if (rank == 0) then
     call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
     call check(cnt == 123457, 'MPI_Probe + MPI_Get_count', cnt, 123457)
     call check(status(MPI_SOURCE) == 1 .and. status(MPI_TAG) == 31, 'MPI_Probe source/tag', &
          status(MPI_TAG), 31)
     b = 0
     call MPI_Recv(b, cnt, MPI_DOUBLE_PRECISION, status(MPI_SOURCE), status(MPI_TAG), MPI_COMM_WORLD, status, ierr)
     call check_status('Recv after Probe', status, 1, 31, MPI_DOUBLE_PRECISION, 123457)
     call check_smooth('Recv after Probe data', b, 123457, 9)
     flag = 0
     do while (flag == 0)
        call iprobe_flag(flag)
     end do
     call MPI_Get_count(status, MPI_BYTE, cnt, ierr)
     call check(cnt == 17 * 8, 'MPI_Iprobe + MPI_Get_count(MPI_BYTE)', cnt, 17 * 8)
     call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 1, 32, MPI_COMM_WORLD, status, ierr)
     call check_status('Recv after Iprobe', status, 1, 32, MPI_DOUBLE_PRECISION, 17)
     call check_smooth('Recv after Iprobe data', b, 17, 9)
  end if
  call group_end('MPI_Probe/MPI_Iprobe + MPI_Get_count')

  ! ---- sendrecv and sendrecv_replace
  if (rank < 2) then
     call fill_ramp(a, n, 40 + rank)
     call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, peer, 41, b, n, MPI_DOUBLE_PRECISION, peer, 41, &
          MPI_COMM_WORLD, status, ierr)
     call check_status('MPI_Sendrecv', status, peer, 41, MPI_DOUBLE_PRECISION, n)
     call check_ramp('MPI_Sendrecv data', b, n, 40 + peer)
     call fill_random(ia, n, 50 + rank)
     call MPI_Sendrecv_replace(ia, n, MPI_INTEGER, peer, 42, peer, 42, MPI_COMM_WORLD, status, ierr)
     call check_status('MPI_Sendrecv_replace', status, peer, 42, MPI_INTEGER, n)
     call check_random('MPI_Sendrecv_replace data', ia, n, 50 + peer)
  end if
  call group_end('MPI_Sendrecv/MPI_Sendrecv_replace')

  ! ---- bcast from every root
  do root = 0, nprocs - 1
     if (rank == root) then
        call fill_smooth(a, n, 60 + root)
     else
        a = -1
     end if
     call MPI_Bcast(a, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
     call check_smooth('MPI_Bcast data', a, n, 60 + root)
  end do
  call group_end('MPI_Bcast (every root)')

  ! ---- gather with MPI_IN_PLACE at the root
  do root = 0, nprocs - 1
     cnt = n / 10
     call fill_ramp(b, cnt, 70 + rank)
     if (rank == root) then
        g = -7
        g(root * cnt + 1 : root * cnt + cnt) = b(1:cnt)
        call MPI_Gather(MPI_IN_PLACE, cnt, MPI_DOUBLE_PRECISION, g, cnt, MPI_DOUBLE_PRECISION, root, &
             MPI_COMM_WORLD, ierr)
        do i = 0, nprocs - 1
           call check_ramp('MPI_Gather(MPI_IN_PLACE) block', g(i * cnt + 1 :), cnt, 70 + i)
        end do
     else
        call MPI_Gather(b, cnt, MPI_DOUBLE_PRECISION, g, cnt, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
     end if
  end do
  call group_end('MPI_Gather with MPI_IN_PLACE (every root)')

  ! ---- empty statuses: MPI_REQUEST_NULL and an inactive persistent receive
  ! (MPI_ERROR is not checked: plain Open MPI's binding leaves it unset)
  gfail = nfail
  req(1) = MPI_REQUEST_NULL
  if (rank < 2) call MPI_Recv_init(ib, 4, MPI_INTEGER, peer, 90, MPI_COMM_WORLD, req(1), ierr)
  status = 77
  call MPI_Request_get_status(req(1), lflag, status, ierr)
  call check(lflag, 'MPI_Request_get_status flag', 0, 1)
  call check_status('MPI_Request_get_status empty status', status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_INTEGER, 0)
  status = 77
  call MPI_Test(req(1), lflag, status, ierr)
  call check(lflag, 'MPI_Test flag', 0, 1)
  call check_status('MPI_Test empty status', status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_INTEGER, 0)
  status = 77
  call MPI_Wait(req(1), status, ierr)
  call check_status('MPI_Wait empty status', status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_INTEGER, 0)
  if (rank < 2) call MPI_Request_free(req(1), ierr)
  call group_end('empty statuses (MPI_REQUEST_NULL, inactive persistent)')

  loc(1) = npass; loc(2) = nfail
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', '[fortran_p2p] ', tot(1), ' passed, ', tot(2), ' failed'
  if (tot(2) /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine iprobe_flag(f)
    integer, intent(out) :: f
    logical :: lf
    call MPI_Iprobe(1, 32, MPI_COMM_WORLD, lf, status, ierr)
    f = merge(1, 0, lf)
  end subroutine iprobe_flag

  subroutine group_end(name)
    character(len=*), intent(in) :: name
    integer :: l, t
    l = nfail - gfail
    call MPI_Allreduce(l, t, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
       if (t == 0) then
          print '(a,a)', 'PASS [fortran_p2p] ', name
       else
          print '(a,a,a,i0,a)', 'FAIL [fortran_p2p] ', name, ': ', t, ' checks failed'
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
       print '(a,i0,a,a,a,i0,a,i0)', 'FAIL [fortran_p2p] rank ', rank, ': ', what, ': expected ', expected, &
            ', got ', got
    end if
  end subroutine check

  subroutine check_status(what, st, src, tag, dtype, count)
    character(len=*), intent(in) :: what
    integer, intent(in) :: st(MPI_STATUS_SIZE), src, tag, dtype, count
    integer :: c, e
    call check(st(MPI_SOURCE) == src, what // ': status(MPI_SOURCE)', st(MPI_SOURCE), src)
    call check(st(MPI_TAG) == tag, what // ': status(MPI_TAG)', st(MPI_TAG), tag)
    call MPI_Get_count(st, dtype, c, ierr)
    call check(c == count, what // ': MPI_Get_count', c, count)
    call MPI_Get_elements(st, dtype, e, ierr)
    call check(e == count, what // ': MPI_Get_elements', e, count)
  end subroutine check_status

  subroutine fill_smooth(x, m, s)
    integer, intent(in) :: m, s
    double precision, intent(out) :: x(m)
    integer :: j
    ! exact arithmetic only (a triangle wave): vectorised libm sin may round
    ! differently at different call sites under optimisation
    do j = 1, m
       x(j) = dble(abs(mod(j + 37 * s, 4000) - 2000)) * 0.125d0 + dble(s)
    end do
  end subroutine fill_smooth

  subroutine fill_ramp(x, m, s)
    integer, intent(in) :: m, s
    double precision, intent(out) :: x(m)
    integer :: j
    do j = 1, m
       x(j) = 50001.0d0 + 2.0d0 * dble(j) + dble(s)
    end do
  end subroutine fill_ramp

  subroutine fill_random(x, m, s)
    integer, intent(in) :: m, s
    integer, intent(out) :: x(m)
    integer :: j
    integer(kind=8) :: h
    h = int(s, 8) * 2654435761_8 + 12345_8
    do j = 1, m
       h = mod(h * 6364136223_8 + 1442695_8, 2147483647_8)
       x(j) = int(h - 1073741823_8)
    end do
  end subroutine fill_random

  subroutine check_smooth(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    double precision, intent(in) :: x(m)
    double precision, allocatable :: y(:)
    integer :: j
    allocate(y(m))
    call fill_smooth(y, m, s)
    call compare_d(what, x, y, m)
    deallocate(y)
  end subroutine check_smooth

  subroutine check_ramp(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    double precision, intent(in) :: x(m)
    double precision, allocatable :: y(:)
    allocate(y(m))
    call fill_ramp(y, m, s)
    call compare_d(what, x, y, m)
    deallocate(y)
  end subroutine check_ramp

  subroutine compare_d(what, x, y, m)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m
    double precision, intent(in) :: x(m), y(m)
    integer :: j, bad, first
    bad = 0; first = 0
    do j = 1, m
       if (x(j) /= y(j)) then
          if (bad == 0) first = j
          bad = bad + 1
       end if
    end do
    if (bad == 0) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,i0,a,a,a,i0,a,i0,a,es24.16,a,es24.16)', 'FAIL [fortran_p2p] rank ', rank, ': ', what, ': ', bad, &
            ' elements differ, first at ', first, ': expected ', y(first), ', got ', x(first)
    end if
  end subroutine compare_d

  subroutine check_random(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    integer, intent(in) :: x(m)
    integer, allocatable :: y(:)
    integer :: j, bad, first
    allocate(y(m))
    call fill_random(y, m, s)
    bad = 0; first = 0
    do j = 1, m
       if (x(j) /= y(j)) then
          if (bad == 0) first = j
          bad = bad + 1
       end if
    end do
    if (bad == 0) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,i0,a,a,a,i0,a,i0,a,i0,a,i0)', 'FAIL [fortran_p2p] rank ', rank, ': ', what, ': ', bad, &
            ' elements differ, first at ', first, ': expected ', y(first), ', got ', x(first)
    end if
    deallocate(y)
  end subroutine check_random

end program fortran_p2p
