#!/usr/bin/env bash
# compi-help: run an unmodified MPI program with compi preloaded into its ranks
#
# compi run [--mpi openmpi|mpich] [--build-dir DIR] [--dry-run] -- LAUNCHER ARGS...
#
# The launcher (mpirun, mpirun.openmpi, mpiexec.mpich, ...) is run as given,
# with flags added right after it so that only the RANKS get
#   LD_PRELOAD=<build-dir>/<mpi>/lib/libcompi.so   (Open MPI: -x, MPICH: -genv)
#   (installed compi: P/lib/libcompi-<mpi>.so)
# and every COMPI_* variable of the caller's environment.  mpirun itself is
# not preloaded (LD_PRELOAD in its own environment would interpose on the
# launcher and every daemon).  The library must match the application's MPI
# (and so the launcher's): a libcompi built against the other MPI would
# resolve the wrong symbols.  The MPI comes from --mpi, else the launcher,
# else the application binary's libraries (mpi_of_binary in _common.sh).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

usage() {
    cat <<'USAGE'
usage: compi run [--mpi openmpi|mpich] [--build-dir DIR] [--dry-run] -- LAUNCHER ARGS...

  Runs LAUNCHER ARGS with libcompi preloaded into the ranks, e.g.
    COMPI_MODE=fixed COMPI_CODEC=lz4 compi run -- mpirun -np 4 ./app
    compi run -- mpiexec.mpich -n 4 ./app

  --mpi        which MPI the launcher and application belong to (default:
               detected from the launcher: mpirun.openmpi/orterun -> openmpi,
               mpiexec.mpich/hydra -> mpich, plain mpirun/mpiexec through its
               alternatives symlink, else its --version output; when the
               launcher does not say (a wrapper script), from the libraries
               the application binary links (readelf/ldd: libmpi.so.40 ->
               openmpi, libmpich.so.12 -> mpich). An application linked
               against the other MPI than the launcher's is an error.
  --build-dir  where tools/build.sh put the libraries (default <repo>/build;
               the library is <build-dir>/<mpi>/lib/libcompi.so). An
               installed compi preloads P/lib/libcompi-<mpi>.so instead.
  --dry-run    print the command instead of running it

  COMPI_* variables set in your environment are passed to the ranks
  (Open MPI: -x NAME, MPICH: -genv NAME VALUE).
  For the emulated cluster use: compi vcluster run --compi -- ...
USAGE
}

# The application among the launcher arguments: the first one that is a
# program (a path, or a name in PATH) linked against an MPI.  Prints
# "PATH MPI", or nothing.  Option values (-np 4, a hostfile) are no programs;
# a tool in front of the application (valgrind, env) links no MPI.
run_app_binary() {
    local a m
    for a in "$@"; do
        [[ -n $a && $a != -* && $a != *=* && $a != *" "* ]] || continue
        m=$(mpi_of_binary "$a")
        if [[ -n $m ]]; then echo "$a $m"; return 0; fi
    done
    return 0
}

main() {
    local mpi="" build_dir=${COMPI_BUILD_DIR:-} dry=0
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --build-dir) build_dir=${2:?--build-dir needs a value}; shift 2 ;;
            --dry-run) dry=1; shift ;;
            -h|--help) usage; return 0 ;;
            --) shift; break ;;
            -*) die "run: unknown option '$1' (launcher arguments go after --)" ;;
            *) break ;;
        esac
    done
    [[ $# -ge 1 ]] || { usage >&2; exit 2; }

    local launcher=$1; shift
    command -v "$launcher" >/dev/null 2>&1 || die "launcher '$launcher' not found in PATH"
    [[ -z $mpi ]] || check_mpi_name "$mpi"
    local detected app_mpi app
    detected=$(mpi_of_launcher "$launcher")
    app=$(run_app_binary "$@")
    app_mpi=${app#* }
    app=${app%% *}
    if [[ -z $mpi ]]; then
        mpi=${detected:-$app_mpi}
        [[ -n $mpi ]] || die "can't tell which MPI '$launcher' belongs to (not a known launcher; its --version names no MPI), nor which MPI the application links (no argument after '$launcher' is a program linked against Open MPI or MPICH); pass --mpi openmpi|mpich"
    fi
    if [[ -n $detected && $detected != "$mpi" ]]; then
        die "--mpi $mpi, but '$launcher' is the $detected launcher"
    fi
    if [[ -n $app_mpi && $app_mpi != "$mpi" ]]; then
        local by="--mpi $mpi"
        [[ -n $detected ]] && by="the launcher '$launcher' is $detected's"
        die "'$app' is linked against $app_mpi, but $by: the application, the launcher and compi's library must belong to one MPI"
    fi

    local lib
    lib=$(compi_lib_for "$mpi" "$build_dir")

    local -a flags=()
    local v
    if [[ $mpi == openmpi ]]; then
        flags+=(-x "LD_PRELOAD=$lib")
        for v in $(compi_env_names); do flags+=(-x "$v"); done
    else
        flags+=(-genv LD_PRELOAD "$lib")
        for v in $(compi_env_names); do flags+=(-genv "$v" "${!v}"); done
    fi

    local -a unset_args
    mapfile -t unset_args < <(tool_var_unset_args)
    if (( dry )); then
        printf '%q ' "$launcher" "${flags[@]}" "$@"
        echo
        return 0
    fi
    exec env "${unset_args[@]}" "$launcher" "${flags[@]}" "$@"
}

main "$@"
