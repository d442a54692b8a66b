#!/usr/bin/env bash
# Fails when a UI test's expected output has no test, or a test has no
# expected output: every ui-tests/ui/X.stderr needs X.rs and the reverse.
# (zerocopy's ci/check_stale_stderr.sh does the same.)
set -euo pipefail
cd "$(dirname "$0")/../ui-tests/ui"
status=0
for f in *.stderr; do
    [ -e "$f" ] || continue
    if [ ! -e "${f%.stderr}.rs" ]; then
        echo "stale: ui-tests/ui/$f has no ${f%.stderr}.rs" >&2
        status=1
    fi
done
for f in *.rs; do
    [ -e "$f" ] || continue
    if [ ! -e "${f%.rs}.stderr" ]; then
        echo "missing: ui-tests/ui/$f has no ${f%.rs}.stderr (run TRYBUILD=overwrite cargo test -p ui-tests)" >&2
        status=1
    fi
done
exit $status
