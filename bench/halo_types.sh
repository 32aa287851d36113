#!/usr/bin/env bash
# Halo faces as one derived-type element vs the same data packed into doubles,
# on 2 emulated nodes (one rank each) at RATE, plain MPI and compi in the same
# run: compi_stencil3d --faces types|packed, each of the four cells once per
# round in rotating order, REPS rounds, per MPI. Prints per cell the median
# time and its range, and for compi rank 0's report: its halos' ratio
# (payload / wire bytes; tests/mpi's compi_report_wire_bytes checks that
# bytes_out are the bytes handed to the MPI) and how many went raw.
# Usage: bench/halo_types.sh [--mpi openmpi|mpich|both] [--reps N] [--rate R] [--codec C] [stencil args...]
# Needs root (netns), tools/build.sh's build/<mpi>. Timings, not a test.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMPI=$ROOT/tools/compi
mpis="openmpi mpich" reps=5 rate=100mbit codec=lz4
while [[ $# -gt 0 ]]; do
    case $1 in
        --mpi) [[ $2 == both ]] || mpis=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --codec) codec=$2; shift 2 ;;
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
    for ((r = 1; r <= reps; r++)); do
        for ((i = 0; i < 4; i++)); do
            cell=${cells[$(((i + r) % 4))]} mode=${cell%%:*} faces=${cell##*:}
            log=$TMP/$mpi.$mode.$faces.$r
            kv=()
            if [[ $mode == compi ]]; then
                kv=(COMPI_MODE=fixed COMPI_CODEC=$codec COMPI_MIN_BYTES=0 COMPI_REPORT=$log.json)
            fi
            flags=()
            for e in "${kv[@]}"; do
                if [[ $mpi == openmpi ]]; then flags+=(-x "$e"); else flags+=(-genv "${e%%=*}" "${e#*=}"); fi
            done
            pre=()
            [[ $mode == compi ]] && pre=(--preload "$lib")
            timeout 300 "$COMPI" vcluster run --name $NAME --mpi "$mpi" "${pre[@]}" -- -np 2 "${flags[@]}" \
                "$bin" --quiet --faces "$faces" "${args[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
        done
    done
    python3 - "$TMP" "$mpi" "$reps" <<'PY'
import glob, json, re, statistics, sys
tmp, mpi, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
res, sums = {}, set()
for mode in ("plain", "compi"):
    for faces in ("packed", "types"):
        t, ratios = [], []
        for r in range(1, reps + 1):
            out = open("%s/%s.%s.%s.%d" % (tmp, mpi, mode, faces, r)).read()
            m = re.search(r"RESULT checksum=(\S+) .*time_s=([0-9.]+)", out)
            sums.add(m.group(1))
            t.append(float(m.group(2)))
            if mode == "compi":
                rep = json.load(open("%s/%s.%s.%s.%d.json" % (tmp, mpi, mode, faces, r)))
                r0 = rep["ranks"][0]   # rank 0 sends only its halos through compi
                c = r0["codecs"]
                bin_ = sum(x["bytes_in"] for x in c.values()); bout = sum(x["bytes_out"] for x in c.values())
                ratios.append((bin_ / bout if bout else 0, r0["raw_incompressible"] + r0["raw_unframed"]))
        res[(mode, faces)] = (t, ratios)
base = statistics.median(res[("plain", "packed")][0])
print("%s: checksums %s" % (mpi, "identical" if len(sums) == 1 else "DIFFER: %s" % sums))
print("| MPI | halo faces | library | median s [min, max] | vs plain packed | report ratio (rank 0) | raw messages (rank 0) |")
print("|---|---|---|---|---|---|---|")
for (mode, faces), (t, ratios) in res.items():
    med = statistics.median(t)
    rr = "%.2f" % statistics.median(x[0] for x in ratios) if ratios else "-"
    pw = "%d" % max(x[1] for x in ratios) if ratios else "-"
    print("| %s | %s | %s | %.3f [%.3f, %.3f] | %.2f | %s | %s |" % (mpi, faces, "compi" if mode == "compi" else "plain",
          med, min(t), max(t), med / base, rr, pw))
PY
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
