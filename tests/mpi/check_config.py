#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Configuration files through real MPI runs (README: Configuration).

Installs the built libcompi and compi_config into a scratch prefix P
(P/lib/libcompi.so, P/libexec/compi/compi_config), writes a system file
P/etc/compi/compi.conf and a user file, and checks, per case:

  precedence  system < user < environment < MPI_Info hint: comm_hints runs
              with mode/codec/min_bytes/debug_ranks_per_node/report spread over
              the layers (each layer overrides one the layer below sets); the
              report (written where the system file's relative 'report' path
              points) must show mode fixed, codec lz4 (environment), min_bytes 0
              (user) and the hint communicators' codecs; compi_config must name
              the same values and the file:line each came from.
  heuristics  'heuristics = heuristics' in the system file: the site's
              network model next to compi.conf is the one the engine loads;
              a malformed one names the configuration line and its own line.
  malformed   a bad value in the system file stops every rank at MPI_Init
              with exit status 2 and 'file:line: key ...'.
  differ      rank 1 reads another user file (files that differ between
              nodes): a different min_bytes, report/verbose, network model, a
              broken network model: every rank stops at MPI_Init (no hang),
              rank 1 names the setting and its file; a different codec is
              fine (frames name their codec) and the run passes.

usage: check_config.py --mpi openmpi|mpich --lib LIBCOMPI --tool COMPI_CONFIG
         --hints-prog COMM_HINTS --prog P2P_BASIC --heuristics DIR --bad-heuristics DIR
         --dir SCRATCH
         -- LAUNCHER [ARGS...]
"""
import argparse, json, os, re, shutil, subprocess, sys

ap = argparse.ArgumentParser()
for opt in ("--mpi", "--lib", "--tool", "--hints-prog", "--prog", "--heuristics", "--bad-heuristics", "--dir"):
    ap.add_argument(opt, required=True)
ap.add_argument("launcher", nargs=argparse.REMAINDER)
a = ap.parse_args()
launcher = a.launcher[1:] if a.launcher and a.launcher[0] == "--" else a.launcher
failures = 0


def check(ok, what, detail=""):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} [check_config] {what}" + (f": {detail}" if detail and not ok else ""))
    failures += not ok


def env_args(env):
    out = []
    for k, v in env.items():
        out += ["-x", f"{k}={v}"] if a.mpi == "openmpi" else ["-genv", k, v]
    return out


def clean_env(extra):
    """The launcher's environment: no COMPI_* or user file of the caller's."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("COMPI_") and k != "XDG_CONFIG_HOME"}
    e.update(extra)
    return e


def mpirun(np, prog, env, launcher_env=None, wrapper=None):
    cmd = launcher + ["-np", str(np)] + env_args(env) + ([wrapper] if wrapper else []) + [prog]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
                           env=clean_env(launcher_env or {}))
    except subprocess.TimeoutExpired as e:   # a rank that disagrees must never hang the job
        return 124, f"TIMEOUT after 60 s: {cmd}\n{e.stdout or ''}"
    return p.returncode, p.stdout


def prefix(name):
    """A scratch installation: P/lib/libcompi.so, P/libexec/compi/compi_config, P/etc/compi/."""
    p = os.path.join(os.path.abspath(a.dir), name)
    shutil.rmtree(p, ignore_errors=True)
    for d in ("lib", "libexec/compi", "etc/compi"):
        os.makedirs(os.path.join(p, d))
    shutil.copy(a.lib, os.path.join(p, "lib", "libcompi.so"))
    shutil.copy(a.tool, os.path.join(p, "libexec", "compi", "compi_config"))
    return p


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def config_table(tool, env):
    p = subprocess.run([tool], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=clean_env(env))
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(\w+)\s+(\S+)\s+(\S.*)$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return p.returncode, rows, p.stdout


# ---------------------------------------------------------------- precedence
P = prefix("precedence")
sysf = os.path.join(P, "etc", "compi", "compi.conf")
write(sysf, "# site defaults\n"
            "mode = off\n"                    # line 2: user turns it to fixed
            "codec = rle\n"                   # line 3: user huffman, environment lz4
            "min_bytes = 1M\n"                # line 4: user 0 (the ring's 256 KiB would go raw)
            "debug_ranks_per_node = 1\n"      # line 5: only here (one node otherwise: nothing compressed)
            "\n"
            "report = report.json\n")         # line 7: relative to this file's directory
xdg = os.path.join(P, "home", "config")
userf = os.path.join(xdg, "compi", "compi.conf")
write(userf, "mode = fixed\ncodec = huffman\nmin_bytes = 0\n")
report = os.path.join(P, "etc", "compi", "report.json")
env = {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so"), "COMPI_CODEC": "lz4", "XDG_CONFIG_HOME": xdg,
       "COMPI_TEST_EXPECT_PRELOAD": "1"}
rc, out = mpirun(3, a.hints_prog, env)
check(rc == 0 and "FAIL [" not in out, "precedence: comm_hints ran", out[-2000:])
if os.path.exists(report):
    r = json.load(open(report))
    got = (r["mode"], r["codec"], r["min_bytes"], r["nodes"])
    check(got == ("fixed", "lz4", 0, 3), "precedence: report (mode, codec, min_bytes, nodes) = "
          "(fixed from the user file, lz4 from the environment, 0 from the user file, 3 from the system file)",
          f"got {got}")
    for rk in r["ranks"]:
        c = rk["codecs"]
        got = (c.get("lz4", {}).get("messages", 0), c.get("zstd", {}).get("messages", 0), rk["inter_node_messages"])
        check(got == (2, 2, 4), f"precedence: rank {rk['rank']} lz4/zstd/framed = 2/2/4 (hints override the "
              "files and environment per communicator)", f"got {got}")
else:
    check(False, "precedence: report written at the system file's relative path", report)
trc, rows, tout = config_table(os.path.join(P, "libexec", "compi", "compi_config"),
                               {"COMPI_CODEC": "lz4", "XDG_CONFIG_HOME": xdg})
expect = {"mode": ("fixed", f"{userf}:1"), "codec": ("lz4", "environment (COMPI_CODEC)"),
          "min_bytes": ("0", f"{userf}:3"), "debug_ranks_per_node": ("1", f"{sysf}:5"),
          "report": (report, f"{sysf}:7"), "level": ("0", "default")}
for k, v in expect.items():
    check(trc == 0 and rows.get(k) == v, f"compi_config: {k} = {v[0]} from {v[1]}", f"got {rows.get(k)}\n{tout}")
check(f"system file: {sysf} (read)" in tout, "compi_config: the installed tool reads <prefix>/etc/compi/compi.conf", tout)

# ---------------------------------------------------------------- site heuristics
P = prefix("heuristics")
shutil.copytree(a.heuristics, os.path.join(P, "etc", "compi", "heuristics"))
write(os.path.join(P, "etc", "compi", "compi.conf"),
      "mode = adaptive\nheuristics = heuristics\ndebug_ranks_per_node = 1\nmin_bytes = 0\nverbose = 1\n")
src = open(os.path.join(a.heuristics, "network.txt")).read()
source = re.search(r"^source (.*)$", src, re.M).group(1)
env = {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so"), "COMPI_TEST_EXPECT_PRELOAD": "1"}
rc, out = mpirun(2, a.prog, env)
check(rc == 0 and "FAIL [" not in out, "heuristics: p2p_basic ran", out[-2000:])
check(f"network model '{source}'" in out, f"heuristics: the site's network model ('{source}') was loaded "
      "from the system file's relative heuristics path", out[-3000:])

P = prefix("bad-heuristics")
shutil.copytree(a.bad_heuristics, os.path.join(P, "etc", "compi", "bad"))
sysf = write(os.path.join(P, "etc", "compi", "compi.conf"), "heuristics = bad\ndebug_ranks_per_node = 1\n")
rc, out = mpirun(2, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so")})
want = f"heuristics (set in {sysf}:1): {P}/etc/compi/bad/network.txt:5: beta sizes must increase"
check(rc == 2 and want in out, "heuristics: a bad site model names the configuration line and the model's line",
      f"rc {rc}\n{out[-2000:]}")

# ---------------------------------------------------------------- malformed
P = prefix("malformed")
sysf = os.path.join(P, "etc", "compi", "compi.conf")
write(sysf, "mode = fixed\n# a comment\n\nmin_bytes = lots\n")
rc, out = mpirun(2, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so")})
want = f"{sysf}:4: key 'min_bytes': 'lots' is not valid"
check(rc == 2 and want in out, "malformed: exit status 2 and the file:line:key message", f"rc {rc}\n{out[-2000:]}")
check("PASS [" not in out, "malformed: the program never ran past MPI_Init", out[-2000:])

# ---------------------------------------------------------------- files differ between ranks
P = prefix("differ")
r1 = os.path.join(P, "rank1.conf")
write(r1, "min_bytes = 64K\n")
wrapper = os.path.join(P, "wrap.sh")
write(wrapper, "#!/bin/sh\n# rank 1 reads another user file, as if its node's files differed\n"
               "r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\n"
               f"[ \"$r\" = 1 ] && COMPI_CONFIG={r1} && export COMPI_CONFIG\nexec \"$@\"\n")
os.chmod(wrapper, 0o755)
rc, out = mpirun(3, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so")}, wrapper=wrapper)
want = f"configuration error on rank 1: min_bytes is 65536 here (from {r1}:1) but 2048 on rank 0"
check(rc == 2 and want in out, "differ: every rank stops, rank 1 names the setting and its file",
      f"rc {rc}\n{out[-2000:]}")

write(r1, "verbose = 1\n")
rc, out = mpirun(3, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so")}, wrapper=wrapper)
want = (f"configuration error on rank 1: the report gathered at MPI_Finalize (report set or verbose >= 1) is on "
        f"here (verbose from {r1}:1) but off on rank 0")
check(rc == 2 and want in out, "differ: a report gathered by some ranks only (a hang at MPI_Finalize) stops at MPI_Init",
      f"rc {rc}\n{out[-2000:]}")
# the codec may differ: frames name their codec
write(r1, "codec = zstd\n")
rc, out = mpirun(3, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so"), "COMPI_MODE": "fixed",
                             "COMPI_MIN_BYTES": "0", "COMPI_DEBUG_RANKS_PER_NODE": "1",
                             "COMPI_TEST_EXPECT_PRELOAD": "1"}, wrapper=wrapper)
check(rc == 0 and "FAIL [" not in out and "passed, 0 failed" in out,
      "differ: ranks with different fixed-mode codecs run correctly (frames name their codec)", f"rc {rc}\n{out[-2000:]}")
# rank 1's heuristics differ from the others': a valid but different model, then a broken one
shutil.copytree(a.heuristics, os.path.join(P, "site-model"))
shutil.copytree(a.bad_heuristics, os.path.join(P, "broken-model"))
write(r1, "heuristics = site-model\n")
rc, out = mpirun(3, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so"),
                             "COMPI_DEBUG_RANKS_PER_NODE": "1"}, wrapper=wrapper)
check(rc == 2 and "the network models of the ranks differ" in out and "PASS [" not in out,
      "differ: ranks with different network models all stop at MPI_Init", f"rc {rc}\n{out[-2000:]}")
write(r1, "heuristics = broken-model\n")
rc, out = mpirun(3, a.prog, {"LD_PRELOAD": os.path.join(P, "lib", "libcompi.so"),
                             "COMPI_DEBUG_RANKS_PER_NODE": "1"}, wrapper=wrapper)
want = f"configuration error on rank 1: heuristics (set in {r1}:1): {P}/broken-model/network.txt:5: beta sizes must increase"
check(rc == 2 and want in out and "PASS [" not in out,
      "differ: a broken model on one rank stops every rank, that rank says why", f"rc {rc}\n{out[-2000:]}")

print(f"[check_config] {'FAIL' if failures else 'PASS'}: {failures} failure(s)")
sys.exit(1 if failures else 0)
