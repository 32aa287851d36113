#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPICH's own test programs (test/mpi of MPICH, vendored with MPICH's
# COPYRIGHT; the mtest harness is mpich_io/util) run plainly and with libcompi
# preloaded, every rank its own node (COMPI_DEBUG_RANKS_PER_NODE=1; variant
# nodes2: two a node) and COMPI_MIN_BYTES=0, so every message between ranks
# (nodes) is a compi message:
#   coll   mpich_coll/: the blocking, nonblocking, neighbourhood and
#          inter-communicator collectives; compi's path must have run (the
#          reports' node_aware_calls and rooted_collectives' compi_path_calls
#          of the blocking collectives, compressed_path of the nonblocking)
#   pt2pt  mpich_pt2pt/: point-to-point, and the datatype tests that send
#          messages; compi must have decided messages between nodes (the
#          reports' totals)
#   datatype  mpich_datatype/: MPICH's DTPools programs (pingping, sendrecv1,
#          sendself, bcast: every DTPools layout of derived datatype, sent
#          between ranks, with longer receives); compi must have decided
#          messages between nodes or broadcasts
#   threads  mpich_threads/: MPI_THREAD_MULTIPLE sends, receives and
#          (m)probes from threads; as pt2pt
# Each program of a suite's testlist must pass (exit status 0 and mtest's
# "No Errors") in every variant, or end as it ends without compi (the plain
# run, made only then: foreign.sh). Variants:
# fixed (COMPI_MODE=fixed, lz4) and adaptive (COMPI_MODE=adaptive); nodes2:
# fixed with two ranks a node (COMPI_DEBUG_RANKS_PER_NODE=2: the node-aware
# collectives' intra-node steps run too).
# testlist lines: program ranks MPIs... [key=value...]; keys: src=FILE[,FILE]
# (the sources, default program.c), cflags=..., arg=... (one per argument),
# slow=REASON (run only with --all), ompi_mca=NAME:VALUE (Open MPI runs, plain
# and with compi, get --mca NAME VALUE); other keys are notes (mpich_np=N: MPICH
# runs it at N ranks).
# A suite's dtpools/ (datatype: MPICH's DTPools library) is built and linked
# into its programs.
# usage: tests/foreign/mpich_suite.sh [--suite coll,pt2pt,datatype,threads]
#        [--mpi openmpi|mpich|both] [--variants fixed[,adaptive,nodes2]]
#        [--only REGEX] [--all] [--out DIR]
# (variants default: coll fixed (with --all fixed,adaptive,nodes2), the
# others fixed,adaptive; default suites coll,pt2pt)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
util=$here/mpich_io/util
usage="usage: $0 [--suite coll,pt2pt,datatype,threads] [--mpi openmpi|mpich|both] [--variants fixed[,adaptive,nodes2]] [--only REGEX] [--all] [--out DIR]"
suites_csv=coll,pt2pt mpis=both out="" variants_csv="" only="" all=0
while (($#)); do
    case $1 in
        --suite) suites_csv=$2; shift 2 ;;
        --mpi) mpis=$2; shift 2 ;;
        --variants) variants_csv=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --all) all=1; shift ;;
        --out) out=$2; shift 2 ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
[[ $mpis == both ]] && mpis="openmpi mpich"
IFS=, read -r -a suites <<<"$suites_csv"
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/compi_mpich_suite.XXXXXX")}
mkdir -p "$out"
# shellcheck source=tests/foreign/foreign.sh
. "$here/foreign.sh"
# what compi did in a run, from its report: coll, the calls run as compi's
# schedules; pt2pt, the messages between nodes (compi decided each one:
# compressed frame or raw) and the compressed frames it decoded
path_count() { # $1 suite, $2 report
    python3 - "$1" "$2" <<'PY' 2>/dev/null || echo 0
import json, sys
try:
    r = json.load(open(sys.argv[2]))
except Exception:
    print(0); sys.exit()
if sys.argv[1] == "coll":
    print(sum(f["node_aware_calls"] for k in r["ranks"] for f in k.get("collectives", {}).values()) +
          sum(f["compi_path_calls"] for k in r["ranks"] for f in k.get("rooted_collectives", {}).values()),
          sum(f["compressed_path"] for k in r["ranks"] for f in k.get("nonblocking_collectives", {}).values()))
else:
    # datatype: its broadcasts too (MPI_Bcast on compi's path)
    t = r["totals"]
    bc = sum(k.get("rooted_collectives", {}).get("bcast", {}).get("compi_path_calls", 0) for k in r["ranks"])
    print(t["inter_node_messages"] + (bc if sys.argv[1] == "datatype" else 0), t["frames_decoded_compressed"])
PY
}
pass=0 failn=0
for suite in "${suites[@]}"; do
    src=$here/mpich_$suite
    [[ -f $src/testlist ]] || { echo "$usage" >&2; exit 2; }
    if [[ -n $variants_csv ]]; then IFS=, read -r -a variants <<<"$variants_csv"
    elif [[ $suite == coll && $all == 0 ]]; then variants=(fixed)
    elif [[ $suite == coll ]]; then variants=(fixed adaptive nodes2)
    else variants=(fixed adaptive); fi
    counted=0
    for mpi in $mpis; do
        lib=$root/build/$mpi/lib/libcompi.so
        [[ -f $lib ]] || { echo "mpich_suite: $lib missing (tools/build.sh --mpi $mpi)"; failn=$((failn + 1)); continue; }
        bin=$out/bin-$mpi
        mkdir -p "$bin"
        cc=mpicc.$mpi
        # a suite's dtpools/ (MPICH's DTPools library) is linked into its programs
        units=("$util/mtest" "$util/mtest_common" "$util/mtest_thread" "$util/dtypes" "$here/mpich_coll/run_mpitests")
        for c in "$src"/dtpools/*.c; do [[ -f $c ]] && units+=("${c%.c}"); done
        lib_objs=()
        for u in "${units[@]}"; do
            o=$bin/$(basename "$u").o
            [[ $u == */dtpools/* ]] && lib_objs+=("$o")
            [[ $o -nt $u.c ]] || $cc -O1 -w -I"$util" -c "$u.c" -o "$o" ||
                { echo "FAILED: build $u ($mpi)"; failn=$((failn + 1)); }
        done
        foreign_launcher "$mpi"
        while read -r p np rest; do
            [[ -z $p || $p == \#* ]] && continue
            [[ -n $only && ! $p =~ $only ]] && continue
            srcf=$p.c cflags="" slow="" args=() xl=() on=0
            for w in $rest; do
                case $w in
                    src=*) srcf=${w#src=} ;;
                    cflags=*) cflags="$cflags ${w#cflags=}" ;;
                    arg=*) args+=("${w#arg=}") ;;
                    slow=*) slow=${w#slow=} ;;
                    ompi_mca=*) [[ $mpi == openmpi ]] && w=${w#ompi_mca=} && xl+=(--mca "${w%%:*}" "${w#*:}") ;;
                    "$mpi") on=1 ;;
                esac
            done
            ((on)) || continue
            [[ -n $slow && $all == 0 ]] && continue
            name=$p${args[*]:+_${args[*]}}
            name=${name// /_}-np$np
            # programs with a run() function get run_mpitests.c's main;
            # TEST_NEIGHB_COLL: the neighb_* checks are #if'd on MPICH
            # without USE_STRICT_MPI (mpich_io's mpitestconf.h sets it)
            objs=("$bin/mtest.o" "$bin/mtest_common.o" "$bin/mtest_thread.o" "$bin/dtypes.o" "${lib_objs[@]}")
            IFS=, read -r -a srcs <<<"$srcf"
            srcs=("${srcs[@]/#/$src/}")
            grep -q "int main" "${srcs[@]}" || objs+=("$bin/run_mpitests.o")
            exe=$bin/$suite-$p built=1
            for c in "${srcs[@]}"; do [[ $exe -nt $c ]] || built=0; done
            # shellcheck disable=SC2086 # cflags: words
            ((built)) ||
                $cc -O1 -w -DTEST_NEIGHB_COLL=1 $cflags -I"$util" "${srcs[@]}" "${objs[@]}" -o "$exe" -lm ||
                { echo "FAILED: build $p ($mpi)"; failn=$((failn + 1)); continue; }
            d=$out/$suite/$mpi/$name
            mkdir -p "$d"
            t0=$SECONDS
            gots=() lines=()
            for v in "${variants[@]}"; do
                case $v in
                    fixed) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=1) ;;
                    adaptive) mode=(COMPI_MODE=adaptive COMPI_DEBUG_RANKS_PER_NODE=1) ;;
                    nodes2) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=2) ;;
                    *) echo "$usage" >&2; exit 2 ;;
                esac
                mapfile -t ev < <(foreign_envf "$mpi" LD_PRELOAD="$lib" "${mode[@]}" COMPI_MIN_BYTES=0 COMPI_REPORT="$d/$v.json")
                timeout 120 "${launch[@]}" "${xl[@]}" -np "$np" "${ev[@]}" "$exe" "${args[@]}" >"$d/$v.log" 2>&1 </dev/null
                gots+=("$(foreign_outcome "$d/$v.log" $?)")
                read -r n nz < <(path_count "$suite" "$d/$v.json")
                if [[ $suite != coll ]]; then counted=$((counted + n)); n="$n messages, $nz compressed"
                else counted=$((counted + n + ${nz:-0})); n="$n blocking, ${nz:-0} nonblocking"; fi
                lines+=("compi $v ${gots[-1]} (compi path: $n")
            done
            base="not run (compi passed)"
            if foreign_need_plain "${gots[@]}"; then
                timeout 120 "${launch[@]}" "${xl[@]}" -np "$np" "$exe" "${args[@]}" >"$d/plain.log" 2>&1 </dev/null
                base=$(foreign_outcome "$d/plain.log" $?)
            fi
            for i in "${!gots[@]}"; do
                line="$suite $mpi $name np $np: plain $base; ${lines[i]}; $((SECONDS - t0)) s)"
                if foreign_accepted "${gots[i]}" "$base"; then pass=$((pass + 1)); echo "$line"
                else failn=$((failn + 1)); echo "FAILED: $line (logs $d)"; fi
            done
        done <"$src/testlist"
    done
    case $suite in
        coll) what="blocking calls on compi's node-aware path and nonblocking/neighbourhood calls run as compi's schedules" ;;
        datatype) what="messages between nodes and broadcasts on compi's path" ;;
        *) what="messages between nodes on compi's path" ;;
    esac
    echo "mpich $suite tests: $what over all runs: $counted"
    if ((counted == 0)); then echo "FAILED: compi's path never ran in the $suite suite"; failn=$((failn + 1)); fi
done
echo "logs in $out ($SECONDS s)"
echo "$pass passed, $failn failed"
((failn == 0))
