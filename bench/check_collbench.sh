#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi_collbench's compi path, checked (registered with CTest by
# bench/CMakeLists.txt): NP ranks on this machine, compi preloaded in mode
# fixed with lz4 and COMPI_MIN_BYTES=0, COMPI_DEBUG_RANKS_PER_NODE=RPN (so the
# collectives take compi's node-aware path with RPN ranks per "node"), every
# wrapped collective at 2 sizes, 2 reps, double and int data. Passes when the
# benchmark exits 0 (it verifies every result against plain MPI and exits 1
# on a mismatch), ran through the interposer, and printed a RESULT line for
# every collective, size and data set. Timings are ignored.
# Usage: check_collbench.sh openmpi|mpich <libcompi.so> <compi_collbench> NP RPN
set -euo pipefail
mpi=$1 lib=$2 bin=$3 np=$4 rpn=$5
colls=(allgather allgatherv alltoall alltoallv allreduce reduce bcast gather scatter reduce_scatter_block)
sizes=(1000 65536)   # 1000: not a power of two (odd counts in the v variants)
data=(double_smooth int_r50)
env=(LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 COMPI_DEBUG_RANKS_PER_NODE="$rpn")
flags=()
for kv in "${env[@]}"; do
    if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
done
args=(--colls all --sizes "$(IFS=,; echo "${sizes[*]}")" --data "$(IFS=,; echo "${data[*]}")"
      --reps 2 --min-reps 2 --warmup 1)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
if [[ $mpi == openmpi ]]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun.openmpi --oversubscribe -np "$np" "${flags[@]}" "$bin" "${args[@]}" >"$out" 2>&1 || rc=$?
else
    mpiexec.mpich -n "$np" "${flags[@]}" "$bin" "${args[@]}" >"$out" 2>&1 || rc=$?
fi
cat "$out"
fail=0
(( rc == 0 )) || { echo "FAIL: compi_collbench exited $rc"; fail=1; }
grep -q '^# interposer: yes' "$out" || { echo "FAIL: libcompi was not interposed (the check would be vacuous)"; fail=1; }
if grep -q 'MISMATCH' "$out"; then echo "FAIL: a result differed"; fail=1; fi
for c in "${colls[@]}"; do
    for s in "${sizes[@]}"; do
        for d in "${data[@]}"; do
            grep -qE "^RESULT coll=$c size=$s data=$d reps=2 " "$out" ||
                { echo "FAIL: no RESULT line for coll=$c size=$s data=$d"; fail=1; }
        done
    done
done
(( fail )) || echo "PASS: ${#colls[@]} collectives x ${#sizes[@]} sizes x ${#data[@]} data sets verified on $np ranks ($rpn per node)"
exit $fail
