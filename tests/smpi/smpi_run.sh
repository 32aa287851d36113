#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs one program of the smpi build under SimGrid SMPI on a generated
# platform: NP ranks, RPN ranks per simulated node (a cluster of
# ceil(NP/RPN) nodes at RATE), compi linked into the program and its data
# swapped per rank (smpi/privatization:mmap).
#   smpi_run.sh NP RPN RATE PROGRAM [ARGS...]
# The ranks' environment is this script's (SMPI runs them in its process).
# With COMPI_MODE set, the run must leave compi's report (COMPI_REPORT):
# a program that lost its link to libcompi cannot pass silently.
# Simulated time is deterministic: the applications' computation is not
# timed (smpi/simulate-computation:no) and compi charges its codecs by a
# model (lib/compat/smpi_codecs.c). Every send is eager (detached): with
# SMPI's rendezvous sends (above 64 KiB by default) compi's large compressed
# Isends arrive mismatched with their headers in SMPI 3.32 (an open defect,
# docs/simulate.md). COMPI_SMPI_CFG adds smpirun options; COMPI_SMPI_COLL
# picks SMPI's collective selector (default ompi).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
np=$1 rpn=$2 rate=$3 prog=$4
shift 4
nodes=$(( (np + rpn - 1) / rpn ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/tools/cmd/simulate_platform.py" --topo cluster --nodes "$nodes" --cores "$rpn" --rate "$rate" \
    --latency 1us --platform "$tmp/platform.xml" --hostfile "$tmp/hosts"
lib=${COMPI_SMPI_LIBDIR:-$(cd "$(dirname "$prog")/../lib" && pwd)}   # where libcompi-smpi.so is
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cd "$tmp"
if [ -n "${COMPI_MODE:-}" ] && [ -z "${COMPI_REPORT:-}" ]; then
    export COMPI_REPORT="$tmp/report.json"
fi
rc=0
smpirun -np "$np" -platform "$tmp/platform.xml" -hostfile "$tmp/hosts" \
    --cfg=smpi/privatization:mmap --cfg=smpi/coll-selector:${COMPI_SMPI_COLL:-ompi} \
    --cfg=smpi/simulate-computation:no --cfg=smpi/tmpdir:"$tmp" \
    --cfg=smpi/send-is-detached-thresh:1000000000 \
    --log=root.thresh:error --log=smpi_mpi.thresh:error ${COMPI_SMPI_CFG:-} \
    "$prog" "$@" || rc=$?
if [ "$rc" -eq 0 ] && [ -n "${COMPI_MODE:-}" ] && [ ! -s "$COMPI_REPORT" ]; then
    echo "FAIL [smpi_run] COMPI_MODE=$COMPI_MODE but compi wrote no report: libcompi not linked or not initialized"
    rc=1
fi
exit "$rc"
