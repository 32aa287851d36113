#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: projects compi at scale: runs an MPI program on a simulated cluster (SimGrid SMPI), plain and per mode
#
# Self-contained (the smpi build of the repository, SimGrid's smpirun and
# simulate_platform.py beside this script); docs/simulate.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# -l options of the shared libraries libcompi needs besides SimGrid's and C's
compi_smpi_libs() {
    readelf -d "$1/lib/libcompi-smpi.so.0" | sed -n 's/.*Shared library: \[lib\([^.]*\)\.so.*/-l\1/p' |
        grep -v -e '^-lsimgrid$' -e '^-lc$' -e '^-lm$' -e '^-lld-linux' | tr '\n' ' '
}
root=${COMPI_ROOT:-$(cd "$here/../.." && pwd)}

usage() {
    cat <<'USAGE'
usage: compi simulate [--topo cluster|fattree|dragonfly] [--nodes N] [--cores C] [--np P]
                      [--rate RATE] [--latency LAT] [--oversub K] [--modes "off fixed:lz4 adaptive"]
                      [--build DIR] [--compute none|measured] [--keep DIR] [--] PROGRAM [ARGS...]

  Runs PROGRAM with P simulated ranks (default nodes x cores) on a generated
  SimGrid platform of N nodes (default 8) of C cores (default 8): once with
  compi off (the plain program) and once per mode, then prints each run's
  simulated time, its speedup over plain and compi's summary, and checks
  that a "RESULT checksum=..." line, when the program prints one, is the
  plain run's. The time is the program's own (a "RESULT ... time_s=" or
  "APP ... time_s=" line, as compi's mini-apps print) or else the whole
  simulated run, start-up included.
  PROGRAM  a C source file (built twice with smpicc: plain, and linked with
           compi), or a program of the smpi build (compi_stencil3d, ...; its
           <name>.compi twin is the linked one)
  --topo   cluster (one switch), fattree (16 hosts per leaf, --oversub K:1
           uplinks), dragonfly (SimGrid's DRAGONFLY)
  --rate, --latency  each node's link (SimGrid units: 1Gbps, 25Gbps; 1us)
  --modes  off | fixed:CODEC | adaptive (adaptive measures the simulated
           network at MPI_Init: COMPI_CALIBRATE=init)
  --build  the smpi build (default build/smpi; tools/build.sh --mpi smpi)
  --compute  none (default): the program's own computation takes no
           simulated time, results are reproducible; measured: SMPI times it
           on this machine (smpi/host-speed from --host-speed, default 1Gf)
  Codec time is charged by compi's codec-cost model (COMPI_SIM_CODEC_COST:
  model, model:F for a CPU F times as fast, measured).
USAGE
}

topo=cluster nodes=8 cores=8 np="" rate=10Gbps latency=1us oversub=1 modes="off fixed:lz4 adaptive"
build=$root/build/smpi compute=none host_speed=1Gf keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --topo) topo=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --cores) cores=$2; shift 2 ;;
        --np) np=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --latency) latency=$2; shift 2 ;;
        --oversub) oversub=$2; shift 2 ;;
        --modes) modes=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --compute) compute=$2; shift 2 ;;
        --host-speed) host_speed=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        -*) echo "compi simulate: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { usage >&2; exit 2; }
prog=$1; shift
np=${np:-$((nodes * cores))}
command -v smpirun >/dev/null || { echo "compi simulate: smpirun not found (apt-get install simgrid libsimgrid-dev)" >&2; exit 1; }
[ -f "$build/lib/libcompi-smpi.a" ] || { echo "compi simulate: no smpi build in $build (tools/build.sh --mpi smpi)" >&2; exit 1; }
case "$compute" in none|measured) ;; *) echo "compi simulate: --compute none|measured" >&2; exit 2 ;; esac
build=$(cd "$build" && pwd)
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi

# the plain and the linked program
case "$prog" in
    *.c)
        [ -f "$prog" ] || { echo "compi simulate: no such file $prog" >&2; exit 1; }
        smpicc -O2 -o "$work/app" "$prog" -lm
        # compi inside the program, its calls bound there (SMPI's MPI_* would
        # come first); the codec libraries are those libcompi-smpi.so needs
        read -ra libs <<<"$(compi_smpi_libs "$build")"
        smpicc -O2 -o "$work/app.compi" "$prog" -Wl,-Bsymbolic -Wl,--whole-archive "$build/lib/libcompi-smpi.a" \
            -Wl,--no-whole-archive "${libs[@]}" -lm -lpthread -ldl
        plain=$work/app linked=$work/app.compi ;;
    */*) plain=$prog linked=$prog.compi ;;
    *) plain=$build/bin/$prog linked=$build/bin/$prog.compi ;;
esac
for f in "$plain" "$linked"; do
    [ -x "$f" ] || { echo "compi simulate: $f is missing (an smpi build program, or a .c file)" >&2; exit 1; }
done

python3 "$here/simulate_platform.py" --topo "$topo" --nodes "$nodes" --cores "$cores" --rate "$rate" \
    --latency "$latency" --oversub "$oversub" --platform "$work/platform.xml" --hostfile "$work/hosts"
# smpi/privatization:mmap: SMPI swaps the program's data segment per rank,
# and compi's code (linked into the program) is one copy for all ranks
cfg=(--cfg=smpi/privatization:mmap --cfg=smpi/coll-selector:ompi --cfg=smpi/tmpdir:"$work"
     --cfg=smpi/send-is-detached-thresh:1000000000 --cfg=smpi/display-timing:yes
     --log=root.thresh:error --log=smpi_mpi.thresh:error --log=smpi_utils.thresh:info)
if [ "$compute" = none ]; then cfg+=(--cfg=smpi/simulate-computation:no); else cfg+=(--cfg=smpi/host-speed:"$host_speed"); fi

# one run: mode -> $work/<mode>.log; prints the simulated time
simulate() {
    local mode=$1 bin=$linked
    shift
    local -a env=(env -u COMPI_MODE -u COMPI_CODEC -u COMPI_CALIBRATE COMPI_VERBOSE=1)
    case "$mode" in
        off) bin=$plain ;;
        fixed:*) env+=(COMPI_MODE=fixed COMPI_CODEC="${mode#fixed:}") ;;
        adaptive) env+=(COMPI_MODE=adaptive COMPI_CALIBRATE=init) ;;
        *) echo "compi simulate: unknown mode $mode (off, fixed:CODEC, adaptive)" >&2; return 2 ;;
    esac
    (cd "$work" && LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${env[@]}" \
        smpirun -np "$np" -platform "$work/platform.xml" -hostfile "$work/hosts" "${cfg[@]}" "$bin" "$@") \
        >"$work/$mode.log" 2>&1 || { echo "compi simulate: the $mode run failed (log: $work/$mode.log)" >&2; tail -5 "$work/$mode.log" >&2; return 1; }
    # the program's own time when it prints one (RESULT ... time_s=, else
    # APP ... time_s=: compi's mini-apps, apps/app_common.h; without
    # MPI_Init, where adaptive calibrates the network), else the whole
    # simulated run
    local own
    own=$(grep -m1 -o 'RESULT .*time_s=[0-9.e+-]*' "$work/$mode.log" | sed 's/.*time_s=//' || true)
    [ -n "$own" ] || own=$(grep -m1 -o '^APP .*time_s=[0-9.e+-]*' "$work/$mode.log" | sed 's/.*time_s=//' || true)
    if [ -n "$own" ]; then echo "$own"; else
        sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$work/$mode.log" | tail -1
    fi
}

echo "compi simulate: $np ranks on $nodes $topo nodes x $cores cores, $rate links, latency $latency$([ "$topo" = fattree ] && echo ", oversubscription $oversub:1")"
echo "  program: $plain $*"
declare -A t sum
rc=0
for mode in off $modes; do
    [ "$mode" = off ] && [ -n "${t[off]:-}" ] && continue
    t[$mode]=$(simulate "$mode" "$@") || { rc=1; continue; }
    sum[$mode]=$(grep -m1 -o 'RESULT checksum=[^ ]*' "$work/$mode.log" || true)
done
[ -n "${t[off]:-}" ] || exit 1
printf '%-14s %14s %9s  %s\n' mode "simulated s" speedup "checksum (RESULT line)"
for mode in off $modes; do
    [ -n "${t[$mode]:-}" ] || continue
    [ "$mode" = off ] && [ "${printed_off:-}" ] && continue
    [ "$mode" = off ] && printed_off=1
    same=""
    if [ -n "${sum[off]}" ]; then
        if [ "${sum[$mode]}" = "${sum[off]}" ]; then same="same as off"; else same="DIFFERS from off"; rc=1; fi
    fi
    printf '%-14s %14s %9s  %s\n' "$mode" "${t[$mode]}" "$(python3 -c "print(f'{${t[off]}/${t[$mode]}:.3f}' if ${t[$mode]} > 0 else '-')")" "$same"
done
for mode in $modes; do
    [ "$mode" = off ] && continue
    [ -f "$work/$mode.log" ] || continue
    echo "--- compi's report, $mode"
    grep -E '^compi(\[0\])?:' "$work/$mode.log" || true
done
exit $rc
