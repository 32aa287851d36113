#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds libcompi once per MPI (a PMPI library is tied to one MPI's ABI):
#   build/openmpi/lib/libcompi.so and build/mpich/lib/libcompi.so
# With --prefix P, also installs each build into P, side by side
# (P/lib/libcompi-<mpi>.so, P/bin/compi, ...; cmake/CompiInstall.cmake).
# --mpi smpi builds build/smpi: libcompi, the mini-apps and benchmarks with
# SimGrid's smpicc, for simulated runs (docs/simulate.md; not part of "both").
# Usage: tools/build.sh [--mpi openmpi|mpich|both|smpi] [--sanitize | --tsan] [--build-dir DIR] [--prefix P]
#                       [--target T]...
# --sanitize: ASan + UBSan into build-asan/; --tsan: ThreadSanitizer into
# build-tsan/; --target: build only these targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpis="openmpi mpich"
builddir="$root/build"
prefix=""
extra=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) [ "$2" = both ] && mpis="openmpi mpich" || mpis="$2"; shift 2 ;;
    --sanitize) extra+=(-DCOMPI_SANITIZE=ON); builddir="$root/build-asan"; shift ;;
    --tsan) extra+=(-DCOMPI_TSAN=ON); builddir="$root/build-tsan"; shift ;;
    --target) targets+=(--target "$2"); shift 2 ;;
    --build-dir) builddir="$2"; shift 2 ;;
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$prefix" ]; then
  mkdir -p "$prefix" || { echo "build.sh: cannot create the prefix '$prefix'" >&2; exit 1; }
  prefix=$(cd "$prefix" && pwd)
  extra+=(-DCMAKE_INSTALL_PREFIX="$prefix")
fi
for mpi in $mpis; do
  cmake -S "$root" -B "$builddir/$mpi" -DCOMPI_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" >/dev/null
  cmake --build "$builddir/$mpi" -j"$(nproc)" "${targets[@]}"
  if [ -n "$prefix" ]; then
    cmake --install "$builddir/$mpi" --prefix "$prefix" >/dev/null
    echo "build.sh: installed the $mpi build into $prefix"
  fi
done
