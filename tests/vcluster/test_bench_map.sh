#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Links that differ per node pair, and `compi bench map`'s plumbing (tiny
# sizes; no timing is asserted):
#  1. vcluster up --links: <state>/links lists each pair's rate, the node's
#     egress has an htb class per destination with a different rate, and
#     traffic to that destination is counted in that class only (tc's own
#     counters are the oracle: 2 MB sent from node 0 to node 2 land in
#     class 1:102, not in the default class);
#  2. compi bench map on 3 nodes x 2 slots with one slow pair, both MPIs:
#     the network calibrated per pair (every pair a link line), a trace, compi
#     map, block/cyclic/mapped each run and verified (one checksum), the
#     table's RESULT/VERDICT/RANKING lines, and the mapped placement's
#     predicted cost not above block's or cyclic's (compi map's swap starts
#     from both); a bad --idle value is refused before anything runs;
#  3. (in 1.) MPICH ranks call sched_yield only with VCLUSTER_MPICH_YIELD=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
vct_begin "m2bmt" /tmp/compi-benchmap-test.XXXXXX
SUBNET=10.214.24
"$COMPI" vcluster up --name "$NAME" --subnet "$SUBNET" --nodes 3 --rate 1gbit --slots 2 --links 0-2:50mbit \
  >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; fail "vcluster up --links"; finish; }
STATE=/run/compi-vcluster-$NAME
check "links file: 0-2 at 50mbit both ways, others at the default" \
  bash -c "grep -qx '${NAME}0 ${NAME}2 50mbit' $STATE/links && grep -qx '${NAME}2 ${NAME}0 50mbit' $STATE/links &&
           grep -qx '${NAME}0 ${NAME}1 1gbit' $STATE/links && [[ \$(wc -l <$STATE/links) == 6 ]]"
check "node 0: htb class 1:102 at 50Mbit, u32 filter on node 2's address" \
  bash -c "ip netns exec ${NAME}0 tc class show dev ceth0 | grep -q 'htb 1:102 .*rate 50Mbit' &&
           ip netns exec ${NAME}0 tc filter show dev ceth0 | grep -q 'flowid 1:102'"
check "node 1 (no special pair): default class only" \
  bash -c "! ip netns exec ${NAME}1 tc class show dev ceth0 | grep -q 'htb 1:1[0-9][0-9] '"
bytes_of() {  # NODE CLASS -> bytes sent through that class
  ip netns exec "$1" tc -s class show dev ceth0 | awk -v c="$2" '$2 == "htb" && $3 == c { f = 1; next } f && /Sent/ { print $2; exit }'
}
b102=$(bytes_of "${NAME}0" 1:102) b1=$(bytes_of "${NAME}0" 1:1)
ip netns exec "${NAME}2" python3 -c '
import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5599)); s.listen(1); c, _ = s.accept(); n = 0
while True:
    d = c.recv(65536)
    if not d: break
    n += len(d)
print(n)' >"$TMP/recv.out" &
lpid=$!
sleep 0.5
ip netns exec "${NAME}0" python3 -c '
import socket; s = socket.create_connection(("'"$SUBNET"'.12", 5599)); s.sendall(b"x" * 2000000); s.close()' || true
wait "$lpid" || true
a102=$(bytes_of "${NAME}0" 1:102) a1=$(bytes_of "${NAME}0" 1:1)
if [[ $(cat "$TMP/recv.out") == 2000000 ]] && (( a102 - b102 >= 2000000 && a1 - b1 < 200000 )); then
  pass "2 MB node 0 -> node 2 went through class 1:102 ($((a102 - b102)) B there, $((a1 - b1)) B in the default class)"
else
  fail "per-destination class: received $(cat "$TMP/recv.out"), 1:102 +$((a102 - b102)) B, 1:1 +$((a1 - b1)) B"
fi
# MPICH's yield on the emulated cluster (bench map --idle yield): the UCX
# shim calls sched_yield after an empty poll only with VCLUSTER_MPICH_YIELD=1
# (strace's count on the rank's main thread, where MPICH polls, is the
# oracle: MPICH itself never calls it; UCX's own threads do, hence no -f)
probe=$ROOT/build/mpich/bin/compi_pairprobe
if command -v strace >/dev/null && [[ -x $probe ]]; then
  for y in 1 0; do
    f=(-envnone)
    (( y )) && f+=(-genv VCLUSTER_MPICH_YIELD 1)
    "$COMPI" vcluster run --name "$NAME" --mpi mpich --map rr -- -np 2 "${f[@]}" bash -c \
      'exec strace -qq -c -e trace=sched_yield -o "$0.$PMI_RANK" "$@"' "$TMP/yield.$y" \
      "$probe" --sizes 1024 --batches 1 --target-ms 1 >"$TMP/yield.$y.out" 2>&1 || true
    calls=$(cat "$TMP"/yield.$y.[01] 2>/dev/null | awk '$NF == "sched_yield" { n += $4 } END { print n + 0 }')
    if ! grep -q 'PROBE_DONE check=OK' "$TMP/yield.$y.out"; then fail "MPICH probe with VCLUSTER_MPICH_YIELD=$y did not run"
    elif (( y == 1 && calls > 0 )) || (( y == 0 && calls == 0 )); then pass "MPICH VCLUSTER_MPICH_YIELD=$y: $calls sched_yield calls"
    else fail "MPICH VCLUSTER_MPICH_YIELD=$y: $calls sched_yield calls"; fi
  done
else
  echo "SKIP: MPICH yield check (no strace or no $probe)"
fi
"$COMPI" vcluster down --name "$NAME" >/dev/null 2>&1

# 2. compi bench map, tiny
out=$TMP/bench.out
if "$COMPI" bench map --idle spin --apps pairs >"$TMP/idle.out" 2>&1; then
  fail "bench map --idle spin was accepted"
else
  check "bench map --idle spin: error names the option and the value" grep -q "idle: yield or poll, not 'spin'" "$TMP/idle.out"
fi
if COMPI_BENCH_MAP_NAME=$NAME COMPI_BENCH_MAP_SUBNET=$SUBNET "$COMPI" bench map --mpi both --apps pairs --nodes 3 --ppn 2 \
     --rate 1gbit --links 0-2:50mbit --reps 1 --scale 0.02 --calibrate-bytes 65536 --modes plain,adaptive \
     --logs "$TMP/logs" >"$out" 2>&1; then
  pass "compi bench map (pairs, 3 nodes x 2, one slow pair, both MPIs, plain and adaptive) ran and verified"
else
  fail "compi bench map"; tail -20 "$out"
fi
for mpi in openmpi mpich; do
  nl=$(grep -c '^link inter '"$NAME"'[0-9] '"$NAME"'[0-9]$' "$TMP/logs/network.$mpi.txt" 2>/dev/null || true)
  [[ $nl == 3 ]] && pass "$mpi: calibrated network has a link per node pair (3)" || fail "$mpi: $nl inter link lines"
  n=0
  for mode in plain adaptive; do
    for pl in block cyclic mapped; do
      grep -q "^RESULT bench=map app=pairs mpi=$mpi mode=$mode placement=$pl predicted_us=[0-9]" "$out" && n=$((n + 1))
    done
  done
  [[ $n == 6 ]] && pass "$mpi: RESULT line with a predicted cost for block, cyclic, mapped, per mode" ||
    fail "$mpi: $n RESULT lines"
  # the adaptive placement comes from a trace-mode run of its own
  check "$mpi: adaptive mode traced with COMPI_MODE=trace and mapped on its own" \
    grep -q "^  pairs $mpi adaptive: traced (trace), mapped: compi map: kept" "$out"
  check "$mpi: VERDICT and RANKING lines" \
    bash -c "grep -q '^VERDICT app=pairs mpi=$mpi mode=plain .*verdict=' '$out' && grep -q '^RANKING app=pairs mpi=$mpi mode=plain predicted=.* match=' '$out'"
  check "$mpi: mapped's predicted cost <= block's and cyclic's" \
    awk -v m="$mpi" -F'\t' '$1 == "pairs" && $2 == m && $3 == "plain" { c[$4] = $5 } END { exit !(("mapped" in c) && c["mapped"] <= c["block"] && c["mapped"] <= c["cyclic"]) }' \
    "$TMP/logs/predicted.tsv"
done
finish
