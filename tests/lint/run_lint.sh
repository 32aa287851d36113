#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The lint stage of tests/run_all.sh (needs no build, no MPI, no root):
#   spdx        every source file's SPDX-License-Identifier line (tools/spdx.py)
#   docs        settings documented as config.c defines them, internal links,
#               wording of README/docs/lib (tools/check_docs.py)
#   scripts     every shell script of the tree through shellcheck, warnings
#               and errors (-S warning)
#   pyflakes    every Python file of the tree
#   mkdocs      the documentation site (mkdocs.yml: docs/ and the root
#               documents) builds with mkdocs build --strict: no warning, no
#               link to a page that is not there
# Vendored third-party files (tests/foreign/romio, mpich_io, mpich_coll, mpich_pt2pt)
# are left as published.  Prints PASS/FAIL per check and "N passed, N failed".
# Also: sizes, no lib/ file over 800 lines and no function over 150, data
# tables aside (tests/lint/check_sizes.py); clang-format, the C sources of
# lib/, apps/, bench/ and tools/ as .clang-format lays them out (data
# tables aside: their rows are laid out by hand).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
passed=0 failed=0
check() {  # NAME CMD...
    local name=$1; shift
    local out
    if out=$("$@" 2>&1); then
        echo "PASS $name"; passed=$((passed + 1))
    else
        echo "FAIL $name"; echo "$out" | tail -n 40 | sed 's/^/    /'; failed=$((failed + 1))
    fi
}
vendored='^tests/foreign/(romio|mpich_io|mpich_coll|mpich_pt2pt)/'
mapfile -t shells < <(git ls-files '*.sh' tools/compi tools/cmd/jobshims/srun | grep -Ev "$vendored")
mapfile -t pys < <(git ls-files '*.py' | grep -Ev "$vendored")
data_tables='^lib/(map/dkb_ompi41_table|engine/model_default)\.c$'
mapfile -t csrc < <(git ls-files 'lib/*.[ch]' 'apps/*.[ch]' 'bench/*.[ch]' 'tools/*.[ch]' | grep -Ev "$data_tables")

check spdx python3 tools/spdx.py --check
check sizes python3 tests/lint/check_sizes.py
check docs python3 tools/check_docs.py
if command -v shellcheck >/dev/null 2>&1; then
    check "shellcheck (${#shells[@]} scripts)" shellcheck -s bash -S warning "${shells[@]}"
else
    echo "FAIL shellcheck: not installed (tools/install-deps.sh installs it)"; failed=$((failed + 1))
fi
if command -v pyflakes3 >/dev/null 2>&1; then
    check "pyflakes (${#pys[@]} files)" pyflakes3 "${pys[@]}"
else
    echo "FAIL pyflakes: pyflakes3 not installed (tools/install-deps.sh installs it)"; failed=$((failed + 1))
fi
if command -v clang-format >/dev/null 2>&1; then
    check "clang-format (${#csrc[@]} files)" clang-format --dry-run --Werror --style=file "${csrc[@]}"
else
    echo "FAIL clang-format: not installed (tools/install-deps.sh installs it)"; failed=$((failed + 1))
fi
if command -v mkdocs >/dev/null 2>&1; then
    site=$(mktemp -d /tmp/compi-site.XXXXXX)
    check "mkdocs build --strict" mkdocs build --strict --quiet -f mkdocs.yml -d "$site"
    rm -rf "$site"
else
    echo "FAIL mkdocs: not installed (tools/install-deps.sh installs it)"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
