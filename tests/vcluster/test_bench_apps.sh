#!/usr/bin/env bash
# `compi bench apps` end to end on its emulated cluster, including its second
# stage: adaptive is made to lose on purpose and the bench must say so, rerun
# the loss in fresh rounds and confirm it.
#
# The loss: a network model over 1000x too slow (10 us/B, where 1 Gbit/s is
# ~8 ns/B) and zstd at level 19, so adaptive compresses stencil3d's halos with
# zstd's slowest level where sending them raw is cheap. Online model refresh
# is off so the run cannot correct the model. The margin is large (adaptive
# measured at 0.3-0.4x of off), so 3 rounds decide it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPI=$ROOT/tools/compi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export COMPI_BENCH_APPS_NAME=cbtest COMPI_BENCH_APPS_SUBNET=${COMPI_TEST_SUBNET_BENCH:-10.213.79}

mkdir -p "$TMP/slow"
{
    echo "compi-heuristics 1 network"
    echo "source test_bench_apps.sh: 1 Gbit/s taken for 0.1 MB/s"
    echo "link inter * *"
    echo "alpha_us 10"
    for ((s = 2; s <= 16777216; s *= 2)); do echo "beta $s 10000"; done
    echo "end"
} >"$TMP/slow/network.txt"

rc=0
COMPI_HEURISTICS=$TMP/slow COMPI_LEVEL=19 COMPI_ADAPT_REFRESH=0 \
    bash "$COMPI" bench apps --apps stencil3d --mpi openmpi --rates 1gbit --modes off,adaptive \
    --reps 3 --confirm 3 --scale 0.1 --logs "$TMP/logs" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
fail=0
expect() {  # DESCRIPTION GREP-PATTERN
    if grep -qE -- "$2" "$TMP/out"; then echo "PASS $1"; else echo "FAIL $1 (no line matching: $2)"; fail=1; fi
}
[[ $rc == 0 ]] && echo "PASS every run OK, checksums identical" || { echo "FAIL bench apps exited $rc"; fail=1; }
expect "the first rounds find adaptive below off" \
    '^COMPARE app=stencil3d mpi=openmpi rate=1gbit what=adaptive_vs_off .* verdict=BELOW n=3$'
expect "the second stage reruns off and adaptive alone" \
    'stencil3d openmpi 1gbit: a comparison of off adaptive came out BELOW; confirming in 3 fresh rounds'
expect "the fresh rounds confirm it" \
    '^CONFIRM app=stencil3d mpi=openmpi rate=1gbit what=adaptive_vs_off .* verdict=BELOW n=3$'
expect "the final count says so" \
    '^1 of 1 comparisons below their threshold beyond noise \(1 suspect\(s\) in the first rounds: 1 confirmed, 0 not rerun\)'
n=$(awk -F'\t' '$4 == "adaptive" && $6 == "OK"' "$TMP/logs/confirm.tsv" | wc -l)
[[ $n == 3 ]] && echo "PASS 3 confirmation runs of adaptive recorded apart" ||
    { echo "FAIL confirm.tsv has $n OK adaptive runs, expected 3"; fail=1; }
exit $fail
