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
 */
#include <ucp/api/ucp.h>

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    (void)ep;
    return UCS_STATUS_PTR(UCS_OK);
}
