#!/usr/bin/env bash
# Builds libcompi once per MPI (a PMPI library is tied to one MPI's ABI):
#   build/openmpi/lib/libcompi.so and build/mpich/lib/libcompi.so
# Usage: tools/build.sh [--mpi openmpi|mpich|both] [--sanitize] [--build-dir DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpis="openmpi mpich"
builddir="$root/build"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) [ "$2" = both ] && mpis="openmpi mpich" || mpis="$2"; shift 2 ;;
    --sanitize) extra+=(-DCOMPI_SANITIZE=ON); builddir="$root/build-asan"; shift ;;
    --build-dir) builddir="$2"; shift 2 ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for mpi in $mpis; do
  cmake -S "$root" -B "$builddir/$mpi" -DCOMPI_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${extra[@]}" >/dev/null
  cmake --build "$builddir/$mpi" -j"$(nproc)"
done
