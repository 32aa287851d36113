#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite, as CI runs it (README: "Run the tests").
# Installs dependencies, builds libcompi for Open MPI and MPICH, then runs
# each stage and ends with one line "tests: N passed, N failed" over stages.
#   COMPI_TEST_STAGES="codecs fuzz mpi-openmpi ..." runs a subset; "big" (> 2 GiB
#   data, opt-in) runs only when named there.
#   COMPI_FUZZ_SECONDS (default 7) per fuzz target (a regression run; longer
#   campaigns: tests/fuzz/run_fuzzers.sh SECONDS).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI selects its ob1 PML here either way; its cm PML only probes for
# PSM/libfabric hardware this machine lacks and declines, ~0.25 s of every
# start-up (over a thousand in a run)
export OMPI_MCA_pml=^cm
all_stages="lint codecs engine fuzz mpi-openmpi mpi-mpich install asan tsan vcluster slurm foreign smpi"
stages=${COMPI_TEST_STAGES:-$all_stages}
jobs=$(nproc)
passed=0 failed=0 failed_names=()

stage() {   # stage NAME CMD...: runs one stage, records its outcome
  local name=$1; shift
  case " $stages " in *" $name "*) ;; *) return 0 ;; esac
  echo "=== stage $name: $*"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "=== stage $name passed ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failed_names+=("$name"); echo "=== stage $name FAILED ($((SECONDS - t0)) s)"
  fi
}

ctest_in() {  # ctest_in BUILDDIR ARGS...: never the > 2 GiB tests (label big; their own stage)
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE big "$@"
}

bash tools/install-deps.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }
tools/build.sh --mpi both || { echo "build failed"; echo "tests: 0 passed, 1 failed"; exit 1; }

# license lines, docs against the code (settings, links, wording), shellcheck, pyflakes
stage lint        bash tests/lint/run_lint.sh
stage codecs      ctest_in build/openmpi -R "^(codec|hand)"
# the decision engine, heuristics files, traces/rules, calibration and report
# tools (MPI-free; the MPI calibration tests run in the mpi stages)
stage engine      ctest_in build/openmpi -L "engine|tools|calibrate" -LE mpi
stage fuzz        bash tests/fuzz/run_fuzzers.sh "${COMPI_FUZZ_SECONDS:-7}"
stage mpi-openmpi ctest_in build/openmpi -L mpi
stage mpi-mpich   ctest_in build/mpich -L mpi
# both builds installed into a temporary prefix and used only from there
stage install     bash tests/install/test_install.sh
# (the codec suites' robustness and round trips already run sanitized in the
# codecs stage: codecs_*_asan, hand_codecs_asan). Under ASan each semantic
# program runs once per policy (lz4, adaptive, pipe) at its first rank count,
# plus its mixed-layout and helper-thread runs; its other rank counts and the
# other codecs run unsanitized in the mpi stages.
asan_stage() {
  tools/build.sh --mpi openmpi --sanitize &&
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest_in build-asan/openmpi -R "codec|compi_(p2p|coll|report|handles)|compi_nbc_all_lz4$|engine_unit|guide_|config_files|map_place|dkb_unit" \
      -E "^(codecs_robust|codecs_roundtrip|hand_codecs)$|^compi_[a-z0-9_]+_(lz4|adaptive|pipe)_np[0-9]+$|^compi_(p2p_basic|coll_rooted|coll_all)_(zstd|fpc|dfcm|rle|huffman|poly-lz4)$"
}
stage asan        asan_stage
# ThreadSanitizer build: codec pool, MPI_THREAD_MULTIPLE and hybrid-app tests (MPICH; suppressions: MPI internals)
stage tsan        bash tests/tsan/run_tsan.sh mpich
vcluster_stage() {
  bash tests/vcluster/test_vcluster.sh && bash tests/vcluster/test_locality.sh && bash tests/vcluster/test_adaptive.sh &&
    bash tests/vcluster/test_coll.sh && bash tests/vcluster/test_pipe.sh && bash tests/vcluster/test_bench_apps.sh &&
        bash tests/vcluster/test_map.sh && bash tests/vcluster/test_bench_map.sh
}
stage vcluster    vcluster_stage
# a real Slurm on the emulated cluster: compi run -- srun / sbatch, both MPIs
stage slurm       bash tests/vcluster/test_slurm.sh
foreign_stage() {   # mpi4py's suite, ROMIO's test programs, MPICH's io, coll, pt2pt, datatype and threads suites, real applications
  local rc=0
  # np=1 once (its datatype-decoding tests, left out at np >= 2), np=2 under both MPIs
  bash tests/foreign/mpi4py.sh --mpi openmpi --np 1,2 || rc=1
  bash tests/foreign/mpi4py.sh --mpi mpich --np 2 || rc=1
  bash tests/foreign/romio.sh --mpi both || rc=1
  bash tests/foreign/mpich_io.sh --mpi both --variants la --quick || rc=1
  bash tests/foreign/mpich_suite.sh --suite coll,pt2pt --mpi both || rc=1
  bash tests/foreign/mpich_suite.sh --suite datatype,threads --mpi both --variants fixed || rc=1
  bash tests/foreign/apps.sh --mpi both || rc=1
  return $rc
}
stage foreign     foreign_stage
# compi under SimGrid SMPI: stencil and ping-pong at 16-64 simulated ranks, the
# start-up check and compi simulate on pairs and transpose (tests/smpi/check_sim.py), and one semantic test with every
# simulated rank its own node (where a rank could have run codec helpers)
smpi_stage() {
  cmake -S . -B build/smpi -DCOMPI_MPI=smpi -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build build/smpi -j"$jobs" --target compi_stencil3d compi_stencil3d.compi compi_pingpong.compi compi_pairs compi_pairs.compi \
      compi_transpose compi_transpose.compi \
      smpitest_startup_world smpitest_startup_world.compi smpitest_adapt_families smpitest_adapt_families.compi \
      smpitest_init_wildcard smpitest_init_wildcard.compi &&
    python3 tests/smpi/check_sim.py build/smpi &&
    ctest --test-dir build/smpi -R 'smpi_(plain|compi)_(adapt_families|init_wildcard)' --output-on-failure
}
stage smpi        smpi_stage
# Opt-in (not in all_stages; COMPI_TEST_STAGES must name it): data beyond
# 2 GiB under both MPIs, several GB of memory a test. Every test holds
# /tmp/compi-big.lock while it runs and prints each rank's peak RSS.
big_stage() {
  local rc=0
  ctest --test-dir build/openmpi --output-on-failure -j1 -L big || rc=1
  ctest --test-dir build/mpich --output-on-failure -j1 -L big || rc=1
  return $rc
}
stage big         big_stage

if [ "$failed" -gt 0 ]; then echo "failed stages: ${failed_names[*]}"; fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
