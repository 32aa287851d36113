#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fail when a C file of lib/ grows past MAX_FILE lines or a function in it
past MAX_FUNC lines, so each file keeps one job and each function reads as
named steps.  Data tables (transcribed decision tables, fitted models) are
long by nature and listed in DATA_TABLES.

A function is found the way compi's style writes one: its opening brace
alone at the start of a line, its closing brace alone at the start of a
line; its length counts from the line after its name to the closing brace.

  check_sizes.py [--max-func N] [--max-file N] [ROOT]
"""
import argparse
import pathlib
import re
import sys

MAX_FUNC = 150
MAX_FILE = 800
DATA_TABLES = {
    "lib/map/dkb_ompi41_table.c",   # Open MPI 4.1's decision table, transcribed
    "lib/engine/model_default.c",   # the default fitted cost model
}
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(lines):
    """Yield (name, first line number, length) for each function body."""
    start = None
    name = None
    for i, line in enumerate(lines):
        if line.startswith("{") and start is None:
            # the signature is above: find the line holding the name
            j = i - 1
            while j >= 0 and not NAME.search(lines[j]):
                j -= 1
            while j > 0 and lines[j].startswith((" ", "\t")) and NAME.search(lines[j - 1]):
                j -= 1
            m = NAME.search(lines[j]) if j >= 0 else None
            if m is None or lines[j].rstrip().endswith(("=", ";")):
                continue
            name, start = m.group(1), j
        elif line.startswith("}") and start is not None:
            yield name, start + 1, i - start
            start = None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-func", type=int, default=MAX_FUNC)
    ap.add_argument("--max-file", type=int, default=MAX_FILE)
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parents[2]))
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    bad = 0
    for path in sorted((root / "lib").rglob("*.c")):
        rel = path.relative_to(root).as_posix()
        if rel in DATA_TABLES:
            continue
        lines = path.read_text(errors="replace").splitlines()
        if len(lines) > a.max_file:
            print(f"{rel}: {len(lines)} lines, over {a.max_file}: split it by job "
                  f"(or, for a data table, add it to DATA_TABLES in {pathlib.Path(__file__).name})")
            bad += 1
        for name, first, n in functions(lines):
            if n > a.max_func:
                print(f"{rel}:{first}: {name}() is {n} lines, over {a.max_func}: cut it into named steps")
                bad += 1
    if bad:
        print(f"{bad} size rule(s) broken")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
