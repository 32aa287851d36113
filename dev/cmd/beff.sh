#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# compi bench beff: the b_eff benchmark (bench/beff.c) in the layout of the
# hybrid-architectures paper's Table 1: pure MPI (NODES x PPN ranks),
# hybrid masteronly (NODES ranks, PPN OpenMP threads each, the master
# communicating while the others idle) and hybrid funneled (the master
# communicating inside a parallel region while the others compute), each
# plain and with compi. Sourced by bench.sh (the
# dispatcher); bench_beff is the entry point.

beff_usage() {
    cat <<'USAGE'
usage: compi bench beff [--mpi openmpi|mpich] [--nodes N] [--ppn P] [--codec C|adaptive]
                        [--lmax SIZE] [--data NAME] [--budget SEC] [--lib PATH] [--rebuild]
                        [--vcluster] [--rate RATE] [--plot OUT.png]

  Runs compi_beff six times on this machine: pure MPI (N x P ranks, P per
  node), hybrid masteronly (N ranks, OMP_NUM_THREADS=P, the other threads
  idle while the master communicates) and hybrid funneled (the master
  communicates inside a parallel region while the other threads compute),
  plain and with compi (COMPI_DEBUG_RANKS_PER_NODE makes P consecutive
  ranks one node, so only inter-node messages are compressed; the hybrid
  rows' helpers follow COMPI_THREADS, default auto). Defaults: N=2, P=2, lz4, L_max 8M,
  double_smooth data, 0.05 s per pattern, size and method.
  Prints the per-pattern tables, then Table 1's rows (b_eff average over the
  21 sizes and at L_max, 3-D cyclic likewise; per node or process in
  parentheses) and the compi/plain ratio of each.
  --vcluster  run on N emulated nodes (compi vcluster, private name cbeff)
              linked at RATE (--rate, default 1gbit; implies --vcluster):
              pure MPI P ranks per node, hybrid one rank per node; waiting
              ranks yield their core. The masteronly compi row gets P-1
              helper threads (COMPI_THREADS; the node's idle cores), the
              funneled one COMPI_THREADS=auto (inside the parallel region
              the team's cores are left to it), unless COMPI_THREADS is set.
  --plot OUT  a bar chart of Table 1 (matplotlib; without it, a text chart
              on stdout).
  On one machine the "nodes" share its memory bus: for a real network run
  compi_beff under your cluster's launcher, plain and with LD_PRELOAD.
USAGE
}

# shellcheck disable=SC2034  # BENCH_REBUILD is read by bench_build (bench.sh)
bench_beff() {
    local mpi nodes=2 ppn=2 codec=lz4 lmax=8M data=double_smooth budget=0.05 lib="" vcluster=0 rate=1gbit plot=""
    mpi=$(default_mpi)
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --mpi) mpi=$2; shift 2 ;;
            --nodes) nodes=$2; shift 2 ;;
            --ppn) ppn=$2; shift 2 ;;
            --codec) codec=$2; shift 2 ;;
            --lmax) lmax=$2; shift 2 ;;
            --data) data=$2; shift 2 ;;
            --budget) budget=$2; shift 2 ;;
            --lib) lib=$2; shift 2 ;;
            --vcluster) vcluster=1; shift ;;
            --rate) rate=${2:?--rate needs a value}; vcluster=1; shift 2 ;;
            --plot) plot=${2:?--plot needs a file}; shift 2 ;;
            --rebuild) BENCH_REBUILD=1; shift ;;   # read by bench_build (bench.sh)
            -h|--help) beff_usage; return 0 ;;
            *) die "bench beff: unknown option '$1'" ;;
        esac
    done
    check_mpi_name "$mpi"
    bench_build "$mpi" compi compi_beff
    [[ -n $lib ]] || lib=$(compi_lib_for "$mpi")
    local bin launcher
    bin=$(bench_bin "$mpi" compi_beff)
    launcher=$(launcher_for_mpi "$mpi")
    local -a policy=(COMPI_MODE=fixed COMPI_CODEC="$codec")
    [[ $codec == adaptive ]] && policy=(COMPI_MODE=adaptive)
    local out vname=cbeff
    out=$(mktemp -d)
    if (( vcluster )); then
        # The trap tears the cluster down on any exit, also Ctrl-C or failure.
        trap 'compi_vcluster_down '"$vname" EXIT
        compi_vcluster_up "$vname" "${COMPI_BENCH_SUBNET:-10.213.43}" "$nodes" "$rate" "$ppn"
        echo "=== compi bench beff: $mpi, $nodes emulated nodes at $rate ==="
    fi
    # beff_run TAG NP RANKS_PER_NODE THREADS PRELOAD(0|1) [compi_beff args]
    beff_run() {
        local tag=$1 np=$2 rpn=$3 nt=$4 pre=$5 helpers
        shift 5
        local -a env=(OMP_NUM_THREADS="$nt" OMP_WAIT_POLICY=passive)
        local -a flags=() mflags=() run
        # the masteronly node's other cores idle while its rank communicates;
        # the funneled node's compute
        helpers=$((nt > 1 ? nt - 1 : 0))
        [[ $* == *funneled* ]] && helpers=auto
        if (( vcluster )); then
            (( pre )) && env+=("${policy[@]}" COMPI_THREADS="${COMPI_THREADS:-$helpers}")
            run=(bash "$COMPI_TOOL" vcluster run --name "$vname" --mpi "$mpi")
            (( pre )) && run+=(--preload "$lib")
            (( rpn == 1 )) && run+=(--map rr)
            run+=(--)
            mapfile -t mflags < <(compi_vcluster_launch_flags "$mpi"; compi_idle_flags "$mpi" yield)
        else
            (( pre )) && env+=(LD_PRELOAD="$lib" "${policy[@]}" COMPI_DEBUG_RANKS_PER_NODE="$rpn")
            run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$launcher")
            [[ $mpi == openmpi ]] && mflags=(--oversubscribe --bind-to none)
        fi
        mapfile -t flags < <(compi_env_flags "$mpi" "${env[@]}")
        "${run[@]}" "${mflags[@]}" -np "$np" "${flags[@]}" "$bin" --lmax "$lmax" --data "$data" \
            --budget "$budget" --label "$tag" "$@" >"$out/$tag.txt" 2>&1 ||
            { cat "$out/$tag.txt" >&2; die "bench beff: the $tag run failed"; }
        sed -n '/^compi_beff/,/^RESULT/p' "$out/$tag.txt"
    }
    beff_run mpp_plain $((nodes * ppn)) "$ppn" 1 0
    beff_run mpp_compi $((nodes * ppn)) "$ppn" 1 1
    beff_run hybrid_plain "$nodes" 1 "$ppn" 0
    beff_run hybrid_compi "$nodes" 1 "$ppn" 1
    beff_run funneled_plain "$nodes" 1 "$ppn" 0 --omp funneled
    beff_run funneled_compi "$nodes" 1 "$ppn" 1 --omp funneled
    /usr/bin/python3 - "$out" "$nodes" "$ppn" "$plot" <<'PY'
import re, sys
d, nodes, ppn, plot = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def res(tag):
    line = [l for l in open(f"{d}/{tag}.txt") if l.startswith("RESULT")][-1]
    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", line)}
rows = ("hybrid_plain", "hybrid_compi", "funneled_plain", "funneled_compi", "mpp_plain", "mpp_compi")
r = {t: res(t) for t in rows}
keys = ("b_eff", "b_eff_lmax", "cyclic3d", "cyclic3d_lmax")
print(f"\nTable 1 layout ({nodes} nodes x {ppn}; MB/s accumulated; per node/process in parentheses)")
print(f"{'':32}{'b_eff (avg)':>16}{'b_eff at Lmax':>16}{'3D-cyclic (avg)':>18}{'3D-cyclic at Lmax':>19}")
for tag in rows:
    per, what = (nodes * ppn, "process") if tag.startswith("mpp") else (nodes, "node")
    print(f"{tag:32}" + "".join(f"{float(r[tag][k]):>10.0f} ({float(r[tag][k]) / per:>5.0f})".rjust(w)
                                for k, w in zip(keys, (16, 16, 18, 19))) + f"   per {what}")
for a, b in (("mpp_plain", "hybrid_plain"), ("mpp_compi", "hybrid_compi"), ("hybrid_compi", "hybrid_plain"),
             ("funneled_compi", "funneled_plain"), ("mpp_compi", "mpp_plain")):
    print(f"{a + '/' + b:32}" + "".join(f"{float(r[a][k]) / float(r[b][k]):>{w}.2f}"
                                        for k, w in zip(keys, (16, 16, 18, 19))))
vals = {t: [float(r[t][k]) for k in keys] for t in rows}
try:
    if not plot:
        raise ImportError("no --plot")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    w = 0.8 / len(rows)
    for i, t in enumerate(rows):
        ax.bar([x + (i - (len(rows) - 1) / 2) * w for x in range(len(keys))], vals[t], w, label=t)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(("b_eff (avg)", "b_eff at L_max", "3-D cyclic (avg)", "3-D cyclic at L_max"))
    ax.set_ylabel("MB/s, accumulated")
    ax.set_title(f"b_eff, {nodes} nodes x {ppn}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(plot)
    print(f"plot: {plot}")
except ImportError as e:
    # a text chart: one bar per row and column, scaled to the largest value
    top = max(max(v) for v in vals.values()) or 1
    print("\ntext chart (MB/s accumulated; # = %.0f MB/s)%s" % (top / 40, "" if not plot else f" [no matplotlib: {e}]"))
    for k, name in enumerate(keys):
        print(name)
        for t in rows:
            print(f"  {t:14}{'#' * round(40 * vals[t][k] / top):<41}{vals[t][k]:.0f}")
bad = [t for t in r if r[t].get("check") != "OK"]
print("check: " + ("FAIL " + " ".join(bad) if bad else "OK (every received byte verified)"))
sys.exit(1 if bad else 0)
PY
    local rc=$?
    rm -rf "$out"
    return $rc
}
