#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ROMIO's own test programs (MPICH src/mpi/romio/test, vendored in
# tests/foreign/romio with MPICH's COPYRIGHT) with compi's collective I/O:
# each program runs plainly and with libcompi preloaded, with
# COMPI_IO_AGGREGATORS=la forced onto compi's path (COMPI_IO_GATE=off,
# COMPI_MODE=fixed lz4) and la + adaptive (gate on), 2 ranks per emulated
# node; every program must pass (exit status 0 and ROMIO's " No Errors"
# line), or end as it ends without compi (the plain run, made only then:
# foreign.sh). Under Open MPI with OMPIO and with
# --mca io romio321, and under MPICH.
# usage: tests/foreign/romio.sh [--mpi openmpi|mpich|both] [--out DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mpis=both out=""
while (($#)); do
    case $1 in
        --mpi) mpis=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--mpi openmpi|mpich|both] [--out DIR]" >&2; exit 2 ;;
    esac
done
[[ $mpis == both ]] && mpis="openmpi mpich"
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/compi_romio.XXXXXX")}
mkdir -p "$out"
# program:np[:args before the file name]; as in ROMIO's runtests
tests=(simple:4 async:4 async-multiple:4 atomicity:4 coll_test:4 excl:4 file_info:4 i_noncontig:2 noncontig:2
       noncontig_coll:2 noncontig_coll2:4 aggregation1:4:-h:-f aggregation2:4 hindexed:4 shared_fp:4 ordered_fp:4
       split_coll:4 psimple:4 error:1 status:1 types_with_zeros:2 darray_read:4 creat_excl:2 external32:2
       big_extents:1)
variants=(la la-adaptive)
# Programs whose outcome varies without compi, so no comparison can hold:
# OMPIO's atomic mode fails ROMIO's atomicity test on some runs (a fresh CI
# run, plain Open MPI: "Process 1 at line 137: readbuf[8192] is 0, should
# be 10", then a hang until the timeout; other runs pass). compi passes
# atomic mode to the MPI anyway (0 calls on its path in every run).
unstable=(ompio:atomicity)
# shellcheck source=tests/foreign/foreign.sh
. "$here/foreign.sh"
pass=0 failn=0 path_total=0
for mpi in $mpis; do
    lib=$root/build/$mpi/lib/libcompi.so
    [[ -f $lib ]] || { echo "romio: $lib missing (tools/build.sh --mpi $mpi)"; failn=$((failn + 1)); continue; }
    bin=$out/bin-$mpi
    mkdir -p "$bin"
    for t in "${tests[@]}"; do
        p=${t%%:*}
        [[ $bin/$p -nt $here/romio/$p.c ]] || mpicc.$mpi -O1 -w "$here/romio/$p.c" -o "$bin/$p" -lm || { echo "FAILED: build $p ($mpi)"; failn=$((failn + 1)); }
    done
    foreign_launcher "$mpi"
    ios=(romio)
    [[ $mpi == openmpi ]] && ios=(ompio romio321)
    for io in "${ios[@]}"; do
        extra=()
        [[ $io == romio321 ]] && extra=(--mca io romio321)
        for t in "${tests[@]}"; do
            IFS=: read -r p np a1 a2 <<<"$t"
            if [[ " ${unstable[*]} " == *" $io:$p "* ]]; then
                echo "skipped: $mpi $io $p (its outcome varies without compi; see unstable= in $0)"
                continue
            fi
            fargs=(-fname)
            if [[ -n ${a1:-} ]]; then fargs=("$a1"); [[ -z ${a2:-} ]] || fargs+=("$a2"); fi
            foreign_io_run "$mpi $io $p" "$out/$mpi-$io/$p" "$np" "$bin/$p" "${fargs[@]}" "$out/$mpi-$io/$p/files/testfile"
        done
    done
done
echo "romio tests: collective calls on compi's path over all runs: $path_total; logs in $out"
echo "$pass passed, $failn failed"
((failn == 0))
