#!/usr/bin/env bash
# The adaptive engine on an emulated 2-node cluster at 100 Mbit/s, under both
# MPIs: with compressible data (zeros, a repeating double pattern) it must
# turn compression on, with random data it must leave it off. Decisions are
# read from compi's report (deterministic); speedups from compi_pingpong
# (plain MPI vs compi in the same run) are printed, and only checked against
# bounds far from the expected values (zeros ~100x, random ~1x).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPI=$ROOT/tools/compi
NAME=cadapt SUBNET=${COMPI_TEST_SUBNET_ADAPT:-10.213.78}
TMP=$(mktemp -d)
passed=0 failed=0
cleanup() { "$COMPI" vcluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
result() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "PASS $2"; else failed=$((failed + 1)); echo "FAIL $2"; fi; }

"$COMPI" vcluster up --name "$NAME" --subnet "$SUBNET" --nodes 2 --rate 100mbit --slots 1 >"$TMP/up.log" 2>&1 ||
    { cat "$TMP/up.log"; echo "0 passed, 1 failed"; exit 1; }
for mpi in openmpi mpich; do
    lib=$ROOT/build/$mpi/lib/libcompi.so
    bin=$ROOT/build/$mpi/bin/compi_pingpong
    [ -f "$lib" ] && [ -x "$bin" ] || { result 1 "$mpi: $lib or $bin missing (run tools/build.sh)"; continue; }
    for data in zeros double_pattern random; do
        report=$TMP/report_${mpi}_$data.json
        if [ "$mpi" = openmpi ]; then
            env_flags=(-x COMPI_MODE=adaptive -x "COMPI_REPORT=$report")
        else
            env_flags=(-genv COMPI_MODE adaptive -genv COMPI_REPORT "$report")
        fi
        log=$TMP/run_${mpi}_$data.log
        if ! timeout 300 "$COMPI" vcluster run --name "$NAME" --mpi "$mpi" --preload "$lib" -- \
                -np 2 "${env_flags[@]}" "$bin" --sizes 1M --data "$data" --budget 3 --min-reps 5 --quiet \
                >"$log" 2>&1; then
            result 1 "$mpi $data: run failed"; tail -20 "$log"; continue
        fi
        speedup=$(sed -n 's/^RESULT .* speedup=\([0-9.]*\).*/\1/p' "$log" | head -1)
        rc=0
        python3 - "$report" "$data" "${speedup:-0}" <<'PY' || rc=$?
import json, sys
report, data, speedup = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3])
msgs = comp = evals = 0
codecs = set()
for rk in report["ranks"]:
    # the 1 MiB messages: the only ones above the 2 KiB floor
    msgs += sum(w["messages"] - w["raw"] for w in rk["engine"]["windows"]) + \
            sum(w["raw"] for w in rk["engine"]["windows"] if w["no_bytes"] > 2048)
    evals += sum(w["evaluated"] for w in rk["engine"]["windows"])
    comp += sum(c["messages"] for c in rk["codecs"].values())
    codecs |= set(rk["codecs"])
print(f"  {data}: {msgs} messages in play, {evals} evaluated, {comp} sent compressed, "
      f"codecs {sorted(codecs) or '-'}, speedup vs plain MPI {speedup:.2f}x (same run, median)")
if data == "random":
    ok = msgs > 0 and comp == 0 and speedup >= 0.8
else:
    ok = msgs > 0 and comp >= 0.8 * msgs and speedup >= 1.5
sys.exit(0 if ok else 1)
PY
        result $rc "$mpi $data: adaptive turns compression $([ "$data" = random ] && echo off || echo on)"
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
