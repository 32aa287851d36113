#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Validates the DKB (lib/map) against Open MPI's pml monitoring component:
# each case is one mpirun of dkb_probe (a list of collective calls) with
#   --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
#   --mca coll_tuned_use_dynamic_rules 1 [--mca coll_tuned_<coll>_algorithm N
#   --mca coll_tuned_<coll>_algorithm_segmentsize S]...
# and dkb_check compares the per-pair message and byte counts the monitoring
# wrote with the DKB's prediction (pinned algorithms, or the fixed decision
# for what is not pinned).
#
#   dkb_validate.sh --probe PATH --check PATH [--set quick|sweep] [--sizes "2 3 ..."]
#   dkb_validate.sh --mpi mpich --shim PATH --probe PATH --check PATH [--sizes ...]
#
# quick  (the ctest): sizes 2 3 4 5 7 8 12 16; per size one run with nothing
#        pinned (every collective at 1, 100, 4000 and 160000 bytes, roots 0
#        and n-1: the fixed decision), two runs pinning one algorithm of every
#        collective (rotating with the size, so every algorithm is pinned at
#        several sizes; segment sizes for the segmented ones) and one run
#        pinning the composite algorithms (reduce + bcast, gather + bcast,
#        reduce + scatterv, gatherv + bcast). Gatherv and Scatterv (coll/basic,
#        no algorithm to pin) ride along in every run. 32 mpiruns.
# sweep  every algorithm of every collective, segment sizes 0, 1000 and 4096
#        where it segments, counts 1, 7, 1000 and 65537 elements, roots 0, n/2
#        and n-1 (run i pins the i-th variant of each collective; composites
#        in a run of their own); then the fixed decision at 2^k-1 and 2^k
#        bytes (k up to 21, 17 for per-block collectives) in one run; sizes
#        2..16. About 350 mpiruns.
# mpich  (--mpi mpich; MPICH 4.0 has no MPI_T pvars and no monitoring): the
#        oracle is ucx_count_shim (LD_PRELOAD), which counts what each rank
#        hands to UCX's tagged sends, with MPIR_CVAR_NOLOCAL=1 so that no
#        message takes shared memory; run i pins the i-th MPIR algorithm of
#        every collective (MPIR_CVAR_<COLL>_INTRA_ALGORITHM), calls at 16 and
#        20 elements, 1003 int32s (pieces that do not divide evenly) and
#        roots 0 and n-1. Sizes 2 3 4 5 7 8 12 16 (3 mpiexecs each).
# Prints one line per case and "dkb_validate: N cases, N matched, N mismatched,
# N failed"; exits 1 if any case did not match.
set -euo pipefail

usage() {
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}
die() { echo "dkb_validate: $*" >&2; exit 2; }

probe="" check="" set=quick sizes="" mpi=openmpi shim="" mpirun="" mpiexec=""
while [ $# -gt 0 ]; do
  case "$1" in
    --probe) probe=${2:?}; shift 2 ;;
    --check) check=${2:?}; shift 2 ;;
    --set) set=${2:?}; shift 2 ;;
    --sizes) sizes=${2:?}; shift 2 ;;
    --mpi) mpi=${2:?}; shift 2 ;;
    --shim) shim=${2:?}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -x "$probe" ] || die "--probe: '$probe' is not an executable"
[ -x "$check" ] || die "--check: '$check' is not an executable"
case "$set" in quick|sweep) ;; *) die "--set: '$set' is neither quick nor sweep" ;; esac
case "$mpi" in
  openmpi) mpirun=$(command -v mpirun.openmpi || command -v mpirun) || die "no mpirun.openmpi in PATH" ;;
  mpich) mpiexec=$(command -v mpiexec.mpich) || die "no mpiexec.mpich in PATH"
         [ -f "$shim" ] || die "--shim: '$shim' is not a file (ucx_count_shim.so)" ;;
  *) die "--mpi: '$mpi' is neither openmpi nor mpich" ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/compi-dkb.XXXXXX)
trap 'rm -rf "$work"' EXIT

ncases=0 nmatch=0 nmis=0 nfail=0
# run_case N "PINS" CALL...   PINS: "coll=alg/seg ..." (may be empty)
run_case() {
  local n=$1 pins=$2; shift 2
  local mca=(--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
             --mca pml_monitoring_filename "$work/m" --mca coll_tuned_use_dynamic_rules 1)
  local chk=() p coll alg seg
  for p in $pins; do
    coll=${p%%=*} alg=${p#*=} seg=0
    case "$alg" in */*) seg=${alg#*/} alg=${alg%/*} ;; esac
    mca+=(--mca "coll_tuned_${coll}_algorithm" "$alg" --mca "coll_tuned_${coll}_algorithm_segmentsize" "$seg")
    chk+=(--pin "$coll=$alg/$seg")
  done
  ncases=$((ncases + 1))
  rm -f "$work"/m.*
  local launch=("$mpirun" --oversubscribe --bind-to none -np "$n" "${mca[@]}")
  if [ "$mpi" = mpich ]; then
    launch=("$mpiexec" -np "$n" -genv MPIR_CVAR_NOLOCAL 1 -genv LD_PRELOAD "$shim" -genv COMPI_SHIM_PROF "$work/m")
    chk=(--mpi mpich)
    for p in $pins; do
      coll=${p%%=*} alg=${p#*=}
      launch+=(-genv "MPIR_CVAR_${coll^^}_INTRA_ALGORITHM" "$alg")
      chk+=(--pin "$coll=$alg")
    done
  fi
  if ! "${launch[@]}" "$probe" "$@" >"$work/out" 2>&1; then
    nfail=$((nfail + 1))
    echo "FAILED mpirun size=$n pins=[$pins] $*"
    sed 's/^/  /' "$work/out" | head -5
    return 0
  fi
  local rc=0
  "$check" --prof "$work/m" --size "$n" "${chk[@]}" "$@" >"$work/res" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then nmatch=$((nmatch + 1)); echo "pins=[$pins] $(tail -1 "$work/res")"
  elif [ "$rc" = 1 ]; then nmis=$((nmis + 1)); echo "pins=[$pins]"; cat "$work/res"
  else nfail=$((nfail + 1)); echo "FAILED check size=$n pins=[$pins]"; cat "$work/res"
  fi
}

# algorithm ids per collective (composites separately: they call the
# communicator's other collectives, which must not be pinned in the same run)
declare -A ALGS=([bcast]="1 2 3 4 5 6 7 8 9" [reduce]="1 2 3 4 5 6 7" [allreduce]="1 3 4 5 6"
                 [alltoall]="1 2 3 4 5" [allgather]="2 3 4 5 6" [gather]="1 2 3" [scatter]="1 2 3"
                 [reduce_scatter]="2 3 4" [barrier]="1 2 3 4 5 6" [alltoallv]="1 2" [allgatherv]="2 3 4 5")
declare -A COMPOSITE=([allreduce]=2 [allgather]=1 [reduce_scatter]=1 [allgatherv]=1)
declare -A SEGMENTED=([bcast]="2 3 4 5 6 7" [reduce]="2 3 4 5 6" [allreduce]="5" [gather]="3")
COLLS="bcast reduce allreduce alltoall allgather gather scatter reduce_scatter barrier alltoallv allgatherv"
# gatherv and scatterv have no tuned algorithm (coll/basic runs them): only unpinned
UNPINNED="gatherv scatterv"
rooted() { case "$1" in bcast|reduce|gather|scatter|gatherv|scatterv) return 0 ;; esac; return 1; }
two_only() { case "$1:$2" in alltoall:5|allgather:6|barrier:5|allgatherv:5) return 0 ;; esac; return 1; }
segmented() { case " ${SEGMENTED[$1]:-} " in *" $2 "*) return 0 ;; esac; return 1; }

# calls COLL N "COUNTS" "ROOTS" [TS]
calls() {
  local coll=$1 n=$2 counts=$3 roots=$4 ts=${5:-4} c r
  [ "$coll" = barrier ] && { echo "barrier:1:1:0"; return; }
  rooted "$coll" || roots=0
  for c in $counts; do for r in $roots; do echo "$coll:$c:$ts:$r"; done; done
}

quick() {
  local n=$1 coll j algs a pick pins call_list seg
  call_list=()
  for coll in $COLLS $UNPINNED; do
    # bytes 1, 100, 4000, 160000 (uint8 and int32)
    mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "1 100" "0 $((n - 1))" 1; calls "$coll" "$n" "1000 40000" "0 $((n - 1))" 4)
  done
  run_case "$n" "" "${call_list[@]}"
  for j in 0 1; do
    pins="" call_list=()
    for coll in $COLLS; do
      algs=()
      for a in ${ALGS[$coll]}; do two_only "$coll" "$a" && [ "$n" != 2 ] && continue; algs+=("$a"); done
      pick=${algs[$(( (n + 3 * j) % ${#algs[@]} ))]}
      seg=0
      segmented "$coll" "$pick" && seg=$(( j == 0 ? 1024 : 1000 ))
      pins+=" $coll=$pick/$seg"
      mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "7 1000" "0 $((n - 1))")
    done
    for coll in $UNPINNED; do
      mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "7 1000" "0 $((n - 1))")
    done
    run_case "$n" "$pins" "${call_list[@]}"
  done
  pins="" call_list=()
  for coll in "${!COMPOSITE[@]}"; do
    pins+=" $coll=${COMPOSITE[$coll]}/0"
    mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "3 1000 20000" "0")
  done
  run_case "$n" "$pins" "${call_list[@]}"
}

sweep() {
  local n=$1 coll a seg segs k i more call_list pins
  # variants per collective: "alg/seg" for every algorithm (x segment sizes)
  declare -A VAR=()
  for coll in $COLLS; do
    VAR[$coll]=""
    for a in ${ALGS[$coll]}; do
      two_only "$coll" "$a" && [ "$n" != 2 ] && continue
      segs=0
      segmented "$coll" "$a" && segs="0 1000 4096"
      for seg in $segs; do VAR[$coll]+=" $a/$seg"; done
    done
  done
  # run i pins the i-th variant of every collective that has one
  for ((i = 0; ; i++)); do
    pins="" call_list=() more=0
    for coll in $COLLS; do
      set -- ${VAR[$coll]}
      [ "$i" -lt $# ] || continue
      more=1
      shift "$i"
      pins+=" $coll=$1"
      mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "1 7 1000 65537" "0 $((n / 2)) $((n - 1))")
    done
    [ "$more" = 1 ] || break
    run_case "$n" "$pins" "${call_list[@]}"
  done
  pins="" call_list=()
  for coll in "${!COMPOSITE[@]}"; do
    pins+=" $coll=${COMPOSITE[$coll]}/0"
    mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "1 7 1000 65537" "0")
  done
  run_case "$n" "$pins" "${call_list[@]}"
  # the fixed decision at 2^k - 1 and 2^k bytes
  call_list=()
  for coll in $COLLS $UNPINNED; do
    for k in $(seq 0 21); do
      case "$coll" in bcast|reduce|allreduce) ;; *) [ "$k" -gt 17 ] && continue ;; esac
      mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "$(( (1 << k) - 1 > 0 ? (1 << k) - 1 : 1 )) $((1 << k))" "0 $((n - 1))" 1)
      [ "$coll" = barrier ] && break
    done
  done
  run_case "$n" "" "${call_list[@]}"
}

# MPICH: MPIR algorithms per collective (MPIR_CVAR_<COLL>_INTRA_ALGORITHM)
declare -A MALGS=([bcast]="binomial scatter_recursive_doubling_allgather scatter_ring_allgather"
                  [reduce]="binomial reduce_scatter_gather" [allreduce]="recursive_doubling reduce_scatter_allgather"
                  [alltoall]="brucks pairwise scattered" [allgather]="brucks ring recursive_doubling"
                  [gather]="binomial" [scatter]="binomial" [barrier]="dissemination"
                  [alltoallv]="scattered" [gatherv]="linear" [scatterv]="linear")
mpich_size() {
  local n=$1 i coll pins call_list more
  for ((i = 0; ; i++)); do
    pins="" call_list=() more=0
    for coll in bcast reduce allreduce alltoall allgather gather scatter barrier alltoallv gatherv scatterv; do
      set -- ${MALGS[$coll]}
      # recursive doubling allgather: power-of-two sizes only (else MPICH falls back)
      [ "$coll" = allgather ] && [ $((n & (n - 1))) != 0 ] && set -- brucks ring
      [ "$i" -lt $# ] || continue
      more=1
      shift "$i"
      pins+=" $coll=$1"
      mapfile -t -O "${#call_list[@]}" call_list < <(calls "$coll" "$n" "20 1003" "0 $((n - 1))"; calls "$coll" "$n" "16" "0" 1)
    done
    [ "$more" = 1 ] || break
    run_case "$n" "$pins" "${call_list[@]}"
  done
}

t0=$SECONDS
if [ "$mpi" = mpich ]; then
  for n in ${sizes:-2 3 4 5 7 8 12 16}; do mpich_size "$n"; done
elif [ "$set" = quick ]; then
  for n in ${sizes:-2 3 4 5 7 8 12 16}; do quick "$n"; done
else
  for n in ${sizes:-$(seq 2 16)}; do sweep "$n"; done
fi
echo "dkb_validate: $ncases cases, $nmatch matched, $nmis mismatched, $nfail failed ($((SECONDS - t0)) s)"
[ "$nmis" = 0 ] && [ "$nfail" = 0 ]
