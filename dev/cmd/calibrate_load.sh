#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: COMPI_CALIBRATE=init N times on the emulated cluster under a busy loop per core: counts degenerate models
# COMPI_CALIBRATE=init under load: a program that only calls MPI_Init and
# MPI_Finalize, run N times on 2 emulated nodes while BUSY loops (`yes`,
# default one per core) keep every core of this host busy, compi adaptive
# with COMPI_CALIBRATE=init, COMPI_VERBOSE=1 and a report per run. Each run
# is classified from what compi printed and reported:
#   measured   the link's fit was kept (report: source probe)
#   rejected   the fit was degenerate and rejected with a warning: the prior
#              kept (what compi must do with a bad measurement; adaptive
#              mode's start-up probe may measure the link afterwards)
#   degenerate a model that was kept although it switches compi off or
#              describes no link: collective floor >= 2^40 B, or a link
#              whose bandwidth is flat or negative (above 100x the
#              emulated rate, or not positive)
#   failed     the program failed
#   compi calibrate_load [--mpi openmpi|mpich] [--runs N] [--busy K] [--rate RATE] [--ppn P] [--keep DIR]
# Prints one line per run and the counts; exit status 1 when any run was
# degenerate or failed.
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/cmd/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$COMPI_CMD_DIR/_launch.sh"

usage() { sed -n '3,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

mpi="" runs=50 busy=$(nproc) rate=1gbit ppn=1 keep=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --mpi) mpi=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --busy) busy=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --ppn) ppn=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) die "calibrate_load: unknown argument '$1' (--help)" ;;
    esac
done
[[ -n $mpi ]] || mpi=$(default_mpi)
check_mpi_name "$mpi"
[[ $runs =~ ^[0-9]+$ && $busy =~ ^[0-9]+$ && $ppn =~ ^[1-9][0-9]*$ ]] || die "--runs, --busy, --ppn take numbers"
lib=$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")
[[ -f $lib ]] || die "$lib is not built: tools/build.sh --mpi $mpi"
rate_mbps=$(python3 -c "import re,sys; m=re.fullmatch(r'(\d+(?:\.\d+)?)(k|m|g)bit', sys.argv[1].lower());
print(float(m.group(1)) * {'k': 1e-3, 'm': 1, 'g': 1e3}[m.group(2)] / 8 if m else 0)" "$rate")

work=$(mktemp -d)
[[ -n $keep ]] && mkdir -p "$keep" && work=$keep
name=${COMPI_CALLOAD_NAME:-ccalload} subnet=${COMPI_CALLOAD_SUBNET:-10.213.47}
busy_pids=()
cleanup() {
    local p
    for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    compi_vcluster_down "$name"
    [[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/empty.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
C
cc=mpicc.$mpi
command -v "$cc" >/dev/null || cc=mpicc
"$cc" -O2 -o "$work/empty" "$work/empty.c"

compi_vcluster_up "$name" "$subnet" 2 "$rate" "$ppn"
for ((b = 0; b < busy; b++)); do
    yes >/dev/null &
    busy_pids+=($!)
done
mapfile -t vflags < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
declare -A count=([measured]=0 [rejected]=0 [degenerate]=0 [failed]=0)
echo "# $mpi, 2 emulated nodes at $rate x $ppn rank(s), $busy busy loop(s) on $(nproc) cores, $runs runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
    rep=$work/report.$i.json err=$work/stderr.$i
    mapfile -t envflags < <(compi_env_flags "$mpi" COMPI_MODE=adaptive COMPI_CALIBRATE=init COMPI_VERBOSE=1 \
        "COMPI_REPORT=$rep")
    verdict=failed
    if timeout --kill-after=10 120 bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi" --preload "$lib" -- \
        "${vflags[@]}" -np $((2 * ppn)) "${envflags[@]}" "$work/empty" >"$work/stdout.$i" 2>"$err"; then
        verdict=$(python3 - "$rep" "$err" "$rate_mbps" <<'PY'
import json, re, sys
rep, err, rate = sys.argv[1], open(sys.argv[2]).read(), float(sys.argv[3])
m = re.search(r"collective floor (\d+) B", err)
floor = int(m.group(1)) if m else -1
links = []
try:
    for r in json.load(open(rep)).get("ranks", []):
        links += (r.get("engine") or {}).get("links") or []
except (OSError, ValueError):
    pass
mbps = [l.get("bandwidth_MBps") for l in links]
src = sorted({str(l.get("source")) for l in links})
flat = [b for b in mbps if b is None or not b > 0 or (rate > 0 and b > 100 * rate)]
if floor < 0 or not links:
    v = "failed"
elif floor >= 1 << 40 or flat:
    v = "degenerate"
elif "rejected" in err:
    v = "rejected"
else:
    v = "measured"
lat = [l.get("latency_us") for l in links]
print("%s floor=%d source=%s mbps=%s latency_us=%s" % (v, floor, ",".join(src),
      ",".join("%.1f" % b if isinstance(b, (int, float)) else "?" for b in mbps),
      ",".join("%.1f" % a if isinstance(a, (int, float)) else "?" for a in lat)))
PY
        )
    fi
    grep -h "warning" "$err" | sed 's/^/    /' | head -n 2 || true
    echo "run $i: $verdict"
    count[${verdict%% *}]=$((${count[${verdict%% *}]} + 1))
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "RESULT_CALIBRATE_LOAD mpi=$mpi runs=$runs busy=$busy measured=${count[measured]} rejected=${count[rejected]} degenerate=${count[degenerate]} failed=${count[failed]}"
[[ ${count[degenerate]} == 0 && ${count[failed]} == 0 ]]
