#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Pipelined messages between real (emulated) nodes: the point-to-point
# semantic programs of tests/mpi on 2 emulated nodes x 2 ranks under both
# MPIs, compi in fixed mode (lz4) with COMPI_CHUNK=4K, so every message of
# 8 KiB or more between the nodes goes as a header plus chunks over TCP
# (lib/core/pipeline.c). The programs check their own results (data, status,
# truncation, probes, wildcards, ordering); the report must show pipelined
# messages and both nodes. Nothing here is a timing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
vct_begin cpipe
SUBNET=${COMPI_TEST_SUBNET_PIPE:-10.213.84}

vct_up "$SUBNET" 2 1gbit 2
for mpi in openmpi mpich; do
    lib=$ROOT/build/$mpi/lib/libcompi.so
    [ -f "$lib" ] || { result 1 "$mpi: $lib missing (run tools/build.sh)"; continue; }
    # (programs whose traffic crosses between ranks 0-1 and 2-3; the others talk 0<->1 only, one node here)
    for spec in p2p_basic:4 p2p_wildcard:4 p2p_order:4 p2p_probe:3; do
        prog=${spec%%:*} np=${spec##*:}
        bin=$ROOT/build/$mpi/tests/mpi/$prog
        report=$TMP/report_${mpi}_$prog.json
        kv=(COMPI_MODE=fixed COMPI_CODEC=lz4 COMPI_MIN_BYTES=0 COMPI_CHUNK=4K "COMPI_REPORT=$report"
            COMPI_TEST_EXPECT_PRELOAD=1)
        env_flags=()
        for e in "${kv[@]}"; do
            if [ "$mpi" = openmpi ]; then env_flags+=(-x "$e"); else env_flags+=(-genv "${e%%=*}" "${e#*=}"); fi
        done
        log=$TMP/run_${mpi}_$prog.log
        rc=0
        timeout 300 "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --preload "$lib" -- \
            -np "$np" "${env_flags[@]}" "$bin" >"$log" 2>&1 || rc=$?
        if [ "$rc" != 0 ] || grep -q "FAIL \[" "$log"; then
            result 1 "$mpi: $prog on 2 nodes, pipelined (exit $rc)"; grep -E "FAIL|rror" "$log" | head -10; continue
        fi
        rc=0
        python3 - "$report" <<'PY' || rc=$?
import json, sys
doc = json.load(open(sys.argv[1]))
nodes = {r.get("node") for r in doc["ranks"]}
pipe = doc["totals"]["pipelined"]
sent = sum(c["messages"] for c in pipe["codecs"].values())
print("  nodes %d, pipelined messages sent %d, received %d, chunks %d" % (len(nodes), sent, pipe["received"],
      sum(c["chunks"] for c in pipe["codecs"].values())))
sys.exit(0 if len(nodes) == 2 and sent > 0 and pipe["received"] == sent else 1)
PY
        result "$rc" "$mpi: $prog on 2 nodes x 2 ranks with every message >= 8 KiB pipelined"
    done
done
finish
