# SPDX-License-Identifier: BSD-3-Clause
# Shared by the emulated-cluster tests (source it after `set -euo pipefail`):
#   vct_begin NAME [TMPDIR_TEMPLATE]   ROOT, COMPI, NAME, TMP; on exit the
#                                      cluster NAME goes down and TMP goes
#   vct_up SUBNET NODES RATE SLOTS     the cluster NAME up (or fail and finish)
#   pass WHAT / fail WHAT / result RC WHAT / check WHAT CMD...
#   finish                             "N passed, N failed", exit 1 on a failure
# Every check is counted; a script's last line is the summary.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
COMPI=$ROOT/tools/compi
PASS=0 FAIL=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

vct_cleanup() {
    "$COMPI" vcluster down --name "$NAME" >/dev/null 2>&1 || true
    rm -rf "$TMP"
}

vct_begin() {
    NAME=$1
    if [[ $# -ge 2 ]]; then TMP=$(mktemp -d "$2"); else TMP=$(mktemp -d); fi
    trap vct_cleanup EXIT
}

pass() { PASS=$((PASS + 1)); echo "PASS: $* [${SECONDS}s]"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL: $* [${SECONDS}s]"; }
result() {  # result RC WHAT
    local rc=$1; shift
    if [[ $rc == 0 ]]; then pass "$@"; else fail "$@"; fi
}
check() {  # check "description" command...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
    echo "$PASS passed, $FAIL failed"
    exit $((FAIL > 0 ? 1 : 0))
}

vct_up() {  # vct_up SUBNET NODES RATE SLOTS: cluster NAME up, or the test ends failed
    "$COMPI" vcluster up --name "$NAME" --subnet "$1" --nodes "$2" --rate "$3" --slots "$4" >"$TMP/up.log" 2>&1 ||
        { cat "$TMP/up.log"; fail "vcluster up"; finish; }
}
