#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: what a switch between simulated ranks costs under SMPI's mmap privatization (no compi)
# A plain program (no compi) that passes one word up and down a binomial
# tree of point-to-point messages on MPI_COMM_WORLD, as compi's start-up
# does, PASSES times; variants with a 96 KiB array in .bss never written and
# with 2 of its pages written per pass. Prints host CPU seconds, minor page
# faults and the number of mmap calls (one per switch between ranks with
# smpi/privatization:mmap, plus SMPI's own) for each, REPS runs each.
#   compi smpi_switch_cost [RANKS] [REPS]   (default 1024 3)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
np=${1:-1024} reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/tree.c" <<'C'
#include <mpi.h>
#ifdef BIG
static char big[BIG] __attribute__((used)); /* kept even where never written */
#endif
static int low(int r) { return r & -r; }
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int pass = 0; pass < PASSES; pass++) {
        unsigned long long v = (unsigned long long)rank, in;
        int lw = rank ? low(rank) : 1 << 30;
        for (int b = 1; b < lw && rank + b < size; b <<= 1) {
            MPI_Recv(&in, 1, MPI_UNSIGNED_LONG_LONG, rank + b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (in > v) v = in;
        }
        if (rank) MPI_Send(&v, 1, MPI_UNSIGNED_LONG_LONG, rank - lw, 7, MPI_COMM_WORLD);
        if (rank) MPI_Recv(&v, 1, MPI_UNSIGNED_LONG_LONG, rank - lw, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int b = 1; b < lw && rank + b < size; b <<= 1)
            MPI_Send(&v, 1, MPI_UNSIGNED_LONG_LONG, rank + b, 7, MPI_COMM_WORLD);
#if defined BIG && WRITE
        big[(pass * 4096) % BIG] ^= 1;
        big[(pass * 4096 + 40960) % BIG] ^= 1;
#endif
    }
    MPI_Finalize();
    return 0;
}
C
smpicc -O2 -DPASSES=0 -o "$work/empty" "$work/tree.c"
smpicc -O2 -DPASSES=2 -o "$work/tree2" "$work/tree.c"
smpicc -O2 -DPASSES=4 -o "$work/tree4" "$work/tree.c"
smpicc -O2 -DPASSES=4 -DBIG=98304 -DWRITE=0 -o "$work/tree4_bss" "$work/tree.c"
smpicc -O2 -DPASSES=4 -DBIG=98304 -DWRITE=1 -o "$work/tree4_bss_written" "$work/tree.c"
python3 "$root/tools/cmd/simulate_platform.py" --topo cluster --nodes $(((np + 7) / 8)) --cores 8 \
    --platform "$work/p.xml" --hostfile "$work/h"
# sim BIN [WRAPPER...]: one simulation of BIN, under WRAPPER (strace, time)
sim() {
    local bin=$1
    shift
    (cd "$work" && env -u COMPI_CALIBRATE "$@" smpirun -np "$np" -platform p.xml -hostfile h \
        --cfg=smpi/privatization:mmap --cfg=smpi/coll-selector:ompi --cfg=smpi/tmpdir:"$work" \
        --cfg=smpi/simulate-computation:no --log=root.thresh:error "./$bin" >/dev/null 2>&1)
}
echo "SMPI rank switches, $np ranks, 8 per node ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-18s %6s %8s %s\n' program mmaps faults "cpu s (each run)"
for bin in empty tree2 tree4 tree4_bss tree4_bss_written; do
    mmaps=-
    if command -v strace >/dev/null; then
        sim "$bin" strace -f --seccomp-bpf -c -e trace=mmap -o "$work/st"
        mmaps=$(awk '$NF == "mmap" {print $4}' "$work/st")
    fi
    cpu="" faults=0
    for _ in $(seq "$reps"); do
        sim "$bin" /usr/bin/time -f "%U %S %R" -o "$work/time"
        read -r u s faults <"$work/time"
        cpu+=$(awk -v u="$u" -v s="$s" 'BEGIN {printf " %.2f", u + s}')
    done
    printf '%-18s %6s %8s%s\n' "$bin" "$mmaps" "$faults" "$cpu"
done
