#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On a 2-node emulated cluster (2 ranks per node), under both MPIs: every
# rank sends to every other; compi's report must show exactly the inter-node
# sends compressed (2 per rank) and the intra-node ones never (1 per rank).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
vct_begin cloc
SUBNET=${COMPI_TEST_SUBNET:-10.213.77}

vct_up "$SUBNET" 2 1gbit 2
for mpi in openmpi mpich; do
    lib=$ROOT/build/$mpi/lib/libcompi.so
    [ -f "$lib" ] || { fail "$mpi: $lib missing (run tools/build.sh)"; continue; }
    mpicc."$mpi" -O2 -o "$TMP/loc_$mpi" "$ROOT/tests/vcluster/locality.c"
    report=$TMP/report_$mpi.json
    if [ "$mpi" = openmpi ]; then
        env_flags=(-x COMPI_MODE=fixed -x COMPI_CODEC=lz4 -x "COMPI_REPORT=$report")
    else
        env_flags=(-genv COMPI_MODE fixed -genv COMPI_CODEC lz4 -genv COMPI_REPORT "$report")
    fi
    if ! timeout 300 "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --preload "$lib" -- \
            -np 4 "${env_flags[@]}" "$TMP/loc_$mpi" >"$TMP/run_$mpi.log" 2>&1; then
        fail "$mpi: run failed"; tail -20 "$TMP/run_$mpi.log"; continue
    fi
    if python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = r["nodes"] == 2 and r["world_size"] == 4
for rk in r["ranks"]:
    lz4 = rk["codecs"].get("lz4", {})
    line = (f"rank {rk['rank']} node {rk['node']}: inter {rk['inter_node_messages']} intra "
            f"{rk['intra_node_messages']} compressed {lz4.get('messages', 0)} ratio {lz4.get('ratio', 0)}")
    print(line)
    ok &= rk["inter_node_messages"] == 2 and rk["intra_node_messages"] == 1
    ok &= lz4.get("messages", 0) == 2 and lz4.get("ratio", 0) > 3
sys.exit(0 if ok else 1)
PY
    then pass "$mpi: inter-node compressed, intra-node raw"
    else fail "$mpi: report does not match"; fi
done
finish
