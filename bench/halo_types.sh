#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Halo faces as one derived-type element vs the same data packed into doubles,
# on 2 emulated nodes (one rank each) at RATE, plain MPI and compi in the same
# run: compi_stencil3d --faces types|packed, each of the four cells once per
# round in rotating order, REPS rounds, per MPI. Prints per cell the median
# time and its range, and for compi rank 0's report: its halos' ratio
# (payload / wire bytes; tests/mpi's compi_report_wire_bytes checks that
# bytes_out are the bytes handed to the MPI) and how many went raw.
# --against LIB adds a fifth cell: compi_stencil3d --faces types under another
# libcompi (e.g. an older build), for before/after tables (openmpi only, or
# LIB containing the word "@MPI@", replaced by the MPI's name).
# Usage: bench/halo_types.sh [--mpi openmpi|mpich|both] [--reps N] [--rate R] [--codec C] [--against LIB]
#                            [stencil args...]
# Needs root (netns), tools/build.sh's build/<mpi>. Timings, not a test.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMPI=$ROOT/tools/compi
mpis="openmpi mpich" reps=5 rate=100mbit codec=lz4 against=
while [[ $# -gt 0 ]]; do
    case $1 in
        --mpi) [[ $2 == both ]] || mpis=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --codec) codec=$2; shift 2 ;;
        --against) against=$2; shift 2 ;;
        *) break ;;
    esac
done
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(--nx 128 --ny 128 --nz 16 --iters 100 --halo isend)
NAME=chalo SUBNET=${COMPI_BENCH_HALO_SUBNET:-10.213.93}
TMP=$(mktemp -d)
trap '"$COMPI" vcluster down --name $NAME >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$COMPI" vcluster up --name $NAME --subnet "$SUBNET" --nodes 2 --rate "$rate" --slots 1 >"$TMP/up.log" 2>&1 ||
    { cat "$TMP/up.log"; exit 1; }
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg); 2 nodes x 1 rank at $rate;" \
     "compi fixed $codec; compi_stencil3d ${args[*]}"
for mpi in $mpis; do
    bin=$ROOT/build/$mpi/bin/compi_stencil3d lib=$ROOT/build/$mpi/lib/libcompi.so
    cells=(plain:packed plain:types compi:packed compi:types)
    [[ -z $against ]] || cells+=(against:types)
    nc=${#cells[@]}
    for ((r = 1; r <= reps; r++)); do
        for ((i = 0; i < nc; i++)); do
            cell=${cells[$(((i + r) % nc))]} mode=${cell%%:*} faces=${cell##*:}
            log=$TMP/$mpi.$mode.$faces.$r
            kv=()
            if [[ $mode != plain ]]; then
                kv=(COMPI_MODE=fixed "COMPI_CODEC=$codec" COMPI_MIN_BYTES=0 "COMPI_REPORT=$log.json")
            fi
            flags=()
            for e in "${kv[@]}"; do
                if [[ $mpi == openmpi ]]; then flags+=(-x "$e"); else flags+=(-genv "${e%%=*}" "${e#*=}"); fi
            done
            pre=()
            [[ $mode == compi ]] && pre=(--preload "$lib")
            [[ $mode == against ]] && pre=(--preload "${against//@MPI@/$mpi}")
            timeout 300 "$COMPI" vcluster run --name $NAME --mpi "$mpi" "${pre[@]}" -- -np 2 "${flags[@]}" \
                "$bin" --quiet --faces "$faces" "${args[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
        done
    done
    python3 - "$TMP" "$mpi" "$reps" "$nc" <<'PY'
import glob, json, re, statistics, sys
tmp, mpi, reps, nc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
res, sums = {}, set()
cells = [(m, f) for m in ("plain", "compi") for f in ("packed", "types")] + ([("against", "types")] if nc > 4 else [])
for mode, faces in cells:
    t, ratios = [], []
    for r in range(1, reps + 1):
        out = open("%s/%s.%s.%s.%d" % (tmp, mpi, mode, faces, r)).read()
        m = re.search(r"RESULT checksum=(\S+) .*time_s=([0-9.]+)", out)
        sums.add(m.group(1))
        t.append(float(m.group(2)))
        if mode != "plain":
            rep = json.load(open("%s/%s.%s.%s.%d.json" % (tmp, mpi, mode, faces, r)))
            r0 = rep["ranks"][0]   # rank 0 sends only its halos through compi
            c = r0["codecs"]
            bin_ = sum(x["bytes_in"] for x in c.values()); bout = sum(x["bytes_out"] for x in c.values())
            halos = sum(r0["families"][f]["messages"] for f in ("send", "isend", "sendrecv"))
            ratios.append((bin_ / bout if bout else 0, sum(x["messages"] for x in c.values()), halos))
    res[(mode, faces)] = (t, ratios)
base = statistics.median(res[("plain", "packed")][0])
print("%s: checksums %s" % (mpi, "identical" if len(sums) == 1 else "DIFFER: %s" % sums))
print("| MPI | halo faces | library | median s [min, max] | vs plain packed | report ratio (rank 0) | compressed / halos sent (rank 0) |")
print("|---|---|---|---|---|---|---|")
for (mode, faces), (t, ratios) in res.items():
    med = statistics.median(t)
    rr = "%.2f" % statistics.median(x[0] for x in ratios) if ratios else "-"
    pw = "%d / %d" % (min(x[1] for x in ratios), ratios[0][2]) if ratios else "-"
    lib = {"plain": "plain", "compi": "compi", "against": "--against lib"}[mode]
    print("| %s | %s | %s | %.3f [%.3f, %.3f] | %.2f | %s | %s |" % (mpi, faces, lib,
          med, min(t), max(t), med / base, rr, pw))
PY
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
