# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the foreign suites' runners (romio.sh, mpich_io.sh,
# mpich_suite.sh): the launcher, its environment flags, and a run's outcome.
#
# The oracle of these suites is the plain run: a program must end as it ends
# without compi. Their programs print "No Errors" and exit 0 when they pass,
# so a compi run that ends so needs no comparison; the plain run is made only
# when some compi run of the program did not pass (foreign_need_plain), and
# that run must then end exactly as the plain one.
FOREIGN_PASS="exit=0 noerrors=yes"

foreign_launcher() {   # MPI: sets the array launch=(...) for that MPI
    if [[ $1 == openmpi ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        launch=(mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1)
    else
        launch=(mpiexec.mpich)
    fi
}

foreign_envf() {   # MPI KEY=VALUE...: the launcher's flags passing each to the ranks, one word a line
    local mpi=$1 kv
    shift
    for kv; do
        if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$kv"; else printf '%s\n' -genv "${kv%%=*}" "${kv#*=}"; fi
    done
}

foreign_outcome() {   # LOG STATUS -> "exit=N noerrors=yes|no"
    local ne=no
    grep -qi "no errors" "$1" && ne=yes
    echo "exit=$2 noerrors=$ne"
}

foreign_need_plain() {   # OUTCOME...: true when one of them is not a pass
    local o
    for o; do [[ $o == "$FOREIGN_PASS" ]] || return 0; done
    return 1
}

foreign_accepted() {   # OUTCOME PLAIN: a pass, or the plain run's outcome
    [[ $1 == "$FOREIGN_PASS" || $1 == "$2" ]]
}

# foreign_io_run LABEL DIR NP PROGRAM [ARGS...]: one program of an MPI-IO
# suite (romio.sh, mpich_io.sh) under compi's collective I/O, in each of the
# caller's variants (la: COMPI_IO_AGGREGATORS=la forced onto compi's path,
# COMPI_IO_GATE=off, fixed lz4; la-adaptive: la with the gate on, adaptive),
# 2 ranks per emulated node, and plainly where one of them did not pass. The
# program runs in DIR/files, emptied before each run. Uses the caller's mpi,
# lib, launch, extra (launcher flags) and variants; adds to pass, failn and
# path_total (collective I/O calls on compi's path, from the reports).
# shellcheck disable=SC2154 # mpi, lib, launch, extra, variants: the caller's
foreign_io_run() {
    local label=$1 d=$2 np=$3
    shift 3
    local v mode gate calls base i ok=1 line ev=() gots=() parts=()
    mkdir -p "$d"
    for v in "${variants[@]}"; do
        rm -rf "$d/files"; mkdir -p "$d/files"
        mode=fixed gate=off
        [[ $v == la-adaptive ]] && mode=adaptive gate=on
        mapfile -t ev < <(foreign_envf "$mpi" LD_PRELOAD="$lib" COMPI_IO_AGGREGATORS=la COMPI_IO_GATE=$gate \
                              COMPI_MODE=$mode COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 COMPI_DEBUG_RANKS_PER_NODE=2 \
                              COMPI_REPORT="$d/$v.json")
        (cd "$d/files" && timeout 120 "${launch[@]}" -np "$np" "${extra[@]}" "${ev[@]}" "$@") >"$d/$v.log" 2>&1 </dev/null
        gots+=("$(foreign_outcome "$d/$v.log" $?)")
        calls=$(python3 - "$d/$v.json" <<'PY' 2>/dev/null
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print(0); sys.exit()
print(sum(c["calls"] for f in r.get("io_files", []) for c in f["compi_calls"].values()))
PY
)
        path_total=$((path_total + ${calls:-0}))
        parts+=("$v ${gots[-1]} (compi path calls ${calls:-0})")
    done
    base="not run (compi passed)"
    if foreign_need_plain "${gots[@]}"; then
        rm -rf "$d/files"; mkdir -p "$d/files"
        (cd "$d/files" && timeout 120 "${launch[@]}" -np "$np" "${extra[@]}" "$@") >"$d/plain.log" 2>&1 </dev/null
        base=$(foreign_outcome "$d/plain.log" $?)
    fi
    rm -rf "$d/files"
    for i in "${!gots[@]}"; do foreign_accepted "${gots[i]}" "$base" || ok=0; done
    line="$label np $np: plain $base$(printf '; %s' "${parts[@]}")"
    if ((ok)); then pass=$((pass + 1)); echo "$line"; else failn=$((failn + 1)); echo "FAILED: $line (logs $d)"; fi
}
