#!/usr/bin/env bash
# compi-help: the showcase: a stencil on 2 emulated nodes, plain vs compi, same checksum
#
# Builds, brings up a private 2-node emulated cluster (2 ranks per node),
# runs compi_stencil3d once without and once with libcompi.so preloaded,
# checks the field checksums are bitwise identical (compression is lossless),
# prints both times and the speedup, and compi's own summary. The cluster is
# torn down on every exit path (trap).
set -euo pipefail
# shellcheck source=tools/cmd/bench.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"

demo_usage() {
    cat <<'USAGE'
usage: compi demo [--mpi openmpi|mpich] [--codec NAME] [--rate RATE]
                  [--n N] [--iters I] [--halo sendrecv|isend] [--rebuild] [--keep-logs]
                  [--lib PATH]

  Runs compi_stencil3d (3D heat diffusion, 4 ranks, 2 per emulated node,
  slab decomposition: the slab boundary between the nodes crosses the
  emulated network) once plain and once with compi (COMPI_MODE=fixed),
  verifies the checksums match and reports the speedup.
  --mpi    default: what `mpirun` is here
  --codec  default zstd (long runs of identical doubles plus smooth floats)
  --rate   link rate of each emulated node (default 100mbit)
  --n      cells per rank per dimension (default 96); --iters (default 150)
  --lib    preload PATH instead of build/<mpi>/lib/libcompi.so
  Logs and compi's JSON report go to a temporary directory, printed at the
  end with --keep-logs (else removed).
USAGE
}

demo_main() {
    local mpi="" codec=zstd rate=100mbit n=96 iters=150 halo=sendrecv keep=0 lib=
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?}; shift 2 ;;
            --codec) codec=${2:?}; shift 2 ;;
            --rate) rate=${2:?}; shift 2 ;;
            --n) n=${2:?}; shift 2 ;;
            --iters) iters=${2:?}; shift 2 ;;
            --halo) halo=${2:?}; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --keep-logs) keep=1; shift ;;
            --lib) lib=${2:?}; shift 2 ;;
            -h|--help) demo_usage; return 0 ;;
            *) die "demo: unknown option '$1' (see compi demo --help)" ;;
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    require_cmds cmake python3

    local bin
    if [[ -n $lib ]]; then
        [[ -f $lib ]] || die "--lib: no such file '$lib'"
        lib=$(readlink -f "$lib")
        bench_build "$mpi" compi_stencil3d
    else
        bench_build "$mpi" compi compi_stencil3d
        lib=$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")
    fi
    bin=$(bench_bin "$mpi" compi_stencil3d)
    [[ -x $bin ]] || die "compi_stencil3d not built at $bin"

    local name=cdemo subnet=${COMPI_DEMO_SUBNET:-10.213.42}
    local logs; logs=$(mktemp -d /tmp/compi-demo.XXXXXX)
    # One trap for every exit: failure, Ctrl-C or success. Globals, because
    # the trap runs after this function's locals are gone.
    DEMO_NAME=$name DEMO_LOGS=$logs DEMO_KEEP=$keep
    trap 'bench_vcluster_down "$DEMO_NAME"; [[ $DEMO_KEEP == 1 ]] || rm -rf "$DEMO_LOGS"' EXIT

    bench_vcluster_up "$name" "$subnet" 2 "$rate" 2
    local -a app=("$bin" --n "$n" --iters "$iters" --halo "$halo")

    echo "=== 1/2 plain MPI ($mpi), 4 ranks on 2 emulated nodes at $rate ==="
    bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi" -- -np 4 "${app[@]}" 2>&1 |
        tee "$logs/plain.log"

    local -a envflags
    mapfile -t envflags < <(bench_env_flags "$mpi" COMPI_MODE=fixed "COMPI_CODEC=$codec" COMPI_VERBOSE=1 \
        "COMPI_REPORT=$logs/report.json")
    echo
    echo "=== 2/2 with compi ($mpi, COMPI_MODE=fixed COMPI_CODEC=$codec), same cluster ==="
    bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi" --preload "$lib" -- \
        -np 4 "${envflags[@]}" "${app[@]}" 2>&1 | tee "$logs/compi.log"

    local cs_plain cs_compi t_plain t_compi
    cs_plain=$(sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$logs/plain.log")
    cs_compi=$(sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$logs/compi.log")
    t_plain=$(sed -n 's/^RESULT .*time_s=\([0-9.]*\).*/\1/p' "$logs/plain.log")
    t_compi=$(sed -n 's/^RESULT .*time_s=\([0-9.]*\).*/\1/p' "$logs/compi.log")
    [[ -n $cs_plain && -n $t_plain ]] || die "plain run printed no result (log: $logs/plain.log)"
    [[ -n $cs_compi && -n $t_compi ]] || die "compi run printed no result (log: $logs/compi.log)"

    echo
    echo "=== summary ==="
    if [[ -f $logs/report.json ]]; then
        echo "compi report ($logs/report.json):"
        python3 - "$logs/report.json" <<'PY' || cat "$logs/report.json"
import json, sys
r = json.load(open(sys.argv[1]))
def walk(x, pre=""):
    # Flatten to key: value lines; long lists are summarised, not dumped.
    if isinstance(x, dict):
        for k, v in x.items():
            walk(v, f"{pre}{k}.")
    elif isinstance(x, list) and len(x) > 8:
        print(f"  {pre[:-1]}: [{len(x)} entries]")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, f"{pre}{i}.")
    else:
        print(f"  {pre[:-1]}: {x}")
walk(r)
PY
    else
        echo "compi report: none written ($logs/report.json missing)"
    fi
    printf 'plain: %10.3f s   checksum %s\n' "$t_plain" "$cs_plain"
    printf 'compi: %10.3f s   checksum %s\n' "$t_compi" "$cs_compi"
    if [[ $cs_plain != "$cs_compi" ]]; then
        echo "FAIL: checksums differ: compi changed the data" >&2
        DEMO_KEEP=1
        echo "logs kept in $logs" >&2
        return 1
    fi
    awk -v p="$t_plain" -v c="$t_compi" 'BEGIN { printf "speedup: %.2fx (plain/compi, same cluster, same binary); checksums identical\n", p / c }'
    (( keep )) && echo "logs: $logs"
    return 0
}

demo_main "$@"
