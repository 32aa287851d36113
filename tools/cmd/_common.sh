# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Helpers shared by the compi subcommands (sourced, not run; the leading
# underscore keeps it out of `compi help`).

# Where compi's parts are.  In the repository: tools/cmd (these scripts),
# build trees under $COMPI_ROOT/build.  Installed (cmake --install,
# tools/build.sh --prefix P): these scripts in P/libexec/compi next to the
# generated _layout.sh, which gives the other directories relative to it;
# libraries P/lib/libcompi-<mpi>.so, tools in P/libexec/compi[/<mpi>].
# Neither set of variables is exported (COMPI_* names reach ranks).  They
# are for the subcommands that source this file (SC2034: used there).
# shellcheck disable=SC2034
COMPI_CMD_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -f $COMPI_CMD_DIR/_layout.sh ]]; then
    COMPI_INSTALLED=1
    # shellcheck source=/dev/null
    source "$COMPI_CMD_DIR/_layout.sh"
    compi_layout_dir() { if [[ $1 == /* ]]; then echo "$1"; else readlink -m "$COMPI_CMD_DIR/$1"; fi; }
    COMPI_PREFIX=$(compi_layout_dir "$COMPI_LAYOUT_PREFIX")
    COMPI_LIBDIR=$(compi_layout_dir "$COMPI_LAYOUT_LIBDIR")
    COMPI_DATADIR=$(compi_layout_dir "$COMPI_LAYOUT_DATADIR")
    COMPI_SYSCONFDIR=$(compi_layout_dir "$COMPI_LAYOUT_SYSCONFDIR")
    COMPI_TOOL=$(compi_layout_dir "$COMPI_LAYOUT_BINDIR")/compi
    COMPI_LIBEXEC=$COMPI_CMD_DIR
    COMPI_REPORT_SCRIPT=$COMPI_LIBEXEC/compi_report.py
else
    COMPI_INSTALLED=0
    COMPI_ROOT=${COMPI_ROOT:-$(cd "$COMPI_CMD_DIR/../.." && pwd)}
    COMPI_TOOL=$COMPI_ROOT/tools/compi
    COMPI_REPORT_SCRIPT=$COMPI_ROOT/tools/report/compi_report.py
fi

die() { echo "compi: error: $*" >&2; exit 1; }
note() { echo "compi: $*" >&2; }

require_cmds() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || die "'$c' not found in PATH"
    done
}

# Which MPI does a launcher command belong to?  Follows the Debian
# alternatives symlinks (mpirun -> /etc/alternatives/mpirun -> orterun) and
# falls back to asking the launcher itself.  Prints openmpi|mpich|"".
mpi_of_launcher() {
    local cmd=$1 path real base
    path=$(command -v "$cmd" 2>/dev/null) || { echo ""; return 0; }
    real=$(readlink -f "$path")
    base=$(basename "$real")
    case "$base:$real" in
        orterun*|prterun*|*openmpi*) echo openmpi; return 0 ;;
        mpiexec.hydra*|*hydra*|*mpich*) echo mpich; return 0 ;;
    esac
    # unknown name (a wrapper, a custom install): ask it
    local v
    v=$("$path" --version 2>&1 | head -n 5 || true)
    case "$v" in
        *"Open MPI"*|*"Open RTE"*) echo openmpi ;;
        *HYDRA*|*MPICH*) echo mpich ;;
        *) echo "" ;;
    esac
}

# Is this word an MPI launcher (so `compi ... -- mpirun -np 2 ./a` works)?
is_launcher_word() {
    case "$(basename -- "$1")" in
        mpirun|mpiexec|mpirun.*|mpiexec.*|orterun|prterun) return 0 ;;
    esac
    return 1
}

# The launcher to use for an MPI when the user did not name one.
launcher_for_mpi() {
    case "$1" in
        openmpi) command -v mpirun.openmpi >/dev/null && echo mpirun.openmpi || echo mpirun ;;
        mpich) command -v mpiexec.mpich >/dev/null && echo mpiexec.mpich || echo mpiexec ;;
        *) die "unknown MPI '$1' (expected openmpi or mpich)" ;;
    esac
}

# MPI that plain `mpirun` means on this machine (alternatives system).
default_mpi() {
    local m
    m=$(mpi_of_launcher mpirun)
    echo "${m:-openmpi}"
}

check_mpi_name() {
    case "$1" in
        openmpi|mpich) ;;
        *) die "unknown MPI '$1' (expected openmpi or mpich)" ;;
    esac
}

# The libcompi to preload for an MPI.  Built by tools/build.sh into
# <build-dir>/<mpi>/lib/libcompi.so; installed as P/lib/libcompi-<mpi>.so.
# BUILD_DIR (or $COMPI_BUILD_DIR) picks a build tree; without one an
# installed compi uses its own library, a repository checkout build/.  A library
# built against the other MPI would load but crash, so never fall back to it.
compi_lib_for() {
    local mpi=$1 build_dir=${2:-${COMPI_BUILD_DIR:-}} lib
    if [[ -z $build_dir && $COMPI_INSTALLED == 1 ]]; then
        lib=$COMPI_LIBDIR/libcompi-$mpi.so
        [[ -f $lib ]] || die "libcompi for $mpi not found at $lib: this installation ($COMPI_PREFIX) has no $mpi build; install one with tools/build.sh --mpi $mpi --prefix $COMPI_PREFIX"
    else
        build_dir=${build_dir:-$COMPI_ROOT/build}
        lib=$build_dir/$mpi/lib/libcompi.so
        [[ -f $lib ]] || die "libcompi for $mpi not found at $lib; run tools/build.sh (it builds build/<mpi>/lib/libcompi.so for each MPI)"
    fi
    readlink -f "$lib"
}

# Path of one of compi's programs (compi_pingpong, compi_guide, the apps...)
# for an MPI: <build-dir>/<mpi>/bin/NAME in a build tree; installed,
# P/libexec/compi/<mpi>/NAME for MPI programs, P/libexec/compi/NAME for
# MPI-free tools.  Printed even when missing (callers say what is missing).
compi_bin_for() {
    local mpi=$1 name=$2 build_dir=${3:-${COMPI_BUILD_DIR:-}}
    if [[ -z $build_dir && $COMPI_INSTALLED == 1 ]]; then
        if [[ ! -e $COMPI_LIBEXEC/$mpi/$name && -e $COMPI_LIBEXEC/$name ]]; then
            echo "$COMPI_LIBEXEC/$name"
        else
            echo "$COMPI_LIBEXEC/$mpi/$name"
        fi
    else
        echo "${build_dir:-$COMPI_ROOT/build}/$mpi/bin/$name"
    fi
}

# MPI a shared library belongs to, from its soname (and, for the one name
# both MPIs have used, libmpi.so.12, from the symbols of the file PATH).
# Prints openmpi|mpich|"".
mpi_of_soname() {  # SONAME [PATH]
    case "$1" in
        libcompi-openmpi.so*|libmpi.so.[0-9]|libmpi.so.[0-9].*|libmpi.so.[2-9][0-9]*|libmpi_mpifh.so*|libmpi_usempi*.so*|\
        libmpi_cxx.so*|libopen-rte.so*|libopen-pal.so*|liboshmem.so*) echo openmpi ;;
        libcompi-mpich.so*|libmpich*.so*|libmpifort.so*|libmpicxx.so*) echo mpich ;;
        libmpi.so*)
            if [[ -n ${2:-} && -f $2 ]] && command -v readelf >/dev/null 2>&1; then
                local syms
                syms=$(readelf --dyn-syms -W "$2" 2>/dev/null | awk '$5 == "GLOBAL" && $7 != "UND" { print $8 }')
                if grep -q '^ompi_' <<<"$syms"; then echo openmpi; return 0; fi
                if grep -q '^MPIR_' <<<"$syms"; then echo mpich; return 0; fi
            fi
            echo "" ;;
        *) echo "" ;;
    esac
}

# Which MPI is the program FILE (a path, or a command name looked up in
# PATH) linked against?  Looks at the libraries it needs itself (readelf -d),
# then, if none is an MPI's, at every library the loader would map for it
# (ldd: e.g. a solver library that links MPI).  Prints openmpi|mpich, or ""
# when it can't tell (not found, a script, static, or no MPI library);
# dies when it links both MPIs.
mpi_of_binary() {
    local file=$1 path
    if [[ $file == */* ]]; then path=$file; else path=$(command -v -- "$file" 2>/dev/null || true); fi
    [[ -n $path && -f $path && -r $path ]] || { echo ""; return 0; }
    local magic
    magic=$(head -c 4 -- "$path" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    [[ $magic == 7f454c46 ]] || { echo ""; return 0; }
    local deps="" name lpath m found="" why=""
    # "soname path" lines: the direct NEEDED entries first (paths from ldd)
    local ldd_out
    ldd_out=$(ldd -- "$path" 2>/dev/null || true)
    if command -v readelf >/dev/null 2>&1; then
        while IFS= read -r name; do
            lpath=$(awk -v n="$name" '$1 == n && $2 == "=>" { print $3; exit }' <<<"$ldd_out")
            deps+="$name ${lpath:-}"$'\n'
        done < <(readelf -d -W -- "$path" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
    fi
    local pass
    for pass in direct all; do
        if [[ $pass == all ]]; then
            deps=$(awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' <<<"$ldd_out")
        fi
        found="" why=""
        while read -r name lpath; do
            [[ -n $name ]] || continue
            m=$(mpi_of_soname "$name" "$lpath")
            [[ -n $m ]] || continue
            case " $found " in *" $m "*) ;; *) found+=" $m"; why+=" $name ($m)" ;; esac
        done <<<"$deps"
        found=${found# }
        case "$found" in
            openmpi|mpich) echo "$found"; return 0 ;;
            "") ;;
            *) die "'$file' links both Open MPI and MPICH libraries:$why" ;;
        esac
    done
    echo ""
}

# The command-line tools' own COMPI_* variables: never meant for ranks.
# libcompi rejects COMPI_* names it does not know (typo protection), so
# these must not leak into rank environments.
is_tool_var() {
    case "$1" in
        COMPI_ROOT|COMPI_VCLUSTER_*|COMPI_CACHE|COMPI_BUILD_DIR|COMPI_BENCH_*|COMPI_RUN_*) return 0 ;;
    esac
    return 1
}

# Names of the COMPI_* variables set in this environment that are meant for
# the ranks (everything but the tools' own; a misspelt one is passed on so
# the library can reject it loudly).
compi_env_names() {
    local v
    for v in $(compgen -e | grep -E '^COMPI_' || true); do
        is_tool_var "$v" || echo "$v"
    done
}

# `env` arguments that drop the tools' own COMPI_* variables from a launcher's
# environment (hydra forwards its whole environment to ranks by default, and
# locally forked ranks inherit it).
tool_var_unset_args() {
    local v
    for v in $(compgen -e | grep -E '^COMPI_' || true); do
        is_tool_var "$v" && printf '%s\n' -u "$v"
    done
    return 0
}

# A placement written by `compi map -o DIR` (docs/map.md): DIR/placement.txt,
# rankfile, machinefile, env. Dies naming what is missing or malformed.
placement_check() {  # DIR
    local d=$1 f
    [[ -d $d ]] || die "--placement: '$d' is not a directory (made by compi map -o DIR)"
    for f in placement.txt rankfile machinefile env; do
        [[ -f $d/$f ]] || die "--placement: '$d/$f' is missing (made by compi map -o DIR)"
    done
    head -1 "$d/placement.txt" | grep -qx 'compi-placement 1' ||
        die "--placement: '$d/placement.txt' is not a compi placement (first line 'compi-placement 1')"
    tail -1 "$d/placement.txt" | grep -qx 'end' || die "--placement: '$d/placement.txt' is cut short (no 'end' line)"
    local ranks lines
    ranks=$(sed -n 's/^ranks //p' "$d/placement.txt")
    lines=$(grep -c . "$d/machinefile" || true)
    [[ $ranks == "$lines" ]] || die "--placement: '$d/machinefile' has $lines hosts for the placement's $ranks ranks"
}
# The launch must start as many ranks as the placement places: -np/-n/--np N,
# -c N, --ntasks N / --ntasks=N (srun) or -nN, when given (a launch without a
# count takes the machinefile's or the rankfile's). A different count would
# put ranks where the graph did not assume them, or fail inside the launcher.
placement_np_check() {  # DIR LAUNCHER_ARGS...
    local d=$1 ranks np="" a; shift
    ranks=$(sed -n 's/^ranks //p' "$d/placement.txt")
    while [[ $# -gt 0 ]]; do
        a=$1; shift
        case "$a" in
            -np|-n|--np|-c|--ntasks|--n) np=${1:-}; break ;;
            --ntasks=*|--np=*) np=${a#*=}; break ;;
            -n[0-9]*) np=${a#-n}; break ;;
            --) break ;;
        esac
    done
    [[ -z $np || ! $np =~ ^[0-9]+$ || $np == "$ranks" ]] ||
        die "--placement: '$d' places $ranks ranks (compi map of a traced run of $ranks), but the launch asks for $np: trace and map the run with $np ranks"
}

# NAME=VALUE lines the placed run must set (MPICH: the traced run's algorithm pins)
placement_env() { grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$1/env" || true; }
