#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# MPICH's own MPI-IO test suite (test/mpi/io of MPICH 4.0, with its mtest
# harness: vendored in tests/foreign/mpich_io with MPICH's COPYRIGHT; the two
# configure-generated headers are replaced by small ones) with compi's
# collective I/O: each program of its testlist runs plainly and with libcompi
# preloaded, with COMPI_IO_AGGREGATORS=la forced onto compi's path
# (COMPI_IO_GATE=off, COMPI_MODE=fixed lz4) and la + adaptive (gate on), 2
# ranks per emulated node; every program must pass (exit status 0 and
# mtest's " No Errors" line), or end as it ends without compi (the plain
# run, made only then: foreign.sh). Under Open MPI with
# OMPIO and with --mca io romio321, and under MPICH.
# usage: tests/foreign/mpich_io.sh [--mpi openmpi|mpich|both] [--variants la[,la-adaptive]] [--quick] [--out DIR]
# (the foreign CI stage runs --variants la --quick: the forced path, and the
# large-type programs bigtype and i_bigtype (6.5 GB, 10-30 s a run) under one
# I/O layer per MPI, OMPIO and MPICH's ROMIO, not again under romio321)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$here/mpich_io
mpis=both out="" variants_csv=la,la-adaptive quick=0
quick_skip=(romio321:bigtype romio321:i_bigtype)
while (($#)); do
    case $1 in
        --mpi) mpis=$2; shift 2 ;;
        --variants) variants_csv=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--mpi openmpi|mpich|both] [--variants la[,la-adaptive]] [--quick] [--out DIR]" >&2; exit 2 ;;
    esac
done
[[ $mpis == both ]] && mpis="openmpi mpich"
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/compi_mpich_io.XXXXXX")}
mkdir -p "$out"
IFS=, read -r -a variants <<<"$variants_csv"
# A program passes through compi's path where the MPI's own MPI-IO fails it:
# Open MPI 4.1's romio321 returns MPI_UNDEFINED (-32766) as the byte count of
# a zero-byte MPI_File_read_all (zero_count: "expecting get_size to be 0 but
# got -32766"); compi's path returns 0, as MPI specifies (la + adaptive with
# the gate on passes that call to romio321 and fails as plain does).
# shellcheck source=tests/foreign/foreign.sh
. "$here/foreign.sh"
pass=0 failn=0 path_total=0
for mpi in $mpis; do
    lib=$root/build/$mpi/lib/libcompi.so
    [[ -f $lib ]] || { echo "mpich_io: $lib missing (tools/build.sh --mpi $mpi)"; failn=$((failn + 1)); continue; }
    bin=$out/bin-$mpi
    mkdir -p "$bin"
    cc=mpicc.$mpi
    for u in mtest mtest_common mtest_thread; do
        [[ $bin/$u.o -nt $src/util/$u.c ]] || $cc -O1 -w -I"$src/util" -c "$src/util/$u.c" -o "$bin/$u.o" ||
            { echo "FAILED: build $u ($mpi)"; failn=$((failn + 1)); }
    done
    mapfile -t tests < <(grep -v '^#' "$src/testlist.in" | awk 'NF >= 2 {print $1 ":" $2 ":" ($3 ~ /^arg=/ ? substr($3, 5) : "")}' | sort -u)
    for t in "${tests[@]}"; do
        p=${t%%:*}
        [[ $bin/$p -nt $src/$p.c ]] || $cc -O1 -w -I"$src/util" "$src/$p.c" "$bin/mtest.o" "$bin/mtest_common.o" \
            "$bin/mtest_thread.o" -o "$bin/$p" -lm || { echo "FAILED: build $p ($mpi)"; failn=$((failn + 1)); }
    done
    foreign_launcher "$mpi"
    ios=(romio)
    [[ $mpi == openmpi ]] && ios=(ompio romio321)
    for io in "${ios[@]}"; do
        extra=()
        [[ $io == romio321 ]] && extra=(--mca io romio321)
        for t in "${tests[@]}"; do
            IFS=: read -r p np arg <<<"$t"
            ((quick)) && [[ " ${quick_skip[*]} " == *" $io:$p "* ]] && continue
            args=()
            [[ -n $arg ]] && args=("$arg")
            foreign_io_run "$mpi $io $p" "$out/$mpi-$io/$p" "$np" "$bin/$p" "${args[@]}"
        done
    done
done
echo "mpich io tests: collective calls on compi's path over all runs: $path_total; logs in $out"
echo "$pass passed, $failn failed"
((failn == 0))
