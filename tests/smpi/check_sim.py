#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The smpi CI stage: compi under SimGrid SMPI at 16-64 simulated ranks.

  check_sim.py BUILD_DIR      (BUILD_DIR: tools/build.sh --mpi smpi's build/smpi)

stencil3d at 64 ranks (8 nodes x 8), ping-pong between two nodes of a
16-rank job and a 16-rank transpose, plain and through compi: every compi run must give the plain
run's checksum (stencil) or verify every byte (ping-pong), and in
simulated time
  - fixed lz4 beats plain at 1 Gbit/s (stencil, ping-pong, transpose);
  - adaptive is no worse than the better of plain and lz4 (5 % margin) in
    the transpose at 1 Gbit/s;
  - adaptive is no worse than the better of plain and lz4 (5 % margin) at
    25 Gbit/s in the ping-pong (one pair on the network).
The stencil's 25 Gbit/s times are printed, not checked: its 8 ranks per node
share one NIC, which compi's network model (one link per pair, measured
alone at MPI_Init) does not know, and adaptive then compresses less than
would pay (docs/simulate.md, "Fidelity and known limits").
Simulated time is deterministic here, so comparing it is a check of compi's
decisions, not a timing: the applications' own computation is not timed
(smpi/simulate-computation:no), every codec call is charged by compi's
codec-cost model (lib/compat/smpi_codecs.c), and adaptive runs measure the
simulated network at MPI_Init (COMPI_CALIBRATE=init). Two runs of the same
case give the same times to the last digit. Every link the adaptive runs
measured at MPI_Init must have about the simulated link's rate. compi's
MPI_Init must leave MPI_COMM_WORLD's first collective to the application
(startup below). `compi simulate` reports a mini-application's own time
(its APP ... time_s= line) and its checksum check (simulate_cmd below).
An alltoall's blocks are priced as their node's burst (transpose below)."""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "smpi_run.sh")
failures = []


def run(np_, rpn, rate, prog, args, env):
    e = dict(os.environ)
    for k in [k for k in e if k.startswith("COMPI_")]:
        del e[k]
    e.update(env)
    p = subprocess.run(["bash", RUN, str(np_), str(rpn), rate, prog] + args, env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    if p.returncode != 0:
        sys.stdout.write(p.stdout[-3000:])
        failures.append(f"{os.path.basename(prog)} {args} {env} at {rate}: exit {p.returncode}")
    return p.stdout


def mode_env(mode):
    if mode == "plain":
        return {}
    env = {"COMPI_MODE": mode, "COMPI_CODEC": "lz4"}
    if mode == "adaptive":
        env["COMPI_CALIBRATE"] = "init"
    return env


def check_calibration(report, rate):
    """Every link the adaptive run measured at MPI_Init has the simulated
    link's rate: SMPI's network model gives a lone pair about 0.8 of the
    nominal rate at the sizes measured, never more, never under half. The
    measurement's waits once spent its budget in SMPI's test costs and left
    late pairs fitted from a few bytes (1138 MB/s on a 125 MB/s link)."""
    nominal = float(rate.replace("Gbps", "")) * 1e9 / 8 / 1e6  # MB/s
    try:
        with open(report) as f:
            ranks = json.load(f)["ranks"]
    except (OSError, ValueError, KeyError) as e:
        failures.append(f"stencil3d adaptive at {rate}: no report ({e})")
        return
    seen = 0
    for r in ranks:
        for link in r["engine"]["links"]:
            if link["source"] != "probe":
                continue
            seen += 1
            bw = link["bandwidth_MBps"]
            if not 0.5 * nominal <= bw <= 1.05 * nominal:
                failures.append(f"stencil3d adaptive at {rate}: rank {r['rank']} measured link {link['link']} at "
                                f"{bw:.1f} MB/s, the simulated link carries {nominal:.1f} MB/s")
                return
    if not seen:
        failures.append(f"stencil3d adaptive at {rate}: no link measured at MPI_Init")


def stencil(bindir, rate, iters):
    out = {}
    args = ["--n", "32", "--iters", str(iters), "--decomp", "3d", "--quiet"]
    for mode in ("plain", "fixed", "adaptive"):
        prog = os.path.join(bindir, "compi_stencil3d" + ("" if mode == "plain" else ".compi"))
        env = mode_env(mode)
        if mode == "adaptive":
            report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
            env["COMPI_REPORT"] = report
        text = run(64, 8, rate, prog, args, env)
        if mode == "adaptive":
            check_calibration(report, rate)
            os.unlink(report)
        m = re.search(r"RESULT checksum=(\S+) slice_hash=(\S+) time_s=([0-9.]+)", text)
        if not m:
            failures.append(f"stencil3d {mode} at {rate}: no RESULT line")
            continue
        out[mode] = (m.group(1) + "/" + m.group(2), float(m.group(3)))
        print(f"stencil3d 64 ranks {rate} {mode:8s} checksum {out[mode][0]} simulated {out[mode][1]:.6f} s")
    if len(out) == 3:
        for mode in ("fixed", "adaptive"):
            if out[mode][0] != out["plain"][0]:
                failures.append(f"stencil3d {mode} at {rate}: checksum {out[mode][0]} != plain {out['plain'][0]}")
    return out


def pingpong(bindir, rate, mode):
    args = ["--sizes", "262144,4194304", "--data", "int_r50,double_pattern", "--pair", "0,8",
            "--reps", "10", "--min-reps", "10", "--warmup", "2", "--no-bound"]
    text = run(16, 8, rate, os.path.join(bindir, "compi_pingpong.compi"), args, mode_env(mode))
    if "all received data verified" not in text:
        failures.append(f"pingpong {mode} at {rate}: data not verified")
    res = {}
    for m in re.finditer(r"^RESULT mode=pingpong data=(\S+) size=(\d+) .*?plain_us=([0-9.]+) compi_us=([0-9.]+)",
                         text, re.M):
        res[(m.group(1), int(m.group(2)))] = (float(m.group(3)), float(m.group(4)))
        print(f"pingpong {rate} {mode:8s} {m.group(1)} {m.group(2)} B: plain {m.group(3)} us, compi {m.group(4)} us")
    if not res:
        failures.append(f"pingpong {mode} at {rate}: no RESULT lines")
    return res


def startup(bindir):
    """compi's MPI_Init leaves MPI_COMM_WORLD's first broadcast or reduction
    to the application: SMPI sets up a communicator's node-aware tables then
    (a ring over all its ranks, P^2 messages), and compi's start-up
    collectives run on its own communicator, which paid that at its
    creation. So the application's first Bcast takes the same simulated time
    with compi as without (64 ranks, 8 per node)."""
    t = {}
    for mode in ("plain", "adaptive"):
        prog = os.path.join(bindir, "smpitest_startup_world" + ("" if mode == "plain" else ".compi"))
        env = {} if mode == "plain" else {"COMPI_MODE": mode}
        m = re.search(r"RESULT first_bcast_s=([0-9.]+)", run(64, 8, "1Gbps", prog, [], env))
        if not m:
            failures.append(f"startup_world {mode}: no RESULT line")
            return
        t[mode] = float(m.group(1))
        print(f"startup_world 64 ranks {mode:8s} first Bcast on MPI_COMM_WORLD {t[mode]:.9f} s simulated")
    if abs(t["adaptive"] - t["plain"]) > 0.01 * t["plain"]:
        failures.append(f"startup_world: the application's first Bcast took {t['adaptive']:.9f} s with compi, "
                        f"{t['plain']:.9f} s without: compi's MPI_Init ran collectives on MPI_COMM_WORLD")


def simulate(build, args, modes):
    """Runs `compi simulate` on 2 fat-tree nodes of 8 cores (args: its
    options and program) with compi's environment left out, prints its
    output and gives (process, {mode: (seconds, checksum column)}) for the
    rows of "off" and modes that it printed."""
    root = os.path.dirname(os.path.dirname(HERE))
    cmd = [os.path.join(root, "tools", "compi"), "simulate", "--build", build, "--topo", "fattree",
           "--nodes", "2", "--cores", "8", "--modes", " ".join(modes)] + args
    e = {k: v for k, v in os.environ.items() if not k.startswith("COMPI_")}
    p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print(p.stdout.strip())
    rows = {}
    for mode in ("off",) + tuple(modes):
        row = re.search(r"^" + re.escape(mode) + r"\s+(\S+)\s+\S+\s+(.*)$", p.stdout, re.M)
        if row:
            rows[mode] = (row.group(1), row.group(2))
    return p, rows


def simulate_cmd(build):
    """compi simulate on compi_pairs (16 ranks, plain and fixed lz4): each
    run's simulated time is the program's own (its APP ... time_s= line, not
    the whole run with MPI_Init) and the checksums are found equal."""
    with tempfile.TemporaryDirectory() as keep:
        p, rows = simulate(build, ["--keep", keep, "compi_pairs", "--n", "8192", "--iters", "3", "--quiet"],
                           ("fixed:lz4",))
        for mode in ("off", "fixed:lz4"):
            with open(os.path.join(keep, mode + ".log"), encoding="utf-8", errors="replace") as f:
                own = re.search(r"^APP .*time_s=([0-9.e+-]+)", f.read(), re.M)
            if not own or mode not in rows:
                failures.append(f"compi simulate compi_pairs {mode}: no APP line or no row (exit {p.returncode})")
                continue
            secs, same = rows[mode]
            if float(secs) != float(own.group(1)):
                failures.append(f"compi simulate compi_pairs {mode}: reported {secs} s, "
                                f"the program's own time is {own.group(1)} s")
            if same != "same as off":
                failures.append(f"compi simulate compi_pairs {mode}: checksum '{same}'")


def transpose(build):
    """compi simulate on compi_transpose, 16 ranks on 2 nodes at 1 Gbit/s
    (3.4 KiB blocks in MPI_Alltoall): every rank of a node sends its blocks
    for the other node at once, so adaptive must price them as the node's
    burst and compress as lz4 does (within 5 %), where pricing each block
    alone sent the call to the MPI as it is (0.99 of plain, lz4 2.14)."""
    p, rows = simulate(build, ["--rate", "1Gbps", "compi_transpose", "--n", "48", "--iters", "2", "--serial", "off",
                               "--quiet"], ("fixed:lz4", "adaptive"))
    t = {}
    for mode in ("off", "fixed:lz4", "adaptive"):
        if mode not in rows or (mode != "off" and rows[mode][1] != "same as off"):
            failures.append(f"compi simulate compi_transpose {mode}: no row or checksum differs (exit {p.returncode})")
            return
        t[mode] = float(rows[mode][0])
    if not t["fixed:lz4"] < t["off"]:
        failures.append(f"transpose 1 Gbit/s: lz4 {t['fixed:lz4']} s not faster than plain {t['off']} s")
    if t["adaptive"] > 1.05 * min(t["off"], t["fixed:lz4"]):
        failures.append(f"transpose 1 Gbit/s: adaptive {t['adaptive']} s worse than the better of plain and lz4")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bindir = os.path.join(os.path.abspath(sys.argv[1]), "bin")
    startup(bindir)
    simulate_cmd(os.path.abspath(sys.argv[1]))
    transpose(os.path.abspath(sys.argv[1]))
    s1 = stencil(bindir, "1Gbps", 20)
    if len(s1) == 3 and not s1["fixed"][1] < s1["plain"][1]:
        failures.append(f"stencil3d 1 Gbit/s: lz4 {s1['fixed'][1]} s not faster than plain {s1['plain'][1]} s")
    stencil(bindir, "25Gbps", 20)   # checksums only (see above)
    p1 = pingpong(bindir, "1Gbps", "fixed")
    for key, (plain, compi) in p1.items():
        if not compi < plain:
            failures.append(f"pingpong 1 Gbit/s {key}: lz4 {compi} us not faster than plain {plain} us")
    f25 = pingpong(bindir, "25Gbps", "fixed")
    a25 = pingpong(bindir, "25Gbps", "adaptive")
    for key, (plain, compi) in a25.items():
        best = min(plain, f25.get(key, (plain, plain))[1])
        if compi > 1.05 * best:
            failures.append(f"pingpong 25 Gbit/s {key}: adaptive {compi} us worse than the better of plain and "
                            f"lz4 ({best} us)")
    for f in failures:
        print("FAIL:", f)
    print("smpi checks:", "FAIL" if failures else "OK")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
