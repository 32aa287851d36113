#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_exports.sh LIB...: every symbol a libcompi exports is an MPI entry
# point (C MPI_*, Fortran mpi_* or upper-case MPI_*), nothing of compi's own
# (compi_*, globals, helpers): the library is built with hidden visibility
# and lib/wrappers/exports.map.  Also checks the entry points are there.
# Used by ctest (exports_libcompi, both MPIs) and tests/install/test_install.sh.
set -euo pipefail
(( $# > 0 )) || { echo "usage: check_exports.sh LIB..." >&2; exit 2; }
rc=0
for lib in "$@"; do
    [[ -f $lib ]] || { echo "FAIL $lib: no such file"; rc=1; continue; }
    syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//')
    bad=$(grep -Ev '^(MPI_|mpi_)' <<<"$syms" || true)
    n=$(grep -c . <<<"$syms" || true)
    missing=()
    for s in MPI_Init MPI_Send MPI_Irecv MPI_Allreduce MPI_File_write_all MPI_Finalize; do
        grep -qx "$s" <<<"$syms" || missing+=("$s")
    done
    if [[ -n $bad ]]; then
        echo "FAIL $lib exports $(grep -c . <<<"$bad") symbol(s) that are not MPI entry points:"
        head -n 20 <<<"$bad" | sed 's/^/    /'
        rc=1
    elif (( ${#missing[@]} )); then
        echo "FAIL $lib does not export ${missing[*]}"
        rc=1
    else
        echo "ok   $lib: $n symbols, all MPI_*/mpi_* entry points"
    fi
done
exit $rc
