! SPDX-License-Identifier: BSD-3-Clause
! fortran_f08: the "use mpi_f08" bindings through compi (derived-type handles,
! TYPE(MPI_Status), OPTIONAL ierror). The same semantic checks as the C and
! "use mpi" programs: send/recv, isend/irecv + wait/waitall/waitany/testall,
! probe/iprobe + get_count, mprobe/mrecv, improbe/imrecv, MPI_MESSAGE_NO_PROC,
! status fields and counts, truncation (MPI_ERR_TRUNCATE with errors returned),
! wildcards, a derived datatype, persistent requests, MPI_STATUS(ES)_IGNORE,
! bcast / allreduce / alltoall (+ MPI_IN_PLACE). Compressible and random data.
! Prints PASS/FAIL per check group and "N passed, N failed"; MPI_Abort on failure.
program fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 200000
  integer :: ierr, rank, nprocs, peer, i, j, cnt, root, idx, ecls
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: req(4)
  type(MPI_Message) :: msg
  type(MPI_Datatype) :: vec
  type(MPI_Comm) :: rcomm
  double precision, allocatable :: a(:), b(:), big(:)
  integer, allocatable :: ia(:), ib(:), ta(:), tb(:)
  integer :: npass, nfail, gfail, tot(2), loc(2), ibase
  logical :: lflag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs < 2) then
     if (rank == 0) print '(a)', 'FAIL [fortran_f08] needs at least 2 ranks'
     call MPI_Abort(MPI_COMM_WORLD, 4)
  end if
  npass = 0; nfail = 0; gfail = 0
  allocate(a(n), b(n), big(2 * n), ia(n), ib(n), ta(nprocs * 1000), tb(nprocs * 1000))
  peer = 1 - rank
  ibase = index_base()

  ! ---- blocking send/recv both directions; ierror present and absent
  if (rank < 2) then
     call fill_smooth(a, n, 1 + rank)
     b = 0
     if (rank == 0) then
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, 1, 11, MPI_COMM_WORLD, ierr)
        call check(ierr == MPI_SUCCESS, 'MPI_Send ierror', ierr, MPI_SUCCESS)
        call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 1, 12, MPI_COMM_WORLD, status)
     else
        call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 0, 11, MPI_COMM_WORLD, status, ierr)
        call check(ierr == MPI_SUCCESS, 'MPI_Recv ierror', ierr, MPI_SUCCESS)
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, 0, 12, MPI_COMM_WORLD)
     end if
     call check_status('MPI_Recv', status, peer, 12 - rank, MPI_DOUBLE_PRECISION, n)
     call check_smooth('MPI_Send/MPI_Recv data', b, n, 1 + peer)
  end if
  call group_end('MPI_Send/MPI_Recv')

  ! ---- isend/irecv + waitall, then waitany / testall; MPI_STATUS(ES)_IGNORE
  if (rank < 2) then
     call fill_random(ia, n, 7 + rank)
     call fill_ramp(a, n, 3 + rank)
     call MPI_Irecv(ib, n, MPI_INTEGER, peer, 21, MPI_COMM_WORLD, req(1))
     call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, peer, 22, MPI_COMM_WORLD, req(2))
     call MPI_Isend(ia, n, MPI_INTEGER, peer, 21, MPI_COMM_WORLD, req(3))
     call MPI_Isend(a, n - 5, MPI_DOUBLE_PRECISION, peer, 22, MPI_COMM_WORLD, req(4))
     call MPI_Waitall(4, req, statuses, ierr)
     call check(ierr == MPI_SUCCESS, 'MPI_Waitall ierror', ierr, MPI_SUCCESS)
     do i = 1, 4
        call check(req(i) == MPI_REQUEST_NULL, 'request MPI_REQUEST_NULL after Waitall', i, 0)
     end do
     call check_status('Waitall status 1', statuses(1), peer, 21, MPI_INTEGER, n)
     call check_status('Waitall status 2', statuses(2), peer, 22, MPI_DOUBLE_PRECISION, n - 5)
     call check_random('MPI_Irecv integer data', ib, n, 7 + peer)
     call check_ramp('MPI_Irecv double data', b, n - 5, 3 + peer)

     ! waitany over a receive and a send, then MPI_Wait on the other
     call fill_smooth(a, n, 30 + rank)
     b = 0
     call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, peer, 23, MPI_COMM_WORLD, req(1))
     call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, peer, 23, MPI_COMM_WORLD, req(2))
     call MPI_Waitany(2, req(1:2), idx, status)
     call check(idx == ibase .or. idx == ibase + 1, 'MPI_Waitany index', idx, ibase)
     if (idx == ibase) then
        call check_status('MPI_Waitany status', status, peer, 23, MPI_DOUBLE_PRECISION, n)
        call MPI_Wait(req(2), MPI_STATUS_IGNORE)
     else
        call MPI_Wait(req(1), status)
        call check_status('MPI_Wait status', status, peer, 23, MPI_DOUBLE_PRECISION, n)
     end if
     call check_smooth('MPI_Waitany data', b, n, 30 + peer)

     ! testall loop with MPI_STATUSES_IGNORE
     call fill_random(ia, n, 24 + rank)
     call MPI_Irecv(ib, n, MPI_INTEGER, peer, 24, MPI_COMM_WORLD, req(1))
     call MPI_Isend(ia, n, MPI_INTEGER, peer, 24, MPI_COMM_WORLD, req(2))
     lflag = .false.
     do while (.not. lflag)
        call MPI_Testall(2, req(1:2), lflag, MPI_STATUSES_IGNORE)
     end do
     call check(req(1) == MPI_REQUEST_NULL .and. req(2) == MPI_REQUEST_NULL, 'Testall frees requests', 0, 0)
     call check_random('MPI_Testall data', ib, n, 24 + peer)
  end if
  call group_end('MPI_Isend/MPI_Irecv + Waitall/Waitany/Wait/Testall')

  ! ---- probe + get_count, iprobe loop
  if (rank == 1) then
     call fill_smooth(a, n, 9)
     call MPI_Send(a, 123457, MPI_DOUBLE_PRECISION, 0, 31, MPI_COMM_WORLD)
     call MPI_Send(a, 17, MPI_DOUBLE_PRECISION, 0, 32, MPI_COMM_WORLD)
  else if (rank == 0) then
     call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt)
     call check(cnt == 123457, 'MPI_Probe + MPI_Get_count', cnt, 123457)
     call check(status%MPI_SOURCE == 1 .and. status%MPI_TAG == 31, 'MPI_Probe source/tag', status%MPI_TAG, 31)
     b = 0
     call MPI_Recv(b, cnt, MPI_DOUBLE_PRECISION, status%MPI_SOURCE, status%MPI_TAG, MPI_COMM_WORLD, status)
     call check_status('Recv after Probe', status, 1, 31, MPI_DOUBLE_PRECISION, 123457)
     call check_smooth('Recv after Probe data', b, 123457, 9)
     lflag = .false.
     do while (.not. lflag)
        call MPI_Iprobe(1, 32, MPI_COMM_WORLD, lflag, status)
     end do
     call MPI_Get_count(status, MPI_BYTE, cnt)
     call check(cnt == 17 * 8, 'MPI_Iprobe + MPI_Get_count(MPI_BYTE)', cnt, 17 * 8)
     call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 1, 32, MPI_COMM_WORLD, status)
     call check_status('Recv after Iprobe', status, 1, 32, MPI_DOUBLE_PRECISION, 17)
     call check_smooth('Recv after Iprobe data', b, 17, 9)
  end if
  call group_end('MPI_Probe/MPI_Iprobe + MPI_Get_count')

  ! ---- matched probe: mprobe + mrecv, improbe + imrecv, MPI_MESSAGE_NO_PROC
  if (rank == 1) then
     call fill_ramp(a, n, 35)
     call MPI_Send(a, 54321, MPI_DOUBLE_PRECISION, 0, 35, MPI_COMM_WORLD)
     call fill_random(ia, n, 36)
     call MPI_Send(ia, 4321, MPI_INTEGER, 0, 36, MPI_COMM_WORLD)
  else if (rank == 0) then
     call MPI_Mprobe(1, 35, MPI_COMM_WORLD, msg, status)
     call check(msg /= MPI_MESSAGE_NULL, 'MPI_Mprobe message not MPI_MESSAGE_NULL', 0, 1)
     call check_status('MPI_Mprobe', status, 1, 35, MPI_DOUBLE_PRECISION, 54321)
     b = 0
     call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, msg, status)
     call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv sets MPI_MESSAGE_NULL', 0, 1)
     call check_status('MPI_Mrecv', status, 1, 35, MPI_DOUBLE_PRECISION, 54321)
     call check_ramp('MPI_Mrecv data', b, 54321, 35)
     lflag = .false.
     do while (.not. lflag)
        call MPI_Improbe(MPI_ANY_SOURCE, 36, MPI_COMM_WORLD, lflag, msg, status)
     end do
     call check_status('MPI_Improbe', status, 1, 36, MPI_INTEGER, 4321)
     ib = 0
     call MPI_Imrecv(ib, n, MPI_INTEGER, msg, req(1))
     call MPI_Wait(req(1), status)
     call check_status('MPI_Imrecv + MPI_Wait', status, 1, 36, MPI_INTEGER, 4321)
     call check_random('MPI_Imrecv data', ib, 4321, 36)
  end if
  call MPI_Mprobe(MPI_PROC_NULL, 37, MPI_COMM_WORLD, msg, status)
  call check(msg == MPI_MESSAGE_NO_PROC, 'MPI_Mprobe(MPI_PROC_NULL) gives MPI_MESSAGE_NO_PROC', 0, 1)
  call check(status%MPI_SOURCE == MPI_PROC_NULL, 'MPI_PROC_NULL status source', status%MPI_SOURCE, MPI_PROC_NULL)
  call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, msg, status)
  call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv(MPI_MESSAGE_NO_PROC) sets MPI_MESSAGE_NULL', 0, 1)
  call check_status('MPI_Mrecv(MPI_MESSAGE_NO_PROC)', status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_DOUBLE_PRECISION, 0)
  call group_end('MPI_Mprobe/MPI_Mrecv, MPI_Improbe/MPI_Imrecv, MPI_MESSAGE_NO_PROC')

  ! ---- truncation: a 2n message into an n buffer returns MPI_ERR_TRUNCATE
  call MPI_Comm_dup(MPI_COMM_WORLD, rcomm)
  call MPI_Comm_set_errhandler(rcomm, MPI_ERRORS_RETURN)
  if (rank == 1) then
     call fill_smooth(big, 2 * n, 44)
     call MPI_Send(big, 2 * n, MPI_DOUBLE_PRECISION, 0, 44, rcomm)
     call MPI_Send(big, n, MPI_DOUBLE_PRECISION, 0, 45, rcomm)
     call MPI_Send(big, 2 * n, MPI_DOUBLE_PRECISION, 0, 46, rcomm)
     call MPI_Send(big, 10, MPI_DOUBLE_PRECISION, 0, 47, rcomm)
  else if (rank == 0) then
     ! count n into a buffer of 2n: Open MPI 4.1's shared-memory single-copy
     ! path writes a truncated message past the count (README, known limits)
     call MPI_Recv(big, n, MPI_DOUBLE_PRECISION, 1, 44, rcomm, status, ierr)
     ecls = -1
     if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, ecls)
     call check(ecls == MPI_ERR_TRUNCATE, 'MPI_Recv truncated: error class', ecls, MPI_ERR_TRUNCATE)
     call check(status%MPI_SOURCE == 1 .and. status%MPI_TAG == 44, 'truncated status source/tag', &
          status%MPI_TAG, 44)
     ! the truncated message is consumed; the next one arrives intact
     b = 0
     call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, 1, MPI_ANY_TAG, rcomm, status, ierr)
     call check_status('receive after truncation', status, 1, 45, MPI_DOUBLE_PRECISION, n)
     call check_smooth('receive after truncation data', b, n, 44)
     ! Waitall with one truncated receive: MPI_ERR_IN_STATUS. MPICH's f08
     ! binding lets C write the statuses and requests; Open MPI's converts
     ! them on success only (its own binding), so that is checked under MPICH
     statuses(1)%MPI_ERROR = -77; statuses(2)%MPI_ERROR = -77
     call MPI_Irecv(big, n, MPI_DOUBLE_PRECISION, 1, 46, rcomm, req(1))
     call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, 1, 47, rcomm, req(2))
     ! (errors in completion calls may be raised on MPI_COMM_WORLD: MPICH does)
     call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
     call MPI_Waitall(2, req(1:2), statuses(1:2), ierr)
     call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
     ecls = -1
     if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, ecls)
     call check(ecls == MPI_ERR_IN_STATUS, 'Waitall with a truncated receive: error class', ecls, MPI_ERR_IN_STATUS)
     if (is_mpich()) then
        ecls = -1
        if (statuses(1)%MPI_ERROR /= MPI_SUCCESS .and. statuses(1)%MPI_ERROR /= -77) &
             call MPI_Error_class(statuses(1)%MPI_ERROR, ecls)
        call check(ecls == MPI_ERR_TRUNCATE, 'Waitall: statuses(1)%MPI_ERROR class', ecls, MPI_ERR_TRUNCATE)
        call check(req(1) == MPI_REQUEST_NULL, 'Waitall: failed request set to MPI_REQUEST_NULL', 0, 0)
        ! the other receive either completed or is MPI_ERR_PENDING (still active)
        call check(statuses(2)%MPI_ERROR == MPI_SUCCESS .or. statuses(2)%MPI_ERROR == MPI_ERR_PENDING, &
             'Waitall: statuses(2)%MPI_ERROR', statuses(2)%MPI_ERROR, MPI_SUCCESS)
        if (statuses(2)%MPI_ERROR == MPI_SUCCESS) then
           call check(statuses(2)%MPI_TAG == 47, 'Waitall: statuses(2)%MPI_TAG', statuses(2)%MPI_TAG, 47)
           call check(req(2) == MPI_REQUEST_NULL, 'Waitall: completed request set to MPI_REQUEST_NULL', 0, 0)
        else
           call check(req(2) /= MPI_REQUEST_NULL, 'Waitall: pending request still active', 0, 0)
           call MPI_Wait(req(2), status)
           call check(status%MPI_TAG == 47, 'Wait on the pending request: tag', status%MPI_TAG, 47)
        end if
     end if
     ! (under Open MPI the Fortran handles still hold the completed, freed
     ! requests: they are not used again)
     call check_smooth('the message after the truncated one', b, 10, 44)
  end if
  call MPI_Comm_free(rcomm)
  call group_end('truncation (MPI_ERR_TRUNCATE)')

  ! ---- wildcards: every rank sends to rank 0, which receives ANY_SOURCE/ANY_TAG
  if (rank /= 0) then
     call fill_smooth(a, n, 50 + rank)
     call MPI_Send(a, 1000 * rank, MPI_DOUBLE_PRECISION, 0, 50 + rank, MPI_COMM_WORLD)
  else
     loc = 0
     do i = 1, nprocs - 1
        b = 0
        call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
        j = status%MPI_SOURCE
        call check(j >= 1 .and. j < nprocs, 'wildcard source in range', j, 1)
        if (j >= 1 .and. j < nprocs) then
           call check_status('wildcard receive', status, j, 50 + j, MPI_DOUBLE_PRECISION, 1000 * j)
           call check_smooth('wildcard data', b, 1000 * j, 50 + j)
        end if
     end do
  end if
  call group_end('MPI_ANY_SOURCE/MPI_ANY_TAG')

  ! ---- a derived datatype: every other double (MPI_Type_vector) into a contiguous buffer
  call MPI_Type_vector(n / 2, 1, 2, MPI_DOUBLE_PRECISION, vec)
  call MPI_Type_commit(vec)
  if (rank == 0) then
     call fill_ramp(a, n, 60)
     call MPI_Send(a, 1, vec, 1, 60, MPI_COMM_WORLD)
  else if (rank == 1) then
     b = -1
     call MPI_Recv(b, n / 2, MPI_DOUBLE_PRECISION, 0, 60, MPI_COMM_WORLD, status)
     call check_status('vector into contiguous', status, 0, 60, MPI_DOUBLE_PRECISION, n / 2)
     call fill_ramp(a, n, 60)
     call compare_d('vector data', b(1:n / 2), a(1:n:2), n / 2)
  end if
  call MPI_Type_free(vec)
  call group_end('derived datatype (MPI_Type_vector)')

  ! ---- persistent requests, started twice with Startall / Start
  if (rank < 2) then
     call MPI_Recv_init(ib, n, MPI_INTEGER, peer, 70, MPI_COMM_WORLD, req(1))
     call MPI_Send_init(ia, n, MPI_INTEGER, peer, 70, MPI_COMM_WORLD, req(2))
     do j = 1, 2
        call fill_random(ia, n, 70 + 10 * j + rank)
        ib = 0
        if (j == 1) then
           call MPI_Startall(2, req(1:2))
        else
           call MPI_Start(req(1))
           call MPI_Start(req(2))
        end if
        call MPI_Waitall(2, req(1:2), statuses(1:2))
        call check(req(1) /= MPI_REQUEST_NULL, 'persistent request stays allocated', j, 0)
        call check_status('persistent receive', statuses(1), peer, 70, MPI_INTEGER, n)
        call check_random('persistent data', ib, n, 70 + 10 * j + peer)
     end do
     call MPI_Request_free(req(1))
     call MPI_Request_free(req(2))
  end if
  call group_end('persistent MPI_Send_init/MPI_Recv_init + Startall/Start')

  ! ---- collectives: bcast from every root, allreduce (+ IN_PLACE), alltoall
  do root = 0, nprocs - 1
     if (rank == root) then
        call fill_smooth(a, n, 80 + root)
     else
        a = -1
     end if
     call MPI_Bcast(a, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD)
     call check_smooth('MPI_Bcast data', a, n, 80 + root)
  end do
  do i = 1, n / 10
     ia(i) = mod(i, 97) + rank
  end do
  call MPI_Allreduce(ia, ib, n / 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  j = 0
  do i = 1, n / 10
     if (ib(i) /= nprocs * mod(i, 97) + nprocs * (nprocs - 1) / 2) j = j + 1
  end do
  call check(j == 0, 'MPI_Allreduce(MPI_SUM) elements wrong', j, 0)
  call MPI_Allreduce(MPI_IN_PLACE, ia, n / 10, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  j = 0
  do i = 1, n / 10
     if (ia(i) /= mod(i, 97) + nprocs - 1) j = j + 1
  end do
  call check(j == 0, 'MPI_Allreduce(MPI_IN_PLACE, MPI_MAX) elements wrong', j, 0)
  do i = 0, nprocs - 1
     do j = 1, 1000
        ta(i * 1000 + j) = 100000 * rank + 1000 * i + mod(j, 13)
     end do
  end do
  tb = -1
  call MPI_Alltoall(ta, 1000, MPI_INTEGER, tb, 1000, MPI_INTEGER, MPI_COMM_WORLD)
  cnt = 0
  do i = 0, nprocs - 1
     do j = 1, 1000
        if (tb(i * 1000 + j) /= 100000 * i + 1000 * rank + mod(j, 13)) cnt = cnt + 1
     end do
  end do
  call check(cnt == 0, 'MPI_Alltoall elements wrong', cnt, 0)
  call group_end('MPI_Bcast (every root), MPI_Allreduce, MPI_Alltoall')

  loc(1) = npass; loc(2) = nfail
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0,a)', '[fortran_f08] ', tot(1), ' passed, ', tot(2), ' failed'
  if (tot(2) /= 0) call MPI_Abort(MPI_COMM_WORLD, 1)
  call MPI_Finalize(ierr)

contains

  logical function is_mpich()
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: ver
    integer :: l
    call MPI_Get_library_version(ver, l)
    is_mpich = index(ver, 'MPICH Version:') > 0
  end function is_mpich

  ! Waitany's index base: 1 by the standard; MPICH 4.0's f08 binding returns
  ! C's 0-based index (fixed in MPICH 4.1). compi must give what the MPI gives.
  integer function index_base()
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: ver
    integer :: l, p
    call MPI_Get_library_version(ver, l)
    index_base = 1
    p = index(ver, 'MPICH Version:')
    if (p > 0) then
       p = p + len('MPICH Version:')
       do while (ver(p:p) == ' ' .or. ver(p:p) == char(9))
          p = p + 1
       end do
       if (ver(p:p + 3) == '4.0.' .or. ver(p:p + 3) == '4.0a' .or. ver(p:p + 3) == '4.0b' .or. &
           ver(p:p + 3) == '4.0r' .or. ver(p:p + 3) == '4.0 ') index_base = 0
    end if
  end function index_base

  subroutine group_end(name)
    character(len=*), intent(in) :: name
    integer :: l, t
    l = nfail - gfail
    call MPI_Allreduce(l, t, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) then
       if (t == 0) then
          print '(a,a)', 'PASS [fortran_f08] ', name
       else
          print '(a,a,a,i0,a)', 'FAIL [fortran_f08] ', name, ': ', t, ' checks failed'
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
       print '(a,i0,a,a,a,i0,a,i0)', 'FAIL [fortran_f08] rank ', rank, ': ', what, ': expected ', expected, &
            ', got ', got
    end if
  end subroutine check

  subroutine check_status(what, st, src, tag, dtype, count)
    character(len=*), intent(in) :: what
    type(MPI_Status), intent(in) :: st
    integer, intent(in) :: src, tag, count
    type(MPI_Datatype), intent(in) :: dtype
    integer :: c, e
    call check(st%MPI_SOURCE == src, what // ': status%MPI_SOURCE', st%MPI_SOURCE, src)
    call check(st%MPI_TAG == tag, what // ': status%MPI_TAG', st%MPI_TAG, tag)
    call MPI_Get_count(st, dtype, c)
    call check(c == count, what // ': MPI_Get_count', c, count)
    call MPI_Get_elements(st, dtype, e)
    call check(e == count, what // ': MPI_Get_elements', e, count)
  end subroutine check_status

  subroutine fill_smooth(x, m, s)
    integer, intent(in) :: m, s
    double precision, intent(out) :: x(m)
    integer :: k
    do k = 1, m
       x(k) = dble(abs(mod(k + 37 * s, 4000) - 2000)) * 0.125d0 + dble(s)
    end do
  end subroutine fill_smooth

  subroutine fill_ramp(x, m, s)
    integer, intent(in) :: m, s
    double precision, intent(out) :: x(m)
    integer :: k
    do k = 1, m
       x(k) = 50001.0d0 + 2.0d0 * dble(k) + dble(s)
    end do
  end subroutine fill_ramp

  subroutine fill_random(x, m, s)
    integer, intent(in) :: m, s
    integer, intent(out) :: x(m)
    integer :: k
    integer(kind=8) :: h
    ! minstd (Park-Miller): h stays below 2**31, h * 48271 below 2**47 (no overflow)
    h = mod(int(s, 8) * 2654435761_8 + 12345_8, 2147483646_8) + 1_8
    do k = 1, m
       h = mod(h * 48271_8, 2147483647_8)
       x(k) = int(h - 1073741823_8)
    end do
  end subroutine fill_random

  subroutine check_smooth(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    double precision, intent(in) :: x(m)
    double precision, allocatable :: y(:)
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
    integer :: k, bad, first
    bad = 0; first = 0
    do k = 1, m
       if (x(k) /= y(k)) then
          if (bad == 0) first = k
          bad = bad + 1
       end if
    end do
    if (bad == 0) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,i0,a,a,a,i0,a,i0,a,es24.16,a,es24.16)', 'FAIL [fortran_f08] rank ', rank, ': ', what, ': ', bad, &
            ' elements differ, first at ', first, ': expected ', y(first), ', got ', x(first)
    end if
  end subroutine compare_d

  subroutine check_random(what, x, m, s)
    character(len=*), intent(in) :: what
    integer, intent(in) :: m, s
    integer, intent(in) :: x(m)
    integer, allocatable :: y(:)
    integer :: k, bad, first
    allocate(y(m))
    call fill_random(y, m, s)
    bad = 0; first = 0
    do k = 1, m
       if (x(k) /= y(k)) then
          if (bad == 0) first = k
          bad = bad + 1
       end if
    end do
    if (bad == 0) then
       npass = npass + 1
    else
       nfail = nfail + 1
       print '(a,i0,a,a,a,i0,a,i0,a,i0,a,i0)', 'FAIL [fortran_f08] rank ', rank, ': ', what, ': ', bad, &
            ' elements differ, first at ', first, ': expected ', y(first), ', got ', x(first)
    end if
    deallocate(y)
  end subroutine check_random

end program fortran_f08
