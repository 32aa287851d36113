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
#   mumps      MUMPS's simpletest drivers (mumps-test, Open MPI build): an
#              unsymmetric sparse system from tests/foreign/mumps_matrix.py
#              (a 3D stencil; complex for zsimpletest), analysed, factored
#              and solved at 4 ranks. MUMPS's processes exchange contribution
#              blocks as MPI_PACKED messages sent with MPI_Isend from its own
#              buffers and received after MPI_Iprobe(MPI_ANY_SOURCE). Its
#              statistics (factor entries, front sizes, delayed pivots...)
#              must be the plain run's; the solution must agree to 1e-12
#              relative (single precision: 1e-5): MUMPS assembles
#              contributions in their order of arrival, so plain runs differ
#              from each other in the last bit.
#   petsc      PETSc through petsc4py (python3-petsc4py, Open MPI build): its
#              demos' Newton-Krylov (SNES, KSP) solves on a DMDA, whose ghost
#              exchange (PetscSF) runs persistent point-to-point requests, or
#              MPI_Ineighbor_alltoallv with -sf_type neighbor; pipelined
#              Krylov methods use MPI_Iallreduce. The converged reasons and
#              iteration counts must be the plain run's, each monitored norm
#              agree to 1e-4 of the first norm of its solve: norms and the
#              Krylov coefficients are dot products, which compi's Allreduce
#              sums in node order (docs/limits.md), and the iterations
#              amplify the last bits (pipelined CG: 1.2e-5 with compi, 1e-5
#              between two of Open MPI's own Allreduce algorithms).
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
# MUMPS: the simpletest driver, its matrix (mumps_matrix.py's arguments:
# grid side, stencil) and whether CI runs it
mumps_cases=(
    "dsimpletest 16 7 ci"         # real, N = 4096, 27136 entries
    "zsimpletest 10 27 ci"        # complex, N = 1000, 21952 entries
    "ssimpletest 16 27 all"
    "csimpletest 12 7 all"
    "dsimpletest 24 7 all"        # N = 13824
    "dsimpletest shipped - all"   # the package's own 5 x 5 inputs
    "zsimpletest shipped - all")
# petsc4py's demos: name, whether CI runs it, script and options (the
# monitors are added). bratu3d: SNES on a 3D DMDA, finite-difference
# Jacobian (-fd); telescope and redundant preconditioners solve on
# sub-communicators of 2 ranks (MPI_Comm_split); ex2/ex23: KSP on a 2D Laplacian and a 1D tridiagonal
# matrix. Left out: poisson2d (it draws), bratu2d (it needs its Fortran
# module built), bratu3d -mf (its matrix-free Jacobian differences
# function values with a step taken from norms, amplifying their last
# bits: plainly, Open MPI's Allreduce algorithm 1 against its default
# differs by 1.4e-4 of a solve's first norm, beyond the tolerance).
petsc_cases=(
    "bratu3d ci bratu3d/bratu3d.py -fd -nx 7 -ny 8 -nz 9"
    "bratu3d-neighbor ci bratu3d/bratu3d.py -fd -nx 7 -ny 8 -nz 9 -sf_type neighbor -ksp_type pipecg -pc_type jacobi"
    "bratu3d-asm all bratu3d/bratu3d.py -fd -nx 9 -ny 10 -nz 11 -ksp_type pgmres -pc_type asm -pc_asm_overlap 2"
    "bratu3d-gamg ci bratu3d/bratu3d.py -fd -nx 12 -ny 12 -nz 12 -pc_type gamg -ksp_type cg"
    "bratu3d-telescope all bratu3d/bratu3d.py -fd -nx 12 -ny 12 -nz 12 -pc_type telescope -pc_telescope_reduction_factor 2 -telescope_pc_type bjacobi"
    "bratu3d-redundant all bratu3d/bratu3d.py -fd -nx 10 -ny 10 -nz 10 -pc_type redundant -pc_redundant_number 2"
    "ksp-ex2 all petsc-examples/ksp/ex2.py"
    "ksp-ex23 all petsc-examples/ksp/ex23.py")
petsc_dir=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real
petsc_demos=/usr/share/doc/python-petsc4py-doc/examples/demo
run_env=() input=""

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
        mumps)
            # its statistics (times, the solution and INFOG(14), the number
            # of memory compresses, aside: that varies between plain runs)
            echo "exit=$3"
            grep -E '=' "$2" | grep -v -E '[Tt]ime|memory compress' ;;
        petsc)
            # the converged reasons with their iteration counts
            echo "exit=$3"
            grep -E '(converged|diverged) due to|^- Parallel OK' "$2" ;;
    esac
}
# the numbers the code prints, and the tolerance they are held to
# (tests/foreign/apps_numbers.py; 0: equal as printed)
numbers_tol() { # $1 kind, $2 name
    case $1 in
        lammps) [[ $2 == lammps-peptide ]] && echo 1e-3 || echo 0 ;;
        mumps) [[ $2 == mumps-[sc]* ]] && echo 1e-5 || echo 1e-12 ;; # single precision: s, c
        petsc) echo 1e-4 ;;
    esac
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
        (cd "$wd" && timeout 300 "${launch[@]}" "$@" "${cmd[@]}" >"$log" 2>&1 <"${input:-/dev/null}")
        rc=$?
        [[ $kind == hpcc && -f $wd/hpccoutf.txt ]] && cat "$wd/hpccoutf.txt" >>"$log"
        return $rc
    }
    local cmd=("$@") t0=$SECONDS base kv ev0
    mapfile -t ev0 < <(for kv in "${run_env[@]}"; do envf "$kv"; done)
    runin "$d/plain.log" "${ev0[@]}"
    base=$(outcome "$kind" "$d/plain.log" $?)
    local v mode ev got ok why
    for v in "${variants[@]}"; do
        case $v in
            fixed) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=1) ;;
            adaptive) mode=(COMPI_MODE=adaptive COMPI_DEBUG_RANKS_PER_NODE=1) ;;
            nodes2) mode=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_DEBUG_RANKS_PER_NODE=2) ;;
            *) echo "$usage" >&2; exit 2 ;;
        esac
        mapfile -t ev < <(for kv in "${run_env[@]}" LD_PRELOAD="$lib" "${mode[@]}" COMPI_MIN_BYTES=0 \
                                    COMPI_REPORT="$d/$v.json"; do envf "$kv"; done)
        runin "$d/$v.log" "${ev[@]}"
        got=$(outcome "$kind" "$d/$v.log" $?)
        ok=1 why=""
        if [[ $got != "$base" ]]; then
            ok=0 why="outcome differs from the plain run's (logs: $d)"
        elif [[ $kind != scalapack && $kind != hpcc ]] &&
             ! why=$(python3 "$here/apps_numbers.py" "$kind" "$d/plain.log" "$d/$v.log" "$(numbers_tol "$kind" "$name")"); then
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
    # hpcc, lammps, MUMPS and petsc4py: Debian builds them against Open MPI only
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
    if [[ -x /usr/lib/mumps/dsimpletest ]]; then
        wd=$out/$mpi/mumps-run
        mkdir -p "$wd"
        for c in "${mumps_cases[@]}"; do
            read -r p side stencil set <<<"$c"
            [[ $set == ci ]] || ((all)) || continue
            cplx=""
            [[ $p == [cz]* ]] && cplx=--complex
            if [[ $side == shipped ]]; then
                name=mumps-$p-shipped
                input=/usr/lib/mumps/input_simpletest_$([[ -n $cplx ]] && echo cmplx || echo real)
            else
                name=mumps-$p-$side-$stencil
                input=$wd/$name.in
                [[ -n $only && ! $name =~ $only ]] || python3 "$here/mumps_matrix.py" "$side" --stencil "$stencil" $cplx >"$input"
            fi
            run_one "$mpi" mumps "$name" "$wd" "/usr/lib/mumps/$p"
        done
        input=""
    else
        echo "skipped: mumps (mumps-test not installed)"; skipn=$((skipn + 1))
    fi
    # petsc4py: Debian's python3 (its numpy); PETSC_DIR names the PETSc
    # build whose petsc4py the package's .pth puts on the path
    if [[ -d $petsc_dir/lib/python3/dist-packages/petsc4py && -d $petsc_demos ]]; then
        wd=$out/$mpi/petsc-run
        mkdir -p "$wd"
        cp -r "$petsc_demos"/. "$wd"/
        run_env=(PETSC_DIR="$petsc_dir")
        for c in "${petsc_cases[@]}"; do
            read -r name set script opts <<<"$c"
            [[ $set == ci ]] || ((all)) || continue
            # shellcheck disable=SC2086 # opts: words
            run_one "$mpi" petsc "petsc-$name" "$wd" /usr/bin/python3 "$script" $opts \
                -ksp_monitor -snes_monitor -ksp_converged_reason -snes_converged_reason
        done
        run_env=()
    else
        echo "skipped: petsc (python3-petsc4py and python-petsc4py-doc not installed)"; skipn=$((skipn + 1))
    fi
done
echo "apps: $pass passed, $failn failed, $skipn skipped (logs: $out)"
((failn == 0))
