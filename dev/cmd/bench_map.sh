#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck disable=SC2034  # BENCH_REBUILD is read by bench_build (bench.sh)
# compi bench map: block vs cyclic vs compi map's placement on the emulated
# cluster, measured in the same run, next to the placements' predicted costs.
#
# Per MPI: a private emulated cluster (--nodes x --ppn, --rate, optionally
# links that differ: --links / --racks --cross-rate, see compi vcluster up);
# its network measured with compi_calibrate_network (every node pair, and
# inside a node) unless --no-calibrate or --network FILE; then per app:
#   1. per --modes entry one traced run (block placement): COMPI_MODE=profile
#      for plain (the MPI's collectives), COMPI_MODE=trace for adaptive
#      (compi's own collectives where it takes them, recorded as such);
#   2. compi map TRACE --hosts <nodes> --network <file> -o mapped-<mode>
#      (adaptive: with --rules, compi guide's rules of its trace, so compi's
#      frames are priced compressed pair by pair);
#   3. --reps rounds, each running every placement (block, cyclic, mapped)
#      in a rotated order, for each --modes entry (plain: no compi; adaptive:
#      libcompi preloaded, COMPI_MODE=adaptive);
# and a table: per placement the median of the app's timed phase, its range,
# the median over rounds of block's time / its time (paired: same round)
# with a distribution-free interval, the predicted cost compi map printed
# for it, and whether the predicted ranking is the measured one
# (dev/cmd/bench_map_summary.py). Block and cyclic are written as
# placements with the same machinefile mechanism (and the traced run's
# MPICH pins, D/env) as the mapped one, so the launches differ only in where
# the ranks are.
#
# Sourced by bench.sh's dispatcher (compi bench map ...); uses its helpers.

bench_map_usage() {
    cat <<'USAGE'
usage: compi bench map [--apps LIST] [--mpi openmpi|mpich|both] [--nodes N] [--ppn P]
                       [--rate RATE] [--links A-B:RATE,...] [--racks K --cross-rate RATE]
                       [--reps N] [--scale F] [--modes plain,adaptive] [--network FILE]
                       [--no-calibrate] [--calibrate-bytes B] [--timeout SEC] [--logs DIR]
                       [--idle yield|poll] [--rebuild]

  block, cyclic and compi map's placement of each app on the emulated
  cluster (private name $COMPI_BENCH_MAP_NAME, default cbmap, subnet
  $COMPI_BENCH_MAP_SUBNET, default 10.213.47), measured in the same run.
  --apps    comma list (default: bips3d,stem,psrg,nas_is,stencil3d,transpose,pairs;
            pairs is the one whose heavy partners are not rank-order neighbours)
  --mpi     default openmpi
  --nodes, --ppn   default 4 x 2
  --rate    default link rate (default 100mbit)
  --links, --racks, --cross-rate   links that differ per node pair (compi
            vcluster up); compi map sees them through the calibrated network
  --reps    rounds (default 5); each runs every placement, order rotated
  --scale   problem size factor for the apps (default 1; stencil3d: iterations)
  --modes   plain (not preloaded, default) and/or adaptive (libcompi,
            COMPI_MODE=adaptive, with the calibrated network model)
  --network use this network file instead of measuring one; --no-calibrate:
            none (compi map's built-in model: every inter-node pair alike);
            --calibrate-bytes B: largest calibration message (default 4194304)
  --timeout seconds per run (default 600)
  --idle    yield (default): waiting ranks give up the core after an empty
            poll (Open MPI mpi_yield_when_idle 1; MPICH, which never
            yields, through the emulated cluster's UCX shim,
            VCLUSTER_MPICH_YIELD=1); poll: the MPIs' defaults (busy
            polling). An emulation setting: the emulated nodes share this
            host's cores, on a real cluster each rank has its own
  Output: progress lines, then per app, MPI and mode a table (placement,
  predicted cost, median s, range, block/placement ratio with its interval)
  and "RESULT bench=map app= mpi= mode= placement= predicted_us= median_s=
  vs_block= lo= hi=" lines; "RANKING app= predicted=... measured=...
  match=yes|no|within-noise" and "VERDICT app= mapped_vs_best= lo= hi=
  verdict=faster|slower|within-noise" (mapped against the faster of block
  and cyclic in each round). Timings on a shared machine are noisy: read
  the intervals. Exit status 1 when a run failed (a checksum that differs
  between placements is a failure).
USAGE
}

# Placement directory like compi map's -o for a fixed rule: block (fill
# nodes in order) or cyclic (round robin over nodes with free slots, as
# compi map's cyclic), with ENV_FROM/env copied (MPICH pins).
bench_map_write_placement() {  # DIR RULE NP "HOST ..." SLOTS ENV_FROM
    local dir=$1 rule=$2 np=$3 slots=$5 envf=$6 r
    local -a hosts
    read -r -a hosts <<<"$4"
    local nh=${#hosts[@]}
    mkdir -p "$dir"
    local -a of=()
    if [[ $rule == block ]]; then
        for ((r = 0; r < np; r++)); do of+=("${hosts[r / slots]}"); done
    else
        for ((r = 0; r < np; r++)); do of+=("${hosts[r % nh]}"); done
    fi
    {
        echo "compi-placement 1"; echo "program bench"; echo "ranks $np"
        echo "hosts $(printf '%s:'"$slots"',' "${hosts[@]}" | sed 's/,$//')"; echo "mapper $rule"
        for ((r = 0; r < np; r++)); do echo "rank $r ${of[r]}"; done
        echo end
    } >"$dir/placement.txt"
    printf '%s\n' "${of[@]}" >"$dir/machinefile"
    : >"$dir/rankfile"
    if [[ -f $envf ]]; then cp "$envf" "$dir/env"; else : >"$dir/env"; fi
}

# One run: appends "app mpi mode placement rep status time checksum log why" to $BM_RESULTS.
bench_map_run_one() {  # MPI APP MODE PLACEMENT REP
    local mpi=$1 app=$2 mode=$3 pl=$4 rep=$5
    local log=$BM_LOGS/run.$app.$mpi.$mode.$pl.$rep.log
    local -a appcmd launch envkv=() runner
    mapfile -t appcmd < <(bench_apps_cmd "$mpi" "$app" "$BM_SCALE")
    mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" "$BM_IDLE")
    local plfile=$BM_LOGS/pl.$app.$mpi.$pl
    [[ $pl == mapped ]] && plfile=$BM_LOGS/pl.$app.$mpi.mapped-$mode
    runner=(timeout --kill-after=10 "$BM_TIMEOUT" bash "$COMPI_TOOL" vcluster run --name "$BM_NAME" --mpi "$mpi"
            --placement "$plfile")
    if [[ $mode == adaptive ]]; then
        runner+=(--preload "$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")")
        envkv=(COMPI_MODE=adaptive)
        [[ -n $BM_HEUR ]] && envkv+=("COMPI_HEURISTICS=$BM_HEUR")
    fi
    local -a envflags=()
    (( ${#envkv[@]} )) && mapfile -t envflags < <(compi_env_flags "$mpi" "${envkv[@]}")
    local rc=0
    "${runner[@]}" -- -np "$BM_NP" "${launch[@]}" "${envflags[@]}" "${appcmd[@]}" >"$log" 2>&1 || rc=$?
    local appline t="" check="" cs status=OK why=""
    appline=$(grep -E '^APP name=' "$log" | tail -n 1 || true)
    if [[ -n $appline ]]; then
        t=$(sed -n 's/.* time_s=\([0-9.eE+-]*\).*/\1/p' <<<"$appline")
        check=$(sed -n 's/.* check=\([A-Za-z]*\).*/\1/p' <<<"$appline")
    else   # compi_stencil3d: "RESULT ... time_s=" and no APP line
        t=$(sed -n 's/^RESULT .*time_s=\([0-9.eE+-]*\).*/\1/p' "$log" | tail -n 1)
    fi
    cs=$(sed -n 's/^RESULT .*checksum=\([0-9a-fA-F]*\).*/\1/p' "$log" | tail -n 1)
    if (( rc == 124 || rc == 137 )); then status=FAIL why="killed after ${BM_TIMEOUT}s"
    elif [[ -n $appline && $check != OK ]]; then status=FAIL why="check=${check:-?}"
    elif (( rc != 0 )); then status=FAIL why="exit $rc"
    elif [[ -z $t ]]; then status=FAIL why="no APP line"
    fi
    [[ $status == OK ]] || { t=NA; BM_ANY_FAIL=1; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$mpi" "$mode" "$pl" "$rep" "$status" "$t" \
        "${cs:--}" "$log" "$why" >>"$BM_RESULTS"
    printf '  %-9s %-7s %-8s rep %d/%d %-7s %s%s%s\n' "$app" "$mpi" "$mode" "$rep" "$BM_REPS" "$pl" "$status" \
        "$([[ $t != NA ]] && printf ' %s s' "$t")" "$([[ -n $why ]] && printf '  [%s, log %s]' "$why" "$log")"
}

# Network model of the bench cluster: every node pair and inside a node.
bench_map_calibrate() {  # MPI -> prints the file's path ("" if it failed)
    local mpi=$1 out=$BM_LOGS/network.$1.txt
    local -a launch
    mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" "$BM_IDLE")
    if timeout --kill-after=10 "$BM_TIMEOUT" bash "$COMPI_TOOL" vcluster run --name "$BM_NAME" --mpi "$mpi" -- \
            -np "$BM_NP" "${launch[@]}" "$(bench_bin "$mpi" compi_calibrate_network)" -o "$out" \
            --serial --max-bytes "$BM_CAL_BYTES" --reps 5 --quiet >"$out.log" 2>&1 && [[ -s $out ]]; then
        echo "$out"
    fi
}

bench_map() {
    local apps_csv="" mpis_csv=openmpi nodes=4 ppn=2 rate=100mbit links="" racks="" cross="" logs="" keep=0
    local calibrate=1 network="" modes_csv=plain
    BM_REPS=5 BM_SCALE=1 BM_TIMEOUT=600 BM_CAL_BYTES=4194304 BM_IDLE=yield
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --apps) apps_csv=${2:?--apps needs a list}; shift 2 ;;
            --mpi) mpis_csv=${2:?--mpi needs a value}; shift 2 ;;
            --nodes) nodes=${2:?}; shift 2 ;;
            --ppn) ppn=${2:?}; shift 2 ;;
            --rate) rate=${2:?}; shift 2 ;;
            --links) links=${2:?}; shift 2 ;;
            --racks) racks=${2:?}; shift 2 ;;
            --cross-rate) cross=${2:?}; shift 2 ;;
            --reps) BM_REPS=${2:?}; shift 2 ;;
            --scale) BM_SCALE=${2:?}; shift 2 ;;
            --modes) modes_csv=${2:?}; shift 2 ;;
            --network) network=${2:?}; shift 2 ;;
            --no-calibrate) calibrate=0; shift ;;
            --calibrate-bytes) BM_CAL_BYTES=${2:?}; shift 2 ;;
            --timeout) BM_TIMEOUT=${2:?}; shift 2 ;;
            --logs) logs=${2:?}; keep=1; shift 2 ;;
            --idle) BM_IDLE=${2:?--idle needs yield or poll}; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;   # read by bench_build (bench.sh)
            -h|--help) bench_map_usage; return 0 ;;
            *) die "bench map: unknown option '$1' (see compi bench map --help)" ;;
        esac
    done
    [[ $BM_REPS =~ ^[1-9][0-9]*$ ]] || die "--reps takes a positive integer"
    [[ $BM_IDLE == yield || $BM_IDLE == poll ]] || die "--idle: yield or poll, not '$BM_IDLE'"
    [[ $BM_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive number of seconds"
    [[ $nodes =~ ^[1-9][0-9]*$ && $ppn =~ ^[1-9][0-9]*$ ]] || die "--nodes and --ppn take positive integers"
    (( nodes >= 2 )) || die "--nodes: placement needs at least 2 nodes"
    awk -v s="$BM_SCALE" 'BEGIN { exit !(s + 0 > 0) }' || die "--scale takes a positive number"
    [[ -z $network || -s $network ]] || die "--network: no such file '$network'"
    [[ -n $network ]] && network=$(readlink -f "$network")
    require_cmds python3 timeout awk
    local -a apps mpis modes
    if [[ -n $apps_csv ]]; then IFS=, read -r -a apps <<<"$apps_csv"; else apps=("${BENCH_APPS_ALL[@]}" pairs); fi
    case "$mpis_csv" in both) mpis=(openmpi mpich) ;; *) IFS=, read -r -a mpis <<<"$mpis_csv" ;; esac
    IFS=, read -r -a modes <<<"$modes_csv"
    local x
    for x in "${mpis[@]}"; do check_mpi_name "$x"; done
    for x in "${apps[@]}"; do [[ $x =~ ^[a-z0-9_]+$ ]] || die "--apps: bad app name '$x'"; done
    for x in "${modes[@]}"; do case "$x" in plain|adaptive) ;; *) die "--modes: plain and/or adaptive, not '$x'" ;; esac; done
    BM_NP=$((nodes * ppn)) BM_NAME=${COMPI_BENCH_MAP_NAME:-cbmap}
    local subnet=${COMPI_BENCH_MAP_SUBNET:-10.213.47}
    if [[ -n $logs ]]; then mkdir -p "$logs"; BM_LOGS=$(readlink -f "$logs"); else BM_LOGS=$(mktemp -d /tmp/compi-bench-map.XXXXXX); fi
    BM_RESULTS=$BM_LOGS/results.tsv BM_PRED=$BM_LOGS/predicted.tsv BM_ANY_FAIL=0 BM_KEEP=$keep BM_UP=0
    : >"$BM_RESULTS"
    : >"$BM_PRED"
    trap '[[ $BM_UP == 0 ]] || compi_vcluster_down "$BM_NAME"; if [[ $BM_KEEP == 1 || $BM_ANY_FAIL == 1 ]]; then echo "logs: $BM_LOGS" >&2; else rm -rf "$BM_LOGS"; fi' EXIT

    local mpi app
    for mpi in "${mpis[@]}"; do
        bench_build "$mpi" compi compi_maptool compi_calibrate_network compi_guide
        for app in "${apps[@]}"; do
            ( BENCH_REBUILD=0 bench_build "$mpi" "compi_$app" ) >"$BM_LOGS/build.$app.$mpi.log" 2>&1 ||
                die "bench map: compi_$app does not build for $mpi (log $BM_LOGS/build.$app.$mpi.log)"
        done
    done
    local -a up_extra=()
    [[ -n $links ]] && up_extra+=(--links "$links")
    [[ -n $racks ]] && up_extra+=(--racks "$racks")
    [[ -n $cross ]] && up_extra+=(--cross-rate "$cross")
    local hosts_spec="" hosts_list="" i
    for ((i = 0; i < nodes; i++)); do
        hosts_spec+="${hosts_spec:+,}$BM_NAME$i:$ppn"
        hosts_list+="${hosts_list:+ }$BM_NAME$i"
    done
    local netdesc="$rate${links:+, links $links}${racks:+, $racks racks, $cross between}"
    echo "=== compi bench map: ${apps[*]} | ${mpis[*]} | $nodes nodes x $ppn slots, $netdesc | modes ${modes[*]} | $BM_REPS rep(s), scale $BM_SCALE | idle $BM_IDLE ==="
    echo "load before: $(cat /proc/loadavg)"
    BM_UP=1
    bash "$COMPI_TOOL" vcluster up --name "$BM_NAME" --subnet "$subnet" --nodes "$nodes" --rate "$rate" \
        --slots "$ppn" "${up_extra[@]}" >&2
    local mode pl rep netfile
    for mpi in "${mpis[@]}"; do
        netfile=$network BM_HEUR=""
        if [[ -z $netfile ]] && (( calibrate )); then
            netfile=$(bench_map_calibrate "$mpi")
            if [[ -n $netfile ]]; then
                echo "  $mpi: network measured: $netfile"
                grep -E '^link ' "$netfile" | sed 's/^/    /'
            else
                echo "  $mpi: network calibration failed (log $BM_LOGS/network.$mpi.txt.log); compi map uses its built-in model"
            fi
        fi
        if [[ -n $netfile ]]; then
            BM_HEUR=$BM_LOGS/heur.$mpi
            mkdir -p "$BM_HEUR"
            cp "$netfile" "$BM_HEUR/network.txt"
        fi
        for app in "${apps[@]}"; do
            local tr mapped mode tmode envfile="" mapfail=0
            local -a appcmd launch tenv netarg=()
            [[ -n $netfile ]] && netarg=(--network "$netfile")
            mapfile -t appcmd < <(bench_apps_cmd "$mpi" "$app" "$BM_SCALE")
            mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" "$BM_IDLE")
            # one traced run and one placement per mode: plain runs the MPI's
            # collectives (COMPI_MODE=profile), adaptive compi's own where it
            # takes them (COMPI_MODE=trace runs compi's paths, frames raw, and
            # records which ran: compi map decomposes those as compi runs them)
            for mode in "${modes[@]}"; do
                tmode=profile
                [[ $mode == adaptive ]] && tmode=trace
                tr=$BM_LOGS/tr.$app.$mpi.$mode mapped=$BM_LOGS/pl.$app.$mpi.mapped-$mode
                rm -rf "$tr"
                mapfile -t tenv < <(compi_env_flags "$mpi" "COMPI_MODE=$tmode" "COMPI_TRACE=$tr")
                if ! timeout --kill-after=10 "$BM_TIMEOUT" bash "$COMPI_TOOL" vcluster run --name "$BM_NAME" \
                        --mpi "$mpi" --preload "$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")" -- -np "$BM_NP" \
                        "${launch[@]}" "${tenv[@]}" "${appcmd[@]}" >"$BM_LOGS/trace.$app.$mpi.$mode.log" 2>&1; then
                    BM_ANY_FAIL=1 mapfail=1
                    echo "  $app $mpi $mode: traced run FAILED (log $BM_LOGS/trace.$app.$mpi.$mode.log)"
                    break
                fi
                # adaptive: compi guide's rules of the trace tell compi map how
                # compi's frames compress, pair by pair
                local -a rulesarg=()
                if [[ $mode == adaptive ]]; then
                    local -a heurarg=()
                    [[ -n $BM_HEUR ]] && heurarg=(--heuristics "$BM_HEUR")
                    if "$(bench_bin "$mpi" compi_guide)" "$tr" -o "$tr.rules" "${heurarg[@]}" -q \
                            >"$BM_LOGS/guide.$app.$mpi.log" 2>&1; then
                        rulesarg=(--rules "$tr.rules")
                    else
                        echo "  $app $mpi $mode: compi guide failed (log $BM_LOGS/guide.$app.$mpi.log); frames priced raw"
                    fi
                fi
                if ! "$(bench_bin "$mpi" compi_map)" "$tr" --hosts "$hosts_spec" "${netarg[@]}" "${rulesarg[@]}" \
                        -o "$mapped" >"$BM_LOGS/map.$app.$mpi.$mode.log" 2>&1; then
                    BM_ANY_FAIL=1 mapfail=1
                    echo "  $app $mpi $mode: compi map FAILED: $(tail -n 1 "$BM_LOGS/map.$app.$mpi.$mode.log")"
                    break
                fi
                echo "  $app $mpi $mode: traced ($tmode), mapped: $(grep -m1 kept "$BM_LOGS/map.$app.$mpi.$mode.log" || true)"
                grep -m1 "node-aware algorithm" "$BM_LOGS/map.$app.$mpi.$mode.log" | sed 's/^/    /' || true
                [[ -n $envfile ]] || envfile=$mapped/env
                # predicted cost of each placement, from compi map's own output
                local kept
                kept=$(awk '$1 == "mapper" { print $2 }' "$mapped/placement.txt")
                awk -v a="$app" -v m="$mpi" -v md="$mode" -v k="$kept" '$1 == "predicted_us" {
                        if ($2 == "block" || $2 == "cyclic") print a "\t" m "\t" md "\t" $2 "\t" $3
                        if ($2 == k) print a "\t" m "\t" md "\tmapped\t" $3 "\t" k }' "$mapped/placement.txt" >>"$BM_PRED"
            done
            (( mapfail == 0 )) || continue
            for pl in block cyclic; do
                bench_map_write_placement "$BM_LOGS/pl.$app.$mpi.$pl" "$pl" "$BM_NP" "$hosts_list" "$ppn" "$envfile"
            done
            for ((rep = 1; rep <= BM_REPS; rep++)); do
                for mode in "${modes[@]}"; do
                    for pl in $(compi_round_order "$rep" block cyclic mapped); do
                        bench_map_run_one "$mpi" "$app" "$mode" "$pl" "$rep"
                    done
                done
            done
        done
    done
    compi_vcluster_down "$BM_NAME"
    BM_UP=0
    echo "load after: $(cat /proc/loadavg)"
    echo
    python3 "$COMPI_DEV_DIR/bench_map_summary.py" "$BM_RESULTS" "$BM_PRED" || { BM_ANY_FAIL=1; return 1; }
    (( BM_ANY_FAIL == 0 ))
}
