#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The tsan CI stage: a ThreadSanitizer build of libcompi (tools/build.sh
# --tsan, only the targets these tests need) runs the tests with threads:
# the codec pool alone (pool_unit), MPI_THREAD_MULTIPLE ranks (threads),
# pipelined messages and collective blocks coded by helper threads, and
# the hybrid stencil in both OpenMP styles. A report fails the test
# (TSan's exit code).
# Suppressions (suppressions.txt): MPI library internals only.
# Usage: tests/tsan/run_tsan.sh [mpich|openmpi] (default mpich: Open MPI
# unloads plugins TSan was told to ignore, which TSan cannot survive)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mpi=${1:-mpich}
cd "$root"
tools/build.sh --mpi "$mpi" --tsan --target compi --target test_pool --target mpitest_threads \
    --target mpitest_p2p_basic --target mpitest_p2p_order --target mpitest_coll_rooted --target compi_stencil3d >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# second_deadlock_stack: lock-order reports name both acquisitions
# the fixed suppressions plus one called_from_lib line per MPI plugin
supp=$(mktemp)
trap 'rm -f "$supp"' EXIT
{
    cat "$root/tests/tsan/suppressions.txt"
    for so in /usr/lib/*/openmpi/lib/openmpi3/*.so /usr/lib/*/openmpi/lib/pmix/*.so /usr/lib/*/ucx/*.so; do
        [[ -e $so ]] && echo "called_from_lib:/${so##*/}"
    done
} >"$supp"
# UCX (MPICH's transport) hooks madvise, which glibc calls as a thread
# exits; under TSan its hook crashes there (every build links the MPI, the
# MPI-free pool test too). Its memory hooks only serve registration caches.
export UCX_MEM_MMAP_HOOK_MODE=none
export TSAN_OPTIONS="suppressions=$supp:exitcode=66:second_deadlock_stack=1:report_signal_unsafe=0"
# The hybrid stencil runs with one OpenMP thread per rank here (both styles,
# compi's helper threads still at work): GNU libgomp is not instrumented,
# so TSan cannot see its barriers order the OpenMP threads and would report
# every parallel loop; the 2-thread runs are checked bit for bit in the
# mpi stages.
export CHECK_OMP_THREADS=1
ctest --test-dir "build-tsan/$mpi" --output-on-failure -j2 \
    -R '^(pool_unit|compi_threads_lz4|compi_threads_pipe_threads2_np2|compi_threads_pipe_threads1_0_np2|compi_p2p_order_pipe_threads2_np4|compi_p2p_basic_pipe_threads2_0_np2|compi_coll_rooted_blocks_threads0_2_np3|app_stencil3d_omp)$'
