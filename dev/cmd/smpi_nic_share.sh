#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: what a node's ranks sending at once cost each other under SMPI (no compi)
# A plain program (no compi) on the platform `compi simulate` generates
# (RANKS_PER_NODE ranks per node, two nodes used): K ranks of node 0 each
# send SIZE bytes to their partner on node 1 at once, answered by an empty
# message, 5 times; K = 1, 2, 4, 8 (up to the ranks per node), sizes 0 B to
# 256 KiB. Prints per K and size the slowest pair's round trip and the
# one-way time beyond the empty message's (what the bytes cost on the wire),
# and that time over K = 1's: how much dearer the wire gets when K ranks of
# a node share its link. compi's network model (COMPI_CALIBRATE=init) is
# one pair alone, the K = 1 row. Simulated time: deterministic.
#   compi smpi_nic_share [--topo cluster|fattree] [--rate 25Gbps] [--cores 8] [--oversub 2]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
topo=fattree rate=25Gbps cores=8 oversub=2
while [ $# -gt 0 ]; do
    case "$1" in
        --topo) topo=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --cores) cores=$2; shift 2 ;;
        --oversub) oversub=$2; shift 2 ;;
        *) echo "smpi_nic_share: unknown option $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/share.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    static const int sizes[] = {0, 1024, 8192, 65536, 262144};
    enum { NSIZES = sizeof sizes / sizeof sizes[0], REPS = 5 };
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rpn = size / 2; /* two nodes: ranks 0..rpn-1 on node 0 */
    char *buf = calloc(1, 262144);
    double empty = 0, one[NSIZES] = {0};
    if (rank == 0) printf("K size_B rtt_us oneway_wire_us x_K1\n");
    for (int k = 1; k <= rpn; k *= 2)
        for (int s = 0; s < NSIZES; s++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < REPS; i++) {
                if (rank < k) {
                    MPI_Send(buf, sizes[s], MPI_BYTE, rank + rpn, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, 0, MPI_BYTE, rank + rpn, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank >= rpn && rank < rpn + k) {
                    MPI_Recv(buf, sizes[s], MPI_BYTE, rank - rpn, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, 0, MPI_BYTE, rank - rpn, 2, MPI_COMM_WORLD);
                }
            }
            double t = (MPI_Wtime() - t0) / REPS * 1e6, rtt;
            MPI_Reduce(&t, &rtt, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank != 0) continue;
            if (s == 0) empty = rtt;
            double wire = rtt - empty;
            if (k == 1) one[s] = wire;
            printf("%d %d %.3f %.3f %.2f\n", k, sizes[s], rtt, wire, one[s] > 0 ? wire / one[s] : 1.0);
        }
    free(buf);
    MPI_Finalize();
    return 0;
}
C
smpicc -O2 -o "$work/share" "$work/share.c" 2>/dev/null
python3 "$root/tools/cmd/simulate_platform.py" --topo "$topo" --nodes 2 --cores "$cores" --rate "$rate" \
    --latency 1us --oversub "$oversub" --platform "$work/platform.xml" --hostfile "$work/hosts"
echo "# $topo, 2 nodes x $cores cores, $rate links; simulated microseconds"
cd "$work"
smpirun -np $((2 * cores)) -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --cfg=smpi/privatization:mmap --cfg=smpi/simulate-computation:no --cfg=smpi/tmpdir:"$work" \
    --cfg=smpi/send-is-detached-thresh:1000000000 \
    --log=root.thresh:error --log=smpi_mpi.thresh:error "$work/share"
