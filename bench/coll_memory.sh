#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Peak memory of large collectives, plain MPI vs compi, in one run: each
# collective of tests/mpi/coll_big.c at SIZE bytes on NP ranks (2 by
# default), plain and with compi preloaded (fixed lz4, every rank its own
# node: every block between ranks takes compi's inter-node path), REPS times
# each, alternating plain and compi. Prints per collective the peak resident
# memory per rank (VmHWM, the largest over the ranks) plain and compi, and
# the ratio compi / plain: median over the reps and [min, max]. Every run
# also checks every element it received (coll_big fails otherwise). Runs
# hold /tmp/compi-big.lock one at a time.
#   bench/coll_memory.sh openmpi|mpich [SIZE] [REPS] [NP]
# e.g. bench/coll_memory.sh openmpi 2.24G 3
# Collectives (op:data): BENCH_OPS, default
#   "bcast:random alltoall:random alltoall:smooth allreduce:random
#    gather:random gatherv:random allgather:random"
set -euo pipefail
mpi=${1:?usage: coll_memory.sh openmpi|mpich [SIZE] [REPS] [NP]}
size=${2:-2.24G}
reps=${3:-1}
np=${4:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${COMPI_BUILD:-$root/build/$mpi}
bin=$build/tests/mpi/coll_big
lib=$build/lib/libcompi.so
[[ -x $bin && -e $lib ]] || { echo "build first: tools/build.sh --mpi $mpi ($bin, $lib)" >&2; exit 2; }
ops=${BENCH_OPS:-"bcast:random alltoall:random alltoall:smooth allreduce:random gather:random gatherv:random allgather:random"}
env=(LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 COMPI_DEBUG_RANKS_PER_NODE=1)
flags=()
for kv in "${env[@]}"; do
    if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch() {   # launch plain|compi OP SIZE DATA: prints the largest peak RSS over the ranks, in kB
    local how=$1 op=$2 sz=$3 data=$4 out
    local f=()
    [[ $how == compi ]] && f=("${flags[@]}")
    if [[ $mpi == openmpi ]]; then
        out=$(flock /tmp/compi-big.lock mpirun.openmpi --oversubscribe -np "$np" "${f[@]}" "$bin" "$op" "$sz" "$data" 2>&1) || {
            echo "$out" >&2; echo "FAIL: $how $op $data" >&2; return 1; }
    else
        out=$(flock /tmp/compi-big.lock mpiexec.mpich -n "$np" "${f[@]}" "$bin" "$op" "$sz" "$data" 2>&1) || {
            echo "$out" >&2; echo "FAIL: $how $op $data" >&2; return 1; }
    fi
    grep -q "FAIL \[" <<<"$out" && { echo "$out" >&2; return 1; }
    awk '/^peak_rss_kb rank/ { if ($4 > m) m = $4 } END { print m + 0 }' <<<"$out"
}
stats() {   # median [min, max] of the arguments
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f [%.2f, %.2f]", med, v[1], v[NR] }'
}
echo "# compi peak memory per rank (VmHWM, largest rank), $mpi, np $np, size $size, $reps rep(s)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %12s %12s  %s\n' "collective" "plain_GB" "compi_GB" "ratio median [min, max]"
for spec in $ops; do
    op=${spec%%:*} data=${spec#*:}
    sz=$size
    # gather/scatter: SIZE is one rank's block; the root holds NP of them
    [[ $op == gather || $op == gatherv ]] && sz=$(awk -v s="${size%G}" -v n="$np" 'BEGIN { printf "%.4gG", s / n }')
    ratios=() plains=() compis=()
    for ((r = 0; r < reps; r++)); do
        p=$(launch plain "$op" "$sz" "$data")
        c=$(launch compi "$op" "$sz" "$data")
        plains+=("$p") compis+=("$c")
        ratios+=("$(awk -v c="$c" -v p="$p" 'BEGIN { printf "%.4f", c / p }')")
    done
    pm=$(printf '%s\n' "${plains[@]}" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1048576 }')
    cm=$(printf '%s\n' "${compis[@]}" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1048576 }')
    printf '%-20s %12s %12s  %s\n' "$op:$data" "$pm" "$cm" "$(stats "${ratios[@]}")"
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
