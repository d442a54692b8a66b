#!/usr/bin/env bash
# Embedded size check: the int4 matvec of `embedded-check/`,
# built for a Cortex-M4 (thumbv7em-none-eabihf) at cargo's default release
# profile, no LTO, with a panic handler that formats nothing.
#
# Each entry point is linked on its own with `--gc-sections`, so only the
# code reachable from it remains. The check fails when
#   - a `core::fmt` symbol is reachable from `matvec_get` or `matvec_iter`
#     (a panic path that formats: a slice index, `expect`, a division, an
#     `Error`'s Display), or
#   - either one's code (the linked `.text` section: every function
#     reachable from it, the panic path included) is larger than
#     BUDGET_NUM/BUDGET_DEN times the hand-written `matvec_hand`'s.
# `.text` and not llvm-size's Berkeley "text" column, which also counts
# `.rodata`: the 2 KiB of weights would hide any difference in code.
#
# Run from anywhere: `bash .ci/embedded-size.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."

# The budget: 1.5× the hand-written kernel's code.
BUDGET_NUM=3
BUDGET_DEN=2

TARGET=thumbv7em-none-eabihf
LIBRARY_PATHS="matvec_get matvec_iter"
HAND=matvec_hand

# Tools: rust-lld ships with the toolchain; llvm-nm and llvm-size come with
# the llvm-tools component, or Debian's llvm when rustup cannot add it.
rustup target add "$TARGET" >/dev/null
host=$(rustc -vV | sed -n 's/^host: //p')
tools="$(rustc --print sysroot)/lib/rustlib/$host/bin"
lld="$tools/rust-lld"
if rustup component add llvm-tools >/dev/null 2>&1 && [ -x "$tools/llvm-nm" ]; then
    nm="$tools/llvm-nm"
    size="$tools/llvm-size"
else
    command -v llvm-nm >/dev/null || { apt-get update -qq && apt-get install -y -qq llvm >/dev/null; }
    nm=llvm-nm
    size=llvm-size
fi

# Default release profile; LTO stated off so a profile change cannot
# silently make the figures look better.
CARGO_PROFILE_RELEASE_LTO=false \
    cargo rustc -p embedded-check --lib --release --target "$TARGET" --crate-type staticlib
lib="${CARGO_TARGET_DIR:-target}/$TARGET/release/libembedded_check.a"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Links `$1` alone and prints its `.text` size in bytes.
link() {
    local elf="$work/$1.elf"
    "$lld" -flavor gnu --gc-sections --entry "$1" --undefined "$1" -o "$elf" "$lib"
    if ! "$nm" --defined-only "$elf" | grep -qw "$1"; then
        echo "error: $1 is not in the linked image (renamed?)" >&2
        return 1
    fi
    "$size" -A "$elf" | awk '$1 == ".text" { print $2 }'
}

# The functions in `$1`'s image, largest first, demangled.
functions() {
    "$nm" --demangle --defined-only --size-sort --reverse-sort -S "$work/$1.elf" |
        awk '$3 ~ /^[tTwW]$/'
}

hand_size=$(link "$HAND")
budget=$((hand_size * BUDGET_NUM / BUDGET_DEN))
printf '%-12s %6s bytes of code (the reference)\n' "$HAND" "$hand_size"

status=0
for entry in $LIBRARY_PATHS; do
    entry_size=$(link "$entry")
    printf '%-12s %6s bytes of code, %d.%02d× the hand-written (budget %s bytes, %d.%02d×)\n' \
        "$entry" "$entry_size" \
        $((entry_size / hand_size)) $((entry_size * 100 / hand_size % 100)) \
        "$budget" $((BUDGET_NUM / BUDGET_DEN)) $((BUDGET_NUM * 100 / BUDGET_DEN % 100))
    failed=0
    fmt_symbols=$("$nm" --demangle --defined-only "$work/$entry.elf" | grep 'core::fmt' || true)
    if [ -n "$fmt_symbols" ]; then
        echo "FAIL: core::fmt is reachable from $entry:" >&2
        printf '%s\n' "$fmt_symbols" >&2
        failed=1
    fi
    if [ $((entry_size * BUDGET_DEN)) -gt $((hand_size * BUDGET_NUM)) ]; then
        echo "FAIL: $entry's code ($entry_size bytes) exceeds the budget of $budget bytes" >&2
        failed=1
    fi
    if [ "$failed" -ne 0 ]; then
        echo "functions reachable from $entry (address, size, kind, name):" >&2
        functions "$entry" >&2
        status=1
    fi
done
exit $status
