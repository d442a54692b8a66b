#!/usr/bin/env bash
# Runs fuzz targets: `fuzz/run.sh SECONDS [TARGET...]` runs each target
# (all four by default) for SECONDS; `RUNS=N fuzz/run.sh SECONDS ...`
# stops a target after N executions instead, if that comes first. Seeds the
# corpora first (seed.sh). Needs nightly and cargo-fuzz. Extra libFuzzer
# flags go in FUZZ_FLAGS; cargo-fuzz flags (e.g. `--sanitizer none`) in
# CARGO_FUZZ_FLAGS. A failure stops with the crash input in
# fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse layout_props relayout xla_util)
./seed.sh > /dev/null
# All targets built at once first, so that cargo builds them side by side
# (`cargo fuzz run` builds one target at a time: in CI, four builds in a
# row took 7 of the smoke run's 9 minutes).
if [ $# -eq 0 ]; then
    # shellcheck disable=SC2086
    cargo +nightly fuzz build ${CARGO_FUZZ_FLAGS:-}
fi
for t in "${targets[@]}"; do
    echo "==> fuzz $t for ${seconds}s${RUNS:+ or $RUNS runs}"
    # shellcheck disable=SC2086
    cargo +nightly fuzz run ${CARGO_FUZZ_FLAGS:-} "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -max_len=256 -print_final_stats=1 \
        ${RUNS:+-runs=$RUNS} ${FUZZ_FLAGS:-}
done
