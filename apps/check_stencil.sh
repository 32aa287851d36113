#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Lossless check for compi_stencil3d (registered with CTest by apps/CMakeLists.txt):
# the same 32^3 global problem, computed
#   1 rank plain, 4 ranks slabs plain, 4 ranks slabs with compi (codec A),
#   4 ranks 2x2x1 blocks with Isend/Irecv and compi (codec B),
#   the same two with every face sent in place as one derived-type element
#   (--faces types: vectors and subarrays),
#   4 ranks 2x2x1 blocks with MPI_Neighbor_alltoallv (--neighbor) and compi (codec B),
# must give one bitwise checksum. compi runs pretend every rank is its own
# node and compress every message, so every halo goes through a codec.
# Usage: check_stencil.sh openmpi|mpich <libcompi.so> <compi_stencil3d> [codecA codecB]
set -euo pipefail
# shellcheck disable=SC2034  # mpi, lib, bin: read by check_app.sh (app_run)
mpi=$1 lib=$2 bin=$3 codec_a=${4:-zstd} codec_b=${5:-fpc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/check_app.sh" # app_run, app_compressed

iters=(--iters 40 --check-every 7)
ref=$(app_run ref 1 0 - --n 32 "${iters[@]}")
slabs=$(app_run slabs 4 0 - --nx 32 --ny 32 --nz 8 "${iters[@]}")
ca=$(app_run ca 4 1 "$codec_a" --nx 32 --ny 32 --nz 8 "${iters[@]}")
na=$(app_compressed ca) || { echo "FAIL: $codec_a run compressed nothing" >&2; exit 1; }
cb=$(app_run cb 4 1 "$codec_b" --decomp 3d --halo isend --nx 16 --ny 16 --nz 32 "${iters[@]}")
nb=$(app_compressed cb) || { echo "FAIL: $codec_b run compressed nothing" >&2; exit 1; }
ta=$(app_run ta 4 1 "$codec_a" --faces types --nx 32 --ny 32 --nz 8 "${iters[@]}")
nta=$(app_compressed ta) || { echo "FAIL: $codec_a run with derived-type faces compressed nothing" >&2; exit 1; }
tb=$(app_run tb 4 1 "$codec_b" --faces types --decomp 3d --halo isend --nx 16 --ny 16 --nz 32 "${iters[@]}")
ntb=$(app_compressed tb) || { echo "FAIL: $codec_b run with derived-type faces compressed nothing" >&2; exit 1; }
nn=$(app_run nn 4 1 "$codec_b" --decomp 3d --neighbor --nx 16 --ny 16 --nz 32 "${iters[@]}")
nnn=$(app_compressed nn) || { echo "FAIL: $codec_b run with neighbourhood halos compressed nothing" >&2; exit 1; }

echo "1 rank plain:               $ref"
echo "4 ranks slabs plain:        $slabs"
echo "4 ranks slabs compi $codec_a:  $ca ($na: compressed messages, ratio)"
echo "4 ranks 2x2x1 compi $codec_b:  $cb ($nb: compressed messages, ratio)"
echo "4 ranks slabs compi $codec_a, faces as types:  $ta ($nta: compressed messages, ratio)"
echo "4 ranks 2x2x1 compi $codec_b, faces as types:  $tb ($ntb: compressed messages, ratio)"
echo "4 ranks 2x2x1 compi $codec_b, MPI_Neighbor_alltoallv:  $nn ($nnn: compressed messages, ratio)"
if [[ -n $ref && $ref == "$slabs" && $ref == "$ca" && $ref == "$cb" && $ref == "$ta" && $ref == "$tb" && $ref == "$nn" ]]; then
    echo "PASS: identical checksums"
else
    echo "FAIL: checksums differ" >&2
    exit 1
fi
