#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi's communication profile + compi map's graph vs the MPI's own count of
# what went over the wire, end to end.
#
# For each communicator size: comm_app (point-to-point of every kind,
# collectives on WORLD, a split and a dup communicator) runs
#   1. plain, under the oracle: Open MPI's pml monitoring (E + I lines: the
#      application's sends and those inside collectives), or for MPICH
#      ucx_count_shim with MPIR_CVAR_NOLOCAL=1 and the algorithm pins compi
#      sets in a traced run (given explicitly here);
#   2. plain with --comms-only, under the oracle (the traffic of creating the
#      communicators, which no trace holds, is subtracted);
#   3. with libcompi, COMPI_MODE=profile; compi map --graph-out writes the
#      graph (point-to-point as traced + collectives decomposed by the DKB);
# and dkb_check compares messages and bytes for every rank pair. Open MPI
# also once with pinned coll/tuned algorithms (the trace records them).
# Persistent sends (which the monitoring does not count) are checked as the
# difference between traces with and without --persistent. Then compi map's
# errors: traces of two runs in one directory, a missing rank, a corrupt
# file, too few slots.
#
#   map_graph_validate.sh --mpi openmpi|mpich --lib LIBCOMPI --app COMM_APP --map COMPI_MAP
#                         --check DKB_CHECK [--shim UCX_SHIM] [--sizes "2 3 5 8 16"]
set -euo pipefail
die() { echo "map_graph_validate: $*" >&2; exit 2; }
mpi="" lib="" app="" map="" check="" shim="" sizes="2 3 5 8 16"
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) mpi=${2:?}; shift 2 ;;
    --lib) lib=${2:?}; shift 2 ;;
    --app) app=${2:?}; shift 2 ;;
    --map) map=${2:?}; shift 2 ;;
    --check) check=${2:?}; shift 2 ;;
    --shim) shim=${2:?}; shift 2 ;;
    --sizes) sizes=${2:?}; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
for f in "$lib" "$app" "$map" "$check"; do [ -e "$f" ] || die "missing file '$f'"; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/compi-mapval.XXXXXX)
trap 'rm -rf "$work"' EXIT
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok   $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $*"; }

# MPICH: what compi pins in a traced run (lib/core/profile.c)
PINS=(MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial
      MPIR_CVAR_REDUCE_INTRA_ALGORITHM=binomial MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling
      MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=ring
      MPIR_CVAR_GATHER_INTRA_ALGORITHM=binomial MPIR_CVAR_SCATTER_INTRA_ALGORITHM=binomial
      MPIR_CVAR_BARRIER_INTRA_ALGORITHM=dissemination MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM=scattered
      MPIR_CVAR_GATHERV_INTRA_ALGORITHM=linear MPIR_CVAR_SCATTERV_INTRA_ALGORITHM=linear)

# oracle N PREFIX MCA... -- APPARGS...
oracle() {
  local n=$1 pre=$2; shift 2
  local extra=()
  while [ "$1" != -- ]; do extra+=("$1"); shift; done
  shift
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi --oversubscribe --bind-to none -np "$n" --mca pml_monitoring_enable 2 \
      --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$pre" "${extra[@]}" "$app" "$@"
  else
    local env=() p
    for p in "${PINS[@]}"; do env+=(-genv "${p%%=*}" "${p#*=}"); done
    mpiexec.mpich -np "$n" -genv MPIR_CVAR_NOLOCAL 1 -genv LD_PRELOAD "$shim" -genv COMPI_SHIM_PROF "$pre" \
      "${env[@]}" "$app" "$@"
  fi
}

# traced N DIR MCA... -- APPARGS...
traced() {
  local n=$1 dir=$2; shift 2
  local extra=()
  while [ "$1" != -- ]; do extra+=("$1"); shift; done
  shift
  rm -rf "$dir"
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi --oversubscribe --bind-to none -np "$n" -x LD_PRELOAD="$lib" -x COMPI_MODE=profile \
      -x COMPI_TRACE="$dir" "${extra[@]}" "$app" "$@"
  else
    mpiexec.mpich -np "$n" -genv MPIR_CVAR_NOLOCAL 1 -genv LD_PRELOAD "$lib" -genv COMPI_MODE profile \
      -genv COMPI_TRACE "$dir" "$app" "$@"
  fi
}

appargs=()
[ "$mpi" = mpich ] && appargs=(--core)
for n in $sizes; do
  variants=("fixed")
  [ "$mpi" = openmpi ] && [ "$n" -ge 3 ] && variants+=("pinned")
  for v in "${variants[@]}"; do
    mca=()
    [ "$v" = pinned ] && mca=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 6
                              --mca coll_tuned_allreduce_algorithm 4 --mca coll_tuned_alltoall_algorithm 3
                              --mca coll_tuned_reduce_algorithm 2 --mca coll_tuned_reduce_algorithm_segmentsize 4096
                              --mca coll_tuned_allgather_algorithm 2 --mca coll_tuned_barrier_algorithm 6)
    rm -f "$work"/m.* "$work"/b.*
    if ! oracle "$n" "$work/m" "${mca[@]}" -- "${appargs[@]}" >"$work/out" 2>&1 ||
       ! oracle "$n" "$work/b" "${mca[@]}" -- "${appargs[@]}" --comms-only >>"$work/out" 2>&1 ||
       ! traced "$n" "$work/tr" "${mca[@]}" -- "${appargs[@]}" >>"$work/out" 2>&1 ||
       ! "$map" "$work/tr" --graph-out "$work/g.txt" >>"$work/out" 2>&1; then
      fail "np $n $v: a run failed"; sed 's/^/  /' "$work/out" | tail -8; continue
    fi
    if "$check" --prof "$work/m" --base "$work/b" --size "$n" --graph "$work/g.txt" >"$work/res" 2>&1; then
      pass "np $n $v: graph = oracle for every rank pair ($(tail -1 "$work/res" | sed 's/.*: //'))"
    else
      fail "np $n $v: graph differs from the oracle"; sed 's/^/  /' "$work/res" | tail -12
    fi
  done
done

# persistent sends: the difference of two traces is exactly 5 x 40000 B per pair (2k, 2k+1) and direction
n=4
if traced "$n" "$work/p1" -- "${appargs[@]}" --persistent >"$work/out" 2>&1 &&
   traced "$n" "$work/p0" -- "${appargs[@]}" >>"$work/out" 2>&1 &&
   "$map" "$work/p1" --graph-out "$work/g1.txt" >>"$work/out" 2>&1 &&
   "$map" "$work/p0" --graph-out "$work/g0.txt" >>"$work/out" 2>&1; then
  diff=$(join <(awk '!/^#/{print $1"-"$2, $3, $4}' "$work/g1.txt" | sort) \
              <(awk '!/^#/{print $1"-"$2, $3, $4}' "$work/g0.txt" | sort) -a1 -e0 -o 0,1.2,1.3,2.2,2.3 |
         awk '{dm=$2-$4; db=$3-$5; if (dm || db) print $1, dm, db}' | sort | tr '\n' ';')
  want="0-1 5 200000;1-0 5 200000;2-3 5 200000;3-2 5 200000;"
  [ "$diff" = "$want" ] && pass "persistent sends: +5 messages, +200000 B on exactly the pairs (2k, 2k+1)" ||
    fail "persistent sends: trace difference '$diff', expected '$want'"
else
  fail "persistent: a run failed"; tail -5 "$work/out"
fi

# neighbourhood collectives: their explicit graph, whatever path the call
# took (--neighbor adds, per rank, a Neighbor_alltoall of 24000 B and an
# Ineighbor_allgather of 2000 B per ring neighbour)
n=4
if traced "$n" "$work/n1" -- "${appargs[@]}" --neighbor >"$work/out" 2>&1 &&
   traced "$n" "$work/n0" -- "${appargs[@]}" >>"$work/out" 2>&1 &&
   "$map" "$work/n1" --graph-out "$work/g1.txt" >>"$work/out" 2>&1 &&
   "$map" "$work/n0" --graph-out "$work/g0.txt" >>"$work/out" 2>&1; then
  diff=$(join <(awk '!/^#/{print $1"-"$2, $3, $4}' "$work/g1.txt" | sort) \
              <(awk '!/^#/{print $1"-"$2, $3, $4}' "$work/g0.txt" | sort) -a1 -e0 -o 0,1.2,1.3,2.2,2.3 |
         awk '{dm=$2-$4; db=$3-$5; if (dm || db) print $1, dm, db}' | sort | tr '\n' ';')
  want="0-1 2 26000;0-3 2 26000;1-0 2 26000;1-2 2 26000;2-1 2 26000;2-3 2 26000;3-0 2 26000;3-2 2 26000;"
  [ "$diff" = "$want" ] && pass "neighbourhood collectives: +2 messages, +26000 B on exactly the ring's edges" ||
    fail "neighbourhood collectives: trace difference '$diff', expected '$want'"
else
  fail "neighbor: a run failed"; tail -5 "$work/out"
fi

# nonblocking collectives: decomposed like their blocking twins (--nbc and
# --nbc-blocking give one graph, which differs from the run without either)
if traced "$n" "$work/b1" -- "${appargs[@]}" --nbc >"$work/out" 2>&1 &&
   traced "$n" "$work/b2" -- "${appargs[@]}" --nbc-blocking >>"$work/out" 2>&1 &&
   "$map" "$work/b1" --graph-out "$work/g1.txt" >>"$work/out" 2>&1 &&
   "$map" "$work/b2" --graph-out "$work/g2.txt" >>"$work/out" 2>&1; then
  if ! cmp -s <(grep -v '^#' "$work/g1.txt") <(grep -v '^#' "$work/g2.txt"); then
    fail "nonblocking collectives: graph differs from their blocking twins'"
  elif cmp -s <(grep -v '^#' "$work/g1.txt") <(grep -v '^#' "$work/g0.txt"); then
    fail "nonblocking collectives: not in the graph at all"
  else
    pass "nonblocking collectives: the graph of their blocking twins"
  fi
else
  fail "nbc: a run failed"; tail -5 "$work/out"
fi

# errors that name the problem
expect_err() {   # WHAT EXIT_CODE WORDS... -- ARGS...
  local what=$1 code=$2; shift 2
  local words=()
  while [ "$1" != -- ]; do words+=("$1"); shift; done
  shift
  local rc=0
  "$map" "$@" >"$work/eout" 2>&1 || rc=$?
  local w ok=1
  for w in "${words[@]}"; do grep -qF -- "$w" "$work/eout" || ok=0; done
  if [ "$rc" = "$code" ] && [ $ok = 1 ]; then pass "error: $what: $(grep 'compi map:' "$work/eout" | tail -1)"
  else fail "error: $what: exit $rc (want $code), output: $(cat "$work/eout")"; fi
}
traced 3 "$work/t3" -- "${appargs[@]}" >"$work/out" 2>&1 || fail "np 3 trace run failed"
mkdir -p "$work/mixed"
cp "$work/p0"/trace.*.bin "$work/mixed/"
cp "$work/t3/trace.0.bin" "$work/mixed/trace.0.bin"
expect_err "traces of 3 and 4 ranks mixed" 1 "trace.3.bin exists" "3 ranks" -- "$work/mixed" --graph-out "$work/x"
rm -f "$work/p0/trace.2.bin"
expect_err "a rank's trace missing" 1 "trace.2.bin: missing" "4 ranks" -- "$work/p0" --graph-out "$work/x"
cp "$work/p1/trace.1.bin" "$work/t3bad.bin"
mkdir -p "$work/corrupt" && cp "$work/p1"/trace.*.bin "$work/corrupt/"
sz=$(stat -c %s "$work/corrupt/trace.1.bin")
printf '\x55' | dd of="$work/corrupt/trace.1.bin" bs=1 seek=$((sz - 200)) conv=notrunc status=none
expect_err "a corrupt trace" 1 "trace.1.bin" "corrupt" -- "$work/corrupt" --graph-out "$work/x"
head -c 1000 "$work/p1/trace.3.bin" >"$work/corrupt/trace.3.bin"
cp "$work/p1/trace.1.bin" "$work/corrupt/trace.1.bin"
expect_err "a truncated trace" 1 "trace.3.bin" "truncated" -- "$work/corrupt" --graph-out "$work/x"
expect_err "too few slots" 2 "3 slots" "4 ranks" -- "$work/p1" --hosts a:2,b:1 -o "$work/pl"
expect_err "a host listed twice" 2 "listed twice" -- "$work/p1" --hosts a:2,a:2 -o "$work/pl"
expect_err "--min-gain out of range" 2 "--min-gain" "not a fraction" -- "$work/p1" --hosts a:2,b:2 --min-gain 1.5 -o "$work/pl"
expect_err "not a trace directory" 1 "no trace of rank 0" -- "$work/nowhere" --graph-out "$work/x"

echo "map_graph_validate ($mpi): $npass passed, $nfail failed"
[ "$nfail" = 0 ]
