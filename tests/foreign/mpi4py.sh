#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Foreign MPI test suite: run mpi4py's own unittest suite with and without
# libcompi.so LD_PRELOADed and require identical per-test outcomes.
#
# Usage: tests/foreign/mpi4py.sh [--mpi openmpi|mpich|both] [--np 1,2[,3]]
#                                [--lib <libcompi.so>] [--self-check]
#                                [--timeout SECS] [--out DIR]
#   --lib         library to preload (default: build/<mpi>/lib/libcompi.so,
#                 per MPI); "{mpi}" in it is replaced by openmpi/mpich.
#   --self-check  run the baseline twice instead (harness check; needs no
#                 libcompi.so).
#   --skip REGEX=REASON  (repeatable) report tests whose id matches as
#                 skipped in both runs: for investigating what lies behind a
#                 hang, never for making the run green.
# Env: COMPI_CACHE (default ~/.cache/compi) holds the sdist and the venvs;
#      FOREIGN_MPI4PY_PYTHON overrides the python used (default /usr/bin/python3).
# Last output line: "N passed, N failed" over (mpi x np) configurations.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

# 3.1.6: its sdist ships the Cython-generated C, so building needs only a C
# compiler + setuptools (4.0.x needs Cython at build time); it builds with
# Python 3.11, Open MPI 4.1 and MPICH 4.0.
MPI4PY_VERSION=3.1.6
# Debian's python3 deliberately (not the pyenv one on PATH): it is the same
# on every machine of this kind, has python3-dev/venv, and its numpy
# (python3-numpy) is reused through --system-site-packages so no wheel build
# is needed.  runtests.py 3.1.x also imports distutils, gone in Python 3.12.
PYTHON=${FOREIGN_MPI4PY_PYTHON:-/usr/bin/python3}

MPIS=both
NPS=1,2
LIB=
SELF_CHECK=0
TIMEOUT=600
OUT=
USER_SKIPS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --mpi) MPIS=$2; shift 2 ;;
        --np) NPS=$2; shift 2 ;;
        --lib) LIB=$2; shift 2 ;;
        --self-check) SELF_CHECK=1; shift ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --skip) USER_SKIPS+=(--skip "$2"); shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
[ "$MPIS" = both ] && MPIS="openmpi mpich"
MPIS=${MPIS//,/ }
NPS=${NPS//,/ }

CACHE=${COMPI_CACHE:-$HOME/.cache/compi}/mpi4py
mkdir -p "$CACHE"
if [ -z "$OUT" ]; then OUT=$(mktemp -d "${TMPDIR:-/tmp}/compi-mpi4py.XXXXXX"); fi
mkdir -p "$OUT"
# Open MPI refuses to run as root without these (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
log() { echo "[mpi4py $(date +%H:%M:%S)] $*"; }

# --- fetch the sdist once --------------------------------------------------
SDIST=$CACHE/mpi4py-$MPI4PY_VERSION.tar.gz
if [ ! -s "$SDIST" ]; then
    log "downloading mpi4py==$MPI4PY_VERSION sdist"
    "$PYTHON" -m pip download --no-binary :all: --no-deps --disable-pip-version-check \
        -d "$CACHE" "mpi4py==$MPI4PY_VERSION" >"$CACHE/download.log" 2>&1 \
        || { cat "$CACHE/download.log"; exit 1; }
fi
SRC=$CACHE/src/mpi4py-$MPI4PY_VERSION
if [ ! -f "$SRC/test/runtests.py" ]; then
    mkdir -p "$CACHE/src"
    tar -xzf "$SDIST" -C "$CACHE/src"
fi

# --- per-MPI settings ------------------------------------------------------
mpicc_of() { case "$1" in openmpi) echo mpicc.openmpi ;; mpich) echo mpicc.mpich ;; *) return 1 ;; esac; }

launcher_of() { # launcher_of MPI NP -> words of the launch command
    case "$1" in
        # --oversubscribe: np may exceed the 2 cores; yield_when_idle keeps
        # oversubscribed busy-polling ranks from starving each other.
        openmpi) echo "mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1 -n $2" ;;
        mpich) echo "mpiexec.mpich -n $2" ;;
    esac
}

# What to leave out of a configuration, as arguments for runtests.py (-e
# takes a regex on module names) and mpi4py_runner.py (--skip REGEX=REASON
# reports single tests as skipped in both runs).  Each entry was measured or
# observed on the 2-core machine; see the comments.
exclusions_of() { # exclusions_of MPI NP -> runner args, then "--", then runtests args
    local mpi=$1 np=$2 runner=() rt=()
    if [ "$np" -ge 2 ]; then
        # Pure rank-local datatype decoding (no messages), 20-40 s per run
        # per rank; fully covered by the np=1 run.
        runner+=(--skip '^test_util_dtlib\.=rank-local, covered at np=1')
    fi
    case "$mpi" in
        openmpi)
            # test_spawn: with Open MPI 4.1 the cases spawning into new slots
            # hang in PMIx connect/accept (pmix_base_exchange_timeout, >600 s)
            # under --oversubscribe, and without it all fail MPI_ERR_SPAWN.
            rt+=(-e test_spawn) ;;
        mpich)
            # ~80 s at np=2 (MPICH ch3 passive-target progress with two
            # polling ranks on 2 shared cores); compi wraps no RMA call, and
            # request-based RMA (test_rma_nb) still runs.
            if [ "$np" -ge 2 ]; then
                runner+=(--skip '^test_rma\.TestRMAWorld\.testAccumulate$=~80 s with MPICH at np>=2')
            fi ;;
    esac
    printf '%s\n' "${runner[@]}" -- "${rt[@]}"
}

build_mpi4py() { # -> venv path on stdout
    local mpi=$1 mpicc venv
    mpicc=$(mpicc_of "$mpi")
    venv=$CACHE/venv-$MPI4PY_VERSION-$mpi-$("$PYTHON" -c 'import sys;print("py%d%d"%sys.version_info[:2])')
    # Rebuild when the MPI installation changes (stamp = mpicc's command line).
    local stamp; stamp="$($mpicc -show 2>/dev/null || $mpicc --showme 2>/dev/null || true)"
    if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$stamp" ] &&
       "$venv/bin/python" -c 'import mpi4py' 2>/dev/null; then
        echo "$venv"; return
    fi
    rm -rf "$venv"
    "$PYTHON" -m venv --system-site-packages "$venv" >&2
    # --no-build-isolation: setuptools comes from Debian's python3, so the
    # build needs no extra downloads. -O0 -g0 (after Python's own -O3 -g):
    # the suite tests calls, not mpi4py's speed, and its 196,000-line mpi4py.MPI.c
    # then compiles in a fifth of the CPU time (14 s against 64 s).
    if ! CFLAGS="-O0 -g0" MPICC=$mpicc "$venv/bin/python" -m pip install --no-build-isolation --no-deps \
            --no-cache-dir --disable-pip-version-check "$SDIST" >"$venv.build.log" 2>&1; then
        cat "$venv.build.log" >&2; return 1
    fi
    echo "$stamp" > "$venv/.stamp"
    echo "$venv"
}

# One run of the suite: each rank writes its own log (rank.N.log) so
# outputs of different ranks never interleave.  compi is preloaded only in
# the rank processes (not into mpirun/mpiexec themselves).
run_suite() { # run_suite MPI NP VENV DIR PRELOAD
    local mpi=$1 np=$2 venv=$3 dir=$4 preload=$5 rc=0
    rm -rf "$dir"; mkdir -p "$dir"
    local -a env=()
    if [ -n "$preload" ]; then
        # DEBUG_RANKS_PER_NODE=1: every rank is its own node, so every
        # message takes the compressed path.  The report proves compi ran.
        env=(COMPI_MODE=fixed COMPI_MIN_BYTES=0 COMPI_DEBUG_RANKS_PER_NODE=1
             COMPI_REPORT="$dir/compi-report.json" FOREIGN_MPI4PY_PRELOAD="$preload")
    fi
    local -a runner_args=("${USER_SKIPS[@]}") rt_args=() words
    mapfile -t words < <(exclusions_of "$mpi" "$np")
    local w seen=0
    for w in "${words[@]}"; do
        if [ "$w" = -- ]; then seen=1; continue; fi
        [ -z "$w" ] && continue
        if [ "$seen" = 0 ]; then runner_args+=("$w"); else rt_args+=("$w"); fi
    done
    set +e
    (
        cd "$dir"
        # libcompi rejects unknown COMPI_* variables, and COMPI_CACHE is ours.
        unset COMPI_CACHE
        export "${env[@]}" FOREIGN_MPI4PY_DIR="$dir"
        # shellcheck disable=SC2046  # word splitting of the launcher is wanted
        timeout -k 10 "$TIMEOUT" $(launcher_of "$mpi" "$np") \
            bash "$HERE/mpi4py-rank.sh" "$venv/bin/python" "$HERE/mpi4py_runner.py" \
            "${runner_args[@]}" -- "$SRC/test/runtests.py" -v --no-builddir "${rt_args[@]}"
    ) >"$dir/launcher.log" 2>&1
    rc=$?
    set -e
    echo "$rc" > "$dir/rc"
    # After a timeout the launcher may leave ranks behind: kill the ones
    # this run started (pids recorded by mpi4py-rank.sh), and only those.
    local f pid
    for f in "$dir"/pid.*; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        if kill -0 "$pid" 2>/dev/null && grep -qz "FOREIGN_MPI4PY_DIR=$dir" "/proc/$pid/environ" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    return 0
}

passed=0; failed=0
if [ ${#USER_SKIPS[@]} -gt 0 ]; then log "NOTE: extra skips from the command line: ${USER_SKIPS[*]}"; fi
t_all=$(date +%s)
for mpi in $MPIS; do
    t0=$(date +%s)
    mpicc_of "$mpi" >/dev/null || { echo "unknown MPI: $mpi" >&2; exit 2; }
    log "$mpi: building mpi4py $MPI4PY_VERSION"
    venv=$(build_mpi4py "$mpi")
    lib=${LIB//\{mpi\}/$mpi}
    if [ "$SELF_CHECK" = 1 ]; then
        lib=
    elif [ -z "$lib" ]; then
        lib=$ROOT/build/$mpi/lib/libcompi.so
    fi
    if [ "$SELF_CHECK" = 0 ] && [ ! -f "$lib" ]; then
        log "$mpi: $lib not found (build it first, or use --self-check)"
        for np in $NPS; do failed=$((failed + 1)); done
        continue
    fi
    [ -n "$lib" ] && lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
    for np in $NPS; do
        cfg=$mpi-np$np
        log "$cfg: baseline run"
        t1=$(date +%s)
        run_suite "$mpi" "$np" "$venv" "$OUT/$cfg/baseline" ""
        t2=$(date +%s)
        if [ "$SELF_CHECK" = 1 ]; then
            log "$cfg: second baseline run (self-check)"
        else
            log "$cfg: run with LD_PRELOAD=$lib"
        fi
        run_suite "$mpi" "$np" "$venv" "$OUT/$cfg/compared" "$lib"
        t3=$(date +%s)
        log "$cfg: baseline $((t2 - t1))s, compared $((t3 - t2))s"
        report=()
        [ "$SELF_CHECK" = 0 ] && report=(--compi-report "$OUT/$cfg/compared/compi-report.json")
        if "$PYTHON" "$HERE/compare_results.py" --config "$cfg" "${report[@]}" \
                --allow "$HERE/mpi4py-expected-diffs.txt" --tsv "$OUT/$cfg/diff.tsv" \
                "$OUT/$cfg/baseline" "$OUT/$cfg/compared"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
    log "$mpi: total $(( $(date +%s) - t0 ))s"
done
log "all done in $(( $(date +%s) - t_all ))s; logs in $OUT"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
