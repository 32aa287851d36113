#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: benchmarks: pingpong, coll and io (plain MPI vs compi in one run), apps (mini-apps x modes on the emulated cluster), map (block/cyclic/compi map placements), beff (b_eff, pure MPI vs hybrid)
#
# compi_pingpong and compi_collbench measure both paths in one process
# (PMPI_* = plain, MPI_* = compi when preloaded), so the ratio they print
# needs no second run. This script builds them, preloads libcompi.so, sets
# COMPI_MODE/COMPI_CODEC for the ranks, and runs them intra-node and/or across
# emulated nodes.
#
# Development tooling (dev/cmd, run from the repository: tools/compi bench);
# never installed.  Its launch helpers are the product's (tools/cmd/_launch.sh).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/cmd/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$COMPI_CMD_DIR/_launch.sh"

COMPI_DEV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# A benchmark builds what it runs (incrementally: never stale binaries) in
# $COMPI_BUILD_DIR/<mpi> (default build/); --rebuild (BENCH_REBUILD=1) runs
# tools/build.sh first.
bench_build() {  # MPI TARGET...
    COMPI_FORCE_BUILD=${BENCH_REBUILD:-0} compi_build "$@"
}

bench_bin() { compi_bin_for "$1" "$2" "$COMPI_BUILD_DIR"; }

# COMPI_* settings from the caller's environment, as NAME=VALUE lines, minus
# the ones we set ourselves and the tool's own variables.
bench_passthrough_env() {
    local v
    for v in $(compi_env_names); do
        case "$v" in COMPI_MODE|COMPI_CODEC|COMPI_BENCH_*|COMPI_BUILD_DIR) continue ;; esac
        printf '%s=%s\n' "$v" "${!v}"
    done
}

# Builds PROGRAM (with libcompi unless LIB names the library to preload,
# and any EXTRA targets) for MPI, checks PROGRAM is there and prints the
# library to preload: LIB resolved, else this build's libcompi.
bench_prepare() {  # MPI PROGRAM LIB [EXTRA_TARGET...]
    local mpi=$1 prog=$2 lib=$3; shift 3
    local -a targets=("$prog" "$@")
    [[ -n $lib ]] || targets+=(compi)
    bench_build "$mpi" "${targets[@]}"
    [[ -x $(bench_bin "$mpi" "$prog") ]] || die "$prog not built at $(bench_bin "$mpi" "$prog")"
    if [[ -n $lib ]]; then
        [[ -f $lib ]] || die "--lib: no such file '$lib'"
        readlink -f "$lib"
    else
        compi_lib_for "$mpi" "$COMPI_BUILD_DIR"
    fi
}

bench_usage() {
    cat <<'USAGE'
usage: compi bench pingpong [--mpi openmpi|mpich] [--codec NAME] [--vcluster]
                            [--rate RATE] [--no-intra] [--rebuild] [--]
                            [compi_pingpong args...]

  Runs compi_pingpong with 2 ranks on this node (compi never compresses
  intra-node, so expect speedup ~1: it shows compi's pass-through cost), and
  with --vcluster also with 2 ranks on 2 emulated nodes linked at RATE
  (default 100mbit), where compression pays.
  --mpi       MPI to build/run with (default: what `mpirun` is here)
  --codec     COMPI_CODEC for the ranks (default lz4); COMPI_MODE=fixed.
              --codec adaptive runs COMPI_MODE=adaptive instead.
              Other COMPI_* variables in your environment (COMPI_MIN_BYTES,
              COMPI_VERBOSE, COMPI_REPORT, ...) are passed through too.
  --no-intra  only the vcluster run
  --calibrate with --vcluster: measure the emulated link first
              (compi_calibrate_network, up to 16 MiB) and give the ranks
              that network model (COMPI_HEURISTICS), as bench apps does;
              without it adaptive starts from the built-in 1 Gbit/s prior
  --rebuild   force a (re)build first; otherwise builds only what is missing
              or out of date in build/<mpi>
  --lib PATH  preload this library instead of build/<mpi>/lib/libcompi.so
  compi_pingpong args (see compi_pingpong --help):
    --sizes 1:64M | 8M[,..]   --data random,zeros,...|all   --reps N
    --budget SEC  --mode pingpong|stream  --window W  --pair A,B  --quiet
    --no-bound  (else sizes >= 64 KiB print the codec bound: the speedup no
                transfer can beat with the table's best codec, its codec time
                overlapped with the wire or not ("whole"), and the % reached)
    --compare V[,V..]  compi variants interleaved with plain rep by rep in
                one run, each on its own communicator with compi's hints (a
                mode such as adaptive, or a codec: fixed mode with it); per
                point each variant's median, its speedup over plain and its
                time over the first variant's (paired per rep, medians with
                ~90 % intervals). With --codec adaptive the engine runs as
                adaptive mode has it (start-up probe, learning), e.g.
                --codec adaptive -- --compare adaptive,lz4,zstd
  The emulated cluster is a private one (name $COMPI_BENCH_NAME, default
  cbench, subnet $COMPI_BENCH_SUBNET, default 10.213.41), brought up and
  torn down here.
  Output: a table per data set plus "RESULT key=value ..." lines
  (--compare: "RESULT_COMPARE ..." lines).

usage: compi bench coll [--mpi openmpi|mpich|both] [--vcluster] [--nodes N] [--ppn P]
                        [--rate RATE] [--codec C | --mode adaptive|fixed|off] [--no-intra]
                        [--no-calibrate] [--timeout SEC] [--logs DIR] [--rebuild] [--lib PATH]
                        [--] [compi_collbench args...]

  Runs compi_collbench (OSU-style: each wrapped collective, plain PMPI_<coll>
  vs compi's MPI_<coll> in the same run, interleaved reps, median times, the
  median of the paired ratios plain/compi with a distribution-free ~90 %
  interval, every result verified against plain MPI) with N x P ranks on
  this node, at most one per core (compi never compresses intra-node, so
  expect ratio ~1: its pass-through cost; with more ranks than cores,
  MPICH's busy-polling ranks time the scheduler's ticks), and with
  --vcluster also on N emulated nodes x P ranks linked at RATE (private
  cluster $COMPI_BENCH_COLL_NAME, default cbcoll, subnet
  $COMPI_BENCH_COLL_SUBNET, default 10.213.45).
  --mpi     default both
  --nodes, --ppn  default 2 x 2 (nodes x ranks per node)
  --rate    link rate of the emulated nodes (default 100mbit; implies --vcluster)
  --mode    COMPI_MODE of the ranks (default adaptive, what users get);
            --codec C means --mode fixed with COMPI_CODEC=C (fixed alone: lz4)
  --no-calibrate  in adaptive mode the emulated cluster's network model is
            first measured with each MPI (compi_calibrate_network, one rank
            per node, as bench apps does) and given to the ranks as
            COMPI_HEURISTICS; with this flag (or COMPI_HEURISTICS set) the
            ranks use COMPI_HEURISTICS or the built-in model
  --no-intra  only the vcluster run
  --timeout seconds per run (default 7200); a run still going is killed
  --logs DIR  keep the measured network models there (default: a temporary
            directory, removed at the end)
  --markdown  at the end, the rows of docs/results.md's collectives table
            with its test bed, git describe, MPI versions, reps, statistic,
            load averages and this command (dev/cmd/bench_results_md.py)
  compi_collbench args (see compi_collbench --help):
    --colls allgather,alltoall,...|all  --sizes 1K:16M:4 | 64K,1M  --data double_smooth,...
    --reps N (11)  --min-reps N (5)  --budget SEC (10)  --warmup N (1)  --max-mem BYTES (1G)
    --per-rep (REP lines: each timed rep's times)
  Output per run: a table per collective and data set plus "RESULT coll=
  size= data= reps= plain_us= compi_us= ratio= lo= hi= ..." lines; exit
  status 1 when any run failed (a result that differs from plain MPI is a
  failure).
  Other COMPI_* variables in your environment (COMPI_MIN_BYTES, COMPI_REPORT,
  ...) are passed to the ranks too.

usage: compi bench apps [--apps LIST] [--mpi openmpi|mpich|both] [--rates LIST]
                        [--modes LIST] [--reps N] [--scale F] [--fixed-codec C|APP=C,..]
                        [--confirm N] [--nodes N --ppn P] [--timeout SEC] [--logs DIR]
                        [--rebuild] [--no-calibrate]

  Runs the mini-apps (build/<mpi>/bin/compi_<app>) on the emulated cluster
  (`compi vcluster`, private name $COMPI_BENCH_APPS_NAME, default cbapps,
  subnet $COMPI_BENCH_APPS_SUBNET, default 10.213.43) with libcompi
  preloaded in each mode, and compares the apps' own timed phase
  (APP ... time_s=) with mode off.
  --apps    comma list (default: bips3d,stem,psrg,nas_is,stencil3d,transpose; an app
            whose binary cannot be built is reported "not available"); also
            stencil3d_masteronly and stencil3d_funneled: the hybrid MPI+OpenMP
            styles, a rank per node with --ppn OpenMP threads, the same grid
            and checksum as stencil3d
  --mpi     default both
  --rates   link rates, comma list of tc rates (default 100mbit,1gbit); the
            cluster is re-created per rate
  --modes   comma list of: off fixed adaptive guided plain (default
            off,fixed,adaptive,guided).  off = preloaded, COMPI_MODE=off (the
            baseline of the ratio); plain = not preloaded at all; fixed =
            COMPI_MODE=fixed with the app's codec (--fixed-codec); adaptive =
            COMPI_MODE=adaptive; guided = one COMPI_MODE=trace run per app, mpi
            and rate, then `compi guide <dir>`, then COMPI_MODE=guided
            COMPI_RULES=<dir>.  A mode the library (or `compi help`) does not
            offer yet is skipped with a "not available" line.
  --reps    runs per configuration (default 3).  Modes are interleaved (rep r
            starts with a different mode) so machine noise hits all alike;
            ratios are taken per round and their median reported, with a
            distribution-free confidence interval (use >= 9 reps for a
            useful one)
  --confirm rounds to rerun, in a second stage, each configuration with a
            comparison BELOW its threshold: only the modes of that
            comparison, interleaved, kept apart from the first rounds
            (default: as many as --reps; 0 = no second stage). With some 60
            comparisons at 90 % coverage a few BELOWs come by chance; the
            verdict of a suspect is that of its fresh rounds alone
  --scale   problem size factor passed to the apps (--scale F; stencil3d: its
            iterations); default 1
  --no-calibrate  by default each rate's network model is measured on the
            bench cluster first, with each MPI (compi_calibrate_network, one rank per node,
            up to 16 MiB) and given to adaptive, guided and compi guide as
            COMPI_HEURISTICS; with this flag (or COMPI_HEURISTICS set) the
            ranks use COMPI_HEURISTICS or the built-in model
  --fixed-codec  codec of mode fixed for every app (C), or per app
            (bips3d=zstd,nas_is=fpc); default per app (measured, see
            bench_apps_default_codec): bips3d lz4, stem blosc-lz4, psrg lz4,
            nas_is blosc-lz4, stencil3d lz4, transpose blosc-lz4
  --nodes, --ppn  emulated nodes and ranks per node (default 2 x 2: compi
            never compresses intra-node, so both kinds of traffic occur; 4
            ranks on this 2-core machine whatever the split). When a node's
            ranks equal the host's cores, MPICH runs get -bind-to core:
            unbound, the same MPICH run took 2.8-3.5 s or 7.7-8.1 s
  --timeout seconds per run (default 600): a run still going is killed: FAIL
  --logs DIR  keep every run's output and COMPI_REPORT JSON there (default: a
            temporary directory, removed unless a run failed)
  A run counts as FAIL when it exits non-zero, prints no APP line or
  check!=OK, or its RESULT checksum differs from another mode's (compression
  is lossless).  Output: progress lines, a table (app, mpi, rate, mode,
  median s, vs off = median over rounds of off time / mode time, its
  interval, codecs compi used per the report), the comparisons compi's goals
  name (adaptive vs off against 0.97, adaptive vs fixed, guided vs
  adaptive) with a verdict: above, BELOW (beyond noise) or within noise
  (dev/cmd/bench_apps_summary.py), the confirmation of each BELOW, "RESULT
  app= mpi= rate= mode= median_s= speedup= ci= status=", "COMPARE ...
  verdict=" and "CONFIRM ... verdict=" lines; exit status 1 when any run
  failed.
  Other COMPI_* variables in your environment (COMPI_MIN_BYTES, ...) are
  passed to every preloaded run.
usage: compi bench io [--mpi openmpi|mpich|both] [--ios LIST] [--rates LIST] [--ppn LIST]
                      [--nodes N] [--patterns LIST] [--reps N] [--mesh-nodes N] [--grid N]
                      [--variants LIST] [--no-calibrate] [--timeout SEC] [--logs DIR]
                      [--rebuild] [--lib PATH]

  Collective I/O on the emulated cluster (private name
  $COMPI_BENCH_IO_NAME, default cbio, subnet $COMPI_BENCH_IO_SUBNET,
  default 10.213.47): compi_iobench writes and reads back, in one run per
  configuration, through the MPI's own MPI-IO (hint compi_cb_aggregators=mpi)
  and compi's two-phase (default, la, la-blocks: la weighing contiguous
  blocks, la-z: la with COMPI_MODE=adaptive compressing the redistribution;
  the others run on a compi_mode=off communicator), and prints per variant
  the median time, the median of the per-rep ratios time(mpi)/time(variant)
  with a distribution-free ~90 % interval, whether its file is byte-identical
  to the MPI's own (cmp) and its read-back correct, and the redistribution
  bytes per call from compi's report (local = to itself, intra/inter-node,
  inter-node wire bytes, piece-list metadata).
  --mpi       default both
  --ios       the MPI's own MPI-IO to compare with: ompio,romio (Open MPI:
              OMPIO, and ROMIO via --mca io romio321; MPICH has ROMIO only,
              whatever is asked); default ompio,romio
  --rates     link rates (default 100mbit,1gbit); the cluster is re-created per rate
  --ppn       ranks per node, comma list (default 2,4)
  --nodes     emulated nodes (default 2)
  --patterns  bips3d:LOAD and stem, comma list (default bips3d:100,bips3d:500,stem)
  --reps      reps per run (default 5, at least 5), after one warm-up
  --mesh-nodes  bips3d mesh nodes (default 10000: load 500 writes 38 MiB)
  --grid      stem grid edge (default 96: 6.75 MiB)
  --variants  compi_iobench --variants (default mpi,default,la,la-blocks,la-z)
  --no-calibrate  as bench apps: la-z uses COMPI_HEURISTICS or the built-in model
  --logs DIR  keep outputs and reports there (default: a temporary directory
              under /tmp, removed at the end); the files are written there
              too (/tmp is one file system for every emulated node)
  --markdown  at the end, the rows of docs/results.md's collective I/O
              table with its test bed, git describe, MPI versions, reps,
              statistic, load averages and this command
              (dev/cmd/bench_results_md.py)
  Output: each run's table and RESULT lines, then "IOBYTES pattern= ...
  variant= op= local= intra= inter= wire= meta=" lines (bytes per call,
  summed over ranks) and "CMP ... identical=yes|no" lines; exit status 1
  when a run failed or a file differs.
USAGE
}

bench_pingpong() {
    local mpi="" codec=lz4 vcluster=0 rate=100mbit intra=1 lib="" calibrate=0
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
            --codec) codec=${2:?--codec needs a value}; shift 2 ;;
            --vcluster) vcluster=1; shift ;;
            --rate) rate=${2:?--rate needs a value}; vcluster=1; shift 2 ;;
            --no-intra) intra=0; shift ;;
            --calibrate) calibrate=1; shift ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --lib) lib=${2:?--lib needs a path}; shift 2 ;;
            -h|--help) bench_usage; return 0 ;;
            --) shift; args+=("$@"); break ;;
            *) args+=("$1"); shift ;;   # compi_pingpong's own options
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    (( intra || vcluster )) || die "--no-intra without --vcluster leaves nothing to run"

    (( calibrate && !vcluster )) && die "--calibrate measures the emulated link: it needs --vcluster (or --rate)"

    # libcompi.so too, unless --lib names another library to preload
    local -a extra=()
    (( calibrate )) && extra=(compi_calibrate_network)
    lib=$(bench_prepare "$mpi" compi_pingpong "$lib" "${extra[@]}")
    local bin
    bin=$(bench_bin "$mpi" compi_pingpong)

    # --codec adaptive: the runtime adaptive strategy instead of one codec
    local -a envkv=("COMPI_MODE=fixed" "COMPI_CODEC=$codec")
    [[ $codec == adaptive ]] && envkv=("COMPI_MODE=adaptive" "COMPI_CODEC=lz4")
    mapfile -t -O 2 envkv < <(bench_passthrough_env)
    local -a envflags
    mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}")

    if (( intra )); then
        echo "=== compi bench pingpong: $mpi, 2 ranks on this node, ${envkv[*]} ==="
        compi_local_run "$mpi" 2 "$lib" "${envflags[@]}" -- "$bin" "${args[@]}"
    fi
    if (( vcluster )); then
        local name=${COMPI_BENCH_NAME:-cbench} subnet=${COMPI_BENCH_SUBNET:-10.213.41}
        # The trap tears the cluster down on any exit, also Ctrl-C or failure.
        trap 'compi_vcluster_down '"$name" EXIT
        compi_vcluster_up "$name" "$subnet" 2 "$rate" 1
        if (( calibrate )); then
            # the measured model replaces any COMPI_HEURISTICS passed through
            local BA_NAME=$name BA_LOGS BA_TIMEOUT=600
            BA_LOGS=$(mktemp -d)
            trap 'compi_vcluster_down '"$name"'; rm -rf '"$BA_LOGS" EXIT
            if bench_apps_calibrate "$mpi" "$rate" 2; then
                local -a kept=() kv
                for kv in "${envkv[@]}"; do [[ $kv == COMPI_HEURISTICS=* ]] || kept+=("$kv"); done
                envkv=("${kept[@]}" "COMPI_HEURISTICS=$BA_LOGS/heuristics.$rate.$mpi")
                mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}")
            fi
        fi
        echo "=== compi bench pingpong: $mpi, 2 ranks on 2 emulated nodes at $rate, ${envkv[*]} ==="
        # the emulated nodes share this host's cores: a waiting rank yields
        # its core (to the other rank's codec pool, say)
        local -a vflags
        mapfile -t vflags < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
        bash "$COMPI_TOOL" vcluster run --name "$name" --mpi "$mpi" --preload "$lib" -- \
            "${vflags[@]}" -np 2 "${envflags[@]}" "$bin" "${args[@]}"
    fi
}

# ------------------------------------------------------------- bench apps ---

BENCH_APPS_ALL=(bips3d stem psrg nas_is stencil3d transpose)
# Hybrid MPI+OpenMP styles, in --apps only: stencil3d_masteronly and
# stencil3d_funneled run a rank per node with the node's ranks (--ppn) as
# OpenMP threads; their checksum is the pure-MPI stencil3d's.

# Codec of mode fixed per app when --fixed-codec does not say: the single
# codec with the best net gain (bytes saved at 100 Mbit/s minus codec time)
# in a codec sweep (4 ranks on 2 nodes, --scale 0.5, COMPI_REPORT ratios and
# seconds): bips3d lz4 (2.25x in 0.02 s; zstd 2.76x but 10x the time),
# stem blosc-lz4 (1.22x; its species fields barely compress, lz4 and snappy
# not at all), nas_is blosc-lz4 (2.5x: the byte shuffle suits integer keys),
# stencil3d lz4 (8x, 4x cheaper than zstd's 10.5x), psrg lz4 (5.7x in 0.02 s;
# blosc-lz4 7.7x in twice the time: the same net gain). transpose blosc-lz4
# (a smaller sweep: 4 ranks as 2 nodes on one host, default size, fixed mode,
# COMPI_REPORT ratios: blosc-lz4 6.3x, zstd 5.7x, dfcm 4.9x, fpc 4.8x, lz4
# 4.1x, snappy 3.6x; blosc-lz4 also among the cheapest in MPI_Alltoall time).
bench_apps_default_codec() {
    case "$1" in
        nas_is|stem|transpose) echo blosc-lz4 ;;
        *) echo lz4 ;;
    esac
}

# Command line of one app (binary path first), one word per line.
bench_apps_cmd() {  # MPI APP SCALE
    local mpi=$1 app=$2 scale=$3
    case "$app" in
        stencil3d_*) bench_bin "$mpi" compi_stencil3d ;;
        *) bench_bin "$mpi" "compi_$app" ;;
    esac
    case "$app" in
        stencil3d|stencil3d_masteronly|stencil3d_funneled)
            # no --scale: the demo's grid, iterations scaled; the hybrid
            # styles' rank holds its node's --ppn slabs (cells are per rank:
            # the same global grid, so the pure-MPI checksum)
            local nz=16
            [[ $app == stencil3d ]] || nz=$((16 * ${BA_PPN:-2}))
            printf '%s\n' --nx 128 --ny 128 --nz "$nz" --halo sendrecv --quiet --iters \
                "$(awk -v s="$scale" 'BEGIN { i = int(200 * s + 0.5); print (i < 1) ? 1 : i }')"
            [[ $app == stencil3d ]] || printf '%s\n' --omp "${app#stencil3d_}" ;;
        nas_is) printf '%s\n' --p2p --scale "$scale" ;;
        *) printf '%s\n' --scale "$scale" ;;
    esac
}

# Does this libcompi offer COMPI_MODE=<mode>? The valid mode names are in the
# library's own error text ("off, fixed, adaptive, trace, guided").
bench_apps_lib_has_mode() {  # LIB MODE
    grep -aqF -- "$2" "$1"
}

# Why a mode cannot run with this library ("" = it can).
bench_apps_unavailable() {  # LIB MODE
    local lib=$1 mode=$2
    case "$mode" in
        off|fixed|plain) ;;
        adaptive)
            bench_apps_lib_has_mode "$lib" adaptive ||
                echo "libcompi ($lib) has no COMPI_MODE=adaptive yet" ;;
        guided)
            if ! bash "$COMPI_TOOL" help 2>/dev/null | grep -qE '^  guide '; then
                echo "\`compi help\` lists no guide subcommand yet"
            elif ! bench_apps_lib_has_mode "$lib" guided || ! bench_apps_lib_has_mode "$lib" trace; then
                echo "libcompi ($lib) has no COMPI_MODE=trace/guided yet"
            fi ;;
    esac
}

# The codecs a run used, from its COMPI_REPORT: "fpc 93%,lz4 7%" by bytes
# compressed ("-" when nothing was compressed, "?" without a report).
bench_apps_codecs_used() {  # REPORT.json
    [[ -s $1 ]] || { echo "?"; return 0; }
    python3 - "$1" <<'PY' 2>/dev/null || echo "?"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    c = r.get("totals", {}).get("codecs", {}) or {}
except Exception:
    print("?"); sys.exit(0)
tot = sum(v.get("bytes_in", 0) for v in c.values())
if not tot:
    # nothing compressed; the engine's final choices, if any, still say something
    ch = sorted({w.get("codec") for x in r.get("ranks", []) for w in (x.get("engine") or {}).get("windows", [])
                 if w.get("codec")})
    print(("chose " + "/".join(ch)) if ch else "-"); sys.exit(0)
items = sorted(c.items(), key=lambda kv: -kv[1].get("bytes_in", 0))
out = ",".join("%s %d%%" % (k, round(100.0 * v.get("bytes_in", 0) / tot)) for k, v in items if v.get("bytes_in", 0))
# guided: ranks whose rules were missing or stale ran adaptive instead
gd = [(x.get("engine") or {}).get("guided") for x in r.get("ranks", [])]
gd = [x for x in gd if isinstance(x, dict)]
fb = sum(1 for x in gd if x.get("fallback"))
if fb:
    out += " (%d rank(s) fell back to adaptive)" % fb
print(out)
PY
}

# One run of one app in one mode on the emulated cluster. Appends a line to
# $BA_RESULTS: app mpi rate mode rep status time checksum codecs log
# (tab-separated) and prints a progress line.
bench_apps_run_one() {  # MPI RATE APP MODE REP LIB
    local mpi=$1 rate=$2 app=$3 mode=$4 rep=$5 lib=$6
    local tag=$app.$mpi.$rate.$mode.$rep
    local log=$BA_LOGS/$tag.log json=$BA_LOGS/$tag.json codec="" label=$mode
    local -a envkv=() appcmd launch
    mapfile -t appcmd < <(bench_apps_cmd "$mpi" "$app" "$BA_SCALE")
    compi_test_wrap appcmd
    # a hybrid app (stencil3d_masteronly, _funneled): a rank per node with
    # the node's ranks as its OpenMP threads, idle ones asleep
    local np=$BA_NP
    local -a hyb=()
    if [[ $app == stencil3d_* ]]; then
        np=$((BA_NP / BA_PPN))
        hyb=(--map rr)
        envkv=("OMP_NUM_THREADS=$BA_PPN" OMP_WAIT_POLICY=passive)
    fi
    # waiting ranks yield the core (compi_idle_flags: Open MPI's
    # mpi_yield_when_idle, the emulated cluster's UCX shim for MPICH), as in
    # bench coll and bench map
    mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
    # Before MPICH's ranks yielded, they polled busily and, unbound, landed
    # where the scheduler put them: runs were bimodal (2 emulated nodes x 2
    # ranks on this 2-core host: stencil3d off took 7.7-8.1 s in 7 of 20
    # runs, else 2.8-3.5 s). Bound, every run gets the same placement (0 of
    # 20 slow), which is what a comparison of modes needs; it is not always
    # the faster placement (stem: always ~2.7 s, unbound 1.3-2.1 s or 2.7-2.8
    # s). Each node binds its ranks from core 0, so this is done only when a
    # node's ranks cover the cores once.
    # (not a hybrid rank: its OpenMP threads and helpers need the node's cores)
    [[ $mpi == mpich && $BA_PPN == "$(nproc)" && $app != stencil3d_* ]] && launch+=(-bind-to core)
    case "$mode" in
        off) envkv+=(COMPI_MODE=off) ;;
        fixed) codec=$(bench_apps_fixed_codec "$app"); envkv+=(COMPI_MODE=fixed "COMPI_CODEC=$codec"); label="fixed($codec)" ;;
        adaptive) envkv+=(COMPI_MODE=adaptive) ;;
        guided) envkv+=(COMPI_MODE=guided "COMPI_RULES=$BA_LOGS/guide.$app.$mpi.$rate") ;;
        trace) envkv+=(COMPI_MODE=trace "COMPI_TRACE=$BA_LOGS/guide.$app.$mpi.$rate") ;;
    esac
    rm -f "$json"
    local -a runner=(timeout --kill-after=10 "$BA_TIMEOUT" bash "$COMPI_TOOL" vcluster run --name "$BA_NAME" --mpi "$mpi"
                     "${hyb[@]}")
    if [[ $mode != plain ]]; then
        envkv+=("COMPI_REPORT=$json")
        local kv
        while IFS= read -r kv; do
            case "${kv%%=*}" in COMPI_REPORT|COMPI_TRACE|COMPI_RULES) continue ;; esac
            envkv+=("$kv")
        done < <(bench_passthrough_env)
        runner+=(--preload "$lib")
    fi
    local -a envflags=()
    mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}")
    local rc=0 t0 t1
    t0=$(date +%s.%N)
    { echo "# $mode run: ${envkv[*]}"; "${runner[@]}" -- -np "$np" "${launch[@]}" "${envflags[@]}" "${appcmd[@]}"; } \
        >"$log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    # The app's closing line (apps/app_common.h); compi_stencil3d before it
    # had one printed only "RESULT ... time_s=".
    local appline t="" check="" cs status=OK why=""
    appline=$(grep -E '^APP name=' "$log" | tail -n 1 || true)
    if [[ -n $appline ]]; then
        t=$(sed -n 's/.* time_s=\([0-9.eE+-]*\).*/\1/p' <<<"$appline")
        check=$(sed -n 's/.* check=\([A-Za-z]*\).*/\1/p' <<<"$appline")
    else
        t=$(sed -n 's/^RESULT .*time_s=\([0-9.eE+-]*\).*/\1/p' "$log" | tail -n 1)
        [[ -n $t ]] && check=OK
    fi
    cs=$(sed -n 's/^RESULT .*checksum=\([0-9a-fA-F]*\).*/\1/p' "$log" | tail -n 1)
    if (( rc == 124 || rc == 137 )); then status=FAIL why="killed after ${BA_TIMEOUT}s"
    elif [[ -n $appline && $check != OK ]]; then
        status=FAIL why="check=${check:-?}: $(grep -m1 '^CHECK ' "$log" || echo 'no CHECK line')"
    elif (( rc != 0 )); then
        status=FAIL why="exit $rc$(grep -m1 -iE 'error|abort|signal' "$log" | sed 's/^/: /' | cut -c1-160)"
    elif [[ -z $t ]]; then status=FAIL why="no APP line"
    fi
    [[ $status == OK ]] || { t=${t:-NA}; BA_ANY_FAIL=1; }
    local measured=""
    if [[ $status == OK && -n ${COMPI_BENCH_TEST_TIME:-} ]]; then
        local injected
        injected=$(bench_apps_test_time "$mode")
        if [[ -n $injected ]]; then
            measured=$t t=$injected
            echo "# COMPI_BENCH_TEST_TIME (test hook): time_s $measured measured, $t recorded" >>"$log"
        fi
    fi
    local used="-"
    [[ $mode != plain ]] && used=$(bench_apps_codecs_used "$json")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$mpi" "$rate" "$mode" "$rep" "$status" \
        "$t" "${cs:--}" "$used" "$log" "$why" >>"$BA_RESULTS"
    printf '  %-9s %-7s %-7s rep %d/%d %-16s %s%s%s (wall %.1f s)%s\n' "$app" "$mpi" "$rate" "$rep" "$BA_REPS" \
        "$label" "$status" "$([[ $t != NA ]] && printf ' %s s' "$t")" \
        "$([[ -n $measured ]] && printf ' (test hook; measured %s s)' "$measured")" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        "$([[ -n $why ]] && printf '  [%s, log %s]' "$why" "$log")"
    [[ $status == OK ]]
}

# Test hook, not a user feature: COMPI_BENCH_TEST_TIME="MODE=SECONDS[,...]"
# makes every successful run of MODE (first rounds and confirmation) count as
# having taken SECONDS in its timed phase instead of what the app measured;
# the measured time still shows in the progress line and the run's log.
# The runs themselves are real (built, launched on the emulated cluster,
# checked, checksums compared); only the timing verdict is decided in
# advance, so tests/vcluster/test_bench_apps.sh can check the bench's
# mechanics (comparisons, BELOW, the confirmation stage, the final count)
# with outcomes that no load on a shared CI machine can change.
# Prints MODE's time, or nothing when the hook leaves MODE alone.
bench_apps_test_time() {  # MODE
    local item
    local -a items
    IFS=, read -r -a items <<<"${COMPI_BENCH_TEST_TIME:-}"
    for item in "${items[@]}"; do
        [[ ${item%%=*} == "$1" ]] && { echo "${item#*=}"; return 0; }
    done
    return 0
}

# Dies on a malformed COMPI_BENCH_TEST_TIME (see bench_apps_test_time).
bench_apps_check_test_time() {
    local item
    local -a items
    IFS=, read -r -a items <<<"$COMPI_BENCH_TEST_TIME"
    for item in "${items[@]}"; do
        [[ $item =~ ^(off|fixed|adaptive|guided|plain)=[0-9]*\.?[0-9]+$ ]] &&
            awk -v s="${item#*=}" 'BEGIN { exit !(s + 0 > 0) }' ||
            die "COMPI_BENCH_TEST_TIME: bad item '$item' (a test hook: MODE=SECONDS,..., MODE one of off fixed adaptive guided plain, SECONDS > 0)"
    done
}

bench_apps_fixed_codec() {  # APP
    local app=$1 spec=$BA_FIXED item
    if [[ -n $spec && $spec != *=* ]]; then echo "$spec"; return 0; fi
    IFS=, read -r -a items <<<"$spec"
    for item in "${items[@]}"; do
        [[ ${item%%=*} == "$app" ]] && { echo "${item#*=}"; return 0; }
    done
    bench_apps_default_codec "$app"
}

# Trace run + `compi guide` for one app, mpi and rate; the rules land in the
# trace directory (compi guide <dir> writes <dir>/rules.<rank>.txt).
# Returns 0 ready, 1 failed, 2 not available (the library ran the trace mode
# but wrote no trace: it accepts the mode name before it records anything);
# the reason is in BA_GUIDED_WHY.
bench_apps_prepare_guided() {  # MPI RATE APP LIB
    local mpi=$1 rate=$2 app=$3 lib=$4
    local dir=$BA_LOGS/guide.$app.$mpi.$rate
    rm -rf "$dir"; mkdir -p "$dir"
    BA_GUIDED_WHY=""
    if ! bench_apps_run_one "$mpi" "$rate" "$app" trace 0 "$lib"; then
        BA_GUIDED_WHY="the COMPI_MODE=trace run failed (log $BA_LOGS/$app.$mpi.$rate.trace.0.log)"
        return 1
    fi
    if ! compgen -G "$dir/trace.*" >/dev/null; then
        BA_GUIDED_WHY="the COMPI_MODE=trace run wrote no trace.<rank>.bin in $dir (libcompi does not record traces yet?)"
        return 2
    fi
    # (COMPI_HEURISTICS in the caller's environment reaches compi guide too)
    if ! timeout "$BA_TIMEOUT" bash "$COMPI_TOOL" guide "$dir" --mpi "$mpi" >"$dir.guide.log" 2>&1; then
        BA_GUIDED_WHY="\`compi guide $dir\` failed: $(grep -m1 -i error "$dir.guide.log" || tail -n 1 "$dir.guide.log") (log $dir.guide.log)"
        return 1
    fi
    if ! compgen -G "$dir/rules.*" >/dev/null; then
        BA_GUIDED_WHY="\`compi guide $dir\` wrote no rules.* files there (log $dir.guide.log)"
        return 1
    fi
    echo "  $app $mpi $rate: guided: traced, \`compi guide\` made $(compgen -G "$dir/rules.*" | wc -l) rule file(s)"
    return 0
}

# Measures the network model of the bench cluster at this rate with this MPI
# (one rank per node, sizes to 16 MiB) into
# $BA_LOGS/heuristics.<rate>.<mpi>/network.txt. Per MPI: the model is what
# the MPI achieves on the link (measured at 1 Gbit/s: MPICH over UCX/TCP moves
# bips3d's 20-30 KiB halos far slower than Open MPI, so a model taken with
# Open MPI kept MPICH's adaptive runs raw where lz4 gained 1.8x).
bench_apps_calibrate() {  # MPI RATE NODES
    local mpi=$1 rate=$2 nodes=$3 dir=$BA_LOGS/heuristics.$2.$1
    mkdir -p "$dir"
    local -a launch
    mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
    if timeout --kill-after=10 "$BA_TIMEOUT" bash "$COMPI_TOOL" vcluster run --name "$BA_NAME" --mpi "$mpi" --map rr -- \
            -np "$nodes" "${launch[@]}" "$(bench_bin "$mpi" compi_calibrate_network)" -o "$dir/network.txt" \
            --serial --max-bytes 16777216 --reps 5 --quiet >"$dir.log" 2>&1 && [[ -s $dir/network.txt ]]; then
        echo "  $rate: network model measured ($mpi, $nodes nodes): $(grep -m1 '^alpha_us' "$dir/network.txt"), file $dir/network.txt"
        return 0
    fi
    echo "  $rate: network calibration failed (log $dir.log); adaptive/guided use the built-in model"
    return 1
}

bench_apps() {
    local apps_csv="" mpis_csv=both rates_csv=100mbit,1gbit modes_csv=off,fixed,adaptive,guided
    local nodes=2 ppn=2 logs="" keep=0 calibrate=1
    [[ -n ${COMPI_HEURISTICS:-} ]] && calibrate=0
    BA_REPS=3 BA_SCALE=1 BA_FIXED="" BA_TIMEOUT=600 BA_CONFIRM=""
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --apps) apps_csv=${2:?--apps needs a list}; shift 2 ;;
            --mpi) mpis_csv=${2:?--mpi needs a value}; shift 2 ;;
            --rates|--rate) rates_csv=${2:?--rates needs a list}; shift 2 ;;
            --modes|--mode) modes_csv=${2:?--modes needs a list}; shift 2 ;;
            --reps) BA_REPS=${2:?--reps needs a number}; shift 2 ;;
            --confirm) BA_CONFIRM=${2:?--confirm needs a number}; shift 2 ;;
            --scale) BA_SCALE=${2:?--scale needs a number}; shift 2 ;;
            --fixed-codec) BA_FIXED=${2:?--fixed-codec needs a codec or APP=CODEC list}; shift 2 ;;
            --nodes) nodes=${2:?}; shift 2 ;;
            --ppn) ppn=${2:?}; shift 2 ;;
            --timeout) BA_TIMEOUT=${2:?}; shift 2 ;;
            --logs) logs=${2:?}; keep=1; shift 2 ;;
            --keep-logs) keep=1; shift ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --no-calibrate) calibrate=0; shift ;;
            -h|--help) bench_usage; return 0 ;;
            *) die "bench apps: unknown option '$1' (see compi bench --help)" ;;
        esac
    done
    [[ $BA_REPS =~ ^[1-9][0-9]*$ ]] || die "--reps takes a positive integer"
    BA_CONFIRM=${BA_CONFIRM:-$BA_REPS}
    [[ $BA_CONFIRM =~ ^[0-9]+$ ]] || die "--confirm takes a number of rounds (0: no confirmation)"
    [[ $BA_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive number of seconds"
    [[ $nodes =~ ^[1-9][0-9]*$ && $ppn =~ ^[1-9][0-9]*$ ]] || die "--nodes and --ppn take positive integers"
    awk -v s="$BA_SCALE" 'BEGIN { exit !(s + 0 > 0) }' || die "--scale takes a positive number"
    (( nodes >= 2 )) || note "warning: --nodes $nodes: with one node compi compresses nothing"
    require_cmds python3 timeout awk
    local -a apps mpis rates modes
    if [[ -n $apps_csv ]]; then IFS=, read -r -a apps <<<"$apps_csv"; else apps=("${BENCH_APPS_ALL[@]}"); fi
    case "$mpis_csv" in both) mpis=(openmpi mpich) ;; *) IFS=, read -r -a mpis <<<"$mpis_csv" ;; esac
    IFS=, read -r -a rates <<<"$rates_csv"
    IFS=, read -r -a modes <<<"$modes_csv"
    local x
    for x in "${mpis[@]}"; do check_mpi_name "$x"; done
    for x in "${modes[@]}"; do
        case "$x" in off|fixed|adaptive|guided|plain) ;; *) die "--modes: unknown mode '$x' (off fixed adaptive guided plain)" ;; esac
    done
    for x in "${apps[@]}"; do [[ $x =~ ^[a-z0-9_]+$ ]] || die "--apps: bad app name '$x'"; done
    [[ -z ${COMPI_BENCH_TEST_TIME:-} ]] || bench_apps_check_test_time
    for x in "${rates[@]}"; do [[ $x =~ ^[0-9.]+[a-z]*$ ]] || die "--rates: bad rate '$x' (e.g. 100mbit, 1gbit)"; done
    BA_NP=$((nodes * ppn)) BA_PPN=$ppn
    BA_NAME=${COMPI_BENCH_APPS_NAME:-cbapps}
    local subnet=${COMPI_BENCH_APPS_SUBNET:-10.213.43}
    if [[ -n $logs ]]; then mkdir -p "$logs"; BA_LOGS=$(readlink -f "$logs"); else BA_LOGS=$(mktemp -d /tmp/compi-bench-apps.XXXXXX); fi
    BA_RESULTS=$BA_LOGS/results.tsv BA_CONFIRMS=$BA_LOGS/confirm.tsv BA_ANY_FAIL=0 BA_KEEP=$keep
    : >"$BA_RESULTS"
    : >"$BA_CONFIRMS"
    BA_UP=0
    trap '[[ $BA_UP == 0 ]] || compi_vcluster_down "$BA_NAME"; if [[ $BA_KEEP == 1 || $BA_ANY_FAIL == 1 ]]; then echo "logs: $BA_LOGS" >&2; else rm -rf "$BA_LOGS"; fi' EXIT

    # Build per MPI: the library must build; an app that cannot is skipped.
    declare -A lib_of=() have=()
    local mpi app
    local -a notes=()
    for mpi in "${mpis[@]}"; do
        bench_build "$mpi" compi
        (( calibrate )) && bench_build "$mpi" compi_calibrate_network
        lib_of[$mpi]=$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")
        for app in "${apps[@]}"; do
            # (rebuilt above if --rebuild; the apps only need their own target)
            local target=compi_${app%%_masteronly}
            target=${target%%_funneled}
            if ( BENCH_REBUILD=0 bench_build "$mpi" "$target" ) 2>"$BA_LOGS/build.$app.$mpi.log" && [[ -x $(bench_bin "$mpi" "$target") ]]; then
                have[$app.$mpi]=1
            else
                local blog=$BA_LOGS/build.$app.$mpi.log
                if grep -q "No rule to make target" "$blog"; then
                    notes+=("$app $mpi: not available (no target compi_$app in this tree yet)")
                else
                    BA_ANY_FAIL=1   # keeps the logs
                    notes+=("$app $mpi: not available: compi_$app does not build: $(grep -m1 -iE 'error' "$blog" || tail -n 1 "$blog") (log $blog)")
                fi
            fi
        done
    done
    declare -A why_na=()
    local mode
    for mpi in "${mpis[@]}"; do
        for mode in "${modes[@]}"; do
            x=$(bench_apps_unavailable "${lib_of[$mpi]}" "$mode")
            if [[ -n $x ]]; then why_na[$mode.$mpi]=$x; notes+=("mode $mode with $mpi: not available: $x"); fi
        done
    done
    for x in "${notes[@]}"; do echo "compi bench apps: $x"; done

    # Timings on a busy machine are noise: say so up front (the table's
    # min-max column shows how much).
    local load cores
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
    cores=$(nproc)
    if awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c / 2) }'; then
        echo "compi bench apps: warning: load average $load on $cores cores before starting: expect noisy timings"
    fi
    [[ -z ${COMPI_BENCH_TEST_TIME:-} ]] ||
        echo "compi bench apps: test hook COMPI_BENCH_TEST_TIME=$COMPI_BENCH_TEST_TIME: those modes' times are set, not measured; their ratios and verdicts are not measurements"
    echo "=== compi bench apps: ${apps[*]} | ${mpis[*]} | ${rates[*]} | modes ${modes[*]} | $BA_REPS rep(s), scale $BA_SCALE | $nodes nodes x $ppn ranks ==="
    local rate rep guided_rc
    for rate in "${rates[@]}"; do
        BA_UP=1
        compi_vcluster_up "$BA_NAME" "$subnet" "$nodes" "$rate" "$ppn"
        for mpi in "${mpis[@]}"; do
            if (( calibrate )); then
                # adaptive/guided decide with the network model measured at this rate with this MPI
                if bench_apps_calibrate "$mpi" "$rate" "$nodes"; then
                    export COMPI_HEURISTICS=$BA_LOGS/heuristics.$rate.$mpi
                else
                    unset COMPI_HEURISTICS
                fi
            fi
            for app in "${apps[@]}"; do
                [[ -n ${have[$app.$mpi]:-} ]] || continue
                guided_rc=0 BA_GUIDED_WHY=""
                if [[ " ${modes[*]} " == *" guided "* && -z ${why_na[guided.$mpi]:-} ]]; then
                    bench_apps_prepare_guided "$mpi" "$rate" "$app" "${lib_of[$mpi]}" || guided_rc=$?
                    case $guided_rc in
                        1) BA_ANY_FAIL=1; echo "  $app $mpi $rate: guided: FAIL: $BA_GUIDED_WHY" ;;
                        2) echo "  $app $mpi $rate: guided: not available: $BA_GUIDED_WHY" ;;
                    esac
                fi
                for ((rep = 1; rep <= BA_REPS; rep++)); do
                    for mode in $(compi_round_order "$rep" "${modes[@]}"); do
                        [[ -z ${why_na[$mode.$mpi]:-} ]] || continue
                        if [[ $mode == guided && $guided_rc != 0 ]]; then
                            printf '%s\t%s\t%s\t%s\t%s\t%s\tNA\t-\t-\t-\t%s\n' "$app" "$mpi" "$rate" "$mode" "$rep" \
                                "$([[ $guided_rc == 2 ]] && echo NA || echo FAIL)" "no rules: $BA_GUIDED_WHY" >>"$BA_RESULTS"
                            continue
                        fi
                        bench_apps_run_one "$mpi" "$rate" "$app" "$mode" "$rep" "${lib_of[$mpi]}" || true
                    done
                done
            done
            (( BA_CONFIRM == 0 )) || bench_apps_confirm "$mpi" "$rate" "${lib_of[$mpi]}"
        done
        compi_vcluster_down "$BA_NAME"
        BA_UP=0
    done

    # Modes not available are listed too, so a table never silently lacks a row.
    for mpi in "${mpis[@]}"; do
        for mode in "${modes[@]}"; do
            [[ -n ${why_na[$mode.$mpi]:-} ]] || continue
            for rate in "${rates[@]}"; do
                for app in "${apps[@]}"; do
                    [[ -n ${have[$app.$mpi]:-} ]] || continue
                    printf '%s\t%s\t%s\t%s\t0\tNA\tNA\t-\t-\t-\t%s\n' "$app" "$mpi" "$rate" "$mode" \
                        "${why_na[$mode.$mpi]}" >>"$BA_RESULTS"
                done
            done
        done
    done
    echo
    # exit status 1 when any run failed (the table says which)
    local -a confirmed=()
    (( BA_CONFIRM == 0 )) || confirmed=("$BA_CONFIRMS")
    bench_apps_summary "$BA_RESULTS" "${modes[*]}" "$(bench_apps_fixed_list "${apps[@]}")" "${confirmed[@]}" ||
        { BA_ANY_FAIL=1; return 1; }
}

# The second stage: each configuration of this MPI and rate with a comparison
# BELOW its threshold in the first rounds is rerun, in BA_CONFIRM fresh rounds
# of that comparison's modes alone (interleaved as before), into
# $BA_CONFIRMS; bench_apps_summary.py takes its verdict from those rounds.
bench_apps_confirm() {  # MPI RATE LIB
    local mpi=$1 rate=$2 lib=$3 line app mode rep first=$BA_RESULTS
    local -a f cmodes
    # rep numbers go on from the first rounds (logs stay apart); the progress lines count all
    local BA_RESULTS=$BA_CONFIRMS BA_REPS=$((BA_REPS + BA_CONFIRM))
    while read -r line; do
        read -r -a f <<<"$line"
        [[ ${f[1]} == "$mpi" && ${f[2]} == "$rate" ]] || continue
        app=${f[0]} cmodes=("${f[@]:3}")
        echo "  $app $mpi $rate: a comparison of ${cmodes[*]} came out BELOW; confirming in $BA_CONFIRM fresh rounds"
        for ((rep = BA_REPS - BA_CONFIRM + 1; rep <= BA_REPS; rep++)); do
            for mode in $(compi_round_order "$rep" "${cmodes[@]}"); do
                bench_apps_run_one "$mpi" "$rate" "$app" "$mode" "$rep" "$lib" || true
            done
        done
    done < <(python3 "$COMPI_DEV_DIR/bench_apps_summary.py" --flagged "$first")
}

bench_apps_fixed_list() {
    local a
    for a in "$@"; do printf '%s=%s ' "$a" "$(bench_apps_fixed_codec "$a")"; done
}

# The table, per-round comparisons and RESULT lines from results.tsv (one line per run).
bench_apps_summary() {  # RESULTS.tsv "MODES" "APP=CODEC ..."
    python3 "$COMPI_DEV_DIR/bench_apps_summary.py" "$@"
}

# ------------------------------------------------------------- bench coll ---

bench_coll() {
    local mpis_csv=both vcluster=0 nodes=2 ppn=2 rate=100mbit intra=1 lib="" mode=adaptive codec=""
    local calibrate=1 timeout=7200 logs="" keep=0 markdown=0
    local command="tools/compi bench coll${*:+ $*}" load_before out
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    [[ -n ${COMPI_HEURISTICS:-} ]] && calibrate=0
    local -a args=()
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpis_csv=${2:?--mpi needs a value}; shift 2 ;;
            --vcluster) vcluster=1; shift ;;
            --markdown) markdown=1; shift ;;
            --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
            --ppn) ppn=${2:?--ppn needs a number}; shift 2 ;;
            --rate) rate=${2:?--rate needs a value}; vcluster=1; shift 2 ;;
            --mode) mode=${2:?--mode needs a value}; shift 2 ;;
            --codec) codec=${2:?--codec needs a value}; mode=fixed; shift 2 ;;
            --no-intra) intra=0; shift ;;
            --no-calibrate) calibrate=0; shift ;;
            --timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
            --logs) logs=${2:?--logs needs a directory}; keep=1; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --lib) lib=${2:?--lib needs a path}; shift 2 ;;
            -h|--help) bench_usage; return 0 ;;
            --) shift; args+=("$@"); break ;;
            *) args+=("$1"); shift ;;   # compi_collbench's own options
        esac
    done
    local -a mpis
    case "$mpis_csv" in both) mpis=(openmpi mpich) ;; *) IFS=, read -r -a mpis <<<"$mpis_csv" ;; esac
    local mpi
    for mpi in "${mpis[@]}"; do check_mpi_name "$mpi"; done
    case "$mode" in
        adaptive|off) [[ -z $codec ]] || die "--codec goes with --mode fixed" ;;
        fixed) codec=${codec:-lz4} ;;
        *) die "--mode adaptive|fixed|off (got '$mode')" ;;
    esac
    [[ $nodes =~ ^[1-9][0-9]*$ && $ppn =~ ^[1-9][0-9]*$ ]] || die "--nodes and --ppn take positive integers"
    [[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive number of seconds"
    [[ $rate =~ ^[0-9.]+[a-z]*$ ]] || die "--rate: bad rate '$rate' (e.g. 100mbit, 1gbit)"
    (( intra || vcluster )) || die "--no-intra without --vcluster leaves nothing to run"
    (( vcluster && nodes < 2 )) && note "warning: --nodes $nodes: with one node compi compresses nothing"
    (( vcluster )) && [[ $mode == adaptive ]] || calibrate=0
    require_cmds timeout
    local np=$((nodes * ppn))

    declare -A lib_of=()
    for mpi in "${mpis[@]}"; do
        local -a extra=()
        (( calibrate )) && extra+=(compi_calibrate_network)
        lib_of[$mpi]=$(bench_prepare "$mpi" compi_collbench "$lib" "${extra[@]}")
    done
    if [[ -n $logs ]]; then mkdir -p "$logs"; logs=$(readlink -f "$logs"); else logs=$(mktemp -d /tmp/compi-bench-coll.XXXXXX); fi
    : >"$logs/results.txt"

    local -a base=("COMPI_MODE=$mode")
    [[ -n $codec ]] && base+=("COMPI_CODEC=$codec")
    local kv
    while IFS= read -r kv; do
        [[ $calibrate == 1 && ${kv%%=*} == COMPI_HEURISTICS ]] && continue
        base+=("$kv")
    done < <(bench_passthrough_env)

    local any_fail=0 rc
    local -a envflags
    if (( intra )); then
        local inp=$np
        (( inp <= $(nproc) )) || inp=$(nproc)
        (( inp >= 2 )) || inp=2
        for mpi in "${mpis[@]}"; do
            echo "=== compi bench coll: $mpi, $inp ranks on this node, ${base[*]} ==="
            mapfile -t envflags < <(compi_env_flags "$mpi" "${base[@]}")
            rc=0
            out=$logs/out.$mpi.intra.txt
            BENCH_TIMEOUT=$timeout compi_local_run "$mpi" "$inp" "${lib_of[$mpi]}" "${envflags[@]}" -- \
                "$(bench_bin "$mpi" compi_collbench)" "${args[@]}" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
            sed -n "s/^RESULT /RESULT mpi=$mpi where=intra nodes=1 ppn=$inp rate=- /p" "$out" >>"$logs/results.txt"
            if (( rc )); then any_fail=1; echo "=== compi bench coll: $mpi on this node FAILED (exit $rc$( ((rc == 124)) && echo ": killed after ${timeout}s")) ==="; fi
        done
    fi
    if (( vcluster )); then
        # bench_apps_calibrate's settings: cluster name, where the model goes, time limit
        local BA_NAME=${COMPI_BENCH_COLL_NAME:-cbcoll} BA_LOGS=$logs BA_TIMEOUT=$timeout
        local subnet=${COMPI_BENCH_COLL_SUBNET:-10.213.45}
        # The trap tears the cluster down on any exit, also Ctrl-C or failure.
        trap 'compi_vcluster_down '"$BA_NAME"'; [[ '"$keep"' == 1 ]] || rm -rf '"$logs" EXIT
        compi_vcluster_up "$BA_NAME" "$subnet" "$nodes" "$rate" "$ppn"
        local -a envkv launch
        for mpi in "${mpis[@]}"; do
            envkv=("${base[@]}")
            if (( calibrate )); then
                # adaptive decides with the network model measured on this cluster with this MPI
                bench_apps_calibrate "$mpi" "$rate" "$nodes" && envkv+=("COMPI_HEURISTICS=$logs/heuristics.$rate.$mpi")
            fi
            mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}")
            mapfile -t launch < <(compi_vcluster_launch_flags "$mpi")
            # idle ranks yield the core (compi_idle_flags: Open MPI's
            # mpi_yield_when_idle, the emulated cluster's UCX shim for MPICH),
            # as each rank would have its own core on a real cluster; MPICH's
            # are also bound when a node's ranks cover the cores once
            mapfile -t -O "${#launch[@]}" launch < <(compi_idle_flags "$mpi" yield)
            [[ $mpi == mpich && $ppn == "$(nproc)" ]] && launch+=(-bind-to core)
            echo "=== compi bench coll: $mpi, $nodes emulated nodes x $ppn ranks at $rate, ${envkv[*]} ==="
            rc=0
            out=$logs/out.$mpi.vcluster.txt
            timeout --kill-after=10 "$timeout" bash "$COMPI_TOOL" vcluster run --name "$BA_NAME" --mpi "$mpi" \
                --preload "${lib_of[$mpi]}" -- "${launch[@]}" -np "$np" "${envflags[@]}" \
                "$(bench_bin "$mpi" compi_collbench)" "${args[@]}" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
            sed -n "s/^RESULT /RESULT mpi=$mpi where=vcluster nodes=$nodes ppn=$ppn rate=$rate /p" "$out" >>"$logs/results.txt"
            if (( rc )); then any_fail=1; echo "=== compi bench coll: $mpi on the emulated cluster FAILED (exit $rc$( ((rc == 124)) && echo ": killed after ${timeout}s")) ==="; fi
        done
    fi
    if (( markdown )) && [[ -s $logs/results.txt ]]; then
        echo
        python3 "$COMPI_DEV_DIR/bench_results_md.py" coll --command "$command" --load-before "$load_before" \
            --load-after "$(cut -d' ' -f1-3 /proc/loadavg)" "$logs/results.txt" || any_fail=1
    fi
    (( vcluster || keep )) || rm -rf "$logs"
    (( any_fail == 0 ))
}

# Redistribution bytes per call from compi's report, one IOBYTES line per
# (file, op): the report has one entry per open/close; compi_iobench names
# files compi_iobench_<pattern>_<variant>.dat.
bench_io_bytes() {  # REPORT.json TAG
    python3 - "$1" "$2" <<'PY'
import json, sys, collections
rep = json.load(open(sys.argv[1]))
acc = collections.OrderedDict()
for f in rep.get("io_files", []):
    name = f["file"].rsplit("/", 1)[-1]
    if not name.startswith("compi_iobench_"):
        continue
    variant = name[:-4].split("_", 3)[-1]
    for op in ("write_all", "read_all"):
        calls = f["compi_calls"][op]["calls"]
        if not calls:
            continue
        r = f["redistribution"]
        a = acc.setdefault((variant, op), collections.Counter())
        a["calls"] += calls
        for k in ("local_bytes", "intra_node_bytes", "inter_node_bytes", "inter_node_wire_bytes", "metadata_bytes"):
            a[k] += r[k]
        a["aggs"] = " ".join(map(str, f["aggregators"]))
for (variant, op), a in acc.items():
    c = a["calls"]
    print("IOBYTES %s variant=%s op=%s local=%d intra=%d inter=%d wire=%d meta=%d aggregators=%s" % (
        sys.argv[2], variant, op.split("_")[0], a["local_bytes"] // c, a["intra_node_bytes"] // c,
        a["inter_node_bytes"] // c, a["inter_node_wire_bytes"] // c, a["metadata_bytes"] // c, a["aggs"].replace(" ", ",")))
PY
}

bench_io() {
    local mpis_csv=both ios_csv=ompio,romio rates_csv=100mbit,1gbit ppn_csv=2,4 nodes=2
    local patterns_csv=bips3d:100,bips3d:500,stem reps=5 mesh_nodes=10000 grid=96 variants=mpi,default,la,la-blocks,la-z
    local calibrate=1 timeout=1800 logs="" keep=0 lib="" markdown=0
    local command="tools/compi bench io${*:+ $*}" load_before
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    [[ -n ${COMPI_HEURISTICS:-} ]] && calibrate=0
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpis_csv=${2:?--mpi needs a value}; shift 2 ;;
            --markdown) markdown=1; shift ;;
            --ios) ios_csv=${2:?--ios needs a value}; shift 2 ;;
            --rates) rates_csv=${2:?--rates needs a value}; shift 2 ;;
            --ppn) ppn_csv=${2:?--ppn needs a value}; shift 2 ;;
            --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
            --patterns) patterns_csv=${2:?--patterns needs a value}; shift 2 ;;
            --reps) reps=${2:?--reps needs a number}; shift 2 ;;
            --mesh-nodes) mesh_nodes=${2:?--mesh-nodes needs a number}; shift 2 ;;
            --grid) grid=${2:?--grid needs a number}; shift 2 ;;
            --variants) variants=${2:?--variants needs a value}; shift 2 ;;
            --no-calibrate) calibrate=0; shift ;;
            --timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
            --logs) logs=${2:?--logs needs a directory}; keep=1; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;
            --lib) lib=${2:?--lib needs a path}; shift 2 ;;
            -h|--help) bench_usage; return 0 ;;
            *) die "bench io: unknown option '$1'" ;;
        esac
    done
    local -a mpis ios rates ppns patterns
    case "$mpis_csv" in both) mpis=(openmpi mpich) ;; *) IFS=, read -r -a mpis <<<"$mpis_csv" ;; esac
    IFS=, read -r -a ios <<<"$ios_csv"
    IFS=, read -r -a rates <<<"$rates_csv"
    IFS=, read -r -a ppns <<<"$ppn_csv"
    IFS=, read -r -a patterns <<<"$patterns_csv"
    local mpi io rate ppn pat
    for mpi in "${mpis[@]}"; do check_mpi_name "$mpi"; done
    for io in "${ios[@]}"; do [[ $io == ompio || $io == romio ]] || die "--ios: ompio or romio (got '$io')"; done
    for rate in "${rates[@]}"; do [[ $rate =~ ^[0-9.]+[a-z]*$ ]] || die "--rates: bad rate '$rate'"; done
    for ppn in "${ppns[@]}"; do [[ $ppn =~ ^[1-9][0-9]*$ ]] || die "--ppn takes positive integers"; done
    for pat in "${patterns[@]}"; do [[ $pat =~ ^(bips3d:[1-9][0-9]*|stem)$ ]] || die "--patterns: bips3d:LOAD or stem (got '$pat')"; done
    [[ $nodes =~ ^[1-9][0-9]*$ ]] || die "--nodes takes a positive integer"
    [[ $reps =~ ^[0-9]+$ ]] && (( reps >= 5 )) || die "--reps: at least 5"
    [[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive number of seconds"
    require_cmds timeout cmp python3

    declare -A lib_of=()
    for mpi in "${mpis[@]}"; do
        local -a extra=()
        (( calibrate )) && extra+=(compi_calibrate_network)
        lib_of[$mpi]=$(bench_prepare "$mpi" compi_iobench "$lib" "${extra[@]}")
    done
    if [[ -n $logs ]]; then mkdir -p "$logs"; logs=$(readlink -f "$logs"); else logs=$(mktemp -d /tmp/compi-bench-io.XXXXXX); fi
    : >"$logs/results.txt"
    local files=$logs/files
    mkdir -p "$files"
    local -a base=("COMPI_MODE=adaptive")
    local kv
    while IFS= read -r kv; do
        case "${kv%%=*}" in COMPI_REPORT|COMPI_IO_AGGREGATORS|COMPI_IO_WEIGHT) continue ;; esac
        [[ $calibrate == 1 && ${kv%%=*} == COMPI_HEURISTICS ]] && continue
        base+=("$kv")
    done < <(bench_passthrough_env)

    local BA_NAME=${COMPI_BENCH_IO_NAME:-cbio} BA_LOGS=$logs BA_TIMEOUT=$timeout
    local subnet=${COMPI_BENCH_IO_SUBNET:-10.213.47}
    trap 'compi_vcluster_down '"$BA_NAME"'; [[ '"$keep"' == 1 ]] || rm -rf '"$logs" EXIT
    local any_fail=0 rc tag out v
    local -a envkv envflags launch pargs mpi_ios
    declare -A model_of=()
    for rate in "${rates[@]}"; do
      for ppn in "${ppns[@]}"; do
        # the cluster's slots are the ranks per node: ranks fill nodes by slot
        compi_vcluster_up "$BA_NAME" "$subnet" "$nodes" "$rate" "$ppn"
        for mpi in "${mpis[@]}"; do
            envkv=("${base[@]}")
            if (( calibrate )) && [[ -z ${model_of[$rate.$mpi]:-} ]]; then
                model_of[$rate.$mpi]=none
                bench_apps_calibrate "$mpi" "$rate" "$nodes" && model_of[$rate.$mpi]=$logs/heuristics.$rate.$mpi
            fi
            [[ ${model_of[$rate.$mpi]:-none} != none ]] && envkv+=("COMPI_HEURISTICS=${model_of[$rate.$mpi]}")
            if [[ $mpi == openmpi ]]; then mpi_ios=("${ios[@]}"); else mpi_ios=(romio); fi
            for io in "${mpi_ios[@]}"; do
                    for pat in "${patterns[@]}"; do
                        tag="mpi=$mpi io=$io rate=$rate nodes=$nodes ppn=$ppn pattern=${pat/:/ load=}"
                        [[ $pat == stem ]] && tag+=" load=0"
                        local stem_tag=${mpi}_${io}_${rate}_${ppn}_${pat/:/}
                        pargs=(--reps "$reps" --dir "$files" --keep --variants "$variants" --expect-nodes "$nodes")
                        if [[ $pat == stem ]]; then pargs+=(--pattern stem --grid "$grid")
                        else pargs+=(--pattern bips3d --load "${pat#bips3d:}" --mesh-nodes "$mesh_nodes"); fi
                        mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}" "COMPI_REPORT=$logs/report.$stem_tag.json")
                        mapfile -t launch < <(compi_vcluster_launch_flags "$mpi")
                        [[ $mpi == openmpi ]] && launch+=(--mca mpi_yield_when_idle 1)
                        [[ $mpi == openmpi && $io == romio ]] && launch+=(--mca io romio321)
                        [[ $mpi == mpich && $ppn == "$(nproc)" ]] && launch+=(-bind-to core)
                        echo "=== compi bench io: $tag, reps $reps ==="
                        out=$logs/out.$stem_tag.txt
                        rm -f "$files"/compi_iobench_*.dat
                        rc=0
                        timeout --kill-after=10 "$timeout" bash "$COMPI_TOOL" vcluster run --name "$BA_NAME" --mpi "$mpi" \
                            --preload "${lib_of[$mpi]}" -- "${launch[@]}" -np $((nodes * ppn)) "${envflags[@]}" \
                            "$(bench_bin "$mpi" compi_iobench)" "${pargs[@]}" >"$out" 2>&1 || rc=$?
                        grep -v '^RESULT' "$out" | grep -v '^compi\[' || true
                        sed -n "s/^RESULT /RESULT mpi=$mpi io=$io rate=$rate ppn=$ppn /p" "$out" | tee -a "$logs/results.txt"
                        if (( rc )); then
                            any_fail=1
                            echo "=== compi bench io: $tag FAILED (exit $rc$( ((rc == 124)) && echo ": killed after ${timeout}s")); log $out ==="
                            continue
                        fi
                        [[ -f $logs/report.$stem_tag.json ]] && bench_io_bytes "$logs/report.$stem_tag.json" "$tag"
                        local ref=$files/compi_iobench_${pat%%:*}_mpi.dat
                        for v in ${variants//,/ }; do
                            [[ $v == mpi ]] && continue
                            if cmp -s "$ref" "$files/compi_iobench_${pat%%:*}_$v.dat"; then echo "CMP $tag variant=$v identical=yes"
                            else echo "CMP $tag variant=$v identical=no"; any_fail=1; fi
                        done
                        rm -f "$files"/compi_iobench_*.dat
                    done
            done
        done
        compi_vcluster_down "$BA_NAME"
      done
    done
    if (( markdown )) && [[ -s $logs/results.txt ]]; then
        echo
        python3 "$COMPI_DEV_DIR/bench_results_md.py" io --command "$command" --load-before "$load_before" \
            --load-after "$(cut -d' ' -f1-3 /proc/loadavg)" "$logs/results.txt" || any_fail=1
    fi
    (( any_fail == 0 ))
}

bench_main() {
    local what=${1:-}
    [[ $# -gt 0 ]] && shift
    case "$what" in
        pingpong) bench_pingpong "$@" ;;
        apps) bench_apps "$@" ;;
        coll) bench_coll "$@" ;;
        io) bench_io "$@" ;;
        beff)
            # shellcheck source=dev/cmd/beff.sh
            source "$(dirname "${BASH_SOURCE[0]}")/beff.sh"
            bench_beff "$@" ;;
        map)
            # shellcheck source=dev/cmd/bench_map.sh
            source "$COMPI_DEV_DIR/bench_map.sh"
            bench_map "$@" ;;
        ""|-h|--help|help) bench_usage
            echo
            # shellcheck source=dev/cmd/bench_map.sh
            source "$COMPI_DEV_DIR/bench_map.sh"
            bench_map_usage ;;
        *) die "bench: unknown benchmark '$what' (available: pingpong, coll, apps, io, map, beff)" ;;
    esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    bench_main "$@"
fi
