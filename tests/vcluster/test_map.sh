#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi map end to end on the emulated cluster (3 nodes x 2 slots), both MPIs:
# a run traced with COMPI_MODE=profile, `compi map` to a placement, and
# `compi vcluster run --placement` launching with it: every rank reports the
# host it runs on (MPI_Get_processor_name), which must be the placement's,
# for compi map's placement and for a hand-made one that is neither block
# nor cyclic. `compi run --placement --dry-run` adds the rankfile (Open MPI)
# or machinefile and the traced run's algorithm pins (MPICH).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
vct_begin "cmapt" /tmp/compi-maptest.XXXXXX
SUBNET=10.214.14
vct_up "$SUBNET" 3 1gbit 2
N0=${NAME}0 N1=${NAME}1 N2=${NAME}2
HOSTS="$N0:2,$N1:2,$N2:2"

# where_ok PLACEMENT_DIR OUTPUT: every rank on its placement's host
where_ok() {
  local want got
  want=$(awk '$1 == "rank" {print $2, $3}' "$1/placement.txt" | sort -n)
  got=$(sed -n 's/^WHERE rank=\([0-9]*\) host=\(.*\)$/\1 \2/p' "$2" | sort -n)
  [[ -n $want && "$want" == "$got" ]] || { echo "  placement: $(echo $want)"; echo "  observed:  $(echo $got)"; return 1; }
}

for mpi in openmpi mpich; do
  app=$ROOT/build/$mpi/tests/map/comm_app
  [[ -x $app ]] || { fail "$mpi: $app not built"; continue; }
  np=(-np 6); [[ $mpi == mpich ]] && np=(-n 6)
  rm -rf "$TMP/tr-$mpi"
  COMPI_MODE=profile COMPI_TRACE=$TMP/tr-$mpi "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --compi -- \
    "${np[@]}" "$app" >"$TMP/trace.log" 2>&1
  result $? "$mpi: traced run (COMPI_MODE=profile) on 3 nodes"
  if "$COMPI" map --mpi "$mpi" "$TMP/tr-$mpi" --hosts "$HOSTS" -o "$TMP/pl-$mpi" >"$TMP/map.log" 2>&1; then
    pass "$mpi: compi map: $(grep 'kept' "$TMP/map.log")"
  else
    fail "$mpi: compi map"; cat "$TMP/map.log"; continue
  fi
  if [[ $mpi == mpich ]]; then
    check "mpich: the placement carries the traced run's algorithm pins" \
      grep -q '^MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling$' "$TMP/pl-$mpi/env"
  fi
  # a hand-made placement, neither block nor cyclic: 0,5 | 1,3 | 2,4 on nodes 2 | 0 | 1
  hand=$TMP/hand-$mpi
  mkdir -p "$hand"
  hosts=("$N2" "$N0" "$N1" "$N0" "$N1" "$N2")
  { echo "compi-placement 1"; echo "program comm_app"; echo "ranks 6"; echo "hosts $HOSTS"; echo "mapper hand"
    for r in 0 1 2 3 4 5; do echo "rank $r ${hosts[$r]}"; done; echo end; } >"$hand/placement.txt"
  printf '%s\n' "${hosts[@]}" >"$hand/machinefile"
  : >"$hand/rankfile"; : >"$hand/env"
  for pl in "$TMP/pl-$mpi" "$hand"; do
    if "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --placement "$pl" -- "${np[@]}" "$app" --where \
         >"$TMP/where.log" 2>&1 && where_ok "$pl" "$TMP/where.log"; then
      pass "$mpi: vcluster run --placement $(basename "$pl"): every rank on its placement's host"
    else
      fail "$mpi: vcluster run --placement $(basename "$pl")"; tail -5 "$TMP/where.log"
    fi
  done
  launcher=mpirun.openmpi; want="--rankfile $TMP/pl-$mpi/rankfile"
  [[ $mpi == mpich ]] && launcher=mpiexec.mpich want="-f $TMP/pl-$mpi/machinefile"
  out=$("$COMPI" run --dry-run --placement "$TMP/pl-$mpi" -- "$launcher" "${np[@]}" "$app" 2>&1) || true
  if [[ $out == *"$want"* ]] && { [[ $mpi == openmpi ]] || [[ $out == *"MPIR_CVAR_DEVICE_COLLECTIVES none"* ]]; }; then
    pass "$mpi: compi run --placement adds '$want'$([[ $mpi == mpich ]] && echo ' and the pins')"
  else
    fail "$mpi: compi run --placement --dry-run: $out"
  fi
done
# a launch with another rank count than the placement's
for l in "mpirun.openmpi -np 5" "mpiexec.mpich -n 7"; do
  out=$("$COMPI" run --dry-run --placement "$TMP/pl-openmpi" -- $l /bin/true 2>&1) && rc=0 || rc=$?
  [[ $rc != 0 && $out == *"places 6 ranks"*"asks for ${l##* }"* ]] && pass "compi run --placement refuses '$l' for a 6-rank placement" ||
    fail "rank count mismatch ($l): rc $rc: $out"
done
out=$("$COMPI" vcluster run --name "$NAME" --mpi openmpi --placement "$TMP/pl-openmpi" -- -np 4 /bin/true 2>&1) && rc=0 || rc=$?
[[ $rc != 0 && $out == *"places 6 ranks"*"asks for 4"* ]] && pass "vcluster run --placement refuses -np 4 for a 6-rank placement" ||
  fail "vcluster rank count mismatch: rc $rc: $out"
# a placement whose hosts are not the cluster's
sed -i "s/^$N2\$/nosuchnode/" "$TMP/hand-openmpi/machinefile"
out=$("$COMPI" vcluster run --name "$NAME" --mpi openmpi --placement "$TMP/hand-openmpi" -- -np 6 /bin/true 2>&1) || true
[[ $out == *"host 'nosuchnode'"*"is not a node of this cluster"* ]] && pass "a placement naming a foreign host is refused" ||
  fail "foreign host: $out"
finish
