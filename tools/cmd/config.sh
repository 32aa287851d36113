#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: effective settings and where each came from (files, environment); --check validates a file
#
# Runs compi_config (tools/config/compi_config.c), which parses the
# configuration files and the COMPI_* environment with the library's own
# code (lib/engine/config.c). Installed, compi_config sits next to this
# script (<prefix>/libexec/compi); in a source tree it is built into
# build/<mpi>/bin like the other MPI-free tools.
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/_launch.sh"

config_usage() {
    cat <<'USAGE'
usage: compi config [--mpi openmpi|mpich] [--rebuild]
       compi config --check FILE...

  Prints every setting libcompi would run with here, its value and where it
  came from: default, the system file (<prefix>/etc/compi/compi.conf of the
  library's installation) with its line, the user file ($COMPI_CONFIG, else
  ${XDG_CONFIG_HOME:-~/.config}/compi/compi.conf) with its line, or the
  environment (COMPI_*). A bad file or value is reported as MPI_Init would
  report it (exit status 2).
  --mpi      whose library's installation to read the system file of
             (default: the one that is built; both: what `mpirun` is here)
  --check    validate configuration files: syntax, keys and every value
  --rebuild  force a (re)build of the build tree first
USAGE
}

# The MPI whose library exists (both or none: what mpirun is here).
config_default_mpi() {
    local have=() m
    for m in openmpi mpich; do
        [[ -e $COMPI_BUILD_DIR/$m/lib/libcompi.so ]] && have+=("$m")
    done
    if [[ ${#have[@]} -eq 1 ]]; then echo "${have[0]}"; else default_mpi; fi
}

config_main() {
    local mpi="" check=0 rebuild=0
    local -a files=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            --check) check=1; shift ;;
            -h|--help) config_usage; return 0 ;;
            -*) config_usage >&2; die "unknown option '$1'" ;;
            *) [[ $check == 1 ]] || { config_usage >&2; die "unexpected argument '$1'"; }
               files+=("$1"); shift ;;
        esac
    done
    [[ $check == 0 || ${#files[@]} -gt 0 ]] || { config_usage >&2; die "--check needs a file"; }
    local here bin lib=""
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    if [[ -x $here/compi_config ]]; then        # installed: <prefix>/libexec/compi
        bin=$here/compi_config
        [[ -n $mpi ]] && check_mpi_name "$mpi"
    else
        mpi=${mpi:-$(config_default_mpi)}
        check_mpi_name "$mpi"
        bin=$(compi_program "$mpi" compi_config compi_config "$rebuild")
    fi
    if [[ $check == 1 ]]; then
        exec "$bin" --check "${files[@]}"
    fi
    # the system file is the one of the library's installation
    if [[ -n $mpi ]]; then
        lib=$( (compi_lib_for "$mpi" "$COMPI_BUILD_DIR") 2>/dev/null || true)
    fi
    if [[ -n $lib ]]; then
        exec "$bin" --lib "$lib"
    fi
    exec "$bin"
}

config_main "$@"
