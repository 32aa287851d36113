#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi_iobench's compi path, checked (registered with CTest by
# bench/CMakeLists.txt): 4 ranks on this machine as 2 "nodes" of 2
# (COMPI_DEBUG_RANKS_PER_NODE=2), compi preloaded in adaptive mode, both
# patterns at small sizes, 5 reps, every variant. Passes when the benchmark
# exits 0 (every variant's file equals the MPI's own and every read-back is
# right; it exits 1 otherwise), ran through the interposer, and printed a
# RESULT line with identical=yes for every pattern, op and variant (20 each),
# and compi's report shows each compi variant's file on compi's path with the
# aggregators la and default chose. Timings are ignored.
# Usage: check_iobench.sh openmpi|mpich <libcompi.so> <compi_iobench> [extra mpirun args...]
set -euo pipefail
mpi=$1 lib=$2 bin=$3
shift 3
dir=$(mktemp -d /tmp/compi-check-iobench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# the gate off: this checks compi's own path (under ROMIO the gate would pass the la
# variants of the regular file to the MPI; tests/io/io_gate.c checks the gate)
env=(LD_PRELOAD="$lib" COMPI_MODE=adaptive COMPI_IO_GATE=off COMPI_DEBUG_RANKS_PER_NODE=2 COMPI_REPORT="$dir/report.json")
flags=()
for kv in "${env[@]}"; do
    if [[ $mpi == openmpi ]]; then flags+=(-x "$kv"); else flags+=(-genv "${kv%%=*}" "${kv#*=}"); fi
done
fail=0
for pat in "--pattern bips3d --load 30 --mesh-nodes 3000" "--pattern stem --grid 24,20,18"; do
    rc=0
    # shellcheck disable=SC2086
    if [[ $mpi == openmpi ]]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            mpirun.openmpi --oversubscribe -np 4 "$@" "${flags[@]}" "$bin" $pat --reps 5 --warmup 0 --dir "$dir" \
            >"$dir/out" 2>&1 || rc=$?
    else
        mpiexec.mpich -n 4 "$@" "${flags[@]}" "$bin" $pat --reps 5 --warmup 0 --dir "$dir" >"$dir/out" 2>&1 || rc=$?
    fi
    cat "$dir/out"
    grep -q '^# interposer: yes' "$dir/out" || { echo "FAIL: compi was not interposed ($pat)"; fail=1; }
    n=$(grep -c '^RESULT .*identical=yes' "$dir/out" || true)
    [[ $rc == 0 && $n == 10 ]] || { echo "FAIL: $pat: exit $rc, $n of 10 RESULT lines identical=yes"; fail=1; }
    python3 - "$dir/report.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
seen = {}
for f in r["io_files"]:
    v = f["file"].rsplit("_", 1)[-1][:-4]
    c = f["compi_calls"]
    seen.setdefault(v, [0, 0, set()])
    seen[v][0] += c["write_all"]["calls"] + c["read_all"]["calls"]
    seen[v][1] += sum(f["passed_to_mpi"].values())
    seen[v][2].add(f["policy"] + "/" + f["weight"])
want = {"mpi": "mpi/bytes", "default": "default/bytes", "la": "la/bytes", "la-blocks": "la/blocks", "la-z": "la/bytes"}
bad = 0
for v, pol in want.items():
    calls, passed, pols = seen.get(v, [0, 0, set()])
    on_path = v != "mpi"
    ok = pols == {pol} and ((calls == 10 and passed == 0) if on_path else (calls == 0 and passed > 0))
    print(("PASS" if ok else "FAIL:") + " variant %s: policies %s, %d calls on compi's path, %d passed to the MPI" %
          (v, sorted(pols), calls, passed))
    bad += not ok
sys.exit(1 if bad else 0)
PY
    rm -f "$dir"/compi_iobench_* "$dir/report.json"
done
exit $fail
