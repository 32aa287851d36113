#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks compi's documentation against the code and itself:

  settings  every setting of lib/engine/config.c's table (key and COMPI_
            variable) has its row in docs/configuration.md and its entry in
            the compi.conf(5) manual page; no documented COMPI_ variable is
            unknown to config.c (or listed below as a tool's)
  links     every relative link of the Markdown files (README, CHANGELOG,
            CONTRIBUTING, THIRD-PARTY, docs/) names a file that exists, and
            a #fragment names a heading of that file
  wording   the docs and lib/ speak of compi only: no work-round, issue or
            team wording, commit hashes or lock holds

    tools/check_docs.py [--root DIR]     # exit 1 and one line per problem
"""
import argparse
import glob
import os
import re
import sys

# COMPI_ variables documented that are not settings of the library's table
OTHER_VARS = {"COMPI_CONFIG", "COMPI_ROOT", "COMPI_BUILD_DIR", "COMPI_IO_GATE_MARGIN",
              "COMPI_WITH_LZO", "COMPI_WITH_SCOTCH", "COMPI_BUILD_TOOLS", "COMPI_BUILD_APPS", "COMPI_BUILD_BENCH",
              "COMPI_BUILD_TESTS", "COMPI_SANITIZE", "COMPI_MPI", "COMPI_TEST_STAGES",
              "COMPI_FUZZ_SECONDS", "COMPI_CACHE", "COMPI_FUZZ", "COMPI_CODEC_ID_LZO",
              "COMPI_DEBUG_COLL_TIMES",
              "COMPI_SIM_CODEC_COST",   # the smpi build's codec-cost model (docs/simulate.md)
              "COMPI_CODE"}   # the typo example of configuration.md
WORDING = re.compile(
    r"\bsessions?\b|\bissues? #?\d+|\bengineers?\b|\bquiet[- ]lock\b|\bexclusive (?:quiet[- ]lock )?holds?\b"
    r"|\block holds?\b|\bcommit [0-9a-f]{7,40}\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,12}\b"
    r"|\b[0-9a-f]{40}\b|\bwork rounds?\b|\b(?:io|map)\d+'s\b", re.I)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def settings(root):
    src = read(os.path.join(root, "lib/engine/config.c"))
    rows = re.findall(r'\[COMPI_SET_\w+\]\s*=\s*\{\{"(\w+)",\s*"(COMPI_\w+)"', src)
    if not rows:
        return ["settings: no settings table found in lib/engine/config.c"]
    problems = []
    conf = read(os.path.join(root, "docs/configuration.md"))
    man = read(os.path.join(root, "docs/man/man5/compi.conf.5"))
    table_rows = [l for l in conf.splitlines() if l.startswith("|")]
    for key, env in rows:
        if not any(f"`{env}`" in l and f"`{key}`" in l for l in table_rows):
            problems.append(f"settings: docs/configuration.md has no table row naming `{env}` and `{key}`")
        if not re.search(rf"\b{re.escape(key)}\b", man) or env not in man.replace("\\_", "_"):
            problems.append(f"settings: docs/man/man5/compi.conf.5 does not document {key} ({env})")
    known = {env for _, env in rows} | OTHER_VARS
    for env in sorted(set(re.findall(r"`(COMPI_[A-Z0-9_]+)`", conf))):
        if env not in known:
            problems.append(f"settings: docs/configuration.md documents {env}, which lib/engine/config.c does not define")
    return problems


def slug(heading):
    """GitHub's anchor of a heading."""
    h = re.sub(r"[`*_]", "", heading.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def markdown_files(root):
    files = [os.path.join(root, f) for f in ("README.md", "CHANGELOG.md", "CONTRIBUTING.md", "THIRD-PARTY.md")]
    files += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    return [f for f in files if os.path.exists(f)]


def links(root):
    problems = []
    for path in markdown_files(root):
        text = read(path)
        text = re.sub(r"```.*?```", "", text, flags=re.S)        # code blocks
        text = re.sub(r"(?m)^(    |\t).*$", "", text)              # indented code
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file_part, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            rel = os.path.relpath(path, root)
            if not os.path.exists(dest):
                problems.append(f"links: {rel}: '{target}': no such file")
                continue
            if frag and dest.endswith(".md"):
                heads = {slug(h) for h in re.findall(r"(?m)^#+\s+(.*)$", read(dest))}
                if frag not in heads:
                    problems.append(f"links: {rel}: '{target}': no heading with that anchor")
    return problems


def wording(root):
    problems = []
    paths = markdown_files(root) + sorted(glob.glob(os.path.join(root, "docs", "man", "*", "*")))
    for ext in ("c", "h"):
        paths += sorted(glob.glob(os.path.join(root, "lib", "**", f"*.{ext}"), recursive=True))
        paths += sorted(glob.glob(os.path.join(root, "include", f"*.{ext}")))
    for path in paths:
        for n, line in enumerate(read(path).splitlines(), 1):
            m = WORDING.search(line)
            if m:
                problems.append(f"wording: {os.path.relpath(path, root)}:{n}: '{m.group(0)}' "
                                "(docs and comments speak of compi, not of its history or team)")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = ap.parse_args()
    problems = settings(a.root) + links(a.root) + wording(a.root)
    for p in problems:
        print(p)
    print(f"check_docs: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
