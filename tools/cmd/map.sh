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
# script runs the installed or built one (--rebuild builds it first).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/_launch.sh"

map_main() {
    local mpi="" rebuild=0
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            *) args+=("$1"); shift ;;
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    local bin a
    # --help never needs a build: compi_map's own text when it is there,
    # else the synopsis and where the rest is.
    for a in "${args[@]}"; do
        [[ $a == -h || $a == --help ]] || continue
        bin=$(compi_bin_for "$mpi" compi_map "$COMPI_BUILD_DIR")
        [[ $rebuild == 0 && ! -x $bin ]] || break
        cat <<USAGE
usage: compi map TRACE_DIR --hosts H1:SLOTS,H2:SLOTS,... -o OUT [--network network.txt]
                 [--mpi openmpi|mpich] [--rebuild]
  The full option list is compi_map's --help; compi_map is not built here
  ($bin): tools/build.sh --mpi $mpi, or add --rebuild. See also compi help map.
USAGE
        return 0
    done
    bin=$(compi_program "$mpi" compi_map compi_maptool "$rebuild")
    exec "$bin" "${args[@]}"
}

map_main "$@"
