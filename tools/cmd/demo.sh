#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi-help: the showcase: a stencil on 2 emulated nodes, plain MPI vs compi (adaptive, fixed), same results
#
# Runs the built (or installed) compi_stencil3d (--rebuild builds it first),
# brings up a private 2-node emulated cluster (2 ranks per node; development
# tooling from compi's source tree: compi_vcluster_script in _launch.sh),
# runs compi_stencil3d plain, with libcompi.so in its default mode
# (adaptive) and with a fixed codec, in rotating order (--runs times each),
# checks every result is bitwise identical to plain MPI's (compression is
# lossless), and prints a table of median times and speedups with compi's
# own report of the adaptive run. The cluster is torn down on every exit
# path (trap).
set -euo pipefail
# shellcheck source=tools/cmd/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
# shellcheck source=tools/cmd/_launch.sh
source "$(dirname "${BASH_SOURCE[0]}")/_launch.sh"

demo_usage() {
    cat <<'USAGE'
usage: compi demo [--mpi openmpi|mpich] [--codec NAME] [--no-fixed] [--rate RATE]
                  [--n N] [--nz Z] [--iters I] [--halo sendrecv|isend] [--runs R]
                  [--rebuild] [--keep-logs] [--lib PATH] [--timeout SEC]

  Runs compi_stencil3d (3D heat diffusion, 4 ranks, 2 per emulated node,
  slab decomposition: the slab boundary between the nodes crosses the
  emulated network) three ways: plain MPI, compi in its default mode
  (COMPI_MODE=adaptive: the codec is chosen per message, no setting needed)
  and compi with one fixed codec (COMPI_MODE=fixed). Checks that every run's
  result is bitwise identical to plain MPI's, then prints a table of median
  times and speedups over plain MPI, and compi's report for the adaptive run.
  --mpi    default: what `mpirun` is here
  --codec  the fixed variant's codec (default zstd: long runs of identical
           doubles plus smooth floats)
  --no-fixed  plain MPI vs compi adaptive only
  --rate   link rate of each emulated node (default 100mbit)
  --n, --nz  local grid N x N x Z per rank (default 128 x 128 x 16: thin
           slabs, as in strong scaling, so halos matter); --iters (default 200)
  --runs   runs of each variant, in rotating order (default 3); the medians
           are compared, since one run on a busy machine is noisy
  --timeout  seconds allowed per run (default 600): a run that hangs (e.g. in
           MPI_Finalize) is killed; its result still counts if it was printed
  --lib    preload PATH instead of build/<mpi>/lib/libcompi.so (installed
           compi: P/lib/libcompi-<mpi>.so)
  --rebuild  build libcompi and compi_stencil3d first (in the repository)
  The emulated cluster needs root (network namespaces, tc) and is not part
  of an installation: it comes from compi's source tree (dev/cmd/vcluster.sh;
  an installed compi takes it from the source tree COMPI_ROOT names).
  Logs and compi's JSON reports go to a temporary directory, printed at the
  end with --keep-logs (else removed). The emulated cluster is private:
  name $COMPI_BENCH_DEMO_NAME (default cdemo), subnet $COMPI_BENCH_DEMO_SUBNET
  (default 10.213.42).
USAGE
}

# Failures after the runs started keep their logs for a post-mortem.
demo_fail() {
    DEMO_KEEP=1
    note "logs kept in $DEMO_LOGS"
    die "$@"
}

demo_label() {  # VARIANT CODEC
    case "$1" in
        plain) echo "plain MPI (no compi)" ;;
        adaptive) echo "compi adaptive (default mode)" ;;
        fixed) echo "compi fixed, codec $2" ;;
    esac
}

demo_main() {
    local mpi="" codec=zstd rate=100mbit n=128 nz=16 iters=200 halo=sendrecv keep=0 lib="" runs=3 tmo=600 fixed=1
    local rebuild=0
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=${2:?}; shift 2 ;;
            --codec) codec=${2:?}; shift 2 ;;
            --no-fixed) fixed=0; shift ;;
            --rate) rate=${2:?}; shift 2 ;;
            --n) n=${2:?}; shift 2 ;;
            --nz) nz=${2:?}; shift 2 ;;
            --runs) runs=${2:?}; shift 2 ;;
            --timeout) tmo=${2:?}; shift 2 ;;
            --iters) iters=${2:?}; shift 2 ;;
            --halo) halo=${2:?}; shift 2 ;;
            --rebuild) rebuild=1; shift ;;
            --keep-logs) keep=1; shift ;;
            --lib) lib=${2:?}; shift 2 ;;
            -h|--help) demo_usage; return 0 ;;
            *) die "demo: unknown option '$1' (see compi demo --help)" ;;
        esac
    done
    mpi=${mpi:-$(default_mpi)}
    check_mpi_name "$mpi"
    [[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive integer"
    require_cmds python3
    local vcluster
    vcluster=$(compi_vcluster_script)

    local bin
    if (( rebuild )); then COMPI_FORCE_BUILD=1 compi_build "$mpi" compi compi_stencil3d; fi
    bin=$(compi_program "$mpi" compi_stencil3d compi_stencil3d 0)
    if [[ -n $lib ]]; then
        [[ -f $lib ]] || die "--lib: no such file '$lib'"
        lib=$(readlink -f "$lib")
    else
        lib=$(compi_lib_for "$mpi" "$COMPI_BUILD_DIR")
    fi

    local name=${COMPI_BENCH_DEMO_NAME:-cdemo} subnet=${COMPI_BENCH_DEMO_SUBNET:-10.213.42}
    local logs; logs=$(mktemp -d /tmp/compi-demo.XXXXXX)
    # One trap for every exit: failure, Ctrl-C or success. Globals, because
    # the trap runs after this function's locals are gone.
    DEMO_NAME=$name DEMO_LOGS=$logs DEMO_KEEP=$keep
    trap 'compi_vcluster_down "$DEMO_NAME"; [[ $DEMO_KEEP == 1 ]] || rm -rf "$DEMO_LOGS"' EXIT

    compi_vcluster_up "$name" "$subnet" 2 "$rate" 2
    local -a app=("$bin" --nx "$n" --ny "$n" --nz "$nz" --iters "$iters" --halo "$halo")
    compi_test_wrap app
    # 4 ranks share this machine's cores, but each emulated node claims 2
    # slots, so the MPIs would busy-poll; yielding when idle keeps the ranks
    # (and their TCP progress) from starving each other. Same for all
    # variants. compi_idle_flags: Open MPI's mpi_yield_when_idle; MPICH,
    # which never yields, through the emulated cluster's UCX shim.
    local -a launch
    mapfile -t launch < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
    # The adaptive run sets only what every compi run here sets (the mode
    # it would get anyway, the summary, the report): no model, no tuning.
    local -a env_adaptive env_fixed
    mapfile -t env_adaptive < <(compi_env_flags "$mpi" COMPI_MODE=adaptive COMPI_VERBOSE=1 \
        "COMPI_REPORT=$logs/report.adaptive.json")
    mapfile -t env_fixed < <(compi_env_flags "$mpi" COMPI_MODE=fixed "COMPI_CODEC=$codec" COMPI_VERBOSE=1 \
        "COMPI_REPORT=$logs/report.fixed.json")
    local -a variants=(plain adaptive)
    (( fixed )) && variants+=(fixed)

    # Rotate the order (round r starts with the r-th variant) so slow drift
    # in the machine's load hits every variant alike.
    local r v log res t
    local -A times=() results=() bad=()
    for ((r = 1; r <= runs; r++)); do
        for v in $(compi_round_order "$r" "${variants[@]}"); do
            log=$logs/$v.$r.log
            echo
            local -a runner=(timeout --kill-after=10 "$tmo" bash "$vcluster" run --name "$name" --mpi "$mpi")
            local rc=0
            case $v in
                plain)
                    echo "=== run $r/$runs: plain MPI ($mpi), 4 ranks on 2 emulated nodes at $rate ==="
                    "${runner[@]}" -- -np 4 "${launch[@]}" "${app[@]}" 2>&1 | tee "$log" || rc=$? ;;
                adaptive)
                    echo "=== run $r/$runs: compi adaptive, the default mode ($mpi, COMPI_MODE=adaptive), same cluster ==="
                    "${runner[@]}" --preload "$lib" -- -np 4 "${launch[@]}" "${env_adaptive[@]}" "${app[@]}" 2>&1 |
                        tee "$log" || rc=$? ;;
                fixed)
                    echo "=== run $r/$runs: compi fixed ($mpi, COMPI_MODE=fixed COMPI_CODEC=$codec), same cluster ==="
                    "${runner[@]}" --preload "$lib" -- -np 4 "${launch[@]}" "${env_fixed[@]}" "${app[@]}" 2>&1 |
                        tee "$log" || rc=$? ;;
            esac
            if (( rc == 124 || rc == 137 )); then
                note "$v run $r did not finish within ${tmo}s and was killed"
            elif (( rc != 0 )); then
                demo_fail "$v run $r failed (exit $rc, log: $log)"
            fi
            # the whole result: field checksum and the hash of a slice
            res=$(sed -n 's/^RESULT \(checksum=[0-9a-f]* slice_hash=[0-9a-f]*\).*/\1/p' "$log")
            t=$(sed -n 's/^RESULT .*time_s=\([0-9.]*\).*/\1/p' "$log")
            [[ -n $res && -n $t ]] || demo_fail "$v run $r printed no result (log: $log)"
            times[$v]+="$t "
            results[$v]+="$res;"
        done
    done

    # plain MPI's first result is the reference; every other run must match it bitwise
    local ref=${results[plain]%%;*} x ok=1 med_plain
    local -A med=() same=()
    for v in "${variants[@]}"; do
        med[$v]=$(printf '%s\n' ${times[$v]} | compi_median)
        local k=0 total=0
        local -a all
        IFS=';' read -r -a all <<<"${results[$v]%;}"
        for x in "${all[@]}"; do
            total=$((total + 1))
            [[ $x == "$ref" ]] && k=$((k + 1))
        done
        same[$v]="$k/$total"
        (( k == total )) || { bad[$v]=1; ok=0; }
    done
    med_plain=${med[plain]}
    local shown=${ref/checksum=/checksum }
    shown=${shown/slice_hash=/slice_hash }

    echo
    echo "=== summary: compi_stencil3d, 4 ranks on 2 emulated nodes at $rate ($mpi), median of $runs run(s) each ==="
    printf '%-34s %10s %9s   %s\n' "variant" "median" "speedup" "result vs plain MPI"
    for v in "${variants[@]}"; do
        local verdict
        if [[ $v == plain ]]; then
            verdict="reference (${same[$v]} runs agree): $shown"
        elif [[ -z ${bad[$v]:-} ]]; then
            verdict="bitwise identical (${same[$v]} runs)"
        else
            verdict="DIFFERENT (only ${same[$v]} runs identical)"
        fi
        printf '%-34s %8.3f s %8.2fx   %s\n' "$(demo_label "$v" "$codec")" "${med[$v]}" \
            "$(awk -v p="$med_plain" -v c="${med[$v]}" 'BEGIN { print p / c }')" "$verdict"
    done
    for v in "${variants[@]}"; do
        printf '  %-9s runs (s): %s\n' "$v" "${times[$v]% }"
    done
    echo "speedup = median time of plain MPI / median time of the variant; same binary, same emulated cluster"

    echo
    echo "compi's report for the adaptive run (COMPI_VERBOSE=1, rank 0, last run):"
    grep -E '^compi(\[[0-9]+\])?: ' "$logs/adaptive.$runs.log" | sed 's/^/  /' || echo "  (none printed)"
    if [[ -f $logs/report.adaptive.json ]]; then
        python3 - "$logs/report.adaptive.json" <<'PY' || true
import json, sys
t = json.load(open(sys.argv[1])).get("totals", {})
# compressed volume per codec, when the engine picked several (one codec: the summary says it all)
codecs = t.get("codecs", {})
if len(codecs) > 1:
    print("  per codec:")
    for name, c in sorted(codecs.items(), key=lambda kv: -kv[1].get("bytes_in", 0)):
        bi, bo = c.get("bytes_in", 0), c.get("bytes_out", 0)
        print("    %-10s %6s messages, %7.1f MB -> %6.1f MB (ratio %.2f)" % (
            name, c.get("messages", "?"), bi / 1e6, bo / 1e6, bi / bo if bo else 0))
PY
        (( keep )) && echo "  JSON: $logs/report.adaptive.json (tools/compi report FILE for per-rank tables)"
    fi
    if grep -q "network model 'built-in default" "$logs/adaptive.$runs.log" &&
        ! grep -Eq "links: .* (probe|learned) " "$logs/adaptive.$runs.log"; then
        echo "  note: adaptive judged this $rate link with compi's built-in network model (1 Gbit/s-like): it"
        echo "  learned nothing from the traffic and did not probe the link; \`compi calibrate network\` (then"
        echo "  COMPI_HEURISTICS) or COMPI_CALIBRATE=init measures it"
    fi

    if (( ! ok )); then
        echo "FAIL: results differ from plain MPI's (${!bad[*]}): compi changed the data" >&2
        DEMO_KEEP=1
        echo "logs kept in $logs" >&2
        return 1
    fi
    echo
    echo "all $(( runs * ${#variants[@]} )) runs gave bitwise-identical results ($shown)"
    (( keep )) && echo "logs: $logs"
    return 0
}

demo_main "$@"
