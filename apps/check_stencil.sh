#!/usr/bin/env bash
# Lossless check for compi_stencil3d (registered with CTest by apps/CMakeLists.txt):
# the same 32^3 global problem, computed
#   1 rank plain, 4 ranks slabs plain, 4 ranks slabs with compi (codec A),
#   4 ranks 2x2x1 blocks with Isend/Irecv and compi (codec B),
# must give one bitwise checksum. compi runs pretend every rank is its own
# node and compress every message, so every halo goes through a codec.
# Usage: check_stencil.sh openmpi|mpich <libcompi.so> <compi_stencil3d> [codecA codecB]
set -euo pipefail
mpi=$1 lib=$2 bin=$3 codec_a=${4:-zstd} codec_b=${5:-fpc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NP PRELOAD(0|1) CODEC ARGS...: prints the run's checksum
run() {
    local np=$1 pre=$2 codec=$3; shift 3
    local -a env=()
    if (( pre )); then
        env=(LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC="$codec" COMPI_MIN_BYTES=0
             COMPI_DEBUG_RANKS_PER_NODE=1 COMPI_REPORT="$work/report_$codec.json")
    fi
    local -a flags=() kv
    for kv in "${env[@]}"; do
        if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
    done
    local out=$work/out.$RANDOM
    if [[ $mpi == openmpi ]]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun.openmpi --oversubscribe -np "$np" "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    else
        mpiexec.mpich -n "$np" "${flags[@]}" "$bin" --quiet "$@" >"$out" 2>&1
    fi || { cat "$out" >&2; echo "FAIL: run failed: np=$np compi=$pre $*" >&2; exit 1; }
    sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$out"
}

# A compi run must really have compressed something, or it proves nothing.
compressed() {
    python3 - "$work/report_$1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])).get("totals", {})
n = sum(c.get("messages", 0) for c in t.get("codecs", {}).values())
print(n)
sys.exit(0 if n > 0 else 1)
PY
}

iters=(--iters 40 --check-every 7)
ref=$(run 1 0 - --n 32 "${iters[@]}")
slabs=$(run 4 0 - --nx 32 --ny 32 --nz 8 "${iters[@]}")
ca=$(run 4 1 "$codec_a" --nx 32 --ny 32 --nz 8 "${iters[@]}")
na=$(compressed "$codec_a") || { echo "FAIL: $codec_a run compressed nothing" >&2; exit 1; }
cb=$(run 4 1 "$codec_b" --decomp 3d --halo isend --nx 16 --ny 16 --nz 32 "${iters[@]}")
nb=$(compressed "$codec_b") || { echo "FAIL: $codec_b run compressed nothing" >&2; exit 1; }

echo "1 rank plain:               $ref"
echo "4 ranks slabs plain:        $slabs"
echo "4 ranks slabs compi $codec_a:  $ca ($na compressed messages)"
echo "4 ranks 2x2x1 compi $codec_b:  $cb ($nb compressed messages)"
if [[ -n $ref && $ref == "$slabs" && $ref == "$ca" && $ref == "$cb" ]]; then
    echo "PASS: identical checksums"
else
    echo "FAIL: checksums differ" >&2
    exit 1
fi
