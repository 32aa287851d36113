#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Self-test of `compi vcluster`: brings up 2 emulated nodes at 100mbit, runs
# hostcheck.c under Open MPI and MPICH (4 ranks, 2 per node) and checks
# hostnames, MPI_COMM_TYPE_SHARED node sizes, the links' shaping, rank
# placement, environment propagation, then tears down and checks nothing is
# left.  Needs root.  Last line: "N passed, N failed".
#
# No check depends on the machine's speed or load: the shaping is checked in
# tc's configuration (tbf at RATE on both ends of every link), and of the
# measured bandwidths only the upper bound of the inter-node one, which load
# cannot break (it only slows a transfer down; the bound fails only when the
# link does not shape). The intra-node bandwidth and the inter-node one's
# distance below the link rate are timings: printed, not checked.
#
# Uses its own cluster name/subnet (ctest, 10.213.77) so it never touches a
# cluster someone else has up on this machine.
#   VCT_RATE=1gbit VCT_MAX_MBPS=140  test another rate
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
NAME=${VCT_NAME:-ctest}
SUBNET=${VCT_SUBNET:-10.213.77}
RATE=${VCT_RATE:-100mbit}
MAX_MBPS=${VCT_MAX_MBPS:-20}     # inter-node MB/s may not exceed this: 100mbit = 12.5 MB/s on the wire
RUN_TIMEOUT=${VCT_TIMEOUT:-180}
export COMPI_VCLUSTER_NAME=$NAME  # so every compi vcluster call below targets ours

vct_begin "$NAME" /tmp/compi-vct.XXXXXX

if [[ $(id -u) -ne 0 ]]; then
    fail "must run as root (network namespaces)"
    finish
fi

# ---------------------------------------------------------------- build ----
build_ok=1
mpicc.openmpi -O2 -o "$TMP/hc_openmpi" "$ROOT/tests/vcluster/hostcheck.c" || build_ok=0
mpicc.mpich -O2 -o "$TMP/hc_mpich" "$ROOT/tests/vcluster/hostcheck.c" || build_ok=0
check "hostcheck.c builds with mpicc.openmpi and mpicc.mpich" test $build_ok -eq 1
# a do-nothing library to check that --preload reaches the ranks
echo 'int compi_vct_dummy;' >"$TMP/dummy.c"
cc -shared -fPIC -o "$TMP/dummy.so" "$TMP/dummy.c"

# ------------------------------------------------------------------- up ----
t0=$(date +%s.%N)
if "$COMPI" vcluster up --name "$NAME" --subnet "$SUBNET" --nodes 2 --rate "$RATE" --slots 2 >"$TMP/up1.log" 2>&1; then
    pass "vcluster up ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s)"
else
    fail "vcluster up"; cat "$TMP/up1.log"; finish
fi
# idempotent: a second up must succeed and leave a working cluster
check "vcluster up again (idempotent)" \
    "$COMPI" vcluster up --name "$NAME" --subnet "$SUBNET" --nodes 2 --rate "$RATE" --slots 2
"$COMPI" vcluster status --name "$NAME" >"$TMP/status.log" 2>&1 || true
check "status lists both nodes with their hostnames" \
    bash -c "grep -Eq '^${NAME}0 +$SUBNET.10 +${NAME}0 ' '$TMP/status.log' && grep -Eq '^${NAME}1 +$SUBNET.11 +${NAME}1 ' '$TMP/status.log'"
check "node names resolve inside the nodes" \
    bash -c "[[ \$('$COMPI' vcluster exec ${NAME}0 -- getent hosts ${NAME}1) == '$SUBNET.11 '* ]]"
# tbf's rate in bytes/s, as tc reports it (JSON): tbf_rate NETNS|"" DEV
tbf_rate() {
    local -a in_ns=()
    [[ -n $1 ]] && in_ns=(ip netns exec "$1")
    "${in_ns[@]}" tc -j qdisc show dev "$2" | sed -n 's/.*"kind":"tbf"[^}]*"rate":\([0-9]*\).*/\1/p'  || true
}
want_Bps=$(awk -v r="${RATE,,}" 'BEGIN {
    m = r ~ /gbit$/ ? 1e9 : r ~ /mbit$/ ? 1e6 : r ~ /kbit$/ ? 1e3 : 0; sub(/[a-z]+$/, "", r)
    if (m) printf "%.0f\n", r * m / 8 }')
for n in 0 1; do
    got="$(tbf_rate "${NAME}$n" ceth0) $(tbf_rate "" "${NAME}${n}h")"
    check "link of ${NAME}$n shaped by tbf at $RATE on both veth ends (tc: $got bytes/s)" \
        test -n "$want_Bps" -a "$got" = "$want_Bps $want_Bps"
done

# ------------------------------------------------------------- hostcheck ----
# field VALUE of HOST line for rank R: host_field FILE R field
host_field() { sed -n "s/^HOST rank=$2 .*$3=\([^ ]*\).*/\1/p" "$1"; }
bw() { sed -n "s/^BW kind=$2 .*mbps=\([0-9.]*\).*/\1/p" "$1"; }
at_most() { awk -v x="$1" -v hi="$2" 'BEGIN { exit !(x != "" && x + 0 > 0 && x <= hi) }'; }

declare -A RESULT_INTER RESULT_INTRA
for mpi in openmpi mpich; do
    out=$TMP/hc_$mpi.out
    np_flag=-np; [[ $mpi == mpich ]] && np_flag=-n
    rc=0
    timeout --kill-after=10 "$RUN_TIMEOUT" \
        "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" -- $np_flag 4 "$TMP/hc_$mpi" >"$out" 2>&1 || rc=$?
    check "[$mpi] hostcheck job exits 0 (rc=$rc)" test "$rc" -eq 0
    check "[$mpi] 4 ranks reported" test "$(grep -c '^HOST ' "$out")" -eq 4
    h0=$(host_field "$out" 0 host); h1=$(host_field "$out" 1 host)
    h2=$(host_field "$out" 2 host); h3=$(host_field "$out" 3 host)
    check "[$mpi] ranks 0,1 on ${NAME}0 and 2,3 on ${NAME}1 (got $h0 $h1 $h2 $h3)" \
        test "$h0 $h1 $h2 $h3" = "${NAME}0 ${NAME}0 ${NAME}1 ${NAME}1"
    check "[$mpi] hostnames differ between nodes" test -n "$h0" -a "$h0" != "$h2"
    sizes=$(for r in 0 1 2 3; do host_field "$out" $r node_size; done | tr '\n' ' ')
    check "[$mpi] MPI_COMM_TYPE_SHARED gives 2 ranks per node (got $sizes)" test "$sizes" = "2 2 2 2 "
    inter=$(bw "$out" inter); intra=$(bw "$out" intra)
    RESULT_INTER[$mpi]=$inter; RESULT_INTRA[$mpi]=$intra
    check "[$mpi] both pairs measured: inter-node ${inter:-?} MB/s, intra-node ${intra:-?} MB/s (timings, not checked)" \
        test -n "$inter" -a -n "$intra"
    check "[$mpi] inter-node ${inter:-?} MB/s at most $MAX_MBPS at $RATE: the link shapes it" \
        at_most "$inter" "$MAX_MBPS"
    if [[ $rc -ne 0 || -z $inter ]]; then sed 's/^/    | /' "$out" | tail -n 20; fi

    # round-robin placement: ranks alternate between nodes
    rr=$TMP/rr_$mpi.out
    timeout --kill-after=10 "$RUN_TIMEOUT" \
        "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --map rr -- $np_flag 4 "$TMP/hc_$mpi" 1024 1 >"$rr" 2>&1 || true
    got=$(for r in 0 1 2 3; do host_field "$rr" $r host; done | tr '\n' ' ')
    check "[$mpi] --map rr alternates nodes (got $got)" \
        test "$got" = "${NAME}0 ${NAME}1 ${NAME}0 ${NAME}1 "

    # environment: named variables and --preload reach the ranks, others don't
    # (the launch agent starts remote daemons with a clean environment)
    if [[ $mpi == openmpi ]]; then
        env_flags=(-x VCT_PASSED=yes)
    else
        env_flags=(-envnone -genv VCT_PASSED yes)
    fi
    envout=$TMP/env_$mpi.out
    VCT_NOT_PASSED=leak timeout --kill-after=10 60 \
        "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --preload "$TMP/dummy.so" -- \
        $np_flag 2 "${env_flags[@]}" bash -c 'echo "ENV host=$(hostname) passed=${VCT_PASSED:-} notpassed=${VCT_NOT_PASSED:-} preload=${LD_PRELOAD:-}"' \
        >"$envout" 2>&1 || true
    check "[$mpi] user variable reaches the ranks" test "$(grep -c 'passed=yes ' "$envout")" -eq 2
    check "[$mpi] unnamed variable does not reach the ranks" \
        bash -c "! grep -q 'notpassed=leak' '$envout' && grep -q '^ENV ' '$envout'"
    check "[$mpi] --preload sets LD_PRELOAD for the ranks" test "$(grep -c "preload=.*$TMP/dummy.so" "$envout")" -eq 2
done

# ----------------------------------------------------------------- down ----
t0=$(date +%s.%N)
check "vcluster down" "$COMPI" vcluster down --name "$NAME"
echo "down took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s"
check "no ${NAME}N network namespace left" bash -c "! ip netns list | grep -Eq '^${NAME}[0-9]+( |$)'"
check "no bridge ${NAME}br0 left" bash -c "! ip link show ${NAME}br0 >/dev/null 2>&1"
check "no ${NAME} veth left" bash -c "! ip -o link show | grep -Eq ': ${NAME}[0-9]+[hn][@:]'"
check "no state dir or namespace mounts left" \
    bash -c "test ! -e /run/compi-vcluster-$NAME && ! grep -q 'compi-vcluster-$NAME' /proc/self/mountinfo"
check "no per-node hosts files left" bash -c "! ls -d /etc/netns/${NAME}[0-9]* >/dev/null 2>&1"
check "down again is harmless" "$COMPI" vcluster down --name "$NAME"

for mpi in openmpi mpich; do
    echo "RESULT $mpi rate=$RATE inter=${RESULT_INTER[$mpi]:-?} MB/s intra=${RESULT_INTRA[$mpi]:-?} MB/s"
done
finish
