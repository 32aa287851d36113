#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compi_config and the configuration files, MPI-free (README: Configuration).

Runs the built compi_config (the library's own parser) in scratch
installations and checks: where the system file is looked for (build tree,
installed prefix, --lib), the user file (XDG_CONFIG_HOME, HOME, COMPI_CONFIG
replacing it), precedence system < user < environment with the file:line
of each value, relative paths, that a bad value reads the same from a file
and from the environment (one validation), and the message of every kind of
malformed file. Expected messages are written out here by hand.

usage: test_config.py --tool BUILD/bin/compi_config --lib BUILD/lib/libcompi.so --dir SCRATCH
                      [--compi tools/compi --mpi MPI]
"""
import argparse, os, re, shutil, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--tool", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--dir", required=True)
ap.add_argument("--compi")
ap.add_argument("--mpi")
a = ap.parse_args()
scratch = os.path.abspath(a.dir)
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = 0


def check(ok, what, detail=""):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} [config] {what}" + (f"\n    {detail}" if detail and not ok else ""))
    failures += not ok


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(cmd, env=None, home=None):
    """Runs with none of the caller's COMPI_* / XDG settings; HOME is a scratch one."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("COMPI_") and k != "XDG_CONFIG_HOME"}
    e["HOME"] = home or os.path.join(scratch, "nohome")
    e.update(env or {})
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    return p.returncode, p.stdout, p.stderr


def table(out):
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(\S+)\s+(\S.*)$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def install(name):
    p = os.path.join(scratch, name)
    os.makedirs(os.path.join(p, "libexec", "compi"))
    os.makedirs(os.path.join(p, "etc", "compi"))
    tool = os.path.join(p, "libexec", "compi", "compi_config")
    shutil.copy(a.tool, tool)
    return p, tool


# --- where the system file is -------------------------------------------------
build = os.path.dirname(os.path.dirname(os.path.abspath(a.tool)))
want = os.path.join(build, "etc", "compi", "compi.conf")
rc, out, err = run([a.tool])
check(rc == 0 and f"system file: {want} (" in out, f"build tree: the tool looks where the library does ({want})",
      out + err)
libdir_parent = os.path.dirname(os.path.dirname(os.path.abspath(a.lib)))
rc, out, err = run([a.tool, "--lib", a.lib])
check(rc == 0 and f"system file: {libdir_parent}/etc/compi/compi.conf (" in out,
      "--lib: <libdir>/../etc/compi/compi.conf", out + err)
P, tool = install("prefix")
sysf = write(os.path.join(P, "etc", "compi", "compi.conf"),
             "# site\nmode = fixed\ncodec = rle\nheuristics = heuristics\nmin_bytes = 64K\nverbose = 1\n")
rc, out, err = run([tool])
check(rc == 0 and f"system file: {sysf} (read)" in out, "installed: <prefix>/libexec/compi/../../etc/compi/compi.conf",
      out + err)
os.makedirs(os.path.join(P, "lib"))
shutil.copy(a.lib, os.path.join(P, "lib", "libcompi-test.so"))
os.makedirs(os.path.join(scratch, "elsewhere", "lib"))
link = os.path.join(scratch, "elsewhere", "lib", "libcompi.so")
os.symlink(os.path.join(P, "lib", "libcompi-test.so"), link)
rc2, out2, err2 = run([a.tool, "--lib", link])
check(rc2 == 0 and f"system file: {sysf} (read)" in out2,
      "a symlink to the library: the system file of the installation it points into", out2 + err2)
rows = table(out)
check(rows.get("heuristics") == (os.path.join(P, "etc", "compi", "heuristics"), f"{sysf}:4"),
      "a relative path in a file is relative to the file's directory", str(rows.get("heuristics")))
check(rows.get("min_bytes") == ("64K", f"{sysf}:5") and rows.get("level") == ("0", "default"),
      "values and sources from the system file; defaults named 'default'", out)

# --- user file and precedence ---------------------------------------------------
home = os.path.join(scratch, "home")
homef = write(os.path.join(home, ".config", "compi", "compi.conf"), "codec = huffman\n")
rc, out, err = run([tool], home=home)
check(table(out).get("codec") == ("huffman", f"{homef}:1") and f"user file:   {homef} (read)" in out,
      "user file at $HOME/.config/compi/compi.conf overrides the system file", out + err)
xdg = os.path.join(scratch, "xdg")
xdgf = write(os.path.join(xdg, "compi", "compi.conf"), "# user\ncodec = zstd\nverbose = 0\n")
rc, out, err = run([tool], {"XDG_CONFIG_HOME": xdg}, home=home)
rows = table(out)
check(rows.get("codec") == ("zstd", f"{xdgf}:2") and rows.get("mode") == ("fixed", f"{sysf}:2"),
      "XDG_CONFIG_HOME/compi/compi.conf is the user file; the system file still applies below it", out + err)
rc, out, err = run([tool], {"XDG_CONFIG_HOME": xdg, "COMPI_CODEC": "lz4", "COMPI_VERBOSE": "2"}, home=home)
rows = table(out)
check(rows.get("codec") == ("lz4", "environment (COMPI_CODEC)") and
      rows.get("verbose") == ("2", "environment (COMPI_VERBOSE)"), "the environment overrides both files", out + err)
envf = write(os.path.join(scratch, "explicit", "my.conf"), "adapt_sample = 128K\nrules = rules\n")
rc, out, err = run([tool], {"XDG_CONFIG_HOME": xdg, "COMPI_CONFIG": envf}, home=home)
rows = table(out)
check(rows.get("adapt_sample") == ("128K", f"{envf}:1") and rows.get("codec") == ("rle", f"{sysf}:3") and
      f"user file:   {envf} (read, from COMPI_CONFIG)" in out,
      "COMPI_CONFIG replaces the user file (the XDG file is not read), the system file still applies", out + err)
check(rows.get("rules") == (os.path.join(scratch, "explicit", "rules"), f"{envf}:2"),
      "relative path in the COMPI_CONFIG file: relative to its directory", str(rows.get("rules")))
rc, out, err = run([tool], {"COMPI_CONFIG": os.path.join(scratch, "missing.conf")})
check(rc == 2 and f"COMPI_CONFIG: configuration file {scratch}/missing.conf: No such file or directory" in err,
      "COMPI_CONFIG naming a missing file is an error", err)
rc, out, err = run([tool], {"COMPI_HEURISTICS": "rel/dir"})
check(table(out).get("heuristics") == ("rel/dir", "environment (COMPI_HEURISTICS)"),
      "a relative path in the environment stays as given (the rank's working directory)", out)

# --- one validation: the same message tail from a file and from the environment ----
for key, env, value in [("mode", "COMPI_MODE", "fast"), ("codec", "COMPI_CODEC", "gzip"),
                        ("adapt_mistakes", "COMPI_ADAPT_MISTAKES", "99"), ("calibrate", "COMPI_CALIBRATE", "yes"),
                        ("adapt_sample", "COMPI_ADAPT_SAMPLE", "12")]:
    f = write(os.path.join(scratch, "bad", f"{key}.conf"), f"{key} = {value}\n")
    rc1, _, err1 = run([a.tool, "--check", f])
    rc2, _, err2 = run([a.tool], {env: value})
    m1 = re.search(rf"{re.escape(f)}:1: key '{key}': '{value}' (.*)$", err1.strip())
    m2 = re.search(rf"{env}='{value}' (.*)$", err2.strip())
    check(rc1 == 2 and rc2 == 2 and m1 and m2 and m1.group(1) == m2.group(1),
          f"{key}: a bad value gives the same reason in a file and in {env}", err1 + err2)
# lzo is optional (liblzo2 is GPL; -DCOMPI_WITH_LZO=ON): a build without it
# says why the name is refused, one with it accepts it
rc, out, err = run([a.tool], {"COMPI_CODEC": "lzo"})
check((rc == 2 and "COMPI_CODEC='lzo' is not built into this library (configure with -DCOMPI_WITH_LZO=ON)" in err) or
      (rc == 0 and table(out).get("codec") == ("lzo", "environment (COMPI_CODEC)")),
      "COMPI_CODEC=lzo: accepted, or refused naming the build option", err + out)
rc, _, err = run([a.tool], {"COMPI_MODE": "fast"})
check("COMPI_MODE='fast' is not valid; valid values: off, fixed, adaptive, trace, guided" in err,
      "environment message as before (names the variable and the valid values)", err)

# --- malformed files: file:line:key -----------------------------------------------
cases = [
    ("unknown", "mode = fixed\ncodex = lz4\n",
     "{f}:2: unknown key 'codex' (did you mean 'codec'?); valid keys: mode, codec, min_bytes,"),
    ("envname", "\n\nCOMPI_MODE = fixed\n",
     "{f}:3: unknown key 'COMPI_MODE' (files use the names without COMPI_, in lower case: write 'mode')"),
    ("badvalue", "# x\nmin_bytes = 2 KB\n",
     "{f}:2: key 'min_bytes': '2 KB' is not valid; expected a byte count such as 0, 2048, 64K, 1M"),
    ("noequals", "mode fixed\n", "{f}:1: expected 'key = value', got 'mode fixed'"),
    ("duplicate", "mode = fixed\ncodec = lz4\nmode = off\n",
     "{f}:3: key 'mode' is set twice in this file (first on line 1)"),
    ("empty", "level =\n", "{f}:1: key 'level' has no value"),
    ("comment-after-value", "verbose = 1 # loud\n", "{f}:1: key 'verbose': '1 # loud' is not valid; valid values: 0, 1, 2, 3"),
]
for name, text, msg in cases:
    f = write(os.path.join(scratch, "malformed", f"{name}.conf"), text)
    want = msg.format(f=f)
    rc, out, err = run([a.tool, "--check", f])
    check(rc == 2 and want in err, f"--check {name}: exit 2 and '{want}'", f"rc {rc}: {err}")
    # the same file as the system file of an installation: what MPI_Init would say
    Pm, toolm = install(f"malformed-{name}")
    sf = write(os.path.join(Pm, "etc", "compi", "compi.conf"), text)
    rc, out, err = run([toolm])
    check(rc == 2 and f"compi: configuration error: {msg.format(f=sf)}" in err,
          f"system file {name}: compi_config stops as MPI_Init would", f"rc {rc}: {err}")
f = write(os.path.join(scratch, "trace.conf"), "mode = trace\n")
rc, out, err = run([a.tool], {"COMPI_CONFIG": f})
check(rc == 2 and f"mode trace (from {f}:1) needs a trace directory" in err, "mode trace without a directory names where mode came from", err)
good = write(os.path.join(scratch, "good.conf"), "# comment\n\n  mode   =   fixed  \ncodec=zstd\n")
rc, out, err = run([a.tool, "--check", good])
check(rc == 0 and f"{good}: ok (2 settings)" in out, "--check of a good file (spaces around '=' and the value are trimmed)", out + err)

# --- environment typos are still caught ------------------------------------------
rc, out, err = run([a.tool], {"COMPI_CODECC": "lz4"})
check(rc == 2 and "unknown variable COMPI_CODECC: did you mean COMPI_CODEC?" in err, "COMPI_CODECC is a typo", err)
rc, out, err = run([a.tool], {"COMPI_CONFIG": good})
check(rc == 0, "COMPI_CONFIG itself is a known variable", err)

# --- the compi command: same output as the tool for that MPI's library -----------
if a.compi:
    rc, out, err = run([a.compi, "config", "--mpi", a.mpi],
                       {"COMPI_BUILD_DIR": os.path.dirname(build), "COMPI_CODEC": "zstd"})
    rc2, out2, _ = run([a.tool, "--lib", os.path.realpath(a.lib)], {"COMPI_CODEC": "zstd"})
    check(rc == 0 and out == out2 and table(out).get("codec") == ("zstd", "environment (COMPI_CODEC)"),
          f"compi config --mpi {a.mpi} prints what compi_config --lib <its libcompi> prints", out + err + out2)
    rc, out, err = run([a.compi, "config", "--check", good], {"COMPI_BUILD_DIR": os.path.dirname(build)})
    check(rc == 0 and "ok (2 settings)" in out, "compi config --check", out + err)

print(f"[config] {'FAIL' if failures else 'PASS'}: {failures} failure(s)")
sys.exit(1 if failures else 0)
