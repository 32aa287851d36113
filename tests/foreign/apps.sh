#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's own builds of real MPI applications, run plainly and with libcompi
# preloaded (every rank its own node, COMPI_MIN_BYTES=0, so every message
# between ranks is a compi message), 4 ranks:
#   scalapack  ScaLAPACK's test drivers (scalapack-mpi-test, both MPIs):
#              LU, QR, Cholesky, least squares, eigen- and singular value
#              solvers, PBLAS, and the BLACS tester (xCbtest/xFbtest: BLACS
#              sends sub-matrices as MPI derived datatypes and builds its
#              broadcasts and combines on point-to-point). The oracle is
#              ScaLAPACK's own residual checks: the counts of tests passed,
#              failed and skipped must be those of the plain run.
#   hpcc       HPC Challenge (Open MPI build): HPL, PTRANS, MPI RandomAccess,
#              MPI FFT, STREAM, DGEMM, b_eff; every check it prints
#              (residuals passed, "Found 0 errors", "Success=1").
#   lammps     LAMMPS (Open MPI build): examples melt (Lennard-Jones) and
#              peptide (PPPM long-range: FFTs over MPI). melt's thermo
#              output must equal the plain run's as printed. peptide's must
#              agree to 1e-3 relative (or 2 units of the last digit
#              printed): compi's floating-point Allreduce sums in node
#              order, which may differ from the MPI's own in the last bits
#              (docs/limits.md), and the trajectory amplifies that (fixed
#              mode, 300 steps: up to 1.5e-4 in the pressure, a difference
#              of large terms). The count of identical numbers is printed.
# compi's path must have run: fixed variants, the report's decoded frames
# (> 0); adaptive, the messages between nodes compi decided (> 0: it may
# rightly send the drivers' small random matrices raw).
# usage: tests/foreign/apps.sh [--mpi openmpi|mpich|both] [--variants fixed[,adaptive,nodes2]]
#        [--only REGEX] [--all] [--out DIR]
# (default: fixed; --all: every ScaLAPACK driver, and fixed,adaptive,nodes2)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage="usage: $0 [--mpi openmpi|mpich|both] [--variants fixed[,adaptive,nodes2]] [--only REGEX] [--all] [--out DIR]"
mpis=both out="" variants_csv="" only="" all=0
while (($#)); do
    case $1 in
        --mpi) mpis=$2; shift 2 ;;
        --variants) variants_csv=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --all) all=1; shift ;;
        --out) out=$2; shift 2 ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
[[ $mpis == both ]] && mpis="openmpi mpich"
if [[ -n $variants_csv ]]; then IFS=, read -r -a variants <<<"$variants_csv"
elif ((all)); then variants=(fixed adaptive nodes2)
else variants=(fixed); fi
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/compi_apps.XXXXXX")}
mkdir -p "$out"
sl=/usr/lib/x86_64-linux-gnu/scalapack
# The drivers CI runs (each about 1-3 s at 4 ranks under Open MPI): one per
# family, the BLACS tester, and the PBLAS level 1-3 testers. MPICH's ranks
# poll without yielding, so 4 of them on 2 cores run the chatty drivers
# (LU, eigensolvers, PBLAS 3, BLACS tester) past 2 minutes plainly: CI runs
# the band and tridiagonal solvers there. xsllt and xdllt are left out of
# --all too: they run past 5 minutes plainly at 4 ranks.
declare -A ci_drivers=(
    [openmpi]="xdlu xzqr xdinv xdls xdsvd xzevc xdgblu xddtlu xdhrd dpb1tst dpb2tst dpb3tst zpb3tst xCbtest"
    [mpich]="xddtlu xdgblu xzdblu")
too_slow="xsllt xdllt"

# outcome of a run: what the program itself checked
outcome() { # $1 kind, $2 log, $3 exit status
    case $1 in
        scalapack)
            # drivers: counts of tests passed/failed/skipped; BLACS tester:
            # its per-test PASSED/FAILED lines and totals
            echo "exit=$3"
            grep -E 'tests? (completed|skipped)|TESTS:|^ *(PASSED|FAILED) ' "$2" | sed 's/  */ /g' | sort | uniq -c ;;
        hpcc)
            echo "exit=$3"
            grep -E 'Success=|errors in|Validates|Node\(s\) with error|\.\.\.\.\.\. (PASSED|FAILED)' "$2" |
                sed -E 's/=[ 0-9.e+-]+\.\.\.\.\.\./= ....../' | sort | uniq -c ;;
        lammps)
            echo "exit=$3"
            grep -c -E '^Loop time' "$2" ;;
    esac
}
# lammps: the thermo numbers of two logs, equal to a relative tolerance or
# to 2 units of the last digit printed (0: bitwise as printed)
thermo_close() { # $1 plain log, $2 log, $3 example
    local tol=0
    [[ $3 == peptide ]] && tol=1e-3
    python3 - "$1" "$2" "$tol" <<'PY'
import re, sys
NUM = re.compile(r"(?<![\w.])-?\d+(?:\.(\d+))?(?:[eE]([-+]?\d+))?(?![\w.])")
def nums(p):
    t = open(p).read()
    out = []
    for block in re.findall(r"(?ms)^ *(?:Step|-+ Step).*?^Loop time", t):
        for line in block.splitlines():
            if "CPU" in line or line.startswith("Loop"): continue
            for m in NUM.finditer(line):
                ulp = 10.0 ** (int(m.group(2) or 0) - len(m.group(1) or ""))
                out.append((float(m.group(0)), ulp))
    return out
a, b = nums(sys.argv[1]), nums(sys.argv[2])
if not a or len(a) != len(b):
    print(f"thermo: {len(a)} numbers plainly, {len(b)} with compi"); sys.exit(1)
tol = float(sys.argv[3])
bad = [(x, y) for (x, u), (y, _) in zip(a, b)
       if x != y and (tol == 0 or abs(x - y) > max(tol * max(abs(x), abs(y)), 2 * u))]
same = sum(x == y for (x, _), (y, _) in zip(a, b))
print(f"thermo: {same}/{len(a)} numbers identical" + (f", {len(bad)} differ beyond tolerance: {bad[:3]}" if bad else ""))
sys.exit(1 if bad else 0)
PY
}
path_count() { # $1 report, $2 variant
    local key=frames_decoded
    [[ $2 == adaptive ]] && key=inter_node_decided
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$key" 2>/dev/null || echo 0
}

pass=0 failn=0 skipn=0
run_one() { # $1 mpi, $2 kind, $3 name, $4 work dir, rest: command
    local mpi=$1 kind=$2 name=$3 wd=$4
    shift 4
    [[ -n $only && ! $name =~ $only ]] && return
    local d=$out/$mpi/$name lib=$root/build/$mpi/lib/libcompi.so
    mkdir -p "$d"
    local launch
    if [[ $mpi == openmpi ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        launch=(mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1 -np 4)
    else
        launch=(mpiexec.mpich -n 4)
    fi
    envf() { if [[ $mpi == openmpi ]]; then printf '%s\n' -x "$1"; else printf '%s\n' -genv "${1%%=*}" "${1#*=}"; fi; }
    # hpcc writes its results to hpccoutf.txt in the working directory:
    # appended to each run's log
    runin() { # $1 log, rest: env words
        local log=$1 rc
        shift
        rm -f "$wd/hpccoutf.txt"
        (cd "$wd" && timeout 300 "${launch[@]}" "$@" "${cmd[@]}" >"$log" 2>&1 </dev/null)
        rc=$?
        [[ $kind == hpcc && -f $wd/hpccoutf.txt ]] && cat "$wd/hpccoutf.txt" >>"$log"
        return $rc
    }
    local cmd=("$@") t0=$SECONDS base
    runin "$d/plain.log"
    base=$(outcome "$kind" "$d/plain.log" $?)
    local v mode ev got ok why
    for v in "${variants[@]}"; do
        case $v in
            fixed) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=1) ;;
            adaptive) mode=(COMPI_MODE=adaptive COMPI_DEBUG_RANKS_PER_NODE=1) ;;
            nodes2) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=2) ;;
            *) echo "$usage" >&2; exit 2 ;;
        esac
        mapfile -t ev < <(for kv in LD_PRELOAD="$lib" "${mode[@]}" COMPI_MIN_BYTES=0 \
                                    COMPI_REPORT="$d/$v.json"; do envf "$kv"; done)
        runin "$d/$v.log" "${ev[@]}"
        got=$(outcome "$kind" "$d/$v.log" $?)
        ok=1 why=""
        if [[ $got != "$base" ]]; then
            ok=0 why="outcome differs from the plain run's (logs: $d)"
        elif [[ $kind == lammps ]] && ! why=$(thermo_close "$d/plain.log" "$d/$v.log" "${name#lammps-}"); then
            ok=0
        elif (($(path_count "$d/$v.json" "$v") == 0)); then
            ok=0 why="compi's path did not run (report: $d/$v.json)"
        fi
        if ((ok)); then
            pass=$((pass + 1))
            echo "ok: $name $mpi $v ${why:+($why) }($((SECONDS - t0)) s)"
        else
            failn=$((failn + 1))
            echo "FAILED: $name $mpi $v: $why"
            diff <(echo "$base") <(echo "$got") | head -8
        fi
    done
}

for mpi in $mpis; do
    [[ -f $root/build/$mpi/lib/libcompi.so ]] || { echo "apps: build/$mpi missing (tools/build.sh --mpi $mpi)"; failn=$((failn + 1)); continue; }
    tests=$sl/$mpi-tests
    if [[ -d $tests ]]; then
        wd=$out/$mpi/scalapack-data
        mkdir -p "$wd"
        cp /usr/share/scalapack/*.dat /usr/share/scalapack/PBLAS/*.dat /usr/share/scalapack/BLACS/*.dat "$wd"/
        # the BLACS tester's auxiliary tests end in BLACS_ABORT (no
        # MPI_Finalize, so no report): its send, broadcast and combine
        # tests only
        sed -i "s/^'T'\( *Run AUX?\)/'F'\1/" "$wd/bt.dat"
        if ((all)); then
            drivers=$(find "$tests" -maxdepth 2 -type f \( -name 'x*' -o -name '*tst' \) -printf '%f\n' | sort)
        else
            drivers=${ci_drivers[$mpi]}
        fi
        for p in $drivers; do
            [[ " $too_slow " == *" $p "* ]] && continue
            exe=$(find "$tests" -maxdepth 2 -type f -name "$p" | head -1)
            [[ -x $exe ]] || { echo "FAILED: scalapack-$p $mpi: $exe missing"; failn=$((failn + 1)); continue; }
            run_one "$mpi" scalapack "scalapack-$p" "$wd" "$exe"
        done
    else
        echo "skipped: ScaLAPACK's tests for $mpi (scalapack-mpi-test not installed)"; skipn=$((skipn + 1))
    fi
    # hpcc and lammps: Debian builds them against Open MPI only
    [[ $mpi == openmpi ]] || continue
    if command -v hpcc >/dev/null; then
        wd=$out/$mpi/hpcc-run
        mkdir -p "$wd"
        cp /usr/share/doc/hpcc/examples/_hpccinf.txt "$wd/hpccinf.txt"
        run_one "$mpi" hpcc hpcc "$wd" hpcc
    else
        echo "skipped: hpcc (not installed)"; skipn=$((skipn + 1))
    fi
    if command -v lmp >/dev/null && [[ -d /usr/share/lammps/examples ]]; then
        for ex in melt peptide; do
            wd=$out/$mpi/lammps-$ex
            mkdir -p "$wd"
            cp /usr/share/lammps/examples/$ex/* "$wd"/
            run_one "$mpi" lammps "lammps-$ex" "$wd" lmp -in "in.$ex" -log none
        done
    else
        echo "skipped: lammps (not installed)"; skipn=$((skipn + 1))
    fi
done
echo "apps: $pass passed, $failn failed, $skipn skipped (logs: $out)"
((failn == 0))
