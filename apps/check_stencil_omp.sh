#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi_stencil3d's hybrid styles (registered with CTest by apps/CMakeLists.txt):
# the 32^3 problem on 4 ranks in slabs, pure MPI plain as the reference, then
# --omp masteronly and --omp funneled at 1 and 2 OpenMP threads per rank
# (oversubscribed where the machine has fewer cores: correctness only), each
# plain and with compi (every rank its own node, zstd, halos pipelined in
# 4 KiB chunks, COMPI_THREADS=2 and auto), must print one checksum.
# Usage: check_stencil_omp.sh openmpi|mpich <libcompi.so> <compi_stencil3d>
# CHECK_OMP_THREADS="1 2" (default): the OpenMP thread counts tried.
# Another hybrid app (its --omp styles, same checks): CHECK_OMP_STYLES (default
# "masteronly funneled"), CHECK_OMP_ARGS (its problem), CHECK_OMP_CHUNK
# (COMPI_CHUNK, default 4K; off: collective blocks go whole, coded by the pool).
set -euo pipefail
mpi=$1 lib=$2 bin=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run TAG THREADS COMPI_THREADS(- = plain) ARGS...: prints the RESULT checksum
run() {
    local tag=$1 nt=$2 ct=$3; shift 3
    local -a env=(OMP_NUM_THREADS="$nt" OMP_WAIT_POLICY=passive)
    if [[ $ct != - ]]; then
        env+=(LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC=zstd COMPI_MIN_BYTES=0 COMPI_CHUNK="${CHECK_OMP_CHUNK:-4K}"
              COMPI_THREADS="$ct" COMPI_DEBUG_RANKS_PER_NODE=1 COMPI_REPORT="$work/$tag.json")
    fi
    local -a flags=() kv
    for kv in "${env[@]}"; do
        if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
    local out=$work/$tag.out
    if [[ $mpi == openmpi ]]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun.openmpi --oversubscribe --bind-to none -np 4 "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    else
        mpiexec.mpich -n 4 "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    fi || { cat "$out" >&2; echo "FAIL: run failed: $tag threads=$nt compi_threads=$ct $*" >&2; exit 1; }
    if [[ $ct != - ]] && ! python3 - "$work/$tag.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])).get("totals", {})
sys.exit(0 if sum(x.get("messages", 0) for x in t.get("codecs", {}).values()) > 0 else 1)
PY
    then echo "FAIL: $tag compressed nothing" >&2; exit 1; fi
    sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$out"
}

args=(--nx 32 --ny 32 --nz 8 --iters 20 --check-every 7)
[[ -z ${CHECK_OMP_ARGS:-} ]] || read -r -a args <<<"$CHECK_OMP_ARGS"
ref=$(run ref 1 - "${args[@]}")
echo "pure MPI plain:                      $ref"
rc=0
for style in ${CHECK_OMP_STYLES:-masteronly funneled}; do
    for nt in ${CHECK_OMP_THREADS:-1 2}; do
        for ct in - 2 auto; do
            [[ $ct == auto && $nt == 1 ]] && continue
            sum=$(run "$style-$nt-$ct" "$nt" "$ct" --omp "$style" "${args[@]}")
            what=plain; [[ $ct != - ]] && what="compi (COMPI_THREADS=$ct)"
            printf '%-10s %d thread(s) %-26s %s\n' "$style" "$nt" "$what" "$sum"
            [[ -n $sum && $sum == "$ref" ]] || { echo "FAIL: $style, $nt threads, $what: checksum $sum, want $ref" >&2; rc=1; }
        done
    done
done
(( rc == 0 )) && echo "PASS: identical checksums"
exit $rc
