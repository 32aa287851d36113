#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: the projection table of docs/results.md: simulated speedups per mode on fat trees (SimGrid SMPI)
# Runs `compi simulate` for each mini-application, rank count and link rate
# on a 2:1 fat tree of 8-core nodes (16 nodes per leaf), plain and in fixed
# lz4, fixed zstd and adaptive mode (--modes), and prints one markdown row
# per case: the plain run's simulated time, each mode's speedup over it
# ("differs" if a checksum is not the plain run's, "failed" if a run
# failed) and whether every compi run's checksum was the plain run's.
#   compi smpi_projection [--build build/smpi] [--ranks "64 256 1024"]
#                         [--rates "1Gbps 10Gbps 25Gbps 100Gbps"] [--apps "stencil3d"]
#                         [--modes "fixed:lz4 fixed:zstd adaptive"]
# Apps: stencil3d stem pairs psrg nas_is transpose (app_args below: each
# one's problem per rank stays the same as the ranks grow, but
# transpose's). Every row is also appended to $COMPI_PROJECTION_OUT when
# set. Simulated time is deterministic (docs/simulate.md); host cost: a
# 1024-rank run takes a minute or more of CPU, so stencil3d's whole table
# takes about an hour; nas_is and transpose do not finish at 256 ranks
# (docs/results.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build/smpi ranks="64 256 1024" rates="1Gbps 10Gbps 25Gbps 100Gbps" apps="stencil3d"
modes="fixed:lz4 fixed:zstd adaptive"
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --apps) apps=$2; shift 2 ;;
        --modes) modes=$2; shift 2 ;;
        *) echo "smpi_projection: unknown option $1" >&2; exit 2 ;;
    esac
done
cores=8

# each application's arguments at NP ranks: the problem per rank stays the
# same as ranks grow (weak scaling)
app_args() {
    local np=$2
    case "$1" in
        # 32^3 cells a rank, 8 KiB faces
        stencil3d) echo "--n 32 --iters 10 --decomp 3d --quiet" ;;
        # 24 x 20 columns x 16 levels x 8 species a rank (2D tiles; 3-4 KiB
        # faces), the surface layer gathered on rank 0 every 10 steps
        stem) echo "--scale $((np / 64)) --iters 20 --output-every 10 --serial off --quiet" ;;
        # 32768 doubles a rank: 256 KiB to the partner, 64 KiB to each ring neighbour
        pairs) echo "--n 32768 --iters 10 --serial off --quiet" ;;
        # 16384 pixels a rank (ints, 64 KiB) scattered from rank 0 and gathered back
        psrg) echo "--scale $(awk -v p="$np" 'BEGIN { print p / 256 }') --iters 3 --quiet" ;;
        # 16384 keys a rank, exchanged by MPI_Alltoallv
        nas_is) echo "--scale $(awk -v p="$np" 'BEGIN { print p / 128 }') --iters 10 --quiet" ;;
        # slabs need N a multiple of NP, so no problem a rank stays the same:
        # N = 2 NP, 2 planes a rank, a 4 NP-double block to every rank;
        # 10 transposes and back, as the others' 10 iterations: the first
        # call's learning is a run's, not each call's
        transpose) echo "--n $((2 * np)) --iters 10 --serial off --quiet" ;;
        *) echo "smpi_projection: no arguments known for $1" >&2; return 2 ;;
    esac
}

row() { echo "$*"; if [ -n "${COMPI_PROJECTION_OUT:-}" ]; then echo "$*" >>"$COMPI_PROJECTION_OUT"; fi; }
hdr="| app | ranks | link | plain s" rule="|---|---|---|---"
for m in $modes; do hdr="$hdr | ${m/:/ }" rule="$rule|---"; done
row "$hdr | checksums |"
row "$rule|---|"
for app in $apps; do
    for np in $ranks; do
        args=$(app_args "$app" "$np")
        for rate in $rates; do
            # shellcheck disable=SC2086
            out=$("$root/tools/compi" simulate --build "$build" --topo fattree --oversub 2 --nodes $((np / cores)) \
                --cores $cores --rate "$rate" --modes "$modes" "compi_$app" $args 2>&1) || true
            # checksums: "= plain" when every compi run printed the plain run's
            cells="" same="= plain"
            plain=$(awk '$1 == "off" {print $2}' <<<"$out")
            for m in $modes; do
                # the mode's row: speedup and checksum ("same", "DIFFERS" or none)
                c="" sum=""
                read -r c sum < <(awk -v m="$m" '$1 == m {print $3, $4}' <<<"$out") || true
                [ "$sum" = DIFFERS ] && c="$c (differs)"
                cells="$cells | ${c:-failed}"
                case "$sum" in
                    DIFFERS) same="DIFFERS" ;;
                    same) ;;
                    *) [ "$same" = DIFFERS ] || same="unchecked" ;;
                esac
            done
            row "| $app | $np | ${rate%bps}bit/s | ${plain:-failed}$cells | $same |"
        done
    done
done
