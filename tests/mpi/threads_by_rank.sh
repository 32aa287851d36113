#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Launches one rank of an MPI test with its own COMPI_THREADS: rank r takes
# item r mod n of COMPI_TEST_THREADS_BY_RANK (a comma-separated list), so one
# run has senders and receivers with different codec pools. libcompi comes
# from COMPI_TEST_PRELOAD, preloaded here into the program only.
set -eu
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
IFS=, read -r -a counts <<<"${COMPI_TEST_THREADS_BY_RANK:?}"
export COMPI_THREADS=${counts[$((rank % ${#counts[@]}))]}
export LD_PRELOAD=${COMPI_TEST_PRELOAD:?}
exec "$@"
