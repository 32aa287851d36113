#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPICH's own tests of the nonblocking and neighbourhood collectives
# (test/mpi/coll of pmodels/mpich 6a79bf6575, vendored in
# tests/foreign/mpich_coll with MPICH's COPYRIGHT; the mtest harness is
# mpich_io's): each program of mpich_coll/testlist runs plainly and with
# libcompi preloaded (COMPI_MODE=fixed lz4, every rank its own node, so every
# message between ranks is a compi message); each must have the same
# outcome (exit status and mtest's "No Errors") as without compi, and
# compi's schedules must have run (the reports' compressed_path counts).
# usage: tests/foreign/mpich_coll.sh [--mpi openmpi|mpich|both] [--out DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$here/mpich_coll
util=$here/mpich_io/util
mpis=both out=""
while (($#)); do
    case $1 in
        --mpi) mpis=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--mpi openmpi|mpich|both] [--out DIR]" >&2; exit 2 ;;
    esac
done
[[ $mpis == both ]] && mpis="openmpi mpich"
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/compi_mpich_coll.XXXXXX")}
mkdir -p "$out"
pass=0 failn=0 scheduled=0
for mpi in $mpis; do
    lib=$root/build/$mpi/lib/libcompi.so
    [[ -f $lib ]] || { echo "mpich_coll: $lib missing (tools/build.sh --mpi $mpi)"; failn=$((failn + 1)); continue; }
    bin=$out/bin-$mpi
    mkdir -p "$bin"
    cc=mpicc.$mpi
    for u in "$util/mtest" "$util/mtest_common" "$util/mtest_thread" "$src/run_mpitests"; do
        o=$bin/$(basename "$u").o
        [[ $o -nt $u.c ]] || $cc -O1 -w -I"$util" -c "$u.c" -o "$o" ||
            { echo "FAILED: build $u ($mpi)"; failn=$((failn + 1)); }
    done
    mapfile -t tests < <(grep -v '^#' "$src/testlist" | awk -v m="$mpi" 'NF >= 3 { for (i = 3; i <= NF; i++) if ($i == m) print $1 ":" $2 }')
    if [[ $mpi == openmpi ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        launch=(mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1)
    else
        launch=(mpiexec.mpich)
    fi
    envf() { if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$1"; else printf '%s\n' -genv "${1%%=*}" "${1#*=}"; fi; }
    outcome() { # $1 log, $2 exit status
        local ne=no
        grep -q "No Errors" "$1" && ne=yes
        echo "exit=$2 noerrors=$ne"
    }
    for t in "${tests[@]}"; do
        IFS=: read -r p np <<<"$t"
        # programs with a run() function get run_mpitests.c's main
        objs=("$bin/mtest.o" "$bin/mtest_common.o" "$bin/mtest_thread.o")
        grep -q "int main" "$src/$p.c" || objs+=("$bin/run_mpitests.o")
        # TEST_NEIGHB_COLL: the neighb_* checks are #if'd on MPICH without
        # USE_STRICT_MPI (mpich_io's mpitestconf.h sets it): MPI 3.0 calls
        [[ $bin/$p -nt $src/$p.c ]] ||
            $cc -O1 -w -DTEST_NEIGHB_COLL=1 -I"$util" "$src/$p.c" "${objs[@]}" -o "$bin/$p" -lm ||
            { echo "FAILED: build $p ($mpi)"; failn=$((failn + 1)); continue; }
        d=$out/$mpi/$p
        mkdir -p "$d"
        timeout 120 "${launch[@]}" -np "$np" "$bin/$p" >"$d/plain.log" 2>&1
        base=$(outcome "$d/plain.log" $?)
        mapfile -t ev < <(for kv in LD_PRELOAD="$lib" COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 \
                                    COMPI_DEBUG_RANKS_PER_NODE=1 COMPI_REPORT="$d/compi.json"; do envf "$kv"; done)
        timeout 120 "${launch[@]}" -np "$np" "${ev[@]}" "$bin/$p" >"$d/compi.log" 2>&1
        got=$(outcome "$d/compi.log" $?)
        n=$(python3 -c "
import json,sys
try: r=json.load(open('$d/compi.json'))
except Exception: print(0); sys.exit()
print(sum(f['compressed_path'] for k in r['ranks'] for f in k.get('nonblocking_collectives',{}).values()))" 2>/dev/null)
        scheduled=$((scheduled + ${n:-0}))
        line="$mpi $p np $np: plain $base; compi $got (compi schedules $n)"
        if [[ $got == "$base" ]]; then pass=$((pass + 1)); echo "$line"; else failn=$((failn + 1)); echo "FAILED: $line (logs $d)"; fi
    done
done
echo "mpich coll tests: nonblocking/neighbourhood calls run as compi's schedules over all runs: $scheduled; logs in $out"
if ((scheduled == 0 && failn == 0)); then echo "FAILED: no call ran as compi's schedule"; failn=1; fi
echo "$pass passed, $failn failed"
((failn == 0))
