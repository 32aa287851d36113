#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The installed compi, used only through its prefix: tools/build.sh --mpi
# both --prefix P into a fresh temporary P, then, from outside the
# repository with COMPI_ROOT unset:
#   layout     both libraries named per MPI (and their sonames), .pc files,
#              modulefile, P/bin/compi, MPI programs per MPI; no installed
#              script or text file names the repository; the development
#              commands (dev/cmd: bench, vcluster) are not installed
#   exports    the installed libraries export only MPI_*/mpi_* symbols
#   version    P/bin/compi --version prints the project's version and git describe
#   man        the manual pages installed; compi help SUB shows them; man compi
#   help       P/bin/compi help lists the subcommands
#   run        P/bin/compi run -- mpirun.openmpi / mpiexec.mpich: preloads
#              P/lib/libcompi-<mpi>.so, the report shows compressed messages
#              (every rank its own node, COMPI_MODE=fixed, COMPI_MIN_BYTES=0)
#   tools      compi report, a trace run + compi guide, compi calibrate codecs
#   binary     a launcher wrapper that names no MPI: the MPI comes from the
#              application binary (both MPIs, real runs); clear errors when
#              nothing tells, and for an application of the other MPI
#   pkgconfig  mpicc/mpif90.<mpi> app $(pkg-config --libs compi-<mpi>):
#              compi's library needed before the MPI's; run WITHOUT
#              LD_PRELOAD, the report shows compressed messages (C, Fortran)
#   module     module use P/share/modulefiles; module load compi: compi
#              and pkg-config work; module unload undoes it
#   demo       P/bin/compi demo --help; without COMPI_ROOT a clear error
#              naming it (the emulated cluster is not installed); a small
#              demo on a private emulated cluster from the repository
#              (COMPI_ROOT=repo; COMPI_TEST_INSTALL_DEMO=0 skips the run)
# Prints PASS/FAIL per check and "N passed, N failed".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/compi-install-test.XXXXXX)
P=$TMP/prefix
DEMO_NAME=cinst DEMO_SUBNET=${COMPI_TEST_SUBNET_INSTALL:-10.213.81}
passed=0 failed=0
demo_started=0
cleanup() {
    # the demo tears its cluster down itself; this is for a demo killed by timeout
    if [[ $demo_started == 1 ]]; then "$ROOT/tools/compi" vcluster down --name "$DEMO_NAME" >/dev/null 2>&1 || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
# The user's view: not in the repository, no COMPI_ROOT, P/bin not on PATH.
unset COMPI_ROOT COMPI_BUILD_DIR PKG_CONFIG_PATH
cd "$TMP"

if ! "$ROOT/tools/build.sh" --mpi both --prefix "$P" >"$TMP/build.log" 2>&1; then
    tail -30 "$TMP/build.log"
    echo "FAIL tools/build.sh --mpi both --prefix $P"
    echo "0 passed, 1 failed"
    exit 1
fi

# --- layout ------------------------------------------------------------------
missing=()
for f in bin/compi lib/pkgconfig/compi-openmpi.pc lib/pkgconfig/compi-mpich.pc \
         share/modulefiles/compi/0.1.0 share/compi/README.md libexec/compi/_common.sh \
         libexec/compi/run.sh libexec/compi/compi_guide libexec/compi/compi_calibrate_codecs \
         libexec/compi/openmpi/compi_stencil3d libexec/compi/mpich/compi_stencil3d \
         libexec/compi/openmpi/compi_pingpong libexec/compi/mpich/compi_calibrate_network; do
    [[ -e $P/$f ]] || missing+=("$f")
done
for mpi in openmpi mpich; do
    soname=$(readelf -d "$P/lib/libcompi-$mpi.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [[ $soname == "libcompi-$mpi.so.0" ]] || missing+=("lib/libcompi-$mpi.so with soname libcompi-$mpi.so.0 (soname: '$soname')")
done
leaks=$(grep -rlI -- "$ROOT" "$P" 2>/dev/null || true)
if (( ${#missing[@]} == 0 )) && [[ -z $leaks ]]; then
    pass "layout: libraries per MPI, pkg-config, modulefile, command, programs; nothing names $ROOT"
else
    fail "layout: missing: ${missing[*]:-none}; files naming the repository: ${leaks:-none}"
fi

# --- the development commands stay in the repository --------------------------------
lab=$(cd "$P" && find . \( -name 'bench*' -o -name 'vcluster*' -o -name '*_summary.py' \) -print | sort | tr '\n' ' ')
out=$("$P/bin/compi" help 2>&1 || true)
bench_out=$("$P/bin/compi" bench --help 2>&1) && bench_rc=0 || bench_rc=$?
if [[ -z $lab ]] && ! grep -qE '^  (bench|vcluster) ' <<<"$out" &&
        [[ $bench_rc == 2 ]] && grep -q "unknown subcommand 'bench'" <<<"$bench_out"; then
    pass "layout: no bench or vcluster script installed; P/bin/compi help lists neither; compi bench is unknown"
else
    fail "layout: lab tooling installed: ${lab:-none}; compi bench: rc $bench_rc ${bench_out:0:200}"
fi

# --- exports: only the MPI entry points ------------------------------------------
if out=$(bash "$ROOT/tests/install/check_exports.sh" "$P/lib/libcompi-openmpi.so" "$P/lib/libcompi-mpich.so" 2>&1); then
    pass "exports: the installed libraries export only MPI_*/mpi_* entry points"
else
    fail "exports: $out"
fi

# --- version ---------------------------------------------------------------------
want=$(sed -n 's/^project(compi VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
if out=$("$P/bin/compi" --version 2>&1) && [[ $out == "compi $want ("*")" ]]; then
    pass "P/bin/compi --version: $out"
else
    fail "P/bin/compi --version: '$out' (want compi $want (<git describe>))"
fi

# --- manual pages: compi help SUB, man compi ---------------------------------------
man_ok=1 man_why=""
for sub in run map guide report config calibrate demo; do
    [[ -f $P/share/man/man1/compi-$sub.1 ]] || { man_ok=0; man_why+=" no share/man/man1/compi-$sub.1"; }
done
[[ -f $P/share/man/man1/compi.1 && -f $P/share/man/man5/compi.conf.5 ]] || { man_ok=0; man_why+=" no compi.1 or compi.conf.5"; }
out=$("$P/bin/compi" help run 2>&1) && grep -q 'compi-run - run an MPI job' <<<"$out" || { man_ok=0; man_why+=" compi help run: ${out:0:200}"; }
out=$("$P/bin/compi" help compi.conf 2>&1) && grep -q 'COMPI_MIN_BYTES' <<<"$out" || { man_ok=0; man_why+=" compi help compi.conf"; }
if command -v man >/dev/null 2>&1; then   # man finds P/share/man from P/bin on PATH
    page=$(PATH=$P/bin:$PATH MANPATH='' man -w compi 2>&1) && [[ $page == "$P/share/man/man1/compi.1"* ]] ||
        { man_ok=0; man_why+=" man -w compi: $page"; }
fi
if (( man_ok )); then
    pass "manual pages installed; compi help run / compi.conf show them; man compi finds them"
else
    fail "manual pages:$man_why"
fi

# --- help ----------------------------------------------------------------------
if out=$("$P/bin/compi" help 2>&1) && grep -q '^  run ' <<<"$out" && grep -q '^  demo ' <<<"$out"; then
    pass "P/bin/compi help lists the subcommands"
else
    fail "P/bin/compi help: $out"
fi

# Does report FILE show NP ranks and compressed inter-node messages?
check_report() {  # FILE NP
    python3 - "$1" "$2" "$want" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no readable report %s: %s" % (sys.argv[1], e)); sys.exit(1)
t = r.get("totals", {})
lz4 = t.get("codecs", {}).get("lz4", {})
n, bi, bo = lz4.get("messages", 0), lz4.get("bytes_in", 0), lz4.get("bytes_out", 0)
print("report: %d ranks, lz4 %d messages %d -> %d bytes, %d compressed frames decoded"
      % (len(r.get("ranks", [])), n, bi, bo, t.get("frames_decoded_compressed", 0)))
ok = len(r.get("ranks", [])) == int(sys.argv[2]) and n > 0 and 0 < bo < bi and t.get("frames_decoded_compressed", 0) > 0
# the library says which compi it is: the project's version and git describe
print("report: compi_version %s, git_describe %s" % (r.get("compi_version"), r.get("git_describe")))
ok = ok and r.get("compi_version") == sys.argv[3] and bool(r.get("git_describe"))
sys.exit(0 if ok else 1)
PY
}

# The settings of every compressed run: every rank its own node, every message compressed.
export COMPI_DEBUG_RANKS_PER_NODE=1 COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_MIN_BYTES=0
# launch_<mpi>: read through declare -n
# shellcheck disable=SC2034
launch_openmpi=(mpirun.openmpi --oversubscribe -np 2)
# shellcheck disable=SC2034
launch_mpich=(mpiexec.mpich -n 2)

# --- run -----------------------------------------------------------------------
for mpi in openmpi mpich; do
    mpicc."$mpi" -O2 -o "$TMP/app_$mpi" "$ROOT/tests/install/install_check.c"
    declare -n launch=launch_$mpi
    dry=$("$P/bin/compi" run --dry-run -- "${launch[@]}" "$TMP/app_$mpi" 2>&1) || true
    rep=$TMP/run_$mpi.json
    if [[ $dry != *"LD_PRELOAD"*"$P/lib/libcompi-$mpi.so"* ]]; then
        fail "run $mpi: the command does not preload $P/lib/libcompi-$mpi.so: $dry"
    elif COMPI_REPORT=$rep timeout 120 "$P/bin/compi" run -- "${launch[@]}" "$TMP/app_$mpi" >"$TMP/run_$mpi.log" 2>&1 &&
            grep -q 'install_check: OK ranks=2' "$TMP/run_$mpi.log" && check_report "$rep" 2 >>"$TMP/run_$mpi.log"; then
        pass "run $mpi: P/bin/compi run -- ${launch[0]} preloads P/lib/libcompi-$mpi.so, messages compressed ($(tail -1 "$TMP/run_$mpi.log"))"
    else
        fail "run $mpi:"; tail -15 "$TMP/run_$mpi.log"
    fi
    unset -n launch
done

# --- tools: the MPI-free programs and scripts in P/libexec/compi -----------------
if "$P/bin/compi" report "$TMP/run_openmpi.json" >"$TMP/report.log" 2>&1 && grep -q '^per codec' "$TMP/report.log"; then
    pass "tools: P/bin/compi report summarises the run's report"
else
    fail "tools: compi report:"; tail -5 "$TMP/report.log"
fi
if COMPI_MODE=trace COMPI_TRACE=$TMP/trace timeout 120 "$P/bin/compi" run -- "${launch_openmpi[@]}" "$TMP/app_openmpi" \
        >"$TMP/guide.log" 2>&1 && "$P/bin/compi" guide "$TMP/trace" >>"$TMP/guide.log" 2>&1 &&
        [[ -s $TMP/trace/rules.0.txt && -s $TMP/trace/rules.1.txt ]]; then
    pass "tools: a COMPI_MODE=trace run, then P/bin/compi guide writes rules.0.txt and rules.1.txt"
else
    fail "tools: trace + compi guide:"; tail -8 "$TMP/guide.log"
fi
if "$P/bin/compi" calibrate codecs --quick --quiet -o "$TMP/codecs.txt" >"$TMP/calib.log" 2>&1 &&
        head -1 "$TMP/codecs.txt" | grep -q '^compi-heuristics 1 codecs'; then
    pass "tools: P/bin/compi calibrate codecs --quick writes a codecs.txt"
else
    fail "tools: compi calibrate codecs:"; tail -5 "$TMP/calib.log"
fi

# --- binary: the MPI from the application when the launcher does not say ----------
mkdir -p "$TMP/bin"
for mpi in openmpi mpich; do
    declare -n launch=launch_$mpi
    # a site's wrapper: its name is no launcher's, and its --version names no MPI
    wrapper=$TMP/bin/sitelaunch-${#mpi}
    printf '#!/bin/sh\ncase "$1" in --version) echo "site launcher 2.0"; exit 0 ;; esac\nexec %s "$@"\n' \
        "${launch[*]}" >"$wrapper"
    chmod +x "$wrapper"
    rep=$TMP/bin_$mpi.json
    if COMPI_REPORT=$rep timeout 120 "$P/bin/compi" run -- "$wrapper" "$TMP/app_$mpi" >"$TMP/bin_$mpi.log" 2>&1 &&
            grep -q 'install_check: OK ranks=2' "$TMP/bin_$mpi.log" && check_report "$rep" 2 >>"$TMP/bin_$mpi.log"; then
        pass "binary $mpi: a wrapper launcher naming no MPI, the library picked from the application's libraries"
    else
        fail "binary $mpi:"; tail -15 "$TMP/bin_$mpi.log"
    fi
    unset -n launch
done
printf '#!/bin/sh\nexec "$@"\n' >"$TMP/app.sh"
chmod +x "$TMP/app.sh"
expect_error() {  # NAME EXPECTED-TEXT CMD...
    local name=$1 want=$2 out rc=0; shift 2
    out=$("$@" 2>&1) || rc=$?
    if (( rc != 0 )) && [[ $out == *"$want"* ]]; then pass "$name: exit $rc, says: ${out#compi: error: }"
    else fail "$name: exit $rc, expected an error saying '$want', got: $out"; fi
}
expect_error "binary: nothing tells the MPI" "can't tell which MPI" \
    "$P/bin/compi" run --dry-run -- "$wrapper" "$TMP/app.sh"
expect_error "binary: application of the other MPI than the launcher" "is linked against mpich" \
    "$P/bin/compi" run --dry-run -- mpirun.openmpi -np 2 "$TMP/app_mpich"
expect_error "binary: application of the other MPI than --mpi" "is linked against openmpi" \
    "$P/bin/compi" run --mpi mpich --dry-run -- "$wrapper" "$TMP/app_openmpi"
# a prefix with the Open MPI build only: no silent fallback for MPICH
cmake --install "$ROOT/build/openmpi" --prefix "$TMP/p1" >/dev/null
expect_error "binary: an installation without the application's MPI" "has no mpich build" \
    "$TMP/p1/bin/compi" run --dry-run -- mpiexec.mpich -n 2 "$TMP/app_mpich"

# --- pkgconfig: compi linked into the application, no LD_PRELOAD ------------------
for mpi in openmpi mpich; do
    declare -n launch=launch_$mpi
    for lang in c f90; do
        cc=mpicc.$mpi
        [[ $lang == f90 ]] && cc=mpif90.$mpi
        exe=$TMP/linked_${mpi}_$lang rep=$TMP/linked_${mpi}_$lang.json log=$TMP/linked_${mpi}_$lang.log
        # shellcheck disable=SC2046  # the link flags are words
        if ! "$cc" -O2 -o "$exe" "$ROOT/tests/install/install_check.$lang" \
                $(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --libs "compi-$mpi") >"$log" 2>&1; then
            fail "pkgconfig $mpi $lang: link failed"; cat "$log"; continue
        fi
        # compi's library among the needed ones, before any of the MPI's
        needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
        first=$(tr ' ' '\n' <<<"$needed" | grep -nE '^lib(compi-|mpi|mpich)' | head -1)
        if [[ $first != *":libcompi-$mpi.so.0" ]]; then
            fail "pkgconfig $mpi $lang: libcompi-$mpi.so.0 is not needed before the MPI's libraries (NEEDED: $needed)"; continue
        fi
        # ranks get the settings from the environment the launcher forwards; no LD_PRELOAD anywhere
        if [[ $mpi == openmpi ]]; then
            envf=(-x COMPI_DEBUG_RANKS_PER_NODE -x COMPI_MODE -x COMPI_CODEC -x COMPI_MIN_BYTES -x "COMPI_REPORT=$rep")
        else
            envf=(-genv COMPI_REPORT "$rep")
        fi
        if env -u LD_PRELOAD timeout 120 "${launch[@]}" "${envf[@]}" "$exe" >>"$log" 2>&1 &&
                grep -q 'install_check: OK ranks=2' "$log" && check_report "$rep" 2 >>"$log"; then
            pass "pkgconfig $mpi $lang: $cc ... \$(pkg-config --libs compi-$mpi), run without LD_PRELOAD, messages compressed"
        else
            fail "pkgconfig $mpi $lang:"; tail -15 "$log"
        fi
    done
    unset -n launch
done

# --- module --------------------------------------------------------------------------
init=""
for f in /usr/share/modules/init/bash /usr/share/lmod/lmod/init/bash; do
    [[ -f $f ]] && { init=$f; break; }
done
if [[ -z $init ]]; then
    fail "module: no environment-modules or Lmod (/usr/share/modules/init/bash); tools/install-deps.sh installs environment-modules"
elif out=$(env -u LOADEDMODULES -u _LMFILES_ -u MODULEPATH bash -c '
        set -e
        source "$1" >/dev/null
        module use "$2/share/modulefiles"
        module load compi
        [[ $(command -v compi) == "$2/bin/compi" ]] || { echo "compi on PATH: $(command -v compi || echo none)"; exit 1; }
        compi help | grep -q "^  run " || { echo "compi help failed"; exit 1; }
        [[ $(pkg-config --variable=prefix compi-openmpi) == "$2" ]] || { echo "pkg-config finds no compi-openmpi"; exit 1; }
        [[ $(pkg-config --variable=prefix compi-mpich) == "$2" ]] || { echo "pkg-config finds no compi-mpich"; exit 1; }
        module unload compi
        ! command -v compi >/dev/null || { echo "compi still on PATH after module unload"; exit 1; }
        echo ok' _ "$init" "$P" 2>&1) && [[ $out == *ok ]]; then
    pass "module: module use P/share/modulefiles; module load compi (via $init): compi and pkg-config work; unload undoes it"
else
    fail "module: $out"
fi

# --- site configuration -----------------------------------------------------------------
# the prefix's system file is the one `compi config` (and every rank's
# libcompi-<mpi>) reads; a site heuristics directory given relative to it
mkdir -p "$P/etc/compi/heuristics"
cp "$ROOT/tests/mpi/slow_network/network.txt" "$P/etc/compi/heuristics/"
printf 'mode = fixed\ncodec = zstd\nheuristics = heuristics\n' >"$P/etc/compi/compi.conf"
for mpi in openmpi mpich; do
    if out=$(env -u COMPI_MODE -u COMPI_CODEC -u COMPI_HEURISTICS -u COMPI_CONFIG HOME="$TMP" \
                "$P/bin/compi" config --mpi "$mpi" 2>&1) &&
            grep -qE "^mode +fixed +$P/etc/compi/compi.conf:1" <<<"$out" &&
            grep -qE "^codec +zstd +$P/etc/compi/compi.conf:2" <<<"$out" &&
            grep -qE "^heuristics +$P/etc/compi/heuristics +$P/etc/compi/compi.conf:3" <<<"$out" &&
            grep -q "library: *$P/lib/libcompi-$mpi.so" <<<"$out"; then
        pass "config $mpi: P/bin/compi config reads P/etc/compi/compi.conf (values, file:line, relative heuristics)"
    else
        fail "config $mpi: $out"
    fi
done
rm -rf "$P/etc/compi"

# --- demo ----------------------------------------------------------------------------
if out=$("$P/bin/compi" demo --help 2>&1) && grep -q '^usage: compi demo' <<<"$out"; then
    pass "P/bin/compi demo --help"
else
    fail "P/bin/compi demo --help: $out"
fi
if ! out=$("$P/bin/compi" demo --mpi openmpi --runs 1 2>&1) &&
        grep -q 'emulated cluster.*not installed: set COMPI_ROOT to a compi source tree' <<<"$out"; then
    pass "P/bin/compi demo without COMPI_ROOT: the emulated cluster is not installed, the error says where it comes from"
else
    fail "P/bin/compi demo without COMPI_ROOT: $out"
fi
if [[ ${COMPI_TEST_INSTALL_DEMO:-1} != 0 ]]; then
    # small: 1 run each of plain MPI and compi adaptive, a tiny grid; only
    # that it runs from the prefix (the emulated cluster from the
    # repository) and the results agree, never its speed
    demo_started=1
    if COMPI_ROOT=$ROOT COMPI_BENCH_DEMO_NAME=$DEMO_NAME COMPI_BENCH_DEMO_SUBNET=$DEMO_SUBNET \
            env -u COMPI_DEBUG_RANKS_PER_NODE -u COMPI_MODE -u COMPI_CODEC -u COMPI_MIN_BYTES \
            timeout 300 "$P/bin/compi" demo --mpi openmpi --runs 1 --no-fixed --n 32 --nz 4 --iters 20 \
            --timeout 120 >"$TMP/demo.log" 2>&1 &&
            grep -q 'all 2 runs gave bitwise-identical results' "$TMP/demo.log" &&
            grep -qE '^  compi(\[[0-9]+\])?: ' "$TMP/demo.log"; then
        pass "P/bin/compi demo (small, private cluster $DEMO_NAME): plain MPI and compi agree bitwise, compi's summary printed"
    else
        fail "P/bin/compi demo (small):"; tail -25 "$TMP/demo.log"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
