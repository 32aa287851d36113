#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Adds or checks the SPDX-License-Identifier line of compi's source files.

Every tracked C, header, Fortran, Python, shell and CMake file carries
`SPDX-License-Identifier: <id>` as its first comment line (after a `#!`
line, if any).  Vendored third-party files (tests/foreign/romio,
tests/foreign/mpich_io, tests/foreign/mpich_coll, tests/foreign/mpich_pt2pt,
tests/foreign/mpich_datatype, tests/foreign/mpich_threads) keep their own notices and are skipped.

    tools/spdx.py --check     # lists files without the line; exit 1 if any
    tools/spdx.py --add       # inserts the line where it is missing
"""
import argparse
import os
import subprocess
import sys

LICENSE_ID = "BSD-3-Clause"
TAG = "SPDX-License-Identifier:"
# third-party code kept as published (see THIRD-PARTY.md)
VENDORED = ("tests/foreign/romio/", "tests/foreign/mpich_io/", "tests/foreign/mpich_coll/",
            "tests/foreign/mpich_pt2pt/", "tests/foreign/mpich_datatype/", "tests/foreign/mpich_threads/")
HASH_NAMES = ("CMakeLists.txt",)
HASH_EXTS = (".py", ".sh", ".cmake", ".in", ".def")


def comment_for(path, first_line):
    """The comment line a file of this kind gets, or None if it is not a source file."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext in (".c", ".h"):
        return f"/* {TAG} {LICENSE_ID} */"
    if ext == ".f90":
        return f"! {TAG} {LICENSE_ID}"
    if name in HASH_NAMES or ext in HASH_EXTS or first_line.startswith("#!"):
        return f"# {TAG} {LICENSE_ID}"
    return None


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                         capture_output=True).stdout.decode()
    for rel in out.split("\0"):
        if not rel or rel.startswith(VENDORED) or rel.startswith(".ci/"):
            continue
        full = os.path.join(root, rel)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        yield rel, full


def has_tag(lines):
    """True when the first comment line (after a #! line) names the license."""
    i = 1 if lines and lines[0].startswith("#!") else 0
    return i < len(lines) and TAG in lines[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--add", action="store_true")
    args = ap.parse_args()
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True,
                          capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    missing = []
    for rel, full in tracked_files(root):
        with open(full, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        lines = text.splitlines(keepends=True)
        line = comment_for(rel, lines[0] if lines else "")
        if line is None or has_tag(lines):
            continue
        if args.check:
            missing.append(rel)
            continue
        at = 1 if lines and lines[0].startswith("#!") else 0
        lines.insert(at, line + "\n")
        with open(full, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(lines))
        print(f"spdx: added to {rel}")
    if missing:
        for rel in missing:
            print(f"spdx: no '{TAG} {LICENSE_ID}' line first in {rel}", file=sys.stderr)
        print(f"spdx: {len(missing)} file(s) without the line (tools/spdx.py --add)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
