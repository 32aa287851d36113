#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: calibrate the adaptive engine: network.txt (ping-pong between nodes), codecs.txt (codec speed/ratio)
#
# Runs the two calibration tools (tools/calibrate/) that write the
# heuristics files of docs/heuristics.md; point COMPI_HEURISTICS=<dir> at the
# directory holding network.txt and codecs.txt to use them.
#   network  compi_calibrate_network, a plain MPI program (no libcompi), on
#            this host or on a private emulated cluster (--vcluster)
#   codecs   compi_calibrate_codecs, MPI-free
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/_launch.sh"

calibrate_usage() {
    cat <<'USAGE'
usage: compi calibrate network [--mpi openmpi|mpich] [--np N] [-o FILE]
                               [--vcluster [--rate RATE] [--nodes K] [--ppn P]]
                               [--rebuild] [--] [compi_calibrate_network args...]
       compi calibrate codecs  [-o FILE] [--mpi openmpi|mpich] [--rebuild]
                               [compi_calibrate_codecs args...]

  network   ping-pong between node leaders (every pair of nodes, in parallel
            rounds; leader and second rank of a node for intra-node), sizes
            2 B .. 128 MiB; writes FILE (default ./network.txt) and prints a
            table per link plus a summary (alpha, MB/s at 64K/1M/8M/max).
            --np N      ranks on this host (default 2; all one node unless you
                        pass --ranks-per-node K to fake nodes)
            --vcluster  on a private emulated cluster instead (name ccalib,
                        subnet $COMPI_BENCH_CALIBRATE_SUBNET, default 10.213.44),
                        brought up and torn down here:
                --rate RATE  link rate (default 100mbit; implies --vcluster)
                --nodes K    emulated nodes (default 2; implies --vcluster)
                --ppn P      ranks per node (default 1; 2 also measures the
                             intra-node links)
                --links A-B:RATE,...  --racks K --cross-rate RATE2
                             links that differ per node pair (compi vcluster up)
            compi_calibrate_network args: --max-bytes SIZE (default 128M)
                --reps N (20)  --max-rtt SEC (30)  --budget SEC (none)
                --ranks-per-node K  --serial (always on with --vcluster)  --quiet
            At 100 Mbit/s a 128 MiB message takes ~11 s each way: the default
            run is a few minutes per node pair; --max-bytes 32M is quicker.
  codecs    every codec on synthetic data (int/float/double/byte classes,
            100 KB .. 3000 KB, redundancy 0..100 %, with and without pattern);
            writes FILE (default ./codecs.txt) with the candidates per class,
            the decompress/compress relations and the full measurement table
            as comments. A few minutes; --quick takes seconds.
            compi_calibrate_codecs args: --quick  --reps N  --sizes LIST
                --codecs LIST  --files F1 F2 ... --class CLASS  --print-c  --quiet
  --mpi      build tree (build/<mpi>) to build/run from (default: what
             `mpirun` is here); for network also the MPI it runs with
  --rebuild  force a (re)build of the build tree first
USAGE
}

# -o FILE as an absolute path: ranks on emulated nodes may not share our cwd.
calibrate_abs() {
    local f=$1
    [[ $f == /* ]] || f=$PWD/$f
    mkdir -p "$(dirname "$f")" || die "cannot create the directory of $f"
    echo "$f"
}

calibrate_network() {
    local mpi="" np=2 out=network.txt vcluster=0 rate=100mbit nodes=2 ppn=1 rebuild=0
    local -a args=() links=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --np) np=${2:?--np needs a value}; shift 2 ;;
            -o|--output) out=${2:?-o needs a file}; shift 2 ;;
            --vcluster) vcluster=1; shift ;;
            --rate) rate=${2:?--rate needs a value}; vcluster=1; shift 2 ;;
            --nodes) nodes=${2:?--nodes needs a value}; vcluster=1; shift 2 ;;
            --ppn) ppn=${2:?--ppn needs a value}; shift 2 ;;
            --links|--racks|--cross-rate) links+=("$1" "${2:?$1 needs a value}"); vcluster=1; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            -h|--help) calibrate_usage; return 0 ;;
            --) shift; args+=("$@"); break ;;
            *) args+=("$1"); shift ;;   # compi_calibrate_network's own options
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    [[ $np =~ ^[0-9]+$ && $np -ge 2 ]] || die "--np must be at least 2"
    [[ $nodes =~ ^[0-9]+$ && $nodes -ge 1 ]] || die "--nodes must be a positive integer"
    [[ $ppn =~ ^[0-9]+$ && $ppn -ge 1 ]] || die "--ppn must be a positive integer"
    (( vcluster == 0 || nodes * ppn >= 2 )) || die "--nodes 1 --ppn 1 is a single rank: nothing to measure"
    out=$(calibrate_abs "$out")

    local bin
    bin=$(compi_program "$mpi" compi_calibrate_network compi_calibrate_network "$rebuild")

    if (( ! vcluster )); then
        echo "=== compi calibrate network: $mpi, $np ranks on this host -> $out ==="
        compi_local_run "$mpi" "$np" "" -- "$bin" -o "$out" "${args[@]}"
        return
    fi
    local name=ccalib subnet=${COMPI_BENCH_CALIBRATE_SUBNET:-10.213.44}
    # The trap tears the cluster down on any exit, also Ctrl-C or failure.
    compi_vcluster_script >/dev/null   # says where to find it when it is not there
    trap 'compi_vcluster_down '"$name" EXIT
    compi_vcluster up --name "$name" --subnet "$subnet" --nodes "$nodes" --rate "$rate" --slots "$ppn" \
        "${links[@]}" >&2
    echo "=== compi calibrate network: $mpi, $nodes emulated nodes x $ppn ranks at $rate${links[*]:+ (${links[*]})} -> $out ==="
    local -a vflags
    mapfile -t vflags < <(compi_vcluster_launch_flags "$mpi")
    # (compi vcluster run passes Open MPI --bind-to none: every emulated node
    # shares this host's cores)
    # --serial: the emulated nodes share this host's cores, so pairs measured
    # at once would slow each other down (real nodes measure a round at once).
    compi_vcluster run --name "$name" --mpi "$mpi" -- \
        "${vflags[@]}" -np $((nodes * ppn)) "$bin" -o "$out" --serial "${args[@]}"
}

calibrate_codecs() {
    local mpi="" out=codecs.txt rebuild=0
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            -o|--output) out=${2:?-o needs a file}; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            -h|--help) calibrate_usage; return 0 ;;
            --) shift; args+=("$@"); break ;;
            *) args+=("$1"); shift ;;
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    out=$(calibrate_abs "$out")
    local bin
    bin=$(compi_program "$mpi" compi_calibrate_codecs compi_calibrate_codecs "$rebuild")
    "$bin" -o "$out" "${args[@]}"
}

calibrate_main() {
    local what=${1:-}
    [[ $# -gt 0 ]] && shift
    case "$what" in
        network) calibrate_network "$@" ;;
        codecs) calibrate_codecs "$@" ;;
        ""|-h|--help|help) calibrate_usage ;;
        *) die "calibrate: unknown target '$what' (network or codecs)" ;;
    esac
}

calibrate_main "$@"
