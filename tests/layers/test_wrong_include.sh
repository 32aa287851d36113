#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The layering check fails on a wrong include, naming the rule: a copy of
# lib/ and the check passes as it is, then fails once a core file includes
# a coll header (core may not use coll) and once a coll file includes a
# wrappers header. The build runs the same check (CMakeLists.txt,
# compi_layers) before any room compiles.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d /tmp/compi-test-layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

fresh() {
    rm -rf "$tmp/tree"
    mkdir -p "$tmp/tree/tests/layers"
    cp -r "$root/lib" "$tmp/tree/lib"
    cp "$here/check_layers.py" "$here/known_violations.txt" "$tmp/tree/tests/layers/"
}

# expect_fail FILE INCLUDE PATTERN: FILE (in the copy) with INCLUDE added fails the check with PATTERN
expect_fail() {
    local file=$1 inc=$2 pat=$3 rc=0
    fresh
    printf '#include "%s"\n' "$inc" >> "$tmp/tree/$file"
    python3 "$tmp/tree/tests/layers/check_layers.py" >"$tmp/out" 2>&1 || rc=$?
    cat "$tmp/out"
    (( rc == 1 )) && ok "$file including $inc: exit 1" || fail "$file including $inc: exit $rc, expected 1"
    grep -Eq -- "$pat" "$tmp/out" && ok "message names the rule: /$pat/" || fail "no line matches /$pat/"
}

fresh
rc=0
python3 "$tmp/tree/tests/layers/check_layers.py" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
(( rc == 0 )) && ok "the tree as it is passes" || fail "the tree as it is fails (exit $rc)"

expect_fail lib/core/escape.c coll/coll.h \
    'FAIL core -> coll via include coll/coll.h in lib/core/escape.c: breaks the layering rule, lib/core may use only: codecs, common, engine, frame, netcal, pool \(lib/layers.txt'
expect_fail lib/coll/layout.c wrappers/impl.h \
    'FAIL coll -> wrappers via include wrappers/impl.h in lib/coll/layout.c: breaks the layering rule'
# a new header of a lower room including an upper one, too
fresh
printf '#ifndef X\n#define X\n#include "io/twophase.h"\n#endif\n' > "$tmp/tree/lib/engine/upward.h"
rc=0
python3 "$tmp/tree/tests/layers/check_layers.py" >"$tmp/out" 2>&1 || rc=$?
(( rc == 1 )) && grep -q 'FAIL engine -> io via include io/twophase.h in lib/engine/upward.h' "$tmp/out" \
    && ok "engine header including io fails" || { cat "$tmp/out"; fail "engine header including io: exit $rc"; }

(( fails == 0 )) && echo "test_wrong_include: all passed" || { echo "test_wrong_include: $fails failure(s)"; exit 1; }
