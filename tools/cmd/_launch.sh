# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Helpers of the product commands that launch or locate compi's programs
# (sourced after _common.sh, not run; the leading underscore keeps it out of
# `compi help`).  The development commands in dev/cmd (bench, vcluster)
# source it too; nothing here is benchmark code, and nothing here builds
# anything unless the user asked for it (--rebuild).

# Build trees: $COMPI_BUILD_DIR/<mpi> (default build/ in the repository, as
# tools/build.sh makes them).  An installed compi runs its installed
# programs unless COMPI_BUILD_DIR names a build tree.
if [[ $COMPI_INSTALLED == 1 ]]; then
    COMPI_BUILD_DIR=${COMPI_BUILD_DIR:-}
else
    COMPI_BUILD_DIR=${COMPI_BUILD_DIR:-$COMPI_ROOT/build}
fi

# Builds the given targets (e.g. compi compi_guide) for one MPI.  Only called
# when a build was asked for (--rebuild, or a development command).  An
# existing build tree is updated incrementally; a missing one (or, with
# COMPI_FORCE_BUILD=1, any) is made by tools/build.sh when it is the
# repository's build/, else configured with plain cmake.
compi_build() {  # MPI TARGET...
    local mpi=$1; shift
    if [[ -z $COMPI_BUILD_DIR ]]; then
        die "an installed compi builds nothing: its programs are in $COMPI_LIBEXEC (COMPI_BUILD_DIR names a build tree to use instead)"
    fi
    local bd=$COMPI_BUILD_DIR/$mpi
    if [[ $COMPI_INSTALLED == 1 ]]; then
        [[ -f $bd/CMakeCache.txt ]] || die "no build tree at $bd (COMPI_BUILD_DIR); an installed compi builds nothing"
    elif [[ ! -f $bd/CMakeCache.txt || ${COMPI_FORCE_BUILD:-0} == 1 ]]; then
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

# Path of one of compi's programs for MPI (compi_bin_for), checked to be
# there.  With REBUILD=1 (the command's --rebuild) TARGET is (re)built first;
# otherwise nothing is built and a missing program is an error naming the
# command that builds it.
compi_program() {  # MPI NAME TARGET REBUILD
    local mpi=$1 name=$2 target=$3 rebuild=$4 bin
    if [[ $rebuild == 1 ]]; then
        COMPI_FORCE_BUILD=1 compi_build "$mpi" "$target"
    fi
    bin=$(compi_bin_for "$mpi" "$name" "$COMPI_BUILD_DIR")
    if [[ ! -x $bin ]]; then
        if [[ $COMPI_INSTALLED == 1 && -z $COMPI_BUILD_DIR ]]; then
            die "$name is missing from this installation ($bin); reinstall with tools/build.sh --mpi $mpi --prefix $COMPI_PREFIX"
        fi
        die "$name is not built ($bin): build with tools/build.sh --mpi $mpi, or add --rebuild"
    fi
    echo "$bin"
}

# Launcher flags that put the COMPI_* settings into the ranks' environment.
# Needed explicitly: on the emulated cluster ranks start with a clean
# environment (like over ssh), and Open MPI only forwards what -x names.
# Usage: compi_env_flags MPI NAME=VALUE...  -> prints one flag per line.
compi_env_flags() {
    local mpi=$1; shift
    local kv
    for kv in "$@"; do
        if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$kv"
        else printf '%s\n' -genv "${kv%%=*}" "${kv#*=}"; fi
    done
}

# `env -u` arguments removing every COMPI_* variable from a launcher's
# environment. compi rejects unknown COMPI_* names (typo protection), and a
# locally forked rank inherits everything, including the tool's own
# COMPI_ROOT; the settings meant for ranks are passed explicitly instead.
compi_unset_all_args() {
    local v
    for v in $(compgen -e | grep -E '^COMPI_' || true); do printf '%s\n' -u "$v"; done
}

# Intra-node launch of an MPI job with optional preload; with BENCH_TIMEOUT
# set, the launcher is killed after that many seconds.
# Usage: compi_local_run MPI NP PRELOAD(or "") ENVFLAGS... -- CMD...
compi_local_run() {
    local mpi=$1 np=$2 preload=$3; shift 3
    local -a flags=()
    while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
    shift
    local launcher; launcher=$(launcher_for_mpi "$mpi")
    local -a clean pre=()
    mapfile -t clean < <(compi_unset_all_args)
    [[ -n ${BENCH_TIMEOUT:-} ]] && pre=(timeout --kill-after=10 "$BENCH_TIMEOUT")
    if [[ $mpi == openmpi ]]; then
        [[ -n $preload ]] && flags+=(-x "LD_PRELOAD=$preload")
        env "${clean[@]}" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            "${pre[@]}" "$launcher" -np "$np" --oversubscribe "${flags[@]}" "$@"
    else
        [[ -n $preload ]] && flags+=(-genv LD_PRELOAD "$preload")
        env "${clean[@]}" "${pre[@]}" "$launcher" -n "$np" "${flags[@]}" "$@"
    fi
}

# Median of numbers, one per line on stdin ("" when none).
compi_median() {
    sort -g | awk '{a[NR] = $1} END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# The variants of round REP in the order they run: round r starts with the
# r-th variant, so every variant runs early and late alike and drift in the
# machine's load hits all of them.
compi_round_order() {  # REP VARIANT...
    local rep=$1 i; shift
    local -a m=("$@")
    for ((i = 0; i < ${#m[@]}; i++)); do echo "${m[(i + rep - 1) % ${#m[@]}]}"; done
}

# --- the emulated cluster -------------------------------------------------------
# The emulated cluster (network namespaces linked by tc-shaped veths; needs
# root) is development tooling: dev/cmd/vcluster.sh in compi's source tree,
# never installed.  The product commands that run on it (compi demo,
# compi calibrate --vcluster) take it from the repository they run from;
# installed, from the source tree named by COMPI_ROOT (an installation
# names no source tree of its own: it may outlive it or move).
compi_vcluster_script() {
    local root=${COMPI_ROOT:-}
    if [[ -z $root || ! -f $root/dev/cmd/vcluster.sh ]]; then
        die "this needs the emulated cluster (root, network namespaces, tc), which is development tooling in compi's source tree (dev/cmd/vcluster.sh) and not installed: set COMPI_ROOT to a compi source tree${root:+ (not found: $root/dev/cmd/vcluster.sh)}"
    fi
    echo "$root/dev/cmd/vcluster.sh"
}

# compi vcluster ARGS... from wherever the emulated cluster is.
compi_vcluster() {
    local script
    script=$(compi_vcluster_script) || exit 1
    bash "$script" "$@"
}

# Private emulated cluster: its own name and subnet so it can coexist with a
# cluster someone else has up on this machine.
compi_vcluster_up() {  # NAME SUBNET NODES RATE SLOTS
    compi_vcluster up --name "$1" --subnet "$2" --nodes "$3" --rate "$4" --slots "$5" >&2
}
compi_vcluster_down() {  # NAME
    compi_vcluster down --name "$1" >&2 || true
}

# Launcher flags for the emulated cluster. MPICH's hydra forwards mpiexec's
# whole environment (with the dispatcher's COMPI_ROOT) unless told not to;
# -envnone makes it behave like Open MPI there: only what is named travels.
compi_vcluster_launch_flags() {
    [[ $1 == mpich ]] && printf '%s\n' -envnone
    return 0
}

# Launcher flags that make an MPI's waiting ranks yield the core after a
# poll that found nothing (emulated nodes share this host's cores; on a real
# cluster each rank has its own): Open MPI mpi_yield_when_idle; MPICH 4.0
# has no such setting (its yield is compiled to nothing on Linux), so the
# emulated cluster's preloaded UCX shim does it when VCLUSTER_MPICH_YIELD=1
# (dev/cmd/vcluster_ucx_close.c). Usage: compi_idle_flags MPI yield|poll
compi_idle_flags() {
    [[ $2 == yield ]] || return 0
    if [[ $1 == openmpi ]]; then printf '%s\n' --mca mpi_yield_when_idle 1
    else printf '%s\n' -genv VCLUSTER_MPICH_YIELD 1; fi
}

# Test hook, not a user feature: with COMPI_BENCH_TEST_WRAP=PROGRAM set,
# bench apps and the demo run each rank as PROGRAM APP ARGS... instead of
# APP ARGS... (tests/vcluster/test_bench_apps.sh runs the ranks under strace
# to count their sched_yield calls). Usage: compi_test_wrap ARRAY_NAME
compi_test_wrap() {
    [[ -n ${COMPI_BENCH_TEST_WRAP:-} ]] || return 0
    local -n compi_test_wrap_cmd=$1
    compi_test_wrap_cmd=("$COMPI_BENCH_TEST_WRAP" "${compi_test_wrap_cmd[@]}")
}
