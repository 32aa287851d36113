#!/usr/bin/env bash
# compi-help: benchmarks: plain MPI vs compi in the same run (pingpong, stream)
#
# compi_pingpong measures both paths in one process (PMPI_* = plain, MPI_* =
# compi when preloaded), so the ratio it prints needs no second run. This
# script builds it, preloads libcompi.so, sets COMPI_MODE/COMPI_CODEC for the
# ranks, and runs it intra-node and/or across two emulated nodes.
#
# demo.sh sources this file for bench_build / bench_env_flags / bench_vcluster_*;
# main only runs when executed.
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

COMPI_TOOL=$COMPI_ROOT/tools/compi
# Build trees live in $COMPI_BUILD_DIR/<mpi> (default build/, as tools/build.sh makes them).
COMPI_BUILD_DIR=${COMPI_BUILD_DIR:-$COMPI_ROOT/build}

bench_usage() {
    cat <<'USAGE'
usage: compi bench pingpong [--mpi openmpi|mpich] [--codec NAME] [--vcluster]
                            [--rate RATE] [--no-intra] [--rebuild] [--]
                            [compi_pingpong args...]

  Runs compi_pingpong with 2 ranks on this node (compi never compresses
  intra-node, so expect speedup ~1: it shows compi's pass-through cost), and
  with --vcluster also with 2 ranks on 2 emulated nodes linked at RATE
  (default 100mbit), where compression pays.
  --mpi       MPI to build/run with (default: what `mpirun` is here)
  --codec     COMPI_CODEC for the ranks (default lz4); COMPI_MODE=fixed.
              Other COMPI_* variables in your environment (COMPI_MIN_BYTES,
              COMPI_VERBOSE, COMPI_REPORT, ...) are passed through too.
  --no-intra  only the vcluster run
  --rebuild   force a (re)build first; otherwise builds only what is missing
              or out of date in build/<mpi>
  --lib PATH  preload this library instead of build/<mpi>/lib/libcompi.so
  compi_pingpong args (see compi_pingpong --help):
    --sizes 1:64M | 8M[,..]   --data random,zeros,...|all   --reps N
    --budget SEC  --mode pingpong|stream  --window W  --pair A,B  --quiet
  The emulated cluster is a private one (name cbench, subnet
  $COMPI_BENCH_SUBNET, default 10.213.41), brought up and torn down here.
  Output: a table per data set plus "RESULT key=value ..." lines.
USAGE
}

# Build the given targets (e.g. compi compi_pingpong) for one MPI. An existing build tree
# is updated incrementally (cheap, and never runs stale binaries); a missing
# one is made by tools/build.sh when it exists (the lead's canonical build),
# else by plain cmake.
bench_build() {
    local mpi=$1; shift
    local bd=$COMPI_BUILD_DIR/$mpi
    if [[ ! -f $bd/CMakeCache.txt || ${BENCH_REBUILD:-0} == 1 ]]; then
        if [[ -f $COMPI_ROOT/tools/build.sh && $COMPI_BUILD_DIR -ef $COMPI_ROOT/build ]]; then
            note "building with tools/build.sh"
            bash "$COMPI_ROOT/tools/build.sh" --mpi "$mpi" >&2
        fi
        if [[ ! -f $bd/CMakeCache.txt ]]; then
            note "configuring $bd"
            cmake -S "$COMPI_ROOT" -B "$bd" -DCOMPI_MPI="$mpi" >&2
        fi
    fi
    # A tree copied from another build dir still points at the original (its
    # Makefiles use absolute paths): building "here" would rebuild someone
    # else's tree. Use it as it is, and say so.
    local origin
    origin=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$bd/CMakeCache.txt")
    if [[ -n $origin && ! $origin -ef $bd ]]; then
        note "warning: $bd is a copy of $origin; not rebuilding it (binaries may be stale; rm -rf $bd to rebuild)"
        return 0
    fi
    note "building $* in $bd"
    cmake --build "$bd" -j"$(nproc)" --target "$@" >&2 ||
        die "build failed in $bd (targets: $*)"
}

bench_bin() { echo "$COMPI_BUILD_DIR/$1/bin/$2"; }

# Launcher flags that put the COMPI_* settings into the ranks' environment.
# Needed explicitly: on the emulated cluster ranks start with a clean
# environment (like over ssh), and Open MPI only forwards what -x names.
# Usage: bench_env_flags MPI NAME=VALUE...  -> prints one flag per line.
bench_env_flags() {
    local mpi=$1; shift
    local kv
    for kv in "$@"; do
        if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$kv"
        else printf '%s\n' -genv "${kv%%=*}" "${kv#*=}"; fi
    done
}

# COMPI_* settings from the caller's environment, as NAME=VALUE lines, minus
# the ones we set ourselves and the tool's own variables.
bench_passthrough_env() {
    local v
    for v in $(compi_env_names); do
        case "$v" in COMPI_MODE|COMPI_CODEC|COMPI_BENCH_*|COMPI_BUILD_DIR) continue ;; esac
        printf '%s=%s\n' "$v" "${!v}"
    done
}

# `env -u` arguments removing every COMPI_* variable from a launcher's
# environment. compi rejects unknown COMPI_* names (typo protection), and a
# locally forked rank inherits everything, including the tool's own
# COMPI_ROOT; the settings meant for ranks are passed explicitly instead.
bench_unset_compi_args() {
    local v
    for v in $(compgen -e | grep -E '^COMPI_' || true); do printf '%s\n' -u "$v"; done
}

# Launcher flags for the emulated cluster. MPICH's hydra forwards mpiexec's
# whole environment (with the dispatcher's COMPI_ROOT) unless told not to;
# -envnone makes it behave like Open MPI there: only what is named travels.
bench_vcluster_launch_flags() {
    [[ $1 == mpich ]] && printf '%s\n' -envnone
    return 0
}

# Private emulated cluster for benchmarks: its own name and subnet so it can
# coexist with a cluster someone else has up on this machine.
bench_vcluster_up() {  # NAME SUBNET NODES RATE SLOTS
    bash "$COMPI_TOOL" vcluster up --name "$1" --subnet "$2" --nodes "$3" --rate "$4" --slots "$5" >&2
}
bench_vcluster_down() {  # NAME
    bash "$COMPI_TOOL" vcluster down --name "$1" >&2 || true
}

# Intra-node launch of an MPI job with optional preload.
# Usage: bench_local_run MPI NP PRELOAD(or "") ENVFLAGS... -- CMD...
bench_local_run() {
    local mpi=$1 np=$2 preload=$3; shift 3
    local -a flags=()
    while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
    shift
    local launcher; launcher=$(launcher_for_mpi "$mpi")
    local -a clean
    mapfile -t clean < <(bench_unset_compi_args)
    if [[ $mpi == openmpi ]]; then
        [[ -n $preload ]] && flags+=(-x "LD_PRELOAD=$preload")
        env "${clean[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            "$launcher" -np "$np" --oversubscribe "${flags[@]}" "$@"
    else
        [[ -n $preload ]] && flags+=(-genv LD_PRELOAD "$preload")
        env "${clean[@]}" "$launcher" -n "$np" "${flags[@]}" "$@"
    fi
}

bench_pingpong() {
    local mpi="" codec=lz4 vcluster=0 rate=100mbit intra=1 lib=""
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --codec) codec=${2:?--codec needs a value}; shift 2 ;;
            --vcluster) vcluster=1; shift ;;
            --rate) rate=${2:?--rate needs a value}; vcluster=1; shift 2 ;;
            --no-intra) intra=0; shift ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --lib) lib=${2:?--lib needs a path}; shift 2 ;;
            -h|--help) bench_usage; return 0 ;;
            --) shift; args+=("$@"); break ;;
            *) args+=("$1"); shift ;;   # compi_pingpong's own options
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    (( intra || vcluster )) || die "--no-intra without --vcluster leaves nothing to run"

    # libcompi.so too, unless --lib names another library to preload
    if [[ -n $lib ]]; then bench_build "$mpi" compi_pingpong; else bench_build "$mpi" compi compi_pingpong; fi
    local bin
    bin=$(bench_bin "$mpi" compi_pingpong)
    [[ -x $bin ]] || die "compi_pingpong not built at $bin"
    if [[ -n $lib ]]; then
        [[ -f $lib ]] || die "--lib: no such file '$lib'"
        lib=$(readlink -f "$lib")
    else
        lib=$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")
    fi

    local -a envkv=("COMPI_MODE=fixed" "COMPI_CODEC=$codec")
    mapfile -t -O 2 envkv < <(bench_passthrough_env)
    local -a envflags
    mapfile -t envflags < <(bench_env_flags "$mpi" "${envkv[@]}")

    if (( intra )); then
        echo "=== compi bench pingpong: $mpi, 2 ranks on this node, ${envkv[*]} ==="
        bench_local_run "$mpi" 2 "$lib" "${envflags[@]}" -- "$bin" "${args[@]}"
    fi
    if (( vcluster )); then
        local name=cbench subnet=${COMPI_BENCH_SUBNET:-10.213.41}
        # The trap tears the cluster down on any exit, also Ctrl-C or failure.
        trap 'bench_vcluster_down '"$name" EXIT
        bench_vcluster_up "$name" "$subnet" 2 "$rate" 1
        echo "=== compi bench pingpong: $mpi, 2 ranks on 2 emulated nodes at $rate, ${envkv[*]} ==="
        local -a vflags
        mapfile -t vflags < <(bench_vcluster_launch_flags "$mpi")
        bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi" --preload "$lib" -- \
            "${vflags[@]}" -np 2 "${envflags[@]}" "$bin" "${args[@]}"
    fi
}

bench_main() {
    local what=${1:-}
    [[ $# -gt 0 ]] && shift
    case "$what" in
        pingpong) bench_pingpong "$@" ;;
        ""|-h|--help|help) bench_usage ;;
        *) die "bench: unknown benchmark '$what' (available: pingpong)" ;;
    esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    bench_main "$@"
fi
