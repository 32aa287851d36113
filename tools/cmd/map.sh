#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: process placement: traces -> communication graph -> rankfile/machinefile (OPP)
#
# compi map TRACE_DIR --hosts H1:SLOTS,... -o PLACEMENT: builds the
# communication graph of a run traced with COMPI_MODE=profile (or trace)
# COMPI_TRACE=TRACE_DIR (point-to-point as traced, collectives decomposed
# into the messages the MPI sends: lib/map), the network of the hosts (from
# `compi calibrate network`'s file, --network; default the built-in model),
# runs the mappers (block, cyclic, random, swap, scotch), prints the
# predicted cost of each and writes the cheapest placement. Launch with it:
# compi run --placement PLACEMENT -- mpirun ... / compi vcluster run
# --placement PLACEMENT ... (docs/map.md). compi_map is MPI-free; this
# script builds it (build/<mpi>/bin) if needed.
set -euo pipefail
# shellcheck source=tools/cmd/bench.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"

map_main() {
    local mpi=""
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            *) args+=("$1"); shift ;;
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    bench_build "$mpi" compi_maptool
    local bin
    bin=$(bench_bin "$mpi" compi_map)
    [[ -x $bin ]] || die "compi_map not built at $bin"
    exec "$bin" "${args[@]}"
}

map_main "$@"
