#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-rank wrapper used by mpi4py.sh: started by mpirun/mpiexec in place of
# python, it sends this rank's output to its own log and applies the compi
# preload only here, so the launcher itself never loads libcompi.so.
set -euo pipefail
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}
dir=${FOREIGN_MPI4PY_DIR:?}
# Recorded so mpi4py.sh can kill leftovers of a timed-out run by pid.
echo $$ > "$dir/pid.$rank"
if [ -n "${FOREIGN_MPI4PY_PRELOAD:-}" ]; then
    export LD_PRELOAD=$FOREIGN_MPI4PY_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}
fi
exec "$@" >"$dir/rank.$rank.log" 2>&1
