#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Table-driven tests of compi run's launcher rewriting (tools/cmd/compi_run.py):
the argument forms of mpirun / mpiexec (Open MPI, MPICH), srun, sbatch and
salloc, and the refusals.  Pure functions: no MPI, no Slurm, no build."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "cmd"))
import compi_run as R  # noqa: E402

fails = 0
count = 0


def check(cond, what):
    global fails, count
    count += 1
    if not cond:
        fails += 1
        print("FAIL " + what)


def raises(fn, *args):
    try:
        fn(*args)
    except R.LaunchError as e:
        return str(e)
    return None


LIB = "/p/lib/libcompi-openmpi.so"

# --- split_slurm: (command, args) -> (opts, prog, rest, export, export_set)
SPLIT = [
    ("srun", ["-N2", "-n4", "./a"], (["-N2", "-n4"], "./a", [], "", False)),
    ("srun", ["-N", "2", "-n", "4", "./a", "x", "-n", "9"], (["-N", "2", "-n", "4"], "./a", ["x", "-n", "9"], "", False)),
    ("srun", ["--ntasks", "4", "--nodes=2", "./a"], (["--ntasks", "4", "--nodes=2"], "./a", [], "", False)),
    # every long option that takes a value takes the next word, also the
    # ones at the end of a line of the table (mpi, input, time-min, ...)
    ("srun", ["--mpi", "pmix", "./a"], (["--mpi", "pmix"], "./a", [], "", False)),
    ("srun", ["--mpi=pmi2", "./a"], (["--mpi=pmi2"], "./a", [], "", False)),
    ("srun", ["--input", "none", "--time-min", "5", "./a"], (["--input", "none", "--time-min", "5"], "./a", [], "", False)),
    ("srun", ["--cpus-per-gpu", "2", "--ntasks-per-socket", "1", "./a"],
     (["--cpus-per-gpu", "2", "--ntasks-per-socket", "1"], "./a", [], "", False)),
    # flags without a value
    ("srun", ["--exclusive", "-l", "-vvv", "./a"], (["--exclusive", "-l", "-vvv"], "./a", [], "", False)),
    # the user's --export is taken out
    ("srun", ["--export=NONE", "-n4", "./a"], (["-n4"], "./a", [], "NONE", True)),
    ("srun", ["--export", "ALL,X=1", "./a"], ([], "./a", [], "ALL,X=1", True)),
    # -- ends the options
    ("srun", ["-n4", "--", "-weird-name"], (["-n4"], "-weird-name", [], "", False)),
    # srun's -W takes seconds, sbatch's -W is --wait
    ("srun", ["-W", "30", "./a"], (["-W", "30"], "./a", [], "", False)),
    ("sbatch", ["-W", "job.sh"], (["-W"], "job.sh", [], "", False)),
    ("sbatch", ["-N2", "-o", "out.%j", "job.sh", "arg"], (["-N2", "-o", "out.%j"], "job.sh", ["arg"], "", False)),
    ("salloc", ["-N", "2", "mpiexec.mpich", "-n", "4", "./a"], (["-N", "2"], "mpiexec.mpich", ["-n", "4", "./a"], "", False)),
    ("salloc", ["-N2"], (["-N2"], "", [], "", False)),
]
for cmd, args, want in SPLIT:
    s = R.split_slurm(cmd, args)
    got = (s.opts, s.prog, s.rest, s.export, s.export_set)
    check(got == want, "split_slurm(%s, %s): %s, want %s" % (cmd, args, got, want))

# --- refusals of split_slurm
for cmd, args, want in [("srun", ["--export"], "srun: --export needs a value"),
                        ("srun", ["-n"], "srun: -n needs a value"),
                        ("sbatch", ["--time"], "sbatch: --time needs a value")]:
    check(raises(R.split_slurm, cmd, args) == want, "split_slurm(%s, %s) refuses: %s" % (cmd, args, want))

# --- srun_export_value: (user export, caller's LD_PRELOAD, COMPI_* names) -> value
EXPORT = [
    ("", "", ["COMPI_MODE"], "ALL,LD_PRELOAD=" + LIB),
    ("ALL", "", [], "ALL,LD_PRELOAD=" + LIB),
    ("ALL,X=1", "", [], "ALL,X=1,LD_PRELOAD=" + LIB),
    ("NONE", "", ["COMPI_MODE", "COMPI_CODEC"], "COMPI_MODE,COMPI_CODEC,LD_PRELOAD=" + LIB),
    ("NIL", "", [], "LD_PRELOAD=" + LIB),
    ("FOO,BAR=2", "", ["COMPI_MODE"], "FOO,BAR=2,COMPI_MODE,LD_PRELOAD=" + LIB),
    # the caller's LD_PRELOAD stays, after libcompi
    ("", "/x/libtool.so", [], "ALL,LD_PRELOAD=" + LIB + ":/x/libtool.so"),
    ("ALL,LD_PRELOAD", "/x/libtool.so", [], "ALL,LD_PRELOAD=" + LIB + ":/x/libtool.so"),
    ("ALL,LD_PRELOAD=/y/lib.so", "/x/libtool.so", [], "ALL,LD_PRELOAD=" + LIB + ":/y/lib.so"),
]
for user, pre, names, want in EXPORT:
    got = R.srun_export_value(LIB, user, pre, names)
    check(got == want, "srun_export_value(%r, %r, %r): %r, want %r" % (user, pre, names, got, want))
check("contains a comma" in (raises(R.srun_export_value, LIB, "", "/a,b.so", []) or ""),
      "srun_export_value refuses an LD_PRELOAD with a comma")

# --- srun_command: the whole srun line
SRUN = [
    (["--mpi=pmix", "-N2", "-n4", "./a", "x"], "",
     ["srun", "--export=ALL,LD_PRELOAD=" + LIB, "--mpi=pmix", "-N2", "-n4", "./a", "x"]),
    (["--export=NONE", "-n", "4", "./a"], "",
     ["srun", "--export=COMPI_MODE,LD_PRELOAD=" + LIB, "-n", "4", "./a"]),
    # SLURM_EXPORT_ENV when the line has no --export (the caller passes it as the user's)
    (["-n4", "./a"], "NONE", ["srun", "--export=COMPI_MODE,LD_PRELOAD=" + LIB, "-n4", "./a"]),
]
for args, env_user, want in SRUN:
    s = R.split_slurm("srun", args)
    user = s.export if s.export_set else env_user
    got = R.srun_command("srun", s, LIB, user, "", ["COMPI_MODE"])
    check(got == want, "srun_command(%s): %s, want %s" % (args, got, want))

# --- mpi_launch_flags: mpirun / mpiexec of Open MPI (-x) and MPICH (-genv)
ENV = [("COMPI_MODE", "fixed"), ("COMPI_CODEC", "lz4")]
FLAGS = [
    (("openmpi", LIB, ENV, ""), {},
     ["-x", "LD_PRELOAD=" + LIB, "-x", "COMPI_MODE", "-x", "COMPI_CODEC"]),
    # Open MPI: the caller's LD_PRELOAD is not forwarded by mpirun; only libcompi
    (("openmpi", LIB, [], "/x/tool.so"), {}, ["-x", "LD_PRELOAD=" + LIB]),
    (("mpich", LIB, ENV, ""), {},
     ["-genv", "LD_PRELOAD", LIB, "-genv", "COMPI_MODE", "fixed", "-genv", "COMPI_CODEC", "lz4"]),
    # hydra forwards the caller's environment: its LD_PRELOAD is kept after libcompi
    (("mpich", LIB, [], "/x/tool.so"), {}, ["-genv", "LD_PRELOAD", LIB + ":/x/tool.so"]),
    # a placement: Open MPI's rankfile, MPICH's machinefile, and the pins
    (("openmpi", LIB, [], ""), {"rankfile": "/pl/rankfile", "placement_env": ["A=1"]},
     ["-x", "LD_PRELOAD=" + LIB, "--rankfile", "/pl/rankfile", "-x", "A=1"]),
    (("mpich", LIB, [], ""), {"machinefile": "/pl/machinefile", "placement_env": ["MPIR_CVAR_X=a=b"]},
     ["-genv", "LD_PRELOAD", LIB, "-f", "/pl/machinefile", "-genv", "MPIR_CVAR_X", "a=b"]),
]
for args, kw, want in FLAGS:
    got = R.mpi_launch_flags(*args, **kw)
    check(got == want, "mpi_launch_flags(%s, %s): %s, want %s" % (args, kw, got, want))
check("unknown MPI" in (raises(R.mpi_launch_flags, "lam", LIB, [], "") or ""), "mpi_launch_flags refuses an unknown MPI")

# --- job_export: (command, args, SBATCH_EXPORT, script) -> value or refusal
JOBS = [
    ("sbatch", ["job.sh"], "", "#!/bin/sh\nsrun ./a\n", ""),
    ("sbatch", ["--export=ALL,X=1", "job.sh"], "", "", "ALL,X=1"),
    ("sbatch", ["job.sh"], "ALL", "", "ALL"),
    ("sbatch", ["job.sh"], "", "#SBATCH --export=ALL\nsrun ./a\n", "ALL"),
    ("sbatch", ["job.sh"], "", "#SBATCH --export NONE\n", None),
    ("sbatch", ["job.sh"], "NONE", "", None),
    ("sbatch", ["--export=NONE", "job.sh"], "", "", None),
    ("salloc", ["--export", "FOO", "mpirun"], "", None, None),
    # salloc reads no SBATCH_EXPORT and no script
    ("salloc", ["-N2", "mpirun"], "NONE", None, ""),
]
for cmd, args, env, text, want in JOBS:
    s = R.split_slurm(cmd, args)
    try:
        got = R.job_export(cmd, s, env, text)
    except R.LaunchError as e:
        got = None
        check("must inherit your environment" in str(e), "job_export refusal names the cause: %s" % e)
    check(got == want, "job_export(%s, %s, SBATCH_EXPORT=%r): %r, want %r" % (cmd, args, env, got, want))

# --- job scripts: launch lines and the srun programs checked before submitting
check(R.job_has_launch("#!/bin/sh\nmpirun -np 4 ./a\n"), "a job with mpirun launches")
check(R.job_has_launch("time srun ./a\n"), "a job with srun after a word launches")
check(not R.job_has_launch("#!/bin/sh\necho my-srun-notes.txt\n./a\n"), "a file name containing srun is no launch")
SCRIPT = "#!/bin/sh\nsrun -n 4 ./a\nOMP=2 srun --mpi pmix ./b x\nsrun $APP\nsrun ./c < in\n  srun -N2 bash -c 'x'\n"
got = R.job_srun_programs("job.sh", SCRIPT)
want = [(2, "./a"), (3, "./b"), (5, "./c"), (6, "bash")]
check(got == want, "job_srun_programs: %s, want %s" % (got, want))

# --- job_command: the job runs with the shims first in PATH
s = R.split_slurm("sbatch", ["-N2", "--export=ALL", "job.sh", "a"])
envs, cmd = R.job_command("sbatch", s, "/c/jobshims", "/usr/bin", "mpich", "/b")
check(envs == ["PATH=/c/jobshims:/usr/bin", "COMPI_RUN_MPI=mpich", "COMPI_BUILD_DIR=/b"], "job_command envs: %s" % envs)
check(cmd == ["sbatch", "-N2", "--export=ALL", "job.sh", "a"], "job_command cmd: %s" % cmd)
s = R.split_slurm("salloc", ["-N2", "mpiexec.mpich", "-n", "4", "./a"])
envs, cmd = R.job_command("salloc", s, "/c/jobshims", "/usr/bin", "", "")
check(envs == ["PATH=/c/jobshims:/usr/bin"] and cmd == ["salloc", "-N2", "mpiexec.mpich", "-n", "4", "./a"],
      "job_command salloc: %s %s" % (envs, cmd))

# --- dry-run quoting reads back as the same words
words = ["mpirun", "-x", "LD_PRELOAD=/a b/lib.so", "--", "it's"]
import shlex  # noqa: E402
check(shlex.split(R.quote(words)) == words, "quote reads back")

print("%d checks, %d failed" % (count, fails))
sys.exit(1 if fails else 0)
