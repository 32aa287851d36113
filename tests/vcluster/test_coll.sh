#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The collectives on real (emulated) nodes: tests/mpi/coll_all (randomised
# collectives against a local oracle, every wrapped collective, in place,
# derived and pair types, all predefined ops, user ops) on 2 emulated nodes x
# 2 ranks under both MPIs with compi in fixed mode (lz4, every message in
# play), the node structure found by the MPIs themselves (hostnames, shared
# memory), not COMPI_DEBUG_RANKS_PER_NODE. The program checks its results;
# the report must show that compi's node-aware path ran for every kind of
# collective that has one. Nothing here is a timing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
vct_begin ccoll
SUBNET=${COMPI_TEST_SUBNET_COLL:-10.213.83}

# 1 Gbit/s: the test is about semantics; a slower link only makes it longer
vct_up "$SUBNET" 2 1gbit 2
for mpi in openmpi mpich; do
    lib=$ROOT/build/$mpi/lib/libcompi.so
    bin=$ROOT/build/$mpi/tests/mpi/coll_all
    [ -f "$lib" ] && [ -x "$bin" ] || { result 1 "$mpi: $lib or $bin missing (run tools/build.sh)"; continue; }
    report=$TMP/report_$mpi.json
    if [ "$mpi" = openmpi ]; then
        env_flags=(-x COMPI_MODE=fixed -x COMPI_CODEC=lz4 -x COMPI_MIN_BYTES=0 -x "COMPI_REPORT=$report"
                   -x COMPI_TEST_EXPECT_PRELOAD=1)
    else
        env_flags=(-genv COMPI_MODE fixed -genv COMPI_CODEC lz4 -genv COMPI_MIN_BYTES 0 -genv COMPI_REPORT "$report"
                   -genv COMPI_TEST_EXPECT_PRELOAD 1)
    fi
    log=$TMP/run_$mpi.log
    rc=0
    timeout 600 "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --preload "$lib" -- \
        -np 4 "${env_flags[@]}" "$bin" >"$log" 2>&1 || rc=$?
    grep -E "^\[coll_all\]" "$log" || true
    if [ "$rc" != 0 ] || grep -q "FAIL \[" "$log" || ! grep -qE "^\[coll_all\] [0-9]+ passed, 0 failed" "$log"; then
        result 1 "$mpi: coll_all on 2 nodes x 2 ranks (exit $rc)"; grep -E "FAIL|rror" "$log" | head -20; continue
    fi
    result 0 "$mpi: coll_all on 2 nodes x 2 ranks"
    rc=0
    python3 - "$report" <<'PY' || rc=$?
import json, sys
doc = json.load(open(sys.argv[1]))
nodes = {r.get("node") for r in doc["ranks"]}
coll = doc["totals"]["collectives"]
want = ["allgather", "allgatherv", "alltoall", "alltoallv", "allreduce", "reduce", "reduce_scatter",
        "reduce_scatter_block"]
missing = [k for k in want if not coll.get(k, {}).get("node_aware_calls")]
print("  nodes in the report: %s; node-aware calls: %s" % (sorted(map(str, nodes)),
      {k: coll.get(k, {}).get("node_aware_calls") for k in want}))
fams = doc["totals"].get("families", {})
print("  bcast frames: %s" % fams.get("bcast"))
sys.exit(1 if missing else 0)
PY
    result "$rc" "$mpi: the report shows compi's node-aware path for every collective that has one"
done
finish
