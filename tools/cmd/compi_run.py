#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compi run: an unmodified MPI program with compi preloaded into its ranks.

The launcher (mpirun, mpirun.openmpi, mpiexec.mpich, ...) is run as given,
with flags added right after it so that only the RANKS get
  LD_PRELOAD=<build-dir>/<mpi>/lib/libcompi.so   (Open MPI: -x, MPICH: -genv)
  (installed compi: P/lib/libcompi-<mpi>.so)
and every COMPI_* variable of the caller's environment.  mpirun itself is
not preloaded (LD_PRELOAD in its own environment would interpose on the
launcher and every daemon).  The library must match the application's MPI
(and so the launcher's): a libcompi built against the other MPI would
resolve the wrong symbols.  The MPI comes from --mpi, else the launcher,
else the application binary's libraries.

Slurm: `srun` gets --export=ALL,LD_PRELOAD=<lib> (merged with the user's
own --export or SLURM_EXPORT_ENV), srun itself runs without LD_PRELOAD; the
MPI is the program's, srun cannot say.  `sbatch` / `salloc` run the job
with jobshims/ first in PATH: each srun/mpirun/mpiexec line of the job
becomes `compi run -- <that line>` (see jobshims/srun).

The rewriting is pure functions of their arguments (the Slurm option table
below is data), unit-tested by tests/run/test_compi_run.py.  What depends
on this machine (which MPI a launcher or a binary belongs to, where the
library is, the placement checks, which COMPI_* names are the tools' own)
is asked of _common.sh, which the other commands share.
"""
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

USAGE = """\
usage: compi run [--mpi openmpi|mpich] [--build-dir DIR] [--placement P] [--dry-run] -- LAUNCHER ARGS...

  Runs LAUNCHER ARGS with libcompi preloaded into the ranks, e.g.
    COMPI_MODE=fixed COMPI_CODEC=lz4 compi run -- mpirun -np 4 ./app
    compi run -- mpiexec.mpich -n 4 ./app
    compi run -- srun --mpi=pmix -N2 -n8 ./app
    compi run -- sbatch -N2 job.sh       (each srun/mpirun/mpiexec in job.sh)

  --mpi        which MPI the launcher and application belong to (default:
               detected from the launcher: mpirun.openmpi/orterun -> openmpi,
               mpiexec.mpich/hydra -> mpich, plain mpirun/mpiexec through its
               alternatives symlink, else its --version output; when the
               launcher does not say (a wrapper script), from the libraries
               the application binary links (readelf/ldd: libmpi.so.40 ->
               openmpi, libmpich.so.12 -> mpich). An application linked
               against the other MPI than the launcher's is an error.
               srun: from the libmpi the program needs; sbatch/salloc: per
               launcher line in the job)
  --build-dir  where tools/build.sh put the libraries (default <repo>/build;
               the library is <build-dir>/<mpi>/lib/libcompi.so). An
               installed compi preloads P/lib/libcompi-<mpi>.so instead.
  --dry-run    print the command instead of running it
  --placement  launch with the placement `compi map -o P` wrote: Open MPI
               mpirun --rankfile P/rankfile; MPICH mpiexec -f P/machinefile
               (one host per rank, in rank order); srun
               --distribution=arbitrary with SLURM_HOSTFILE=P/machinefile.
               Variables in P/env (MPICH: the algorithm pins of the traced
               run, so the collectives send what the graph assumed) go to
               the ranks. Do not pass another host list or mapping option.

  COMPI_* variables set in your environment are passed to the ranks
  (Open MPI: -x NAME, MPICH: -genv NAME VALUE, srun: --export=ALL).
  srun/sbatch/salloc: the job must inherit your environment (--export=ALL,
  the default; srun's --export=NONE or a list is extended with LD_PRELOAD
  and the COMPI_* names).  Options of srun/sbatch that take a value are
  recognised as -n 4, -n4, --ntasks 4 and --ntasks=4.
  On the emulated cluster (in the repository): compi vcluster run --compi -- ...
"""

# The options of srun/sbatch/salloc that take a value as the next word
# (--opt VALUE or -o VALUE); options with an optional value take it only as
# --opt=VALUE.  From `srun --help` / `sbatch --help` of Slurm 22.05.
SLURM_SHORT_WITH_VALUE = frozenset("AaBbCcDdeGiJLMmNnopqrSTtWwxF")
SLURM_LONG_WITH_VALUE = frozenset("""
    account acctg-freq array bb bbf bcast bcast-exclude begin chdir clusters
    cluster-constraint comment constraint container core-spec cores-per-socket cpu-freq cpus-per-gpu
    cpus-per-task deadline delay-boot dependency distribution epilog error export export-file
    extra-node-info gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket gpus-per-task gres
    gres-flags het-group input jobid job-name licenses mail-type mail-user mcs-label mem mem-per-cpu
    mem-per-gpu mincpus mpi network nodefile nodelist nodes ntasks ntasks-per-core ntasks-per-gpu
    ntasks-per-node ntasks-per-socket output partition power priority profile prolog qos relative
    reservation signal slurmd-debug sockets-per-node switches task-epilog task-prolog thread-spec
    threads threads-per-core time time-min tmp uid wait wckey exclude
""".split())
# Per command, short options that differ: sbatch's -W is --wait (no value),
# srun's -W is --wait=SECONDS.
SLURM_SHORT_WITHOUT_VALUE = {"sbatch": frozenset("W")}

# Launchers compi run rewrites as Slurm commands.
SLURM_STEP = frozenset({"srun"})
SLURM_JOB = frozenset({"sbatch", "salloc"})


class LaunchError(Exception):
    """A launch compi run refuses; the message names the cause."""


@dataclass
class SlurmArgs:
    """A Slurm command's arguments: its options (the user's --export taken
    out into export / export_set), the program and the program's arguments."""
    opts: list = field(default_factory=list)
    prog: str = ""
    rest: list = field(default_factory=list)
    export: str = ""
    export_set: bool = False


def _takes_value(command, opt):
    """Does Slurm option OPT (-x or --long, no '=') of COMMAND take the next word?"""
    if opt.startswith("--"):
        return opt[2:] in SLURM_LONG_WITH_VALUE
    letter = opt[1:]
    return letter in SLURM_SHORT_WITH_VALUE and letter not in SLURM_SHORT_WITHOUT_VALUE.get(command, ())


def split_slurm(command, args, who=None):
    """Splits ARGS of Slurm COMMAND (srun, sbatch, salloc) at its program.
    WHO names the command in errors (default COMMAND)."""
    who = who or command
    out = SlurmArgs()
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--export="):
            out.export, out.export_set = a[len("--export="):], True
        elif a == "--export":
            if i + 1 >= len(args):
                raise LaunchError("%s: --export needs a value" % who)
            out.export, out.export_set = args[i + 1], True
            i += 1
        elif a == "--":
            i += 1
            break
        elif a.startswith("--") and "=" in a:
            out.opts.append(a)
        elif a.startswith("--") or (len(a) == 2 and a[0] == "-"):
            out.opts.append(a)
            if _takes_value(command, a):
                if i + 1 >= len(args):
                    raise LaunchError("%s: %s needs a value" % (who, a))
                out.opts.append(args[i + 1])
                i += 1
        elif a.startswith("-") and len(a) > 2:
            out.opts.append(a)           # -n4, -vvv
        else:
            break
        i += 1
    if i < len(args):
        out.prog, out.rest = args[i], list(args[i + 1:])
    return out


def srun_export_value(preload, user, caller_preload, compi_names):
    """The --export value that gives srun's tasks LD_PRELOAD=PRELOAD (and
    the caller's own LD_PRELOAD after it) on top of what the user asked for
    (USER: their --export, or SLURM_EXPORT_ENV; "" is ALL).  With ALL the
    COMPI_* variables come along with the environment; with NONE or a list,
    COMPI_NAMES are added.  srun splits the value at commas."""
    extra = caller_preload or ""
    everything = False
    keep = []
    for item in (user or "ALL").split(","):
        if item == "ALL":
            everything = True
        elif item in ("NONE", "NIL", "LD_PRELOAD", ""):
            pass                          # LD_PRELOAD alone: the caller's, already in extra
        elif item.startswith("LD_PRELOAD="):
            extra = item[len("LD_PRELOAD="):]
        else:
            keep.append(item)
    preload = preload + (":" + extra if extra else "")
    if "," in preload:
        raise LaunchError("srun: LD_PRELOAD '%s' contains a comma, which srun's --export cannot carry" % preload)
    out = ["ALL"] + keep if everything else keep + list(compi_names)
    return ",".join(out + ["LD_PRELOAD=" + preload])


def srun_command(launcher, split, lib, export_user, caller_preload, compi_names):
    """srun with the tasks preloaded: --export first, then the user's options."""
    value = srun_export_value(lib, export_user, caller_preload, compi_names)
    return [launcher, "--export=" + value] + split.opts + [split.prog] + split.rest


def mpi_launch_flags(mpi, lib, compi_env, caller_preload, rankfile=None, machinefile=None, placement_env=()):
    """The flags that go right after an mpirun/mpiexec: LD_PRELOAD and the
    COMPI_* settings (COMPI_ENV: (name, value) pairs) for the ranks only,
    and a placement's host file and variables."""
    flags = []
    if mpi == "openmpi":
        flags += ["-x", "LD_PRELOAD=" + lib]
        for name, _ in compi_env:
            flags += ["-x", name]
        if rankfile:
            flags += ["--rankfile", rankfile]
            for kv in placement_env:
                flags += ["-x", kv]
    elif mpi == "mpich":
        # hydra forwards the caller's environment to the ranks, so a caller's
        # LD_PRELOAD would reach them without compi: keep it, after libcompi
        flags += ["-genv", "LD_PRELOAD", lib + (":" + caller_preload if caller_preload else "")]
        for name, value in compi_env:
            flags += ["-genv", name, value]
        if machinefile:
            flags += ["-f", machinefile]
            for kv in placement_env:
                name, _, value = kv.partition("=")
                flags += ["-genv", name, value]
    else:
        raise LaunchError("unknown MPI '%s' (expected openmpi or mpich)" % mpi)
    return flags


_SBATCH_EXPORT = re.compile(r"^#SBATCH.*--export[= ]([^ \n]*)")


def job_export(command, split, sbatch_export_env, script_text):
    """The --export a job gets: the user's, else (sbatch) SBATCH_EXPORT or
    the script's last #SBATCH --export; raises when the job would not
    inherit the caller's environment."""
    value = split.export
    if not split.export_set and command == "sbatch":
        value = sbatch_export_env or ""
        if not value and script_text is not None:
            found = [m.group(1) for m in map(_SBATCH_EXPORT.match, script_text.splitlines()) if m]
            value = found[-1] if found else ""
    if not (value == "" or value == "ALL" or value.startswith("ALL,")):
        raise LaunchError("%s --export=%s: the job must inherit your environment (PATH and COMPI_*) for compi "
                          "to reach its tasks; use --export=ALL[,...]" % (command, value))
    return value


_LAUNCH_WORD = re.compile(r"(^|[^A-Za-z0-9_.-])(srun|mpirun|mpiexec|orterun)([^A-Za-z0-9_-]|$)")


def job_has_launch(script_text):
    """Does a job script start any srun/mpirun/mpiexec line?"""
    return any(_LAUNCH_WORD.search(line) for line in script_text.splitlines())


_SRUN_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*srun\s+(.*)$")


def job_srun_programs(script, script_text):
    """(line number, program) of each plain `srun ... PROGRAM` line of a job
    script; programs given through variables or redirections are left out."""
    found = []
    for n, line in enumerate(script_text.splitlines(), 1):
        m = _SRUN_LINE.match(line)
        if not m:
            continue
        split = split_slurm("srun", m.group(2).split(), who="%s line %d: srun" % (script, n))
        prog = split.prog
        if prog and "$" not in prog and prog[0] not in "<>|&;":
            found.append((n, prog))
    return found


def job_command(launcher, split, shims, path, mpi, build_dir):
    """(environment assignments, command) of an sbatch/salloc whose job
    runs with the shims first in PATH."""
    envs = ["PATH=%s:%s" % (shims, path)]
    if mpi:
        envs.append("COMPI_RUN_MPI=" + mpi)
    if build_dir:
        envs.append("COMPI_BUILD_DIR=" + build_dir)
    cmd = [launcher] + split.opts
    if split.export_set:
        cmd.append("--export=" + split.export)
    if split.prog:
        cmd += [split.prog] + split.rest
    return envs, cmd


def quote(words):
    """A command line as a shell reads it back."""
    return " ".join(shlex.quote(w) for w in words)


# --------------------------------------------------------------- this machine

HERE = os.path.dirname(os.path.abspath(__file__))


class Common:
    """The machine-dependent answers, from _common.sh (shared with the other
    commands).  A helper that dies has printed its error; we exit alike."""

    def __init__(self, cmd_dir=HERE):
        self.common = os.path.join(cmd_dir, "_common.sh")

    def call(self, func, *args):
        r = subprocess.run(["bash", "-c", 'source "$1"; shift; "$@"', "compi", self.common, func] + list(args),
                           stdout=subprocess.PIPE, universal_newlines=True)
        if r.returncode != 0:
            sys.exit(r.returncode)
        return r.stdout.rstrip("\n")

    def lines(self, func, *args):
        out = self.call(func, *args)
        return [x for x in out.split("\n") if x]


def die(msg):
    sys.stderr.write("compi: error: %s\n" % msg)
    sys.exit(1)


def note(msg):
    sys.stderr.write("compi: %s\n" % msg)


def which(name):
    for d in os.environ.get("PATH", "").split(":"):
        p = os.path.join(d or ".", name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def check_mpi_name(mpi):
    if mpi not in ("openmpi", "mpich"):
        die("unknown MPI '%s' (expected openmpi or mpich)" % mpi)


def finish(env_unset, envs, cmd, dry):
    """Prints (dry run) or runs CMD in this environment minus ENV_UNSET plus ENVS."""
    if dry:
        print(quote((["env"] + envs if envs else []) + cmd) + " ")
        return 0
    env = {k: v for k, v in os.environ.items() if k not in env_unset}
    for kv in envs:
        k, _, v = kv.partition("=")
        env[k] = v
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        die("cannot run %s: %s" % (cmd[0], e))


def compi_env(common):
    names = common.lines("compi_env_names")
    return [(n, os.environ.get(n, "")) for n in names]


def tool_vars(common):
    return [v for v in common.lines("tool_var_unset_args") if v != "-u"]


def run_srun(common, mpi, build_dir, dry, launcher, args):
    split = split_slurm("srun", args)
    if not split.prog:
        die("srun: no program to run (compi run -- srun [options] PROGRAM ...)")
    prog_path = which(split.prog) if "/" not in split.prog else (
        split.prog if os.access(split.prog, os.X_OK) else None)
    detected = common.call("mpi_of_binary", prog_path or split.prog)
    if not mpi:
        if not detected:
            die("srun: can't tell which MPI '%s' is built with (%s: no libmpi of Open MPI or MPICH among its "
                "libraries; a script or a static binary?); pass --mpi openmpi|mpich"
                % (split.prog, prog_path or "not found in PATH or the current directory"))
        mpi = detected
    check_mpi_name(mpi)
    if detected and detected != mpi:
        die("--mpi %s, but '%s' is built with %s" % (mpi, split.prog, detected))
    lib = common.call("compi_lib_for", mpi, build_dir)
    user = split.export if split.export_set else os.environ.get("SLURM_EXPORT_ENV", "")
    names = [n for n, _ in compi_env(common)]
    cmd = srun_command(launcher, split, lib, user, os.environ.get("LD_PRELOAD", ""), names)
    # srun itself: no preload, and the export comes from the flag
    return finish(set(tool_vars(common)) | {"LD_PRELOAD", "SLURM_EXPORT_ENV"}, [], cmd, dry)


def run_job(common, mpi, build_dir, dry, launcher, build_dir_given, args):
    command = os.path.basename(launcher)
    split = split_slurm(command, args)
    script_text = None
    if command == "sbatch" and split.prog and os.path.isfile(split.prog):
        with open(split.prog, errors="replace") as f:
            script_text = f.read()
    job_export(command, split, os.environ.get("SBATCH_EXPORT", ""), script_text)
    if script_text is not None and not job_has_launch(script_text):
        note("%s has no srun/mpirun/mpiexec line: nothing in this job will be preloaded" % split.prog)
    if mpi:
        check_mpi_name(mpi)
    elif script_text is not None:
        # a PROGRAM that exists now and whose MPI cannot be told would fail
        # inside the job (its srun line, see jobshims); say so before submitting
        for n, prog in job_srun_programs(split.prog, script_text):
            path = which(prog) if "/" not in prog else prog
            if path and os.path.isfile(path) and not common.call("mpi_of_binary", path):
                die("%s line %d: can't tell which MPI '%s' is built with (no libmpi of Open MPI or MPICH among "
                    "its libraries); pass --mpi openmpi|mpich to compi run" % (split.prog, n, prog))
    shims = os.path.join(HERE, "jobshims")
    if not os.access(os.path.join(shims, "srun"), os.X_OK):
        die("the launcher shims are missing (%s/srun)" % shims)
    envs, cmd = job_command(launcher, split, shims, os.environ.get("PATH", ""), mpi,
                            os.path.realpath(build_dir) if build_dir_given else "")
    return finish(set(), envs, cmd, dry)


def app_binary(common, args):
    """(path, MPI) of the application among the launcher arguments: the first
    program linked against an MPI (option values and tools in front link none)."""
    for a in args:
        if not a or a.startswith("-") or "=" in a or " " in a:
            continue
        m = common.call("mpi_of_binary", a)
        if m:
            return a, m
    return "", ""


def main(argv):
    common = Common()
    mpi, build_dir, dry, build_dir_given, placement = "", os.environ.get("COMPI_BUILD_DIR", ""), False, False, ""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--placement", "--mpi", "--build-dir"):
            if i + 1 >= len(argv) or argv[i + 1] == "":
                die("%s needs a value" % a)
            v = argv[i + 1]
            if a == "--placement":
                placement = v
            elif a == "--mpi":
                mpi = v
            else:
                build_dir, build_dir_given = v, True
            i += 2
            continue
        if a == "--dry-run":
            dry = True
        elif a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif a == "--":
            i += 1
            break
        elif a.startswith("-"):
            die("run: unknown option '%s' (launcher arguments go after --)" % a)
        else:
            break
        i += 1
    args = argv[i:]
    if not args:
        sys.stderr.write(USAGE)
        return 2
    launcher, args = args[0], args[1:]
    if not which(launcher) and not ("/" in launcher and os.access(launcher, os.X_OK)):
        die("launcher '%s' not found in PATH" % launcher)
    if placement:
        common.call("placement_check", placement)
        common.call("placement_np_check", placement, *args)
    name = os.path.basename(launcher)
    try:
        if name in SLURM_STEP:
            if placement:
                for kv in common.lines("placement_env", placement):
                    k, _, v = kv.partition("=")
                    os.environ[k] = v
                os.environ["SLURM_HOSTFILE"] = os.path.realpath(os.path.join(placement, "machinefile"))
                args = ["--distribution=arbitrary"] + args
            return run_srun(common, mpi, build_dir, dry, launcher, args)
        if name in SLURM_JOB:
            return run_job(common, mpi, build_dir, dry, launcher, build_dir_given, args)
        if mpi:
            check_mpi_name(mpi)
        detected = common.call("mpi_of_launcher", launcher)
        app, app_mpi = app_binary(common, args)
        if not mpi:
            mpi = detected or app_mpi
            if not mpi:
                die("can't tell which MPI '%s' belongs to (not a known launcher; its --version names no MPI), nor "
                    "which MPI the application links (no argument after '%s' is a program linked against Open MPI "
                    "or MPICH); pass --mpi openmpi|mpich" % (launcher, launcher))
        if detected and detected != mpi:
            die("--mpi %s, but '%s' is the %s launcher" % (mpi, launcher, detected))
        if app_mpi and app_mpi != mpi:
            by = "the launcher '%s' is %s's" % (launcher, detected) if detected else "--mpi " + mpi
            die("'%s' is linked against %s, but %s: the application, the launcher and compi's library must "
                "belong to one MPI" % (app, app_mpi, by))
        lib = common.call("compi_lib_for", mpi, build_dir)
        rankfile = machinefile = None
        penv = []
        if placement:
            rankfile = os.path.realpath(os.path.join(placement, "rankfile"))
            machinefile = os.path.realpath(os.path.join(placement, "machinefile"))
            penv = common.lines("placement_env", placement)
        flags = mpi_launch_flags(mpi, lib, compi_env(common), os.environ.get("LD_PRELOAD", ""),
                                 rankfile if mpi == "openmpi" else None,
                                 machinefile if mpi == "mpich" else None, penv)
        return finish(set(tool_vars(common)), [], [launcher] + flags + args, dry)
    except LaunchError as e:
        die(str(e))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
