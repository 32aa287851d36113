#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The DKB of compi's own node-aware collectives (lib/map/dkb_compi.c) and the
# path each call records in the trace, end to end, against Open MPI's pml
# monitoring (an independent count of every message, inside collectives and
# on compi's sub-communicators alike).
#
# Per case NP:RPN:WAY[:REPS], dkb_probe runs with libcompi preloaded in trace mode
# (compi's path runs every large Allgather(v), Alltoall(v), Allreduce, Reduce,
# Reduce_scatter(_block), Bcast, Gather(v), Scatter(v), frames raw), COMPI_DEBUG_RANKS_PER_NODE=RPN nodes
# and COMPI_COLL_LEADERS=WAY, twice: with the call list REPS - 1 times (A) and
# REPS times (B; REPS is 2 unless given). compi's one-off traffic (its node layout's communicators, start-up,
# finalize) is the same in both, so monitoring(B) - monitoring(A) is one
# execution of the list, and compi map --graph-out of B's traces minus A's
# must equal it for every rank pair, messages and bytes (dkb_check). With
# auto and REPS 10, B's last Allreduce and Reduce are the ones whose leaders
# measure again (after a hold of 8 calls: engine/leaders.h) and agree two
# sizes, so the difference is exactly such a call. The
# graphs are built from the traces alone: each call's recorded path (split,
# split measuring, whole) and each rank's recorded node. Each case also
# checks that compi map saw the expected number of node-aware calls, so a
# run that fell back to the MPI's own algorithms cannot pass.
#
# MPICH (--mpi mpich --shim UCX_COUNT_SHIM): the oracle is ucx_count_shim
# (what each rank hands to UCX's tagged sends) with MPIR_CVAR_NOLOCAL=1;
# compi pins MPICH's algorithms itself in trace mode, and the trace says
# which.
#
# With --guide COMPI_GUIDE, also compi map --rules (compi guide's rules of
# the last case's traces: fewer bytes, as many messages; a missing rules
# file named).
#
#   compi_dkb_validate.sh [--mpi openmpi|mpich --shim SHIM] --lib LIBCOMPI --probe DKB_PROBE --map COMPI_MAP
#                         --check DKB_CHECK [--guide COMPI_GUIDE] [--cases "..."]
set -euo pipefail
die() { echo "compi_dkb_validate: $*" >&2; exit 2; }
lib="" probe="" map="" check="" mpi=openmpi shim="" guide=""
cases="4:2:split 4:2:whole 3:1:auto 5:2:auto 6:3:whole 8:2:split 7:3:split 4:2:auto:10 5:1:auto:10"
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib=${2:?}; shift 2 ;;
    --probe) probe=${2:?}; shift 2 ;;
    --map) map=${2:?}; shift 2 ;;
    --check) check=${2:?}; shift 2 ;;
    --cases) cases=${2:?}; shift 2 ;;
    --mpi) mpi=${2:?}; shift 2 ;;
    --shim) shim=${2:?}; shift 2 ;;
    --guide) guide=${2:?}; shift 2 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[ "$mpi" = openmpi ] || [ -e "$shim" ] || die "--mpi mpich needs --shim UCX_COUNT_SHIM"
for f in "$lib" "$probe" "$map" "$check"; do [ -e "$f" ] || die "missing file '$f'"; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/compi-dkbcompi.XXXXXX)
trap 'rm -rf "$work"' EXIT
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok   $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $*"; }

# run NP RPN WAY PREFIX TRACEDIR CALL...
run() {
  local n=$1 rpn=$2 way=$3 pre=$4 dir=$5; shift 5
  rm -rf "$dir"
  if [ "$mpi" = mpich ]; then
    mpiexec.mpich -np "$n" -genv MPIR_CVAR_NOLOCAL 1 -genv LD_PRELOAD "$shim:$lib" -genv COMPI_SHIM_PROF "$pre" \
      -genv COMPI_MODE trace -genv COMPI_TRACE "$dir" -genv COMPI_DEBUG_RANKS_PER_NODE "$rpn" \
      -genv COMPI_COLL_LEADERS "$way" "$probe" "$@"
    return
  fi
  mpirun.openmpi --oversubscribe --bind-to none -np "$n" --mca pml_monitoring_enable 2 \
    --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$pre" \
    --mca mpi_yield_when_idle 1 -x LD_PRELOAD="$lib" -x COMPI_MODE=trace -x COMPI_TRACE="$dir" \
    -x COMPI_DEBUG_RANKS_PER_NODE="$rpn" -x COMPI_COLL_LEADERS="$way" "$probe" "$@"
}

for c in $cases; do
  IFS=: read -r n rpn way reps <<<"$c"
  reps=${reps:-2}
  # large enough for compi's path in trace mode; Reduce to the last rank (not
  # its node's leader when RPN > 1: the result's last hop), odd counts so
  # chunks differ
  calls=(allgather:100000:8:0 allgatherv:200001:4:0 alltoall:20000:8:0 alltoallv:15001:4:0
         allreduce:100003:8:0 "reduce:100003:8:$((n - 1))" reduce_scatter:100001:8:0 reduce_scatter_block:200001:4:0
         "bcast:100001:8:$((n / 2))" gather:100000:8:0 "gatherv:100001:4:$((n - 1))" "scatter:100000:8:$((n - 1))"
         scatterv:100001:8:0)
  rm -f "$work"/a.* "$work"/b.*
  lista=() listb=()
  for ((k = 1; k < reps; k++)); do lista+=("${calls[@]}"); done
  listb=("${lista[@]}" "${calls[@]}")
  if ! run "$n" "$rpn" "$way" "$work/a" "$work/ta" "${lista[@]}" >"$work/out" 2>&1 ||
     ! run "$n" "$rpn" "$way" "$work/b" "$work/tb" "${listb[@]}" >>"$work/out" 2>&1 ||
     ! "$map" "$work/ta" --graph-out "$work/ga.txt" >"$work/mapa" 2>&1 ||
     ! "$map" "$work/tb" --graph-out "$work/gb.txt" >"$work/mapb" 2>&1; then
    fail "np $n rpn $rpn $way: a run failed"; cat "$work/out" "$work/mapa" "$work/mapb" 2>/dev/null | tail -8 | sed 's/^/  /'
    continue
  fi
  # every call of the list ran compi's path, REPS times in B: 12 records of
  # rank 0 (or of the root) each, and Alltoallv's of every rank
  want=$((reps * (12 + n)))
  na=$(sed -n "s/^compi map: \([0-9]*\) collective call(s) ran compi's node-aware algorithm.*/\1/p" "$work/mapb")
  if [ "${na:-0}" != "$want" ]; then
    fail "np $n rpn $rpn $way: compi map saw ${na:-0} node-aware calls in B's traces, expected $want"
    sed 's/^/  /' "$work/mapb" | head -5
    continue
  fi
  if "$check" --prof "$work/b" --base "$work/a" --size "$n" --graph "$work/gb.txt" --graph-base "$work/ga.txt" \
       >"$work/res" 2>&1; then
    pass "np $n rpn $rpn $way x$reps: graph(B) - graph(A) = monitoring(B) - monitoring(A) ($(tail -1 "$work/res" | sed 's/.*: //'))"
  else
    fail "np $n rpn $rpn $way: compi's DKB differs from the monitoring"; sed 's/^/  /' "$work/res" | tail -14
  fi
done
# compi map --rules: compi guide's rules of the last case's traces (the
# probe's buffers are zeros: every frame compresses) make compi's frames
# cheaper in the graph, never more messages; a missing rules file is named
if [ -n "${guide:-}" ] && [ -d "$work/tb" ]; then
  if "$guide" "$work/tb" -o "$work/rules" -q >"$work/guide.out" 2>&1 &&
     "$map" "$work/tb" --rules "$work/rules" --graph-out "$work/gr.txt" >"$work/mapr" 2>&1; then
    nr=$(sed -n "s/^compi map: compi's frames compressed as \([0-9]*\) inter-node collective rule(s).*/\1/p" "$work/mapr")
    read -r mr br <<<"$(awk '!/^#/{m += $3; b += $4} END {print m, b}' "$work/gr.txt")"
    read -r m0 b0 <<<"$(awk '!/^#/{m += $3; b += $4} END {print m, b}' "$work/gb.txt")"
    if [ "${nr:-0}" -gt 0 ] && [ "$mr" = "$m0" ] && [ "$br" -lt "$b0" ]; then
      pass "--rules: $nr rule(s) used; graph $m0 messages either way, $br bytes instead of $b0"
    else
      fail "--rules: ${nr:-0} rules, $mr/$m0 messages, $br/$b0 bytes"; sed 's/^/  /' "$work/mapr" | head -4
    fi
  else
    fail "--rules: compi guide or compi map failed"; cat "$work/guide.out" "$work/mapr" 2>/dev/null | tail -4
  fi
  mkdir -p "$work/norules"
  if "$map" "$work/tb" --rules "$work/norules" --graph-out "$work/x.txt" >"$work/err" 2>&1; then
    fail "--rules without rules files was accepted"
  elif grep -q "no rules.0.txt" "$work/err"; then
    pass "--rules without rules files: the error names rules.0.txt"
  else
    fail "--rules without rules files: $(head -1 "$work/err")"
  fi
fi
echo "compi_dkb_validate: $((npass + nfail)) cases, $npass matched, $nfail failed"
[ "$nfail" = 0 ]
