#!/usr/bin/env bash
# compi-help: the showcase: a stencil on 2 emulated nodes, plain vs compi, same checksum
#
# Builds, brings up a private 2-node emulated cluster (2 ranks per node),
# runs compi_stencil3d alternately without and with libcompi.so preloaded
# (--runs times each), checks every field checksum is bitwise identical
# (compression is lossless), prints the median times, the speedup and
# compi's own summary. The cluster is torn down on every exit path (trap).
set -euo pipefail
# shellcheck source=tools/cmd/bench.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"

demo_usage() {
    cat <<'USAGE'
usage: compi demo [--mpi openmpi|mpich] [--codec NAME] [--rate RATE]
                  [--n N] [--nz Z] [--iters I] [--halo sendrecv|isend] [--runs R]
                  [--rebuild] [--keep-logs] [--lib PATH] [--timeout SEC]

  Runs compi_stencil3d (3D heat diffusion, 4 ranks, 2 per emulated node,
  slab decomposition: the slab boundary between the nodes crosses the
  emulated network) plain and with compi (COMPI_MODE=fixed), verifies the
  checksums match and reports the speedup of the medians.
  --mpi    default: what `mpirun` is here
  --codec  default zstd (long runs of identical doubles plus smooth floats)
  --rate   link rate of each emulated node (default 100mbit)
  --n, --nz  local grid N x N x Z per rank (default 128 x 128 x 16: thin
           slabs, as in strong scaling, so halos matter); --iters (default 200)
  --runs   runs of each variant, alternating plain/compi (default 3); the
           medians are compared, since one run on a busy machine is noisy
  --timeout  seconds allowed per run (default 600): a run that hangs (e.g. in
           MPI_Finalize) is killed; its result still counts if it was printed
  --lib    preload PATH instead of build/<mpi>/lib/libcompi.so
  Logs and compi's JSON report go to a temporary directory, printed at the
  end with --keep-logs (else removed).
USAGE
}

# Failures after the runs started keep their logs for a post-mortem.
demo_fail() {
    DEMO_KEEP=1
    note "logs kept in $DEMO_LOGS"
    die "$@"
}

demo_main() {
    local mpi="" codec=zstd rate=100mbit n=128 nz=16 iters=200 halo=sendrecv keep=0 lib="" runs=3 tmo=600
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?}; shift 2 ;;
            --codec) codec=${2:?}; shift 2 ;;
            --rate) rate=${2:?}; shift 2 ;;
            --n) n=${2:?}; shift 2 ;;
            --nz) nz=${2:?}; shift 2 ;;
            --runs) runs=${2:?}; shift 2 ;;
            --timeout) tmo=${2:?}; shift 2 ;;
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
    [[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive integer"
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

    local name=cdemo subnet=${COMPI_BENCH_DEMO_SUBNET:-10.213.42}
    local logs; logs=$(mktemp -d /tmp/compi-demo.XXXXXX)
    # One trap for every exit: failure, Ctrl-C or success. Globals, because
    # the trap runs after this function's locals are gone.
    DEMO_NAME=$name DEMO_LOGS=$logs DEMO_KEEP=$keep
    trap 'bench_vcluster_down "$DEMO_NAME"; [[ $DEMO_KEEP == 1 ]] || rm -rf "$DEMO_LOGS"' EXIT

    bench_vcluster_up "$name" "$subnet" 2 "$rate" 2
    local -a app=("$bin" --nx "$n" --ny "$n" --nz "$nz" --iters "$iters" --halo "$halo")
    # 4 ranks share this machine's cores, but each emulated node claims 2
    # slots, so Open MPI would busy-poll; yielding when idle keeps the ranks
    # (and their TCP progress) from starving each other. Same for both variants.
    local -a launch
    mapfile -t launch < <(bench_vcluster_launch_flags "$mpi")
    [[ $mpi == openmpi ]] && launch+=(--mca mpi_yield_when_idle 1)
    local -a envflags
    mapfile -t envflags < <(bench_env_flags "$mpi" COMPI_MODE=fixed "COMPI_CODEC=$codec" COMPI_VERBOSE=1 \
        "COMPI_REPORT=$logs/report.json")

    # Alternate plain/compi (compi first on even runs) so slow drift in the
    # machine's load hits both variants alike.
    local r v log c t
    local -a t_plain=() t_compi=() cs=()
    for ((r = 1; r <= runs; r++)); do
        for v in $( ((r % 2)) && echo "plain compi" || echo "compi plain"); do
            log=$logs/$v.$r.log
            echo
            local -a runner=(timeout --kill-after=10 "$tmo" bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi")
            local rc=0
            if [[ $v == plain ]]; then
                echo "=== run $r/$runs: plain MPI ($mpi), 4 ranks on 2 emulated nodes at $rate ==="
                "${runner[@]}" -- -np 4 "${launch[@]}" "${app[@]}" 2>&1 | tee "$log" || rc=$?
            else
                echo "=== run $r/$runs: with compi ($mpi, COMPI_MODE=fixed COMPI_CODEC=$codec), same cluster ==="
                "${runner[@]}" --preload "$lib" -- -np 4 "${launch[@]}" "${envflags[@]}" "${app[@]}" 2>&1 | tee "$log" || rc=$?
            fi
            if (( rc == 124 || rc == 137 )); then
                note "$v run $r did not finish within ${tmo}s and was killed"
            elif (( rc != 0 )); then
                demo_fail "$v run $r failed (exit $rc, log: $log)"
            fi
            c=$(sed -n 's/^RESULT checksum=\([0-9a-f]*\).*/\1/p' "$log")
            t=$(sed -n 's/^RESULT .*time_s=\([0-9.]*\).*/\1/p' "$log")
            [[ -n $c && -n $t ]] || demo_fail "$v run $r printed no result (log: $log)"
            cs+=("$v:$c")
            if [[ $v == plain ]]; then t_plain+=("$t"); else t_compi+=("$t"); fi
        done
    done

    local med_plain med_compi cs_plain cs_ok=1 x
    med_plain=$(printf '%s\n' "${t_plain[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
    med_compi=$(printf '%s\n' "${t_compi[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
    cs_plain=${cs[0]#*:}
    for x in "${cs[@]}"; do [[ ${x#*:} == "$cs_plain" ]] || cs_ok=0; done

    echo
    echo "=== summary ==="
    if [[ -f $logs/report.json ]]; then
        echo "compi report ($logs/report.json):"
        python3 - "$logs/report.json" <<'PY' || head -c 2000 "$logs/report.json"
import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("totals", {})
# The few numbers that explain the speedup; the full file has per-rank detail.
print("  run: mode=%s codec=%s min_bytes=%s ranks=%s nodes=%s" % tuple(
    r.get(k, "?") for k in ("mode", "codec", "min_bytes", "world_size", "nodes")))
print("  messages: %s inter-node, %s intra-node (never compressed); raw: %s small, %s incompressible" % tuple(
    t.get(k, "?") for k in ("inter_node_messages", "intra_node_messages", "raw_small", "raw_incompressible")))
for name, c in sorted(t.get("codecs", {}).items()):
    bi, bo = c.get("bytes_in", 0), c.get("bytes_out", 0)
    print("  %s: %s messages, %.1f MB -> %.1f MB (ratio %s)" % (name, c.get("messages", "?"), bi / 1e6, bo / 1e6,
                                                             c.get("ratio", "?")))
print("  codec time, all ranks: compress %s s, decompress %s s" % (t.get("compress_seconds", "?"),
                                                                 t.get("decompress_seconds", "?")))
fam = {k: v for k, v in t.get("families", {}).items() if isinstance(v, dict) and v.get("messages")}
if fam:
    print("  by family: " + ", ".join("%s %s msgs/%.1f MB" % (k, v["messages"], v.get("bytes", 0) / 1e6)
                                      for k, v in fam.items()))
if t.get("calls"):
    print("  calls: " + ", ".join("%s %s" % kv for kv in t["calls"].items()))
PY
    else
        echo "compi report: none written ($logs/report.json missing)"
    fi
    echo "compi's own summary (COMPI_VERBOSE=1, rank 0, last compi run):"
    local last_compi=$logs/compi.$runs.log
    grep -E '^compi: ' "$last_compi" | sed 's/^/  /' || true
    echo
    printf 'plain: median %8.3f s of %d runs (%s)\n' "$med_plain" "$runs" "${t_plain[*]}"
    printf 'compi: median %8.3f s of %d runs (%s)\n' "$med_compi" "$runs" "${t_compi[*]}"
    printf 'checksums: %s\n' "${cs[*]}"
    if (( ! cs_ok )); then
        echo "FAIL: checksums differ: compi changed the data" >&2
        DEMO_KEEP=1
        echo "logs kept in $logs" >&2
        return 1
    fi
    awk -v p="$med_plain" -v c="$med_compi" -v l="$rate" 'BEGIN { printf "speedup: %.2fx (median plain / median compi, 2 nodes at %s, same binary); checksums identical\n", p / c, l }'
    (( keep )) && echo "logs: $logs"
    return 0
}

demo_main "$@"
