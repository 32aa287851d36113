#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Redistribution bytes of compi's `default` and `la` collective writes, from
# compi's own report, checked against the independent oracle
# tests/io/check_io_bytes.py (issue 12): one compi_iobench run per pattern and
# (nodes, ranks per node), nodes emulated with COMPI_DEBUG_RANKS_PER_NODE (no
# timing: the counts are deterministic). Prints the oracle's TABLE lines
# (or FAILED lines); exit 1 if any check failed.
#   usage: io_bytes_table.sh BUILD_DIR MPI "PATTERNS" "CELLS"
#     PATTERNS  e.g. "bips3d:10000:100 bips3d:10000:100:rcm stem:96"
#               (bips3d:MESH_NODES:LOAD[:NUMBERING], NUMBERING cells (default),
#               rcm or xsweep: compi_iobench --numbering; stem:GRID)
#     CELLS     e.g. "2x1 2x2 4x4" (NODESxRANKS_PER_NODE)
set -u
build=$1 mpi=$2 patterns=$3 cells=$4
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/compi-io-bytes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [[ $mpi == openmpi ]]; then
    launch=(mpirun --oversubscribe); envf() { local a=(); for kv in "$@"; do a+=(-x "$kv"); done; printf '%s\n' "${a[@]}"; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
    launch=(mpiexec.mpich); envf() { local a=(); for kv in "$@"; do a+=(-genv "${kv%%=*}" "${kv#*=}"); done; printf '%s\n' "${a[@]}"; }
fi
fail=0
for pat in $patterns; do
    IFS=: read -r kind a b num <<<"$pat"
    num=${num:-cells}
    if [[ $kind == bips3d ]]; then
        pargs=(--pattern bips3d --mesh-nodes "$a" --load "$b" --numbering "$num"); label="bips3d mesh=$a load=$b numbering=$num"
    else pargs=(--pattern stem --grid "$a"); label="stem grid=$a"; fi
    for cell in $cells; do
        nodes=${cell%x*} rpn=${cell#*x} np=$((${cell%x*} * ${cell#*x}))
        rm -f "$tmp"/*.dat "$tmp"/r.json "$tmp"/d.txt
        mapfile -t ef < <(envf LD_PRELOAD="$build/lib/libcompi.so" COMPI_DEBUG_RANKS_PER_NODE="$rpn" \
                               COMPI_REPORT="$tmp/r.json" COMPI_IO_GATE=off)
        if ! "${launch[@]}" -np "$np" "${ef[@]}" "$build/bin/compi_iobench" "${pargs[@]}" --reps 1 --warmup 0 \
                --no-read --variants mpi,default,la --dir "$tmp" --dump "$tmp/d.txt" --quiet >"$tmp/out" 2>&1; then
            echo "FAILED: $label ${nodes}x$rpn: compi_iobench failed"; tail -5 "$tmp/out"; fail=1; continue
        fi
        grep -q 'identical=no' "$tmp/out" && { echo "FAILED: $label ${nodes}x$rpn: a file differs"; fail=1; }
        "$py" "$here/check_io_bytes.py" --dump "$tmp/d.txt" --report "$tmp/r.json" --rpn "$rpn" --table \
            --label "$label" || fail=1
    done
done
exit $fail
