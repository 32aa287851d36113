#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Parallel HDF5 through compi's collective I/O (issue 12, item 7): the file
# h5_collective writes with compi preloaded (compi_cb_aggregators la forced
# onto compi's path with the gate off, in fixed lz4 and adaptive mode, and la
# with the gate on) must equal, byte for byte (cmp: object times are off in
# the program, so nothing else differs), the file it writes without compi,
# on 2 emulated layouts (COMPI_DEBUG_RANKS_PER_NODE 1 and 2, 4 ranks); the
# report must show the collective calls on compi's path (gate off).
# usage: check_hdf5.sh openmpi|mpich LAUNCHER LIBCOMPI H5PROG
set -u
mpi=$1 launcher=$2 lib=$3 prog=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compi_hdf5.XXXXXX")
np=4
fail=0
ios=(default)
base=()
if [[ $mpi == openmpi ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    base=(--oversubscribe --mca mpi_yield_when_idle 1)
    ios=(ompio romio321)
fi
envflag() {   # NAME=VALUE as the launcher passes it
    if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$1"; else printf '%s\n' -genv "${1%%=*}" "${1#*=}"; fi
}
for io in "${ios[@]}"; do
    extra=()
    [[ $io == romio321 ]] && extra=(--mca io romio321)
    if ! "$launcher" "${base[@]}" -np $np "${extra[@]}" "$prog" "$tmp/ref_$io.h5" >"$tmp/ref_$io.out" 2>&1; then
        echo "FAILED: plain HDF5 run ($io):"; cat "$tmp/ref_$io.out"; fail=1; continue
    fi
    for rpn in 1 2; do
        for variant in la-fixed la-adaptive la-gate; do
            mode=fixed gate=off
            [[ $variant == la-adaptive ]] && mode=adaptive
            [[ $variant == la-gate ]] && mode=adaptive gate=on
            f=$tmp/${io}_${rpn}_$variant
            mapfile -t ev < <(for kv in LD_PRELOAD="$lib" COMPI_IO_AGGREGATORS=la COMPI_IO_GATE=$gate COMPI_MODE=$mode \
                                        COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 COMPI_DEBUG_RANKS_PER_NODE=$rpn \
                                        COMPI_REPORT="$f.json"; do envflag "$kv"; done)
            if ! "$launcher" "${base[@]}" -np $np "${extra[@]}" "${ev[@]}" "$prog" "$f.h5" >"$f.out" 2>&1; then
                echo "FAILED: $io rpn $rpn $variant:"; cat "$f.out"; fail=1; continue
            fi
            if ! cmp "$tmp/ref_$io.h5" "$f.h5"; then
                echo "FAILED: $io rpn $rpn $variant: the HDF5 file differs from the one written without compi"; fail=1
            fi
            summary=$(python3 - "$f.json" "$gate" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
calls = sum(v["calls"] for f in r.get("io_files", []) for v in f["compi_calls"].values())
passed = {}
for f in r.get("io_files", []):
    for k, v in f["passed_to_mpi"].items():
        passed[k] = passed.get(k, 0) + v
mpiio = sorted({f.get("mpi_io", "?") for f in r.get("io_files", [])})
print(calls, json.dumps(passed, sort_keys=True).replace(" ", ""), ",".join(mpiio))
PY
)
            read -r calls passed mpiio <<<"$summary"
            echo "$io rpn $rpn $variant: identical; $calls collective calls on compi's path, passed $passed, MPI-IO $mpiio"
            if [[ $gate == off && ${calls:-0} -lt 8 ]]; then
                echo "FAILED: $io rpn $rpn $variant: only ${calls:-0} collective calls took compi's path (want the 8 data calls)"; fail=1
            fi
        done
    done
done
if (( fail )); then echo "check_hdf5: FAILED (files kept in $tmp)"; exit 1; fi
rm -rf "$tmp"
echo "check_hdf5: OK"
