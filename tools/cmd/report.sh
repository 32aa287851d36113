#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: summarise (and plot) a COMPI_REPORT JSON: codecs, ranks, adaptive-engine decisions
#
# A thin wrapper: the work is in tools/report/compi_report.py (standard library,
# plus matplotlib for --plot). It picks a python3 that has matplotlib when a
# plot is asked for: the python3 first in PATH may be a private one (pyenv,
# venv) without Debian's python3-matplotlib, which /usr/bin/python3 has.
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

report_usage() {
    cat <<'USAGE'
usage: compi report REPORT.json [--plot OUT.png] [--windows N] [--all-ranks]

  Summarises the JSON report a run with COMPI_REPORT=REPORT.json wrote at
  MPI_Finalize: mode, ranks/nodes, per-codec messages / bytes in / bytes out /
  ratio / bytes saved, inter- vs intra-node counts, raw small /
  incompressible, compress/decompress seconds, a per-rank table, and for the
  adaptive/guided modes the engine's windows (per rank, datatype class and
  link: thresholds, chosen codec, raw/evaluated/compressed decisions,
  mistakes, restarts, re-evaluations, back-offs, predicted vs observed
  speedup) and guided-rule hits/misses.
  --plot OUT.png  also draw (PNG) the decision timeline of the busiest engine
                  windows (share of raw/evaluated/compressed messages per bin
                  of consecutive messages) and the bytes saved per codec;
                  without an engine section (modes off/fixed) only the latter.
                  Needs matplotlib (python3-matplotlib, in tools/install-deps.sh).
  --windows N     timelines for at most N windows, the busiest (default 8)
  --all-ranks     per-rank table also for more than 16 ranks
  Exit status 1 (with the cause) when the file is not a compi report.
USAGE
}

# A python3 that can import matplotlib, else plain python3 (the script then
# says what is missing if a plot was asked for).
report_python() {
    local want_mpl=$1 p
    if [[ $want_mpl == 1 ]]; then
        for p in python3 /usr/bin/python3; do
            command -v "$p" >/dev/null 2>&1 || continue
            if "$p" -c 'import matplotlib' >/dev/null 2>&1; then echo "$p"; return 0; fi
        done
    fi
    command -v python3 >/dev/null 2>&1 && { echo python3; return 0; }
    [[ -x /usr/bin/python3 ]] && { echo /usr/bin/python3; return 0; }
    die "python3 not found"
}

report_main() {
    local a plot=0
    [[ $# -eq 0 ]] && { report_usage >&2; exit 2; }
    for a in "$@"; do
        case "$a" in
            -h|--help) report_usage; return 0 ;;
            --plot|--plot=*) plot=1 ;;
        esac
    done
    local py
    py=$(report_python "$plot")
    exec "$py" "$COMPI_REPORT_SCRIPT" "$@"
}

report_main "$@"
