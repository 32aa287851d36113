#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: run an unmodified MPI program with compi preloaded into its ranks
#
# compi run [--mpi openmpi|mpich] [--build-dir DIR] [--dry-run] -- LAUNCHER ARGS...
#
# The command is compi_run.py next to this script (the launcher rewriting as
# data and functions with unit tests: tests/run); this name stays so that
# the dispatcher and the job shims (jobshims/srun) find it.
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compi_run.py" "$@"
