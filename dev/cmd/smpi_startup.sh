#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: compi's MPI_Init+Finalize under SimGrid SMPI: host CPU and memory, plain vs compi, per rank count
# compi's start-up under SimGrid SMPI: host CPU seconds and peak memory of
# the whole simulation of a program that only calls MPI_Init and
# MPI_Finalize, plain and linked with compi, and two plain baselines: the
# program with one MPI_Allreduce on MPI_COMM_WORLD, and with one
# MPI_Comm_dup of it. SMPI 3.32 sets up a communicator's node-aware tables
# at its first broadcast or reduction (with the ompi selector from 256 ranks
# on, and at a new communicator's creation, which broadcasts its id): a ring
# allgather over all P ranks, P^2 messages, 20-30 s and ~150 MB at 1024
# ranks. Every program that reduces pays it once for MPI_COMM_WORLD; compi
# pays it once for its own duplicate of MPI_COMM_WORLD.
#   compi smpi_startup [--build build/smpi] [--mode adaptive] [--quick] [--reps N] [RANKS...]   (default 64 256 1024)
# --reps N: the empty program plain and with compi N times each, the
# median of each (CPU seconds and peak memory apart; each run's CPU
# seconds on the lines below the row); the others once.
# --quick: the empty program plain and with compi only ("-" in the other
# baselines' columns), a few seconds at 1024 ranks instead of a minute and a half.
# 8 ranks per node on a one-switch cluster; prints one row per rank count.
# As compi simulate runs them: compi linked into the program
# (libcompi-smpi.a), SMPI's data segment swapped per rank
# (smpi/privatization:mmap), so compi's code is one copy for all ranks.
# "dlopen s": the plain program under SMPI's default privatization, which
# copies the program once per rank (and libcompi with it when compi was a
# shared library listed in smpi/privatize-libs, 543 KiB a rank).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build/smpi mode=adaptive quick=0 reps=1
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --mode) mode=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --reps) reps=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- 64 256 1024
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/empty.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#ifdef DUP
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
#endif
#ifdef REDUCE
    int one = 1, max;
    MPI_Allreduce(&one, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
    MPI_Finalize();
    return 0;
}
C
smpicc -O2 -o "$work/plain" "$work/empty.c"
smpicc -O2 -DREDUCE -o "$work/reduce" "$work/empty.c"
smpicc -O2 -DDUP -o "$work/dup" "$work/empty.c"
read -ra libs <<<"$(readelf -d "$build/lib/libcompi-smpi.so.0" | sed -n 's/.*Shared library: \[lib\([^.]*\)\.so.*/-l\1/p' |
    grep -v -e '^-lsimgrid$' -e '^-lc$' -e '^-lm$' -e '^-lld-linux' | tr '\n' ' ')"
smpicc -O2 -o "$work/compi" "$work/empty.c" -Wl,-Bsymbolic -Wl,--whole-archive "$build/lib/libcompi-smpi.a" \
    -Wl,--no-whole-archive "${libs[@]}" -lm -lpthread -ldl

# one run: prints "cpu_s peak_kb"
run() {
    local np=$1 bin=$2 priv=${3:-mmap}
    (cd "$work" && env -u COMPI_CALIBRATE COMPI_MODE="$mode" \
        /usr/bin/time -f "TIME %U %S %M" -o "$work/time" smpirun -np "$np" -platform "p$np.xml" -hostfile "h$np" \
        --cfg=smpi/privatization:"$priv" --cfg=smpi/coll-selector:ompi --cfg=smpi/tmpdir:"$work" \
        --cfg=smpi/simulate-computation:no --log=root.thresh:error "./$bin" >/dev/null 2>&1)
    awk '/^TIME/ {printf "%.2f %d\n", $2 + $3, $4}' "$work/time"
}

# median NP BIN: "cpu_s peak_kb", each the median of $reps runs
median() {
    local cpus=() mems=()
    for _ in $(seq "$reps"); do
        read -r c m < <(run "$1" "$2")
        cpus+=("$c") mems+=("$m")
    done
    echo "$2 ${cpus[*]}" >>"$work/runs$1"
    echo "$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')" \
        "$(printf '%s\n' "${mems[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
}

echo "compi start-up under SMPI ($mode, 8 ranks per node, plain and compi median of $reps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%6s %8s %8s %8s %8s %8s %7s %7s %7s %8s %8s %9s %9s\n' ranks "dlopen s" "plain s" "+red s" "+dup s" \
    "compi s" "x plain" "x +red" "x +dup" "plain MB" "compi MB" "KiB/rank" "vs +dup"
for np in "$@"; do
    nodes=$(((np + 7) / 8))
    python3 "$root/tools/cmd/simulate_platform.py" --topo cluster --nodes "$nodes" --cores 8 \
        --platform "$work/p$np.xml" --hostfile "$work/h$np"
    oc=- bc=- dc=- dm=-
    [ "$quick" = 1 ] || read -r oc _ < <(run "$np" plain dlopen)
    read -r pc pm < <(median "$np" plain)
    [ "$quick" = 1 ] || read -r bc _ < <(run "$np" reduce)
    [ "$quick" = 1 ] || read -r dc dm < <(run "$np" dup)
    read -r cc cm < <(median "$np" compi)
    # ratio A B: A / B, or - where B was not run
    ratio() { [ "$2" = - ] && echo - || printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
    perrank() { [ "$2" = - ] && echo - || printf '%.0f' "$(echo "($1 - $2) / $np" | bc -l)"; }
    printf '%6d %8s %8s %8s %8s %8s %7s %7s %7s %8.1f %8.1f %9s %9s\n' "$np" "$oc" "$pc" "$bc" "$dc" "$cc" \
        "$(ratio "$cc" "$pc")" "$(ratio "$cc" "$bc")" "$(ratio "$cc" "$dc")" \
        "$(echo "$pm / 1024" | bc -l)" "$(echo "$cm / 1024" | bc -l)" "$(perrank "$cm" "$pm")" "$(perrank "$cm" "$dm")"
    [ "$reps" = 1 ] || sed 's/^/        cpu s of each run: /' "$work/runs$np"
done
