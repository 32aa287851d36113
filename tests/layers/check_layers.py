#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The layering rule of lib/, checked on includes and on symbol references.

Each room of lib/ (a folder) may use only the rooms listed for it in
lib/layers.txt (the build reads the same file): a file of room A that includes a header of room B, or an
object of room A that references a symbol defined by an object of room B,
is a dependency A -> B, allowed only if B is in LAYERS[A]. The rooms
(wrappers on top; codecs and common at the bottom):

    wrappers -> io, coll -> core -> netcal -> engine -> codecs, common
                                  -> frame -> codecs
    map (placement, MPI-free) -> engine, frame, common

Dependencies that break the rule today are listed in known_violations.txt
(one 'FROM -> TO via WHAT in FILE' line each). The check fails on any
dependency that breaks the rule and is not listed, and on a listed one
that is gone (so the list only shrinks, and says what is left).

    tests/layers/check_layers.py [--objects BUILD_DIR] [--write-known]
With --objects, the object files of a build (build/openmpi) give the
symbol references; without, only includes are checked (the build runs it so
before compiling any room: a wrong include fails the build).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_violations.txt")


def read_layers(root):
    """{room: set of rooms it may use} from lib/layers.txt."""
    layers = {}
    with open(os.path.join(root, "lib", "layers.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            room, _, uses = line.partition(":")
            layers[room.strip()] = set(uses.split())
    return layers


LAYERS = read_layers(ROOT)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/([A-Za-z0-9_.]+)"', re.M)


def rooms():
    lib = os.path.join(ROOT, "lib")
    return sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))


def include_deps():
    deps = set()
    for room in rooms():
        folder = os.path.join(ROOT, "lib", room)
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for target, header in INCLUDE_RE.findall(text):
                if target != room and target in LAYERS:
                    deps.add((room, target, "include %s/%s" % (target, header), "lib/%s/%s" % (room, name)))
    return deps


def object_rooms(build):
    """{room: [object files]} of the library's own objects in a build tree."""
    found = {}
    for dirpath, _, files in os.walk(build):
        parts = dirpath.replace(os.sep, "/").split("/")
        # CMakeFiles/<target>.dir/lib/<room>: the library's targets only (tests
        # compile some lib sources again under __/__/lib)
        if len(parts) < 3 or parts[-2] != "lib" or "__" in parts or not parts[-3].endswith(".dir"):
            continue
        room = parts[-1]
        if room not in LAYERS:
            continue
        for f in files:
            if f.endswith(".o"):
                found.setdefault(room, []).append(os.path.join(dirpath, f))
    return found


def nm(path):
    out = subprocess.run(["nm", "-P", path], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRCVWtdbr" and kind.isupper():
            defined.add(name)
    return defined, undefined


def symbol_deps(build):
    objs = object_rooms(build)
    if not objs:
        sys.exit("check_layers: no library objects under %s (build it first)" % build)
    owner = {}
    refs = []
    for room, files in objs.items():
        for path in files:
            defined, undefined = nm(path)
            for s in defined:
                owner[s] = room
            src = os.path.basename(path)[:-2]   # name.c.o -> name.c
            refs.append((room, "lib/%s/%s" % (room, src), undefined))
    deps = set()
    for room, src, undefined in refs:
        for s in undefined:
            target = owner.get(s)
            if target and target != room:
                deps.add((room, target, "calls %s" % s, src))
    return deps


def fmt(d):
    return "%s -> %s via %s in %s" % d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objects", help="build tree whose library objects give symbol references")
    ap.add_argument("--write-known", action="store_true", help="record today's violations as known")
    a = ap.parse_args()
    deps = include_deps()
    if a.objects:
        deps |= symbol_deps(a.objects)
    bad = {fmt(d) for d in deps if d[1] not in LAYERS.get(d[0], set())}
    unknown_rooms = sorted(set(rooms()) - set(LAYERS))
    if unknown_rooms:
        print("check_layers: lib/%s is not in the layering table (lib/layers.txt)"
              % ", lib/".join(unknown_rooms))
        return 1
    if a.write_known:
        with open(KNOWN, "w", encoding="utf-8") as f:
            f.write("# Dependencies that break the layering rule today (tests/layers/check_layers.py).\n"
                    "# Remove a line when its dependency is gone; never add one.\n")
            for line in sorted(bad):
                f.write(line + "\n")
        print("check_layers: %d known violations written" % len(bad))
        return 0
    known = set()
    with open(KNOWN, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                known.add(line)
    if not a.objects:   # symbol lines cannot be checked without objects
        known = {k for k in known if " via include " in k}
    new = sorted(bad - known)
    gone = sorted(known - bad)
    for line in new:
        room = line.split(" -> ")[0]
        print("check_layers: FAIL %s: breaks the layering rule, lib/%s may use only: %s (lib/layers.txt, "
              "docs/design.md)" % (line, room, ", ".join(sorted(LAYERS[room])) or "nothing"))
    for line in gone:
        print("check_layers: FAIL '%s' is listed in tests/layers/known_violations.txt but gone: remove the line"
              % line)
    print("check_layers: %d dependencies between rooms, %d known violations left, %d new, %d gone"
          % (len(deps), len(known & bad), len(new), len(gone)))
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
