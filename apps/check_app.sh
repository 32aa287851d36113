#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Lossless end-to-end check for a mini-application (registered with CTest by
# apps/CMakeLists.txt): the app runs on 4 ranks plain and with compi preloaded
# (every rank its own node, every message compressed with CODEC); both runs
# must pass the app's own verification (`CHECK OK`, `APP ... check=OK`), print
# one RESULT checksum, and compi must really have compressed something.
# Usage: check_app.sh openmpi|mpich <libcompi.so> <app binary> <codec> [app args...]
# CHECK_APP_RAW_OK=1 accepts a compi run that compressed nothing (an app whose
# traffic compi cannot see, e.g. nas_is's MPI_Alltoallv: checks pass-through).
#
# Sourced (as check_stencil.sh does), it only defines the helpers app_run and
# app_compressed; set mpi, lib and work first.
set -euo pipefail

# app_run TAG NP PRELOAD(0|1) CODEC ARGS...: runs the app (always with --quiet),
# leaves its output in $work/TAG.out and compi's report in $work/TAG.json, and
# prints the RESULT checksum.
app_run() {
    local tag=$1 np=$2 pre=$3 codec=$4; shift 4
    local -a env=()
    if (( pre )); then
        env=(LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC="$codec" COMPI_MIN_BYTES=0
             COMPI_DEBUG_RANKS_PER_NODE=1 COMPI_REPORT="$work/$tag.json")
    fi
    local -a flags=() kv
    for kv in "${env[@]}"; do
        if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
    local out=$work/$tag.out
    if [[ $mpi == openmpi ]]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun.openmpi --oversubscribe -np "$np" "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    else
        mpiexec.mpich -n "$np" "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    fi || { cat "$out" >&2; echo "FAIL: run failed: $tag np=$np compi=$pre $*" >&2; exit 1; }
    sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$out"
}

# app_compressed TAG: prints "<messages> <ratio>" compressed in run TAG; fails
# if none were: a compi run that compressed nothing proves nothing.
app_compressed() {
    python3 - "$work/$1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])).get("totals", {})
c = t.get("codecs", {}).values()
n = sum(x.get("messages", 0) for x in c)
bi, bo = sum(x.get("bytes_in", 0) for x in c), sum(x.get("bytes_out", 0) for x in c)
print(n, "%.2fx" % (bi / bo if bo else 0))
sys.exit(0 if n > 0 else 1)
PY
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    mpi=$1 lib=$2 bin=$3 codec=$4
    shift 4
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    name=$(basename "$bin")
    plain=$(app_run plain 4 0 - "$@")
    packed=$(app_run compi 4 1 "$codec" "$@")
    stats=$(app_compressed compi) || [[ ${CHECK_APP_RAW_OK:-0} == 1 ]] ||
        { echo "FAIL: $name: the $codec run compressed nothing" >&2; exit 1; }
    for tag in plain compi; do
        if ! grep -q '^CHECK OK$' "$work/$tag.out" || ! grep -q '^APP name=.* check=OK$' "$work/$tag.out"; then
            cat "$work/$tag.out" >&2
            echo "FAIL: $name: $tag run did not verify" >&2
            exit 1
        fi
    done
    echo "$name $*"
    echo "  plain:        $plain  $(grep '^APP' "$work/plain.out")"
    echo "  compi $codec: $packed  $(grep '^APP' "$work/compi.out")  (messages, ratio: $stats)"
    if [[ -n $plain && $plain == "$packed" ]]; then
        echo "PASS: identical checksums"
    else
        echo "FAIL: checksums differ" >&2
        exit 1
    fi
fi
