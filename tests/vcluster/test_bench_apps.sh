#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `compi bench apps` end to end on its emulated cluster: the bench's mechanics,
# with verdicts that are certain.
#
# The runs are real: stencil3d in modes off, fixed (lz4) and adaptive, with
# Open MPI on 2 emulated nodes at 1 Gbit/s, 3 interleaved rounds, each run
# checked and its checksum compared with the others'. Only the timing is
# injected: the test hook COMPI_BENCH_TEST_TIME (dev/cmd/bench.sh) records
# every run's timed phase as off 1 s, fixed 3 s, adaptive 2 s. So adaptive vs
# off is 0.5 in every round (BELOW 0.97, certainly), adaptive vs fixed 1.5
# (above 1), and the bench must rerun off and adaptive alone (not fixed) in 3
# fresh rounds, confirm the BELOW and count it. Measured times, whatever the
# load on the machine, cannot change any of that; the checks on exact ratios
# fail without the hook. (Before, a loss was provoked for real -- a network
# model 1000x too slow and zstd -19 -- and adaptive, correcting its mistakes,
# once came out within noise of off in the confirmation.)
#
# A second, short bench run (1 round, no confirmation) gives mode fixed a
# codec that does not exist: libcompi stops those runs at MPI_Init, and the
# bench must report the failed run, keep off's result and exit 1.
#
# Third, MPICH's waiting ranks yield the core in bench apps and in the demo,
# as in bench coll and bench map (the emulated cluster's UCX shim, with
# VCLUSTER_MPICH_YIELD=1 from compi_idle_flags): each rank runs under strace
# (test hook COMPI_BENCH_TEST_WRAP), whose count of sched_yield calls on the
# rank's main thread, where MPICH polls, is the oracle. MPICH itself never
# calls sched_yield on Linux, so without the setting the count is 0.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPI=$ROOT/tools/compi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export COMPI_BENCH_APPS_NAME=cbtest COMPI_BENCH_APPS_SUBNET=${COMPI_TEST_SUBNET_BENCH:-10.213.79}
CELL="app=stencil3d mpi=openmpi rate=1gbit"

rc=0
COMPI_BENCH_TEST_TIME=off=1,fixed=3,adaptive=2 \
    bash "$COMPI" bench apps --apps stencil3d --mpi openmpi --rates 1gbit --modes off,fixed,adaptive \
    --fixed-codec lz4 --reps 3 --confirm 3 --scale 0.1 --no-calibrate --timeout 300 --logs "$TMP/logs" \
    >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
fail=0
pass() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }
expect() {  # DESCRIPTION GREP-PATTERN [FILE]
    if grep -qE -- "$2" "${3:-$TMP/out}"; then pass "$1"; else bad "$1 (no line matching: $2)"; fi
}
expect_not() {  # DESCRIPTION GREP-PATTERN
    if grep -qE -- "$2" "$TMP/out"; then bad "$1 (a line matches: $2)"; else pass "$1"; fi
}
# column N of results.tsv / confirm.tsv (app mpi rate mode rep status time checksum codecs log why), space-joined
col() { awk -F'\t' -v c="$2" '{ printf "%s%s", (NR > 1 ? " " : ""), $c }' "$TMP/logs/$1"; }

[[ $rc == 0 ]] && pass "bench apps exits 0: every run OK, no checksum differs" || bad "bench apps exited $rc"
# the runs happen, in interleaved rounds: round r starts with the r-th mode
order=$(awk -F'\t' '{ printf "%s%s.%s", (NR > 1 ? " " : ""), $4, $5 }' "$TMP/logs/results.tsv")
want="off.1 fixed.1 adaptive.1 fixed.2 adaptive.2 off.2 adaptive.3 off.3 fixed.3"
[[ $order == "$want" ]] && pass "9 runs in interleaved rounds: $order" || bad "first rounds ran '$order', expected '$want'"
[[ $(col results.tsv 6) == "OK OK OK OK OK OK OK OK OK" ]] && pass "every first-round run OK" ||
    bad "first-round statuses: $(col results.tsv 6)"
[[ $(col results.tsv 7) == "1 3 2 3 2 1 2 1 3" ]] && pass "the hook's times were recorded" ||
    bad "recorded times '$(col results.tsv 7)', expected the hook's '1 3 2 3 2 1 2 1 3'"
n=$(grep -cE '^  stencil3d .* OK [0-9.]+ s \(test hook; measured [0-9.eE+-]+ s\)' "$TMP/out" || true)
[[ $n == 15 ]] && pass "15 progress lines show the injected and the measured time" ||
    bad "$n progress lines with '(test hook; measured ... s)', expected 15"
# checksums: one value over all 15 runs (raw, lz4-compressed and adaptive halos alike)
sums=$(cat "$TMP/logs/results.tsv" "$TMP/logs/confirm.tsv" | awk -F'\t' '{ print $8 }' | sort | uniq -c)
if [[ $(wc -l <<<"$sums") == 1 && $sums =~ ^\ *15\ [0-9a-fA-F]+$ ]]; then
    pass "all 15 runs printed the same checksum ($(awk '{ print $2 }' <<<"$sums"))"
else
    bad "checksums of the 15 runs: $(tr '\n' ' ' <<<"$sums")"
fi
[[ $(awk -F'\t' '$4 == "fixed"' "$TMP/logs/results.tsv" | grep -c $'\tlz4 100%\t' || true) == 3 ]] &&
    pass "the fixed runs sent their halos compressed (report: lz4 100%)" || bad "fixed runs without lz4 in their report"
# the verdicts of the first rounds
expect "adaptive vs off: 0.5 in every round, BELOW" \
    "^COMPARE $CELL what=adaptive_vs_off ratio=0\.500 ci=0\.500:0\.500 threshold=0\.97 verdict=BELOW n=3$"
expect "adaptive vs fixed: 1.5 in every round, above" \
    "^COMPARE $CELL what=adaptive_vs_fixed ratio=1\.500 ci=1\.500:1\.500 threshold=1\.00 verdict=above n=3$"
expect "RESULT lines carry the per-round ratio" \
    "^RESULT $CELL mode=adaptive median_s=2\.000000 speedup=0\.500 ci=0\.500:0\.500 status=OK runs=3/3"
# the second stage: off and adaptive alone, 3 fresh rounds, apart from the first
expect "the BELOW is rerun with its two modes only" \
    '^  stencil3d openmpi 1gbit: a comparison of off adaptive came out BELOW; confirming in 3 fresh rounds$'
order=$(awk -F'\t' '{ printf "%s%s.%s", (NR > 1 ? " " : ""), $4, $5 }' "$TMP/logs/confirm.tsv")
want="adaptive.4 off.4 off.5 adaptive.5 adaptive.6 off.6"
[[ $order == "$want" ]] && pass "confirmation: 6 runs, interleaved, recorded apart: $order" ||
    bad "confirmation ran '$order', expected '$want'"
[[ $(col confirm.tsv 6) == "OK OK OK OK OK OK" ]] && pass "every confirmation run OK" ||
    bad "confirmation statuses: $(col confirm.tsv 6)"
expect "the fresh rounds confirm the BELOW" \
    "^CONFIRM $CELL what=adaptive_vs_off ratio=0\.500 ci=0\.500:0\.500 threshold=0\.97 verdict=BELOW n=3$"
expect_not "nothing else is confirmed" "^CONFIRM .*what=adaptive_vs_fixed"
expect "the final count" \
    '^1 of 2 comparisons below their threshold beyond noise \(1 suspect\(s\) in the first rounds: 1 confirmed, 0 not rerun\): stencil3d openmpi 1gbit adaptive vs off$'

# failed runs are reported: mode fixed with a codec libcompi does not know
rc=0
bash "$COMPI" bench apps --apps stencil3d --mpi openmpi --rates 1gbit --modes off,fixed \
    --fixed-codec stencil3d=nosuchcodec --reps 1 --confirm 0 --scale 0.1 --no-calibrate --timeout 300 \
    --logs "$TMP/logs2" >"$TMP/out2" 2>&1 || rc=$?
sed 's/^/  | /' "$TMP/out2"
[[ $rc == 1 ]] && pass "a failed run makes bench apps exit 1" || bad "bench apps with a failing run exited $rc, expected 1"
expect "the failed run is named, with its log" \
    '^FAIL stencil3d openmpi 1gbit fixed rep 1: exit [0-9]+.* \(log [^ ]+/stencil3d\.openmpi\.1gbit\.fixed\.1\.log\)$' "$TMP/out2"
expect "its RESULT line says FAIL" "^RESULT $CELL mode=fixed median_s=NA .*status=FAIL runs=0/1" "$TMP/out2"
expect "off's run still counts" "^RESULT $CELL mode=off median_s=[0-9.]+ .*status=OK runs=1/1" "$TMP/out2"
expect "the failed run's log has libcompi's reason" "COMPI_CODEC='nosuchcodec' is not a known codec" \
    "$TMP/logs2/stencil3d.openmpi.1gbit.fixed.1.log"

# MPICH ranks yield in bench apps and the demo (strace is the oracle, see the top)
if command -v strace >/dev/null; then
    mkdir -p "$TMP/yield"
    # wrapper for each rank: strace counts its main thread's sched_yield calls into $TMP/yield/TAG.RANK.PID
    mkwrap() {  # TAG
        # shellcheck disable=SC2016  # $PMI_RANK, $$ and $@ are the wrapper's, expanded when a rank runs it
        printf '#!/bin/bash\nexec %q -qq -c -e trace=sched_yield -o %q."${PMI_RANK:-x}.$$" "$@"\n' \
            "$(command -v strace)" "$TMP/yield/$1" >"$TMP/wrap.$1.sh"
        chmod +x "$TMP/wrap.$1.sh"
    }
    # sched_yield calls of the ranks' main threads (TAG's files), and how many rank processes were traced
    yields() { cat "$TMP"/yield/"$1".* 2>/dev/null | awk '$NF == "sched_yield" { n += $4 } END { print n + 0 }'; }
    traced() { find "$TMP/yield" -name "$1.*" | wc -l; }
    mkwrap apps
    mkwrap demo
    rc=0
    COMPI_BENCH_TEST_WRAP=$TMP/wrap.apps.sh bash "$COMPI" bench apps --apps stencil3d --mpi mpich --rates 1gbit \
        --modes off --reps 1 --confirm 0 --scale 0.05 --no-calibrate --timeout 300 --logs "$TMP/logs3" \
        >"$TMP/out3" 2>&1 || rc=$?
    n=$(yields apps) k=$(traced apps)
    if (( rc == 0 && k == 4 && n > 0 )); then pass "bench apps, MPICH: 4 ranks traced, $n sched_yield calls"
    else bad "bench apps, MPICH: exit $rc, $k rank(s) traced, $n sched_yield calls"; sed 's/^/  | /' "$TMP/out3"; fi
    rc=0
    COMPI_BENCH_TEST_WRAP=$TMP/wrap.demo.sh COMPI_BENCH_DEMO_NAME=cbtestd COMPI_BENCH_DEMO_SUBNET=${COMPI_TEST_SUBNET_DEMO:-10.213.78} \
        bash "$COMPI" demo --mpi mpich --no-fixed --runs 1 --n 16 --nz 4 --iters 20 --rate 1gbit >"$TMP/out4" 2>&1 || rc=$?
    n=$(yields demo) k=$(traced demo)
    if (( rc == 0 && k == 8 && n > 0 )) && grep -q '^all 2 runs gave bitwise-identical results' "$TMP/out4"; then
        pass "demo, MPICH: plain and adaptive runs identical, 8 rank runs traced, $n sched_yield calls"
    else bad "demo, MPICH: exit $rc, $k rank run(s) traced, $n sched_yield calls"; sed 's/^/  | /' "$TMP/out4"; fi
else
    echo "SKIP: MPICH yield in bench apps and the demo (no strace)"
fi
exit $fail
