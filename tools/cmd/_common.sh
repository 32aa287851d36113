# shellcheck shell=bash
# Helpers shared by the compi subcommands (sourced, not run; the leading
# underscore keeps it out of `compi help`).

COMPI_ROOT=${COMPI_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

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

# Which MPI is an application binary built against?  Looks at the shared
# libraries it needs, directly or through others (ldd): Open MPI's libmpi.so.40
# (or another major, libopen-rte/-pal, the Fortran libmpi_mpifh/_usempi*),
# MPICH's libmpich*.so.12 (or libmpi.so.12, MPICH's ABI name).  Prints
# openmpi|mpich|"" ("" for a script, a static binary, or one needing both).
mpi_of_binary() {
    local file=$1 libs ompi=0 mpich=0
    [[ -f $file ]] || { echo ""; return 0; }
    libs=$(ldd "$file" 2>/dev/null | awk '{print $1}') || { echo ""; return 0; }
    local l
    for l in $libs; do
        case "$(basename -- "$l")" in
            libmpich*.so*|libmpi.so.12|libmpi.so.12.*) mpich=1 ;;
            libmpi.so.*|libmpi_mpifh.so*|libmpi_usempi*.so*|libopen-rte.so*|libopen-pal.so*) ompi=1 ;;
        esac
    done
    if (( ompi && !mpich )); then echo openmpi
    elif (( mpich && !ompi )); then echo mpich
    else echo ""
    fi
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

# libcompi.so is built once per MPI by tools/build.sh into
# <build-dir>/<mpi>/lib/libcompi.so; a library built against the other MPI
# would load but crash, so never fall back to it.
compi_lib_for() {
    local mpi=$1 build_dir=${2:-$COMPI_ROOT/build}
    local lib=$build_dir/$mpi/lib/libcompi.so
    [[ -f $lib ]] || die "libcompi for $mpi not found at $lib; run tools/build.sh (it builds build/<mpi>/lib/libcompi.so for each MPI)"
    readlink -f "$lib"
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
