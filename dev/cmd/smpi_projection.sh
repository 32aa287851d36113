#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: the projection table of docs/results.md: simulated speedups per mode on fat trees (SimGrid SMPI)
# Runs `compi simulate` for each mini-application, rank count and link rate
# on a 2:1 fat tree of 8-core nodes (16 nodes per leaf), plain and in fixed
# lz4, fixed zstd and adaptive mode, and prints one markdown row per case:
# the plain run's simulated time and each mode's speedup over it
# ("differs" if a checksum is not the plain run's, "failed" if a run failed).
#   compi smpi_projection [--build build/smpi] [--ranks "64 256 1024"]
#                         [--rates "1Gbps 10Gbps 25Gbps 100Gbps"] [--apps "stencil3d"]
# Every row is also appended to $COMPI_PROJECTION_OUT when set. Simulated
# time is deterministic (docs/simulate.md); host cost: a 1024-rank run
# takes a minute or more of CPU, so the whole table takes about an hour.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build/smpi ranks="64 256 1024" rates="1Gbps 10Gbps 25Gbps 100Gbps" apps="stencil3d"
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --apps) apps=$2; shift 2 ;;
        *) echo "smpi_projection: unknown option $1" >&2; exit 2 ;;
    esac
done
modes="fixed:lz4 fixed:zstd adaptive"
cores=8

# each application's arguments: the problem per rank stays the same as ranks grow
app_args() {
    case "$1" in
        stencil3d) echo "--n 32 --iters 10 --decomp 3d --quiet" ;;
        *) echo "smpi_projection: no arguments known for $1" >&2; return 2 ;;
    esac
}

row() { echo "$*"; if [ -n "${COMPI_PROJECTION_OUT:-}" ]; then echo "$*" >>"$COMPI_PROJECTION_OUT"; fi; }
row "| app | ranks | link | plain s | fixed lz4 | fixed zstd | adaptive |"
row "|---|---|---|---|---|---|---|"
for app in $apps; do
    args=$(app_args "$app")
    for np in $ranks; do
        for rate in $rates; do
            # shellcheck disable=SC2086
            out=$("$root/tools/compi" simulate --build "$build" --topo fattree --oversub 2 --nodes $((np / cores)) \
                --cores $cores --rate "$rate" --modes "$modes" "compi_$app" $args 2>&1) || true
            cells=""
            plain=$(awk '$1 == "off" {print $2}' <<<"$out")
            for m in $modes; do
                c=$(awk -v m="$m" '$1 == m {print $3 ($4 == "DIFFERS" ? " (differs)" : "")}' <<<"$out")
                cells="$cells | ${c:-failed}"
            done
            row "| $app | $np | ${rate%bps}bit/s | ${plain:-failed}$cells |"
        done
    done
done
