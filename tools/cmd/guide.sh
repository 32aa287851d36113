#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: guided mode: turn a trace directory into per-rank rules (rules.<rank>.txt)
#
# The GUIDED strategy (docs/guided.md): trace a run with COMPI_MODE=trace
# COMPI_TRACE=<dir>, run `compi guide <dir>`, then replay with
# COMPI_MODE=guided COMPI_RULES=<dir>. This script runs compi_guide (an
# MPI-free tool: installed, or in build/<mpi>/bin like the other tools;
# --rebuild builds it first).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/_launch.sh"

guide_usage() {
    cat <<'USAGE'
usage: compi guide <trace dir> [-o RULES_DIR] [--heuristics DIR] [--min-speedup X]
                   [--all-codecs] [--time-ms MS] [--level N] [-v|--verbose] [-q|--quiet]
                   [--mpi openmpi|mpich] [--rebuild]

  Reads <trace dir>/trace.<rank>.bin and writes RULES_DIR/rules.<rank>.txt
  (default: the trace directory). For every message key of every rank it
  compresses the recorded samples with the codec model's candidates for the
  key's datatype class (every codec with --all-codecs), predicts the speedup
  over the network model's link to the peer's node, and picks the best codec
  if it reaches --min-speedup (default 1.05), else raw. Intra-node keys are
  always raw.
  --heuristics DIR  network.txt / codecs.txt from `compi calibrate` (default
                    $COMPI_HEURISTICS, else the built-in models)
  --time-ms MS      timing budget per sample and codec (default 1)
  --level N         codec effort the guided run will code with, -100..22
                    (default $COMPI_LEVEL, else 0 = each codec's default);
                    the samples are coded at that level
  -v                a line per key (-v -v: per codec too)
  --mpi             build tree to build/run compi_guide from (default: what
                    `mpirun` is here; the tool itself does not use MPI)
  --rebuild         force a (re)build of the build tree first

  Then: COMPI_MODE=guided COMPI_RULES=RULES_DIR compi run ... (ranks without
  rules, or with stale ones, fall back to the adaptive mode with a warning).
USAGE
}

guide_main() {
    local mpi="" rebuild=0
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            -h|--help) guide_usage; return 0 ;;
            *) args+=("$1"); shift ;;
        esac
    done
    [[ ${#args[@]} -gt 0 ]] || { guide_usage >&2; return 2; }
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    local bin
    bin=$(compi_program "$mpi" compi_guide compi_guide "$rebuild")
    exec "$bin" "${args[@]}"
}

guide_main "$@"
