#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of `compi report` (tools/cmd/report.sh -> tools/report/compi_report.py).
# usage: test_report.sh CASE     (run from anywhere; CTest runs each case)
#   adaptive   sample_adaptive.json (hand-made, engine + guided sections):
#              expected table content, and --plot writes a real PNG
#   fixed      sample_fixed.json (a real fixed-mode report, no engine
#              section): summary + codec chart only
#   malformed  a truncated report: exit 1 with a message naming the cause
#   notreport  valid JSON that is not a compi report, an empty file, a
#              missing file, a binary file: exit 1, the cause named
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tool=$root/tools/compi
tmp=$(mktemp -d /tmp/compi-test-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# expect_in FILE LABEL PATTERN...: every extended regex must match a line
expect_in() {
    local f=$1 label=$2 p; shift 2
    for p in "$@"; do
        if grep -Eq -- "$p" "$f"; then ok "$label: /$p/"; else fail "$label: no line matches /$p/"; fi
    done
}

# check_png FILE MINBYTES: PNG signature, at least MINBYTES
check_png() {
    local f=$1 min=$2
    [[ -s $f ]] || { fail "no plot written at $f"; return; }
    local sig size
    sig=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
    size=$(stat -c %s "$f")
    [[ $sig == 89504e470d0a1a0a ]] && ok "plot is a PNG" || fail "plot $f is not a PNG (signature $sig)"
    (( size >= min )) && ok "plot is $size bytes (>= $min)" || fail "plot $f is only $size bytes (< $min): empty figure?"
}

# expect_error FILE LABEL PATTERN: exit status 1, message on stderr matching PATTERN, no traceback
expect_error() {
    local f=$1 label=$2 pat=$3 rc=0
    bash "$tool" report "$f" --plot "$tmp/err.png" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if (( rc != 1 )); then fail "$label: exit $rc, expected 1"; else ok "$label: exit 1"; fi
    if grep -q Traceback "$tmp/err" "$tmp/out"; then fail "$label: Python traceback instead of a message"; fi
    if grep -Eq -- "^compi report: error: .*$pat" "$tmp/err"; then ok "$label: $(head -n 1 "$tmp/err")"
    else fail "$label: stderr does not match /$pat/: $(cat "$tmp/err")"; fi
    [[ -e $tmp/err.png ]] && fail "$label: a plot was written for a bad report"
    rm -f "$tmp/err.png"
}

case "${1:-}" in
adaptive)
    rc=0
    bash "$tool" report "$here/sample_adaptive.json" --plot "$tmp/a.png" >"$tmp/a.txt" 2>"$tmp/a.err" || rc=$?
    cat "$tmp/a.txt" "$tmp/a.err"
    (( rc == 0 )) || fail "exit status $rc"
    expect_in "$tmp/a.txt" summary \
        'mode adaptive' \
        '4 ranks on 2 node\(s\) \(node 0: ranks 0-1, node 1: ranks 2-3\)' \
        '4956 inter-node, 1300 intra-node' \
        'raw inter-node: 73 small, 73 incompressible' \
        'compress 2\.000 s, decompress 1\.140 s' \
        '^ +fpc +3365 +210\.3 MiB +61\.9 MiB +3\.40 +148\.5 MiB$' \
        '^ +all +4487 +280\.4 MiB +73\.8 MiB +3\.80 +206\.6 MiB$'
    expect_in "$tmp/a.txt" engine \
        'network model: built-in default \(100 Mbit/s, 50 us\) \(54 observations, scale 1\.02\.\.1\.08\)' \
        '^ +0 +p2p +double +inter node0-node1 +2\.0 KiB +64\.0 KiB +fpc +1200 +6 +47 +1147 +0 +0 +1 +0 +3\.20 +2\.90$' \
        '^ +0 +p2p +byte +inter node0-node1 +4\.0 KiB +inf +- +96 +64 +32 +0 +1 +0 +0 +1\* +0\.80 +-$' \
        '^ +2 +alltoall +double +inter node1-node0 .* zstd +800 +40 +88 +672 +2 +1 +2 +1 +2\.40 +2\.10$' \
        '4956 messages: 146 raw, 323 evaluated, 4487 compressed; 3 mistakes, 1 restarts, 5 re-evaluations, 2 back-offs' \
        '^ +3 +40 +1030 +9 +0 +yes$' \
        '^ +1 +40 +1010 +3 +1 +no$' \
        'rule hit rate: 99\.6% \(4060 of 4078\)' \
        'decision timeline of 7 window'
    check_png "$tmp/a.png" 40000
    # --windows bounds the timelines
    rc=0
    bash "$tool" report "$here/sample_adaptive.json" --plot "$tmp/b.png" --windows 2 >"$tmp/b.txt" 2>&1 || rc=$?
    (( rc == 0 )) || fail "--windows 2: exit status $rc"
    expect_in "$tmp/b.txt" windows 'decision timeline of 2 window'
    ;;
fixed)
    rc=0
    bash "$tool" report "$here/sample_fixed.json" --plot "$tmp/f.png" >"$tmp/f.txt" 2>"$tmp/f.err" || rc=$?
    cat "$tmp/f.txt" "$tmp/f.err"
    (( rc == 0 )) || fail "exit status $rc"
    expect_in "$tmp/f.txt" fixed 'mode fixed, codec zstd' '2 ranks on 2 node' \
        '^ +zstd +21 +162\.0 KiB +11\.5 KiB +14\.08 +150\.5 KiB$' \
        'adaptive engine: not in this report \(mode fixed\)' \
        'plot: .* \(bytes saved per codec\)'
    check_png "$tmp/f.png" 10000
    ;;
pool)
    # the fixed sample with a pool section per rank (2 helpers on rank 0, none on 1)
    python3 - "$here/sample_fixed.json" "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["ranks"][0]["pool"] = {"threads": 2, "jobs": 12, "items": 40, "helper_items": 25, "collective_blocks_encoded": 30,
                         "collective_blocks_decoded": 28, "speedup": 1.85}
d["ranks"][1]["pool"] = {"threads": 0, "jobs": 0, "items": 0, "helper_items": 0, "collective_blocks_encoded": 0,
                         "collective_blocks_decoded": 0, "speedup": None}
json.dump(d, open(sys.argv[2], "w"))
PY
    rc=0
    bash "$tool" report "$tmp/p.json" >"$tmp/p.txt" 2>&1 || rc=$?
    cat "$tmp/p.txt"
    (( rc == 0 )) || fail "exit status $rc"
    expect_in "$tmp/p.txt" pool 'codec pool: helper threads per rank: 0 on ranks 1; 2 on ranks 0' \
        '^ +0 +2 +12 +40 +25 +30 +28 +1\.85$' '^ +1 +0 +0 +0 +0 +0 +0 +-$'
    ;;
malformed)
    expect_error "$here/malformed.json" truncated 'invalid JSON: .* at line 46 column 5; the file ends inside the JSON document: truncated'
    printf '{"ranks": [], "totals": {}} trailing' >"$tmp/extra.json"
    expect_error "$tmp/extra.json" trailing 'invalid JSON: Extra data at line 1'
    ;;
notreport)
    echo '{"name": "not compi", "values": [1, 2]}' >"$tmp/other.json"
    expect_error "$tmp/other.json" other-json 'is not a compi report: no "ranks" or "totals" key.*this one has: name, values'
    echo '[1, 2]' >"$tmp/list.json"
    expect_error "$tmp/list.json" list 'is not a compi report: the top level is a JSON list'
    echo '{"ranks": {}, "totals": {}}' >"$tmp/ranks.json"
    expect_error "$tmp/ranks.json" ranks-type '"ranks" is not a list'
    echo '{"ranks": [{"rank": 0, "engine": {"windows": [{"timeline": {"bin": 16, "raw": [1], "evaluated": [], "compressed": [1]}}]}}], "totals": {}}' >"$tmp/tl.json"
    expect_error "$tmp/tl.json" timeline 'ranks\[0\]\.engine\.windows\[0\]: timeline raw/evaluated/compressed lists differ in length'
    : >"$tmp/empty.json"
    expect_error "$tmp/empty.json" empty 'is empty'
    expect_error "$tmp/missing.json" missing 'cannot read .*missing\.json: No such file'
    printf '\x89PNG\r\n\x1a\n\x00\x00' >"$tmp/bin.json"
    expect_error "$tmp/bin.json" binary 'not UTF-8 text'
    ;;
*)
    echo "usage: $0 adaptive|fixed|malformed|notreport" >&2
    exit 2 ;;
esac
if (( fails )); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
