#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#
# Slurm: `srun` gets --export=ALL,LD_PRELOAD=<lib> (merged with the user's
# own --export or SLURM_EXPORT_ENV), srun itself runs without LD_PRELOAD; the
# MPI is the program's (mpi_of_binary), srun cannot say.  `sbatch` / `salloc`
# run the job with tools/cmd/jobshims first in PATH: each srun/mpirun/mpiexec
# line of the job becomes `compi run -- <that line>` (see jobshims/srun).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

usage() {
    cat <<'USAGE'
usage: compi run [--mpi openmpi|mpich] [--build-dir DIR] [--placement P] [--dry-run] -- LAUNCHER ARGS...

  Runs LAUNCHER ARGS with libcompi preloaded into the ranks, e.g.
    COMPI_MODE=fixed COMPI_CODEC=lz4 compi run -- mpirun -np 4 ./app
    compi run -- mpiexec.mpich -n 4 ./app
    compi run -- srun --mpi=pmix -N2 -n8 ./app
    compi run -- sbatch -N2 job.sh       (each srun/mpirun/mpiexec in job.sh)

  --mpi        which MPI the launcher and application belong to (default:
               detected from the launcher: mpirun.openmpi/orterun -> openmpi,
               mpiexec.mpich/hydra -> mpich, plain mpirun/mpiexec through its
               alternatives symlink, else its --version output; when the
               launcher does not say (a wrapper script), from the libraries
               the application binary links (readelf/ldd: libmpi.so.40 ->
               openmpi, libmpich.so.12 -> mpich). An application linked
               against the other MPI than the launcher's is an error.
               srun: from the libmpi the program needs; sbatch/salloc: per
               launcher line in the job)
  --build-dir  where tools/build.sh put the libraries (default <repo>/build;
               the library is <build-dir>/<mpi>/lib/libcompi.so). An
               installed compi preloads P/lib/libcompi-<mpi>.so instead.
  --dry-run    print the command instead of running it
  --placement  launch with the placement `compi map -o P` wrote: Open MPI
               mpirun --rankfile P/rankfile; MPICH mpiexec -f P/machinefile
               (one host per rank, in rank order); srun
               --distribution=arbitrary with SLURM_HOSTFILE=P/machinefile.
               Variables in P/env (MPICH: the algorithm pins of the traced
               run, so the collectives send what the graph assumed) go to
               the ranks. Do not pass another host list or mapping option.

  COMPI_* variables set in your environment are passed to the ranks
  (Open MPI: -x NAME, MPICH: -genv NAME VALUE, srun: --export=ALL).
  srun/sbatch/salloc: the job must inherit your environment (--export=ALL,
  the default; srun's --export=NONE or a list is extended with LD_PRELOAD
  and the COMPI_* names).  Options of srun/sbatch that take a value are
  recognised as -n 4, -n4, --ntasks 4 and --ntasks=4.
  For the emulated cluster use: compi vcluster run --compi -- ...
USAGE
}

# srun/sbatch/salloc options that take a value as the next word (--opt VALUE
# or -o VALUE); options with an optional value only take it as --opt=VALUE.
# From `srun --help` / `sbatch --help` of Slurm 22.05.
SLURM_SHORT_WITH_VALUE=AaBbCcDdeGiJLMmNnopqrSTtWwxF
SLURM_LONG_WITH_VALUE=" account acctg-freq array bb bbf bcast bcast-exclude begin chdir clusters
 cluster-constraint comment constraint container core-spec cores-per-socket cpu-freq cpus-per-gpu
 cpus-per-task deadline delay-boot dependency distribution epilog error export export-file extra-node-info
 gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket gpus-per-task gres gres-flags het-group input
 jobid job-name licenses mail-type mail-user mcs-label mem mem-per-cpu mem-per-gpu mincpus mpi
 network nodefile nodelist nodes ntasks ntasks-per-core ntasks-per-gpu ntasks-per-node ntasks-per-socket
 output partition power priority profile prolog qos relative reservation signal slurmd-debug
 sockets-per-node switches task-epilog task-prolog thread-spec threads threads-per-core time time-min
 tmp uid wait wckey exclude "

# Splits a Slurm command's arguments: SL_OPTS (its options, the user's
# --export removed and kept in SL_EXPORT / SL_EXPORT_SET), SL_PROG (first
# word after the options, "" if none) and SL_REST (the program's arguments).
split_slurm_args() {
    SL_OPTS=() SL_PROG="" SL_REST=() SL_EXPORT="" SL_EXPORT_SET=0
    local a
    while [[ $# -gt 0 ]]; do
        a=$1
        case "$a" in
            --export=*) SL_EXPORT=${a#--export=}; SL_EXPORT_SET=1; shift; continue ;;
            --export) [[ $# -ge 2 ]] || die "$SL_NAME: --export needs a value"
                      SL_EXPORT=$2; SL_EXPORT_SET=1; shift 2; continue ;;
            --) shift; break ;;
            --*=*) SL_OPTS+=("$a"); shift; continue ;;
            --*) SL_OPTS+=("$a"); shift
                 if [[ $SLURM_LONG_WITH_VALUE == *" ${a#--} "* ]]; then
                     [[ $# -ge 1 ]] || die "$SL_NAME: $a needs a value"
                     SL_OPTS+=("$1"); shift
                 fi
                 continue ;;
            -?) SL_OPTS+=("$a"); shift
                # sbatch's -W is --wait (no value), srun's --wait=SECONDS
                if [[ $SLURM_SHORT_WITH_VALUE == *"${a#-}"* && "$SL_NAME:$a" != sbatch:-W ]]; then
                    [[ $# -ge 1 ]] || die "$SL_NAME: $a needs a value"
                    SL_OPTS+=("$1"); shift
                fi
                continue ;;
            -*) SL_OPTS+=("$a"); shift; continue ;;   # -n4, -vvv
        esac
        break
    done
    if [[ $# -ge 1 ]]; then SL_PROG=$1; shift; SL_REST=("$@"); fi
}

# The --export value for srun that gives the tasks LD_PRELOAD=$1 (plus the
# caller's own LD_PRELOAD after it) on top of what the user asked for ($2:
# their --export, or SLURM_EXPORT_ENV, or "" = ALL).  With ALL the COMPI_*
# variables come along with the environment; with NONE or an explicit list,
# their names are added.  srun splits the value at commas.
srun_export_value() {
    local preload=$1 user=${2:-ALL} item all=0 extra=${LD_PRELOAD:-}
    local -a items=() out=()
    IFS=, read -r -a items <<<"$user"
    for item in "${items[@]}"; do
        case "$item" in
            ALL) all=1 ;;
            NONE|NIL) ;;
            LD_PRELOAD) ;;                            # the caller's: already in $extra
            LD_PRELOAD=*) extra=${item#LD_PRELOAD=} ;;
            "") ;;
            *) out+=("$item") ;;
        esac
    done
    preload=$preload${extra:+:$extra}
    [[ $preload != *,* ]] || die "srun: LD_PRELOAD '$preload' contains a comma, which srun's --export cannot carry"
    if (( all )); then
        out=(ALL "${out[@]}")
    else
        local v; for v in $(compi_env_names); do out+=("$v"); done
    fi
    out+=("LD_PRELOAD=$preload")
    local IFS=,
    echo "${out[*]}"
}

run_srun() {
    local mpi=$1 build_dir=$2 dry=$3 launcher=$4; shift 4
    SL_NAME=srun
    split_slurm_args "$@"
    [[ -n $SL_PROG ]] || die "srun: no program to run (compi run -- srun [options] PROGRAM ...)"
    local prog_path detected
    prog_path=$(command -v -- "$SL_PROG" 2>/dev/null || true)
    detected=$(mpi_of_binary "${prog_path:-$SL_PROG}")
    if [[ -z $mpi ]]; then
        [[ -n $detected ]] || die "srun: can't tell which MPI '$SL_PROG' is built with (${prog_path:-not found in PATH or the current directory}: no libmpi of Open MPI or MPICH among its libraries; a script or a static binary?); pass --mpi openmpi|mpich"
        mpi=$detected
    fi
    check_mpi_name "$mpi"
    [[ -z $detected || $detected == "$mpi" ]] || die "--mpi $mpi, but '$SL_PROG' is built with $detected"
    local lib export_user=""
    lib=$(compi_lib_for "$mpi" "$build_dir")
    if (( SL_EXPORT_SET )); then export_user=$SL_EXPORT; else export_user=${SLURM_EXPORT_ENV:-}; fi
    local export_value; export_value=$(srun_export_value "$lib" "$export_user")
    local -a cmd=("$launcher" "--export=$export_value" "${SL_OPTS[@]}" "$SL_PROG" "${SL_REST[@]}")
    local -a unset_args
    mapfile -t unset_args < <(tool_var_unset_args)
    if (( dry )); then
        printf '%q ' "${cmd[@]}"; echo; return 0
    fi
    # srun itself: no preload, and the export comes from the flag
    exec env "${unset_args[@]}" -u LD_PRELOAD -u SLURM_EXPORT_ENV "${cmd[@]}"
}

# Submit-time check of a job script's plain `srun ... PROGRAM` lines: a
# PROGRAM that exists now and whose MPI cannot be told would fail inside the
# job (its srun line, see jobshims); say so before submitting.  Programs
# given through variables, or not there yet, are left to run time.
check_job_srun_lines() {
    local script=$1 line n=0 prog path
    local -a words
    while IFS= read -r line || [[ -n $line ]]; do
        n=$((n + 1))
        [[ $line =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*[[:space:]]+)*srun[[:space:]]+(.*)$ ]] || continue
        read -r -a words <<<"${BASH_REMATCH[2]}"
        SL_NAME="$script line $n: srun"
        split_slurm_args "${words[@]}"
        prog=$SL_PROG
        [[ -n $prog && $prog != *'$'* && $prog != [\<\>\|\&\;]* ]] || continue
        path=$(command -v -- "$prog" 2>/dev/null || true)
        [[ -n $path && -f $path ]] || continue
        [[ -n $(mpi_of_binary "$path") ]] ||
            die "$script line $n: can't tell which MPI '$prog' is built with (no libmpi of Open MPI or MPICH among its libraries); pass --mpi openmpi|mpich to compi run"
    done <"$script"
}

# sbatch / salloc: the job runs with jobshims first in PATH (see the shims).
run_job() {
    local mpi=$1 build_dir=$2 dry=$3 launcher=$4 build_dir_given=$5; shift 5
    SL_NAME=$(basename -- "$launcher")
    split_slurm_args "$@"
    local job_export=$SL_EXPORT
    if (( !SL_EXPORT_SET )) && [[ $SL_NAME == sbatch ]]; then
        job_export=${SBATCH_EXPORT:-}
        if [[ -z $job_export && -n $SL_PROG && -f $SL_PROG ]]; then   # #SBATCH --export in the script
            job_export=$(sed -n 's/^#SBATCH.*--export[= ]\([^ ]*\).*/\1/p' "$SL_PROG" | tail -n 1)
        fi
    fi
    case "$job_export" in
        ""|ALL|ALL,*) ;;
        *) die "$SL_NAME --export=$job_export: the job must inherit your environment (PATH and COMPI_*) for compi to reach its tasks; use --export=ALL[,...]" ;;
    esac
    if [[ $SL_NAME == sbatch && -n $SL_PROG && -f $SL_PROG ]] &&
        ! grep -Eq '(^|[^A-Za-z0-9_.-])(srun|mpirun|mpiexec|orterun)([^A-Za-z0-9_-]|$)' "$SL_PROG"; then
        note "$SL_PROG has no srun/mpirun/mpiexec line: nothing in this job will be preloaded"
    fi
    [[ -z $mpi ]] || check_mpi_name "$mpi"
    [[ -n $mpi || $SL_NAME != sbatch || -z $SL_PROG || ! -f $SL_PROG ]] || (check_job_srun_lines "$SL_PROG") || exit 1   # subshell: it re-splits SL_*
    local shims
    shims=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/jobshims
    [[ -x $shims/srun ]] || die "the launcher shims are missing ($shims/srun)"
    local -a envs=("PATH=$shims:$PATH")
    [[ -n $mpi ]] && envs+=("COMPI_RUN_MPI=$mpi")
    (( build_dir_given )) && envs+=("COMPI_BUILD_DIR=$(readlink -f "$build_dir")")
    local -a cmd=("$launcher" "${SL_OPTS[@]}")
    (( SL_EXPORT_SET )) && cmd+=("--export=$SL_EXPORT")
    [[ -n $SL_PROG ]] && cmd+=("$SL_PROG" "${SL_REST[@]}")
    if (( dry )); then
        printf '%q ' env "${envs[@]}" "${cmd[@]}"; echo; return 0
    fi
    exec env "${envs[@]}" "${cmd[@]}"
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
    local mpi="" build_dir=${COMPI_BUILD_DIR:-} dry=0 build_dir_given=0 placement=""
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --placement) placement=${2:?--placement needs a directory}; shift 2 ;;
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --build-dir) build_dir=${2:?--build-dir needs a value}; build_dir_given=1; shift 2 ;;
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
    if [[ -n $placement ]]; then
        placement_check "$placement"
        placement_np_check "$placement" "$@"
    fi
    case "$(basename -- "$launcher")" in
        srun)
            if [[ -n $placement ]]; then
                local pv
                while IFS= read -r pv; do export "${pv?}"; done < <(placement_env "$placement")
                export SLURM_HOSTFILE
                SLURM_HOSTFILE=$(readlink -f "$placement/machinefile")
                set -- --distribution=arbitrary "$@"
            fi
            run_srun "$mpi" "$build_dir" "$dry" "$launcher" "$@"; return ;;
        sbatch|salloc) run_job "$mpi" "$build_dir" "$dry" "$launcher" "$build_dir_given" "$@"; return ;;
    esac
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
        if [[ -n $placement ]]; then
            flags+=(--rankfile "$(readlink -f "$placement/rankfile")")
            while IFS= read -r v; do flags+=(-x "$v"); done < <(placement_env "$placement")
        fi
    else
        # hydra forwards the caller's environment to the ranks, so a caller's
        # LD_PRELOAD would reach them without compi: keep it, after libcompi
        flags+=(-genv LD_PRELOAD "$lib${LD_PRELOAD:+:$LD_PRELOAD}")
        for v in $(compi_env_names); do flags+=(-genv "$v" "${!v}"); done
        if [[ -n $placement ]]; then
            flags+=(-f "$(readlink -f "$placement/machinefile")")
            while IFS= read -r v; do flags+=(-genv "${v%%=*}" "${v#*=}"); done < <(placement_env "$placement")
        fi
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
