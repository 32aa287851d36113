/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preloaded into MPICH ranks by `compi vcluster run --mpi mpich`.
 *
 * Why: Debian's MPICH 4.0.2 (ch4:ucx) + UCX 1.13 over the tcp transport
 * hangs in MPI_Finalize about half the time: MPIDI_UCX_mpi_finalize_hook
 * closes every endpoint with ucp_disconnect_nb() (= FLUSH close), and a
 * tcp flush-close can wait for the peer, which may already be blocked in
 * the final PMI barrier and never progresses UCX again.  In the emulated
 * cluster every inter-node pair uses tcp, so jobs would hang.
 *
 * Fix: make that disconnect a no-op that reports immediate completion.
 * MPICH then destroys the worker, which tears down all its endpoints
 * locally without waiting for peers.  It is only called from MPI_Finalize,
 * when MPI semantics already guarantee that all of this rank's
 * communication has completed, so nothing is lost.  (A FORCE close is
 * refused by UCX here: endpoints without peer error handling.)
 *
 * Second, opt-in (VCLUSTER_MPICH_YIELD=1 in the rank's environment): yield
 * the core after a UCX poll that found nothing, as Open MPI does with
 * mpi_yield_when_idle. The emulated nodes share this host's cores, and
 * MPICH never yields: its busy loops call MPL_sched_yield, which MPICH's
 * configure makes a no-op on Linux (src/mpl/configure.ac: --enable-yield
 * defaults to "nothing" there; Debian's build takes the default, and
 * libmpich imports no sched_yield). MPICH's progress loop (ch4
 * MPIDI_progress_test, every MPI_Wait/Recv/collective) calls
 * ucp_worker_progress on every pass, so an empty pass is where it waits.
 * Measured with bench/pairprobe.c on 4 emulated nodes x 2 slots: without
 * it, a same-node pair's 64 KiB exchange took 16 ms in one run while the
 * other 6 ranks waited inside MPI (erratic; 7 us while they sleep), with it
 * 34 us, steady. Only the emulation needs this: on a real cluster each rank
 * has a core of its own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <ucp/api/ucp.h>

unsigned ucp_worker_progress(ucp_worker_h worker)
{
    static unsigned (*real)(ucp_worker_h);
    static int yield = -1;
    if (!real) real = (unsigned (*)(ucp_worker_h))dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (yield < 0) {
        const char *e = getenv("VCLUSTER_MPICH_YIELD");
        yield = e && e[0] == '1' && e[1] == 0;
    }
    unsigned n = real(worker);
    if (n == 0 && yield) sched_yield();
    return n;
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    (void)ep;
    return UCS_STATUS_PTR(UCS_OK);
}
