#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs compi_pairprobe on an emulated cluster that is already up (compi
# vcluster up --name NAME --nodes 4 --slots 2 ...): ranks 0 and 1 on the same
# node or on two nodes, with 2 ranks in all or with NP ranks whose others
# poll (inside MPI) or sleep, for one MPI with and without its yield setting
# (Open MPI: --mca mpi_yield_when_idle 1; MPICH: VCLUSTER_MPICH_YIELD=1, which
# the emulated cluster's UCX shim turns into a sched_yield after an empty
# ucp_worker_progress, dev/cmd/vcluster_ucx_close.c; MPICH itself never
# yields on Linux).
# Usage: bench/pairprobe_matrix.sh NAME MPI BUILD_DIR [NP] [SIZES]
set -euo pipefail
name=${1:?cluster name} mpi=${2:?openmpi|mpich} build=${3:?build dir, e.g. build/mpich}
np=${4:-8} sizes=${5:-1024,65536,1048576}
root=$(cd "$(dirname "$0")/.." && pwd)
probe=$(readlink -f "$build/bin/compi_pairprobe")
state=/run/compi-vcluster-$name
[[ -f $state/hostfile.openmpi ]] || { echo "no cluster '$name' ($state)" >&2; exit 1; }
mapfile -t nodes < <(awk '{print $1}' "$state/hostfile.openmpi")
tmp=$(mktemp -d /tmp/pairprobe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

place() {  # DIR HOST...
    local d=$1 r=0 h; shift
    mkdir -p "$d"
    { echo "compi-placement 1"; echo "program pairprobe"; echo "ranks $#"
      echo "hosts $(printf '%s:2,' "${nodes[@]}" | sed 's/,$//')"; echo "mapper manual"
      for h in "$@"; do echo "rank $r $h"; r=$((r + 1)); done; echo end; } >"$d/placement.txt"
    printf '%s\n' "$@" >"$d/machinefile"
    : >"$d/rankfile"; : >"$d/env"
}
place "$tmp/2same" "${nodes[0]}" "${nodes[0]}"
place "$tmp/2cross" "${nodes[0]}" "${nodes[1]}"
rest=()
for ((i = 2; i < np; i++)); do rest+=("${nodes[i / 2]}"); done
# same: 0,1 on node 0; cross: 0 on node 0, 1 on node 1; the others fill the
# remaining slots the same way in both (2 per node)
place "$tmp/nsame" "${nodes[0]}" "${nodes[0]}" "${rest[@]}"
cross_rest=("${nodes[0]}" "${nodes[1]}" "${rest[@]:2}")
place "$tmp/ncross" "${nodes[0]}" "${nodes[1]}" "${cross_rest[@]}"

run() {  # PLACEMENT NP YIELD(0|1) OTHERS
    local pl=$1 n=$2 y=$3 others=$4
    local -a flags=()
    if [[ $mpi == openmpi ]]; then flags=(--mca mpi_yield_when_idle "$y")
    else flags=(-envnone); (( y )) && flags+=(-genv VCLUSTER_MPICH_YIELD 1); fi
    timeout 300 bash "$root/tools/compi" vcluster run --name "$name" --mpi "$mpi" --placement "$pl" -- \
        -np "$n" "${flags[@]}" "$probe" --sizes "$sizes" --others "$others" 2>&1 |
        grep '^PROBE' | sed "s/^/$mpi yield=$y /"
}
for y in 0 1; do
    run "$tmp/2same" 2 "$y" poll
    run "$tmp/2cross" 2 "$y" poll
    for others in poll sleep; do
        run "$tmp/nsame" "$np" "$y" "$others"
        run "$tmp/ncross" "$np" "$y" "$others"
    done
done
